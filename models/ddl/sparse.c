/* The sparse workload generator (sparse.h): Zipf lookups into embedding tables, the hot set by
 * sampled frequency, and each worker's distinct cold rows per iteration. */
#include "models/ddl/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

#define SP(f) offsetof(struct sparse_cfg, f)
const struct param_def sparse_params[] = {
    {"tables", PARAM_INT, SP(tables), "4", "1", "64", NULL, "embedding tables"},
    {"keys", PARAM_INT, SP(keys), "1000000", "1", "10000000", NULL, "rows per table"},
    {"dim", PARAM_INT, SP(dim), "32", "8", "64", NULL,
     "floats per row (a packet of 64 values carries 64/dim rows)"},
    {"lookups", PARAM_INT, SP(lookups), "20000", "1", "10000000", NULL,
     "keys each worker looks up per table and iteration"},
    {"skew", PARAM_DOUBLE, SP(skew), "1.0", "0", "3", NULL,
     "Zipf exponent s of key popularity: rank r has weight 1/r^s (0 = uniform)"},
    {"sample", PARAM_INT, SP(sample), "100000", "1", "10000000", NULL,
     "lookups drawn before training to rank keys by frequency for the hot set"},
    {"layer", PARAM_INT, SP(layer), "0", "0", "65535", NULL,
     "the model's layer that is the embedding (its bytes are replaced by the sparse rows); the "
     "other layers are the dense part, aggregated by the parameter server"},
    {"hot_slots", PARAM_INT, SP(hot_slots), "-1", "-1", "65535", NULL,
     "switch aggregator slots for hot rows, 64/dim rows each (-1: every slot of the switch's "
     "pool from inc.slot_base, i.e. as many as its registers hold; 0: no hot set, PS only)"},
};
const size_t sparse_nparams = ARRAY_LEN(sparse_params);

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_count_desc(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b; /* {count, key} pairs */
    if (x[0] != y[0])
        return x[0] < y[0] ? 1 : -1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

void sparse_init(struct sparse *s, const struct sparse_cfg *cfg, uint64_t capacity, gsl_rng *rng)
{
    memset(s, 0, sizeof(*s));
    s->cfg = *cfg;
    uint64_t K = (uint64_t)cfg->keys;
    double *w = xmalloc(K * sizeof(*w));
    for (uint64_t r = 0; r < K; r++)
        w[r] = pow((double)(r + 1), -cfg->skew);
    s->zipf = gsl_ran_discrete_preproc(K, w);
    free(w);
    s->nkeys = (uint64_t)cfg->tables * K;
    s->hot = xcalloc(s->nkeys / 8 + 1, 1);
    s->draws = xmalloc((size_t)cfg->lookups * sizeof(*s->draws));
    /* sampled frequencies of the keys that occur */
    uint64_t n = (uint64_t)cfg->sample;
    uint64_t *keys = xmalloc(n * sizeof(*keys));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t = gsl_rng_uniform_int(rng, (unsigned long)cfg->tables);
        keys[i] = t * K + (uint64_t)gsl_ran_discrete(rng, s->zipf);
    }
    qsort(keys, n, sizeof(*keys), cmp_u64);
    uint64_t *pairs = xmalloc(2 * n * sizeof(*pairs));
    uint64_t np = 0;
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i;
        while (j < n && keys[j] == keys[i])
            j++;
        pairs[2 * np] = j - i;
        pairs[2 * np + 1] = keys[i];
        np++;
        i = j;
    }
    qsort(pairs, np, 2 * sizeof(*pairs), by_count_desc);
    s->nhot = MIN(np, capacity);
    s->hot_keys = xcalloc(s->nhot ? s->nhot : 1, sizeof(*s->hot_keys));
    uint64_t covered = 0;
    for (uint64_t i = 0; i < s->nhot; i++) {
        s->hot_keys[i] = pairs[2 * i + 1];
        s->hot[s->hot_keys[i] / 8] |= (uint8_t)(1u << (s->hot_keys[i] % 8));
        covered += pairs[2 * i];
    }
    s->hot_share = (double)covered / (double)n;
    free(pairs);
    free(keys);
}

void sparse_fini(struct sparse *s)
{
    if (s->zipf)
        gsl_ran_discrete_free(s->zipf);
    free(s->hot);
    free(s->hot_keys);
    free(s->draws);
    memset(s, 0, sizeof(*s));
}

uint64_t sparse_cold_rows(struct sparse *s, gsl_rng *rng)
{
    uint64_t K = (uint64_t)s->cfg.keys;
    uint64_t n = (uint64_t)s->cfg.lookups;
    uint64_t cold = 0;
    for (int64_t t = 0; t < s->cfg.tables; t++) {
        for (uint64_t i = 0; i < n; i++)
            s->draws[i] = (uint64_t)t * K + (uint64_t)gsl_ran_discrete(rng, s->zipf);
        qsort(s->draws, n, sizeof(*s->draws), cmp_u64);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t k = s->draws[i];
            if ((i == 0 || k != s->draws[i - 1]) && !((s->hot[k / 8] >> (k % 8)) & 1))
                cold++;
        }
    }
    return cold;
}
