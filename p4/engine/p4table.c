/* Table storage and matching: see p4table.h. */
#include "p4/engine/p4table.h"

#include <stdlib.h>
#include <string.h>

static size_t entry_size(struct p4table *t);
static p4table_lookup_fn *lookup_for(const struct p4table *t);

void p4table_init(struct p4table *t, const struct p4ir_table *ir)
{
    memset(t, 0, sizeof(*t));
    t->ir = ir;
    t->key_words = ir->key_words;
    t->exact_only = true;
    t->lpm_only = false;
    int nlpm = 0;
    for (int i = 0; i < ir->nkeys; i++) {
        enum p4_match_kind mk = ir->keys[i].mk;
        if (mk != P4MK_EXACT)
            t->exact_only = false;
        if (mk == P4MK_RANGE)
            t->has_range = true;
        if (mk == P4MK_LPM)
            nlpm++;
        else if (mk != P4MK_EXACT)
            nlpm = -1000;
    }
    t->lpm_only = nlpm == 1;
    if (ir->nkeys == 0)
        t->exact_only = false;
    t->default_action = ir->default_entry.action;
    int dw = 0;
    if (t->default_action >= 0)
        dw = ir->actions[t->default_action].data_words;
    t->default_data = p4util_calloc((size_t)(dw + 1), 8);
    if (dw)
        memcpy(t->default_data, ir->default_entry.data, (size_t)dw * 8);
    t->entry_bytes = entry_size(t);
    t->lookup = lookup_for(t);
}

/* ---- entry storage ---- */

#define ENTRY_ALIGN 16 /* the direct meter holds 128-bit counters */

static size_t align_up(size_t n)
{
    return (n + ENTRY_ALIGN - 1) / ENTRY_ALIGN * ENTRY_ALIGN;
}

static bool has_direct(const struct p4ir_table *ir)
{
    return ir->direct_counter >= 0 || ir->direct_meter >= 0;
}

/* The block layout of the table's entries: header, direct state if any, the words. */
static size_t entry_size(struct p4table *t)
{
    int dw = 0;
    for (int i = 0; i < t->ir->nactions; i++)
        dw = t->ir->actions[i].data_words > dw ? t->ir->actions[i].data_words : dw;
    size_t kwords = (size_t)((t->has_range ? 3 : 2) * t->key_words);
    t->has_direct = has_direct(t->ir);
    t->value_off = align_up(sizeof(struct p4table_entry));
    if (t->has_direct)
        t->value_off += align_up(sizeof(struct p4table_direct));
    t->data_off = t->value_off + kwords * 8;
    return align_up(t->data_off + (size_t)dw * 8);
}

static struct p4table_entry *entry_alloc(struct p4table *t)
{
    struct p4table_entry *e = t->free_list;
    if (e) {
        t->free_list = *(struct p4table_entry **)e;
    } else {
        if (!t->slab_left) {
            int n = t->n < 16 ? 16 : t->n > 4096 ? 4096 : t->n;
            t->slabs = p4util_realloc(t->slabs, (size_t)(t->nslabs + 1) * sizeof(*t->slabs));
            t->slab_next = p4util_malloc((size_t)n * t->entry_bytes);
            t->slabs[t->nslabs++] = t->slab_next;
            t->slab_left = n;
        }
        e = (struct p4table_entry *)t->slab_next;
        t->slab_next += t->entry_bytes;
        t->slab_left--;
    }
    memset(e, 0, t->value_off); /* the words are all written by the add */
    return e;
}

static void free_entry(struct p4table *t, struct p4table_entry *e)
{
    *(struct p4table_entry **)e = t->free_list;
    t->free_list = e;
}

void p4table_fini(struct p4table *t)
{
    for (int i = 0; i < t->nslabs; i++)
        free(t->slabs[i]);
    free(t->slabs);
    for (int i = 0; i < t->nlevels; i++)
        free(t->levels[i].mask);
    free(t->levels);
    free(t->lpm_index);
    free(t->entries);
    free(t->index);
    free(t->dup_index);
    free(t->default_data);
    memset(t, 0, sizeof(*t));
}

static uint64_t key_hash(const uint64_t *k, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < n; i++) {
        h ^= k[i];
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
    }
    return h;
}

