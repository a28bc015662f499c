#include "models/transport/rdma.h"

#include <stdlib.h>
#include <string.h>

#include "models/transport/roce_hdr.h"
#include "sim/util.h"

#define RDMA_QPN_BASE 0x100u /* QP numbers below are special (QP0, QP1) or unused */
#define L4_OFF (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN)
#define RDMA_RKEY 0x1000u
#define RDMA_DEFAULT_MSG (1u << 20)
#define RDMA_MAX_MSG (1ull << 31)

/* The per-host RDMA NIC: the endpoint of UDP port 4791 and the host's queue pairs by number. */
struct rdma_nic {
    struct endpoint ep;
    struct host *host;
    struct rdma_qp **qps; /* qps[qpn - RDMA_QPN_BASE]; NULL once released */
    uint32_t nqps;
    uint32_t cap;
    uint32_t live;
};

static const char *const verb_names[] = {"write", "send", NULL};
static const char *const cc_names[] = {"none", "dcqcn", NULL};

#define RP(field) offsetof(struct rdma_flow_cfg, field)
static const struct param_def rdma_params[] = {
    FLOW_COMMON_PARAMS(struct rdma_flow_cfg),
    {"mtu", PARAM_SIZE, RP(mtu_bytes), "1024B", "64B", "4096B", NULL,
     "payload bytes per packet (RoCE path MTU)"},
    {"message", PARAM_SIZE, RP(message_bytes), "0", "0", "2GB", NULL,
     "message size; 0 = `bytes` is one message (1MiB messages when bytes is 0 or > 2GB)"},
    {"verb", PARAM_ENUM, RP(verb), "write", NULL, NULL, verb_names,
     "write: RDMA WRITE (RETH on the first packet); send: SEND"},
    {"cc", PARAM_ENUM, RP(cc), "dcqcn", NULL, NULL, cc_names,
     "congestion control; dcqcn sends data ECT(0) whatever `ecn` says"},
    {"ack_every", PARAM_INT, RP(ack_every), "1", "1", "65536", NULL,
     "the requester asks for an ACK every this many packets and at each message end"},
    {"rto", PARAM_TIME, RP(rto_ps), "1ms", "1us", "10s", NULL,
     "retransmission timeout: go back to the oldest unacknowledged packet"},
    {"cnp_priority", PARAM_INT, RP(cnp_priority), "7", "-1", "7", NULL,
     "traffic class of CNPs (-1 = the flow's priority)"},
    {"cnp_interval", PARAM_TIME, RP(cnp_interval_ps), "50us", "0", "1s", NULL,
     "notification point: at most one CNP per this interval per flow (DCQCN §3.2)"},
    {"alpha_timer", PARAM_TIME, RP(alpha_timer_ps), "55us", "1ns", "1s", NULL,
     "reaction point: alpha decays by (1 - g) each period without a CNP (K in DCQCN)"},
    {"rate_timer", PARAM_TIME, RP(rate_timer_ps), "55us", "1ns", "1s", NULL,
     "reaction point: rate increase period (T in DCQCN)"},
    {"byte_counter", PARAM_SIZE, RP(byte_counter_bytes), "10MB", "0", NULL, NULL,
     "reaction point: a rate increase every this many bytes sent (B in DCQCN; 0 = off)"},
    {"g", PARAM_DOUBLE, RP(g), "0.00390625", "0", "1", NULL, "alpha gain (DCQCN: 1/256)"},
    {"alpha_init", PARAM_DOUBLE, RP(alpha_init), "1", "0", "1", NULL, "alpha before the first CNP"},
    {"rate_ai", PARAM_RATE, RP(rai_bps), "40Mbps", "0", "100Tbps", NULL,
     "additive increase step R_AI"},
    {"rate_hai", PARAM_RATE, RP(rhai_bps), "400Mbps", "0", "100Tbps", NULL,
     "hyper increase step R_HAI"},
    {"fast_recovery", PARAM_INT, RP(f_stages), "5", "0", "1000", NULL, "fast recovery stages F"},
    {"min_rate", PARAM_RATE, RP(min_rate_bps), "10Mbps", "1Kbps", "100Tbps", NULL,
     "lowest sending rate"},
    {"max_rate", PARAM_RATE, RP(max_rate_bps), "0", "0", "100Tbps", NULL,
     "highest (and starting) rate; 0 = the sender's link rate"},
    {"rate_interval", PARAM_TIME, RP(rate_interval_ps), "0", "0", NULL, NULL,
     "sample the DCQCN rate (Rc, Rt) and alpha this often into summary.json (0 = off)"},
    {"psn_start", PARAM_INT, RP(psn_start), "0", "0", "16777215", NULL,
     "PSN of the first packet (24 bits; PSNs wrap)"},
};
static const size_t rdma_nparams = ARRAY_LEN(rdma_params);

