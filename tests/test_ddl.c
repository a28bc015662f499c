/* DDL workloads with analytic expectations: one worker and one PS on an idle network, the
 * bandwidth share of several workers, priority scheduling, blocking time, ring all-reduce. */
#include "tests/testscenario.h"
#include "tests/testddl.h"

#include <jansson.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ddl/shim.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

/* One worker, one PS, two layers (forward order L0, L1), whole tensors, no software costs.
 *   T1 = f0 + f1 + b1: gradient of L1; T0 = T1 + b0: gradient of L0 (queued behind L1's push).
 *   P1, P0: pushes complete at the PS; pulls leave the PS in that order.
 *   W1, W0: pulls complete at the worker. The next forward starts at W0 (L0's parameters), and
 *   every iteration repeats the first, so each iteration takes W0. */
static void test_ddl_one_worker_analytic(void **state)
{
    const uint64_t B0 = 100000;
    const uint64_t B1 = 1000000;
    const sim_time_t f0 = SIM_US(50), f1 = SIM_US(30), b0 = SIM_US(100), b1 = SIM_US(60);
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 2}\n"
                 "jobs:\n"
                 "  - name: j\n"
                 "    model:\n"
                 "      name: tiny\n"
                 "      batch: 32\n"
                 "      layers:\n"
                 "        - {name: l0, bytes: 100000, forward: 50us, backward: 100us}\n"
                 "        - {name: l1, bytes: 1000000, forward: 30us, backward: 60us}\n"
                 "    workers: [h0]\n"
                 "    servers: [h1]\n"
                 "    iterations: 3\n"
                 "    chunk: 0\n");
    sim_time_t T1 = f0 + f1 + b1;
    sim_time_t T0 = T1 + b0;
    assert_true(T0 < T1 + ser(B1)); /* L0 waits behind L1 in the stream */
    sim_time_t P1 = two_hops(T1, B1);
    sim_time_t P0 = two_hops(T1 + ser(B1), B0);
    sim_time_t W1 = two_hops(P1, B1);
    sim_time_t W0 = two_hops(MAX(P0, P1 + ser(B1)), B0);
    const struct ddl_job *job = sc->jobs[0];
    assert_true(job->workers_done == 1);
    assert_int_equal(job->iter_time.n, 3);
    assert_true(job->iter_time.min == simtime_sec(W0));
    assert_true(job->iter_time.max == simtime_sec(W0));
    assert_int_equal(job->end_ps, 3 * W0);
    /* push latency of L1: ready at T1, complete at P1 */
    assert_true(fabs(job->push_lat[1].min - simtime_sec(P1 - T1)) < 1e-15);
    /* pull latencies: L1 aggregated at P1 (no server cost) and delivered at W1; L0 aggregated at
     * P0 and delivered at W0 */
    assert_true(fabs(job->pull_lat[1].min - simtime_sec(W1 - P1)) < 1e-15);
    assert_true(fabs(job->pull_lat[0].max - simtime_sec(W0 - P0)) < 1e-15);
    /* samples/s: one worker, batch 32, one iteration every W0 */
    json_t *o = json_object();
    ddl_job_json(job, o);
    double tput = json_real_value(json_object_get(o, "throughput_samples_per_s"));
    assert_true(fabs(tput - 32.0 / simtime_sec(W0)) < 1e-9 * tput);
    json_decref(o);
    /* every byte pushed and pulled once per iteration */
    assert_true(job->bytes_sent == 3 * 2 * (B0 + B1));
    scenario_destroy(sc);
}

/* N workers share the PS's link: with whole tensors the pushes of all workers cross the PS
 * downlink one after the other, then the PS sends N copies on its uplink, so an iteration takes
 * about 2 N x ser(B) (plus latencies and the tiny compute). */
static double iteration_for(int n)
{
    char y[2048];
    char workers[256] = "";
    for (int i = 0; i < n; i++) {
        char w[16];
        snprintf(w, sizeof(w), "%sh%d", i ? ", " : "", i);
        strncat(workers, w, sizeof(workers) - strlen(workers) - 1);
    }
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: %d}\n"
             "jobs:\n"
             "  - model: {name: one, layers: [{name: big, bytes: 4MB, forward: 1us, backward: 1us}]}\n"
             "    workers: [%s]\n"
             "    servers: [h%d]\n"
             "    iterations: 2\n"
             "    chunk: 0\n",
             n + 1, workers, n);
    struct scenario *sc = run_job(y, (uint32_t)n);
    double it = stats_mean(&sc->jobs[0]->iter_time);
    scenario_destroy(sc);
    return it;
}

static void test_ddl_bandwidth_share(void **state)
{
    double s = simtime_sec(ser(4000000));
    for (int n = 1; n <= 4; n *= 2) {
        double it = iteration_for(n);
        double expect = 2.0 * n * s;
        printf("  %d workers: iteration %.6f s, 2 N ser(B) = %.6f s\n", n, it, expect);
        assert_true(fabs(it - expect) / expect < 0.01);
    }
}

