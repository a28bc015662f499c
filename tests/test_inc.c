/* In-network aggregation (arch: inc over p4/programs/aggregation.p4): exact results across
 * packet loss and retransmission, ATP's fallback to the parameter server when another job holds
 * the slots, and the iteration time against the parameter server and ring all-reduce. */
#include "tests/testscenario.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/ddl/inc.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

/* Two layers of 40000 and 1000 bytes: 157 and 4 blocks of 64 values (the last of each short),
 * B = 161 blocks per iteration. */
#define MODEL "{name: m, layers: [{name: a, bytes: 40000, forward: 50us, backward: 100us}, " \
              "{name: b, bytes: 1000, forward: 20us, backward: 40us}]}"
#define BLOCKS 161

/* 4 workers lose 5% of the packets they send and receive; with 8 slots every slot copy is
 * reused many times. Every result a worker accepts is compared value by value with the exact sum
 * of the 4 workers' quantised values, so the check covers every block at every worker once:
 * 4 workers x 3 iterations x 161 blocks x 64 values. Losses force retransmissions, and a lost
 * result is recovered by the switch's read-only path (or the retransmission is dropped while
 * the slot still waits for another worker). */
static void test_inc_exact_with_loss(void **state)
{
    struct scenario *sc = load_run("topology: {kind: star, hosts: 5, link: {rate: 10Gbps, delay: "
                                   "1us}, switch: {program: aggregation}}\n"
                                   "jobs:\n"
                                   "  - arch: inc\n"
                                   "    model: " MODEL "\n"
                                   "    workers: [h0, h1, h2, h3]\n"
                                   "    servers: [h4]\n"
                                   "    iterations: 3\n"
                                   "    inc: {slots: 8, timeout: 20us, loss: 0.05}\n");
    const struct ddl_job *job = sc->jobs[0];
    const struct inc_stats *st = &job->inc->st;
    printf("  inc with 5%% loss: %llu blocks, %llu lost, %llu retransmitted, %llu duplicate "
           "results, %llu values checked, %llu wrong\n",
           (unsigned long long)st->sent, (unsigned long long)st->lost,
           (unsigned long long)st->retx, (unsigned long long)st->dup_results,
           (unsigned long long)st->checked, (unsigned long long)st->wrong);
    assert_true(job->workers_done == 4);
    assert_true(st->sent == 4ull * 3 * BLOCKS);
    assert_true(st->results_sw == 4ull * 3 * BLOCKS);
    assert_true(st->results_ps == 0);
    assert_true(st->lost > 0 && st->retx > 0);
    assert_true(st->checked == 4ull * 3 * BLOCKS * INC_NVALS);
    assert_true(st->wrong == 0);
    scenario_destroy(sc);
}

/* Two jobs share slots 0..15 of the pool. Job x starts first and takes every slot (its first
 * iteration has 161 > 16 blocks); job y starts 1 ms later, when x is done (x's three iterations
 * take well under 1 ms at 10 Gb/s), but the slots stay x's: every block of y is aggregated by
 * its server, and each of its workers gets each result from there. y's workers lose 5% of their
 * packets, so its server also sees retransmissions (counted once) and resends lost results.
 * Both are exact. */
static void test_inc_collision_fallback(void **state)
{
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 6, link: {rate: 10Gbps, delay: "
                 "1us}, switch: {program: aggregation}}\n"
                 "jobs:\n"
                 "  - {name: x, arch: inc, model: " MODEL ", workers: [h0, h1], "
                 "servers: [h2], iterations: 3, inc: {slots: 16}}\n"
                 "  - {name: y, arch: inc, model: " MODEL ", workers: [h3, h4], "
                 "servers: [h5], iterations: 3, start: 1ms, inc: {slots: 16, loss: 0.05, "
                 "timeout: 50us}}\n");
    const struct inc_stats *x = &sc->jobs[0]->inc->st;
    const struct inc_stats *y = &sc->jobs[1]->inc->st;
    printf("  collision: x %llu results from the switch, %llu from its server; y %llu from the "
           "switch, %llu from its server (%llu contributions there; %llu lost, %llu resent); "
           "wrong values %llu, %llu\n",
           (unsigned long long)x->results_sw, (unsigned long long)x->results_ps,
           (unsigned long long)y->results_sw, (unsigned long long)y->results_ps,
           (unsigned long long)y->ps_contrib, (unsigned long long)y->lost,
           (unsigned long long)y->retx, (unsigned long long)x->wrong,
           (unsigned long long)y->wrong);
    assert_true(sc->jobs[0]->workers_done == 2 && sc->jobs[1]->workers_done == 2);
    assert_true(sc->jobs[0]->end_ps < SIM_MS(1));
    assert_true(x->results_sw == 2ull * 3 * BLOCKS && x->results_ps == 0);
    assert_true(y->results_sw == 0 && y->results_ps == 2ull * 3 * BLOCKS);
    assert_true(y->ps_contrib == 2ull * 3 * BLOCKS);
    assert_true(y->lost > 0 && y->retx > 0);
    assert_true(x->wrong == 0 && y->wrong == 0);
    assert_true(x->checked == 2ull * 3 * BLOCKS * INC_NVALS && y->checked == x->checked);
    scenario_destroy(sc);
}

/* A slot beyond the switch's pool of 2048 also falls back: with slot_base 2048 every block goes
 * to the server. */
