/* Differential test of the compiled and the native engine against the interpreter (the
 * reference): every P4 program of the repository (tests/p4, tests/p4sim, p4/programs) gets
 * three pipelines, one per engine, with the same randomly generated table entries (every
 * table, every action that takes control-plane entries, keys and data of every width), and
 * the same generated packets (random bytes, and each program's STF packets with random bytes
 * changed) run through ingress and egress on all three (the compiled and the native engine
 * deparsing in place, over their own copy of the input). The test requires identical results:
 * forwarding decisions, the whole per-packet state after ingress and after egress, the
 * deparsed bytes, faults; and that the native engine really ran generated code (its objects
 * are cached under $BUILD/p4native-cache). Run from the repository root. */
#include "tests/testutil.h"

#include <ctype.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4ir.h"
#include "p4/engine/p4native.h"
#include "p4/engine/p4rt.h"

#define MAX_PKT 160
#define NSIDES 3 /* interpreter, compiled, native */

struct side {
    struct p4_pipe *pipe;
    uint64_t *state;
    int faults;
    int64_t now;
};

struct rng {
    uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* Values near the edges more often than uniform ones. */
static uint64_t rvalue(struct rng *r, int width)
{
    uint64_t m = width >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << width) - 1;
    switch (rnd(r) % 6) {
    case 0:
        return 0;
    case 1:
        return 1 & m;
    case 2:
        return m;
    case 3:
        return rnd(r) % 16 & m;
    default:
        return rnd(r) & m;
    }
}

static int64_t now_ps(void *ud)
{
    return ((struct side *)ud)->now;
}

static void on_fault(void *ud, const char *file, int line, int col, const char *msg)
{
    (void)file;
    (void)line;
    (void)col;
    (void)msg;
    ((struct side *)ud)->faults++;
}

static void side_init(struct side *s, const struct p4_prog *prog, enum p4_exec exec)
{
    memset(s, 0, sizeof(*s));
    struct p4_host host = {0};
    host.ud = s;
    host.now_ps = now_ps;
    host.fault = on_fault;
    host.seed = 12345;
    host.exec = exec;
    s->pipe = p4_pipe_create(prog, &host);
    s->state = calloc(1, p4_prog_state_bytes(prog) + 8);
}

static void side_fini(struct side *s)
{
    p4_pipe_destroy(s->pipe);
    free(s->state);
}

/* Value words for a field of `width` bits. */
static void rwords(struct rng *r, int width, uint64_t *w)
{
    int nw = (width + 63) / 64;
    for (int i = 0; i < nw; i++) {
        int wi = width - 64 * i >= 64 ? 64 : width - 64 * i;
        w[i] = rvalue(r, wi);
    }
}

/* One random entry of action `action` in table t, added to every pipeline (or to none). */
static void add_entry(struct side *s, int t, const char *tname, const char *action,
                      struct rng *r)
{
    char err[256];
    struct p4rt_entry e[NSIDES];
    if (p4rt_entry_init(&e[0], s[0].pipe, t, action, err, sizeof(err)) < 0)
        return;
    for (int k = 1; k < NSIDES; k++)
        assert_int_equal(p4rt_entry_init(&e[k], s[k].pipe, t, action, err, sizeof(err)), 0);
    uint64_t w[64];
    const char *name;
    const char *mk;
    int width;
    bool ok = true;
    for (int k = 0; ok && p4rt_table_key(s[0].pipe, tname, k, &name, &mk, &width) == 0; k++) {
        if (width > 64 * 64)
            goto done;
        rwords(r, width, w);
        int plen = strcmp(mk, "lpm") == 0 ? (int)(rnd(r) % (uint64_t)(width + 1)) : -1;
        ok = p4rt_entry_key(&e[0], k, w, plen, err, sizeof(err)) == 0;
        for (int j = 1; j < NSIDES; j++)
            assert_int_equal(p4rt_entry_key(&e[j], k, w, plen, err, sizeof(err)), ok ? 0 : -1);
    }
    for (int i = 0; ok && p4rt_action_param(s[0].pipe, tname, action, i, &name, &width) == 0;
         i++) {
        rwords(r, width, w);
        int p = p4rt_entry_param(&e[0], name, err, sizeof(err));
        ok = p >= 0;
        for (int j = 0; ok && j < NSIDES; j++)
            ok = p4rt_entry_arg(&e[j], p, w, err, sizeof(err)) == 0;
    }
    int prio = (int)(rnd(r) % 8) - 1;
    if (ok) {
        int a = 0;
        for (int j = 0; j < NSIDES; j++) {
            e[j].priority = prio;
            int b = p4rt_entry_add(s[j].pipe, &e[j], NULL, err, sizeof(err));
            if (j)
                assert_int_equal(a, b);
            a = b;
        }
    }
done:
    for (int j = 0; j < NSIDES; j++)
        p4rt_entry_fini(&e[j]);
}