static const char *vgg = "topology: {kind: star, hosts: 5, switch: {pfc: true, program: %s}}\n"
                         "jobs:\n"
                         "  - name: v\n"
                         "    model: vgg16\n"
                         "    workers: [h0, h1, h2, h3]\n"
                         "    servers: [h4]\n"
                         "    iterations: 2\n"
                         "    chunk: 4MB\n"
                         "    scheduler: %s\n";

static double first_layer_pull(const char *program, const char *sched)
{
    char y[1024];
    snprintf(y, sizeof(y), vgg, program, sched);
    struct scenario *sc = run_job(y, 4);
    double pull0 = stats_mean(&sc->jobs[0]->pull_lat[0]);
    scenario_destroy(sc);
    return pull0;
}

/* P3/ByteScheduler-style priority: the first layer's parameters come back sooner, with a FIFO
 * switch (basic.p4) and far sooner when the switch also serves by priority (tensorexpress.p4),
 * where FIFO hosts send the first layer last and it waits behind every other layer. */
static void test_ddl_priority_first_layer(void **state)
{
    double fb = first_layer_pull("basic", "fifo");
    double pb = first_layer_pull("basic", "priority");
    double ft = first_layer_pull("tensorexpress", "fifo");
    double pt = first_layer_pull("tensorexpress", "priority");
    printf("  VGG-16 first-layer pull latency: FIFO switch fifo %.4f s, priority %.4f s;"
           " priority switch fifo %.4f s, priority %.4f s\n", fb, pb, ft, pt);
    assert_true(pb < 0.6 * fb);
    assert_true(pt < ft / 10);
}

/* Blocking time summed over every packet of every tensor: zero when every DDL packet has one
 * priority, positive when a FIFO switch sends lower-priority packets ahead of waiting
 * higher-priority ones. */
static double blocking(int levels, const char *program)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 4, switch: {program: %s, pfc: true}}\n"
             "jobs:\n"
             "  - model: {name: m, layers: [{name: a, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: b, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: c, bytes: 2MB, forward: 10us, backward: 10us}]}\n"
             "    workers: [h0, h1, h2]\n"
             "    servers: [h3]\n"
             "    iterations: 2\n"
             "    chunk: 500KB\n"
             "    priorities: %d\n"
             "    priority_groups: %d\n",
             program, levels, levels);
    struct scenario *sc = run_job(y, 3);
    const struct ddl_job *job = sc->jobs[0];
    double total = 0;
    for (uint32_t l = 0; l < job->L; l++)
        total += job->push_blk_sum[l].sum + job->pull_blk_sum[l].sum;
    scenario_destroy(sc);
    return total;
}

static void test_ddl_blocking_time(void **state)
{
    /* basic.p4 serves everything from one queue; tensorexpress.p4 by the shim's priority. A
     * connection per priority level (priority_groups) keeps the hosts' NICs from inverting
     * priorities, so what differs is the switch. */
    assert_true(blocking(1, "basic") == 0.0);
    assert_true(blocking(1, "tensorexpress") == 0.0);
    double fifo = blocking(8, "basic");
    double strict = blocking(8, "tensorexpress");
    printf("  blocking: FIFO switch %.6f s, strict-priority switch %.6f s\n", fifo, strict);
    assert_true(fifo > 0.0);
    /* strict priority leaves only non-preemption (one frame at a time) */
    assert_true(strict < fifo / 10);
}

/* Critical-path blocking of a tensor (its last packet's): a 100 KB high-priority push (job
 * `high`, h1) meets a 4 MB low-priority one (job `low`, h0) at the server's port. With a FIFO
 * switch both senders share the port packet by packet, so while the small tensor crosses it
 * (about twice ser(100 KB) = 2 x 80 us) the port sends low-priority packets half the time: the
 * last packet was blocked about ser(100 KB) / 2 = 40 us (allow 0.3 to 0.7 x ser). With
 * tensorexpress.p4's strict priority it waits at most for the frame on the wire when it arrives:
 * under 2 us. The per-packet sum exceeds the tensor's whole latency, which is why it is
 * reported apart. */
static void critical_blocking(const char *program, double *crit, double *sum, double *lat)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 3, link: {rate: 10Gbps, delay: 1us},"
             " switch: {program: %s}}\n"
             "jobs:\n"
             "  - {name: low, model: {name: big, layers: [{name: x, bytes: 4MB, forward: 1us,"
             " backward: 1us}]}, workers: [h0], servers: [h2], iterations: 1, priorities: 1}\n"
             "  - {name: high, model: {name: small, layers: [{name: y, bytes: 100KB,"
             " forward: 1us, backward: 1us}]}, workers: [h1], servers: [h2], iterations: 1,"
             " start: 500us}\n",
             program);
    struct scenario *sc = load_run(y);
    const struct ddl_job *job = sc->jobs[1];
    assert_int_equal(job->push_blk[0].n, 1);
    *crit = job->push_blk[0].sum;
    *sum = job->push_blk_sum[0].sum;
    *lat = job->push_lat[0].sum;
    scenario_destroy(sc);
}

