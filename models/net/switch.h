/* A switch: ports → pipeline latency → forwarding stage → traffic manager → egress links.
 * The forwarding stage is a replaceable hook: the fixed stage forwards by the route set routing
 * fills (ECMP by flow hash among equal-cost next hops; queue = the packet's traffic class or
 * its scheduling priority, `queue_by`); a P4
 * pipeline (p4switch.h) takes its place without touching the traffic manager. The kind's
 * plug-in table is switch_node_ops (builder and report hooks; statistics in switch_report.c). */
#ifndef SIM_MODELS_NET_SWITCH_H
#define SIM_MODELS_NET_SWITCH_H

#include <stdint.h>

#include "models/net/delayline.h"
#include "models/net/node.h"
#include "models/net/routing.h"
#include "models/net/tmgr.h"
#include "sim/param.h"

struct sw;

enum switch_routes {
    SWITCH_ROUTES_AUTO = 0, /* install if the program has the route table */
    SWITCH_ROUTES_ON = 1,   /* install; an error if the table is missing */
    SWITCH_ROUTES_OFF = 2,
};

/* P4 configuration entries (decoded by the parameter tables of switch.c). */
struct p4switch_entry {      /* tables: and default_actions: */
    const char *table;
    struct param_vec key;    /* struct param_kv: key field -> value (tables only) */
    const char *action;
    struct param_vec args;   /* struct param_kv: action parameter -> value */
    int64_t priority;        /* -1: none given */
};
struct p4switch_register {   /* registers: */
    const char *reg;
    int64_t index;
    int64_t value;
};
struct p4switch_mcast {      /* multicast: */
    int64_t group;
    struct param_vec ports;  /* int64_t */
    int64_t rid;
};
struct p4switch_mirror {     /* mirror: */
    int64_t session;
    int64_t port;
};

enum switch_queue_by {
    SWITCH_QUEUE_BY_CLASS = 0,    /* program none: queue = the packet's traffic class (tc) */
    SWITCH_QUEUE_BY_PRIORITY = 1, /* queue = its scheduling priority (prio; the DDL shim's) */
};

struct switch_cfg {
    const char *name;
    sim_time_t latency_ps; /* ingress to traffic manager */
    struct tmgr_cfg tm;
    struct param_vec weights;     /* DRR weight per class (int64_t) */
    struct param_vec pfc_classes; /* lossless classes (int64_t); not given: all */
    /* P4 (p4switch.h) */
    const char *program; /* "basic", "tensorexpress", a .p4 path, or "none" (fixed routing) */
    int queue_by;        /* enum switch_queue_by: the fixed stage's queue choice */
    struct param_vec p4_tables;    /* struct p4switch_entry */
    struct param_vec p4_defaults;  /* struct p4switch_entry (no key) */
    struct param_vec p4_registers; /* struct p4switch_register */
    struct param_vec p4_multicast; /* struct p4switch_mcast */
    struct param_vec p4_mirror;    /* struct p4switch_mirror */
    int routes; /* enum switch_routes */
    const char *route_table;
    const char *route_key;
    const char *route_action;
    const char *route_port_arg;
    const char *route_mac_arg;
    int timestamps; /* 0: µs (bmv2), 1: ns */
    int64_t sram_stages;      /* register memory: stages x sram_stage_bytes */
    uint64_t sram_stage_bytes;
    int p4_exec;    /* enum p4_exec */
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

/* 64-byte aligned. What a packet's hop reads of the switch is in its first three lines: the
 * node, the stage, the ECMP salt and hot copies of two settings (line 0); the routes and the
 * receive counter (line 1); the traffic manager's shared state and the settings its admission
 * reads (line 2, tmgr.h). The configuration and the rarer counters come after. */
struct sw {
    struct node node;
    const struct switch_stage_ops *stage;
    void *stage_ud;    /* the stage's state (struct p4switch) */
    uint32_t salt;     /* ECMP hash salt */
    uint8_t queue_by;  /* cfg.queue_by */
    bool pipelined;    /* cfg.latency_ps > 0: packets pass the delay line `pipe` */
    struct route_set routes; /* next hops by destination host index */
    uint64_t rx_pkts;
    uint64_t no_route_drops; /* no route, or a port the switch does not have */
    _Alignas(64) struct tmgr tm;
    struct delayline pipe;
    struct switch_cfg cfg;
    uint64_t ingress_drops;  /* dropped by the ingress stage (P4 mark_to_drop, no egress) */
    uint64_t egress_drops;   /* dropped by the egress stage (P4) */
    uint64_t p4_limit_drops; /* P4: deparsed headers too large for a packet, or too many
                              * resubmits / recirculations */
};

extern const struct node_ops switch_node_ops;

/* Admits p to egress port `port` (traffic manager, PFC) and starts the port's link. Takes
 * ownership; an out-of-range port drops the packet. */
void switch_enqueue(struct sw *sw, uint32_t port, struct pkt *p);
/* Sends p through the ingress pipeline again (P4 recirculation), after the pipeline latency. */
void switch_reinject(struct sw *sw, struct pkt *p);
/* Installs a forwarding stage in place of fixed routing (before the run). */
void switch_set_stage(struct sw *sw, const struct switch_stage_ops *ops, void *ud);
/* The switch a node is, or NULL. */
static inline struct sw *switch_of(struct node *n)
{
    return n->ops == &switch_node_ops ? (struct sw *)n : NULL;
}

#endif
