#include "sim/param.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simtime.h"
#include "sim/units.h"
#include "sim/util.h"

const char *param_type_name(enum param_type t)
{
    static const char *const names[] = {
        [PARAM_TIME] = "time",   [PARAM_RATE] = "rate",     [PARAM_SIZE] = "size",
        [PARAM_INT] = "integer", [PARAM_DOUBLE] = "number", [PARAM_BOOL] = "bool",
        [PARAM_ENUM] = "choice", [PARAM_STRING] = "string", [PARAM_NODE] = "section",
        [PARAM_LIST] = "list",   [PARAM_TABLE] = "entries", [PARAM_MAP] = "map",
    };
    _Static_assert(ARRAY_LEN(names) == PARAM_MAP + 1, "a name for every param_type");
    return (size_t)t < ARRAY_LEN(names) && names[t] ? names[t] : "?";
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a);
    size_t lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    size_t prev[65];
    size_t cur[65];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            cur[j] = MIN(MIN(prev[j] + 1, cur[j - 1] + 1), sub);
        }
        memcpy(prev, cur, sizeof(prev));
    }
    return prev[lb];
}

const char *param_suggest(const char *key, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t bestd = 99;
    size_t limit = MAX((size_t)2, (strlen(key) + 2) / 3);
    for (size_t i = 0; i < n; i++) {
        size_t dist = edit_distance(key, names[i]);
        if (dist < bestd) {
            bestd = dist;
            best = names[i];
        }
    }
    return bestd <= limit ? best : NULL;
}

/* After strtoll/strtod of s stopped at end: 0 when it read all of s without error and the value
 * is `ok`; else "expected WHAT, got 's'" in err, -1. */
static int parsed_whole(const char *s, const char *end, bool ok, const char *what, char *err,
                        size_t errn)
{
    if (!errno && end != s && !*end && ok)
        return 0;
    snprintf(err, errn, "expected %s, got '%s'", what, s);
    return -1;
}

/* Parses text of a numeric type into a 128-bit comparable value (doubles separately). */
static int parse_scalar(const struct param_def *def, const char *s, int64_t *iv, double *dv,
                        char *err, size_t errn)
{
    switch (def->type) {
    case PARAM_TIME: {
        sim_time_t t;
        if (units_parse_time(s, &t, err, errn) < 0)
            return -1;
        *iv = t;
        return 0;
    }
    case PARAM_RATE:
    case PARAM_SIZE: {
        uint64_t u;
        int rc = def->type == PARAM_RATE ? units_parse_rate(s, &u, err, errn)
                                         : units_parse_size(s, &u, err, errn);
        if (rc < 0)
            return -1;
        if (u > INT64_MAX) {
            snprintf(err, errn, "value '%s' is too large", s);
            return -1;
        }
        *iv = (int64_t)u;
        return 0;
    }
    case PARAM_INT: {
        char *end;
        errno = 0;
        *iv = strtoll(s, &end, 0);
        return parsed_whole(s, end, true, "an integer", err, errn);
    }
    case PARAM_DOUBLE: {
        char *end;
        errno = 0;
        *dv = strtod(s, &end);
        return parsed_whole(s, end, isfinite(*dv), "a number", err, errn);
    }
    default:
        SIM_ASSERT(0);
    }
}

static bool is_numeric(enum param_type t)
{
    return t == PARAM_TIME || t == PARAM_RATE || t == PARAM_SIZE || t == PARAM_INT ||
           t == PARAM_DOUBLE;
}

static int check_range(const struct param_def *def, int64_t iv, double dv, char *err, size_t errn)
{
    char berr[128];
    int64_t bi = 0;
    double bd = 0;
    if (def->min) {
        SIM_ASSERT(parse_scalar(def, def->min, &bi, &bd, berr, sizeof(berr)) == 0);
        if (def->type == PARAM_DOUBLE ? dv < bd : iv < bi) {
            snprintf(err, errn, "must be at least %s", def->min);
            return -1;
        }
    }
    if (def->max) {
        SIM_ASSERT(parse_scalar(def, def->max, &bi, &bd, berr, sizeof(berr)) == 0);
        if (def->type == PARAM_DOUBLE ? dv > bd : iv > bi) {
            snprintf(err, errn, "must be at most %s", def->max);
            return -1;
        }
    }
    return 0;
}

