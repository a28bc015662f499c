/* Figure tables: pivoting the rows of several schemes into one row per key with a column per
 * scheme (figure.c `pivot`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

#include "sim/app/figure_table.h"
#include "sim/util.h"

static void add_row(struct table *t, const char *const *cells)
{
    t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
    t->rows[t->nrows] = xcalloc(t->ncols, sizeof(char *));
    for (size_t c = 0; c < t->ncols; c++)
        t->rows[t->nrows][c] = xstrdup(cells[c]);
    t->nrows++;
}

/* Rows (workers, scheme, lat) for workers 2 and 4 and schemes fifo and te, the 4 / te row
 * missing: two rows come out, keyed by workers in order of first appearance, with lat_fifo and
 * lat_te; the missing combination is an empty cell. A missing column is an error naming it. */
static void test_table_pivot(void **state)
{
    struct table t = {0};
    const char *head[] = {"workers", "scheme", "lat"};
    t.ncols = 3;
    t.head = xcalloc(3, sizeof(char *));
    for (int i = 0; i < 3; i++)
        t.head[i] = xstrdup(head[i]);
    add_row(&t, (const char *[]){"2", "fifo", "0.5"});
    add_row(&t, (const char *[]){"2", "te", "0.2"});
    add_row(&t, (const char *[]){"4", "fifo", "0.9"});
    const char *keys[] = {"workers"};
    const char *vals[] = {"lat"};
    char err[200];
    assert_int_equal(table_pivot(&t, "scheme", keys, 1, vals, 1, err, sizeof(err)), 0);
    assert_int_equal(t.ncols, 3);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(t.head[0], "workers");
    assert_string_equal(t.head[1], "lat_fifo");
    assert_string_equal(t.head[2], "lat_te");
    assert_string_equal(t.rows[0][0], "2");
    assert_string_equal(t.rows[0][1], "0.5");
    assert_string_equal(t.rows[0][2], "0.2");
    assert_string_equal(t.rows[1][0], "4");
    assert_string_equal(t.rows[1][1], "0.9");
    assert_string_equal(t.rows[1][2], "");
    const char *bad[] = {"latency"};
    assert_int_equal(table_pivot(&t, "lat_te", keys, 1, bad, 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "'latency'"));
    table_free(&t);
}

TEST_MAIN(cmocka_unit_test(test_table_pivot))
