#include "sim/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

static void emit(struct diag *d, struct src_loc loc, const char *kind, const char *fmt,
                 va_list ap)
{
    FILE *o = d->out ? d->out : stderr;
    if (loc.file && loc.line > 0)
        fprintf(o, "%s:%d:%d: %s: ", loc.file, loc.line, loc.col > 0 ? loc.col : 1, kind);
    else if (loc.file)
        fprintf(o, "%s: %s: ", loc.file, kind);
    else
        fprintf(o, "ddlsim: %s: ", kind);
    vfprintf(o, fmt, ap);
    fputc('\n', o);
}

void diag_init(struct diag *d, FILE *out)
{
    d->out = out;
    d->errors = 0;
    d->warnings = 0;
    d->max_errors = 50;
    d->last_loc = (struct src_loc){0};
    d->last[0] = '\0';
}

/* Remembers this error; true when it repeats the previous one (same place, same text). */
static bool repeats(struct diag *d, struct src_loc loc, const char *fmt, va_list ap)
{
    char msg[sizeof(d->last)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    bool same = d->errors > 0 && loc.file == d->last_loc.file && loc.line == d->last_loc.line &&
                loc.col == d->last_loc.col && strcmp(msg, d->last) == 0;
    d->last_loc = loc;
    memcpy(d->last, msg, sizeof(msg));
    return same;
}

void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
    va_list rp;
    va_start(rp, fmt);
    bool same = repeats(d, loc, fmt, rp);
    va_end(rp);
    if (same)
        return;
    d->errors++;
    if (d->errors > d->max_errors) {
        if (d->errors == d->max_errors + 1)
            fprintf(d->out ? d->out : stderr, "ddlsim: too many errors, stopping here\n");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    emit(d, loc, "error", fmt, ap);
    va_end(ap);
}

void diag_warning(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
    d->warnings++;
    va_list ap;
    va_start(ap, fmt);
    emit(d, loc, "warning", fmt, ap);
    va_end(ap);
}
