#include "sim/app/scenario.h"

#include <stdlib.h>
#include <string.h>

#include "models/transport/transports.h"
#include "sim/app/registry.h"
#include "sim/app/topo.h"
#include "sim/util.h"

#define SP(field) offsetof(struct scenario_cfg, field)
const struct param_def scenario_params[] = {
    {"name", PARAM_STRING, SP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "scenario name"},
    {"seed", PARAM_INT, SP(seed), "1", "0", NULL, NULL, "run seed (RNG streams derive from it)"},
    {"stop", PARAM_TIME, SP(stop_ps), "0", "0", NULL, NULL,
     "simulated time to stop at (0 = when no events remain)"},
    {"defaults", PARAM_NODE, SP(defaults), PARAM_OPTIONAL, NULL, NULL, NULL,
     "parameters for every link/host/switch/flow that does not set them"},
    {"topology", PARAM_NODE, SP(topology), PARAM_OPTIONAL, NULL, NULL, NULL,
     "a generator: star, dumbbell, leaf_spine, fat_tree"},
    {"hosts", PARAM_NODE, SP(hosts), PARAM_OPTIONAL, NULL, NULL, NULL, "list of hosts"},
    {"switches", PARAM_NODE, SP(switches), PARAM_OPTIONAL, NULL, NULL, NULL, "list of switches"},
    {"links", PARAM_NODE, SP(links), PARAM_OPTIONAL, NULL, NULL, NULL, "list of links"},
    {"flows", PARAM_NODE, SP(flows), PARAM_OPTIONAL, NULL, NULL, NULL, "list of traffic flows"},
    {"jobs", PARAM_NODE, SP(jobs), PARAM_OPTIONAL, NULL, NULL, NULL,
     "list of distributed training jobs (ddlsim describe job)"},
    {"output", PARAM_NODE, SP(output), PARAM_OPTIONAL, NULL, NULL, NULL,
     "what to record: queue samples, pcap ports"},
};
const size_t scenario_nparams = ARRAY_LEN(scenario_params);

#define OP(field) offsetof(struct output_cfg, field)
const struct param_def output_params[] = {
    {"queue_interval", PARAM_TIME, OP(queue_interval_ps), "0", "0", NULL, NULL,
     "sample queue lengths this often into queues.csv (0 = off)"},
    {"queues", PARAM_NODE, OP(queues), PARAM_OPTIONAL, NULL, NULL, NULL,
     "ports to sample: \"switch\" (all ports) or \"switch:port\"; default all switch ports"},
    {"pcap", PARAM_NODE, OP(pcap), PARAM_OPTIONAL, NULL, NULL, NULL,
     "ports to trace into trace.pcap: \"node:port\" (frames sent by that port)"},
};
const size_t output_nparams = ARRAY_LEN(output_params);

static const char *const default_sections[] = {"link", "host", "switch", "flow"};

/* --- name table: open addressing, names → node index --- */

struct names {
    const char **keys;
    uint32_t *vals;
    size_t cap;
};

static void names_init(struct names *t, size_t n)
{
    t->cap = 16;
    while (t->cap < 2 * n)
        t->cap *= 2;
    t->keys = xcalloc(t->cap, sizeof(*t->keys));
    t->vals = xcalloc(t->cap, sizeof(*t->vals));
}

