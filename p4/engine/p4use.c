/* The use analysis of p4use.h: a walk of the IR marking every slot range a node refers to. */
#include "p4/engine/p4use.h"

#include <stdlib.h>

struct walk {
    const struct p4_prog *prog;
    bool *ref; /* prog->nslots */
    const struct p4ir_callable **seen;
    int nseen;
    int capseen;
    bool requests;
    bool truncates;
};

static void walk_block(struct walk *w, const struct p4ir_block *b);
static void walk_call(struct walk *w, const struct p4ir_call *c);

static void mark(struct walk *w, int64_t slot, int64_t n)
{
    for (int64_t i = slot < 0 ? 0 : slot; i < slot + n && i < w->prog->nslots; i++)
        w->ref[i] = true;
}

/* The slots a node's own slot field may reach: its value (a whole compound for a reference
 * to one), or for an indexed reference the whole stack. */
static int64_t extent(const struct p4ir_expr *e)
{
    int64_t n = e->nw > 1 ? e->nw : 1;
    if (e->type && e->type->nslots > n)
        n = e->type->nslots;
    if (e->op == P4OP_LOADX)
        n += 1 + (int64_t)e->aux * e->aux2;
    return n;
}

static void walk_table(struct walk *w, const struct p4ir_table *t);

static void walk_expr(struct walk *w, const struct p4ir_expr *e)
{
    if (!e)
        return;
    mark(w, e->slot, extent(e));
    walk_expr(w, e->a);
    walk_expr(w, e->b);
    walk_expr(w, e->c);
    walk_expr(w, e->hdr);
    if (e->op == P4OP_CALL && e->ptr)
        walk_call(w, e->ptr);
    else if ((e->op == P4OP_HIT || e->op == P4OP_MISS) && e->ptr)
        walk_table(w, e->ptr);
    else if (e->op == P4OP_AGG && e->ptr) {
        struct p4ir_expr *const *el = e->ptr;
        for (int i = 0; i < e->aux2; i++)
            walk_expr(w, el[i]);
    }
}

/* A callable's parameters, result and body, once. */
static void walk_callable(struct walk *w, const struct p4ir_callable *fn)
{
    if (!fn)
        return;
    for (int i = 0; i < w->nseen; i++) {
        if (w->seen[i] == fn)
            return;
    }
    P4_PUSH(w->seen, w->nseen, w->capseen, fn);
    for (int i = 0; i < fn->nparams; i++)
        mark(w, fn->params[i].slot, fn->params[i].nslots);
    if (fn->ret_type)
        mark(w, fn->ret_slot, fn->ret_type->nslots);
    walk_block(w, &fn->body);
}

static void walk_call(struct walk *w, const struct p4ir_call *c)
{
    for (int i = 0; i < c->nargs; i++)
        walk_expr(w, c->args[i]);
    mark(w, c->locs, c->nargs);
    walk_callable(w, c->fn);
}

static void walk_table(struct walk *w, const struct p4ir_table *t)
{
    for (int i = 0; i < t->nkeys; i++)
        walk_expr(w, t->keys[i].e);
    for (int i = 0; i < t->nactions; i++)
        walk_call(w, &t->actions[i].call);
}

static void walk_stmt(struct walk *w, const struct p4ir_stmt *st)
{
    const struct p4_prog *prog = w->prog;
    bool builtin = st->op == P4ST_BUILTIN;
    if (builtin && st->aux == P4B_MARK_TO_DROP) {
        /* writes these two fields, whatever its argument */
        mark(w, prog->std.egress_spec, 1);
        mark(w, prog->std.mcast_grp, 1);
        return;
    }
    if (builtin && (st->aux == P4B_CLONE || st->aux == P4B_RESUBMIT || st->aux == P4B_RECIRC))
        w->requests = true;
    if (builtin && st->aux == P4B_TRUNCATE)
        w->truncates = true;
    walk_expr(w, st->a);
    walk_expr(w, st->b);
    if (st->op == P4ST_COPY || st->op == P4ST_ZERO) {
        for (const struct p4ir_expr *x = st->a; x; x = x == st->a ? st->b : NULL)
            mark(w, x->slot, st->aux);
    }
    for (int i = 0; i < st->nargs; i++)
        walk_expr(w, st->args[i]);
    walk_block(w, &st->body);
    walk_block(w, &st->els);
    for (int i = 0; i < st->ncases; i++)
        walk_block(w, &st->cases[i]);
    if (st->call)
        walk_call(w, st->call);
    if (st->table)
        walk_table(w, st->table);
}

static void walk_block(struct walk *w, const struct p4ir_block *b)
{
    for (int i = 0; i < b->n; i++)
        walk_stmt(w, b->s[i]);
}

