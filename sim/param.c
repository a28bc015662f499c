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
    switch (t) {
    case PARAM_TIME:
        return "time";
    case PARAM_RATE:
        return "rate";
    case PARAM_SIZE:
        return "size";
    case PARAM_INT:
        return "integer";
    case PARAM_DOUBLE:
        return "number";
    case PARAM_BOOL:
        return "bool";
    case PARAM_ENUM:
        return "choice";
    case PARAM_STRING:
        return "string";
    case PARAM_NODE:
        return "section";
    }
    return "?";
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
        long long v = strtoll(s, &end, 0);
        if (errno || end == s || *end) {
            snprintf(err, errn, "expected an integer, got '%s'", s);
            return -1;
        }
        *iv = v;
        return 0;
    }
    case PARAM_DOUBLE: {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno || end == s || *end || !isfinite(v)) {
            snprintf(err, errn, "expected a number, got '%s'", s);
            return -1;
        }
        *dv = v;
        return 0;
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

int param_parse_value(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                      void *dst)
{
    char err[320];
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

void param_defaults(const struct param_def *defs, size_t ndefs, void *out)
{
    char err[320];
    for (size_t i = 0; i < ndefs; i++) {
        const struct param_def *def = &defs[i];
        void *dst = (char *)out + def->offset;
        if (def->def && def->def[0] && def->type != PARAM_NODE) {
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

int param_decode(struct diag *d, const struct param_def *defs, size_t ndefs,
                 const struct cfg_node *map, void *out, const char *what)
{
    param_defaults(defs, ndefs, out);
    int errors = param_apply(d, defs, ndefs, map, out, what);
    if (!map || map->kind == CFG_MAP)
        errors += param_require(d, defs, ndefs, map, (struct src_loc){0}, what);
    return errors;
}

void param_describe(FILE *out, const char *kind, const char *summary, const struct param_def *defs,
                    size_t ndefs)
{
    fprintf(out, "%s: %s\n\n", kind, summary);
    fprintf(out, "  %-18s %-8s %-12s %-22s %s\n", "parameter", "type", "default", "range", "help");
    for (size_t i = 0; i < ndefs; i++) {
        const struct param_def *p = &defs[i];
        char range[64] = "";
        if (p->type == PARAM_ENUM) {
            range[0] = '\0';
            for (int c = 0; p->choices[c]; c++) {
                strncat(range, c ? "|" : "", sizeof(range) - strlen(range) - 1);
                strncat(range, p->choices[c], sizeof(range) - strlen(range) - 1);
            }
        } else if (p->min || p->max) {
            snprintf(range, sizeof(range), "%s .. %s", p->min ? p->min : "", p->max ? p->max : "");
        }
        const char *def = p->def == NULL ? "(required)" : p->def[0] ? p->def : "-";
        fprintf(out, "  %-18s %-8s %-12s %-22s %s\n", p->name, param_type_name(p->type), def, range,
                p->help);
    }
}