static size_t names_slot(const struct names *t, const char *key)
{
    size_t i = hash_fnv1a(key, strlen(key), HASH_FNV_INIT) & (t->cap - 1);
    while (t->keys[i] && strcmp(t->keys[i], key) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Returns false if the name is already present. */
static bool names_put(struct names *t, const char *key, uint32_t v)
{
    size_t i = names_slot(t, key);
    if (t->keys[i])
        return false;
    t->keys[i] = key;
    t->vals[i] = v;
    return true;
}

static bool names_get(const struct names *t, const char *key, uint32_t *v)
{
    size_t i = names_slot(t, key);
    if (!t->keys[i])
        return false;
    *v = t->vals[i];
    return true;
}

static void names_free(struct names *t)
{
    free(t->keys);
    free(t->vals);
}

/* --- build state --- */

struct builder {
    struct scenario *sc;
    struct diag *d;
    struct topo topo;
    struct names names;
    struct node **by_decl; /* node of each declaration, by declaration index */
    const struct cfg_node *def[ARRAY_LEN(default_sections)]; /* defaults.link, ... */
    int errors;
};

static const struct cfg_node *defaults_for(const struct builder *b, const char *section)
{
    for (size_t i = 0; i < ARRAY_LEN(default_sections); i++) {
        if (strcmp(default_sections[i], section) == 0)
            return b->def[i];
    }
    return NULL;
}

static void check_defaults(struct builder *b)
{
    const struct cfg_node *m = b->sc->cfg.defaults;
    if (!m)
        return;
    if (m->kind != CFG_MAP) {
        diag_error(b->d, m->loc, "'defaults' must be a map");
        b->errors++;
        return;
    }
    for (size_t k = 0; k < m->n; k++) {
        size_t i;
        for (i = 0; i < ARRAY_LEN(default_sections); i++) {
            if (strcmp(m->keys[k], default_sections[i]) == 0)
                break;
        }
        if (i < ARRAY_LEN(default_sections)) {
            b->def[i] = m->items[k];
            continue;
        }
        const char *hint = param_suggest(m->keys[k], default_sections,
                                         ARRAY_LEN(default_sections));
        diag_error(b->d, m->key_locs[k], "unknown section '%s' in defaults%s%s%s", m->keys[k],
                   hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
        b->errors++;
    }
}

/* Decodes an element's parameters: table defaults, then defaults.<section>, then the
 * generator's section, then the element's own map. */
static int decode_layered(struct builder *b, const struct param_def *defs, size_t n,
                          const char *section, const struct cfg_node *gen,
                          const struct cfg_node *own, void *out, const char *what)
{
    param_defaults(defs, n, out);
    int e = param_apply(b->d, defs, n, defaults_for(b, section), out, what);
    e += param_apply(b->d, defs, n, gen, out, what);
    e += param_apply(b->d, defs, n, own, out, what);
    return e;
}

static void suggest_node(struct builder *b, struct src_loc loc, const char *name,
                         const char *role)
{
    const char **all = xmalloc(b->topo.nnodes * sizeof(*all));
    for (size_t i = 0; i < b->topo.nnodes; i++)
        all[i] = b->topo.nodes[i].name;
    const char *hint = param_suggest(name, all, b->topo.nnodes);
    if (hint)
        diag_error(b->d, loc, "%s '%s' is not a declared host or switch (did you mean '%s'?)",
                   role, name, hint);
    else
        diag_error(b->d, loc, "%s '%s' is not a declared host or switch", role, name);
    free(all);
    b->errors++;
}

static void register_names(struct builder *b)
{
    names_init(&b->names, b->topo.nnodes);
    for (size_t i = 0; i < b->topo.nnodes; i++) {
        const struct decl_node *n = &b->topo.nodes[i];
        if (!names_put(&b->names, n->name, (uint32_t)i)) {
            uint32_t first = 0;
            names_get(&b->names, n->name, &first);
            struct src_loc fl = b->topo.nodes[first].loc;
            diag_error(b->d, n->loc, "duplicate name '%s' (first declared at %s:%d:%d)", n->name,
                       fl.file, fl.line, fl.col);
            b->errors++;
        }
    }
}

static void create_nodes(struct builder *b)
{
    struct scenario *sc = b->sc;
    sc->nodes = xcalloc(b->topo.nnodes, sizeof(*sc->nodes));
    sc->hosts = xcalloc(b->topo.nnodes, sizeof(*sc->hosts));
    sc->switches = xcalloc(b->topo.nnodes, sizeof(*sc->switches));
    b->by_decl = xcalloc(b->topo.nnodes, sizeof(*b->by_decl));
    for (size_t i = 0; i < b->topo.nnodes; i++) {
        const struct decl_node *dn = &b->topo.nodes[i];
        char what[300];
        if (dn->kind == DECL_HOST) {
            struct host_cfg hc;
            snprintf(what, sizeof(what), "host '%s'", dn->name);
            if (decode_layered(b, host_params, host_nparams, "host", dn->gen, dn->map, &hc,
                               what)) {
                b->errors++;
                continue;
            }
            struct host *h = host_create(sc->sim, dn->name, (uint32_t)i, sc->nhosts, &hc);
            sc->hosts[sc->nhosts++] = h;
            sc->nodes[sc->nnodes++] = &h->node;
            b->by_decl[i] = &h->node;
        } else {
            struct switch_cfg scfg;
            snprintf(what, sizeof(what), "switch '%s'", dn->name);
            if (decode_layered(b, switch_params, switch_nparams, "switch", dn->gen, dn->map,
                               &scfg, what)) {
                b->errors++;
                continue;
            }
            const struct cfg_node *w = scfg.weights;
            if (w && (w->kind != CFG_SEQ || w->n > PQ_MAX_PRIO)) {
                diag_error(b->d, w->loc, "drr_weights must be a list of at most 8 integers");
                b->errors++;
                continue;
            }
            for (size_t k = 0; w && k < w->n; k++) {
                char *end = NULL;
                const char *s = w->items[k]->str;
                long v = s ? strtol(s, &end, 10) : 0;
                if (!s || *end || v < 1 || v > 1000000) {
                    diag_error(b->d, w->items[k]->loc, "a DRR weight is an integer 1..1000000");
                    b->errors++;
                }
            }
            scfg.tm.pfc_classes = 0xff;
            const struct cfg_node *pc = scfg.pfc_classes;
            if (pc && pc->kind != CFG_SEQ) {
                diag_error(b->d, pc->loc, "pfc_classes must be a list of classes 0..7");
                b->errors++;
            }
            if (pc && pc->kind == CFG_SEQ) {
                scfg.tm.pfc_classes = 0;
                for (size_t k = 0; k < pc->n; k++) {
                    char *end = NULL;
                    const char *s = pc->items[k]->str;
                    long v = s ? strtol(s, &end, 10) : -1;
                    if (!s || *end || v < 0 || v > 7) {
                        diag_error(b->d, pc->items[k]->loc, "a PFC class is an integer 0..7");
                        b->errors++;
                        continue;
                    }
                    scfg.tm.pfc_classes |= (uint8_t)(1u << v);
                }
            }
            if (scfg.tm.pfc && scfg.tm.pfc_xon_bytes > scfg.tm.pfc_xoff_bytes) {
                diag_error(b->d, dn->map ? dn->map->loc : dn->loc,
                           "switch '%s': pfc_xon must not exceed pfc_xoff", dn->name);
                b->errors++;
            }
            if (scfg.tm.ecn_mode == TMGR_ECN_RED && scfg.tm.ecn_kmax <= scfg.tm.ecn_kmin) {
                diag_error(b->d, dn->map ? dn->map->loc : dn->loc,
                           "switch '%s': ecn red needs ecn_kmax > ecn_kmin", dn->name);
                b->errors++;
            }
            struct sw *s = switch_create(sc->sim, dn->name, (uint32_t)i, &scfg);
            sc->switches[sc->nswitches++] = s;
            sc->nodes[sc->nnodes++] = &s->node;
            b->by_decl[i] = &s->node;
        }
    }
}

static struct node *node_by_name(struct builder *b, const char *name)
{
    uint32_t i;
    if (!names_get(&b->names, name, &i))
        return NULL;
    return b->by_decl[i];
}

static void create_links(struct builder *b)
{
    for (size_t i = 0; i < b->topo.nlinks; i++) {
        const struct decl_link *dl = &b->topo.links[i];
        struct link_spec spec;
        char what[300];
        snprintf(what, sizeof(what), "link %s-%s", dl->a, dl->b);
        if (decode_layered(b, link_params, link_nparams, "link", dl->gen, dl->map, &spec, what)) {
            b->errors++;
            continue;
        }
        struct node *na = node_by_name(b, dl->a);
        struct node *nb = node_by_name(b, dl->b);
        if (!na)
            suggest_node(b, dl->a_loc, dl->a, "link end");
        if (!nb)
            suggest_node(b, dl->b_loc, dl->b, "link end");
        if (!na || !nb)
            continue;
        if (na == nb) {
            diag_error(b->d, dl->b_loc, "link connects '%s' to itself", dl->a);
            b->errors++;
            continue;
        }
        node_connect(na, nb, &spec.cfg);
    }
}

static void check_hosts(struct builder *b)
{
    for (uint32_t i = 0; i < b->sc->nhosts; i++) {
        struct host *h = b->sc->hosts[i];
        if (h->node.nports > 1) {
            const struct decl_node *dn = &b->topo.nodes[h->node.id];
            diag_error(b->d, dn->loc, "host '%s' has %u links; a host has one NIC", h->node.name,
                       h->node.nports);
            b->errors++;
        }
    }
}

/* Shortest-path routes with ECMP. Hosts never forward and have one link, so every host behind
 * the same switch s has the same routes as s except at s itself, where the route is the port
 * to the host: one breadth-first search over switches from each switch with hosts suffices. A
 * switch's next hops toward s are the ports whose peer switch is one hop closer. */
struct route_graph {
    uint32_t *adj_off; /* neighbour ids of node i: adj[adj_off[i] .. adj_off[i + 1]) */
    uint32_t *adj;     /* in port order */
    int32_t *host_of;  /* node id -> host index, -1 for switches */
};

static void route_graph_init(struct route_graph *g, struct scenario *sc, uint32_t nn)
{
    g->adj_off = xcalloc(nn + 1, sizeof(*g->adj_off));
    g->host_of = xmalloc(nn * sizeof(*g->host_of));
    for (uint32_t i = 0; i < nn; i++)
        g->host_of[i] = -1;
    for (uint32_t i = 0; i < sc->nnodes; i++)
        g->adj_off[sc->nodes[i]->id + 1] = sc->nodes[i]->nports;
    for (uint32_t i = 0; i < sc->nhosts; i++)
        g->host_of[sc->hosts[i]->node.id] = (int32_t)i;
    for (uint32_t i = 0; i < nn; i++)
        g->adj_off[i + 1] += g->adj_off[i];
    g->adj = xmalloc((g->adj_off[nn] + 1) * sizeof(*g->adj));
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        struct node *n = sc->nodes[i];
        for (uint32_t p = 0; p < n->nports; p++)
            g->adj[g->adj_off[n->id] + p] = n->ports[p]->peer->node->id;
    }
}

static void route_graph_fini(struct route_graph *g)
{
    free(g->adj_off);
    free(g->adj);
    free(g->host_of);
}

/* Hop counts over switches from switch `src` (UINT32_MAX: unreachable, and every host). */
static void switch_distances(const struct route_graph *g, uint32_t nn, uint32_t src,
                             uint32_t *dist, uint32_t *queue)
{
    for (uint32_t i = 0; i < nn; i++)
        dist[i] = UINT32_MAX;
    uint32_t qh = 0;
    uint32_t qt = 0;
    dist[src] = 0;
    queue[qt++] = src;
    while (qh < qt) {
        uint32_t n = queue[qh++];
        for (uint32_t e = g->adj_off[n]; e < g->adj_off[n + 1]; e++) {
            uint32_t m = g->adj[e];
            if (g->host_of[m] < 0 && dist[m] == UINT32_MAX) {
                dist[m] = dist[n] + 1;
                queue[qt++] = m;
            }
        }
    }
}

static void compute_routes(struct builder *b)
{
    struct scenario *sc = b->sc;
    uint32_t nn = (uint32_t)b->topo.nnodes;
    struct route_graph g;
    route_graph_init(&g, sc, nn);
    uint32_t *dist = xmalloc(nn * sizeof(*dist));
    uint32_t *queue = xmalloc(nn * sizeof(*queue));
    /* next hops of every switch toward the current s, at the switch's own offset in adj */
    uint32_t *hops = xmalloc((g.adj_off[nn] + 1) * sizeof(*hops));
    uint32_t *nhops = xmalloc(sc->nswitches * sizeof(*nhops));
    for (uint32_t si = 0; si < sc->nswitches; si++) {
        struct sw *s = sc->switches[si];
        uint32_t sid = s->node.id;
        bool has_hosts = false;
        for (uint32_t e = g.adj_off[sid]; e < g.adj_off[sid + 1]; e++)
            has_hosts |= g.host_of[g.adj[e]] >= 0;
        if (!has_hosts)
            continue;
        switch_distances(&g, nn, sid, dist, queue);
        for (uint32_t ti = 0; ti < sc->nswitches; ti++) {
            uint32_t tid = sc->switches[ti]->node.id;
            uint32_t *h = hops + g.adj_off[tid];
            nhops[ti] = 0;
            if (dist[tid] == UINT32_MAX || tid == sid)
                continue;
            for (uint32_t e = g.adj_off[tid]; e < g.adj_off[tid + 1]; e++) {
                if (dist[g.adj[e]] + 1 == dist[tid])
                    h[nhops[ti]++] = e - g.adj_off[tid];
            }
        }
        for (uint32_t e = g.adj_off[sid]; e < g.adj_off[sid + 1]; e++) {
            int32_t hi = g.host_of[g.adj[e]];
            if (hi < 0)
                continue;
            uint32_t port = e - g.adj_off[sid];
            for (uint32_t ti = 0; ti < sc->nswitches; ti++) {
                struct sw *t = sc->switches[ti];
                if (t == s)
                    switch_set_route(t, (uint32_t)hi, &port, 1);
                else if (dist[t->node.id] != UINT32_MAX)
                    switch_set_route(t, (uint32_t)hi, hops + g.adj_off[t->node.id], nhops[ti]);
            }
        }
    }
    free(nhops);
    free(hops);
    free(queue);
    free(dist);
    route_graph_fini(&g);
}

/* Follows the installed routes (first next hop) from src; true when they reach dst. */
static bool reachable(struct scenario *sc, struct host *src, struct host *dst)
{
    if (src->node.nports == 0)
        return false;
    struct node *n = src->node.ports[0]->peer->node;
    for (uint32_t hop = 0; hop <= sc->nnodes; hop++) {
        if (n == &dst->node)
            return true;
        if (!node_is_switch(n))
            return false;
        struct sw *s = switch_of(n);
        if (dst->index >= s->nroutes || s->routes[dst->index].n == 0)
            return false;
        n = n->ports[s->nexthops[s->routes[dst->index].first]]->peer->node;
    }
    return false;
}

static struct host *flow_host(struct builder *b, const struct cfg_node *m, const char *key)
{
    const struct cfg_node *v = cfg_get(m, key);
    struct node *n = node_by_name(b, v->str);
    if (!n) {
        suggest_node(b, v->loc, v->str, key);
        return NULL;
    }
    if (!node_is_host(n)) {
        diag_error(b->d, v->loc, "%s '%s' is a switch; flows run between hosts", key, v->str);
        b->errors++;
        return NULL;
    }
    return host_of(n);
}

/* The transport a flow names with `type` (own map first, then defaults.flow). */
static const struct flow_ops *flow_kind(struct builder *b, const struct cfg_node *m)
{
    const struct cfg_node *t = cfg_get(m, "type");
    if (!t)
        t = cfg_get(defaults_for(b, "flow"), "type");
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
            diag_error(b->d, t->loc, "unknown flow type '%s' (did you mean '%s'?)", s, hint);
        else
            diag_error(b->d, t->loc, "unknown flow type '%s' (one of: %s)", s, list);
        b->errors++;
    }
    return ops;
}

static void create_flow(struct builder *b, const struct cfg_node *m, size_t i,
                        struct names *fnames)
{
    struct scenario *sc = b->sc;
    if (m->kind != CFG_MAP) {
        diag_error(b->d, m->loc, "each flow must be a map of parameters");
        b->errors++;
        return;
    }
    const struct flow_ops *ops = flow_kind(b, m);
    if (!ops)
        return;
    void *cfg = xcalloc(1, ops->cfg_size);
    const struct flow_cfg *common = cfg;
    char what[64];
    snprintf(what, sizeof(what), "%s flow %zu", ops->type, i);
    int e = decode_layered(b, ops->params, *ops->nparams, "flow", NULL, m, cfg, what);
    e += param_require(b->d, ops->params, *ops->nparams, m, m->loc, what);
    if (e) {
        b->errors++;
        goto out_free_cfg;
    }
    char *name = common->name ? xstrdup(common->name) : xasprintf("f%zu", i);
    uint32_t prev;
    bool ok = true;
    if (names_get(fnames, name, &prev)) {
        diag_error(b->d, cfg_key_loc(m, "name"), "duplicate flow name '%s'", name);
        ok = false;
    }
    struct host *src = flow_host(b, m, "src");
    struct host *dst = flow_host(b, m, "dst");
    ok = ok && src && dst && ops->check(cfg, m, b->d, name, sc->cfg.stop_ps) == 0;
    if (ok && src == dst) {
        diag_error(b->d, cfg_get(m, "dst")->loc, "flow '%s' sends from '%s' to itself", name,
                   src->node.name);
        ok = false;
    } else if (ok && !reachable(sc, src, dst)) {
        diag_error(b->d, cfg_get(m, "dst")->loc, "flow '%s': receiver '%s' is unreachable from '%s'",
                   name, dst->node.name, src->node.name);
        ok = false;
    }
    if (ok) {
        struct flow *f = ops->create(sc->sim, sc->nflows, name, cfg, src, dst);
        names_put(fnames, f->name, sc->nflows);
        sc->flows[sc->nflows++] = f;
    } else {
        b->errors++;
    }
    free(name);
out_free_cfg:
    free(cfg);
}

/* True when following the dependents of `f` leads back to `start` (a cycle: none would start). */
static bool reaches(const struct flow *f, const struct flow *start, uint32_t depth)
{
    if (depth > 100000)
        return true;
    for (uint32_t i = 0; i < f->ndependents; i++) {
        if (f->dependents[i] == start || reaches(f->dependents[i], start, depth + 1))
            return true;
    }
    return false;
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
            diag_error(b->d, a->loc, "after: expected a list of flow names");
            b->errors++;
            continue;
        }
        for (size_t k = 0; k < a->n; k++) {
            const struct cfg_node *v = a->items[k];
            struct flow *first = v->kind == CFG_SCALAR ? scenario_flow(sc, v->str) : NULL;
            if (!first) {
                diag_error(b->d, v->loc, "after: no flow named '%s'",
                           v->kind == CFG_SCALAR ? v->str : "?");
                b->errors++;
            } else if (first == f) {
                diag_error(b->d, v->loc, "after: flow '%s' cannot wait for itself", f->name);
                b->errors++;
            } else {
                flow_wait_for(f, first);
            }
        }
    }
    for (uint32_t i = 0; i < sc->nflows && b->errors == 0; i++) {
        if (reaches(sc->flows[i], sc->flows[i], 0)) {
            diag_error(b->d, sc->flows[i]->common.after ? sc->flows[i]->common.after->loc
                                                        : b->sc->cfg.flows->loc,
                       "after: flow '%s' waits for itself through a cycle", sc->flows[i]->name);
            b->errors++;
        }
    }
}

