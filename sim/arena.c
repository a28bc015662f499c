/* Set-up memory of one lifetime (arena.h): a list of zeroed blocks freed together. */
#include "sim/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

struct arena_block {
    struct arena_block *next;
    max_align_t data[]; /* the caller's bytes, aligned for any type */
};

void *arena_calloc(struct arena *a, size_t count, size_t n)
{
    size_t bytes = count * n;
    if (n && bytes / n != count)
        bytes = SIZE_MAX; /* refused below like any request that cannot fit */
    if (bytes > SIZE_MAX - sizeof(struct arena_block))
        bytes = SIZE_MAX - sizeof(struct arena_block);
    struct arena_block *b = xcalloc(1, sizeof(*b) + bytes);
    b->next = a->blocks;
    a->blocks = b;
    return b->data;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *tmp = xvasprintf(fmt, ap);
    va_end(ap);
    size_t n = strlen(tmp) + 1;
    char *s = memcpy(arena_calloc(a, n, 1), tmp, n);
    free(tmp);
    return s;
}

void arena_free(struct arena *a)
{
    struct arena_block *b = a->blocks;
    a->blocks = NULL; /* before any block goes: `a` may live in one of them */
    while (b) {
        struct arena_block *next = b->next;
        free(b);
        b = next;
    }
}
