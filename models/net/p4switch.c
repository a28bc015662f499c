#include "models/net/p4switch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4rt.h"
#include "sim/install.h"
#include "sim/util.h"

#define P4SW_MAX_PASSES 8 /* resubmissions + recirculations of one packet */

/* A packet's P4 state between ingress and egress (or carried into a resubmission); or, `made`,
 * the output egress already made of it (output_queued) that cannot stand as the packet's
 * header bytes until egress. */
struct p4st {
    struct pkt_ext ext;
    struct p4switch *owner;
    uint8_t passes; /* resubmits and recirculations so far */
    bool made;      /* res: the output, over the header bytes in place or in state[] */
    uint8_t ecn_before; /* made: the ECN codepoint of the header bytes when it was made */
    int fl;         /* resubmit/recirculate: field list the next pass preserves (-1: none) */
    struct p4_egress_out res;
    uint64_t state[]; /* p4_prog_state_bytes, 8-byte aligned (early: at least PKT_HDR_MAX) */
};

struct p4switch {
    struct sw *sw;
    const struct p4_prog *prog;
    struct p4_pipe *pipe;
    struct pool states;
    bool egress_runs; /* the program's egress control has statements */
    bool early;       /* p4_prog_output_early: unicast packets get their output once queued */
    bool lean;        /* early and p4_pipe_lean: the pipeline's lean calls serve its packets */
    struct p4_lean_calls lc; /* lean: those calls, made directly */
    uint64_t *scratch; /* early: the state of the packet in ingress */
    struct pkt_ext pending; /* the ext of that packet while the traffic manager takes it */
    struct pkt *pending_pkt; /* that packet, until it is dropped or sent on */
    uint8_t out[PKT_HDR_MAX];
};

/* --- programs --- */

const char *p4switch_include_dir(char *buf, size_t n)
{
    const char *env = getenv("DDLSIM_P4_INCLUDE");
    if (env && *env)
        return env;
    char root[4096];
    install_root(root, sizeof(root));
    snprintf(buf, n, "%s/p4/include", root);
    return buf;
}

void p4switch_programs_free(struct p4switch_programs *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->paths[i]);
        if (!ps->cache)
            p4_prog_free((struct p4_prog *)ps->progs[i]);
    }
    free(ps->paths);
    free(ps->progs);
    memset(ps, 0, sizeof(*ps));
}

static char *resolve(const char *spec, const char *scenario_file, const char *inc)
{
    size_t len = strlen(spec);
    if (!strchr(spec, '/') && (len < 3 || strcmp(spec + len - 3, ".p4") != 0))
        return xasprintf("%s/../programs/%s.p4", inc, spec);
    if (spec[0] == '/')
        return xstrdup(spec);
    const char *slash = strrchr(scenario_file, '/');
    char *rel = slash ? xasprintf("%.*s/%s", (int)(slash - scenario_file), scenario_file, spec)
                      : xstrdup(spec);
    if (access(rel, R_OK) == 0)
        return rel;
    free(rel);
    return xstrdup(spec);
}

const struct p4_prog *p4switch_program(struct p4switch_programs *ps, const char *spec,
                                 const char *scenario_file, struct src_loc loc, struct diag *d)
{
    char incbuf[4200];
    const char *inc = p4switch_include_dir(incbuf, sizeof(incbuf));
    char *path = resolve(spec, scenario_file, inc);
    for (size_t i = 0; i < ps->n; i++) {
        if (strcmp(ps->paths[i], path) == 0) {
            free(path);
            return ps->progs[i];
        }
    }
    if (access(path, R_OK) != 0) {
        diag_error(d, loc, "P4 program '%s' not found (%s: %s)", spec, path, strerror(errno));
        free(path);
        return NULL;
    }
    int nerr = 0;
    FILE *out = d->out ? d->out : stderr;
    const struct p4_prog *prog = ps->cache ? p4_cache_load(ps->cache, path, inc, out, &nerr)
                                           : p4_prog_load(path, inc, out, &nerr);
    if (!prog) {
        d->errors += nerr > 0 ? nerr : 1;
        diag_error(d, loc, "P4 program '%s' has errors (listed above)", spec);
        free(path);
        return NULL;
    }
    ps->paths = xrealloc(ps->paths, (ps->n + 1) * sizeof(*ps->paths));
    ps->progs = xrealloc(ps->progs, (ps->n + 1) * sizeof(*ps->progs));
    ps->paths[ps->n] = path;
    ps->progs[ps->n] = prog;
    ps->n++;
    return prog;
}

/* --- per-packet state --- */

static void state_release(struct pkt_ext *e)
{
    struct p4st *st = container_of(e, struct p4st, ext);
    pool_put(&st->owner->states, st);
}