static void test_inc_pool_full(void **state)
{
    struct scenario *sc = load_run("topology: {kind: star, hosts: 3, switch: {program: "
                                   "aggregation}}\n"
                                   "jobs:\n"
                                   "  - {arch: inc, model: " MODEL ", workers: [h0, h1], servers: "
                                   "[h2], iterations: 2, inc: {slots: 16, slot_base: 2048}}\n");
    const struct inc_stats *st = &sc->jobs[0]->inc->st;
    assert_true(sc->jobs[0]->workers_done == 2);
    assert_true(st->results_sw == 0 && st->results_ps == 2ull * 2 * BLOCKS && st->wrong == 0);
    scenario_destroy(sc);
}

/* The deepest queue at s0's port to h0, and the job's statistics, with h0's downlink shared
 * with a 9 Gb/s constant-rate UDP flow and results ECN-marked above 2 packets. */
static uint64_t ecn_run(bool window, struct inc_stats *out)
{
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "topology: {kind: star, hosts: 4, link: {rate: 10Gbps, delay: 1us}, switch: "
             "{program: aggregation, registers: [{register: agg_ecn_kmin, index: 0, value: "
             "2}]}}\n"
             "flows: [{name: bg, src: h3, dst: h0, pattern: cbr, rate: 9Gbps, stop: 3ms}]\n"
             "jobs:\n"
             "  - {arch: inc, model: " MODEL ", workers: [h0, h1], servers: [h2], iterations: 3, "
             "inc: {slots: 64, ecn_window: %s}}\n",
             window ? "true" : "false");
    struct scenario *sc = run_job(yaml, 2);
    *out = sc->jobs[0]->inc->st;
    struct host *h0 = NULL;
    for (uint32_t i = 0; i < sc->nnodes && !h0; i++) {
        if (strcmp(sc->nodes[i]->name, "h0") == 0)
            h0 = host_of(sc->nodes[i]);
    }
    struct port *sp = h0->node.ports[0]->peer;
    uint64_t q = switch_of(sp->node)->tm.ports[sp->index].max_bytes;
    scenario_destroy(sc);
    return q;
}

/* ATP's window: the results to h0 queue behind the background flow and come back marked; with
 * ecn_window the workers halve their windows (64 blocks in flight at first), so fewer results
 * wait in that queue at once and its peak is lower. Results stay exact either way. */
static void test_inc_ecn_window(void **state)
{
    struct inc_stats off, on;
    uint64_t q_off = ecn_run(false, &off);
    uint64_t q_on = ecn_run(true, &on);
    printf("  ECN: without the window %llu marked results, queue to h0 peaks at %llu B; with it "
           "%llu marked, %llu cuts, window down to %.0f, peak %llu B\n",
           (unsigned long long)off.ce, (unsigned long long)q_off, (unsigned long long)on.ce,
           (unsigned long long)on.cuts, on.cwnd_min, (unsigned long long)q_on);
    assert_true(off.ce > 0 && off.cuts == 0);
    assert_true(on.cuts > 0 && on.cwnd_min < 64);
    assert_true(q_on < q_off);
    assert_true(off.wrong == 0 && on.wrong == 0);
}

static double iteration(const char *arch, const char *servers)
{
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, delay: 1us}, switch: "
             "{program: aggregation, pfc: true}}\n"
             "jobs:\n"
             "  - arch: %s\n"
             "    model: {name: m, layers: [{name: a, bytes: 1MB, forward: 100us, backward: "
             "200us}, {name: b, bytes: 1MB, forward: 100us, backward: 200us}]}\n"
             "    workers: [h0, h1, h2, h3, h4, h5, h6, h7]\n"
             "%s"
             "    iterations: 3\n"
             "    chunk: 256KB\n",
             arch, servers);
    struct scenario *sc = run_job(yaml, 8);
    double it = stats_mean(&sc->jobs[0]->iter_time);
    if (sc->jobs[0]->inc)
        assert_true(sc->jobs[0]->inc->st.wrong == 0);
    scenario_destroy(sc);
    return it;
}

/* 8 workers at 100 Gb/s exchange 2 MB of gradients per iteration (0.3 ms of backward compute
 * per layer). The busiest link carries, per iteration: PS, the server's downlink 8 x 2 MB; ring
 * all-reduce, each link 2 (N-1)/N x 2 MB = 3.5 MB in 1.5 KB frames; in-network aggregation, each
 * worker's uplink 2 MB in 338-byte frames for 256 bytes of values (x 1.32 = 2.64 MB). So
 * in-network aggregation is fastest, then ring, then the PS. */
static void test_inc_beats_ps_and_ring(void **state)
{
    double inc = iteration("inc", "    servers: [h8]\n");
    double ring = iteration("allreduce", "");
    double ps = iteration("ps", "    servers: [h8]\n");
    printf("  8 workers, 2 MB, 100 Gb/s: iteration inc %.3f ms, ring %.3f ms, ps %.3f ms\n",
           inc * 1e3, ring * 1e3, ps * 1e3);
    assert_true(inc < ring);
    assert_true(ring < ps);
}

TEST_MAIN(cmocka_unit_test(test_inc_exact_with_loss), cmocka_unit_test(test_inc_collision_fallback),
          cmocka_unit_test(test_inc_pool_full), cmocka_unit_test(test_inc_ecn_window),
          cmocka_unit_test(test_inc_beats_ps_and_ring))
