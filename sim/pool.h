/* Fixed-size object pools: slabs of objects with an intrusive free list. Objects are never
 * returned to malloc until the pool is destroyed, so the per-packet path does not allocate once
 * the pool has grown to the working set. `live` counts objects handed out; teardown checks it. */
#ifndef SIM_SIM_POOL_H
#define SIM_SIM_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "sim/util.h"

struct pool_free {
    struct pool_free *next;
};

struct pool {
    size_t obj_size;
    size_t per_slab;   /* objects in the next slab (doubles up to a huge page) */
    struct pool_free *free;
    void **slabs;
    size_t nslabs;
    size_t cap_slabs;
    int64_t live;      /* objects currently allocated */
    int64_t peak_live; /* high-water mark */
    int64_t total;     /* objects ever created in slabs */
};

void pool_init(struct pool *p, size_t obj_size, size_t per_slab);
void pool_fini(struct pool *p);
/* Adds a slab's objects to the free list. */
void pool_grow(struct pool *p);

/* Inline: a packet's allocation and release are per-packet work. */
static inline void *pool_get(struct pool *p)
{
    if (!p->free)
        pool_grow(p);
    struct pool_free *f = p->free;
    p->free = f->next;
    p->live++;
    if (p->live > p->peak_live)
        p->peak_live = p->live;
    return f;
}

static inline void pool_put(struct pool *p, void *obj)
{
    SIM_ASSERT(p->live > 0);
    struct pool_free *f = obj;
    f->next = p->free;
    p->free = f;
    p->live--;
}

#endif
