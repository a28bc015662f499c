/* Multi-GPU hosts and the all-reduce collectives (ring, tree, hierarchical) with analytic
 * expectations: GPUs of one host exchange chunks over the intra-host interconnect and never
 * through the NIC; the hierarchical all-reduce of a tensor on an idle network takes the intra-
 * host chain reduce, the ring over the hosts and the chain broadcast, back to back; the tree and
 * the ring move the same bytes in all but spread them differently. */
#include "tests/testscenario.h"
#include "tests/testddl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/ddl/job.h"
#include "models/ddl/transfer.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

#define INTRA 100000000000ULL /* the job's default intra_bw */
#define INTRA_LAT SIM_US(2)   /* the job's default intra_latency */

static uint64_t npkts(uint64_t bytes)
{
    return (bytes + PAYLOAD - 1) / PAYLOAD;
}

#define WHOLE "    chunk: 0\n    slice: 0\n" /* whole tensors: one unit, one segment per step */

/* One all-reduce of one tensor of `bytes` (no compute) over `hosts` star hosts with `gpus`
 * each, with the job keys in `extra`. */
static struct scenario *run_collective(int hosts, int gpus, const char *coll, const char *bytes,
                                       const char *extra)
{
    char y[4096];
    int len = snprintf(y, sizeof(y),
                       "topology: {kind: star, hosts: %d}\n"
                       "jobs:\n"
                       "  - arch: allreduce\n"
                       "    collective: %s\n"
                       "    gpus_per_host: %d\n"
                       "    model: {name: one, layers: [{name: t, bytes: %s}]}\n"
                       "    iterations: 1\n"
                       "%s"
                       "    workers: [h0",
                       hosts, coll, gpus, bytes, extra);
    for (int h = 1; h < hosts; h++)
        len += snprintf(y + len, sizeof(y) - (size_t)len, ", h%d", h);
    snprintf(y + len, sizeof(y) - (size_t)len, "]\n");
    struct scenario *sc = load_run(y);
    assert_int_equal(sc->jobs[0]->workers_done, sc->jobs[0]->nworkers);
    return sc;
}

static const struct link *nic(const struct ddl_job *job, uint32_t w)
{
    return &job->workers[w].host->node.ports[0]->tx;
}

/* Hierarchical all-reduce of S = 4 MB over H = 4 hosts of G = 4 GPUs, whole tensors, idle
 * network. (1) Chain reduce inside every host: G-1 hops of S, each S / intra_bw + the intra
 * latency, one after the other. (2) The hosts' first GPUs run a ring of H members: 2(H-1)
 * steps of S/H over host -> switch -> host, the ring test's step (test_ddl). (3) Chain
 * broadcast: G-1 hops again. A first GPU holds the result after (1) + (2); the last GPU of a
 * host after (1) + (2) + (3): the iteration's minimum and maximum, to the picosecond. The
 * bandwidth form, intra + 2(H-1)/H S / B + intra, is a lower bound that the run exceeds by
 * the headers (PAYLOAD + FRAME_EXTRA) / PAYLOAD of each full packet of the ring and, per ring
 * step, the headers of its shorter last packet, one frame and two propagation delays (store
 * and forward): the tolerance below. */
