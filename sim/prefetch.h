/* Prefetches: a line the code will read soon starts on its way from memory now, so that the
 * miss overlaps other work. They never fault, so any address will do (a NULL pointer's lines
 * too), and they change nothing but time.
 *
 * Measuring them. Callgrind's cache simulation ignores prefetch instructions, so in a normal
 * build it counts a prefetched line's miss at the code that reads it later, as if the prefetch
 * were not there. Built with -DSIM_PREFETCH_LOADS (a measurement build: `make
 * EXTRA_CFLAGS=-DSIM_PREFETCH_LOADS BUILD=...`, never the default), each prefetch is a real read
 * of its line (skipped for addresses in the first page, where a NULL pointer's lines are; the
 * byte read is stored, as Valgrind drops a load whose value is not used): the
 * simulation then counts the miss at the prefetch, and the later read hits, so the misses a
 * prefetch covers show at its own source line (callgrind_annotate). How far ahead it was issued
 * (a whole event, or the event's own start) is what the simulation does not tell: that is the
 * place of the prefetch in the code. A macro, not a function, so that its instructions keep the
 * line of the code that uses it. */
#ifndef SIM_SIM_PREFETCH_H
#define SIM_SIM_PREFETCH_H

#include <stdint.h>

#ifdef SIM_PREFETCH_LOADS
/* the byte read is stored (to the stack): Valgrind drops a load whose value is not used */
#define SIM_PREFETCH(addr)                                                                 \
    do {                                                                                   \
        const volatile char *sim_prefetch_p_ = (const volatile char *)(addr);              \
        if ((uintptr_t)sim_prefetch_p_ >= 4096) {                                          \
            volatile char sim_prefetch_sink_ = *sim_prefetch_p_;                           \
            (void)sim_prefetch_sink_;                                                      \
        }                                                                                  \
    } while (0)
#define SIM_PREFETCH_W(addr) SIM_PREFETCH(addr)
#else
#define SIM_PREFETCH(addr) __builtin_prefetch(addr)
/* for a line the code will write */
#define SIM_PREFETCH_W(addr) __builtin_prefetch(addr, 1)
#endif

#endif
