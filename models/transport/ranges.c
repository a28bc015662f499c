#include "models/transport/ranges.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

void ranges_init(struct ranges *r)
{
    memset(r, 0, sizeof(*r));
}

void ranges_fini(struct ranges *r)
{
    free(r->r);
    memset(r, 0, sizeof(*r));
}

uint64_t ranges_add_holes(struct ranges *r, uint64_t start, uint64_t end)
{
    uint64_t before = r->prefix;
    if (end <= r->prefix)
        return 0;
    if (start < r->prefix)
        start = r->prefix;
    /* insert [start, end), merging every range it touches */
    size_t i = 0;
    while (i < r->n && r->r[i][1] < start)
        i++;
    size_t j = i;
    while (j < r->n && r->r[j][0] <= end) {
        start = MIN(start, r->r[j][0]);
        end = MAX(end, r->r[j][1]);
        j++;
    }
    if (j == i) { /* no overlap: make room at i */
        if (r->n == r->cap) {
            r->cap = r->cap ? 2 * r->cap : 8;
            r->r = xrealloc(r->r, r->cap * sizeof(*r->r));
        }
        memmove(r->r + i + 1, r->r + i, (r->n - i) * sizeof(*r->r));
        r->n++;
    } else if (j > i + 1) { /* several merged into one */
        memmove(r->r + i + 1, r->r + j, (r->n - j) * sizeof(*r->r));
        r->n -= j - i - 1;
    }
    r->r[i][0] = start;
    r->r[i][1] = end;
    if (r->n > 0 && r->r[0][0] <= r->prefix) {
        r->prefix = r->r[0][1];
        memmove(r->r, r->r + 1, (r->n - 1) * sizeof(*r->r));
        r->n--;
    }
    return r->prefix - before;
}
