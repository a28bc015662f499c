#include "sim/hugepage.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/util.h"

void *hugepage_alloc(size_t n)
{
    void *p = xaligned(HUGEPAGE_BYTES, n);
#ifdef MADV_HUGEPAGE
    size_t size = (n + HUGEPAGE_BYTES - 1) / HUGEPAGE_BYTES * HUGEPAGE_BYTES;
    (void)madvise(p, size ? size : HUGEPAGE_BYTES, MADV_HUGEPAGE);
#endif
    return p;
}

void hugepage_collapse(void *lo, void *hi)
{
    uintptr_t a = ((uintptr_t)lo + HUGEPAGE_BYTES - 1) & ~(uintptr_t)(HUGEPAGE_BYTES - 1);
    uintptr_t b = (uintptr_t)hi & ~(uintptr_t)(HUGEPAGE_BYTES - 1);
    if (!lo || b <= a)
        return;
#ifdef MADV_HUGEPAGE
    (void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#endif
#ifdef MADV_COLLAPSE
    (void)madvise((void *)a, b - a, MADV_COLLAPSE);
#endif
}

void *hugepage_heap_end(void)
{
    void *end = sbrk(0);
    return end == (void *)-1 ? NULL : end;
}
