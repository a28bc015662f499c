/* Control plane by name: see p4rt.h. */
#include "p4/engine/p4rt.h"
#include "p4/engine/p4util.h"
#include "p4/engine/p4pipe.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s);
    size_t m = strlen(suffix);
    return m <= n && strcmp(s + n - m, suffix) == 0;
}

/* Index of the name that equals q, else the unique one ending with q (if several end with q,
 * the unique one ending with "." q); -1 none, -2 ambiguous. */
static int find_name(const char *const *names, int n, const char *q)
{
    for (int i = 0; i < n; i++) {
        if (names[i] && strcmp(names[i], q) == 0)
            return i;
    }
    int found = -1;
    int count = 0;
    for (int i = 0; i < n; i++) {
        if (names[i] && ends_with(names[i], q)) {
            found = i;
            count++;
        }
    }
    if (count <= 1)
        return found;
    found = -1;
    count = 0;
    size_t ql = strlen(q);
    for (int i = 0; i < n; i++) {
        if (!names[i] || !ends_with(names[i], q))
            continue;
        size_t nl = strlen(names[i]);
        if (nl > ql && names[i][nl - ql - 1] == '.') {
            found = i;
            count++;
        }
    }
    return count == 1 ? found : -2;
}

int p4rt_find_name(const char *const *names, int n, const char *q)
{
    return find_name(names, n, q);
}

int p4rt_lookup(const char *const *names, int n, const char *q, const char *what,
                const char *table, char *err, size_t errlen)
{
    int i = find_name(names, n, q);
    if (i == -1 && table)
        return p4util_errbuf(err, errlen, "table '%s' has no %s '%s'", table, what, q);
    if (i == -1)
        return p4util_errbuf(err, errlen, "unknown %s '%s'", what, q);
    if (i == -2)
        return p4util_errbuf(err, errlen, "ambiguous %s name '%s'", what, q);
    return i;
}

static int find_table(const struct p4_pipe *pipe, const char *name, char *err, size_t errlen)
{
    const struct p4_prog *prog = pipe->prog;
    const char *names[4096];
    int n = prog->ntables < 4096 ? prog->ntables : 4096;
    for (int i = 0; i < n; i++)
        names[i] = prog->tables[i]->name;
    return p4rt_lookup(names, n, name, "table", NULL, err, errlen);
}

int p4rt_table_id(const struct p4_pipe *pipe, const char *table, char *err, size_t errlen)
{
    return find_table(pipe, table, err, errlen);
}

const char *p4rt_table_name(const struct p4_pipe *pipe, const char *table)
{
    int t = find_table(pipe, table, NULL, 0);
    return t < 0 ? NULL : pipe->prog->tables[t]->name;
}

int p4rt_table_size(const struct p4_pipe *pipe, const char *table)
{
    int t = find_table(pipe, table, NULL, 0);
    return t < 0 ? -1 : pipe->prog->tables[t]->size;
}

static int find_extern(const struct p4_pipe *pipe, const char *name, enum p4ext_kind kind,
                       const char *what, char *err, size_t errlen)
{
    const struct p4_prog *prog = pipe->prog;
    const char *names[4096];
    int n = prog->nexterns < 4096 ? prog->nexterns : 4096;
    for (int i = 0; i < n; i++)
        names[i] = prog->externs[i].kind == kind ? prog->externs[i].name : NULL;
    return p4rt_lookup(names, n, name, what, NULL, err, errlen);
}

/* Parses a number in STF syntax into w (nw words) for a field of `width` bits. Digits
 * written as '*' clear the matching mask bits; the mask covers only the written digits
 * when `digits_mask` (ternary), else the full width. */
