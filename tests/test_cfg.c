#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/param.h"
#include "sim/simtime.h"
#include "sim/util.h"

/* Captures diagnostics in memory so tests can compare exact messages. */
struct capture {
    char *buf;
    size_t len;
    FILE *f;
    struct diag d;
};

static void cap_open(struct capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    diag_init(&c->d, c->f);
}

static const char *cap_text(struct capture *c)
{
    fflush(c->f);
    return c->buf;
}

static void cap_close(struct capture *c)
{
    fclose(c->f);
    free(c->buf);
}

/* The tests' fixture: *state is an open capture, closed after the test (also when it fails). */
static int cap_setup(void **state)
{
    struct capture *c = xcalloc(1, sizeof(*c));
    cap_open(c);
    *state = c;
    return 0;
}

static int cap_teardown(void **state)
{
    cap_close(*state);
    free(*state);
    return 0;
}

#define CAP_TEST(f) cmocka_unit_test_setup_teardown(f, cap_setup, cap_teardown)

static void test_cfg_tree_locations(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("t.yaml",
                                          "name: x\n"
                                          "links:\n"
                                          "  - {a: h1, b: s1}\n"
                                          "  - a: h2\n"
                                          "    b: s1\n",
                                          &c->d);
    assert_non_null(doc);
    struct cfg_node *links = cfg_get(doc->root, "links");
    assert_int_equal(links->kind, CFG_SEQ);
    assert_int_equal(links->n, 2);
    struct cfg_node *b = cfg_get(links->items[1], "b");
    assert_string_equal(b->str, "s1");
    assert_int_equal(b->loc.line, 5);
    assert_int_equal(b->loc.col, 8);
    struct src_loc kl = cfg_key_loc(links->items[0], "b");
    assert_int_equal(kl.line, 3);
    assert_int_equal(kl.col, 13);
    cfg_free(doc);
}

static void test_cfg_syntax_error(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("bad.yaml", "a: [1, 2\nb: 3\n", &c->d);
    assert_null(doc);
    assert_int_equal(diag_count(&c->d), 1);
    assert_non_null(strstr(cap_text(c), "bad.yaml:2:2: error: YAML syntax error"));
}

static void test_cfg_duplicate_key(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("d.yaml", "seed: 1\nseed: 2\n", &c->d);
    assert_null(doc);
    assert_string_equal(cap_text(c),
                        "d.yaml:2:1: error: duplicate key 'seed' (first given at line 1)\n");
}

static void test_cfg_alias(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("a.yaml", "l: &fast {rate: 100Gbps}\nm: *fast\n", &c->d);
    assert_non_null(doc);
    assert_string_equal(cfg_get(cfg_get(doc->root, "m"), "rate")->str, "100Gbps");
    cfg_free(doc);
}

static void test_cfg_set(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("s.yaml",
                                          "flows:\n"
                                          "  - {name: f0, bytes: 1MB}\n"
                                          "  - {name: f1, bytes: 2MB}\n",
                                          &c->d);
    assert_non_null(doc);
    assert_int_equal(cfg_set(doc, "flows.f1.bytes=8MB", &c->d), 0);
    assert_int_equal(cfg_set(doc, "flows.0.start=1us", &c->d), 0);
    assert_int_equal(cfg_set(doc, "defaults.switch.buffer=1MB", &c->d), 0);
    struct cfg_node *flows = cfg_get(doc->root, "flows");
    assert_string_equal(cfg_get(flows->items[1], "bytes")->str, "8MB");
    assert_string_equal(cfg_get(flows->items[0], "start")->str, "1us");
    assert_string_equal(cfg_get(cfg_get(cfg_get(doc->root, "defaults"), "switch"), "buffer")->str,
                        "1MB");
    assert_int_equal(cfg_set(doc, "flows.f9.bytes=1", &c->d), -1);
    assert_int_equal(cfg_set(doc, "nonsense", &c->d), -1);
    assert_int_equal(diag_count(&c->d), 2);
    assert_non_null(
        strstr(cap_text(c), "--set nonsense:1:7: error: expected --set key.path=value"));
    cfg_free(doc);
}

