/* A fixed-latency stage (e.g. a switch pipeline): packets leave in arrival order exactly
 * `delay_ps` after they entered, with one timer for the head rather than one per packet. */
#ifndef SIM_MODELS_NET_DELAYLINE_H
#define SIM_MODELS_NET_DELAYLINE_H

#include "models/net/pkt.h"
#include "sim/evq.h"

struct delayline;
typedef void delayline_out_fn(struct delayline *dl, struct pkt *p, void *ud);

struct delayline {
    sim_time_t delay_ps;
    struct pkt_fifo q; /* t_enq holds the exit time while inside */
    struct evq_timer timer;
    delayline_out_fn *out;
    void *ud;
};

void delayline_init(struct delayline *dl, sim_time_t delay_ps, delayline_out_fn *out, void *ud);
void delayline_fini(struct sim *sim, struct delayline *dl);
/* Takes ownership of p; hands it to out() after the delay (at once when the delay is 0). */
void delayline_push(struct sim *sim, struct delayline *dl, struct pkt *p);

#endif
