#include "models/net/delayline.h"

#include "sim/sim.h"
#include "sim/util.h"

static void delayline_fire(struct sim *sim, struct evq_timer *t)
{
    struct delayline *dl = container_of(t, struct delayline, timer);
    struct pkt *p = pkt_fifo_pop(&dl->q);
    if (dl->q.head)
        evq_schedule(&sim->evq, &dl->timer, dl->q.head->t_enq);
    dl->out(dl, p, dl->ud);
}

void delayline_init(struct delayline *dl, sim_time_t delay_ps, delayline_out_fn *out, void *ud)
{
    *dl = (struct delayline){.delay_ps = delay_ps, .out = out, .ud = ud};
    evq_timer_init(&dl->timer, delayline_fire, EVQ_PHASE_ARRIVAL);
}

void delayline_fini(struct sim *sim, struct delayline *dl)
{
    evq_cancel(&sim->evq, &dl->timer);
    pkt_fifo_free(sim, &dl->q);
}

void delayline_push(struct sim *sim, struct delayline *dl, struct pkt *p)
{
    if (dl->delay_ps == 0) {
        dl->out(dl, p, dl->ud);
        return;
    }
    p->t_enq = sim->now + dl->delay_ps;
    if (!dl->q.head)
        evq_schedule(&sim->evq, &dl->timer, p->t_enq);
    pkt_fifo_push(&dl->q, p);
}
