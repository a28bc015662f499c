/* STF runner: the packet-test format of p4c's bmv2 tests plus ddlsim extensions. Each
 * `packet` runs to completion through a small bmv2-like traffic manager (clones,
 * resubmission, multicast replication, recirculation) before the next command. Outputs are
 * compared per port, in order, at the end. */
#include "p4/engine/p4stf.h"
#include "p4/engine/p4rt.h"
#include "p4/engine/p4util.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define STF_MAX_PORTS 512
#define STF_MAX_JOBS 4096 /* per input packet: bounds recirculation loops */
#define STF_BUF 65536
#define STF_MAX_KV 64

struct stf_pkt {
    uint32_t port;
    uint8_t *bytes;
    uint32_t len;
    int line; /* input packet line (for messages) */
};

struct stf_expect {
    uint32_t port;
    uint8_t *nib;  /* expected nibbles */
    uint8_t *care; /* 0 for '*' */
    int nnib;
    bool exact; /* '$' */
    bool any;   /* no data: any packet */
    int line;
};

enum job_kind { JOB_INGRESS, JOB_EGRESS };

struct stf_job {
    enum job_kind kind;
    uint8_t *bytes; /* owned */
    uint32_t len;
    uint32_t port;
    uint32_t instance;
    uint32_t rid;
    uint64_t *state; /* owned: egress state, or the state to preserve from */
    int fl;
};

struct stf {
    const char *file;
    FILE *out;
    FILE *err;
    struct p4_pipe *pipe;
    size_t state_bytes;
    int64_t now_ps;
    uint32_t enq_qdepth[STF_MAX_PORTS];
    uint32_t deq_qdepth[STF_MAX_PORTS];
    int64_t qdelay_ps[STF_MAX_PORTS];
    struct stf_pkt *outs;
    int nouts;
    int capouts;
    struct stf_expect *exps;
    int nexps;
    int capexps;
    struct stf_job *jobs;
    int njobs;
    int capjobs;
    struct stf_id {
        int id;     /* `= ID` of an add line */
        int handle; /* ... and the handle its entry got */
    } *ids;
    int nids;
    int capids;
    int errors;   /* bad input */
    int failures; /* failed expectations */
    int checks;   /* assertions evaluated */
    int packets;
    uint8_t obuf[STF_BUF]; /* the pipeline's output packet */
    char kstore[STF_MAX_KV][2][256]; /* key:value text of the current add line */
    /* current line */
    int line;
    const char *text;
};