static void add_entries(struct side *s, struct rng *r)
{
    const char *tname;
    for (int t = 0; p4rt_table_at(s[0].pipe, t, &tname) == 0; t++) {
        const char *action;
        for (int a = 0; p4rt_table_action(s[0].pipe, tname, a, &action) == 0; a++) {
            for (int n = 0; n < 4; n++)
                add_entry(s, t, tname, action, r);
        }
    }
}

/* The packets of the program's STF file (path with .stf for .p4), at most cap. */
static int stf_packets(const char *p4path, uint8_t (*pk)[MAX_PKT], int *len, int cap)
{
    char path[512];
    snprintf(path, sizeof(path), "%.*s.stf", (int)(strlen(p4path) - 3), p4path);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int n = 0;
    while (n < cap && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "packet ", 7) != 0)
            continue;
        char *p = line + 7;
        while (*p && !isspace((unsigned char)*p)) /* the port */
            p++;
        int nib = 0;
        len[n] = 0;
        for (; *p && len[n] < MAX_PKT; p++) {
            if (!isxdigit((unsigned char)*p))
                continue;
            int v = isdigit((unsigned char)*p) ? *p - '0' : tolower(*p) - 'a' + 10;
            if (nib++ % 2 == 0)
                pk[n][len[n]] = (uint8_t)(v << 4);
            else
                pk[n][len[n]++] |= (uint8_t)v;
        }
        n++;
    }
    fclose(f);
    return n;
}

/* Runs one packet through every engine and compares everything they produce with the
 * interpreter's. */
static void run_all(struct side *s, const struct p4_prog *prog, const uint8_t *pkt, int len,
                    uint32_t port, const char *what)
{
    /* the program's slots (the compiled engine's own slots after them are its cache) */
    size_t sb = (size_t)prog->cc_slot * 8;
    struct p4_ingress_out io[NSIDES];
    struct p4_egress_out eo[NSIDES];
    uint8_t out[NSIDES][512];
    for (int k = 0; k < NSIDES; k++) {
        struct p4_ingress_in in = {pkt, (uint32_t)len, 0, port, 0, NULL, -1};
        p4_pipe_ingress(s[k].pipe, s[k].state, &in, &io[k]);
        p4_pipe_state_sync(s[k].pipe, s[k].state); /* fields kept only as header bytes */
    }
    for (int k = 1; k < NSIDES; k++) {
        if (memcmp(&io[0], &io[k], sizeof(io[0])) || memcmp(s[0].state, s[k].state, sb))
            fail_msg("%s: ingress results of engine %d differ", what, k);
    }
    /* the compiled and native engines' output may replace their input (in place) */
    uint8_t inp[NSIDES][512];
    const uint8_t *res[NSIDES];
    for (int k = 0; k < NSIDES; k++) {
        memcpy(inp[k], pkt, (size_t)len);
        struct p4_egress_in ein = {io[k].egress_port & 0x1ff, 0, 0, 3, 1, 1000, 2000,
                                   k ? inp[k] : pkt, (uint32_t)len, out[k], sizeof(out[k]),
                                   k ? inp[k] : NULL};
        memset(out[k], 0, sizeof(out[k]));
        p4_pipe_egress(s[k].pipe, s[k].state, &ein, &eo[k]);
        p4_pipe_state_sync(s[k].pipe, s[k].state);
        res[k] = eo[k].in_place ? inp[k] : out[k];
        eo[k].in_place = false;
    }
    for (int k = 1; k < NSIDES; k++) {
        if (memcmp(&eo[0], &eo[k], sizeof(eo[0])) || memcmp(s[0].state, s[k].state, sb) ||
            memcmp(res[0], res[k], eo[0].out_len))
            fail_msg("%s: egress results of engine %d differ", what, k);
        assert_int_equal(s[0].faults, s[k].faults);
    }
}

