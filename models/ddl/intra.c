/* GPU-to-GPU transfers inside a host (intra.h): one FIFO egress channel per GPU, a serializer
 * followed by a fixed latency; two timers per channel, none per chunk. */
#include "models/ddl/intra.h"

#include <stdlib.h>

#include "models/ddl/scheduler.h"
#include "models/ddl/transfer.h"
#include "sim/util.h"

struct ddl_intra_chan {
    struct ddl_job *job;
    struct evq_timer tx; /* the head chunk's last byte is out */
    struct evq_timer rx; /* the oldest chunk in flight arrives */
    struct ddl_item *q_head, *q_tail;   /* waiting and serializing (the head) */
    struct ddl_item *fl_head, *fl_tail; /* in flight, in arrival order */
};

static void append(struct ddl_item **head, struct ddl_item **tail, struct ddl_item *it)
{
    it->next = NULL;
    if (*tail)
        (*tail)->next = it;
    else
        *head = it;
    *tail = it;
}

static struct ddl_item *pop(struct ddl_item **head, struct ddl_item **tail)
{
    struct ddl_item *it = *head;
    *head = it->next;
    if (!*head)
        *tail = NULL;
    it->next = NULL;
    return it;
}

static void tx_start(struct ddl_intra_chan *c)
{
    struct ddl_job *job = c->job;
    if (c->q_head && !evq_timer_pending(&c->tx))
        evq_schedule(&job->sim->evq, &c->tx,
                     job->sim->now + simtime_tx_ps(c->q_head->bytes, job->cfg.intra_bps));
}

static void tx_fire(struct sim *sim, struct evq_timer *t)
{
    struct ddl_intra_chan *c = container_of(t, struct ddl_intra_chan, tx);
    struct ddl_item *it = pop(&c->q_head, &c->q_tail);
    it->at_ps = sim->now + c->job->cfg.intra_latency_ps;
    append(&c->fl_head, &c->fl_tail, it);
    if (!evq_timer_pending(&c->rx))
        evq_schedule(&sim->evq, &c->rx, it->at_ps);
    tx_start(c);
}

static void rx_fire(struct sim *sim, struct evq_timer *t)
{
    struct ddl_intra_chan *c = container_of(t, struct ddl_intra_chan, rx);
    struct ddl_job *job = c->job;
    struct ddl_item *it = pop(&c->fl_head, &c->fl_tail);
    if (c->fl_head) /* latency is fixed: arrivals keep their departure order */
        evq_schedule(&sim->evq, &c->rx, c->fl_head->at_ps);
    it->acked = true;
    it->delivered = true;
    job->intra_bytes += it->bytes;
    job->arch->delivered(job, it);
    ddl_item_done(job, it);
}

int ddl_intra_init(struct ddl_job *job)
{
    if (job->gpus < 2)
        return 0;
    for (uint32_t w = 0; w < job->nworkers; w++) {
        struct ddl_intra_chan *c = xcalloc(1, sizeof(*c));
        c->job = job;
        evq_timer_init(&c->tx, tx_fire, EVQ_PHASE_DEFAULT);
        evq_timer_init(&c->rx, rx_fire, EVQ_PHASE_DEFAULT);
        job->workers[w].intra = c;
    }
    return 0;
}

void ddl_intra_fini(struct ddl_job *job)
{
    for (uint32_t w = 0; job->workers && w < job->nworkers; w++) {
        struct ddl_intra_chan *c = job->workers[w].intra;
        if (!c)
            continue;
        evq_cancel(&job->sim->evq, &c->tx);
        evq_cancel(&job->sim->evq, &c->rx);
        free(c); /* chunks still queued go with the job's pool */
        job->workers[w].intra = NULL;
    }
}

void ddl_send(struct ddl_job *job, struct ddl_item *it, uint32_t dst, struct msg_conn *conn)
{
    it->dst = dst;
    if (ddl_host_of(job, it->worker) != ddl_host_of(job, dst)) {
        /* the scheduler counts its bytes when it releases it */
        it->conn = conn ? conn : ddl_peer_conn(job, it->worker, dst, job->group_of[it->prio]);
        ddl_sender_add(&job->workers[it->worker].tx, it);
        return;
    }
    job->worker_bytes[it->worker] += it->bytes;
    struct ddl_intra_chan *c = job->workers[it->worker].intra;
    append(&c->q_head, &c->q_tail, it);
    tx_start(c);
}
