/* Parsers: see p4prs.h. */
#include "p4/engine/p4prs.h"
#include "p4/engine/p4ctl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4type.h"

#include <string.h>

/* One parser's states being lowered: the top-level parser, or an inlined copy of a
 * sub-parser for one call site (P4_16 13.9: the calling state is split in two; the callee's
 * accept is the bottom half, its reject the caller's reject). */
struct frame {
    const struct p4ast *decl; /* the parser declaration */
    const char *prefix;       /* qualifies the copy's state names */
    int base;                 /* index of its first state in prog->states */
    int accept;               /* where its accept goes */
    int depth;                /* sub-parser nesting */
};

/* A sub-parser instance: its scope (parameters in their own slots, locals) and the
 * initialization of its locals, run at each invocation. */
struct p4prs_inst {
    const struct p4ast *decl;
    const char *name;
    struct p4scope *scope;
    struct p4ir_block init;
    struct p4_type **ptypes; /* per parameter (NULL for the packet_in) */
    int *pslots;
    bool ready;
};

#define P4PRS_MAX_DEPTH 16

static int add_state(struct p4sem *s, const char *name, struct p4_loc loc)
{
    struct p4_prog *prog = s->prog;
    if (prog->nstates == prog->capstates) {
        prog->capstates = prog->capstates ? 2 * prog->capstates : 16;
        prog->states =
            p4util_realloc(prog->states, (size_t)prog->capstates * sizeof(*prog->states));
    }
    struct p4ir_state *st = &prog->states[prog->nstates];
    memset(st, 0, sizeof(*st));
    st->name = name;
    st->loc = loc;
    st->next = P4_STATE_REJECT;
    return prog->nstates++;
}

static int state_index(struct p4sem *s, const struct frame *fr, const char *name, struct p4_loc loc)
{
    if (strcmp(name, "accept") == 0)
        return fr->accept;
    if (strcmp(name, "reject") == 0)
        return P4_STATE_REJECT;
    const struct p4ast *states = fr->decl->b;
    for (int i = 0; i < states->nlist; i++) {
        if (strcmp(states->list[i]->name, name) == 0)
            return fr->base + i;
    }
    p4sem_err(s, loc, "unknown parser state '%s'", name);
    return P4_STATE_REJECT;
}

static void select_case(struct p4sem *s, const struct frame *fr, struct p4ir_state *st, int ci,
                        const struct p4ast *c)
{
    struct p4ir_case *pc = &st->cases[ci];
    pc->v = NEWN(s, uint64_t, st->nkeys);
    pc->m = NEWN(s, uint64_t, st->nkeys);
    pc->kind = NEWN(s, uint8_t, st->nkeys);
    pc->next = state_index(s, fr, c->name, c->loc);
    const struct p4ast *ks = c->a;
    int n = ks->kind == P4AST_E_LIST ? ks->nlist : 1;
    if (ks->kind == P4AST_E_DEFAULT) {
        for (int i = 0; i < st->nkeys; i++)
            pc->kind[i] = P4SEL_DEFAULT;
        return;
    }
    if (n != st->nkeys) {
        p4sem_err(s, ks->loc, "case has %d values, select has %d keys", n, st->nkeys);
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct p4ast *e = ks->kind == P4AST_E_LIST ? ks->list[i] : ks;
        struct p4_type *t = st->keys[i]->type;
        if (e->kind == P4AST_E_DEFAULT) {
            pc->kind[i] = P4SEL_DEFAULT;
            continue;
        }
        if (e->kind == P4AST_E_NAME) {
            struct p4sym *y = p4scope_lookup(s, e->name);
            if (y && y->kind == SYM_EXTERN_INST &&
                s->prog->externs[y->ext].kind == P4EXT_VALUE_SET) {
                if (s->prog->externs[y->ext].width != t->width)
                    p4sem_err(s, e->loc, "value set '%s' holds bit<%d> values, the key is %d bits",
                              e->name, s->prog->externs[y->ext].width, t->width);
                pc->kind[i] = P4SEL_VSET;
                pc->v[i] = (uint64_t)y->ext;
                continue;
            }
        }
        const struct p4ast *va = e->kind == P4AST_E_MASK || e->kind == P4AST_E_RANGE ? e->a : e;
        struct p4ir_expr *v =
            p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, va), t, "select case"));
        if (!p4irgen_is_const(v)) {
            p4sem_err(s, va->loc, "select case must be a constant");
            continue;
        }
        pc->v[i] = v->k;
        pc->kind[i] = P4SEL_VALUE;
        if (e->kind != P4AST_E_DEFAULT && e != va) {
            struct p4ir_expr *m =
                p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, e->b), t, "select case"));
            if (!p4irgen_is_const(m)) {
                p4sem_err(s, e->b->loc, "select case must be a constant");
                continue;
            }
            pc->m[i] = m->k;
            pc->kind[i] = e->kind == P4AST_E_MASK ? P4SEL_MASK : P4SEL_RANGE;
            if (e->kind == P4AST_E_MASK)
                pc->v[i] &= pc->m[i];
        }
    }
}