static void index_insert(struct p4table *t, int ei)
{
    uint64_t h = key_hash(p4table_value(t, t->entries[ei]), t->key_words);
    size_t m = (size_t)t->index_cap - 1;
    for (size_t i = h & m;; i = (i + 1) & m) {
        if (t->index[i] < 0) {
            t->index[i] = ei;
            return;
        }
    }
}

/* An index size (power of two) at most half full with n entries. */
static int index_cap_for(int n)
{
    int cap = 16;
    while (cap < 2 * (n + 1))
        cap *= 2;
    return cap;
}

static void index_rebuild_for(struct p4table *t, int n)
{
    if (!t->exact_only)
        return;
    int cap = index_cap_for(n);
    free(t->index);
    t->index = p4util_malloc((size_t)cap * sizeof(int));
    t->index_cap = cap;
    for (int i = 0; i < cap; i++)
        t->index[i] = -1;
    for (int i = 0; i < t->n; i++)
        index_insert(t, i);
}

static void index_rebuild(struct p4table *t)
{
    index_rebuild_for(t, t->n);
}

/* --- lpm-only index --- */

static uint64_t lpm_hash(const uint64_t *v, int n, int priority)
{
    return key_hash(v, n) ^ ((uint64_t)priority * 0x9e3779b97f4a7c15ULL);
}

static void lpm_insert(struct p4table *t, struct p4table_entry *e)
{
    size_t m = (size_t)t->lpm_cap - 1;
    for (size_t i = lpm_hash(p4table_value(t, e), t->key_words, e->priority) & m;; i = (i + 1) & m) {
        if (!t->lpm_index[i]) {
            t->lpm_index[i] = e;
            return;
        }
    }
}

/* The lpm index may fill to three quarters (its probes compare a pointer first). */
static int lpm_cap_for(int n)
{
    int cap = 16;
    while (cap < (n + 1) + (n + 1) / 3)
        cap *= 2;
    return cap;
}

static void lpm_rebuild_for(struct p4table *t, int n)
{
    int cap = lpm_cap_for(n);
    free(t->lpm_index);
    t->lpm_index = p4util_calloc((size_t)cap, sizeof(*t->lpm_index));
    t->lpm_cap = cap;
    for (int i = 0; i < t->n; i++)
        lpm_insert(t, t->entries[i]);
}

static void lpm_rebuild(struct p4table *t)
{
    lpm_rebuild_for(t, t->n);
}

/* The entry with exactly this masked value and prefix length, or NULL. */
static struct p4table_entry *lpm_find(const struct p4table *t, const uint64_t *v, int priority)
{
    if (!t->lpm_cap)
        return NULL;
    size_t n = (size_t)t->key_words * 8;
    size_t m = (size_t)t->lpm_cap - 1;
    for (size_t i = lpm_hash(v, t->key_words, priority) & m;; i = (i + 1) & m) {
        struct p4table_entry *e = t->lpm_index[i];
        if (!e)
            return NULL;
        if (e->priority == priority && memcmp(p4table_value(t, e), v, n) == 0)
            return e;
    }
}

static void level_add(struct p4table *t, int priority, const uint64_t *mask)
{
    int i = 0;
    while (i < t->nlevels && t->levels[i].priority > priority)
        i++;
    if (i < t->nlevels && t->levels[i].priority == priority) {
        t->levels[i].count++;
        return;
    }
    t->levels = p4util_realloc(t->levels, (size_t)(t->nlevels + 1) * sizeof(*t->levels));
    memmove(t->levels + i + 1, t->levels + i, (size_t)(t->nlevels - i) * sizeof(*t->levels));
    t->levels[i].priority = priority;
    t->levels[i].count = 1;
    t->levels[i].mask = p4util_malloc((size_t)t->key_words * 8);
    memcpy(t->levels[i].mask, mask, (size_t)t->key_words * 8);
    t->levels[i].mask0 = mask[0];
    t->nlevels++;
}

static void level_remove(struct p4table *t, int priority)
{
    for (int i = 0; i < t->nlevels; i++) {
        if (t->levels[i].priority == priority && --t->levels[i].count == 0) {
            free(t->levels[i].mask);
            memmove(t->levels + i, t->levels + i + 1,
                    (size_t)(t->nlevels - i - 1) * sizeof(*t->levels));
            t->nlevels--;
            return;
        }
    }
}

