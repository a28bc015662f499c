/* Running a helper program (the C preprocessor, the C compiler) as a bounded child: address
 * space and CPU time (setrlimit), wall time and output size (the parent kills its process
 * group). Its output and its messages are read together (poll), so neither pipe can fill and
 * block it. */
#ifndef SIM_P4_P4PROC_H
#define SIM_P4_P4PROC_H

#include <stddef.h>

struct p4proc_limits {
    unsigned long max_memory; /* address space, bytes */
    int max_seconds;          /* CPU and wall time */
    size_t max_output;        /* standard output kept; more stops the child */
    size_t max_messages;      /* standard error kept; more is counted, not kept */
};

struct p4proc_result {
    char *out; /* standard output, NUL-terminated (the caller frees it) */
    size_t nout;
    char *err; /* standard error, NUL-terminated (the caller frees it) */
    size_t nerr;
    size_t err_dropped; /* bytes of standard error past max_messages */
    const char *gave_up; /* why the child was killed (time, output, reading), else NULL */
    int status;          /* waitpid status */
    char why[160];       /* gave_up's text */
};

/* Runs argv (argv[0] looked up in PATH) with the limits; `what` names it in gave_up reasons
 * ("the preprocessor took longer than the limit", "... wrote more output than the limit"). Returns 0 when the child ran (r filled,
 * whatever its exit), -1 when it could not be started (r->out and r->err NULL). A child that
 * cannot exec argv[0] exits 127. */
int p4proc_run(char *const argv[], const char *what, const struct p4proc_limits *lim,
               struct p4proc_result *r);
/* Whether the child ran to completion and exited 0. */
int p4proc_ok(const struct p4proc_result *r);
void p4proc_free(struct p4proc_result *r);

#endif