/* A --set value is YAML: flow lists and maps become trees located in the assignment (column of
 * the value in "--set PATH=VALUE"), quoting is kept, an empty value stays an empty string, and
 * a syntax error or an empty key segment is a located error that changes nothing. */
static void test_cfg_set_yaml(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc =
        cfg_load_string("s.yaml", "jobs:\n  - {name: vgg, servers: [h4]}\n", &c->d);
    assert_non_null(doc);
    assert_int_equal(cfg_set(doc, "jobs.vgg.servers=[h8, h9]", &c->d), 0);
    const struct cfg_node *sv = cfg_get(cfg_get(doc->root, "jobs")->items[0], "servers");
    assert_int_equal(sv->kind, CFG_SEQ);
    assert_int_equal(sv->n, 2);
    assert_string_equal(sv->items[1]->str, "h9");
    assert_int_equal(sv->loc.line, 1);
    assert_int_equal(sv->loc.col, 24); /* "--set jobs.vgg.servers=" is 23 characters */
    assert_int_equal(sv->items[1]->loc.col, 29);
    assert_int_equal(cfg_set(doc, "defaults.link={rate: 1Gbps, delay: 2us}", &c->d), 0);
    const struct cfg_node *l = cfg_get(cfg_get(doc->root, "defaults"), "link");
    assert_int_equal(l->kind, CFG_MAP);
    assert_string_equal(cfg_get(l, "delay")->str, "2us");
    assert_int_equal(cfg_set(doc, "name='a b'", &c->d), 0);
    assert_false(cfg_get(doc->root, "name")->plain);
    assert_int_equal(cfg_set(doc, "name=", &c->d), 0);
    assert_string_equal(cfg_get(doc->root, "name")->str, "");
    assert_int_equal(cfg_set(doc, "jobs.vgg.servers=[h1", &c->d), -1);
    assert_int_equal(cfg_set(doc, "defaults..link=1", &c->d), -1);
    assert_int_equal(sv, cfg_get(cfg_get(doc->root, "jobs")->items[0], "servers"));
    assert_string_equal(cap_text(c),
                        "--set jobs.vgg.servers=[h1:1:27: error: YAML syntax error: did not "
                        "find expected ',' or ']' while parsing a flow sequence\n"
                        "--set defaults..link=1:1:16: error: empty key in the path "
                        "'defaults..link' (expected keys separated by '.', e.g. "
                        "flows.f0.bytes)\n");
    cfg_free(doc);
}

/* Held messages come out once each, sorted by file (in order of first message), line and
 * column, unlocated ones last; duplicates are not counted; nothing prints before the release. */
static void test_diag_hold(void **state)
{
    struct capture *c = *state;
    diag_hold(&c->d);
    diag_error(&c->d, (struct src_loc){"b.yaml", 9, 2}, "late");
    diag_error(&c->d, (struct src_loc){NULL, 0, 0}, "nowhere");
    diag_error(&c->d, (struct src_loc){"b.yaml", 3, 5}, "early");
    diag_error(&c->d, (struct src_loc){"b.yaml", 9, 2}, "late");
    diag_warning(&c->d, (struct src_loc){"b.yaml", 3, 1}, "first column");
    diag_error(&c->d, (struct src_loc){"a.yaml", 1, 1}, "other file");
    assert_int_equal(diag_count(&c->d), 4);
    assert_string_equal(cap_text(c) ? cap_text(c) : "", "");
    diag_release(&c->d);
    assert_string_equal(cap_text(c), "b.yaml:3:1: warning: first column\n"
                                     "b.yaml:3:5: error: early\n"
                                     "b.yaml:9:2: error: late\n"
                                     "a.yaml:1:1: error: other file\n"
                                     "ddlsim: error: nowhere\n");
}

