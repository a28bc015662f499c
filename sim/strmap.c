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

bool strmap_put(struct strmap *m, const char *key, uint32_t v)
{
    size_t i = slot(m, key);
    if (m->keys[i])
        return false;
    SIM_ASSERT(2 * (m->n + 1) <= m->cap);
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
