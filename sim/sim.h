/* The simulation context. All state of one simulation hangs off a struct sim (no globals), so a
 * process can hold many simulations (tests, sweep points). It owns the clock, the event queue,
 * named RNG streams, the packet pool, the diagnostics sink and the spool of samples. */
#ifndef SIM_SIM_SIM_H
#define SIM_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/diag.h"
#include "sim/evq.h"
#include "sim/pool.h"
#include "sim/simtime.h"
#include "sim/spool.h"
#include "sim/strmap.h"

struct sim_rng_stream {
    char *name;
    gsl_rng *rng;
};

/* Called by the run loop every `every` events with the number of events run so far (all
 * sim_run calls): progress display, output error checks. It may call sim_stop. The loop pays
 * one counter decrement per event for it. */
typedef void sim_hook_fn(struct sim *sim, uint64_t events, void *ud);

struct sim_hook {
    sim_hook_fn *fn; /* NULL: none */
    void *ud;
    uint64_t every; /* events between calls, > 0 */
};

struct sim {
    sim_time_t now;
    struct evq evq;
    uint64_t seed;
    struct sim_rng_stream *rngs;
    size_t nrngs;
    size_t rngs_cap;
    struct strmap rng_index; /* stream name → its index in rngs */
    struct pool pkt_pool; /* set up by the packet module on first use */
    uint64_t next_pkt_id;
    struct diag *diag;    /* not owned */
    bool stopping;        /* set by sim_stop: the run loop returns after the current event */
    struct sim_hook hook;
    struct spool spool;   /* samples taken during the run, on their way to the outputs */
    void *heap_mark;      /* the malloc heap's end at creation (hugepage.h) */
    bool heap_huge;       /* what the model allocated before the first run is on huge pages */
};

struct sim *sim_create(uint64_t seed, struct diag *diag);
void sim_destroy(struct sim *sim);

/* The RNG stream for a named purpose ("flow.f1.arrivals"), created on first use and seeded from
 * (run seed, name) so that adding a stream never perturbs the draws of another, nor creating
 * streams in another order. Look streams up at build time and keep the pointer (the lookup hashes
 * the name). */
gsl_rng *sim_rng(struct sim *sim, const char *name);

static inline void sim_at(struct sim *sim, struct evq_timer *t, sim_time_t at)
{
    evq_schedule(&sim->evq, t, at);
}

static inline void sim_after(struct sim *sim, struct evq_timer *t, sim_time_t delay)
{
    evq_schedule(&sim->evq, t, simtime_add(sim->now, delay));
}

/* Runs events until the queue is empty, time would pass `until`, an event was scheduled past
 * SIM_TIME_HORIZON (evq.past_horizon is set), or sim_stop is called.
 * Returns the number of events executed. The clock ends at the last event run (or `until` when
 * events remain beyond it). */
uint64_t sim_run(struct sim *sim, sim_time_t until);
void sim_stop(struct sim *sim);

#endif