struct pcfg {
    sim_time_t delay;
    uint64_t rate;
    int mode;
    bool on;
    double x;
    const char *name;
};

static const char *const modes[] = {"alpha", "beta", NULL};
static const struct param_def pdefs[] = {
    {"delay", PARAM_TIME, offsetof(struct pcfg, delay), "1us", "0", "1s", NULL, "d"},
    {"rate", PARAM_RATE, offsetof(struct pcfg, rate), "10Gbps", "1Kbps", NULL, NULL, "r"},
    {"mode", PARAM_ENUM, offsetof(struct pcfg, mode), "alpha", NULL, NULL, modes, "m"},
    {"on", PARAM_BOOL, offsetof(struct pcfg, on), "false", NULL, NULL, NULL, "o"},
    {"x", PARAM_DOUBLE, offsetof(struct pcfg, x), "0.5", "0", "1", NULL, "x"},
    {"name", PARAM_STRING, offsetof(struct pcfg, name), NULL, NULL, NULL, NULL, "n"},
};

/* A tree from another document replaces a list; the copy keeps the source's locations, so
 * errors about it point into the file it came from. `--set .=1` names no key and says so. */
static void test_cfg_set_node(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("s.yaml", "flows:\n  - {name: f0}\n", &c->d);
    struct cfg_doc *sw = cfg_load_string("sweep.yaml", "v: [{name: a}, {name: b}]\n", &c->d);
    assert_non_null(doc);
    assert_non_null(sw);
    struct cfg_node *v = cfg_get(sw->root, "v");
    assert_int_equal(cfg_set_node(doc, "flows", v, v->loc, &c->d), 0);
    struct cfg_node *flows = cfg_get(doc->root, "flows");
    assert_true(flows != v);
    assert_int_equal(flows->n, 2);
    assert_string_equal(cfg_get(flows->items[1], "name")->str, "b");
    assert_string_equal(flows->items[1]->loc.file, "sweep.yaml");
    assert_int_equal(flows->items[1]->loc.col, 16); /* the second "{" of line 1 */
    assert_int_equal(
        cfg_set_node(doc, "flows.b.name", cfg_get(flows->items[0], "name"), v->loc, &c->d), 0);
    assert_string_equal(cfg_get(flows->items[1], "name")->str, "a");
    cfg_free(sw); /* the copy is independent of its source */
    assert_string_equal(cfg_get(cfg_get(doc->root, "flows")->items[0], "name")->str, "a");
    assert_int_equal(cfg_set(doc, ".=1", &c->d), -1);
    assert_non_null(strstr(cap_text(c), "--set .=1:1:7: error: empty key in the path '.' "
                                        "(expected keys separated by '.', e.g. flows.f0.bytes)\n"));
    cfg_free(doc);
}

/* The canonical text ignores key order, flow/block style, quoting and comments, and tells
 * different values apart. */
static void test_cfg_canonical(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *a = cfg_load_string("a.yaml", "b: 1\na: [x, {k: \"v\"}]\nn: ~\n", &c->d);
    struct cfg_doc *b =
        cfg_load_string("b.yaml", "# note\nn:\na:\n  - 'x'\n  - k: v\nb: 1\n", &c->d);
    struct cfg_doc *d = cfg_load_string("d.yaml", "b: 2\na: [x, {k: v}]\nn: ~\n", &c->d);
    struct cfg_buf ta = {0}, tb = {0}, td = {0};
    cfg_canonical(a->root, &ta);
    cfg_canonical(b->root, &tb);
    cfg_canonical(d->root, &td);
    assert_string_equal(ta.s, "{\"a\":[\"x\",{\"k\":\"v\"}],\"b\":\"1\",\"n\":~}");
    assert_string_equal(ta.s, tb.s);
    assert_string_not_equal(ta.s, td.s);
    free(ta.s);
    free(tb.s);
    free(td.s);
    cfg_free(a);
    cfg_free(b);
    cfg_free(d);
    assert_int_equal(diag_count(&c->d), 0);
}