static void test_ddl_critical_blocking(void **state)
{
    double ser = 100000 * 8 / 10e9;
    double crit, sum, lat;
    critical_blocking("basic", &crit, &sum, &lat);
    print_message("  FIFO: latency %.6f s, critical blocking %.6f s, per-packet sum %.6f s\n", lat,
                  crit, sum);
    assert_true(crit > 0.3 * ser && crit < 0.7 * ser);
    assert_true(sum > lat);
    critical_blocking("tensorexpress", &crit, &sum, &lat);
    print_message("  strict: latency %.6f s, critical blocking %.6f s, per-packet sum %.6f s\n",
                  lat, crit, sum);
    assert_true(crit < 2e-6);
}

/* Blocking at a host NIC. One worker host sends a 4 MB low-priority push (job `low`, to h2)
 * and, from 500 us, a 100 KB push of job `high` (to h3); only the NIC is shared. In one traffic
 * class the NIC alternates between the two connections, so the k-th of high's 69 packets (1456 B
 * of payload after the 16 B shim) has waited, since its message entered the stream, for k
 * 1538 B low-priority frames on the wire (1.2304 us each at 10 Gb/s): the last packet (the
 * tensor's critical path) 69 frames, the per-packet sum 69 x 70 / 2 frames (each within 5%: the
 * frame on the wire when the message arrived counts in part). With high's connection in class 7
 * the NIC serves it first: at most the frame on the wire when it became ready (under 1.5 us). */
static void nic_blocking(int cls, double *crit, double *sum)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 4, link: {rate: 10Gbps, delay: 1us},"
             " switch: {program: basic}}\n"
             "jobs:\n"
             "  - {name: low, model: {name: big, layers: [{name: x, bytes: 4MB, forward: 1us,"
             " backward: 1us}]}, workers: [h0], servers: [h2], iterations: 1, priorities: 1}\n"
             "  - {name: high, model: {name: small, layers: [{name: y, bytes: 100KB,"
             " forward: 1us, backward: 1us}]}, workers: [h0], servers: [h3], iterations: 1,"
             " start: 500us, transport_params: {priority: %d}}\n",
             cls);
    struct scenario *sc = load_run(y);
    *crit = sc->jobs[1]->push_blk[0].sum;
    *sum = sc->jobs[1]->push_blk_sum[0].sum;
    scenario_destroy(sc);
}

static void test_ddl_nic_blocking(void **state)
{
    double frame = 1538 * 8 / 10e9;
    double crit, sum, crit7, sum7;
    nic_blocking(0, &crit, &sum);
    nic_blocking(7, &crit7, &sum7);
    print_message("  NIC blocking: one class: last packet %.6f s (69 frames %.6f s), sum %.6f s "
                  "(2415 frames %.6f s); class 7: last %.9f s, sum %.9f s\n",
                  crit, 69 * frame, sum, 2415 * frame, crit7, sum7);
    assert_true(fabs(crit - 69 * frame) < 0.05 * 69 * frame);
    assert_true(fabs(sum - 2415 * frame) < 0.05 * 2415 * frame);
    assert_true(crit7 < 1.5e-6);
}

/* A ring all-reduce of one tensor of `bytes` over h0..h3 of a star (no compute), run to its end:
 * every worker finished. */
static struct scenario *ring4_run(const char *bytes, int iterations, const char *extra)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 4}\n"
             "jobs:\n"
             "  - arch: allreduce\n"
             "    model: {name: one, layers: [{name: t, bytes: %s}]}\n"
             "    workers: [h0, h1, h2, h3]\n"
             "    iterations: %d\n"
             "%s",
             bytes, iterations, extra);
    return run_job(y, 4);
}

/* Ring all-reduce of S bytes over N workers in whole segments (slice: 0): each worker sends
 * 2(N-1)/N S, and with no compute the iteration is 2(N-1) steps of one segment over two hops,
 * which is within the latency terms of the bandwidth-optimal 2(N-1)/N S / rate. */
static void test_ddl_ring_allreduce(void **state)
{
    const int N = 4;
    const uint64_t S = 4000000;
    struct scenario *sc = ring4_run("4MB", 2, "    chunk: 0\n    slice: 0\n");
    const struct ddl_job *job = sc->jobs[0];
    for (int w = 0; w < N; w++)
        assert_true(job->worker_bytes[w] == 2 * 2 * (N - 1) * S / N); /* two iterations */
    sim_time_t step = two_hops(0, S / N);
    assert_true(job->iter_time.max == simtime_sec(2 * (N - 1) * step));
    assert_true(job->iter_time.min == simtime_sec(2 * (N - 1) * step));
    double optimal = 2.0 * (N - 1) / N * (double)S * 8 / (double)RATE;
    double wire = (double)(PAYLOAD + FRAME_EXTRA) / PAYLOAD; /* header and framing bytes */
    double it = stats_mean(&job->iter_time);
    printf("  ring: iteration %.6f s, bandwidth-optimal %.6f s x wire overhead %.4f = %.6f s\n",
           it, optimal, wire, optimal * wire);
    assert_true(fabs(it - optimal * wire) / (optimal * wire) < 0.005);
    scenario_destroy(sc);
}

/* A ring of more workers than 10 bits number (the old limit was 1,023): it loads, each worker
 * has its one connection to its successor, and the connections' flow indexes (statistics, RDMA
 * keys) stay distinct past worker 1,023. A host listed twice is still refused. */
