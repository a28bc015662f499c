/* Expressions: see p4expr.h. */
#include "p4/engine/p4expr.h"
#include "p4/engine/p4call.h"
#include "p4/engine/p4extern.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4type.h"
#include "p4/engine/p4vm.h"

#include <string.h>

static bool foldable(const struct p4ir_expr *e)
{
    if (!e)
        return true;
    switch (e->op) {
    case P4OP_LOAD:
    case P4OP_LOADX:
    case P4OP_CALL:
    case P4OP_HIT:
    case P4OP_MISS:
    case P4OP_LOOKAHEAD:
    case P4OP_ISVALID:
    case P4OP_LASTINDEX:
    case P4OP_EQC:
    case P4OP_NEC:
        return false;
    default:
        return foldable(e->a) && foldable(e->b) && foldable(e->c);
    }
}

/* Replaces a constant typed subtree by its value. */
struct p4ir_expr *p4expr_fold(struct p4sem *s, struct p4ir_expr *e)
{
    if (e->op == P4OP_CONST || e->type->kind == P4T_INFINT || !p4type_is_scalar(e->type) ||
        !foldable(e))
        return e;
    struct p4_big v;
    memset(&v, 0, sizeof(v));
    p4vm_eval_const(e, v.w);
    return p4irgen_const(s, e->type, &v, e->loc);
}

bool p4expr_const_int(struct p4sem *s, const struct p4ast *a, struct p4_big *out)
{
    int before = s->diag->nerrors;
    struct p4ir_expr *e = p4expr_lower(s, a);
    if (s->diag->nerrors != before)
        return false;
    e = p4expr_fold(s, e);
    if (!p4irgen_is_const(e) || !(p4type_is_num(e->type) || e->type->kind == P4T_INFINT ||
                                  e->type->kind == P4T_BOOL || e->type->kind == P4T_ENUM)) {
        p4sem_err(s, a->loc, "expected a compile-time constant");
        return false;
    }
    p4irgen_const_big(e, out);
    return true;
}

/* Implicit conversion to t (integer literals take the type of what they meet). */
/* The element of list e for field i of t: by position, or by name in a `{f = v}` list. */
static struct p4ir_expr *list_element(struct p4sem *s, struct p4ir_expr *e, struct p4_type *t,
                                      int i)
{
    struct p4ir_expr **el = e->ptr;
    if (!e->names)
        return el[i];
    for (int j = 0; j < e->aux2; j++) {
        if (strcmp(e->names[j], t->fields[i].name) == 0)
            return el[j];
    }
    p4sem_err(s, e->loc, "the list gives no value for field '%s'", t->fields[i].name);
    return NULL;
}

/* A list as a value of struct, header or tuple type t (a header built this way is valid). */
static struct p4ir_expr *coerce_list(struct p4sem *s, struct p4ir_expr *e, struct p4_type *t,
                                     const char *what)
{
    if (e->aux2 != t->nfields) {
        p4sem_err(s, e->loc, "'%s' has %d fields, list has %d", t->name, t->nfields, e->aux2);
        return p4irgen_expr(s, P4OP_CONST, s->t_bad, e->loc);
    }
    for (int j = 0; e->names && j < e->aux2; j++) {
        bool found = false;
        for (int i = 0; i < t->nfields && !found; i++)
            found = strcmp(e->names[j], t->fields[i].name) == 0;
        if (!found)
            p4sem_err(s, e->loc, "'%s' has no field '%s'", t->name, e->names[j]);
    }
    struct p4ir_expr *r = p4irgen_expr(s, P4OP_AGG, t, e->loc);
    struct p4ir_expr **el = NEWN(s, struct p4ir_expr *, t->nfields);
    for (int i = 0; i < t->nfields; i++) {
        struct p4ir_expr *v = list_element(s, e, t, i);
        if (!v)
            return p4irgen_expr(s, P4OP_CONST, s->t_bad, e->loc);
        el[i] = p4expr_coerce(s, v, t->fields[i].type, what);
    }
    r->ptr = el;
    r->aux2 = t->nfields;
    r->slot = p4irgen_slots(s, t->nslots); /* built here, then copied: `h = {h.b, h.a}` */
    return r;
}

