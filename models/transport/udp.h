/* UDP traffic: a source on one host and a sink on another, for validation and background load.
 * Patterns:
 *   burst   — `bytes` at line rate from `start`: the NIC pulls one packet whenever its link frees;
 *   cbr     — a message of `size` bytes every `interval` (or at `rate`);
 *   poisson — messages with exponential inter-arrival times of mean `interval` (or at mean
 *             `rate`), sizes fixed or drawn from a distribution.
 * Messages are cut into packets of at most mtu − 28 payload bytes. `rate` counts Ethernet frame
 * bytes (headers included, link overhead excluded). The sink counts bytes, packets, CE marks,
 * one-way and queueing delay (batch-means confidence intervals), and the completion time. */
#ifndef SIM_MODELS_TRANSPORT_UDP_H
#define SIM_MODELS_TRANSPORT_UDP_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "models/transport/flow.h"

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
    struct flow_cfg common;
    int pattern; /* enum udp_pattern */
    uint64_t rate_bps;  /* 0 = use interval */
    sim_time_t interval_ps;
    uint64_t mtu_bytes;
    uint64_t size_bytes; /* message size (cbr, poisson), payload bytes; 0 = one full packet */
    int size_dist;       /* enum udp_size_dist */
    uint64_t size_min_bytes;
    uint64_t size_max_bytes;
    double pareto_shape;
};

struct udp_flow {
    struct flow base;
    struct udp_flow_cfg cfg;
    struct nic_source source; /* burst */
    struct endpoint sink;
    struct evq_timer timer; /* start (burst), next message (cbr, poisson) */
    gsl_rng *rng;
    uint16_t dst_port;
    uint32_t payload_max;
    sim_time_t mean_gap_ps;
    uint64_t tx_msgs;
    bool done_sending;
};

extern const struct flow_ops udp_flow_ops;

#endif