static void create_flows(struct builder *b)
{
    struct scenario *sc = b->sc;
    const struct cfg_node *seq = sc->cfg.flows;
    if (!seq)
        return;
    if (seq->kind != CFG_SEQ) {
        diag_error(b->d, seq->loc, "'flows' must be a list");
        b->errors++;
        return;
    }
    sc->flows = xcalloc(seq->n, sizeof(*sc->flows));
    struct names fnames;
    names_init(&fnames, seq->n);
    for (size_t i = 0; i < seq->n; i++)
        create_flow(b, seq->items[i], i, &fnames);
    names_free(&fnames);
    if (b->errors == 0)
        link_dependencies(b);
}

/* Every switch runs its P4 program (default basic.p4) unless it says `program: none`; the
 * builder's routes become entries of the program's route table. */
static void attach_programs(struct builder *b)
{
    struct scenario *sc = b->sc;
    for (size_t i = 0; i < b->topo.nnodes; i++) {
        const struct decl_node *dn = &b->topo.nodes[i];
        if (dn->kind != DECL_SWITCH || !b->by_decl[i])
            continue;
        struct sw *s = switch_of(b->by_decl[i]);
        if (strcmp(s->cfg.program, "none") == 0)
            continue;
        /* errors point at the `program` value wherever it was set, else at the switch */
        const struct cfg_node *layers[3] = {dn->map, dn->gen, defaults_for(b, "switch")};
        struct src_loc loc = dn->map ? dn->map->loc : dn->loc;
        for (int k = 0; k < 3; k++) {
            const struct cfg_node *v = cfg_get(layers[k], "program");
            if (v) {
                loc = v->loc;
                break;
            }
        }
        struct p4_prog *prog = p4switch_program(&sc->programs, s->cfg.program, sc->doc->file, loc,
                                                b->d);
        if (!prog) {
            b->errors++;
            continue;
        }
        b->errors += p4switch_attach(s, prog, b->d);
        b->errors += p4switch_install_routes(s, b->d, loc);
    }
}