/* transition name | transition select (keys) { cases } */
static void lower_transition(struct p4sem *s, const struct frame *fr, int cur,
                             const struct p4ast *a)
{
    struct p4ir_state *st = &s->prog->states[cur];
    if (a->a->kind == P4AST_E_NAME) {
        st->next = state_index(s, fr, a->a->name, a->a->loc);
        return;
    }
    const struct p4ast *sel = a->a;
    if (sel->nlist2 > P4_SELECT_KEYS_MAX) {
        p4sem_err(s, sel->loc, "select has %d keys; at most %d are supported", sel->nlist2,
                  P4_SELECT_KEYS_MAX);
        return;
    }
    st->nkeys = sel->nlist2;
    st->keys = NEWN(s, struct p4ir_expr *, sel->nlist2);
    for (int k = 0; k < sel->nlist2; k++) {
        st->keys[k] = p4expr_lower(s, sel->list2[k]);
        if (!p4type_is_scalar(st->keys[k]->type) || st->keys[k]->nw > 1 ||
            st->keys[k]->type->kind == P4T_INFINT)
            p4sem_err(s, sel->list2[k]->loc, "select key must be a scalar of at most 64 bits");
    }
    st->ncases = sel->nlist;
    st->cases = NEWN(s, struct p4ir_case, sel->nlist);
    for (int k = 0; k < sel->nlist; k++)
        select_case(s, fr, st, k, sel->list[k]);
}

/* The sub-parser instance a statement applies (`inst.apply(...);`), or NULL. */
static struct p4prs_inst *subparser_call(struct p4sem *s, const struct p4ast *a)
{
    if (a->kind != P4AST_S_CALL || a->a->a->kind != P4AST_E_MEMBER)
        return NULL;
    const struct p4ast *m = a->a->a;
    if (strcmp(m->name, "apply") != 0 || m->a->kind != P4AST_E_NAME)
        return NULL;
    struct p4sym *y = p4scope_lookup(s, m->a->name);
    return y && y->kind == SYM_PARSER_INST ? y->parser : NULL;
}

/* The instance's scope: its packet_in, its parameters in their own slots, its locals. */
static void prepare_instance(struct p4sem *s, struct p4prs_inst *in)
{
    const struct p4ast *d = in->decl;
    struct p4scope *saved = s->scope;
    const char *saved_prefix = s->prefix;
    s->scope = s->global;
    s->prefix = in->name;
    p4scope_push(s);
    in->ptypes = NEWN(s, struct p4_type *, d->nlist);
    in->pslots = NEWN(s, int, d->nlist);
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *p = d->list[i];
        struct p4_type *t = p4type_resolve(s, p->a);
        if (t == s->t_packet_in) {
            p4scope_declare(s, p->name, SYM_PACKET, p->loc);
            continue;
        }
        if (!p4type_storable(s, t, p->loc, "a parser parameter"))
            continue;
        in->ptypes[i] = t;
        in->pslots[i] = p4irgen_slots(s, t->nslots);
        struct p4sym *y = p4scope_declare(s, p->name, SYM_VAR, p->loc);
        y->type = t;
        y->slot = in->pslots[i];
    }
    if (d->nlist2)
        p4sem_err(s, d->loc, "constructor parameters of parsers are not supported");
    p4ctl_locals(s, d->a, &in->init);
    in->scope = s->scope;
    in->ready = true;
    s->scope = saved;
    s->prefix = saved_prefix;
}

