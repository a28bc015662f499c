#include "models/net/pq.h"

#include <stdbool.h>
#include <string.h>

#include "sim/util.h"

void pq_init(struct pq *q, uint8_t nprio, enum pq_sched sched, uint32_t quantum_bytes)
{
    SIM_ASSERT(nprio >= 1 && nprio <= PQ_MAX_PRIO);
    memset(q, 0, sizeof(*q));
    q->nprio = nprio;
    q->sched = (uint8_t)sched;
    q->quantum_bytes = quantum_bytes ? quantum_bytes : 1514;
    q->framing = PQ_NO_DEVICE;
    for (int i = 0; i < PQ_MAX_PRIO; i++)
        q->weight[i] = 1;
}

void pq_fini(struct sim *sim, struct pq *q)
{
    for (int i = 0; i < q->nprio; i++)
        pkt_fifo_free(sim, &q->cls[i].fifo);
    q->busy = 0;
    q->bytes = 0;
    q->pkts = 0;
}

void pq_enqueue(struct pq *q, struct pkt *p)
{
    pq_push(q, p, pq_class_of(q, p), pq_pkt_bytes(q, p));
}

static struct pkt *take(struct pq *q, struct pq_class *c)
{
    struct pkt *p = pkt_fifo_pop(&c->fifo);
    uint32_t bytes = pq_pkt_bytes(q, p);
    if (!c->fifo.head)
        q->busy &= (uint8_t)~(1u << (c - q->cls));
    c->bytes -= bytes;
    c->pkts--;
    q->bytes -= bytes;
    q->pkts--;
    return p;
}

/* Deficit round robin (Shreedhar & Varghese 1995): each backlogged class in turn receives
 * weight × quantum bytes of credit and sends head packets while the credit lasts. */
static struct pkt *drr_dequeue(struct pq *q, uint8_t allowed)
{
    if (!(q->busy & allowed))
        return NULL;
    for (;;) {
        struct pq_class *c = &q->cls[q->drr_cur];
        int64_t *deficit = &q->deficit[q->drr_cur];
        bool ok = (allowed >> q->drr_cur) & 1u;
        if (ok && c->fifo.head && *deficit >= (int64_t)pq_pkt_bytes(q, c->fifo.head)) {
            struct pkt *p = take(q, c);
            *deficit -= pq_pkt_bytes(q, p);
            if (!c->fifo.head)
                *deficit = 0;
            return p;
        }
        if (!c->fifo.head)
            *deficit = 0;
        q->drr_cur = (uint8_t)((q->drr_cur + 1) % q->nprio);
        if (q->cls[q->drr_cur].fifo.head && ((allowed >> q->drr_cur) & 1u))
            q->deficit[q->drr_cur] += (int64_t)q->weight[q->drr_cur] * q->quantum_bytes;
    }
}

struct pkt *pq_dequeue(struct pq *q, uint8_t allowed)
{
    if (q->pkts == 0)
        return NULL;
    if (q->sched == PQ_SCHED_DRR)
        return drr_dequeue(q, allowed);
    unsigned ready = (unsigned)(q->busy & allowed);
    if (!ready)
        return NULL;
    return take(q, &q->cls[31 - __builtin_clz(ready)]); /* the highest ready class */
}

uint8_t pq_queues_allowed(const struct pq *q, uint8_t tc_allowed)
{
    uint8_t m = 0;
    for (uint8_t i = 0; i < q->nprio; i++) {
        const struct pkt *h = q->cls[i].fifo.head;
        if (!h || ((tc_allowed >> (h->tc & 7)) & 1u))
            m |= (uint8_t)(1u << i);
    }
    return m;
}
