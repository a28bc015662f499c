/* The memory a scenario needs, estimated before it is built from what its declarations imply
 * (hosts, switches, links, routes, flows, DDL jobs, and the event queue for their timers; cwnd and rate
 * samples go to disk as they are taken, sim/spool.h), so that a scenario that cannot fit is
 * refused with the amount instead of being killed, or exhausting the machine, half-way through
 * building. The per-object costs are upper bounds of what `ddlsim check` measured
 * (docs/limits.md); the queue's, of what its arrays can take (evq_bytes_bound). */
#ifndef SIM_SIM_APP_ESTIMATE_H
#define SIM_SIM_APP_ESTIMATE_H

#include <stdint.h>

#include "sim/app/topo.h"
#include "sim/diag.h"

/* A flow's bytes (an upper bound of `check`'s measure of declared flows; a DDL job's connection
 * counts its transport's, estimate_job.c) and the timers it may have pending at once: its start,
 * sample and report timers and up to three of its transport (RDMA). */
#define EST_FLOW 8000ULL
#define EST_TIMERS_FLOW 6ULL

struct estimate {
    uint64_t hosts;
    uint64_t switches;
    uint64_t links;
    uint64_t routes; /* switches x hosts: one route set per destination at every switch */
    uint64_t flows;   /* declared, and the connections DDL jobs open (estimate_job.c) */
    uint64_t workers; /* of DDL jobs (GPUs) */
    uint64_t servers;
    uint64_t items;   /* chunks of DDL jobs in flight at once, where bounded (estimate_job.c) */
    uint64_t timers;      /* the most that can be pending at once (an upper bound) */
    uint64_t job_timers;  /* of them, DDL jobs' (their connections' included) */
    uint64_t queue_bytes; /* the event queue's arrays for them (evq_bytes_bound) */
    uint64_t job_bytes;   /* DDL jobs: workers, servers, their tables and connections */
    uint64_t model_bytes; /* the objects and routes (the measured costs per object), jobs' too */
    uint64_t bytes;       /* model_bytes + queue_bytes */
};

/* Adds DDL jobs' workers, servers, connections (as flows), bytes and timers, and the timers of
 * hosts' CPU cores beyond one (estimate_job.c). */
void estimate_jobs(struct estimate *e, const struct topo *t, const struct cfg_node *root);
void estimate_compute(struct estimate *e, const struct topo *t, const struct cfg_node *root);
/* The memory a run may use: `given` when non-zero (--max-memory), else the machine's physical
 * memory or the process's address-space or data limit, whichever is least. */
uint64_t estimate_limit(uint64_t given);
/* Reports an error (located at the topology) and returns -1 when the estimate exceeds limit. */
int estimate_check(const struct topo *t, const struct cfg_node *root, uint64_t limit,
                   struct diag *d);

#endif
