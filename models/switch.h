/* A switch: ports → pipeline latency → forwarding stage → traffic manager → egress links.
 * The forwarding stage is a replaceable hook: today a routing table that the scenario builder
 * fills with shortest paths (ECMP by flow hash among equal-cost next hops); a P4 pipeline takes
 * its place without touching the traffic manager. */
#ifndef SIM_MODELS_SWITCH_H
#define SIM_MODELS_SWITCH_H

#include <stdint.h>

#include "models/delayline.h"
#include "models/node.h"
#include "models/tmgr.h"
#include "sim/param.h"

struct sw;

struct switch_cfg {
    const char *name;
    sim_time_t latency_ps; /* ingress to traffic manager */
    struct tmgr_cfg tm;
    const struct cfg_node *weights;     /* DRR weights per class (list of integers) */
    const struct cfg_node *pfc_classes; /* lossless classes (list), default all */
};

/* Decides where a packet goes: an egress port index, or -1 to drop. May rewrite headers and
 * set p->prio (the queue). */
struct switch_stage {
    int (*ingress)(struct sw *sw, uint32_t in_port, struct pkt *p, void *ud);
    void *ud;
};

struct switch_route {
    uint32_t first; /* into nexthops */
    uint32_t n;     /* equal-cost next hops; 0 = unreachable */
};

struct sw {
    struct node node;
    struct switch_cfg cfg;
    struct tmgr tm;
    struct delayline pipe;
    struct switch_stage stage;
    struct switch_route *routes; /* indexed by destination host index */
    uint32_t nroutes;
    uint32_t *nexthops;
    uint32_t nnexthops;
    uint32_t salt; /* ECMP hash salt */
    uint64_t rx_pkts;
    uint64_t no_route_drops;
};

extern const struct param_def switch_params[];
extern const size_t switch_nparams;

struct sw *switch_create(struct sim *sim, const char *name, uint32_t id,
                         const struct switch_cfg *cfg);
/* Sets up the traffic manager once every link is connected. */
void switch_finish_ports(struct sw *sw);
/* Routing table: next hops of destination host `host` (port indexes). */
void switch_set_route(struct sw *sw, uint32_t host, const uint32_t *ports, uint32_t n);

static inline struct sw *switch_of(struct node *n)
{
    return (struct sw *)n;
}

bool node_is_switch(const struct node *n);

#endif