static struct host *job_host(void *ud, const char *name)
{
    struct node *n = node_by_name(ud, name);
    return n && node_is_host(n) ? host_of(n) : NULL;
}

static void create_jobs(struct builder *b)
{
    struct scenario *sc = b->sc;
    const struct cfg_node *seq = sc->cfg.jobs;
    if (!seq)
        return;
    if (seq->kind != CFG_SEQ) {
        diag_error(b->d, seq->loc, "'jobs' must be a list");
        b->errors++;
        return;
    }
    if (seq->n > 255) {
        diag_error(b->d, seq->loc, "at most 255 jobs");
        b->errors++;
        return;
    }
    sc->jobs = xcalloc(seq->n, sizeof(*sc->jobs));
    for (size_t i = 0; i < seq->n; i++) {
        struct ddl_job *j = ddl_job_create(sc->sim, seq->items[i], sc->doc->file, (int64_t)i,
                                           job_host, b, b->d);
        if (!j) {
            b->errors++;
            continue;
        }
        for (uint32_t k = 0; k < sc->njobs; k++) {
            if (strcmp(sc->jobs[k]->name, j->name) == 0) {
                diag_error(b->d, cfg_key_loc(seq->items[i], "name"), "duplicate job name '%s'",
                           j->name);
                b->errors++;
            }
        }
        sc->jobs[sc->njobs++] = j;
    }
}

