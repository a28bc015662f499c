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

/* Sized for up to n keys. */
void strmap_init(struct strmap *m, size_t n);
void strmap_fini(struct strmap *m);
/* Adds key → v; false (and no change) when the key is present. At most the n of init. */
bool strmap_put(struct strmap *m, const char *key, uint32_t v);
/* The value of `key` in *v; false when absent. */
bool strmap_get(const struct strmap *m, const char *key, uint32_t *v);

#endif