#define LPM_MAX_WORDS 64 /* wider keys fall back to a scan */

/* One key word (an IPv4 or narrower address): the probes compare the word directly. */
static struct p4table_entry *lpm_lookup1(const struct p4table *t, const uint64_t *key)
{
    size_t m = (size_t)t->lpm_cap - 1;
    for (int l = 0; l < t->nlevels; l++) { /* no levels while the index is empty */
        int priority = t->levels[l].priority;
        uint64_t v = key[0] & t->levels[l].mask0;
        for (size_t i = lpm_hash(&v, 1, priority) & m;; i = (i + 1) & m) {
            struct p4table_entry *e = t->lpm_index[i];
            if (!e)
                break;
            if (e->priority == priority && *p4table_value(t, e) == v)
                return e;
        }
    }
    return NULL;
}

static struct p4table_entry *lpm_lookup(const struct p4table *t, const uint64_t *key)
{
    uint64_t v[LPM_MAX_WORDS];
    for (int l = 0; l < t->nlevels; l++) {
        const uint64_t *mask = t->levels[l].mask;
        for (int i = 0; i < t->key_words; i++)
            v[i] = key[i] & mask[i];
        struct p4table_entry *e = lpm_find(t, v, t->levels[l].priority);
        if (e)
            return e;
    }
    return NULL;
}

static bool lpm_indexed(const struct p4table *t)
{
    return t->lpm_only && t->key_words <= LPM_MAX_WORDS;
}

static int lpm_len(const struct p4table *t, const uint64_t *mask)
{
    int n = 0;
    for (int i = 0; i < t->key_words; i++)
        n += __builtin_popcountll(mask[i]);
    return n;
}

static bool same_key(const struct p4table *t, const struct p4table_entry *e, const uint64_t *v,
                     const uint64_t *m, const uint64_t *hi)
{
    size_t n = (size_t)t->key_words * 8;
    if (memcmp(p4table_value(t, e), v, n) || memcmp(p4table_mask(t, e), m, n))
        return false;
    const uint64_t *ehi = p4table_hi(t, e);
    if (hi && ehi && memcmp(ehi, hi, n))
        return false;
    return true;
}

/* --- duplicate index (tables that are not lpm-indexed) --- */

static uint64_t dup_hash(const struct p4table *t, const uint64_t *v, const uint64_t *m)
{
    return key_hash(v, t->key_words) ^ (key_hash(m, t->key_words) * 0x9e3779b97f4a7c15ULL);
}

static void dup_insert(struct p4table *t, struct p4table_entry *e)
{
    size_t mask = (size_t)t->dup_cap - 1;
    for (size_t i = dup_hash(t, p4table_value(t, e), p4table_mask(t, e)) & mask;; i = (i + 1) & mask) {
        if (!t->dup_index[i]) {
            t->dup_index[i] = e;
            return;
        }
    }
}

static void dup_rebuild(struct p4table *t)
{
    int cap = 16;
    while (cap < 2 * (t->n + 1))
        cap *= 2;
    free(t->dup_index);
    t->dup_index = p4util_calloc((size_t)cap, sizeof(*t->dup_index));
    t->dup_cap = cap;
    for (int i = 0; i < t->n; i++)
        dup_insert(t, t->entries[i]);
}

/* An entry the new one would duplicate: the same key (and, where priorities count, the same
 * priority). */
static bool dup_exists(const struct p4table *t, const uint64_t *v, const uint64_t *m,
                       const uint64_t *hi, int priority)
{
    if (!t->dup_cap)
        return false;
    size_t mask = (size_t)t->dup_cap - 1;
    for (size_t i = dup_hash(t, v, m) & mask; t->dup_index[i]; i = (i + 1) & mask) {
        const struct p4table_entry *o = t->dup_index[i];
        if ((t->exact_only || t->lpm_only || o->priority == priority) &&
            same_key(t, o, v, m, hi))
            return true;
    }
    return false;
}

