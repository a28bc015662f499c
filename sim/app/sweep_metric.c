/* Metric extraction from run folders (sweep_metric.h). */
#include "sim/app/sweep_metric.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/util.h"

struct vals {
    double *v;
    size_t n;
    size_t cap;
    char *text; /* a string leaf (reduce one only) */
};

static void push(struct vals *vs, double x)
{
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 64;
        vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
    }
    vs->v[vs->n++] = x;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double sweep_reduce(int reduce, double *v, size_t n)
{
    if (reduce == SWEEP_COUNT)
        return (double)n;
    if (n == 0)
        return NAN;
    double acc = 0;
    switch (reduce) {
    case SWEEP_ONE:
    case SWEEP_FIRST:
        return v[0];
    case SWEEP_LAST:
        return v[n - 1];
    case SWEEP_SUM:
    case SWEEP_MEAN:
        for (size_t i = 0; i < n; i++)
            acc += v[i];
        return reduce == SWEEP_SUM ? acc : acc / (double)n;
    default:
        break;
    }
    qsort(v, n, sizeof(*v), dbl_cmp);
    /* order statistics by nearest rank: the smallest value with at least q of the samples */
    double q = reduce == SWEEP_MIN      ? 0
               : reduce == SWEEP_MAX    ? 1
               : reduce == SWEEP_MEDIAN ? 0.5
               : reduce == SWEEP_P90    ? 0.9
                                        : 0.99;
    size_t rank = (size_t)ceil(q * (double)n);
    return v[rank ? rank - 1 : 0];
}

/* Walks summary.json from `j` along the remaining path segments, collecting numeric leaves. */
static int walk(json_t *j, char *path, struct vals *vs, char *missing, size_t mn)
{
    if (!path) {
        if (json_is_number(j))
            push(vs, json_number_value(j));
        else if (json_is_boolean(j))
            push(vs, json_is_true(j) ? 1 : 0);
        else if (json_is_string(j) && !vs->text)
            vs->text = xstrdup(json_string_value(j));
        else if (!json_is_null(j)) {
            snprintf(missing, mn, "(a %s, not a number)", json_is_object(j) ? "map" : "list");
            return -1;
        }
        return 0;
    }
    char *dot = strchr(path, '.');
    char *rest = dot ? dot + 1 : NULL;
    if (dot)
        *dot = '\0';
    if (json_is_object(j)) {
        json_t *c = json_object_get(j, path);
        if (!c) {
            snprintf(missing, mn, "'%s'", path);
            return -1;
        }
        return walk(c, rest, vs, missing, mn);
    }
    if (!json_is_array(j)) {
        snprintf(missing, mn, "'%s' (a value has no fields)", path);
        return -1;
    }
    char *end;
    unsigned long idx = strtoul(path, &end, 10);
    size_t i;
    json_t *c;
    bool all = strcmp(path, "*") == 0;
    bool found = false;
    json_array_foreach(j, i, c)
    {
        const char *nm = json_string_value(json_object_get(c, "name"));
        bool match = all || (*path && !*end ? i == idx : nm && strcmp(nm, path) == 0);
        if (!match)
            continue;
        found = true;
        char *copy = rest ? xstrdup(rest) : NULL;
        int rc = walk(c, copy, vs, missing, mn);
        free(copy);
        if (rc < 0)
            return rc;
    }
    if (!found && !all) {
        snprintf(missing, mn, "item '%s'", path);
        return -1;
    }
    return 0;
}

static int from_summary(const struct sweep_metric *m, json_t *root, struct vals *vs,
                        char *err, size_t errn)
{
    char missing[256] = "";
    char *path = xstrdup(m->path);
    int rc = walk(root, path, vs, missing, sizeof(missing));
    free(path);
    if (rc < 0)
        snprintf(err, errn, "%s:%d:%d: error: metric '%s': summary.json has no %s on the path '%s'",
                 m->loc.file, m->loc.line, m->loc.col, m->name, missing, m->path);
    return rc;
}

/* Splits a line of a ddlsim CSV (no quoting) into at most cap cells, in place. */
static size_t split(char *line, char **cells, size_t cap)
{
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line; n < cap; s++) {
        cells[n++] = s;
        s = strchr(s, ',');
        if (!s)
            break;
        *s = '\0';
    }
    return n;
}

