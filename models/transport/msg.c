#include "models/transport/msg.h"

#include <stdlib.h>
#include <string.h>

#include "models/transport/udp.h"
#include "sim/util.h"

const char *const msg_preset_names[] = {"none",           "grpc-tcp",    "rpc-rdma",
                                        "rdma-zero-copy", "nccl-socket", "nccl-gdr", NULL};

/* Preset values are ddlsim's reading of the RDMA-for-TensorFlow paper (Xue et al., EuroSys'19),
 * which gives their shape, not numbers: gRPC over TCP pays tens of µs per message and 2–3 copies
 * of the tensor; RPC over RDMA one copy plus a rendezvous round trip; the zero-copy RDMA device a
 * one-sided write and a flag poll of 1–2 µs. Copies run at 5 GB/s (40 Gb/s), a single-core
 * memcpy of large buffers. Every value can be overridden per connection. */
const char *msg_preset(enum msg_preset p, struct msg_cost *c)
{
    memset(c, 0, sizeof(*c));
    c->copy_bps = 40000000000ULL;
    switch (p) {
    case MSG_PRESET_GRPC_TCP:
        c->tx_fixed_ps = SIM_US(25);
        c->rx_fixed_ps = SIM_US(25);
        c->tx_copies = 2; /* serialize into the protobuf buffer, copy into the socket */
        c->rx_copies = 1; /* copy out of the socket buffer (parse in place) */
        return "tcp";
    case MSG_PRESET_RPC_RDMA:
        c->tx_fixed_ps = SIM_US(5);
        c->rx_fixed_ps = SIM_US(5);
        c->tx_copies = 1; /* into a registered buffer */
        c->control_rtt = true;
        return "rdma";
    case MSG_PRESET_RDMA_ZERO_COPY:
        c->tx_fixed_ps = SIM_US(1); /* post the work request */
        c->poll_ps = SIM_NS(1500);
        return "rdma";
    /* NCCL's socket transport stages each slice in pinned host memory (the GPU writes it there
     * over PCIe) and its proxy thread moves it through the kernel socket: one CPU copy at the
     * sender (user to socket buffer) and one at the receiver, both on the host's CPU at the
     * single-core memcpy rate above. A host of a ring sends and receives at once, so it
     * carries at most copy_bw / 2 = 20 Gb/s each way; NCCL issue 209 measured at most 60% of a
     * 32 Gb/s wire over TCP (19.2 Gb/s each way: 38.4 Gb/s of copies, matching 5 GB/s). */
    case MSG_PRESET_NCCL_SOCKET:
        c->tx_copies = 1;
        c->rx_copies = 1;
        return "tcp";
    /* GPUDirect RDMA: the NIC reads and writes GPU memory; the proxy posts a work request and
     * polls its completion per slice, as the zero-copy device does. */
    case MSG_PRESET_NCCL_GDR:
        c->tx_fixed_ps = SIM_US(1);
        c->poll_ps = SIM_NS(1500);
        return "rdma";
    default:
        return NULL;
    }
}

void msg_cost_resolve(struct msg_cost *c, enum msg_preset preset, const struct cfg_node *m)
{
    static const struct {
        const char *key;
        size_t off;
        size_t size;
    } keys[] = {
        {"tx_fixed", offsetof(struct msg_cost, tx_fixed_ps), sizeof(sim_time_t)},
        {"rx_fixed", offsetof(struct msg_cost, rx_fixed_ps), sizeof(sim_time_t)},
        {"tx_copies", offsetof(struct msg_cost, tx_copies), sizeof(int64_t)},
        {"rx_copies", offsetof(struct msg_cost, rx_copies), sizeof(int64_t)},
        {"copy_bw", offsetof(struct msg_cost, copy_bps), sizeof(uint64_t)},
        {"serialize_bw", offsetof(struct msg_cost, serialize_bps), sizeof(uint64_t)},
        {"control_rtt", offsetof(struct msg_cost, control_rtt), sizeof(bool)},
        {"poll", offsetof(struct msg_cost, poll_ps), sizeof(sim_time_t)},
    };
    struct msg_cost given = *c;
    msg_preset(preset, c);
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        if (cfg_get(m, keys[i].key))
            memcpy((char *)c + keys[i].off, (const char *)&given + keys[i].off, keys[i].size);
    }
}

static sim_time_t bytes_at(uint64_t bytes, uint64_t bps)
{
    return bps ? simtime_tx_ps(bytes, bps) : 0;
}

