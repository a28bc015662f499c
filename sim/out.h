/* Output files that never look complete when they are not: every file is written under a
 * temporary name in its final folder and renamed into place by out_commit. A run that dies
 * leaves only *.tmp files behind, never a truncated result with the final name. */
#ifndef SIM_SIM_OUT_H
#define SIM_SIM_OUT_H

#include <stdio.h>

struct out_file {
    FILE *f;
    char *path; /* final name */
    char *tmp;  /* name while writing */
};

/* Creates `dir` (and parents) if needed. Returns 0 or -1 with errno set. */
int out_mkdirs(const char *dir);
/* Opens dir/name for writing under a temporary name. Returns 0, or -1 with a message in err. */
int out_open(struct out_file *o, const char *dir, const char *name, char *err, size_t errn);
/* Flushes, closes and renames into place. Returns 0 or -1 (message in err). */
int out_commit(struct out_file *o, char *err, size_t errn);
/* Closes and removes the temporary file (on error paths). */
void out_abort(struct out_file *o);

#endif