static struct p4st *state_new(struct p4switch *ps, uint8_t passes)
{
    struct p4st *st = pool_get(&ps->states);
    st->ext.release = state_release;
    st->owner = ps;
    st->passes = passes;
    st->made = false;
    st->fl = -1;
    return st;
}

static struct p4switch *p4sw(struct sw *sw)
{
    return sw->stage_ud;
}

/* A copy of p (same bytes) carrying new state `st`. */
static struct pkt *copy_with(struct sw *sw, const struct pkt *p, struct p4st *st, uint8_t instance,
                             uint16_t rid)
{
    struct pkt *c = pkt_clone(sw->node.sim, p);
    c->ext = &st->ext;
    c->instance = instance;
    c->rid = rid;
    return c;
}

/* Egress's input: the packet's header bytes, deparsed in place where the program allows. */
static inline struct p4_egress_in egress_in(struct p4switch *ps, struct pkt *p)
{
    return (struct p4_egress_in){
        .bytes = p->hdr,
        .len = p->hdr_len,
        .out = ps->out,
        .out_cap = sizeof(ps->out),
        .in_place = p->hdr,
    };
}

/* The traffic manager's CE mark is on the wire whatever the program deparsed (a program that
 * rewrites the ECN field itself still sees the header as parsed at ingress). */
static void mark_again(struct pkt *p)
{
    if (p->tm_ce && pkt_ecn(p) != PKT_ECN_NOT_ECT)
        pkt_set_ecn(p, PKT_ECN_CE);
}

/* p4_pipe_egress on the scratch state (out of line: output_queued keeps a small frame). */
static __attribute__((noinline)) void egress_scratch(struct p4switch *ps, struct pkt *p,
                                                     struct p4_egress_out *res)
{
    struct p4_egress_in in = egress_in(ps, p);
    p4_pipe_egress(ps->pipe, ps->scratch, &in, res);
}

/* The packet whose state is the scratch was dropped (pkt_free). */
static void pending_release(struct pkt_ext *e)
{
    container_of(e, struct p4switch, pending)->pending_pkt = NULL;
}

/* An early program's packet (p4_prog_output_early) that the traffic manager took (and holds,
 * or sends at once): its output is the same made now as at egress, so its state need not wait
 * in the queue.
 * With the same length (the traffic manager's bytes) and no CE mark of the program's own to
 * count at egress, the output stands as the header bytes, the traffic manager's mark
 * applied as egress would: the packet leaves with no P4 state. Else the output (over the
 * header bytes in place, or in the state) waits for egress to put it on. Like every per-packet
 * function here it is `hot`, kept together with the engine's (p4.c says why). */
static __attribute__((hot)) void output_queued(struct p4switch *ps, struct pkt *p)
{
    ps->pending_pkt = NULL;
    uint8_t ecn_before = pkt_ecn(p);
    struct p4_egress_out res;
    if (ps->lean)
        ps->lc.out(ps->lc.vm, ps->scratch, p->hdr, p4_lean_lens(p->hdr_len, sizeof(ps->out)),
                   ps->out, &res);
    else
        egress_scratch(ps, p, &res);
    bool same = res.in_place && !res.overflow && res.out_len == p->hdr_len;
    if (same && (p->tm_ce || ecn_before == PKT_ECN_CE || pkt_ecn(p) != PKT_ECN_CE)) {
        mark_again(p);
        p->ext = NULL;
        return;
    }
    struct p4st *st = state_new(ps, 0);
    st->made = true;
    st->ecn_before = ecn_before;
    st->res = res;
    if (!res.in_place)
        memcpy(st->state, ps->out, res.out_len);
    p->ext = &st->ext;
}

/* The state a packet keeps after ingress: `st`, or an early program's scratch copied. */
static struct p4st *keep_state(struct p4switch *ps, struct p4st *st, const uint64_t *state)
{
    if (st)
        return st;
    st = state_new(ps, 0);
    p4_pipe_state_copy(ps->pipe, st->state, state);
    return st;
}

/* forward's other cases: replicas, a resubmission, a drop. */
static __attribute__((noinline)) void forward_other(struct sw *sw, struct pkt *p,
                                                    struct p4st *st, const uint64_t *state,
                                                    const struct p4_ingress_out *res,
                                                    uint8_t passes)
{
    struct p4switch *ps = p4sw(sw);
    switch (res->fwd) {
    case P4_FWD_MULTICAST: {
        const struct p4_mc_member *m;
        int n = p4_pipe_mcast_members(ps->pipe, res->mcast_grp, &m);
        for (int i = 0; i < n; i++) {
            struct p4st *cs = state_new(ps, 0);
            p4_pipe_state_copy(ps->pipe, cs->state, state);
            struct pkt *c = copy_with(sw, p, cs, P4_INSTANCE_REPLICATION, (uint16_t)m[i].rid);
            c->qclass = (uint8_t)res->priority;
            switch_enqueue(sw, p4switch_port_of(m[i].port), c);
        }
        break;
    }
    case P4_FWD_RESUBMIT:
        if (passes + 1 > P4SW_MAX_PASSES) {
            sw->p4_limit_drops++;
            break;
        }
        st = keep_state(ps, st, state);
        st->passes = (uint8_t)(passes + 1);
        p->ext = &st->ext;
        p->instance = P4_INSTANCE_RESUBMIT;
        st->fl = res->resubmit_fl;
        switch_reinject(sw, p);
        return;
    default: /* P4_FWD_DROP */
        sw->ingress_drops++;
        break;
    }
    if (st)
        pool_put(&ps->states, st);
    pkt_free(sw->node.sim, p);
}

