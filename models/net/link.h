/* A link direction: a serializer and a propagation stage. At most one frame is being
 * serialized; frames on the wire wait in a FIFO for their arrival. The link holds exactly two
 * timers (end of serialization, next arrival), never one per packet.
 *
 * Timing: a frame of size_bytes + overhead_bytes takes ceil(bits * 1e12 / rate) ps to
 * serialize; its last bit arrives delay_ps later and the receiver gets it then (store and
 * forward). overhead_bytes models preamble, IFG and FCS (24 B for Ethernet) or PPP framing. */
#ifndef SIM_MODELS_NET_LINK_H
#define SIM_MODELS_NET_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/pkt.h"
#include "sim/evq.h"
#include "sim/param.h"

struct port;
struct pcap_writer;

struct link_cfg {
    uint64_t rate_bps;
    sim_time_t delay_ps;
    uint64_t overhead_bytes; /* per frame, on the wire only */
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

struct link {
    struct link_cfg cfg;
    struct port *port; /* the sending port */
    bool busy;
    bool in_pull; /* asking the node for its next packet: a kick from inside waits */
    struct pkt *on_wire_head; /* frames propagating, in arrival order; t_enq = arrival time */
    struct pkt *on_wire_tail;
    struct evq_timer tx_done;
    struct evq_timer arrive;
    struct pkt *serializing;
    struct pkt *ctrl_head; /* MAC control frames (PFC): sent before anything queued */
    struct pkt *ctrl_tail;
    sim_time_t busy_ps; /* total serialization time */
    uint64_t tx_pkts;
    uint64_t tx_bytes; /* frame bytes, without overhead */
    struct pcap_writer *tap; /* optional trace of frames as they start on the wire */
};

void link_init(struct link *l, struct port *port, const struct link_cfg *cfg);
/* Frees frames still on the wire. */
void link_fini(struct sim *sim, struct link *l);
/* Asks the sending node for a packet if the link is idle. Call after queueing a packet. */
void link_kick(struct sim *sim, struct link *l);
/* Sends a MAC control frame ahead of every queue (after the frame on the wire). */
void link_send_ctrl(struct sim *sim, struct link *l, struct pkt *p);

static inline sim_time_t link_tx_ps(const struct link *l, uint32_t size_bytes)
{
    return simtime_tx_ps((uint64_t)size_bytes + l->cfg.overhead_bytes, l->cfg.rate_bps);
}

#endif
