/* A DDL job's message connections: chunks become messages; every packet gets the DDL shim
 * header and the layer's priority; what the message layer reports (delivered, acknowledged,
 * each received packet's blocking and the burst's first packet) goes to the job's parts. */
#include "models/ddl/transfer.h"

#include <stdlib.h>

#include "models/ddl/scheduler.h"
#include "models/ddl/shim.h"
#include "sim/util.h"

static void on_delivered(struct msg_conn *c, const struct msg *m, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_item *it = m->meta;
    it->delivered = true;
    job->arch->delivered(job, it);
    ddl_item_done(job, it);
}

static void on_acked(struct msg_conn *c, const struct msg *m, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_item *it = m->meta;
    struct ddl_sender *s = it->sender;
    it->acked = true;
    s->inflight -= it->bytes;
    ddl_item_done(job, it);
    ddl_sender_release(s);
}

static void tag(struct msg_conn *c, const struct msg *m, uint64_t off, uint32_t len, uint8_t *t,
                struct pkt *p, void *ud)
{
    (void)c;
    (void)len;
    struct ddl_job *job = ud;
    const struct ddl_item *it = m->meta;
    struct ddl_shim s = {
        .flags = (uint8_t)((it->pull ? DDL_FLAG_PULL : 0) |
                           (it->burst_first && off == 0 ? DDL_FLAG_BURST_FIRST : 0)),
        .job = (uint16_t)job->cfg.id,
        .layer = (uint16_t)it->layer,
        .chunk = (uint16_t)it->chunk,
        .worker = (uint16_t)it->worker,
        .priority = it->prio,
        .iteration = it->iter,
    };
    ddl_shim_write(t, &s);
    p->prio = it->prio;
}

static void rx_packet(struct msg_conn *c, const struct pkt *p, const uint8_t *t, void *ud)
{
    (void)c;
    struct ddl_job *job = ud;
    struct ddl_shim s;
    if (!t || !ddl_shim_read(t, &s) || s.worker >= job->nworkers || s.layer >= job->L)
        return;
    struct ddl_worker *w = &job->workers[s.worker];
    if (s.flags & DDL_FLAG_PULL)
        w->pull_blk[s.layer] += p->blocking_ps;
    else
        w->push_blk[s.layer] += p->blocking_ps;
    if ((s.flags & DDL_FLAG_BURST_FIRST) && s.iteration == w->burst_iter) {
        w->burst_seen_first = true;
        w->burst_first_tx = p->t_created;
        w->burst_start_queue = p->qseen_bytes;
    }
}

struct msg_conn *ddl_connect(struct ddl_job *job, const char *what, uint32_t a, uint32_t b,
                                struct host *src, struct host *dst)
{
    char *name = xasprintf("%s.%s%u-%u", job->name, what, a, b);
    struct msg_hooks hooks = {
        .on_delivered = on_delivered,
        .on_acked = on_acked,
        .tag_bytes = DDL_SHIM_BYTES,
        .tag = tag,
        .rx_packet = rx_packet,
        .ddl_port = true,
        .ud = job,
    };
    uint32_t index = (uint32_t)(0x80000000u | ((uint32_t)job->cfg.id << 20) | (a << 10) | b);
    struct msg_conn *c =
        msg_conn_create(job->sim, name, index, src, dst, job->tp, job->tp_cfg, &job->cfg.cost,
                        &hooks);
    free(name);
    return c;
}

