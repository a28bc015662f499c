/* RDMA RC over RoCEv2 with DCQCN. A flow is a pair of queue pairs: the requester on `src` sends
 * `bytes` as RDMA WRITE (or SEND) messages cut into packets of at most `mtu` payload bytes; the
 * responder on `dst` acknowledges, detects gaps and asks for a go-back-N retransmission with a
 * NAK (PSN sequence error, carrying the expected PSN); the requester also goes back after `rto`
 * without progress. Real headers: Ethernet/IPv4/UDP to port 4791/BTH (+RETH on the first packet
 * of a WRITE, +AETH on ACK/NAK), ICRC counted in the frame size.
 *
 * DCQCN (Zhu et al., SIGCOMM 2015): data packets are ECT(0); switches mark CE (RED); the
 * responder (notification point) sends at most one CNP (BTH opcode 0x81) per `cnp_interval`
 * per flow; the requester (reaction point) runs the rate machine of models/dcqcn.h and paces
 * its packets at the current rate, measured in wire bytes (frame + link overhead).
 *
 * All RoCEv2 packets go to UDP port 4791, so each host has one RDMA NIC object bound to that
 * port, created with its first queue pair and freed with its last; it finds a packet's queue
 * pair by the destination QP number in the BTH. */
#ifndef SIM_MODELS_TRANSPORT_RDMA_H
#define SIM_MODELS_TRANSPORT_RDMA_H

#include <stdbool.h>
#include <stdint.h>

#include "models/transport/dcqcn.h"
#include "models/transport/flow.h"

enum rdma_verb {
    RDMA_VERB_WRITE = 0,
    RDMA_VERB_SEND = 1,
};

enum rdma_cc {
    RDMA_CC_NONE = 0,
    RDMA_CC_DCQCN = 1,
};

struct rdma_flow_cfg {
    struct flow_cfg common;
    uint64_t mtu_bytes;     /* payload bytes per packet */
    uint64_t message_bytes; /* 0: `bytes` is one message (1 MiB messages when bytes is 0) */
    int verb;               /* enum rdma_verb */
    int cc;                 /* enum rdma_cc */
    int64_t ack_every;      /* the requester sets the A bit every this many packets */
    sim_time_t rto_ps;
    int64_t cnp_priority; /* traffic class of CNPs; -1 = the flow's */
    sim_time_t cnp_interval_ps;
    sim_time_t alpha_timer_ps;
    sim_time_t rate_timer_ps;
    uint64_t byte_counter_bytes;
    double g;
    double alpha_init;
    uint64_t rai_bps;
    uint64_t rhai_bps;
    int64_t f_stages;
    uint64_t min_rate_bps;
    uint64_t max_rate_bps; /* 0 = the sender's link rate */
    int64_t psn_start;     /* PSN of the first packet */
    sim_time_t rate_interval_ps; /* 0 = no rate samples */
};

struct rdma_nic;

/* One end of the connection, registered in its host's RDMA NIC under its QP number. */
struct rdma_qp {
    struct rdma_nic *nic;
    uint32_t qpn;
    bool requester;
};

/* Stream mode (message layer): each push is one RDMA message. */
struct rdma_smsg {
    uint64_t first; /* packet index of its first packet */
    uint64_t npkts;
    uint64_t len; /* payload bytes */
    uint64_t off; /* stream offset of its first byte */
};

/* One sample of the reaction point (rate_interval). */
struct rdma_sample {
    sim_time_t t_ps;
    uint64_t rc_bps; /* current rate */
    uint64_t rt_bps; /* target rate */
    double alpha;
};

struct rdma_flow {
    struct flow base;
    struct rdma_flow_cfg cfg;
    struct rdma_qp req;  /* on src */
    struct rdma_qp resp; /* on dst */
    struct nic_source source;
    struct evq_timer pace; /* start, then the rate limiter's next permitted send */
    struct evq_timer rto;
    struct evq_timer alpha; /* DCQCN α decay period */
    struct evq_timer rate;  /* DCQCN rate increase period */
    struct dcqcn dcqcn;
    uint64_t link_rate_bps;
    struct link_cfg link; /* the sender's link: packets are paced by their wire bytes */
    uint32_t psn_base;
    /* requester: packet indexes (PSN = psn_base + index mod 2^24) */
    uint64_t total_pkts;   /* UINT64_MAX when bytes is 0 */
    uint64_t msg_pkts;     /* packets of a full message */
    uint64_t snd_una;      /* oldest packet not acknowledged */
    uint64_t snd_nxt;      /* next packet to (re)send */
    uint64_t snd_max;      /* one past the highest packet sent */
    sim_time_t next_tx_ps; /* rate limiter: earliest start of the next data packet */
    sim_time_t done_ps;    /* all packets acknowledged; -1 until then */
    bool started;
    /* responder */
    uint64_t rcv_nxt; /* next packet expected */
    uint32_t rcv_msn;
    bool nak_sent;          /* a NAK for rcv_nxt is outstanding */
    sim_time_t last_cnp_ps; /* -1 = none yet */
    sim_time_t min_cnp_gap_ps;
    /* counters */
    struct rdma_smsg *smsg; /* stream mode: messages not yet fully acknowledged, from smsg_head */
    size_t nsmsg;
    size_t cap_smsg;
    size_t smsg_head;
    bool idle; /* stream mode: everything pushed is acknowledged; timers stopped */
    uint64_t acks_sent;
    uint64_t naks_sent;
    uint64_t naks_rx;
    uint64_t ooo_pkts;
    uint64_t dup_pkts;
    uint64_t cnps_sent;
    uint64_t cnps_rx;
};

extern const struct flow_ops rdma_flow_ops;

#endif