struct p4ir_expr *p4expr_coerce(struct p4sem *s, struct p4ir_expr *e, struct p4_type *t,
                                const char *what)
{
    if (!e || e->type == t || t->kind == P4T_DONTCARE || e->type == s->t_bad)
        return e;
    if (e->type->kind == P4T_INFINT && p4irgen_is_const(e) &&
        (p4type_is_num(t) || (t->kind == P4T_ENUM && t->serializable))) {
        struct p4_big v;
        p4irgen_const_big(e, &v);
        return p4irgen_const(s, t, &v, e->loc);
    }
    if (e->type->kind == P4T_ENUM && e->type->serializable && p4type_is_num(t) &&
        t->width == e->type->width) {
        struct p4ir_expr *c = p4irgen_expr(s, P4OP_CAST, t, e->loc);
        c->a = e;
        c->awidth = (uint16_t)e->width;
        return p4expr_fold(s, c);
    }
    if (t->kind == P4T_ENUM && t->serializable && p4type_is_num(e->type) && t->width == e->width)
        return e;
    if (e->op == P4OP_AGG && e->type->kind == P4T_LIST &&
        (t->kind == P4T_STRUCT || t->kind == P4T_HEADER))
        return coerce_list(s, e, t, what);
    if (e->type->kind == P4T_LIST || t->kind == P4T_LIST)
        return e;
    char b1[64];
    char b2[64];
    p4sem_err(s, e->loc, "type mismatch in %s: expected %s, got %s", what,
              p4type_str(t, b1, sizeof(b1)), p4type_str(e->type, b2, sizeof(b2)));
    return e;
}

static struct p4ir_expr *bad(struct p4sem *s, struct p4_loc loc)
{
    return p4irgen_expr(s, P4OP_CONST, s->t_bad, loc);
}

static struct p4_type *enum_type_of(struct p4sem *s, const struct p4ast *a)
{
    if (a->kind != P4AST_E_NAME)
        return NULL;
    if (strcmp(a->name, "error") == 0)
        return s->t_error;
    struct p4sym *y = p4scope_lookup(s, a->name);
    if (y && y->kind == SYM_TYPE && y->type->kind == P4T_ENUM)
        return y->type;
    return NULL;
}

struct p4ir_table *p4expr_table_of_apply(struct p4sem *s, const struct p4ast *call)
{
    if (call->kind != P4AST_E_CALL || call->a->kind != P4AST_E_MEMBER ||
        strcmp(call->a->name, "apply") != 0 || call->a->a->kind != P4AST_E_NAME)
        return NULL;
    struct p4sym *y = p4scope_lookup(s, call->a->a->name);
    return y && y->kind == SYM_TABLE ? y->table : NULL;
}

/* A binary node of type t on l and r. */
static struct p4ir_expr *binop(struct p4sem *s, enum p4op o, struct p4_type *t, struct p4ir_expr *l,
                               struct p4ir_expr *r, struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, o, t, loc);
    e->a = l;
    e->b = r;
    return e;
}

/* l ++ r: widths add up (P4_16 8.5) */
static struct p4ir_expr *lower_concat(struct p4sem *s, struct p4_loc loc, struct p4ir_expr *l,
                                      struct p4ir_expr *r)
{
    if (l->type->kind == P4T_INFINT || r->type->kind == P4T_INFINT || !p4type_is_num(l->type) ||
        !p4type_is_num(r->type)) {
        p4sem_err(s, loc, "operands of '++' must have a fixed width");
        return l;
    }
    int w = l->width + r->width;
    if (w > P4_MAXWIDTH) {
        p4sem_err(s, loc, "'++' result wider than %d bits", P4_MAXWIDTH);
        w = P4_MAXWIDTH;
    }
    struct p4ir_expr *e = binop(s, P4OP_CONCAT, p4type_bit(s, w, l->type->is_signed), l, r, loc);
    e->awidth = r->width;
    return p4expr_fold(s, e);
}

/* l << r, l >> r: the type of l; the amount is unsigned */
static struct p4ir_expr *lower_shift(struct p4sem *s, struct p4_loc loc, enum p4op o,
                                     struct p4ir_expr *l, struct p4ir_expr *r)
{
    if (r->type->kind == P4T_INT)
        p4sem_err(s, loc, "shift amount must be unsigned");
    if (l->type->kind == P4T_INFINT) {
        if (!p4irgen_is_const(l) || !p4irgen_is_const(r)) {
            p4sem_err(s, loc, "left operand of shift must have a known width");
            return l;
        }
        struct p4_big v;
        struct p4_big x;
        struct p4_big n;
        p4irgen_const_big(l, &x);
        p4irgen_const_big(r, &n);
        p4ops_fold_infint(o, &v, &x, &n);
        return p4irgen_const(s, s->t_infint, &v, loc);
    }
    if (!p4type_is_num(l->type))
        p4sem_err(s, loc, "shift of a non-integer value");
    if (r->type->kind == P4T_INFINT)
        r = p4expr_coerce(s, r, p4type_bit(s, 32, false), "shift");
    if (r->nw > 1)
        p4sem_err(s, loc, "shift amount wider than 64 bits");
    return p4expr_fold(s, binop(s, o, l->type, l, r, loc));
}