int p4table_add(struct p4table *t, const uint64_t *value, const uint64_t *mask, const uint64_t *hi,
                int priority, int action, const uint64_t *data)
{
    int kw = t->key_words;
    int dw = t->ir->actions[action].data_words;
    if (t->n >= t->ir->size && t->ir->size > 0)
        return -1;
    if (lpm_indexed(t)) { /* duplicate: the same masked value at the same prefix length */
        uint64_t v[LPM_MAX_WORDS];
        for (int i = 0; i < kw; i++)
            v[i] = value[i] & mask[i];
        if (lpm_find(t, v, lpm_len(t, mask)))
            return -1;
    }
    if (!lpm_indexed(t) && dup_exists(t, value, mask, hi, priority))
        return -1;
    struct p4table_entry *e = entry_alloc(t);
    uint64_t *ev = p4table_value(t, e);
    uint64_t *em = p4table_mask(t, e);
    uint64_t *eh = p4table_hi(t, e);
    for (int i = 0; i < kw; i++) {
        em[i] = mask[i];
        ev[i] = value[i] & mask[i];
        if (eh)
            eh[i] = hi ? hi[i] : 0;
    }
    for (int k = 0; eh && k < t->ir->nkeys; k++) {
        const struct p4ir_key *kd = &t->ir->keys[k];
        if (kd->mk != P4MK_RANGE)
            continue;
        for (int i = 0; i < kd->nw; i++) { /* range keys: value = lo, mask unused */
            ev[kd->woff + i] = value[kd->woff + i];
            em[kd->woff + i] = 0;
        }
    }
    if (dw)
        memcpy(p4table_data(t, e), data, (size_t)dw * 8);
    e->action = action;
    e->priority = t->lpm_only ? lpm_len(t, mask) : priority;
    e->handle = t->next_handle++;
    if (t->n >= t->cap) {
        t->cap = t->cap ? 2 * t->cap : 8;
        t->entries = p4util_realloc(t->entries, (size_t)t->cap * sizeof(*t->entries));
    }
    int pos = t->n;
    if (!t->exact_only) {
        while (pos > 0 && t->entries[pos - 1]->priority < e->priority)
            pos--;
        memmove(t->entries + pos + 1, t->entries + pos, (size_t)(t->n - pos) * sizeof(e));
    }
    t->entries[pos] = e;
    t->n++;
    if (t->exact_only) {
        if (2 * (t->n + 1) > t->index_cap)
            index_rebuild(t);
        else
            index_insert(t, t->n - 1);
    }
    if (lpm_indexed(t)) {
        level_add(t, e->priority, em);
        if (lpm_cap_for(t->n) > t->lpm_cap)
            lpm_rebuild(t);
        else
            lpm_insert(t, e);
    } else if (2 * (t->n + 1) > t->dup_cap) {
        dup_rebuild(t);
    } else {
        dup_insert(t, e);
    }
    t->last_added = e;
    return e->handle;
}

void p4table_reserve(struct p4table *t, int n)
{
    int want = t->n + (n > 0 ? n : 0);
    if (t->ir->size > 0 && want > t->ir->size)
        want = t->ir->size;
    if (want > t->cap) {
        t->cap = want;
        t->entries = p4util_realloc(t->entries, (size_t)t->cap * sizeof(*t->entries));
    }
    if (t->exact_only && 2 * (want + 1) > t->index_cap)
        index_rebuild_for(t, want);
    if (lpm_indexed(t) && lpm_cap_for(want) > t->lpm_cap)
        lpm_rebuild_for(t, want);
}

int p4table_remove(struct p4table *t, int handle)
{
    for (int i = 0; i < t->n; i++) {
        if (t->entries[i]->handle == handle && t->entries[i]->fixed)
            return -2;
        if (t->entries[i]->handle == handle) {
            if (lpm_indexed(t))
                level_remove(t, t->entries[i]->priority);
            if (t->last_added == t->entries[i])
                t->last_added = NULL;
            free_entry(t, t->entries[i]);
            memmove(t->entries + i, t->entries + i + 1, (size_t)(t->n - i - 1) * sizeof(void *));
            t->n--;
            index_rebuild(t);
            if (lpm_indexed(t))
                lpm_rebuild(t);
            else
                dup_rebuild(t);
            return 0;
        }
    }
    return -1;
}

