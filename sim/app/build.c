/* The builder's topology stages: defaults, node declarations → nodes of their kind, links,
 * per-kind setup once connected, routes, and the kinds' last setup. The builder knows node kinds
 * only through their struct node_ops (registry.h). */
#include "sim/app/build.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/routing.h"
#include "models/net/switch.h"
#include "sim/app/registry.h"
#include "sim/util.h"

static const char *const default_sections[BUILD_NSECTIONS] = {"link", "host", "switch", "flow"};

void build_error(struct builder *b, struct src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(b->d, loc, fmt, ap);
    va_end(ap);
    b->errors++;
}

const struct cfg_node *build_defaults(const struct builder *b, const char *section)
{
    for (size_t i = 0; i < BUILD_NSECTIONS; i++) {
        if (strcmp(default_sections[i], section) == 0)
            return b->def[i];
    }
    return NULL;
}

/* Keys that identify one element and so cannot be defaulted: a default would give every
 * element the same name, or every link the same end. */
static void check_identity_keys(struct builder *b, const char *section, const struct cfg_node *m)
{
    static const char *const identity[] = {"name", "a", "b"};
    if (m->kind != CFG_MAP)
        return; /* reported by the decoder */
    for (size_t i = 0; i < ARRAY_LEN(identity); i++) {
        if (i > 0 && strcmp(section, "link") != 0)
            break;
        if (!cfg_get(m, identity[i]))
            continue;
        build_error(b, cfg_key_loc(m, identity[i]),
                    "defaults.%s: '%s' identifies one %s and cannot be defaulted", section,
                    identity[i], section);
    }
}

void build_check_defaults(struct builder *b)
{
    const struct cfg_node *m = b->sc->cfg.defaults;
    if (!m)
        return;
    if (m->kind != CFG_MAP) {
        build_error(b, m->loc, "'defaults' must be a map");
        return;
    }
    for (size_t k = 0; k < m->n; k++) {
        size_t i;
        for (i = 0; i < BUILD_NSECTIONS; i++) {
            if (strcmp(m->keys[k], default_sections[i]) == 0)
                break;
        }
        if (i < BUILD_NSECTIONS) {
            b->def[i] = m->items[k];
            check_identity_keys(b, default_sections[i], m->items[k]);
            continue;
        }
        const char *hint = param_suggest(m->keys[k], default_sections, BUILD_NSECTIONS);
        build_error(b, m->key_locs[k], "unknown section '%s' in defaults%s%s%s", m->keys[k],
                    hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    }
}

int build_decode(struct builder *b, const struct param_def *defs, size_t n, const char *section,
                 const struct cfg_node *gen, const struct cfg_node *own, void *out,
                 const char *what)
{
    param_defaults(defs, n, out);
    char dwhat[64]; /* errors in a shared section read the same for every element */
    snprintf(dwhat, sizeof(dwhat), "defaults.%s", section);
    int e = param_apply(b->d, defs, n, build_defaults(b, section), out, dwhat);
    e += param_apply(b->d, defs, n, gen, out, what);
    e += param_apply(b->d, defs, n, own, out, what);
    return e;
}

void build_unknown_node(struct builder *b, struct src_loc loc, const char *name,
                        const char *role)
{
    const char **all = xmalloc((b->topo.nnodes + 1) * sizeof(*all));
    for (size_t i = 0; i < b->topo.nnodes; i++)
        all[i] = b->topo.nodes[i].name;
    const char *hint = param_suggest(name, all, b->topo.nnodes);
    if (hint)
        build_error(b, loc, "%s '%s' is not a declared host or switch (did you mean '%s'?)", role,
                    name, hint);
    else
        build_error(b, loc, "%s '%s' is not a declared host or switch", role, name);
    free(all);
}

struct node *build_node(const struct builder *b, const char *name)
{
    uint32_t i;
    if (!b->names_ready || !b->sc->nodes || !strmap_get(&b->names, name, &i))
        return NULL;
    return b->sc->nodes[i];
}

bool build_declared(const struct builder *b, const char *name)
{
    uint32_t i;
    return !b->names_ready || strmap_get(&b->names, name, &i);
}

static void register_names(struct builder *b)
{
    strmap_init(&b->names, b->topo.nnodes);
    b->names_ready = true;
    for (size_t i = 0; i < b->topo.nnodes; i++) {
        const struct decl_node *n = &b->topo.nodes[i];
        if (!strmap_put(&b->names, n->name, (uint32_t)i)) {
            uint32_t first = 0;
            strmap_get(&b->names, n->name, &first);
            struct src_loc fl = b->topo.nodes[first].loc;
            build_error(b, n->loc, "duplicate name '%s' (first declared at %s:%d:%d)", n->name,
                        fl.file, fl.line, fl.col);
        }
    }
}

static const char *decl_kind_name(enum decl_kind k)
{
    return k == DECL_HOST ? "host" : "switch";
}

/* Decodes, checks and creates the node of declaration i. */
static void create_node(struct builder *b, size_t i)
{
    struct scenario *sc = b->sc;
    const struct decl_node *dn = &b->topo.nodes[i];
    const char *kind = decl_kind_name(dn->kind);
    size_t k = 0;
    const struct registry_node_kind *rk = registry_node_kind(kind, &k);
    SIM_ASSERT(rk && k < SCENARIO_MAX_KINDS);
    const struct node_ops *ops = rk->ops;
    b->kind_of[i] = k;
    b->where[i] = (struct param_layers){{dn->map, dn->gen, build_defaults(b, kind)}, dn->loc};
    void *cfg = xcalloc(1, ops->cfg_size);
    char what[300];
    snprintf(what, sizeof(what), "%s '%s'", kind, dn->name);
    if (build_decode(b, ops->params, *ops->nparams, kind, dn->gen, dn->map, cfg, what) ||
        (ops->check && ops->check(cfg, &b->where[i], dn->name, b->d))) {
        b->errors++;
        param_free(ops->params, *ops->nparams, cfg);
        free(cfg);
        return;
    }
    struct node_env env = {sc->sim, b->d, sc->doc->file, sc->kind_shared[k], sc->p4_cache};
    sc->nodes[i] = ops->create(&env, dn->name, (uint32_t)i, cfg);
    free(cfg);
}

void build_nodes(struct builder *b)
{
    struct scenario *sc = b->sc;
    register_names(b);
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        const struct node_ops *ops = registry_node_kinds[k].ops;
        sc->kind_shared[k] = ops->shared_create ? ops->shared_create() : NULL;
    }
    sc->nodes = arena_calloc(&sc->mem, b->topo.nnodes + 1, sizeof(*sc->nodes));
    b->kind_of = xcalloc(b->topo.nnodes + 1, sizeof(*b->kind_of));
    b->where = xcalloc(b->topo.nnodes + 1, sizeof(*b->where));
    /* nodes[] is indexed by declaration: a declaration with errors leaves a NULL hole, and
     * the later stages only check after this stage when there is one */
    sc->nnodes = (uint32_t)b->topo.nnodes;
    for (size_t i = 0; i < b->topo.nnodes; i++)
        create_node(b, i);
}