/* Both operands integer literals: folded with arbitrary precision. */
static struct p4ir_expr *fold_literals(struct p4sem *s, struct p4_loc loc, enum p4op o,
                                       struct p4ir_expr *l, struct p4ir_expr *r)
{
    if (!p4irgen_is_const(l) || !p4irgen_is_const(r)) {
        p4sem_err(s, loc, "operation on integers of unknown width");
        return l;
    }
    struct p4_big x;
    struct p4_big y;
    struct p4_big v;
    p4irgen_const_big(l, &x);
    p4irgen_const_big(r, &y);
    p4big_set_u64(&v, 0);
    enum p4ops_class cls = p4ops_class_of(o);
    if (cls == P4OPC_DIVMOD && (p4big_is_zero(&y) || p4big_is_neg(&x) || p4big_is_neg(&y)))
        p4sem_err(s, loc, "division by zero or of a negative value");
    else if (!p4ops_fold_infint(o, &v, &x, &y))
        p4sem_err(s, loc, "unsupported operation on integers of unknown width");
    else if (cls == P4OPC_CMP)
        return p4irgen_const64(s, s->t_bool, v.w[0], loc);
    return p4irgen_const(s, s->t_infint, &v, loc);
}

/* == != < <= > >= on operands of one type */
static struct p4ir_expr *lower_compare(struct p4sem *s, int tok, struct p4_loc loc, enum p4op o,
                                       struct p4ir_expr *l, struct p4ir_expr *r)
{
    bool eq_only = o == P4OP_EQ || o == P4OP_NE;
    if (p4type_is_compound(l->type) && eq_only) {
        if (!p4irgen_is_ref(l) || !p4irgen_is_ref(r)) {
            p4sem_err(s, loc, "comparison of compound values needs references");
            return l;
        }
        struct p4ir_expr *e = binop(s, o == P4OP_EQ ? P4OP_EQC : P4OP_NEC, s->t_bool, l, r, loc);
        e->aux2 = l->type->nslots;
        return e;
    }
    if (!(p4type_is_num(l->type) || (eq_only && p4type_is_scalar(l->type))))
        p4sem_err(s, loc, "operands of '%s' cannot be compared", p4tok_names[tok]);
    struct p4ir_expr *e = binop(s, o, s->t_bool, l, r, loc);
    e->sgn = l->type->kind == P4T_INT;
    e->awidth = l->width;
    return p4expr_fold(s, e);
}

/* Operands of arithmetic and comparisons take one type: a literal takes the other operand's
 * type, a serializable enum its underlying type. */
static void unify(struct p4sem *s, struct p4ir_expr **l, struct p4ir_expr **r)
{
    if ((*l)->type->kind == P4T_INFINT && (*r)->type->kind != P4T_INFINT)
        *l = p4expr_coerce(s, *l, (*r)->type, "operation");
    else if ((*r)->type->kind == P4T_INFINT && (*l)->type->kind != P4T_INFINT)
        *r = p4expr_coerce(s, *r, (*l)->type, "operation");
    else if ((*l)->type != (*r)->type && (*l)->type->kind == P4T_ENUM && p4type_is_num((*r)->type))
        *l = p4expr_coerce(s, *l, (*r)->type, "operation");
    else if ((*l)->type != (*r)->type && (*r)->type->kind == P4T_ENUM && p4type_is_num((*l)->type))
        *r = p4expr_coerce(s, *r, (*l)->type, "operation");
}

