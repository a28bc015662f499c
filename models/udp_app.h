/* UDP traffic: a source on one host and a sink on another, for validation and background load.
 * Patterns:
 *   burst   — `bytes` at line rate from `start`: the NIC pulls one packet whenever its link frees;
 *   cbr     — a message of `size` bytes every `interval` (or at `rate`);
 *   poisson — messages with exponential inter-arrival times of mean `interval` (or at mean
 *             `rate`), sizes fixed or drawn from a distribution.
 * Messages are cut into packets of at most mtu − 28 payload bytes. `rate` counts Ethernet frame
 * bytes (headers included, link overhead excluded). The sink counts bytes, packets, CE marks,
 * one-way and queueing delay (batch-means confidence intervals), and the completion time. */
#ifndef SIM_MODELS_UDP_APP_H
#define SIM_MODELS_UDP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/host.h"
#include "sim/param.h"
#include "sim/stats.h"

enum udp_pattern {
    UDP_BURST = 0,
    UDP_CBR = 1,
    UDP_POISSON = 2,
};

enum udp_size_dist {
    UDP_SIZE_FIXED = 0,
    UDP_SIZE_EXPONENTIAL = 1,
    UDP_SIZE_UNIFORM = 2,
    UDP_SIZE_PARETO = 3,
};

struct udp_flow_cfg {
    const char *name;
    const char *type;
    const char *src;
    const char *dst;
    int pattern;      /* enum udp_pattern */
    uint64_t bytes;   /* payload bytes to send; 0 = until stop */
    sim_time_t start_ps;
    sim_time_t stop_ps; /* 0 = never */
    uint64_t rate_bps;  /* 0 = use interval */
    sim_time_t interval_ps;
    uint64_t mtu_bytes;
    uint64_t size_bytes; /* message size (cbr, poisson), payload bytes; 0 = one full packet */
    int size_dist;       /* enum udp_size_dist */
    uint64_t size_min_bytes;
    uint64_t size_max_bytes;
    double pareto_shape;
    int64_t priority;
    int64_t dscp;
    bool ecn;
};

struct udp_flow {
    struct udp_flow_cfg cfg;
    uint32_t index;
    char *name;
    struct host *src;
    struct host *dst;
    struct nic_source source; /* burst */
    struct endpoint sink;
    struct evq_timer timer;   /* start (burst), next message (cbr, poisson) */
    gsl_rng *rng;
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t payload_max;
    sim_time_t mean_gap_ps;
    /* sender */
    uint64_t tx_pkts;
    uint64_t tx_bytes; /* payload */
    uint64_t tx_msgs;
    sim_time_t first_tx_ps;
    sim_time_t last_tx_ps;
    bool done_sending;
    /* receiver */
    uint64_t rx_pkts;
    uint64_t rx_bytes; /* payload */
    uint64_t rx_frame_bytes;
    uint64_t rx_ce;
    sim_time_t first_rx_ps;
    sim_time_t last_rx_ps;
    sim_time_t complete_ps; /* last byte of `bytes` received; -1 until then */
    struct stats delay;  /* one-way delay, seconds */
    struct stats qdelay; /* time spent in queues, seconds */
};

extern const struct param_def udp_flow_params[];
extern const size_t udp_flow_nparams;

/* Sets up a flow between two hosts (cfg already validated) and schedules its start. */
void udp_flow_init(struct udp_flow *f, struct sim *sim, uint32_t index, const char *name,
                   const struct udp_flow_cfg *cfg, struct host *src, struct host *dst);
void udp_flow_fini(struct sim *sim, struct udp_flow *f);

#endif
