/* Libra's state (libra.c: the architecture; libra_hot.c: the hot set in the switch). */
#ifndef SIM_MODELS_DDL_LIBRA_H
#define SIM_MODELS_DDL_LIBRA_H

#include "models/ddl/inc.h"
#include "models/ddl/sparse.h"

struct libra {
    struct sparse sp;
    struct inc inc;        /* the hot rows' slot engine (inc.W = hot key blocks) */
    bool have_hot;
    gsl_rng **rng;         /* [workers]: lookups */
    uint64_t *cold_bytes;  /* [workers]: this iteration's cold push (and pull) */
    uint32_t *emb_left;    /* [workers]: parts of the embedding still to come back */
    uint64_t *push_bytes;  /* [L]: bytes pushed to the server this iteration */
    uint64_t cold_rows;    /* totals over workers and iterations */
    uint64_t hot_rows;
    struct stats agg_time; /* embedding: gradient ready -> parameters ready, s */
};

/* Decodes `sparse:`, chooses the hot set for the switch's register memory and sets up the hot
 * path (slots, hot_keys entries). Returns the number of errors. */
int libra_setup(struct ddl_job *job, struct libra *lb, struct host **wh, struct host *ps,
                struct diag *d);
void libra_teardown(struct ddl_job *job, struct libra *lb);

#endif
