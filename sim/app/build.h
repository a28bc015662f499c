/* The builder's stages, internal to sim/app: configuration tree → nodes, links, routes,
 * flows, jobs and output taps. Each stage reports every error it finds, located, and counts
 * them in b->errors. After an error the later stages still decode and check what they can
 * (parameters, names) without building on what failed, so one run reports every error of a
 * file; an element that failed is not reported again by the stages that use it. */
#ifndef SIM_SIM_APP_BUILD_H
#define SIM_SIM_APP_BUILD_H

#include "sim/app/scenario.h"
#include "sim/app/topo.h"
#include "sim/strmap.h"

#define BUILD_NSECTIONS 4 /* defaults.link, .host, .switch, .flow */

struct builder {
    struct scenario *sc;
    struct diag *d;
    struct topo topo;
    struct strmap names;   /* node name → declaration index */
    bool names_ready;      /* names is filled (the topology was collected) */
    size_t *kind_of;       /* declaration index → registry node kind */
    struct param_layers *where; /* declaration index → its configuration layers */
    const struct cfg_node *def[BUILD_NSECTIONS]; /* defaults.link, ... */
    uint64_t max_memory; /* scenario_opts.max_memory */
    int errors;
};

/* Reports a located error and counts it in b->errors. */
void build_error(struct builder *b, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* defaults.<section> ("link", "host", "switch", "flow"), or NULL. */
const struct cfg_node *build_defaults(const struct builder *b, const char *section);
/* The node a name declares, or NULL (not declared, or its declaration had errors). */
struct node *build_node(const struct builder *b, const char *name);
/* True when `name` is a declared node (even one whose declaration had errors), or when the
 * declarations are unknown because the topology had errors. */
bool build_declared(const struct builder *b, const char *name);
/* Reports that `name` (used as `role`) is no declared node, with a suggestion. */
void build_unknown_node(struct builder *b, struct src_loc loc, const char *name,
                        const char *role);
/* Decodes an element's parameters: table defaults, then defaults.<section>, then the
 * generator's section, then the element's own map. Returns the number of errors. */
int build_decode(struct builder *b, const struct param_def *defs, size_t n, const char *section,
                 const struct cfg_node *gen, const struct cfg_node *own, void *out,
                 const char *what);

/* Stages, in order. */
void build_check_defaults(struct builder *b);
void build_nodes(struct builder *b);
void build_links(struct builder *b);
void build_connected(struct builder *b);
void build_routes(struct builder *b);
void build_finish(struct builder *b);
void build_flows(struct builder *b);  /* build_flows.c */
void build_jobs(struct builder *b);   /* build_flows.c */
void build_outputs(struct builder *b); /* build_outputs.c */

#endif