static void test_ddl_ring_many_workers(void **state)
{
    const uint32_t N = 1100;
    size_t cap = 256 + 8 * (size_t)N;
    char *y = xmalloc(cap);
    int len = snprintf(y, cap, "topology: {kind: star, hosts: %u, switch: {program: none}}\n"
                               "jobs:\n  - arch: allreduce\n"
                               "    model: {name: one, layers: [{name: t, bytes: 1MB}]}\n"
                               "    workers: [h0",
                       N);
    for (uint32_t w = 1; w < N; w++)
        len += snprintf(y + len, cap - (size_t)len, ", h%u", w);
    snprintf(y + len, cap - (size_t)len, "]\n");
    struct scenario *sc = load(y);
    const struct ddl_job *job = sc->jobs[0];
    assert_int_equal(job->nworkers, N);
    for (uint32_t w = 0; w < N; w++) {
        const struct msg_conn *c = job->workers[w].push[0];
        assert_ptr_equal(c->dst, job->workers[(w + 1) % N].host);
        for (uint32_t v = 0; v < w; v++)
            assert_int_not_equal(c->data->index, job->workers[v].push[0]->data->index);
    }
    scenario_destroy(sc);
    /* h7 twice: the second mention is the error */
    snprintf(y + len, cap - (size_t)len, ", h7]\n");
    struct diag d;
    diag_init(&d, NULL);
    assert_null(scenario_load_string("test.yaml", y, NULL, &d));
    assert_int_equal(diag_count(&d), 1);
    free(y);
}

/* One ring all-reduce of 64 MB over 4 workers, one iteration, no compute. */
static double ring64(const char *extra)
{
    struct scenario *sc = ring4_run("64MB", 1, extra);
    double it = stats_mean(&sc->jobs[0]->iter_time);
    scenario_destroy(sc);
    return it;
}

/* Wire time of a segment of `seg` bytes sent as messages of at most `slice` bytes. */
static sim_time_t ser_sliced(uint64_t seg, uint64_t slice)
{
    sim_time_t t = 0;
    for (uint64_t left = seg; left > 0; left -= MIN(left, slice))
        t += ser(MIN(left, slice));
    return t;
}

/* Slices pipeline a ring step. The bandwidth-optimal bound of a 64 MB all-reduce over N = 4 is
 * each worker's link busy with its 2(N-1) segments of S/N: 2(N-1) x their wire time (payload
 * and per-packet headers at line rate). (a) The defaults (4 MB chunks, 512 KB slices) reach
 * >= 95% of it. (b) With a receive copy of every message at 40 Gb/s (faster than the 10 Gb/s
 * link) and one piece (chunk 16 MB), whole segments serialize the copy with the transfer: each
 * of the 2(N-1) steps takes a segment's wire time plus its copy, so the iteration is at least
 * 2(N-1) (ser(S/N) + copy(S/N)): 13.5 + 3.2 ms per step, about 81% of the bound's speed. (c) Slices overlap the copy
 * of one slice with the transfer of the next: >= 95% of the bound again. */
static void test_ddl_ring_slices(void **state)
{
    const int N = 4;
    const uint64_t S = 64000000, seg = S / N, slice = 512000;
    double bound = simtime_sec(2 * (N - 1) * ser_sliced(seg, slice));
    double raw = 2.0 * (N - 1) / N * (double)S * 8 / (double)RATE;
    double def = ring64("");
    double copy_whole = ring64("    chunk: 16MB\n    slice: 0\n    rx_copies: 1\n"
                               "    copy_bw: 40Gbps\n");
    double copy_sliced = ring64("    chunk: 16MB\n    rx_copies: 1\n    copy_bw: 40Gbps\n");
    double serial = simtime_sec(2 * (N - 1) * (ser(seg) + simtime_tx_ps(seg, 40000000000ULL)));
    printf("  ring 64 MB: bound %.6f s (raw %.6f s); defaults %.6f s (%.1f%%); copies: whole "
           "segments %.6f s (%.1f%%, serial bound %.6f s), sliced %.6f s (%.1f%%)\n",
           bound, raw, def, 100 * bound / def, copy_whole, 100 * bound / copy_whole, serial,
           copy_sliced, 100 * bound / copy_sliced);
    assert_true(def >= bound && bound / def >= 0.95);
    assert_true(copy_whole >= serial && bound / copy_whole < 0.85);
    assert_true(copy_sliced >= bound && bound / copy_sliced >= 0.95);
}

/* One iteration time of a 4-worker PS job over TCP whose layers span 8 priority levels, under a
 * switch stage and queue choice; the switch's queue use is returned in *queues (bit q: queue q
 * of the server's port took packets). */
static double fifo_iteration(const char *switch_map, int levels, uint32_t *queues)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 5, switch: %s}\n"
             "jobs:\n"
             "  - model: {name: m, layers: [{name: a, bytes: 1MB, forward: 10us, backward: 10us},\n"
             "                              {name: b, bytes: 3MB, forward: 10us, backward: 10us},\n"
             "                              {name: c, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: d, bytes: 4MB, forward: 10us, backward: 10us}]}\n"
             "    workers: [h0, h1, h2, h3]\n"
             "    servers: [h4]\n"
             "    iterations: 2\n"
             "    chunk: 1MB\n"
             "    scheduler: fifo\n"
             "    priorities: %d\n"
             "    transport: tcp\n",
             switch_map, levels);
    struct scenario *sc = run_job(y, 4);
    double it = stats_mean(&sc->jobs[0]->iter_time);
    const struct sw *s0 = (const struct sw *)scenario_node(sc, "s0");
    *queues = 0;
    for (uint32_t q = 0; q < 8; q++) {
        if (tmgr_enq(&s0->tm.ports[4], q)->pkts)
            *queues |= 1u << q;
    }
    scenario_destroy(sc);
    return it;
}

