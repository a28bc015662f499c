/* Running the C preprocessor on a P4 program, as p4c does (see p4cpp.h). */
#include "p4/engine/p4cpp.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "p4/engine/p4cppcache.h"
#include "p4/engine/p4proc.h"

/* Refuses what cpp would choke on with a confusing message: directories, devices, FIFOs, files
 * larger than the output limit. */
static bool check_input(const char *path, FILE *diag_out)
{
    struct stat st;
    const char *why = NULL;
    if (stat(path, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a folder, not a P4 program";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    else if ((uint64_t)st.st_size > P4CPP_MAX_OUTPUT)
        why = "is larger than the limit of 64 MB";
    if (why && diag_out)
        fprintf(diag_out, "%s: error: %s\n", path, why);
    return why == NULL;
}

static void print_messages(const char *path, const struct p4proc_result *r, FILE *diag_out)
{
    if (!diag_out)
        return;
    fwrite(r->err, 1, r->nerr, diag_out);
    if (r->nerr && r->err[r->nerr - 1] != '\n')
        fputc('\n', diag_out);
    if (r->err_dropped)
        fprintf(diag_out, "%s: note: %zu more bytes of preprocessor messages not shown\n", path,
                r->err_dropped);
}

static char *run(const char *path, const char *include_dir, FILE *diag_out, size_t *len,
                 bool keep)
{
    if (!check_input(path, diag_out))
        return NULL;
    char *kept = keep ? p4cppcache_get(path, include_dir, len) : NULL;
    if (kept)
        return kept;
    char *argv[] = {"cpp",
                    "-C",
                    "-undef",
                    "-nostdinc",
                    "-x",
                    "assembler-with-cpp",
                    "-D__TARGET_BMV2__",
                    "-I",
                    (char *)include_dir,
                    (char *)path,
                    NULL};
    const struct p4proc_limits lim = {P4CPP_MAX_MEMORY, P4CPP_MAX_SECONDS, P4CPP_MAX_OUTPUT,
                                      P4CPP_MAX_MESSAGES};
    struct p4proc_result r;
    if (p4proc_run(argv, "the preprocessor", &lim, &r) != 0) {
        if (diag_out)
            fprintf(diag_out, "%s: error: cannot run the preprocessor\n", path);
        return NULL;
    }
    print_messages(path, &r, diag_out);
    bool ok = p4proc_ok(&r);
    if (!ok && diag_out) {
        if (r.gave_up)
            fprintf(diag_out, "%s: error: %s (%d s, %d MB of output)\n", path, r.gave_up,
                    P4CPP_MAX_SECONDS, (int)(P4CPP_MAX_OUTPUT >> 20));
        else if (WIFSIGNALED(r.status))
            fprintf(diag_out,
                    "%s: error: the preprocessor was stopped by signal %d (limits: %d s of CPU, "
                    "%d MB of memory)\n",
                    path, WTERMSIG(r.status), P4CPP_MAX_SECONDS, (int)(P4CPP_MAX_MEMORY >> 20));
        else if (!r.nerr)
            fprintf(diag_out, "%s: error: preprocessing failed\n", path);
    }
    free(r.err);
    if (!ok) {
        free(r.out);
        return NULL;
    }
    if (keep && !r.nerr)
        p4cppcache_put(path, include_dir, r.out, r.nout);
    *len = r.nout;
    return r.out;
}

char *p4cpp_run(const char *path, const char *include_dir, FILE *diag_out, size_t *len)
{
    return run(path, include_dir, diag_out, len, false);
}

char *p4cpp_run_cached(const char *path, const char *include_dir, FILE *diag_out, size_t *len)
{
    return run(path, include_dir, diag_out, len, true);
}
