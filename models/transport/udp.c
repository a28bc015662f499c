#include "models/transport/udp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/util.h"

#define UDP_HEADERS (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN)

static const char *const pattern_names[] = {"burst", "cbr", "poisson", NULL};
static const char *const dist_names[] = {"fixed", "exponential", "uniform", "pareto", NULL};

#define FP(field) offsetof(struct udp_flow_cfg, field)
static const struct param_def udp_params[] = {
    FLOW_COMMON_PARAMS(struct udp_flow_cfg),
    {"pattern", PARAM_ENUM, FP(pattern), "burst", NULL, NULL, pattern_names,
     "burst: bytes at line rate; cbr: fixed gaps; poisson: exponential gaps"},
    {"rate", PARAM_RATE, FP(rate_bps), "0", "0", "100Tbps", NULL,
     "cbr/poisson: mean offered rate in frame bytes (instead of interval)"},
    {"interval", PARAM_TIME, FP(interval_ps), "0", "0", NULL, NULL,
     "cbr/poisson: (mean) time between messages"},
    {"mtu", PARAM_SIZE, FP(mtu_bytes), "1500B", "64B", "9216B", NULL,
     "IP MTU; packets carry up to mtu - 28 payload bytes"},
    {"size", PARAM_SIZE, FP(size_bytes), "0", "0", NULL, NULL,
     "cbr/poisson: (mean) message payload bytes (0 = one full packet)"},
    {"size_dist", PARAM_ENUM, FP(size_dist), "fixed", NULL, NULL, dist_names,
     "poisson: message size distribution with mean `size`"},
    {"size_min", PARAM_SIZE, FP(size_min_bytes), "1B", "1B", NULL, NULL,
     "uniform: lower bound; pareto: scale (minimum)"},
    {"size_max", PARAM_SIZE, FP(size_max_bytes), "0", "0", NULL, NULL,
     "uniform: upper bound; others: cap (0 = none)"},
    {"pareto_shape", PARAM_DOUBLE, FP(pareto_shape), "1.5", "1.01", "100", NULL,
     "pareto: shape alpha"},
};
static const size_t udp_nparams = ARRAY_LEN(udp_params);

static struct pkt *make_packet(struct udp_flow *f, uint32_t payload)
{
    struct sim *sim = f->base.src->node.sim;
    struct flow_stats *st = &f->base.st;
    const struct flow_cfg *c = &f->cfg.common;
    struct pkt *p = pkt_alloc(sim);
    p->flow = f->base.index;
    p->seq = (uint32_t)st->tx_pkts;
    p->prio = (uint8_t)c->priority;
    p->tc = p->prio;
    p->t_created = sim->now;
    uint16_t tag = flow_tag_bytes(&f->base);
    struct pkt_udp_spec spec = {
        .src_ip = f->base.src->ip,
        .dst_ip = f->base.dst->ip,
        .src_port = f->base.sport,
        .dst_port = f->dst_port,
        .dscp = (uint8_t)c->dscp,
        .ecn = c->ecn ? PKT_ECN_ECT0 : PKT_ECN_NOT_ECT,
        .payload_bytes = payload + tag, /* a tag (DDL shim) starts the datagram */
    };
    pkt_build_udp(p, &spec);
    p->stream_off = st->tx_bytes;
    flow_tag_packet(&f->base, st->tx_bytes, payload, p);
    if (st->tx_pkts == 0)
        st->first_tx_ps = sim->now;
    st->tx_pkts++;
    st->tx_bytes += payload;
    return p;
}

static bool budget_left(const struct udp_flow *f)
{
    const struct flow_cfg *c = &f->cfg.common;
    if (c->stop_ps && f->base.src->node.sim->now > c->stop_ps)
        return false;
    uint64_t budget = flow_budget(&f->base);
    return (budget == 0 && !f->base.streaming) || f->base.st.tx_bytes < budget;
}

