/* v1model externs: see p4extern.h. */
#include "p4/engine/p4extern.h"
#include "p4/engine/p4call.h"
#include "p4/engine/p4ctl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4type.h"
#include "p4/engine/p4hash.h"

#include <stdlib.h>
#include <string.h>

static struct p4_type *ext_type_for_error(struct p4sem *s)
{
    return s->t_error;
}

static int hash_algo(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *e = p4expr_fold(s, p4expr_lower(s, a));
    if (!p4irgen_is_const(e) || e->type->kind != P4T_ENUM ||
        strcmp(e->type->name, "HashAlgorithm")) {
        p4sem_err(s, a->loc, "expected a HashAlgorithm constant");
        return 0;
    }
    return (int)e->k;
}

/* Flattens a data list argument ({a, b}, a header or a struct) into value expressions. */
static void flatten(struct p4sem *s, const struct p4ast *a, struct p4ir_expr *e,
                    struct p4ir_expr ***out, int *n, int *cap)
{
    if (a && a->kind == P4AST_E_LIST) {
        for (int i = 0; i < a->nlist; i++)
            flatten(s, a->list[i], NULL, out, n, cap);
        return;
    }
    if (!e)
        e = p4expr_lower(s, a);
    struct p4_type *t = e->type;
    if (t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_UNION) {
        if (!p4irgen_is_ref(e)) {
            p4sem_err(s, e->loc, "unsupported value in a data list");
            return;
        }
        for (int i = 0; i < t->nfields; i++)
            flatten(s, NULL, p4irgen_field_ref(s, e, t->fields[i].off, t->fields[i].type, e->loc),
                    out, n, cap);
        return;
    }
    if (t->kind == P4T_VARBIT && p4irgen_is_ref(e)) {
        P4_PUSH(*out, *n, *cap, e);
        return;
    }
    if (t->kind == P4T_INFINT || !p4type_is_scalar(t)) {
        p4sem_err(s, e->loc, "data list elements need a known width");
        return;
    }
    P4_PUSH(*out, *n, *cap, e);
}

/* Field list for clone3/resubmit(data) (legacy) or @field_list(N) (current). */
static int field_list_from_data(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr **v = NULL;
    int n = 0;
    int cap = 0;
    flatten(s, a, NULL, &v, &n, &cap);
    struct p4ir_field_list fl;
    fl.id = 1000000 + s->next_field_list++;
    fl.nr = 0;
    fl.r = p4util_calloc((size_t)(n ? n : 1), sizeof(*fl.r));
    for (int i = 0; i < n; i++) {
        if (v[i]->op != P4OP_LOAD || v[i]->slot >= s->prog->npkt_slots) {
            p4sem_err(s, v[i]->loc, "preserved fields must be packet metadata");
            continue;
        }
        fl.r[fl.nr].slot = v[i]->slot;
        fl.r[fl.nr].n = v[i]->nw;
        fl.nr++;
    }
    free(v);
    P4_PUSH(s->prog->field_lists, s->prog->nfield_lists, s->prog->capfield_lists, fl);
    return fl.id;
}

static int field_list_index(struct p4sem *s, const struct p4ast *a)
{
    struct p4_big v;
    if (!p4expr_const_int(s, a, &v))
        return -1;
    return (int)v.w[0];
}

static struct p4ir_stmt *builtin(struct p4sem *s, struct p4ir_block *b, enum p4builtin id,
                                 struct p4_loc loc, int nargs)
{
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_BUILTIN, loc);
    st->aux = id;
    st->nargs = nargs;
    st->args = NEWN(s, struct p4ir_expr *, nargs);
    return st;
}

static int enum_arg(struct p4sem *s, const struct p4ast *a, const char *enum_name)
{
    struct p4ir_expr *e = p4expr_fold(s, p4expr_lower(s, a));
    if (!p4irgen_is_const(e) || e->type->kind != P4T_ENUM ||
        strcmp(e->type->name, enum_name) != 0) {
        p4sem_err(s, a->loc, "expected a %s constant", enum_name);
        return 0;
    }
    return (int)e->k;
}

