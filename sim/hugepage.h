/* Memory on 2 MiB pages where the kernel offers them (Linux transparent huge pages, also in its
 * "madvise" mode). At scale the state an event touches (ports, queues, packets and flows of
 * thousands of hosts) spreads over hundreds of MiB: on 4 KiB pages nearly every first touch of
 * an object misses the TLB as well as the caches, and a page walk (two-dimensional under a
 * hypervisor) costs more than the miss itself. Elsewhere these calls are plain allocations and
 * no-ops: only speed depends on them, never a result. */
#ifndef SIM_SIM_HUGEPAGE_H
#define SIM_SIM_HUGEPAGE_H

#include <stddef.h>

#define HUGEPAGE_BYTES ((size_t)2 << 20)

/* At least n bytes, HUGEPAGE_BYTES-aligned, advised for huge pages before any is touched (so the
 * first touch of each 2 MiB maps a huge page). Released with free(). Never fails (exit 1). */
void *hugepage_alloc(size_t n);

/* Best effort: backs the whole 2 MiB pages inside [lo, hi) with huge pages now (already touched
 * memory is copied into them) and advises the range for later faults. */
void hugepage_collapse(void *lo, void *hi);

/* The end of the program break (the main malloc heap), for hugepage_collapse over what the
 * process allocated between two points; NULL where there is none. */
void *hugepage_heap_end(void);

#endif
