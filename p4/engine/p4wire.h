/* Bits on the wire: big-endian, most significant bit first. Random-access reads, a
 * streaming reader for extraction and a streaming writer for emission and data lists
 * (checksums, hashes), shared by the evaluators. Readers never read past the end they are
 * given; callers check lengths first. Header-only (inline in the per-packet path). */
#ifndef SIM_P4_P4WIRE_H
#define SIM_P4_P4WIRE_H

#include "p4/engine/p4util.h"

#include <string.h>

static inline uint64_t read_bits(const uint8_t *p, uint32_t pos, int w)
{
    const uint8_t *q = p + (pos >> 3);
    int sh = (int)(pos & 7);
    int nbytes = (sh + w + 7) >> 3;
    if (nbytes <= 8) {
        uint64_t acc = 0;
        for (int i = 0; i < nbytes; i++)
            acc = (acc << 8) | q[i];
        return (acc >> (nbytes * 8 - sh - w)) & p4util_mask64(w);
    }
    unsigned __int128 acc = 0;
    for (int i = 0; i < nbytes; i++)
        acc = (acc << 8) | q[i];
    int extra = nbytes * 8 - sh - w;
    return (uint64_t)(acc >> extra) & p4util_mask64(w);
}

/* Reads a field of width w (any width) into nw words. */
static inline void read_field(const uint8_t *p, uint32_t pos, int w, uint64_t *out)
{
    if (w <= 64) {
        out[0] = read_bits(p, pos, w);
        return;
    }
    int nw = p4util_nwords(w);
    for (int i = 0; i < nw; i++) {
        int hi = w - 64 * i; /* bit index (from field start) after this word */
        int lo = hi - 64 < 0 ? 0 : hi - 64;
        out[i] = read_bits(p, pos + (uint32_t)lo, hi - lo);
    }
}

/* Streaming MSB-first bit writer: fields are shifted into a 64-bit accumulator that is
 * stored 8 bytes at a time (big-endian), so emitting a header costs a few instructions per
 * field. */
struct bitw {
    uint8_t *out;
    uint32_t n;   /* bytes written */
    uint64_t acc; /* the low `bits` bits are pending */
    int bits;     /* < 64 between calls */
};

static inline void bitw_store(struct bitw *b, uint64_t word)
{
    uint64_t x = __builtin_bswap64(word);
    memcpy(b->out + b->n, &x, 8);
    b->n += 8;
}

/* v must be zero above w (1 <= w <= 64). */
static inline __attribute__((always_inline)) void bitw_put(struct bitw *b, uint64_t v, int w)
{
    int room = 64 - b->bits;
    if (w < room) {
        b->acc = (b->acc << w) | v;
        b->bits += w;
    } else if (w == room) {
        bitw_store(b, room == 64 ? v : (b->acc << w) | v);
        b->acc = 0;
        b->bits = 0;
    } else { /* split: the top `room` bits complete this word */
        int rest = w - room;
        bitw_store(b, (b->acc << room) | (v >> rest));
        b->acc = v & p4util_mask64(rest);
        b->bits = rest;
    }
}

/* A field of any width (words little-endian). */
static inline __attribute__((always_inline)) void bitw_field(struct bitw *b, const uint64_t *words,
                                                             int w)
{
    if (w <= 64) {
        bitw_put(b, words[0], w);
        return;
    }
    int nw = p4util_nwords(w);
    bitw_put(b, words[nw - 1], w - 64 * (nw - 1));
    for (int i = nw - 2; i >= 0; i--)
        bitw_put(b, words[i], 64);
}

static inline void bitw_flush(struct bitw *b)
{
    while (b->bits >= 8) {
        b->out[b->n++] = (uint8_t)(b->acc >> (b->bits - 8));
        b->bits -= 8;
    }
    if (b->bits > 0) /* zero padding at the end */
        b->out[b->n++] = (uint8_t)(b->acc << (8 - b->bits));
    b->bits = 0;
    b->acc = 0;
}

/* Streaming MSB-first bit reader for extraction (loads 8 bytes at a time when it can;
 * never reads past `end`, and callers check the length first). */
struct bitr {
    const uint8_t *p;
    const uint8_t *end;
    unsigned __int128 acc; /* the low `bits` bits are unread */
    int bits;
};

static inline void bitr_init(struct bitr *r, const uint8_t *buf, uint32_t len, uint32_t bitpos)
{
    r->p = buf + (bitpos >> 3);
    r->end = buf + len;
    r->acc = 0;
    r->bits = 0;
    int sh = (int)(bitpos & 7);
    if (sh) {
        r->acc = *r->p++ & (0xffu >> sh);
        r->bits = 8 - sh;
    }
}

static inline __attribute__((always_inline)) uint64_t bitr_get(struct bitr *r, int w)
{
    if (r->bits < w) {
        if (r->end - r->p >= 8) {
            uint64_t x;
            memcpy(&x, r->p, 8);
            r->p += 8;
            r->acc = (r->acc << 64) | __builtin_bswap64(x);
            r->bits += 64;
        } else {
            while (r->bits < w) {
                r->acc = (r->acc << 8) | *r->p++;
                r->bits += 8;
            }
        }
    }
    r->bits -= w;
    return (uint64_t)(r->acc >> r->bits) & p4util_mask64(w);
}

static inline __attribute__((always_inline)) void bitr_field(struct bitr *r, uint64_t *words, int w)
{
    if (w <= 64) {
        words[0] = bitr_get(r, w);
        return;
    }
    int nw = p4util_nwords(w);
    words[nw - 1] = bitr_get(r, w - 64 * (nw - 1));
    for (int i = nw - 2; i >= 0; i--)
        words[i] = bitr_get(r, 64);
}

#endif
