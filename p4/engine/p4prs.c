/* Parsers: see p4prs.h. */
#include "p4/engine/p4prs.h"
#include "p4/engine/p4ctl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4type.h"

#include <string.h>

static int state_index(struct p4sem *s, const char *name, struct p4_loc loc)
{
    if (strcmp(name, "accept") == 0)
        return P4_STATE_ACCEPT;
    if (strcmp(name, "reject") == 0)
        return P4_STATE_REJECT;
    for (int i = 0; i < s->prog->nstates; i++) {
        if (strcmp(s->prog->states[i].name, name) == 0)
            return i;
    }
    p4sem_err(s, loc, "unknown parser state '%s'", name);
    return P4_STATE_REJECT;
}

static void select_case(struct p4sem *s, struct p4ir_state *st, int ci, const struct p4ast *c)
{
    struct p4ir_case *pc = &st->cases[ci];
    pc->v = NEWN(s, uint64_t, st->nkeys);
    pc->m = NEWN(s, uint64_t, st->nkeys);
    pc->kind = NEWN(s, uint8_t, st->nkeys);
    pc->next = state_index(s, c->name, c->loc);
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

void p4prs_lower(struct p4sem *s, const struct p4ast *decl)
{
    s->scope = s->global;
    p4scope_push(s);
    s->prefix = decl->name;
    s->in_parser = true;
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
    p4ctl_locals(s, decl->a, &s->prog->parser_init);
    const struct p4ast *states = decl->b;
    s->prog->nstates = states->nlist;
    s->prog->states = NEWN(s, struct p4ir_state, states->nlist);
    s->prog->start_state = -1;
    for (int i = 0; i < states->nlist; i++) {
        s->prog->states[i].name = states->list[i]->name;
        s->prog->states[i].loc = states->list[i]->loc;
        for (int j = 0; j < i; j++) {
            if (strcmp(states->list[j]->name, states->list[i]->name) == 0)
                p4sem_err(s, states->list[i]->loc, "duplicate state '%s'", states->list[i]->name);
        }
        if (strcmp(states->list[i]->name, "start") == 0)
            s->prog->start_state = i;
    }
    if (s->prog->start_state < 0)
        p4sem_err(s, decl->loc, "parser '%s' has no start state", decl->name);
    for (int i = 0; i < states->nlist; i++) {
        const struct p4ast *sd = states->list[i];
        struct p4ir_state *st = &s->prog->states[i];
        st->next = P4_STATE_REJECT;
        p4scope_push(s);
        bool has_transition = false;
        for (int j = 0; j < sd->nlist; j++) {
            const struct p4ast *a = sd->list[j];
            if (a->kind != P4AST_S_TRANSITION) {
                if (has_transition)
                    p4sem_err(s, a->loc, "statement after transition");
                p4stmt_lower(s, a, &st->body);
                continue;
            }
            has_transition = true;
            if (a->a->kind == P4AST_E_NAME) {
                st->next = state_index(s, a->a->name, a->a->loc);
                continue;
            }
            const struct p4ast *sel = a->a;
            st->nkeys = sel->nlist2;
            st->keys = NEWN(s, struct p4ir_expr *, sel->nlist2);
            for (int k = 0; k < sel->nlist2; k++) {
                st->keys[k] = p4expr_lower(s, sel->list2[k]);
                if (!p4type_is_scalar(st->keys[k]->type) || st->keys[k]->nw > 1 ||
                    st->keys[k]->type->kind == P4T_INFINT)
                    p4sem_err(s, sel->list2[k]->loc,
                              "select key must be a scalar of at most 64 bits");
            }
            st->ncases = sel->nlist;
            st->cases = NEWN(s, struct p4ir_case, sel->nlist);
            for (int k = 0; k < sel->nlist; k++)
                select_case(s, st, k, sel->list[k]);
        }
        if (!has_transition)
            st->next = P4_STATE_REJECT; /* P4: a state without transition goes to reject */
        p4scope_pop(s);
    }
    s->in_parser = false;
    s->prefix = NULL;
}
