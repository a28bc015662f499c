/* Table matching: lpm longest prefix wins regardless of insertion order, ternary larger
 * priority wins (ties: first added), exact hash lookups, range bounds, removal. */
#include "tests/testutil.h"

#include <string.h>

#include "p4/engine/p4table.h"

struct fixture {
    struct p4ir_key keys[2];
    struct p4ir_table_action actions[4];
    struct p4ir_table ir;
    struct p4table t;
};

static void setup_table(struct fixture *f, enum p4_match_kind k0, int nkeys, enum p4_match_kind k1)
{
    memset(f, 0, sizeof(*f));
    f->keys[0].mk = k0;
    f->keys[0].width = 32;
    f->keys[0].nw = 1;
    f->keys[0].woff = 0;
    f->keys[1].mk = k1;
    f->keys[1].width = 16;
    f->keys[1].nw = 1;
    f->keys[1].woff = 1;
    f->ir.keys = f->keys;
    f->ir.nkeys = nkeys;
    f->ir.key_words = nkeys;
    f->ir.actions = f->actions;
    f->ir.nactions = 4;
    f->ir.default_entry.action = -1;
    f->ir.size = 100;
    for (int i = 0; i < 4; i++)
        f->actions[i].data_words = 1;
    p4table_init(&f->t, &f->ir);
}

static int lookup(struct fixture *f, uint64_t k0, uint64_t k1)
{
    uint64_t key[2] = {k0, k1};
    struct p4table_entry *e = p4table_lookup(&f->t, key);
    return e ? (int)p4table_data(&f->t, e)[0] : -1;
}

static void add(struct fixture *f, uint64_t v, uint64_t m, int prio, uint64_t data)
{
    uint64_t val[2] = {v, 0};
    uint64_t msk[2] = {m, 0};
    assert_true(p4table_add(&f->t, val, msk, NULL, prio, 0, &data) >= 0);
}

static void test_p4table_lpm_longest_prefix(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_LPM, 1, P4MK_EXACT);
    add(&f, 0x0A000000, 0xFF000000, 0, 8);
    add(&f, 0x0A010100, 0xFFFFFF00, 0, 24);
    add(&f, 0x0A010000, 0xFFFF0000, 0, 16);
    add(&f, 0, 0, 0, 0);
    assert_int_equal(lookup(&f, 0x0A010105, 0), 24);
    assert_int_equal(lookup(&f, 0x0A010205, 0), 16);
    assert_int_equal(lookup(&f, 0x0A020205, 0), 8);
    assert_int_equal(lookup(&f, 0x0B000000, 0), 0);
    p4table_fini(&f.t);
}

/* lpm with an exact key (indexed by prefix length): both must match; duplicates are refused;
 * removing the longest prefix exposes the next; many /32s stay O(1) to look up. */
static void test_p4table_lpm_with_exact(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_LPM, 2, P4MK_EXACT);
    uint64_t d;
    uint64_t v[2];
    uint64_t m[2];
    int handles[3];
    const uint64_t pfx[3][3] = {{0x0A000000, 0xFF000000, 8},
                                {0x0A010000, 0xFFFF0000, 16},
                                {0x0A010100, 0xFFFFFF00, 24}};
    for (int i = 0; i < 3; i++) {
        v[0] = pfx[i][0];
        v[1] = 7;
        m[0] = pfx[i][1];
        m[1] = 0xffff;
        d = pfx[i][2];
        handles[i] = p4table_add(&f.t, v, m, NULL, 0, 0, &d);
        assert_true(handles[i] >= 0);
    }
    v[0] = 0x0A010100;
    v[1] = 7;
    m[0] = 0xFFFFFF00;
    assert_int_equal(p4table_add(&f.t, v, m, NULL, 0, 0, &d), -1); /* duplicate */
    v[0] = 0x0A0101FF;                                              /* same prefix, other bits */
    assert_int_equal(p4table_add(&f.t, v, m, NULL, 0, 0, &d), -1);
    assert_int_equal(lookup(&f, 0x0A010105, 7), 24);
    assert_int_equal(lookup(&f, 0x0A010105, 8), -1); /* the exact key differs */
    assert_int_equal(lookup(&f, 0x0A0102FF, 7), 16);
    assert_int_equal(p4table_remove(&f.t, handles[2]), 0);
    assert_int_equal(lookup(&f, 0x0A010105, 7), 16);
    assert_int_equal(p4table_remove(&f.t, handles[1]), 0);
    assert_int_equal(lookup(&f, 0x0A010105, 7), 8);
    p4table_fini(&f.t);

    setup_table(&f, P4MK_LPM, 1, P4MK_EXACT);
    f.ir.size = 0; /* unbounded */
    for (uint64_t h = 0; h < 5000; h++)
        add(&f, 0x0A000000 | h, 0xFFFFFFFF, 0, h);
    add(&f, 0x0A000000, 0xFF000000, 0, 99999);
    for (uint64_t h = 0; h < 5000; h += 97)
        assert_int_equal(lookup(&f, 0x0A000000 | h, 0), (int)h);
    assert_int_equal(lookup(&f, 0x0AFFFFFF, 0), 99999);
    assert_int_equal(f.t.nlevels, 2);
    p4table_fini(&f.t);
}

static void test_p4table_ternary_priority(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_TERNARY, 1, P4MK_EXACT);
    add(&f, 0x00000005, 0x0000000F, 10, 1);
    add(&f, 0x00000015, 0x000000FF, 30, 2);
    add(&f, 0x00000000, 0x00000000, 20, 3);
    add(&f, 0x00000025, 0x000000FF, 30, 4); /* same priority as entry 2, added later */
    assert_int_equal(lookup(&f, 0x15, 0), 2);
    assert_int_equal(lookup(&f, 0x25, 0), 4);
    assert_int_equal(lookup(&f, 0x05, 0), 3); /* wildcard (20) beats the /4 nibble (10) */
    assert_int_equal(lookup(&f, 0x99, 0), 3);
    p4table_fini(&f.t);
}

