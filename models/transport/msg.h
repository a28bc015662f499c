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
#ifndef SIM_MODELS_TRANSPORT_MSG_H
#define SIM_MODELS_TRANSPORT_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "models/transport/flow.h"
#include "models/net/hostcpu.h"
#include "sim/param.h"
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

/* Presets for the RDMA-for-TensorFlow paper's three systems and for NCCL's two inter-host
 * transports (see docs in msg.c). */
enum msg_preset {
    MSG_PRESET_NONE = 0,
    MSG_PRESET_GRPC_TCP = 1,
    MSG_PRESET_RPC_RDMA = 2,
    MSG_PRESET_RDMA_ZERO_COPY = 3,
    MSG_PRESET_NCCL_SOCKET = 4, /* NCCL's socket transport: copies through host memory */
    MSG_PRESET_NCCL_GDR = 5,    /* NCCL over RDMA with GPUDirect: no host copy */
};

extern const char *const msg_preset_names[];
/* The cost of a preset and the transport it runs over ("tcp", "rdma", or NULL for none). */
const char *msg_preset(enum msg_preset p, struct msg_cost *cost);
/* Parameter table entries for a struct msg_cost member `field` of config struct S (the keys a
 * scenario uses to override a preset), and the function that applies a preset under them. */
#define MSG_COST_OFF(S, field, m) (offsetof(S, field) + offsetof(struct msg_cost, m))
#define MSG_COST_PARAMS(S, field)                                                              \
    {"tx_fixed", PARAM_TIME, MSG_COST_OFF(S, field, tx_fixed_ps), PARAM_OPTIONAL, "0", "1s",   \
     NULL, "sender CPU time per message (overrides the preset)"},                             \
        {"rx_fixed", PARAM_TIME, MSG_COST_OFF(S, field, rx_fixed_ps), PARAM_OPTIONAL, "0",     \
         "1s", NULL, "receiver CPU time per message"},                                         \
        {"tx_copies", PARAM_INT, MSG_COST_OFF(S, field, tx_copies), PARAM_OPTIONAL, "0", "16", \
         NULL, "sender memory copies of the payload"},                                         \
        {"rx_copies", PARAM_INT, MSG_COST_OFF(S, field, rx_copies), PARAM_OPTIONAL, "0", "16", \
         NULL, "receiver memory copies of the payload"},                                       \
        {"copy_bw", PARAM_RATE, MSG_COST_OFF(S, field, copy_bps), PARAM_OPTIONAL, "1Mbps",     \
         NULL, NULL, "memcpy bandwidth (default 40Gbps = 5 GB/s)"},                            \
        {"serialize_bw", PARAM_RATE, MSG_COST_OFF(S, field, serialize_bps), PARAM_OPTIONAL,    \
         "0", NULL, NULL, "(de)serialization bandwidth at each side (0 = none)"},              \
        {"control_rtt", PARAM_BOOL, MSG_COST_OFF(S, field, control_rtt), PARAM_OPTIONAL, NULL, \
         NULL, NULL, "a rendezvous request/reply precedes each payload"},                      \
        {"poll", PARAM_TIME, MSG_COST_OFF(S, field, poll_ps), PARAM_OPTIONAL, "0", "1s", NULL, \
         "receiver notices a completion this late"}

/* `decoded` holds the values decoded from map `m`; the result is the preset's cost with the keys
 * present in `m` taken from `decoded`. */
void msg_cost_resolve(struct msg_cost *decoded, enum msg_preset preset, const struct cfg_node *m);

/* CPU time of a message of `bytes` at the sender / receiver. */
sim_time_t msg_tx_cost_ps(const struct msg_cost *c, uint64_t bytes);
sim_time_t msg_rx_cost_ps(const struct msg_cost *c, uint64_t bytes);

#define MSG_CONTROL_BYTES 64 /* a rendezvous request or reply */
#define MSG_TAG_MAX 32       /* bytes of a per-message tag the layer keeps (tag_per_msg) */

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
    sim_time_t blk_mark[8]; /* the sender NIC's blocking clocks (blocking.h) when the message
                             * entered the stream, per priority */
    uint64_t rx_bytes; /* unordered transports: bytes of this message that arrived */
    bool rx_started;   /* the receiver CPU has it */
    bool acked;
    bool delivered;
};

/* Called at the receiver when a message is delivered, and at the sender when it is acked. */
typedef void msg_cb(struct msg_conn *c, const struct msg *m, void *ud);

/* What the application hears and adds. All optional except what it uses. */
struct msg_hooks {
    msg_cb *on_delivered;
    msg_cb *on_acked;
    /* per-packet tag (the DDL shim) of tag_bytes for the packet carrying bytes
     * [off, off + len) of message m */
    uint16_t tag_bytes;
    void (*tag)(struct msg_conn *c, const struct msg *m, uint64_t off, uint32_t len,
                uint8_t *tag, struct pkt *p, void *ud);
    /* the tag (and the p->prio it sets) depends only on the message and on off == 0: the
     * layer calls tag() for a message's first packet and once for the rest, then copies */
    bool tag_per_msg;
    /* each data packet at the receiver, with its tag */
    void (*rx_packet)(struct msg_conn *c, const struct pkt *p, const uint8_t *tag, void *ud);
    bool ddl_port; /* the data flow's source port comes from the DDL range (host_ddl_port) */
    void *ud;
};

struct msg_conn {
    struct sim *sim;
    struct host *src;
    struct host *dst;
    struct msg_cost cost;
    struct flow *data;     /* src → dst payload stream */
    struct flow *ctrl_req; /* src → dst rendezvous requests (control_rtt) */
    struct flow *ctrl_rep; /* dst → src rendezvous replies */
    struct msg_hooks hooks;
    struct pool msgs;
    struct msg *head; /* oldest live message */
    struct msg *tail;
    struct msg *next_push;    /* first message not yet in the stream */
    struct msg *next_ack;     /* first message not yet acked */
    struct msg *next_deliver; /* ordered transports: first message not yet delivered */
    struct msg *rx_hint;      /* unordered: the message the last datagram belonged to */
    struct msg *tx_hint;      /* the message of the last segment the sender cut or tagged */
    uint64_t tag_id;          /* tag_per_msg: the message whose tag (off > 0) is kept, or
                               * UINT64_MAX */
    uint8_t tag_prio;
    uint8_t tag_kept[MSG_TAG_MAX];
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
                                 const void *tp_cfg, const struct msg_cost *cost,
                                 const struct msg_hooks *hooks);
void msg_conn_destroy(struct msg_conn *c);
/* Submits a message of `bytes` (≥ 1) now. Returns its id. */
uint64_t msg_send(struct msg_conn *c, uint64_t bytes, void *meta);

#endif