static uint32_t next_payload(struct udp_flow *f, uint64_t remaining_in_msg)
{
    uint64_t n = MIN(remaining_in_msg, (uint64_t)(f->payload_max - flow_tag_bytes(&f->base)));
    uint64_t budget = flow_budget(&f->base);
    if (budget)
        n = MIN(n, budget - f->base.st.tx_bytes);
    return (uint32_t)flow_segment_limit(&f->base, f->base.st.tx_bytes, n);
}

/* Burst: one packet each time the NIC asks. */
static struct pkt *burst_next(struct nic_source *s, struct host *h)
{
    (void)h;
    struct udp_flow *f = container_of(s, struct udp_flow, source);
    if (!budget_left(f)) {
        f->done_sending = true;
        return NULL;
    }
    struct pkt *p = make_packet(f, next_payload(f, UINT64_MAX));
    /* UDP has no acknowledgements: a byte is done with once it is handed to the NIC */
    flow_report_acked(&f->base, f->base.st.tx_bytes);
    return p;
}

static uint64_t draw_size(struct udp_flow *f)
{
    const struct udp_flow_cfg *c = &f->cfg;
    double mean = (double)(c->size_bytes ? c->size_bytes : f->payload_max);
    double x;
    switch (c->size_dist) {
    case UDP_SIZE_EXPONENTIAL:
        x = gsl_ran_exponential(f->rng, mean);
        break;
    case UDP_SIZE_UNIFORM:
        x = gsl_ran_flat(f->rng, (double)c->size_min_bytes, (double)c->size_max_bytes);
        break;
    case UDP_SIZE_PARETO:
        x = gsl_ran_pareto(f->rng, c->pareto_shape, (double)c->size_min_bytes);
        break;
    default:
        x = mean;
        break;
    }
    if (c->size_max_bytes && x > (double)c->size_max_bytes)
        x = (double)c->size_max_bytes;
    return x < 1 ? 1 : (uint64_t)llround(x);
}

static void send_message(struct udp_flow *f)
{
    uint64_t left = draw_size(f);
    f->tx_msgs++;
    while (left > 0 && budget_left(f)) {
        uint32_t n = next_payload(f, left);
        left -= n;
        host_send(f->base.src, make_packet(f, n));
    }
}

static void flow_timer(struct sim *sim, struct evq_timer *t)
{
    struct udp_flow *f = container_of(t, struct udp_flow, timer);
    if (f->cfg.pattern == UDP_BURST) {
        host_activate(f->base.src, &f->source);
        return;
    }
    if (!budget_left(f)) {
        f->done_sending = true;
        return;
    }
    send_message(f);
    sim_time_t gap = f->mean_gap_ps;
    if (f->cfg.pattern == UDP_POISSON)
        gap = (sim_time_t)llround(gsl_ran_exponential(f->rng, (double)f->mean_gap_ps));
    if (budget_left(f))
        evq_schedule(&sim->evq, &f->timer, sim->now + gap);
    else
        f->done_sending = true;
}

static void sink_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    struct udp_flow *f = container_of(ep, struct udp_flow, sink);
    struct sim *sim = h->node.sim;
    struct flow_stats *st = &f->base.st;
    flow_note_rx(&f->base, p, sim->now);
    flow_rx_packet(&f->base, p, UDP_HEADERS);
    uint32_t payload = p->size_bytes - UDP_HEADERS - flow_tag_bytes(&f->base);
    st->rx_bytes += payload;
    if (f->cfg.common.bytes && st->rx_bytes == f->cfg.common.bytes)
        flow_complete(&f->base, sim->now);
    uint64_t off = p->stream_off;
    pkt_free(sim, p);
    /* Datagrams: each message completes when its own bytes are in, whatever the order (priority
     * queues and pauses reorder a stream). A lost datagram loses its message: UDP does not
     * retransmit, so use a lossless fabric or a reliable transport for messages that must
     * arrive. */
    flow_report_range(&f->base, off, payload);
}

/* Stream mode: a burst flow sends pushed bytes at line rate. */
static void udp_push(struct flow *fb)
{
    struct udp_flow *f = container_of(fb, struct udp_flow, base);
    struct sim *sim = fb->src->node.sim;
    f->done_sending = false;
    if (f->cfg.pattern == UDP_BURST && sim->now >= f->cfg.common.start_ps &&
        !evq_timer_pending(&f->timer))
        host_activate(fb->src, &f->source);
}

