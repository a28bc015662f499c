/* The common part of every simulated element (host, switch) and the ports that connect them.
 * A concrete model embeds struct node as its first member and provides a static const ops
 * table. A port is one side of a full-duplex link: it owns the outgoing channel (struct link)
 * and knows its peer port. Ports pull: when a port's link is idle it asks its node for the
 * next packet (ops->pull), so queues stay in the node and the link holds only what is on the
 * wire. */
#ifndef SIM_MODELS_NET_NODE_H
#define SIM_MODELS_NET_NODE_H

#include <stdint.h>

#include "models/net/link.h"
#include "models/net/pfc.h"
#include "models/net/pkt.h"
#include "sim/sim.h"

struct node;
struct port;

struct node_ops {
    const char *kind;
    /* A packet arrived on `in`; ownership passes to the node. */
    void (*receive)(struct node *n, struct port *in, struct pkt *p);
    /* The link of `out` is idle: return the next packet to send on it (ownership passes to the
     * link), or NULL when there is none. */
    struct pkt *(*pull)(struct node *n, struct port *out);
    /* Frees everything the node owns, including packets still queued. */
    void (*destroy)(struct node *n);
};

struct port {
    struct node *node;
    uint32_t index;    /* position in node->ports */
    struct port *peer; /* the other end of the link */
    struct link tx;    /* the channel from this port to the peer */
    struct pfc_rx pfc_rx; /* pauses received: classes this port may not send */
    struct pfc_tx pfc_tx; /* pauses this port sent upstream */
};

struct node {
    uint32_t id;
    char *name;
    struct sim *sim;
    const struct node_ops *ops;
    struct port **ports;
    uint32_t nports;
};

void node_init(struct node *n, struct sim *sim, const struct node_ops *ops, const char *name,
               uint32_t id);
void node_fini(struct node *n);
/* Connects a new port of `a` to a new port of `b` with the given channel parameters (both
 * directions alike). */
void node_connect(struct node *a, struct node *b, const struct link_cfg *cfg);

#endif
