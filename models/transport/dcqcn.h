/* DCQCN reaction point: the sender's rate machine of Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015 (§3.1, Fig. 6 and Table 1), as a pure module.
 * It owns no timers and reads no clock: the transport calls dcqcn_on_cnp when a CNP arrives,
 * dcqcn_alpha_timer every alpha period without a CNP, dcqcn_rate_timer every rate-increase
 * period, and dcqcn_on_bytes for every byte it transmits. Rates are bits/s (uint64); α is a
 * fraction in [0, 1].
 *
 * Rate increase (after a cut, counting timer events T and byte-counter events BC since it):
 *   max(T, BC) <= F : fast recovery   Rc = (Rt + Rc) / 2
 *   min(T, BC) >  F : hyper increase  Rt += i·R_HAI (i = min(T, BC) − F), then Rc = (Rt + Rc) / 2
 *   otherwise       : additive        Rt += R_AI, then Rc = (Rt + Rc) / 2
 * Rates stay within [min_rate, line_rate]. */
#ifndef SIM_MODELS_TRANSPORT_DCQCN_H
#define SIM_MODELS_TRANSPORT_DCQCN_H

#include <stdint.h>

struct dcqcn_cfg {
    uint64_t line_rate_bps;      /* start and ceiling of Rc and Rt */
    uint64_t min_rate_bps;       /* floor of Rc */
    uint64_t rai_bps;            /* additive increase step R_AI */
    uint64_t rhai_bps;           /* hyper increase step R_HAI */
    double g;                    /* α gain */
    double alpha_init;           /* α before the first CNP */
    uint64_t byte_counter_bytes; /* bytes per byte-counter event B (0 = byte counter off) */
    uint32_t f_stages;           /* fast recovery stages F */
};

enum dcqcn_phase {
    DCQCN_FAST_RECOVERY = 0,
    DCQCN_ADDITIVE = 1,
    DCQCN_HYPER = 2,
};

struct dcqcn {
    struct dcqcn_cfg cfg;
    uint64_t rc_bps; /* current rate */
    uint64_t rt_bps; /* target rate */
    double alpha;
    uint32_t t_stage;   /* rate timer events since the last cut */
    uint32_t bc_stage;  /* byte counter events since the last cut */
    uint64_t bc_bytes;  /* bytes sent since the last byte counter event */
    uint64_t cuts;      /* CNPs acted on */
    uint64_t increases; /* rate increase events (timer or byte counter) */
};

void dcqcn_init(struct dcqcn *d, const struct dcqcn_cfg *cfg);
/* CNP: Rt = Rc, Rc = Rc·(1 − α/2), α = (1 − g)α + g; T, BC and the byte counter restart. The
 * caller restarts its alpha and rate timers. */
void dcqcn_on_cnp(struct dcqcn *d);
/* An alpha period passed without a CNP: α = (1 − g)α. */
void dcqcn_alpha_timer(struct dcqcn *d);
/* The rate timer expired: T += 1, then one rate increase. */
void dcqcn_rate_timer(struct dcqcn *d);
/* Counts transmitted bytes; each full byte counter B makes BC += 1 and one rate increase.
 * Returns the number of byte counter events. */
uint32_t dcqcn_on_bytes(struct dcqcn *d, uint64_t bytes);
/* The phase of the current counters: the one the latest increase used. */
enum dcqcn_phase dcqcn_phase(const struct dcqcn *d);

#endif
