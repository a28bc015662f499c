/* String → index map with linear probing. */
#include "sim/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

void strmap_init(struct strmap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n)
        m->cap *= 2;
    m->n = 0;
    m->keys = xcalloc(m->cap, sizeof(*m->keys));
    m->vals = xcalloc(m->cap, sizeof(*m->vals));
}

void strmap_fini(struct strmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

static size_t slot(const struct strmap *m, const char *key)
{
    size_t i = hash_fnv1a(key, strlen(key), HASH_FNV_INIT) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* Doubles the table (the keys are rehashed into the new one). */
static void grow(struct strmap *m)
{
    struct strmap g;
    strmap_init(&g, m->cap);
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i]) {
            size_t j = slot(&g, m->keys[i]);
            g.keys[j] = m->keys[i];
            g.vals[j] = m->vals[i];
            g.n++;
        }
    }
    strmap_fini(m);
    *m = g;
}

bool strmap_put(struct strmap *m, const char *key, uint32_t v)
{
    if (!m->keys)
        strmap_init(m, 0);
    size_t i = slot(m, key);
    if (m->keys[i])
        return false;
    if (2 * (m->n + 1) > m->cap) {
        grow(m);
        i = slot(m, key);
    }
    m->n++;
    m->keys[i] = key;
    m->vals[i] = v;
    return true;
}

bool strmap_get(const struct strmap *m, const char *key, uint32_t *v)
{
    if (!m->keys)
        return false;
    size_t i = slot(m, key);
    if (!m->keys[i])
        return false;
    *v = m->vals[i];
    return true;
}
