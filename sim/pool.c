#include "sim/pool.h"

#include <stdlib.h>
#include <string.h>

#include "sim/hugepage.h"
#include "sim/util.h"

void pool_init(struct pool *p, size_t obj_size, size_t per_slab)
{
    memset(p, 0, sizeof(*p));
    p->obj_size = MAX(obj_size, sizeof(struct pool_free));
    p->obj_size = (p->obj_size + 15) & ~(size_t)15;
    p->per_slab = per_slab ? per_slab : 256;
}

void pool_fini(struct pool *p)
{
    for (size_t i = 0; i < p->nslabs; i++)
        free(p->slabs[i]);
    free(p->slabs);
    memset(p, 0, sizeof(*p));
}

void pool_grow(struct pool *p)
{
    if (p->nslabs == p->cap_slabs) {
        p->cap_slabs = p->cap_slabs ? 2 * p->cap_slabs : 16;
        p->slabs = xrealloc(p->slabs, p->cap_slabs * sizeof(*p->slabs));
    }
    /* Each slab twice the last up to a huge page, then huge pages: a pool that holds a few
     * objects stays small, one that holds many (packets in flight at scale) sits on few TLB
     * entries. 64-byte aligned: objects whose size is a multiple of 64 start on a cache line. */
    size_t n = p->per_slab;
    char *slab;
    if (p->obj_size <= HUGEPAGE_BYTES && n * p->obj_size >= HUGEPAGE_BYTES) {
        n = HUGEPAGE_BYTES / p->obj_size;
        slab = hugepage_alloc(HUGEPAGE_BYTES);
    } else {
        slab = xaligned(64, n * p->obj_size);
        if (n * p->obj_size < HUGEPAGE_BYTES)
            p->per_slab = 2 * n;
    }
    p->slabs[p->nslabs++] = slab;
    for (size_t i = n; i-- > 0;) {
        struct pool_free *f = (struct pool_free *)(slab + i * p->obj_size);
        f->next = p->free;
        p->free = f;
    }
    p->total += (int64_t)n;
}
