/* The preprocessor's output kept across runs in the native engine's cache folder (checked as
 * it is: the user's own, not writable by group or others), so that loading a program that did
 * not change does not start the preprocessor again. An entry is used only while every file the
 * output names in its line markers keeps its size, modification time and inode; output with
 * preprocessor messages, and files changed in the last second, are not kept. */
#ifndef SIM_P4_P4CPPCACHE_H
#define SIM_P4_P4CPPCACHE_H

#include <stddef.h>

/* The kept output (NUL-terminated, its length in *len) for this program and include folder,
 * or NULL. */
char *p4cppcache_get(const char *path, const char *include_dir, size_t *len);
/* Keeps text as the output for this program and include folder (best effort). */
void p4cppcache_put(const char *path, const char *include_dir, const char *text, size_t len);

#endif
