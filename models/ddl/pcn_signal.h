/* PCN signalling by a DDL job's workers (p4/programs/pcn.p4, signalled mode). A lead time before
 * a worker's burst (its pushes of one iteration) is expected to start, the worker sends a START
 * packet to every server it pushes to; when the burst has been delivered it sends a RESET. A
 * signal is a small UDP packet to port DDL_PCN_PORT whose IPv4 DSCP is the START or RESET code;
 * its 4-byte payload asks for a lowered ECN threshold (packets; 0: the switch's own). Switches on
 * the path lower the marking threshold of non-DDL packets on the egress port toward the server
 * between START and RESET, so that ECN-reactive background flows drain the queue before the
 * burst arrives. Receivers consume signals at DDL_PCN_PORT.
 *
 * The burst's start is predicted from the compute model: when forward layer l starts, the first
 * gradient (of the last layer) is ready after the remaining forward steps and the last layer's
 * backward step; a later wait for parameters only moves the START earlier relative to the burst.
 * RESET leaves when the burst's last tensor has reached its server (a real sender learns this
 * from the acknowledgement one round trip later). */
#ifndef SIM_MODELS_DDL_PCN_SIGNAL_H
#define SIM_MODELS_DDL_PCN_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/param.h"
#include "sim/simtime.h"

#define DDL_PCN_PORT 0x50C0 /* pcn.p4's PCN_UDP_PORT */

struct ddl_pcn_cfg {
    bool signal;
    sim_time_t lead_ps;
    int64_t start_dscp;
    int64_t reset_dscp;
    int64_t threshold; /* packets; 0 = the switch's lowered threshold */
};

#define DDL_PCN_OFF(S, field, m) (offsetof(S, field) + offsetof(struct ddl_pcn_cfg, m))
#define DDL_PCN_PARAMS(S, field)                                                               \
    {"pcn_signal", PARAM_BOOL, DDL_PCN_OFF(S, field, signal), "false", NULL, NULL, NULL,       \
     "send PCN START/RESET signals around each worker's burst (switch program pcn, "           \
     "signalled mode)"},                                                                       \
        {"pcn_lead", PARAM_TIME, DDL_PCN_OFF(S, field, lead_ps), "10ms", "0", "10s", NULL,     \
         "PCN: START leaves this long before the burst's first gradient is expected"},         \
        {"pcn_start_dscp", PARAM_INT, DDL_PCN_OFF(S, field, start_dscp), "5", "1", "63", NULL, \
         "PCN: DSCP of START signals (pcn.p4's pcn_cfg cell 3)"},                              \
        {"pcn_reset_dscp", PARAM_INT, DDL_PCN_OFF(S, field, reset_dscp), "9", "1", "63", NULL, \
         "PCN: DSCP of RESET signals (pcn.p4's pcn_cfg cell 4)"},                              \
        {"pcn_threshold", PARAM_INT, DDL_PCN_OFF(S, field, threshold), "0", "0", "1000000",    \
         NULL, "PCN: lowered ECN threshold a START asks for, packets (0: the switch's)"}

struct ddl_job;
struct ddl_worker;
struct diag;

/* Sets up signalling when the job asks for it (after the architecture's init: servers known);
 * m is the job's map, for error locations. Returns the number of errors. */
int ddl_pcn_init(struct ddl_job *job, const struct cfg_node *m, struct diag *d);
void ddl_pcn_fini(struct ddl_job *job);
/* Worker w starts computing forward layer w->layer of iteration w->iter. */
void ddl_pcn_forward(struct ddl_worker *w);
/* Worker w's burst has been delivered. */
void ddl_pcn_burst_end(struct ddl_worker *w);
/* Signals sent so far (0 without signalling). */
uint64_t ddl_pcn_signals(const struct ddl_job *job, bool reset);

#endif