/* --- per-host NIC and queue pairs --- */

static void nic_recv(struct endpoint *ep, struct host *h, struct pkt *p);

static struct rdma_nic *nic_find(struct host *h)
{
    struct endpoint *ep = host_endpoint(h, ROCE_UDP_PORT);
    return ep && ep->recv == nic_recv ? container_of(ep, struct rdma_nic, ep) : NULL;
}

static void qp_register(struct host *h, struct rdma_qp *qp, bool requester)
{
    struct rdma_nic *nic = nic_find(h);
    if (!nic) {
        nic = xcalloc(1, sizeof(*nic));
        nic->host = h;
        nic->ep.recv = nic_recv;
        bool bound = host_bind_port(h, &nic->ep, ROCE_UDP_PORT);
        SIM_ASSERT(bound); /* nothing else binds 4791 */
    }
    if (nic->nqps == nic->cap) {
        nic->cap = nic->cap ? 2 * nic->cap : 8;
        nic->qps = xrealloc(nic->qps, nic->cap * sizeof(*nic->qps));
    }
    SIM_ASSERT(RDMA_QPN_BASE + nic->nqps <= 0xffffffu);
    qp->nic = nic;
    qp->qpn = RDMA_QPN_BASE + nic->nqps;
    qp->requester = requester;
    nic->qps[nic->nqps++] = qp;
    nic->live++;
}

static void qp_release(struct rdma_qp *qp)
{
    struct rdma_nic *nic = qp->nic;
    if (!nic)
        return;
    nic->qps[qp->qpn - RDMA_QPN_BASE] = NULL;
    qp->nic = NULL;
    if (--nic->live == 0) {
        host_unbind(nic->host, &nic->ep);
        free(nic->qps);
        free(nic);
    }
}

/* --- packet layout --- */

static struct sim *flow_sim(const struct rdma_flow *f)
{
    return f->base.src->node.sim;
}

static uint32_t psn_of(const struct rdma_flow *f, uint64_t idx)
{
    return (uint32_t)((f->psn_base + idx) & ROCE_PSN_MASK);
}

/* The packet index a PSN names, taking the nearest to `ref` (PSNs wrap at 2^24). */
static uint64_t idx_of(const struct rdma_flow *f, uint32_t psn, uint64_t ref)
{
    int64_t i = (int64_t)ref + roce_psn_diff(psn, psn_of(f, ref));
    return i < 0 ? UINT64_MAX : (uint64_t)i;
}

/* A RoCEv2 frame: Ethernet/IPv4/UDP 4791/BTH, `ext` more header bytes (written by the caller
 * at p->hdr + L4_OFF + ROCE_BTH_LEN), `virt` payload and pad bytes that exist only as length,
 * and the ICRC. */
static struct pkt *roce_pkt(struct rdma_flow *f, struct host *from, struct host *to, uint8_t prio,
                            uint8_t ecn, const struct roce_bth *bth, uint32_t ext, uint32_t virt)
{
    struct sim *sim = flow_sim(f);
    struct pkt *p = pkt_alloc(sim);
    p->flow = f->base.index;
    p->seq = bth->psn;
    p->prio = prio;
    p->tc = prio;
    p->t_created = sim->now;
    struct pkt_udp_spec spec = {
        .src_ip = from->ip,
        .dst_ip = to->ip,
        .src_port = f->base.sport,
        .dst_port = ROCE_UDP_PORT,
        .dscp = (uint8_t)f->cfg.common.dscp,
        .ecn = ecn,
        .payload_bytes = ROCE_BTH_LEN + ext + virt + ROCE_ICRC_LEN,
    };
    pkt_build_udp(p, &spec);
    roce_bth_write(p->hdr + L4_OFF, bth);
    memset(p->hdr + L4_OFF + ROCE_BTH_LEN, 0, ext);
    p->hdr_len = (uint16_t)(L4_OFF + ROCE_BTH_LEN + ext);
    return p;
}

static uint64_t msg_bytes(const struct rdma_flow *f)
{
    uint64_t b = f->cfg.common.bytes;
    if (f->cfg.message_bytes)
        return f->cfg.message_bytes;
    return b > 0 && b <= RDMA_MAX_MSG ? b : RDMA_DEFAULT_MSG;
}

/* Where packet `idx` sits: its message, its place in it, the message length, its payload. */
struct seg {
    uint64_t msg;
    uint64_t k;
    uint64_t npkts;
    uint64_t msg_len;
    uint32_t payload;
};

