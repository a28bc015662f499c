/* The binary control plane: table entries as words, names resolved once (see p4rt.h). The
 * checks are those of the text adds (p4rt.c), without parsing numbers. */
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4rt.h"
#include "p4/engine/p4util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct p4ir_table *ir_of(const struct p4rt_entry *e)
{
    return e->table;
}

int p4rt_key_id(const struct p4_pipe *pipe, int table, const char *key, char *err, size_t errlen)
{
    if (table < 0 || table >= pipe->prog->ntables)
        return p4util_errbuf(err, errlen, "unknown table");
    const struct p4ir_table *t = pipe->prog->tables[table];
    const char *names[256];
    int n = t->nkeys < 256 ? t->nkeys : 256;
    for (int j = 0; j < n; j++)
        names[j] = t->keys[j].name;
    return p4rt_lookup(names, n, key, "key", t->name, err, errlen);
}

int p4rt_entry_init(struct p4rt_entry *e, const struct p4_pipe *pipe, int table,
                    const char *action, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    if (table < 0 || table >= pipe->prog->ntables)
        return p4util_errbuf(err, errlen, "unknown table");
    const struct p4ir_table *t = pipe->prog->tables[table];
    if (t->const_entries)
        return p4util_errbuf(err, errlen, "table '%s' has const entries", t->name);
    if (t->nkeys > 64)
        return p4util_errbuf(err, errlen, "table '%s' has more than 64 keys", t->name);
    int a = p4rt_find_action(t, action, err, errlen);
    if (a < 0)
        return a;
    if (t->actions[a].default_only)
        return p4util_errbuf(err, errlen, "action '%s' is @defaultonly", t->actions[a].call.fn->name);
    int kw = t->key_words;
    e->value = p4util_calloc((size_t)kw * 3 + (size_t)pipe->prog->max_data_words + 1, 8);
    e->mask = e->value + kw;
    e->hi = e->value + 2 * kw;
    e->data = e->value + 3 * kw;
    for (int i = 0; i < t->nkeys; i++) { /* a key not given is a wildcard */
        const struct p4ir_key *k = &t->keys[i];
        if (k->mk == P4MK_RANGE)
            p4util_wmask(e->hi + k->woff, k->nw, k->width);
    }
    e->table = t;
    e->table_id = table;
    e->action = a;
    e->priority = -1;
    return 0;
}

void p4rt_entry_fini(struct p4rt_entry *e)
{
    free(e->value);
    memset(e, 0, sizeof(*e));
}

int p4rt_entry_param(const struct p4rt_entry *e, const char *param, char *err, size_t errlen)
{
    const struct p4ir_callable *fn = ir_of(e)->actions[e->action].call.fn;
    int i = 0;
    for (int p = 0; p < fn->nparams; p++) {
        if (fn->params[p].dir != P4_DIR_NONE)
            continue;
        if (strcmp(fn->params[p].name, param) == 0)
            return i;
        i++;
    }
    return p4util_errbuf(err, errlen, "action '%s' has no parameter '%s'", fn->name, param);
}

/* Whether the nw words of v hold nothing at or above bit `width`. */
static bool fits(const uint64_t *v, int nw, int width)
{
    for (int i = 0; i < nw; i++) {
        int lo = i * 64;
        if (width <= lo ? v[i] != 0 : width - lo < 64 && (v[i] >> (width - lo)) != 0)
            return false;
    }
    return true;
}

static void value_text(const uint64_t *v, int nw, char *buf, size_t n)
{
    if (nw == 1)
        snprintf(buf, n, "%llu", (unsigned long long)v[0]);
    else
        snprintf(buf, n, "0x%llx...", (unsigned long long)v[nw - 1]);
}