/* Saturating: huge messages on slow copies stop the run past SIM_TIME_HORIZON with a message
 * instead of overflowing. */
sim_time_t msg_tx_cost_ps(const struct msg_cost *c, uint64_t bytes)
{
    sim_time_t t = simtime_mul(c->tx_copies, bytes_at(bytes, c->copy_bps));
    return simtime_add(simtime_add(c->tx_fixed_ps, t), bytes_at(bytes, c->serialize_bps));
}

sim_time_t msg_rx_cost_ps(const struct msg_cost *c, uint64_t bytes)
{
    sim_time_t t = simtime_mul(c->rx_copies, bytes_at(bytes, c->copy_bps));
    t = simtime_add(simtime_add(c->rx_fixed_ps, t), bytes_at(bytes, c->serialize_bps));
    return simtime_add(t, c->poll_ps);
}

static void reap(struct msg_conn *c)
{
    while (c->head && c->head->acked && c->head->delivered) {
        struct msg *m = c->head;
        if (c->rx_hint == m)
            c->rx_hint = NULL;
        if (c->tx_hint == m)
            c->tx_hint = NULL;
        c->head = m->next;
        if (!c->head)
            c->tail = NULL;
        pool_put(&c->msgs, m);
    }
}

/* Moves messages forward: rendezvous requests, then payload into the stream, in order. */
static void advance(struct msg_conn *c)
{
    for (struct msg *m = c->next_push; m && m->tx_done; m = m->next) {
        if (c->cost.control_rtt && m->id >= c->ctrl_sent) {
            flow_push(c->ctrl_req, MSG_CONTROL_BYTES);
            c->ctrl_sent++;
        }
    }
    while (c->next_push && c->next_push->tx_done &&
           (!c->cost.control_rtt || c->next_push->id < c->ctrl_replied)) {
        struct msg *m = c->next_push;
        c->pushed += m->bytes;
        m->end = c->pushed;
        m->in_stream = true;
        blocking_clock_all(&c->src->nic_blk, c->sim->now, m->blk_mark);
        c->next_push = m->next;
        flow_push(c->data, m->bytes);
    }
}

static void tx_done(struct sim *sim, struct hostcpu_job *job)
{
    (void)sim;
    struct msg *m = container_of(job, struct msg, job);
    m->tx_done = true;
    advance(m->conn);
}

static void rx_done(struct sim *sim, struct hostcpu_job *job)
{
    struct msg *m = container_of(job, struct msg, job);
    struct msg_conn *c = m->conn;
    m->delivered = true;
    m->t_delivered = sim->now;
    c->delivered_msgs++;
    c->delivered_bytes += m->bytes;
    stats_add(&c->latency, simtime_sec(sim->now - m->t_submit));
    if (c->hooks.on_delivered)
        c->hooks.on_delivered(c, m, c->hooks.ud);
    reap(c);
}

static void start_rx(struct msg_conn *c, struct msg *m)
{
    m->rx_started = true;
    m->job.cost_ps = msg_rx_cost_ps(&c->cost, m->bytes);
    m->job.done = rx_done;
    hostcpu_submit(c->sim, &c->dst->cpu, &m->job);
}

/* The message at *cursor when the stream's first `total` bytes hold all of it; the cursor
 * moves on to the next. NULL otherwise. */
static struct msg *take_covered(struct msg **cursor, uint64_t total)
{
    struct msg *m = *cursor;
    if (!m || !m->in_stream || m->end > total)
        return NULL;
    *cursor = m->next;
    return m;
}

/* The stream total at which the message at a cursor is complete: its end once in the stream;
 * 0 (any total) before. */
static uint64_t cursor_end(const struct msg *m)
{
    return m && m->in_stream ? m->end : 0;
}

static uint64_t data_delivered(struct flow *f, uint64_t total, void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    struct msg *m;
    while ((m = take_covered(&c->next_deliver, total)) != NULL)
        start_rx(c, m);
    return cursor_end(c->next_deliver);
}

static struct msg *msg_at(struct msg_conn *c, uint64_t off);

/* The message holding stream byte `off` (msg_at's answer): bytes mostly go forward, so first
 * the message found last (*hint) and the one after it, which saves walking the live messages
 * from the oldest (a cache miss each at scale); *hint becomes the answer. */