/* `scheduler: fifo` is FIFO end to end: with the fixed stage's default queue choice (the
 * traffic class) a job's 8 tensor priority levels do not reorder its packets in the switch, so
 * every packet (data and ACKs) of the server's port goes through queue 0 and the run is
 * identical to one with a single priority level and to one under basic.p4 (one queue). With
 * `queue_by: priority` the fixed stage serves tensors by layer priority above the ACKs, uses
 * several queues, and the iteration time differs. */
static void test_ddl_fifo_end_to_end(void **state)
{
    uint32_t q1, q2, q3, q4;
    double none8 = fifo_iteration("{program: none}", 8, &q1);
    double none1 = fifo_iteration("{program: none}", 1, &q2);
    double basic8 = fifo_iteration("{program: basic}", 8, &q3);
    double prio8 = fifo_iteration("{program: none, queue_by: priority}", 8, &q4);
    printf("  fifo iteration: none/8 levels %.6f s, none/1 %.6f s, basic/8 %.6f s, "
           "none queue_by priority/8 %.6f s (queues %#x)\n", none8, none1, basic8, prio8, q4);
    assert_int_equal(q1, 1);
    assert_int_equal(q2, 1);
    assert_int_equal(q3, 1);
    assert_true(none8 == none1);
    assert_true(none8 == basic8);
    assert_true(q4 != 1);
    assert_true(prio8 != none8);
}

/* Two workers h0, h1 on a star all-reduce a model of the given layers, one iteration, run to its
 * end: both workers finished. */
static struct scenario *ring2_run(const char *layers, const char *extra)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 2}\n"
             "jobs:\n"
             "  - arch: allreduce\n"
             "    model: {name: m, layers: %s}\n"
             "    workers: [h0, h1]\n"
             "    iterations: 1\n"
             "%s",
             layers, extra);
    return run_job(y, 2);
}

/* Two workers all-reduce three 1 MB layers (forward 100 us, backward 200 us each), one
 * iteration. Gradients are ready at 500, 700 and 900 us (layers c, b, a). Returns each
 * layer's completion time at worker 0 (its gradient's ready time plus its tensor latency) and
 * worker 0's gradient ready times. */
static void collective_run(const char *extra, double done[3], double ready[3])
{
    struct scenario *sc = ring2_run("[{name: a, bytes: 1MB, forward: 100us, backward: 200us},\n"
                                    "  {name: b, bytes: 1MB, forward: 100us, backward: 200us},\n"
                                    "  {name: c, bytes: 1MB, forward: 100us, backward: 200us}]",
                                    extra);
    const struct ddl_job *job = sc->jobs[0];
    for (int l = 0; l < 3; l++) {
        ready[l] = simtime_sec(job->workers[0].push_ready[l]);
        done[l] = ready[l] + job->push_lat[l].min;
    }
    scenario_destroy(sc);
}

/* The collective cost model (collective.h), each part against its analytic effect:
 * - cycle 5 ms, fusion 64 MB, launch 1 ms: all three gradients are ready before the first
 *   tick (5 ms), so one fused buffer is launched at 6 ms and its tensors arrive together; each
 *   worker's link then carries 2 segments of 0.5 MB per layer, 6 x ser(0.5 MB), and the last
 *   one crosses a second hop: done within [6 ms + 6 ser, + 2 us + one frame + 1 us].
 * - fusion 1 MB: no two layers fit one buffer, so three collectives run one at a time (c, b,
 *   a), each launched 1 ms after the previous one completed: the first completes D after
 *   6 ms, and each next one 1 ms + D after the one before.
 * - contention 1 (ideal collective otherwise): layer c's all-reduce starts at 500 us and takes
 *   longer than 400 us, so backward b and a run at half speed: a's gradient is ready at
 *   300 + 200 + 400 + 400 = 1300 us instead of 900 us. */
