/* The foundation incast scaled up: 64 senders x 16 MB of UDP at line rate into one 10 Gbps
 * port with a 32 MB shared buffer. Reports wall time, events/s, packets/s and peak RSS, and runs
 * the same with 4 MB per sender to show that memory does not grow with simulated time (the
 * buffer bounds the packets alive; links hold one timer each). */
#include <stdio.h>
#include <stdlib.h>

#include "bench/benchutil.h"
#include "models/net/pkt.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

/* Returns the wall time of the run. */
static double run(int senders, const char *bytes, const char *program)
{
    size_t cap = 1024 + (size_t)senders * 96;
    char *y = xmalloc(cap);
    int len = snprintf(y, cap,
                       "topology: {kind: star, hosts: %d, link: {rate: 10Gbps, delay: 1us}}\n"
                       "defaults: {switch: {buffer: 32MB, program: %s}}\nflows:\n",
                       senders + 1, program);
    for (int i = 0; i < senders; i++)
        len += snprintf(y + len, cap - (size_t)len, "  - {src: h%d, dst: h%d, bytes: %s}\n", i,
                        senders, bytes);
    struct scenario *sc = bench_load("bench", y);
    double dt = bench_run(sc);
    uint64_t pkts = sc->sim->next_pkt_id;
    printf("incast %2d x %-5s %-5s simulated %8.3f ms  wall %6.3f s  %6.2f M events/s  "
           "%6.2f M packets/s  evq max %u  pkt pool peak %lld  peak RSS %.1f MiB\n",
           senders, bytes, program, simtime_sec(sc->sim->now) * 1e3, dt,
           (double)sc->events / dt / 1e6, (double)pkts / dt / 1e6, sc->sim->evq.cap,
           (long long)sc->sim->pkt_pool.peak_live, bench_peak_rss_mib());
    scenario_destroy(sc);
    free(y);
    return dt;
}

int main(void)
{
    run(64, "4MB", "none");
    double fixed = run(64, "16MB", "none");
    double p4 = run(64, "16MB", "basic");
    printf("incast 64 x 16MB: basic.p4 / fixed routing wall-time ratio %.2f\n", p4 / fixed);
    return 0;
}