/* Carries out ingress's decision res for p (state: its P4 state, `st` or the scratch; passes
 * so far): a unicast packet is queued here. */
static inline __attribute__((always_inline)) void forward(struct sw *sw, struct pkt *p,
                                                          struct p4st *st, const uint64_t *state,
                                                          const struct p4_ingress_out *res,
                                                          uint8_t passes)
{
    struct p4switch *ps = p4sw(sw);
    if (res->fwd != P4_FWD_UNICAST) {
        forward_other(sw, p, st, state, res, passes);
        return;
    }
    p->ext = st ? &st->ext : &ps->pending;
    ps->pending_pkt = st ? NULL : p;
    p->instance = P4_INSTANCE_NORMAL;
    p->qclass = (uint8_t)res->priority;
    switch_enqueue(sw, p4switch_port_of(res->egress_port), p);
    if (ps->pending_pkt) /* queued: neither dropped nor sent on (p4_egress) */
        output_queued(ps, ps->pending_pkt);
}

static __attribute__((noinline)) void run_ingress(struct sw *sw, struct pkt *p)
{
    struct p4switch *ps = p4sw(sw);
    struct p4st *prev = p->ext ? container_of(p->ext, struct p4st, ext) : NULL;
    uint8_t passes = prev ? prev->passes : 0;
    struct p4st *st = ps->early ? NULL : state_new(ps, passes);
    uint64_t *state = st ? st->state : ps->scratch;
    bool again = p->instance == P4_INSTANCE_RESUBMIT || p->instance == P4_INSTANCE_RECIRC;
    struct p4_ingress_in in = {
        .bytes = p->hdr,
        .len = p->hdr_len,
        .packet_length = p->size_bytes,
        .ingress_port = again ? 0 : p4switch_port(p->in_port),
        .instance_type = again ? p->instance : P4_INSTANCE_NORMAL,
        .preserve_from = again && prev ? prev->state : NULL,
        .preserve_fl = again && prev ? prev->fl : -1,
    };
    struct p4_ingress_out res;
    p4_pipe_ingress(ps->pipe, state, &in, &res);
    if (p->ext) {
        p->ext->release(p->ext);
        p->ext = NULL;
    }
    p->rid = 0;
    if (res.clone_session >= 0) {
        int mp = p4_pipe_mirror_port(ps->pipe, (uint32_t)res.clone_session);
        if (mp >= 0) {
            struct p4st *cs = state_new(ps, 0);
            struct p4_ingress_in cin = in;
            cin.instance_type = P4_INSTANCE_INGRESS_CLONE;
            p4_pipe_clone_i2e(ps->pipe, cs->state, &cin, state, res.clone_fl);
            struct pkt *c = copy_with(sw, p, cs, P4_INSTANCE_INGRESS_CLONE, 0);
            c->qclass = (uint8_t)res.priority;
            switch_enqueue(sw, p4switch_port_of((uint32_t)mp), c);
        }
    }
    forward(sw, p, st, state, &res, passes);
}

/* A packet that enters normally (not resubmitted or recirculated: no state rides on it) on a
 * lean pipeline: run_ingress's steps that can apply, through the pipeline's lean call. */
static __attribute__((hot)) void p4_ingress(struct sw *sw, struct pkt *p)
{
    struct p4switch *ps = p4sw(sw);
    if (!ps->lean || p->ext || p->instance == P4_INSTANCE_RESUBMIT ||
        p->instance == P4_INSTANCE_RECIRC) {
        run_ingress(sw, p);
        return;
    }
    struct p4_ingress_out res; /* size_bytes counts the headers: 0 only when hdr_len is */
    ps->lc.in(ps->lc.vm, ps->scratch, p->hdr, p4_lean_lens(p->hdr_len, p->size_bytes),
              p4switch_port(p->in_port), &res);
    p->rid = 0;
    forward(sw, p, NULL, ps->scratch, &res, 0);
}

/* The traffic manager's fields of egress: bmv2 keeps deq_qdepth as the queue left behind;
 * enq_qdepth was stamped at enqueue. */
