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

/* The current transmission first, then the time spent sending each priority: a packet of
 * priority p adds to sent[p] alone (one cache line for the low priorities, however many there
 * are above) and to the total, and the clock of priority c is the sum of sent[] below c (for a
 * high c, the total less sent[] from c up). */
struct blocking_clock {
    sim_time_t cur_start;
    sim_time_t cur_dur;
    uint8_t cur_prio;
    bool cur_valid;
    sim_time_t total; /* the sum of sent[] */
    sim_time_t sent[BLOCKING_NPRIO]; /* up to the start of the current transmission */
};

/* The clock of priority `prio` at `now`. */
static inline sim_time_t blocking_clock_at(const struct blocking_clock *b, uint8_t prio,
                                           sim_time_t now)
{
    int p = prio & 7;
    sim_time_t t = 0;
    if (p > BLOCKING_NPRIO / 2) { /* the total less the priorities from p up: fewer terms */
        t = b->total;
        for (int c = p; c < BLOCKING_NPRIO; c++)
            t -= b->sent[c];
    } else {
        for (int c = 0; c < p; c++)
            t += b->sent[c];
    }
    if (b->cur_valid && b->cur_prio < p) {
        sim_time_t run = now - b->cur_start;
        t += run < b->cur_dur ? run : b->cur_dur;
    }
    return t;
}

/* The clocks of every priority at `now` (out[c] = blocking_clock_at(b, c, now)), in one pass. */
static inline void blocking_clock_all(const struct blocking_clock *b, sim_time_t now,
                                      sim_time_t out[BLOCKING_NPRIO])
{
    sim_time_t sum = 0;
    for (int c = 0; c < BLOCKING_NPRIO; c++) {
        out[c] = sum;
        sum += b->sent[c];
    }
    if (b->cur_valid) { /* the transmission in progress, for the priorities above its own */
        sim_time_t run = now - b->cur_start;
        run = run < b->cur_dur ? run : b->cur_dur;
        for (int c = b->cur_prio + 1; c < BLOCKING_NPRIO; c++)
            out[c] += run;
    }
}

/* The port starts sending a packet of priority `prio` that takes `dur_ps` on the wire. */
static inline void blocking_clock_tx(struct blocking_clock *b, uint8_t prio, sim_time_t now,
                                     sim_time_t dur_ps)
{
    if (b->cur_valid) { /* the previous transmission is over: fold it into the clocks */
        b->sent[b->cur_prio] += b->cur_dur;
        b->total += b->cur_dur;
    }
    b->cur_valid = true;
    b->cur_prio = prio & 7;
    b->cur_start = now;
    b->cur_dur = dur_ps;
}

#endif
