/* The message layer: applications send messages over a connection; the connection carries them
 * as one byte stream over a transport flow (UDP, TCP, RDMA — any flow kind with stream mode) and
 * charges each message's host software cost to the sender's and receiver's CPU (hostcpu.h).
 *
 * A message's life: submitted → sender CPU (fixed overhead + copies + serialization) → [control
 * round trip, for RPC over RDMA's rendezvous: a small request and reply as real packets] → its
 * bytes enter the stream (in submission order) → the last byte is delivered in order at the
 * receiver → receiver CPU (fixed + copies + deserialization + completion polling) → delivered
 * callback. The sender's callback runs when the transport is done with the last byte (acked).
 *
 * Messages come from a pool owned by the connection; no allocation per packet. */
#ifndef SIM_MODELS_MSG_H
#define SIM_MODELS_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "models/flow.h"
#include "models/hostcpu.h"
#include "sim/pool.h"
#include "sim/stats.h"

/* Software cost of one message (per side). Rates are memory bandwidths expressed in bits/s. */
struct msg_cost {
    sim_time_t tx_fixed_ps;  /* sender: per-message CPU time (RPC framework, syscalls) */
    sim_time_t rx_fixed_ps;  /* receiver: per-message CPU time */
    int64_t tx_copies;       /* sender: memory copies of the payload */
    int64_t rx_copies;       /* receiver: memory copies of the payload */
    uint64_t copy_bps;       /* memcpy bandwidth */
    uint64_t serialize_bps;  /* (de)serialization bandwidth at each side; 0 = none */
    bool control_rtt;        /* a rendezvous request/reply precedes the payload */
    sim_time_t poll_ps;      /* receiver notices the completion this late (flag polling) */
};

/* Presets for the RDMA-for-TensorFlow paper's three systems (see docs in msg.c). */
enum msg_preset {
    MSG_PRESET_NONE = 0,
    MSG_PRESET_GRPC_TCP = 1,
    MSG_PRESET_RPC_RDMA = 2,
    MSG_PRESET_RDMA_ZERO_COPY = 3,
};

extern const char *const msg_preset_names[];
/* The cost of a preset and the transport it runs over ("tcp", "rdma", or NULL for none). */
const char *msg_preset(enum msg_preset p, struct msg_cost *cost);
/* CPU time of a message of `bytes` at the sender / receiver. */
sim_time_t msg_tx_cost_ps(const struct msg_cost *c, uint64_t bytes);
sim_time_t msg_rx_cost_ps(const struct msg_cost *c, uint64_t bytes);

#define MSG_CONTROL_BYTES 64 /* a rendezvous request or reply */

struct msg_conn;

struct msg {
    struct msg *next;       /* submission order */
    struct hostcpu_job job; /* the sender's, then the receiver's CPU work */
    struct msg_conn *conn;
    uint64_t id;
    uint64_t bytes;
    uint64_t end;           /* stream offset just past its last byte */
    void *meta;             /* the application's */
    sim_time_t t_submit;
    sim_time_t t_delivered;
    bool tx_done;   /* sender CPU finished */
    bool in_stream; /* bytes pushed to the data flow */
    bool acked;
    bool delivered;
};

/* Called at the receiver when a message is delivered, and at the sender when it is acked. */
typedef void msg_cb(struct msg_conn *c, const struct msg *m, void *ud);

struct msg_conn {
    struct sim *sim;
    struct host *src;
    struct host *dst;
    struct msg_cost cost;
    struct flow *data;     /* src → dst payload stream */
    struct flow *ctrl_req; /* src → dst rendezvous requests (control_rtt) */
    struct flow *ctrl_rep; /* dst → src rendezvous replies */
    msg_cb *on_delivered;
    msg_cb *on_acked;
    void *ud;
    struct pool msgs;
    struct msg *head; /* oldest live message */
    struct msg *tail;
    struct msg *next_push;    /* first message not yet in the stream */
    struct msg *next_ack;     /* first message not yet acked */
    struct msg *next_deliver; /* first message not yet delivered */
    uint64_t ctrl_sent;       /* rendezvous requests issued / replies seen */
    uint64_t ctrl_replied;
    uint64_t pushed;          /* stream bytes pushed */
    uint64_t next_id;
    uint64_t submitted;
    uint64_t delivered_msgs;
    uint64_t delivered_bytes;
    struct stats latency; /* submit → delivered, seconds */
};

/* Creates a connection whose payload travels over a new flow of transport `tp` configured by
 * `tp_cfg` (that transport's config struct; bytes and stream fields are set here). Control
 * flows, when the cost asks for a rendezvous, are UDP. `flow_index` tags the packets. */
struct msg_conn *msg_conn_create(struct sim *sim, const char *name, uint32_t flow_index,
                                 struct host *src, struct host *dst, const struct flow_ops *tp,
                                 const void *tp_cfg, const struct msg_cost *cost, msg_cb *on_delivered,
                                 msg_cb *on_acked, void *ud);
void msg_conn_destroy(struct msg_conn *c);
/* Submits a message of `bytes` (≥ 1) now. Returns its id. */
uint64_t msg_send(struct msg_conn *c, uint64_t bytes, void *meta);

#endif
