/* Packets: metadata plus real wire-format header bytes (Ethernet, IPv4, UDP, ...) that a P4
 * pipeline parses and rewrites and that pcap traces contain. The payload is only a length.
 *
 * size_bytes is the frame as a switch buffers it: headers + payload, Ethernet header included,
 * without FCS, preamble and inter-frame gap (those are the link's per-frame overhead).
 *
 * Ownership is linear: whoever holds a packet forwards, queues, consumes or frees it exactly
 * once. Packets come from the simulation's pool; pkt_clone makes an explicit copy. */
#ifndef SIM_MODELS_NET_PKT_H
#define SIM_MODELS_NET_PKT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sim/sim.h"

#define PKT_HDR_MAX 320 /* in-network aggregation packets carry 64 int32 values: 314 bytes */

#define ETH_HDR_LEN 14
#define IPV4_HDR_LEN 20
#define UDP_HDR_LEN 8
#define ETHERTYPE_IPV4 0x0800
#define IPPROTO_UDP_ 17

/* ECN codepoints (RFC 3168) in the low two bits of the IPv4 TOS byte. */
enum pkt_ecn {
    PKT_ECN_NOT_ECT = 0,
    PKT_ECN_ECT1 = 1,
    PKT_ECN_ECT0 = 2,
    PKT_ECN_CE = 3,
};

/* State a node attaches to a packet it holds (a switch's P4 metadata between ingress and
 * egress); pkt_free releases it. */
struct pkt_ext;
typedef void pkt_ext_release_fn(struct pkt_ext *e);
struct pkt_ext {
    pkt_ext_release_fn *release;
};

/* The first cache line holds what every hop reads or writes (queues, links, the traffic
 * manager); the second what the ends and a P4 switch use; the header bytes start on the third
 * (objects are 64-byte aligned: the pool aligns its slabs), so a switch that forwards a packet
 * touches two lines of it. */
struct pkt {
    struct pkt *next;     /* intrusive link for the queue that holds the packet */
    sim_time_t t_enq;     /* when it entered its current queue, ps */
    sim_time_t qdelay_ps; /* time spent waiting in queues so far */
    sim_time_t blocking_ps; /* switch-queue time while the port sent lower-priority packets */
    sim_time_t blk_mark;    /* the port's lower-priority transmit clock at enqueue */
    uint32_t size_bytes; /* frame bytes a buffer holds: headers + payload */
    uint32_t qseen_bytes; /* deepest egress queue (bytes, all classes) found at a switch */
    uint32_t enq_qdepth; /* packets in its queue when it was enqueued (P4 enq_qdepth) */
    uint16_t hdr_len;    /* valid bytes in hdr */
    uint16_t in_port;    /* the port it arrived on at its current node (set by the link) */
    uint8_t prio;        /* scheduling priority 0..7 (switch queue; higher first); a stream's
                          * tag (the DDL shim) may set it per message */
    uint8_t tc;          /* traffic class the sender's NIC gave the packet (802.1p): NIC queue,
                          * PFC accounting and pauses */
    uint8_t qclass;      /* the queue this switch's forwarding stage chose (this hop only) */
    bool tm_ce;          /* this switch's traffic manager marked CE (re-applied after a P4
                          * deparser rewrote the header) */
    uint32_t wire_gap;   /* on a link's wire: ps from its arrival to the next frame's
                          * (UINT32_MAX: as far or farther; link.c) */
    /* second line */
    struct pkt_ext *ext; /* owned: released by pkt_free; not copied by pkt_clone */
    uint64_t id;         /* unique per simulation */
    uint32_t flow;       /* flow index (sim-wide), for statistics */
    uint32_t seq;        /* packet number within the flow */
    sim_time_t t_created; /* when the source made it, ps */
    uint64_t stream_off;  /* UDP streams: offset of the payload in the stream (metadata only) */
    uint16_t rid;         /* P4 egress_rid (multicast replica) */
    uint8_t instance;     /* P4 instance_type at this switch */
    bool blk_stream;      /* blk_mark holds the sender NIC's clock when the packet's bytes
                           * entered their connection's stream (set by the message layer) */
    _Alignas(64) uint8_t hdr[PKT_HDR_MAX];
};

/* Sets up the packet pool (the first pkt_alloc of a simulation). */
void pkt_pool_init(struct sim *sim);

/* A packet with no header bytes and size 0. Never fails (out of memory exits 1). Inline with
 * pkt_free: every segment and ACK takes one. */
static inline struct pkt *pkt_alloc(struct sim *sim)
{
    if (sim->pkt_pool.obj_size == 0)
        pkt_pool_init(sim);
    struct pkt *p = pool_get(&sim->pkt_pool);
    /* Clear the metadata only (its two lines; pkt.c asserts the size); header bytes are written
     * by whoever builds the packet. A line at a time: eight 16-byte stores, where memset became
     * a `rep stos` of 16 words with its set-up. */
    typedef uint64_t pkt_line __attribute__((vector_size(64)));
    const pkt_line zero = {0};
    memcpy(p, &zero, sizeof(zero));
    memcpy((char *)p + sizeof(zero), &zero, sizeof(zero));
    p->id = sim->next_pkt_id++;
    return p;
}

