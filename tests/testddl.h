/* Analytic packet timing of DDL messages over UDP on an idle 10 Gb/s star (1 us links), shared
 * by the DDL tests. Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTDDL_H
#define SIM_TESTS_TESTDDL_H

#include <stdio.h>

#include "models/ddl/job.h"
#include "models/ddl/shim.h"
#include "sim/simtime.h"
#include "sim/util.h"
#include "tests/testscenario.h"

#define RATE 10000000000ULL
#define D SIM_US(1)
#define PAYLOAD (1472 - DDL_SHIM_BYTES) /* UDP payload per DDL packet */
#define FRAME_EXTRA (42 + DDL_SHIM_BYTES + 24)

/* Serialization of a message of `bytes` in DDL/UDP packets on one 10 Gbps link. */
static inline sim_time_t ser(uint64_t bytes)
{
    sim_time_t t = 0;
    for (uint64_t left = bytes; left > 0;) {
        uint64_t n = MIN(left, PAYLOAD);
        t += simtime_tx_ps(n + FRAME_EXTRA, RATE);
        left -= n;
    }
    return t;
}

/* Host → switch → host, store and forward: packet i leaves the switch at
 * max(its arrival, the previous packet's departure) + its own time, so a short last packet
 * queues behind the full one before it: the second hop ends one *largest* packet (the first)
 * and one propagation delay after the first hop. */
static inline sim_time_t two_hops(sim_time_t start, uint64_t bytes)
{
    sim_time_t largest = simtime_tx_ps(MIN(bytes, PAYLOAD) + FRAME_EXTRA, RATE);
    return start + ser(bytes) + D + largest + D;
}

/* An all-reduce job of one tensor of `bytes` (no compute) over star hosts h0..h(hosts-1), for
 * `iterations`, with the job keys in `extra` (each line "    key: value\n"); run to the end,
 * every worker done. */
static inline struct scenario *allreduce_run(int hosts, const char *bytes, int iterations,
                                             const char *extra)
{
    char y[2048];
    int len = snprintf(y, sizeof(y),
                       "topology: {kind: star, hosts: %d}\n"
                       "jobs:\n"
                       "  - arch: allreduce\n"
                       "    model: {name: one, layers: [{name: t, bytes: %s}]}\n"
                       "    iterations: %d\n"
                       "%s"
                       "    workers: [h0",
                       hosts, bytes, iterations, extra);
    for (int h = 1; h < hosts; h++)
        len += snprintf(y + len, sizeof(y) - (size_t)len, ", h%d", h);
    snprintf(y + len, sizeof(y) - (size_t)len, "]\n");
    struct scenario *sc = load(y);
    scenario_run(sc);
    assert_int_equal(sc->jobs[0]->workers_done, sc->jobs[0]->nworkers);
    return sc;
}

#endif