static void test_ddl_collective_costs(void **state)
{
    double done[3], ready[3];
    collective_run("    cycle: 5ms\n    fusion: 64MB\n    launch: 1ms\n", done, ready);
    double lo = 0.006 + 6 * simtime_sec(ser(500000));
    double hi = lo + simtime_sec(2 * D + simtime_tx_ps(PAYLOAD + FRAME_EXTRA, RATE));
    printf("  fused: done %.9f %.9f %.9f s, bounds [%.9f, %.9f]\n", done[0], done[1], done[2],
           lo, hi);
    assert_true(fabs(done[0] - done[1]) < 1e-12 && fabs(done[1] - done[2]) < 1e-12);
    assert_true(done[0] >= lo - 1e-12 && done[0] <= hi + 1e-12);
    collective_run("    cycle: 5ms\n    fusion: 1MB\n    launch: 1ms\n", done, ready);
    printf("  fusion 1MB: done %.9f %.9f %.9f s\n", done[0], done[1], done[2]);
    double d1 = done[2] - 0.006;
    assert_true(d1 > 0);
    assert_true(fabs(done[1] - (done[2] + 0.001 + d1)) < 1e-9);
    assert_true(fabs(done[0] - (done[1] + 0.001 + d1)) < 1e-9);
    collective_run("    contention: 1\n", done, ready);
    assert_true(ready[2] == 500e-6 && ready[1] == 900e-6 && ready[0] == 1300e-6);
    collective_run("", done, ready);
    assert_true(ready[2] == 500e-6 && ready[1] == 700e-6 && ready[0] == 900e-6);
}

/* Contention changes speed in the middle of a compute step: layer b's gradient (125 KB) is
 * ready at 400 us and its all-reduce takes lat_b; backward of layer a (2 ms of work) starts at
 * 400 us at half speed (contention 1) and goes on at full speed once b's all-reduce is done, so
 * a's gradient is ready at 400 us + lat_b + (2 ms - lat_b / 2). */
static void test_ddl_contention_midstep(void **state)
{
    struct scenario *sc = ring2_run("[{name: a, bytes: 1KB, forward: 100us, backward: 2ms},\n"
                                    "  {name: b, bytes: 125KB, forward: 100us, backward: 200us}]",
                                    "    contention: 1\n");
    const struct ddl_job *job = sc->jobs[0];
    double lat_b = job->push_lat[1].min;
    assert_true(lat_b > 0 && lat_b < 0.002);
    double ready_a = simtime_sec(job->workers[0].push_ready[0]);
    double want = 400e-6 + lat_b + (0.002 - lat_b / 2);
    printf("  contention mid-step: a ready %.9f s, expected %.9f s\n", ready_a, want);
    assert_true(fabs(ready_a - want) < 2e-12);
    scenario_destroy(sc);
}

/* PFC stays lossless when a switch queues a packet elsewhere than its traffic class. Five UDP
 * workers (three beside the server on leaf1, two behind the spine) push to the server h4: leaf1
 * pauses the spine, whose egress to leaf1 holds tensors of every layer priority, all in traffic
 * class 0, in queues by priority (queue_by: priority, or tensorexpress.p4). The PAUSE holds
 * class 0, so every queue whose head is class 0 must wait: no packet is dropped (UDP would never
 * recover it, and the job would not complete). It used to hold queue 0 only: 1915 headroom
 * drops, the job stuck. */
static void pfc_two_tier(const char *sw)
{
    char y[1024];
    snprintf(y, sizeof(y),
             "topology: {kind: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4,\n"
             "           switch: {pfc: true, %s}}\n"
             "jobs:\n"
             "  - model: {name: m, layers: [{name: a, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: b, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: c, bytes: 2MB, forward: 10us, backward: 10us},\n"
             "                              {name: d, bytes: 2MB, forward: 10us, backward: 10us}]}\n"
             "    workers: [h0, h1, h5, h6, h7]\n"
             "    servers: [h4]\n"
             "    iterations: 2\n"
             "    chunk: 500KB\n",
             sw);
    struct scenario *sc = run_job(y, 5);
    uint64_t drops = 0, pauses = 0;
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        const struct node *n = sc->nodes[i];
        if (n->ops->drops)
            drops += n->ops->drops(n);
        for (uint32_t k = 0; k < n->nports; k++)
            pauses += n->ports[k]->pfc_tx.pause_frames;
    }
    printf("  PFC two tiers (%s): drops %llu, PAUSE frames %llu\n", sw,
           (unsigned long long)drops, (unsigned long long)pauses);
    assert_true(pauses > 0);
    assert_int_equal(drops, 0);
    scenario_destroy(sc);
}

static void test_ddl_pfc_queue_not_class(void **state)
{
    pfc_two_tier("program: none, queue_by: priority");
    pfc_two_tier("program: tensorexpress");
    pfc_two_tier("program: none");
}

/* Step latency: a 4 MB all-reduce over 4 workers in whole segments takes 2(N-1) steps, each a
 * segment over two hops; with step_latency d each step's message is usable d later, so the
 * iteration grows by exactly 2(N-1) d. */
static void test_ddl_step_latency(void **state)
{
    const int N = 4;
    const sim_time_t d = SIM_US(7);
    struct scenario *sc =
        ring4_run("4MB", 2, "    chunk: 0\n    slice: 0\n    step_latency: 7us\n");
    const struct ddl_job *job = sc->jobs[0];
    sim_time_t step = two_hops(0, 4000000 / N);
    assert_true(job->iter_time.max == simtime_sec(2 * (N - 1) * (step + d)));
    assert_true(job->iter_time.min == simtime_sec(2 * (N - 1) * (step + d)));
    scenario_destroy(sc);
}