struct p4ir_expr *p4expr_binary(struct p4sem *s, int tok, struct p4ir_expr *l, struct p4ir_expr *r,
                                struct p4_loc loc)
{
    if (l->type == s->t_bad)
        return l;
    if (r->type == s->t_bad)
        return r;
    char b1[64];
    char b2[64];
    enum p4op o;
    enum p4ops_class cls;
    if (!p4ops_binary_of(tok, &o, &cls)) {
        p4sem_err(s, loc, "unsupported operator '%s'", p4tok_names[tok]);
        return l;
    }
    if (cls == P4OPC_LOGIC) {
        if (l->type != s->t_bool || r->type != s->t_bool)
            p4sem_err(s, loc, "operands of '%s' must be bool", p4tok_names[tok]);
        return p4expr_fold(s, binop(s, o, s->t_bool, l, r, loc));
    }
    if (cls == P4OPC_CONCAT)
        return lower_concat(s, loc, l, r);
    if (cls == P4OPC_SHIFT)
        return lower_shift(s, loc, o, l, r);
    unify(s, &l, &r);
    if (l->type != r->type) {
        p4sem_err(s, loc, "operands of '%s' have different types (%s and %s)", p4tok_names[tok],
                  p4type_str(l->type, b1, sizeof(b1)), p4type_str(r->type, b2, sizeof(b2)));
        return l;
    }
    if (l->type->kind == P4T_INFINT)
        return fold_literals(s, loc, o, l, r);
    if (cls == P4OPC_CMP)
        return lower_compare(s, tok, loc, o, l, r);
    if (!p4type_is_num(l->type)) {
        p4sem_err(s, loc, "arithmetic on a non-integer value (%s)",
                  p4type_str(l->type, b1, sizeof(b1)));
        return l;
    }
    if (cls == P4OPC_DIVMOD && l->type->kind == P4T_INT)
        p4sem_err(s, loc, "division of signed values is not supported");
    if (cls == P4OPC_DIVMOD && l->nw > 1)
        p4sem_err(s, loc, "division wider than 64 bits is not supported");
    return p4expr_fold(s, binop(s, o, l->type, l, r, loc));
}

static struct p4ir_expr *lower_binary(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *l = p4expr_lower(s, a->a);
    struct p4ir_expr *r = p4expr_lower(s, a->b);
    return p4expr_binary(s, a->op, l, r, a->loc);
}

/* A view of the packet ahead: t's bits at bit offset `at` from the parser's position; bits
 * must remain for the whole lookahead (PacketTooShort otherwise). A compound view gets
 * scratch slots to be built in when it is used as a whole. */
static struct p4ir_expr *lookahead_view(struct p4sem *s, struct p4_type *t, int at, int bits,
                                        struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOOKAHEAD, t, loc);
    e->aux = at;
    e->aux2 = bits;
    if (p4type_is_compound(t))
        e->slot = p4irgen_slots(s, t->nslots);
    return e;
}

/* pkt.lookahead<T>(): bit<W>, int<W>, bool, a serializable enum, a header without varbit or a
 * struct of bit fields (P4_16 12.8.3) */
static struct p4ir_expr *lookahead(struct p4sem *s, const struct p4ast *a, struct p4_type *t)
{
    if (t->kind == P4T_HEADER && t->varbit_max) {
        p4sem_err(s, a->loc, "lookahead of a header with a varbit is not supported");
        return p4irgen_const64(s, s->t_bool, 0, a->loc);
    }
    if (t->kind != P4T_HEADER && !p4type_is_bits(t)) {
        p4sem_err(s, a->loc,
                  "lookahead<T> needs bit<W>, int<W>, bool, a serializable enum, a header or a "
                  "struct of bit fields");
        return p4irgen_const64(s, s->t_bool, 0, a->loc);
    }
    return lookahead_view(s, t, 0, t->width, a->loc);
}

/* pkt.lookahead<H>().f: the field's bits (no need to build the whole H) */
static struct p4ir_expr *lookahead_field(struct p4sem *s, const struct p4ast *a,
                                         struct p4ir_expr *b)
{
    const struct p4_type *h = b->type;
    for (int i = 0; i < h->nfields; i++) {
        const struct p4_field *f = &h->fields[i];
        if (strcmp(f->name, a->name) == 0)
            return lookahead_view(s, f->type, b->aux + f->bitoff, b->aux2, a->loc);
    }
    p4sem_err(s, a->loc, "'%s' has no field '%s'", h->name, a->name);
    return bad(s, a->loc);
}

