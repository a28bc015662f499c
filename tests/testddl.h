/* Analytic packet timing of DDL messages over UDP on an idle 10 Gb/s star (1 us links), shared
 * by the DDL tests. Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTDDL_H
#define SIM_TESTS_TESTDDL_H

#include "models/ddl/shim.h"
#include "sim/simtime.h"
#include "sim/util.h"

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

#endif
