/* The foundation incast scaled up: 64 senders x 16 MB of UDP at line rate into one 10 Gbps
 * port with a 32 MB shared buffer. Reports wall time, events/s, packets/s and peak RSS, and runs
 * the same with 4 MB per sender to show that memory does not grow with simulated time (the
 * buffer bounds the packets alive; links hold one timer each). */
#include <stdio.h>
#include <stdlib.h>

#include "bench/benchutil.h"
#include "models/pkt.h"
#include "sim/scenario.h"
#include "sim/util.h"

static void run(int senders, const char *bytes)
{
    size_t cap = 1024 + (size_t)senders * 96;
    char *y = xmalloc(cap);
    int len = snprintf(y, cap,
                       "topology: {kind: star, hosts: %d, link: {rate: 10Gbps, delay: 1us}}\n"
                       "defaults: {switch: {buffer: 32MB}}\nflows:\n",
                       senders + 1);
    for (int i = 0; i < senders; i++)
        len += snprintf(y + len, cap - (size_t)len, "  - {src: h%d, dst: h%d, bytes: %s}\n", i,
                        senders, bytes);
    struct diag d;
    diag_init(&d, stderr);
    struct scenario *sc = scenario_load_string("bench", y, NULL, &d);
    if (!sc)
        exit(1);
    double t0 = bench_now();
    scenario_run(sc);
    double dt = bench_now() - t0;
    uint64_t pkts = sc->sim->next_pkt_id;
    printf("incast %2d x %-5s simulated %8.3f ms  wall %6.3f s  %6.2f M events/s  "
           "%6.2f M packets/s  evq max %u  pkt pool peak %lld  peak RSS %.1f MiB\n",
           senders, bytes, simtime_sec(sc->sim->now) * 1e3, dt,
           (double)sc->events / dt / 1e6, (double)pkts / dt / 1e6, sc->sim->evq.cap,
           (long long)sc->sim->pkt_pool.peak_live, bench_peak_rss_mib());
    scenario_destroy(sc);
    free(y);
}

int main(void)
{
    run(64, "4MB");
    run(64, "16MB");
    return 0;
}
