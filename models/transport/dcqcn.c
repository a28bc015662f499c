#include "models/transport/dcqcn.h"

#include <math.h>

#include "sim/util.h"

void dcqcn_init(struct dcqcn *d, const struct dcqcn_cfg *cfg)
{
    SIM_ASSERT(cfg->line_rate_bps > 0 && cfg->min_rate_bps <= cfg->line_rate_bps);
    *d = (struct dcqcn){.cfg = *cfg};
    d->rc_bps = cfg->line_rate_bps;
    d->rt_bps = cfg->line_rate_bps;
    d->alpha = cfg->alpha_init;
}

static uint64_t clamp_rate(const struct dcqcn *d, uint64_t r)
{
    if (r > d->cfg.line_rate_bps)
        return d->cfg.line_rate_bps;
    if (r < d->cfg.min_rate_bps)
        return d->cfg.min_rate_bps;
    return r;
}

void dcqcn_on_cnp(struct dcqcn *d)
{
    /* Zhu et al. §3.1, "RP algorithm": the cut uses the α before its update. */
    d->rt_bps = d->rc_bps;
    double rc = (double)d->rc_bps * (1.0 - d->alpha / 2.0);
    d->rc_bps = clamp_rate(d, (uint64_t)llround(rc));
    d->alpha = (1.0 - d->cfg.g) * d->alpha + d->cfg.g;
    d->t_stage = 0;
    d->bc_stage = 0;
    d->bc_bytes = 0;
    d->cuts++;
}

void dcqcn_alpha_timer(struct dcqcn *d)
{
    d->alpha = (1.0 - d->cfg.g) * d->alpha;
}

enum dcqcn_phase dcqcn_phase(const struct dcqcn *d)
{
    uint32_t hi = MAX(d->t_stage, d->bc_stage);
    uint32_t lo = MIN(d->t_stage, d->bc_stage);
    if (hi <= d->cfg.f_stages)
        return DCQCN_FAST_RECOVERY;
    if (lo > d->cfg.f_stages)
        return DCQCN_HYPER;
    return DCQCN_ADDITIVE;
}

static void increase(struct dcqcn *d)
{
    uint64_t rt = d->rt_bps;
    switch (dcqcn_phase(d)) {
    case DCQCN_FAST_RECOVERY:
        break;
    case DCQCN_ADDITIVE:
        rt += d->cfg.rai_bps;
        break;
    case DCQCN_HYPER:
        rt += (uint64_t)(MIN(d->t_stage, d->bc_stage) - d->cfg.f_stages) * d->cfg.rhai_bps;
        break;
    }
    d->rt_bps = MIN(rt, d->cfg.line_rate_bps);
    d->rc_bps = clamp_rate(d, (d->rt_bps + d->rc_bps) / 2);
    d->increases++;
}

void dcqcn_rate_timer(struct dcqcn *d)
{
    d->t_stage++;
    increase(d);
}

uint32_t dcqcn_on_bytes(struct dcqcn *d, uint64_t bytes)
{
    if (d->cfg.byte_counter_bytes == 0)
        return 0;
    uint32_t events = 0;
    d->bc_bytes += bytes;
    while (d->bc_bytes >= d->cfg.byte_counter_bytes) {
        d->bc_bytes -= d->cfg.byte_counter_bytes;
        d->bc_stage++;
        increase(d);
        events++;
    }
    return events;
}
