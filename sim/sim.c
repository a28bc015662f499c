#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "sim/hugepage.h"
#include "sim/util.h"

/* A GSL failure (out of memory in an allocation, a domain error) is a runtime failure of the
 * run, exit 1 with GSL's reason, not GSL's default abort. */
static void gsl_fail(const char *reason, const char *file, int line, int gsl_errno)
{
    fprintf(stderr, "ddlsim: error: GSL: %s (%s:%d, code %d)\n", reason, file, line, gsl_errno);
    exit(1);
}

struct sim *sim_create(uint64_t seed, struct diag *diag)
{
    gsl_set_error_handler(gsl_fail); /* the library's one setting: the same for every sim */
    struct sim *sim = xcalloc(1, sizeof(*sim));
    evq_init(&sim->evq);
    sim->seed = seed;
    sim->diag = diag;
    spool_init(&sim->spool);
    sim->heap_mark = hugepage_heap_end();
    return sim;
}

void sim_destroy(struct sim *sim)
{
    if (!sim)
        return;
    evq_fini(&sim->evq);
    for (size_t i = 0; i < sim->nrngs; i++) {
        gsl_rng_free(sim->rngs[i].rng);
        free(sim->rngs[i].name);
    }
    free(sim->rngs);
    strmap_fini(&sim->rng_index);
    pool_fini(&sim->pkt_pool);
    spool_fini(&sim->spool);
    free(sim);
}

gsl_rng *sim_rng(struct sim *sim, const char *name)
{
    uint32_t at;
    if (strmap_get(&sim->rng_index, name, &at))
        return sim->rngs[at].rng;
    if (sim->nrngs == sim->rngs_cap) {
        sim->rngs_cap = sim->rngs_cap ? 2 * sim->rngs_cap : 16;
        sim->rngs = xrealloc(sim->rngs, sim->rngs_cap * sizeof(*sim->rngs));
    }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) /* only if the handler was replaced: gsl_fail does not return */
        gsl_fail("out of memory for an RNG stream", __FILE__, __LINE__, GSL_ENOMEM);
    uint64_t h = hash_fnv1a(&sim->seed, sizeof(sim->seed), HASH_FNV_INIT);
    h = hash_fnv1a(name, strlen(name), h);
    /* mt19937 takes an unsigned long seed; 0 selects its default seed, avoid it. */
    gsl_rng_set(r, (unsigned long)(h ? h : 1));
    sim->rngs[sim->nrngs].name = xstrdup(name);
    sim->rngs[sim->nrngs].rng = r;
    strmap_put(&sim->rng_index, sim->rngs[sim->nrngs].name, (uint32_t)sim->nrngs);
    sim->nrngs++;
    return r;
}

uint64_t sim_run(struct sim *sim, sim_time_t until)
{
    uint64_t n = 0;
    uint64_t budget = sim->hook.fn ? sim->hook.every : UINT64_MAX;
    sim->stopping = false;
    if (!sim->heap_huge) {
        /* the model built since sim_create (nodes, ports, queues, routes, flows): the state
         * the events touch, at random, for the whole run */
        hugepage_collapse(sim->heap_mark, hugepage_heap_end());
        sim->heap_huge = true;
    }
    while (!sim->stopping && !sim->evq.past_horizon) {
        sim_time_t at;
        struct evq_timer *t = evq_pop_until(&sim->evq, until, &at);
        if (!t) {
            if (evq_next_time(&sim->evq) > until) { /* not an empty queue at until NEVER */
                evq_mark_until(&sim->evq, until);
                if (until != SIM_TIME_NEVER && evq_len(&sim->evq) > 0)
                    sim->now = until;
            }
            break;
        }
        SIM_ASSERT(at >= sim->now);
        sim->now = at;
        t->fire(sim, t);
        n++;
        if (--budget == 0) {
            sim->hook.fn(sim, sim->evq.fired + n, sim->hook.ud);
            budget = sim->hook.every;
        }
    }
    sim->evq.fired += n;
    return n;
}

void sim_stop(struct sim *sim)
{
    sim->stopping = true;
}
