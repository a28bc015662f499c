#include "models/net/link.h"

#include "models/net/node.h"
#include "sim/pcap.h"
#include "sim/util.h"

static const char *const link_framings[] = {"ethernet", "ppp", "none", NULL};

#define LP(field) offsetof(struct link_spec, field)
#define LC(field) (offsetof(struct link_spec, cfg) + offsetof(struct link_cfg, field))
const struct param_def link_params[] = {
    {"name", PARAM_STRING, LP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "link name"},
    {"a", PARAM_STRING, LP(a), NULL, NULL, NULL, NULL, "one end: a host or switch name"},
    {"b", PARAM_STRING, LP(b), NULL, NULL, NULL, NULL, "the other end"},
    {"rate", PARAM_RATE, LC(rate_bps), "10Gbps", "1Kbps", "100Tbps", NULL,
     "line rate, each direction"},
    {"delay", PARAM_TIME, LC(delay_ps), "1us", "0", "10s", NULL, "propagation delay"},
    {"framing", PARAM_ENUM, LC(framing), "ethernet", NULL, NULL, link_framings,
     "what devices hold and send: ethernet (frame, 60 B minimum; compare with Ethernet "
     "hardware, OMNeT++/INET), ppp (IP + 2 B; ns-3 PointToPointNetDevice), "
     "none (IP packet alone)"},
    {"overhead", PARAM_SIZE, LC(overhead_bytes), PARAM_OPTIONAL, "0", "1KB", NULL,
     "wire bytes per frame beyond what the device holds (default by framing: ethernet 24 = "
     "preamble 8 + IFG 12 + FCS 4; ppp, none 0)"},
};
const size_t link_nparams = ARRAY_LEN(link_params);

void link_cfg_finish(struct link_cfg *c, bool overhead_given)
{
    if (!overhead_given)
        c->overhead_bytes = c->framing == LINK_FRAMING_ETHERNET ? 24 : 0;
}

static void link_tx_done(struct sim *sim, struct evq_timer *t);
static void link_arrive(struct sim *sim, struct evq_timer *t);

/* The sending port (links live in ports; a link of no port is never kicked). */
static inline struct port *link_port(const struct link *l)
{
    return container_of(l, struct port, tx);
}

void link_init(struct link *l, struct port *port, const struct link_cfg *cfg)
{
    SIM_ASSERT(cfg->overhead_bytes <= UINT16_MAX); /* the parameter's range: 1 KB */
    struct port *peer = port ? port->peer : NULL;
    *l = (struct link){.cfg = *cfg,
                       .delay_ps = cfg->delay_ps,
                       .overhead = (uint16_t)cfg->overhead_bytes,
                       .framing = (int8_t)cfg->framing,
                       .peer = peer,
                       .peer_node = peer ? peer->node : NULL,
                       .peer_index = peer ? peer->index : 0};
    /* the product stays below 2^63: wire bytes < 2^33 (a 32-bit size + overhead <= 1 KB) */
    const uint64_t ps_per_bit = 1000000000000u;
    if (cfg->rate_bps && 8 * ps_per_bit % cfg->rate_bps == 0 &&
        8 * ps_per_bit / cfg->rate_bps < (1u << 30))
        l->byte_ps = (sim_time_t)(8 * ps_per_bit / cfg->rate_bps);
    evq_timer_init(&l->tx_done, link_tx_done, EVQ_PHASE_DEPART);
    evq_timer_init(&l->arrive, link_arrive, EVQ_PHASE_ARRIVAL);
    /* an arrival reads the wire's head packet: its first line and its header (pkt.h) */
    evq_timer_hint(&l->arrive, (void *const *)&l->on_wire.head,
                   1u << 0 | 1u << (offsetof(struct pkt, hdr) / 64));
    /* an end of transmission, the frame it puts on the wire */
    evq_timer_hint(&l->tx_done, (void *const *)&l->serializing, 1u << 0);
}

