/* Internal: the interpreter's pieces shared by its files (p4vm.c, p4vmext.c) and by the
 * compiled engine (p4cc.c), which runs whatever it does not compile itself through them, so
 * both engines have one implementation of every rarely used construct. */
#ifndef SIM_P4_P4VMI_H
#define SIM_P4_P4VMI_H

#include "p4/engine/p4pipe.h"
#include "p4/engine/p4vm.h"

/* error values declared first in core.p4 */
enum {
    ERR_NO_ERROR,
    ERR_PACKET_TOO_SHORT,
    ERR_NO_MATCH,
    ERR_STACK_OUT_OF_BOUNDS,
    ERR_HEADER_TOO_SHORT,
    ERR_PARSER_TIMEOUT,
    ERR_PARSER_INVALID_ARGUMENT
};

/* An expression of at most 64 bits; a wider one into e->nw words. */
uint64_t p4vm_eval(struct p4vm *vm, const struct p4ir_expr *e);
void p4vm_evalw(struct p4vm *vm, const struct p4ir_expr *e, uint64_t *out);
/* The slot a reference (LOAD, LOADX) designates, -1 out of range. */
int64_t p4vm_ref_slot(struct p4vm *vm, const struct p4ir_expr *e);
void p4vm_exec(struct p4vm *vm, const struct p4ir_stmt *st);
void p4vm_call(struct p4vm *vm, const struct p4ir_call *c);
/* Applies a table: the action index run (-1 none), *hit. */
int p4vm_apply_table(struct p4vm *vm, const struct p4ir_table *t, bool *hit);
/* Looks table t up with the key in pipe->keybuf: the action to run (the entry's, else the
 * default; -1 none) and its action data (*data), *hit, direct counter and meter updated. */
static inline int p4vm_table_match(struct p4vm *vm, const struct p4ir_table *t, bool *hit,
                                   const uint64_t **data)
{
    struct p4table *rt = &vm->pipe->tables[t->id];
    struct p4table_entry *en = p4table_lookup(rt, vm->pipe->keybuf);
    if (!en) {
        *hit = false;
        *data = rt->default_data;
        if (t->direct_meter >= 0)
            vm->dmeter_color[t->direct_meter & 63] = P4_GREEN;
        return rt->default_action;
    }
    *hit = true;
    *data = p4table_data(rt, en);
    if (t->direct_counter >= 0) {
        p4table_direct(rt, en)->packets++;
        p4table_direct(rt, en)->bytes += vm->packet_length;
    }
    if (t->direct_meter >= 0) {
        const struct p4ir_extern *x = &vm->prog->externs[t->direct_meter];
        vm->dmeter_color[t->direct_meter & 63] =
            (uint8_t)p4table_meter(&p4table_direct(rt, en)->meter,
                                   x->ctype == 0 ? 1 : vm->packet_length, p4pipe_now_ps(vm->pipe));
    }
    return en->action;
}
/* Copies action data (words in parameter order) into the action's parameters. */
void p4vm_action_data(struct p4vm *vm, const struct p4ir_callable *fn, const uint64_t *data);
/* As p4vm_table_match, with the data copied into the action's parameters (the caller runs
 * the action). */
int p4vm_table_lookup(struct p4vm *vm, const struct p4ir_table *t, bool *hit);
void p4vm_extract(struct p4vm *vm, const struct p4ir_stmt *st);
void p4vm_emit(struct p4vm *vm, const struct p4ir_stmt *st);
void p4vm_builtin(struct p4vm *vm, const struct p4ir_stmt *st);
/* Packs data-list values into vm->buf (fields of invalid headers left out); byte length. */
size_t p4vm_pack(struct p4vm *vm, struct p4ir_expr *const *v, int n);
/* The checksum statement st's value over the len bytes packed in vm->buf (with the unparsed
 * payload appended for the _with_payload forms). */
uint64_t p4vm_checksum_packed(struct p4vm *vm, const struct p4ir_stmt *st, size_t len);
void p4vm_set_ref(struct p4vm *vm, const struct p4ir_expr *ref, uint64_t v);
/* After one iteration's body: false if the loop ends (break, or exit/return going out). */
static inline bool p4vm_loop_continues(struct p4vm *vm)
{
    if (vm->flow == P4VM_BREAK) {
        vm->flow = P4VM_NORMAL;
        return false;
    }
    if (vm->flow == P4VM_CONTINUE)
        vm->flow = P4VM_NORMAL;
    return vm->flow == P4VM_NORMAL;
}

/* The select of state s over keys: the next state, or -3 when no case matches. */
int p4vm_select(struct p4vm *vm, const struct p4ir_state *s, const uint64_t *keys, int nk);

/* The parser loop of both engines (steps limit, parser_error, payload offset): init runs the
 * parser's local initialisation, body state st's statements, select (for a state with select
 * keys) its select: the next state, or -3 when no case matches. Inline, so each engine's loop
 * calls its own functions directly. */
static inline __attribute__((always_inline)) void
p4vm_parse(struct p4vm *vm, void (*init)(struct p4vm *vm, const void *ctx),
           void (*body)(struct p4vm *vm, const void *ctx, int st),
           int (*select)(struct p4vm *vm, const void *ctx, int st), const void *ctx)
{
    const struct p4_prog *prog = vm->prog;
    vm->flow = P4VM_NORMAL;
    vm->parser_error = 0;
    vm->in_parser = true;
    init(vm, ctx);
    int st = prog->start_state;
    int steps = 0;
    while (st >= 0 && vm->flow == P4VM_NORMAL) {
        if (++steps > 100000) {
            vm->parser_error = ERR_PARSER_TIMEOUT;
            break;
        }
        const struct p4ir_state *s = &prog->states[st];
        body(vm, ctx, st);
        if (vm->flow)
            break;
        if (!s->nkeys) {
            st = s->next;
            continue;
        }
        int next = select(vm, ctx, st);
        if (vm->flow)
            break;
        if (next == -3) {
            vm->parser_error = ERR_NO_MATCH;
            break;
        }
        st = next;
    }
    vm->flow = P4VM_NORMAL;
    vm->in_parser = false;
    vm->slots[0] = vm->in_bitpos / 8;
    if (prog->std.parser_error >= 0)
        vm->slots[prog->std.parser_error] = (uint64_t)vm->parser_error;
}

/* A run-time fault reported through the host (division by zero, failed assert). */
void p4vm_fault(struct p4vm *vm, struct p4_loc loc, const char *msg);

#endif
