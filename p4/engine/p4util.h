/* Small helpers private to the P4 engine: checked allocation (abort on out-of-memory), a
 * growable array macro, big fixed-width values, located diagnostics, FNV-1a and mkdir -p.
 * p4/engine depends on nothing outside itself, so these do not come from sim/. */
#ifndef SIM_P4_P4UTIL_H
#define SIM_P4_P4UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Widest bit<W> the engine supports, in 64-bit words (512 bits). */
#define P4_WMAX 8
#define P4_MAXWIDTH (64 * P4_WMAX)

void *p4util_malloc(size_t n);
void *p4util_calloc(size_t count, size_t n);
void *p4util_realloc(void *p, size_t n);
char *p4util_strdup(const char *s);
char *p4util_strndup(const char *s, size_t n);
char *p4util_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define P4_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* FNV-1a (64 bits) of s[0..n), continuing from h (start: 0xcbf29ce484222325). */
uint64_t p4util_fnv(uint64_t h, const void *s, size_t n);
/* mkdir -p of path (each missing folder created with mode); 0, or -1 with errno set. */
int p4util_mkdirs(char *path, unsigned mode);

/* Append x to a growable array (ptr, n, cap). */
#define P4_PUSH(ptr, n, cap, x)                                                                    \
    do {                                                                                           \
        if ((n) >= (cap)) {                                                                        \
            (cap) = (cap) ? 2 * (cap) : 8;                                                         \
            (ptr) = p4util_realloc((ptr), (size_t)(cap) * sizeof(*(ptr)));                         \
        }                                                                                          \
        (ptr)[(n)++] = (x);                                                                        \
    } while (0)

#define P4_ASSERT(expr)                                                                            \
    do {                                                                                           \
        if (!(expr))                                                                               \
            p4util_assert_fail(__FILE__, __LINE__, #expr);                                         \
    } while (0)
_Noreturn void p4util_assert_fail(const char *file, int line, const char *expr);

/* Source location: file name is owned by the program's string pool. */
struct p4_loc {
    const char *file;
    int line;         /* 1-based */
    int col;          /* 1-based */
    const char *near; /* text of the token there (owned by the program), or NULL */
};

/* Writes the message into err (when err and errlen are set) and returns -1: the control
 * plane's error convention. */
int p4util_errbuf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Diagnostics sink: prints `file:line:col: error: message near 'token'` (the token from
 * loc.near, unless the message already names one) and counts. */
struct p4_diag {
    FILE *out; /* NULL: count only */
    int nerrors;
    int max_errors; /* stop printing after this many (0: 50) */
};

void p4util_error(struct p4_diag *d, struct p4_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void p4util_verror(struct p4_diag *d, struct p4_loc loc, const char *fmt, va_list ap);

/* Fixed-width multiword arithmetic, little-endian words, two's complement, P4_WMAX words. */
struct p4_big {
    uint64_t w[P4_WMAX];
};

void p4big_set_u64(struct p4_big *b, uint64_t v);
void p4big_add(struct p4_big *r, const struct p4_big *a, const struct p4_big *b);
void p4big_sub(struct p4_big *r, const struct p4_big *a, const struct p4_big *b);
void p4big_mul(struct p4_big *r, const struct p4_big *a, const struct p4_big *b);
void p4big_neg(struct p4_big *r, const struct p4_big *a);
void p4big_shl(struct p4_big *r, const struct p4_big *a, unsigned n);
void p4big_shr(struct p4_big *r, const struct p4_big *a, unsigned n, bool arith);
/* Unsigned division of non-negative values; b must be nonzero. */
void p4big_divmod(struct p4_big *q, struct p4_big *m, const struct p4_big *a,
                  const struct p4_big *b);
bool p4big_is_neg(const struct p4_big *a);
bool p4big_is_zero(const struct p4_big *a);
int p4big_cmp_signed(const struct p4_big *a, const struct p4_big *b);
/* Truncate to width bits (zero above); if is_signed, sign-extend from bit width-1. */
void p4big_trunc(struct p4_big *a, int width, bool is_signed);
/* Number of significant bits of a non-negative value. */
int p4big_bits(const struct p4_big *a);
/* Mask words for a width (all ones below width). */
void p4util_wmask(uint64_t *w, int nwords, int width);
/* Clears the bits of w (nwords) at and above width. */
void p4util_wtrunc(uint64_t *w, int nwords, int width);

static inline uint64_t p4util_mask64(int width)
{
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

static inline int p4util_nwords(int width)
{
    return width <= 64 ? 1 : (width + 63) / 64;
}

#endif
