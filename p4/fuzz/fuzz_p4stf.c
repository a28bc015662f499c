/* libFuzzer target: the STF runner on arbitrary scripts against every program of p4/programs
 * (the list comes from the folder, so a program added there is fuzzed too). The programs are
 * loaded once and run on the native engine (compiled once per process); the first byte of an
 * input picks one, the rest is the script, and every input gets a fresh pipeline. */
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4stf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libFuzzer harness state: the programs, loaded once per process */
struct progs {
    struct p4_prog **v;
    size_t n;
};

static void load_all(struct progs *ps)
{
    glob_t g;
    if (glob("p4/programs/*.p4", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
        fprintf(stderr, "fuzz_p4stf: no programs in p4/programs (run from the repository)\n");
        abort();
    }
    ps->v = calloc(g.gl_pathc, sizeof(*ps->v));
    for (size_t i = 0; i < g.gl_pathc; i++) {
        int nerr;
        struct p4_prog *p = p4_prog_load(g.gl_pathv[i], "p4/include", stderr, &nerr);
        if (p) { /* native: each program is compiled once per process, not per input */
            p4_prog_set_exec(p, P4_EXEC_NATIVE);
            ps->v[ps->n++] = p;
        } else
            fprintf(stderr, "fuzz_p4stf: %s does not load; skipped\n", g.gl_pathv[i]);
    }
    fprintf(stderr, "fuzz_p4stf: %zu programs\n", ps->n);
    globfree(&g);
    if (ps->n == 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct progs ps;
    if (!ps.n)
        load_all(&ps);
    if (size == 0)
        return 0;
    const struct p4_prog *prog = ps.v[data[0] % ps.n];
    char path[] = "/tmp/ddlsim-fuzz-stf-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    FILE *devnull = fopen("/dev/null", "w");
    p4stf_run(prog, path, devnull, devnull);
    fclose(devnull);
    unlink(path);
    return 0;
}
