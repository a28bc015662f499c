#include "sim/diag.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

/* Messages held beyond this many are counted, not kept. */
#define DIAG_MAX_HELD 10000

struct diag_msg {
    struct src_loc loc;
    bool error;
    size_t seq;      /* order of arrival */
    size_t file_rank; /* order of the file's first message; set at release */
    char *text;
};

static void emit_text(FILE *o, struct src_loc loc, const char *kind, const char *text)
{
    if (loc.file && loc.line > 0)
        fprintf(o, "%s:%d:%d: %s: %s\n", loc.file, loc.line, loc.col > 0 ? loc.col : 1, kind,
                text);
    else if (loc.file)
        fprintf(o, "%s: %s: %s\n", loc.file, kind, text);
    else
        fprintf(o, "ddlsim: %s: %s\n", kind, text);
}

static FILE *diag_out(const struct diag *d)
{
    return d->out ? d->out : stderr;
}

void diag_init(struct diag *d, FILE *out)
{
    memset(d, 0, sizeof(*d));
    d->out = out;
    d->max_errors = 50;
}

static bool same_loc(struct src_loc a, struct src_loc b)
{
    if (a.line != b.line || a.col != b.col)
        return false;
    if (a.file == b.file)
        return true;
    return a.file && b.file && strcmp(a.file, b.file) == 0;
}

/* Holds one message; false when an equal one is already held. */
static bool hold_msg(struct diag *d, struct src_loc loc, bool error, char *text)
{
    for (size_t i = 0; i < d->nheld; i++) {
        const struct diag_msg *m = &d->held[i];
        if (m->error == error && same_loc(m->loc, loc) && strcmp(m->text, text) == 0) {
            free(text);
            return false;
        }
    }
    if (d->nheld == DIAG_MAX_HELD) {
        free(text);
        return true;
    }
    if (d->nheld == d->cap_held) {
        d->cap_held = d->cap_held ? 2 * d->cap_held : 16;
        d->held = xrealloc(d->held, d->cap_held * sizeof(*d->held));
    }
    d->held[d->nheld] = (struct diag_msg){loc, error, d->nheld, 0, text};
    d->nheld++;
    return true;
}

static char *format(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    return s;
}

static void report(struct diag *d, struct src_loc loc, bool error, const char *fmt, va_list ap)
{
    char *text = format(fmt, ap);
    if (d->hold > 0 && !hold_msg(d, loc, error, text))
        return;
    if (error)
        d->errors++;
    else
        d->warnings++;
    if (d->hold > 0)
        return;
    if (error && d->errors > d->max_errors) {
        if (d->errors == d->max_errors + 1)
            fprintf(diag_out(d), "ddlsim: too many errors, stopping here\n");
    } else {
        emit_text(diag_out(d), loc, error ? "error" : "warning", text);
    }
    free(text);
}

void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, true, fmt, ap);
    va_end(ap);
}

void diag_verror(struct diag *d, struct src_loc loc, const char *fmt, va_list ap)
{
    report(d, loc, true, fmt, ap);
}

void diag_warning(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, false, fmt, ap);
    va_end(ap);
}

void diag_hold(struct diag *d)
{
    d->hold++;
}

static int msg_cmp(const void *pa, const void *pb)
{
    const struct diag_msg *a = pa;
    const struct diag_msg *b = pb;
    bool la = a->loc.file && a->loc.line > 0;
    bool lb = b->loc.file && b->loc.line > 0;
    if (la != lb)
        return la ? -1 : 1;
    if (la) {
        if (a->file_rank != b->file_rank)
            return a->file_rank < b->file_rank ? -1 : 1;
        if (a->loc.line != b->loc.line)
            return a->loc.line < b->loc.line ? -1 : 1;
        if (a->loc.col != b->loc.col)
            return a->loc.col < b->loc.col ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void diag_release(struct diag *d)
{
    SIM_ASSERT(d->hold > 0);
    if (--d->hold > 0)
        return;
    for (size_t i = 0; i < d->nheld; i++) {
        struct diag_msg *m = &d->held[i];
        m->file_rank = i;
        for (size_t k = 0; k < i; k++) {
            const char *f = d->held[k].loc.file;
            if (f == m->loc.file || (f && m->loc.file && strcmp(f, m->loc.file) == 0)) {
                m->file_rank = d->held[k].file_rank;
                break;
            }
        }
    }
    if (d->nheld > 1)
        qsort(d->held, d->nheld, sizeof(*d->held), msg_cmp);
    int shown = 0;
    for (size_t i = 0; i < d->nheld; i++) {
        struct diag_msg *m = &d->held[i];
        if (m->error && ++shown > d->max_errors) {
            if (shown == d->max_errors + 1)
                fprintf(diag_out(d), "ddlsim: too many errors, stopping here\n");
        } else {
            emit_text(diag_out(d), m->loc, m->error ? "error" : "warning", m->text);
        }
        free(m->text);
    }
    free(d->held);
    d->held = NULL;
    d->nheld = d->cap_held = 0;
}