int p4table_set_default(struct p4table *t, int action, const uint64_t *data)
{
    int dw = action >= 0 ? t->ir->actions[action].data_words : 0;
    free(t->default_data);
    t->default_data = p4util_calloc((size_t)(dw + 1), 8);
    if (dw)
        memcpy(t->default_data, data, (size_t)dw * 8);
    t->default_action = action;
    return 0;
}

static bool matches(const struct p4table *t, const struct p4table_entry *e, const uint64_t *key)
{
    int kw = t->key_words;
    const uint64_t *ev = p4table_value(t, e);
    const uint64_t *em = ev + kw;
    const uint64_t *eh = p4table_hi(t, e);
    if (!eh) {
        for (int i = 0; i < kw; i++) {
            if ((key[i] & em[i]) != ev[i])
                return false;
        }
        return true;
    }
    const struct p4ir_table *ir = t->ir;
    for (int k = 0; k < ir->nkeys; k++) {
        const struct p4ir_key *kd = &ir->keys[k];
        int o = kd->woff;
        if (kd->mk == P4MK_RANGE) {
            /* multiword compare, most significant word first */
            int lo_cmp = 0;
            int hi_cmp = 0;
            for (int i = kd->nw - 1; i >= 0 && !lo_cmp; i--)
                lo_cmp = key[o + i] < ev[o + i] ? -1 : key[o + i] > ev[o + i];
            for (int i = kd->nw - 1; i >= 0 && !hi_cmp; i--)
                hi_cmp = key[o + i] < eh[o + i] ? -1 : key[o + i] > eh[o + i];
            if (lo_cmp < 0 || hi_cmp > 0)
                return false;
        } else {
            for (int i = 0; i < kd->nw; i++) {
                if ((key[o + i] & em[o + i]) != ev[o + i])
                    return false;
            }
        }
    }
    return true;
}

static struct p4table_entry *exact_lookup(const struct p4table *t, const uint64_t *key)
{
    if (!t->n)
        return NULL;
    uint64_t h = key_hash(key, t->key_words);
    size_t m = (size_t)t->index_cap - 1;
    for (size_t i = h & m;; i = (i + 1) & m) {
        int ei = t->index[i];
        if (ei < 0)
            return NULL;
        const uint64_t *v = p4table_value(t, t->entries[ei]);
        if (t->key_words == 1 ? v[0] == key[0] : memcmp(v, key, (size_t)t->key_words * 8) == 0)
            return t->entries[ei];
    }
}

static struct p4table_entry *scan_lookup(const struct p4table *t, const uint64_t *key)
{
    for (int i = 0; i < t->n; i++) {
        if (matches(t, t->entries[i], key))
            return t->entries[i];
    }
    return NULL;
}

static p4table_lookup_fn *lookup_for(const struct p4table *t)
{
    if (t->exact_only)
        return exact_lookup;
    if (!lpm_indexed(t))
        return scan_lookup;
    return t->key_words == 1 ? lpm_lookup1 : lpm_lookup;
}

struct p4table_entry *p4table_lookup(const struct p4table *t, const uint64_t *key)
{
    return t->lookup(t, key);
}

static unsigned __int128 refill(unsigned __int128 tok, uint64_t rate, uint64_t burst, int64_t dt_ps)
{
    unsigned __int128 cap = (unsigned __int128)burst * 1000000000000ULL;
    tok += (unsigned __int128)rate * (uint64_t)dt_ps;
    return tok > cap ? cap : tok;
}

enum p4_color p4table_meter(struct p4_meter *m, uint64_t units, int64_t now_ps)
{
    if (!m->configured)
        return P4_GREEN;
    int64_t dt = now_ps - m->last_ps;
    if (dt < 0)
        dt = 0;
    m->last_ps = now_ps;
    m->ctok = refill(m->ctok, m->cir, m->cburst, dt);
    m->ptok = refill(m->ptok, m->pir, m->pburst, dt);
    unsigned __int128 need = (unsigned __int128)units * 1000000000000ULL;
    if (m->ptok < need)
        return P4_RED;
    m->ptok -= need;
    if (m->ctok < need)
        return P4_YELLOW;
    m->ctok -= need;
    return P4_GREEN;
}