/* Asynchronous updates: each push comes straight back to its worker only, so every worker's
 * pull bytes equal its own push bytes and no worker waits for another. h1 sits behind a 1 Gb/s
 * link, h0 and the server behind 10 Gb/s. With sync: true every pull of layer b waits for h1's
 * push of it, 3 MB at 1 Gb/s = 24 ms, so no iteration of either worker is shorter than that.
 * Asynchronous, h0 gets its parameters from its own push: compute 9 ms plus 4 MB out and back
 * at 10 Gb/s (about 6.4 ms) - under 24 ms - while h1 needs 4 MB each way at 1 Gb/s (64 ms). */
static const char async_yaml[] = "switches: [{name: s0}]\n"
                                 "hosts: [{name: h0}, {name: h1}, {name: h2}]\n"
                                 "links: [{a: h0, b: s0}, {a: h1, b: s0, rate: 1Gbps},"
                                 " {a: h2, b: s0}]\n"
                                 "defaults: {link: {rate: 10Gbps, delay: 1us}}\n"
                                 "jobs:\n"
                                 "  - model: {name: m, layers: [{name: a, bytes: 1MB, forward: 1ms,"
                                 " backward: 1ms}, {name: b, bytes: 3MB, forward: 1ms, backward: "
                                 "2ms}]}\n"
                                 "    workers: [h0, h1]\n"
                                 "    servers: [h2]\n"
                                 "    iterations: 3\n"
                                 "    sync: %s\n"
                                 "    layers: {a: {forward: 5ms}}\n";

static void async_run(bool sync, double *min, double *max)
{
    char y[1024];
    snprintf(y, sizeof(y), async_yaml, sync ? "true" : "false");
    struct scenario *sc = run_job(y, 2);
    const struct ddl_job *job = sc->jobs[0];
    assert_int_equal(job->model->layers[0].fwd_ps, SIM_MS(5)); /* the override applied */
    /* pushes and pulls: 3 iterations x 4 MB each way per worker */
    assert_true(job->bytes_sent == 2 * 2 * 3 * 4000000ULL);
    for (uint32_t w = 0; w < 2; w++) {
        assert_true(job->workers[w].push[0]->delivered_bytes == 3 * 4000000ULL);
        assert_true(job->servers[0].pull[w]->delivered_bytes == 3 * 4000000ULL);
    }
    *min = job->iter_time.min;
    *max = job->iter_time.max;
    print_message("  sync %d: iterations %.6f .. %.6f s\n", sync, *min, *max);
    scenario_destroy(sc);
}

static void test_ddl_async(void **state)
{
    double amin, amax, smin, smax;
    async_run(false, &amin, &amax);
    async_run(true, &smin, &smax);
    double slow_push = 3e6 * 8 / 1e9;
    assert_true(smin > slow_push);
    assert_true(amin < slow_push);
    assert_true(amax > 0.064);
    (void)smax;
}

/* Size-balanced sharding puts VGG-16's huge fc6 alone on one server and spreads the rest. */
/* compute_jitter: each worker's compute time of an iteration is scaled by a factor from
 * U[1 - j, 1 + j]. One layer of 1 ms forward + 2 ms backward and a 1 KB gradient: the gradient
 * is ready at 3 ms x the factor, so with j = 0.2 every worker's lies in [2.4, 3.6] ms and they
 * differ; without jitter all are at exactly 3 ms; the same seed gives the same draws. */
static void jitter_ready(double j, double *ready)
{
    char y[512];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: 5}\n"
             "jobs:\n"
             "  - {name: j, model: {name: m, layers: [{name: a, bytes: 1KB, forward: 1ms,"
             " backward: 2ms}]}, workers: [h0, h1, h2, h3], servers: [h4], iterations: 1,"
             " compute_jitter: %g}\n",
             j);
    struct scenario *sc = load_run(y);
    for (uint32_t w = 0; w < 4; w++)
        ready[w] = simtime_sec(sc->jobs[0]->workers[w].push_ready[0]);
    scenario_destroy(sc);
}

static void test_ddl_compute_jitter(void **state)
{
    double r0[4], r1[4], r2[4];
    jitter_ready(0, r0);
    jitter_ready(0.2, r1);
    jitter_ready(0.2, r2);
    print_message("  gradient ready: %.6f %.6f %.6f %.6f s\n", r1[0], r1[1], r1[2], r1[3]);
    bool differ = false;
    for (int w = 0; w < 4; w++) {
        assert_true(r0[w] == 0.003);
        assert_true(r1[w] >= 0.0024 && r1[w] <= 0.0036);
        assert_true(r1[w] == r2[w]);
        differ = differ || r1[w] != r1[0];
    }
    assert_true(differ);
}

