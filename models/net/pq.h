/* A port's egress queues: up to 8 priority classes of intrusive packet FIFOs with byte and packet
 * counts, served by strict priority (higher class first) or deficit round robin (per-class
 * weights × quantum). Pure data structure: admission (limits, shared buffer), ECN marking and
 * statistics belong to the owner (switch traffic manager, host NIC). */
#ifndef SIM_MODELS_NET_PQ_H
#define SIM_MODELS_NET_PQ_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/link.h"
#include "models/net/pkt.h"

#define PQ_MAX_PRIO 8

enum pq_sched {
    PQ_SCHED_STRICT = 0,
    PQ_SCHED_DRR = 1,
};

struct pq_class {
    struct pkt_fifo fifo;
    uint64_t bytes;
    uint32_t pkts;
};

/* The fields every enqueue and dequeue reads come first: 24 bytes, so with the first class
 * they fill one cache line when the pq is 64-byte aligned (the traffic manager's ports are);
 * `busy` spares a dequeue the walk over every class's head. DRR state is last. */
struct pq {
    uint8_t nprio;
    uint8_t sched;   /* enum pq_sched */
    uint8_t drr_cur; /* DRR: class whose turn it is */
    bool by_tc;      /* classify by p->tc (NIC queues) instead of p->qclass (switch queues) */
    uint8_t busy;    /* bit i: class i holds packets */
    int8_t framing;  /* of the link it feeds (enum link_framing, pq_attach): bytes count what
                      * its device holds; PQ_NO_DEVICE: the packet's size_bytes */
    uint32_t pkts;
    uint32_t quantum_bytes;
    uint64_t bytes; /* all classes */
    struct pq_class cls[PQ_MAX_PRIO];
    uint32_t weight[PQ_MAX_PRIO];  /* DRR: quantum multiplier of each class */
    int64_t deficit[PQ_MAX_PRIO];  /* DRR: bytes a class may still send in its turn */
};

#define PQ_NO_DEVICE (-1)

/* Bytes a queued packet takes in q (what the device of q's link holds). */
static inline uint32_t pq_pkt_bytes(const struct pq *q, const struct pkt *p)
{
    if (q->framing == PQ_NO_DEVICE)
        return p->size_bytes;
    return link_framing_bytes(q->framing, p->size_bytes);
}

/* q feeds a link of configuration `dev`: its bytes count what the link's device holds (its
 * framing is kept in q's first line, so an enqueue reads no line of the link). */
static inline void pq_attach(struct pq *q, const struct link_cfg *dev)
{
    q->framing = (int8_t)dev->framing;
}

void pq_init(struct pq *q, uint8_t nprio, enum pq_sched sched, uint32_t quantum_bytes);
/* Frees every queued packet. */
void pq_fini(struct sim *sim, struct pq *q);
/* Appends p to class min(p->qclass (or p->tc), nprio-1). */
void pq_enqueue(struct pq *q, struct pkt *p);
/* pq_enqueue of a packet whose class (pq_class_of) and pq_pkt_bytes the caller has. */
static inline void pq_push(struct pq *q, struct pkt *p, uint8_t ci, uint32_t bytes)
{
    struct pq_class *c = &q->cls[ci];
    q->busy |= (uint8_t)(1u << ci);
    pkt_fifo_push(&c->fifo, p);
    c->bytes += bytes;
    c->pkts++;
    q->bytes += bytes;
    q->pkts++;
}
#define PQ_ALL 0xffu

/* Removes the next packet to send from the classes whose bit is set in `allowed` (PQ_ALL: every
 * class; PFC clears the bits of paused classes), or returns NULL when they are all empty. */
struct pkt *pq_dequeue(struct pq *q, uint8_t allowed);
/* Class a packet goes to. */
/* The queues that may send when only the traffic classes in `tc_allowed` may (PFC): a queue
 * whose head packet's class is paused is held, whatever queue it sits in (head-of-line). */
uint8_t pq_queues_allowed(const struct pq *q, uint8_t tc_allowed);

static inline uint8_t pq_class_of(const struct pq *q, const struct pkt *p)
{
    uint8_t c = q->by_tc ? p->tc : p->qclass;
    return c < q->nprio ? c : (uint8_t)(q->nprio - 1);
}
#endif
