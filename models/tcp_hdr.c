#include "models/tcp_hdr.h"

#include <string.h>

void tcp_hdr_build(struct pkt *p, const struct tcp_seg *s)
{
    uint8_t *h = p->hdr;
    uint8_t mac[6];
    pkt_host_mac(pkt_ip_host(s->dst_ip), mac);
    memcpy(h, mac, 6);
    pkt_host_mac(pkt_ip_host(s->src_ip), mac);
    memcpy(h + 6, mac, 6);
    pkt_wr16(h + 12, ETHERTYPE_IPV4);

    uint8_t *ip = h + ETH_HDR_LEN;
    uint32_t ip_len = IPV4_HDR_LEN + TCP_HDR_LEN + s->payload_bytes;
    ip[0] = 0x45;
    ip[1] = (uint8_t)((s->dscp << 2) | (s->ecn & 3));
    pkt_wr16(ip + 2, (uint16_t)(ip_len > 0xffff ? 0xffff : ip_len));
    pkt_wr16(ip + 4, (uint16_t)p->seq); /* identification */
    pkt_wr16(ip + 6, 0x4000);           /* don't fragment */
    ip[8] = 64;
    ip[9] = IPPROTO_TCP_;
    pkt_wr16(ip + 10, 0);
    pkt_wr32(ip + 12, s->src_ip);
    pkt_wr32(ip + 16, s->dst_ip);
    pkt_wr16(ip + 10, pkt_csum16(ip, IPV4_HDR_LEN));

    uint8_t *t = ip + IPV4_HDR_LEN;
    pkt_wr16(t, s->src_port);
    pkt_wr16(t + 2, s->dst_port);
    pkt_wr32(t + 4, s->seq);
    pkt_wr32(t + 8, s->ack);
    t[12] = (TCP_HDR_LEN / 4) << 4; /* data offset in 32-bit words, no options */
    t[13] = s->flags;
    pkt_wr16(t + 14, s->window);
    pkt_wr16(t + 16, 0); /* checksum: the payload is virtual */
    pkt_wr16(t + 18, 0); /* urgent pointer */

    p->hdr_len = TCP_HEADERS;
    uint32_t frame = ETH_HDR_LEN + ip_len;
    p->size_bytes = frame < ETH_MIN_FRAME ? ETH_MIN_FRAME : frame;
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
