/* Fixed-size object pools: slabs of objects with an intrusive free list. Objects are never
 * returned to malloc until the pool is destroyed, so the per-packet path does not allocate once
 * the pool has grown to the working set. `live` counts objects handed out; teardown checks it. */
#ifndef SIM_SIM_POOL_H
#define SIM_SIM_POOL_H

#include <stddef.h>
#include <stdint.h>

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
void *pool_get(struct pool *p);
void pool_put(struct pool *p, void *obj);

#endif
