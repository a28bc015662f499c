#include "sim/app/topo.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

enum topo_kind {
    TOPO_NONE,
    TOPO_STAR,
    TOPO_DUMBBELL,
    TOPO_LEAF_SPINE,
    TOPO_FAT_TREE,
};

static const char *const kind_names[] = {"none", "star", "dumbbell", "leaf_spine", "fat_tree",
                                         NULL};

#define TP(field) offsetof(struct topo_gen_cfg, field)
const struct param_def topo_params[] = {
    {"kind", PARAM_ENUM, TP(kind), "none", NULL, NULL, kind_names, "generator"},
    {"hosts", PARAM_INT, TP(hosts), "2", "1", "100000", NULL, "star: hosts on the switch"},
    {"left", PARAM_INT, TP(left), "1", "1", "100000", NULL, "dumbbell: hosts on s0"},
    {"right", PARAM_INT, TP(right), "1", "1", "100000", NULL, "dumbbell: hosts on s1"},
    /* Ranges a build fits in 24 GiB at their extremes: a link costs about 5 KiB (ports, traffic
     * manager, host), so 1024 x 1024 hosts and 1024 x 512 uplinks are about 8 GiB with fixed
     * routing (10,000 of each were 10^8 links). fat_tree k = 128 is 1.6 M links. */
    {"leaves", PARAM_INT, TP(leaves), "2", "1", "1024", NULL, "leaf_spine: leaf switches"},
    {"spines", PARAM_INT, TP(spines), "2", "1", "512", NULL, "leaf_spine: spine switches"},
    {"hosts_per_leaf", PARAM_INT, TP(hosts_per_leaf), "2", "1", "1024", NULL,
     "leaf_spine: hosts on each leaf"},
    {"k", PARAM_INT, TP(k), "4", "2", "128", NULL, "fat_tree: port count (even)"},
    {"link", PARAM_NODE, TP(link), PARAM_OPTIONAL, NULL, NULL, NULL,
     "link parameters of host links (rate, delay, overhead)"},
    {"uplink", PARAM_NODE, TP(uplink), PARAM_OPTIONAL, NULL, NULL, NULL,
     "link parameters of switch-to-switch links (default: as link)"},
    {"switch", PARAM_NODE, TP(sw), PARAM_OPTIONAL, NULL, NULL, NULL,
     "parameters of the generated switches"},
};
const size_t topo_nparams = ARRAY_LEN(topo_params);

static struct decl_node *add_node(struct topo *t, char *name, enum decl_kind kind,
                                  struct src_loc loc)
{
    if (t->nnodes == t->cap_nodes) {
        t->cap_nodes = t->cap_nodes ? 2 * t->cap_nodes : 32;
        t->nodes = xrealloc(t->nodes, t->cap_nodes * sizeof(*t->nodes));
    }
    struct decl_node *n = &t->nodes[t->nnodes++];
    *n = (struct decl_node){.name = name, .kind = kind, .loc = loc};
    return n;
}

static struct decl_link *add_link(struct topo *t, char *a, char *b, struct src_loc loc)
{
    if (t->nlinks == t->cap_links) {
        t->cap_links = t->cap_links ? 2 * t->cap_links : 32;
        t->links = xrealloc(t->links, t->cap_links * sizeof(*t->links));
    }
    struct decl_link *l = &t->links[t->nlinks++];
    *l = (struct decl_link){.a = a, .b = b, .a_loc = loc, .b_loc = loc, .loc = loc};
    return l;
}

static void gen_link(struct topo *t, const char *a, const char *b, const struct cfg_node *gen,
                     struct src_loc loc)
{
    struct decl_link *l = add_link(t, xstrdup(a), xstrdup(b), loc);
    l->gen = gen;
}

static void gen_switch(struct topo *t, char *name, const struct topo_gen_cfg *g,
                       struct src_loc loc)
{
    add_node(t, name, DECL_SWITCH, loc)->gen = g->sw;
}

