#include "tests/testscenario.h"

#include <stdlib.h>

#include "models/ddl/transfer.h"
#include "sim/app/estimate.h"
#include "sim/app/topo.h"
#include "sim/evq.h"
#include "sim/util.h"

/* The estimate of a loaded scenario, from its configuration. */
static struct estimate estimate_of(const struct scenario *sc)
{
    struct diag d;
    diag_init(&d, stderr);
    struct topo t = {0};
    assert_int_equal(topo_collect(&t, sc->doc->root, &d), 0);
    struct estimate e;
    estimate_compute(&e, &t, sc->doc->root);
    topo_free(&t);
    return e;
}

/* The memory estimate counts the event queue: an incast of 600 TCP flows on a star (every
 * sender's link busy at once, each end of a link a transmission end and an arrival pending,
 * each flow its timers) grows the queue's arrays past their first size, and the estimate's
 * figure for the queue, part of its total, covers what they took (their most: they never
 * shrink), the run and its merge scratch included. */
static void test_estimate_covers_queue(void **state)
{
    enum { N = 600 };
    char *y = incast_yaml(N, "100KB", "program: none, buffer: 64MB", false);
    struct scenario *sc = load_run(y);
    assert_flows_received(sc, 100000);
    struct estimate e = estimate_of(sc);
    assert_true(e.hosts == N + 1 && e.links == N + 1 && e.flows == N);
    const struct evq *q = &sc->sim->evq;
    print_message("queue: cap %u, %llu bytes; estimate %llu timers, %llu bytes\n", q->cap,
                  (unsigned long long)evq_bytes(q), (unsigned long long)e.timers,
                  (unsigned long long)e.queue_bytes);
    assert_true(q->cap > 1024); /* past its first size (evq.c) */
    assert_true(evq_bytes(q) <= e.queue_bytes);
    assert_true(e.queue_bytes == evq_bytes_bound(e.timers));
    assert_true(e.bytes == e.model_bytes + e.queue_bytes);
    /* the heaps, the run and its scratch, the slot arrays of the queue as it grew */
    assert_true(e.queue_bytes >= q->cap * (4 * sizeof(struct evq_entry) + sizeof(void *) + 4));
    scenario_destroy(sc);
    free(y);
}

/* The connections a job made during its run: a worker's push connections (ps: one per server
 * and group; ring and hierarchical: one per group to its successor when on another host), its
 * peer connections (tree: made on first use), a server's pull connections. */
static uint64_t job_conns_made(const struct ddl_job *job)
{
    uint64_t n = 0;
    uint32_t g = (uint32_t)job->cfg.groups;
    for (uint32_t w = 0; w < job->nworkers; w++) {
        const struct ddl_worker *dw = &job->workers[w];
        if (dw->push)
            n += job->cfg.arch == DDL_ARCH_PS ? (uint64_t)job->nservers * g : g;
        for (uint32_t i = 0; i < dw->npeers; i++) {
            for (uint32_t k = 0; k < g; k++)
                n += dw->peers[i].conn[k] != NULL;
        }
    }
    for (uint32_t s = 0; s < job->nservers; s++)
        n += job->servers[s].pull ? (uint64_t)job->nworkers * g : 0;
    return n;
}

/* The estimate counts DDL jobs: four jobs on one star (a ring of 4 workers, a tree of 6, a
 * parameter server job of 4 workers and 2 servers with 2 priority groups, a hierarchical
 * all-reduce of 4 hosts x 2 GPUs), run to their end, open connections the estimate's flows
 * cover (it has no declared flow: without the jobs' term it would count none), the workers and
 * servers it counts are theirs, the chunks the tree and the parameter server jobs had in flight
 * at once are within its bound of them, and the queue's arrays stay within its figure. */