static void test_hier_analytic(void **state)
{
    const uint32_t H = 4, G = 4;
    const uint64_t S = 4000000;
    struct scenario *sc = run_collective(H, G, "hierarchical", "4MB", WHOLE);
    const struct ddl_job *job = sc->jobs[0];
    sim_time_t chain = (G - 1) * (simtime_tx_ps(S, INTRA) + INTRA_LAT);
    sim_time_t ring = 2 * (H - 1) * two_hops(0, S / H);
    assert_true(job->iter_time.min == simtime_sec(chain + ring));
    assert_true(job->iter_time.max == simtime_sec(chain + ring + chain));
    double bw = simtime_sec(2 * chain) + 2.0 * (H - 1) / H * (double)S * 8 / (double)RATE;
    double wire = (double)(PAYLOAD + FRAME_EXTRA) / PAYLOAD;
    double frame = (double)(PAYLOAD + FRAME_EXTRA) * 8 / (double)RATE;
    double extra = (double)FRAME_EXTRA * 8 / (double)RATE; /* a segment's short last packet */
    double slack = simtime_sec(2 * chain) + (bw - simtime_sec(2 * chain)) * wire +
                   2.0 * (H - 1) * (frame + extra + 2 * simtime_sec(D));
    printf("  hierarchical 16 GPUs: %.6f s; bandwidth form %.6f s, with packet overheads %.6f s\n",
           job->iter_time.max, bw, slack);
    assert_true(job->iter_time.max >= bw && job->iter_time.max <= slack * (1 + 1e-9));
    /* bytes: the network carries only the ring, 2(H-1)/H S per host; every GPU but the last
     * of its host sends S down the reduce chain... and S back up the broadcast chain */
    assert_true(job->bytes_sent == 2 * (H - 1) * S);
    assert_true(job->intra_bytes == (uint64_t)H * 2 * (G - 1) * S);
    for (uint32_t h = 0; h < H; h++)
        assert_true(nic(job, h * G)->tx_pkts == 2 * (H - 1) * npkts(S / H));
    scenario_destroy(sc);
}

/* The flat ring over 8 GPUs on 2 hosts (NCCL's ring, Horovod 2017): every GPU sends 2(N-1)/N S,
 * but only the two hops between hosts (GPU 3 -> 4 and 7 -> 0) cross a NIC. Each host's NIC sends
 * exactly the packets of its one hop's 2(N-1) segments; everything else is intra-host. */
static void test_ring_intra_not_on_nic(void **state)
{
    const uint32_t H = 2, G = 4, N = H * G;
    const uint64_t S = 8000000, seg = S / N;
    struct scenario *sc = run_collective(H, G, "ring", "8MB", WHOLE);
    const struct ddl_job *job = sc->jobs[0];
    for (uint32_t w = 0; w < N; w++)
        assert_true(job->worker_bytes[w] == 2 * (N - 1) * seg);
    assert_true(job->bytes_sent == H * 2 * (N - 1) * seg);
    assert_true(job->intra_bytes == (N - H) * 2 * (N - 1) * seg);
    for (uint32_t h = 0; h < H; h++)
        assert_true(nic(job, h * G)->tx_pkts == 2 * (N - 1) * npkts(seg));
    /* only the two hosts' boundary GPUs hold a network connection */
    for (uint32_t w = 0; w < N; w++)
        assert_true((job->workers[w].push != NULL) == (w % G == G - 1));
    scenario_destroy(sc);
}

/* A ring of the 4 GPUs of one host runs on the intra-host interconnect alone: 2(N-1) steps of a
 * segment S/N, each its serialization at intra_bw plus intra_latency (every GPU's channel
 * carries one segment per step), and the host's NIC sends nothing. With intra_bw 200 Gb/s and
 * 5 us (an NVLink 2.0 link) the steps take what those parameters say. */
static void test_ring_one_host(void **state)
{
    const uint32_t N = 4;
    const uint64_t S = 4000000;
    struct scenario *sc = run_collective(1, N, "ring", "4MB", WHOLE);
    const struct ddl_job *job = sc->jobs[0];
    sim_time_t step = simtime_tx_ps(S / N, INTRA) + INTRA_LAT;
    assert_true(job->iter_time.max == simtime_sec(2 * (N - 1) * step));
    assert_true(job->bytes_sent == 0 && job->intra_bytes == N * 2 * (N - 1) * S / N);
    assert_true(nic(job, 0)->tx_pkts == 0);
    scenario_destroy(sc);
    sc = run_collective(1, N, "ring", "4MB", WHOLE "    intra_bw: 200Gbps\n    intra_latency: 5us\n");
    step = simtime_tx_ps(S / N, 200000000000ULL) + SIM_US(5);
    assert_true(sc->jobs[0]->iter_time.max == simtime_sec(2 * (N - 1) * step));
    scenario_destroy(sc);
}

static uint32_t children(uint32_t r, uint32_t n)
{
    uint32_t span = r ? r & -r : n, c = 0;
    for (uint32_t k = 1; k < span && r + k < n; k <<= 1)
        c++;
    return c;
}