static int parse_number(const char *s, size_t len, int width, uint64_t *v, uint64_t *m,
                        int *wild_tail_bits, bool *has_star, char *err, size_t errlen)
{
    int nw = p4util_nwords(width);
    struct p4_big val;
    struct p4_big msk;
    p4big_set_u64(&val, 0);
    p4big_set_u64(&msk, 0);
    int base = 10;
    int bits_per = 0;
    size_t i = 0;
    bool neg = false;
    if (len && s[0] == '-') {
        neg = true;
        i = 1;
    }
    if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        bits_per = 4;
        i += 2;
    } else if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B')) {
        base = 2;
        bits_per = 1;
        i += 2;
    } else if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'o' || s[i + 1] == 'O')) {
        base = 8;
        bits_per = 3;
        i += 2;
    }
    if (i >= len)
        return p4util_errbuf(err, errlen, "invalid number '%.*s'", (int)len, s);
    int ndigits = 0;
    int tail = 0;
    *has_star = false;
    struct p4_big b;
    p4big_set_u64(&b, (uint64_t)base);
    for (; i < len; i++) {
        int c = s[i];
        if (c == '_')
            continue;
        int d;
        bool star = c == '*';
        if (star) {
            if (!bits_per)
                return p4util_errbuf(err, errlen, "'*' digits need a hex or binary number in '%.*s'",
                            (int)len, s);
            d = 0;
            *has_star = true;
            tail++;
        } else {
            if (isdigit(c))
                d = c - '0';
            else if (isxdigit(c))
                d = tolower(c) - 'a' + 10;
            else
                d = 99;
            if (d >= base)
                return p4util_errbuf(err, errlen, "invalid number '%.*s'", (int)len, s);
            tail = 0;
        }
        if (p4big_bits(&val) > P4_MAXWIDTH - 4)
            return p4util_errbuf(err, errlen, "number too large '%.*s'", (int)len, s);
        struct p4_big dv;
        p4big_set_u64(&dv, (uint64_t)d);
        p4big_mul(&val, &val, &b);
        p4big_add(&val, &val, &dv);
        if (bits_per) {
            p4big_shl(&msk, &msk, (unsigned)bits_per);
            if (!star)
                msk.w[0] |= p4util_mask64(bits_per);
        }
        ndigits++;
    }
    if (neg)
        p4big_neg(&val, &val);
    struct p4_big tr = val;
    p4big_trunc(&tr, width, false);
    if (!neg && p4big_cmp_signed(&tr, &val) != 0)
        return p4util_errbuf(err, errlen, "value '%.*s' does not fit in %d bits", (int)len, s, width);
    memcpy(v, tr.w, (size_t)nw * 8);
    if (m) {
        if (bits_per) {
            p4big_trunc(&msk, width, false);
            memcpy(m, msk.w, (size_t)nw * 8);
        } else {
            p4util_wmask(m, nw, width);
        }
    }
    if (wild_tail_bits)
        *wild_tail_bits = tail * bits_per;
    (void)ndigits;
    return 0;
}

static void key_name_norm(const char *in, char *out, size_t cap)
{
    /* X$N -> X[N] */
    size_t o = 0;
    for (size_t i = 0; in[i] && o + 2 < cap; i++) {
        if (in[i] == '$' && isdigit((unsigned char)in[i + 1])) {
            out[o++] = '[';
            i++;
            while (isdigit((unsigned char)in[i]) && o + 2 < cap)
                out[o++] = in[i++];
            out[o++] = ']';
            i--;
        } else {
            out[o++] = in[i];
        }
    }
    out[o] = 0;
}

