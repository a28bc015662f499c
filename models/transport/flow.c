/* The flow base shared by every transport: identity, statistics, stream mode, start and
 * sampling timers, dependencies. */
#include "models/transport/flow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    f->sport = (uint16_t)(20000 + index % 40000);
    stats_init(&f->st.delay, 16);
    stats_init(&f->st.qdelay, 16);
}

void flow_free(struct sim *sim, struct flow *f)
{
    flow_cancel_timers(f, sim);
    stats_fini(&f->st.delay);
    stats_fini(&f->st.qdelay);
    free(f->dependents);
    spool_stream_fini(&f->samples);
    free(f->name);
    free(f);
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

void flow_set_sport(struct flow *f, uint16_t port)
{
    f->sport = port;
    if (f->ops->set_sport)
        f->ops->set_sport(f, port);
}

void flow_stream_attach(struct flow *f, const struct flow_stream *s)
{
    SIM_ASSERT(f->ops->push != NULL);
    f->streaming = true;
    f->stream = *s;
    f->ops->push(f); /* tells the transport it is a stream now (nothing pushed yet) */
}

void flow_push(struct flow *f, uint64_t bytes)
{
    SIM_ASSERT(f->streaming);
    f->pushed += bytes;
    f->ops->push(f);
}

void flow_report_range(struct flow *f, uint64_t off, uint64_t len)
{
    if (f->streaming && f->stream.delivered_range)
        f->stream.delivered_range(f, off, len, f->stream.ud);
}

void flow_wait_for(struct flow *f, struct flow *first)
{
    if (f->waiting_for++ == 0)
        flow_start_at(f, f->src->node.sim, SIM_TIME_NEVER);
    first->dependents =
        xrealloc(first->dependents, (first->ndependents + 1) * sizeof(*first->dependents));
    first->dependents[first->ndependents++] = f;
}

void flow_complete(struct flow *f, sim_time_t now)
{
    if (f->st.complete_ps >= 0)
        return;
    f->st.complete_ps = now;
    for (uint32_t i = 0; i < f->ndependents; i++) {
        struct flow *d = f->dependents[i];
        if (--d->waiting_for == 0) {
            d->common.start_ps = MAX(now, d->common.start_ps); /* its FCT counts from here */
            flow_start_at(d, d->src->node.sim, d->common.start_ps);
        }
    }
}

void flow_samples_init(struct flow *f, struct sim *sim, uint32_t rec, spool_json_fn *json)
{
    spool_stream_init(&f->samples, &sim->spool, rec, json);
}

void flow_start_timers(struct flow *f, struct sim *sim, struct evq_timer *start,
                       evq_fire_fn *start_fire, evq_fire_fn *sample_fire, sim_time_t sample_ps)
{
    evq_timer_init(start, start_fire, EVQ_PHASE_DEFAULT);
    f->start = start;
    f->sample_ps = sample_ps;
    evq_timer_init(&f->sample, sample_fire, EVQ_PHASE_DEFAULT);
    evq_schedule(&sim->evq, start, f->common.start_ps);
    if (sample_ps)
        evq_schedule(&sim->evq, &f->sample, f->common.start_ps);
}

void flow_start_at(struct flow *f, struct sim *sim, sim_time_t at)
{
    flow_cancel_timers(f, sim);
    if (at == SIM_TIME_NEVER)
        return;
    evq_schedule(&sim->evq, f->start, at);
    if (f->sample_ps)
        evq_schedule(&sim->evq, &f->sample, at);
}

void flow_cancel_timers(struct flow *f, struct sim *sim)
{
    evq_cancel(&sim->evq, f->start);
    evq_cancel(&sim->evq, &f->sample);
}
