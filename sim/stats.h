/* Streaming statistics with confidence intervals by batch means, in constant memory: samples
 * are averaged in batches; when STATS_MAX_BATCHES batches are full, neighbours are merged and the
 * batch size doubles (so memory does not grow with simulated time). The confidence interval uses
 * Student's t over the batch means (GSL), the standard remedy for autocorrelated samples such as
 * successive queueing delays. */
#ifndef SIM_SIM_STATS_H
#define SIM_SIM_STATS_H

#include <stdint.h>

#define STATS_MAX_BATCHES 64

struct stats {
    uint64_t n;
    double sum;
    double sumsq;
    double min;
    double max;
    uint64_t batch_size; /* samples per batch */
    double cur_sum;      /* batch being filled */
    uint64_t cur_n;
    uint32_t nbatches;
    double *batch_mean; /* [STATS_MAX_BATCHES], allocated when the first batch is complete, so
                         * a flow or message with few samples carries 80 bytes, not 600 */
};

void stats_init(struct stats *s, uint64_t first_batch_size);
/* Closes the batch being filled (stats_add, when it holds batch_size samples). */
void stats_batch_full(struct stats *s);
/* Inline: receivers add two samples per packet. */
static inline void stats_add(struct stats *s, double x)
{
    s->n++;
    s->sum += x;
    s->sumsq += x * x;
    if (x < s->min)
        s->min = x;
    if (x > s->max)
        s->max = x;
    s->cur_sum += x;
    if (++s->cur_n >= s->batch_size)
        stats_batch_full(s);
}
/* Releases the batch means (stats_init may follow). */
void stats_fini(struct stats *s);
double stats_mean(const struct stats *s);
/* Half-width of the two-sided confidence interval (level, e.g. 0.99) of the mean from the
 * completed batches; NaN with fewer than 2 batches. */
double stats_ci_halfwidth(const struct stats *s, double level);

#endif
