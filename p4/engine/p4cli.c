/* `ddlsim p4 check FILE.p4` and `ddlsim p4 test FILE.p4 FILE.stf`. The include directory is
 * $DDLSIM_P4_INCLUDE, else p4/include of the installation, found relative to the executable
 * (../p4/include from build/), never in the working directory. */
#include "p4/engine/p4cli.h"
#include "p4/engine/p4.h"
#include "p4/engine/p4stf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *include_dir(char *buf, size_t cap)
{
    const char *env = getenv("DDLSIM_P4_INCLUDE");
    if (env && *env)
        return env;
    char exe[1800];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return "p4/include";
    exe[n] = 0;
    char first[2000] = "p4/include";
    /* build/ddlsim, build/tests/x, build/asan/tests/x: up to three folders up */
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            break;
        *slash = 0;
        char cand[2000];
        snprintf(cand, sizeof(cand), "%s/p4/include", exe);
        if (up == 1) /* not installed: messages name where the headers were expected */
            snprintf(first, sizeof(first), "%s", cand);
        if (is_dir(cand)) {
            snprintf(buf, cap, "%s", cand);
            return buf;
        }
    }
    snprintf(buf, cap, "%s", first);
    return buf;
}

static int usage(void)
{
    fprintf(stderr, "usage: ddlsim p4 check FILE.p4\n"
                    "       ddlsim p4 test [--p4-exec=compiled|native|interp] FILE.p4 FILE.stf\n");
    return 2;
}

int p4cli_main(int argc, char **argv)
{
    if (argc < 1)
        return usage();
    bool check = strcmp(argv[0], "check") == 0;
    bool test = strcmp(argv[0], "test") == 0;
    enum p4_exec exec = P4_EXEC_DEFAULT;
    if (test && argc > 1 && strncmp(argv[1], "--p4-exec=", 10) == 0) {
        if (p4_exec_parse(argv[1] + 10, &exec) < 0) {
            fprintf(stderr,
                    "ddlsim: error: --p4-exec expects compiled, native or interp, got '%s'\n",
                    argv[1] + 10);
            return 2;
        }
        argv++;
        argc--;
    }
    if ((!check || argc != 2) && (!test || argc != 3))
        return usage();
    char buf[4096];
    const char *inc = include_dir(buf, sizeof(buf));
    int nerrors = 0;
    struct p4_prog *prog = p4_prog_load(argv[1], inc, stderr, &nerrors);
    if (!prog)
        return 2;
    int rc = 0;
    p4_prog_set_exec(prog, exec);
    if (test)
        rc = p4stf_run(prog, argv[2], stdout, stderr);
    p4_prog_free(prog);
    return rc;
}
