/* The builder's traffic stages: flows of every transport (with `after:` dependencies) and
 * training jobs. */
#include "sim/app/build.h"

#include <stdlib.h>
#include <string.h>

#include "models/net/host.h"
#include "models/net/routing.h"
#include "models/transport/transports.h"
#include "sim/util.h"

/* A flow's key from its own map, else from defaults.flow. */
static const struct cfg_node *flow_key(const struct builder *b, const struct cfg_node *m,
                                       const char *key)
{
    const struct cfg_node *v = cfg_get(m, key);
    return v ? v : cfg_get(build_defaults(b, "flow"), key);
}

/* The host a flow's `src` or `dst` names; NULL (and *ok false) when it is no host. A node whose
 * declaration had errors was reported there: NULL with *ok left true. */
static struct host *flow_host(struct builder *b, const struct cfg_node *m, const char *key,
                              bool *ok)
{
    const struct cfg_node *v = flow_key(b, m, key);
    if (v->kind != CFG_SCALAR) { /* reported by the decoder */
        *ok = false;
        return NULL;
    }
    if (!build_declared(b, v->str)) {
        build_unknown_node(b, v->loc, v->str, key);
        *ok = false;
        return NULL;
    }
    struct node *n = build_node(b, v->str);
    struct host *h = n ? node_host(n) : NULL;
    if (n && !h) {
        build_error(b, v->loc, "%s '%s' is a %s; flows run between hosts", key, v->str,
                    n->ops->kind);
        *ok = false;
    }
    return h;
}

/* The transport a flow names with `type` (own map first, then defaults.flow). */
static const struct flow_ops *flow_kind(struct builder *b, const struct cfg_node *m)
{
    const struct cfg_node *t = cfg_get(m, "type");
    if (!t)
        t = cfg_get(build_defaults(b, "flow"), "type");
    if (!t)
        return transport_find("udp");
    const struct flow_ops *ops = t->kind == CFG_SCALAR ? transport_find(t->str) : NULL;
    if (!ops) {
        const char *names[32];
        size_t n = MIN(transport_nflows, ARRAY_LEN(names));
        char list[256] = "";
        for (size_t i = 0; i < n; i++) {
            names[i] = transport_flows[i]->type;
            strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
            strncat(list, names[i], sizeof(list) - strlen(list) - 1);
        }
        const char *s = t->kind == CFG_SCALAR ? t->str : "";
        const char *hint = param_suggest(s, names, n);
        if (hint)
            build_error(b, t->loc, "unknown flow type '%s' (did you mean '%s'?)", s, hint);
        else
            build_error(b, t->loc, "unknown flow type '%s' (one of: %s)", s, list);
    }
    return ops;
}

/* Endpoints, checks and reachability of a decoded flow; true when it can be created. With
 * `only_check` (earlier stages had errors) the endpoints are checked by name and the flow is
 * never created. */
static bool flow_ok(struct builder *b, const struct flow_ops *ops, void *cfg,
                    const struct cfg_node *m, const char *name, struct host **src,
                    struct host **dst, bool only_check)
{
    bool ok = true;
    *src = flow_host(b, m, "src", &ok);
    *dst = flow_host(b, m, "dst", &ok);
    if (ops->check(cfg, m, b->d, name, b->sc->cfg.stop_ps) != 0)
        ok = false;
    if (!ok || only_check || !*src || !*dst)
        return false;
    struct src_loc dl = flow_key(b, m, "dst")->loc;
    if (*src == *dst) {
        diag_error(b->d, dl, "flow '%s' sends from '%s' to itself", name, (*src)->node.name);
        return false;
    }
    if (!routing_reachable(&(*src)->node, &(*dst)->node, b->sc->nnodes)) {
        diag_error(b->d, dl, "flow '%s': receiver '%s' is unreachable from '%s'", name,
                   (*dst)->node.name, (*src)->node.name);
        return false;
    }
    return true;
}

/* A flow's name, reported when it repeats one before it; NULL for a repeat. The name is
 * allocated (free it); names put in `fnames` point into the tree or into created flows. */
static char *flow_name(struct builder *b, const struct cfg_node *m, const struct flow_cfg *c,
                       size_t i, const struct strmap *fnames)
{
    char *name = c->name ? xstrdup(c->name) : xasprintf("f%zu", i);
    uint32_t prev;
    if (!strmap_get(fnames, name, &prev))
        return name;
    build_error(b, cfg_key_loc(m, "name"), "duplicate flow name '%s'", name);
    free(name);
    return NULL;
}

/* Decodes, checks and (unless `only_check`) creates flow i. A flow with errors still has its
 * name and endpoints checked. */
