/* TCP/IPv4 segments as wire bytes: Ethernet + IPv4 (protocol 6, ECN bits in the TOS byte) +
 * a 20-byte TCP header (RFC 9293 §3.1; ECE/CWR flags per RFC 3168 §6.1) plus the SACK options
 * (RFC 2018) and the timestamps option (RFC 7323) when a flow uses them.
 * The payload is only a length: it sets the IPv4 total length and the frame size. The IPv4
 * checksum is valid; the TCP checksum is left 0 because the payload bytes do not exist.
 * A pure ACK is 54 bytes; an Ethernet link pads it to the 60-byte minimum as a NIC would
 * (link_dev_bytes), other framings send it as it is. */
#ifndef SIM_MODELS_TRANSPORT_TCP_HDR_H
#define SIM_MODELS_TRANSPORT_TCP_HDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "models/net/pkt.h"
#include "sim/util.h"

#define TCP_HDR_LEN 20
#define IPPROTO_TCP_ 6
#define TCP_HEADERS (ETH_HDR_LEN + IPV4_HDR_LEN + TCP_HDR_LEN)

/* TCP flag bits in byte 13 of the header. */
enum tcp_flag {
    TCP_FIN = 0x01,
    TCP_SYN = 0x02,
    TCP_RST = 0x04,
    TCP_PSH = 0x08,
    TCP_ACK = 0x10,
    TCP_URG = 0x20,
    TCP_ECE = 0x40,
    TCP_CWR = 0x80,
};

#define TCP_SACK_MAX_BLOCKS 4 /* RFC 2018 §3: at most 4 blocks in the 40 option bytes */
#define TCP_OPT_SACK_PERM 4
#define TCP_OPT_SACK 5
#define TCP_OPT_TS 8
#define TCP_TS_OPT_BYTES 12 /* NOP, NOP, kind 8, length 10, TSval, TSecr (RFC 7323 §3) */

struct tcp_seg {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint32_t seq;    /* wire sequence number */
    uint32_t ack;    /* wire acknowledgment number */
    uint8_t flags;   /* enum tcp_flag bits */
    uint16_t window; /* advertised window field (scaled) */
    uint8_t dscp;
    uint8_t ecn; /* enum pkt_ecn, IPv4 codepoint */
    uint32_t payload_bytes;
    bool sack_perm;  /* SYN / SYN-ACK: SACK-permitted option (RFC 2018 §2) */
    uint8_t nsack;   /* SACK blocks (RFC 2018 §3), wire sequence numbers [left, right) */
    uint32_t sack[TCP_SACK_MAX_BLOCKS][2];
    bool ts;         /* timestamps option (RFC 7323 §3): TSval, TSecr */
    uint32_t tsval;
    uint32_t tsecr;
    uint16_t hdr_bytes; /* parsed: Ethernet + IPv4 + TCP header with options */
};

/* Writes the headers of s into p (hdr, hdr_len, size_bytes). Options (SACK-permitted, SACK
 * blocks) are laid out as Linux does: NOP, NOP, then the option, so the header stays a multiple
 * of 4 bytes. */
void tcp_hdr_build(struct pkt *p, const struct tcp_seg *s);
/* Decodes a TCP/IPv4 packet; false if p is not one. */
bool tcp_hdr_parse(const struct pkt *p, struct tcp_seg *s);
/* The SACK-permitted, SACK and timestamps options among `n` option bytes; others are skipped.
 * The caller has cleared them in s. */
void tcp_hdr_parse_opts(const uint8_t *o, uint32_t n, struct tcp_seg *s);
/* As tcp_hdr_parse without what a connection's end knows already (addresses, ports, window,
 * DSCP: left as they were): the fields of the segment itself and its options. Inline, as
 * tcp_hdr_fill: every segment and ACK is built and decoded once. */
static inline bool tcp_hdr_parse_seg(const struct pkt *p, struct tcp_seg *s)
{
    if (!pkt_is_ipv4(p) || p->hdr_len < TCP_HEADERS)
        return false;
    const uint8_t *ip = p->hdr + ETH_HDR_LEN;
    if (ip[9] != IPPROTO_TCP_ || (ip[0] & 0x0f) != 5)
        return false;
    const uint8_t *t = ip + IPV4_HDR_LEN;
    uint32_t ip_len = pkt_rd16(ip + 2);
    uint32_t doff = (uint32_t)(t[12] >> 4) * 4;
    if (doff < TCP_HDR_LEN || ip_len < IPV4_HDR_LEN + doff)
        return false;
    s->ecn = (uint8_t)(ip[1] & 3);
    s->seq = pkt_rd32(t + 4);
    s->ack = pkt_rd32(t + 8);
    s->flags = t[13];
    s->payload_bytes = ip_len - IPV4_HDR_LEN - doff;
    s->hdr_bytes = (uint16_t)(ETH_HDR_LEN + IPV4_HDR_LEN + doff);
    s->sack_perm = false;
    s->nsack = 0;
    s->ts = false;
    if (doff > TCP_HDR_LEN) { /* options, as far as the header bytes go */
        uint32_t end = MIN(doff, (uint32_t)(p->hdr_len - TCP_HEADERS + TCP_HDR_LEN));
        tcp_hdr_parse_opts(t + TCP_HDR_LEN, end - TCP_HDR_LEN, s);
    }
    return true;
}

/* One direction of a connection's headers without options, built once (tcp_hdr_tmpl_init from
 * the segment's addresses, ports, DSCP and window): a segment is then a copy of the template
 * and a few stores (tcp_hdr_fill), the IPv4 checksum completed from the sum of the words
 * that do not change. The bytes are those tcp_hdr_build writes for the same segment. */
struct tcp_hdr_tmpl {
    uint8_t b[TCP_HEADERS];
    uint32_t csum_base; /* sum of the IPv4 header's 16-bit words, ECN, length, id and checksum 0 */
};

void tcp_hdr_tmpl_init(struct tcp_hdr_tmpl *t, const struct tcp_seg *s);
/* A segment of the template's direction with no options: as tcp_hdr_build with these fields
 * and IPv4 identification p->seq. */
static inline void tcp_hdr_fill(struct pkt *p, const struct tcp_hdr_tmpl *t, uint32_t seq,
                                uint32_t ack, uint8_t flags, uint8_t ecn, uint32_t payload_bytes)
{
    uint32_t ip_len = IPV4_HDR_LEN + TCP_HDR_LEN + payload_bytes;
    uint16_t len16 = (uint16_t)(ip_len > 0xffff ? 0xffff : ip_len);
    uint16_t id = (uint16_t)p->seq;
    uint8_t tos = (uint8_t)(t->b[ETH_HDR_LEN + 1] | (ecn & 3));
    uint32_t sum = t->csum_base + (ecn & 3u) + len16 + id;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    uint8_t *ip = p->hdr + ETH_HDR_LEN;
    uint8_t *tcp = ip + IPV4_HDR_LEN;
    memcpy(p->hdr, t->b, TCP_HEADERS);
    ip[1] = tos;
    pkt_wr16(ip + 2, len16);
    pkt_wr16(ip + 4, id);
    pkt_wr16(ip + 10, (uint16_t)~sum);
    pkt_wr32(tcp + 4, seq);
    pkt_wr32(tcp + 8, ack);
    tcp[13] = flags;
    p->size_bytes = ETH_HDR_LEN + ip_len;
    p->hdr_len = TCP_HEADERS;
}

#endif
