#include "tests/testutil.h"

#include <stdint.h>
#include <string.h>

#include "sim/hugepage.h"
#include "sim/pool.h"

/* Objects of 448 bytes (a packet's size): slabs of 4, 8, 16, ... objects until a slab would
 * reach a huge page, then slabs of one huge page (4681 objects). Every object handed out is
 * distinct, writable, 64-byte aligned (the slabs are, and the size is a multiple of 64), and
 * the pool reuses freed objects before it grows. */
static void test_pool_slabs_grow_to_huge_pages(void **state)
{
    enum { SIZE = 448, FIRST = 4, N = 20000 };
    struct pool p;
    pool_init(&p, SIZE, FIRST);
    char **obj = malloc(N * sizeof(*obj));
    for (int i = 0; i < N; i++) {
        obj[i] = pool_get(&p);
        assert_int_equal((uintptr_t)obj[i] % 64, 0);
        memset(obj[i], i & 0xff, SIZE);
    }
    for (int i = 0; i < N; i++) /* no two objects overlap: each kept what was written */
        assert_int_equal((unsigned char)obj[i][SIZE - 1], i & 0xff);
    /* the doubling slabs sum to FIRST * (2^m - 1) objects for m slabs below a huge page */
    int64_t small = 0, next = FIRST;
    size_t nsmall = 0;
    while ((size_t)next * SIZE < HUGEPAGE_BYTES) {
        small += next;
        next *= 2;
        nsmall++;
    }
    int64_t per_huge = (int64_t)(HUGEPAGE_BYTES / SIZE);
    int64_t nhuge = (N - small + per_huge - 1) / per_huge;
    assert_int_equal(p.nslabs, nsmall + (size_t)nhuge);
    assert_int_equal(p.total, small + nhuge * per_huge);
    assert_int_equal((uintptr_t)p.slabs[nsmall] % HUGEPAGE_BYTES, 0);
    assert_int_equal(p.live, N);
    pool_put(&p, obj[7]);
    assert_ptr_equal(pool_get(&p), obj[7]); /* the freed object, no growth */
    assert_int_equal(p.total, small + nhuge * per_huge);
    for (int i = 0; i < N; i++)
        pool_put(&p, obj[i]);
    assert_int_equal(p.live, 0);
    assert_int_equal(p.peak_live, N);
    free(obj);
    pool_fini(&p);
}

/* Objects larger than a huge page keep plain slabs of the asked size. */
static void test_pool_objects_beyond_a_huge_page(void **state)
{
    struct pool p;
    pool_init(&p, HUGEPAGE_BYTES + 64, 2);
    void *a = pool_get(&p), *b = pool_get(&p), *c = pool_get(&p);
    assert_true(a != b && b != c && a != c);
    assert_int_equal(p.nslabs, 2);
    assert_int_equal(p.total, 4);
    pool_put(&p, a);
    pool_put(&p, b);
    pool_put(&p, c);
    pool_fini(&p);
}

TEST_MAIN(cmocka_unit_test(test_pool_slabs_grow_to_huge_pages),
          cmocka_unit_test(test_pool_objects_beyond_a_huge_page))