void p4extern_instantiate(struct p4sem *s, const struct p4ast *d)
{
    const struct p4ast *t = d->a;
    const char *tn = t->kind == P4AST_TY_NAME ? t->name : "";
    struct p4sym *ty = p4scope_lookup(s, tn);
    if (ty && ty->kind == SYM_CONTROL_DECL) {
        p4ctl_instance(s, d, ty->decl);
        return;
    }
    struct p4ir_extern x;
    memset(&x, 0, sizeof(x));
    x.name = p4sem_qualify(s, d);
    x.loc = d->loc;
    x.size = 1;
    struct p4_big v;
    if (strcmp(tn, "register") == 0) {
        x.kind = P4EXT_REGISTER;
        if (t->nlist < 1 || d->nlist != 1) {
            p4sem_err(s, d->loc, "register needs a type argument and a size");
            return;
        }
        struct p4_type *et = p4type_resolve(s, t->list[0]);
        if (!p4type_is_scalar(et) || et->kind == P4T_INFINT) {
            p4sem_err(s, t->list[0]->loc, "register elements must be bit<W> or int<W>");
            return;
        }
        x.width = et->width;
        x.nw = et->nslots;
        if (p4expr_const_int(s, d->list[0], &v))
            x.size = (int)v.w[0];
    } else if (strcmp(tn, "counter") == 0 || strcmp(tn, "meter") == 0) {
        bool c = tn[0] == 'c';
        x.kind = c ? P4EXT_COUNTER : P4EXT_METER;
        if (d->nlist != 2) {
            p4sem_err(s, d->loc, "%s needs a size and a type", tn);
            return;
        }
        if (p4expr_const_int(s, d->list[0], &v))
            x.size = (int)v.w[0];
        x.ctype = enum_arg(s, d->list[1], c ? "CounterType" : "MeterType");
    } else if (strcmp(tn, "direct_counter") == 0 || strcmp(tn, "direct_meter") == 0) {
        bool c = tn[7] == 'c';
        x.kind = c ? P4EXT_DIRECT_COUNTER : P4EXT_DIRECT_METER;
        if (d->nlist != 1) {
            p4sem_err(s, d->loc, "%s needs a type", tn);
            return;
        }
        x.ctype = enum_arg(s, d->list[0], c ? "CounterType" : "MeterType");
        x.size = 0;
    } else {
        p4sem_err(s, t->loc, "instances of '%s' are not supported", tn);
        return;
    }
    if (x.size < 0 || x.size > (1 << 24)) {
        p4sem_err(s, d->loc, "%s size out of range", tn);
        x.size = 1;
    }
    P4_PUSH(s->prog->externs, s->prog->nexterns, s->prog->capexterns, x);
    struct p4sym *y = p4scope_declare(s, d->name, SYM_EXTERN_INST, d->loc);
    y->ext = s->prog->nexterns - 1;
}

/* hash(out result, in HashAlgorithm algo, in T base, in D data, in M max) */
static void call_hash(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    struct p4ir_expr *out = p4expr_lower_ref(s, call->list[0], "hash result");
    if (!out)
        return;
    struct p4ir_expr **v = NULL;
    int n = 0;
    int cap = 0;
    flatten(s, call->list[3], NULL, &v, &n, &cap);
    struct p4ir_stmt *st = builtin(s, b, P4B_HASH, call->loc, 3 + n);
    st->aux2 = hash_algo(s, call->list[1]);
    st->args[0] = out;
    st->args[1] = p4call_value_arg(s, call->list[2], NULL);
    st->args[2] = p4call_value_arg(s, call->list[4], NULL);
    if (st->args[1]->nw > 1)
        p4sem_err(s, call->loc, "hash base must be at most 64 bits");
    for (int i = 0; i < n; i++)
        st->args[3 + i] = v[i];
    free(v);
}

/* verify_checksum / update_checksum (and _with_payload)(in bool cond, in T data,
 * inout O checksum, HashAlgorithm algo) */
static void call_checksum(struct p4sem *s, const struct p4ast *call, const char *name,
                          struct p4ir_block *b)
{
    bool verify = name[0] == 'v';
    struct p4ir_expr *cond =
        p4expr_coerce(s, p4expr_lower(s, call->list[0]), s->t_bool, "condition");
    struct p4ir_expr *field = p4expr_lower_ref(s, call->list[2], "checksum field");
    if (!field)
        return;
    struct p4ir_expr **v = NULL;
    int n = 0;
    int cap = 0;
    flatten(s, call->list[1], NULL, &v, &n, &cap);
    struct p4ir_stmt *st =
        builtin(s, b, verify ? P4B_VERIFY_CKSUM : P4B_UPDATE_CKSUM, call->loc, 2 + n);
    st->aux2 = hash_algo(s, call->list[3]);
    st->args[0] = cond;
    st->args[1] = field;
    st->flag = strstr(name, "payload") != NULL;
    for (int i = 0; i < n; i++)
        st->args[2 + i] = v[i];
    free(v);
}

