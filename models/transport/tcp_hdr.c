#include "models/transport/tcp_hdr.h"

#include <string.h>

#include "sim/util.h"

/* Option bytes of s: NOP NOP + the option (kind, length, body). */
static uint32_t opt_len(const struct tcp_seg *s)
{
    uint32_t n = s->sack_perm ? 4 : 0;
    if (s->ts)
        n += TCP_TS_OPT_BYTES;
    if (s->nsack)
        n += 4 + 8u * s->nsack;
    return n;
}

static void write_opts(uint8_t *o, const struct tcp_seg *s)
{
    if (s->sack_perm) {
        o[0] = 1;
        o[1] = 1;
        o[2] = TCP_OPT_SACK_PERM;
        o[3] = 2;
        o += 4;
    }
    if (s->ts) {
        o[0] = 1;
        o[1] = 1;
        o[2] = TCP_OPT_TS;
        o[3] = 10;
        pkt_wr32(o + 4, s->tsval);
        pkt_wr32(o + 8, s->tsecr);
        o += TCP_TS_OPT_BYTES;
    }
    if (s->nsack) {
        o[0] = 1;
        o[1] = 1;
        o[2] = TCP_OPT_SACK;
        o[3] = (uint8_t)(2 + 8 * s->nsack);
        for (uint8_t i = 0; i < s->nsack; i++) {
            pkt_wr32(o + 4 + 8 * i, s->sack[i][0]);
            pkt_wr32(o + 8 + 8 * i, s->sack[i][1]);
        }
    }
}

void tcp_hdr_build(struct pkt *p, const struct tcp_seg *s)
{
    uint32_t thl = TCP_HDR_LEN + opt_len(s);
    struct pkt_ipv4_spec ip = {s->src_ip, s->dst_ip, IPPROTO_TCP_, s->dscp, s->ecn, 64,
                               thl + s->payload_bytes};
    uint8_t *t = pkt_build_ipv4(p, &ip);
    pkt_wr16(t, s->src_port);
    pkt_wr16(t + 2, s->dst_port);
    pkt_wr32(t + 4, s->seq);
    pkt_wr32(t + 8, s->ack);
    t[12] = (uint8_t)((thl / 4) << 4); /* data offset in 32-bit words */
    t[13] = s->flags;
    pkt_wr16(t + 14, s->window);
    pkt_wr16(t + 16, 0); /* checksum: the payload is virtual */
    pkt_wr16(t + 18, 0); /* urgent pointer */

    write_opts(t + TCP_HDR_LEN, s);
    p->hdr_len = (uint16_t)(ETH_HDR_LEN + IPV4_HDR_LEN + thl); /* an Ethernet link pads short
                                                                * frames (link_dev_bytes) */
}

void tcp_hdr_tmpl_init(struct tcp_hdr_tmpl *t, const struct tcp_seg *s)
{
    struct pkt p = {0};
    struct tcp_seg base = *s;
    base.ecn = PKT_ECN_NOT_ECT;
    base.payload_bytes = 0;
    base.seq = 0;
    base.ack = 0;
    base.flags = 0;
    base.sack_perm = false;
    base.nsack = 0;
    base.ts = false;
    tcp_hdr_build(&p, &base);
    memcpy(t->b, p.hdr, TCP_HEADERS);
    uint8_t *ip = t->b + ETH_HDR_LEN;
    pkt_wr16(ip + 2, 0); /* length, identification and checksum are the segment's */
    pkt_wr16(ip + 10, 0);
    t->csum_base = 0;
    for (uint32_t i = 0; i < IPV4_HDR_LEN; i += 2)
        t->csum_base += pkt_rd16(ip + i);
}

void tcp_hdr_parse_opts(const uint8_t *o, uint32_t n, struct tcp_seg *s)
{
    for (uint32_t i = 0; i < n;) {
        uint8_t kind = o[i];
        if (kind == 0)
            break;
        if (kind == 1) {
            i++;
            continue;
        }
        if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
            break; /* malformed: stop */
        uint8_t len = o[i + 1];
        if (kind == TCP_OPT_SACK_PERM) {
            s->sack_perm = true;
        } else if (kind == TCP_OPT_TS && len == 10) {
            s->ts = true;
            s->tsval = pkt_rd32(o + i + 2);
            s->tsecr = pkt_rd32(o + i + 6);
        } else if (kind == TCP_OPT_SACK) {
            for (uint32_t b = 0; b + 8 <= (uint32_t)len - 2 && s->nsack < TCP_SACK_MAX_BLOCKS;
                 b += 8) {
                s->sack[s->nsack][0] = pkt_rd32(o + i + 2 + b);
                s->sack[s->nsack][1] = pkt_rd32(o + i + 6 + b);
                s->nsack++;
            }
        }
        i += len;
    }
}

bool tcp_hdr_parse(const struct pkt *p, struct tcp_seg *s)
{
    if (!tcp_hdr_parse_seg(p, s))
        return false;
    const uint8_t *ip = p->hdr + ETH_HDR_LEN;
    const uint8_t *t = ip + IPV4_HDR_LEN;
    s->src_ip = pkt_rd32(ip + 12);
    s->dst_ip = pkt_rd32(ip + 16);
    s->dscp = (uint8_t)(ip[1] >> 2);
    s->src_port = pkt_rd16(t);
    s->dst_port = pkt_rd16(t + 2);
    s->window = pkt_rd16(t + 14);
    return true;
}