/* Binds the call's arguments: copy-in (and the locals' initialization) into the top half,
 * copy-out into the bottom half. */
static void bind_args(struct p4sem *s, struct p4prs_inst *in, const struct p4ast *call, int top,
                      int bottom)
{
    const struct p4ast *d = in->decl;
    if (call->nlist != d->nlist) {
        p4sem_err(s, call->loc, "'%s' expects %d arguments, got %d", d->name, d->nlist,
                  call->nlist);
        return;
    }
    struct p4ir_expr **pinned = NEWN(s, struct p4ir_expr *, d->nlist);
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *arg = call->list[i];
        struct p4_type *t = in->ptypes[i];
        struct p4ir_block *tb = &s->prog->states[top].body;
        if (!t) { /* the packet */
            struct p4sym *y = arg->kind == P4AST_E_NAME ? p4scope_lookup(s, arg->name) : NULL;
            if (!y || y->kind != SYM_PACKET || y->packet_out)
                p4sem_err(s, arg->loc, "a sub-parser's packet_in argument must be a packet_in");
            continue;
        }
        struct p4ir_expr *param = p4irgen_expr(s, P4OP_LOAD, t, arg->loc);
        param->slot = in->pslots[i];
        enum p4_dir dir = d->list[i]->dir;
        bool dontcare = arg->kind == P4AST_E_NAME && strcmp(arg->name, "_") == 0;
        if (dir == P4_DIR_OUT || dir == P4_DIR_INOUT) {
            if (!dontcare)
                pinned[i] = p4stmt_pin_ref(
                    s, tb, p4expr_lower_ref(s, arg, "argument for an out parameter"));
            if (dir == P4_DIR_INOUT && pinned[i])
                p4stmt_assign(s, tb, param, NULL, pinned[i], arg->loc);
            else
                p4stmt_zero(s, tb, param);
        } else {
            p4stmt_assign(s, tb, param, arg, NULL, arg->loc);
        }
    }
    struct p4ir_block *tb = &s->prog->states[top].body;
    for (int i = 0; i < in->init.n; i++)
        p4irgen_append(s, tb, in->init.s[i]);
    for (int i = 0; i < d->nlist; i++) {
        if (!pinned[i])
            continue;
        struct p4ir_expr *param = p4irgen_expr(s, P4OP_LOAD, in->ptypes[i], call->loc);
        param->slot = in->pslots[i];
        p4stmt_assign(s, &s->prog->states[bottom].body, pinned[i], NULL, param, call->loc);
    }
}

static void lower_states(struct p4sem *s, const struct frame *fr);

/* `inst.apply(args);` in state `cur`: cur jumps into a fresh copy of the callee's states,
 * whose accept is a new state continuing cur. Returns that continuation. */
static int inline_call(struct p4sem *s, const struct frame *fr, int cur, const struct p4ast *a,
                       struct p4prs_inst *in)
{
    const struct p4ast *call = a->a;
    if (fr->depth >= P4PRS_MAX_DEPTH) {
        p4sem_err(s, a->loc, "sub-parsers nested more than %d deep", P4PRS_MAX_DEPTH);
        return cur;
    }
    if (!in->ready)
        prepare_instance(s, in);
    const char *name = s->prog->states[cur].name;
    int cont =
        add_state(s, p4irgen_keep(s, p4util_asprintf("%s.after_%s", name, in->name)), a->loc);
    bind_args(s, in, call, cur, cont);
    struct frame callee = {in->decl, in->name, s->prog->nstates, cont, fr->depth + 1};
    const struct p4ast *states = in->decl->b;
    int start = -1;
    for (int i = 0; i < states->nlist; i++) {
        add_state(s, p4irgen_keep(s, p4util_asprintf("%s.%s", in->name, states->list[i]->name)),
                  states->list[i]->loc);
        if (strcmp(states->list[i]->name, "start") == 0)
            start = callee.base + i;
    }
    if (start < 0)
        p4sem_err(s, in->decl->loc, "parser '%s' has no start state", in->decl->name);
    s->prog->states[cur].next = start < 0 ? P4_STATE_REJECT : start;
    struct p4scope *saved = s->scope;
    s->scope = in->scope;
    lower_states(s, &callee);
    s->scope = saved;
    return cont;
}