void build_links(struct builder *b)
{
    for (size_t i = 0; i < b->topo.nlinks; i++) {
        const struct decl_link *dl = &b->topo.links[i];
        struct link_spec spec;
        char what[300];
        /* a generated link has only the topology's shared spec: its errors are named after
         * that spec, so they are reported once, not once per generated link */
        if (dl->map)
            snprintf(what, sizeof(what), "link %s-%s", dl->a, dl->b);
        else
            snprintf(what, sizeof(what), "the topology's links");
        if (build_decode(b, link_params, link_nparams, "link", dl->gen, dl->map, &spec, what)) {
            b->errors++;
            continue;
        }
        link_cfg_finish(&spec.cfg, cfg_get(dl->map, "overhead") || cfg_get(dl->gen, "overhead") ||
                                       cfg_get(build_defaults(b, "link"), "overhead"));
        bool ka = build_declared(b, dl->a);
        bool kb = build_declared(b, dl->b);
        if (!ka)
            build_unknown_node(b, dl->a_loc, dl->a, "link end");
        if (!kb)
            build_unknown_node(b, dl->b_loc, dl->b, "link end");
        if (strcmp(dl->a, dl->b) == 0) {
            build_error(b, dl->b_loc, "link connects '%s' to itself", dl->a);
            continue;
        }
        struct node *na = build_node(b, dl->a);
        struct node *nb = build_node(b, dl->b);
        if (na && nb) /* else reported: an undeclared end, or a node with errors */
            node_connect(na, nb, &spec.cfg);
    }
}

/* Runs one of the per-node hooks that come after creation over every node. */
static void each_node(struct builder *b, bool finish)
{
    struct scenario *sc = b->sc;
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        struct node *n = sc->nodes[i];
        struct node_env env = {sc->sim, b->d, sc->doc->file, sc->kind_shared[b->kind_of[i]],
                               sc->p4_cache};
        int (*hook)(struct node *, const struct node_env *, const struct param_layers *) =
            finish ? n->ops->finish : n->ops->connected;
        if (hook)
            b->errors += hook(n, &env, &b->where[i]);
    }
}

/* Keys every link's arrivals (link.h) when that keeps the order of events: one delay d > 0 on
 * every link and every switch pipeline shorter than d. */
static void key_arrivals(struct scenario *sc)
{
    sim_time_t d = -1;
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        struct node *n = sc->nodes[i];
        for (uint32_t k = 0; n && k < n->nports; k++) {
            sim_time_t dk = n->ports[k]->tx.cfg.delay_ps;
            if ((d >= 0 && dk != d) || dk == 0)
                return;
            d = dk;
        }
    }
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        const struct sw *sw = sc->nodes[i] ? switch_of(sc->nodes[i]) : NULL;
        if (sw && sw->pipe.delay_ps >= d)
            return;
    }
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        for (uint32_t k = 0; sc->nodes[i] && k < sc->nodes[i]->nports; k++)
            link_key_arrivals(&sc->nodes[i]->ports[k]->tx);
    }
}

void build_connected(struct builder *b)
{
    each_node(b, false);
    key_arrivals(b->sc);
}

void build_routes(struct builder *b)
{
    routing_compute(b->sc->nodes, b->sc->nnodes, b->topo.hier_addrs);
}

void build_finish(struct builder *b)
{
    each_node(b, true);
}