static int parse_key(const struct p4ir_key *k, const char *text, uint64_t *v, uint64_t *m,
                     uint64_t *hi, char *err, size_t errlen)
{
    int nw = k->nw;
    int width = k->width;
    const char *amp = strstr(text, "&&&");
    const char *slash = strchr(text, '/');
    const char *arrow = strstr(text, "->");
    const char *dots = strstr(text, "..");
    const char *sep = arrow ? arrow : dots;
    bool star;
    int tail;
    if (sep) {
        if (k->mk != P4MK_RANGE)
            return p4util_errbuf(err, errlen, "range value for non-range key '%s'", k->name);
        if (parse_number(text, (size_t)(sep - text), width, v, NULL, NULL, &star, err, errlen) ||
            parse_number(sep + 2, strlen(sep + 2), width, hi, NULL, NULL, &star, err, errlen))
            return -1;
        memset(m, 0, (size_t)nw * 8);
        return 0;
    }
    if (amp) {
        if (k->mk == P4MK_EXACT || k->mk == P4MK_RANGE)
            return p4util_errbuf(err, errlen, "mask for key '%s' that is not ternary or lpm", k->name);
        if (parse_number(text, (size_t)(amp - text), width, v, NULL, NULL, &star, err, errlen) ||
            parse_number(amp + 3, strlen(amp + 3), width, m, NULL, NULL, &star, err, errlen))
            return -1;
        return 0;
    }
    if (slash) {
        if (k->mk != P4MK_LPM && k->mk != P4MK_TERNARY)
            return p4util_errbuf(err, errlen, "prefix length for key '%s' that is not lpm", k->name);
        char *end;
        long plen = strtol(slash + 1, &end, 10);
        if (*end || plen < 0 || plen > width)
            return p4util_errbuf(err, errlen, "invalid prefix length in '%s'", text);
        if (parse_number(text, (size_t)(slash - text), width, v, NULL, NULL, &star, err, errlen))
            return -1;
        uint64_t ones[P4_WMAX];
        p4util_wmask(ones, nw, width);
        struct p4_big mb;
        memset(&mb, 0, sizeof(mb));
        p4util_wmask(mb.w, P4_WMAX, (int)plen);
        p4big_shl(&mb, &mb, (unsigned)(width - plen));
        for (int i = 0; i < nw; i++)
            m[i] = mb.w[i] & ones[i];
        if (hi)
            memcpy(hi, v, (size_t)nw * 8);
        return 0;
    }
    if (parse_number(text, strlen(text), width, v, m, &tail, &star, err, errlen))
        return -1;
    switch (k->mk) {
    case P4MK_EXACT:
        if (star)
            return p4util_errbuf(err, errlen, "'*' in exact key '%s'", k->name);
        p4util_wmask(m, nw, width);
        break;
    case P4MK_LPM: {
        /* STF rule: the prefix length counts the written non-'*' digits (0xc0a8**** on 32
         * bits is /16); '*' only at the end; a decimal value is a full-width prefix */
        int ndigits = 0;
        int nstars = 0;
        int trailing = 0;
        int bits = 0;
        const char *c = text;
        if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X'))
            bits = 4;
        else if (c[0] == '0' && (c[1] == 'b' || c[1] == 'B'))
            bits = 1;
        else if (c[0] == '0' && (c[1] == 'o' || c[1] == 'O'))
            bits = 3;
        for (c = bits ? text + 2 : text; *c; c++) {
            if (*c == '_')
                continue;
            ndigits++;
            if (*c == '*') {
                nstars++;
                trailing++;
            } else {
                trailing = 0;
            }
        }
        if (nstars != trailing)
            return p4util_errbuf(err, errlen, "'*' digits of lpm key '%s' must be at the end", k->name);
        int plen = bits ? (ndigits - nstars) * bits : width;
        if (plen > width)
            plen = width;
        uint64_t ones[P4_WMAX];
        p4util_wmask(ones, nw, width);
        struct p4_big mb;
        memset(&mb, 0, sizeof(mb));
        p4util_wmask(mb.w, P4_WMAX, plen);
        p4big_shl(&mb, &mb, (unsigned)(width - plen));
        for (int i = 0; i < nw; i++) {
            m[i] = mb.w[i] & ones[i];
            v[i] &= m[i];
        }
        break;
    }
    case P4MK_RANGE:
        memcpy(hi, v, (size_t)nw * 8);
        memset(m, 0, (size_t)nw * 8);
        break;
    default:
        break; /* ternary/optional: mask from the written digits */
    }
    return 0;
}

int p4rt_find_action(const struct p4ir_table *t, const char *name, char *err, size_t errlen)
{
    const char *names[256];
    int n = t->nactions < 256 ? t->nactions : 256;
    for (int i = 0; i < n; i++)
        names[i] = t->actions[i].call.fn->name;
    return p4rt_lookup(names, n, name, "action", t->name, err, errlen);
}

static int action_args(const struct p4ir_table *t, int a, const struct p4rt_kv *args, int nargs,
                       uint64_t *data, char *err, size_t errlen)
{
    const struct p4ir_table_action *ta = &t->actions[a];
    const struct p4ir_callable *fn = ta->call.fn;
    int w = 0;
    bool used[64] = {false};
    for (int i = 0; i < fn->nparams; i++) {
        const struct p4ir_param *p = &fn->params[i];
        if (p->dir != P4_DIR_NONE)
            continue;
        int found = -1;
        for (int j = 0; j < nargs && j < 64; j++) {
            if (strcmp(args[j].name, p->name) == 0)
                found = j;
        }
        if (found < 0)
            return p4util_errbuf(err, errlen, "missing parameter '%s' of action '%s'", p->name, fn->name);
        used[found] = true;
        bool star;
        if (parse_number(args[found].value, strlen(args[found].value), p->type->width, data + w,
                         NULL, NULL, &star, err, errlen))
            return -1;
        w += p->nslots;
    }
    for (int j = 0; j < nargs && j < 64; j++) {
        if (!used[j])
            return p4util_errbuf(err, errlen, "action '%s' has no parameter '%s'", fn->name, args[j].name);
    }
    return 0;
}