/* Payload bytes per packet: the path MTU less the stream's tag (DDL shim), if any. */
static uint64_t data_mtu(const struct rdma_flow *f)
{
    return f->cfg.mtu_bytes - flow_tag_bytes(&f->base);
}

/* Stream mode: the pushed message holding packet `idx` (binary search; idx >= snd_una). */
static const struct rdma_smsg *smsg_of(const struct rdma_flow *f, uint64_t idx)
{
    size_t lo = f->smsg_head;
    size_t hi = f->nsmsg;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->smsg[mid].first <= idx)
            lo = mid;
        else
            hi = mid;
    }
    SIM_ASSERT(lo < f->nsmsg && idx >= f->smsg[lo].first &&
               idx < f->smsg[lo].first + f->smsg[lo].npkts);
    return &f->smsg[lo];
}

/* Stream offset of packet idx's first byte. */
static uint64_t stream_off(const struct rdma_flow *f, uint64_t idx)
{
    if (idx >= f->total_pkts)
        return f->base.pushed;
    const struct rdma_smsg *m = smsg_of(f, idx);
    return m->off + (idx - m->first) * data_mtu(f);
}

static struct seg segment(const struct rdma_flow *f, uint64_t idx)
{
    struct seg s;
    uint64_t mb = msg_bytes(f);
    uint64_t mtu = data_mtu(f);
    if (f->base.streaming) {
        const struct rdma_smsg *m = smsg_of(f, idx);
        s.msg = (uint64_t)(m - f->smsg);
        s.k = idx - m->first;
        s.msg_len = m->len;
        s.npkts = m->npkts;
        s.payload = (uint32_t)(s.k + 1 < s.npkts ? mtu : s.msg_len - s.k * mtu);
        return s;
    }
    s.msg = idx / f->msg_pkts;
    s.k = idx % f->msg_pkts;
    s.msg_len = mb;
    if (f->cfg.common.bytes)
        s.msg_len = MIN(mb, f->cfg.common.bytes - s.msg * mb);
    s.npkts = (s.msg_len + mtu - 1) / mtu;
    s.payload = (uint32_t)(s.k + 1 < s.npkts ? mtu : s.msg_len - s.k * mtu);
    return s;
}

static uint8_t data_opcode(const struct rdma_flow *f, const struct seg *s)
{
    bool w = f->cfg.verb == RDMA_VERB_WRITE;
    if (s->npkts == 1)
        return w ? ROCE_OP_WRITE_ONLY : ROCE_OP_SEND_ONLY;
    if (s->k == 0)
        return w ? ROCE_OP_WRITE_FIRST : ROCE_OP_SEND_FIRST;
    if (s->k + 1 == s->npkts)
        return w ? ROCE_OP_WRITE_LAST : ROCE_OP_SEND_LAST;
    return w ? ROCE_OP_WRITE_MIDDLE : ROCE_OP_SEND_MIDDLE;
}

static bool op_is_last(uint8_t op)
{
    return op == ROCE_OP_WRITE_ONLY || op == ROCE_OP_WRITE_LAST || op == ROCE_OP_SEND_ONLY ||
           op == ROCE_OP_SEND_LAST;
}

/* The request opcodes this requester sends (no immediate data, no reads or atomics). */
static bool op_is_data(uint8_t op)
{
    switch (op) {
    case ROCE_OP_SEND_FIRST:
    case ROCE_OP_SEND_MIDDLE:
    case ROCE_OP_SEND_LAST:
    case ROCE_OP_SEND_ONLY:
    case ROCE_OP_WRITE_FIRST:
    case ROCE_OP_WRITE_MIDDLE:
    case ROCE_OP_WRITE_LAST:
    case ROCE_OP_WRITE_ONLY:
        return true;
    default:
        return false;
    }
}

static struct pkt *data_pkt(struct rdma_flow *f, uint64_t idx, uint32_t *payload)
{
    struct seg s = segment(f, idx);
    uint8_t op = data_opcode(f, &s);
    uint32_t pad = (4 - s.payload % 4) % 4;
    struct roce_bth bth = {
        .opcode = op,
        .pad = (uint8_t)pad,
        .pkey = ROCE_PKEY_DEFAULT,
        .dqpn = f->resp.qpn,
        .ack_req = s.k + 1 == s.npkts || (idx + 1) % (uint64_t)f->cfg.ack_every == 0,
        .psn = psn_of(f, idx),
    };
    bool ect = f->cfg.cc == RDMA_CC_DCQCN || f->cfg.common.ecn;
    uint32_t ext = roce_op_has_reth(op) ? ROCE_RETH_LEN : 0;
    uint16_t tag = flow_tag_bytes(&f->base);
    struct pkt *p = roce_pkt(f, f->base.src, f->base.dst, (uint8_t)f->cfg.common.priority,
                             ect ? PKT_ECN_ECT0 : PKT_ECN_NOT_ECT, &bth, ext,
                             s.payload + pad + tag);
    if (tag)
        flow_tag_packet(&f->base, stream_off(f, idx), s.payload, p);
    if (ext) {
        struct roce_reth r = {
            .va = f->base.streaming ? f->smsg[s.msg].off : s.msg * msg_bytes(f),
            .rkey = RDMA_RKEY + f->base.index,
            .dma_len = (uint32_t)s.msg_len,
        };
        roce_reth_write(p->hdr + L4_OFF + ROCE_BTH_LEN, &r);
    }
    *payload = s.payload;
    return p;
}