/* The statements of one state, split at each sub-parser call. */
static void lower_state(struct p4sem *s, const struct frame *fr, int k)
{
    const struct p4ast *sd = fr->decl->b->list[k];
    int cur = fr->base + k;
    p4scope_push(s);
    bool has_transition = false;
    for (int j = 0; j < sd->nlist; j++) {
        const struct p4ast *a = sd->list[j];
        if (has_transition)
            p4sem_err(s, a->loc, "statement after transition");
        struct p4prs_inst *in = subparser_call(s, a);
        if (a->kind == P4AST_S_TRANSITION) {
            has_transition = true;
            lower_transition(s, fr, cur, a);
        } else if (in) {
            cur = inline_call(s, fr, cur, a, in);
        } else {
            p4stmt_lower(s, a, &s->prog->states[cur].body);
        }
    }
    if (!has_transition) /* P4: a state without transition goes to reject */
        s->prog->states[cur].next = P4_STATE_REJECT;
    p4scope_pop(s);
}

static void lower_states(struct p4sem *s, const struct frame *fr)
{
    const struct p4ast *states = fr->decl->b;
    for (int i = 0; i < states->nlist; i++) {
        for (int j = 0; j < i; j++) {
            if (strcmp(states->list[j]->name, states->list[i]->name) == 0)
                p4sem_err(s, states->list[i]->loc, "duplicate state '%s'", states->list[i]->name);
        }
    }
    for (int i = 0; i < states->nlist; i++)
        lower_state(s, fr, i);
}

void p4prs_instance(struct p4sem *s, const struct p4ast *inst, const struct p4ast *decl)
{
    struct p4prs_inst *in = NEW(s, struct p4prs_inst);
    in->decl = decl;
    in->name = p4sem_qualify(s, inst);
    struct p4sym *y = p4scope_declare(s, inst->name, SYM_PARSER_INST, inst->loc);
    y->decl = decl;
    y->parser = in;
}

/* The package's parser: parameters bound to the packet slots. */
static void bind_top_params(struct p4sem *s, const struct p4ast *decl)
{
    for (int i = 0; i < decl->nlist; i++) {
        const struct p4ast *p = decl->list[i];
        struct p4_type *t = p4type_resolve(s, p->a);
        if (t == s->t_packet_in) {
            struct p4sym *y = p4scope_declare(s, p->name, SYM_PACKET, p->loc);
            y->packet_out = false;
            continue;
        }
        int slot = t == s->prog->hdr_type    ? s->prog->hdr_slot
                   : t == s->prog->meta_type ? s->prog->meta_slot
                   : t == s->prog->std_type  ? s->prog->std_slot
                                             : -1;
        if (slot < 0) {
            p4sem_err(s, p->loc, "unexpected parser parameter '%s'", p->name);
            continue;
        }
        struct p4sym *y = p4scope_declare(s, p->name, SYM_VAR, p->loc);
        y->type = t;
        y->slot = slot;
    }
}

void p4prs_lower(struct p4sem *s, const struct p4ast *decl)
{
    s->scope = s->global;
    p4scope_push(s);
    s->prefix = decl->name;
    s->in_parser = true;
    bind_top_params(s, decl);
    p4ctl_locals(s, decl->a, &s->prog->parser_init);
    const struct p4ast *states = decl->b;
    s->prog->start_state = -1;
    for (int i = 0; i < states->nlist; i++) {
        add_state(s, states->list[i]->name, states->list[i]->loc);
        if (strcmp(states->list[i]->name, "start") == 0)
            s->prog->start_state = i;
    }
    if (s->prog->start_state < 0)
        p4sem_err(s, decl->loc, "parser '%s' has no start state", decl->name);
    struct frame top = {decl, decl->name, 0, P4_STATE_ACCEPT, 0};
    lower_states(s, &top);
    s->in_parser = false;
    s->prefix = NULL;
}