static int store_text(const struct param_def *def, const char *s, const struct cfg_node *node,
                      void *dst, char *err, size_t errn)
{
    if (is_numeric(def->type)) {
        int64_t iv = 0;
        double dv = 0;
        if (parse_scalar(def, s, &iv, &dv, err, errn) < 0)
            return -1;
        if (check_range(def, iv, dv, err, errn) < 0)
            return -1;
        if (def->type == PARAM_DOUBLE)
            *(double *)dst = dv;
        else
            *(int64_t *)dst = iv; /* sim_time_t, uint64_t and int64_t share a size */
        return 0;
    }
    switch (def->type) {
    case PARAM_BOOL:
        if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0 || strcmp(s, "on") == 0) {
            *(bool *)dst = true;
        } else if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0 || strcmp(s, "off") == 0) {
            *(bool *)dst = false;
        } else {
            snprintf(err, errn, "expected true or false, got '%s'", s);
            return -1;
        }
        return 0;
    case PARAM_ENUM:
        for (int i = 0; def->choices[i]; i++) {
            if (strcmp(s, def->choices[i]) == 0) {
                *(int *)dst = i;
                return 0;
            }
        }
        {
            size_t n = 0;
            while (def->choices[n])
                n++;
            const char *hint = param_suggest(s, def->choices, n);
            char list[256] = "";
            for (size_t i = 0; i < n; i++) {
                strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
                strncat(list, def->choices[i], sizeof(list) - strlen(list) - 1);
            }
            if (hint)
                snprintf(err, errn, "unknown value '%s' (did you mean '%s'?)", s, hint);
            else
                snprintf(err, errn, "unknown value '%s' (one of: %s)", s, list);
        }
        return -1;
    case PARAM_STRING:
        *(const char **)dst = s;
        return 0;
    case PARAM_NODE:
        *(const struct cfg_node **)dst = node;
        return 0;
    default:
        SIM_ASSERT(0);
    }
}

static bool is_vec(enum param_type t)
{
    return t == PARAM_LIST || t == PARAM_TABLE || t == PARAM_MAP;
}

static void vec_free(const struct param_def *def, struct param_vec *v)
{
    if (def->type == PARAM_TABLE) {
        for (uint32_t i = 0; i < v->n; i++)
            param_free(def->elem, def->nelem, (char *)v->items + i * def->elem_size);
    }
    free(v->items);
    free(v->locs);
    memset(v, 0, sizeof(*v));
}

void param_free(const struct param_def *defs, size_t ndefs, void *out)
{
    for (size_t i = 0; i < ndefs; i++) {
        if (is_vec(defs[i].type))
            vec_free(&defs[i], (struct param_vec *)((char *)out + defs[i].offset));
    }
}

static size_t elem_storage(const struct param_def *def);

/* Checks the shape of a list-valued parameter and sizes its storage; -1 after an error. */
static int vec_start(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                     struct param_vec *out)
{
    enum cfg_kind want = def->type == PARAM_MAP ? CFG_MAP : CFG_SEQ;
    size_t n = v->kind == CFG_NULL ? 0 : v->n;
    if (v->kind != CFG_NULL && v->kind != want) {
        diag_error(d, v->loc, "'%s' expects a %s, not a %s", def->name,
                   want == CFG_MAP ? "map" : "list", cfg_kind_name(v->kind));
        return -1;
    }
    if (def->max_items && n > def->max_items) {
        diag_error(d, v->loc, "'%s' has %zu items; at most %u are allowed", def->name, n,
                   def->max_items);
        return -1;
    }
    out->given = true;
    out->loc = v->loc;
    out->n = (uint32_t)n;
    out->items = n ? xcalloc(n, elem_storage(def)) : NULL;
    out->locs = n ? xcalloc(n, sizeof(*out->locs)) : NULL;
    return 0;
}

