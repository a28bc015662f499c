/* The switch traffic manager: admission, marking, queues, blocking clocks. */
#include "models/net/tmgr.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

_Static_assert(offsetof(struct tmgr_port, enq0) == 384 &&
                   offsetof(struct tmgr_port, blk.cur_prio) < 448,
               "struct tmgr_port: the per-packet fields in lines 0 and 6");

void tmgr_init(struct tmgr *tm, const struct tmgr_cfg *cfg, uint32_t nports, gsl_rng *rng)
{
    tm->cfg = *cfg;
    tm->nports = nports;
    tm->ports = xaligned(64, (size_t)nports * sizeof(*tm->ports));
    memset(tm->ports, 0, (size_t)nports * sizeof(*tm->ports));
    for (uint32_t i = 0; i < nports; i++)
        pq_init(&tm->ports[i].q, (uint8_t)cfg->nprio, (enum pq_sched)cfg->sched,
                (uint32_t)cfg->drr_quantum_bytes);
    tm->buffered = 0;
    tm->peak_buffered = 0;
    tm->rng = rng;
}

void tmgr_fini(struct sim *sim, struct tmgr *tm)
{
    for (uint32_t i = 0; i < tm->nports; i++)
        pq_fini(sim, &tm->ports[i].q);
    free(tm->ports);
    tm->ports = NULL;
}

static bool should_mark(struct tmgr *tm, const struct pq_class *c)
{
    const struct tmgr_cfg *cfg = &tm->cfg;
    uint64_t q = cfg->ecn_unit == TMGR_UNIT_PACKETS ? c->pkts : c->bytes;
    if (q < cfg->ecn_kmin)
        return false;
    if (cfg->ecn_mode == TMGR_ECN_THRESHOLD || q >= cfg->ecn_kmax)
        return true;
    double p = cfg->ecn_pmax * (double)(q - cfg->ecn_kmin) / (double)(cfg->ecn_kmax - cfg->ecn_kmin);
    return gsl_rng_uniform(tm->rng) < p;
}

bool tmgr_enqueue(struct sim *sim, struct tmgr *tm, uint32_t port, struct pkt *p)
{
    SIM_ASSERT(port < tm->nports);
    struct tmgr_port *tp = &tm->ports[port];
    uint8_t ci = pq_class_of(&tp->q, p);
    struct pq_class *c = &tp->q.cls[ci];
    struct tmgr_stats *st = &tp->cls[ci];
    struct tmgr_enq_stats *es = tmgr_enq(tp, ci);
    const struct tmgr_cfg *cfg = &tm->cfg;
    uint32_t size = pq_pkt_bytes(&tp->q, p); /* what the port's device would hold */
    bool drop;
    if (tmgr_lossless(tm, p)) {
        struct tmgr_port *in = &tm->ports[p->in_port];
        uint64_t *acc = &in->ingress_bytes[p->tc & 7];
        drop = *acc + size > cfg->pfc_xoff_bytes + in->headroom_bytes;
        if (drop)
            in->headroom_drops++;
        else
            *acc += size;
    } else {
        drop = (cfg->queue_limit_bytes && c->bytes + size > cfg->queue_limit_bytes) ||
               (cfg->buffer_bytes && tm->buffered + size > cfg->buffer_bytes);
    }
    if (drop) {
        st->drop_pkts++;
        st->drop_bytes += size;
        pkt_free(sim, p);
        return false;
    }
    if (cfg->ecn_mode != TMGR_ECN_NONE && pkt_ecn(p) != PKT_ECN_NOT_ECT && should_mark(tm, c)) {
        if (pkt_ecn(p) != PKT_ECN_CE)
            pkt_set_ecn(p, PKT_ECN_CE);
        p->tm_ce = true;
        st->mark_pkts++;
    }
    p->t_enq = sim->now;
    p->enq_qdepth = c->pkts;
    p->blk_mark = blocking_clock_at(&tp->blk, p->prio, sim->now);
    if (tp->q.bytes > p->qseen_bytes)
        p->qseen_bytes = (uint32_t)MIN(tp->q.bytes, UINT32_MAX);
    pq_push(&tp->q, p, ci, size);
    es->pkts++;
    es->max_bytes = MAX(es->max_bytes, c->bytes);
    es->max_pkts = MAX(es->max_pkts, c->pkts);
    tp->max_bytes = MAX(tp->max_bytes, tp->q.bytes);
    tp->max_pkts = MAX(tp->max_pkts, tp->q.pkts);
    tm->buffered += size;
    tm->peak_buffered = MAX(tm->peak_buffered, tm->buffered);
    return true;
}

struct pkt *tmgr_dequeue(struct sim *sim, struct tmgr *tm, uint32_t port, uint8_t allowed)
{
    struct pkt *p = pq_dequeue(&tm->ports[port].q, allowed);
    if (!p)
        return NULL;
    uint32_t size = pq_pkt_bytes(&tm->ports[port].q, p);
    tm->buffered -= size;
    p->blocking_ps += blocking_clock_at(&tm->ports[port].blk, p->prio, sim->now) - p->blk_mark;
    if (tmgr_lossless(tm, p))
        tm->ports[p->in_port].ingress_bytes[p->tc & 7] -= size;
    p->qdelay_ps += sim->now - p->t_enq;
    return p;
}
