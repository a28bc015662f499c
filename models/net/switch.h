/* A switch: ports → pipeline latency → forwarding stage → traffic manager → egress links.
 * The forwarding stage is a replaceable hook: today a routing table that the scenario builder
 * fills with shortest paths (ECMP by flow hash among equal-cost next hops); a P4 pipeline takes
 * its place without touching the traffic manager. */
#ifndef SIM_MODELS_NET_SWITCH_H
#define SIM_MODELS_NET_SWITCH_H

#include <stdint.h>

#include "models/net/delayline.h"
#include "models/net/node.h"
#include "models/net/tmgr.h"
#include "sim/param.h"

struct sw;

enum switch_routes {
    SWITCH_ROUTES_AUTO = 0, /* install if the program has the route table */
    SWITCH_ROUTES_ON = 1,   /* install; an error if the table is missing */
    SWITCH_ROUTES_OFF = 2,
};

struct switch_cfg {
    const char *name;
    sim_time_t latency_ps; /* ingress to traffic manager */
    struct tmgr_cfg tm;
    const struct cfg_node *weights;     /* DRR weights per class (list of integers) */
    const struct cfg_node *pfc_classes; /* lossless classes (list), default all */
    /* P4 (p4switch.h) */
    const char *program; /* "basic", "tensorexpress", a .p4 path, or "none" (fixed routing) */
    const struct cfg_node *p4_tables;
    const struct cfg_node *p4_defaults;
    const struct cfg_node *p4_registers;
    const struct cfg_node *p4_multicast;
    const struct cfg_node *p4_mirror;
    int routes; /* enum switch_routes */
    const char *route_table;
    const char *route_key;
    const char *route_action;
    const char *route_port_arg;
    const char *route_mac_arg;
    int timestamps; /* 0: µs (bmv2), 1: ns */
};

/* The forwarding stage: fixed routing (shortest paths, ECMP) or a P4 pipeline (p4switch.h).
 * ingress decides where a packet goes and hands each copy to switch_enqueue (setting
 * p->qclass), or frees it. egress (optional) runs when a packet leaves its queue, before the
 * wire: it returns the packet, possibly rewritten, or NULL once it dropped or re-injected it. */
struct switch_stage_ops {
    void (*ingress)(struct sw *sw, struct pkt *p);
    struct pkt *(*egress)(struct sw *sw, uint32_t port, struct pkt *p);
    void (*destroy)(struct sw *sw);
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
    const struct switch_stage_ops *stage;
    void *stage_ud; /* the stage's state (struct p4switch) */
    struct switch_route *routes; /* indexed by destination host index */
    uint32_t nroutes;
    uint32_t routes_cap;
    uint32_t *nexthops;
    uint32_t nnexthops;
    uint32_t nexthops_cap;
    uint32_t salt; /* ECMP hash salt */
    uint64_t rx_pkts;
    uint64_t no_route_drops; /* no route, or a port the switch does not have */
    uint64_t egress_drops;   /* dropped by the egress stage (P4) */
};

extern const struct param_def switch_params[];
extern const size_t switch_nparams;

struct sw *switch_create(struct sim *sim, const char *name, uint32_t id,
                         const struct switch_cfg *cfg);
/* Sets up the traffic manager once every link is connected. */
void switch_finish_ports(struct sw *sw);
/* Admits p to egress port `port` (traffic manager, PFC) and starts the port's link. Takes
 * ownership; an out-of-range port drops the packet. */
void switch_enqueue(struct sw *sw, uint32_t port, struct pkt *p);
/* Sends p through the ingress pipeline again (P4 recirculation), after the pipeline latency. */
void switch_reinject(struct sw *sw, struct pkt *p);
/* Installs a forwarding stage in place of fixed routing (before the run). */
void switch_set_stage(struct sw *sw, const struct switch_stage_ops *ops, void *ud);
/* Routing table: next hops of destination host `host` (port indexes). */
void switch_set_route(struct sw *sw, uint32_t host, const uint32_t *ports, uint32_t n);

static inline struct sw *switch_of(struct node *n)
{
    return (struct sw *)n;
}

bool node_is_switch(const struct node *n);

#endif
