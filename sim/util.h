/* Small helpers shared by the whole tree: container_of, array length, checked allocation
 * (abort on out-of-memory, as Redis does) and the always-on assert. */
#ifndef SIM_SIM_UTIL_H
#define SIM_SIM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdbool.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t n);
void *xrealloc(void *p, size_t n);
/* n bytes aligned to `align` (a power of two), freed with free(). */
void *xaligned(size_t align, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Always compiled in: an internal invariant broke. Prints where, then aborts. */
#define SIM_ASSERT(expr)                                                                   \
    do {                                                                                   \
        if (!(expr))                                                                       \
            sim_assert_fail(__FILE__, __LINE__, #expr);                                    \
    } while (0)
_Noreturn void sim_assert_fail(const char *file, int line, const char *expr);

/* 64-bit FNV-1a; used to derive RNG seeds from names and for flow hashing. */
uint64_t hash_fnv1a(const void *data, size_t n, uint64_t h);
#define HASH_FNV_INIT 0xcbf29ce484222325ULL

#endif
