/* The interpreter: runs lowered parser states, controls and the deparser over a slot array.
 * No allocation, string work or name lookup per packet: everything was resolved by p4sem.
 * The VM reports clone/resubmit/recirculate requests and drops through `struct p4vm` fields
 * that the pipeline (p4.c) turns into v1model life-cycle decisions. */
#ifndef SIM_P4_P4VM_H
#define SIM_P4_P4VM_H

#include "p4/engine/p4ir.h"

struct p4_pipe;

enum p4vm_flow { P4VM_NORMAL, P4VM_EXIT, P4VM_RETURN, P4VM_BREAK, P4VM_CONTINUE };

/* A loop that runs this many iterations is stopped (reported through p4_host.fault): a
 * packet never hangs the simulator. */
#define P4VM_LOOP_MAX (1u << 20)

struct p4vm {
    const struct p4_prog *prog;
    struct p4_pipe *pipe;
    uint64_t *slots;
    /* parser input */
    const uint8_t *in;
    uint32_t in_len;    /* bytes */
    uint32_t in_bitpos; /* bits consumed */
    int parser_error;   /* error value, 0 = NoError */
    /* deparser output */
    uint8_t *out;
    uint32_t out_cap;
    uint32_t out_len;
    bool out_overflow;
    enum p4vm_flow flow;
    bool in_egress;
    bool in_parser; /* next/last out of range reject only in the parser */
    /* requests made by externs during the current block */
    int clone_session; /* -1 none */
    int clone_fl;
    bool clone_e2e;
    bool resubmit;
    int resubmit_fl;
    bool recirculate;
    int recirc_fl;
    uint32_t packet_length;
    uint8_t dmeter_color[64];
    uint8_t buf[512]; /* hash/checksum input */
};

/* Runs the parser from the start state; sets parser_error, leaves in_bitpos at the payload. */
void p4vm_run_parser(struct p4vm *vm);
/* Runs a control body (top-level: parameters already bound to the packet slots). */
void p4vm_run_control(struct p4vm *vm, const struct p4ir_callable *c);
/* Equality of two values of type t stored at x and y (P4_16 8.16-8.19: headers compare
 * validity, then fields only if both are valid; stacks compare elements, not nextIndex). */
bool p4vm_values_equal(const uint64_t *x, const uint64_t *y, const struct p4_type *t);
/* Evaluates an expression that reads no slots (constant folding at load time);
 * out receives nw words. */
void p4vm_eval_const(const struct p4ir_expr *e, uint64_t *out);

#endif
