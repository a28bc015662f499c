#include "models/transport/roce_hdr.h"

#include "models/net/pkt.h"

void roce_bth_write(uint8_t *b, const struct roce_bth *h)
{
    b[0] = h->opcode;
    /* SE | M | PadCnt(2) | TVer(4) = 0 */
    b[1] = (uint8_t)((h->solicited ? 0x80 : 0) | (h->migreq ? 0x40 : 0) | ((h->pad & 3) << 4));
    pkt_wr16(b + 2, h->pkey);
    pkt_wr32(b + 4,
             (h->dqpn & 0xffffffu) | (h->fecn ? 0x80000000u : 0) | (h->becn ? 0x40000000u : 0));
    pkt_wr32(b + 8, (h->psn & ROCE_PSN_MASK) | (h->ack_req ? 0x80000000u : 0));
}

void roce_bth_read(const uint8_t *b, struct roce_bth *h)
{
    uint32_t w1 = pkt_rd32(b + 4);
    uint32_t w2 = pkt_rd32(b + 8);
    h->opcode = b[0];
    h->solicited = (b[1] & 0x80) != 0;
    h->migreq = (b[1] & 0x40) != 0;
    h->pad = (uint8_t)((b[1] >> 4) & 3);
    h->pkey = pkt_rd16(b + 2);
    h->fecn = (w1 & 0x80000000u) != 0;
    h->becn = (w1 & 0x40000000u) != 0;
    h->dqpn = w1 & 0xffffffu;
    h->ack_req = (w2 & 0x80000000u) != 0;
    h->psn = w2 & ROCE_PSN_MASK;
}

void roce_aeth_write(uint8_t *b, const struct roce_aeth *a)
{
    pkt_wr32(b, ((uint32_t)a->syndrome << 24) | (a->msn & 0xffffffu));
}

void roce_aeth_read(const uint8_t *b, struct roce_aeth *a)
{
    uint32_t w = pkt_rd32(b);
    a->syndrome = (uint8_t)(w >> 24);
    a->msn = w & 0xffffffu;
}

void roce_reth_write(uint8_t *b, const struct roce_reth *r)
{
    pkt_wr32(b, (uint32_t)(r->va >> 32));
    pkt_wr32(b + 4, (uint32_t)r->va);
    pkt_wr32(b + 8, r->rkey);
    pkt_wr32(b + 12, r->dma_len);
}

void roce_reth_read(const uint8_t *b, struct roce_reth *r)
{
    r->va = ((uint64_t)pkt_rd32(b) << 32) | pkt_rd32(b + 4);
    r->rkey = pkt_rd32(b + 8);
    r->dma_len = pkt_rd32(b + 12);
}
