#include "sim/diag.h"

#include <stdarg.h>

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
}

void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
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
