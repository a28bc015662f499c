/* The `rpc` flow kind: an application that sends `count` messages of `size` bytes over a message
 * connection (msg.h) — open loop every `interval`, or closed loop keeping `window` messages
 * outstanding when interval is 0. The transport and the host cost model come from a preset or
 * from explicit keys, which override the preset. Reports message latency (submit → delivered,
 * host costs included) next to the transport's packet statistics. */
#include "models/transport/rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/transport/msg.h"
#include "models/transport/transports.h"
#include "sim/util.h"

struct rpc_cfg {
    struct flow_cfg common;
    int preset;            /* enum msg_preset */
    const char *transport; /* flow type of the data stream; default from the preset */
    const struct cfg_node *transport_params;
    uint64_t size_bytes;
    int64_t count;
    sim_time_t interval_ps;
    int64_t window;
    struct msg_cost cost;
};

struct rpc_flow {
    struct flow base;
    struct rpc_cfg cfg;
    struct msg_conn *conn;
    struct evq_timer timer;
    int64_t submitted;
};

#define RP(field) offsetof(struct rpc_cfg, field)
static const struct param_def rpc_params[] = {
    FLOW_COMMON_PARAMS(struct rpc_cfg),
    {"preset", PARAM_ENUM, RP(preset), "none", NULL, NULL, msg_preset_names,
     "host cost model and transport of a system from the RDMA-for-TensorFlow paper"},
    {"transport", PARAM_STRING, RP(transport), PARAM_OPTIONAL, NULL, NULL, NULL,
     "flow type carrying the messages (default: the preset's, or udp)"},
    {"transport_params", PARAM_NODE, RP(transport_params), PARAM_OPTIONAL, NULL, NULL, NULL,
     "parameters of the transport flow (e.g. {mss: 9000})"},
    {"size", PARAM_SIZE, RP(size_bytes), "1MB", "1B", NULL, NULL, "message payload bytes"},
    {"count", PARAM_INT, RP(count), "1", "1", "1000000000", NULL, "messages to send"},
    {"interval", PARAM_TIME, RP(interval_ps), "0", "0", NULL, NULL,
     "time between submissions (0 = closed loop with `window` outstanding)"},
    {"window", PARAM_INT, RP(window), "1", "1", "1000000", NULL,
     "closed loop: messages outstanding"},
    MSG_COST_PARAMS(struct rpc_cfg, cost),
};
static const size_t rpc_nparams = ARRAY_LEN(rpc_params);

static const struct flow_ops *transport_of(const struct rpc_cfg *c)
{
    struct msg_cost tmp;
    const char *t = c->transport ? c->transport : msg_preset((enum msg_preset)c->preset, &tmp);
    return transport_find(t ? t : "udp");
}

/* Decodes the transport's own parameters into a fresh config struct (NULL after errors). */
static void *transport_cfg(const struct flow_ops *tp, const struct rpc_cfg *c, struct diag *d,
                           const char *name)
{
    void *cfg = xcalloc(1, tp->cfg_size);
    param_defaults(tp->params, *tp->nparams, cfg);
    char what[300];
    snprintf(what, sizeof(what), "transport_params of flow '%s'", name);
    if (param_apply(d, tp->params, *tp->nparams, c->transport_params, cfg, what)) {
        free(cfg);
        return NULL;
    }
    struct flow_cfg *common = cfg;
    common->priority = c->common.priority;
    common->dscp = c->common.dscp;
    common->ecn = c->common.ecn;
    return cfg;
}

static int rpc_check(void *cfgp, const struct cfg_node *m, struct diag *d, const char *name,
                     sim_time_t scenario_stop_ps)
{
    (void)scenario_stop_ps;
    struct rpc_cfg *c = cfgp;
    msg_cost_resolve(&c->cost, (enum msg_preset)c->preset, m);
    const struct flow_ops *tp = transport_of(c);
    if (!tp) {
        struct msg_cost tmp;
        const char *t = c->transport ? c->transport : msg_preset((enum msg_preset)c->preset, &tmp);
        diag_error(d, c->transport ? cfg_get(m, "transport")->loc : cfg_key_loc(m, "preset"),
                   "flow '%s': transport '%s' is not available", name, t);
        return 1;
    }
    if (!tp->push || tp == &rpc_flow_ops) {
        diag_error(d, cfg_key_loc(m, "transport"),
                   "flow '%s': transport '%s' cannot carry messages (no stream mode)", name,
                   tp->type);
        return 1;
    }
    void *tcfg = transport_cfg(tp, c, d, name);
    if (!tcfg)
        return 1;
    free(tcfg);
    return 0;
}

static void submit(struct rpc_flow *f)
{
    f->submitted++;
    f->base.st.tx_pkts++; /* messages, for the common table */
    f->base.st.tx_bytes += f->cfg.size_bytes;
    if (f->base.st.first_tx_ps == 0 && f->submitted == 1)
        f->base.st.first_tx_ps = f->conn->sim->now;
    msg_send(f->conn, f->cfg.size_bytes, NULL);
}