static void stf_error(struct stf *s, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void stf_error(struct stf *s, const char *at, const char *fmt, ...)
{
    s->errors++;
    int col = at ? (int)(at - s->text) + 1 : 1;
    fprintf(s->err, "%s:%d:%d: error: ", s->file, s->line, col);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(s->err, fmt, ap);
    va_end(ap);
    fputc('\n', s->err);
}

static int64_t stf_now(void *ud)
{
    return ((struct stf *)ud)->now_ps;
}

static void stf_log(void *ud, const char *msg)
{
    struct stf *s = ud;
    fprintf(s->out, "log_msg: %s\n", msg);
}

static void stf_fault(void *ud, const char *file, int line, int col, const char *msg)
{
    struct stf *s = ud;
    fprintf(s->out, "%s:%d:%d: runtime: %s (STF line %d)\n", file, line, col, msg, s->line);
}

/* ---- tokens ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* Next whitespace-delimited token; returns its start and sets *len (0 at end). */
static const char *token(const char **pp, size_t *len)
{
    const char *p = skip_ws(*pp);
    const char *b = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    *len = (size_t)(p - b);
    *pp = p;
    return b;
}

/* A number (decimal, 0x hex or 0 octal); ERANGE when it does not fit 64 bits. */
static int parse_num(const char *t, size_t n, uint64_t *v)
{
    if (!n || !isdigit((unsigned char)t[0]))
        return -EINVAL;
    char buf[48];
    if (n >= sizeof(buf)) { /* a number that long does not fit */
        for (size_t i = 0; i < n; i++) {
            if (!isxdigit((unsigned char)t[i]) && t[i] != 'x' && t[i] != 'X')
                return -EINVAL;
        }
        return -ERANGE;
    }
    memcpy(buf, t, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 0);
    if (*end)
        return -EINVAL;
    if (errno == ERANGE)
        return -ERANGE;
    *v = x;
    return 0;
}

static bool parse_u64(const char *t, size_t n, uint64_t *v)
{
    return parse_num(t, n, v) == 0;
}

/* The next token as a number in [0, max]; errors echo the number as written. */
static bool need_num(struct stf *s, const char **pp, const char *what, uint64_t max, uint64_t *v)
{
    size_t n;
    const char *t = token(pp, &n);
    int rc = parse_num(t, n, v);
    if (rc == 0 && *v <= max)
        return true;
    if (rc == 0 || rc == -ERANGE)
        stf_error(s, t, "%s %.*s is out of range (at most %llu)", what, (int)n, t,
                  (unsigned long long)max);
    else if (n)
        stf_error(s, t, "expected %s near '%.*s'", what, (int)n, t);
    else
        stf_error(s, t, "expected %s", what);
    return false;
}

static bool need_u64(struct stf *s, const char **pp, const char *what, uint64_t *v)
{
    return need_num(s, pp, what, UINT64_MAX, v);
}

static bool parse_duration(const char *t, size_t n, int64_t *ps)
{
    char buf[48];
    if (!n || n >= sizeof(buf))
        return false;
    memcpy(buf, t, n);
    buf[n] = 0;
    char *end;
    double v = strtod(buf, &end);
    double mul;
    if (!strcmp(end, "ps") || !*end)
        mul = 1;
    else if (!strcmp(end, "ns"))
        mul = 1e3;
    else if (!strcmp(end, "us"))
        mul = 1e6;
    else if (!strcmp(end, "ms"))
        mul = 1e9;
    else if (!strcmp(end, "s"))
        mul = 1e12;
    else
        return false;
    if (v < 0 || v * mul > 9e18)
        return false;
    *ps = (int64_t)(v * mul + 0.5);
    return true;
}

/* Hex nibbles with spaces anywhere; '*' allowed when care != NULL. Returns nibble count or
 * -1 (error reported). Stops at '$' or end of line. */
static int parse_hex(struct stf *s, const char *p, uint8_t **nib, uint8_t **care, bool *dollar)
{
    size_t cap = strlen(p) + 1;
    *nib = p4util_calloc(cap, 1);
    if (care)
        *care = p4util_calloc(cap, 1);
    int n = 0;
    if (dollar)
        *dollar = false;
    for (; *p; p++) {
        int c = *p;
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if (c == '#')
            break;
        if (c == '$' && dollar) {
            *dollar = true;
            const char *q = skip_ws(p + 1);
            if (*q && *q != '#') {
                stf_error(s, q, "unexpected text after '$' near '%c'", *q);
                return -1;
            }
            break;
        }
        if (c == '*' && care) {
            (*nib)[n] = 0;
            (*care)[n] = 0;
            n++;
            continue;
        }
        if (!isxdigit(c)) {
            stf_error(s, p, "invalid hex digit near '%c'", c);
            return -1;
        }
        (*nib)[n] = (uint8_t)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
        if (care)
            (*care)[n] = 1;
        n++;
    }
    return n;
}

/* ---- packet processing (bmv2 simple_switch life cycle) ---- */

static void push_job(struct stf *s, struct stf_job j)
{
    P4_PUSH(s->jobs, s->njobs, s->capjobs, j);
}

static uint64_t *new_state(struct stf *s)
{
    return p4util_calloc(1, s->state_bytes + 8);
}

static uint8_t *dup_bytes(const uint8_t *b, uint32_t n)
{
    uint8_t *r = p4util_malloc(n + 1);
    if (n)
        memcpy(r, b, n);
    return r;
}

static void run_ingress(struct stf *s, struct stf_job *j)
{
    struct p4_ingress_in in = {j->bytes, j->len, j->len, j->port, j->instance, j->state, j->fl};
    struct p4_ingress_out res;
    uint64_t *state = new_state(s);
    p4_pipe_ingress(s->pipe, state, &in, &res);
    if (res.clone_session >= 0) {
        int mp = p4_pipe_mirror_port(s->pipe, (uint32_t)res.clone_session);
        if (mp >= 0) {
            uint64_t *cs = new_state(s);
            struct p4_ingress_in cin = in;
            cin.instance_type = P4_INSTANCE_INGRESS_CLONE;
            p4_pipe_clone_i2e(s->pipe, cs, &cin, state, res.clone_fl);
            push_job(s, (struct stf_job){JOB_EGRESS, dup_bytes(j->bytes, j->len), j->len,
                                         (uint32_t)mp, P4_INSTANCE_INGRESS_CLONE, 0, cs, -1});
        }
    }
    switch (res.fwd) {
    case P4_FWD_RESUBMIT:
        push_job(s, (struct stf_job){JOB_INGRESS, dup_bytes(j->bytes, j->len), j->len, 0,
                                     P4_INSTANCE_RESUBMIT, 0, state, res.resubmit_fl});
        return;
    case P4_FWD_MULTICAST: {
        const struct p4_mc_member *m;
        int n = p4_pipe_mcast_members(s->pipe, res.mcast_grp, &m);
        for (int i = 0; i < n; i++) {
            uint64_t *cs = new_state(s);
            p4_pipe_state_copy(s->pipe, cs, state);
            push_job(s, (struct stf_job){JOB_EGRESS, dup_bytes(j->bytes, j->len), j->len, m[i].port,
                                         P4_INSTANCE_REPLICATION, m[i].rid, cs, -1});
        }
        break;
    }
    case P4_FWD_UNICAST:
        push_job(s, (struct stf_job){JOB_EGRESS, dup_bytes(j->bytes, j->len), j->len,
                                     res.egress_port, P4_INSTANCE_NORMAL, 0, state, -1});
        return;
    case P4_FWD_DROP:
        break;
    }
    free(state);
}

static void run_egress(struct stf *s, struct stf_job *j, int line)
{
    uint32_t port = j->port % STF_MAX_PORTS;
    struct p4_egress_in in;
    memset(&in, 0, sizeof(in));
    in.egress_port = j->port;
    in.egress_rid = j->rid;
    in.instance_type = j->instance;
    in.enq_qdepth = s->enq_qdepth[port];
    in.deq_qdepth = s->deq_qdepth[port];
    in.deq_timedelta_ps = s->qdelay_ps[port];
    in.enq_ps = s->now_ps - s->qdelay_ps[port];
    in.bytes = j->bytes;
    in.len = j->len;
    in.out = s->obuf;
    in.out_cap = STF_BUF;
    struct p4_egress_out res;
    p4_pipe_egress(s->pipe, j->state, &in, &res);
    if (res.clone_session >= 0) {
        int mp = p4_pipe_mirror_port(s->pipe, (uint32_t)res.clone_session);
        if (mp >= 0) {
            uint64_t *cs = new_state(s);
            p4_pipe_clone_e2e(s->pipe, cs, j->state, res.clone_fl);
            push_job(s, (struct stf_job){JOB_EGRESS, dup_bytes(j->bytes, j->len), j->len,
                                         (uint32_t)mp, P4_INSTANCE_EGRESS_CLONE, 0, cs, -1});
        }
    }
    if (res.drop)
        return;
    if (res.recirculate) {
        uint64_t *keep = new_state(s);
        p4_pipe_state_copy(s->pipe, keep, j->state);
        push_job(s, (struct stf_job){JOB_INGRESS, dup_bytes(s->obuf, res.out_len), res.out_len, 0,
                                     P4_INSTANCE_RECIRC, 0, keep, res.recirc_fl});
        return;
    }
    struct stf_pkt o = {j->port, dup_bytes(s->obuf, res.out_len), res.out_len, line};
    P4_PUSH(s->outs, s->nouts, s->capouts, o);
}

static void run_packet(struct stf *s, uint32_t port, uint8_t *bytes, uint32_t len)
{
    s->packets++;
    s->njobs = 0;
    push_job(s, (struct stf_job){JOB_INGRESS, bytes, len, port, P4_INSTANCE_NORMAL, 0, NULL, -1});
    int done = 0;
    /* FIFO order: jobs[done..njobs) are pending */
    while (done < s->njobs) {
        struct stf_job j = s->jobs[done++];
        if (done > STF_MAX_JOBS) {
            free(j.bytes);
            free(j.state);
            continue;
        }
        if (j.kind == JOB_INGRESS)
            run_ingress(s, &j);
        else
            run_egress(s, &j, s->line);
        free(j.bytes);
        free(j.state);
    }
    if (done > STF_MAX_JOBS)
        fprintf(s->out, "%s:%d: warning: packet generated more than %d copies; rest dropped\n",
                s->file, s->line, STF_MAX_JOBS);
    s->njobs = 0;
}

/* ---- commands ---- */

/* Position of the first ':' outside parentheses (key names may contain calls like
 * `hdr.h.isValid()`), or NULL. */
static const char *key_colon(const char *t, size_t n)
{
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '(')
            depth++;
        else if (t[i] == ')')
            depth--;
        else if (t[i] == ':' && depth == 0)
            return t + i;
    }
    return NULL;
}

