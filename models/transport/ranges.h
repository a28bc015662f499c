/* Byte ranges received out of order, for receivers that deliver a stream in order: add each
 * arrival's [start, end); the contiguous prefix grows when holes fill. Memory grows with the
 * number of holes, not with the stream. */
#ifndef SIM_MODELS_TRANSPORT_RANGES_H
#define SIM_MODELS_TRANSPORT_RANGES_H

#include <stddef.h>
#include <stdint.h>

struct ranges {
    uint64_t prefix;   /* every byte below has arrived */
    uint64_t (*r)[2];  /* disjoint, sorted ranges above the prefix */
    size_t n;
    size_t cap;
};

void ranges_init(struct ranges *r);
void ranges_fini(struct ranges *r);
/* ranges_add when the arrival is not simply in order. */
uint64_t ranges_add_holes(struct ranges *r, uint64_t start, uint64_t end);
/* Records [start, end); returns how many bytes the prefix grew by. In order with no hole
 * (the common case), the prefix just moves. */
static inline uint64_t ranges_add(struct ranges *r, uint64_t start, uint64_t end)
{
    if (r->n == 0 && start <= r->prefix && end > r->prefix) {
        uint64_t grew = end - r->prefix;
        r->prefix = end;
        return grew;
    }
    return ranges_add_holes(r, start, end);
}

#endif