static int vec_item(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                    size_t i, struct param_vec *out)
{
    void *dst = (char *)out->items + i * elem_storage(def);
    if (def->type == PARAM_MAP) {
        out->locs[i] = v->items[i]->loc;
        if (v->items[i]->kind != CFG_SCALAR) {
            diag_error(d, v->items[i]->loc, "%s: '%s' needs a single value, not a %s", def->name,
                       v->keys[i], cfg_kind_name(v->items[i]->kind));
            return 1;
        }
        *(struct param_kv *)dst = (struct param_kv){v->keys[i], v->items[i]->str};
        return 0;
    }
    const struct cfg_node *item = v->items[i];
    out->locs[i] = item->loc;
    if (def->type == PARAM_LIST) {
        struct param_def e = *def->elem;
        e.name = def->name;
        return param_parse_value(d, &e, item, dst) < 0;
    }
    char what[160];
    snprintf(what, sizeof(what), "an entry of '%s'", def->name);
    param_defaults(def->elem, def->nelem, dst);
    if (item->kind != CFG_MAP) {
        diag_error(d, item->loc, "each entry of '%s' must be a map, not a %s", def->name,
                   cfg_kind_name(item->kind));
        return 1;
    }
    int e = param_apply(d, def->elem, def->nelem, item, dst, what);
    return e + param_require(d, def->elem, def->nelem, item, item->loc, what);
}

/* Decodes a list, a list of maps or a free map into a fresh param_vec (replacing one a lower
 * layer gave). Returns the number of errors. */
static int vec_decode(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                      struct param_vec *out)
{
    vec_free(def, out);
    if (vec_start(d, def, v, out) < 0)
        return 1;
    int errors = 0;
    for (size_t i = 0; i < out->n; i++)
        errors += vec_item(d, def, v, i, out);
    return errors;
}

int param_parse_value(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                      void *dst)
{
    char err[320];
    if (is_vec(def->type))
        return vec_decode(d, def, v, dst) ? -1 : 0;
    if (def->type == PARAM_NODE) {
        *(const struct cfg_node **)dst = v;
        return 0;
    }
    if (v->kind != CFG_SCALAR) {
        const char *tn = param_type_name(def->type);
        diag_error(d, v->loc, "'%s' expects %s %s, not a %s", def->name,
                   strchr("aeiou", tn[0]) ? "an" : "a", tn, cfg_kind_name(v->kind));
        return -1;
    }
    if (store_text(def, v->str, v, dst, err, sizeof(err)) < 0) {
        diag_error(d, v->loc, "%s: %s", def->name, err);
        return -1;
    }
    return 0;
}

bool param_given(const struct cfg_node *map, const char *key)
{
    return cfg_get(map, key) != NULL;
}

static size_t param_size(enum param_type t)
{
    switch (t) {
    case PARAM_LIST:
    case PARAM_TABLE:
    case PARAM_MAP:
        return sizeof(struct param_vec);
    case PARAM_DOUBLE:
        return sizeof(double);
    case PARAM_BOOL:
        return sizeof(bool);
    case PARAM_ENUM:
        return sizeof(int);
    case PARAM_STRING:
        return sizeof(const char *);
    case PARAM_NODE:
        return sizeof(const struct cfg_node *);
    default:
        return sizeof(int64_t);
    }
}

/* Bytes one item of a list-valued parameter takes. */
static size_t elem_storage(const struct param_def *def)
{
    if (def->type == PARAM_TABLE)
        return def->elem_size;
    if (def->type == PARAM_MAP)
        return sizeof(struct param_kv);
    return param_size(def->elem->type);
}

struct src_loc param_layers_loc(const struct param_layers *l, const char *key)
{
    for (int i = 0; i < 3; i++) {
        const struct cfg_node *v = cfg_get(l->map[i], key);
        if (v)
            return v->loc;
    }
    return l->map[0] ? l->map[0]->loc : l->loc;
}

void param_defaults(const struct param_def *defs, size_t ndefs, void *out)
{
    char err[320];
    for (size_t i = 0; i < ndefs; i++) {
        const struct param_def *def = &defs[i];
        void *dst = (char *)out + def->offset;
        if (def->def && def->def[0] && def->type != PARAM_NODE && !is_vec(def->type)) {
            if (store_text(def, def->def, NULL, dst, err, sizeof(err)) != 0) {
                fprintf(stderr, "ddlsim: bad default of '%s': %s\n", def->name, err);
                SIM_ASSERT(!"parameter table default does not parse");
            }
        } else
            memset(dst, 0, param_size(def->type));
    }
}

static void unknown_key(struct diag *d, const struct param_def *defs, size_t ndefs,
                        const struct cfg_node *map, size_t k, const char *what)
{
    const char *names[128];
    size_t n = MIN(ndefs, ARRAY_LEN(names));
    for (size_t i = 0; i < n; i++)
        names[i] = defs[i].name;
    const char *hint = param_suggest(map->keys[k], names, n);
    if (hint)
        diag_error(d, map->key_locs[k], "unknown key '%s' in %s (did you mean '%s'?)",
                   map->keys[k], what, hint);
    else
        diag_error(d, map->key_locs[k], "unknown key '%s' in %s", map->keys[k], what);
}

