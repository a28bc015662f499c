/* Sweep metrics: the numbers a sweep row reports, read from a finished run folder —
 * summary.json by key path (list items by index, `name`, or '*' for all) or a column of one of
 * the run's CSV files with row filters — and reduced to one value (mean, min, max, sum, count,
 * first, last, median, p90, p99, or exactly one). Values print with 12 significant digits; no
 * value (a null, no matching row) is an empty cell. */
#ifndef SIM_SIM_APP_SWEEP_METRIC_H
#define SIM_SIM_APP_SWEEP_METRIC_H

#include <stddef.h>

#include "sim/app/sweep.h"

/* Fills values[i] (malloc'd text) for every metric of the sweep from the run folder `dir`.
 * Returns 0, or -1 with a located message in err (a path or column that does not exist, a file
 * the run did not write, several values where one was expected). */
int sweep_metrics_eval(const struct sweep *sw, const char *dir, char **values, char *err,
                       size_t errn);
/* Reduces n values (sorted in place for the order statistics). Returns NaN when n == 0
 * (count: 0). */
double sweep_reduce(int reduce, double *v, size_t n);

#endif