static void test_param_decode(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("p.yaml", "{name: n1, mode: beta, on: true}", &c->d);
    struct pcfg p;
    assert_int_equal(param_decode(&c->d, pdefs, ARRAY_LEN(pdefs), doc->root, &p, "thing"), 0);
    assert_int_equal(p.delay, 1000000);
    assert_true(p.rate == 10000000000ULL);
    assert_int_equal(p.mode, 1);
    assert_true(p.on);
    assert_true(p.x == 0.5);
    assert_string_equal(p.name, "n1");
    cfg_free(doc);
}

static void test_param_errors(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("p.yaml",
                                          "delya: 1us\n"
                                          "rate: -5Gbps\n"
                                          "mode: gamma\n"
                                          "x: 2\n"
                                          "on: maybe\n",
                                          &c->d);
    struct pcfg p;
    assert_int_equal(param_decode(&c->d, pdefs, ARRAY_LEN(pdefs), doc->root, &p, "thing"), 6);
    assert_string_equal(cap_text(c),
                        "p.yaml:1:1: error: unknown key 'delya' in thing (did you mean 'delay'?)\n"
                        "p.yaml:2:7: error: rate: rate must not be negative: '-5Gbps'\n"
                        "p.yaml:3:7: error: mode: unknown value 'gamma' (one of: alpha, beta)\n"
                        "p.yaml:4:4: error: x: must be at most 1\n"
                        "p.yaml:5:5: error: on: expected true or false, got 'maybe'\n"
                        "p.yaml:1:1: error: thing: missing required key 'name'\n");
    cfg_free(doc);
}

/* Lists, lists of maps and free maps decode through the same tables: units and ranges per
 * item, did-you-mean on entry keys, located errors. */
struct lentry {
    const char *name;
    uint64_t size;
};
struct lcfg {
    struct param_vec w;
    struct param_vec entries;
    struct param_vec kv;
};
static const struct param_def lweight = {"w", PARAM_SIZE, 0, NULL, "1B", "1MB"};
static const struct param_def lentry_defs[] = {
    {"name", PARAM_STRING, offsetof(struct lentry, name), NULL, NULL, NULL, NULL, "n"},
    {"size", PARAM_SIZE, offsetof(struct lentry, size), "1KB", NULL, NULL, NULL, "s"},
};
static const struct param_def ldefs[] = {
    {"w", PARAM_LIST, offsetof(struct lcfg, w), PARAM_OPTIONAL, NULL, NULL, NULL, "w", &lweight, 1,
     0, 3},
    {"entries", PARAM_TABLE, offsetof(struct lcfg, entries), PARAM_OPTIONAL, NULL, NULL, NULL, "e",
     lentry_defs, ARRAY_LEN(lentry_defs), sizeof(struct lentry)},
    {"kv", PARAM_MAP, offsetof(struct lcfg, kv), PARAM_OPTIONAL, NULL, NULL, NULL, "m"},
};