/* Splits "name:value" at the first ':'. */
static bool split_kv(const char *t, size_t n, char *name, size_t ncap, char *value, size_t vcap)
{
    const char *c = memchr(t, ':', n);
    if (!c || c == t || (size_t)(c - t) >= ncap || n - (size_t)(c - t) - 1 >= vcap ||
        c + 1 == t + n)
        return false;
    memcpy(name, t, (size_t)(c - t));
    name[c - t] = 0;
    memcpy(value, c + 1, n - (size_t)(c - t) - 1);
    value[n - (size_t)(c - t) - 1] = 0;
    return true;
}

struct action_call {
    char name[256];
    struct p4rt_kv args[STF_MAX_KV];
    char store[STF_MAX_KV][2][256];
    int nargs;
};

/* ACTION '(' [name ':' value { ',' name ':' value }] ')' */
static bool parse_action(struct stf *s, const char **pp, struct action_call *ac)
{
    const char *p = skip_ws(*pp);
    const char *b = p;
    while (*p && *p != '(' && *p != ' ' && *p != '\t')
        p++;
    if (*p != '(' || p == b || (size_t)(p - b) >= sizeof(ac->name)) {
        stf_error(s, b, "expected action call like name(param:value)");
        return false;
    }
    memcpy(ac->name, b, (size_t)(p - b));
    ac->name[p - b] = 0;
    p++;
    ac->nargs = 0;
    for (;;) {
        p = skip_ws(p);
        if (*p == ')') {
            p++;
            break;
        }
        const char *a = p;
        while (*p && *p != ',' && *p != ')')
            p++;
        const char *e = p;
        while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (ac->nargs >= STF_MAX_KV || !split_kv(a, (size_t)(e - a), ac->store[ac->nargs][0], 256,
                                                 ac->store[ac->nargs][1], 256)) {
            stf_error(s, a, "expected param:value near '%.*s'", (int)(e - a), a);
            return false;
        }
        /* trim spaces around ':' */
        char *nm = ac->store[ac->nargs][0];
        size_t nl = strlen(nm);
        while (nl && (nm[nl - 1] == ' ' || nm[nl - 1] == '\t'))
            nm[--nl] = 0;
        char *vl = ac->store[ac->nargs][1];
        while (*vl == ' ' || *vl == '\t')
            memmove(vl, vl + 1, strlen(vl));
        ac->args[ac->nargs].name = nm;
        ac->args[ac->nargs].value = vl;
        ac->nargs++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != ')') {
            stf_error(s, p, "expected ')' to close action arguments");
            return false;
        }
    }
    *pp = p;
    return true;
}

