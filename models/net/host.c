#include "models/net/host.h"

#include <stdlib.h>

#include "sim/util.h"

#define HP(field) offsetof(struct host_cfg, field)
static const struct param_def host_params[] = {
    {"name", PARAM_STRING, HP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "host name (unique)"},
    {"nic_buffer", PARAM_SIZE, HP(nic_buffer_bytes), "64MB", NULL, NULL, NULL,
     "NIC transmit queue limit in bytes the link's device holds (0 = unlimited: an overloaded "
     "open-loop flow then grows it until memory runs out); packets queued at the NIC: UDP "
     "patterns, RDMA, retransmissions, TCP with nic_queue (TCP otherwise hands the NIC a segment "
     "only when the wire frees)"},
    {"nic_priorities", PARAM_INT, HP(nic_prio), "8", "1", "8", NULL,
     "NIC transmit queues, strict priority by packet priority"},
    {"cpu_cores", PARAM_INT, HP(cpu_cores), "1", "1", "64", NULL,
     "CPU cores that run message-layer work (per-message overhead, copies)"},
};
static const size_t host_nparams = ARRAY_LEN(host_params);

_Static_assert(offsetof(struct host, src) == 64 && offsetof(struct host, nic_blk) == 192 &&
                   offsetof(struct host, cfg.nic_buffer_bytes) / 64 == 4 &&
                   offsetof(struct host, rx_pkts) / 64 == 4 && offsetof(struct host, nic) == 384,
               "struct host: the per-packet fields in lines 0, 1, 3, 4 and 6");


struct host *host_create(struct sim *sim, const char *name, uint32_t id, uint32_t index,
                         const struct host_cfg *cfg)
{
    struct host *h = xaligned(64, sizeof(*h));
    *h = (struct host){0};
    node_init(&h->node, sim, &host_node_ops, name, id);
    h->cfg = *cfg;
    h->index = index;
    h->ip = pkt_host_ip(index);
    h->next_port = 10000;
    pq_init(&h->nic, (uint8_t)cfg->nic_prio, PQ_SCHED_STRICT, 0);
    h->nic.by_tc = true;
    hostcpu_init(&h->cpu, (uint32_t)cfg->cpu_cores);
    return h;
}

static void host_destroy(struct node *n)
{
    struct host *h = container_of(n, struct host, node);
    pq_fini(n->sim, &h->nic);
    hostcpu_fini(n->sim, &h->cpu);
    free(h->ep_tab);
    node_fini(n);
    free(h);
}

static void host_kick(struct host *h)
{
    if (h->node.nports > 0)
        link_kick(h->node.sim, &h->node.ports[0]->tx);
}

/* The NIC queue counts what the device of the host's link holds. */
static void nic_attach(struct host *h)
{
    if (h->nic.framing == PQ_NO_DEVICE && h->node.nports > 0)
        pq_attach(&h->nic, &h->node.ports[0]->tx.cfg);
}

void host_send(struct host *h, struct pkt *p)
{
    nic_attach(h);
    uint64_t limit = h->cfg.nic_buffer_bytes;
    if (limit && h->nic.bytes + pq_pkt_bytes(&h->nic, p) > limit) {
        h->nic_drops++;
        pkt_free(h->node.sim, p);
        return;
    }
    p->t_enq = h->node.sim->now;
    if (!p->blk_stream) /* else it waits since its bytes entered their stream */
        p->blk_mark = blocking_clock_at(&h->nic_blk, p->prio, p->t_enq);
    p->blk_stream = false;
    pq_enqueue(&h->nic, p);
    host_kick(h);
}

static uint8_t source_class(const struct host *h, const struct nic_source *s)
{
    return s->prio < h->nic.nprio ? s->prio : (uint8_t)(h->nic.nprio - 1);
}

/* Appends a source to the back of its class's rotation. */
static void append(struct host *h, struct nic_source *s)
{
    s->active = true;
    s->next = NULL;
    uint8_t c = source_class(h, s);
    if (h->src[c].tail)
        h->src[c].tail->next = s;
    else
        h->src[c].head = s;
    h->src[c].tail = s;
    h->src_busy |= (uint8_t)(1u << c);
}

/* Appends an idle source to its class's rotation; its next packet waits from now. */
static void enlist(struct host *h, struct nic_source *s)
{
    if (s->active)
        return;
    blocking_clock_all(&h->nic_blk, h->node.sim->now, s->blk_mark);
    append(h, s);
}

void host_activate(struct host *h, struct nic_source *s)
{
    enlist(h, s);
    host_kick(h);
}

static uint32_t ep_slot(uint16_t port, uint32_t cap)
{
    return ((uint32_t)port * 2654435761u) & (cap - 1);
}