/* --- requester (reaction point) --- */

static void stop_timers(struct rdma_flow *f)
{
    struct evq *q = &flow_sim(f)->evq;
    flow_cancel_timers(&f->base, flow_sim(f));
    evq_cancel(q, &f->rto);
    evq_cancel(q, &f->alpha);
    evq_cancel(q, &f->rate);
}

/* One past the last packet the requester may send now: after `stop`, no new message starts,
 * but the one begun is finished. */
static uint64_t send_limit(const struct rdma_flow *f)
{
    const struct flow_cfg *c = &f->cfg.common;
    if (c->stop_ps && flow_sim(f)->now >= c->stop_ps) {
        uint64_t end = (f->snd_max + f->msg_pkts - 1) / f->msg_pkts * f->msg_pkts;
        return MIN(end, f->total_pkts);
    }
    return f->total_pkts;
}

static void maybe_finish(struct rdma_flow *f)
{
    if (f->done_ps >= 0 || !f->started)
        return;
    if (f->base.streaming) {
        /* idle until the next push: stop the timers so an idle connection ends the run */
        if (f->snd_una >= f->total_pkts && f->snd_una == f->snd_max && !f->idle) {
            f->idle = true;
            stop_timers(f);
        }
        return;
    }
    if (f->snd_una >= send_limit(f) && f->snd_una == f->snd_max) {
        f->done_ps = flow_sim(f)->now;
        stop_timers(f);
    }
}

static uint64_t pace_rate_bps(const struct rdma_flow *f)
{
    return f->cfg.cc == RDMA_CC_DCQCN ? f->dcqcn.rc_bps : f->dcqcn.cfg.line_rate_bps;
}

static struct pkt *requester_next(struct nic_source *s, struct host *h)
{
    (void)h;
    struct rdma_flow *f = container_of(s, struct rdma_flow, source);
    struct sim *sim = flow_sim(f);
    if (!f->started || f->done_ps >= 0)
        return NULL;
    if (f->snd_nxt >= send_limit(f)) {
        maybe_finish(f);
        return NULL;
    }
    if (sim->now < f->next_tx_ps) {
        if (!evq_timer_pending(&f->pace))
            evq_schedule(&sim->evq, &f->pace, f->next_tx_ps);
        return NULL;
    }
    uint32_t payload;
    struct pkt *p = data_pkt(f, f->snd_nxt, &payload);
    struct flow_stats *st = &f->base.st;
    if (f->snd_nxt < f->snd_max)
        st->retx_pkts++;
    f->snd_nxt++;
    f->snd_max = MAX(f->snd_max, f->snd_nxt);
    if (st->tx_pkts == 0)
        st->first_tx_ps = sim->now;
    st->tx_pkts++;
    st->tx_bytes += payload;
    /* The rate limiter spaces packet starts by their wire time at the current rate, so at line
     * rate it never holds back a packet the link could take. */
    f->next_tx_ps =
        sim->now + simtime_tx_ps(link_wire_bytes(&f->link, p->size_bytes), pace_rate_bps(f));
    if (f->cfg.cc == RDMA_CC_DCQCN)
        dcqcn_on_bytes(&f->dcqcn, p->size_bytes);
    if (!evq_timer_pending(&f->rto))
        evq_schedule(&sim->evq, &f->rto, sim->now + f->cfg.rto_ps);
    return p;
}

static void sample_fire(struct sim *sim, struct evq_timer *t)
{
    struct rdma_flow *f = container_of(t, struct rdma_flow, base.sample);
    flow_sample(&f->base, &(struct rdma_sample){
                              .t_ps = sim->now,
                              .rc_bps = pace_rate_bps(f),
                              .rt_bps = f->dcqcn.rt_bps,
                              .alpha = f->dcqcn.alpha,
                          });
    /* sample while the flow has work; an idle stream resumes sampling on its next push */
    if (f->done_ps < 0 && !f->idle)
        evq_schedule(&sim->evq, t, sim->now + f->cfg.rate_interval_ps);
}