/* clone(type, session), clone3(type, session, data), clone_preserving_field_list(type,
 * session, index) */
static void call_clone(struct p4sem *s, const struct p4ast *call, const char *name,
                       struct p4ir_block *b)
{
    int want = name[5] ? 3 : 2;
    if (!p4call_nargs_ok(s, call, name, want, want))
        return;
    struct p4ir_expr *t = p4expr_fold(s, p4expr_lower(s, call->list[0]));
    if (!p4irgen_is_const(t) || t->type->kind != P4T_ENUM)
        p4sem_err(s, call->list[0]->loc, "expected CloneType.I2E or CloneType.E2E");
    struct p4ir_stmt *st = builtin(s, b, P4B_CLONE, call->loc, 1);
    st->aux2 = -1;
    st->args[0] = p4call_value_arg(s, call->list[1], p4type_bit(s, 32, false));
    st->type = NULL;
    st->vals = NEWN(s, uint64_t, 1);
    st->vals[0] = t->k; /* 0 I2E, 1 E2E */
    if (want == 3)
        st->aux2 = name[5] == '3' ? field_list_from_data(s, call->list[2])
                                  : field_list_index(s, call->list[2]);
}

/* log_msg(string) and log_msg(string, data) */
static void call_log_msg(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    struct p4ir_expr **v = NULL;
    int n = 0;
    int cap = 0;
    if (call->nlist == 2)
        flatten(s, call->list[1], NULL, &v, &n, &cap);
    struct p4ir_stmt *st = builtin(s, b, P4B_LOG_MSG, call->loc, 1 + n);
    st->args[0] = p4expr_lower(s, call->list[0]);
    if (st->args[0]->type != s->t_string)
        p4sem_err(s, call->list[0]->loc, "log_msg needs a string");
    for (int i = 0; i < n; i++)
        st->args[1 + i] = v[i];
    free(v);
}

/* verify(bool condition, error err): parsers only */
static void call_verify(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    if (!s->in_parser) {
        p4sem_err(s, call->loc, "verify() is only allowed in a parser");
        return;
    }
    if (!p4call_nargs_ok(s, call, "verify", 2, 2))
        return;
    struct p4ir_stmt *st = p4irgen_stmt(s, b, P4ST_VERIFY, call->loc);
    st->a = p4expr_coerce(s, p4expr_lower(s, call->list[0]), s->t_bool, "verify");
    st->b = p4expr_coerce(s, p4expr_fold(s, p4expr_lower(s, call->list[1])), ext_type_for_error(s),
                          "verify");
}

