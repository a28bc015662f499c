#include "models/flow.h"

#include <math.h>
#include <stdlib.h>

#include "sim/util.h"

void flow_base_init(struct flow *f, const struct flow_ops *ops, uint32_t index, const char *name,
                    const struct flow_cfg *common, struct host *src, struct host *dst)
{
    f->ops = ops;
    f->name = xstrdup(name);
    f->index = index;
    f->src = src;
    f->dst = dst;
    f->common = *common;
    f->st = (struct flow_stats){.complete_ps = -1};
    stats_init(&f->st.delay, 16);
    stats_init(&f->st.qdelay, 16);
}

void flow_base_fini(struct flow *f)
{
    free(f->name);
    f->name = NULL;
}

void flow_note_rx(struct flow *f, const struct pkt *p, sim_time_t now)
{
    f->st.rx_pkts++;
    f->st.last_rx_ps = now;
    if (pkt_ecn(p) == PKT_ECN_CE)
        f->st.rx_ce++;
    stats_add(&f->st.delay, simtime_sec(now - p->t_created));
    stats_add(&f->st.qdelay, simtime_sec(p->qdelay_ps));
}

double flow_fct_s(const struct flow *f)
{
    return f->st.complete_ps >= 0 ? simtime_sec(f->st.complete_ps - f->common.start_ps) : NAN;
}

double flow_goodput_bps(const struct flow *f)
{
    if (f->st.rx_pkts < 2 || f->st.last_rx_ps <= f->st.first_tx_ps)
        return NAN;
    return (double)f->st.rx_bytes * 8.0 / simtime_sec(f->st.last_rx_ps - f->st.first_tx_ps);
}

void flow_stream_attach(struct flow *f, const struct flow_stream *s)
{
    SIM_ASSERT(f->ops->push != NULL);
    f->streaming = true;
    f->stream = *s;
}

void flow_push(struct flow *f, uint64_t bytes)
{
    SIM_ASSERT(f->streaming);
    f->pushed += bytes;
    f->ops->push(f);
}

void flow_report_delivered(struct flow *f, uint64_t total)
{
    if (f->streaming && f->stream.delivered)
        f->stream.delivered(f, total, f->stream.ud);
}

void flow_report_acked(struct flow *f, uint64_t total)
{
    if (f->streaming && f->stream.acked)
        f->stream.acked(f, total, f->stream.ud);
}
