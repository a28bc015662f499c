/* Sweep files: point enumeration (grid order, zip, explicit points, seeds innermost), located
 * errors, point records round trip, and the metric reductions. */
#include "tests/testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/sweep.h"
#include "sim/app/sweep_metric.h"
#include "sim/app/sweep_point.h"
#include "sim/util.h"

static const char base[] =
    "scenario:\n"
    "  topology: {kind: star, hosts: 3}\n"
    "  flows: [{name: a, src: h0, dst: h2, bytes: 1MB}]\n";

struct loaded {
    struct cfg_doc *doc;
    struct sweep *sw;
    char *msgs;
    size_t len;
};

static void load(struct loaded *l, const char *rest)
{
    char *text = xasprintf("%s%s", base, rest);
    FILE *f = open_memstream(&l->msgs, &l->len);
    struct diag d;
    diag_init(&d, f);
    l->doc = cfg_load_string("s.yaml", text, &d);
    assert_non_null(l->doc);
    l->sw = sweep_load_node("s.yaml", l->doc->root, NULL, &d);
    fclose(f);
    free(text);
}

static void unload(struct loaded *l)
{
    sweep_free(l->sw);
    cfg_free(l->doc);
    free(l->msgs);
}

/* 2 x zip(2) x points(2) positions, 3 seeds: 24 points; point 17 = ((1*2+0)*2+1)*3+2. */
static void test_sweep_points_order(void **state)
{
    struct loaded l;
    load(&l, "axes:\n"
             "  - {set: flows.a.bytes, values: [1MB, 2MB]}\n"
             "  - zip: [{set: topology.hosts, values: [3, 4]}, {name: lbl, values: [x, y]}]\n"
             "  - points: [{stop: 1ms}, {stop: 2ms, seed: 9}]\n"
             "seeds: [5, 6, 7]\n"
             "metrics: [{name: rx, path: flows.a.rx_bytes}]\n");
    assert_non_null(l.sw);
    assert_int_equal(l.sw->npoints, 24);
    assert_int_equal(l.sw->ncolumns, 5);
    const char *cols[] = {"flows.a.bytes", "topology.hosts", "lbl", "stop", "seed"};
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(l.sw->columns[i], cols[i]);
    struct sweep_point p;
    sweep_point_get(l.sw, 17, &p);
    assert_true(p.seed_given);
    assert_int_equal(p.seed, 7);
    assert_string_equal(p.cells[0], "2MB");
    assert_string_equal(p.cells[1], "3");
    assert_string_equal(p.cells[2], "x");
    assert_string_equal(p.cells[3], "2ms");
    assert_string_equal(p.cells[4], "9");
    assert_int_equal(p.nassigns, 4); /* bytes, hosts, stop, seed (the label sets nothing) */
    sweep_point_free(&p);
    unload(&l);
}

static void test_sweep_errors_located(void **state)
{
    struct loaded l;
    load(&l, "axes:\n"
             "  - zip: [{set: topology.hosts, values: [3, 4]}, {name: l, values: [x]}]\n"
             "  - {set: flows.b.bytes, values: [1MB]}\n"
             "metrics: [{name: rx, from: queues, path: x}]\n");
    assert_null(l.sw);
    assert_non_null(strstr(l.msgs, "s.yaml:5:68: error: zipped lists must have the same length "
                                   "(1 here, 2 before)"));
    assert_non_null(strstr(l.msgs, "s.yaml:7:11: error: metric 'rx': from queues takes 'column' "
                                   "(and 'where'), not 'path'"));
    unload(&l);
    load(&l, "axes: [{set: flows.b.bytes, values: [1MB]}]\n"
             "metrics: [{name: rx, path: flows.a.rx_bytes}]\n");
    assert_null(l.sw);
    assert_non_null(strstr(l.msgs, "s.yaml:4:38: error: no item 'b' in the list"));
    unload(&l);
}

static void test_sweep_record_round_trip(void **state)
{
    struct sweep_rec r = {.id = 42, .exit_code = 2, .wall_s = 0.125,
                          .row = xstrdup("42,1MB,1,,failed,2,,\"a, b\""),
                          .error = xstrdup("s.yaml:1:1: error: a, b"),
                          .inputs = xstrdup("p4_program abc /x/y.p4\n")};
    char *text = sweep_rec_format(&r);
    struct sweep_rec q;
    assert_int_equal(sweep_rec_parse(text, &q), 0);
    assert_int_equal(q.id, 42);
    assert_int_equal(q.exit_code, 2);
    assert_true(q.wall_s == 0.125);
    assert_string_equal(q.row, r.row);
    assert_string_equal(q.error, r.error);
    assert_string_equal(q.inputs, r.inputs);
    text[strlen(text) - 2] = '\0'; /* a torn record is not a record */
    struct sweep_rec t;
    assert_int_equal(sweep_rec_parse(text, &t), -1);
    free(text);
    sweep_rec_free(&q);
    sweep_rec_free(&r);
}

/* Nearest-rank order statistics over 1..10: median 5, p90 9, p99 10. */
static void test_sweep_reduce(void **state)
{
    double v[10];
    for (int k = 0; k < 7; k++) {
        int which[] = {SWEEP_MEDIAN, SWEEP_P90, SWEEP_P99, SWEEP_MIN, SWEEP_MAX, SWEEP_MEAN,
                       SWEEP_SUM};
        double want[] = {5, 9, 10, 1, 10, 5.5, 55};
        for (int i = 0; i < 10; i++)
            v[i] = 10 - i;
        assert_true(sweep_reduce(which[k], v, 10) == want[k]);
    }
    assert_true(sweep_reduce(SWEEP_COUNT, v, 0) == 0);
    assert_true(isnan(sweep_reduce(SWEEP_MEAN, v, 0)));
}

static void test_sweep_csv_cell(void **state)
{
    char *a = sweep_csv_cell("plain");
    char *b = sweep_csv_cell("say \"hi\", then\nbye");
    assert_string_equal(a, "plain");
    assert_string_equal(b, "\"say \"\"hi\"\", then bye\"");
    free(a);
    free(b);
}

TEST_MAIN(cmocka_unit_test(test_sweep_points_order), cmocka_unit_test(test_sweep_errors_located),
          cmocka_unit_test(test_sweep_record_round_trip), cmocka_unit_test(test_sweep_reduce),
          cmocka_unit_test(test_sweep_csv_cell))
