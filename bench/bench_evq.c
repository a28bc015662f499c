/* Event-queue hold benchmark: keep N events pending; each step pops the earliest and schedules
 * it again at now + an exponential increment (the classic "hold" model). Reports events/s and
 * ns per pop+push for N = 1e3, 1e5, 1e6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "bench/benchutil.h"
#include "sim/sim.h"
#include "sim/util.h"

/* Pre-drawn exponential increments, so the benchmark measures the queue, not the RNG. */
struct incs {
    sim_time_t *v;
    size_t n; /* a power of two */
    size_t next;
};

struct hold_ev {
    struct evq_timer t;
    struct incs *incs;
};

static void hold_fire(struct sim *sim, struct evq_timer *t)
{
    struct incs *in = container_of(t, struct hold_ev, t)->incs;
    evq_schedule(&sim->evq, t, sim->now + in->v[in->next++ & (in->n - 1)]);
}

static void hold(struct incs *incs, size_t n, uint64_t steps)
{
    struct sim *sim = sim_create(1, NULL);
    gsl_rng *r = sim_rng(sim, "hold");
    struct hold_ev *ev = xcalloc(n, sizeof(*ev));
    for (size_t i = 0; i < n; i++) {
        evq_timer_init(&ev[i].t, hold_fire, EVQ_PHASE_DEFAULT);
        ev[i].incs = incs;
        evq_schedule(&sim->evq, &ev[i].t, (sim_time_t)(gsl_rng_uniform(r) * 1e6));
    }
    /* warm up: mix the heap into its steady state */
    sim->evq.fired = 0;
    uint64_t warm = n * 2;
    sim_time_t at;
    for (uint64_t i = 0; i < warm; i++) {
        struct evq_timer *t = evq_pop(&sim->evq, &at);
        sim->now = at;
        t->fire(sim, t);
    }
    double t0 = bench_now();
    for (uint64_t i = 0; i < steps; i++) {
        struct evq_timer *t = evq_pop(&sim->evq, &at);
        sim->now = at;
        t->fire(sim, t);
    }
    double dt = bench_now() - t0;
    printf("evq hold  pending=%-8zu steps=%-9llu %8.1f M events/s  %6.1f ns per pop+push\n", n,
           (unsigned long long)steps, (double)steps / dt / 1e6, dt / (double)steps * 1e9);
    sim_destroy(sim); /* before freeing the timers it still points to */
    free(ev);
}

int main(void)
{
    struct incs incs = {.n = 1 << 20};
    incs.v = xmalloc(incs.n * sizeof(*incs.v));
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (size_t i = 0; i < incs.n; i++)
        incs.v[i] = 1 + (sim_time_t)llround(gsl_ran_exponential(r, 1e6));
    gsl_rng_free(r);
    hold(&incs, 1000, 20000000);
    hold(&incs, 100000, 10000000);
    hold(&incs, 1000000, 5000000);
    free(incs.v);
    return 0;
}