/* summary.json's rate_samples: one [time_s, rc_bps, rt_bps, alpha] row per sample. */
static json_t *sample_json(const void *rec, unsigned col)
{
    (void)col;
    const struct rdma_sample *x = rec;
    return json_pack("[fIIf]", simtime_sec(x->t_ps), (json_int_t)x->rc_bps,
                     (json_int_t)x->rt_bps, x->alpha);
}

static void pace_fire(struct sim *sim, struct evq_timer *t)
{
    struct rdma_flow *f = container_of(t, struct rdma_flow, pace);
    if (!f->started) {
        f->started = true;
        f->next_tx_ps = sim->now;
        if (f->cfg.cc == RDMA_CC_DCQCN) {
            evq_schedule(&sim->evq, &f->alpha, sim->now + f->cfg.alpha_timer_ps);
            evq_schedule(&sim->evq, &f->rate, sim->now + f->cfg.rate_timer_ps);
        }
    }
    host_activate(f->base.src, &f->source);
}

static void rto_fire(struct sim *sim, struct evq_timer *t)
{
    struct rdma_flow *f = container_of(t, struct rdma_flow, rto);
    if (f->snd_una >= f->snd_max)
        return;
    f->base.st.timeouts++;
    f->snd_nxt = f->snd_una;
    evq_schedule(&sim->evq, &f->rto, sim->now + f->cfg.rto_ps);
    host_activate(f->base.src, &f->source);
}

static void alpha_fire(struct sim *sim, struct evq_timer *t)
{
    struct rdma_flow *f = container_of(t, struct rdma_flow, alpha);
    dcqcn_alpha_timer(&f->dcqcn);
    evq_schedule(&sim->evq, &f->alpha, sim->now + f->cfg.alpha_timer_ps);
    maybe_finish(f);
}

static void rate_fire(struct sim *sim, struct evq_timer *t)
{
    struct rdma_flow *f = container_of(t, struct rdma_flow, rate);
    dcqcn_rate_timer(&f->dcqcn);
    evq_schedule(&sim->evq, &f->rate, sim->now + f->cfg.rate_timer_ps);
    maybe_finish(f);
}

/* Progress (or a go-back) restarts the retransmission timer; nothing outstanding stops it. */
static void rearm_rto(struct rdma_flow *f)
{
    struct sim *sim = flow_sim(f);
    if (f->snd_una < f->snd_max)
        evq_reschedule(&sim->evq, &f->rto, sim->now + f->cfg.rto_ps);
    else
        evq_cancel(&sim->evq, &f->rto);
}

static void requester_recv(struct rdma_flow *f, struct pkt *p, const struct roce_bth *bth)
{
    struct sim *sim = flow_sim(f);
    if (bth->opcode == ROCE_OP_CNP) {
        f->cnps_rx++;
        if (f->cfg.cc == RDMA_CC_DCQCN && f->done_ps < 0 && f->started) {
            /* DCQCN §3.1: cut, and restart the α and rate-increase periods. */
            dcqcn_on_cnp(&f->dcqcn);
            evq_reschedule(&sim->evq, &f->alpha, sim->now + f->cfg.alpha_timer_ps);
            evq_reschedule(&sim->evq, &f->rate, sim->now + f->cfg.rate_timer_ps);
        }
        return;
    }
    if (bth->opcode != ROCE_OP_ACK || p->hdr_len < L4_OFF + ROCE_BTH_LEN + ROCE_AETH_LEN)
        return;
    struct roce_aeth a;
    roce_aeth_read(p->hdr + L4_OFF + ROCE_BTH_LEN, &a);
    uint64_t idx = idx_of(f, bth->psn, f->snd_una);
    if (ROCE_AETH_IS_NAK(a.syndrome)) {
        /* PSN sequence error: the responder expects `idx`; everything before it arrived.
         * Go back N (IBA vol. 1 §9.7.5.1.2). */
        f->naks_rx++;
        if (idx == UINT64_MAX || idx < f->snd_una || idx > f->snd_max)
            return;
        f->snd_una = idx;
        if (f->snd_nxt > idx)
            f->snd_nxt = idx;
        rearm_rto(f);
        host_activate(f->base.src, &f->source);
        return;
    }
    if (idx == UINT64_MAX || idx < f->snd_una || idx >= f->snd_max)
        return; /* stale or duplicate */
    f->snd_una = idx + 1;
    if (f->snd_nxt < f->snd_una)
        f->snd_nxt = f->snd_una;
    rearm_rto(f);
    if (f->base.streaming) {
        uint64_t acked = stream_off(f, f->snd_una);
        while (f->smsg_head < f->nsmsg &&
               f->smsg[f->smsg_head].first + f->smsg[f->smsg_head].npkts <= f->snd_una)
            f->smsg_head++;
        flow_report_acked(&f->base, acked);
    }
    maybe_finish(f);
}