static void test_ddl_sharding(void **state)
{
    struct scenario *sc = load("topology: {kind: star, hosts: 4}\n"
                               "jobs:\n"
                               "  - {model: vgg16, workers: [h0], servers: [h1, h2, h3],"
                               " sharding: balanced, iterations: 1}\n"
                               "  - {model: vgg16, workers: [h0], servers: [h1, h2, h3],"
                               " sharding: round_robin, iterations: 1, start: 10s}\n");
    uint64_t load_b[3] = {0, 0, 0};
    uint64_t load_r[3] = {0, 0, 0};
    const struct ddl_job *b = sc->jobs[0];
    const struct ddl_job *r = sc->jobs[1];
    for (uint32_t l = 0; l < b->L; l++) {
        load_b[b->server_of[l]] += b->model->layers[l].bytes;
        load_r[r->server_of[l]] += r->model->layers[l].bytes;
        assert_int_equal(r->server_of[l], l % 3);
    }
    /* fc6 (151 MB) alone; the other two share the remaining 402 MB about evenly */
    assert_int_equal(b->server_of[13], 0);
    assert_true(load_b[0] == b->model->layers[13].bytes);
    double other = (double)(load_b[1] > load_b[2] ? load_b[1] - load_b[2] : load_b[2] - load_b[1]);
    assert_true(other / (double)(load_b[1] + load_b[2]) < 0.4);
    uint64_t max_b = MAX(load_b[0], MAX(load_b[1], load_b[2]));
    uint64_t max_r = MAX(load_r[0], MAX(load_r[1], load_r[2]));
    assert_true(max_b < max_r);
    scenario_destroy(sc);
}

/* Every DDL packet carries a shim the switch can read, and the source port marks DDL traffic. */
static void test_ddl_shim_roundtrip(void **state)
{
    uint8_t b[DDL_SHIM_BYTES];
    struct ddl_shim s = {.flags = DDL_FLAG_PULL | DDL_FLAG_BURST_FIRST,
                         .job = 3,
                         .layer = 513,
                         .chunk = 7,
                         .worker = 12,
                         .priority = 6,
                         .iteration = 70000};
    ddl_shim_write(b, &s);
    assert_int_equal(b[0], DDL_SHIM_MAGIC);
    assert_int_equal(b[4], 2); /* layer 513 big-endian */
    assert_int_equal(b[5], 1);
    struct ddl_shim r;
    assert_true(ddl_shim_read(b, &r));
    assert_int_equal(r.flags, s.flags);
    assert_int_equal(r.job, s.job);
    assert_int_equal(r.layer, s.layer);
    assert_int_equal(r.chunk, s.chunk);
    assert_int_equal(r.worker, s.worker);
    assert_int_equal(r.priority, s.priority);
    assert_int_equal(r.iteration, s.iteration);
    b[0] = 0;
    assert_false(ddl_shim_read(b, &r));
}

/* Regression: a PS job over TCP with 8 workers and 5 servers (ResNet-50, one switch) completes.
 * Its connections take DDL source ports; the TCP sender used to keep its endpoint under the old
 * port, lost every ACK and backed off until simulated time overflowed. Now every worker pushes
 * and pulls the whole model once, no connection times out (the switch buffer is unlimited, so
 * nothing is dropped, and the default 200 ms minimum RTO is far above the queueing delay), and
 * no packet goes unclaimed at any host. Jumbo segments keep the run short. */
static void test_ddl_ps_tcp_many_servers(void **state)
{
    struct scenario *sc = load_run("topology: {kind: star, hosts: 13, link: {rate: 25Gbps}}\n"
                                   "jobs:\n"
                                   "  - model: resnet50\n"
                                   "    workers: [h0, h1, h2, h3, h4, h5, h6, h7]\n"
                                   "    servers: [h8, h9, h10, h11, h12]\n"
                                   "    iterations: 1\n"
                                   "    transport: tcp\n"
                                   "    transport_params: {mss: 9000}\n");
    const struct ddl_job *job = sc->jobs[0];
    assert_int_equal(job->workers_done, 8);
    uint64_t model = 0;
    for (uint32_t l = 0; l < job->L; l++)
        model += job->model->layers[l].bytes;
    assert_true(job->bytes_sent == 2 * 8 * model); /* each worker's push and its pull */
    for (uint32_t w = 0; w < job->nworkers; w++) {
        for (uint32_t k = 0; k < job->nservers; k++) {
            assert_int_equal(job->workers[w].push[k]->data->st.timeouts, 0);
            assert_int_equal(job->servers[k].pull[w]->data->st.timeouts, 0);
        }
    }
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        const struct host *h = host_of(sc->nodes[i]);
        assert_true(!h || h->rx_unclaimed == 0);
    }
    scenario_destroy(sc);
}

TEST_MAIN(cmocka_unit_test(test_ddl_shim_roundtrip), cmocka_unit_test(test_ddl_one_worker_analytic),
          cmocka_unit_test(test_ddl_bandwidth_share),
          cmocka_unit_test(test_ddl_priority_first_layer), cmocka_unit_test(test_ddl_blocking_time),
          cmocka_unit_test(test_ddl_critical_blocking), cmocka_unit_test(test_ddl_nic_blocking),
          cmocka_unit_test(test_ddl_ring_allreduce), cmocka_unit_test(test_ddl_ring_many_workers),
          cmocka_unit_test(test_ddl_ring_slices), cmocka_unit_test(test_ddl_fifo_end_to_end),
          cmocka_unit_test(test_ddl_collective_costs), cmocka_unit_test(test_ddl_step_latency),
          cmocka_unit_test(test_ddl_contention_midstep),
          cmocka_unit_test(test_ddl_pfc_queue_not_class), cmocka_unit_test(test_ddl_async),
          cmocka_unit_test(test_ddl_sharding), cmocka_unit_test(test_ddl_ps_tcp_many_servers),
          cmocka_unit_test(test_ddl_compute_jitter))