int param_apply(struct diag *d, const struct param_def *defs, size_t ndefs,
                const struct cfg_node *map, void *out, const char *what)
{
    if (!map || map->kind == CFG_NULL)
        return 0;
    if (map->kind != CFG_MAP) {
        diag_error(d, map->loc, "%s must be a map of parameters, not a %s", what,
                   cfg_kind_name(map->kind));
        return 1;
    }
    int errors = 0;
    for (size_t k = 0; k < map->n; k++) {
        const struct param_def *def = NULL;
        for (size_t i = 0; i < ndefs && !def; i++) {
            if (strcmp(defs[i].name, map->keys[k]) == 0)
                def = &defs[i];
        }
        if (!def) {
            unknown_key(d, defs, ndefs, map, k, what);
            errors++;
        } else if (param_parse_value(d, def, map->items[k], (char *)out + def->offset) < 0) {
            errors++;
        }
    }
    return errors;
}

int param_require(struct diag *d, const struct param_def *defs, size_t ndefs,
                  const struct cfg_node *map, struct src_loc loc, const char *what)
{
    int errors = 0;
    for (size_t i = 0; i < ndefs; i++) {
        if (defs[i].def == NULL && !cfg_get(map, defs[i].name)) {
            diag_error(d, map ? map->loc : loc, "%s: missing required key '%s'", what,
                       defs[i].name);
            errors++;
        }
    }
    return errors;
}

int param_require_layers(struct diag *d, const struct param_def *defs, size_t ndefs,
                         const struct cfg_node *own, const struct cfg_node *defaults,
                         const char *what)
{
    int errors = 0;
    for (size_t i = 0; i < ndefs; i++) {
        if (defs[i].def == NULL && !cfg_get(own, defs[i].name) &&
            !cfg_get(defaults, defs[i].name)) {
            diag_error(d, own->loc, "%s: missing required key '%s'", what, defs[i].name);
            errors++;
        }
    }
    return errors;
}

int param_decode(struct diag *d, const struct param_def *defs, size_t ndefs,
                 const struct cfg_node *map, void *out, const char *what)
{
    param_defaults(defs, ndefs, out);
    int errors = param_apply(d, defs, ndefs, map, out, what);
    if (!map || map->kind == CFG_MAP)
        errors += param_require(d, defs, ndefs, map, (struct src_loc){0}, what);
    return errors;
}

/* One row of `describe`; `indent` nests the keys of a table's entries under it. */
static void describe_row(FILE *out, const struct param_def *p, const char *indent)
{
    const struct param_def *r = p->type == PARAM_LIST ? p->elem : p; /* whose range to show */
    char range[64] = "";
    if (r->type == PARAM_ENUM) {
        for (int c = 0; r->choices[c]; c++) {
            strncat(range, c ? "|" : "", sizeof(range) - strlen(range) - 1);
            strncat(range, r->choices[c], sizeof(range) - strlen(range) - 1);
        }
    } else if (r->min || r->max) {
        snprintf(range, sizeof(range), "%s .. %s", r->min ? r->min : "", r->max ? r->max : "");
    }
    char type[24];
    if (p->type == PARAM_LIST)
        snprintf(type, sizeof(type), "[%s]", param_type_name(p->elem->type));
    else
        snprintf(type, sizeof(type), "%s", param_type_name(p->type));
    char name[40];
    snprintf(name, sizeof(name), "%s%s", indent, p->name);
    const char *def = p->def == NULL ? "(required)" : p->def[0] ? p->def : "-";
    fprintf(out, "  %-18s %-9s %-12s %-22s %s\n", name, type, def, range, p->help);
    if (p->type == PARAM_TABLE) {
        for (size_t k = 0; k < p->nelem; k++)
            describe_row(out, &p->elem[k], "  .");
    }
}

void param_describe(FILE *out, const char *kind, const char *summary, const struct param_def *defs,
                    size_t ndefs)
{
    fprintf(out, "%s: %s\n\n", kind, summary);
    fprintf(out, "  %-18s %-9s %-12s %-22s %s\n", "parameter", "type", "default", "range", "help");
    for (size_t i = 0; i < ndefs; i++)
        describe_row(out, &defs[i], "");
}