int p4rt_table_add(struct p4_pipe *pipe, const char *table, const struct p4rt_kv *keys, int nkeys,
                   const char *action, const struct p4rt_kv *args, int nargs, int priority,
                   int *handle, char *err, size_t errlen)
{
    int ti = find_table(pipe, table, err, errlen);
    if (ti < 0)
        return -1;
    const struct p4ir_table *t = pipe->prog->tables[ti];
    struct p4table *rt = &pipe->tables[ti];
    if (t->const_entries)
        return p4util_errbuf(err, errlen, "table '%s' has const entries", t->name);
    int kw = t->key_words;
    uint64_t *v = p4util_calloc((size_t)kw * 3 + (size_t)pipe->prog->max_data_words + 1, 8);
    uint64_t *m = v + kw;
    uint64_t *hi = v + 2 * kw;
    uint64_t *data = v + 3 * kw;
    int rc = -1;
    /* wildcard defaults */
    for (int i = 0; i < t->nkeys; i++) {
        const struct p4ir_key *k = &t->keys[i];
        if (k->mk == P4MK_RANGE)
            p4util_wmask(hi + k->woff, k->nw, k->width);
    }
    bool given[256] = {false};
    for (int i = 0; i < nkeys; i++) {
        char norm[256];
        key_name_norm(keys[i].name, norm, sizeof(norm));
        const char *names[256];
        int n = t->nkeys < 256 ? t->nkeys : 256;
        for (int j = 0; j < n; j++)
            names[j] = t->keys[j].name;
        int k = find_name(names, n, norm);
        size_t nl = strlen(norm);
        if (k == -1 && nl > 8 && strcmp(norm + nl - 8, ".$valid$") == 0 && nl < 240) {
            /* bmv2 JSON names validity keys X.$valid$; ours are X.isValid() */
            strcpy(norm + nl - 7, "isValid()");
            k = find_name(names, n, norm);
        }
        if (k == -1) {
            p4util_errbuf(err, errlen, "table '%s' has no key '%s'", t->name, keys[i].name);
            goto out;
        }
        if (k == -2) {
            p4util_errbuf(err, errlen, "ambiguous key name '%s'", keys[i].name);
            goto out;
        }
        const struct p4ir_key *kd = &t->keys[k];
        if (given[k]) {
            p4util_errbuf(err, errlen, "key '%s' given twice", keys[i].name);
            goto out;
        }
        given[k] = true;
        if (parse_key(kd, keys[i].value, v + kd->woff, m + kd->woff, hi + kd->woff, err, errlen))
            goto out;
    }
    for (int i = 0; i < t->nkeys && i < 256; i++) {
        if (!given[i] && t->keys[i].mk == P4MK_EXACT) {
            p4util_errbuf(err, errlen, "missing value for exact key '%s'", t->keys[i].name);
            goto out;
        }
    }
    int a = p4rt_find_action(t, action, err, errlen);
    if (a < 0)
        goto out;
    if (t->actions[a].default_only) {
        p4util_errbuf(err, errlen, "action '%s' is @defaultonly", t->actions[a].call.fn->name);
        goto out;
    }
    if (action_args(t, a, args, nargs, data, err, errlen))
        goto out;
    bool has_range = false;
    for (int i = 0; i < t->nkeys; i++)
        has_range |= t->keys[i].mk == P4MK_RANGE;
    /* the table's convention: larger wins unless largest_priority_wins = false; an entry
     * without a priority ranks below every entry that has one */
    int prio =
        t->smallest_wins ? (priority < 0 ? INT_MIN / 2 : -priority) : (priority < 0 ? 0 : priority);
    int h = p4table_add(rt, v, m, has_range ? hi : NULL, prio, a, data);
    if (h < 0) {
        p4util_errbuf(err, errlen, rt->n >= t->size ? "table '%s' is full" : "duplicate entry in table '%s'",
             t->name);
        goto out;
    }
    if (handle)
        *handle = h;
    rc = 0;
out:
    free(v);
    return rc;
}