static void gen_hosts(struct topo *t, int64_t *next, int64_t n, const char *sw,
                      const struct topo_gen_cfg *g, struct src_loc loc)
{
    for (int64_t i = 0; i < n; i++) {
        char *h = xasprintf("h%lld", (long long)(*next)++);
        add_node(t, h, DECL_HOST, loc);
        gen_link(t, h, sw, g->link, loc);
    }
}

static void generate(struct topo *t, const struct topo_gen_cfg *g, struct src_loc loc)
{
    const struct cfg_node *up = g->uplink ? g->uplink : g->link;
    int64_t next_host = 0;
    switch (g->kind) {
    case TOPO_STAR:
        gen_switch(t, xstrdup("s0"), g, loc);
        gen_hosts(t, &next_host, g->hosts, "s0", g, loc);
        break;
    case TOPO_DUMBBELL:
        gen_switch(t, xstrdup("s0"), g, loc);
        gen_switch(t, xstrdup("s1"), g, loc);
        gen_link(t, "s0", "s1", up, loc);
        gen_hosts(t, &next_host, g->left, "s0", g, loc);
        gen_hosts(t, &next_host, g->right, "s1", g, loc);
        break;
    case TOPO_LEAF_SPINE:
        for (int64_t s = 0; s < g->spines; s++)
            gen_switch(t, xasprintf("spine%lld", (long long)s), g, loc);
        for (int64_t l = 0; l < g->leaves; l++) {
            char *leaf = xasprintf("leaf%lld", (long long)l);
            gen_switch(t, leaf, g, loc);
            for (int64_t s = 0; s < g->spines; s++) {
                char spine[32];
                snprintf(spine, sizeof(spine), "spine%lld", (long long)s);
                gen_link(t, leaf, spine, up, loc);
            }
            gen_hosts(t, &next_host, g->hosts_per_leaf, leaf, g, loc);
        }
        break;
    case TOPO_FAT_TREE: {
        /* Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge and k/2 aggregation switches;
         * (k/2)^2 core switches; aggregation switch i of every pod connects to cores
         * i*k/2 .. i*k/2 + k/2 - 1; each edge switch has k/2 hosts. */
        int64_t h = g->k / 2;
        for (int64_t c = 0; c < h * h; c++)
            gen_switch(t, xasprintf("core%lld", (long long)c), g, loc);
        for (int64_t p = 0; p < g->k; p++) {
            for (int64_t i = 0; i < h; i++) {
                char *agg = xasprintf("agg%lld_%lld", (long long)p, (long long)i);
                gen_switch(t, agg, g, loc);
                for (int64_t c = 0; c < h; c++) {
                    char core[32];
                    snprintf(core, sizeof(core), "core%lld", (long long)(i * h + c));
                    gen_link(t, agg, core, up, loc);
                }
            }
            for (int64_t e = 0; e < h; e++) {
                char *edge = xasprintf("edge%lld_%lld", (long long)p, (long long)e);
                gen_switch(t, edge, g, loc);
                for (int64_t i = 0; i < h; i++) {
                    char agg[48];
                    snprintf(agg, sizeof(agg), "agg%lld_%lld", (long long)p, (long long)i);
                    gen_link(t, edge, agg, up, loc);
                }
                gen_hosts(t, &next_host, h, edge, g, loc);
            }
        }
        break;
    }
    default:
        break;
    }
}

/* Links a generator would make (every node but the star's switch has at least one), counted
 * before generating: leaf_spine 10,000 x 10,000 x 10,000 within the ranges makes 10^8 hosts,
 * whose declarations alone exhaust memory before the estimate (estimate.h) can refuse them. */
#define TOPO_MAX_GENERATED 4000000

static uint64_t planned_links(const struct topo_gen_cfg *g)
{
    uint64_t k = (uint64_t)g->k;
    switch (g->kind) {
    case TOPO_STAR:
        return (uint64_t)g->hosts;
    case TOPO_DUMBBELL:
        return (uint64_t)g->left + (uint64_t)g->right + 1;
    case TOPO_LEAF_SPINE:
        return (uint64_t)g->leaves * ((uint64_t)g->spines + (uint64_t)g->hosts_per_leaf);
    case TOPO_FAT_TREE:
        return 3 * k * k * k / 4; /* hosts, edge-agg and agg-core: k^3/4 each */
    default:
        return 0;
    }
}