static struct p4ir_expr *lower_member(struct p4sem *s, const struct p4ast *a)
{
    struct p4_type *et = enum_type_of(s, a->a);
    if (et) {
        if (et == s->t_error) {
            for (int i = 0; i < s->prog->nerrors; i++) {
                if (strcmp(s->prog->errors[i], a->name) == 0)
                    return p4irgen_const64(s, s->t_error, (uint64_t)i, a->loc);
            }
            p4sem_err(s, a->loc, "unknown error '%s'", a->name);
            return p4irgen_const64(s, s->t_error, 0, a->loc);
        }
        for (int i = 0; i < et->nmembers; i++) {
            if (strcmp(et->members[i], a->name) == 0)
                return p4irgen_const64(s, et, et->values[i], a->loc);
        }
        p4sem_err(s, a->loc, "enum '%s' has no member '%s'", et->name, a->name);
        return p4irgen_const64(s, et, 0, a->loc);
    }
    if (a->a->kind == P4AST_E_CALL &&
        (strcmp(a->name, "hit") == 0 || strcmp(a->name, "miss") == 0)) {
        struct p4ir_table *t = p4expr_table_of_apply(s, a->a);
        if (t) {
            struct p4ir_expr *e =
                p4irgen_expr(s, a->name[0] == 'h' ? P4OP_HIT : P4OP_MISS, s->t_bool, a->loc);
            e->ptr = t;
            return e;
        }
    }
    struct p4ir_expr *b = p4expr_lower(s, a->a);
    struct p4_type *t = b->type;
    if (t == s->t_bad)
        return b;
    if (b->op == P4OP_LOOKAHEAD && p4type_is_compound(t)) /* lookahead<H>().field */
        return lookahead_field(s, a, b);
    if (t->kind == P4T_STACK && p4irgen_is_ref(b)) {
        if (strcmp(a->name, "size") == 0)
            return p4irgen_const64(s, p4type_bit(s, 32, false), (uint64_t)t->size, a->loc);
        if (strcmp(a->name, "nextIndex") == 0) {
            if (b->op != P4OP_LOAD)
                p4sem_err(s, a->loc, "nested stacks are not supported");
            struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, p4type_bit(s, 32, false), a->loc);
            e->slot = b->slot;
            return e;
        }
        if (strcmp(a->name, "lastIndex") == 0) {
            struct p4ir_expr *e = p4irgen_expr(s, P4OP_LASTINDEX, p4type_bit(s, 32, false), a->loc);
            e->slot = b->slot;
            return e;
        }
        if (strcmp(a->name, "next") == 0 || strcmp(a->name, "last") == 0) {
            if (b->op != P4OP_LOAD) {
                p4sem_err(s, a->loc, "nested stacks are not supported");
                return b;
            }
            struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOADX, t->elem, a->loc);
            e->slot = b->slot;
            e->aux = t->elem->nslots;
            e->aux2 = t->size;
            e->idx = a->name[0] == 'n' ? P4IDX_NEXT : P4IDX_LAST;
            return e;
        }
        p4sem_err(s, a->loc, "header stack has no member '%s'", a->name);
        return b;
    }
    if ((t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_UNION) &&
        p4irgen_is_ref(b)) {
        for (int i = 0; i < t->nfields; i++) {
            if (strcmp(t->fields[i].name, a->name) == 0)
                return p4irgen_field_ref(s, b, t->fields[i].off, t->fields[i].type, a->loc);
        }
        p4sem_err(s, a->loc, "'%s' has no field '%s'", t->name, a->name);
        return bad(s, a->loc);
    }
    if (t == s->t_bad)
        return b;
    char b1[64];
    p4sem_err(s, a->loc, "cannot take member '%s' of %s", a->name, p4type_str(t, b1, sizeof(b1)));
    return bad(s, a->loc);
}

/* a name: a constant or a variable */
static struct p4ir_expr *lower_name(struct p4sem *s, const struct p4ast *a)
{
    struct p4sym *y = p4scope_lookup(s, a->name);
    if (!y) {
        p4sem_err(s, a->loc, "unknown name '%s'", a->name);
        return bad(s, a->loc);
    }
    if (y->kind == SYM_CONST) {
        struct p4ir_expr *e = NEW(s, struct p4ir_expr);
        *e = *y->cval;
        e->loc = a->loc;
        return e;
    }
    if (y->kind == SYM_VAR) {
        struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, y->type, a->loc);
        e->slot = y->slot;
        return e;
    }
    p4sem_err(s, a->loc, "'%s' is not a value", a->name);
    return bad(s, a->loc);
}

/* t[i] of a tuple or list: a constant index, a field */
static struct p4ir_expr *tuple_index(struct p4sem *s, const struct p4ast *a, struct p4ir_expr *b)
{
    struct p4_big v;
    if (!p4expr_const_int(s, a->b, &v))
        return bad(s, a->loc);
    if (p4big_is_neg(&v) || v.w[0] >= (uint64_t)b->type->nfields || p4big_bits(&v) > 32) {
        p4sem_err(s, a->b->loc, "index out of range (%d elements)", b->type->nfields);
        return bad(s, a->loc);
    }
    const struct p4_field *f = &b->type->fields[v.w[0]];
    return p4irgen_field_ref(s, b, f->off, f->type, a->loc);
}

