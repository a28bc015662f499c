/* What P4 switches cost in whole scenarios: the same scenario with basic.p4 (native engine,
 * compiled engine, and the interpreter) and with `program: none` (fixed-function forwarding),
 * in CPU time of this process (other load on the machine inflates it less than wall time):
 * incast 64 x 16 MB UDP, VGG-16 with a parameter server (8 workers, ITER iterations), 64 DCTCP
 * flows for 100 ms; and the time to build a k=32 fat-tree (8,192 hosts, 1,280 switches, 10.5
 * million route entries with P4) with and without P4. Targets: P4 <= 1.3 x none, fat-tree
 * build <= 3 s. Each case's time is the least of BENCH_P4_ROUNDS (default 5) rounds that run
 * the cases in turn (BENCH_P4_FORK=1: each run in a child process of its own; BENCH_P4_STOP=T:
 * each scenario stops at T, to trace a part of it).
 * Usage: bench_p4scen [--case incast|vgg|dctcp|fattree] [ITER (default 2)] (--case: that case
 * alone); bench_p4scen --yaml DIR [ITER] writes each scenario instead, as DIR/NAME-none.yaml,
 * NAME-native.yaml and NAME-compiled.yaml (NAME: incast, vgg, dctcp), for counting
 * instructions with callgrind (scripts/bench-p4-instr.sh).
 * Run from the repository root. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds of running the scenario `fmt` with program/engine set, in this process. */
static double run_here(const char *fmt, const char *program, const char *exec, uint64_t *events)
{
    char sw[128];
    snprintf(sw, sizeof(sw), "program: %s, p4_exec: %s", program, exec);
    const char *stop = getenv("BENCH_P4_STOP");
    char *y0 = xasprintf(fmt, sw);
    const char *rest = strncmp(y0, "stop:", 5) == 0 ? strchr(y0, '\n') + 1 : y0;
    char *y = stop ? xasprintf("stop: %s\n%s", stop, rest) : xstrdup(y0);
    free(y0);
    struct scenario *sc = bench_load("bench_p4scen", y);
    double t0 = cpu_now();
    scenario_run(sc);
    double dt = cpu_now() - t0;
    *events = sc->events;
    scenario_destroy(sc);
    free(y);
    return dt;
}

struct child_res {
    double t;
    uint64_t events;
};

/* run_here, or with BENCH_P4_FORK=1 in a child process of its own (a fresh heap for each run,
 * as `ddlsim run` has: compares what running many scenarios in one process does). */