static void egress_meta(struct sw *sw, uint32_t port, const struct pkt *p,
                        struct p4_egress_in *in)
{
    const struct pq *q = &sw->tm.ports[port].q;
    in->egress_port = p4switch_port(port);
    in->egress_rid = p->rid;
    in->instance_type = p->instance;
    in->enq_qdepth = p->enq_qdepth;
    in->deq_qdepth = q->cls[pq_class_of(q, p)].pkts;
    in->enq_ps = p->t_enq;
    in->deq_timedelta_ps = sw->node.sim->now - p->t_enq;
}

/* Puts egress's output (res->out_len bytes at `bytes`: p->hdr itself when made in place) on
 * the packet, or drops it; ecn_before is the packet's ECN codepoint when it left the queue. */
static struct pkt *put_output(struct sw *sw, uint32_t port, struct pkt *p, struct p4st *st,
                              const struct p4_egress_out *res, const uint8_t *bytes,
                              uint8_t ecn_before)
{
    struct p4switch *ps = p4sw(sw);
    struct sim *sim = sw->node.sim;
    if (res->drop || res->overflow) {
        if (res->overflow)
            sw->p4_limit_drops++;
        else
            sw->egress_drops++;
        pkt_free(sim, p);
        return NULL;
    }
    /* the deparsed headers replace the header bytes; the virtual payload stays. CE that the
     * program set on a packet that arrived without it, unless the traffic manager marked it,
     * is the program's mark. */
    uint32_t payload = p->size_bytes - p->hdr_len;
    if (bytes != p->hdr)
        memcpy(p->hdr, bytes, res->out_len);
    p->hdr_len = (uint16_t)res->out_len;
    p->size_bytes = res->out_len + payload;
    if (!p->tm_ce && ecn_before != PKT_ECN_CE && pkt_ecn(p) == PKT_ECN_CE)
        sw->tm.ports[port].p4_marks++;
    mark_again(p);
    if (res->recirculate) {
        if (++st->passes > P4SW_MAX_PASSES) {
            sw->p4_limit_drops++;
            pkt_free(sim, p);
            return NULL;
        }
        p->instance = P4_INSTANCE_RECIRC;
        st->fl = res->recirc_fl;
        switch_reinject(sw, p); /* the state rides along for the preserved field list */
        return NULL;
    }
    p->ext = NULL;
    pool_put(&ps->states, st); /* state_release, known to be ours */
    return p;
}

/* Egress of a packet with state: its output made while queued, or egress run now. The
 * deparser may write over the header bytes (in place). */
static __attribute__((noinline)) struct pkt *egress_state(struct sw *sw, uint32_t port,
                                                         struct pkt *p)
{
    struct p4switch *ps = p4sw(sw);
    uint8_t ecn_before = pkt_ecn(p);
    struct p4st *st = container_of(p->ext, struct p4st, ext);
    if (st->made)
        return put_output(sw, port, p, st, &st->res,
                          st->res.in_place ? p->hdr : (const uint8_t *)st->state,
                          st->ecn_before);
    struct p4_egress_in in = egress_in(ps, p);
    if (ps->egress_runs)
        egress_meta(sw, port, p, &in);
    struct p4_egress_out res;
    p4_pipe_egress(ps->pipe, st->state, &in, &res);
    if (res.clone_session >= 0) {
        int mp = p4_pipe_mirror_port(ps->pipe, (uint32_t)res.clone_session);
        if (mp >= 0) {
            struct p4st *cs = state_new(ps, 0);
            p4_pipe_clone_e2e(ps->pipe, cs->state, st->state, res.clone_fl);
            struct pkt *c = copy_with(sw, p, cs, P4_INSTANCE_EGRESS_CLONE, 0);
            switch_enqueue(sw, p4switch_port_of((uint32_t)mp), c);
        }
    }
    return put_output(sw, port, p, st, &res, res.in_place ? p->hdr : ps->out, ecn_before);
}

/* A packet without state had its output made while queued (output_queued); one the port
 * sends as the traffic manager takes it (pending) gets it now, from the scratch state. */
static __attribute__((hot)) struct pkt *p4_egress(struct sw *sw, uint32_t port, struct pkt *p)
{
    struct p4switch *ps = p4sw(sw);
    if (p == ps->pending_pkt) /* p->ext is &ps->pending */
        output_queued(ps, p);
    /* Only this switch's states ride on its packets: with none live, the packet has none, and
     * its second line (p->ext), cold after the wait in the queue, need not be read. */
    if (ps->states.live == 0 || !p->ext)
        return p;
    return egress_state(sw, port, p);
}

static void p4_destroy(struct sw *sw)
{
    struct p4switch *ps = p4sw(sw);
    p4_pipe_destroy(ps->pipe);
    pool_fini(&ps->states);
    free(ps->scratch);
    free(ps);
}

