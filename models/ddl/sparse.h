/* A sparse workload (recommendation models: embedding tables): `tables` tables of `keys` rows
 * of `dim` floats; each iteration every worker looks up `lookups` keys per table, drawn from a
 * Zipf law of exponent `skew` (rank r has weight 1/r^skew; the same ranks are popular in every
 * table), and its embedding gradient is one row per distinct key it touched. The hot set is the
 * most frequent keys of `sample` draws made before training, at most `capacity` keys (what the
 * switch's registers hold). */
#ifndef SIM_MODELS_DDL_SPARSE_H
#define SIM_MODELS_DDL_SPARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/param.h"

struct sparse_cfg {
    int64_t tables;
    int64_t keys;    /* rows per table */
    int64_t dim;     /* floats per row */
    int64_t lookups; /* per worker, table and iteration */
    double skew;
    int64_t sample;  /* draws that rank the keys for the hot set */
    int64_t layer;   /* the model's layer that is the embedding */
    int64_t hot_slots; /* switch slots for hot rows (-1: every slot of the pool from slot_base) */
};
extern const struct param_def sparse_params[];
extern const size_t sparse_nparams;

struct sparse {
    struct sparse_cfg cfg;
    gsl_ran_discrete_t *zipf; /* over ranks 0..keys-1 */
    uint64_t nkeys;           /* tables x keys */
    uint8_t *hot;             /* [nkeys / 8 + 1] bit array: key is hot */
    uint64_t *hot_keys;       /* [nhot] by decreasing sampled frequency */
    uint64_t nhot;
    double hot_share;         /* fraction of the sampled lookups that hit the hot set */
    uint64_t *draws;          /* scratch: one worker's lookups of one iteration */
};

/* Builds the Zipf table and chooses up to `capacity` hot keys from cfg.sample draws of rng. */
void sparse_init(struct sparse *s, const struct sparse_cfg *cfg, uint64_t capacity, gsl_rng *rng);
void sparse_fini(struct sparse *s);
/* One worker's lookups of an iteration: the distinct cold keys it touched (hot ones are sent
 * in full every iteration). */
uint64_t sparse_cold_rows(struct sparse *s, gsl_rng *rng);

#endif