/* "name" or "name:port" → node and port (port -1 when absent). */
static struct node *port_ref(struct builder *b, const struct cfg_node *v, long *port)
{
    if (v->kind != CFG_SCALAR) {
        diag_error(b->d, v->loc, "expected \"node\" or \"node:port\"");
        b->errors++;
        return NULL;
    }
    char *s = xstrdup(v->str);
    char *colon = strrchr(s, ':');
    *port = -1;
    if (colon) {
        *colon = '\0';
        char *end;
        *port = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || *port < 0) {
            diag_error(b->d, v->loc, "bad port number in '%s'", v->str);
            b->errors++;
            free(s);
            return NULL;
        }
    }
    struct node *n = node_by_name(b, s);
    if (!n)
        suggest_node(b, v->loc, s, "output port");
    else if (*port >= (long)n->nports) {
        diag_error(b->d, v->loc, "'%s' has %u ports (0..%u)", s, n->nports,
                   n->nports ? n->nports - 1 : 0);
        b->errors++;
        n = NULL;
    }
    free(s);
    return n;
}

static void add_probe(struct scenario *sc, struct sw *s, uint32_t port)
{
    sc->probes = xrealloc(sc->probes, (sc->nprobes + 1) * sizeof(*sc->probes));
    sc->probes[sc->nprobes++] = (struct queue_probe){s, port};
}