static bool keep_row(const struct sweep_metric *m, const int *wcol, char **cells, size_t n)
{
    for (size_t k = 0; k < m->nwhere; k++) {
        const struct sweep_where *w = &m->where[k];
        const char *c = (size_t)wcol[k] < n ? cells[wcol[k]] : "";
        char *e1;
        char *e2;
        double a = strtod(c, &e1);
        double b = strtod(w->value, &e2);
        bool num = *c && *w->value && !*e1 && !*e2;
        int cmp = num ? (a < b ? -1 : a > b) : strcmp(c, w->value);
        bool ok = w->op == SWEEP_OP_EQ   ? cmp == 0
                  : w->op == SWEEP_OP_NE ? cmp != 0
                  : w->op == SWEEP_OP_LT ? cmp < 0
                  : w->op == SWEEP_OP_LE ? cmp <= 0
                  : w->op == SWEEP_OP_GT ? cmp > 0
                                         : cmp >= 0;
        if (!ok)
            return false;
    }
    return true;
}

static int column_of(char **cells, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(cells[i], name) == 0)
            return (int)i;
    }
    return -1;
}

static int from_csv(const struct sweep_metric *m, const char *dir, struct vals *vs, char *err,
                    size_t errn)
{
    char *path = xasprintf("%s/%s.csv", dir, sweep_sources[m->from]);
    FILE *f = fopen(path, "r");
    free(path);
    const char *file = sweep_sources[m->from];
    if (!f) {
        snprintf(err, errn, "%s:%d:%d: error: metric '%s': the run wrote no %s.csv", m->loc.file,
                 m->loc.line, m->loc.col, m->name, file);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    char *cells[256];
    int rc = 0;
    int col = -1;
    int wcol[16];
    if (getline(&line, &cap, f) > 0) {
        size_t n = split(line, cells, ARRAY_LEN(cells));
        col = column_of(cells, n, m->column);
        for (size_t k = 0; k < m->nwhere && k < ARRAY_LEN(wcol) && col >= 0; k++) {
            wcol[k] = column_of(cells, n, m->where[k].column);
            if (wcol[k] < 0) {
                col = -2 - (int)k;
                break;
            }
        }
    }
    if (col < 0 || m->nwhere > ARRAY_LEN(wcol)) {
        const char *bad = col <= -2 ? m->where[-2 - col].column : m->column;
        snprintf(err, errn, "%s:%d:%d: error: metric '%s': %s.csv has no column '%s'",
                 m->loc.file, m->loc.line, m->loc.col, m->name, file, bad);
        rc = -1;
    }
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        size_t n = split(line, cells, ARRAY_LEN(cells));
        if (!keep_row(m, wcol, cells, n) || (size_t)col >= n)
            continue;
        char *end;
        double x = strtod(cells[col], &end);
        if (*cells[col] && !*end)
            push(vs, x);
        else if (m->reduce == SWEEP_COUNT)
            push(vs, NAN);
    }
    free(line);
    fclose(f);
    return rc;
}

static char *format(const struct sweep_metric *m, struct vals *vs, char *err, size_t errn)
{
    if (m->reduce == SWEEP_ONE && vs->n + (vs->text != NULL) > 1) {
        snprintf(err, errn, "%s:%d:%d: error: metric '%s': %zu values where one was expected "
                            "(give reduce: mean, max, ...)",
                 m->loc.file, m->loc.line, m->loc.col, m->name, vs->n + (vs->text != NULL));
        return NULL;
    }
    if (m->reduce == SWEEP_ONE && vs->text)
        return sweep_csv_cell(vs->text);
    double x = sweep_reduce(m->reduce, vs->v, vs->n);
    return isfinite(x) ? xasprintf("%.12g", x) : xstrdup("");
}

int sweep_metrics_eval(const struct sweep *sw, const char *dir, char **values, char *err,
                       size_t errn)
{
    json_t *root = NULL;
    int rc = 0;
    for (size_t i = 0; i < sw->nmetrics; i++)
        values[i] = NULL;
    for (size_t i = 0; i < sw->nmetrics && rc == 0; i++) {
        const struct sweep_metric *m = &sw->metrics[i];
        struct vals vs = {0};
        if (m->from == 0 && !root) {
            char *path = xasprintf("%s/summary.json", dir);
            json_error_t je;
            root = json_load_file(path, 0, &je);
            free(path);
            if (!root) {
                snprintf(err, errn, "cannot read summary.json: %s", je.text);
                rc = -1;
                break;
            }
        }
        rc = m->from == 0 ? from_summary(m, root, &vs, err, errn)
                          : from_csv(m, dir, &vs, err, errn);
        if (rc == 0) {
            values[i] = format(m, &vs, err, errn);
            rc = values[i] ? 0 : -1;
        }
        free(vs.v);
        free(vs.text);
    }
    json_decref(root);
    if (rc < 0) {
        for (size_t i = 0; i < sw->nmetrics; i++) {
            free(values[i]);
            values[i] = NULL;
        }
    }
    return rc;
}
