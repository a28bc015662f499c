/* Libra (arch: libra): the Zipf sampler and hot set (sparse.c) against the analytic share of
 * the most popular keys, the hot/cold split against PS only, and a located error for a hot set
 * larger than the switch's pool. */
#include "tests/testscenario.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/ddl/libra.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

static const char topo[] = "topology: {kind: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}, "
                           "switch: {program: aggregation, pfc: true}}\n";

static struct scenario *run(const char *sparse)
{
    char yaml[2048];
    snprintf(yaml, sizeof(yaml),
             "%sjobs:\n"
             "  - arch: libra\n"
             "    model: {name: rec, layers: [{name: emb, bytes: 1B, forward: 10us, backward: "
             "20us}, {name: mlp, bytes: 64KB, forward: 10us, backward: 20us}]}\n"
             "    workers: [h0, h1, h2, h3]\n"
             "    servers: [h4]\n"
             "    iterations: 3\n"
             "    chunk: 0\n"
             "    sparse: %s\n",
             topo, sparse);
    return run_job(yaml, 4);
}

/* One table of K = 1000 keys, Zipf s = 1, 50 slots of 2 rows (dim 32): the hot set is the 100
 * most frequent keys of 200000 draws, i.e. (up to sampling noise at the boundary) ranks 1..100,
 * which draw H(100)/H(1000) = 5.1874/7.4855 = 0.693 of the lookups (H(n) = sum 1/r). */
static void test_libra_hot_share(void **state)
{
    struct scenario *sc = run("{tables: 1, keys: 1000, dim: 32, lookups: 2000, skew: 1.0, "
                              "sample: 200000, hot_slots: 50}");
    const struct libra *lb = sc->jobs[0]->libra;
    double h100 = 0, h1000 = 0;
    for (int r = 1; r <= 1000; r++) {
        h1000 += 1.0 / r;
        if (r <= 100)
            h100 += 1.0 / r;
    }
    printf("  hot set: %llu keys, sampled share %.4f, analytic %.4f\n",
           (unsigned long long)lb->sp.nhot, lb->sp.hot_share, h100 / h1000);
    assert_true(lb->sp.nhot == 100);
    assert_true(lb->inc.W == 50);
    assert_true(fabs(lb->sp.hot_share - h100 / h1000) < 0.01);
    /* every worker sends every hot block every iteration, and every result is exact */
    assert_true(lb->inc.st.sent == 4ull * 3 * 50);
    assert_true(lb->inc.st.results_sw == 4ull * 3 * 50 && lb->inc.st.wrong == 0);
    scenario_destroy(sc);
}

/* Hot rows aggregated in the switch leave fewer rows for the server than PS only (hot_slots 0),
 * so the embedding's aggregation (gradient ready -> parameters back) is shorter: the server's
 * links carry 4 workers' distinct rows, and under Zipf s = 1.2 the hot rows are a large part of
 * them. */
static void test_libra_beats_ps_only(void **state)
{
    const char *sp = "{tables: 2, keys: 20000, dim: 8, lookups: 20000, skew: 1.2, sample: "
                     "200000, hot_slots: %s}";
    char a[256], b[256];
    snprintf(a, sizeof(a), sp, "-1");
    snprintf(b, sizeof(b), sp, "0");
    struct scenario *libra = run(a);
    struct scenario *ps = run(b);
    const struct libra *l = libra->jobs[0]->libra;
    const struct libra *p = ps->jobs[0]->libra;
    double tl = stats_mean(&l->agg_time), tp = stats_mean(&p->agg_time);
    printf("  embedding aggregation: libra %.3f ms (%llu hot keys, %.0f cold rows per worker), "
           "PS only %.3f ms (%.0f rows per worker): %.2fx\n",
           tl * 1e3, (unsigned long long)l->sp.nhot, (double)l->cold_rows / 12, tp * 1e3,
           (double)p->cold_rows / 12, tp / tl);
    assert_true(p->sp.nhot == 0 && !p->have_hot);
    assert_true(l->sp.nhot > 0 && l->inc.st.wrong == 0);
    assert_true(l->cold_rows < p->cold_rows);
    assert_true(tl < tp);
    scenario_destroy(libra);
    scenario_destroy(ps);
}

TEST_MAIN(cmocka_unit_test(test_libra_hot_share), cmocka_unit_test(test_libra_beats_ps_only))
