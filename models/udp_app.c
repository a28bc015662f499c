#include "models/udp_app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/util.h"

#define UDP_HEADERS (ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN)

static const char *const pattern_names[] = {"burst", "cbr", "poisson", NULL};
static const char *const dist_names[] = {"fixed", "exponential", "uniform", "pareto", NULL};

#define FP(field) offsetof(struct udp_flow_cfg, field)
const struct param_def udp_flow_params[] = {
    {"name", PARAM_STRING, FP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "flow name (unique)"},
    {"type", PARAM_STRING, FP(type), "udp", NULL, NULL, NULL, "transport: udp"},
    {"src", PARAM_STRING, FP(src), NULL, NULL, NULL, NULL, "sending host"},
    {"dst", PARAM_STRING, FP(dst), NULL, NULL, NULL, NULL, "receiving host"},
    {"pattern", PARAM_ENUM, FP(pattern), "burst", NULL, NULL, pattern_names,
     "burst: bytes at line rate; cbr: fixed gaps; poisson: exponential gaps"},
    {"bytes", PARAM_SIZE, FP(bytes), "0", NULL, NULL, NULL,
     "payload bytes to send (0 = until stop; burst needs it)"},
    {"start", PARAM_TIME, FP(start_ps), "0", "0", NULL, NULL, "first packet time"},
    {"stop", PARAM_TIME, FP(stop_ps), "0", "0", NULL, NULL, "no new messages after (0 = never)"},
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
    {"priority", PARAM_INT, FP(priority), "0", "0", "7", NULL,
     "traffic class (queue) of the flow's packets"},
    {"dscp", PARAM_INT, FP(dscp), "0", "0", "63", NULL, "IPv4 DSCP"},
    {"ecn", PARAM_BOOL, FP(ecn), "false", NULL, NULL, NULL, "send ECN-capable (ECT(0))"},
};
const size_t udp_flow_nparams = ARRAY_LEN(udp_flow_params);

static struct pkt *make_packet(struct udp_flow *f, uint32_t payload)
{
    struct sim *sim = f->src->node.sim;
    struct pkt *p = pkt_alloc(sim);
    p->flow = f->index;
    p->seq = (uint32_t)f->tx_pkts;
    p->prio = (uint8_t)f->cfg.priority;
    p->t_created = sim->now;
    struct pkt_udp_spec spec = {
        .src_ip = f->src->ip,
        .dst_ip = f->dst->ip,
        .src_port = f->src_port,
        .dst_port = f->dst_port,
        .dscp = (uint8_t)f->cfg.dscp,
        .ecn = f->cfg.ecn ? PKT_ECN_ECT0 : PKT_ECN_NOT_ECT,
        .payload_bytes = payload,
    };
    pkt_build_udp(p, &spec);
    if (f->tx_pkts == 0)
        f->first_tx_ps = sim->now;
    f->last_tx_ps = sim->now;
    f->tx_pkts++;
    f->tx_bytes += payload;
    return p;
}

static bool budget_left(const struct udp_flow *f)
{
    struct sim *sim = f->src->node.sim;
    if (f->cfg.stop_ps && sim->now > f->cfg.stop_ps)
        return false;
    return f->cfg.bytes == 0 || f->tx_bytes < f->cfg.bytes;
}

static uint32_t next_payload(struct udp_flow *f, uint64_t remaining_in_msg)
{
    uint64_t n = MIN(remaining_in_msg, (uint64_t)f->payload_max);
    if (f->cfg.bytes)
        n = MIN(n, f->cfg.bytes - f->tx_bytes);
    return (uint32_t)n;
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
    return make_packet(f, next_payload(f, UINT64_MAX));
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
        host_send(f->src, make_packet(f, n));
    }
}

static void flow_timer(struct sim *sim, struct evq_timer *t)
{
    struct udp_flow *f = container_of(t, struct udp_flow, timer);
    if (f->cfg.pattern == UDP_BURST) {
        host_activate(f->src, &f->source);
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
    uint32_t payload = p->size_bytes - UDP_HEADERS;
    if (f->rx_pkts == 0)
        f->first_rx_ps = sim->now;
    f->last_rx_ps = sim->now;
    f->rx_pkts++;
    f->rx_bytes += payload;
    f->rx_frame_bytes += p->size_bytes;
    if (pkt_ecn(p) == PKT_ECN_CE)
        f->rx_ce++;
    stats_add(&f->delay, simtime_sec(sim->now - p->t_created));
    stats_add(&f->qdelay, simtime_sec(p->qdelay_ps));
    if (f->cfg.bytes && f->rx_bytes == f->cfg.bytes)
        f->complete_ps = sim->now;
    pkt_free(sim, p);
}

void udp_flow_init(struct udp_flow *f, struct sim *sim, uint32_t index, const char *name,
                   const struct udp_flow_cfg *cfg, struct host *src, struct host *dst)
{
    f->cfg = *cfg;
    f->index = index;
    f->name = xstrdup(name);
    f->src = src;
    f->dst = dst;
    f->complete_ps = -1;
    f->payload_max = (uint32_t)(cfg->mtu_bytes - IPV4_HDR_LEN - UDP_HDR_LEN);
    f->source.next_pkt = burst_next;
    f->sink.recv = sink_recv;
    f->dst_port = host_bind(dst, &f->sink);
    f->src_port = (uint16_t)(20000 + index % 40000);
    char stream[256];
    snprintf(stream, sizeof(stream), "flow.%s", name);
    f->rng = sim_rng(sim, stream);
    stats_init(&f->delay, 16);
    stats_init(&f->qdelay, 16);
    if (cfg->pattern != UDP_BURST) {
        /* mean gap from the rate: mean message frame bytes at `rate` */
        uint64_t msg = cfg->size_bytes ? cfg->size_bytes : f->payload_max;
        uint64_t pkts = (msg + f->payload_max - 1) / f->payload_max;
        f->mean_gap_ps = cfg->interval_ps;
        if (cfg->rate_bps)
            f->mean_gap_ps = simtime_tx_ps(msg + pkts * UDP_HEADERS, cfg->rate_bps);
    }
    evq_timer_init(&f->timer, flow_timer, EVQ_PHASE_DEFAULT);
    evq_schedule(&sim->evq, &f->timer, cfg->start_ps);
}

void udp_flow_fini(struct sim *sim, struct udp_flow *f)
{
    evq_cancel(&sim->evq, &f->timer);
    free(f->name);
}
