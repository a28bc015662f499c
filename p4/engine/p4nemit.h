/* Internal to the native back end (p4native.c): the C source of a compiled program's parser
 * and control blocks, emitted from its records (p4cci.h). Records of kinds with an emitter
 * become C with their operands as constants (moves, assignments, ifs, the fixed-layout
 * extract, emit and checksum of shadowed headers, the parser's selects, table applies with
 * each action's body inlined); every other record is called through its own runner, so the
 * generated code computes exactly what the records engine does. The source includes only
 * <stdint.h> and <string.h>: the offsets of the VM's fields are emitted as constants, and the
 * records and the engine's helpers it calls arrive at run time in a table (rec). */
#ifndef SIM_P4_P4NEMIT_H
#define SIM_P4_P4NEMIT_H

#include <stddef.h>

struct p4cc;

/* Fixed entries of the table the generated functions receive; records follow. */
enum {
    P4N_SELECT,
    P4N_MATCH,
    P4N_ACTION_DATA,
    P4N_RUN_CALL,
    P4N_CC,
    P4N_LOOP_FAULT,
    P4N_LEAN_BUF,
    P4N_FIXED
};

struct p4nsrc {
    char *text; /* NUL-terminated */
    size_t len;
    size_t cap;
    const void **rec; /* rec[i]: what R[i] of the generated code is */
    int nrec;
    int caprec;
};

/* Emits the functions p4n_parser and p4n_ctl0 .. p4n_ctl4 (enum p4cc_block order), each
 * `void f(void *vm, const void *const *R)`, and p4n_lean_in and p4n_lean_out
 * (p4cc_native.lean_in and lean_out). */
void p4nemit_program(const struct p4cc *cc, struct p4nsrc *out);
/* Appends printf-style text. */
void p4nemit_put(struct p4nsrc *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void p4nemit_free(struct p4nsrc *o);

#endif
