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
 * Defaults: PCIe 3.0 x16 at 100 Gb/s = 12.5 GB/s: 15.75 GB/s raw (8 GT/s x 16 lanes x
 * 128/130), and CUDA's bandwidthTest on a Tesla P100-PCIE measured 12.15 GB/s host to device
 * and 12.89 GB/s device to host with pinned memory (gearshifft pull request 82, 2017). NVLink:
 * 20 GB/s per direction per link on P100-SXM2 (4 links; p2pBandwidthLatencyTest measured
 * 18.3 GB/s over one link) and 25 GB/s on V100-SXM2 (6 links; 47.9 GB/s over a pair joined by
 * two), Dell's HPC white paper on the PowerEdge C4130. The 2 us latency is an estimate of the
 * order of peer-to-peer copy latencies, not a measurement. */
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
