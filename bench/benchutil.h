/* Helpers for the benchmarks: wall clock, peak resident memory, loading and timing a scenario. */
#ifndef SIM_BENCH_BENCHUTIL_H
#define SIM_BENCH_BENCHUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/app/scenario.h"

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident set size of this process so far, MiB. */
static inline double bench_peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* The scenario of `yaml` (errors to stderr, located in `name`); exits 1 if it does not load. */
static inline struct scenario *bench_load(const char *name, const char *yaml)
{
    struct diag d;
    diag_init(&d, stderr);
    struct scenario *sc = scenario_load_string(name, yaml, NULL, &d);
    if (!sc)
        exit(1);
    return sc;
}

/* Runs the scenario to its end; returns the wall time it took, seconds. */
static inline double bench_run(struct scenario *sc)
{
    double t0 = bench_now();
    scenario_run(sc);
    return bench_now() - t0;
}

#endif
