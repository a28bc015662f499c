/* A host: one NIC port with a transmit queue and the endpoints of applications. The NIC serves
 * its traffic classes (p->tc) by strict priority, higher first, skipping classes PFC paused.
 * Within a class it sends queued packets first, then pulls from that class's backlogged
 * sources round robin — a source that can always send (a burst at line rate) is asked for one
 * packet each time the link frees, so nothing is queued ahead of the wire. Packets accrue
 * network blocking time (blocking.h) while the NIC sends lower-priority packets; a source's
 * next packet waits from the moment the source was ready. Received packets are delivered to the
 * endpoint bound to their UDP/TCP destination port. */
#ifndef SIM_MODELS_NET_HOST_H
#define SIM_MODELS_NET_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/blocking.h"
#include "models/net/hostcpu.h"
#include "models/net/node.h"
#include "models/net/pq.h"
#include "sim/param.h"

struct host;

/* A backlogged sender the NIC pulls from. next_pkt returns NULL when it has nothing more to
 * send now; it is then dropped from the rotation until host_activate adds it again. */
struct nic_source {
    struct nic_source *next;
    struct pkt *(*next_pkt)(struct nic_source *s, struct host *h);
    bool active;
    uint8_t prio; /* class of its packets: a PFC pause of this class holds the source */
    sim_time_t blk_mark[BLOCKING_NPRIO]; /* the NIC's blocking clocks when it became ready */
};

struct endpoint {
    uint16_t port;
    void (*recv)(struct endpoint *ep, struct host *h, struct pkt *p); /* takes ownership */
};

struct host_cfg {
    const char *name;
    uint64_t nic_buffer_bytes; /* 0 = unlimited */
    int64_t nic_prio;
    int64_t cpu_cores; /* cores for message-layer software costs */
};

/* A class's backlogged sources, first to last. */
struct nic_rotation {
    struct nic_source *head;
    struct nic_source *tail;
};

/* 64-byte aligned (host_create). What a packet's events read, line by line: the node, address
 * and endpoint table (line 0); the rotation of class 0's sources (line 1); the NIC's blocking
 * clock's first fields (line 3); the NIC buffer's limit and the receive counter (line 4); the
 * NIC queue's counters and class 0 (line 6, struct pq); the CPU model last. */
struct host {
    struct node node;
    uint32_t index; /* host number (declaration order) */
    uint32_t ip;    /* flat (index + 1) until routing_compute assigns it (routing.h) */
    struct endpoint **ep_tab; /* open addressing by port; capacity a power of two */
    uint32_t ep_cap;
    uint8_t src_busy;       /* bit c: class c has backlogged sources (src[c]) */
    _Alignas(64) struct nic_rotation src[PQ_MAX_PRIO]; /* by class */
    struct blocking_clock nic_blk;
    struct host_cfg cfg;
    uint64_t rx_pkts;
    uint64_t nic_drops;
    uint64_t rx_unclaimed; /* no endpoint on the destination port */
    uint32_t nep;
    uint16_t next_port;
    uint16_t next_ddl_port; /* DDL streams' source ports: 0xDD00 + n */
    _Alignas(64) struct pq nic;
    struct hostcpu cpu;
};

extern const struct node_ops host_node_ops;

/* A host with address index `index` (the builder goes through host_node_ops, which numbers
 * hosts in declaration order). */
struct host *host_create(struct sim *sim, const char *name, uint32_t id, uint32_t index,
                         const struct host_cfg *cfg);
/* The host a node is, or NULL. */
static inline struct host *host_of(struct node *n)
{
    return n->ops == &host_node_ops ? (struct host *)n : NULL;
}

/* Queues p on the NIC (dropping it when the NIC buffer is full) and starts the link. */
void host_send(struct host *h, struct pkt *p);
/* Adds a source to the NIC's rotation (no-op if already there) and starts the link. */
void host_activate(struct host *h, struct nic_source *s);
/* Binds an endpoint to a free port (from 10000 up) and returns the port. */
uint16_t host_bind(struct host *h, struct endpoint *ep);
/* Binds an endpoint to a given port (e.g. RoCEv2's 4791); false when the port is taken. */
bool host_bind_port(struct host *h, struct endpoint *ep, uint16_t port);
/* Removes an endpoint (no-op if it is not bound). */
void host_unbind(struct host *h, struct endpoint *ep);
/* The endpoint bound to `port`, or NULL. */
struct endpoint *host_endpoint(const struct host *h, uint16_t port);
/* The next source port of the DDL range 0xDD00..0xDDFF (ddl_shim.h); at most 256 per host. */
uint16_t host_ddl_port(struct host *h);

#endif
