/* A cache of loaded programs owned by its caller (no globals): each distinct program is
 * preprocessed, parsed and lowered once per process, however many scenarios (sweep points)
 * use it. A program is the same when its path and include directory are, and its file has
 * not changed since it was loaded (device, inode, size, modification time); failed loads are
 * not kept, so their errors are reported every time. */
#ifndef SIM_P4_P4CACHE_H
#define SIM_P4_P4CACHE_H

#include "p4/engine/p4.h"

struct p4_cache;

struct p4_cache *p4_cache_create(void);
/* Frees the cache and every program in it. */
void p4_cache_free(struct p4_cache *c);
/* p4_prog_load through the cache: the program belongs to the cache. */
const struct p4_prog *p4_cache_load(struct p4_cache *c, const char *path, const char *include_dir,
                                    FILE *diag_out, int *nerrors);
/* Programs loaded (not found in the cache) so far. */
int p4_cache_loads(const struct p4_cache *c);

#endif
