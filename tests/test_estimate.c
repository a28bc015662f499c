#include "tests/testscenario.h"

#include <stdlib.h>

#include "sim/app/estimate.h"
#include "sim/app/topo.h"
#include "sim/evq.h"

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
    struct diag d;
    diag_init(&d, stderr);
    struct topo t = {0};
    assert_int_equal(topo_collect(&t, sc->doc->root, &d), 0);
    struct estimate e;
    estimate_compute(&e, &t, sc->doc->root);
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
    topo_free(&t);
    scenario_destroy(sc);
    free(y);
}

TEST_MAIN(cmocka_unit_test(test_estimate_covers_queue))
