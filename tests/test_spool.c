/* The spool of samples: records stream to a file in fixed blocks (memory does not grow with
 * their number), come back in order per stream, and the JSON writer prints them exactly as
 * jansson prints the same arrays held in memory. */
#include "tests/testutil.h"
#include "tests/testspool.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

struct rec {
    int64_t t;
    uint64_t a;
    double x;
};

static struct rec rec_of(uint64_t i)
{
    return (struct rec){(int64_t)i * 1000, i * i + 7, (double)i / 3.0};
}

static json_t *rec_json(const void *r, unsigned col)
{
    const struct rec *x = r;
    switch (col) {
    case 0:
        return json_integer(x->t);
    case 1:
        return json_real(x->x);
    default: /* a row: nested arrays */
        return json_pack("[IIf]", (json_int_t)x->t, (json_int_t)x->a, x->x);
    }
}

/* Every test gets *state = a new spool (in memory until its first full block), finished after
 * the test. */
static int spool_setup(void **state)
{
    *state = xcalloc(1, sizeof(struct spool));
    spool_init(*state);
    return 0;
}

static int spool_teardown(void **state)
{
    spool_fini(*state);
    free(*state);
    return 0;
}

/* A million records through one stream: the heap in use grows by less than two blocks (the
 * stream's block and the reader's), the file holds every full block, and the records come back
 * in order and intact. */
static void test_spool_bounded(void **state)
{
    struct spool *sp = *state;
    struct spool_stream s;
    spool_stream_init(&s, sp, sizeof(struct rec), rec_json);
    const uint64_t n = 1000000;
    struct rec r = rec_of(0);
    spool_append(&s, &r); /* the stream's block is allocated at its first record */
    size_t heap0 = mallinfo2().uordblks;
    for (uint64_t i = 1; i < n; i++) {
        r = rec_of(i);
        spool_append(&s, &r);
    }
    size_t heap1 = mallinfo2().uordblks;
    assert_int_equal(sp->err, 0);
    assert_true(heap1 < heap0 + SPOOL_BLOCK); /* 24 MB of records: nothing kept */
    uint64_t per = (SPOOL_BLOCK - 16) / sizeof(struct rec);
    assert_int_equal(s.count, n);
    assert_int_equal(s.nbuf, n % per);
    assert_int_equal(sp->end, (n / per) * (16 + per * sizeof(r))); /* full blocks only */
    struct spool_reader rd;
    spool_reader_init(&rd, &s);
    const struct rec *got;
    uint64_t i = 0;
    while ((got = spool_reader_next(&rd)) != NULL) {
        struct rec want = rec_of(i++);
        assert_memory_equal(got, &want, sizeof(want));
    }
    spool_reader_fini(&rd);
    assert_int_equal(i, n);
    assert_int_equal(sp->err, 0);
    spool_stream_fini(&s);
}

/* Streams of different record sizes interleaved on one file each read back their own. */
static void test_spool_interleaved(void **state)
{
    struct spool *sp = *state;
    struct spool_stream s[3];
    const uint32_t size[3] = {8, 24, 1000};
    for (int k = 0; k < 3; k++)
        spool_stream_init(&s[k], sp, size[k], NULL);
    unsigned char buf[1000];
    for (uint32_t i = 0; i < 5000; i++) {
        int k = (int)(i * 7 % 3);
        memset(buf, (int)(i & 0xff), sizeof(buf));
        memcpy(buf, &i, sizeof(i));
        spool_append(&s[k], buf);
    }
    for (int k = 0; k < 3; k++) {
        size_t n;
        unsigned char *all = spool_collect(&s[k], &n);
        assert_int_equal(n, s[k].count);
        uint32_t prev = 0;
        for (size_t j = 0; j < n; j++) {
            uint32_t i;
            memcpy(&i, all + j * size[k], sizeof(i));
            assert_int_equal((int)(i * 7 % 3), k);
            assert_true(j == 0 || i > prev);
            assert_int_equal(all[j * size[k] + size[k] - 1], (i & 0xff));
            prev = i;
        }
        free(all);
        spool_stream_fini(&s[k]);
    }
}