/* The name token a command starts with, into name (cap 256); false (reported) if missing. */
static bool name_arg(struct stf *s, const char **pp, const char *what, char *name, const char **at)
{
    size_t n;
    const char *t = token(pp, &n);
    if (!n) {
        stf_error(s, t, "expected %s name", what);
        return false;
    }
    snprintf(name, 256, "%.*s", (int)n, t);
    if (at)
        *at = t;
    return true;
}

static void cmd_add(struct stf *s, const char *p)
{
    char table[256];
    const char *table_at;
    if (!name_arg(s, &p, "table", table, &table_at))
        return;
    size_t n;
    const char *t;
    int priority = -1;
    char(*kstore)[2][256] = s->kstore;
    struct p4rt_kv keys[STF_MAX_KV];
    int nkeys = 0;
    for (;;) {
        const char *save = p;
        t = token(&p, &n);
        if (!n) {
            stf_error(s, t, "expected action call");
            return;
        }
        uint64_t v;
        if (nkeys == 0 && priority < 0 && parse_u64(t, n, &v) && v < (1u << 30)) {
            priority = (int)v;
            continue;
        }
        if (!key_colon(t, n)) { /* the action call: its ':' are inside parentheses */
            p = save;
            break;
        }
        if (nkeys >= STF_MAX_KV || !split_kv(t, n, kstore[nkeys][0], 256, kstore[nkeys][1], 256)) {
            stf_error(s, t, "expected key:value near '%.*s'", (int)n, t);
            return;
        }
        keys[nkeys].name = kstore[nkeys][0];
        keys[nkeys].value = kstore[nkeys][1];
        nkeys++;
    }
    struct action_call *ac = p4util_calloc(1, sizeof(*ac));
    const char *at = skip_ws(p);
    if (!parse_action(s, &p, ac))
        goto out;
    int id = -1;
    p = skip_ws(p);
    if (*p == '=') {
        p++;
        uint64_t v;
        if (!need_u64(s, &p, "entry id", &v))
            goto out;
        id = (int)v;
    }
    p = skip_ws(p);
    if (*p && *p != '#') {
        stf_error(s, p, "unexpected text near '%c'", *p);
        goto out;
    }
    char err[512];
    int handle;
    if (p4rt_table_add(s->pipe, table, keys, nkeys, ac->name, ac->args, ac->nargs, priority,
                       &handle, err, sizeof(err))) {
        stf_error(s, p4rt_table_name(s->pipe, table) ? at : table_at, "%s", err);
        goto out;
    }
    if (id >= 0) {
        if (s->nids >= s->capids) {
            s->capids = s->capids ? 2 * s->capids : 8;
            s->ids = p4util_realloc(s->ids, (size_t)s->capids * sizeof(*s->ids));
        }
        s->ids[s->nids++] = (struct stf_id){id, handle};
    }
out:
    free(ac);
}

static void cmd_setdefault(struct stf *s, const char *p)
{
    char table[256];
    if (!name_arg(s, &p, "table", table, NULL))
        return;
    struct action_call *ac = p4util_calloc(1, sizeof(*ac));
    const char *at = skip_ws(p);
    char err[512];
    if (parse_action(s, &p, ac) &&
        p4rt_table_set_default(s->pipe, table, ac->name, ac->args, ac->nargs, err, sizeof(err)))
        stf_error(s, at, "%s", err);
    free(ac);
}