void link_fini(struct sim *sim, struct link *l)
{
    evq_cancel(&sim->evq, &l->tx_done);
    evq_cancel(&sim->evq, &l->arrive);
    if (l->serializing)
        pkt_free(sim, l->serializing);
    l->serializing = NULL;
    pkt_fifo_free(sim, &l->ctrl);
    l->ctrl_queued = false;
    pkt_fifo_free(sim, &l->on_wire);
}

bool link_settle(struct sim *sim, struct link *l)
{
    if (!l->folded)
        return true;
    if (!evq_passed(&sim->evq, l->free_at, EVQ_PHASE_DEPART, l->tx_seq))
        return false;
    l->folded = false;
    l->busy = false;
    evq_note_folded(&sim->evq);
    return true;
}

/* Whether the end of a transmission ending at `end` can be folded: no control frame, the node
 * idle (nothing to pull), the frame's arrival within the horizon, and either arrivals are keyed
 * (the end would schedule this frame's arrival, into the end's own place: that can be done now),
 * or the wire's last frame (arriving at `last`, wire_last) arrives after `end` (the end would do
 * nothing; at `end` itself that arrival runs first). */
static bool can_fold(const struct link *l, sim_time_t end, sim_time_t last)
{
    const struct port *port = link_port(l);
    const struct node *n = port->node;
    /* past the horizon the run stops where the end or the arrival would be scheduled */
    if (l->ctrl_queued || !n->ops->idle || end > SIM_TIME_HORIZON - l->delay_ps)
        return false;
    return (l->keyed || (l->on_wire.tail && last > end)) && n->ops->idle(n, port);
}

/* Schedules the arrival of the wire's head (at `at`), which the end of transmission `seq` put
 * there: into that end's place when arrivals are keyed. */
static void schedule_arrival_at(struct sim *sim, struct link *l, uint64_t seq, sim_time_t at)
{
    if (l->keyed)
        evq_schedule_reserved(&sim->evq, &l->arrive, at, seq);
    else
        evq_schedule(&sim->evq, &l->arrive, at);
}

static void schedule_arrival(struct sim *sim, struct link *l, uint64_t seq)
{
    schedule_arrival_at(sim, l, seq, l->on_wire.head->t_enq);
}

/* pkt.wire_gap of a frame arriving at `ahead_at`, followed by one arriving at `at`. */
static inline uint32_t wire_gap(sim_time_t ahead_at, sim_time_t at)
{
    sim_time_t gap = at - ahead_at;
    return gap < UINT32_MAX ? (uint32_t)gap : UINT32_MAX;
}

/* Puts p on the wire behind the frame ahead, which keeps the time from its own arrival to p's,
 * `gap` (wire_gap): the arrival of the frame ahead schedules p's without reading p. The frame
 * ahead is only written: its arrival is known without it (wire_last). */
static void wire_push(struct link *l, struct pkt *p, uint32_t gap)
{
    struct pkt *ahead = l->on_wire.tail;
    if (ahead)
        ahead->wire_gap = gap;
    pkt_fifo_push(&l->on_wire, p);
}

/* A folded frame goes onto the wire at its start; with keyed arrivals, its arrival is scheduled
 * as its end would have: now if the wire is empty, else when the frame ahead of it (arriving at
 * `last`) arrives. */
static void fold(struct sim *sim, struct link *l, struct pkt *p, sim_time_t last)
{
    p->t_enq = l->free_at + l->delay_ps;
    bool ahead = l->on_wire.tail && last > l->free_at;
    wire_push(l, p, wire_gap(last, p->t_enq));
    l->folded = true;
    if (ahead)
        return; /* the arrival ahead schedules p's arrival, as it would have */
    if (!evq_timer_pending(&l->arrive))
        schedule_arrival(sim, l, l->tx_seq);
    else
        l->keyed_pkt = p;
}

/* The arrival time of the wire's last frame, when the wire holds one, read at the start of a
 * transmission (before it sets free_at): frames leave in order, so that frame is the previous
 * transmission's, which went onto the wire at that transmission's end (free_at), at its end event
 * or folded, and arrives delay_ps later. Known so, a start reads no packet on the wire (at scale
 * the frame sent before is long out of the caches). */
static inline sim_time_t wire_last(const struct link *l)
{
    return simtime_add(l->free_at, l->delay_ps);
}

