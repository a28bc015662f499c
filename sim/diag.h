/* Located diagnostics for user input (YAML, CLI, P4): `file:line:col: error: message`, 1-based.
 * A diag collects errors up to a cap and keeps counting past it; callers report as many errors
 * as they can find, then the command exits 2 if diag_count() > 0. Messages go to a FILE
 * (stderr by default) so tests can capture them.
 *
 * Between diag_hold and diag_release messages are held instead of printed: a message equal to
 * one already held (same location and text) is dropped and not counted, and diag_release
 * prints the rest sorted by location (files in order of their first message, then line and
 * column; messages without a location last), so each error of a file appears once, in order. */
#ifndef SIM_SIM_DIAG_H
#define SIM_SIM_DIAG_H

#include <stdarg.h>
#include <stdio.h>

struct src_loc {
    const char *file; /* not owned; lives as long as the config tree */
    int line;         /* 1-based; 0 when unknown */
    int col;          /* 1-based; 0 when unknown */
};

struct diag_msg; /* a held message (diag.c) */

struct diag {
    FILE *out;
    int errors;
    int warnings;
    int max_errors; /* errors printed before "too many errors" */
    int hold;       /* diag_hold depth; messages are held while > 0 */
    struct diag_msg *held;
    size_t nheld;
    size_t cap_held;
};

void diag_init(struct diag *d, FILE *out);
void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_warning(struct diag *d, struct src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* diag_error with its arguments as a va_list, for wrappers that also count. */
void diag_verror(struct diag *d, struct src_loc loc, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Starts holding messages (nests). */
void diag_hold(struct diag *d);
/* Ends one diag_hold; at the outermost, prints the held messages sorted and frees them. The
 * locations' file names must still be alive. */
void diag_release(struct diag *d);

static inline int diag_count(const struct diag *d)
{
    return d->errors;
}

#endif
