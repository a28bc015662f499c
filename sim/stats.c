#include "sim/stats.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "sim/util.h"

void stats_init(struct stats *s, uint64_t first_batch_size)
{
    memset(s, 0, sizeof(*s));
    s->batch_size = first_batch_size ? first_batch_size : 16;
    s->min = INFINITY;
    s->max = -INFINITY;
}

static void merge_batches(struct stats *s)
{
    uint32_t half = s->nbatches / 2;
    for (uint32_t i = 0; i < half; i++)
        s->batch_mean[i] = 0.5 * (s->batch_mean[2 * i] + s->batch_mean[2 * i + 1]);
    s->nbatches = half;
    s->batch_size *= 2;
}

void stats_batch_full(struct stats *s)
{
    if (s->nbatches == STATS_MAX_BATCHES)
        merge_batches(s);
    /* After a merge the batch being filled may be half of the new size: keep filling it. */
    if (s->cur_n < s->batch_size)
        return;
    if (!s->batch_mean)
        s->batch_mean = xcalloc(STATS_MAX_BATCHES, sizeof(*s->batch_mean));
    s->batch_mean[s->nbatches++] = s->cur_sum / (double)s->cur_n;
    s->cur_sum = 0;
    s->cur_n = 0;
}

void stats_fini(struct stats *s)
{
    free(s->batch_mean);
    s->batch_mean = NULL;
}

double stats_mean(const struct stats *s)
{
    return s->n ? s->sum / (double)s->n : NAN;
}

double stats_ci_halfwidth(const struct stats *s, double level)
{
    if (s->nbatches < 2)
        return NAN;
    double sd = gsl_stats_sd(s->batch_mean, 1, s->nbatches);
    double t = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(s->nbatches - 1));
    return t * sd / sqrt((double)s->nbatches);
}