/* Returns 1 if the program was loaded and compared. */
static int compare_program(const char *path, struct rng *r)
{
    FILE *devnull = fopen("/dev/null", "w");
    int nerr = 0;
    struct p4_prog *prog = p4_prog_load(path, "p4/include", devnull, &nerr);
    fclose(devnull);
    if (!prog)
        return 0; /* needs extern models (tested by its own test) */
    struct side s[NSIDES];
    side_init(&s[0], prog, P4_EXEC_INTERP);
    side_init(&s[1], prog, P4_EXEC_COMPILED);
    side_init(&s[2], prog, P4_EXEC_NATIVE);
    enum p4native_status ns = p4native_status(prog);
    if (ns != P4NATIVE_COMPILED && ns != P4NATIVE_CACHED)
        fail_msg("%s: the native engine did not load", path);
    add_entries(s, r);
    static uint8_t stf[64][MAX_PKT];
    int stflen[64];
    int nstf = stf_packets(path, stf, stflen, 64);
    uint8_t pkt[MAX_PKT];
    for (int i = 0; i < 300; i++) {
        int len;
        if (nstf && i % 3) { /* an STF packet, some bytes changed */
            int j = (int)(rnd(r) % (uint64_t)nstf);
            len = stflen[j];
            memcpy(pkt, stf[j], (size_t)len);
            for (int m = (int)(rnd(r) % 4); m > 0 && len; m--)
                pkt[rnd(r) % (uint64_t)len] = (uint8_t)rvalue(r, 8);
        } else {
            len = (int)(rnd(r) % 100);
            for (int b = 0; b < len; b++)
                pkt[b] = (uint8_t)rvalue(r, 8);
        }
        for (int k = 0; k < NSIDES; k++)
            s[k].now = (int64_t)i * 1000000;
        char what[600];
        snprintf(what, sizeof(what), "%s packet %d", path, i);
        run_all(s, prog, pkt, len, (uint32_t)(rnd(r) % 8), what);
    }
    for (int k = 0; k < NSIDES; k++)
        side_fini(&s[k]);
    p4_prog_free(prog);
    return 1;
}

static void test_p4cc_same_results_as_interpreter(void **state)
{
    char cache[256];
    snprintf(cache, sizeof(cache), "%s/p4native-cache", getenv("BUILD") ? getenv("BUILD") : "build");
    setenv("DDLSIM_P4_CACHE", cache, 1);
    const char *pats[] = {"tests/p4/*.p4", "tests/p4sim/*.p4", "p4/programs/*.p4"};
    struct rng r = {0x9e3779b97f4a7c15ULL};
    int compared = 0;
    for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
        glob_t g;
        if (glob(pats[i], 0, NULL, &g) != 0)
            continue;
        for (size_t k = 0; k < g.gl_pathc; k++)
            compared += compare_program(g.gl_pathv[k], &r);
        globfree(&g);
    }
    assert_true(compared >= 25); /* the repository's programs, less those needing models */
}

TEST_MAIN(cmocka_unit_test(test_p4cc_same_results_as_interpreter))
