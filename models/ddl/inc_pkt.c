/* In-network aggregation packets: the 16-byte aggregation header after UDP and INC_NVALS int32
 * values, all big-endian (aggregation.p4's agg_t and value_t); and the values themselves.
 *
 * A worker's gradient value is a float drawn from a hash of (seed, worker, iteration, layer,
 * position): u · 2^e with u uniform in [−1, 1) and e in −8..8 chosen per block, so blocks differ
 * in magnitude. Values are quantised to int32 with the block's shared exponent e (SwitchML's
 * workers agree on it before sending the block; here every worker knows the block's bound):
 * q = round(v · 2^(30 − c − e)), c = ceil(log2(workers)), so |q| ≤ 2^(30 − c) and the sum of
 * every worker's q fits an int32 without overflow. */
#include "models/ddl/inc.h"

#include <math.h>
#include <string.h>

void inc_hdr_write(uint8_t *b, const struct inc_hdr *h)
{
    pkt_wr16(b, h->job);
    b[2] = h->flags;
    b[3] = h->ver;
    pkt_wr32(b + 4, h->idx);
    b[8] = h->worker;
    b[9] = h->fanin;
    pkt_wr16(b + 10, h->slot);
    pkt_wr32(b + 12, h->seq);
}

void inc_hdr_read(const uint8_t *b, struct inc_hdr *h)
{
    h->job = pkt_rd16(b);
    h->flags = b[2];
    h->ver = b[3];
    h->idx = pkt_rd32(b + 4);
    h->worker = b[8];
    h->fanin = b[9];
    h->slot = pkt_rd16(b + 10);
    h->seq = pkt_rd32(b + 12);
}

struct pkt *inc_pkt_new(struct sim *sim, const struct host *src, uint32_t dst_ip, uint16_t sport,
                        const struct inc_hdr *h, const int32_t *vals)
{
    struct pkt *p = pkt_alloc(sim);
    struct pkt_udp_spec u = {
        .src_ip = src->ip,
        .dst_ip = dst_ip,
        .src_port = sport,
        .dst_port = INC_PORT,
        .ecn = PKT_ECN_ECT0,
        .payload_bytes = INC_HDR_BYTES + 4 * INC_NVALS,
    };
    pkt_build_udp(p, &u);
    uint8_t *b = p->hdr + p->hdr_len;
    inc_hdr_write(b, h);
    for (int i = 0; i < INC_NVALS; i++)
        pkt_wr32(b + INC_HDR_BYTES + 4 * i, (uint32_t)vals[i]);
    p->hdr_len = INC_PKT_BYTES;
    p->t_created = sim->now;
    return p;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void inc_values(const struct inc *inc, uint32_t worker, uint64_t k, int32_t *q)
{
    uint64_t iter = k / inc->B;
    const struct inc_block *b = &inc->blocks[k % inc->B];
    uint64_t key = mix(inc->seed ^ mix(iter ^ mix(b->layer + ((uint64_t)(k % inc->B) << 32))));
    int e = (int)(key % 17) - 8;
    int shift = 30 - (int)inc->clog2n - e;
    uint64_t wkey = mix(key ^ ((uint64_t)worker << 40));
    for (uint32_t i = 0; i < INC_NVALS; i++) {
        if (i >= b->nvals) {
            q[i] = 0;
            continue;
        }
        uint64_t h = mix(wkey + b->first + i);
        double u = (double)(h >> 11) * 0x1p-53 * 2.0 - 1.0;
        float v = (float)ldexp(u, e);
        q[i] = (int32_t)lrint(ldexp((double)v, shift));
    }
}

void inc_expected(const struct inc *inc, uint64_t k, int32_t *sum)
{
    int64_t acc[INC_NVALS] = {0};
    int32_t q[INC_NVALS];
    for (uint32_t w = 0; w < inc->job->nworkers; w++) {
        inc_values(inc, w, k, q);
        for (int i = 0; i < INC_NVALS; i++)
            acc[i] += q[i];
    }
    for (int i = 0; i < INC_NVALS; i++)
        sum[i] = (int32_t)acc[i];
}
