/* TCP NewReno (RFC 5681 congestion control, RFC 6582 fast recovery with partial ACKs, RFC 6298
 * retransmission timer) with DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257) as an option.
 *
 * One flow = a sender on `src` and a receiver on `dst`, each bound to its own port. By default
 * the connection starts established; with `handshake` the sender first exchanges SYN/SYN-ACK
 * (ECN setup flags, RTT sample, SYN retransmission with backoff). Both ends know the parameters
 * (MSS, window scale: no options are carried). Segments carry real Eth/IPv4/TCP headers
 * (models/tcp_hdr.h); ACKs are real packets flowing back through the network. Sequence numbers
 * are 64-bit byte offsets inside the model and ISN + 1 + offset (mod 2^32) on the wire, the
 * SYN having taken ISN, whether or not it was modelled.
 *
 * The sender keeps no packets: a (re)transmission is rebuilt from its byte range. New data is
 * pulled by the NIC (struct nic_source) when the link is idle and the window allows, so nothing
 * waits in the NIC queue (as Linux's TCP small queues keep it short); with `nic_queue` every
 * segment the window allows goes into the NIC queue at once, where `nic_buffer` can drop it (as
 * ns-3's stack and a NIC without such limits). Retransmissions are queued on the NIC ahead of
 * new data. `send_buffer` caps the bytes sent and not yet acknowledged, as a socket's send
 * buffer does. The receiver
 * keeps out-of-order data as a sorted list of byte ranges; bytes are counted delivered once,
 * when rcv_nxt passes them. With `sack` the receiver reports those ranges in SACK blocks and
 * the sender recovers by RFC 6675 (tcp_sack.h): in recovery cwnd stays at ssthresh and every
 * ACK sends, while cwnd − pipe allows, the next lost segment or else new data, both queued on
 * the NIC; after a timeout the resend skips SACKed data. Without it, RFC 6582 NewReno.
 *
 * Timers are lazy: a deadline field moves on every ACK and the heap entry is only moved when it
 * fires early, so the per-ACK cost is a store, not a heap operation. A timer with nothing left
 * to guard is cancelled, so a finished run ends at its last real event. */
#ifndef SIM_MODELS_TRANSPORT_TCP_H
#define SIM_MODELS_TRANSPORT_TCP_H

#include <stdbool.h>
#include <stdint.h>

#include "models/transport/flow.h"
#include "models/transport/ranges.h"
#include "models/transport/tcp_hdr.h"
#include "models/transport/tcp_sack.h"

enum tcp_state {
    TCP_STATE_IDLE = 0,     /* before `start` */
    TCP_STATE_SYN_SENT = 1, /* handshake: waiting for the SYN-ACK */
    TCP_STATE_ESTABLISHED = 2,
};

enum tcp_cc {
    TCP_CC_NEWRENO = 0,
    TCP_CC_DCTCP = 1,
};

struct tcp_flow_cfg {
    struct flow_cfg common;
    int cc;             /* enum tcp_cc */
    uint64_t mss_bytes; /* payload bytes per segment */
    int64_t init_cwnd_segs;
    uint64_t rcv_wnd_bytes; /* receiver window = cap on cwnd */
    sim_time_t rto_min_ps;
    sim_time_t rto_max_ps;
    sim_time_t rto_init_ps;
    bool delayed_ack;
    sim_time_t delack_timeout_ps;
    int64_t dupack_thresh;
    double dctcp_g;
    double dctcp_alpha_init;
    sim_time_t cwnd_interval_ps; /* 0 = no cwnd samples */
    bool handshake;              /* SYN / SYN-ACK before data */
    bool limited_transmit;       /* RFC 3042 */
    bool sack;                   /* SACK blocks (RFC 2018) and SACK loss recovery (RFC 6675) */
    bool nic_queue;              /* new data queued in the NIC (under nic_buffer) when allowed */
    uint64_t send_buffer_bytes;  /* at most this many bytes sent and unacknowledged (0: any) */
    bool timestamps;             /* RFC 7323 timestamps: an RTT sample from every new ACK */
};

/* One sample of the sender's state (cwnd_interval). */
struct tcp_sample {
    sim_time_t t_ps;
    uint64_t cwnd_bytes;
    uint64_t flight_bytes; /* snd_max - snd_una */
    double alpha;
};