static int collect_nodes(struct topo *t, const struct cfg_node *seq, enum decl_kind kind,
                         const char *section, struct diag *d)
{
    if (!seq)
        return 0;
    if (seq->kind != CFG_SEQ) {
        diag_error(d, seq->loc, "'%s' must be a list", section);
        return 1;
    }
    int errors = 0;
    for (size_t i = 0; i < seq->n; i++) {
        const struct cfg_node *m = seq->items[i];
        const struct cfg_node *name = cfg_get(m, "name");
        if (m->kind != CFG_MAP || !name || name->kind != CFG_SCALAR || !name->str[0]) {
            diag_error(d, m->loc, "each entry of '%s' needs a 'name'", section);
            errors++;
            continue;
        }
        add_node(t, xstrdup(name->str), kind, name->loc)->map = m;
    }
    return errors;
}

static int collect_links(struct topo *t, const struct cfg_node *seq, struct diag *d)
{
    if (!seq)
        return 0;
    if (seq->kind != CFG_SEQ) {
        diag_error(d, seq->loc, "'links' must be a list");
        return 1;
    }
    int errors = 0;
    for (size_t i = 0; i < seq->n; i++) {
        const struct cfg_node *m = seq->items[i];
        const struct cfg_node *a = cfg_get(m, "a");
        const struct cfg_node *b = cfg_get(m, "b");
        if (m->kind != CFG_MAP || !a || !b || a->kind != CFG_SCALAR || b->kind != CFG_SCALAR) {
            diag_error(d, m->loc, "each link needs ends 'a' and 'b' (node names)");
            errors++;
            continue;
        }
        struct decl_link *l = add_link(t, xstrdup(a->str), xstrdup(b->str), m->loc);
        l->a_loc = a->loc;
        l->b_loc = b->loc;
        l->map = m;
    }
    return errors;
}

int topo_collect(struct topo *t, const struct cfg_node *root, struct diag *d)
{
    memset(t, 0, sizeof(*t));
    int errors = 0;
    const struct cfg_node *gen = cfg_get(root, "topology");
    if (gen) {
        struct topo_gen_cfg g;
        int e = param_decode(d, topo_params, topo_nparams, gen, &g, "topology");
        if (e == 0 && g.kind == TOPO_FAT_TREE && g.k % 2) {
            diag_error(d, cfg_get(gen, "k")->loc, "fat_tree: k must be even, got %lld",
                       (long long)g.k);
            e++;
        }
        if (e == 0 && planned_links(&g) > TOPO_MAX_GENERATED) {
            diag_error(d, gen->loc,
                       "this %s would have %llu links; generators make at most %d (the memory "
                       "estimate refuses far fewer on most machines)",
                       kind_names[g.kind], (unsigned long long)planned_links(&g),
                       TOPO_MAX_GENERATED);
            e++;
        }
        errors += e;
        if (e == 0)
            generate(t, &g, gen->loc);
        t->hier_addrs = e == 0 && (g.kind == TOPO_LEAF_SPINE || g.kind == TOPO_FAT_TREE);
    }
    errors += collect_nodes(t, cfg_get(root, "hosts"), DECL_HOST, "hosts", d);
    errors += collect_nodes(t, cfg_get(root, "switches"), DECL_SWITCH, "switches", d);
    errors += collect_links(t, cfg_get(root, "links"), d);
    return errors;
}

void topo_free(struct topo *t)
{
    for (size_t i = 0; i < t->nnodes; i++)
        free(t->nodes[i].name);
    for (size_t i = 0; i < t->nlinks; i++) {
        free(t->links[i].a);
        free(t->links[i].b);
    }
    free(t->nodes);
    free(t->links);
    memset(t, 0, sizeof(*t));
}