/* --- responder (notification point) --- */

static uint8_t cnp_prio(const struct rdma_flow *f)
{
    int64_t p = f->cfg.cnp_priority < 0 ? f->cfg.common.priority : f->cfg.cnp_priority;
    return (uint8_t)p;
}

static void send_ack(struct rdma_flow *f, uint8_t syndrome, uint32_t psn)
{
    struct roce_bth bth = {
        .opcode = ROCE_OP_ACK,
        .pkey = ROCE_PKEY_DEFAULT,
        .dqpn = f->req.qpn,
        .psn = psn,
    };
    struct pkt *p = roce_pkt(f, f->base.dst, f->base.src, (uint8_t)f->cfg.common.priority,
                             PKT_ECN_NOT_ECT, &bth, ROCE_AETH_LEN, 0);
    struct roce_aeth a = {.syndrome = syndrome, .msn = f->rcv_msn};
    roce_aeth_write(p->hdr + L4_OFF + ROCE_BTH_LEN, &a);
    if (ROCE_AETH_IS_NAK(syndrome))
        f->naks_sent++;
    else
        f->acks_sent++;
    host_send(f->base.dst, p);
}

/* DCQCN §3.2: a CE-marked arrival triggers a CNP unless one went out within cnp_interval. */
static void maybe_cnp(struct rdma_flow *f)
{
    sim_time_t now = flow_sim(f)->now;
    if (f->last_cnp_ps >= 0 && now - f->last_cnp_ps < f->cfg.cnp_interval_ps)
        return;
    if (f->last_cnp_ps >= 0) {
        sim_time_t gap = now - f->last_cnp_ps;
        if (f->min_cnp_gap_ps < 0 || gap < f->min_cnp_gap_ps)
            f->min_cnp_gap_ps = gap;
    }
    f->last_cnp_ps = now;
    struct roce_bth bth = {
        .opcode = ROCE_OP_CNP,
        .pkey = ROCE_PKEY_DEFAULT,
        .becn = true,
        .dqpn = f->req.qpn,
    };
    struct pkt *p = roce_pkt(f, f->base.dst, f->base.src, cnp_prio(f), PKT_ECN_NOT_ECT, &bth,
                             ROCE_CNP_PAD_LEN, 0);
    f->cnps_sent++;
    host_send(f->base.dst, p);
}

static void responder_recv(struct rdma_flow *f, struct pkt *p, const struct roce_bth *bth)
{
    struct sim *sim = flow_sim(f);
    if (!op_is_data(bth->opcode))
        return;
    flow_note_rx(&f->base, p, sim->now);
    if (pkt_ecn(p) == PKT_ECN_CE)
        maybe_cnp(f);
    uint64_t idx = idx_of(f, bth->psn, f->rcv_nxt);
    if (idx == f->rcv_nxt) {
        struct flow_stats *st = &f->base.st;
        uint16_t tag_off =
            (uint16_t)(L4_OFF + ROCE_BTH_LEN + (roce_op_has_reth(bth->opcode) ? ROCE_RETH_LEN : 0));
        flow_rx_packet(&f->base, p, tag_off);
        st->rx_bytes += p->size_bytes - p->hdr_len - bth->pad - ROCE_ICRC_LEN;
        f->rcv_nxt++;
        f->nak_sent = false;
        if (op_is_last(bth->opcode))
            f->rcv_msn = (f->rcv_msn + 1) & ROCE_PSN_MASK;
        if (f->cfg.common.bytes && st->rx_bytes == f->cfg.common.bytes)
            flow_complete(&f->base, sim->now);
        if (bth->ack_req)
            send_ack(f, ROCE_AETH_ACK, bth->psn);
        flow_report_delivered(&f->base, st->rx_bytes);
    } else if (idx != UINT64_MAX && idx > f->rcv_nxt) {
        /* One NAK per gap: later packets of the same window are dropped silently. */
        f->ooo_pkts++;
        if (!f->nak_sent) {
            f->nak_sent = true;
            send_ack(f, ROCE_AETH_NAK_PSN_SEQ, psn_of(f, f->rcv_nxt));
        }
    } else {
        /* A duplicate: acknowledge again what arrived, in case the ACK was lost. */
        f->dup_pkts++;
        if (bth->ack_req)
            send_ack(f, ROCE_AETH_ACK, psn_of(f, f->rcv_nxt - 1));
    }
}

