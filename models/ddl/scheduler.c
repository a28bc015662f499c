/* Host-side chunk scheduling: fifo, or priority with a credit window. */
#include "models/ddl/scheduler.h"

#include <string.h>

#include "sim/util.h"

struct ddl_item *ddl_item_new(struct ddl_job *job)
{
    struct ddl_item *it = pool_get(&job->items);
    memset(it, 0, sizeof(*it));
    return it;
}

void ddl_item_done(struct ddl_job *job, struct ddl_item *it)
{
    if (it->acked && it->delivered)
        pool_put(&job->items, it);
}

/* Priority order: higher priority first, then older iteration, then insertion. */
static bool before(const struct ddl_item *a, const struct ddl_item *b)
{
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->iter != b->iter)
        return a->iter < b->iter;
    return a->seq < b->seq;
}

void ddl_sender_release(struct ddl_sender *s)
{
    struct ddl_job *job = s->job;
    bool prio = job->cfg.sched == DDL_SCHED_PRIORITY;
    while (s->head) {
        struct ddl_item *it = s->head;
        if (prio && job->cfg.credit_bytes && s->inflight > 0 &&
            s->inflight + it->bytes > job->cfg.credit_bytes)
            return;
        s->head = it->next;
        it->next = NULL;
        s->inflight += it->bytes;
        if (!it->pull && ddl_arch_bursts(job)) {
            struct ddl_worker *w = &job->workers[it->worker];
            if (!w->burst_started || w->burst_iter != it->iter) {
                w->burst_started = true;
                w->burst_iter = it->iter;
                w->burst_seen_first = false;
                it->burst_first = true;
            }
        }
        job->bytes_sent += it->bytes;
        if (!it->pull)
            job->worker_bytes[it->worker] += it->bytes;
        msg_send(it->conn, it->bytes, it);
    }
}

void ddl_sender_add(struct ddl_sender *s, struct ddl_item *it)
{
    it->sender = s;
    it->seq = s->seq++;
    it->next = NULL;
    struct ddl_item **pp = &s->head;
    if (s->job->cfg.sched == DDL_SCHED_PRIORITY) {
        while (*pp && !before(it, *pp))
            pp = &(*pp)->next;
    } else {
        while (*pp)
            pp = &(*pp)->next;
    }
    it->next = *pp;
    *pp = it;
    ddl_sender_release(s);
}


void ddl_pull_send(struct ddl_server *s, uint32_t worker, uint32_t layer, uint32_t chunk,
                   uint32_t iter, uint64_t bytes)
{
    struct ddl_job *job = s->job;
    struct ddl_item *it = ddl_item_new(job);
    it->bytes = bytes;
    it->layer = layer;
    it->chunk = chunk;
    it->worker = worker;
    it->server = s->idx;
    it->iter = iter;
    it->prio = job->prio_of[layer];
    it->pull = true;
    it->ready_ps = job->sim->now;
    it->conn = s->pull[worker * job->cfg.groups + job->group_of[it->prio]];
    ddl_sender_add(&s->tx, it);
}
