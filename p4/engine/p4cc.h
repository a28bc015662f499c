/* The compiled engine: the lowered program (p4ir.h) turned once, at load, into a flat,
 * pre-resolved form that runs by closure threading. Every expression and statement node
 * becomes a record holding the function that runs it and its operands already resolved
 * (slots, masks, widths, the callee's compiled body, a table's compiled keys and actions),
 * so a packet costs one indirect call per node and no dispatch on opcodes, types or names.
 * Specialised paths: values of at most 64 bits, fixed-layout headers extracted and emitted
 * from flat field lists, checksum and hash data lists packed from flat lists, table applies
 * with compiled keys and action calls, the parser's select. Whatever has no specialised path
 * (wide values, header stacks, varbits, out/inout arguments, loops, the rarer externs) runs
 * through the interpreter's code for that node (p4vmi.h), so both engines share one
 * implementation of it and their results are identical (tests/test_p4cc.c checks this). */
#ifndef SIM_P4_P4CC_H
#define SIM_P4_P4CC_H

#include "p4/engine/p4.h"
#include "p4/engine/p4vm.h"

struct p4cc;

/* Compiles prog (which must outlive the result). */
struct p4cc *p4cc_compile(const struct p4_prog *prog);
void p4cc_free(struct p4cc *cc);
/* The per-packet slots the compiled form adds after the program's (prog->cc_slot on). */
int p4cc_slots(const struct p4cc *cc);
/* Puts every field the compiled form keeps only in a header shadow into its slot, so the
 * state reads as the interpreter's; with drop, the shadows stop holding. */
void p4cc_sync(const struct p4cc *cc, uint64_t *slots, bool drop);
/* The v1model control blocks in pipeline order. */
enum p4cc_block { P4CC_VERIFY, P4CC_INGRESS, P4CC_EGRESS, P4CC_COMPUTE, P4CC_DEPARSER };
/* As p4vm_run_parser and p4vm_run_control (of c, the program's block `which`), on the
 * compiled form's records; native code (p4cc_native_entries) is called by the caller. */
void p4cc_run_parser(const struct p4cc *cc, struct p4vm *vm);
void p4cc_run_control(const struct p4cc *cc, struct p4vm *vm, enum p4cc_block which,
                      const struct p4ir_callable *c);
/* The native code of a form (p4native.h), which callers run directly: the parser and each
 * block (NULL where it has none: that block runs its records through p4cc_run_control), with
 * the records they read. A native block sets the flow normal before and after, as
 * p4cc_run_control does. */
typedef void p4cc_native_fn(struct p4vm *vm, const void *const *rec);
/* The native lean functions (p4.h's p4_lean_in_fn, p4_lean_out_fn). lean_in zeroes the state
 * (the program's slots), binds it, sets the ingress port and packet length fields (those the
 * program has) and the input, runs the parser, verify and ingress and reports into out:
 * p4_pipe_ingress's work in one call. lean_out, on the state lean_in left: computeChecksum,
 * then the deparser in place over bytes (len bytes, cap writable), or where the headers do not
 * fit where the parser read them into buf (cap bytes); reports into out: p4_pipe_egress's
 * work in one call. */
typedef p4_lean_in_fn p4cc_lean_in_fn;
typedef p4_lean_out_fn p4cc_lean_out_fn;
struct p4cc_native {
    p4cc_native_fn *parser;
    p4cc_native_fn *ctl[5]; /* by enum p4cc_block */
    const void *const *rec;
    p4cc_lean_in_fn *lean_in; /* NULL unless the parser and the verify and ingress blocks with
                               * statements are native */
    p4cc_lean_out_fn *lean_out; /* NULL unless computeChecksum and the deparser (those with
                                 * statements) are native */
};
/* Fills n for the blocks of prog (cc's program) in pipeline order: verify, ingress, egress,
 * compute, deparser. All NULL when cc has no native code. */
void p4cc_native_entries(const struct p4cc *cc, const struct p4ir_callable *const blocks[5],
                         struct p4cc_native *n);

#endif
