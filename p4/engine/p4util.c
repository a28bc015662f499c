/* Allocation, diagnostics, fixed-width multiword arithmetic, a digest and mkdir -p for the P4
 * engine. */
#include "p4/engine/p4util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A runtime failure, not a crash: exit 1 with a message (exit codes: README). */
static _Noreturn void p4util_out_of_memory(size_t n)
{
    fprintf(stderr, "ddlsim: error: out of memory (allocating %zu bytes)\n", n);
    exit(1);
}

void *p4util_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        p4util_out_of_memory(n);
    return p;
}

void *p4util_calloc(size_t count, size_t n)
{
    void *p = calloc(count ? count : 1, n ? n : 1);
    if (!p)
        p4util_out_of_memory(count * n);
    return p;
}

void *p4util_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        p4util_out_of_memory(n);
    return q;
}

char *p4util_strdup(const char *s)
{
    return p4util_strndup(s, strlen(s));
}

char *p4util_strndup(const char *s, size_t n)
{
    char *r = p4util_malloc(n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

char *p4util_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *r = p4util_malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(r, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return r;
}

_Noreturn void p4util_assert_fail(const char *file, int line, const char *expr)
{
    fprintf(stderr, "%s:%d: internal error: assertion '%s' failed\n", file, line, expr);
    abort();
}

void p4util_verror(struct p4_diag *d, struct p4_loc loc, const char *fmt, va_list ap)
{
    d->nerrors++;
    int max = d->max_errors ? d->max_errors : 50;
    if (!d->out || d->nerrors > max)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(d->out, "%s:%d:%d: error: %s", loc.file ? loc.file : "?", loc.line, loc.col, msg);
    if (loc.near && !strstr(msg, " near "))
        fprintf(d->out, " near '%.40s'", loc.near);
    fputc('\n', d->out);
}

void p4util_error(struct p4_diag *d, struct p4_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p4util_verror(d, loc, fmt, ap);
    va_end(ap);
}

void p4big_set_u64(struct p4_big *b, uint64_t v)
{
    memset(b, 0, sizeof(*b));
    b->w[0] = v;
}

void p4big_add(struct p4_big *r, const struct p4_big *a, const struct p4_big *b)
{
    uint64_t carry = 0;
    for (int i = 0; i < P4_WMAX; i++) {
        uint64_t s = a->w[i] + b->w[i];
        uint64_t c1 = s < a->w[i];
        uint64_t s2 = s + carry;
        uint64_t c2 = s2 < s;
        r->w[i] = s2;
        carry = c1 | c2;
    }
}

void p4big_neg(struct p4_big *r, const struct p4_big *a)
{
    struct p4_big one;
    struct p4_big t;
    for (int i = 0; i < P4_WMAX; i++)
        t.w[i] = ~a->w[i];
    p4big_set_u64(&one, 1);
    p4big_add(r, &t, &one);
}

void p4big_sub(struct p4_big *r, const struct p4_big *a, const struct p4_big *b)
{
    struct p4_big nb;
    p4big_neg(&nb, b);
    p4big_add(r, a, &nb);
}

void p4big_mul(struct p4_big *r, const struct p4_big *a, const struct p4_big *b)
{
    struct p4_big t;
    memset(&t, 0, sizeof(t));
    for (int i = 0; i < P4_WMAX; i++) {
        unsigned __int128 carry = 0;
        if (!a->w[i])
            continue;
        for (int j = 0; i + j < P4_WMAX; j++) {
            unsigned __int128 p = (unsigned __int128)a->w[i] * b->w[j] + t.w[i + j] + carry;
            t.w[i + j] = (uint64_t)p;
            carry = p >> 64;
        }
    }
    *r = t;
}

void p4big_shl(struct p4_big *r, const struct p4_big *a, unsigned n)
{
    struct p4_big t;
    memset(&t, 0, sizeof(t));
    unsigned ws = n / 64;
    unsigned bs = n % 64;
    for (int i = P4_WMAX - 1; i >= 0; i--) {
        int src = i - (int)ws;
        if (src < 0)
            break;
        uint64_t v = a->w[src] << bs;
        if (bs && src > 0)
            v |= a->w[src - 1] >> (64 - bs);
        t.w[i] = v;
    }
    *r = t;
}

void p4big_shr(struct p4_big *r, const struct p4_big *a, unsigned n, bool arith)
{
    struct p4_big t;
    uint64_t fill = arith && p4big_is_neg(a) ? ~(uint64_t)0 : 0;
    unsigned ws = n / 64;
    unsigned bs = n % 64;
    for (int i = 0; i < P4_WMAX; i++) {
        unsigned src = (unsigned)i + ws;
        uint64_t lo = src < P4_WMAX ? a->w[src] : fill;
        uint64_t hi = src + 1 < P4_WMAX ? a->w[src + 1] : fill;
        t.w[i] = bs ? (lo >> bs) | (hi << (64 - bs)) : lo;
    }
    *r = t;
}

bool p4big_is_neg(const struct p4_big *a)
{
    return (a->w[P4_WMAX - 1] >> 63) != 0;
}

bool p4big_is_zero(const struct p4_big *a)
{
    for (int i = 0; i < P4_WMAX; i++)
        if (a->w[i])
            return false;
    return true;
}

int p4big_cmp_signed(const struct p4_big *a, const struct p4_big *b)
{
    bool na = p4big_is_neg(a);
    bool nb = p4big_is_neg(b);
    if (na != nb)
        return na ? -1 : 1;
    for (int i = P4_WMAX - 1; i >= 0; i--) {
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    }
    return 0;
}

int p4big_bits(const struct p4_big *a)
{
    for (int i = P4_WMAX - 1; i >= 0; i--) {
        if (a->w[i])
            return i * 64 + 64 - __builtin_clzll(a->w[i]);
    }
    return 0;
}

void p4big_divmod(struct p4_big *q, struct p4_big *m, const struct p4_big *a,
                  const struct p4_big *b)
{
    struct p4_big quo;
    struct p4_big rem;
    memset(&quo, 0, sizeof(quo));
    memset(&rem, 0, sizeof(rem));
    for (int i = p4big_bits(a) - 1; i >= 0; i--) {
        p4big_shl(&rem, &rem, 1);
        rem.w[0] |= (a->w[i / 64] >> (i % 64)) & 1;
        struct p4_big d;
        p4big_sub(&d, &rem, b);
        if (!p4big_is_neg(&d)) {
            rem = d;
            quo.w[i / 64] |= (uint64_t)1 << (i % 64);
        }
    }
    if (q)
        *q = quo;
    if (m)
        *m = rem;
}

void p4util_wmask(uint64_t *w, int nwords, int width)
{
    for (int i = 0; i < nwords; i++) {
        int lo = i * 64;
        if (width >= lo + 64)
            w[i] = ~(uint64_t)0;
        else if (width <= lo)
            w[i] = 0;
        else
            w[i] = p4util_mask64(width - lo);
    }
}

void p4big_trunc(struct p4_big *a, int width, bool is_signed)
{
    if (width >= P4_MAXWIDTH)
        return;
    bool neg = is_signed && width > 0 && ((a->w[(width - 1) / 64] >> ((width - 1) % 64)) & 1);
    for (int i = 0; i < P4_WMAX; i++) {
        int lo = i * 64;
        uint64_t m;
        if (width >= lo + 64)
            m = ~(uint64_t)0;
        else if (width <= lo)
            m = 0;
        else
            m = p4util_mask64(width - lo);
        a->w[i] = neg ? (a->w[i] | ~m) : (a->w[i] & m);
    }
}

void p4util_wtrunc(uint64_t *w, int nwords, int width)
{
    for (int i = 0; i < nwords; i++) {
        int rem = width - 64 * i;
        w[i] &= rem <= 0 ? 0 : p4util_mask64(rem);
    }
}

int p4util_errbuf(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

uint64_t p4util_fnv(uint64_t h, const void *s, size_t n)
{
    const uint8_t *p = s;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

int p4util_mkdirs(char *path, unsigned mode)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = 0;
        int rc = mkdir(path, (mode_t)mode);
        *p = c;
        if (rc != 0 && errno != EEXIST)
            return -1;
        if (!c)
            return 0;
    }
}
