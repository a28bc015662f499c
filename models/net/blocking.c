/* Lower-priority transmission clocks of a port. */
#include "models/net/blocking.h"

void blocking_clock_tx(struct blocking_clock *b, uint8_t prio, sim_time_t now, sim_time_t dur_ps)
{
    if (b->cur_valid) /* the previous transmission is over: fold it into the clocks */
        b->sent[b->cur_prio] += b->cur_dur;
    b->cur_valid = true;
    b->cur_prio = prio & 7;
    b->cur_start = now;
    b->cur_dur = dur_ps;
}