static void nic_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    struct rdma_nic *nic = container_of(ep, struct rdma_nic, ep);
    struct sim *sim = h->node.sim;
    if (p->hdr_len >= L4_OFF + ROCE_BTH_LEN) {
        struct roce_bth bth;
        roce_bth_read(p->hdr + L4_OFF, &bth);
        uint32_t slot = bth.dqpn - RDMA_QPN_BASE;
        struct rdma_qp *qp = bth.dqpn >= RDMA_QPN_BASE && slot < nic->nqps ? nic->qps[slot] : NULL;
        if (qp && qp->requester)
            requester_recv(container_of(qp, struct rdma_flow, req), p, &bth);
        else if (qp)
            responder_recv(container_of(qp, struct rdma_flow, resp), p, &bth);
    }
    pkt_free(sim, p);
}

/* --- flow_ops --- */

static int rdma_check(void *cfgp, const struct cfg_node *m, struct diag *d, const char *name,
                      sim_time_t scenario_stop_ps)
{
    const struct rdma_flow_cfg *c = cfgp;
    int e = 0;
    if (c->common.bytes == 0 && c->common.stop_ps == 0 && scenario_stop_ps == 0) {
        diag_error(d, m->loc, "flow '%s' never ends: give 'bytes' or 'stop', or a scenario 'stop'",
                   name);
        e++;
    }
    if (c->max_rate_bps && c->min_rate_bps > c->max_rate_bps) {
        diag_error(d, m->loc, "flow '%s': min_rate exceeds max_rate", name);
        e++;
    }
    return e;
}

static struct flow *rdma_create(struct sim *sim, uint32_t index, const char *name, const void *cfgp,
                                struct host *src, struct host *dst)
{
    const struct rdma_flow_cfg *cfg = cfgp;
    struct rdma_flow *f = xcalloc(1, sizeof(*f));
    flow_base_init(&f->base, &rdma_flow_ops, index, name, &cfg->common, src, dst);
    f->cfg = *cfg;
    qp_register(src, &f->req, true);
    qp_register(dst, &f->resp, false);
    SIM_ASSERT(src->node.nports > 0);
    const struct link_cfg *lc = &src->node.ports[0]->tx.cfg;
    f->link_rate_bps = lc->rate_bps;
    f->link = *lc;
    f->base.sport = (uint16_t)(0xc000u | ((f->req.qpn ^ index) & 0x3fffu));
    f->psn_base = (uint32_t)cfg->psn_start;
    uint64_t mb = msg_bytes(f);
    f->msg_pkts = (mb + cfg->mtu_bytes - 1) / cfg->mtu_bytes;
    if (cfg->common.bytes) {
        uint64_t nmsg = (cfg->common.bytes + mb - 1) / mb;
        uint64_t last = cfg->common.bytes - (nmsg - 1) * mb;
        f->total_pkts = (nmsg - 1) * f->msg_pkts + (last + cfg->mtu_bytes - 1) / cfg->mtu_bytes;
    } else {
        f->total_pkts = UINT64_MAX;
    }
    uint64_t line = cfg->max_rate_bps ? cfg->max_rate_bps : f->link_rate_bps;
    struct dcqcn_cfg dc = {
        .line_rate_bps = line,
        .min_rate_bps = MIN(cfg->min_rate_bps, line),
        .rai_bps = cfg->rai_bps,
        .rhai_bps = cfg->rhai_bps,
        .g = cfg->g,
        .alpha_init = cfg->alpha_init,
        .byte_counter_bytes = cfg->byte_counter_bytes,
        .f_stages = (uint32_t)cfg->f_stages,
    };
    dcqcn_init(&f->dcqcn, &dc);
    f->source.next_pkt = requester_next;
    f->done_ps = -1;
    f->last_cnp_ps = -1;
    f->min_cnp_gap_ps = -1;
    evq_timer_init(&f->rto, rto_fire, EVQ_PHASE_DEFAULT);
    evq_timer_init(&f->alpha, alpha_fire, EVQ_PHASE_DEFAULT);
    evq_timer_init(&f->rate, rate_fire, EVQ_PHASE_DEFAULT);
    flow_samples_init(&f->base, sim, sizeof(struct rdma_sample), sample_json);
    flow_start_timers(&f->base, sim, &f->pace, pace_fire, sample_fire, cfg->rate_interval_ps);
    return &f->base;
}