struct endpoint *host_endpoint(const struct host *h, uint16_t port)
{
    if (h->ep_cap == 0)
        return NULL;
    for (uint32_t i = ep_slot(port, h->ep_cap);; i = (i + 1) & (h->ep_cap - 1)) {
        struct endpoint *ep = h->ep_tab[i];
        if (!ep || ep->port == port)
            return ep;
    }
}

static void ep_insert(struct endpoint **tab, uint32_t cap, struct endpoint *ep)
{
    uint32_t i = ep_slot(ep->port, cap);
    while (tab[i])
        i = (i + 1) & (cap - 1);
    tab[i] = ep;
}

bool host_bind_port(struct host *h, struct endpoint *ep, uint16_t port)
{
    if (host_endpoint(h, port))
        return false;
    if (2 * (h->nep + 1) > h->ep_cap) { /* keep the load at most one half */
        uint32_t cap = h->ep_cap ? 2 * h->ep_cap : 16;
        struct endpoint **tab = xcalloc(cap, sizeof(*tab));
        for (uint32_t i = 0; i < h->ep_cap; i++) {
            if (h->ep_tab[i])
                ep_insert(tab, cap, h->ep_tab[i]);
        }
        free(h->ep_tab);
        h->ep_tab = tab;
        h->ep_cap = cap;
    }
    ep->port = port;
    ep_insert(h->ep_tab, h->ep_cap, ep);
    h->nep++;
    return true;
}

uint16_t host_bind(struct host *h, struct endpoint *ep)
{
    while (!host_bind_port(h, ep, h->next_port))
        h->next_port++;
    return h->next_port++;
}

void host_unbind(struct host *h, struct endpoint *ep)
{
    if (h->ep_cap == 0)
        return;
    uint32_t i = ep_slot(ep->port, h->ep_cap);
    while (h->ep_tab[i] && h->ep_tab[i] != ep)
        i = (i + 1) & (h->ep_cap - 1);
    if (!h->ep_tab[i])
        return;
    h->ep_tab[i] = NULL;
    h->nep--;
    /* re-insert the rest of the probe run so lookups still find them */
    for (uint32_t j = (i + 1) & (h->ep_cap - 1); h->ep_tab[j]; j = (j + 1) & (h->ep_cap - 1)) {
        struct endpoint *e = h->ep_tab[j];
        h->ep_tab[j] = NULL;
        ep_insert(h->ep_tab, h->ep_cap, e);
    }
}

uint16_t host_ddl_port(struct host *h)
{
    SIM_ASSERT(h->next_ddl_port < 256); /* builders keep DDL connections per host below this */
    return (uint16_t)(0xDD00 + h->next_ddl_port++);
}

/* The next packet of class c's sources (*from: its source): each is asked in turn; one that has
 * nothing now leaves the rotation; a packet whose class (the transport may change it) is paused
 * is parked in the NIC queue. */
static struct pkt *pull_sources(struct host *h, uint8_t c, uint8_t allowed,
                                struct nic_source **from)
{
    sim_time_t now = h->node.sim->now;
    while (h->src[c].head) {
        struct nic_source *s = h->src[c].head;
        h->src[c].head = s->next;
        if (!h->src[c].head) {
            h->src[c].tail = NULL;
            h->src_busy &= (uint8_t)~(1u << c);
        }
        s->next = NULL;
        s->active = false;
        struct pkt *p = s->next_pkt(s, h);
        if (!p)
            continue;
        /* a message's bytes wait at the host from when they entered their stream: lower-priority
         * bytes ahead of them in the same connection block them too */
        sim_time_t mark = s->blk_mark[p->prio & 7];
        if (p->blk_stream && p->blk_mark < mark)
            mark = p->blk_mark;
        p->blk_stream = false;
        p->blocking_ps += blocking_clock_at(&h->nic_blk, p->prio, now) - mark;
        s->prio = p->tc;
        if ((allowed >> (p->tc & 7)) & 1u) {
            if (!s->active) /* back of the rotation; host_pull sets its marks */
                append(h, s);
            *from = s;
            return p;
        }
        enlist(h, s); /* back of the rotation */
        p->t_enq = now;
        p->blk_mark = blocking_clock_at(&h->nic_blk, p->prio, now);
        nic_attach(h);
        pq_enqueue(&h->nic, p);
    }
    return NULL;
}