static void test_estimate_covers_jobs(void **state)
{
    static const char *const jobs[] = {
        "arch: allreduce, workers: [h0, h1, h2, h3]",
        "arch: allreduce, collective: tree, workers: [h4, h5, h6, h7, h8, h9]",
        "arch: ps, priority_groups: 2, workers: [h10, h11, h12, h13], servers: [h14, h15]",
        "arch: allreduce, collective: hierarchical, gpus_per_host: 2, "
        "workers: [h16, h17, h18, h19]",
    };
    char *y = xasprintf("topology: {kind: star, hosts: 20, link: {rate: 10Gbps, delay: 1us}, "
                        "switch: {program: none, buffer: 16MB}}\njobs:\n");
    for (size_t i = 0; i < ARRAY_LEN(jobs); i++) {
        char *more = xasprintf("%s  - {%s, iterations: 2, chunk: 256KB, slice: 64KB, transport: "
                               "tcp, model: {name: m, layers: [{name: a, bytes: 1MB, forward: "
                               "10us, backward: 10us}, {name: b, bytes: 300KB, forward: 10us, "
                               "backward: 10us}]}}\n",
                               y, jobs[i]);
        free(y);
        y = more;
    }
    struct scenario *sc = load_run(y);
    assert_int_equal(sc->njobs, 4);
    uint64_t made = 0;
    uint64_t items = 0; /* the most chunks in flight of the jobs whose bound is counted */
    for (uint32_t j = 0; j < sc->njobs; j++) {
        const struct ddl_job *job = sc->jobs[j];
        assert_int_equal(job->workers_done, job->nworkers);
        made += job_conns_made(job);
        bool counted = job->cfg.arch == DDL_ARCH_PS ||
                       (job->cfg.arch == DDL_ARCH_ALLREDUCE &&
                        job->cfg.collective == DDL_COLL_TREE);
        print_message("job %u: %lld chunks in flight at most\n", j,
                      (long long)job->items.peak_live);
        items += counted ? (uint64_t)job->items.peak_live : 0;
    }
    struct estimate e = estimate_of(sc);
    const struct evq *q = &sc->sim->evq;
    print_message("connections made %llu, estimated flows %llu; queue %llu bytes, estimate %llu "
                  "timers, %llu bytes; jobs %llu bytes\n",
                  (unsigned long long)made, (unsigned long long)e.flows,
                  (unsigned long long)evq_bytes(q), (unsigned long long)e.timers,
                  (unsigned long long)e.queue_bytes, (unsigned long long)e.job_bytes);
    /* ring 4, tree 2 x 5, ps 2 x 4 x 2 x 2 groups, hierarchical a ring of 4 hosts */
    assert_int_equal(made, 4 + 10 + 32 + 4);
    assert_true(e.flows >= made);
    print_message("chunks in flight %llu, estimated %llu\n", (unsigned long long)items,
                  (unsigned long long)e.items);
    assert_true(items > 0 && e.items >= items);
    assert_int_equal(e.workers, 4 + 6 + 4 + 8);
    assert_int_equal(e.servers, 2);
    assert_true(e.job_bytes > 0 && e.model_bytes > e.job_bytes);
    assert_true(evq_bytes(q) <= e.queue_bytes);
    scenario_destroy(sc);
    free(y);
}

/* The estimate counts a job's timers: an in-network aggregation job of 8 workers with 256
 * aggregator slots each keeps a retransmission timer per packet in flight, up to 2,048 at once
 * on a star of 9 links; the queue's arrays grow past what the bound of every timer but the
 * job's allows, and stay within the bound with them. */
static void test_estimate_covers_job_timers(void **state)
{
    static const char y[] =
        "topology: {kind: star, hosts: 9, link: {rate: 100Gbps, delay: 1us}, switch: "
        "{program: aggregation}}\n"
        "jobs:\n"
        "  - {arch: inc, workers: [h0, h1, h2, h3, h4, h5, h6, h7], servers: [h8], "
        "iterations: 2, inc: {slots: 256}, model: {name: m, layers: [{name: a, bytes: 4MB, "
        "forward: 10us, backward: 10us}]}}\n";
    struct scenario *sc = run_job(y, 8);
    struct estimate e = estimate_of(sc);
    const struct evq *q = &sc->sim->evq;
    print_message("queue: cap %u, %llu bytes; estimate %llu timers (jobs %llu), %llu bytes; "
                  "without the jobs' %llu bytes\n",
                  q->cap, (unsigned long long)evq_bytes(q), (unsigned long long)e.timers,
                  (unsigned long long)e.job_timers, (unsigned long long)e.queue_bytes,
                  (unsigned long long)evq_bytes_bound(e.timers - e.job_timers));
    assert_true(e.job_timers >= 8 * 256);
    assert_true(evq_bytes(q) <= e.queue_bytes);
    assert_true(evq_bytes(q) > evq_bytes_bound(e.timers - e.job_timers));
    scenario_destroy(sc);
}

/* A host's CPU cores beyond one are timers of the estimate, from the host's own map, the
 * generator's or the defaults, as the builder takes them. */
static void test_estimate_counts_cores(void **state)
{
    static const char base[] = "topology: {kind: star, hosts: 4}\n";
    struct scenario *one = load(base);
    char *y = xasprintf("defaults: {host: {cpu_cores: 8}}\n%s", base);
    struct scenario *eight = load(y);
    struct estimate a = estimate_of(one);
    struct estimate b = estimate_of(eight);
    assert_int_equal(b.timers - a.timers, 4 * 7);
    scenario_destroy(one);
    scenario_destroy(eight);
    free(y);
}

TEST_MAIN(cmocka_unit_test(test_estimate_covers_queue), cmocka_unit_test(test_estimate_covers_jobs),
          cmocka_unit_test(test_estimate_covers_job_timers),
          cmocka_unit_test(test_estimate_counts_cores))