static const struct switch_stage_ops p4_stage = {
    .ingress = p4_ingress,
    .egress = p4_egress,
    .destroy = p4_destroy,
};

bool switch_is_p4(const struct sw *sw)
{
    return sw->stage == &p4_stage;
}

struct p4_pipe *p4switch_pipe(struct sw *sw)
{
    return switch_is_p4(sw) ? p4sw(sw)->pipe : NULL;
}

bool p4switch_output_early(struct sw *sw)
{
    return switch_is_p4(sw) && p4sw(sw)->early;
}

void p4switch_output_at_egress(struct sw *sw)
{
    p4sw(sw)->early = false;
    p4sw(sw)->lean = false;
}

/* --- configuration --- */

static int64_t host_now_ps(void *ud)
{
    return ((struct sw *)ud)->node.sim->now;
}

static void host_log(void *ud, const char *msg)
{
    struct sw *sw = ud;
    char t[32];
    fprintf(stderr, "[%s %s] %s\n", sim_time_fmt(sw->node.sim->now, t, sizeof(t)), sw->node.name,
            msg);
}

/* A decoded map of name: value as p4rt's key/value pairs (pointers into the config tree). */
static struct p4rt_kv *kv_of(const struct param_vec *v)
{
    struct p4rt_kv *kv = xcalloc(v->n + 1, sizeof(*kv));
    for (uint32_t i = 0; i < v->n; i++) {
        const struct param_kv *e = PARAM_VEC_AT(v, const struct param_kv, i);
        kv[i] = (struct p4rt_kv){e->key, e->val};
    }
    return kv;
}

/* 0 when a control-plane call succeeded (rc >= 0); else reports its error at loc, 1. */
static int control_error(struct p4switch *ps, int rc, const char *err, struct src_loc loc,
                         struct diag *d)
{
    if (rc >= 0)
        return 0;
    diag_error(d, loc, "switch '%s': %s", ps->sw->node.name, err);
    return 1;
}

static int apply_entry(struct p4switch *ps, const struct p4switch_entry *e, bool dflt,
                       struct src_loc loc, struct diag *d)
{
    struct p4rt_kv *keys = kv_of(&e->key);
    struct p4rt_kv *args = kv_of(&e->args);
    char err[512];
    int rc = dflt ? p4rt_table_set_default(ps->pipe, e->table, e->action, args, (int)e->args.n,
                                           err, sizeof(err))
                  : p4rt_table_add(ps->pipe, e->table, keys, (int)e->key.n, e->action, args,
                                   (int)e->args.n, (int)e->priority, NULL, err, sizeof(err));
    free(keys);
    free(args);
    return control_error(ps, rc, err, loc, d);
}

static int apply_entries(struct p4switch *ps, const struct param_vec *v, bool dflt,
                         struct diag *d)
{
    int errors = 0;
    for (uint32_t i = 0; i < v->n; i++)
        errors += apply_entry(ps, PARAM_VEC_AT(v, const struct p4switch_entry, i), dflt,
                              v->locs[i], d);
    return errors;
}

static int apply_registers(struct p4switch *ps, const struct param_vec *v, struct diag *d)
{
    int errors = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const struct p4switch_register *r = PARAM_VEC_AT(v, const struct p4switch_register, i);
        char err[512];
        int rc = p4rt_register_write(ps->pipe, r->reg, (uint64_t)r->index, (uint64_t)r->value,
                                     err, sizeof(err));
        errors += control_error(ps, rc, err, v->locs[i], d);
    }
    return errors;
}

/* A port number given in the config; reports and returns false when the switch lacks it. */
static bool port_ok(struct p4switch *ps, int64_t port, struct src_loc loc, struct diag *d)
{
    uint32_t np = ps->sw->node.nports;
    if (port < np)
        return true;
    diag_error(d, loc, "switch '%s' has no port %lld (0..%u)", ps->sw->node.name,
               (long long)port, np ? np - 1 : 0);
    return false;
}

static int apply_multicast(struct p4switch *ps, const struct param_vec *v, struct diag *d)
{
    int errors = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const struct p4switch_mcast *m = PARAM_VEC_AT(v, const struct p4switch_mcast, i);
        for (uint32_t k = 0; k < m->ports.n; k++) {
            int64_t port = param_vec_int(&m->ports, k);
            if (port_ok(ps, port, m->ports.locs[k], d))
                p4rt_mc_add_member(ps->pipe, (uint32_t)m->group, p4switch_port((uint32_t)port),
                                   (uint32_t)m->rid);
            else
                errors++;
        }
    }
    return errors;
}

static int apply_mirror(struct p4switch *ps, const struct param_vec *v, struct diag *d)
{
    int errors = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const struct p4switch_mirror *m = PARAM_VEC_AT(v, const struct p4switch_mirror, i);
        char err[512];
        if (!port_ok(ps, m->port, v->locs[i], d)) {
            errors++;
            continue;
        }
        int rc = p4rt_mirror_add(ps->pipe, (uint32_t)m->session,
                                 p4switch_port((uint32_t)m->port), err, sizeof(err));
        errors += control_error(ps, rc, err, v->locs[i], d);
    }
    return errors;
}

