/* Traffic flows of every transport share this base: identity, endpoints and the statistics the
 * reports print. A transport is a `struct flow_ops` (its parameter table, a validator, a
 * constructor) listed in registry.c; its flow struct embeds struct flow as first member.
 *
 * Every transport's configuration struct starts with struct flow_cfg, and its parameter table
 * starts with FLOW_COMMON_PARAMS(struct_name), so the common keys read the same everywhere. */
#ifndef SIM_MODELS_TRANSPORT_FLOW_H
#define SIM_MODELS_TRANSPORT_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "models/net/host.h"
#include "sim/param.h"
#include "sim/spool.h"
#include "sim/stats.h"
#include "sim/util.h"

struct flow_cfg {
    const char *name;
    const char *type;
    const char *src;
    const char *dst;
    uint64_t bytes;      /* payload bytes to deliver; 0 = until stop */
    sim_time_t start_ps;
    sim_time_t stop_ps;  /* 0 = never */
    int64_t priority;    /* traffic class 0..7 */
    int64_t dscp;
    bool ecn;            /* ECN-capable transport */
    const struct cfg_node *after; /* names of flows that must complete first */
};

#define FLOW_COMMON_PARAMS(S)                                                                  \
    {"name", PARAM_STRING, offsetof(S, common.name), PARAM_OPTIONAL, NULL, NULL, NULL,         \
     "flow name (unique; default f<index>)"},                                                  \
        {"type", PARAM_STRING, offsetof(S, common.type), PARAM_OPTIONAL, NULL, NULL, NULL,     \
         "flow kind (default udp; ddlsim describe lists them)"},                               \
        {"src", PARAM_STRING, offsetof(S, common.src), NULL, NULL, NULL, NULL, "sending host"}, \
        {"dst", PARAM_STRING, offsetof(S, common.dst), NULL, NULL, NULL, NULL,                 \
         "receiving host"},                                                                    \
        {"bytes", PARAM_SIZE, offsetof(S, common.bytes), "0", NULL, NULL, NULL,                \
         "payload bytes to send (0 = until stop)"},                                            \
        {"start", PARAM_TIME, offsetof(S, common.start_ps), "0", "0", NULL, NULL,              \
         "when the flow starts"},                                                              \
        {"stop", PARAM_TIME, offsetof(S, common.stop_ps), "0", "0", NULL, NULL,                \
         "no new data after this time (0 = never)"},                                           \
        {"priority", PARAM_INT, offsetof(S, common.priority), "0", "0", "7", NULL,             \
         "traffic class (queue) of the flow's packets"},                                       \
        {"dscp", PARAM_INT, offsetof(S, common.dscp), "0", "0", "63", NULL, "IPv4 DSCP"},      \
        {"ecn", PARAM_BOOL, offsetof(S, common.ecn), "false", NULL, NULL, NULL,                \
         "ECN-capable transport (packets sent ECT(0))"},                                       \
        {"after", PARAM_NODE, offsetof(S, common.after), PARAM_OPTIONAL, NULL, NULL, NULL,     \
         "start only when these flows (names) have delivered all their bytes"}

struct flow_stats {
    uint64_t tx_pkts;  /* data packets sent, retransmissions included */
    uint64_t tx_bytes; /* payload bytes sent, retransmissions included */
    uint64_t rx_pkts;  /* data packets received */
    uint64_t rx_bytes; /* payload bytes delivered to the application (in order, once) */
    uint64_t rx_ce;    /* data packets received with CE */
    uint64_t retx_pkts;
    uint64_t timeouts;
    sim_time_t first_tx_ps;
    sim_time_t last_rx_ps;
    sim_time_t complete_ps; /* all `bytes` delivered; -1 until then */
    struct stats delay;     /* one-way delay of data packets, seconds */
    struct stats qdelay;    /* time data packets spent in queues, seconds */
};

struct flow;

/* Byte-stream use of a flow (the message layer): the owner pushes bytes to send and hears of
 * progress. In stream mode the flow sends what was pushed instead of `bytes`. */