static void test_param_lists(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string(
        "l.yaml", "{w: [2KB, 3B], entries: [{name: a}, {name: b, size: 1MiB}], kv: {x: 1}}", &c->d);
    struct lcfg l;
    assert_int_equal(param_decode(&c->d, ldefs, ARRAY_LEN(ldefs), doc->root, &l, "thing"), 0);
    assert_int_equal(l.w.n, 2);
    assert_int_equal(param_vec_int(&l.w, 0), 2000);
    assert_int_equal(param_vec_int(&l.w, 1), 3);
    assert_int_equal(l.w.locs[1].col, 11);
    assert_int_equal(l.entries.n, 2);
    assert_string_equal(PARAM_VEC_AT(&l.entries, struct lentry, 0)->name, "a");
    assert_int_equal(PARAM_VEC_AT(&l.entries, struct lentry, 0)->size, 1000);
    assert_int_equal(PARAM_VEC_AT(&l.entries, struct lentry, 1)->size, 1048576);
    assert_int_equal(l.kv.n, 1);
    assert_string_equal(PARAM_VEC_AT(&l.kv, struct param_kv, 0)->key, "x");
    assert_string_equal(PARAM_VEC_AT(&l.kv, struct param_kv, 0)->val, "1");
    assert_false(param_given(doc->root, "missing"));
    /* a later layer replaces a list (and frees the first) */
    struct cfg_doc *doc2 = cfg_load_string("m.yaml", "{w: [5B]}", &c->d);
    assert_int_equal(param_apply(&c->d, ldefs, ARRAY_LEN(ldefs), doc2->root, &l, "thing"), 0);
    assert_int_equal(l.w.n, 1);
    assert_int_equal(param_vec_int(&l.w, 0), 5);
    param_free(ldefs, ARRAY_LEN(ldefs), &l);
    assert_int_equal(l.entries.n, 0);
    cfg_free(doc2);
    cfg_free(doc);
}

static void test_param_list_errors(void **state)
{
    struct capture *c = *state;
    struct cfg_doc *doc = cfg_load_string("l.yaml",
                                          "w: [1B, 2MB]\n"
                                          "entries: [{nmae: a}, 7]\n"
                                          "kv: {x: [1]}\n",
                                          &c->d);
    struct lcfg l;
    assert_int_equal(param_decode(&c->d, ldefs, ARRAY_LEN(ldefs), doc->root, &l, "thing"), 3);
    assert_string_equal(cap_text(c),
                        "l.yaml:1:9: error: w: must be at most 1MB\n"
                        "l.yaml:2:12: error: unknown key 'nmae' in an entry of 'entries' (did you "
                        "mean 'name'?)\n"
                        "l.yaml:2:11: error: an entry of 'entries': missing required key 'name'\n"
                        "l.yaml:2:22: error: each entry of 'entries' must be a map, not a scalar\n"
                        "l.yaml:3:9: error: kv: 'x' needs a single value, not a list\n");
    param_free(ldefs, ARRAY_LEN(ldefs), &l);
    cfg_free(doc);
    cap_close(c);
    cap_open(c);
    doc = cfg_load_string("l2.yaml", "{w: [1B, 1B, 1B, 1B], entries: 3}", &c->d);
    assert_int_equal(param_decode(&c->d, ldefs, ARRAY_LEN(ldefs), doc->root, &l, "thing"), 2);
    assert_string_equal(cap_text(c),
                        "l2.yaml:1:5: error: 'w' has 4 items; at most 3 are allowed\n"
                        "l2.yaml:1:32: error: 'entries' expects a list, not a scalar\n");
    param_free(ldefs, ARRAY_LEN(ldefs), &l);
    cfg_free(doc);
}

static void test_param_suggest(void **state)
{
    const char *names[] = {"buffer", "latency", "priorities"};
    assert_string_equal(param_suggest("bufer", names, 3), "buffer");
    assert_string_equal(param_suggest("priority", names, 3), "priorities");
    assert_null(param_suggest("zzz", names, 3));
}

TEST_MAIN(CAP_TEST(test_cfg_tree_locations), CAP_TEST(test_cfg_syntax_error),
          CAP_TEST(test_cfg_duplicate_key), CAP_TEST(test_cfg_alias), CAP_TEST(test_cfg_set),
          CAP_TEST(test_cfg_set_node), CAP_TEST(test_cfg_set_yaml), CAP_TEST(test_diag_hold),
          CAP_TEST(test_cfg_canonical), CAP_TEST(test_param_decode), CAP_TEST(test_param_errors),
          cmocka_unit_test(test_param_suggest), CAP_TEST(test_param_lists),
          CAP_TEST(test_param_list_errors))