static void setup_outputs(struct builder *b)
{
    struct scenario *sc = b->sc;
    if (param_decode(b->d, output_params, output_nparams, sc->cfg.output, &sc->out, "output")) {
        b->errors++;
        return;
    }
    if (sc->out.queue_interval_ps && !sc->out.queues) {
        for (uint32_t i = 0; i < sc->nswitches; i++) {
            for (uint32_t p = 0; p < sc->switches[i]->node.nports; p++)
                add_probe(sc, sc->switches[i], p);
        }
    }
    const struct cfg_node *q = sc->out.queues;
    for (size_t i = 0; q && i < (q->kind == CFG_SEQ ? q->n : 1); i++) {
        const struct cfg_node *v = q->kind == CFG_SEQ ? q->items[i] : q;
        long port;
        struct node *n = port_ref(b, v, &port);
        if (!n)
            continue;
        if (!node_is_switch(n)) {
            diag_error(b->d, v->loc, "queue samples are taken at switch ports; '%s' is a host",
                       n->name);
            b->errors++;
            continue;
        }
        for (uint32_t p = 0; p < n->nports; p++) {
            if (port < 0 || (uint32_t)port == p)
                add_probe(sc, switch_of(n), p);
        }
    }
    const struct cfg_node *pc = sc->out.pcap;
    for (size_t i = 0; pc && i < (pc->kind == CFG_SEQ ? pc->n : 1); i++) {
        const struct cfg_node *v = pc->kind == CFG_SEQ ? pc->items[i] : pc;
        long port;
        if (port_ref(b, v, &port)) {
            sc->pcap_ports = xrealloc(sc->pcap_ports, (sc->npcap_ports + 1) * sizeof(char *));
            sc->pcap_ports[sc->npcap_ports++] = v->str;
        }
    }
}