static void cmd_packet(struct stf *s, const char *p)
{
    uint64_t port;
    if (!need_num(s, &p, "port", STF_MAX_PORTS - 1, &port))
        return;
    uint8_t *nib;
    int n = parse_hex(s, p, &nib, NULL, NULL);
    if (n < 0) {
        free(nib);
        return;
    }
    if (n % 2) {
        stf_error(s, p, "packet has an odd number of hex digits");
        free(nib);
        return;
    }
    uint8_t *bytes = p4util_malloc((size_t)n / 2 + 1);
    for (int i = 0; i < n / 2; i++)
        bytes[i] = (uint8_t)(nib[2 * i] << 4 | nib[2 * i + 1]);
    free(nib);
    run_packet(s, (uint32_t)port, bytes, (uint32_t)n / 2);
}

static void cmd_expect(struct stf *s, const char *p)
{
    uint64_t port;
    if (!need_num(s, &p, "port", STF_MAX_PORTS - 1, &port))
        return;
    struct stf_expect e;
    memset(&e, 0, sizeof(e));
    e.port = (uint32_t)port;
    e.line = s->line;
    int n = parse_hex(s, p, &e.nib, &e.care, &e.exact);
    if (n < 0) {
        free(e.nib);
        free(e.care);
        return;
    }
    e.nnib = n;
    e.any = n == 0 && !e.exact;
    P4_PUSH(s->exps, s->nexps, s->capexps, e);
}

static bool expect_eq(struct stf *s, const char **pp, uint64_t *want)
{
    const char *p = skip_ws(*pp);
    if (!*p || *p == '#')
        return false;
    if (p[0] != '=' || p[1] != '=') {
        stf_error(s, p, "expected '==' near '%c'", *p);
        return false;
    }
    p += 2;
    bool ok = need_u64(s, &p, "value", want);
    *pp = p;
    return ok;
}

static void check(struct stf *s, const char *what, uint64_t got, uint64_t want)
{
    s->checks++;
    if (got == want)
        return;
    s->failures++;
    fprintf(s->out, "%s:%d: %s: expected %llu, got %llu\n", s->file, s->line, what,
            (unsigned long long)want, (unsigned long long)got);
}

static void cmd_register(struct stf *s, const char *cmd, const char *p)
{
    char name[256];
    const char *t;
    if (!name_arg(s, &p, "register", name, &t))
        return;
    char err[512];
    if (!strcasecmp(cmd, "register_reset")) {
        if (p4rt_register_reset(s->pipe, name, err, sizeof(err)))
            stf_error(s, t, "%s", err);
        return;
    }
    uint64_t idx;
    if (!need_u64(s, &p, "index", &idx))
        return;
    if (!strcasecmp(cmd, "register_write")) {
        uint64_t v;
        if (need_u64(s, &p, "value", &v) &&
            p4rt_register_write(s->pipe, name, idx, v, err, sizeof(err)))
            stf_error(s, t, "%s", err);
        return;
    }
    uint64_t v;
    if (p4rt_register_read(s->pipe, name, idx, &v, err, sizeof(err))) {
        stf_error(s, t, "%s", err);
        return;
    }
    uint64_t want;
    if (expect_eq(s, &p, &want)) {
        char what[300];
        snprintf(what, sizeof(what), "register %s[%llu]", name, (unsigned long long)idx);
        check(s, what, v, want);
    } else {
        fprintf(s->out, "%s[%llu] = %llu\n", name, (unsigned long long)idx, (unsigned long long)v);
    }
}

static void cmd_counter(struct stf *s, const char *p)
{
    size_t n;
    const char *t = token(&p, &n);
    char name[256];
    uint64_t idx;
    const char *paren = memchr(t, '(', n);
    if (paren) { /* check_counter name(idx) */
        snprintf(name, sizeof(name), "%.*s", (int)(paren - t), t);
        char *end;
        idx = strtoull(paren + 1, &end, 0);
        if (*end != ')') {
            stf_error(s, paren, "expected name(index)");
            return;
        }
    } else {
        snprintf(name, sizeof(name), "%.*s", (int)n, t);
        if (!need_u64(s, &p, "index", &idx))
            return;
    }
    uint64_t pk;
    uint64_t by;
    char err[512];
    if (p4rt_counter_read(s->pipe, name, idx, &pk, &by, err, sizeof(err))) {
        stf_error(s, t, "%s", err);
        return;
    }
    bool any = false;
    for (;;) {
        const char *w = token(&p, &n);
        if (!n || *w == '#')
            break;
        bool packets = n == 7 && !strncasecmp(w, "packets", 7);
        bool bytes = n == 5 && !strncasecmp(w, "bytes", 5);
        if (!packets && !bytes) {
            stf_error(s, w, "expected 'packets' or 'bytes' near '%.*s'", (int)n, w);
            return;
        }
        uint64_t want;
        if (!expect_eq(s, &p, &want)) {
            stf_error(s, p, "expected '== N'");
            return;
        }
        char what[300];
        snprintf(what, sizeof(what), "counter %s[%llu] %s", name, (unsigned long long)idx,
                 packets ? "packets" : "bytes");
        check(s, what, packets ? pk : by, want);
        any = true;
    }
    if (!any)
        fprintf(s->out, "%s[%llu] = %llu packets, %llu bytes\n", name, (unsigned long long)idx,
                (unsigned long long)pk, (unsigned long long)by);
}