int p4rt_entry_key(struct p4rt_entry *e, int k, const uint64_t *value, int prefix_len, char *err,
                   size_t errlen)
{
    const struct p4ir_table *t = ir_of(e);
    if (k < 0 || k >= t->nkeys)
        return p4util_errbuf(err, errlen, "table '%s' has no key %d", t->name, k);
    const struct p4ir_key *kd = &t->keys[k];
    int nw = kd->nw;
    if (prefix_len >= 0 && kd->mk != P4MK_LPM && kd->mk != P4MK_TERNARY)
        return p4util_errbuf(err, errlen, "prefix length for key '%s' that is not lpm", kd->name);
    if (prefix_len > kd->width)
        return p4util_errbuf(err, errlen, "invalid prefix length %d for key '%s' of %d bits", prefix_len,
                    kd->name, kd->width);
    if (!fits(value, nw, kd->width)) {
        char buf[64];
        value_text(value, nw, buf, sizeof(buf));
        return p4util_errbuf(err, errlen, "value '%s' does not fit in %d bits", buf, kd->width);
    }
    uint64_t *v = e->value + kd->woff;
    uint64_t *m = e->mask + kd->woff;
    memcpy(v, value, (size_t)nw * 8);
    if (kd->mk == P4MK_RANGE) { /* one value: lo = hi */
        memcpy(e->hi + kd->woff, value, (size_t)nw * 8);
        memset(m, 0, (size_t)nw * 8);
    } else if (prefix_len < 0) {
        p4util_wmask(m, nw, kd->width);
    } else { /* the first prefix_len bits of the field: mask bits [width - len, width) */
        uint64_t ones[P4_WMAX];
        p4util_wmask(ones, nw, kd->width);
        for (int i = 0; i < nw; i++) {
            uint64_t low = 0; /* bits below width - prefix_len in this word are cleared */
            int cut = kd->width - prefix_len - i * 64;
            if (cut >= 64)
                low = ~(uint64_t)0;
            else if (cut > 0)
                low = ((uint64_t)1 << cut) - 1;
            m[i] = ones[i] & ~low;
            if (kd->mk == P4MK_LPM)
                v[i] &= m[i];
        }
    }
    e->given |= (uint64_t)1 << k;
    return 0;
}

int p4rt_entry_arg(struct p4rt_entry *e, int i, const uint64_t *value, char *err, size_t errlen)
{
    const struct p4ir_callable *fn = ir_of(e)->actions[e->action].call.fn;
    int w = 0;
    int n = 0;
    for (int p = 0; p < fn->nparams; p++) {
        const struct p4ir_param *pp = &fn->params[p];
        if (pp->dir != P4_DIR_NONE)
            continue;
        if (n++ == i) {
            if (!fits(value, pp->nslots, pp->type->width)) {
                char buf[64];
                value_text(value, pp->nslots, buf, sizeof(buf));
                return p4util_errbuf(err, errlen, "value '%s' does not fit in %d bits", buf,
                            pp->type->width);
            }
            memcpy(e->data + w, value, (size_t)pp->nslots * 8);
            return 0;
        }
        w += pp->nslots;
    }
    return p4util_errbuf(err, errlen, "action '%s' has no parameter %d", fn->name, i);
}

int p4rt_entry_add(struct p4_pipe *pipe, const struct p4rt_entry *e, int *handle, char *err,
                   size_t errlen)
{
    const struct p4ir_table *t = ir_of(e);
    struct p4table *rt = &pipe->tables[e->table_id];
    bool has_range = false;
    for (int i = 0; i < t->nkeys; i++) {
        if (!(e->given >> i & 1) && t->keys[i].mk == P4MK_EXACT)
            return p4util_errbuf(err, errlen, "missing value for exact key '%s'", t->keys[i].name);
        has_range |= t->keys[i].mk == P4MK_RANGE;
    }
    int p = e->priority;
    int prio = t->smallest_wins ? (p < 0 ? INT_MIN / 2 : -p) : (p < 0 ? 0 : p);
    int h = p4table_add(rt, e->value, e->mask, has_range ? e->hi : NULL, prio, e->action, e->data);
    if (h < 0)
        return p4util_errbuf(err, errlen,
                    rt->n >= t->size ? "table '%s' is full" : "duplicate entry in table '%s'",
                    t->name);
    if (handle)
        *handle = h;
    return 0;
}

void p4rt_table_reserve(struct p4_pipe *pipe, int table, int n)
{
    if (table >= 0 && table < pipe->prog->ntables)
        p4table_reserve(&pipe->tables[table], n);
}
