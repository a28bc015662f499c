/* Tests of sampled flows: a flow's samples read back from the spool into one array. */
#ifndef SIM_TESTS_TESTSPOOL_H
#define SIM_TESTS_TESTSPOOL_H

#include <stdlib.h>
#include <string.h>

#include "sim/spool.h"
#include "sim/util.h"

/* The stream's records in order, in a new array (free it); *n is their number. */
static inline void *spool_collect(const struct spool_stream *s, size_t *n)
{
    unsigned char *all = xmalloc(s->count ? s->count * s->rec : 1);
    struct spool_reader rd;
    spool_reader_init(&rd, s);
    const void *rec;
    *n = 0;
    while ((rec = spool_reader_next(&rd)) != NULL)
        memcpy(all + (*n)++ * s->rec, rec, s->rec);
    spool_reader_fini(&rd);
    return all;
}

#endif