uint64_t p4switch_register_bytes(const struct p4_pipe *pipe, const char **largest,
                                 uint64_t *largest_bytes)
{
    uint64_t total = 0;
    const char *name;
    int64_t size;
    int width;
    *largest = NULL;
    *largest_bytes = 0;
    for (int i = 0; p4rt_register_at(pipe, i, &name, &size, &width) == 0; i++) {
        uint64_t b = (uint64_t)size * (uint64_t)((width + 7) / 8);
        total += b;
        if (b > *largest_bytes) {
            *largest = name;
            *largest_bytes = b;
        }
    }
    return total;
}

/* The program's registers must fit the switch's SRAM budget. */
static int check_sram(struct p4switch *ps, struct src_loc loc, struct diag *d)
{
    const struct switch_cfg *c = &ps->sw->cfg;
    const char *big;
    uint64_t big_bytes;
    uint64_t need = p4switch_register_bytes(ps->pipe, &big, &big_bytes);
    uint64_t have = (uint64_t)c->sram_stages * c->sram_stage_bytes;
    if (need <= have)
        return 0;
    diag_error(d, loc,
               "switch '%s': program '%s' needs %llu bytes of register memory (largest: '%s', "
               "%llu bytes) but the switch has %lld stages x %llu bytes = %llu bytes "
               "(raise sram_stages or sram_stage_bytes, or shrink the registers)",
               ps->sw->node.name, c->program, (unsigned long long)need, big,
               (unsigned long long)big_bytes, (long long)c->sram_stages,
               (unsigned long long)c->sram_stage_bytes, (unsigned long long)have);
    return 1;
}

int p4switch_attach(struct sw *sw, const struct p4_prog *prog, struct diag *d)
{
    struct p4switch *ps = xcalloc(1, sizeof(*ps));
    ps->sw = sw;
    ps->prog = prog;
    struct p4_host host = {
        .ud = sw,
        .now_ps = host_now_ps,
        .log = host_log,
        .timestamps_ns = sw->cfg.timestamps == 1,
        .seed = sw->node.sim->seed ^ sw->salt,
        .exec = (enum p4_exec)sw->cfg.p4_exec,
    };
    ps->pipe = p4_pipe_create(prog, &host);
    ps->egress_runs = p4_prog_egress_runs(prog);
    size_t bytes = p4_prog_state_bytes(prog);
    ps->early = p4_prog_output_early(prog);
    ps->lean = ps->early && p4_pipe_lean(ps->pipe);
    ps->lc = p4_pipe_lean_calls(ps->pipe);
    /* 64-byte aligned: glibc's memset zeroes a 32-byte aligned state on its shortest path (43
     * instructions for basic.p4's 384 bytes, 50 otherwise), whatever the heap's layout */
    ps->scratch = xaligned(64, bytes + 8);
    memset(ps->scratch, 0, bytes + 8);
    ps->pending.release = pending_release;
    pool_init(&ps->states, sizeof(struct p4st) + (ps->early ? MAX(bytes, PKT_HDR_MAX) : bytes),
              256);
    switch_set_stage(sw, &p4_stage, ps);
    const struct switch_cfg *c = &sw->cfg;
    int errors = apply_entries(ps, &c->p4_tables, false, d);
    errors += apply_entries(ps, &c->p4_defaults, true, d);
    errors += apply_registers(ps, &c->p4_registers, d);
    errors += apply_multicast(ps, &c->p4_multicast, d);
    return errors + apply_mirror(ps, &c->p4_mirror, d);
}

/* The size of basic.p4's route table (BASIC_LPM_SIZE there), and the routes per host a switch
 * installs at most: beyond, prefixes where the addresses and the table allow them
 * (route_set_prefixes). */
#define BASIC_ROUTES 1024

/* The ids a route entry is written with (install_route_entries). */
struct route_writer {
    struct p4rt_entry e;
    int key;
    int port_arg;
    int mac_arg; /* -1: the action takes no MAC */
    char err[512];
};

/* Adds the route `ip`/`len` -> physical port `port`, setting the MAC of address `mac_ip`; 0, or
 * 1 with w->err set. An entry the scenario gave for the same key takes precedence. */
