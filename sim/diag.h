/* Located diagnostics for user input (YAML, CLI, P4): `file:line:col: error: message`, 1-based.
 * A diag collects errors up to a cap and keeps counting past it; callers report as many errors
 * as they can find, then the command exits 2 if diag_count() > 0. Messages go to a FILE
 * (stderr by default) so tests can capture them. */
#ifndef SIM_SIM_DIAG_H
#define SIM_SIM_DIAG_H

#include <stdio.h>

struct src_loc {
    const char *file; /* not owned; lives as long as the config tree */
    int line;         /* 1-based; 0 when unknown */
    int col;          /* 1-based; 0 when unknown */
};

struct diag {
    FILE *out;
    int errors;
    int warnings;
    int max_errors; /* errors printed before "too many errors" */
    /* the last error, so that the same error at the same place (a value shared by several
     * generated objects, e.g. one link spec for every link of a topology) is reported once */
    struct src_loc last_loc;
    char last[256];
};

void diag_init(struct diag *d, FILE *out);
void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int diag_count(const struct diag *d)
{
    return d->errors;
}

#endif