struct flow_stream {
    /* receiver, ordered transports (TCP, RDMA RC): payload bytes delivered in order so far
     * (called when it grows). Returns the total below which nothing new would happen (the
     * next message's end), so the flow calls again only from there; 0: at every growth. */
    uint64_t (*delivered)(struct flow *f, uint64_t total, void *ud);
    /* receiver, unordered transports (UDP): stream bytes [off, off + len) arrived */
    void (*delivered_range)(struct flow *f, uint64_t off, uint64_t len, void *ud);
    /* sender: payload bytes the transport is done with (acknowledged; for UDP, sent); returns
     * as `delivered` does */
    uint64_t (*acked)(struct flow *f, uint64_t total, void *ud);
    void *ud;
    /* Optional per-packet tag (the DDL shim header): tag_bytes more header bytes follow the
     * transport header of every data packet (counted in the frame, not in the payload);
     * tag() writes all of them for the packet carrying stream bytes [offset, offset + len). */
    uint16_t tag_bytes;
    void (*tag)(struct flow *f, uint64_t offset, uint32_t len, uint8_t *tag, struct pkt *p,
                void *ud);
    /* Optional: where the message holding stream byte `off` ends; transports cut segments
     * there, so a packet (and its tag) never spans two messages. An answer end > off holds
     * for every byte of [off, end) from then on (a message's bytes do not change once in the
     * stream): the flow asks again only outside the range it was last given. */
    uint64_t (*msg_end)(struct flow *f, uint64_t off, void *ud);
    /* Optional: the receiver sees each data packet (with its tag) as it arrives. */
    void (*rx_packet)(struct flow *f, const struct pkt *p, const uint8_t *tag, void *ud);
};

struct flow_ops {
    const char *type;
    const char *summary;
    bool reliable; /* retransmits: tx - rx packets is not a loss count */
    bool messages; /* writes one messages.csv row per delivered message */
    const struct param_def *params;
    const size_t *nparams;
    size_t cfg_size; /* the transport's config struct, starting with struct flow_cfg */
    /* Checks a decoded configuration and completes derived fields; reports errors at `m` and
     * returns their number. scenario_stop_ps is the scenario's stop time (0 = none). */
    int (*check)(void *cfg, const struct cfg_node *m, struct diag *d, const char *name,
                 sim_time_t scenario_stop_ps);
    /* Creates the flow (cfg already checked) and schedules its start. */
    struct flow *(*create)(struct sim *sim, uint32_t index, const char *name, const void *cfg,
                           struct host *src, struct host *dst);
    void (*destroy)(struct sim *sim, struct flow *f);
    /* Adds transport-specific fields to the flow's summary.json object (may be NULL). */
    void (*stats_json)(const struct flow *f, json_t *obj);
    /* Stream mode: more bytes to send (f->pushed already counts them); NULL if unsupported.
     * Also called once with nothing new when the flow becomes a stream. */
    void (*push)(struct flow *f);
    /* Changes the source port before the flow starts (NULL: f->sport is simply used). */
    void (*set_sport)(struct flow *f, uint16_t port);
};

struct flow {
    const struct flow_ops *ops;
    char *name;
    uint32_t index;
    struct host *src;
    struct host *dst;
    struct flow_cfg common;
    struct flow_stats st;
    uint16_t sport;            /* transport source port (DDL streams use 0xDDxx) */
    bool streaming;            /* stream mode: send what was pushed */
    uint64_t pushed;           /* stream mode: bytes pushed so far */
    struct flow_stream stream; /* stream mode: progress callbacks */
    uint64_t seg_msg[2];       /* stream mode: [off, end) of the last msg_end answer */
    uint64_t report_at[2];     /* stream mode: delivered / acked totals the owner waits for */
    FILE *messages;            /* messages.csv rows of message flows (rpc), set by the report */
    struct flow **dependents;  /* flows waiting for this one to complete (`after`) */
    uint32_t ndependents;
    uint32_t waiting_for;      /* flows this one still waits for */
    struct evq_timer *start;   /* the transport's timer that starts the flow */
    struct evq_timer sample;   /* samples the transport's state every sample_ps (0: off) */
    sim_time_t sample_ps;
    struct spool_stream samples; /* the samples taken, on their way to the run's outputs */
};

/* Called by a transport's create(): the flow starts when the transport's timer `start` fires
 * (start_fire, set up here) at common.start; with sample_ps > 0 the transport's `sample_fire`
 * fires then too (and re-arms f->sample itself). Flow dependencies move both (flow_start_at). */
void flow_start_timers(struct flow *f, struct sim *sim, struct evq_timer *start,
                       evq_fire_fn *start_fire, evq_fire_fn *sample_fire, sim_time_t sample_ps);
/* Before flow_start_timers with sample_ps > 0: samples are records of `rec` bytes that
 * summary.json shows through `json` (spool_json_ref(&f->samples, column)). */
void flow_samples_init(struct flow *f, struct sim *sim, uint32_t rec, spool_json_fn *json);
/* Called by the transport's sample_fire: one sample, written to the spool (memory stays one
 * block per flow however long the run). */
static inline void flow_sample(struct flow *f, const void *rec)
{
    spool_append(&f->samples, rec);
}
/* Moves the flow's start; SIM_TIME_NEVER holds it until a later call. */
void flow_start_at(struct flow *f, struct sim *sim, sim_time_t at);
/* Cancels the start and sample timers (a transport's destroy). */
void flow_cancel_timers(struct flow *f, struct sim *sim);

