/* In-order delivery from out-of-order byte ranges. */
#include "tests/testutil.h"

#include <stdlib.h>

#include "models/transport/ranges.h"

static void test_ranges_basic(void **state)
{
    struct ranges r;
    ranges_init(&r);
    assert_int_equal(ranges_add(&r, 100, 200), 0); /* a hole at 0..100 */
    assert_int_equal(ranges_add(&r, 300, 400), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(ranges_add(&r, 200, 300), 0); /* joins both, still after the hole */
    assert_int_equal(r.n, 1);
    assert_int_equal(ranges_add(&r, 0, 100), 400); /* the hole fills: prefix jumps */
    assert_int_equal(r.prefix, 400);
    assert_int_equal(r.n, 0);
    assert_int_equal(ranges_add(&r, 0, 400), 0); /* duplicates add nothing */
    assert_int_equal(ranges_add(&r, 350, 450), 50); /* overlap counts only new bytes */
    ranges_fini(&r);
}

/* Random permutation of fixed-size pieces: the prefix only grows, ends complete. */
static void test_ranges_random(void **state)
{
    enum { N = 2000, P = 1456 };
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    unsigned seed = 7;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(rand_r(&seed) % (unsigned)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    struct ranges r;
    ranges_init(&r);
    uint64_t total = 0;
    uint64_t last = 0;
    for (int i = 0; i < N; i++) {
        total += ranges_add(&r, (uint64_t)order[i] * P, (uint64_t)(order[i] + 1) * P);
        assert_true(r.prefix >= last);
        assert_int_equal(total, r.prefix);
        last = r.prefix;
    }
    assert_int_equal(r.prefix, (uint64_t)N * P);
    assert_int_equal(r.n, 0);
    ranges_fini(&r);
}

TEST_MAIN(cmocka_unit_test(test_ranges_basic), cmocka_unit_test(test_ranges_random))