static struct scenario *build(struct cfg_doc *doc, const struct scenario_opts *o, struct diag *d)
{
    struct scenario *sc = xcalloc(1, sizeof(*sc));
    sc->doc = doc;
    sc->diag = d;
    struct builder b = {.sc = sc, .d = d};
    for (int i = 0; o && i < o->nsets; i++) {
        if (cfg_set(doc, o->sets[i], d) < 0)
            b.errors++;
    }
    for (int i = 0; o && i < o->nassigns; i++) {
        const struct scenario_assign *a = &o->assigns[i];
        if (cfg_set_node(doc, a->path, a->value, a->value->loc, d) < 0)
            b.errors++;
    }
    if (b.errors == 0 &&
        param_decode(d, scenario_params, scenario_nparams, doc->root, &sc->cfg, "the scenario"))
        b.errors++;
    if (o && o->seed_given)
        sc->cfg.seed = (int64_t)o->seed;
    sc->sim = sim_create((uint64_t)sc->cfg.seed, d);
    if (b.errors)
        goto out_fail;
    check_defaults(&b);
    b.errors += topo_collect(&b.topo, doc->root, d);
    if (b.errors)
        goto out_fail;
    register_names(&b);
    create_nodes(&b);
    if (b.errors)
        goto out_fail;
    create_links(&b);
    check_hosts(&b);
    if (b.errors)
        goto out_fail;
    for (uint32_t i = 0; i < sc->nswitches; i++)
        switch_finish_ports(sc->switches[i]);
    compute_routes(&b);
    attach_programs(&b);
    create_flows(&b);
    create_jobs(&b);
    setup_outputs(&b);
    if (b.errors || diag_count(d))
        goto out_fail;
    names_free(&b.names);
    topo_free(&b.topo);
    free(b.by_decl);
    return sc;
out_fail:
    names_free(&b.names);
    topo_free(&b.topo);
    free(b.by_decl);
    scenario_destroy(sc);
    return NULL;
}

