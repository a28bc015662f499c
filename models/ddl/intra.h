/* The interconnect between the GPUs of one host (PCIe or NVLink) and the choice, per chunk,
 * between it and the network.
 *
 * A job with `gpus_per_host: G` has G workers (GPUs) on each listed host. Every GPU has one
 * egress channel into the host's interconnect with rate `intra_bw` and latency `intra_latency`
 * (the job's parameters): chunks to a GPU of the same host are serialized on the sender's
 * channel in FIFO order (bytes / intra_bw) and arrive `intra_latency` after their last byte.
 * Channels of different GPUs do not contend (each GPU has its own x16 PCIe link or NVLinks
 * into a switch that is not oversubscribed; a GPU receives from at most one peer at a time in
 * the chains and rings that use the channels). These chunks never reach a NIC, the host's CPU
 * or the message layer: GPU peer-to-peer copies as NCCL does them inside a server.
 *
 * Default values (docs/ddl.md has the sources): PCIe 3.0 x16, 100 Gb/s (12.5 GB/s, what
 * host-device and peer-to-peer copies measure on it out of 15.75 GB/s raw) and 2 us. */
#ifndef SIM_MODELS_DDL_INTRA_H
#define SIM_MODELS_DDL_INTRA_H

#include "models/ddl/job.h"

/* Host of worker w (its index among the listed hosts). */
static inline uint32_t ddl_host_of(const struct ddl_job *job, uint32_t w)
{
    return w / job->gpus;
}

int ddl_intra_init(struct ddl_job *job);
void ddl_intra_fini(struct ddl_job *job);
/* Sends chunk `it` from worker it->worker to worker `dst`: over the sender's intra-host
 * channel when both are GPUs of one host, else over `conn` (NULL: the peer connection of the
 * chunk's group, made on first use, transfer.h) through the sender's scheduler. The
 * arrival reaches job->arch->delivered either way. */
void ddl_send(struct ddl_job *job, struct ddl_item *it, uint32_t dst, struct msg_conn *conn);

#endif