/* Stream mode: the bytes pushed since the last push become one RDMA message. */
static void rdma_push(struct flow *fb)
{
    struct rdma_flow *f = container_of(fb, struct rdma_flow, base);
    struct sim *sim = flow_sim(f);
    if (f->total_pkts == UINT64_MAX) /* attach: created without `bytes`, now a stream */
        f->total_pkts = 0;
    uint64_t off = f->nsmsg ? f->smsg[f->nsmsg - 1].off + f->smsg[f->nsmsg - 1].len : 0;
    uint64_t len = fb->pushed - off;
    if (len == 0)
        return;
    if (f->nsmsg == f->cap_smsg) {
        if (f->smsg_head > f->nsmsg / 2) { /* drop acknowledged messages */
            memmove(f->smsg, f->smsg + f->smsg_head, (f->nsmsg - f->smsg_head) * sizeof(*f->smsg));
            f->nsmsg -= f->smsg_head;
            f->smsg_head = 0;
        } else {
            f->cap_smsg = f->cap_smsg ? 2 * f->cap_smsg : 16;
            f->smsg = xrealloc(f->smsg, f->cap_smsg * sizeof(*f->smsg));
        }
    }
    uint64_t mtu = data_mtu(f);
    uint64_t npkts = (len + mtu - 1) / mtu;
    f->smsg[f->nsmsg++] = (struct rdma_smsg){f->total_pkts, npkts, len, off};
    f->total_pkts += npkts;
    if (!f->started)
        return; /* the start timer activates the source */
    if (f->idle) {
        f->idle = false;
        if (f->cfg.cc == RDMA_CC_DCQCN) {
            evq_schedule(&sim->evq, &f->alpha, sim->now + f->cfg.alpha_timer_ps);
            evq_schedule(&sim->evq, &f->rate, sim->now + f->cfg.rate_timer_ps);
        }
        if (f->next_tx_ps < sim->now)
            f->next_tx_ps = sim->now;
        if (f->cfg.rate_interval_ps && !evq_timer_pending(&f->base.sample))
            evq_schedule(&sim->evq, &f->base.sample, sim->now);
    }
    host_activate(f->base.src, &f->source);
}

static void rdma_destroy(struct sim *sim, struct flow *fb)
{
    struct rdma_flow *f = container_of(fb, struct rdma_flow, base);
    stop_timers(f);
    free(f->smsg);
    qp_release(&f->req);
    qp_release(&f->resp);
    flow_free(sim, fb);
}

static void rdma_stats_json(const struct flow *fb, json_t *o)
{
    const struct rdma_flow *f = container_of(fb, struct rdma_flow, base);
    json_object_set_new(o, "cnps_sent", json_integer((json_int_t)f->cnps_sent));
    json_object_set_new(o, "cnps_received", json_integer((json_int_t)f->cnps_rx));
    json_object_set_new(o, "rate_cuts", json_integer((json_int_t)f->dcqcn.cuts));
    json_object_set_new(o, "rate_increases", json_integer((json_int_t)f->dcqcn.increases));
    json_object_set_new(o, "final_rate_bps", json_integer((json_int_t)pace_rate_bps(f)));
    json_object_set_new(o, "target_rate_bps", json_integer((json_int_t)f->dcqcn.rt_bps));
    json_object_set_new(o, "alpha", json_real(f->dcqcn.alpha));
    json_object_set_new(o, "acks_sent", json_integer((json_int_t)f->acks_sent));
    json_object_set_new(o, "naks_sent", json_integer((json_int_t)f->naks_sent));
    json_object_set_new(o, "naks_received", json_integer((json_int_t)f->naks_rx));
    json_object_set_new(o, "out_of_order_pkts", json_integer((json_int_t)f->ooo_pkts));
    json_object_set_new(o, "duplicate_pkts", json_integer((json_int_t)f->dup_pkts));
    json_object_set_new(o, "min_cnp_gap_s",
                        f->min_cnp_gap_ps < 0 ? json_null()
                                              : json_real(simtime_sec(f->min_cnp_gap_ps)));
    json_object_set_new(o, "sender_done_s",
                        f->done_ps < 0 ? json_null() : json_real(simtime_sec(f->done_ps)));
    if (f->base.samples.count) {
        json_object_set_new(o, "rate_samples_columns",
                            json_pack("[ssss]", "time_s", "rc_bps", "rt_bps", "alpha"));
        json_object_set_new(o, "rate_samples", spool_json_ref(&f->base.samples, 0));
    }
}

const struct flow_ops rdma_flow_ops = {
    .type = "rdma",
    .summary = "RDMA RC over RoCEv2: go-back-N, DCQCN congestion control",
    .params = rdma_params,
    .nparams = &rdma_nparams,
    .cfg_size = sizeof(struct rdma_flow_cfg),
    .check = rdma_check,
    .create = rdma_create,
    .destroy = rdma_destroy,
    .stats_json = rdma_stats_json,
    .reliable = true,
    .push = rdma_push,
};
