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
/* Records [start, end); returns how many bytes the prefix grew by. */
uint64_t ranges_add(struct ranges *r, uint64_t start, uint64_t end);

#endif
