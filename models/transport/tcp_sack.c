#include "models/transport/tcp_sack.h"

#include <string.h>

#include "sim/util.h"

/* ------------------------------------------------------------ receiver */

/* Index of the out-of-order range holding byte x, or -1. */
static long range_of(const struct ranges *rx, uint64_t x)
{
    for (size_t i = 0; i < rx->n; i++) {
        if (rx->r[i][0] <= x && x < rx->r[i][1])
            return (long)i;
    }
    return -1;
}

void tcp_sack_rcv_note(struct tcp_sack_rcv *r, const struct ranges *rx, uint64_t seq)
{
    long mine = range_of(rx, seq);
    uint64_t keep[TCP_SACK_MAX_BLOCKS];
    uint8_t n = 0;
    keep[n++] = seq;
    for (uint8_t i = 0; i < r->n && n < TCP_SACK_MAX_BLOCKS; i++) {
        long k = range_of(rx, r->recent[i]);
        if (k >= 0 && k != mine)
            keep[n++] = r->recent[i];
    }
    memcpy(r->recent, keep, n * sizeof(keep[0]));
    r->n = n;
}

uint8_t tcp_sack_rcv_blocks(struct tcp_sack_rcv *r, const struct ranges *rx,
                            uint64_t out[TCP_SACK_MAX_BLOCKS][2])
{
    uint8_t n = 0;
    long used[TCP_SACK_MAX_BLOCKS];
    uint8_t kept = 0;
    for (uint8_t i = 0; i < r->n; i++) {
        long k = range_of(rx, r->recent[i]);
        bool dup = false;
        for (uint8_t j = 0; j < n; j++)
            dup = dup || used[j] == k;
        if (k < 0 || dup)
            continue; /* delivered in order since, or merged with a block already listed */
        used[n] = k;
        out[n][0] = rx->r[k][0];
        out[n][1] = rx->r[k][1];
        n++;
        r->recent[kept++] = r->recent[i];
    }
    r->n = kept;
    /* as many distinct blocks as fit (RFC 2018 §4): the lowest of the others */
    for (size_t k = 0; k < rx->n && n < TCP_SACK_MAX_BLOCKS; k++) {
        bool dup = false;
        for (uint8_t j = 0; j < n; j++)
            dup = dup || used[j] == (long)k;
        if (dup)
            continue;
        used[n] = (long)k;
        out[n][0] = rx->r[k][0];
        out[n][1] = rx->r[k][1];
        n++;
    }
    return n;
}

/* ------------------------------------------------------------- sender */

void tcp_sack_sb_reset(struct tcp_sack_sb *sb, uint64_t una)
{
    sb->n = 0;
    sb->sacked = 0;
    sb->high_rxt = una;
    sb->rtx_fence = una;
}

void tcp_sack_sb_advance(struct tcp_sack_sb *sb, uint64_t una)
{
    uint32_t k = 0;
    uint64_t sacked = 0;
    for (uint32_t i = 0; i < sb->n; i++) {
        uint64_t s = MAX(sb->blk[i][0], una);
        uint64_t e = sb->blk[i][1];
        if (e <= s)
            continue;
        sb->blk[k][0] = s;
        sb->blk[k][1] = e;
        sacked += e - s;
        k++;
    }
    sb->n = k;
    sb->sacked = sacked;
    if (sb->high_rxt < una)
        sb->high_rxt = una;
}

