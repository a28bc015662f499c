/* A string → index map (open addressing, FNV-1a). Keys are borrowed, not copied: they must
 * outlive the map. Used by the builder for node and flow names. */
#ifndef SIM_SIM_STRMAP_H
#define SIM_SIM_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strmap {
    const char **keys;
    uint32_t *vals;
    size_t cap; /* a power of two, at least twice the number of keys it was sized for */
    size_t n;   /* keys present */
};

/* Sized for n keys without growing (a zeroed map is empty too, and sized at its first put). */
void strmap_init(struct strmap *m, size_t n);
void strmap_fini(struct strmap *m);
/* Adds key → v; false (and no change) when the key is present. The table doubles when it would
 * be more than half full. */
bool strmap_put(struct strmap *m, const char *key, uint32_t v);
/* The value of `key` in *v; false when absent. */
bool strmap_get(const struct strmap *m, const char *key, uint32_t *v);

#endif
