/* Running the C preprocessor on a P4 program, as p4c does: `cpp -C -undef -nostdinc -x
 * assembler-with-cpp -D__TARGET_BMV2__ -I INCLUDE PROGRAM`. The child is bounded: address space
 * and CPU time (setrlimit), wall time and output size (the parent kills it). Its output and its
 * messages are read together (poll), so neither pipe can fill and block it. Folders, devices and
 * FIFOs are refused before it runs. */
#ifndef SIM_P4_P4CPP_H
#define SIM_P4_P4CPP_H

#include <stddef.h>
#include <stdio.h>

#define P4CPP_MAX_MEMORY (1024UL << 20) /* address space of cpp and cc1 */
#define P4CPP_MAX_SECONDS 20            /* CPU and wall time */
#define P4CPP_MAX_OUTPUT (64UL << 20)   /* preprocessed program */
#define P4CPP_MAX_MESSAGES (64UL << 10) /* warnings and errors shown */

/* Returns the preprocessed text (NUL-terminated, its length in *len), or NULL after printing
 * located errors to diag_out (which may be NULL). */
char *p4cpp_run(const char *path, const char *include_dir, FILE *diag_out, size_t *len);
/* The same, with the output kept across runs (p4cppcache.h): for programs named by path, not
 * for temporary files. */
char *p4cpp_run_cached(const char *path, const char *include_dir, FILE *diag_out, size_t *len);

#endif
