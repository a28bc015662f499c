/* Message connections of a DDL job (transfer.c). */
#ifndef SIM_MODELS_DDL_TRANSFER_H
#define SIM_MODELS_DDL_TRANSFER_H

#include "models/ddl/job.h"

/* A connection from `src` to `dst` over the job's transport and host costs for connection
 * group g (its traffic class: job->class_of[g]), named "<job>.<what><a>-<b>" (".g<g>" added
 * when the job has several groups). */
struct msg_conn *ddl_connect(struct ddl_job *job, const char *what, uint32_t a, uint32_t b,
                             uint32_t g, struct host *src, struct host *dst);
/* Checks that host h has DDL source ports left (0xDD00-0xDDFF, 256 per host, shared by every
 * job on it) for connections to `n` peers; reports and returns 1 when not. */
int ddl_check_ports(struct ddl_job *job, const struct host *h, uint32_t n, struct diag *d);

/* A worker's connections to one peer, one per group, each made when first used. */
struct ddl_peer {
    uint32_t dst;
    struct msg_conn **conn; /* [groups] */
};

/* Worker `from`'s connection of group g to worker `to` (named "<job>.peer<from>-<to>"),
 * made on first use: a collective opens only the connections its steps use. */
struct msg_conn *ddl_peer_conn(struct ddl_job *job, uint32_t from, uint32_t to, uint32_t g);
/* Closes worker w's peer connections. */
void ddl_peers_fini(struct ddl_job *job, struct ddl_worker *w);

#endif