static inline struct msg *msg_near(struct msg_conn *c, struct msg **hint, uint64_t off)
{
    struct msg *m = *hint;
    if (!m || off < m->end - m->bytes || off >= m->end)
        m = m && m->next && off >= m->end && off < m->next->end ? m->next : msg_at(c, off);
    *hint = m;
    return m;
}

/* Unordered transports: a message is complete when its own bytes are in. */
static void data_delivered_range(struct flow *f, uint64_t off, uint64_t len, void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    struct msg *m = msg_near(c, &c->rx_hint, off);
    SIM_ASSERT(m != NULL && !m->rx_started);
    m->rx_bytes += len;
    SIM_ASSERT(m->rx_bytes <= m->bytes);
    if (m->rx_bytes == m->bytes)
        start_rx(c, m);
}

static uint64_t data_acked(struct flow *f, uint64_t total, void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    struct msg *m;
    while ((m = take_covered(&c->next_ack, total)) != NULL) {
        m->acked = true;
        if (c->hooks.on_acked)
            c->hooks.on_acked(c, m, c->hooks.ud);
    }
    reap(c);
    return cursor_end(c->next_ack);
}

/* Rendezvous messages are MSG_CONTROL_BYTES each, one per datagram: without this bound a burst
 * flow packs requests pushed before the NIC pulls into one datagram (two messages pushed in the
 * same instant arrived as one 128-byte request). */
static uint64_t ctrl_msg_end(struct flow *f, uint64_t off, void *ud)
{
    (void)f;
    (void)ud;
    return (off / MSG_CONTROL_BYTES + 1) * MSG_CONTROL_BYTES;
}

/* The receiver answers each rendezvous request (one datagram each) as it arrives. */
static void ctrl_req_delivered(struct flow *f, uint64_t off, uint64_t len, void *ud)
{
    (void)off;
    struct msg_conn *c = ud;
    SIM_ASSERT(len == MSG_CONTROL_BYTES);
    (void)f;
    flow_push(c->ctrl_rep, MSG_CONTROL_BYTES);
}

static void ctrl_rep_delivered(struct flow *f, uint64_t off, uint64_t len, void *ud)
{
    (void)f;
    (void)off;
    struct msg_conn *c = ud;
    SIM_ASSERT(len == MSG_CONTROL_BYTES);
    c->ctrl_replied++;
    advance(c);
}

/* The message holding stream byte `off`: retransmissions reach back, so search from the oldest
 * live message. */
static struct msg *msg_at(struct msg_conn *c, uint64_t off)
{
    for (struct msg *m = c->head; m && m->in_stream; m = m->next) {
        if (off < m->end)
            return m;
    }
    return NULL;
}

/* A kept tag into a packet: the DDL shim's 16 bytes as two moves (a copy of a size known only
 * at run time is a call to memcpy). */
static inline void tag_copy(uint8_t *to, const uint8_t *from, uint16_t n)
{
    if (n == 16)
        memcpy(to, from, 16);
    else
        memcpy(to, from, n);
}

static void data_tag(struct flow *f, uint64_t off, uint32_t len, uint8_t *tag, struct pkt *p,
                     void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    struct msg *m = msg_near(c, &c->tx_hint, off);
    SIM_ASSERT(m != NULL);
    uint64_t moff = off - (m->end - m->bytes);
    bool keep = c->hooks.tag_per_msg && moff != 0;
    if (keep && m->id == c->tag_id) {
        tag_copy(tag, c->tag_kept, c->hooks.tag_bytes);
        p->prio = c->tag_prio;
    } else {
        memset(tag, 0, c->hooks.tag_bytes); /* what the hook leaves is 0 */
        c->hooks.tag(c, m, moff, len, tag, p, c->hooks.ud);
        if (keep) {
            c->tag_id = m->id;
            memcpy(c->tag_kept, tag, c->hooks.tag_bytes);
            c->tag_prio = p->prio;
        }
    }
    /* the packet's bytes have waited at this host since the message entered the stream */
    p->blk_mark = m->blk_mark[p->prio & 7];
    p->blk_stream = true;
}

static uint64_t data_msg_end(struct flow *f, uint64_t off, void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    struct msg *m = msg_near(c, &c->tx_hint, off);
    return m ? m->end : off;
}

static void data_rx_packet(struct flow *f, const struct pkt *p, const uint8_t *tag, void *ud)
{
    (void)f;
    struct msg_conn *c = ud;
    c->hooks.rx_packet(c, p, tag, c->hooks.ud);
}