/* s[i]: a constant index is resolved now, a computed one at run time */
static struct p4ir_expr *lower_index(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *b = p4expr_lower(s, a->a);
    if (b->type->tuple && p4irgen_is_ref(b))
        return tuple_index(s, a, b);
    if (b->type->kind != P4T_STACK || b->op != P4OP_LOAD) {
        p4sem_err(s, a->loc, "indexing needs a header stack");
        return b;
    }
    struct p4_type *st = b->type;
    struct p4ir_expr *i = p4expr_fold(s, p4expr_lower(s, a->b));
    if (p4irgen_is_const(i)) {
        struct p4_big v;
        p4irgen_const_big(i, &v);
        if (p4big_is_neg(&v) || v.w[0] >= (uint64_t)st->size || p4big_bits(&v) > 32) {
            p4sem_err(s, a->b->loc, "stack index out of range (size %d)", st->size);
            v.w[0] = 0;
        }
        struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOAD, st->elem, a->loc);
        e->slot = b->slot + 1 + (int)v.w[0] * st->elem->nslots;
        return e;
    }
    if (!p4type_is_num(i->type))
        p4sem_err(s, a->b->loc, "stack index must be an integer");
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_LOADX, st->elem, a->loc);
    e->slot = b->slot;
    e->aux = st->elem->nslots;
    e->aux2 = st->size;
    e->idx = P4IDX_EXPR;
    e->a = i;
    return e;
}

/* e[hi:lo] */
static struct p4ir_expr *lower_slice(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *b = p4expr_lower(s, a->a);
    struct p4_big hi;
    struct p4_big lo;
    if (!p4expr_const_int(s, a->b, &hi) || !p4expr_const_int(s, a->c, &lo))
        return b;
    if (b->type->kind == P4T_INFINT) {
        if (!p4irgen_is_const(b)) {
            p4sem_err(s, a->loc, "slice of a value of unknown width");
            return b;
        }
    } else if (!p4type_is_num(b->type)) {
        p4sem_err(s, a->loc, "slice of a non-integer value");
        return b;
    }
    int w = b->type->kind == P4T_INFINT ? P4_MAXWIDTH : b->width;
    if (p4big_bits(&hi) > 16 || p4big_bits(&lo) > 16 || lo.w[0] > hi.w[0] || (int)hi.w[0] >= w) {
        p4sem_err(s, a->loc, "slice bounds [%d:%d] out of range for width %d", (int)hi.w[0],
                  (int)lo.w[0], w);
        return b;
    }
    struct p4ir_expr *e =
        p4irgen_expr(s, P4OP_SLICE, p4type_bit(s, (int)(hi.w[0] - lo.w[0] + 1), false), a->loc);
    e->a = b;
    e->aux = (int)lo.w[0];
    if (b->type->kind == P4T_INFINT) {
        struct p4_big v;
        p4irgen_const_big(b, &v);
        p4big_shr(&v, &v, (unsigned)lo.w[0], true);
        return p4irgen_const(s, e->type, &v, a->loc);
    }
    return p4expr_fold(s, e);
}

/* +e, -e, ~e, !e */
static struct p4ir_expr *lower_unary(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *b = p4expr_lower(s, a->a);
    if (a->op == P4TOK_PLUS)
        return b;
    if (a->op == P4TOK_NOT) {
        if (b->type != s->t_bool)
            p4sem_err(s, a->loc, "operand of '!' must be bool");
        struct p4ir_expr *e = p4irgen_expr(s, P4OP_LNOT, s->t_bool, a->loc);
        e->a = b;
        return p4expr_fold(s, e);
    }
    if (b->type->kind == P4T_INFINT) {
        if (!p4irgen_is_const(b)) {
            p4sem_err(s, a->loc, "operation on integers of unknown width");
            return b;
        }
        struct p4_big v;
        p4irgen_const_big(b, &v);
        if (a->op == P4TOK_MINUS)
            p4big_neg(&v, &v);
        else
            p4sem_err(s, a->loc, "'~' needs a value of known width");
        return p4irgen_const(s, s->t_infint, &v, a->loc);
    }
    if (!p4type_is_num(b->type)) {
        p4sem_err(s, a->loc, "operand of '%s' must be an integer", p4tok_names[a->op]);
        return b;
    }
    struct p4ir_expr *e =
        p4irgen_expr(s, a->op == P4TOK_MINUS ? P4OP_NEG : P4OP_NOT, b->type, a->loc);
    e->a = b;
    return p4expr_fold(s, e);
}

