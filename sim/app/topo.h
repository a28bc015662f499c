/* Topology declarations: the hosts, switches and links a scenario names, explicitly (`hosts:`,
 * `switches:`, `links:`) and from a generator (`topology:` star, dumbbell, leaf_spine,
 * fat_tree). Each declaration keeps its YAML map and location; the builder decodes parameters
 * and creates objects from them. Generated names:
 *   star        s0; h0..h(n-1)
 *   dumbbell    s0 (left), s1 (right); h0..h(left-1) on s0, then the right hosts on s1
 *   leaf_spine  leaf0.., spine0..; hosts numbered leaf by leaf
 *   fat_tree    core0.., agg<pod>_<i>, edge<pod>_<i>; k^3/4 hosts numbered edge by edge */
#ifndef SIM_SIM_APP_TOPO_H
#define SIM_SIM_APP_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/param.h"

enum decl_kind {
    DECL_HOST,
    DECL_SWITCH,
};

struct decl_node {
    char *name;
    enum decl_kind kind;
    const struct cfg_node *map; /* own parameters (explicit declarations), or NULL */
    const struct cfg_node *gen; /* parameters from the generator section, or NULL */
    struct src_loc loc;
};

struct decl_link {
    char *a;
    char *b;
    struct src_loc a_loc;
    struct src_loc b_loc;
    const struct cfg_node *map;
    const struct cfg_node *gen;
    struct src_loc loc;
};

struct topo {
    struct decl_node *nodes;
    size_t nnodes;
    size_t cap_nodes;
    struct decl_link *links;
    size_t nlinks;
    size_t cap_links;
    bool hier_addrs; /* a fabric of edge switches (leaf_spine, fat_tree): a prefix per edge
                      * switch (routing.h) */
};

struct topo_gen_cfg {
    int kind;
    int64_t hosts;
    int64_t left;
    int64_t right;
    int64_t leaves;
    int64_t spines;
    int64_t hosts_per_leaf;
    int64_t k;
    const struct cfg_node *link;   /* host links */
    const struct cfg_node *uplink; /* switch-to-switch links */
    const struct cfg_node *sw;     /* generated switches */
};

extern const struct param_def topo_params[];
extern const size_t topo_nparams;

/* Collects declarations from the scenario root. Returns the number of errors reported. */
int topo_collect(struct topo *t, const struct cfg_node *root, struct diag *d);
void topo_free(struct topo *t);

#endif