static struct pkt *host_pull(struct node *n, struct port *out)
{
    struct host *h = container_of(n, struct host, node);
    sim_time_t now = n->sim->now;
    uint8_t allowed = out->pfc_heard ? pfc_allowed(out, now) : PQ_ALL;
    struct pkt *p = NULL;
    struct nic_source *from = NULL;
    /* the classes from the highest down, skipping those with nothing queued and no source
     * (their pull would return NULL and change nothing); pull_sources may queue a packet in a
     * lower class or move a source there, so the set is read again after each class */
    for (int c = h->nic.nprio - 1; c >= 0 && !p; c--) {
        unsigned work = (unsigned)((h->nic.busy | h->src_busy) & allowed) & ((2u << c) - 1);
        if (!work)
            break;
        c = 31 - __builtin_clz(work);
        /* a class without queued packets has only sources: no call to the queue */
        p = (h->nic.busy >> c) & 1u ? pq_dequeue(&h->nic, (uint8_t)(1u << c)) : NULL;
        if (p) {
            p->qdelay_ps += now - p->t_enq;
            p->blocking_ps += blocking_clock_at(&h->nic_blk, p->prio, now) - p->blk_mark;
        } else {
            p = pull_sources(h, (uint8_t)c, allowed, &from);
        }
    }
    if (!p)
        return NULL;
    sim_time_t dur = link_tx_ps(&out->tx, p->size_bytes);
    blocking_clock_tx(&h->nic_blk, p->prio, now, dur);
    /* the source's next packet waits from now, but its own stream's packet on the wire is not
     * priority inversion at the NIC: the marks start past it */
    if (from)
        blocking_clock_all(&h->nic_blk, now + dur, from->blk_mark);
    return p;
}

/* Nothing queued at the NIC and no source to ask: a pull would return NULL and change nothing
 * until host_send or host_activate kick the link. */
static bool host_idle(const struct node *n, const struct port *out)
{
    (void)out;
    const struct host *h = container_of(n, struct host, node);
    return !(h->nic.busy | h->src_busy);
}

static void host_receive(struct node *n, struct port *in, struct pkt *p)
{
    struct host *h = container_of(n, struct host, node);
    if (pfc_is_pause(p)) {
        pfc_receive(n->sim, in, p);
        return;
    }
    h->rx_pkts++;
    const size_t l4 = ETH_HDR_LEN + IPV4_HDR_LEN;
    if (pkt_is_ipv4(p) && pkt_ipv4_dst(p) == h->ip && p->hdr_len >= l4 + 4) {
        struct endpoint *ep = host_endpoint(h, pkt_rd16(p->hdr + l4 + 2));
        if (ep) {
            ep->recv(ep, h, p);
            return;
        }
    }
    h->rx_unclaimed++;
    pkt_free(n->sim, p);
}

/* --- the host node kind --- */

/* Hosts are numbered in declaration order; routing_compute derives their addresses. */
struct host_shared {
    uint32_t next_index;
};

static void *host_shared_create(void)
{
    return xcalloc(1, sizeof(struct host_shared));
}

static struct node *host_kind_create(const struct node_env *env, const char *name, uint32_t id,
                                     const void *cfg)
{
    struct host_shared *hs = env->shared;
    return &host_create(env->sim, name, id, hs->next_index++, cfg)->node;
}

static int host_connected(struct node *n, const struct node_env *env,
                          const struct param_layers *where)
{
    if (n->nports <= 1)
        return 0;
    diag_error(env->d, where->loc, "host '%s' has %u links; a host has one NIC", n->name,
               n->nports);
    return 1;
}

static void host_stats_json(const struct node *n, json_t *o, sim_time_t end)
{
    (void)end;
    const struct host *h = container_of(n, struct host, node);
    const struct link *l = n->nports ? &n->ports[0]->tx : NULL;
    json_object_set_new(o, "tx_packets", json_integer(l ? (json_int_t)l->tx_pkts : 0));
    json_object_set_new(o, "rx_packets", json_integer((json_int_t)h->rx_pkts));
    json_object_set_new(o, "nic_drops", json_integer((json_int_t)h->nic_drops));
    json_object_set_new(o, "rx_unclaimed", json_integer((json_int_t)h->rx_unclaimed));
    if (n->nports && n->ports[0]->pfc_rx.frames)
        json_object_set_new(o, "pfc", pfc_stats_json(n->ports[0], NULL));
}

static uint64_t host_drops(const struct node *n)
{
    return container_of(n, struct host, node)->nic_drops;
}

const struct node_ops host_node_ops = {
    .kind = "host",
    .summary = "an end host with one NIC (entries of `hosts:`, `defaults.host`)",
    .params = host_params,
    .nparams = &host_nparams,
    .cfg_size = sizeof(struct host_cfg),
    .shared_create = host_shared_create,
    .shared_destroy = free,
    .create = host_kind_create,
    .connected = host_connected,
    .receive = host_receive,
    .pull = host_pull,
    .idle = host_idle,
    .destroy = host_destroy,
    .stats_json = host_stats_json,
    .drops = host_drops,
};
