#include "sim/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Out of memory is a runtime failure, not a crash: exit 1 with a message (README: exit codes).
 * The resource estimate (sim/app/estimate.c) refuses most such inputs before they are built. */
static _Noreturn void oom(size_t n)
{
    fprintf(stderr, "ddlsim: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *xcalloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p)
        oom(count * n);
    return p;
}

void *xaligned(size_t align, size_t n)
{
    size_t size = (n + align - 1) / align * align;
    void *p = aligned_alloc(align, size ? size : align);
    if (!p)
        oom(n);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, again);
    va_end(again);
    SIM_ASSERT(n >= 0);
    char *s = xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void sim_assert_fail(const char *file, int line, const char *expr)
{
    fprintf(stderr, "ddlsim: internal error at %s:%d: assertion '%s' failed\n", file, line, expr);
    abort();
}

uint64_t hash_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