struct scenario *scenario_load(const char *path, const struct scenario_opts *o, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_file(path, d);
    return doc ? build(doc, o, d) : NULL;
}

struct scenario *scenario_load_string(const char *name, const char *yaml,
                                      const struct scenario_opts *o, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_string(name, yaml, d);
    return doc ? build(doc, o, d) : NULL;
}

struct scenario *scenario_load_node(const char *name, const struct cfg_node *root,
                                    const struct scenario_opts *o, struct diag *d)
{
    return build(cfg_doc_from(name, root), o, d);
}

void scenario_run(struct scenario *sc)
{
    sim_time_t until = sc->cfg.stop_ps ? sc->cfg.stop_ps : SIM_TIME_NEVER;
    sc->events += sim_run(sc->sim, until);
}

void scenario_destroy(struct scenario *sc)
{
    if (!sc)
        return;
    for (uint32_t i = 0; i < sc->njobs; i++)
        ddl_job_destroy(sc->jobs[i]);
    free(sc->jobs);
    for (uint32_t i = 0; i < sc->nflows; i++)
        sc->flows[i]->ops->destroy(sc->sim, sc->flows[i]);
    for (uint32_t i = 0; i < sc->nnodes; i++)
        sc->nodes[i]->ops->destroy(sc->nodes[i]);
    if (sc->sim)
        SIM_ASSERT(pkt_live(sc->sim) == 0);
    free(sc->flows);
    free(sc->nodes);
    free(sc->hosts);
    free(sc->switches);
    free(sc->probes);
    free(sc->pcap_ports);
    p4switch_programs_free(&sc->programs);
    sim_destroy(sc->sim);
    cfg_free(sc->doc);
    free(sc);
}

struct node *scenario_node(const struct scenario *sc, const char *name)
{
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        if (strcmp(sc->nodes[i]->name, name) == 0)
            return sc->nodes[i];
    }
    return NULL;
}

struct flow *scenario_flow(const struct scenario *sc, const char *name)
{
    for (uint32_t i = 0; i < sc->nflows; i++) {
        if (strcmp(sc->flows[i]->name, name) == 0)
            return sc->flows[i];
    }
    return NULL;
}
