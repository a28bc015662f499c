/* Priority flow control (IEEE 802.1Qbb). A PAUSE frame (MAC control, EtherType 0x8808, opcode
 * 0x0101) names the classes it pauses and, per class, a time in quanta of 512 bit times at the
 * link's rate; 0 resumes at once. PAUSE frames are sent ahead of every queue (link control
 * slot) and never forwarded.
 *
 * Receive side (any port, host NIC or switch): struct pfc_rx keeps, per class, until when the
 * port's transmitter must hold that class; the owner's scheduler skips paused classes
 * (pfc_rx_allowed) and a wake timer restarts the link when a pause ends.
 * Send side (switch ingress ports): struct pfc_tx remembers which classes it paused upstream,
 * refreshes the pause before it expires while congestion lasts, and counts frames. */
#ifndef SIM_MODELS_NET_PFC_H
#define SIM_MODELS_NET_PFC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "models/net/pkt.h"
#include "sim/evq.h"

#define PFC_ETHERTYPE 0x8808
#define PFC_OPCODE 0x0101
#define PFC_FRAME_BYTES 60 /* minimum Ethernet frame without FCS */
#define PFC_MAX_QUANTA 0xffffu
#define PFC_NCLASSES 8

struct port;

struct pfc_rx {
    uint64_t frames; /* PAUSE frames received (first: read by every pull) */
    sim_time_t paused_until[PFC_NCLASSES];
    sim_time_t paused_ps[PFC_NCLASSES]; /* total time each class was held */
    struct evq_timer wake;
};

struct pfc_tx {
    uint8_t paused;          /* classes this port has paused upstream (XOFF sent) */
    uint64_t pause_frames;   /* XOFF and refresh frames sent */
    uint64_t resume_frames;  /* XON (quanta 0) frames sent */
    uint64_t xoff_transitions; /* classes going from running to paused (first XOFF of each) */
    struct evq_timer refresh;
};

void pfc_port_init(struct port *p);
void pfc_port_fini(struct sim *sim, struct port *p);

/* True for a PAUSE frame; the caller hands it to pfc_receive instead of forwarding it. */
static inline bool pfc_is_pause(const struct pkt *p)
{
    return p->hdr_len >= 34 && pkt_rd16(p->hdr + 12) == PFC_ETHERTYPE &&
           pkt_rd16(p->hdr + 14) == PFC_OPCODE;
}
/* Applies a received PAUSE frame to port `in` (whose transmitter it holds) and frees it. */
void pfc_receive(struct sim *sim, struct port *in, struct pkt *p);
/* Bit c set when class c may transmit on `out` now. */
uint8_t pfc_allowed(const struct port *out, sim_time_t now);

/* Sends a PAUSE (quanta PFC_MAX_QUANTA) for class c out of port `p` to its peer. */
void pfc_send_xoff(struct sim *sim, struct port *p, uint8_t c);
/* Sends a resume (quanta 0) for class c. */
void pfc_send_xon(struct sim *sim, struct port *p, uint8_t c);

/* A port's PFC counters for summary.json: frames sent upstream and received, time each class
 * was held (classes never paused are left out); `headroom_drops` (switch ports) or NULL. */
json_t *pfc_stats_json(const struct port *port, const uint64_t *headroom_drops);

/* Builds a PAUSE frame (for tests and tools). */
void pfc_build(struct pkt *p, uint8_t class_mask, const uint16_t quanta[PFC_NCLASSES]);

#endif
