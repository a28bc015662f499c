/* The common part of every simulated element (host, switch), the ports that connect them, and
 * the plug-in table of a node kind. A concrete model embeds struct node as its first member and
 * provides one static const struct node_ops, listed once in the top layer's registry; the
 * builder and the report reach a node only through that table.
 *
 * A port is one side of a full-duplex link: it owns the outgoing channel (struct link) and knows
 * its peer port. Ports pull: when a port's link is idle it asks its node for the next packet
 * (ops->pull), so queues stay in the node and the link holds only what is on the wire. */
#ifndef SIM_MODELS_NET_NODE_H
#define SIM_MODELS_NET_NODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "models/net/link.h"
#include "models/net/pfc.h"
#include "models/net/pkt.h"
#include "sim/param.h"
#include "sim/sim.h"

struct node;
struct p4_cache;
struct port;
struct host;
struct route_set;

/* What a kind's build hooks get from the builder. `shared` is the kind's state for this
 * scenario (ops->shared_create), e.g. the P4 programs loaded once for every switch. */
struct node_env {
    struct sim *sim;
    struct diag *d;
    const char *scenario_file; /* for paths relative to the scenario */
    void *shared;
    struct p4_cache *p4_cache; /* the caller's loaded P4 programs (sweep workers), or NULL */
};

struct node_ops {
    const char *kind;    /* "host", "switch": the YAML section and `describe` name */
    const char *summary; /* one line for `describe` */
    const struct param_def *params;
    const size_t *nparams;
    size_t cfg_size; /* the kind's config struct, filled from params */

    /* --- building (in this order) --- */
    /* Kind state shared by the scenario's nodes of this kind (optional). */
    void *(*shared_create)(void);
    void (*shared_destroy)(void *shared);
    /* Checks a decoded config beyond its table's ranges; reports at `where`; returns the number
     * of errors. Optional. */
    int (*check)(const void *cfg, const struct param_layers *where, const char *name,
                 struct diag *d);
    /* Creates the node; takes over the config's allocated parts (param_free). */
    struct node *(*create)(const struct node_env *env, const char *name, uint32_t id,
                           const void *cfg);
    /* Every link is connected: set up per-port state, check the port count. Optional. */
    int (*connected)(struct node *n, const struct node_env *env,
                     const struct param_layers *where);
    /* Routes are computed: last setup (a switch's P4 program and its entries). Optional. */
    int (*finish)(struct node *n, const struct node_env *env, const struct param_layers *where);
    /* A node that forwards returns the route set routing fills; NULL otherwise. Optional. */
    struct route_set *(*routes)(struct node *n);

    /* --- running --- */
    /* A packet arrived on `in`; ownership passes to the node. */
    void (*receive)(struct node *n, struct port *in, struct pkt *p);
    /* The link of `out` is idle: return the next packet to send on it (ownership passes to the
     * link), or NULL when there is none. */
    struct pkt *(*pull)(struct node *n, struct port *out);
    /* Whether pull on `out` would return NULL without any effect until the port's link is
     * kicked again (nothing queued for it, no source to ask). Optional: the link folds the end
     * of a transmission (link.h) only when the node says so. */
    bool (*idle)(const struct node *n, const struct port *out);
    /* Frees everything the node owns, including packets still queued. */
    void (*destroy)(struct node *n);

    /* --- reporting --- */
    /* Fills the node's summary.json object (name is set already). */
    void (*stats_json)(const struct node *n, json_t *obj, sim_time_t end);
    /* Packets the node lost, by any cause (summary.json total_drops). */
    uint64_t (*drops)(const struct node *n);
    /* The files the kind's shared state was loaded from (provenance in summary.json): calls
     * note(ud, role, path) for each. Optional. */
    void (*shared_inputs)(const void *shared, void (*note)(void *ud, const char *role,
                                                            const char *path), void *ud);
    /* Lines of the human summary; `header` is false until a node of the kind printed its
     * table's header. */
    void (*print)(const struct node *n, FILE *out, sim_time_t end, bool *header);
    /* Queue length waiting at port `port` (queues.csv); NULL for kinds without queues. */
    void (*queue_len)(const struct node *n, uint32_t port, uint64_t *bytes, uint32_t *pkts);
};

/* 64-byte aligned: the node, the index and the link's first three lines (link.h) are what a
 * packet's events read, in the port's first three lines; an arrival reads only the sending
 * port's third line. */
struct port {
    struct node *node;
    uint32_t index;    /* position in node->ports */
    bool pfc_heard;    /* a PAUSE frame arrived here (pulls then ask which classes may send) */
    struct link tx;    /* the channel from this port to the peer */
    struct port *peer; /* the other end of the link */
    struct pfc_rx pfc_rx; /* pauses received: classes this port may not send */
    struct pfc_tx pfc_tx; /* pauses this port sent upstream */
};

/* 40 bytes: a switch or host keeps its hottest fields in the rest of the node's line. */
struct node {
    uint32_t id;
    uint32_t nports;
    char *name;
    struct sim *sim;
    const struct node_ops *ops;
    struct port **ports;
};

void node_init(struct node *n, struct sim *sim, const struct node_ops *ops, const char *name,
               uint32_t id);
void node_fini(struct node *n);
/* Connects a new port of `a` to a new port of `b` with the given channel parameters (both
 * directions alike). */
void node_connect(struct node *a, struct node *b, const struct link_cfg *cfg);
/* The host a node is, or NULL (flows and jobs run between hosts). */
struct host *node_host(struct node *n);

#endif
