/* Controls, actions and functions: see p4ctl.h. */
#include "p4/engine/p4ctl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4extern.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4tbldecl.h"
#include "p4/engine/p4type.h"

#include <string.h>

struct p4ir_callable *p4ctl_new_callable(struct p4sem *s, enum p4ir_call_kind k, const char *name,
                                         const struct p4ast *params, struct p4_loc loc)
{
    struct p4ir_callable *fn = NEW(s, struct p4ir_callable);
    fn->kind = k;
    fn->name = name;
    fn->loc = loc;
    fn->nparams = params ? params->nlist : 0;
    fn->params = NEWN(s, struct p4ir_param, fn->nparams);
    for (int i = 0; i < fn->nparams; i++) {
        const struct p4ast *p = params->list[i];
        struct p4ir_param *q = &fn->params[i];
        q->name = p->name;
        q->dir = p->dir;
        q->type = p4type_resolve(s, p->a);
        p4type_storable(s, q->type, p->loc, "a parameter");
        q->nslots = q->type->nslots;
        q->slot = p4irgen_slots(s, q->nslots);
    }
    return fn;
}

void p4ctl_bind_params(struct p4sem *s, struct p4ir_callable *fn, const struct p4ast *params)
{
    for (int i = 0; i < fn->nparams; i++) {
        struct p4sym *y = p4scope_declare(s, fn->params[i].name, SYM_VAR, params->list[i]->loc);
        y->type = fn->params[i].type;
        y->slot = fn->params[i].slot;
    }
}

struct p4ir_callable *p4ctl_lower_action(struct p4sem *s, const struct p4ast *d)
{
    const char *name = p4sem_qualify(s, d);
    struct p4ir_callable *fn = p4ctl_new_callable(s, P4CALL_ACTION, name, d, d->loc);
    fn->id = s->prog->nactions;
    P4_PUSH(s->prog->actions, s->prog->nactions, s->prog->capactions, fn);
    p4scope_push(s);
    p4ctl_bind_params(s, fn, d);
    struct p4ir_callable *saved = s->cur_fn;
    bool saved_act = s->in_action;
    s->cur_fn = fn;
    s->in_action = true;
    p4stmt_block(s, d->a, &fn->body);
    s->cur_fn = saved;
    s->in_action = saved_act;
    p4scope_pop(s);
    return fn;
}

void p4ctl_lower_function(struct p4sem *s, const struct p4ast *d)
{
    struct p4ir_callable *fn = p4ctl_new_callable(s, P4CALL_FUNC, d->name, d, d->loc);
    fn->ret_type = p4type_resolve(s, d->a);
    if (fn->ret_type != s->t_void) {
        if (!p4type_is_scalar(fn->ret_type) && !p4type_is_compound(fn->ret_type))
            p4sem_err(s, d->a->loc, "functions must return a scalar, a header or a struct");
        fn->ret_slot = p4irgen_slots(s, fn->ret_type->nslots);
    }
    p4scope_push(s);
    p4ctl_bind_params(s, fn, d);
    struct p4ir_callable *saved = s->cur_fn;
    s->cur_fn = fn;
    p4stmt_block(s, d->b, &fn->body);
    s->cur_fn = saved;
    p4scope_pop(s);
    /* declared after its body: P4 has no recursion */
    struct p4sym *y = p4scope_declare(s, d->name, SYM_FUNC, d->loc);
    y->fn = fn;
}

void p4ctl_locals(struct p4sem *s, const struct p4ast *locals, struct p4ir_block *init)
{
    for (int i = 0; i < locals->nlist; i++) {
        const struct p4ast *l = locals->list[i];
        switch (l->kind) {
        case P4AST_D_CONST:
            p4stmt_const_decl(s, l);
            break;
        case P4AST_S_VAR:
            p4stmt_var_decl(s, l, init);
            break;
        case P4AST_D_INST:
            p4extern_instantiate(s, l);
            break;
        case P4AST_D_VALUE_SET: {
            struct p4ir_extern x;
            memset(&x, 0, sizeof(x));
            x.kind = P4EXT_VALUE_SET;
            x.name = p4sem_qualify(s, l);
            x.loc = l->loc;
            struct p4_type *vt = p4type_resolve(s, l->a);
            if (!p4type_is_num(vt) || vt->width > 64)
                p4sem_err(s, l->a->loc, "value_set elements must be bit<W> (W <= 64)");
            x.width = vt->width ? vt->width : 1;
            x.nw = 1;
            struct p4_big v;
            x.size = 0;
            if (p4expr_const_int(s, l->b, &v))
                x.size = (int)(v.w[0] > 4096 ? 4096 : v.w[0]);
            P4_PUSH(s->prog->externs, s->prog->nexterns, s->prog->capexterns, x);
            struct p4sym *y = p4scope_declare(s, l->name, SYM_EXTERN_INST, l->loc);
            y->ext = s->prog->nexterns - 1;
            break;
        }
        case P4AST_D_ACTION: {
            struct p4ir_callable *fn = p4ctl_lower_action(s, l);
            struct p4sym *y = p4scope_declare(s, l->name, SYM_ACTION, l->loc);
            y->fn = fn;
            break;
        }
        case P4AST_D_TABLE:
            p4tbldecl_lower(s, l);
            break;
        default:
            p4sem_err(s, l->loc, "declaration not allowed here");
            break;
        }
    }
}