static inline void pkt_free(struct sim *sim, struct pkt *p)
{
    if (p->ext)
        p->ext->release(p->ext);
#ifdef SIM_DEBUG
    memset(p, 0xdb, sizeof(*p));
#endif
    pool_put(&sim->pkt_pool, p);
}
struct pkt *pkt_clone(struct sim *sim, const struct pkt *p);
/* Packets currently allocated; 0 after a clean teardown. */
int64_t pkt_live(const struct sim *sim);

/* A first-in first-out queue of packets linked through pkt->next (a link's frames on the wire, a
 * delay line, a priority queue's class). Zeroed is empty. */
struct pkt_fifo {
    struct pkt *head;
    struct pkt *tail;
};

static inline void pkt_fifo_push(struct pkt_fifo *q, struct pkt *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
}

/* Removes and returns the head packet; NULL when the queue is empty. */
static inline struct pkt *pkt_fifo_pop(struct pkt_fifo *q)
{
    struct pkt *p = q->head;
    if (!p)
        return NULL;
    q->head = p->next;
    if (!q->head)
        q->tail = NULL;
    p->next = NULL;
    return p;
}

/* Frees every packet of the queue and leaves it empty. */
void pkt_fifo_free(struct sim *sim, struct pkt_fifo *q);

/* Addresses: hosts have IPv4 addresses in 10.0.0.0/8; routing_compute assigns them (flat, from
 * the host index, or one prefix per edge switch: routing.h). A host's MAC is 02:00 followed by
 * the low 24 bits of its address as a 32-bit number (pkt_ip_mac). */
/* The flat address of host `host_index`: 10.0.0.0 + index + 1. */
uint32_t pkt_host_ip(uint32_t host_index);
/* Host index of a flat address (pkt_host_ip), or UINT32_MAX. */
uint32_t pkt_ip_host(uint32_t ip);
/* The MAC of the host with address `ip`: 02:00:00:xx:xx:xx (00:00:00:00:00:00 after 02:00 for
 * an address outside 10.0.0.0/8). */
void pkt_ip_mac(uint32_t ip, uint8_t mac[6]);

struct pkt_udp_spec {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint8_t dscp;
    uint8_t ecn;
    uint8_t ttl;
    uint32_t payload_bytes;
};

struct pkt_ipv4_spec {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint8_t proto;
    uint8_t dscp;
    uint8_t ecn;
    uint8_t ttl; /* 0 = 64 */
    uint32_t l4_bytes; /* transport header + payload */
};

/* Writes Ethernet and IPv4 headers (valid checksum) and sets size_bytes; returns where the
 * transport header goes. The caller sets hdr_len. */
uint8_t *pkt_build_ipv4(struct pkt *p, const struct pkt_ipv4_spec *s);
/* Writes Ethernet/IPv4/UDP headers (with a valid IPv4 checksum) and sets size and hdr_len. */
void pkt_build_udp(struct pkt *p, const struct pkt_udp_spec *s);

/* Big-endian field access into header bytes. */
/* Big-endian fields read and written as one word each (the compiler does not always merge
 * byte-by-byte accesses). */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PKT_BE16(v) __builtin_bswap16(v)
#define PKT_BE32(v) __builtin_bswap32(v)
#else
#define PKT_BE16(v) (v)
#define PKT_BE32(v) (v)
#endif
static inline uint16_t pkt_rd16(const uint8_t *b)
{
    uint16_t v;
    memcpy(&v, b, sizeof(v));
    return PKT_BE16(v);
}
static inline uint32_t pkt_rd32(const uint8_t *b)
{
    uint32_t v;
    memcpy(&v, b, sizeof(v));
    return PKT_BE32(v);
}
static inline void pkt_wr16(uint8_t *b, uint16_t v)
{
    v = PKT_BE16(v);
    memcpy(b, &v, sizeof(v));
}
static inline void pkt_wr32(uint8_t *b, uint32_t v)
{
    v = PKT_BE32(v);
    memcpy(b, &v, sizeof(v));
}

static inline bool pkt_is_ipv4(const struct pkt *p)
{
    return p->hdr_len >= ETH_HDR_LEN + IPV4_HDR_LEN && pkt_rd16(p->hdr + 12) == ETHERTYPE_IPV4;
}
static inline uint32_t pkt_ipv4_dst(const struct pkt *p)
{
    return pkt_rd32(p->hdr + ETH_HDR_LEN + 16);
}
static inline uint8_t pkt_ecn(const struct pkt *p)
{
    return pkt_is_ipv4(p) ? (uint8_t)(p->hdr[ETH_HDR_LEN + 1] & 3) : PKT_ECN_NOT_ECT;
}
/* Sets the ECN codepoint and patches the IPv4 checksum incrementally (RFC 1624). */
void pkt_set_ecn(struct pkt *p, uint8_t ecn);
/* A hash of the IPv4 5-tuple (ECMP); `salt` differs per switch to avoid polarization. */
uint32_t pkt_flow_hash(const struct pkt *p, uint32_t salt);
/* Internet checksum over a buffer (RFC 1071). */
uint16_t pkt_csum16(const uint8_t *b, uint32_t n);

#endif
