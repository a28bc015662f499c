/* Set-up memory of one lifetime: a model allocates its tables from an arena while it is built,
 * and one arena_free releases them all when it ends, instead of a free() per array. Each
 * allocation is its own zeroed heap block (so ASan still sees every bound). Not for per-packet
 * or per-event memory (use a pool, sim/pool.h). */
#ifndef SIM_ARENA_H
#define SIM_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
    struct arena_block *blocks; /* newest first */
};

/* count zeroed elements of n bytes, aligned for any type; out of memory ends the run like
 * xcalloc. The block lives until arena_free. */
void *arena_calloc(struct arena *a, size_t count, size_t n);
/* A copy of the formatted text, in the arena. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Releases every block of the arena; it can be used again. The arena itself may sit inside
 * one of its own blocks. */
void arena_free(struct arena *a);

#endif