/* Binomial tree over 8 single-GPU hosts: worker r sends S to its parent (r > 0) and S to each
 * child, so the root sends log2(8) S = 3 S where each ring member sends 2(N-1)/N S = 1.75 S; in
 * all both move 2(N-1) S. The root's NIC sends its three copies one after the other, so the
 * tree takes at least 3 ser(S), the ring 2(N-1) two_hops(S/N) exactly (test_ddl). */
static void test_tree_vs_ring_bytes(void **state)
{
    const uint32_t N = 8;
    const uint64_t S = 4000000;
    struct scenario *tree = run_collective(N, 1, "tree", "4MB", WHOLE);
    struct scenario *ring = run_collective(N, 1, "ring", "4MB", WHOLE);
    const struct ddl_job *t = tree->jobs[0], *r = ring->jobs[0];
    uint64_t tsum = 0, rsum = 0;
    for (uint32_t w = 0; w < N; w++) {
        assert_true(t->worker_bytes[w] == S * ((w > 0) + children(w, N)));
        assert_true(r->worker_bytes[w] == 2 * (N - 1) * S / N);
        tsum += t->worker_bytes[w];
        rsum += r->worker_bytes[w];
    }
    assert_true(t->worker_bytes[0] == 3 * S);
    assert_true(tsum == 2 * (N - 1) * S && rsum == tsum);
    assert_true(t->bytes_sent == r->bytes_sent && t->intra_bytes == 0);
    printf("  8 workers, 4 MB: tree %.6f s (root's NIC >= %.6f s), ring %.6f s\n",
           t->iter_time.max, simtime_sec(3 * ser(S)), r->iter_time.max);
    assert_true(t->iter_time.max > simtime_sec(3 * ser(S)));
    assert_true(r->iter_time.max == simtime_sec(2 * (N - 1) * two_hops(0, S / N)));
    scenario_destroy(tree);
    scenario_destroy(ring);
}

/* The tree's two phases on two hosts, whole tensors: worker 1 sends its S up to the root
 * (host -> switch -> host, two_hops), the root then holds the sum (its iteration ends there)
 * and sends it back down (two_hops again, worker 1's iteration). */
static void test_tree_two_workers(void **state)
{
    const uint64_t S = 4000000;
    struct scenario *sc = run_collective(2, 1, "tree", "4MB", WHOLE);
    const struct ddl_job *job = sc->jobs[0];
    assert_true(job->iter_time.min == simtime_sec(two_hops(0, S)));
    assert_true(job->iter_time.max == simtime_sec(2 * two_hops(0, S)));
    assert_true(job->worker_bytes[0] == S && job->worker_bytes[1] == S);
    scenario_destroy(sc);
}

/* A tree over 2 hosts of 4 GPUs: its only edge between hosts is 4 -> 0 (4's parent); the
 * connections are made on first use, so none exists before the run and exactly two (4 -> 0 up,
 * 0 -> 4 down) after it; everything else moved inside the hosts. */