/* c ? x : y */
static struct p4ir_expr *lower_cond(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *c = p4expr_lower(s, a->a);
    struct p4ir_expr *x = p4expr_lower(s, a->b);
    struct p4ir_expr *y = p4expr_lower(s, a->c);
    if (c->type != s->t_bool)
        p4sem_err(s, a->a->loc, "condition must be bool");
    if (x->type->kind == P4T_INFINT && y->type->kind == P4T_INFINT) {
        if (p4irgen_is_const(c))
            return c->k ? x : y;
        p4sem_err(s, a->loc,
                  "both branches of '?:' are integers without a width; give one a type, e.g. "
                  "(bit<32>)1");
        return x;
    }
    if (x->type->kind == P4T_INFINT && y->type->kind != P4T_INFINT)
        x = p4expr_coerce(s, x, y->type, "conditional");
    else if (y->type->kind == P4T_INFINT)
        y = p4expr_coerce(s, y, x->type, "conditional");
    if (x->type != y->type || !p4type_is_scalar(x->type)) {
        char b1[64];
        char b2[64];
        p4sem_err(s, a->loc, "branches of '?:' have different types (%s and %s)",
                  p4type_str(x->type, b1, sizeof(b1)), p4type_str(y->type, b2, sizeof(b2)));
        return x;
    }
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_COND, x->type, a->loc);
    e->a = c;
    e->b = x;
    e->c = y;
    return p4expr_fold(s, e);
}

/* (T)e */
static struct p4ir_expr *lower_cast(struct p4sem *s, const struct p4ast *a)
{
    struct p4_type *t = p4type_resolve(s, a->a);
    struct p4ir_expr *b = p4expr_lower(s, a->b);
    if (b->type == t)
        return b;
    if (p4type_is_compound(t))
        return p4expr_coerce(s, b, t, "cast");
    char b1[64];
    char b2[64];
    bool ok = false;
    if ((p4type_is_num(t) || (t->kind == P4T_ENUM && t->serializable)) &&
        (p4type_is_num(b->type) || b->type->kind == P4T_BOOL ||
         (b->type->kind == P4T_ENUM && b->type->serializable)))
        ok = true;
    if (t->kind == P4T_BOOL && p4type_is_num(b->type) && b->width == 1)
        ok = true;
    if (b->type->kind == P4T_INFINT && p4irgen_is_const(b) &&
        (p4type_is_num(t) || t->kind == P4T_BOOL || (t->kind == P4T_ENUM && t->serializable))) {
        struct p4_big v;
        p4irgen_const_big(b, &v);
        if (t->kind == P4T_BOOL)
            v.w[0] = v.w[0] != 0;
        return p4irgen_const(s, t, &v, a->loc);
    }
    if (!ok) {
        p4sem_err(s, a->loc, "cannot cast %s to %s", p4type_str(b->type, b1, sizeof(b1)),
                  p4type_str(t, b2, sizeof(b2)));
        return b;
    }
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_CAST, t, a->loc);
    e->a = b;
    e->awidth = b->width;
    e->sgn = b->type->kind == P4T_INT;
    return p4expr_fold(s, e);
}

/* { e, ... } or { f = e, ... }: an aggregate of no type yet; coercion to a struct, header or
 * tuple type gives it one (P4_16 8.13, 8.14). */
static struct p4ir_expr *lower_list(struct p4sem *s, const struct p4ast *a)
{
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_AGG, s->t_list, a->loc);
    struct p4ir_expr **el = NEWN(s, struct p4ir_expr *, a->nlist);
    for (int i = 0; i < a->nlist; i++)
        el[i] = p4expr_lower(s, a->list[i]);
    e->ptr = el;
    e->aux2 = a->nlist;
    if (a->nlist2 && a->nlist2 == a->nlist) {
        const char **names = NEWN(s, const char *, a->nlist);
        for (int i = 0; i < a->nlist; i++)
            names[i] = a->list2[i]->name;
        e->names = names;
    } else if (a->nlist2) {
        p4sem_err(s, a->loc, "a list names either all of its values or none");
    }
    return e;
}

struct p4ir_expr *p4expr_lower(struct p4sem *s, const struct p4ast *a)
{
    switch (a->kind) {
    case P4AST_E_NUM:
        if (a->num.width >= 0)
            return p4irgen_const(s, p4type_bit(s, a->num.width, a->num.is_signed), &a->num.v,
                                 a->loc);
        return p4irgen_const(s, s->t_infint, &a->num.v, a->loc);
    case P4AST_E_BOOL:
        return p4irgen_const64(s, s->t_bool, a->num.v.w[0], a->loc);
    case P4AST_E_STR: {
        struct p4ir_expr *e = p4irgen_expr(s, P4OP_CONST, s->t_string, a->loc);
        e->ptr = (void *)a->str;
        return e;
    }
    case P4AST_E_NAME:
        return lower_name(s, a);
    case P4AST_E_MEMBER:
        return lower_member(s, a);
    case P4AST_E_INDEX:
        return lower_index(s, a);
    case P4AST_E_SLICE:
        return lower_slice(s, a);
    case P4AST_E_CALL:
        return p4expr_lower_call(s, a);
    case P4AST_E_UNARY:
        return lower_unary(s, a);
    case P4AST_E_BINARY:
        return lower_binary(s, a);
    case P4AST_E_COND:
        return lower_cond(s, a);
    case P4AST_E_CAST:
        return lower_cast(s, a);
    case P4AST_E_LIST:
        return lower_list(s, a);
    default:
        p4sem_err(s, a->loc, "expression expected");
        return p4irgen_const64(s, s->t_infint, 0, a->loc);
    }
}