static int add_route(struct p4switch *ps, struct route_writer *w, uint64_t ip, int len,
                     uint32_t port, uint32_t mac_ip)
{
    uint8_t m[6];
    pkt_ip_mac(mac_ip, m);
    uint64_t portv = p4switch_port(port);
    uint64_t mac = 0;
    for (int i = 0; i < 6; i++)
        mac = mac << 8 | m[i];
    size_t n = sizeof(w->err);
    if (p4rt_entry_key(&w->e, w->key, &ip, len, w->err, n) < 0 ||
        p4rt_entry_arg(&w->e, w->port_arg, &portv, w->err, n) < 0 ||
        (w->mac_arg >= 0 && p4rt_entry_arg(&w->e, w->mac_arg, &mac, w->err, n) < 0))
        return 1;
    return p4rt_entry_add(ps->pipe, &w->e, NULL, w->err, n) < 0 &&
           !strstr(w->err, "duplicate entry");
}

/* The route entries: with `prefixes` (route_set_prefixes), one per destination switch (its
 * hosts' prefix; the MAC is the prefix's, the last switch writes the host's) and one per own
 * host; else one per destination host. */
static int add_routes(struct p4switch *ps, struct route_writer *w, bool prefixes)
{
    const struct route_set *rs = &ps->sw->routes;
    const struct route_hosts *rh = rs->hosts;
    uint32_t salt = ps->sw->salt;
    uint32_t port;
    for (uint32_t d = 0; prefixes && d < rs->ndsts; d++) {
        int len;
        uint32_t ip = route_dst_prefix(rh, d, &len);
        if (routing_pick_dst(rs, d, salt, &port) && add_route(ps, w, ip, len, port, ip))
            return 1;
    }
    for (uint32_t h = 0; h < route_set_nhosts(rs); h++) {
        if (prefixes && rh->dst[h] != rs->self)
            continue;
        uint32_t ip = route_host_ip(rh, h);
        if (routing_pick(rs, h, salt, &port) && add_route(ps, w, ip, 32, port, ip))
            return 1;
    }
    return 0;
}

/* True when the route table has one key, an lpm on 32 bits (an IPv4 destination). */
static bool route_table_lpm(const struct p4switch *ps)
{
    const char *name;
    const char *kind;
    int width;
    const char *table = ps->sw->cfg.route_table;
    return p4rt_table_key(ps->pipe, table, 0, &name, &kind, &width) == 0 &&
           p4rt_table_key(ps->pipe, table, 1, &name, &kind, &width) < 0 &&
           strcmp(kind, "lpm") == 0 && width == 32;
}

/* The route entries through the binary control plane (no text, names resolved once). */
static int install_route_entries(struct p4switch *ps, uint32_t need, bool prefixes,
                                 struct diag *d, struct src_loc loc)
{
    struct sw *sw = ps->sw;
    const struct switch_cfg *c = &sw->cfg;
    struct route_writer w = {.mac_arg = -1};
    int tid = p4rt_table_id(ps->pipe, c->route_table, w.err, sizeof(w.err));
    w.key = tid < 0 ? -1 : p4rt_key_id(ps->pipe, tid, c->route_key, w.err, sizeof(w.err));
    if (w.key < 0 ||
        p4rt_entry_init(&w.e, ps->pipe, tid, c->route_action, w.err, sizeof(w.err)) < 0) {
        diag_error(d, loc, "switch '%s': cannot install routes: %s", sw->node.name, w.err);
        return 1;
    }
    w.port_arg = p4rt_entry_param(&w.e, c->route_port_arg, w.err, sizeof(w.err));
    if (w.port_arg >= 0 && c->route_mac_arg && c->route_mac_arg[0])
        w.mac_arg = p4rt_entry_param(&w.e, c->route_mac_arg, w.err, sizeof(w.err));
    int rc = w.port_arg < 0 || (c->route_mac_arg && c->route_mac_arg[0] && w.mac_arg < 0);
    if (!rc) {
        p4rt_table_reserve(ps->pipe, tid, (int)need);
        rc = add_routes(ps, &w, prefixes);
    }
    p4rt_entry_fini(&w.e);
    if (rc)
        diag_error(d, loc, "switch '%s': cannot install routes: %s", sw->node.name, w.err);
    return rc;
}

int p4switch_install_routes(struct sw *sw, struct diag *d, struct src_loc loc)
{
    struct p4switch *ps = p4sw(sw);
    const struct switch_cfg *c = &sw->cfg;
    if (c->routes == SWITCH_ROUTES_OFF)
        return 0;
    if (!p4rt_table_name(ps->pipe, c->route_table)) {
        if (c->routes == SWITCH_ROUTES_AUTO)
            return 0; /* the program does no L3 routing: it gets what its entries say */
        diag_error(d, loc, "switch '%s': the program has no table '%s' for routes",
                   sw->node.name, c->route_table);
        return 1;
    }
    int size = p4rt_table_size(ps->pipe, c->route_table);
    uint32_t most = size >= 0 ? MIN((uint32_t)size, BASIC_ROUTES) : BASIC_ROUTES;
    bool prefixes = route_set_prefixes(&sw->routes, route_table_lpm(ps), most);
    uint32_t need = route_set_table_entries(&sw->routes, prefixes);
    if (size >= 0 && need > (uint32_t)size) {
        /* fail before installing thousands of entries; a table the routes alone fit in can
         * still fill up with the scenario's own entries, which the loop below reports */
        diag_error(d, loc,
                   "switch '%s': cannot install routes: table '%s' holds %d entries, the "
                   "topology needs %u routes here (raise the table's size in the program, or "
                   "use program: none)",
                   sw->node.name, p4rt_table_name(ps->pipe, c->route_table), size, need);
        return 1;
    }
    return install_route_entries(ps, need, prefixes, d, loc);
}