struct tcp_flow {
    struct flow base;
    struct tcp_flow_cfg cfg;
    struct nic_source source; /* new data, pulled by the sender's NIC */
    struct endpoint snd_ep;   /* ACKs arrive here (on src) */
    struct endpoint rcv_ep;   /* data arrives here (on dst) */
    struct evq_timer start;
    struct evq_timer rto_timer;
    struct evq_timer delack_timer;
    uint16_t snd_port;
    uint16_t rcv_port;
    uint32_t snd_isn;
    uint32_t rcv_isn;
    uint8_t wscale; /* window scale both ends assume (not negotiated) */
    uint8_t state;  /* enum tcp_state, sender side */
    bool syn_retx;  /* the SYN was retransmitted: no RTT sample, IW = 1 MSS */
    sim_time_t syn_sent_ps;
    struct tcp_hdr_tmpl tmpl[2]; /* headers without options: [0] sender's, [1] receiver's */
    uint64_t total_bytes; /* bytes to send; UINT64_MAX until `stop` */

    /* sender, byte offsets */
    uint64_t snd_una;
    uint64_t snd_nxt;
    uint64_t snd_max; /* highest offset ever sent + 1 */
    uint64_t cwnd_bytes;
    uint64_t ssthresh_bytes;
    uint64_t ca_acked_bytes; /* congestion avoidance byte counter (RFC 3465) */
    uint64_t recover;        /* RFC 6582 `recover`, exclusive: snd_max at loss detection */
    uint32_t dupacks;
    uint64_t lt_bytes;      /* RFC 3042: window beyond cwnd opened by the 1st/2nd dupACK */
    uint64_t lt_sent_bytes; /* sent through that extra window (left out of ssthresh) */
    bool in_recovery;
    bool cwr_pending;     /* set CWR on the next new data segment (RFC 3168 §6.1.2) */
    uint64_t ecn_cut_end; /* no ECN window reduction until snd_una passes this */
    struct tcp_sack_sb sb; /* with sack: what the receiver reported holding above snd_una */
    /* RTT (one timed segment at a time, Karn's rule) and RTO, ps */
    bool rtt_timing;
    uint64_t rtt_seq;
    sim_time_t rtt_sent_ps;
    sim_time_t srtt_ps; /* 0 = no sample yet */
    sim_time_t rttvar_ps;
    sim_time_t rto_ps;          /* current, backoff included */
    sim_time_t rto_deadline_ps; /* SIM_TIME_NEVER = timer stopped */
    sim_time_t rto_timer_at_ps; /* where the heap entry sits while pending */
    sim_time_t ts_rtt_ps;       /* timestamps: the sample the ACK being handled gives, or -1 */
    uint32_t ts_peer;           /* timestamps, sender: the receiver's latest TSval, echoed */
    uint64_t rtt_samples;
    /* DCTCP sender */
    double alpha;
    uint64_t win_end; /* α is updated when snd_una passes this */
    uint64_t win_acked_bytes;
    uint64_t win_marked_bytes;

    /* receiver */
    uint64_t rcv_nxt;
    struct ranges rx; /* out-of-order data above rcv_nxt (rx.prefix == rcv_nxt) */
    struct tcp_sack_rcv sack_rcv;  /* with sack: the blocks in the order they are reported */
    uint32_t ts_recent;            /* timestamps: TSval the ACKs echo (RFC 7323 §4.3) */
    uint64_t last_ack_sent;        /* rcv_nxt in the last ACK sent */
    uint32_t unacked_segs;         /* delayed ACK: in-order segments not yet acknowledged */
    bool ce_state;                 /* DCTCP receiver: CE of the last data segment */
    bool ece_latched;              /* RFC 3168 receiver: echo ECE until CWR arrives */
    sim_time_t delack_deadline_ps; /* SIM_TIME_NEVER = no ACK owed */
    sim_time_t delack_timer_at_ps;


    /* counters */
    uint64_t fast_retx;
    uint64_t ece_acks; /* ACKs received with ECE */
    uint64_t ecn_cuts; /* window reductions caused by ECE */
    uint64_t acks_sent;
    uint64_t syns_rx; /* SYNs the receiver answered */
    uint64_t dupacks_rx;
    uint64_t ooo_segs;
    uint64_t sack_retx; /* segments retransmitted by SACK recovery (RFC 6675 NextSeg) */
    uint64_t sack_lost_retx; /* times retransmissions were found lost (tcp_sack_lost_retx) */
    uint32_t ooo_max_ranges;
};

extern const struct flow_ops tcp_flow_ops;

static inline struct tcp_flow *tcp_flow_of(struct flow *f)
{
    return (struct tcp_flow *)f;
}

#endif