static void test_p4table_exact_hash(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_EXACT, 2, P4MK_EXACT);
    uint64_t ones[2] = {0xFFFFFFFF, 0xFFFF};
    for (uint64_t i = 0; i < 50; i++) {
        uint64_t v[2] = {i * 7919, i};
        uint64_t d = i + 100;
        assert_true(p4table_add(&f.t, v, ones, NULL, 0, 1, &d) >= 0);
    }
    uint64_t dup[2] = {7919, 1};
    uint64_t d = 0;
    assert_int_equal(p4table_add(&f.t, dup, ones, NULL, 0, 1, &d), -1);
    for (uint64_t i = 0; i < 50; i++)
        assert_int_equal(lookup(&f, i * 7919, i), (int)(i + 100));
    assert_int_equal(lookup(&f, 7919, 2), -1);
    assert_int_equal(p4table_remove(&f.t, 3), 0);
    assert_int_equal(lookup(&f, 3 * 7919, 3), -1);
    assert_int_equal(lookup(&f, 4 * 7919, 4), 104);
    p4table_fini(&f.t);
}

/* Duplicates are found through a hash of (value, mask), not a scan: a ternary entry with the
 * same key and priority is refused, the same key at another priority is not; a removed entry's
 * key can be added again; an exact duplicate among 20,000 entries is still found; and
 * last_added is the entry of the last successful add. */
static void test_p4table_duplicate_index(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_TERNARY, 1, P4MK_EXACT);
    uint64_t v[1] = {0x15};
    uint64_t m[1] = {0xFF};
    uint64_t d = 1;
    int h = p4table_add(&f.t, v, m, NULL, 5, 0, &d);
    assert_true(h >= 0);
    assert_int_equal(p4table_data(&f.t, f.t.last_added)[0], 1);
    assert_int_equal(p4table_add(&f.t, v, m, NULL, 5, 0, &d), -1);
    assert_true(p4table_add(&f.t, v, m, NULL, 6, 0, &d) >= 0);
    assert_int_equal(p4table_remove(&f.t, h), 0);
    assert_true(p4table_add(&f.t, v, m, NULL, 5, 0, &d) >= 0);
    p4table_fini(&f.t);

    setup_table(&f, P4MK_EXACT, 1, P4MK_EXACT);
    f.ir.size = 0; /* unbounded */
    uint64_t ones[1] = {0xFFFFFFFF};
    for (uint64_t i = 0; i < 20000; i++) {
        uint64_t k[1] = {i * 2654435761u % 4294967291u};
        d = i;
        assert_true(p4table_add(&f.t, k, ones, NULL, 0, 0, &d) >= 0);
        assert_int_equal(p4table_data(&f.t, f.t.last_added)[0], i);
    }
    uint64_t again[1] = {(uint64_t)12345 * 2654435761u % 4294967291u};
    assert_int_equal(p4table_add(&f.t, again, ones, NULL, 0, 0, &d), -1);
    p4table_fini(&f.t);
}

static void test_p4table_range(void **state)
{
    struct fixture f;
    setup_table(&f, P4MK_RANGE, 1, P4MK_EXACT);
    uint64_t lo[1] = {10};
    uint64_t hi[1] = {20};
    uint64_t m[1] = {0};
    uint64_t d = 1;
    assert_true(p4table_add(&f.t, lo, m, hi, 1, 0, &d) >= 0);
    lo[0] = 20;
    hi[0] = 30;
    d = 2;
    assert_true(p4table_add(&f.t, lo, m, hi, 2, 0, &d) >= 0);
    assert_int_equal(lookup(&f, 9, 0), -1);
    assert_int_equal(lookup(&f, 10, 0), 1);
    assert_int_equal(lookup(&f, 20, 0), 2);
    assert_int_equal(lookup(&f, 30, 0), 2);
    assert_int_equal(lookup(&f, 31, 0), -1);
    p4table_fini(&f.t);
}

static void test_p4table_meter_colors(void **state)
{
    struct p4_meter m;
    memset(&m, 0, sizeof(m));
    assert_int_equal(p4table_meter(&m, 1, 0), P4_GREEN); /* unconfigured */
    m.configured = true;
    m.cir = 1000; /* bytes/s */
    m.cburst = 100;
    m.pir = 2000;
    m.pburst = 200;
    m.ctok = (unsigned __int128)100 * 1000000000000ULL;
    m.ptok = (unsigned __int128)200 * 1000000000000ULL;
    assert_int_equal(p4table_meter(&m, 100, 0), P4_GREEN);
    assert_int_equal(p4table_meter(&m, 100, 0), P4_YELLOW);
    assert_int_equal(p4table_meter(&m, 1, 0), P4_RED);
    /* 50 ms later: +50 committed, +100 peak tokens */
    assert_int_equal(p4table_meter(&m, 50, 50000000000LL), P4_GREEN);
}

TEST_MAIN(cmocka_unit_test(test_p4table_lpm_longest_prefix),
          cmocka_unit_test(test_p4table_lpm_with_exact),
          cmocka_unit_test(test_p4table_ternary_priority),
          cmocka_unit_test(test_p4table_exact_hash), cmocka_unit_test(test_p4table_duplicate_index),
          cmocka_unit_test(test_p4table_range), cmocka_unit_test(test_p4table_meter_colors))
