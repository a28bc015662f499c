#include "models/net/hostcpu.h"

#include <string.h>

#include "sim/sim.h"
#include "sim/util.h"

static void core_done(struct sim *sim, struct evq_timer *t);

void hostcpu_init(struct hostcpu *cpu, uint32_t ncores)
{
    SIM_ASSERT(ncores >= 1 && ncores <= HOSTCPU_MAX_CORES);
    memset(cpu, 0, sizeof(*cpu));
    cpu->ncores = ncores;
    for (uint32_t i = 0; i < ncores; i++) {
        cpu->core[i].cpu = cpu;
        evq_timer_init(&cpu->core[i].timer, core_done, EVQ_PHASE_DEFAULT);
    }
}

void hostcpu_fini(struct sim *sim, struct hostcpu *cpu)
{
    for (uint32_t i = 0; i < cpu->ncores; i++)
        evq_cancel(&sim->evq, &cpu->core[i].timer);
}

static void start(struct sim *sim, struct hostcpu_core *core, struct hostcpu_job *job)
{
    core->job = job;
    core->cpu->busy_ps += job->cost_ps;
    evq_schedule(&sim->evq, &core->timer, sim->now + job->cost_ps);
}

void hostcpu_submit(struct sim *sim, struct hostcpu *cpu, struct hostcpu_job *job)
{
    cpu->jobs++;
    job->next = NULL;
    if (!cpu->head) {
        for (uint32_t i = 0; i < cpu->ncores; i++) {
            if (!cpu->core[i].job) {
                start(sim, &cpu->core[i], job);
                return;
            }
        }
    }
    if (cpu->tail)
        cpu->tail->next = job;
    else
        cpu->head = job;
    cpu->tail = job;
}

static void core_done(struct sim *sim, struct evq_timer *t)
{
    struct hostcpu_core *core = container_of(t, struct hostcpu_core, timer);
    struct hostcpu *cpu = core->cpu;
    struct hostcpu_job *job = core->job;
    core->job = NULL;
    if (cpu->head) {
        struct hostcpu_job *next = cpu->head;
        cpu->head = next->next;
        if (!cpu->head)
            cpu->tail = NULL;
        start(sim, core, next);
    }
    job->done(sim, job);
}
