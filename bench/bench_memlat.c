/* Memory latency by working-set size: the time of one load whose address comes from the load
 * before (a random cycle through the 64-byte lines of a buffer on 2 MiB pages, as the model's
 * state is), for buffers of 256 KiB to 1 GiB. It says which caches the machine really gives a
 * process, which the CPU's nominal sizes may not: a virtual machine shares its host's L3 with
 * other guests. A fat tree's time per event grows with k where its hot state outgrows that size
 * (docs/limits.md), so `make bench-scale` prints this beside its ratio of k = 32 to k = 8.
 *   bench_memlat [MAX_MIB]   (default 1024)
 * Prints one line per size, "bench_memlat: SIZE KiB N ns per dependent load". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/benchutil.h"
#include "sim/hugepage.h"
#include "sim/util.h"

#define LINE 64
#define LOADS 20000000ULL /* per size: ~0.1-4 s */

/* xorshift64: the cycle's order only needs to defeat the hardware prefetchers. */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Links the lines of buf (n of them) into one random cycle: each line's first word points to
 * the next line. */
static void link_cycle(char *buf, size_t n)
{
    size_t *order = xcalloc(n, sizeof(*order));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    uint64_t s = 88172645463325252ULL;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t)(next_rand(&s) % (i + 1));
        size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        *(char **)(buf + order[i] * LINE) = buf + order[(i + 1) % n] * LINE;
    free(order);
}

/* ns per load of a walk around the cycle of a `bytes` buffer (after one lap to warm it). */
static double walk_ns(size_t bytes)
{
    size_t n = bytes / LINE;
    char *buf = hugepage_alloc(bytes);
    link_cycle(buf, n);
    char *p = buf;
    for (size_t i = 0; i < n; i++)
        p = *(char **)p;
    double t0 = bench_now();
    for (uint64_t i = 0; i < LOADS; i++)
        p = *(char **)p;
    double ns = (bench_now() - t0) * 1e9 / (double)LOADS;
    if (p == NULL) /* never: keeps the walk's result live */
        printf("bench_memlat: empty cycle\n");
    free(buf);
    return ns;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long max_mib = argc > 1 ? strtol(argv[1], &end, 10) : 1024;
    if (argc > 2 || (end && *end) || max_mib < 1 || max_mib > 65536) {
        fprintf(stderr, "usage: bench_memlat [MAX_MIB] (1 to 65536, default 1024)\n");
        return 2;
    }
    for (size_t kib = 256; kib <= (size_t)max_mib * 1024; kib *= 2)
        printf("bench_memlat: %8zu KiB %7.1f ns per dependent load\n", kib,
               walk_ns(kib * 1024));
    return 0;
}