/* mc_node_create RID PORT... */
static void cmd_mc_node_create(struct stf *s, const char *p)
{
    uint64_t a;
    uint64_t b;
    size_t n;
    uint32_t ports[512];
    int np = 0;
    if (!need_num(s, &p, "rid", 65535, &a))
        return;
    for (;;) {
        const char *t = token(&p, &n);
        if (!n)
            break;
        int rc = parse_num(t, n, &b);
        if (rc == -EINVAL) {
            stf_error(s, t, "expected port near '%.*s'", (int)n, t);
            return;
        }
        if (rc || b >= STF_MAX_PORTS || np >= STF_MAX_PORTS) {
            stf_error(s, t, "port %.*s is out of range (at most %d ports of 0 to %d)", (int)n, t,
                      STF_MAX_PORTS, STF_MAX_PORTS - 1);
            return;
        }
        ports[np++] = (uint32_t)b;
    }
    int h;
    p4rt_mc_node_create(s->pipe, (uint32_t)a, ports, np, &h);
}

/* value_set_add NAME VALUE (ddlsim extension) */
static void cmd_value_set_add(struct stf *s, const char *p)
{
    char err[512];
    char name[256];
    const char *t;
    if (!name_arg(s, &p, "value set", name, &t))
        return;
    size_t n;
    const char *vt = token(&p, &n);
    char val[256];
    snprintf(val, sizeof(val), "%.*s", (int)(n < 255 ? n : 255), vt);
    if (!n)
        stf_error(s, vt, "expected a value");
    else if (p4rt_value_set_add(s->pipe, name, val, err, sizeof(err)))
        stf_error(s, t, "%s", err);
}

/* meter_set M IDX CIR CBURST PIR PBURST (rates in units/s) */
static void cmd_meter_set(struct stf *s, const char *p)
{
    char err[512];
    char name[256];
    const char *t;
    if (!name_arg(s, &p, "meter", name, &t))
        return;
    uint64_t v[5];
    for (int i = 0; i < 5; i++) {
        if (!need_u64(s, &p, i == 0 ? "index" : "rate or burst", &v[i]))
            return;
    }
    if (p4rt_meter_set(s->pipe, name, v[0], v[1], v[2], v[3], v[4], err, sizeof(err)))
        stf_error(s, t, "%s", err);
}

/* set_queue_depth PORT ENQ [DEQ] */
static void cmd_queue_depth(struct stf *s, const char *cmd, const char *p)
{
    uint64_t a;
    uint64_t b;
    size_t n;
    (void)cmd;
    if (!need_num(s, &p, "port", STF_MAX_PORTS - 1, &a) ||
        !need_num(s, &p, "depth", UINT32_MAX, &b))
        return;
    s->enq_qdepth[a] = (uint32_t)b;
    uint64_t d = b;
    const char *t = token(&p, &n);
    if (n && (!parse_u64(t, n, &d) || d > UINT32_MAX)) {
        stf_error(s, t, "expected dequeue depth (at most %u) near '%.*s'", UINT32_MAX, (int)n, t);
        return;
    }
    s->deq_qdepth[a] = (uint32_t)d;
}

/* set_queue_delay PORT TIME */
static void cmd_queue_delay(struct stf *s, const char *p)
{
    uint64_t a;
    size_t n;
    if (!need_num(s, &p, "port", STF_MAX_PORTS - 1, &a))
        return;
    const char *t = token(&p, &n);
    int64_t d;
    if (!parse_duration(t, n, &d)) {
        stf_error(s, t, "expected port and duration");
        return;
    }
    s->qdelay_ps[a] = d;
}

/* remove TABLE ENTRY_ID */
static void cmd_remove(struct stf *s, const char *p)
{
    char err[512];
    uint64_t a;
    char table[256];
    const char *t;
    if (!name_arg(s, &p, "table", table, &t) || !need_num(s, &p, "entry id", INT32_MAX, &a))
        return;
    int handle = (int)a;
    for (int i = 0; i < s->nids; i++) {
        if (s->ids[i].id == (int)a)
            handle = s->ids[i].handle;
    }
    if (p4rt_table_remove(s->pipe, table, handle, err, sizeof(err)))
        stf_error(s, t, "%s", err);
}

