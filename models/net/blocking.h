/* Network blocking time (TensorExpress's metric): a packet accrues the time its egress port -
 * a switch port or a host NIC - spends transmitting packets of lower priority (p->prio) while
 * it waits. Each port keeps, per priority c, a running clock of the time it spent sending
 * packets of priority below c; a packet's blocking is that clock when it leaves minus the clock
 * when it began to wait. The transmission in progress counts up to `now`. A packet of a
 * message begins to wait at its host when the message enters its connection's stream (the
 * message layer sets pkt.blk_stream), so lower-priority bytes ahead of it in the same connection
 * count as they leave. */
#ifndef SIM_MODELS_NET_BLOCKING_H
#define SIM_MODELS_NET_BLOCKING_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/simtime.h"

#define BLOCKING_NPRIO 8

/* A transmission counts in full from its start: the clock of priority c is the time spent
 * sending priorities below c, less what remains of the transmission in progress (until cur_end)
 * when its priority is below c. What a packet of priority 0 reads and writes comes first (24
 * bytes): the total, the end and priority of the current transmission; then the time of each
 * priority above 0 (the time of priority 0 is the total less theirs), so the clock of priority
 * c > 0 is the total less sent_hi[] from c up. */
struct blocking_clock {
    sim_time_t total;   /* time spent sending, every priority */
    sim_time_t cur_end; /* end of the last transmission started */
    uint8_t cur_prio;   /* its priority */
    sim_time_t sent_hi[BLOCKING_NPRIO - 1]; /* sent_hi[c - 1]: time spent sending priority c */
};

/* What remains at `now` of the transmission in progress (0 when it is over). */
static inline sim_time_t blocking_clock_left(const struct blocking_clock *b, sim_time_t now)
{
    return b->cur_end > now ? b->cur_end - now : 0;
}

/* The clock of priority `prio` at `now`. */
static inline sim_time_t blocking_clock_at(const struct blocking_clock *b, uint8_t prio,
                                           sim_time_t now)
{
    int p = prio & 7;
    if (p == 0)
        return 0;
    sim_time_t t = b->total;
    for (int c = p; c < BLOCKING_NPRIO; c++)
        t -= b->sent_hi[c - 1];
    if (b->cur_prio < p)
        t -= blocking_clock_left(b, now);
    return t;
}

/* The clocks of every priority at `now` (out[c] = blocking_clock_at(b, c, now)), in one pass. */
static inline void blocking_clock_all(const struct blocking_clock *b, sim_time_t now,
                                      sim_time_t out[BLOCKING_NPRIO])
{
    sim_time_t t = b->total;
    sim_time_t left = blocking_clock_left(b, now);
#pragma GCC unroll 8 /* 14 instructions instead of a loop of 35: a host's every data pull */
    for (int c = BLOCKING_NPRIO - 1; c > 0; c--) {
        t -= b->sent_hi[c - 1];
        out[c] = c > b->cur_prio ? t - left : t;
    }
    out[0] = 0;
}

/* The port starts sending a packet of priority `prio` that takes `dur_ps` on the wire. */
static inline void blocking_clock_tx(struct blocking_clock *b, uint8_t prio, sim_time_t now,
                                     sim_time_t dur_ps)
{
    b->cur_prio = prio & 7;
    if (b->cur_prio)
        b->sent_hi[b->cur_prio - 1] += dur_ps;
    b->total += dur_ps;
    b->cur_end = now + dur_ps;
}

#endif
