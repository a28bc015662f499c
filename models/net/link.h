/* A link direction: a serializer and a propagation stage. At most one frame is being
 * serialized; frames on the wire wait in a FIFO for their arrival. The link holds exactly two
 * timers (end of serialization, next arrival), never one per packet.
 *
 * Framing: packets always carry an Ethernet header in their bytes (what P4 programs parse and
 * pcap shows), and the link's framing says what the device would hold and send instead:
 *   ethernet  the frame, padded to the 60-byte minimum; overhead 24 B (preamble 8, IFG 12, FCS 4)
 *   ppp       the IP packet + a 2-byte PPP header, as ns-3's PointToPointNetDevice; overhead 0
 *   none      the IP packet alone; overhead 0
 * Buffers (switch traffic manager, host NIC queue) count the device bytes; the wire carries the
 * device bytes + overhead_bytes.
 *
 * Timing: device bytes + overhead_bytes take ceil(bits * 1e12 / rate) ps to serialize; the last
 * bit arrives delay_ps later and the receiver gets it then (store and forward).
 *
 * Folded ends of transmission: when a frame starts and its node has nothing else to send on the
 * port (node_ops.idle) while the wire still holds an earlier frame that arrives after this one's
 * end, the end of transmission would do nothing but put the frame on the wire. The frame goes
 * onto the wire at once and the end takes no event: its place in the event order is reserved
 * (evq_reserve) and used only if a packet or control frame comes before the end (the kick
 * schedules the end into its place, and the end pulls it as it would have). So the run is the
 * same event by event; the folded ends are counted as events (evq_note_folded, link_settle). */
#ifndef SIM_MODELS_NET_LINK_H
#define SIM_MODELS_NET_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/pkt.h"
#include "sim/evq.h"
#include "sim/param.h"

struct node;
struct port;
struct pcap_writer;

enum link_framing {
    LINK_FRAMING_ETHERNET,
    LINK_FRAMING_PPP,
    LINK_FRAMING_NONE,
};

#define ETH_MIN_FRAME_BYTES 60 /* without FCS: shorter frames are padded */
#define PPP_HDR_BYTES 2        /* protocol field (ns-3's PppHeader) */

struct link_cfg {
    uint64_t rate_bps;
    sim_time_t delay_ps;
    uint64_t overhead_bytes; /* per frame, on the wire only */
    int framing;             /* enum link_framing */
};

/* A link as the scenario declares it: two endpoints and the channel parameters. */
struct link_spec {
    const char *name;
    const char *a;
    const char *b;
    struct link_cfg cfg;
};

extern const struct param_def link_params[];
extern const size_t link_nparams;

/* After decoding: the framing's overhead when no layer set `overhead`. */
void link_cfg_finish(struct link_cfg *c, bool overhead_given);

/* Bytes a device with framing `framing` (enum link_framing) holds for a packet of `size_bytes`
 * (Ethernet frame). */
static inline uint32_t link_framing_bytes(int framing, uint32_t size_bytes)
{
    uint32_t ip = size_bytes > ETH_HDR_LEN ? size_bytes - ETH_HDR_LEN : 0;
    switch (framing) {
    case LINK_FRAMING_PPP:
        return ip + PPP_HDR_BYTES;
    case LINK_FRAMING_NONE:
        return ip;
    default:
        return size_bytes < ETH_MIN_FRAME_BYTES ? ETH_MIN_FRAME_BYTES : size_bytes;
    }
}

/* Bytes a device with this framing holds for a packet of `size_bytes` (Ethernet frame). */
static inline uint32_t link_dev_bytes(const struct link_cfg *c, uint32_t size_bytes)
{
    return link_framing_bytes(c->framing, size_bytes);
}

/* Bytes on the wire for a packet of `size_bytes`: device bytes + overhead. */
static inline uint64_t link_wire_bytes(const struct link_cfg *c, uint32_t size_bytes)
{
    return (uint64_t)link_dev_bytes(c, size_bytes) + c->overhead_bytes;
}

/* The lines a packet's events read (with the port's node and index before it, the link starts
 * 16 bytes into the port's first line: node.h): line 0 what a kick reads (the flags, the end of
 * the transmission and its place, for a folded end) and the settings a transmission reads
 * (copies of the configuration's); line 1 the end's timer and the counters a transmission
 * updates; line 2 the wire, which is all an arrival reads but for a keyed frame's place (the
 * receiving node and port index included, so the receiving port is not read). The control
 * queue and the configuration come after. */