static void command(struct stf *s, char *line)
{
    s->text = line;
    const char *p = line;
    size_t n;
    const char *cmd = token(&p, &n);
    if (!n || *cmd == '#')
        return;
    char kw[64];
    snprintf(kw, sizeof(kw), "%.*s", (int)(n < 63 ? n : 63), cmd);
    bool hexline =
        !strcasecmp(kw, "packet") || !strcasecmp(kw, "expect") || !strcasecmp(kw, "packet_at");
    if (!hexline) { /* strip trailing comment */
        char *h = strchr(line, '#');
        if (h)
            *h = 0;
    }
    char err[512];
    uint64_t a;
    uint64_t b;
    if (!strcasecmp(kw, "add")) {
        cmd_add(s, p);
    } else if (!strcasecmp(kw, "setdefault")) {
        cmd_setdefault(s, p);
    } else if (!strcasecmp(kw, "packet")) {
        cmd_packet(s, p);
    } else if (!strcasecmp(kw, "packet_at")) {
        const char *t = token(&p, &n);
        int64_t at;
        if (!parse_duration(t, n, &at)) {
            stf_error(s, t, "expected a time like 10us");
            return;
        }
        if (at > s->now_ps)
            s->now_ps = at;
        cmd_packet(s, p);
    } else if (!strcasecmp(kw, "expect")) {
        cmd_expect(s, p);
    } else if (!strcasecmp(kw, "mc_mgrp_create")) {
        if (need_num(s, &p, "group", 65535, &a) &&
            p4rt_mc_group_create(s->pipe, (uint32_t)a, err, sizeof(err)))
            stf_error(s, cmd, "%s", err);
    } else if (!strcasecmp(kw, "mc_node_create")) {
        cmd_mc_node_create(s, p);
    } else if (!strcasecmp(kw, "mc_node_associate")) {
        if (need_num(s, &p, "group", 65535, &a) && need_num(s, &p, "node handle", INT32_MAX, &b) &&
            p4rt_mc_node_associate(s->pipe, (uint32_t)a, (int)b, err, sizeof(err)))
            stf_error(s, cmd, "%s", err);
    } else if (!strcasecmp(kw, "value_set_add")) {
        cmd_value_set_add(s, p);
    } else if (!strcasecmp(kw, "mirroring_add")) {
        if (need_num(s, &p, "session", UINT32_MAX, &a) &&
            need_num(s, &p, "port", STF_MAX_PORTS - 1, &b) &&
            p4rt_mirror_add(s->pipe, (uint32_t)a, (uint32_t)b, err, sizeof(err)))
            stf_error(s, cmd, "%s", err);
    } else if (!strcasecmp(kw, "register_read") || !strcasecmp(kw, "register_write") ||
               !strcasecmp(kw, "register_reset")) {
        cmd_register(s, kw, p);
    } else if (!strcasecmp(kw, "counter_read") || !strcasecmp(kw, "check_counter")) {
        cmd_counter(s, p);
    } else if (!strcasecmp(kw, "meter_set")) {
        cmd_meter_set(s, p);
    } else if (!strcasecmp(kw, "time_advance")) {
        const char *t = token(&p, &n);
        int64_t d;
        if (!parse_duration(t, n, &d))
            stf_error(s, t, "expected a duration like 10us");
        else if (d > INT64_MAX / 2 - s->now_ps)
            stf_error(s, t, "time_advance goes past the end of simulated time");
        else
            s->now_ps += d;
    } else if (!strcasecmp(kw, "set_queue_depth")) {
        cmd_queue_depth(s, cmd, p);
    } else if (!strcasecmp(kw, "set_queue_delay")) {
        cmd_queue_delay(s, p);
    } else if (!strcasecmp(kw, "remove")) {
        cmd_remove(s, p);
    } else if (!strcasecmp(kw, "wait") || !strcasecmp(kw, "no_packet")) {
        /* packets run to completion: nothing to wait for */
    } else {
        stf_error(s, cmd, "unknown command '%s'", kw);
    }
}

static void hexdump(FILE *f, const uint8_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%02X", b[i]);
}

static bool match(const struct stf_expect *e, const struct stf_pkt *o)
{
    if (e->any)
        return true;
    int have = (int)o->len * 2;
    if (e->exact && have != e->nnib)
        return false;
    if (have < e->nnib)
        return false;
    for (int i = 0; i < e->nnib; i++) {
        if (!e->care[i])
            continue;
        int nib = (o->bytes[i / 2] >> (i % 2 ? 0 : 4)) & 0xf;
        if (nib != e->nib[i])
            return false;
    }
    return true;
}

