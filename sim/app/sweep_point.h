/* One sweep point, run in the calling process, and the record of its outcome.
 *
 * A record is a short text (sweep_rec_format) that a worker hands to the coordinator, which
 * stores it as OUT/points/NNNNNNNN.rec (written to a temporary name, fsynced, renamed): its CSV
 * row, status, exit code, configuration hash, wall time, and the input files the point read
 * with their digests (checked again when a sweep resumes). */
#ifndef SIM_SIM_APP_SWEEP_POINT_H
#define SIM_SIM_APP_SWEEP_POINT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/app/sweep.h"

struct sweep_rec {
    uint64_t id;
    int exit_code; /* 0 ok, 1 runtime failure, 2 bad input, 128+N killed by signal N */
    double wall_s;
    char *row;    /* CSV row, no newline */
    char *error;  /* the failure's message ("" when ok) */
    char *inputs; /* lines "role sha256 path" */
};

struct p4_cache;

/* Runs point `id` (P4 programs from p4_cache, which may be NULL): loads its scenario, runs it into a folder under `out` (kept in
 * out/points/NNNNNNNN when `keep`), reads the metrics, and fills rec. Messages the point prints
 * go to out/.work/NNNNNNNN.err and the first error among them into the row. */
void sweep_point_run(const struct sweep *sw, uint64_t id, const char *out, bool keep,
                     struct p4_cache *p4_cache, struct sweep_rec *rec);
/* The record of a point whose worker died (signal, or exit without a record). */
void sweep_point_crashed(const struct sweep *sw, uint64_t id, const char *out, int exit_code,
                         struct sweep_rec *rec);
/* The CSV row of a point; values is NULL or sweep.nmetrics cells. Caller frees. */
char *sweep_row(const struct sweep *sw, const struct sweep_point *p, const char *seed,
                char *const *values, int exit_code, const char *hash, const char *error);

char *sweep_rec_format(const struct sweep_rec *r);
/* Parses a record; returns 0, or -1 when the text is not a complete record. */
int sweep_rec_parse(const char *text, struct sweep_rec *r);
void sweep_rec_free(struct sweep_rec *r);
/* out/points/NNNNNNNN.rec, out/.work/NNNNNNNN.err, ... Caller frees. */
char *sweep_point_path(const char *out, const char *sub, uint64_t id, const char *suffix);

#endif