bool tcp_sack_sb_add(struct tcp_sack_sb *sb, uint64_t una, uint64_t max, uint64_t s, uint64_t e)
{
    s = MAX(s, una);
    e = MIN(e, max);
    if (e <= s)
        return false;
    uint64_t before = sb->sacked;
    uint64_t out[TCP_SACK_SB_MAX + 1][2];
    uint32_t n = 0;
    bool placed = false;
    for (uint32_t i = 0; i <= sb->n; i++) {
        uint64_t bs = i < sb->n ? sb->blk[i][0] : UINT64_MAX;
        uint64_t be = i < sb->n ? sb->blk[i][1] : UINT64_MAX;
        if (!placed && s <= be) { /* the new range goes here, merging what it touches */
            if (e < bs) {
                out[n][0] = s;
                out[n][1] = e;
                n++;
                placed = true;
            } else {
                s = MIN(s, bs);
                e = MAX(e, be);
                continue;
            }
        }
        if (i < sb->n)
            memcpy(out[n++], sb->blk[i], sizeof(out[0]));
    }
    n = MIN(n, (uint32_t)TCP_SACK_SB_MAX); /* forget the highest beyond the capacity */
    uint64_t sacked = 0;
    for (uint32_t i = 0; i < n; i++)
        sacked += out[i][1] - out[i][0];
    memcpy(sb->blk, out, n * sizeof(out[0]));
    sb->n = n;
    sb->sacked = sacked;
    return sacked > before;
}

uint64_t tcp_sack_lost_end(const struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh)
{
    uint64_t above = 0;
    for (uint32_t i = sb->n; i-- > 0;) {
        above += sb->blk[i][1] - sb->blk[i][0];
        if (above > thresh)
            return sb->blk[i][0];
    }
    return una;
}

uint64_t tcp_sack_unsacked(const struct tcp_sack_sb *sb, uint64_t a, uint64_t b)
{
    if (b <= a)
        return 0;
    uint64_t n = b - a;
    for (uint32_t i = 0; i < sb->n; i++) {
        uint64_t s = MAX(sb->blk[i][0], a);
        uint64_t e = MIN(sb->blk[i][1], b);
        if (e > s)
            n -= e - s;
    }
    return n;
}

uint64_t tcp_sack_pipe(const struct tcp_sack_sb *sb, uint64_t una, uint64_t max, uint64_t thresh)
{
    uint64_t lost_end = MAX(tcp_sack_lost_end(sb, una, thresh), una);
    return tcp_sack_unsacked(sb, lost_end, max) +
           tcp_sack_unsacked(sb, una, MIN(MAX(sb->high_rxt, una), max));
}

uint64_t tcp_sack_sacked_above(const struct tcp_sack_sb *sb, uint64_t x)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < sb->n; i++) {
        uint64_t s = MAX(sb->blk[i][0], x);
        if (sb->blk[i][1] > s)
            n += sb->blk[i][1] - s;
    }
    return n;
}

bool tcp_sack_lost_retx(struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh)
{
    if (sb->high_rxt <= una || tcp_sack_unsacked(sb, una, sb->high_rxt) == 0)
        return false;
    if (tcp_sack_sacked_above(sb, sb->rtx_fence) <= thresh)
        return false;
    sb->high_rxt = una;
    return true;
}

uint64_t tcp_sack_skip(const struct tcp_sack_sb *sb, uint64_t seq)
{
    for (uint32_t i = 0; i < sb->n; i++) {
        if (sb->blk[i][0] <= seq && seq < sb->blk[i][1])
            return sb->blk[i][1];
    }
    return seq;
}

uint64_t tcp_sack_next_block(const struct tcp_sack_sb *sb, uint64_t seq)
{
    for (uint32_t i = 0; i < sb->n; i++) {
        if (sb->blk[i][0] > seq)
            return sb->blk[i][0];
    }
    return UINT64_MAX;
}

bool tcp_sack_next_lost(const struct tcp_sack_sb *sb, uint64_t una, uint64_t thresh,
                        uint64_t len, uint64_t *seq, uint64_t *seg_len)
{
    uint64_t lost_end = tcp_sack_lost_end(sb, una, thresh);
    uint64_t from = tcp_sack_skip(sb, MAX(sb->high_rxt, una));
    if (from >= lost_end)
        return false;
    *seq = from;
    *seg_len = MIN(len, MIN(tcp_sack_next_block(sb, from), lost_end) - from);
    return *seg_len > 0;
}