static void start_tx(struct sim *sim, struct link *l, struct pkt *p)
{
    uint32_t dev = link_framing_bytes(l->framing, p->size_bytes);
    sim_time_t tx = link_wire_ps(l, (uint64_t)dev + l->overhead);
    sim_time_t end = simtime_add(sim->now, tx);
    l->busy = true;
    if (!l->byte_ps) /* else link_busy_ps computes it from the counters */
        l->busy_ps += tx;
    l->tx_pkts++;
    l->tx_bytes += dev;
    if (l->tap) /* the frame with its Ethernet header, padded on an Ethernet link */
        pcap_write(l->tap, sim->now, p->hdr, p->hdr_len,
                   l->framing == LINK_FRAMING_ETHERNET ? dev : p->size_bytes);
    l->tx_seq = evq_reserve(&sim->evq);
    sim_time_t last = wire_last(l);
    l->free_at = end;
    if (can_fold(l, end, last)) {
        fold(sim, l, p, last);
        return;
    }
    l->serializing = p;
    /* the gap its end will give the frame ahead, if that is still on the wire then (until p is on
     * the wire, its wire_gap is free) */
    p->wire_gap = wire_gap(last, simtime_add(end, l->delay_ps));
    evq_schedule_reserved(&sim->evq, &l->tx_done, end, l->tx_seq);
}

void link_kick(struct sim *sim, struct link *l)
{
    if (l->busy) {
        if (!l->folded)
            return;
        if (!link_settle(sim, l)) {
            /* something to send before the folded end: the end runs in its place and pulls it */
            l->folded = false;
            evq_schedule_reserved(&sim->evq, &l->tx_done, l->free_at, l->tx_seq);
            return;
        }
    }
    /* a pull may send on this same link (a switch's PFC resume frame): the frame queues and goes
     * after the packet being pulled */
    if (l->in_pull)
        return;
    struct pkt *p = NULL;
    if (!l->ctrl_queued) {
        struct port *port = link_port(l);
        struct node *n = port->node;
        l->in_pull = true;
        p = n->ops->pull(n, port);
        l->in_pull = false;
    }
    if (!p) {
        if (!l->ctrl_queued)
            return;
        p = pkt_fifo_pop(&l->ctrl);
        l->ctrl_queued = l->ctrl.head != NULL;
    }
    start_tx(sim, l, p);
}

void link_send_ctrl(struct sim *sim, struct link *l, struct pkt *p)
{
    pkt_fifo_push(&l->ctrl, p);
    l->ctrl_queued = true;
    link_kick(sim, l);
}

static void link_tx_done(struct sim *sim, struct evq_timer *t)
{
    struct link *l = container_of(t, struct link, tx_done);
    struct pkt *p = l->serializing;
    l->busy = false;
    if (p) { /* else a folded end called back: its frame is on the wire already */
        l->serializing = NULL;
        p->t_enq = sim->now + l->delay_ps;
        wire_push(l, p, p->wire_gap); /* the gap its start found */
        if (!evq_timer_pending(&l->arrive))
            schedule_arrival(sim, l, l->tx_seq);
    }
    link_kick(sim, l);
}

static void link_arrive(struct sim *sim, struct evq_timer *t)
{
    struct link *l = container_of(t, struct link, arrive);
    struct pkt *p = pkt_fifo_pop(&l->on_wire);
    if (l->on_wire.head) {
        /* the next frame's arrival, from p's line (wire_push) unless it is far */
        sim_time_t next = p->wire_gap != UINT32_MAX ? p->t_enq + p->wire_gap
                                                     : l->on_wire.head->t_enq;
        if (l->on_wire.head == l->keyed_pkt) {
            /* a folded frame the wire was not to hold yet: its end would schedule this */
            l->keyed_pkt = NULL;
            schedule_arrival_at(sim, l, l->tx_seq, next);
        } else {
            evq_schedule(&sim->evq, &l->arrive, next);
        }
    }
    p->in_port = (uint16_t)l->peer_index;
    l->peer_node->ops->receive(l->peer_node, l->peer, p);
}