static void rpc_timer(struct sim *sim, struct evq_timer *t)
{
    struct rpc_flow *f = container_of(t, struct rpc_flow, timer);
    if (f->cfg.interval_ps == 0) {
        for (int64_t i = 0; i < f->cfg.window && f->submitted < f->cfg.count; i++)
            submit(f);
        return;
    }
    submit(f);
    if (f->submitted < f->cfg.count)
        evq_schedule(&sim->evq, t, sim->now + f->cfg.interval_ps);
}

static void rpc_delivered(struct msg_conn *c, const struct msg *m, void *ud)
{
    struct rpc_flow *f = ud;
    struct flow_stats *st = &f->base.st;
    if (f->base.messages)
        fprintf(f->base.messages, "%s,%llu,%llu,%.9f,%.9f,%.9f\n", f->base.name,
                (unsigned long long)m->id, (unsigned long long)m->bytes, simtime_sec(m->t_submit),
                simtime_sec(c->sim->now), simtime_sec(c->sim->now - m->t_submit));
    st->rx_pkts++;
    st->rx_bytes += m->bytes;
    st->last_rx_ps = c->sim->now;
    if ((int64_t)st->rx_pkts == f->cfg.count)
        flow_complete(&f->base, c->sim->now);
    if (f->cfg.interval_ps == 0 && f->submitted < f->cfg.count)
        submit(f);
}

static struct flow *rpc_create(struct sim *sim, uint32_t index, const char *name, const void *cfgp,
                               struct host *src, struct host *dst)
{
    const struct rpc_cfg *cfg = cfgp;
    struct rpc_flow *f = xcalloc(1, sizeof(*f));
    flow_base_init(&f->base, &rpc_flow_ops, index, name, &cfg->common, src, dst);
    f->cfg = *cfg;
    const struct flow_ops *tp = transport_of(cfg);
    void *tcfg = transport_cfg(tp, cfg, sim->diag, name);
    SIM_ASSERT(tcfg != NULL); /* rpc_check decoded it already */
    struct msg_hooks hooks = {.on_delivered = rpc_delivered, .ud = f};
    f->conn = msg_conn_create(sim, name, index, src, dst, tp, tcfg, &f->cfg.cost, &hooks);
    free(tcfg);
    flow_start_timers(&f->base, sim, &f->timer, rpc_timer, NULL, 0);
    return &f->base;
}

static void rpc_destroy(struct sim *sim, struct flow *fb)
{
    struct rpc_flow *f = container_of(fb, struct rpc_flow, base);
    msg_conn_destroy(f->conn);
    flow_free(sim, fb);
}

static json_t *cost_json(const struct msg_cost *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "tx_fixed_s", json_real(simtime_sec(c->tx_fixed_ps)));
    json_object_set_new(o, "rx_fixed_s", json_real(simtime_sec(c->rx_fixed_ps)));
    json_object_set_new(o, "tx_copies", json_integer(c->tx_copies));
    json_object_set_new(o, "rx_copies", json_integer(c->rx_copies));
    json_object_set_new(o, "copy_bps", json_integer((json_int_t)c->copy_bps));
    json_object_set_new(o, "serialize_bps", json_integer((json_int_t)c->serialize_bps));
    json_object_set_new(o, "control_rtt", json_boolean(c->control_rtt));
    json_object_set_new(o, "poll_s", json_real(simtime_sec(c->poll_ps)));
    return o;
}

static void rpc_stats_json(const struct flow *fb, json_t *o)
{
    const struct rpc_flow *f = container_of(fb, struct rpc_flow, base);
    const struct msg_conn *c = f->conn;
    const struct flow *d = c->data;
    json_object_set_new(o, "messages_sent", json_integer((json_int_t)c->submitted));
    json_object_set_new(o, "messages_delivered", json_integer((json_int_t)c->delivered_msgs));
    double mean = stats_mean(&c->latency);
    json_object_set_new(o, "message_latency_mean_s", c->latency.n ? json_real(mean) : json_null());
    json_object_set_new(o, "message_latency_max_s",
                        c->latency.n ? json_real(c->latency.max) : json_null());
    json_object_set_new(o, "cost", cost_json(&c->cost));
    json_t *t = json_object();
    json_object_set_new(t, "type", json_string(d->ops->type));
    json_object_set_new(t, "tx_packets", json_integer((json_int_t)d->st.tx_pkts));
    json_object_set_new(t, "rx_packets", json_integer((json_int_t)d->st.rx_pkts));
    json_object_set_new(t, "retransmitted_packets", json_integer((json_int_t)d->st.retx_pkts));
    json_object_set_new(t, "timeouts", json_integer((json_int_t)d->st.timeouts));
    json_object_set_new(o, "transport", t);
    json_object_set_new(o, "sender_cpu_busy_s", json_real(simtime_sec(c->src->cpu.busy_ps)));
    json_object_set_new(o, "receiver_cpu_busy_s", json_real(simtime_sec(c->dst->cpu.busy_ps)));
}

const struct flow_ops rpc_flow_ops = {
    .type = "rpc",
    .summary = "messages over a transport with host software costs (gRPC, RPC over RDMA, "
               "zero-copy RDMA presets)",
    .params = rpc_params,
    .nparams = &rpc_nparams,
    .cfg_size = sizeof(struct rpc_cfg),
    .check = rpc_check,
    .create = rpc_create,
    .destroy = rpc_destroy,
    .stats_json = rpc_stats_json,
    .messages = true,
};
