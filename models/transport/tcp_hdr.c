#include "models/transport/tcp_hdr.h"

#include <string.h>

void tcp_hdr_build(struct pkt *p, const struct tcp_seg *s)
{
    struct pkt_ipv4_spec ip = {s->src_ip, s->dst_ip, IPPROTO_TCP_, s->dscp, s->ecn, 64,
                               TCP_HDR_LEN + s->payload_bytes};
    uint8_t *t = pkt_build_ipv4(p, &ip);
    pkt_wr16(t, s->src_port);
    pkt_wr16(t + 2, s->dst_port);
    pkt_wr32(t + 4, s->seq);
    pkt_wr32(t + 8, s->ack);
    t[12] = (TCP_HDR_LEN / 4) << 4; /* data offset in 32-bit words, no options */
    t[13] = s->flags;
    pkt_wr16(t + 14, s->window);
    pkt_wr16(t + 16, 0); /* checksum: the payload is virtual */
    pkt_wr16(t + 18, 0); /* urgent pointer */

    p->hdr_len = TCP_HEADERS; /* an Ethernet link pads short frames (link_dev_bytes) */
}

bool tcp_hdr_parse(const struct pkt *p, struct tcp_seg *s)
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
    s->src_ip = pkt_rd32(ip + 12);
    s->dst_ip = pkt_rd32(ip + 16);
    s->dscp = (uint8_t)(ip[1] >> 2);
    s->ecn = (uint8_t)(ip[1] & 3);
    s->src_port = pkt_rd16(t);
    s->dst_port = pkt_rd16(t + 2);
    s->seq = pkt_rd32(t + 4);
    s->ack = pkt_rd32(t + 8);
    s->flags = t[13];
    s->window = pkt_rd16(t + 14);
    s->payload_bytes = ip_len - IPV4_HDR_LEN - doff;
    return true;
}