int p4rt_table_remove(struct p4_pipe *pipe, const char *table, int handle, char *err, size_t errlen)
{
    int ti = find_table(pipe, table, err, errlen);
    if (ti < 0)
        return -1;
    int rc = p4table_remove(&pipe->tables[ti], handle);
    if (rc == -2)
        return p4util_errbuf(err, errlen, "entry %d of table '%s' is const", handle, table);
    if (rc)
        return p4util_errbuf(err, errlen, "no entry %d in table '%s'", handle, table);
    return 0;
}

int p4rt_table_set_default(struct p4_pipe *pipe, const char *table, const char *action,
                           const struct p4rt_kv *args, int nargs, char *err, size_t errlen)
{
    int ti = find_table(pipe, table, err, errlen);
    if (ti < 0)
        return -1;
    const struct p4ir_table *t = pipe->prog->tables[ti];
    if (t->const_default)
        return p4util_errbuf(err, errlen, "table '%s' has a const default action", t->name);
    int a = p4rt_find_action(t, action, err, errlen);
    if (a < 0)
        return -1;
    if (t->actions[a].table_only)
        return p4util_errbuf(err, errlen, "action '%s' is @tableonly", t->actions[a].call.fn->name);
    uint64_t *data = p4util_calloc((size_t)t->actions[a].data_words + 1, 8);
    int rc = action_args(t, a, args, nargs, data, err, errlen);
    if (!rc)
        p4table_set_default(&pipe->tables[ti], a, data);
    free(data);
    return rc;
}

int p4rt_table_at(const struct p4_pipe *pipe, int i, const char **name)
{
    if (i < 0 || i >= pipe->prog->ntables)
        return -1;
    *name = pipe->prog->tables[i]->name;
    return 0;
}

/* The table named `table`, NULL if there is none (no message). */
static const struct p4ir_table *table_ir(const struct p4_pipe *pipe, const char *table)
{
    int ti = find_table(pipe, table, NULL, 0);
    return ti < 0 ? NULL : pipe->prog->tables[ti];
}

int p4rt_table_key(const struct p4_pipe *pipe, const char *table, int i, const char **name,
                   const char **match_kind, int *width)
{
    static const char *const kinds[] = {"exact", "lpm", "ternary", "range", "optional", "selector"};
    const struct p4ir_table *t = table_ir(pipe, table);
    if (!t || i < 0 || i >= t->nkeys)
        return -1;
    *name = t->keys[i].name;
    *match_kind = kinds[t->keys[i].mk];
    *width = t->keys[i].width;
    return 0;
}

int p4rt_table_action(const struct p4_pipe *pipe, const char *table, int i, const char **name)
{
    const struct p4ir_table *t = table_ir(pipe, table);
    if (!t || i < 0 || i >= t->nactions)
        return -1;
    *name = t->actions[i].call.fn->name;
    return 0;
}

int p4rt_action_param(const struct p4_pipe *pipe, const char *table, const char *action, int i,
                      const char **name, int *width)
{
    const struct p4ir_table *t = table_ir(pipe, table);
    if (!t)
        return -1;
    int a = p4rt_find_action(t, action, NULL, 0);
    if (a < 0)
        return -1;
    const struct p4ir_callable *fn = t->actions[a].call.fn;
    int k = 0;
    for (int j = 0; j < fn->nparams; j++) {
        if (fn->params[j].dir != P4_DIR_NONE)
            continue;
        if (k++ == i) {
            *name = fn->params[j].name;
            *width = fn->params[j].type->width;
            return 0;
        }
    }
    return -1;
}

int p4rt_register_at(const struct p4_pipe *pipe, int i, const char **name, int64_t *size,
                     int *width)
{
    for (int x = 0; x < pipe->prog->nexterns; x++) {
        const struct p4ir_extern *e = &pipe->prog->externs[x];
        if (e->kind != P4EXT_REGISTER || i-- > 0)
            continue;
        *name = e->name;
        *size = e->size;
        *width = e->width;
        return 0;
    }
    return -1;
}

/* The words of element index of register reg (its IR in *e), NULL (reported) if either is
 * unknown. */