/* Binds constructor parameters to the instantiation's constant arguments. */
static void bind_ctor(struct p4sem *s, const struct p4ast *decl, const struct p4ast *args_from,
                      struct p4scope *arg_scope)
{
    int n = args_from ? args_from->nlist : 0;
    if (n != decl->nlist2) {
        p4sem_err(s, args_from ? args_from->loc : decl->loc,
                  "'%s' expects %d constructor arguments", decl->name, decl->nlist2);
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct p4ast *p = decl->list2[i];
        struct p4scope *saved = s->scope;
        s->scope = arg_scope;
        struct p4_type *t = p4type_resolve(s, p->a);
        struct p4ir_expr *v =
            p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, args_from->list[i]), t, "argument"));
        s->scope = saved;
        if (!p4irgen_is_const(v)) {
            p4sem_err(s, args_from->list[i]->loc, "constructor argument must be a constant");
            continue;
        }
        struct p4sym *y = p4scope_declare(s, p->name, SYM_CONST, p->loc);
        y->type = t;
        y->cval = v;
    }
}

/* Lowers one instance of a control. Top-level instances bind their parameters to the
 * packet slots; nested ones get their own parameter slots (copy-in/copy-out). */
struct p4ir_callable *p4ctl_lower(struct p4sem *s, const struct p4ast *decl, const char *prefix,
                                  bool top, const struct p4ast *ctor_args,
                                  struct p4scope *arg_scope)
{
    const char *saved_prefix = s->prefix;
    struct p4scope *saved_scope = s->scope;
    s->prefix = prefix;
    s->scope = s->global;
    p4scope_push(s);
    struct p4ir_callable *fn;
    if (top) {
        fn = NEW(s, struct p4ir_callable);
        fn->kind = P4CALL_CONTROL;
        fn->name = prefix;
        fn->loc = decl->loc;
        for (int i = 0; i < decl->nlist; i++) {
            const struct p4ast *p = decl->list[i];
            struct p4_type *t = p4type_resolve(s, p->a);
            if (t == s->t_packet_in || t == s->t_packet_out) {
                struct p4sym *y = p4scope_declare(s, p->name, SYM_PACKET, p->loc);
                y->packet_out = t == s->t_packet_out;
                continue;
            }
            int slot = -1;
            if (t == s->prog->hdr_type)
                slot = s->prog->hdr_slot;
            else if (t == s->prog->meta_type)
                slot = s->prog->meta_slot;
            else if (t == s->prog->std_type)
                slot = s->prog->std_slot;
            if (slot < 0) {
                char b1[64];
                p4sem_err(s, p->loc, "parameter '%s' of type %s does not match the parser's types",
                          p->name, p4type_str(t, b1, sizeof(b1)));
                continue;
            }
            struct p4sym *y = p4scope_declare(s, p->name, SYM_VAR, p->loc);
            y->type = t;
            y->slot = slot;
        }
    } else {
        fn = p4ctl_new_callable(s, P4CALL_CONTROL, prefix, decl, decl->loc);
        p4ctl_bind_params(s, fn, decl);
    }
    bind_ctor(s, decl, ctor_args, arg_scope);
    struct p4ir_block *saved_inits = s->inits;
    s->inits = &fn->body;
    p4ctl_locals(s, decl->a, &fn->body);
    struct p4ir_callable *saved_fn = s->cur_fn;
    s->cur_fn = fn;
    if (decl->c)
        p4stmt_block(s, decl->c, &fn->body);
    s->cur_fn = saved_fn;
    s->inits = saved_inits;
    s->scope = saved_scope;
    s->prefix = saved_prefix;
    return fn;
}

/* Lowers an instance of control `decl` (its body is lowered once per instance). An instance of
 * a control inside itself, directly or through others, is refused: it would never end. */
void p4ctl_instance(struct p4sem *s, const struct p4ast *inst, const struct p4ast *decl)
{
    struct p4sym *y = p4scope_declare(s, inst->name, SYM_CONTROL_INST, inst->loc);
    y->fn = NULL; /* applying it is then a no-op after the error */
    for (int i = 0; i < s->nctl; i++) {
        if (s->ctl_stack[i] == decl) {
            p4sem_err(s, inst->loc, "control '%s' is instantiated inside itself (instance '%s')",
                      decl->name, inst->name);
            return;
        }
    }
    if (s->nctl == P4SEM_MAX_INST) {
        p4sem_err(s, inst->loc, "control instances nested too deep (more than %d levels)",
                  P4SEM_MAX_INST);
        return;
    }
    s->ctl_stack[s->nctl++] = decl;
    y->fn = p4ctl_lower(s, decl, p4sem_qualify(s, inst), false, inst, s->scope);
    s->nctl--;
}
