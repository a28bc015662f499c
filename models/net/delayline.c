#include "models/net/delayline.h"

#include "sim/sim.h"
#include "sim/util.h"

static void delayline_fire(struct sim *sim, struct evq_timer *t)
{
    struct delayline *dl = container_of(t, struct delayline, timer);
    struct pkt *p = dl->head;
    dl->head = p->next;
    if (dl->head)
        evq_schedule(&sim->evq, &dl->timer, dl->head->t_enq);
    else
        dl->tail = NULL;
    p->next = NULL;
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
    while (dl->head) {
        struct pkt *p = dl->head;
        dl->head = p->next;
        pkt_free(sim, p);
    }
    dl->tail = NULL;
}

void delayline_push(struct sim *sim, struct delayline *dl, struct pkt *p)
{
    if (dl->delay_ps == 0) {
        dl->out(dl, p, dl->ud);
        return;
    }
    p->next = NULL;
    p->t_enq = sim->now + dl->delay_ps;
    if (dl->tail) {
        dl->tail->next = p;
    } else {
        dl->head = p;
        evq_schedule(&sim->evq, &dl->timer, p->t_enq);
    }
    dl->tail = p;
}
