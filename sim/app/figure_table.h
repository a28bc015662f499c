/* A CSV table in memory (header and rows of text cells), read and written with RFC 4180
 * quoting, for the figure pipeline: sweep results, derived columns, references. */
#ifndef SIM_SIM_APP_FIGURE_TABLE_H
#define SIM_SIM_APP_FIGURE_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct table {
    char **head;
    size_t ncols;
    char ***rows; /* rows[r][c] */
    size_t nrows;
};

/* Reads a CSV file; returns 0, or -1 (errno set, or EINVAL for a ragged row). */
int table_read(const char *path, struct table *t);
int table_write(const struct table *t, FILE *f);
void table_free(struct table *t);
/* The index of a column, or -1. */
int table_col(const struct table *t, const char *name);
/* Appends a column; cells are taken over (malloc'd), one per row. */
void table_add_col(struct table *t, const char *name, char **cells);
/* Drops a column if present. */
void table_drop_col(struct table *t, const char *name);
/* Pivots t in place: one row per distinct combination of the key columns (in order of first
 * appearance) holding the keys and, for each value column v and each distinct value b of column
 * `by`, a column "v_b" (empty where no row had that combination). Returns 0, or -1 with a
 * message in err when a column is missing. */
int table_pivot(struct table *t, const char *by, const char *const *keys, size_t nk,
                const char *const *values, size_t nv, char *err, size_t errlen);

#endif
