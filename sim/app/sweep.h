/* Sweeps: one base scenario run at many points of a parameter space, each point an
 * independent run, merged into one CSV row per point.
 *
 * A sweep file names the base scenario (a path, or the scenario inline), assignments applied to
 * every point (`set`), grid dimensions (`axes`: a `set` path with `values`, a `zip` of such lists
 * advanced together, or explicit `points`), seeds (`seeds` list or `repeat` count) and the
 * `metrics` each row reports (from summary.json or a CSV the run writes). Points are numbered in
 * grid order, first axis outermost, seeds innermost. docs/sweeps.md describes the format.
 *
 * Running (sweep_run.c): each finished point is recorded atomically in OUT/points/, so a sweep
 * killed at any moment resumes without recomputing or losing a finished point; OUT/results.csv
 * (rows in point order, no wall-clock data) is byte-identical whatever the number of worker
 * processes or MPI ranks, and OUT/timing.csv holds each point's wall time. */
#ifndef SIM_SIM_APP_SWEEP_H
#define SIM_SIM_APP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/app/scenario.h"
#include "sim/arena.h"
#include "sim/cfg.h"
#include "sim/diag.h"
#include "sim/sha256.h"

/* One list of values along a dimension, set at `path` (NULL: a label column only). */
struct sweep_list {
    const char *path;
    const char *column; /* CSV column name; NULL when the values are not all scalars */
    const struct cfg_node *values; /* CFG_SEQ */
    struct src_loc loc;
};

/* A grid dimension: one list, several zipped lists of equal length, or explicit points. */
struct sweep_dim {
    size_t n; /* positions along it */
    struct sweep_list *lists;
    size_t nlists;
    const struct cfg_node *points; /* CFG_SEQ of maps path -> value, or NULL */
    size_t col0;                   /* its first column in sweep.columns */
    size_t ncols;
};

enum sweep_reduce {
    SWEEP_ONE, SWEEP_MEAN, SWEEP_MIN, SWEEP_MAX, SWEEP_SUM, SWEEP_COUNT, SWEEP_FIRST,
    SWEEP_LAST, SWEEP_MEDIAN, SWEEP_P90, SWEEP_P99,
};

struct sweep_where {
    const char *column;
    int op; /* SWEEP_OP_* */
    const char *value;
};
enum { SWEEP_OP_EQ, SWEEP_OP_NE, SWEEP_OP_LT, SWEEP_OP_LE, SWEEP_OP_GT, SWEEP_OP_GE };

struct sweep_metric {
    const char *name;
    int from;        /* index into sweep_sources: 0 = summary.json, else a CSV file */
    const char *path;   /* summary: a.b.c (list items by index, name or '*') */
    const char *column; /* CSV: the column */
    struct sweep_where *where;
    size_t nwhere;
    int reduce; /* enum sweep_reduce */
    struct src_loc loc;
};

/* "summary", "flows", "queues", "tensors", "iterations", "bursts", "messages"; NULL-ended. */
extern const char *const sweep_sources[];

struct sweep {
    struct arena mem;    /* this struct, its tables and strings (not `columns`), freed together */
    struct cfg_doc *doc; /* the sweep file (owns every node below) */
    char *file;          /* its path */
    const char *name;
    char *scenario_path;                  /* base scenario file, or NULL when inline */
    const struct cfg_node *scenario_node; /* inline base scenario, or NULL */
    const struct cfg_node *set;           /* map path -> value for every point, or NULL */
    struct sweep_dim *dims;
    size_t ndims;
    uint64_t *seeds; /* NULL: every point uses the scenario's seed */
    size_t nseeds;
    struct sweep_metric *metrics;
    size_t nmetrics;
    char **columns; /* axis columns, in order */
    size_t ncolumns;
    uint64_t ncombos; /* grid positions */
    uint64_t npoints; /* ncombos x max(1, nseeds) */
    bool keep;        /* keep each point's output folder */
    char fingerprint[SHA256_HEX_LEN]; /* of the sweep and its base scenario, for resume */
};

/* A point: the assignments that make its scenario and its column cells. */
struct sweep_point {
    uint64_t id;
    struct scenario_assign *assigns;
    size_t nassigns;
    bool seed_given;
    uint64_t seed;
    const char **cells; /* sweep.ncolumns scalar texts ("" when not set) */
};

/* Loads a sweep file. `quick` (or NULL) replaces top-level keys of the sweep (figures' --quick).
 * Reports errors (located) and returns NULL. */
struct sweep *sweep_load(const char *path, const struct cfg_node *quick, struct diag *d);
/* The same from a node of another document (a figure file's inline sweep); `file` locates
 * relative paths. */
struct sweep *sweep_load_node(const char *file, const struct cfg_node *root,
                              const struct cfg_node *quick, struct diag *d);
void sweep_free(struct sweep *sw);

void sweep_point_get(const struct sweep *sw, uint64_t id, struct sweep_point *p);
void sweep_point_free(struct sweep_point *p);
struct p4_cache;
/* Loads the point's scenario (errors through d), its P4 programs through p4_cache (may be
 * NULL). */
struct scenario *sweep_point_scenario(const struct sweep *sw, const struct sweep_point *p,
                                      struct p4_cache *p4_cache, struct diag *d);

/* The CSV header line (with '\n'). Caller frees. */
char *sweep_csv_header(const struct sweep *sw);
/* A CSV cell: quoted when it holds a comma, quote or line break. Caller frees. */
char *sweep_csv_cell(const char *s);

#endif