static void print_expect(FILE *f, const struct stf_expect *e)
{
    for (int i = 0; i < e->nnib; i++)
        fputc(e->care[i] ? "0123456789ABCDEF"[e->nib[i]] : '*', f);
    if (e->exact)
        fputc('$', f);
}

static void compare(struct stf *s)
{
    bool port_seen[STF_MAX_PORTS] = {false};
    for (int i = 0; i < s->nouts; i++)
        port_seen[s->outs[i].port % STF_MAX_PORTS] = true;
    for (int i = 0; i < s->nexps; i++)
        port_seen[s->exps[i].port % STF_MAX_PORTS] = true;
    bool port_any[STF_MAX_PORTS] = {false};
    bool port_data[STF_MAX_PORTS] = {false};
    for (int i = 0; i < s->nexps; i++) {
        if (s->exps[i].any)
            port_any[s->exps[i].port] = true;
        else
            port_data[s->exps[i].port] = true;
    }
    for (uint32_t port = 0; port < STF_MAX_PORTS; port++) {
        /* `expect PORT` without data, and nothing else for that port, accepts any number of
         * packets there (bmv2stf); beside expectations with data it stands for one packet of
         * any content, so it never turns the others off */
        if (!port_seen[port])
            continue;
        if (port_any[port] && !port_data[port]) {
            s->checks++; /* passes whatever arrived */
            continue;
        }
        int oi = 0;
        int ei = 0;
        for (;;) {
            while (oi < s->nouts && s->outs[oi].port != port)
                oi++;
            while (ei < s->nexps && s->exps[ei].port != port)
                ei++;
            if (oi >= s->nouts && ei >= s->nexps)
                break;
            s->checks++;
            if (ei >= s->nexps) {
                s->failures++;
                fprintf(s->out, "%s: unexpected packet on port %u: ", s->file, port);
                hexdump(s->out, s->outs[oi].bytes, s->outs[oi].len);
                fputc('\n', s->out);
                oi++;
                continue;
            }
            const struct stf_expect *e = &s->exps[ei];
            if (oi >= s->nouts) {
                s->failures++;
                fprintf(s->out,
                        "%s:%d: expected packet on port %u not received\n  expected: ", s->file,
                        e->line, port);
                print_expect(s->out, e);
                fputc('\n', s->out);
                ei++;
                continue;
            }
            if (!match(e, &s->outs[oi])) {
                s->failures++;
                fprintf(s->out, "%s:%d: packet on port %u differs\n  expected: ", s->file, e->line,
                        port);
                print_expect(s->out, e);
                fprintf(s->out, "\n  received: ");
                hexdump(s->out, s->outs[oi].bytes, s->outs[oi].len);
                fputc('\n', s->out);
            }
            oi++;
            ei++;
        }
    }
}

int p4stf_run(const struct p4_prog *prog, const char *stf_path, FILE *out, FILE *err)
{
    FILE *f = fopen(stf_path, "r");
    struct stat st;
    const char *why = !f ? strerror(errno)
                      : fstat(fileno(f), &st) != 0 ? strerror(errno)
                      : S_ISDIR(st.st_mode) ? "is a folder, not an STF script"
                      : NULL;
    if (why) {
        fprintf(err, "%s: error: cannot open file: %s\n", stf_path, why);
        if (f)
            fclose(f);
        return 2;
    }
    struct stf *s = p4util_calloc(1, sizeof(*s));
    s->file = stf_path;
    s->out = out;
    s->err = err;
    struct p4_host host = {s, stf_now, stf_log, false, 0, stf_fault};
    s->pipe = p4_pipe_create(prog, &host);
    s->state_bytes = p4_prog_state_bytes(prog);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        s->line++;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (memchr(line, 0, (size_t)len)) {
            s->text = line;
            stf_error(s, line, "NUL byte in line");
            continue;
        }
        command(s, line);
    }
    free(line);
    fclose(f);
    if (!s->errors)
        compare(s);
    if (!s->errors && !s->checks) {
        s->failures++;
        fprintf(s->out,
                "%s: nothing was checked: no packet expectation was compared and no register or "
                "counter was checked\n",
                stf_path);
    }
    int rc = s->errors ? 2 : s->failures ? 1 : 0;
    if (!s->errors)
        fprintf(out, "%s: %d packets, %d checks, %d failed\n", stf_path, s->packets, s->checks,
                s->failures);
    for (int i = 0; i < s->nouts; i++)
        free(s->outs[i].bytes);
    free(s->outs);
    for (int i = 0; i < s->nexps; i++) {
        free(s->exps[i].nib);
        free(s->exps[i].care);
    }
    free(s->exps);
    free(s->jobs);
    free(s->ids);
    p4_pipe_destroy(s->pipe);
    free(s);
    return rc;
}