static double run(const char *fmt, const char *program, const char *exec, uint64_t *events)
{
    const char *f = getenv("BENCH_P4_FORK");
    if (!f || strcmp(f, "1") != 0)
        return run_here(fmt, program, exec, events);
    int fd[2];
    fflush(NULL);
    pid_t pid = pipe(fd) == 0 ? fork() : -1;
    if (pid < 0) {
        perror("bench_p4scen: fork");
        exit(1);
    }
    if (pid == 0) {
        struct child_res r;
        r.t = run_here(fmt, program, exec, &r.events);
        _exit(write(fd[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(fd[1]);
    struct child_res r;
    bool ok = read(fd[0], &r, sizeof(r)) == (ssize_t)sizeof(r);
    close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid || !ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_p4scen: a run failed\n");
        exit(1);
    }
    *events = r.events;
    return r.t;
}

static char *incast(void)
{
    size_t cap = 1 << 14;
    char *y = xmalloc(cap);
    int n = snprintf(y, cap,
                     "topology: {kind: star, hosts: 65, link: {rate: 10Gbps, delay: 1us}}\n"
                     "defaults: {switch: {buffer: 32MB, %%s}}\nflows:\n");
    for (int i = 0; i < 64; i++)
        n += snprintf(y + n, cap - (size_t)n, "  - {src: h%d, dst: h64, bytes: 16MB}\n", i);
    return y;
}

static char *vgg(int iterations)
{
    return xasprintf("topology: {kind: star, hosts: 9, link: {rate: 10Gbps, delay: 1us},"
                     " switch: {pfc: true, %%s}}\n"
                     "jobs:\n  - {name: vgg, model: vgg16, workers: [h0, h1, h2, h3, h4, h5, h6,"
                     " h7], servers: [h8], iterations: %d, chunk: 4MB}\n",
                     iterations);
}

static char *dctcp(void)
{
    size_t cap = 1 << 14;
    char *y = xmalloc(cap);
    int n = snprintf(y, cap,
                     "stop: 100ms\n"
                     "topology: {kind: star, hosts: 65, link: {rate: 10Gbps, delay: 5us}}\n"
                     "defaults:\n"
                     "  switch: {buffer: 4MB, ecn: threshold, ecn_unit: packets, ecn_kmin: 65,"
                     " %%s}\n"
                     "  flow: {type: tcp, cc: dctcp, rto_min: 1ms, rto_init: 1ms}\nflows:\n");
    for (int i = 0; i < 64; i++)
        n += snprintf(y + n, cap - (size_t)n, "  - {src: h%d, dst: h64}\n", i);
    return y;
}

/* Runs the scenario with none and with basic.p4 on every engine, `rounds` times in turn, and
 * keeps each one's least CPU time (one run of a short scenario moves by more than the 1.3
 * margin on a shared machine); returns native / none. */
static double scenario(const char *name, const char *fmt, int rounds)
{
    static const char *const cases[][2] = {
        {"none", "auto"}, {"basic", "native"}, {"basic", "compiled"}, {"basic", "interp"}};
    double best[4];
    uint64_t ev[4];
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 4; i++) {
            double t = run(fmt, cases[i][0], cases[i][1], &ev[i]);
            best[i] = r == 0 || t < best[i] ? t : best[i];
        }
    }
    printf("bench_p4scen: %-28s none %7.3f s  basic.p4 native %7.3f s (%.2fx)  compiled %7.3f s "
           "(%.2fx)  interpreted %7.3f s (%.2fx)  events %llu / %llu\n",
           name, best[0], best[1], best[1] / best[0], best[2], best[2] / best[0], best[3],
           best[3] / best[0], (unsigned long long)ev[0], (unsigned long long)ev[2]);
    return best[1] / best[0];
}

/* Writes DIR/NAME-none.yaml, NAME-native.yaml and NAME-compiled.yaml; 0 or -1. */
static int write_yaml(const char *dir, const char *name, const char *fmt)
{
    static const char *const sw[][2] = {{"none", "program: none"},
                                        {"native", "program: basic, p4_exec: native"},
                                        {"compiled", "program: basic, p4_exec: compiled"}};
    for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
        char *path = xasprintf("%s/%s-%s.yaml", dir, name, sw[i][0]);
        char *y = xasprintf(fmt, sw[i][1]);
        FILE *f = fopen(path, "w");
        int rc = f && fputs(y, f) >= 0 ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc != 0)
            fprintf(stderr, "bench_p4scen: cannot write %s\n", path);
        free(y);
        free(path);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* CPU seconds of building (loading) a k=32 fat-tree whose route table holds every host. */
static double fat_tree(const char *program)
{
    char *y = xasprintf("stop: 1us\n"
                        "topology: {kind: fat_tree, k: 32, link: {rate: 10Gbps, delay: 1us},"
                        " switch: {program: %s}}\n",
                        program);
    double t0 = cpu_now();
    struct scenario *sc = bench_load("bench_p4scen", y);
    double dt = cpu_now() - t0;
    scenario_destroy(sc);
    free(y);
    return dt;
}

/* The cases `--case NAME` may select; NULL (no --case) runs them all. */
static bool wanted(const char *only, const char *name)
{
    return !only || strcmp(only, name) == 0;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    const char *only = NULL;
    int ai = 1;
    for (; ai < argc && strncmp(argv[ai], "--", 2) == 0; ai += 2) {
        bool yaml = strcmp(argv[ai], "--yaml") == 0;
        if (ai + 1 >= argc || (!yaml && strcmp(argv[ai], "--case") != 0)) {
            fprintf(stderr, "bench_p4scen: usage: bench_p4scen [--case NAME] [--yaml DIR] "
                            "[ITERATIONS]\n");
            return 2;
        }
        *(yaml ? &dir : &only) = argv[ai + 1];
    }
    if (only && !wanted(only, "incast") && !wanted(only, "vgg") && !wanted(only, "dctcp") &&
        !wanted(only, "fattree")) {
        fprintf(stderr, "bench_p4scen: --case is one of incast, vgg, dctcp, fattree\n");
        return 2;
    }
    int iterations = argc > ai ? atoi(argv[ai]) : 2;
    if (iterations < 1 || argc > ai + 1) {
        fprintf(stderr, "bench_p4scen: ITERATIONS is a positive number, and the last argument\n");
        return 2;
    }
    const char *re = getenv("BENCH_P4_ROUNDS");
    int rounds = re && atoi(re) > 0 ? atoi(re) : 5;
    char *a = incast();
    char *b = vgg(iterations);
    char *c = dctcp();
    int rc = 0;
    if (dir) {
        rc = write_yaml(dir, "incast", a) || write_yaml(dir, "vgg", b) ||
                     write_yaml(dir, "dctcp", c)
                 ? 1
                 : 0;
    } else if (!only || strcmp(only, "fattree") != 0) {
        double worst = 0;
        char name[64];
        snprintf(name, sizeof(name), "VGG-16 PS (%d iterations)", iterations);
        const char *names[] = {"incast 64 x 16MB", name, "64 DCTCP flows, 100 ms"};
        const char *keys[] = {"incast", "vgg", "dctcp"};
        const char *fmts[] = {a, b, c};
        for (int i = 0; i < 3; i++) {
            double r = wanted(only, keys[i]) ? scenario(names[i], fmts[i], rounds) : 0;
            worst = r > worst ? r : worst;
        }
        printf("bench_p4scen: target P4 <= 1.3 x none (least CPU time of %d rounds): %s (worst "
               "%.2fx)\n",
               rounds, worst <= 1.3 ? "met" : "MISSED", worst);
    }
    if (!dir && wanted(only, "fattree")) {
        /* basic.p4's route table holds 1,024 entries: the fat-tree's switches get
         * basic_wide.p4 (room for every host) */
        double ftn = fat_tree("none");
        double ftp = fat_tree("basic");
        printf("bench_p4scen: k=32 fat-tree build: none %.2f s, basic.p4 (basic_wide.p4) %.2f s;"
               " target <= 3 s: %s\n",
               ftn, ftp, ftp <= 3 ? "met" : "MISSED");
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