static uint64_t *register_cell(struct p4_pipe *pipe, const char *reg, uint64_t index,
                               const struct p4ir_extern **e, char *err, size_t errlen)
{
    int x = find_extern(pipe, reg, P4EXT_REGISTER, "register", err, errlen);
    if (x < 0)
        return NULL;
    *e = &pipe->prog->externs[x];
    if (index >= (uint64_t)(*e)->size) {
        p4util_errbuf(err, errlen, "index %llu out of range for register '%s' (size %d)",
                      (unsigned long long)index, (*e)->name, (*e)->size);
        return NULL;
    }
    return pipe->ext[x].vals + index * (uint64_t)(*e)->nw;
}

int p4rt_register_read(struct p4_pipe *pipe, const char *reg, uint64_t index, uint64_t *value,
                       char *err, size_t errlen)
{
    const struct p4ir_extern *e;
    uint64_t *w = register_cell(pipe, reg, index, &e, err, errlen);
    if (!w)
        return -1;
    *value = w[0];
    return 0;
}

int p4rt_register_write(struct p4_pipe *pipe, const char *reg, uint64_t index, uint64_t value,
                        char *err, size_t errlen)
{
    const struct p4ir_extern *e;
    uint64_t *w = register_cell(pipe, reg, index, &e, err, errlen);
    if (!w)
        return -1;
    memset(w, 0, (size_t)e->nw * 8);
    w[0] = value & p4util_mask64(e->width);
    return 0;
}

int p4rt_register_reset(struct p4_pipe *pipe, const char *reg, char *err, size_t errlen)
{
    int x = find_extern(pipe, reg, P4EXT_REGISTER, "register", err, errlen);
    if (x < 0)
        return -1;
    const struct p4ir_extern *e = &pipe->prog->externs[x];
    memset(pipe->ext[x].vals, 0, (size_t)e->size * (size_t)e->nw * 8);
    return 0;
}

int p4rt_counter_read(struct p4_pipe *pipe, const char *ctr, uint64_t index, uint64_t *packets,
                      uint64_t *bytes, char *err, size_t errlen)
{
    int x = find_extern(pipe, ctr, P4EXT_COUNTER, "counter", NULL, 0);
    if (x < 0) {
        /* direct counters are read by table entry handle */
        int d = find_extern(pipe, ctr, P4EXT_DIRECT_COUNTER, "counter", err, errlen);
        if (d < 0)
            return -1;
        for (int t = 0; t < pipe->prog->ntables; t++) {
            if (pipe->prog->tables[t]->direct_counter != d)
                continue;
            struct p4table *rt = &pipe->tables[t];
            for (int i = 0; i < rt->n; i++) {
                if ((uint64_t)rt->entries[i]->handle == index) {
                    const struct p4table_direct *dc = p4table_direct(rt, rt->entries[i]);
                    *packets = dc ? dc->packets : 0;
                    *bytes = dc ? dc->bytes : 0;
                    return 0;
                }
            }
        }
        return p4util_errbuf(err, errlen, "no entry %llu for direct counter '%s'", (unsigned long long)index,
                    ctr);
    }
    const struct p4ir_extern *e = &pipe->prog->externs[x];
    if (index >= (uint64_t)e->size)
        return p4util_errbuf(err, errlen, "index %llu out of range for counter '%s' (size %d)",
                    (unsigned long long)index, e->name, e->size);
    *packets = pipe->ext[x].packets[index];
    *bytes = pipe->ext[x].bytes[index];
    return 0;
}

int p4rt_meter_set(struct p4_pipe *pipe, const char *mtr, uint64_t index, uint64_t cir,
                   uint64_t cburst, uint64_t pir, uint64_t pburst, char *err, size_t errlen)
{
    int x = find_extern(pipe, mtr, P4EXT_METER, "meter", err, errlen);
    if (x < 0)
        return -1;
    const struct p4ir_extern *e = &pipe->prog->externs[x];
    if (index >= (uint64_t)e->size)
        return p4util_errbuf(err, errlen, "index out of range for meter '%s'", e->name);
    struct p4_meter *m = &pipe->ext[x].meters[index];
    m->configured = true;
    m->cir = cir;
    m->cburst = cburst;
    m->pir = pir;
    m->pburst = pburst;
    m->ctok = (unsigned __int128)cburst * 1000000000000ULL;
    m->ptok = (unsigned __int128)pburst * 1000000000000ULL;
    m->last_ps = p4pipe_now_ps(pipe);
    return 0;
}

