/* The switch traffic manager: fixed function, as in hardware. Per egress port a set of priority
 * queues (struct pq); admission against a per-queue byte limit and a shared buffer; drop-tail;
 * optional ECN marking at enqueue of ECN-capable packets (single threshold, or RED-style
 * Kmin/Kmax/Pmax), measured on the queue (class) the packet joins, in bytes or packets, not
 * counting the arriving packet. Counters per port and class.
 *
 * PFC (when enabled): packets of lossless traffic classes (p->tc, the class the sender's NIC
 * gave them, not the scheduling priority) are accounted per (ingress port, class). They
 * bypass the shared-buffer and queue limits, and are admitted while their ingress account stays
 * within XOFF + headroom; the switch pauses the upstream at XOFF and resumes it at XON.
 *
 * Network blocking time (blocking.h): a packet accrues the time its egress port spends sending
 * packets of lower priority (p->prio, whatever queue they use) while it waits.
 *
 * Occupancy counts packets waiting in the queues; the packet being serialized has left its
 * queue (as in ns-3). Ties: see evq.h (an arrival at the instant of a departure is admitted
 * against the occupancy before the departure). */
#ifndef SIM_MODELS_NET_TMGR_H
#define SIM_MODELS_NET_TMGR_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/net/blocking.h"
#include "models/net/pq.h"
#include "sim/prefetch.h"

enum tmgr_ecn_mode {
    TMGR_ECN_NONE = 0,
    TMGR_ECN_THRESHOLD = 1, /* mark when the queue is at or above kmin */
    TMGR_ECN_RED = 2,       /* probability 0 below kmin, rising linearly to pmax at kmax, 1 above */
};

enum tmgr_unit {
    TMGR_UNIT_BYTES = 0,
    TMGR_UNIT_PACKETS = 1,
};

/* The settings an enqueue of a lossy packet reads first (24 bytes: with struct tmgr's shared
 * state, one cache line). */
struct tmgr_cfg {
    uint64_t buffer_bytes;      /* shared by all ports; 0 = unlimited */
    uint64_t queue_limit_bytes; /* per queue; 0 = unlimited */
    int ecn_mode;               /* enum tmgr_ecn_mode */
    bool pfc;                   /* priority flow control for the classes in pfc_classes */
    uint8_t pfc_classes;        /* bit c: class c is lossless */
    int ecn_unit;               /* enum tmgr_unit */
    int sched;                  /* enum pq_sched */
    uint64_t pfc_xoff_bytes;    /* per ingress port and class: pause upstream at or above */
    uint64_t pfc_xon_bytes;     /* resume at or below */
    uint64_t pfc_headroom_bytes; /* absorbed after XOFF; 0 = from the ingress link (auto) */
    uint64_t ecn_kmin;
    uint64_t ecn_kmax;
    double ecn_pmax;
    int64_t nprio;              /* queues per port, 1..8 */
    uint64_t drr_quantum_bytes;
};

/* What every enqueue of a class updates. */
struct tmgr_enq_stats {
    uint64_t pkts;      /* packets enqueued */
    uint64_t max_bytes; /* deepest this queue got, after an enqueue */
    uint32_t max_pkts;
};

/* Counters of a class that only drops and marks update. */
struct tmgr_stats {
    uint64_t drop_pkts;
    uint64_t drop_bytes;
    uint64_t mark_pkts;
};

/* 64-byte aligned (tmgr_init). What a packet of class 0 and priority 0 touches on its way
 * through: the queue's counters and class 0 (the first line, struct pq), then one line with the
 * class's enqueue statistics, the port's depth record and the blocking clock's first fields;
 * the other classes' statistics, PFC and P4 state last. */
struct tmgr_port {
    struct pq q;
    _Alignas(64) struct tmgr_enq_stats enq0; /* class 0 (tmgr_enq) */
    uint64_t max_bytes; /* deepest the port got (all classes) */
    uint32_t max_pkts;
    struct blocking_clock blk; /* network blocking time of packets waiting here */
    struct tmgr_enq_stats enq_hi[PQ_MAX_PRIO - 1]; /* classes 1.. (tmgr_enq) */
    struct tmgr_stats cls[PQ_MAX_PRIO];
    uint64_t ingress_bytes[PQ_MAX_PRIO]; /* lossless bytes buffered that arrived on this port */
    uint64_t headroom_bytes;             /* lossless bytes accepted past XOFF on this port */
    uint64_t headroom_drops;             /* lossless packets lost: headroom overflow */
    uint64_t p4_marks;  /* CE set by the switch's P4 program on packets leaving here (the
                         * traffic manager's own marks are in cls[].mark_pkts) */
};

/* The enqueue statistics of class c of port tp (a pointer, const when tp is). */
#define tmgr_enq(tp, c) ((c) ? &(tp)->enq_hi[(c) - 1] : &(tp)->enq0)

/* Its first line holds what every enqueue reads (64-byte aligned in struct sw). */
struct tmgr {
    struct tmgr_port *ports;
    uint64_t buffered;      /* bytes in all queues */
    uint64_t peak_buffered;
    uint32_t nports;
    struct tmgr_cfg cfg;
    gsl_rng *rng;           /* RED marking draws */
};

void tmgr_init(struct tmgr *tm, const struct tmgr_cfg *cfg, uint32_t nports, gsl_rng *rng);
void tmgr_fini(struct sim *sim, struct tmgr *tm);
/* Admits p (arrived on p->in_port) to egress port `port` or drops it (freeing it). Returns
 * true when queued. */
bool tmgr_enqueue(struct sim *sim, struct tmgr *tm, uint32_t port, struct pkt *p);
/* Next packet for port `port` from the classes set in `allowed`, or NULL. Adds its waiting
 * time to p->qdelay_ps. */
struct pkt *tmgr_dequeue(struct sim *sim, struct tmgr *tm, uint32_t port, uint8_t allowed);
/* Records that p starts on the wire now for `dur_ps` (blocking accounting). */
static inline void tmgr_note_tx(struct tmgr *tm, uint32_t port, const struct pkt *p,
                                sim_time_t now, sim_time_t dur_ps)
{
    blocking_clock_tx(&tm->ports[port].blk, p->prio, now, dur_ps);
}

/* Starts fetching port `port`'s queue line and its line of class 0's statistics, which an
 * enqueue reads one after the other (the second's place depends on the class the first gives):
 * fetched together (at scale both miss the caches). */
static inline void tmgr_prefetch(const struct tmgr *tm, uint32_t port)
{
    SIM_PREFETCH_W(&tm->ports[port].q);
    SIM_PREFETCH_W(&tm->ports[port].enq0);
}

static inline bool tmgr_lossless(const struct tmgr *tm, const struct pkt *p)
{
    return tm->cfg.pfc && ((tm->cfg.pfc_classes >> (p->tc & 7)) & 1u);
}

#endif