struct link {
    sim_time_t byte_ps;  /* wire time of one byte when 8e12 / rate is a whole number, else 0 */
    sim_time_t delay_ps; /* cfg.delay_ps */
    struct pkt *serializing; /* NULL while the end is folded: the frame is on the wire */
    sim_time_t free_at;      /* the end of the current transmission */
    uint64_t tx_seq;         /* the end's reserved place in the event order */
    uint16_t overhead;       /* cfg.overhead_bytes (at most 1 KB) */
    int8_t framing;          /* cfg.framing */
    bool busy;
    bool in_pull;            /* asking the node for its next packet: a kick from inside waits */
    bool folded;             /* the current transmission's end is folded (not in the queue) */
    bool ctrl_queued;        /* ctrl holds frames */
    /* line 1 */
    struct evq_timer tx_done;
    uint64_t tx_pkts;
    uint64_t tx_bytes;       /* device bytes (link_dev_bytes), without overhead */
    struct pcap_writer *tap; /* optional trace of frames as they start on the wire */
    struct pkt_fifo ctrl;    /* MAC control frames (PFC): sent before anything queued */
    sim_time_t busy_ps;      /* total serialization time, kept only when byte_ps is 0
                              * (link_busy_ps) */
    /* line 2 */
    struct pkt_fifo on_wire; /* frames propagating, in arrival order; t_enq = arrival time */
    struct evq_timer arrive;
    struct pkt *keyed_pkt;   /* a folded frame whose arrival the frame ahead schedules */
    struct port *peer;       /* the receiving port (port->peer) */
    struct node *peer_node;  /* its node */
    uint32_t peer_index;     /* its index: an arriving packet's in_port */
    bool keyed;              /* arrivals keyed by their end's place (link_key_arrivals) */
    struct link_cfg cfg;
};

void link_init(struct link *l, struct port *port, const struct link_cfg *cfg);
/* Frees frames still on the wire. */
void link_fini(struct sim *sim, struct link *l);
/* Asks the sending node for a packet if the link is idle. Call after queueing a packet. */
void link_kick(struct sim *sim, struct link *l);
/* Counts a folded end of transmission that has passed (the link is then idle). Returns false
 * while the link's folded end is still ahead; true otherwise. Call at the end of a run. */
bool link_settle(struct sim *sim, struct link *l);
/* Keyed arrivals. The arrival a transmission's end schedules normally takes its place in the
 * order when the end runs; keyed, it takes the end's own reserved place. Among arrivals at one
 * instant that is the same order when every link has the same delay d > 0 and nothing else
 * schedules arrivals between a transmission's start and its end for the instant its frame
 * arrives (a switch pipeline latency shorter than d keeps to that): the ends at t - d run in the
 * order of their places, and an arrival a previous arrival schedules is scheduled after t - d.
 * Keyed, an end that only schedules its frame's arrival can be folded too. The builder keys
 * every link's arrivals when those conditions hold. */
static inline void link_key_arrivals(struct link *l)
{
    l->keyed = true;
}
/* Sends a MAC control frame ahead of every queue (after the frame on the wire). */
void link_send_ctrl(struct sim *sim, struct link *l, struct pkt *p);

/* simtime_tx_ps of `wire_bytes` (link_tx_ps: of the frame's wire bytes); a multiplication when
 * the rate divides 8e12 (10, 25, 40, 100 Gbps...), the same value as the 128-bit division. */
static inline sim_time_t link_wire_ps(const struct link *l, uint64_t wire_bytes)
{
    if (l->byte_ps)
        return (sim_time_t)wire_bytes * l->byte_ps;
    return simtime_tx_ps(wire_bytes, l->cfg.rate_bps);
}

static inline sim_time_t link_tx_ps(const struct link *l, uint32_t size_bytes)
{
    return link_wire_ps(l, (uint64_t)link_framing_bytes(l->framing, size_bytes) + l->overhead);
}

/* Total serialization time so far: with a whole number of ps per byte, the sum of the frames'
 * wire bytes times it (the frames' times summed, exactly); else kept frame by frame. */
static inline sim_time_t link_busy_ps(const struct link *l)
{
    if (l->byte_ps)
        return l->byte_ps * (sim_time_t)(l->tx_bytes + l->overhead * l->tx_pkts);
    return l->busy_ps;
}

#endif