void *p4switch_shared_create(void)
{
    return xcalloc(1, sizeof(struct p4switch_programs));
}

void p4switch_shared_destroy(void *shared)
{
    p4switch_programs_free(shared);
    free(shared);
}

void p4switch_shared_inputs(const void *shared,
                            void (*note)(void *ud, const char *role, const char *path), void *ud)
{
    const struct p4switch_programs *ps = shared;
    for (size_t i = 0; i < ps->n; i++) {
        char buf[4200];
        note(ud, "p4_program", ps->paths[i]);
        note(ud, "p4_include", p4switch_include_dir(buf, sizeof(buf)));
    }
}

/* Route entries the switches of a scenario may hold together when basic_wide.p4 replaces
 * basic.p4: one entry per destination host costs about 260 B (a k = 32 fat tree, 10.5 M
 * entries: 2.8 GiB), so this keeps them near 4 GiB. */
#define WIDE_ROUTE_BUDGET (16u << 20)

/* basic.p4 for a switch it cannot serve — more than 511 ports (P4 ports above 511 need more
 * than 9 bits) or more routes than its table holds — is basic_wide.p4 (16-bit ports, 2^20
 * routes), with one note per scenario. NULL when the topology's routes could exceed
 * WIDE_ROUTE_BUDGET (reported once: the scenario fails). */
static const char *wide_variant(struct sw *sw, struct p4switch_programs *shared,
                                struct src_loc loc, struct diag *d)
{
    if (strcmp(sw->cfg.program, "basic") != 0)
        return sw->cfg.program;
    bool ports = sw->node.nports > P4_DROP_PORT;
    uint32_t routes = 0;
    if (sw->cfg.routes != SWITCH_ROUTES_OFF)
        routes = route_set_table_entries(&sw->routes,
                                         route_set_prefixes(&sw->routes, true, BASIC_ROUTES));
    if (!ports && routes <= BASIC_ROUTES)
        return sw->cfg.program;
    /* every switch may need a route per host (a prefix per edge switch and its own hosts, with
     * hierarchical addresses): refuse before installing any */
    const struct route_hosts *rh = sw->routes.hosts;
    uint64_t per = rh && rh->addr_bits ? rh->ndsts + (1u << rh->addr_bits) : rh ? rh->nhosts : 0;
    uint64_t bound = rh ? (uint64_t)rh->refs * per : 0;
    if (bound > WIDE_ROUTE_BUDGET) {
        if (!shared->wide_refused)
            diag_error(d, loc,
                       "switch '%s': the P4 route tables of this topology would hold up to "
                       "%llu entries (%u switches x %llu routes, about 260 B each), more than "
                       "%u; use program: none (fixed routing) for a fabric this large",
                       sw->node.name, (unsigned long long)bound, rh->refs,
                       (unsigned long long)per, WIDE_ROUTE_BUDGET);
        shared->wide_refused = true;
        return NULL;
    }
    if (!shared->wide_noted) {
        fprintf(stderr,
                "note: switch '%s' (and any other like it) runs basic_wide.p4 instead of "
                "basic.p4: it has %s\n",
                sw->node.name,
                ports ? "more than 511 ports" : "more routes than basic.p4's table holds (1024)");
        shared->wide_noted = true;
    }
    return "basic_wide";
}

int p4switch_setup(struct node *n, const struct node_env *env, const struct param_layers *where)
{
    struct sw *sw = switch_of(n);
    if (strcmp(sw->cfg.program, "none") == 0)
        return 0;
    /* errors point at the `program` value wherever it was set, else at the switch */
    struct src_loc loc = param_layers_loc(where, "program");
    struct p4switch_programs *progs = env->shared;
    if (!progs->n)
        progs->cache = env->p4_cache;
    const char *program = wide_variant(sw, progs, loc, env->d);
    if (!program)
        return 0; /* reported once by the first switch */
    const struct p4_prog *prog = p4switch_program(progs, program, env->scenario_file, loc, env->d);
    if (!prog)
        return 1;
    int errors = p4switch_attach(sw, prog, env->d);
    errors += check_sram(p4sw(sw), loc, env->d);
    return errors + p4switch_install_routes(sw, env->d, loc);
}