int p4rt_value_set_add(struct p4_pipe *pipe, const char *vset, const char *value, char *err,
                       size_t errlen)
{
    int x = find_extern(pipe, vset, P4EXT_VALUE_SET, "value set", err, errlen);
    if (x < 0)
        return -1;
    const struct p4ir_extern *e = &pipe->prog->externs[x];
    struct p4_ext_state *es = &pipe->ext[x];
    if (es->nvals >= e->size)
        return p4util_errbuf(err, errlen, "value set '%s' is full (size %d)", e->name, e->size);
    struct p4ir_key k;
    memset(&k, 0, sizeof(k));
    k.mk = P4MK_TERNARY;
    k.width = e->width;
    k.nw = 1;
    k.name = e->name;
    uint64_t v = 0;
    uint64_t m = 0;
    uint64_t hi = 0;
    if (!strstr(value, "&&&") && !strchr(value, '*'))
        k.mk = P4MK_EXACT;
    if (parse_key(&k, value, &v, &m, &hi, err, errlen))
        return -1;
    es->vals[2 * es->nvals] = v & m;
    es->vals[2 * es->nvals + 1] = m;
    es->nvals++;
    return 0;
}

static struct p4_mc_group *group(struct p4_pipe *pipe, uint32_t grp)
{
    for (int i = 0; i < pipe->ngroups; i++) {
        if (pipe->groups[i].id == grp)
            return &pipe->groups[i];
    }
    return NULL;
}

int p4rt_mc_group_create(struct p4_pipe *pipe, uint32_t grp, char *err, size_t errlen)
{
    if (group(pipe, grp))
        return p4util_errbuf(err, errlen, "multicast group %u already exists", grp);
    struct p4_mc_group g = {grp, NULL, 0, 0};
    P4_PUSH(pipe->groups, pipe->ngroups, pipe->capgroups, g);
    return 0;
}

int p4rt_mc_node_create(struct p4_pipe *pipe, uint32_t rid, const uint32_t *ports, int nports,
                        int *handle)
{
    struct p4_mc_node n;
    n.rid = rid;
    n.nports = nports;
    n.ports = p4util_calloc((size_t)(nports ? nports : 1), sizeof(uint32_t));
    if (nports)
        memcpy(n.ports, ports, (size_t)nports * sizeof(uint32_t));
    P4_PUSH(pipe->nodes, pipe->nnodes, pipe->capnodes, n);
    *handle = pipe->nnodes - 1;
    return 0;
}

int p4rt_mc_node_associate(struct p4_pipe *pipe, uint32_t grp, int handle, char *err, size_t errlen)
{
    struct p4_mc_group *g = group(pipe, grp);
    if (!g)
        return p4util_errbuf(err, errlen, "no multicast group %u", grp);
    if (handle < 0 || handle >= pipe->nnodes)
        return p4util_errbuf(err, errlen, "no multicast node %d", handle);
    const struct p4_mc_node *n = &pipe->nodes[handle];
    for (int i = 0; i < n->nports; i++) {
        struct p4_mc_member m = {n->ports[i], n->rid};
        P4_PUSH(g->members, g->n, g->cap, m);
    }
    return 0;
}

int p4rt_mc_add_member(struct p4_pipe *pipe, uint32_t grp, uint32_t port, uint32_t rid)
{
    struct p4_mc_group *g = group(pipe, grp);
    if (!g) {
        p4rt_mc_group_create(pipe, grp, NULL, 0);
        g = group(pipe, grp);
    }
    struct p4_mc_member m = {port, rid};
    P4_PUSH(g->members, g->n, g->cap, m);
    return 0;
}

int p4rt_mirror_add(struct p4_pipe *pipe, uint32_t session, uint32_t port, char *err, size_t errlen)
{
    for (int i = 0; i < pipe->nmirrors; i++) {
        if (pipe->mirrors[i].session == session) {
            pipe->mirrors[i].port = port;
            return 0;
        }
    }
    if (port > 511)
        return p4util_errbuf(err, errlen, "invalid mirror port %u", port);
    struct p4_mirror m = {session, port};
    P4_PUSH(pipe->mirrors, pipe->nmirrors, pipe->capmirrors, m);
    return 0;
}