static void test_tree_lazy_connections(void **state)
{
    const uint64_t S = 2000000;
    struct scenario *sc = load("topology: {kind: star, hosts: 2}\n"
                               "jobs:\n"
                               "  - arch: allreduce\n"
                               "    collective: tree\n"
                               "    gpus_per_host: 4\n"
                               "    model: {name: one, layers: [{name: t, bytes: 2MB}]}\n"
                               "    iterations: 2\n"
                               "    workers: [h0, h1]\n");
    const struct ddl_job *job = sc->jobs[0];
    uint32_t before = 0, after = 0;
    for (uint32_t w = 0; w < job->nworkers; w++)
        before += job->workers[w].npeers;
    scenario_run(sc);
    for (uint32_t w = 0; w < job->nworkers; w++)
        after += job->workers[w].npeers;
    assert_int_equal(before, 0);
    assert_int_equal(after, 2);
    assert_int_equal(job->workers[4].npeers, 1);
    assert_int_equal(job->workers[0].npeers, 1);
    assert_true(job->bytes_sent == 2 * 2 * S);              /* up and down, two iterations */
    assert_true(job->intra_bytes == 2 * (2 * 7 - 2) * S);   /* the other 6 edges, both ways */
    scenario_destroy(sc);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A tree of 1,200 GPUs (300 hosts of 4): workers past 1,023 connect to a parent and to
 * children on other hosts, more than one connection each, which the 10-bit form of a flow's
 * index cannot number; every connection the run made still has an index of its own (statistics
 * and RDMA keys tell them apart). */
static void test_tree_wide_indexes_distinct(void **state)
{
    struct scenario *sc = run_collective(300, 4, "tree", "64KB", WHOLE);
    const struct ddl_job *job = sc->jobs[0];
    uint32_t n = 0, cap = 4096, multi_wide = 0;
    uint32_t *idx = xcalloc(cap, sizeof(*idx));
    for (uint32_t w = 0; w < job->nworkers; w++) {
        const struct ddl_worker *wk = &job->workers[w];
        multi_wide += w >= 1024 && wk->npeers >= 2;
        for (uint32_t i = 0; i < wk->npeers; i++) {
            assert_true(n < cap);
            idx[n++] = wk->peers[i].conn[0]->data->index;
        }
    }
    assert_true(multi_wide > 0); /* the case the 10-bit form cannot number occurs */
    qsort(idx, n, sizeof(*idx), cmp_u32);
    for (uint32_t i = 1; i < n; i++)
        assert_true(idx[i] != idx[i - 1]);
    free(idx);
    scenario_destroy(sc);
}

/* With one GPU per host the hierarchical all-reduce is the flat ring: same iteration time to
 * the picosecond, same bytes. With 4 GPUs per host and slices, it still completes with the same
 * network bytes as its ring alone. */
static void test_hier_one_gpu_is_ring(void **state)
{
    struct scenario *h = run_collective(4, 1, "hierarchical", "4MB", WHOLE);
    struct scenario *r = run_collective(4, 1, "ring", "4MB", WHOLE);
    assert_true(h->jobs[0]->iter_time.max == r->jobs[0]->iter_time.max);
    assert_true(h->jobs[0]->bytes_sent == r->jobs[0]->bytes_sent);
    scenario_destroy(h);
    scenario_destroy(r);
    struct scenario *s = run_collective(2, 4, "hierarchical", "4MB", "    slice: 512KB\n    chunk: 1MB\n");
    assert_true(s->jobs[0]->bytes_sent == 2 * (2 - 1) * 4000000);
    scenario_destroy(s);
}

/* Multi-GPU hosts and collectives other than the ring need arch allreduce; a hierarchical
 * all-reduce needs two hosts: located errors. */
static void test_collective_errors(void **state)
{
    const char *bad[] = {
        "topology: {kind: star, hosts: 3}\njobs:\n  - model: alexnet\n    gpus_per_host: 2\n"
        "    workers: [h0, h1]\n    servers: [h2]\n",
        "topology: {kind: star, hosts: 3}\njobs:\n  - model: alexnet\n    collective: tree\n"
        "    workers: [h0, h1]\n    servers: [h2]\n",
        "topology: {kind: star, hosts: 2}\njobs:\n  - arch: allreduce\n    model: alexnet\n"
        "    collective: hierarchical\n    gpus_per_host: 4\n    workers: [h0]\n",
        "topology: {kind: star, hosts: 2}\njobs:\n  - arch: allreduce\n    model: alexnet\n"
        "    collective: star\n    workers: [h0, h1]\n",
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        struct diag d;
        diag_init(&d, NULL);
        assert_null(scenario_load_string("test.yaml", bad[i], NULL, &d));
        assert_int_equal(diag_count(&d), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hier_analytic),
        cmocka_unit_test(test_ring_intra_not_on_nic),
        cmocka_unit_test(test_ring_one_host),
        cmocka_unit_test(test_tree_two_workers),
        cmocka_unit_test(test_tree_vs_ring_bytes),
        cmocka_unit_test(test_tree_lazy_connections),
        cmocka_unit_test(test_tree_wide_indexes_distinct),
        cmocka_unit_test(test_hier_one_gpu_is_ring),
        cmocka_unit_test(test_collective_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