struct p4ir_expr *p4expr_lower_ref(struct p4sem *s, const struct p4ast *a, const char *what)
{
    struct p4ir_expr *e = p4expr_lower(s, a);
    if (e->type == s->t_bad)
        return NULL;
    if (e->op == P4OP_SLICE && p4irgen_is_ref(e->a))
        return e;
    if (!p4irgen_is_ref(e)) {
        p4sem_err(s, a->loc, "%s must be a variable or field", what);
        return NULL;
    }
    return e;
}

struct p4ir_expr *p4expr_lower_call(struct p4sem *s, const struct p4ast *a)
{
    const struct p4ast *f = a->a;
    if (f->kind == P4AST_E_MEMBER) {
        if (strcmp(f->name, "isValid") == 0) {
            struct p4ir_expr *h = p4expr_lower(s, f->a);
            if (h->type->kind == P4T_UNION && p4irgen_is_ref(h)) { /* any member valid */
                struct p4ir_expr *any = p4irgen_const64(s, s->t_bool, 0, a->loc);
                for (int i = 0; i < h->type->nfields; i++) {
                    const struct p4_field *m = &h->type->fields[i];
                    struct p4ir_expr *v = p4irgen_expr(s, P4OP_ISVALID, s->t_bool, a->loc);
                    v->a = p4irgen_field_ref(s, h, m->off, m->type, a->loc);
                    struct p4ir_expr *o = p4irgen_expr(s, P4OP_LOR, s->t_bool, a->loc);
                    o->a = any;
                    o->b = v;
                    any = o;
                }
                return any;
            }
            if (h->type->kind != P4T_HEADER || !p4irgen_is_ref(h)) {
                p4sem_err(s, a->loc, "isValid() needs a header");
                return p4irgen_const64(s, s->t_bool, 0, a->loc);
            }
            struct p4ir_expr *e = p4irgen_expr(s, P4OP_ISVALID, s->t_bool, a->loc);
            e->a = h;
            return e;
        }
        if (strcmp(f->name, "lookahead") == 0) {
            struct p4sym *y = f->a->kind == P4AST_E_NAME ? p4scope_lookup(s, f->a->name) : NULL;
            if (!y || y->kind != SYM_PACKET || a->nlist2 != 1) {
                p4sem_err(s, a->loc, "lookahead<T>() needs a packet_in and one type argument");
                return p4irgen_const64(s, s->t_bool, 0, a->loc);
            }
            return lookahead(s, a, p4type_resolve(s, a->list2[0]));
        }
    }
    if (f->kind == P4AST_E_NAME) {
        struct p4sym *y = p4scope_lookup(s, f->name);
        struct p4ir_callable *fn = y && y->kind == SYM_FUNC ? y->fn : NULL;
        if (y && y->kind == SYM_EXTERN_FUNC && !p4extern_is_builtin(f->name)) {
            fn = p4extern_user(s, y, f->loc);
            if (!fn)
                return bad(s, a->loc);
        }
        if (fn && fn->ret_type != s->t_void) {
            struct p4ir_expr *e = p4irgen_expr(s, P4OP_CALL, fn->ret_type, a->loc);
            e->ptr = p4call_bind(s, fn, a, 0, false, a->loc);
            return e;
        }
        if (!y && s->cur_fn && s->cur_fn->kind == P4CALL_FUNC && s->cur_fn->name &&
            strcmp(s->cur_fn->name, f->name) == 0) {
            p4sem_err(s, a->loc, "function '%s' calls itself; P4 has no recursion", f->name);
            return bad(s, a->loc);
        }
        if (!y) {
            p4sem_err(s, f->loc, "'%s' is not declared", f->name);
            return bad(s, a->loc);
        }
    }
    p4sem_err(s, a->loc, "this call does not return a value");
    return p4irgen_const64(s, s->t_bool, 0, a->loc);
}