static struct flow *stream_flow(struct sim *sim, const char *name, const char *suffix,
                                uint32_t index, struct host *src, struct host *dst,
                                const struct flow_ops *tp, const void *tp_cfg,
                                const struct flow_stream *cb)
{
    void *cfg = xmalloc(tp->cfg_size);
    memcpy(cfg, tp_cfg, tp->cfg_size);
    struct flow_cfg *common = cfg;
    common->bytes = 0;
    common->stop_ps = 0;
    char *full = xasprintf("%s.%s", name, suffix);
    struct flow *f = tp->create(sim, index, full, cfg, src, dst);
    flow_stream_attach(f, cb);
    free(full);
    free(cfg);
    return f;
}

struct msg_conn *msg_conn_create(struct sim *sim, const char *name, uint32_t flow_index,
                                 struct host *src, struct host *dst, const struct flow_ops *tp,
                                 const void *tp_cfg, const struct msg_cost *cost,
                                 const struct msg_hooks *hooks)
{
    struct msg_conn *c = xcalloc(1, sizeof(*c));
    c->sim = sim;
    c->src = src;
    c->dst = dst;
    c->cost = *cost;
    c->hooks = *hooks;
    c->tag_id = UINT64_MAX;
    SIM_ASSERT(!hooks->tag_per_msg || hooks->tag_bytes <= MSG_TAG_MAX);
    pool_init(&c->msgs, sizeof(struct msg), 64);
    stats_init(&c->latency, 4);
    struct flow_stream data_cb = {
        .delivered = data_delivered,
        .delivered_range = data_delivered_range,
        .acked = data_acked,
        .ud = c,
        .tag_bytes = hooks->tag ? hooks->tag_bytes : 0,
        .tag = hooks->tag ? data_tag : NULL,
        .rx_packet = hooks->rx_packet ? data_rx_packet : NULL,
        .msg_end = data_msg_end,
    };
    c->data = stream_flow(sim, name, "data", flow_index, src, dst, tp, tp_cfg, &data_cb);
    if (hooks->ddl_port)
        flow_set_sport(c->data, host_ddl_port(src));
    if (cost->control_rtt) {
        struct udp_flow_cfg ucfg;
        param_defaults(udp_flow_ops.params, *udp_flow_ops.nparams, &ucfg);
        ucfg.common.priority = ((const struct flow_cfg *)tp_cfg)->priority;
        struct flow_stream req_cb = {
            .delivered_range = ctrl_req_delivered, .ud = c, .msg_end = ctrl_msg_end};
        struct flow_stream rep_cb = {
            .delivered_range = ctrl_rep_delivered, .ud = c, .msg_end = ctrl_msg_end};
        c->ctrl_req = stream_flow(sim, name, "req", flow_index, src, dst, &udp_flow_ops, &ucfg,
                                  &req_cb);
        c->ctrl_rep = stream_flow(sim, name, "rep", flow_index, dst, src, &udp_flow_ops, &ucfg,
                                  &rep_cb);
    }
    return c;
}

void msg_conn_destroy(struct msg_conn *c)
{
    if (!c)
        return;
    /* jobs still queued on a CPU belong to messages freed here: the run is over */
    c->data->ops->destroy(c->sim, c->data);
    if (c->ctrl_req) {
        c->ctrl_req->ops->destroy(c->sim, c->ctrl_req);
        c->ctrl_rep->ops->destroy(c->sim, c->ctrl_rep);
    }
    pool_fini(&c->msgs);
    stats_fini(&c->latency);
    free(c);
}

uint64_t msg_send(struct msg_conn *c, uint64_t bytes, void *meta)
{
    SIM_ASSERT(bytes > 0);
    struct msg *m = pool_get(&c->msgs);
    memset(m, 0, sizeof(*m));
    m->conn = c;
    m->id = c->next_id++;
    m->bytes = bytes;
    m->meta = meta;
    m->t_submit = c->sim->now;
    if (c->tail)
        c->tail->next = m;
    else
        c->head = m;
    c->tail = m;
    if (!c->next_push)
        c->next_push = m;
    if (!c->next_ack)
        c->next_ack = m;
    if (!c->next_deliver)
        c->next_deliver = m;
    c->submitted++;
    m->job.cost_ps = msg_tx_cost_ps(&c->cost, bytes);
    m->job.done = tx_done;
    hostcpu_submit(c->sim, &c->src->cpu, &m->job);
    return m->id;
}
