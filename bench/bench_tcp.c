/* Benchmark: 64 DCTCP flows from 64 hosts into one 10 Gbps switch port (star, K = 65 packets),
 * 100 ms simulated. Prints wall time, events/s, packets/s (frames put on any link, and TCP
 * data segments sent) and peak RSS. Usage: bench_tcp [flows] [simulated ms]. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "models/transport/tcp.h"
#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "bench/benchutil.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int ms = argc > 2 ? atoi(argv[2]) : 100;
    if (n < 1 || n > 10000 || ms < 1) {
        fprintf(stderr, "usage: bench_tcp [flows 1..10000] [simulated ms]\n");
        return 2;
    }
    size_t cap = 1024 + (size_t)n * 64;
    char *yaml = xcalloc(1, cap);
    size_t len = (size_t)snprintf(
        yaml, cap,
        "stop: %dms\n"
        "topology: {kind: star, hosts: %d, link: {rate: 10Gbps, delay: 5us}}\n"
        "defaults:\n"
        "  switch: {buffer: 4MB, ecn: threshold, ecn_unit: packets, ecn_kmin: 65}\n"
        "  flow: {type: tcp, cc: dctcp, rto_min: 1ms, rto_init: 1ms}\n"
        "flows:\n",
        ms, n + 1);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(yaml + len, cap - len, "  - {src: h%d, dst: h%d}\n", i, n);
    struct scenario *sc = bench_load("bench_tcp", yaml);
    free(yaml);
    double wall = bench_run(sc);

    uint64_t frames = 0;
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        struct node *nd = sc->nodes[i];
        for (uint32_t p = 0; p < nd->nports; p++)
            frames += nd->ports[p]->tx.tx_pkts;
    }
    uint64_t segs = 0, rx = 0, retx = 0;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        segs += sc->flows[i]->st.tx_pkts;
        rx += sc->flows[i]->st.rx_bytes;
        retx += sc->flows[i]->st.retx_pkts;
    }
    struct sw *sw = switch_of(scenario_node(sc, "s0"));
    struct link *bott = &sw->node.ports[n]->tx;
    double util = (double)bott->busy_ps / (double)SIM_MS(ms);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    uint64_t events = sc->sim->evq.fired;
    printf("bench_tcp: %d DCTCP flows -> 1 port, %d ms simulated\n", n, ms);
    printf("  wall          %.3f s\n", wall);
    printf("  events        %lu (%.2f M events/s)\n", (unsigned long)events,
           (double)events / wall / 1e6);
    printf("  link frames   %lu (%.2f M packets/s)\n", (unsigned long)frames,
           (double)frames / wall / 1e6);
    printf("  data segments %lu (%.2f M/s), %lu retransmitted\n", (unsigned long)segs,
           (double)segs / wall / 1e6, (unsigned long)retx);
    printf("  goodput       %.3f Gbps, bottleneck utilisation %.4f, max queue %u packets\n",
           (double)rx * 8 / ((double)ms * 1e-3) / 1e9, util, sw->tm.ports[n].max_pkts);
    printf("  peak RSS      %.1f MB\n", (double)ru.ru_maxrss / 1024.0);
    scenario_destroy(sc);
    return 0;
}
