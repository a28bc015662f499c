/* A DDL job's message connections: chunks become messages; every packet gets the DDL shim
 * header and the layer's priority; what the message layer reports (delivered, acknowledged,
 * each received packet's blocking and the burst's first packet) goes to the job's parts. */
#include "models/ddl/transfer.h"

#include <stdlib.h>
#include <string.h>

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
    uint32_t wi = s.worker; /* below nworkers: the successor's index wraps without a division */
    if (ddl_to_successor(job) && ++wi == job->nworkers)
        wi = 0;
    struct ddl_blk *b = s.flags & DDL_FLAG_PULL ? &job->workers[wi].pull_blk[s.layer]
                                                : &job->workers[wi].push_blk[s.layer];
    b->last = p->blocking_ps; /* the tensor's last packet is the last one written here */
    b->sum += p->blocking_ps;
    struct ddl_worker *w = &job->workers[s.worker];
    if ((s.flags & DDL_FLAG_BURST_FIRST) && s.iteration == w->burst_iter) {
        w->burst_seen_first = true;
        w->burst_first_tx = p->t_created;
        w->burst_start_queue = p->qseen_bytes;
    }
}

struct msg_conn *ddl_connect(struct ddl_job *job, const char *what, uint32_t a, uint32_t b,
                             uint32_t g, struct host *src, struct host *dst)
{
    char *name = job->cfg.groups > 1 ? xasprintf("%s.%s%u-%u.g%u", job->name, what, a, b, g)
                                     : xasprintf("%s.%s%u-%u", job->name, what, a, b);
    /* with several groups, the group's traffic class is the connection's NIC queue and PFC
     * class; one group keeps the transport's own `priority` */
    void *cfg = xmalloc(job->tp->cfg_size);
    memcpy(cfg, job->tp_cfg, job->tp->cfg_size);
    if (job->cfg.groups > 1)
        ((struct flow_cfg *)cfg)->priority = job->class_of[g];
    struct flow_cfg *common = cfg; /* a connection made during the run starts now */
    common->start_ps = MAX(common->start_ps, job->sim->now);
    struct msg_hooks hooks = {
        .on_delivered = on_delivered,
        .on_acked = on_acked,
        .tag_bytes = DDL_SHIM_BYTES,
        .tag = tag,
        .tag_per_msg = true, /* an item's fields; off only sets the burst's first packet */
        .rx_packet = rx_packet,
        .ddl_port = true,
        .ud = job,
    };
    /* the flows' index (statistics, RDMA keys): job and both ends in 10 bits each while they
     * fit; past that, the job's 6 low bits and its connections numbered in the order they are
     * made (24 bits), so a tree's or a hierarchy's several connections of one worker differ */
    uint32_t index =
        a < 1024 && b < 1024
            ? (uint32_t)(0x80000000u | ((uint32_t)job->cfg.id << 20) | (a << 10) | b)
            : (uint32_t)(0xC0000000u | (((uint32_t)job->cfg.id & 0x3fu) << 24) |
                         (job->wide_conns++ & 0xffffffu));
    struct msg_conn *c =
        msg_conn_create(job->sim, name, index, src, dst, job->tp, cfg, &job->cfg.cost, &hooks);
    free(cfg);
    free(name);
    return c;
}

int ddl_check_ports(struct ddl_job *job, const struct host *h, uint32_t n, struct diag *d)
{
    uint64_t need = (uint64_t)n * (uint64_t)job->cfg.groups;
    if (h->next_ddl_port + need <= 256)
        return 0;
    diag_error(d, job->cfg.workers->loc,
               "job '%s': host '%s' would open %llu DDL connections (%u peers x %lld "
               "priority_groups%s); a host has 256 DDL source ports (0xDD00-0xDDFF)",
               job->name, h->node.name, (unsigned long long)(h->next_ddl_port + need), n,
               (long long)job->cfg.groups, h->next_ddl_port ? ", with other jobs' connections" : "");
    return 1;
}

struct msg_conn *ddl_peer_conn(struct ddl_job *job, uint32_t from, uint32_t to, uint32_t g)
{
    struct ddl_worker *w = &job->workers[from];
    struct ddl_peer *p = NULL;
    for (uint32_t i = 0; i < w->npeers && !p; i++) {
        if (w->peers[i].dst == to)
            p = &w->peers[i];
    }
    if (!p) {
        w->peers = xrealloc(w->peers, (w->npeers + 1) * sizeof(*w->peers));
        p = &w->peers[w->npeers++];
        p->dst = to;
        p->conn = xcalloc((size_t)job->cfg.groups, sizeof(*p->conn));
    }
    if (!p->conn[g])
        p->conn[g] = ddl_connect(job, "peer", from, to, g, w->host, job->workers[to].host);
    return p->conn[g];
}

void ddl_peers_fini(struct ddl_job *job, struct ddl_worker *w)
{
    for (uint32_t i = 0; i < w->npeers; i++) {
        for (uint32_t g = 0; g < job->cfg.groups; g++)
            msg_conn_destroy(w->peers[i].conn[g]);
        free(w->peers[i].conn);
    }
    free(w->peers);
    w->peers = NULL;
    w->npeers = 0;
}