/* A tree with spooled arrays (none, one and many records; scalars and nested rows) prints
 * byte for byte as jansson prints the same tree with the arrays in memory; a string that reads
 * like a placeholder is only a string. */
static void test_spool_json_identical(void **state)
{
    struct spool *sp = *state;
    const uint64_t counts[3] = {0, 1, 700};
    struct spool_stream s[3];
    json_t *spooled = json_object();
    json_t *memory = json_object();
    json_t *txt = json_string("\"quoted\" \\ \x01 \xc3\xa9");
    json_object_set(spooled, "k\"ey\x02", txt);
    json_object_set(memory, "k\"ey\x02", txt);
    json_decref(txt);
    for (int k = 0; k < 3; k++) {
        spool_stream_init(&s[k], sp, sizeof(struct rec), rec_json);
        json_t *a = json_object();
        json_t *b = json_object();
        json_object_set_new(a, "n", json_integer((json_int_t)counts[k]));
        json_object_set_new(b, "n", json_integer((json_int_t)counts[k]));
        json_t *cols[3] = {json_array(), json_array(), json_array()};
        for (uint64_t i = 0; i < counts[k]; i++) {
            struct rec r = rec_of(i);
            spool_append(&s[k], &r);
            for (unsigned c = 0; c < 3; c++)
                json_array_append_new(cols[c], rec_json(&r, c));
        }
        static const char *const names[3] = {"t", "x", "rows"};
        for (unsigned c = 0; c < 3; c++) {
            json_object_set_new(a, names[c], spool_json_ref(&s[k], c));
            json_object_set_new(b, names[c], cols[c]);
        }
        json_object_set_new(a, "empty", json_object());
        json_object_set_new(b, "empty", json_object());
        char key[16];
        snprintf(key, sizeof(key), "s%d", k);
        json_object_set_new(spooled, key, json_pack("[o, s, n]", a, "(spooled samples)"));
        json_object_set_new(memory, key, json_pack("[o, s, n]", b, "(spooled samples)"));
    }
    const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(12);
    char *want = json_dumps(memory, flags);
    char *got = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&got, &len);
    assert_int_equal(spool_json_dumpf(sp, spooled, f, flags), 0);
    fclose(f);
    assert_string_equal(got, want);
    assert_int_equal(sp->nrefs, 0); /* the placeholders are forgotten */
    free(got);
    free(want);
    json_decref(spooled);
    json_decref(memory);
    for (int k = 0; k < 3; k++)
        spool_stream_fini(&s[k]);
}

/* A folder the file cannot be created in: the error is kept at the first full block (where the
 * run's output check finds it), later records are dropped, nothing crashes. */
static void test_spool_write_error(void **state)
{
    struct spool *sp = *state;
    spool_set_dir(sp, "/nonexistent/run");
    struct spool_stream s;
    spool_stream_init(&s, sp, sizeof(struct rec), rec_json);
    uint64_t per = (SPOOL_BLOCK - 16) / sizeof(struct rec);
    struct rec r = rec_of(1);
    for (uint64_t i = 0; i + 1 < per; i++)
        spool_append(&s, &r);
    assert_int_equal(sp->err, 0); /* still in memory */
    spool_append(&s, &r);
    assert_int_equal(sp->err, ENOENT);
    for (uint64_t i = 0; i < 3 * per; i++)
        spool_append(&s, &r);
    assert_int_equal(sp->end, 0);
    spool_stream_fini(&s);
}

#define SPOOL_TEST(f) cmocka_unit_test_setup_teardown(f, spool_setup, spool_teardown)
TEST_MAIN(SPOOL_TEST(test_spool_bounded), SPOOL_TEST(test_spool_interleaved),
          SPOOL_TEST(test_spool_json_identical), SPOOL_TEST(test_spool_write_error))
