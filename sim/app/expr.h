/* Arithmetic over the columns of a result row, for the derived columns of figures (an analytic
 * line, a ratio): numbers, names, + - * / and parentheses, unary minus. A number or a cell may
 * carry a unit, converted to SI base units: time to seconds ("1us"), rate to bits/s ("10Gbps"),
 * size to bytes ("1MB", "64KiB"). */
#ifndef SIM_SIM_APP_EXPR_H
#define SIM_SIM_APP_EXPR_H

#include <stddef.h>

/* Looks up a name; returns its text (a cell) or NULL when unknown. */
typedef const char *expr_lookup_fn(void *ud, const char *name);

/* Evaluates `s`. Returns 0 with the value in *out, or -1 with a message in err (syntax, unknown
 * name, a cell that is not a number, division by zero). */
int expr_eval(const char *s, expr_lookup_fn *lookup, void *ud, double *out, char *err,
              size_t errn);
/* A number with an optional unit, as above. Returns 0 or -1. */
int expr_number(const char *s, double *out);

#endif
