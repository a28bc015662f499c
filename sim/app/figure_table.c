/* CSV tables (figure_table.h). */
#include "sim/app/figure_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/sweep.h"
#include "sim/cfg.h"
#include "sim/util.h"

/* Splits one CSV line (quoted cells may hold commas and doubled quotes) into new cells. */
static size_t split(const char *line, char ***cells)
{
    size_t n = 0;
    *cells = NULL;
    const char *p = line;
    for (;;) {
        struct cfg_buf b = {0};
        cfg_buf_putc(&b, '\0');
        b.len = 0;
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                cfg_buf_putc(&b, *p);
            }
            if (*p == '"')
                p++;
        }
        for (; *p && *p != ',' && *p != '\n' && *p != '\r'; p++)
            cfg_buf_putc(&b, *p);
        *cells = xrealloc(*cells, (n + 1) * sizeof(**cells));
        (*cells)[n++] = b.s;
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

int table_read(const char *path, struct table *t)
{
    memset(t, 0, sizeof(*t));
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    if (getline(&line, &cap, f) > 0) {
        t->ncols = split(line, &t->head);
        while (getline(&line, &cap, f) > 0) {
            char **cells;
            size_t n = split(line, &cells);
            t->rows = xrealloc(t->rows, (t->nrows + 1) * sizeof(*t->rows));
            t->rows[t->nrows++] = cells;
            if (n != t->ncols) {
                for (size_t i = n; i < t->ncols; i++) {
                    cells = xrealloc(cells, (i + 1) * sizeof(*cells));
                    cells[i] = xstrdup("");
                }
                t->rows[t->nrows - 1] = cells;
                for (size_t i = t->ncols; i < n; i++)
                    free(cells[i]);
                errno = EINVAL;
                rc = -1;
            }
        }
    }
    free(line);
    fclose(f);
    return rc;
}

int table_write(const struct table *t, FILE *f)
{
    for (size_t r = 0; r <= t->nrows; r++) {
        char **cells = r == 0 ? t->head : t->rows[r - 1];
        for (size_t c = 0; c < t->ncols; c++) {
            char *q = sweep_csv_cell(cells[c]);
            fprintf(f, "%s%s", c ? "," : "", q);
            free(q);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

void table_free(struct table *t)
{
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++)
            free(t->rows[r][c]);
        free(t->rows[r]);
    }
    for (size_t c = 0; c < t->ncols; c++)
        free(t->head[c]);
    free(t->head);
    free(t->rows);
    memset(t, 0, sizeof(*t));
}

int table_col(const struct table *t, const char *name)
{
    for (size_t c = 0; c < t->ncols; c++) {
        if (strcmp(t->head[c], name) == 0)
            return (int)c;
    }
    return -1;
}

void table_add_col(struct table *t, const char *name, char **cells)
{
    t->head = xrealloc(t->head, (t->ncols + 1) * sizeof(*t->head));
    t->head[t->ncols] = xstrdup(name);
    for (size_t r = 0; r < t->nrows; r++) {
        t->rows[r] = xrealloc(t->rows[r], (t->ncols + 1) * sizeof(*t->rows[r]));
        t->rows[r][t->ncols] = cells[r];
    }
    t->ncols++;
}

void table_drop_col(struct table *t, const char *name)
{
    int c = table_col(t, name);
    if (c < 0)
        return;
    free(t->head[c]);
    memmove(&t->head[c], &t->head[c + 1], (t->ncols - (size_t)c - 1) * sizeof(*t->head));
    for (size_t r = 0; r < t->nrows; r++) {
        free(t->rows[r][c]);
        memmove(&t->rows[r][c], &t->rows[r][c + 1],
                (t->ncols - (size_t)c - 1) * sizeof(*t->rows[r]));
    }
    t->ncols--;
}

/* The row of `out` whose key cells equal row r's of t, appended if new. */
static size_t pivot_row(struct table *out, const struct table *t, size_t r, const int *kc,
                        size_t nk)
{
    for (size_t o = 0; o < out->nrows; o++) {
        size_t k = 0;
        while (k < nk && strcmp(out->rows[o][k], t->rows[r][kc[k]]) == 0)
            k++;
        if (k == nk)
            return o;
    }
    out->rows = xrealloc(out->rows, (out->nrows + 1) * sizeof(*out->rows));
    char **row = xcalloc(out->ncols, sizeof(*row));
    for (size_t k = 0; k < nk; k++)
        row[k] = xstrdup(t->rows[r][kc[k]]);
    for (size_t c = nk; c < out->ncols; c++)
        row[c] = xstrdup("");
    out->rows[out->nrows] = row;
    return out->nrows++;
}

int table_pivot(struct table *t, const char *by, const char *const *keys, size_t nk,
                const char *const *values, size_t nv, char *err, size_t errlen)
{
    int bc = table_col(t, by);
    int *kc = xcalloc(nk + 1, sizeof(*kc));
    int *vc = xcalloc(nv + 1, sizeof(*vc));
    const char *missing = bc < 0 ? by : NULL;
    for (size_t k = 0; k < nk && !missing; k++)
        missing = (kc[k] = table_col(t, keys[k])) < 0 ? keys[k] : NULL;
    for (size_t v = 0; v < nv && !missing; v++)
        missing = (vc[v] = table_col(t, values[v])) < 0 ? values[v] : NULL;
    if (missing) {
        snprintf(err, errlen, "pivot: column '%s' is not in the results", missing);
        free(kc);
        free(vc);
        return -1;
    }
    /* the values of `by`, in order of first appearance */
    const char **bv = xcalloc(t->nrows + 1, sizeof(*bv));
    size_t nb = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t i = 0;
        while (i < nb && strcmp(bv[i], t->rows[r][bc]) != 0)
            i++;
        if (i == nb)
            bv[nb++] = t->rows[r][bc];
    }
    struct table out = {0};
    out.ncols = nk + nv * nb;
    out.head = xcalloc(out.ncols, sizeof(*out.head));
    for (size_t k = 0; k < nk; k++)
        out.head[k] = xstrdup(keys[k]);
    for (size_t v = 0; v < nv; v++) {
        for (size_t b = 0; b < nb; b++)
            out.head[nk + v * nb + b] = xasprintf("%s_%s", values[v], bv[b]);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        size_t o = pivot_row(&out, t, r, kc, nk);
        size_t b = 0;
        while (strcmp(bv[b], t->rows[r][bc]) != 0)
            b++;
        for (size_t v = 0; v < nv; v++) {
            char **cell = &out.rows[o][nk + v * nb + b];
            free(*cell);
            *cell = xstrdup(t->rows[r][vc[v]]);
        }
    }
    free(bv);
    free(kc);
    free(vc);
    table_free(t);
    *t = out;
    return 0;
}
