/* A host's CPU as seen by the network stack: `cores` identical servers taking jobs in FIFO
 * order. The message layer charges each message's software cost (per-message overhead, copies,
 * serialization) here, so messages of one host queue behind each other as on a real machine.
 * Jobs are intrusive (embedded in their owner); the CPU holds one timer per busy core. */
#ifndef SIM_MODELS_NET_HOSTCPU_H
#define SIM_MODELS_NET_HOSTCPU_H

#include <stdint.h>

#include "sim/evq.h"

#define HOSTCPU_MAX_CORES 64

struct hostcpu_job;
typedef void hostcpu_done_fn(struct sim *sim, struct hostcpu_job *job);

struct hostcpu_job {
    struct hostcpu_job *next;
    sim_time_t cost_ps;
    hostcpu_done_fn *done;
};

struct hostcpu_core {
    struct evq_timer timer;
    struct hostcpu_job *job; /* running, or NULL */
    struct hostcpu *cpu;
};

struct hostcpu {
    uint32_t ncores;
    struct hostcpu_core core[HOSTCPU_MAX_CORES];
    struct hostcpu_job *head; /* waiting jobs */
    struct hostcpu_job *tail;
    sim_time_t busy_ps;       /* total work done */
    uint64_t jobs;
};

void hostcpu_init(struct hostcpu *cpu, uint32_t ncores);
void hostcpu_fini(struct sim *sim, struct hostcpu *cpu);
/* Runs `job` for job->cost_ps on the first free core (FIFO), then calls job->done. A zero-cost
 * job still waits its turn. */
void hostcpu_submit(struct sim *sim, struct hostcpu *cpu, struct hostcpu_job *job);

#endif