static int udp_check(void *cfgp, const struct cfg_node *m, struct diag *d, const char *name,
                     sim_time_t scenario_stop_ps)
{
    const struct udp_flow_cfg *c = cfgp;
    if (c->pattern == UDP_BURST && c->common.bytes == 0) {
        diag_error(d, m->loc, "flow '%s': a burst needs 'bytes'", name);
        return 1;
    }
    if (c->pattern != UDP_BURST && c->rate_bps == 0 && c->interval_ps == 0) {
        diag_error(d, m->loc, "flow '%s': cbr and poisson need 'rate' or 'interval'", name);
        return 1;
    }
    if (c->pattern != UDP_BURST && c->common.bytes == 0 && c->common.stop_ps == 0 &&
        scenario_stop_ps == 0) {
        diag_error(d, m->loc, "flow '%s' never ends: give 'bytes' or 'stop', or a scenario 'stop'",
                   name);
        return 1;
    }
    if (c->size_dist == UDP_SIZE_UNIFORM && c->size_max_bytes <= c->size_min_bytes) {
        diag_error(d, m->loc, "flow '%s': uniform sizes need size_max > size_min", name);
        return 1;
    }
    return 0;
}

static struct flow *udp_create(struct sim *sim, uint32_t index, const char *name,
                               const void *cfgp, struct host *src, struct host *dst)
{
    const struct udp_flow_cfg *cfg = cfgp;
    struct udp_flow *f = xcalloc(1, sizeof(*f));
    flow_base_init(&f->base, &udp_flow_ops, index, name, &cfg->common, src, dst);
    f->cfg = *cfg;
    f->payload_max = (uint32_t)(cfg->mtu_bytes - IPV4_HDR_LEN - UDP_HDR_LEN);
    f->source.next_pkt = burst_next;
    f->source.prio = (uint8_t)cfg->common.priority;
    f->sink.recv = sink_recv;
    f->dst_port = host_bind(dst, &f->sink);
    /* a stream (about 5 KB of generator state) only for a flow that draws: a stream's draws do
     * not depend on which other streams exist (sim_rng) */
    if (cfg->pattern == UDP_POISSON ||
        (cfg->pattern != UDP_BURST && cfg->size_dist != UDP_SIZE_FIXED)) {
        char stream[256];
        snprintf(stream, sizeof(stream), "flow.%s", name);
        f->rng = sim_rng(sim, stream);
    }
    if (cfg->pattern != UDP_BURST) {
        /* mean gap from the rate: mean message frame bytes at `rate` */
        uint64_t msg = cfg->size_bytes ? cfg->size_bytes : f->payload_max;
        uint64_t pkts = (msg + f->payload_max - 1) / f->payload_max;
        f->mean_gap_ps = cfg->interval_ps;
        if (cfg->rate_bps)
            f->mean_gap_ps = simtime_tx_ps(msg + pkts * UDP_HEADERS, cfg->rate_bps);
    }
    flow_start_timers(&f->base, sim, &f->timer, flow_timer, NULL, 0);
    return &f->base;
}

static void udp_destroy(struct sim *sim, struct flow *fb)
{
    struct udp_flow *f = container_of(fb, struct udp_flow, base);
    host_unbind(fb->dst, &f->sink);
    flow_free(sim, fb);
}

static void udp_stats_json(const struct flow *fb, json_t *o)
{
    const struct udp_flow *f = container_of(fb, struct udp_flow, base);
    json_object_set_new(o, "messages", json_integer((json_int_t)f->tx_msgs));
}

const struct flow_ops udp_flow_ops = {
    .type = "udp",
    .summary = "UDP traffic: burst at line rate, constant bit rate, or Poisson messages",
    .params = udp_params,
    .nparams = &udp_nparams,
    .cfg_size = sizeof(struct udp_flow_cfg),
    .check = udp_check,
    .create = udp_create,
    .destroy = udp_destroy,
    .stats_json = udp_stats_json,
    .push = udp_push,
};
