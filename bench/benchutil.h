/* Helpers for the benchmarks: wall clock and peak resident memory. */
#ifndef SIM_BENCH_BENCHUTIL_H
#define SIM_BENCH_BENCHUTIL_H

#include <sys/resource.h>
#include <time.h>

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

#endif