void p4extern_call_function(struct p4sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    const char *name = call->a->name;
    struct p4_loc loc = call->loc;
    if (strcmp(name, "mark_to_drop") == 0) {
        p4call_nargs_ok(s, call, name, 0, 1);
        builtin(s, b, P4B_MARK_TO_DROP, loc, 0);
    } else if (strcmp(name, "hash") == 0) {
        if (p4call_nargs_ok(s, call, name, 5, 5))
            call_hash(s, call, b);
    } else if (strcmp(name, "random") == 0) {
        if (!p4call_nargs_ok(s, call, name, 3, 3))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_RANDOM, loc, 3);
        st->args[0] = p4expr_lower_ref(s, call->list[0], "random result");
        if (!st->args[0])
            return;
        st->args[1] = p4call_value_arg(s, call->list[1], st->args[0]->type);
        st->args[2] = p4call_value_arg(s, call->list[2], st->args[0]->type);
    } else if (strcmp(name, "verify_checksum") == 0 || strcmp(name, "update_checksum") == 0 ||
               strcmp(name, "verify_checksum_with_payload") == 0 ||
               strcmp(name, "update_checksum_with_payload") == 0) {
        if (p4call_nargs_ok(s, call, name, 4, 4))
            call_checksum(s, call, name, b);
    } else if (strcmp(name, "clone") == 0 || strcmp(name, "clone3") == 0 ||
               strcmp(name, "clone_preserving_field_list") == 0) {
        call_clone(s, call, name, b);
    } else if (strcmp(name, "resubmit") == 0 || strcmp(name, "recirculate") == 0 ||
               strcmp(name, "resubmit_preserving_field_list") == 0 ||
               strcmp(name, "recirculate_preserving_field_list") == 0) {
        if (!p4call_nargs_ok(s, call, name, 0, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, name[2] == 's' ? P4B_RESUBMIT : P4B_RECIRC, loc, 0);
        st->aux2 = -1;
        if (call->nlist == 1)
            st->aux2 = strstr(name, "field_list") ? field_list_index(s, call->list[0])
                                                  : field_list_from_data(s, call->list[0]);
    } else if (strcmp(name, "digest") == 0) {
        builtin(s, b, P4B_NOP, loc, 0);
    } else if (strcmp(name, "log_msg") == 0) {
        if (p4call_nargs_ok(s, call, name, 1, 2))
            call_log_msg(s, call, b);
    } else if (strcmp(name, "truncate") == 0) {
        if (!p4call_nargs_ok(s, call, name, 1, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_TRUNCATE, loc, 1);
        st->args[0] = p4call_value_arg(s, call->list[0], p4type_bit(s, 32, false));
    } else if (strcmp(name, "assert") == 0 || strcmp(name, "assume") == 0) {
        if (!p4call_nargs_ok(s, call, name, 1, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_ASSERT, loc, 1);
        st->args[0] = p4expr_coerce(s, p4expr_lower(s, call->list[0]), s->t_bool, "assert");
    } else if (strcmp(name, "verify") == 0) {
        call_verify(s, call, b);
    } else {
        p4sem_err(s, call->a->loc, "extern function '%s' is not supported", name);
    }
}

void p4extern_call_method(struct p4sem *s, const struct p4ast *call, const struct p4sym *y,
                          struct p4ir_block *b)
{
    const struct p4ast *m = call->a;
    const char *name = m->name;
    struct p4_loc loc = call->loc;
    const struct p4ir_extern *x = &s->prog->externs[y->ext];
    struct p4ir_stmt *st = NULL;
    if (x->kind == P4EXT_REGISTER && strcmp(name, "read") == 0 &&
        p4call_nargs_ok(s, call, name, 2, 2)) {
        st = builtin(s, b, P4B_REG_READ, loc, 2);
        st->args[0] = p4expr_lower_ref(s, call->list[0], "register read result");
        st->args[1] = p4call_value_arg(s, call->list[1], NULL);
        if (st->args[0] && st->args[0]->width != x->width)
            p4sem_err(s, call->list[0]->loc, "register '%s' holds bit<%d> values", x->name,
                      x->width);
    } else if (x->kind == P4EXT_REGISTER && strcmp(name, "write") == 0 &&
               p4call_nargs_ok(s, call, name, 2, 2)) {
        st = builtin(s, b, P4B_REG_WRITE, loc, 2);
        st->args[0] = p4call_value_arg(s, call->list[0], NULL);
        st->args[1] = p4call_value_arg(s, call->list[1], p4type_bit(s, x->width, false));
        if (st->args[1]->type->kind == P4T_INT || st->args[1]->type->kind == P4T_BOOL ||
            st->args[1]->type->kind == P4T_ENUM)
            st->args[1]->width = st->args[1]->width; /* stored as raw bits */
    } else if (x->kind == P4EXT_COUNTER && strcmp(name, "count") == 0 &&
               p4call_nargs_ok(s, call, name, 1, 1)) {
        st = builtin(s, b, P4B_COUNT, loc, 1);
        st->args[0] = p4call_value_arg(s, call->list[0], NULL);
    } else if (x->kind == P4EXT_DIRECT_COUNTER && strcmp(name, "count") == 0) {
        st = builtin(s, b, P4B_NOP, loc, 0);
    } else if (x->kind == P4EXT_METER && strcmp(name, "execute_meter") == 0 &&
               p4call_nargs_ok(s, call, name, 2, 2)) {
        st = builtin(s, b, P4B_METER, loc, 2);
        st->args[0] = p4call_value_arg(s, call->list[0], NULL);
        st->args[1] = p4expr_lower_ref(s, call->list[1], "meter result");
    } else if (x->kind == P4EXT_DIRECT_METER && strcmp(name, "read") == 0 &&
               p4call_nargs_ok(s, call, name, 1, 1)) {
        st = builtin(s, b, P4B_DMETER, loc, 1);
        st->args[0] = p4expr_lower_ref(s, call->list[0], "meter result");
    } else {
        p4sem_err(s, m->loc, "unknown method '%s' of '%s'", name, x->name);
        return;
    }
    if (st) {
        st->aux2 = y->ext;
        for (int i = 0; i < st->nargs; i++) {
            if (!st->args[i]) {
                b->n--;
                return;
            }
            if (st->args[i]->nw > 1 && !(st->aux == P4B_REG_READ && i == 0) &&
                !(st->aux == P4B_REG_WRITE && i == 1))
                p4sem_err(s, st->args[i]->loc, "index wider than 64 bits");
        }
    }
}