static void create_flow(struct builder *b, const struct cfg_node *m, size_t i,
                        struct strmap *fnames, bool only_check)
{
    struct scenario *sc = b->sc;
    if (m->kind != CFG_MAP) {
        build_error(b, m->loc, "each flow must be a map of parameters");
        return;
    }
    const struct flow_ops *ops = flow_kind(b, m);
    if (!ops)
        return;
    void *cfg = xcalloc(1, ops->cfg_size);
    const struct flow_cfg *common = cfg;
    char what[64];
    snprintf(what, sizeof(what), "%s flow %zu", ops->type, i);
    int e = build_decode(b, ops->params, *ops->nparams, "flow", NULL, m, cfg, what);
    e += param_require_layers(b->d, ops->params, *ops->nparams, m, build_defaults(b, "flow"),
                              what);
    char *name = flow_name(b, m, common, i, fnames);
    struct host *src = NULL;
    struct host *dst = NULL;
    if (e) {
        bool ok = true;
        if (flow_key(b, m, "src"))
            flow_host(b, m, "src", &ok);
        if (flow_key(b, m, "dst"))
            flow_host(b, m, "dst", &ok);
        b->errors++;
    } else if (flow_ok(b, ops, cfg, m, name ? name : "?", &src, &dst, only_check) && name) {
        struct flow *f = ops->create(sc->sim, sc->nflows, name, cfg, src, dst);
        strmap_put(fnames, f->name, sc->nflows);
        sc->flows[sc->nflows++] = f;
    } else if (!only_check) {
        b->errors++;
    }
    if (name && only_check && common->name) /* the name points into the tree */
        strmap_put(fnames, common->name, (uint32_t)i);
    free(name);
    param_free(ops->params, *ops->nparams, cfg);
    free(cfg);
}

/* True when following the dependents of `start` leads back to it (none of them would start).
 * Iterative, so a long chain of flows cannot exhaust the stack. */
static bool on_cycle(struct flow *start, uint32_t nflows, uint8_t *seen, struct flow **stack)
{
    memset(seen, 0, nflows);
    uint32_t top = 0;
    stack[top++] = start;
    while (top > 0) {
        struct flow *f = stack[--top];
        for (uint32_t i = 0; i < f->ndependents; i++) {
            struct flow *g = f->dependents[i];
            if (g == start)
                return true;
            if (!seen[g->index]) {
                seen[g->index] = 1;
                stack[top++] = g;
            }
        }
    }
    return false;
}

static void check_cycles(struct builder *b)
{
    struct scenario *sc = b->sc;
    uint8_t *seen = xmalloc(sc->nflows + 1);
    struct flow **stack = xmalloc((sc->nflows + 1) * sizeof(*stack));
    for (uint32_t i = 0; i < sc->nflows; i++) {
        struct flow *f = sc->flows[i];
        if (f->waiting_for == 0 || !on_cycle(f, sc->nflows, seen, stack))
            continue;
        build_error(b, f->common.after ? f->common.after->loc : sc->cfg.flows->loc,
                    "after: flow '%s' waits for itself through a cycle", f->name);
    }
    free(stack);
    free(seen);
}

/* `after: [names]`: a flow starts when those flows have delivered all their bytes. */
static void link_dependencies(struct builder *b)
{
    struct scenario *sc = b->sc;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        struct flow *f = sc->flows[i];
        const struct cfg_node *a = f->common.after;
        if (!a)
            continue;
        if (a->kind != CFG_SEQ) {
            build_error(b, a->loc, "after: expected a list of flow names");
            continue;
        }
        for (size_t k = 0; k < a->n; k++) {
            const struct cfg_node *v = a->items[k];
            struct flow *first = v->kind == CFG_SCALAR ? scenario_flow(sc, v->str) : NULL;
            if (!first) {
                build_error(b, v->loc, "after: no flow named '%s'",
                            v->kind == CFG_SCALAR ? v->str : "?");
            } else if (first == f) {
                build_error(b, v->loc, "after: flow '%s' cannot wait for itself", f->name);
            } else {
                flow_wait_for(f, first);
            }
        }
    }
    if (b->errors == 0)
        check_cycles(b);
}

/* A top-level list (flows:, jobs:) or NULL when absent or not a list (reported). */
static const struct cfg_node *list_of(struct builder *b, const struct cfg_node *seq,
                                      const char *what)
{
    if (seq && seq->kind != CFG_SEQ) {
        build_error(b, seq->loc, "'%s' must be a list", what);
        return NULL;
    }
    return seq;
}

void build_flows(struct builder *b)
{
    struct scenario *sc = b->sc;
    const struct cfg_node *seq = list_of(b, sc->cfg.flows, "flows");
    if (!seq)
        return;
    sc->flows = arena_calloc(&sc->mem, seq->n + 1, sizeof(*sc->flows));
    struct strmap fnames;
    strmap_init(&fnames, seq->n);
    bool only_check = b->errors > 0;
    for (size_t i = 0; i < seq->n; i++)
        create_flow(b, seq->items[i], i, &fnames, only_check);
    strmap_fini(&fnames);
    if (b->errors == 0)
        link_dependencies(b);
}

static struct host *job_host(void *ud, const char *name)
{
    struct node *n = build_node(ud, name);
    return n ? node_host(n) : NULL;
}

void build_jobs(struct builder *b)
{
    struct scenario *sc = b->sc;
    const struct cfg_node *seq = list_of(b, sc->cfg.jobs, "jobs");
    if (!seq)
        return;
    if (seq->n > 255) {
        build_error(b, seq->loc, "at most 255 jobs");
        return;
    }
    sc->jobs = arena_calloc(&sc->mem, seq->n + 1, sizeof(*sc->jobs));
    for (size_t i = 0; i < seq->n; i++) {
        struct ddl_job *j = ddl_job_create(sc->sim, seq->items[i], sc->doc->file, (int64_t)i,
                                           job_host, b, b->d);
        if (!j) {
            b->errors++;
            continue;
        }
        for (uint32_t k = 0; k < sc->njobs; k++) {
            if (strcmp(sc->jobs[k]->name, j->name) == 0) {
                build_error(b, cfg_key_loc(seq->items[i], "name"), "duplicate job name '%s'",
                            j->name);
            }
        }
        sc->jobs[sc->njobs++] = j;
    }
}
