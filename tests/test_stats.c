#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/sim.h"
#include "sim/stats.h"

static void test_stats_basic(void **state)
{
    struct stats s;
    stats_init(&s, 4);
    for (int i = 1; i <= 3; i++)
        stats_add(&s, i);
    assert_null(s.batch_mean); /* no batch complete yet: no batch memory */
    for (int i = 4; i <= 8; i++)
        stats_add(&s, i);
    assert_true(stats_mean(&s) == 4.5);
    assert_true(s.min == 1 && s.max == 8);
    assert_int_equal(s.nbatches, 2); /* batches of 4: means 2.5 and 6.5 */
    assert_true(s.batch_mean[0] == 2.5 && s.batch_mean[1] == 6.5);
    /* t(0.995, 1) = 63.657; sd of {2.5, 6.5} = 2.828; hw = 63.657 * 2.828 / sqrt(2) */
    assert_true(fabs(stats_ci_halfwidth(&s, 0.99) - 127.3138) < 1e-3);
    stats_fini(&s);
    assert_null(s.batch_mean);
}

/* Constant memory: the number of batches stays bounded as samples grow. */
static void test_stats_bounded(void **state)
{
    struct stats s;
    stats_init(&s, 1);
    for (int i = 0; i < 1000000; i++)
        stats_add(&s, (double)(i % 7));
    assert_true(s.nbatches <= STATS_MAX_BATCHES);
    assert_true(s.nbatches >= STATS_MAX_BATCHES / 2);
    assert_true(fabs(stats_mean(&s) - 3.0) < 1e-3);
    stats_fini(&s);
}

/* Coverage: for iid normal samples the 99% interval holds the true mean in about 99% of
 * repetitions (binomial: at least 96 of 100 with overwhelming probability). */
static void test_stats_coverage(void **state)
{
    struct sim *sim = sim_create(42, NULL);
    gsl_rng *r = sim_rng(sim, "test");
    int covered = 0;
    for (int rep = 0; rep < 100; rep++) {
        struct stats s;
        stats_init(&s, 16);
        for (int i = 0; i < 4096; i++)
            stats_add(&s, 10.0 + gsl_ran_gaussian(r, 2.0));
        double hw = stats_ci_halfwidth(&s, 0.99);
        if (fabs(stats_mean(&s) - 10.0) <= hw)
            covered++;
        stats_fini(&s);
    }
    assert_true(covered >= 96);
    sim_destroy(sim);
}

/* Named RNG streams: same (seed, name) → same draws; another name or seed → different. */
static void test_rng_streams(void **state)
{
    struct sim *a = sim_create(7, NULL);
    struct sim *b = sim_create(7, NULL);
    struct sim *c = sim_create(8, NULL);
    sim_rng(b, "other"); /* creating another stream first must not perturb "x" */
    unsigned long xa = gsl_rng_get(sim_rng(a, "x"));
    assert_true(xa == gsl_rng_get(sim_rng(b, "x")));
    assert_true(xa != gsl_rng_get(sim_rng(c, "x")));
    assert_true(gsl_rng_get(sim_rng(a, "y")) != gsl_rng_get(sim_rng(b, "x")));
    sim_destroy(a);
    sim_destroy(b);
    sim_destroy(c);
}

/* Many streams (a job's connections each have one): a name looked up again returns its stream
 * without creating another, in any order of creation, and each stream's first draw depends on
 * (seed, name) only. The lookup hashes the name (strmap, which grows past its first size): with
 * the linear lookup it replaced, 80,000 streams took minutes to build. */
static void test_rng_many_streams(void **state)
{
    enum { N = 5000 };
    struct sim *a = sim_create(7, NULL);
    struct sim *b = sim_create(7, NULL);
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "flow.f%d", i);
        sim_rng(a, name);
        snprintf(name, sizeof(name), "flow.f%d", N - 1 - i);
        sim_rng(b, name);
    }
    assert_int_equal(a->nrngs, N);
    assert_int_equal(b->nrngs, N);
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof(name), "flow.f%d", i);
        gsl_rng *ra = sim_rng(a, name);
        assert_ptr_equal(ra, sim_rng(a, name));
        assert_true(gsl_rng_get(ra) == gsl_rng_get(sim_rng(b, name)));
    }
    assert_int_equal(a->nrngs, N);
    assert_int_equal(b->nrngs, N);
    sim_destroy(a);
    sim_destroy(b);
}

TEST_MAIN(cmocka_unit_test(test_stats_basic), cmocka_unit_test(test_stats_bounded),
          cmocka_unit_test(test_stats_coverage), cmocka_unit_test(test_rng_streams),
          cmocka_unit_test(test_rng_many_streams))