/* Records that all of the flow's bytes are delivered (sets complete_ps) and starts the flows
 * that were waiting for it. Transports call it once. */
void flow_complete(struct flow *f, sim_time_t now);
/* Makes `f` wait for `first` to complete (builder; before the run). */
void flow_wait_for(struct flow *f, struct flow *first);

/* Payload bytes the flow may send in total: pushed bytes in stream mode, else `bytes`
 * (0 = unlimited). */
static inline uint64_t flow_budget(const struct flow *f)
{
    return f->streaming ? f->pushed : f->common.bytes;
}

/* Sets the transport source port before the flow starts. */
void flow_set_sport(struct flow *f, uint16_t port);
/* Puts a flow in stream mode before it starts. */
void flow_stream_attach(struct flow *f, const struct flow_stream *s);
/* Adds bytes to a streaming flow's budget and wakes the transport. */
void flow_push(struct flow *f, uint64_t bytes);
/* Called by transports: progress for the stream owner (no-ops when not streaming). */
static inline void flow_report_delivered(struct flow *f, uint64_t total)
{
    if (f->streaming && f->stream.delivered && total >= f->report_at[0])
        f->report_at[0] = f->stream.delivered(f, total, f->stream.ud);
}
void flow_report_range(struct flow *f, uint64_t off, uint64_t len);
static inline void flow_report_acked(struct flow *f, uint64_t total)
{
    if (f->streaming && f->stream.acked && total >= f->report_at[1])
        f->report_at[1] = f->stream.acked(f, total, f->stream.ud);
}
/* At most `len` bytes from stream offset `off` that stay inside one message. */
static inline uint64_t flow_segment_limit(struct flow *f, uint64_t off, uint64_t len)
{
    if (!f->streaming || !f->stream.msg_end)
        return len;
    if (off < f->seg_msg[0] || off >= f->seg_msg[1]) { /* not in the message asked last */
        uint64_t end = f->stream.msg_end(f, off, f->stream.ud);
        if (end <= off)
            return len;
        f->seg_msg[0] = off;
        f->seg_msg[1] = end;
    }
    return MIN(len, f->seg_msg[1] - off);
}
/* Called by transports when building a data packet whose transport header ends at
 * p->hdr_len: appends the stream's tag (if any) for bytes [offset, offset + len). Returns the
 * tag length added. The transport must have left room (flow_tag_bytes) in its segment size. */
static inline uint16_t flow_tag_bytes(const struct flow *f)
{
    return f->streaming ? f->stream.tag_bytes : 0;
}
static inline uint16_t flow_tag_packet(struct flow *f, uint64_t offset, uint32_t len,
                                       struct pkt *p)
{
    uint16_t n = flow_tag_bytes(f);
    if (n == 0 || !f->stream.tag)
        return 0;
    SIM_ASSERT(p->hdr_len + n <= PKT_HDR_MAX);
    f->stream.tag(f, offset, len, p->hdr + p->hdr_len, p, f->stream.ud);
    p->hdr_len = (uint16_t)(p->hdr_len + n);
    return n;
}
/* Called by transports for each data packet received, before it is freed; `tag_off` is where
 * the tag starts in p->hdr. */
static inline void flow_rx_packet(struct flow *f, const struct pkt *p, uint16_t tag_off)
{
    if (f->streaming && f->stream.rx_packet)
        f->stream.rx_packet(f, p, flow_tag_bytes(f) ? p->hdr + tag_off : NULL, f->stream.ud);
}

/* Fills the base; the transport calls it from its create(). */
void flow_base_init(struct flow *f, const struct flow_ops *ops, uint32_t index, const char *name,
                    const struct flow_cfg *common, struct host *src, struct host *dst);
/* The end of a transport's destroy(), after it released what is its own: cancels the start and
 * sample timers and frees the base and the transport's flow struct (which starts with it). */
void flow_free(struct sim *sim, struct flow *f);
/* Records a data packet arriving at the receiver (delay statistics, CE); does not free it. */
static inline void flow_note_rx(struct flow *f, const struct pkt *p, sim_time_t now)
{
    f->st.rx_pkts++;
    f->st.last_rx_ps = now;
    if (pkt_ecn(p) == PKT_ECN_CE)
        f->st.rx_ce++;
    stats_add(&f->st.delay, simtime_sec(now - p->t_created));
    stats_add(&f->st.qdelay, simtime_sec(p->qdelay_ps));
}
double flow_fct_s(const struct flow *f);
double flow_goodput_bps(const struct flow *f);

#endif
