/* The native back end: at a program's first pipeline on the native engine, the compiled
 * records (p4cci.h) are turned into C (p4nemit.h), compiled by the system C compiler into a
 * shared object and loaded; its parser and control functions then run in place of the
 * records' loop. Records without a native emitter are called through their own runners, so
 * the results are those of the compiled engine, byte for byte.
 *
 * Compiler: $DDLSIM_P4_CC, else `cc`, run as a bounded child (p4proc.h) with
 * `-std=gnu11 -O2 -fPIC -shared -fno-strict-aliasing -w`. Cache: $DDLSIM_P4_CACHE, else
 * $XDG_CACHE_HOME/ddlsim, else $HOME/.cache/ddlsim; the object is named by a digest of the
 * source, the flags and the compiler's identity (its resolved path, size and modification
 * time), carries a second digest of the source that is checked after loading, and is written
 * under a temporary name and renamed, so parallel processes may share the folder. When the
 * compiler is missing, fails or runs out of its limits, or loading fails, one note goes to
 * stderr and the program's pipelines run the compiled records instead. */
#ifndef SIM_P4_P4NATIVE_H
#define SIM_P4_P4NATIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct p4cc;
struct p4_prog;
struct p4native;

/* The form to run on the native engine: the native twin of cc (made once per program and
 * kept with it), or cc itself after a failure (noted once on diag). */
const struct p4cc *p4native_twin(const struct p4cc *cc, FILE *diag);
void p4native_free(struct p4native *n);

/* Shared with the preprocessor's cache (p4cppcache.c). The cache folder (DDLSIM_P4_CACHE,
 * else XDG_CACHE_HOME/ddlsim, HOME/.cache/ddlsim or /tmp/ddlsim-cache-UID), created 0700 and
 * refused unless it is the user's own directory not writable by group or others; 0 or -1
 * with the reason in why. */
int p4native_cache_dir(char *dir, size_t n, char *why, size_t nwhy);
/* A program's identity for digests: its resolved path (PATH searched), size and modification
 * time; 0, or -1 with "the C compiler 'TOOL' was not found" in why. */
int p4native_tool_ident(const char *tool, char *ident, size_t n, char *why, size_t nwhy);

enum p4native_status {
    P4NATIVE_NOT_TRIED, /* no pipeline of the program asked for the native engine */
    P4NATIVE_COMPILED,  /* compiled by this process */
    P4NATIVE_CACHED,    /* loaded from the cache without compiling */
    P4NATIVE_FAILED,    /* not available: the program runs the compiled records */
};
enum p4native_status p4native_status(const struct p4_prog *prog);

#endif