/* The parser, every control, action and table, and the field lists. */
static void walk_program(struct walk *w)
{
    const struct p4_prog *prog = w->prog;
    walk_block(w, &prog->parser_init);
    for (int i = 0; i < prog->nstates; i++) {
        walk_block(w, &prog->states[i].body);
        for (int k = 0; k < prog->states[i].nkeys; k++)
            walk_expr(w, prog->states[i].keys[k]);
    }
    const struct p4ir_callable *blocks[] = {prog->verify, prog->ingress, prog->egress,
                                            prog->compute, prog->deparser};
    for (size_t i = 0; i < P4_ARRAY_LEN(blocks); i++)
        walk_callable(w, blocks[i]);
    for (int i = 0; i < prog->nactions; i++)
        walk_callable(w, prog->actions[i]);
    for (int i = 0; i < prog->ntables; i++)
        walk_table(w, prog->tables[i]);
    for (int i = 0; i < prog->nfield_lists; i++) {
        for (int j = 0; j < prog->field_lists[i].nr; j++)
            mark(w, prog->field_lists[i].r[j].slot, prog->field_lists[i].r[j].n);
    }
}

static void walk_reset(struct walk *w)
{
    for (int i = 0; i < w->prog->nslots; i++)
        w->ref[i] = false;
    w->nseen = 0;
}

/* The blocks that run after ingress on the packet's state: egress (when it has statements),
 * computeChecksum and the deparser. */
static bool egress_scratch(struct walk *w)
{
    const struct p4_prog *prog = w->prog;
    walk_reset(w);
    if (prog->egress && prog->egress->body.n)
        walk_callable(w, prog->egress);
    walk_callable(w, prog->compute);
    walk_callable(w, prog->deparser);
    for (int i = prog->npkt_slots; i < prog->nslots; i++) {
        if (w->ref[i])
            return true;
    }
    return false;
}

static bool pure_block(const struct p4ir_block *b);

/* No call (function, action, extern), table lookup or division (a fault at zero). */
static bool pure_expr(const struct p4ir_expr *e)
{
    if (!e)
        return true;
    if (e->op == P4OP_CALL || e->op == P4OP_HIT || e->op == P4OP_MISS || e->op == P4OP_DIV ||
        e->op == P4OP_MOD)
        return false;
    if (e->op == P4OP_AGG && e->ptr) {
        struct p4ir_expr *const *el = e->ptr;
        for (int i = 0; i < e->aux2; i++) {
            if (!pure_expr(el[i]))
                return false;
        }
    }
    return pure_expr(e->a) && pure_expr(e->b) && pure_expr(e->c) && pure_expr(e->hdr);
}

/* Assignments, conditions, header validity and stack operations, emits and checksum updates
 * of pure expressions: nothing that reaches a table, an extern with state, the host (log,
 * assert, random) or a fault (division, a runaway loop). */
static bool pure_stmt(const struct p4ir_stmt *st)
{
    switch (st->op) {
    case P4ST_ASSIGN:
    case P4ST_ASSIGN_SLICE:
    case P4ST_COPY:
    case P4ST_ZERO:
    case P4ST_SETVALID:
    case P4ST_BLOCK:
    case P4ST_IF:
    case P4ST_EMIT:
    case P4ST_PUSH:
    case P4ST_POP:
    case P4ST_EXIT:
    case P4ST_RETURN:
        break;
    case P4ST_BUILTIN:
        if (st->aux != P4B_UPDATE_CKSUM && st->aux != P4B_NOP)
            return false;
        break;
    default:
        return false;
    }
    for (int i = 0; i < st->nargs; i++) {
        if (!pure_expr(st->args[i]))
            return false;
    }
    return pure_expr(st->a) && pure_expr(st->b) && pure_block(&st->body) &&
           pure_block(&st->els);
}

static bool pure_block(const struct p4ir_block *b)
{
    for (int i = 0; i < b->n; i++) {
        if (!pure_stmt(b->s[i]))
            return false;
    }
    return true;
}

/* Nothing between ingress and egress (time, queues, other packets) can change what egress,
 * computeChecksum and the deparser make of a packet's state. */
static bool output_early(const struct p4_prog *prog)
{
    return (!prog->egress || !prog->egress->body.n) &&
           (!prog->compute || pure_block(&prog->compute->body)) &&
           (!prog->deparser || pure_block(&prog->deparser->body));
}

// clang-format off
#define P4USE_STD(X)                                                                       \
    X(ingress_port) X(egress_spec) X(egress_port) X(instance_type) X(packet_length)         \
    X(enq_timestamp) X(enq_qdepth) X(deq_timedelta) X(deq_qdepth)                           \
    X(ingress_global_timestamp) X(egress_global_timestamp) X(mcast_grp) X(egress_rid)       \
    X(checksum_error) X(parser_error) X(priority) X(qid)
// clang-format on

void p4use_analyse(struct p4_prog *prog)
{
    struct walk w = {.prog = prog};
    w.ref = p4util_calloc((size_t)prog->nslots + 1, sizeof(bool));
    walk_program(&w);
    struct p4use *u = &prog->use;
#define P4USE_FIELD(f) u->std.f = prog->std.f >= 0 && w.ref[prog->std.f] ? prog->std.f : -1;
    P4USE_STD(P4USE_FIELD)
#undef P4USE_FIELD
    u->requests = w.requests;
    u->truncates = w.truncates;
    u->deparse_emits = true;
    for (int i = 0; prog->deparser && i < prog->deparser->body.n; i++)
        u->deparse_emits &= prog->deparser->body.s[i]->op == P4ST_EMIT;
    u->egress_scratch = egress_scratch(&w);
    u->output_early = output_early(prog);
    free(w.ref);
    free(w.seen);
}
