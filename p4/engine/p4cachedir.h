/* The cache folder's bound. The native engine's objects and sources (`p4n-KEY.so`,
 * `p4n-KEY.c`) and the kept preprocessor output (`p4cpp-KEY.i`) would otherwise pile up with
 * every program and compiler a machine sees. Each entry is touched when it is used, and after
 * an entry is written the folder is trimmed: when its entries together exceed the limit
 * (`$DDLSIM_P4_CACHE_MAX`, bytes with an optional K, M or G suffix, default 256M), the least
 * recently used are removed until they fit in three quarters of it. Temporary files of a
 * writer that died (`.p4n-*`, `p4cpp-*.tmp`) are removed once they are a day old. Only the
 * user's own regular files with these names are ever removed. */
#ifndef SIM_P4_P4CACHEDIR_H
#define SIM_P4_P4CACHEDIR_H

#include <stddef.h>
#include <stdint.h>

#define P4CACHEDIR_DEFAULT_MAX (256ULL << 20)

/* The limit in bytes from $DDLSIM_P4_CACHE_MAX; the default when unset. A value that is not
 * a positive size gives the default and a message in why (else why is empty). */
uint64_t p4cachedir_limit(char *why, size_t nwhy);
/* Marks the entry at path as used now (best effort). */
void p4cachedir_touch(const char *path);
/* Trims the folder dir to the limit, never removing the entry named keep (a file name in dir,
 * or NULL); returns the number of files removed. */
int p4cachedir_trim(const char *dir, uint64_t limit, const char *keep);

#endif
