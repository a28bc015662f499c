/* Semantic check and lowering: AST → p4ir (see p4ir.h). Resolves names through nested
 * scopes, computes types and widths, folds constants (integer literals keep arbitrary
 * precision until they meet a typed operand), lays out slots, and instantiates the V1Switch
 * package: one lowered copy of each control per instance, so tables, actions and locals of
 * different instances never share state. Errors are reported with file:line:col and lowering
 * continues where it can. */
#include "p4/engine/p4.h"
#include "p4/engine/p4ir.h"
#include "p4/engine/p4vm.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum sym_kind {
    SYM_TYPE,
    SYM_CONST,
    SYM_VAR,
    SYM_ACTION,
    SYM_TABLE,
    SYM_FUNC,
    SYM_EXTERN_INST,
    SYM_CONTROL_DECL,
    SYM_PARSER_DECL,
    SYM_EXTERN_TYPE,
    SYM_EXTERN_FUNC,
    SYM_PACKAGE,
    SYM_CONTROL_INST,
    SYM_PACKET,
    SYM_STATE,
    SYM_GLOBAL_ACTION
};

struct sym {
    const char *name;
    enum sym_kind kind;
    struct p4_type *type;
    int slot;
    struct p4ir_expr *cval; /* SYM_CONST */
    const struct p4ast *decl;
    struct p4ir_callable *fn; /* actions, functions, control instances */
    struct p4ir_table *table;
    int ext;         /* SYM_EXTERN_INST index; SYM_STATE index */
    bool packet_out; /* SYM_PACKET */
    struct sym *next;
};

struct scope {
    struct sym *syms;
    struct scope *up;
};

struct sem {
    struct p4_diag *diag;
    struct p4_prog *prog;
    struct scope *scope;
    struct scope *global;
    struct sym **allsyms;
    int nallsyms;
    int capallsyms;
    struct scope **allscopes;
    int nallscopes;
    int capallscopes;
    const char *prefix;           /* control instance name for qualified names */
    struct p4ir_callable *cur_fn; /* for return */
    bool in_parser;
    bool in_action;
    struct p4ir_block *inits; /* control local initializers */
    struct p4_type *t_bool, *t_infint, *t_void, *t_string, *t_error, *t_dontcare;
    struct p4_type *t_list, *t_match_kind, *t_packet_in, *t_packet_out, *t_extern;
    struct p4_type *t_bad; /* result of an erroneous expression: suppresses cascades */
    struct p4_type **bits; /* interned bit<W>/int<W> */
    int nbits;
    int capbits;
    int next_field_list;
    bool too_big;
    const struct p4ast **deferred; /* top-level actions and functions, lowered after the */
    int ndeferred;                 /* packet region is laid out (slots 0..npkt) */
    int capdeferred;
};

void *p4ir_alloc(struct p4_prog *prog, size_t n)
{
    void *p = p4util_calloc(1, n);
    P4_PUSH(prog->allocs, prog->nallocs, prog->capallocs, p);
    return p;
}

#define NEW(s, T) ((T *)p4ir_alloc((s)->prog, sizeof(T)))
#define NEWN(s, T, n) ((T *)p4ir_alloc((s)->prog, sizeof(T) * (size_t)((n) ? (n) : 1)))

static void err(struct sem *s, struct p4_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void err(struct sem *s, struct p4_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p4util_verror(s->diag, loc, fmt, ap);
    va_end(ap);
}

/* ---- scopes ---- */

static void push_scope(struct sem *s)
{
    struct scope *sc = p4util_calloc(1, sizeof(*sc));
    P4_PUSH(s->allscopes, s->nallscopes, s->capallscopes, sc);
    sc->up = s->scope;
    s->scope = sc;
}

static void pop_scope(struct sem *s)
{
    s->scope = s->scope->up;
}

static struct sym *lookup_in(struct scope *sc, const char *name)
{
    for (struct sym *y = sc->syms; y; y = y->next) {
        if (strcmp(y->name, name) == 0)
            return y;
    }
    return NULL;
}

static struct sym *lookup(struct sem *s, const char *name)
{
    for (struct scope *sc = s->scope; sc; sc = sc->up) {
        struct sym *y = lookup_in(sc, name);
        if (y)
            return y;
    }
    return NULL;
}

static struct sym *declare(struct sem *s, const char *name, enum sym_kind k, struct p4_loc loc)
{
    struct sym *old = lookup_in(s->scope, name);
    if (old && !(old->kind == SYM_EXTERN_FUNC && k == SYM_EXTERN_FUNC))
        err(s, loc, "'%s' is already declared", name);
    struct sym *y = p4util_calloc(1, sizeof(*y));
    P4_PUSH(s->allsyms, s->nallsyms, s->capallsyms, y);
    y->name = name;
    y->kind = k;
    y->ext = -1;
    y->next = s->scope->syms;
    s->scope->syms = y;
    return y;
}

/* ---- types ---- */

static struct p4_type *new_type(struct sem *s, enum p4type_kind k, int width)
{
    struct p4_type *t = p4util_calloc(1, sizeof(*t));
    P4_PUSH(s->prog->types, s->prog->ntypes, s->prog->captypes, t);
    t->kind = k;
    t->width = width;
    t->nslots = p4util_nwords(width);
    return t;
}

static struct p4_type *bit_type(struct sem *s, int width, bool is_signed)
{
    for (int i = 0; i < s->nbits; i++) {
        if (s->bits[i]->width == width && s->bits[i]->is_signed == is_signed)
            return s->bits[i];
    }
    struct p4_type *t = new_type(s, is_signed ? P4T_INT : P4T_BIT, width);
    t->is_signed = is_signed;
    P4_PUSH(s->bits, s->nbits, s->capbits, t);
    return t;
}

static bool is_scalar(const struct p4_type *t)
{
    return t->kind == P4T_BIT || t->kind == P4T_INT || t->kind == P4T_BOOL || t->kind == P4T_ENUM ||
           t->kind == P4T_ERROR;
}

static bool is_num(const struct p4_type *t)
{
    return t->kind == P4T_BIT || t->kind == P4T_INT;
}

static bool is_compound(const struct p4_type *t)
{
    return t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_STACK ||
           t->kind == P4T_VARBIT || t->kind == P4T_UNION;
}

static const char *type_str(const struct p4_type *t, char *buf, size_t n)
{
    switch (t->kind) {
    case P4T_BIT:
        snprintf(buf, n, "bit<%d>", t->width);
        break;
    case P4T_INT:
        snprintf(buf, n, "int<%d>", t->width);
        break;
    case P4T_BOOL:
        snprintf(buf, n, "bool");
        break;
    case P4T_INFINT:
        snprintf(buf, n, "int");
        break;
    case P4T_ERROR:
        snprintf(buf, n, "error");
        break;
    default:
        snprintf(buf, n, "%s", t->name ? t->name : "value");
        break;
    }
    return buf;
}

static struct p4ir_expr *lower_expr(struct sem *s, const struct p4ast *a);

/* Constant integer value of an expression, or false. */
static bool const_int(struct sem *s, const struct p4ast *a, struct p4_big *out);

static int const_width(struct sem *s, const struct p4ast *a)
{
    struct p4_big v;
    if (!const_int(s, a, &v))
        return -1;
    if (p4big_is_neg(&v) || p4big_bits(&v) > 16)
        return -2;
    return (int)v.w[0];
}

static struct p4_type *resolve_type(struct sem *s, const struct p4ast *t);

static struct p4_type *layout_compound(struct sem *s, const struct p4ast *d, enum p4type_kind k)
{
    struct p4_type *t = new_type(s, k, 0);
    t->name = d->name;
    t->decl = d;
    t->nfields = d->nlist;
    t->fields = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(struct p4_field));
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, t->fields);
    int off = k == P4T_HEADER ? 1 : 0;
    int bitoff = 0;
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *f = d->list[i];
        struct p4_type *ft = resolve_type(s, f->a);
        for (int j = 0; j < i; j++) {
            if (strcmp(t->fields[j].name, f->name) == 0)
                err(s, f->loc, "duplicate field '%s'", f->name);
        }
        if (k == P4T_HEADER && ft->kind == P4T_VARBIT) {
            if (t->varbit_max)
                err(s, f->loc, "a header may have only one varbit field");
            t->varbit_max = ft->varbit_max;
        } else if (k == P4T_HEADER &&
                   !(ft->kind == P4T_BIT || ft->kind == P4T_INT || ft->kind == P4T_BOOL ||
                     (ft->kind == P4T_ENUM && ft->serializable))) {
            char b[64];
            err(s, f->loc, "header field '%s' has unsupported type %s", f->name,
                type_str(ft, b, sizeof(b)));
        }
        t->fields[i].name = f->name;
        t->fields[i].type = ft;
        t->fields[i].off = off;
        t->fields[i].bitoff = bitoff;
        t->fields[i].decl = f;
        off += ft->nslots;
        bitoff += ft->width;
    }
    t->nslots = off;
    if (k == P4T_HEADER) {
        t->width = bitoff; /* fixed fields only; a varbit adds its run-time length */
        if (bitoff % 8 && !t->varbit_max)
            err(s, d->loc, "header '%s' is %d bits, not a multiple of 8", d->name, bitoff);
    }
    return t;
}

static struct p4_type *resolve_type(struct sem *s, const struct p4ast *t)
{
    switch (t->kind) {
    case P4AST_TY_BIT:
    case P4AST_TY_INT: {
        int w = 1;
        if (t->a) {
            w = const_width(s, t->a);
            if (w < 1 || w > P4_MAXWIDTH) {
                err(s, t->loc, "invalid width (must be 1..%d)", P4_MAXWIDTH);
                w = 32;
            }
        } else if (t->kind == P4AST_TY_INT) {
            return s->t_infint;
        }
        return bit_type(s, w, t->kind == P4AST_TY_INT);
    }
    case P4AST_TY_BOOL:
        return s->t_bool;
    case P4AST_TY_ERROR:
        return s->t_error;
    case P4AST_TY_STRING:
        return s->t_string;
    case P4AST_TY_VOID:
        return s->t_void;
    case P4AST_TY_DONTCARE:
        return s->t_dontcare;
    case P4AST_TY_MATCH_KIND:
        return s->t_match_kind;
    case P4AST_TY_VARBIT: {
        int w = t->a ? const_width(s, t->a) : -1;
        if (w < 1 || w > P4_MAXWIDTH) {
            err(s, t->loc, "invalid varbit width (must be 1..%d)", P4_MAXWIDTH);
            w = 8;
        }
        struct p4_type *vt = new_type(s, P4T_VARBIT, 0);
        vt->name = "varbit";
        vt->varbit_max = w;
        vt->nslots = 1 + p4util_nwords(w);
        return vt;
    }
    case P4AST_TY_TUPLE:
        return s->t_list;
    case P4AST_TY_STACK: {
        struct p4_type *e = resolve_type(s, t->a);
        int n = const_width(s, t->b);
        if (n < 1 || n > 4096) {
            err(s, t->b->loc, "header stack size must be a constant in 1..4096");
            n = 1;
        }
        if (e->kind != P4T_HEADER)
            err(s, t->loc, "header stack element must be a header");
        struct p4_type *st = new_type(s, P4T_STACK, 0);
        st->elem = e;
        st->size = n;
        st->name = "stack";
        st->nslots = 1 + n * e->nslots;
        return st;
    }
    case P4AST_TY_NAME: {
        struct sym *y = lookup(s, t->name);
        if (!y) {
            err(s, t->loc, "unknown type '%s'", t->name);
            return bit_type(s, 32, false);
        }
        if (y->kind == SYM_TYPE && !y->type) {
            /* declared, but its own layout is not finished: it contains itself */
            err(s, t->loc, "type '%s' is used inside its own declaration", t->name);
            return bit_type(s, 32, false);
        }
        if (y->kind == SYM_TYPE)
            return y->type;
        if (y->kind == SYM_EXTERN_TYPE || y->kind == SYM_PACKAGE || y->kind == SYM_CONTROL_DECL ||
            y->kind == SYM_PARSER_DECL) {
            if (strcmp(t->name, "packet_in") == 0)
                return s->t_packet_in;
            if (strcmp(t->name, "packet_out") == 0)
                return s->t_packet_out;
            return s->t_extern;
        }
        err(s, t->loc, "'%s' is not a type", t->name);
        return bit_type(s, 32, false);
    }
    default:
        err(s, t->loc, "type expected");
        return bit_type(s, 32, false);
    }
}

/* ---- IR construction ---- */

static struct p4ir_expr *mk(struct sem *s, enum p4op op, struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = NEW(s, struct p4ir_expr);
    e->op = (uint8_t)op;
    e->type = t;
    e->loc = loc;
    int w = t->kind == P4T_INFINT ? P4_MAXWIDTH : is_scalar(t) ? t->width : 0;
    e->width = (uint16_t)w;
    e->nw = (uint8_t)(t->kind == P4T_INFINT ? P4_WMAX : w > 64 ? p4util_nwords(w) : 1);
    e->mask = p4util_mask64(w);
    e->sgn = t->kind == P4T_INT || t->kind == P4T_INFINT;
    return e;
}

static struct p4ir_expr *mk_const(struct sem *s, struct p4_type *t, const struct p4_big *v,
                                  struct p4_loc loc)
{
    struct p4ir_expr *e = mk(s, P4OP_CONST, t, loc);
    struct p4_big tv = *v;
    if (t->kind != P4T_INFINT)
        p4big_trunc(&tv, t->width, false);
    if (e->nw > 1) {
        e->kw = NEWN(s, uint64_t, P4_WMAX);
        memcpy(e->kw, tv.w, sizeof(tv.w));
    }
    e->k = tv.w[0];
    return e;
}

static struct p4ir_expr *mk_const64(struct sem *s, struct p4_type *t, uint64_t v, struct p4_loc loc)
{
    struct p4_big b;
    p4big_set_u64(&b, v);
    return mk_const(s, t, &b, loc);
}

static bool is_const(const struct p4ir_expr *e)
{
    return e && e->op == P4OP_CONST;
}

static void const_big(const struct p4ir_expr *e, struct p4_big *v)
{
    memset(v, 0, sizeof(*v));
    if (e->nw > 1)
        memcpy(v->w, e->kw, (size_t)e->nw * 8);
    else
        v->w[0] = e->k;
    if (e->type->kind == P4T_INT) /* sign-extend typed signed values */
        p4big_trunc(v, e->width, true);
}

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
static struct p4ir_expr *fold(struct sem *s, struct p4ir_expr *e)
{
    if (e->op == P4OP_CONST || e->type->kind == P4T_INFINT || !is_scalar(e->type) || !foldable(e))
        return e;
    struct p4_big v;
    memset(&v, 0, sizeof(v));
    p4vm_eval_const(e, v.w);
    return mk_const(s, e->type, &v, e->loc);
}

static bool const_int(struct sem *s, const struct p4ast *a, struct p4_big *out)
{
    int before = s->diag->nerrors;
    struct p4ir_expr *e = lower_expr(s, a);
    if (s->diag->nerrors != before)
        return false;
    e = fold(s, e);
    if (!is_const(e) || !(is_num(e->type) || e->type->kind == P4T_INFINT ||
                          e->type->kind == P4T_BOOL || e->type->kind == P4T_ENUM)) {
        err(s, a->loc, "expected a compile-time constant");
        return false;
    }
    const_big(e, out);
    return true;
}

/* Implicit conversion to t (integer literals take the type of what they meet). */
static struct p4ir_expr *coerce(struct sem *s, struct p4ir_expr *e, struct p4_type *t,
                                const char *what)
{
    if (!e || e->type == t || t->kind == P4T_DONTCARE || e->type == s->t_bad)
        return e;
    if (e->type->kind == P4T_INFINT && is_const(e) &&
        (is_num(t) || (t->kind == P4T_ENUM && t->serializable))) {
        struct p4_big v;
        const_big(e, &v);
        return mk_const(s, t, &v, e->loc);
    }
    if (e->type->kind == P4T_ENUM && e->type->serializable && is_num(t) &&
        t->width == e->type->width) {
        struct p4ir_expr *c = mk(s, P4OP_CAST, t, e->loc);
        c->a = e;
        c->awidth = (uint16_t)e->width;
        return fold(s, c);
    }
    if (t->kind == P4T_ENUM && t->serializable && is_num(e->type) && t->width == e->width)
        return e;
    if (e->type->kind == P4T_LIST || t->kind == P4T_LIST)
        return e;
    char b1[64];
    char b2[64];
    err(s, e->loc, "type mismatch in %s: expected %s, got %s", what, type_str(t, b1, sizeof(b1)),
        type_str(e->type, b2, sizeof(b2)));
    return e;
}

static bool is_ref(const struct p4ir_expr *e)
{
    return e->op == P4OP_LOAD || e->op == P4OP_LOADX;
}

/* Reference to a field inside a compound reference. */
static struct p4ir_expr *field_ref(struct sem *s, const struct p4ir_expr *base, int off,
                                   struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = mk(s, (enum p4op)base->op, t, loc);
    e->slot = base->slot;
    e->aux = base->aux;
    e->aux2 = base->aux2;
    e->idx = base->idx;
    e->a = base->a;
    e->k = base->k;
    e->hdr = base->type->kind == P4T_HEADER ? (struct p4ir_expr *)base : base->hdr;
    if (e->op == P4OP_LOAD)
        e->slot += off;
    else
        e->k += (uint64_t)off;
    return e;
}

/* ---- expressions ---- */

static struct p4ir_expr *bad(struct sem *s, struct p4_loc loc)
{
    return mk(s, P4OP_CONST, s->t_bad, loc);
}

static struct p4_type *enum_type_of(struct sem *s, const struct p4ast *a)
{
    if (a->kind != P4AST_E_NAME)
        return NULL;
    if (strcmp(a->name, "error") == 0)
        return s->t_error;
    struct sym *y = lookup(s, a->name);
    if (y && y->kind == SYM_TYPE && y->type->kind == P4T_ENUM)
        return y->type;
    return NULL;
}

static struct p4ir_table *table_of_apply(struct sem *s, const struct p4ast *call)
{
    if (call->kind != P4AST_E_CALL || call->a->kind != P4AST_E_MEMBER ||
        strcmp(call->a->name, "apply") != 0 || call->a->a->kind != P4AST_E_NAME)
        return NULL;
    struct sym *y = lookup(s, call->a->a->name);
    return y && y->kind == SYM_TABLE ? y->table : NULL;
}

static struct p4ir_expr *lower_call_expr(struct sem *s, const struct p4ast *a);

static struct p4ir_expr *lower_binary(struct sem *s, const struct p4ast *a)
{
    struct p4ir_expr *l = lower_expr(s, a->a);
    struct p4ir_expr *r = lower_expr(s, a->b);
    if (l->type == s->t_bad)
        return l;
    if (r->type == s->t_bad)
        return r;
    char b1[64];
    char b2[64];
    int op = a->op;
    enum p4op o;
    switch (op) {
    case P4TOK_PLUS:
        o = P4OP_ADD;
        break;
    case P4TOK_MINUS:
        o = P4OP_SUB;
        break;
    case P4TOK_STAR:
        o = P4OP_MUL;
        break;
    case P4TOK_SLASH:
        o = P4OP_DIV;
        break;
    case P4TOK_PERCENT:
        o = P4OP_MOD;
        break;
    case P4TOK_SHL:
        o = P4OP_SHL;
        break;
    case P4TOK_SHR:
        o = P4OP_SHR;
        break;
    case P4TOK_AMP:
        o = P4OP_AND;
        break;
    case P4TOK_PIPE:
        o = P4OP_OR;
        break;
    case P4TOK_CARET:
        o = P4OP_XOR;
        break;
    case P4TOK_SATADD:
        o = P4OP_SADD;
        break;
    case P4TOK_SATSUB:
        o = P4OP_SSUB;
        break;
    case P4TOK_EQ:
        o = P4OP_EQ;
        break;
    case P4TOK_NE:
        o = P4OP_NE;
        break;
    case P4TOK_LT:
        o = P4OP_LT;
        break;
    case P4TOK_LE:
        o = P4OP_LE;
        break;
    case P4TOK_GT:
        o = P4OP_GT;
        break;
    case P4TOK_GE:
        o = P4OP_GE;
        break;
    case P4TOK_ANDAND:
        o = P4OP_LAND;
        break;
    case P4TOK_OROR:
        o = P4OP_LOR;
        break;
    case P4TOK_PLUSPLUS:
        o = P4OP_CONCAT;
        break;
    default:
        err(s, a->loc, "unsupported operator '%s'", p4tok_names[op]);
        return l;
    }
    if (o == P4OP_LAND || o == P4OP_LOR) {
        if (l->type != s->t_bool || r->type != s->t_bool)
            err(s, a->loc, "operands of '%s' must be bool", p4tok_names[op]);
        struct p4ir_expr *e = mk(s, o, s->t_bool, a->loc);
        e->a = l;
        e->b = r;
        return fold(s, e);
    }
    if (o == P4OP_CONCAT) {
        if (l->type->kind == P4T_INFINT || r->type->kind == P4T_INFINT || !is_num(l->type) ||
            !is_num(r->type)) {
            err(s, a->loc, "operands of '++' must have a fixed width");
            return l;
        }
        int w = l->width + r->width;
        if (w > P4_MAXWIDTH) {
            err(s, a->loc, "'++' result wider than %d bits", P4_MAXWIDTH);
            w = P4_MAXWIDTH;
        }
        struct p4ir_expr *e = mk(s, o, bit_type(s, w, l->type->is_signed), a->loc);
        e->a = l;
        e->b = r;
        e->awidth = r->width;
        return fold(s, e);
    }
    if (o == P4OP_SHL || o == P4OP_SHR) {
        if (r->type->kind == P4T_INT)
            err(s, a->loc, "shift amount must be unsigned");
        if (l->type->kind == P4T_INFINT) {
            if (!is_const(l) || !is_const(r)) {
                err(s, a->loc, "left operand of shift must have a known width");
                return l;
            }
            struct p4_big v;
            struct p4_big n;
            const_big(l, &v);
            const_big(r, &n);
            if (o == P4OP_SHL)
                p4big_shl(&v, &v, n.w[0] > P4_MAXWIDTH ? P4_MAXWIDTH : (unsigned)n.w[0]);
            else
                p4big_shr(&v, &v, n.w[0] > P4_MAXWIDTH ? P4_MAXWIDTH : (unsigned)n.w[0], true);
            return mk_const(s, s->t_infint, &v, a->loc);
        }
        if (!is_num(l->type))
            err(s, a->loc, "shift of a non-integer value");
        if (r->type->kind == P4T_INFINT)
            r = coerce(s, r, bit_type(s, 32, false), "shift");
        if (r->nw > 1)
            err(s, a->loc, "shift amount wider than 64 bits");
        struct p4ir_expr *e = mk(s, o, l->type, a->loc);
        e->a = l;
        e->b = r;
        return fold(s, e);
    }
    /* both operands must have one type */
    if (l->type->kind == P4T_INFINT && r->type->kind != P4T_INFINT)
        l = coerce(s, l, r->type, "operation");
    else if (r->type->kind == P4T_INFINT && l->type->kind != P4T_INFINT)
        r = coerce(s, r, l->type, "operation");
    else if (l->type != r->type && l->type->kind == P4T_ENUM && is_num(r->type))
        l = coerce(s, l, r->type, "operation");
    else if (l->type != r->type && r->type->kind == P4T_ENUM && is_num(l->type))
        r = coerce(s, r, l->type, "operation");
    bool cmp = o == P4OP_EQ || o == P4OP_NE || o == P4OP_LT || o == P4OP_LE || o == P4OP_GT ||
               o == P4OP_GE;
    if (l->type != r->type) {
        err(s, a->loc, "operands of '%s' have different types (%s and %s)", p4tok_names[op],
            type_str(l->type, b1, sizeof(b1)), type_str(r->type, b2, sizeof(b2)));
        return l;
    }
    if (l->type->kind == P4T_INFINT) {
        if (!is_const(l) || !is_const(r)) {
            err(s, a->loc, "operation on integers of unknown width");
            return l;
        }
        struct p4_big x;
        struct p4_big y;
        struct p4_big v;
        const_big(l, &x);
        const_big(r, &y);
        p4big_set_u64(&v, 0);
        int c = p4big_cmp_signed(&x, &y);
        switch (o) {
        case P4OP_ADD:
            p4big_add(&v, &x, &y);
            break;
        case P4OP_SUB:
            p4big_sub(&v, &x, &y);
            break;
        case P4OP_MUL:
            p4big_mul(&v, &x, &y);
            break;
        case P4OP_DIV:
        case P4OP_MOD:
            if (p4big_is_zero(&y) || p4big_is_neg(&x) || p4big_is_neg(&y)) {
                err(s, a->loc, "division by zero or of a negative value");
                break;
            }
            p4big_divmod(o == P4OP_DIV ? &v : NULL, o == P4OP_MOD ? &v : NULL, &x, &y);
            break;
        case P4OP_AND:
        case P4OP_OR:
        case P4OP_XOR:
            for (int i = 0; i < P4_WMAX; i++)
                v.w[i] = o == P4OP_AND  ? x.w[i] & y.w[i]
                         : o == P4OP_OR ? x.w[i] | y.w[i]
                                        : x.w[i] ^ y.w[i];
            break;
        case P4OP_EQ:
            return mk_const64(s, s->t_bool, c == 0, a->loc);
        case P4OP_NE:
            return mk_const64(s, s->t_bool, c != 0, a->loc);
        case P4OP_LT:
            return mk_const64(s, s->t_bool, c < 0, a->loc);
        case P4OP_LE:
            return mk_const64(s, s->t_bool, c <= 0, a->loc);
        case P4OP_GT:
            return mk_const64(s, s->t_bool, c > 0, a->loc);
        case P4OP_GE:
            return mk_const64(s, s->t_bool, c >= 0, a->loc);
        default:
            err(s, a->loc, "unsupported operation on integers of unknown width");
            break;
        }
        return mk_const(s, s->t_infint, &v, a->loc);
    }
    if (cmp) {
        bool eq_only = o == P4OP_EQ || o == P4OP_NE;
        if (is_compound(l->type) && eq_only) {
            if (!is_ref(l) || !is_ref(r)) {
                err(s, a->loc, "comparison of compound values needs references");
                return l;
            }
            struct p4ir_expr *e = mk(s, o == P4OP_EQ ? P4OP_EQC : P4OP_NEC, s->t_bool, a->loc);
            e->a = l;
            e->b = r;
            e->aux2 = l->type->nslots;
            return e;
        }
        if (!(is_num(l->type) || (eq_only && is_scalar(l->type))))
            err(s, a->loc, "operands of '%s' cannot be compared", p4tok_names[op]);
        struct p4ir_expr *e = mk(s, o, s->t_bool, a->loc);
        e->a = l;
        e->b = r;
        e->sgn = l->type->kind == P4T_INT;
        e->awidth = l->width;
        return fold(s, e);
    }
    if (!is_num(l->type)) {
        err(s, a->loc, "arithmetic on a non-integer value (%s)", type_str(l->type, b1, sizeof(b1)));
        return l;
    }
    if ((o == P4OP_DIV || o == P4OP_MOD) && l->type->kind == P4T_INT)
        err(s, a->loc, "division of signed values is not supported");
    if ((o == P4OP_MUL || o == P4OP_DIV || o == P4OP_MOD) && l->nw > 1 && o != P4OP_MUL)
        err(s, a->loc, "division wider than 64 bits is not supported");
    struct p4ir_expr *e = mk(s, o, l->type, a->loc);
    e->a = l;
    e->b = r;
    return fold(s, e);
}

static struct p4ir_expr *lower_member(struct sem *s, const struct p4ast *a)
{
    struct p4_type *et = enum_type_of(s, a->a);
    if (et) {
        if (et == s->t_error) {
            for (int i = 0; i < s->prog->nerrors; i++) {
                if (strcmp(s->prog->errors[i], a->name) == 0)
                    return mk_const64(s, s->t_error, (uint64_t)i, a->loc);
            }
            err(s, a->loc, "unknown error '%s'", a->name);
            return mk_const64(s, s->t_error, 0, a->loc);
        }
        for (int i = 0; i < et->nmembers; i++) {
            if (strcmp(et->members[i], a->name) == 0)
                return mk_const64(s, et, et->values[i], a->loc);
        }
        err(s, a->loc, "enum '%s' has no member '%s'", et->name, a->name);
        return mk_const64(s, et, 0, a->loc);
    }
    if (a->a->kind == P4AST_E_CALL &&
        (strcmp(a->name, "hit") == 0 || strcmp(a->name, "miss") == 0)) {
        struct p4ir_table *t = table_of_apply(s, a->a);
        if (t) {
            struct p4ir_expr *e =
                mk(s, a->name[0] == 'h' ? P4OP_HIT : P4OP_MISS, s->t_bool, a->loc);
            e->ptr = t;
            return e;
        }
    }
    struct p4ir_expr *b = lower_expr(s, a->a);
    struct p4_type *t = b->type;
    if (t == s->t_bad)
        return b;
    if (b->op == P4OP_LOOKAHEAD && b->ptr) { /* lookahead<H>().field */
        const struct p4_type *h = b->ptr;
        for (int i = 0; i < h->nfields; i++) {
            const struct p4_field *f = &h->fields[i];
            if (strcmp(f->name, a->name) != 0)
                continue;
            struct p4ir_expr *e = mk(s, P4OP_SLICE, bit_type(s, f->type->width, false), a->loc);
            e->a = b;
            e->aux = h->width - f->bitoff - f->type->width;
            if (f->type != e->type) {
                struct p4ir_expr *c = mk(s, P4OP_CAST, f->type, a->loc);
                c->a = e;
                c->awidth = e->width;
                return c;
            }
            return e;
        }
        err(s, a->loc, "'%s' has no field '%s'", h->name, a->name);
        return bad(s, a->loc);
    }
    if (t->kind == P4T_STACK && is_ref(b)) {
        if (strcmp(a->name, "size") == 0)
            return mk_const64(s, bit_type(s, 32, false), (uint64_t)t->size, a->loc);
        if (strcmp(a->name, "nextIndex") == 0) {
            if (b->op != P4OP_LOAD)
                err(s, a->loc, "nested stacks are not supported");
            struct p4ir_expr *e = mk(s, P4OP_LOAD, bit_type(s, 32, false), a->loc);
            e->slot = b->slot;
            return e;
        }
        if (strcmp(a->name, "lastIndex") == 0) {
            struct p4ir_expr *e = mk(s, P4OP_LASTINDEX, bit_type(s, 32, false), a->loc);
            e->slot = b->slot;
            return e;
        }
        if (strcmp(a->name, "next") == 0 || strcmp(a->name, "last") == 0) {
            if (b->op != P4OP_LOAD) {
                err(s, a->loc, "nested stacks are not supported");
                return b;
            }
            struct p4ir_expr *e = mk(s, P4OP_LOADX, t->elem, a->loc);
            e->slot = b->slot;
            e->aux = t->elem->nslots;
            e->aux2 = t->size;
            e->idx = a->name[0] == 'n' ? P4IDX_NEXT : P4IDX_LAST;
            return e;
        }
        err(s, a->loc, "header stack has no member '%s'", a->name);
        return b;
    }
    if ((t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_UNION) && is_ref(b)) {
        for (int i = 0; i < t->nfields; i++) {
            if (strcmp(t->fields[i].name, a->name) == 0)
                return field_ref(s, b, t->fields[i].off, t->fields[i].type, a->loc);
        }
        err(s, a->loc, "'%s' has no field '%s'", t->name, a->name);
        return bad(s, a->loc);
    }
    if (t == s->t_bad)
        return b;
    char b1[64];
    err(s, a->loc, "cannot take member '%s' of %s", a->name, type_str(t, b1, sizeof(b1)));
    return bad(s, a->loc);
}

static struct p4ir_expr *lower_expr(struct sem *s, const struct p4ast *a)
{
    switch (a->kind) {
    case P4AST_E_NUM:
        if (a->num.width >= 0)
            return mk_const(s, bit_type(s, a->num.width, a->num.is_signed), &a->num.v, a->loc);
        return mk_const(s, s->t_infint, &a->num.v, a->loc);
    case P4AST_E_BOOL:
        return mk_const64(s, s->t_bool, a->num.v.w[0], a->loc);
    case P4AST_E_STR: {
        struct p4ir_expr *e = mk(s, P4OP_CONST, s->t_string, a->loc);
        e->ptr = (void *)a->str;
        return e;
    }
    case P4AST_E_NAME: {
        struct sym *y = lookup(s, a->name);
        if (!y) {
            err(s, a->loc, "unknown name '%s'", a->name);
            return bad(s, a->loc);
        }
        if (y->kind == SYM_CONST) {
            struct p4ir_expr *e = NEW(s, struct p4ir_expr);
            *e = *y->cval;
            e->loc = a->loc;
            return e;
        }
        if (y->kind == SYM_VAR) {
            struct p4ir_expr *e = mk(s, P4OP_LOAD, y->type, a->loc);
            e->slot = y->slot;
            return e;
        }
        err(s, a->loc, "'%s' is not a value", a->name);
        return bad(s, a->loc);
    }
    case P4AST_E_MEMBER:
        return lower_member(s, a);
    case P4AST_E_INDEX: {
        struct p4ir_expr *b = lower_expr(s, a->a);
        if (b->type->kind != P4T_STACK || b->op != P4OP_LOAD) {
            err(s, a->loc, "indexing needs a header stack");
            return b;
        }
        struct p4_type *st = b->type;
        struct p4ir_expr *i = fold(s, lower_expr(s, a->b));
        if (is_const(i)) {
            struct p4_big v;
            const_big(i, &v);
            if (p4big_is_neg(&v) || v.w[0] >= (uint64_t)st->size || p4big_bits(&v) > 32) {
                err(s, a->b->loc, "stack index out of range (size %d)", st->size);
                v.w[0] = 0;
            }
            struct p4ir_expr *e = mk(s, P4OP_LOAD, st->elem, a->loc);
            e->slot = b->slot + 1 + (int)v.w[0] * st->elem->nslots;
            return e;
        }
        if (!is_num(i->type))
            err(s, a->b->loc, "stack index must be an integer");
        struct p4ir_expr *e = mk(s, P4OP_LOADX, st->elem, a->loc);
        e->slot = b->slot;
        e->aux = st->elem->nslots;
        e->aux2 = st->size;
        e->idx = P4IDX_EXPR;
        e->a = i;
        return e;
    }
    case P4AST_E_SLICE: {
        struct p4ir_expr *b = lower_expr(s, a->a);
        struct p4_big hi;
        struct p4_big lo;
        if (!const_int(s, a->b, &hi) || !const_int(s, a->c, &lo))
            return b;
        if (b->type->kind == P4T_INFINT) {
            if (!is_const(b)) {
                err(s, a->loc, "slice of a value of unknown width");
                return b;
            }
        } else if (!is_num(b->type)) {
            err(s, a->loc, "slice of a non-integer value");
            return b;
        }
        int w = b->type->kind == P4T_INFINT ? P4_MAXWIDTH : b->width;
        if (p4big_bits(&hi) > 16 || p4big_bits(&lo) > 16 || lo.w[0] > hi.w[0] ||
            (int)hi.w[0] >= w) {
            err(s, a->loc, "slice bounds [%d:%d] out of range for width %d", (int)hi.w[0],
                (int)lo.w[0], w);
            return b;
        }
        struct p4ir_expr *e =
            mk(s, P4OP_SLICE, bit_type(s, (int)(hi.w[0] - lo.w[0] + 1), false), a->loc);
        e->a = b;
        e->aux = (int)lo.w[0];
        if (b->type->kind == P4T_INFINT) {
            struct p4_big v;
            const_big(b, &v);
            p4big_shr(&v, &v, (unsigned)lo.w[0], true);
            return mk_const(s, e->type, &v, a->loc);
        }
        return fold(s, e);
    }
    case P4AST_E_CALL:
        return lower_call_expr(s, a);
    case P4AST_E_UNARY: {
        struct p4ir_expr *b = lower_expr(s, a->a);
        if (a->op == P4TOK_PLUS)
            return b;
        if (a->op == P4TOK_NOT) {
            if (b->type != s->t_bool)
                err(s, a->loc, "operand of '!' must be bool");
            struct p4ir_expr *e = mk(s, P4OP_LNOT, s->t_bool, a->loc);
            e->a = b;
            return fold(s, e);
        }
        if (b->type->kind == P4T_INFINT) {
            if (!is_const(b)) {
                err(s, a->loc, "operation on integers of unknown width");
                return b;
            }
            struct p4_big v;
            const_big(b, &v);
            if (a->op == P4TOK_MINUS)
                p4big_neg(&v, &v);
            else
                err(s, a->loc, "'~' needs a value of known width");
            return mk_const(s, s->t_infint, &v, a->loc);
        }
        if (!is_num(b->type)) {
            err(s, a->loc, "operand of '%s' must be an integer", p4tok_names[a->op]);
            return b;
        }
        struct p4ir_expr *e = mk(s, a->op == P4TOK_MINUS ? P4OP_NEG : P4OP_NOT, b->type, a->loc);
        e->a = b;
        return fold(s, e);
    }
    case P4AST_E_BINARY:
        return lower_binary(s, a);
    case P4AST_E_COND: {
        struct p4ir_expr *c = lower_expr(s, a->a);
        struct p4ir_expr *x = lower_expr(s, a->b);
        struct p4ir_expr *y = lower_expr(s, a->c);
        if (c->type != s->t_bool)
            err(s, a->a->loc, "condition must be bool");
        if (x->type->kind == P4T_INFINT && y->type->kind != P4T_INFINT)
            x = coerce(s, x, y->type, "conditional");
        else if (y->type->kind == P4T_INFINT)
            y = coerce(s, y, x->type, "conditional");
        if (x->type != y->type || !is_scalar(x->type)) {
            char b1[64];
            char b2[64];
            err(s, a->loc, "branches of '?:' have different types (%s and %s)",
                type_str(x->type, b1, sizeof(b1)), type_str(y->type, b2, sizeof(b2)));
            return x;
        }
        struct p4ir_expr *e = mk(s, P4OP_COND, x->type, a->loc);
        e->a = c;
        e->b = x;
        e->c = y;
        return fold(s, e);
    }
    case P4AST_E_CAST: {
        struct p4_type *t = resolve_type(s, a->a);
        struct p4ir_expr *b = lower_expr(s, a->b);
        if (b->type == t)
            return b;
        char b1[64];
        char b2[64];
        bool ok = false;
        if ((is_num(t) || (t->kind == P4T_ENUM && t->serializable)) &&
            (is_num(b->type) || b->type->kind == P4T_BOOL ||
             (b->type->kind == P4T_ENUM && b->type->serializable)))
            ok = true;
        if (t->kind == P4T_BOOL && is_num(b->type) && b->width == 1)
            ok = true;
        if (b->type->kind == P4T_INFINT && is_const(b) &&
            (is_num(t) || t->kind == P4T_BOOL || (t->kind == P4T_ENUM && t->serializable))) {
            struct p4_big v;
            const_big(b, &v);
            if (t->kind == P4T_BOOL)
                v.w[0] = v.w[0] != 0;
            return mk_const(s, t, &v, a->loc);
        }
        if (!ok) {
            err(s, a->loc, "cannot cast %s to %s", type_str(b->type, b1, sizeof(b1)),
                type_str(t, b2, sizeof(b2)));
            return b;
        }
        struct p4ir_expr *e = mk(s, P4OP_CAST, t, a->loc);
        e->a = b;
        e->awidth = b->width;
        e->sgn = b->type->kind == P4T_INT;
        return fold(s, e);
    }
    case P4AST_E_LIST: {
        struct p4ir_expr *e = mk(s, P4OP_CONST, s->t_list, a->loc);
        return e;
    }
    default:
        err(s, a->loc, "expression expected");
        return mk_const64(s, s->t_infint, 0, a->loc);
    }
}

/* ---- calls ---- */

static struct p4ir_expr *lower_ref(struct sem *s, const struct p4ast *a, const char *what)
{
    struct p4ir_expr *e = lower_expr(s, a);
    if (e->type == s->t_bad)
        return NULL;
    if (e->op == P4OP_SLICE && is_ref(e->a))
        return e;
    if (!is_ref(e)) {
        err(s, a->loc, "%s must be a variable or field", what);
        return NULL;
    }
    return e;
}

/* Arguments for a callable: values for in/directionless, references for out/inout. */
static struct p4ir_call *bind_call(struct sem *s, struct p4ir_callable *fn,
                                   const struct p4ast *call, int first_arg, bool allow_data,
                                   struct p4_loc loc)
{
    struct p4ir_call *c = NEW(s, struct p4ir_call);
    c->fn = fn;
    c->nargs = fn->nparams;
    c->args = NEWN(s, struct p4ir_expr *, fn->nparams);
    int given = call ? call->nlist - first_arg : 0;
    int ndir = 0;
    for (int i = 0; i < fn->nparams; i++)
        ndir += fn->params[i].dir != P4_DIR_NONE || fn->kind != P4CALL_ACTION;
    if (given > fn->nparams || (!allow_data && given != fn->nparams) ||
        (allow_data && given != ndir && given != fn->nparams)) {
        err(s, loc, "'%s' expects %d arguments, got %d", fn->name, allow_data ? ndir : fn->nparams,
            given);
        return c;
    }
    for (int i = 0; i < given; i++) {
        const struct p4ir_param *p = &fn->params[i];
        const struct p4ast *arg = call->list[first_arg + i];
        if (p->dir == P4_DIR_OUT || p->dir == P4_DIR_INOUT || is_compound(p->type)) {
            if (p->dir == P4_DIR_OUT && arg->kind == P4AST_E_NAME && strcmp(arg->name, "_") == 0)
                continue;
            struct p4ir_expr *r = lower_ref(s, arg, "argument for an out parameter");
            if (r && r->type != p->type &&
                !(r->op == P4OP_SLICE && is_num(p->type) && r->width == p->type->width)) {
                char b1[64];
                char b2[64];
                err(s, arg->loc, "type mismatch in argument '%s': expected %s, got %s", p->name,
                    type_str(p->type, b1, sizeof(b1)), type_str(r->type, b2, sizeof(b2)));
            }
            c->args[i] = r;
        } else {
            c->args[i] = coerce(s, lower_expr(s, arg), p->type, "argument");
        }
    }
    return c;
}

static struct p4ir_expr *lower_call_expr(struct sem *s, const struct p4ast *a)
{
    const struct p4ast *f = a->a;
    if (f->kind == P4AST_E_MEMBER) {
        if (strcmp(f->name, "isValid") == 0) {
            struct p4ir_expr *h = lower_expr(s, f->a);
            if (h->type->kind == P4T_UNION && is_ref(h)) { /* any member valid */
                struct p4ir_expr *any = mk_const64(s, s->t_bool, 0, a->loc);
                for (int i = 0; i < h->type->nfields; i++) {
                    const struct p4_field *m = &h->type->fields[i];
                    struct p4ir_expr *v = mk(s, P4OP_ISVALID, s->t_bool, a->loc);
                    v->a = field_ref(s, h, m->off, m->type, a->loc);
                    struct p4ir_expr *o = mk(s, P4OP_LOR, s->t_bool, a->loc);
                    o->a = any;
                    o->b = v;
                    any = o;
                }
                return any;
            }
            if (h->type->kind != P4T_HEADER || !is_ref(h)) {
                err(s, a->loc, "isValid() needs a header");
                return mk_const64(s, s->t_bool, 0, a->loc);
            }
            struct p4ir_expr *e = mk(s, P4OP_ISVALID, s->t_bool, a->loc);
            e->a = h;
            return e;
        }
        if (strcmp(f->name, "lookahead") == 0) {
            struct sym *y = f->a->kind == P4AST_E_NAME ? lookup(s, f->a->name) : NULL;
            if (!y || y->kind != SYM_PACKET || a->nlist2 != 1) {
                err(s, a->loc, "lookahead<T>() needs a packet_in and one type argument");
                return mk_const64(s, s->t_bool, 0, a->loc);
            }
            struct p4_type *t = resolve_type(s, a->list2[0]);
            if (t->kind == P4T_HEADER && t->varbit_max) {
                err(s, a->loc, "lookahead of a header with a varbit is not supported");
                return mk_const64(s, s->t_bool, 0, a->loc);
            }
            if (t->kind == P4T_HEADER && t->width > 0) {
                /* the header's bits; its fields are read as slices (see lower_member) */
                struct p4ir_expr *e = mk(s, P4OP_LOOKAHEAD, bit_type(s, t->width, false), a->loc);
                e->ptr = t;
                return e;
            }
            if (!is_num(t) && t->kind != P4T_BOOL) {
                err(s, a->loc, "lookahead<T> needs bit<W>, int<W>, bool or a header type");
                return mk_const64(s, s->t_bool, 0, a->loc);
            }
            return mk(s, P4OP_LOOKAHEAD, t, a->loc);
        }
    }
    if (f->kind == P4AST_E_NAME) {
        struct sym *y = lookup(s, f->name);
        if (y && y->kind == SYM_FUNC) {
            struct p4ir_expr *e = mk(s, P4OP_CALL, y->fn->ret_type, a->loc);
            e->ptr = bind_call(s, y->fn, a, 0, false, a->loc);
            return e;
        }
    }
    err(s, a->loc, "this call does not return a value");
    return mk_const64(s, s->t_bool, 0, a->loc);
}

/* ---- statements ---- */

/* Blocks grow in program-owned memory so freeing the program frees them. */
static void emit(struct sem *s, struct p4ir_block *b, struct p4ir_stmt *st)
{
    if (b->n >= b->cap) {
        int cap = b->cap ? 2 * b->cap : 4;
        struct p4ir_stmt **n = NEWN(s, struct p4ir_stmt *, cap);
        if (b->n)
            memcpy(n, b->s, (size_t)b->n * sizeof(*n));
        b->s = n;
        b->cap = cap;
    }
    b->s[b->n++] = st;
}

static struct p4ir_stmt *stmt(struct sem *s, struct p4ir_block *b, enum p4st op, struct p4_loc loc)
{
    struct p4ir_stmt *st = NEW(s, struct p4ir_stmt);
    st->op = op;
    st->loc = loc;
    emit(s, b, st);
    return st;
}

static void lower_block(struct sem *s, const struct p4ast *a, struct p4ir_block *b);
static void lower_stmt(struct sem *s, const struct p4ast *a, struct p4ir_block *b);

#define P4SEM_MAX_SLOTS (1 << 22)

static int alloc_slots(struct sem *s, int n)
{
    int slot = s->prog->nslots;
    if (slot + n > P4SEM_MAX_SLOTS) { /* keep going without growing: an error is reported */
        if (!s->too_big) {
            s->too_big = true;
            p4util_error(s->diag, (struct p4_loc){"?", 0, 0, NULL}, "program state too large");
        }
        return 0;
    }
    s->prog->nslots += n;
    return slot;
}

/* Assignment of value expression (or list) to a reference. */
static void assign(struct sem *s, struct p4ir_block *b, struct p4ir_expr *dst,
                   const struct p4ast *rhs, struct p4ir_expr *val, struct p4_loc loc)
{
    if (!dst)
        return;
    struct p4_type *t = dst->type;
    if (rhs && rhs->kind == P4AST_E_LIST && (t->kind == P4T_STRUCT || t->kind == P4T_HEADER)) {
        if (rhs->nlist != t->nfields) {
            err(s, rhs->loc, "'%s' has %d fields, list has %d", t->name, t->nfields, rhs->nlist);
            return;
        }
        if (t->kind == P4T_HEADER) {
            struct p4ir_stmt *st = stmt(s, b, P4ST_SETVALID, loc);
            st->a = dst;
            st->aux = 1;
        }
        for (int i = 0; i < t->nfields; i++) {
            struct p4ir_expr *fr = field_ref(s, dst, t->fields[i].off, t->fields[i].type, loc);
            assign(s, b, fr, rhs->list[i], NULL, rhs->list[i]->loc);
        }
        return;
    }
    if (!val)
        val = lower_expr(s, rhs);
    if (val->type == s->t_bad)
        return;
    if (dst->op == P4OP_SLICE) {
        val = coerce(s, val, dst->type, "assignment");
        struct p4ir_stmt *st = stmt(s, b, P4ST_ASSIGN_SLICE, loc);
        st->a = dst->a;
        st->b = val;
        st->aux = dst->aux;
        return;
    }
    if (is_compound(t)) {
        if (val->type != t || !is_ref(val)) {
            char b1[64];
            char b2[64];
            err(s, loc, "type mismatch in assignment: expected %s, got %s",
                type_str(t, b1, sizeof(b1)), type_str(val->type, b2, sizeof(b2)));
            return;
        }
        struct p4ir_stmt *st = stmt(s, b, P4ST_COPY, loc);
        st->a = dst;
        st->b = val;
        st->aux = t->nslots;
        return;
    }
    val = coerce(s, val, t, "assignment");
    if (val->type->kind == P4T_LIST || !is_scalar(val->type)) {
        err(s, loc, "cannot assign this value");
        return;
    }
    struct p4ir_stmt *st = stmt(s, b, P4ST_ASSIGN, loc);
    st->a = dst;
    st->b = val;
}

static void zero(struct sem *s, struct p4ir_block *b, int slot, struct p4_type *t,
                 struct p4_loc loc)
{
    struct p4ir_stmt *st = stmt(s, b, P4ST_ZERO, loc);
    st->a = mk(s, P4OP_LOAD, t, loc);
    st->a->slot = slot;
    st->aux = t->nslots;
}

static void var_decl(struct sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    struct p4_type *t = resolve_type(s, a->a);
    if (!is_scalar(t) && !is_compound(t)) {
        char b1[64];
        err(s, a->loc, "variables of type %s are not supported", type_str(t, b1, sizeof(b1)));
        return;
    }
    int slot = alloc_slots(s, t->nslots);
    struct p4ir_expr *dst = mk(s, P4OP_LOAD, t, a->loc);
    dst->slot = slot;
    if (a->b)
        assign(s, b, dst, a->b, NULL, a->loc);
    else
        zero(s, b, slot, t, a->loc);
    struct sym *y = declare(s, a->name, SYM_VAR, a->loc);
    y->type = t;
    y->slot = slot;
}

static void const_decl(struct sem *s, const struct p4ast *a)
{
    struct p4_type *t = resolve_type(s, a->a);
    struct p4ir_expr *v = a->b->kind == P4AST_E_LIST ? NULL : fold(s, lower_expr(s, a->b));
    if (v)
        v = coerce(s, v, t, "constant");
    if (v && !is_const(v) && v->type->kind != P4T_STRING) {
        err(s, a->b->loc, "value of '%s' is not a compile-time constant", a->name);
        v = NULL;
    }
    if (!v)
        v = mk_const64(s, t, 0, a->loc);
    struct sym *y = declare(s, a->name, SYM_CONST, a->loc);
    y->type = t;
    y->cval = v;
}

static struct p4_type *ext_type_for_error(struct sem *s)
{
    return s->t_error;
}

static int hash_algo(struct sem *s, const struct p4ast *a)
{
    struct p4ir_expr *e = fold(s, lower_expr(s, a));
    if (!is_const(e) || e->type->kind != P4T_ENUM || strcmp(e->type->name, "HashAlgorithm")) {
        err(s, a->loc, "expected a HashAlgorithm constant");
        return 0;
    }
    return (int)e->k;
}

/* Flattens a data list argument ({a, b}, a header or a struct) into value expressions. */
static void flatten(struct sem *s, const struct p4ast *a, struct p4ir_expr *e,
                    struct p4ir_expr ***out, int *n, int *cap)
{
    if (a && a->kind == P4AST_E_LIST) {
        for (int i = 0; i < a->nlist; i++)
            flatten(s, a->list[i], NULL, out, n, cap);
        return;
    }
    if (!e)
        e = lower_expr(s, a);
    struct p4_type *t = e->type;
    if (t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_UNION) {
        if (!is_ref(e)) {
            err(s, e->loc, "unsupported value in a data list");
            return;
        }
        for (int i = 0; i < t->nfields; i++)
            flatten(s, NULL, field_ref(s, e, t->fields[i].off, t->fields[i].type, e->loc), out, n,
                    cap);
        return;
    }
    if (t->kind == P4T_VARBIT && is_ref(e)) {
        P4_PUSH(*out, *n, *cap, e);
        return;
    }
    if (t->kind == P4T_INFINT || !is_scalar(t)) {
        err(s, e->loc, "data list elements need a known width");
        return;
    }
    P4_PUSH(*out, *n, *cap, e);
}

/* Field list for clone3/resubmit(data) (legacy) or @field_list(N) (current). */
static int field_list_from_data(struct sem *s, const struct p4ast *a)
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
            err(s, v[i]->loc, "preserved fields must be packet metadata");
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

static int field_list_index(struct sem *s, const struct p4ast *a)
{
    struct p4_big v;
    if (!const_int(s, a, &v))
        return -1;
    return (int)v.w[0];
}

static struct p4ir_stmt *builtin(struct sem *s, struct p4ir_block *b, enum p4builtin id,
                                 struct p4_loc loc, int nargs)
{
    struct p4ir_stmt *st = stmt(s, b, P4ST_BUILTIN, loc);
    st->aux = id;
    st->nargs = nargs;
    st->args = NEWN(s, struct p4ir_expr *, nargs);
    return st;
}

static bool nargs_ok(struct sem *s, const struct p4ast *call, const char *name, int lo, int hi)
{
    if (call->nlist < lo || call->nlist > hi) {
        if (lo == hi)
            err(s, call->loc, "'%s' expects %d arguments, got %d", name, lo, call->nlist);
        else
            err(s, call->loc, "'%s' expects %d to %d arguments, got %d", name, lo, hi, call->nlist);
        return false;
    }
    return true;
}

static struct p4ir_expr *value_arg(struct sem *s, const struct p4ast *a, struct p4_type *t)
{
    struct p4ir_expr *e = lower_expr(s, a);
    if (t)
        return coerce(s, e, t, "argument");
    if (e->type->kind == P4T_INFINT)
        return coerce(s, e, bit_type(s, 32, false), "argument");
    return e;
}

static void call_function(struct sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    const char *name = call->a->name;
    struct p4_loc loc = call->loc;
    struct sym *y = lookup(s, name);
    struct p4_type *u32 = bit_type(s, 32, false);
    if (y && (y->kind == SYM_ACTION || y->kind == SYM_GLOBAL_ACTION || y->kind == SYM_FUNC)) {
        struct p4ir_stmt *st = stmt(s, b, P4ST_CALL, loc);
        st->call = bind_call(s, y->fn, call, 0, false, loc);
        return;
    }
    if (!y || y->kind != SYM_EXTERN_FUNC) {
        err(s, call->a->loc, y ? "'%s' cannot be called" : "unknown function '%s'", name);
        return;
    }
    if (strcmp(name, "mark_to_drop") == 0) {
        nargs_ok(s, call, name, 0, 1);
        builtin(s, b, P4B_MARK_TO_DROP, loc, 0);
    } else if (strcmp(name, "hash") == 0) {
        if (!nargs_ok(s, call, name, 5, 5))
            return;
        struct p4ir_expr *out = lower_ref(s, call->list[0], "hash result");
        if (!out)
            return;
        struct p4ir_expr **v = NULL;
        int n = 0;
        int cap = 0;
        flatten(s, call->list[3], NULL, &v, &n, &cap);
        struct p4ir_stmt *st = builtin(s, b, P4B_HASH, loc, 3 + n);
        st->aux2 = hash_algo(s, call->list[1]);
        st->args[0] = out;
        st->args[1] = value_arg(s, call->list[2], out->type->kind == P4T_INFINT ? NULL : NULL);
        st->args[2] = value_arg(s, call->list[4], NULL);
        if (st->args[1]->nw > 1)
            err(s, loc, "hash base must be at most 64 bits");
        for (int i = 0; i < n; i++)
            st->args[3 + i] = v[i];
        free(v);
    } else if (strcmp(name, "random") == 0) {
        if (!nargs_ok(s, call, name, 3, 3))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_RANDOM, loc, 3);
        st->args[0] = lower_ref(s, call->list[0], "random result");
        if (!st->args[0])
            return;
        st->args[1] = value_arg(s, call->list[1], st->args[0]->type);
        st->args[2] = value_arg(s, call->list[2], st->args[0]->type);
    } else if (strcmp(name, "verify_checksum") == 0 || strcmp(name, "update_checksum") == 0 ||
               strcmp(name, "verify_checksum_with_payload") == 0 ||
               strcmp(name, "update_checksum_with_payload") == 0) {
        if (!nargs_ok(s, call, name, 4, 4))
            return;
        bool verify = name[0] == 'v';
        struct p4ir_expr *cond = coerce(s, lower_expr(s, call->list[0]), s->t_bool, "condition");
        struct p4ir_expr *field = lower_ref(s, call->list[2], "checksum field");
        if (!field)
            return;
        struct p4ir_expr **v = NULL;
        int n = 0;
        int cap = 0;
        flatten(s, call->list[1], NULL, &v, &n, &cap);
        struct p4ir_stmt *st =
            builtin(s, b, verify ? P4B_VERIFY_CKSUM : P4B_UPDATE_CKSUM, loc, 2 + n);
        st->aux2 = hash_algo(s, call->list[3]);
        st->args[0] = cond;
        st->args[1] = field;
        st->flag = strstr(name, "payload") != NULL;
        for (int i = 0; i < n; i++)
            st->args[2 + i] = v[i];
        free(v);
    } else if (strcmp(name, "clone") == 0 || strcmp(name, "clone3") == 0 ||
               strcmp(name, "clone_preserving_field_list") == 0) {
        int want = name[5] ? 3 : 2;
        if (!nargs_ok(s, call, name, want, want))
            return;
        struct p4ir_expr *t = fold(s, lower_expr(s, call->list[0]));
        if (!is_const(t) || t->type->kind != P4T_ENUM)
            err(s, call->list[0]->loc, "expected CloneType.I2E or CloneType.E2E");
        struct p4ir_stmt *st = builtin(s, b, P4B_CLONE, loc, 1);
        st->aux2 = -1;
        st->args[0] = value_arg(s, call->list[1], u32);
        st->type = NULL;
        st->vals = NEWN(s, uint64_t, 1);
        st->vals[0] = t->k; /* 0 I2E, 1 E2E */
        if (want == 3)
            st->aux2 = name[5] == '3' ? field_list_from_data(s, call->list[2])
                                      : field_list_index(s, call->list[2]);
    } else if (strcmp(name, "resubmit") == 0 || strcmp(name, "recirculate") == 0 ||
               strcmp(name, "resubmit_preserving_field_list") == 0 ||
               strcmp(name, "recirculate_preserving_field_list") == 0) {
        if (!nargs_ok(s, call, name, 0, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, name[2] == 's' ? P4B_RESUBMIT : P4B_RECIRC, loc, 0);
        st->aux2 = -1;
        if (call->nlist == 1)
            st->aux2 = strstr(name, "field_list") ? field_list_index(s, call->list[0])
                                                  : field_list_from_data(s, call->list[0]);
    } else if (strcmp(name, "digest") == 0) {
        builtin(s, b, P4B_NOP, loc, 0);
    } else if (strcmp(name, "log_msg") == 0) {
        if (!nargs_ok(s, call, name, 1, 2))
            return;
        struct p4ir_expr **v = NULL;
        int n = 0;
        int cap = 0;
        if (call->nlist == 2)
            flatten(s, call->list[1], NULL, &v, &n, &cap);
        struct p4ir_stmt *st = builtin(s, b, P4B_LOG_MSG, loc, 1 + n);
        st->args[0] = lower_expr(s, call->list[0]);
        if (st->args[0]->type != s->t_string)
            err(s, call->list[0]->loc, "log_msg needs a string");
        for (int i = 0; i < n; i++)
            st->args[1 + i] = v[i];
        free(v);
    } else if (strcmp(name, "truncate") == 0) {
        if (!nargs_ok(s, call, name, 1, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_TRUNCATE, loc, 1);
        st->args[0] = value_arg(s, call->list[0], u32);
    } else if (strcmp(name, "assert") == 0 || strcmp(name, "assume") == 0) {
        if (!nargs_ok(s, call, name, 1, 1))
            return;
        struct p4ir_stmt *st = builtin(s, b, P4B_ASSERT, loc, 1);
        st->args[0] = coerce(s, lower_expr(s, call->list[0]), s->t_bool, "assert");
    } else if (strcmp(name, "verify") == 0) {
        if (!s->in_parser) {
            err(s, loc, "verify() is only allowed in a parser");
            return;
        }
        if (!nargs_ok(s, call, name, 2, 2))
            return;
        struct p4ir_stmt *st = stmt(s, b, P4ST_VERIFY, loc);
        st->a = coerce(s, lower_expr(s, call->list[0]), s->t_bool, "verify");
        st->b = coerce(s, fold(s, lower_expr(s, call->list[1])), ext_type_for_error(s), "verify");
    } else {
        err(s, call->a->loc, "extern function '%s' is not supported", name);
    }
}

/* If `a` names a member of a header_union, makes the other members invalid (P4: at most
 * one member of a union is valid; extract, setValid and assignment select the member). */
static void union_select(struct sem *s, const struct p4ast *a, struct p4ir_block *b,
                         struct p4_loc loc)
{
    if (a->kind != P4AST_E_MEMBER)
        return;
    int before = s->diag->nerrors;
    struct p4ir_expr *u = lower_expr(s, a->a);
    if (s->diag->nerrors != before || u->type->kind != P4T_UNION || !is_ref(u))
        return;
    for (int i = 0; i < u->type->nfields; i++) {
        const struct p4_field *m = &u->type->fields[i];
        if (strcmp(m->name, a->name) == 0)
            continue;
        struct p4ir_stmt *st = stmt(s, b, P4ST_SETVALID, loc);
        st->a = field_ref(s, u, m->off, m->type, loc);
        st->aux = 0;
    }
}

static void call_method(struct sem *s, const struct p4ast *call, struct p4ir_block *b)
{
    const struct p4ast *m = call->a;
    const char *name = m->name;
    struct p4_loc loc = call->loc;
    struct p4_type *u32 = bit_type(s, 32, false);
    struct sym *y = m->a->kind == P4AST_E_NAME ? lookup(s, m->a->name) : NULL;
    if (y && y->kind == SYM_PACKET) {
        if (!y->packet_out && strcmp(name, "extract") == 0) {
            if (call->nlist != 1 && call->nlist != 2) {
                err(s, loc, "extract expects 1 or 2 arguments");
                return;
            }
            struct p4ir_expr *h = lower_ref(s, call->list[0], "extract target");
            if (!h)
                return;
            if (h->type->kind != P4T_HEADER) {
                err(s, call->list[0]->loc, "extract needs a header");
                return;
            }
            if ((call->nlist == 2) != (h->type->varbit_max > 0)) {
                err(s, loc,
                    call->nlist == 2 ? "two-argument extract needs a header with a varbit"
                                     : "a header with a varbit needs extract(hdr, bits)");
                return;
            }
            union_select(s, call->list[0], b, loc);
            struct p4ir_stmt *st = stmt(s, b, P4ST_EXTRACT, loc);
            st->a = h;
            st->type = h->type;
            if (call->nlist == 2)
                st->b = value_arg(s, call->list[1], u32);
            return;
        }
        if (!y->packet_out && strcmp(name, "advance") == 0) {
            if (!nargs_ok(s, call, name, 1, 1))
                return;
            struct p4ir_stmt *st = stmt(s, b, P4ST_ADVANCE, loc);
            st->b = value_arg(s, call->list[0], u32);
            return;
        }
        if (!y->packet_out && strcmp(name, "lookahead") == 0) {
            lower_call_expr(s, call);
            return;
        }
        if (y->packet_out && strcmp(name, "emit") == 0) {
            if (!nargs_ok(s, call, name, 1, 1))
                return;
            struct p4ir_expr *h = lower_ref(s, call->list[0], "emit argument");
            if (!h)
                return;
            if (h->type->kind == P4T_STRUCT || h->type->kind == P4T_UNION) {
                for (int i = 0; i < h->type->nfields; i++) {
                    struct p4_field *f = &h->type->fields[i];
                    if (f->type->kind == P4T_UNION) {
                        struct p4ir_expr *u = field_ref(s, h, f->off, f->type, loc);
                        for (int j = 0; j < f->type->nfields; j++) {
                            struct p4ir_stmt *st = stmt(s, b, P4ST_EMIT, loc);
                            st->a = field_ref(s, u, f->type->fields[j].off, f->type->fields[j].type,
                                              loc);
                            st->type = f->type->fields[j].type;
                        }
                        continue;
                    }
                    if (f->type->kind != P4T_HEADER && f->type->kind != P4T_STACK) {
                        err(s, call->list[0]->loc, "emit of a struct with non-header field '%s'",
                            f->name);
                        return;
                    }
                    struct p4ir_stmt *st = stmt(s, b, P4ST_EMIT, loc);
                    st->a = field_ref(s, h, f->off, f->type, loc);
                    st->type = f->type;
                }
                return;
            }
            if (h->type->kind != P4T_HEADER && h->type->kind != P4T_STACK) {
                err(s, call->list[0]->loc, "emit needs a header, header stack or struct");
                return;
            }
            struct p4ir_stmt *st = stmt(s, b, P4ST_EMIT, loc);
            st->a = h;
            st->type = h->type;
            return;
        }
        err(s, m->loc, "unknown packet method '%s'", name);
        return;
    }
    if (y && y->kind == SYM_TABLE && strcmp(name, "apply") == 0) {
        struct p4ir_stmt *st = stmt(s, b, P4ST_APPLY, loc);
        st->table = y->table;
        return;
    }
    if (y && y->kind == SYM_CONTROL_INST && strcmp(name, "apply") == 0) {
        struct p4ir_stmt *st = stmt(s, b, P4ST_CALL, loc);
        st->call = bind_call(s, y->fn, call, 0, false, loc);
        return;
    }
    if (y && y->kind == SYM_EXTERN_INST) {
        const struct p4ir_extern *x = &s->prog->externs[y->ext];
        struct p4ir_stmt *st = NULL;
        if (x->kind == P4EXT_REGISTER && strcmp(name, "read") == 0 &&
            nargs_ok(s, call, name, 2, 2)) {
            st = builtin(s, b, P4B_REG_READ, loc, 2);
            st->args[0] = lower_ref(s, call->list[0], "register read result");
            st->args[1] = value_arg(s, call->list[1], NULL);
            if (st->args[0] && st->args[0]->width != x->width)
                err(s, call->list[0]->loc, "register '%s' holds bit<%d> values", x->name, x->width);
        } else if (x->kind == P4EXT_REGISTER && strcmp(name, "write") == 0 &&
                   nargs_ok(s, call, name, 2, 2)) {
            st = builtin(s, b, P4B_REG_WRITE, loc, 2);
            st->args[0] = value_arg(s, call->list[0], NULL);
            st->args[1] = value_arg(s, call->list[1], bit_type(s, x->width, false));
            if (st->args[1]->type->kind == P4T_INT || st->args[1]->type->kind == P4T_BOOL ||
                st->args[1]->type->kind == P4T_ENUM)
                st->args[1]->width = st->args[1]->width; /* stored as raw bits */
        } else if (x->kind == P4EXT_COUNTER && strcmp(name, "count") == 0 &&
                   nargs_ok(s, call, name, 1, 1)) {
            st = builtin(s, b, P4B_COUNT, loc, 1);
            st->args[0] = value_arg(s, call->list[0], NULL);
        } else if (x->kind == P4EXT_DIRECT_COUNTER && strcmp(name, "count") == 0) {
            st = builtin(s, b, P4B_NOP, loc, 0);
        } else if (x->kind == P4EXT_METER && strcmp(name, "execute_meter") == 0 &&
                   nargs_ok(s, call, name, 2, 2)) {
            st = builtin(s, b, P4B_METER, loc, 2);
            st->args[0] = value_arg(s, call->list[0], NULL);
            st->args[1] = lower_ref(s, call->list[1], "meter result");
        } else if (x->kind == P4EXT_DIRECT_METER && strcmp(name, "read") == 0 &&
                   nargs_ok(s, call, name, 1, 1)) {
            st = builtin(s, b, P4B_DMETER, loc, 1);
            st->args[0] = lower_ref(s, call->list[0], "meter result");
        } else {
            err(s, m->loc, "unknown method '%s' of '%s'", name, x->name);
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
                    err(s, st->args[i]->loc, "index wider than 64 bits");
            }
        }
        return;
    }
    struct p4ir_expr *h = lower_expr(s, m->a);
    if (h->type->kind == P4T_HEADER && is_ref(h) &&
        (strcmp(name, "setValid") == 0 || strcmp(name, "setInvalid") == 0)) {
        if (name[3] == 'V')
            union_select(s, m->a, b, loc);
        struct p4ir_stmt *st = stmt(s, b, P4ST_SETVALID, loc);
        st->a = h;
        st->aux = name[3] == 'V';
        return;
    }
    if (h->type->kind == P4T_HEADER && strcmp(name, "isValid") == 0)
        return;
    if (h->type->kind == P4T_STACK && h->op == P4OP_LOAD &&
        (strcmp(name, "push_front") == 0 || strcmp(name, "pop_front") == 0)) {
        struct p4_big v;
        if (!nargs_ok(s, call, name, 1, 1) || !const_int(s, call->list[0], &v))
            return;
        struct p4ir_stmt *st = stmt(s, b, name[1] == 'u' ? P4ST_PUSH : P4ST_POP, loc);
        st->a = h;
        st->aux = (int)(v.w[0] > 1000 ? 1000 : v.w[0]);
        st->type = h->type;
        return;
    }
    err(s, m->loc, "unknown method '%s'", name);
}

static void lower_switch(struct sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    const struct p4ast *x = a->a;
    if (x->kind == P4AST_E_MEMBER && strcmp(x->name, "action_run") == 0) {
        struct p4ir_table *t = table_of_apply(s, x->a);
        if (!t) {
            err(s, x->loc, "action_run needs a table apply");
            return;
        }
        struct p4ir_stmt *st = stmt(s, b, P4ST_SWITCH, a->loc);
        st->table = t;
        st->ncases = t->nactions;
        st->cases = NEWN(s, struct p4ir_block, t->nactions);
        st->has_case = NEWN(s, bool, t->nactions);
        int pending[64];
        int npending = 0;
        bool pending_default = false;
        for (int i = 0; i < a->nlist; i++) {
            const struct p4ast *c = a->list[i];
            if (!c->a) {
                pending_default = true;
            } else if (c->a->kind != P4AST_E_NAME) {
                err(s, c->loc, "switch label must be an action name");
            } else {
                int k = -1;
                for (int j = 0; j < t->nactions; j++) {
                    const char *full = t->actions[j].call.fn->name;
                    const char *dot = strrchr(full, '.');
                    if (strcmp(full, c->a->name) == 0 || (dot && strcmp(dot + 1, c->a->name) == 0))
                        k = j;
                }
                if (k < 0)
                    err(s, c->a->loc, "'%s' is not an action of table '%s'", c->a->name, t->name);
                else if (npending < 64)
                    pending[npending++] = k;
            }
            if (c->b) {
                struct p4ir_block body = {0};
                lower_block(s, c->b, &body);
                for (int j = 0; j < npending; j++) {
                    st->cases[pending[j]] = body;
                    st->has_case[pending[j]] = true;
                }
                if (pending_default)
                    st->els = body;
                npending = 0;
                pending_default = false;
            }
        }
        return;
    }
    /* switch on a value: lowered to SWITCHV with constant labels */
    struct p4ir_expr *v = lower_expr(s, x);
    if (!is_scalar(v->type) || v->nw > 1) {
        err(s, x->loc, "switch expression must be a scalar of at most 64 bits");
        return;
    }
    struct p4ir_stmt *st = stmt(s, b, P4ST_SWITCHV, a->loc);
    st->b = v;
    st->cases = NEWN(s, struct p4ir_block, a->nlist);
    st->vals = NEWN(s, uint64_t, a->nlist);
    st->has_case = NEWN(s, bool, a->nlist);
    int first_pending = 0;
    for (int i = 0; i < a->nlist; i++) {
        const struct p4ast *c = a->list[i];
        if (c->a) {
            struct p4ir_expr *k = fold(s, coerce(s, lower_expr(s, c->a), v->type, "switch label"));
            if (!is_const(k))
                err(s, c->a->loc, "switch label must be a constant");
            st->vals[i] = k->k;
            st->has_case[i] = true;
        }
        if (c->b) {
            struct p4ir_block body = {0};
            lower_block(s, c->b, &body);
            for (int j = first_pending; j <= i; j++) {
                if (a->list[j]->a)
                    st->cases[j] = body;
                else
                    st->els = body;
            }
            first_pending = i + 1;
        }
    }
    st->ncases = a->nlist;
}

static void lower_stmt(struct sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    switch (a->kind) {
    case P4AST_S_EMPTY:
        return;
    case P4AST_S_BLOCK: {
        struct p4ir_stmt *st = stmt(s, b, P4ST_BLOCK, a->loc);
        lower_block(s, a, &st->body);
        return;
    }
    case P4AST_S_IF: {
        struct p4ir_expr *c = fold(s, lower_expr(s, a->a));
        if (c->type != s->t_bool)
            err(s, a->a->loc, "condition must be bool");
        struct p4ir_stmt *st = stmt(s, b, P4ST_IF, a->loc);
        st->b = c;
        push_scope(s);
        lower_stmt(s, a->b, &st->body);
        pop_scope(s);
        if (a->c) {
            push_scope(s);
            lower_stmt(s, a->c, &st->els);
            pop_scope(s);
        }
        return;
    }
    case P4AST_S_SWITCH:
        lower_switch(s, a, b);
        return;
    case P4AST_S_ASSIGN: {
        struct p4ir_expr *dst = lower_ref(s, a->a, "left side of assignment");
        if (dst && dst->type->kind == P4T_HEADER)
            union_select(s, a->a, b, a->loc);
        assign(s, b, dst, a->b, NULL, a->loc);
        return;
    }
    case P4AST_S_CALL: {
        const struct p4ast *c = a->a;
        if (c->a->kind == P4AST_E_NAME)
            call_function(s, c, b);
        else if (c->a->kind == P4AST_E_MEMBER)
            call_method(s, c, b);
        else
            err(s, c->loc, "cannot call this expression");
        return;
    }
    case P4AST_S_VAR:
        var_decl(s, a, b);
        return;
    case P4AST_S_CONST:
        const_decl(s, a);
        return;
    case P4AST_S_EXIT:
        if (s->in_parser)
            err(s, a->loc, "exit is not allowed in a parser");
        stmt(s, b, P4ST_EXIT, a->loc);
        return;
    case P4AST_S_RETURN: {
        struct p4ir_stmt *st = stmt(s, b, P4ST_RETURN, a->loc);
        struct p4ir_callable *fn = s->cur_fn;
        if (a->a) {
            if (!fn || fn->kind != P4CALL_FUNC || fn->ret_type == s->t_void) {
                err(s, a->loc, "return with a value outside a function");
                return;
            }
            st->a = mk(s, P4OP_LOAD, fn->ret_type, a->loc);
            st->a->slot = fn->ret_slot;
            st->b = coerce(s, lower_expr(s, a->a), fn->ret_type, "return");
        }
        return;
    }
    case P4AST_S_TRANSITION:
        err(s, a->loc, "transition must be the last statement of a parser state");
        return;
    case P4AST_D_INST:
        err(s, a->loc, "instantiation is not allowed here");
        return;
    default:
        err(s, a->loc, "statement expected");
        return;
    }
}

static void lower_block(struct sem *s, const struct p4ast *a, struct p4ir_block *b)
{
    push_scope(s);
    for (int i = 0; i < a->nlist; i++)
        lower_stmt(s, a->list[i], b);
    pop_scope(s);
}

/* ---- callables ---- */

static struct p4ir_callable *new_callable(struct sem *s, enum p4ir_call_kind k, const char *name,
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
        q->type = resolve_type(s, p->a);
        if (!is_scalar(q->type) && !is_compound(q->type)) {
            char b1[64];
            err(s, p->loc, "parameter of type %s is not supported here",
                type_str(q->type, b1, sizeof(b1)));
        }
        q->nslots = q->type->nslots;
        q->slot = alloc_slots(s, q->nslots);
    }
    return fn;
}

static void bind_params(struct sem *s, struct p4ir_callable *fn, const struct p4ast *params)
{
    for (int i = 0; i < fn->nparams; i++) {
        struct sym *y = declare(s, fn->params[i].name, SYM_VAR, params->list[i]->loc);
        y->type = fn->params[i].type;
        y->slot = fn->params[i].slot;
    }
}

static const char *keep(struct sem *s, const char *str)
{
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, (void *)str);
    return str;
}

static const char *qualify(struct sem *s, const struct p4ast *d)
{
    const struct p4ast *n = p4parse_annot(d, "name");
    if (n && n->str) {
        if (n->str[0] == '.')
            return n->str + 1;
        if (s->prefix)
            return keep(s, p4util_asprintf("%s.%s", s->prefix, n->str));
        return n->str;
    }
    if (s->prefix)
        return keep(s, p4util_asprintf("%s.%s", s->prefix, d->name));
    return d->name;
}

static struct p4ir_callable *lower_action(struct sem *s, const struct p4ast *d)
{
    const char *name = qualify(s, d);
    struct p4ir_callable *fn = new_callable(s, P4CALL_ACTION, name, d, d->loc);
    fn->id = s->prog->nactions;
    P4_PUSH(s->prog->actions, s->prog->nactions, s->prog->capactions, fn);
    push_scope(s);
    bind_params(s, fn, d);
    struct p4ir_callable *saved = s->cur_fn;
    bool saved_act = s->in_action;
    s->cur_fn = fn;
    s->in_action = true;
    lower_block(s, d->a, &fn->body);
    s->cur_fn = saved;
    s->in_action = saved_act;
    pop_scope(s);
    return fn;
}

static void lower_function(struct sem *s, const struct p4ast *d)
{
    struct p4ir_callable *fn = new_callable(s, P4CALL_FUNC, d->name, d, d->loc);
    fn->ret_type = resolve_type(s, d->a);
    if (fn->ret_type != s->t_void) {
        if (!is_scalar(fn->ret_type))
            err(s, d->a->loc, "functions must return a scalar");
        fn->ret_slot = alloc_slots(s, fn->ret_type->nslots);
    }
    push_scope(s);
    bind_params(s, fn, d);
    struct p4ir_callable *saved = s->cur_fn;
    s->cur_fn = fn;
    lower_block(s, d->b, &fn->body);
    s->cur_fn = saved;
    pop_scope(s);
    /* declared after its body: P4 has no recursion */
    struct sym *y = declare(s, d->name, SYM_FUNC, d->loc);
    y->fn = fn;
}

/* ---- tables ---- */

static enum p4_match_kind match_kind(struct sem *s, const struct p4ast *k)
{
    static const char *const names[] = {"exact", "lpm", "ternary", "range", "optional", "selector"};
    for (size_t i = 0; i < P4_ARRAY_LEN(names); i++) {
        if (strcmp(k->name, names[i]) == 0) {
            if (i == P4MK_SELECTOR)
                break;
            return (enum p4_match_kind)i;
        }
    }
    err(s, k->loc, "unsupported match kind '%s'", k->name);
    return P4MK_EXACT;
}

static int find_table_action(struct p4ir_table *t, const struct p4ir_callable *fn)
{
    for (int i = 0; i < t->nactions; i++) {
        if (t->actions[i].call.fn == fn)
            return i;
    }
    return -1;
}

/* Action data words for a call with constant arguments (entries, default action). */
static bool action_data(struct sem *s, struct p4ir_table *t, const struct p4ast *call,
                        struct p4ir_entry *en, bool is_default)
{
    const struct p4ast *callee = call->kind == P4AST_E_CALL ? call->a : call;
    if (callee->kind != P4AST_E_NAME) {
        err(s, call->loc, "expected an action");
        return false;
    }
    struct sym *y = lookup(s, callee->name);
    if (!y || (y->kind != SYM_ACTION && y->kind != SYM_GLOBAL_ACTION)) {
        err(s, callee->loc, "'%s' is not an action", callee->name);
        return false;
    }
    int k = find_table_action(t, y->fn);
    if (k < 0) {
        err(s, callee->loc, "action '%s' is not in the actions of table '%s'", callee->name,
            t->name);
        return false;
    }
    const struct p4ir_table_action *ta = &t->actions[k];
    if (!is_default && ta->default_only)
        err(s, callee->loc, "action '%s' is @defaultonly", callee->name);
    if (is_default && ta->table_only)
        err(s, callee->loc, "action '%s' is @tableonly", callee->name);
    en->action = k;
    en->data = NEWN(s, uint64_t, ta->data_words);
    int given = call->kind == P4AST_E_CALL ? call->nlist : 0;
    const struct p4ir_callable *fn = ta->call.fn;
    int ndir = fn->nparams - ta->ndata;
    if (given != ta->ndata && given != fn->nparams) {
        err(s, call->loc, "action '%s' expects %d arguments, got %d", callee->name, ta->ndata,
            given);
        return false;
    }
    int w = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const struct p4ir_param *p = &fn->params[i];
        if (ta->call.args[i])
            continue;
        int ai = given == fn->nparams ? i : i - ndir;
        if (ai < 0 || ai >= given)
            continue;
        struct p4ir_expr *v =
            fold(s, coerce(s, lower_expr(s, call->list[ai]), p->type, "argument"));
        if (!is_const(v)) {
            err(s, call->list[ai]->loc, "action argument must be a constant");
            return false;
        }
        if (v->nw > 1)
            memcpy(en->data + w, v->kw, (size_t)v->nw * 8);
        else
            en->data[w] = v->k;
        w += p->nslots;
    }
    return true;
}

static void key_value(struct sem *s, const struct p4ir_key *k, const struct p4ast *ks,
                      uint64_t *val, uint64_t *mask, uint64_t *hi)
{
    struct p4_type *t = k->e->type;
    p4util_wmask(mask + k->woff, k->nw, k->width);
    if (ks->kind == P4AST_E_DEFAULT) {
        for (int i = 0; i < k->nw; i++) {
            val[k->woff + i] = 0;
            mask[k->woff + i] = 0;
            if (hi)
                hi[k->woff + i] = p4util_mask64(k->width - 64 * i);
        }
        if (k->mk == P4MK_EXACT)
            err(s, ks->loc, "exact key '%s' needs a value", k->name);
        return;
    }
    const struct p4ast *va = ks->kind == P4AST_E_MASK || ks->kind == P4AST_E_RANGE ? ks->a : ks;
    struct p4ir_expr *v = fold(s, coerce(s, lower_expr(s, va), t, "key"));
    if (!is_const(v)) {
        err(s, va->loc, "key value must be a constant");
        return;
    }
    const uint64_t *vw = v->nw > 1 ? v->kw : &v->k;
    memcpy(val + k->woff, vw, (size_t)k->nw * 8);
    if (hi)
        memcpy(hi + k->woff, vw, (size_t)k->nw * 8);
    if (ks->kind == P4AST_E_MASK) {
        if (k->mk == P4MK_EXACT || k->mk == P4MK_RANGE)
            err(s, ks->loc, "mask on a key that is not ternary or lpm");
        struct p4ir_expr *m = fold(s, coerce(s, lower_expr(s, ks->b), t, "mask"));
        if (!is_const(m)) {
            err(s, ks->b->loc, "mask must be a constant");
            return;
        }
        memcpy(mask + k->woff, m->nw > 1 ? m->kw : &m->k, (size_t)k->nw * 8);
    } else if (ks->kind == P4AST_E_RANGE) {
        if (k->mk != P4MK_RANGE)
            err(s, ks->loc, "range on a key that is not a range key");
        struct p4ir_expr *h = fold(s, coerce(s, lower_expr(s, ks->b), t, "range"));
        if (!is_const(h) || !hi) {
            err(s, ks->b->loc, "range bound must be a constant");
            return;
        }
        memcpy(hi + k->woff, h->nw > 1 ? h->kw : &h->k, (size_t)k->nw * 8);
        for (int i = 0; i < k->nw; i++)
            mask[k->woff + i] = 0;
    }
    for (int i = 0; i < k->nw; i++)
        val[k->woff + i] &= mask[k->woff + i];
}

static void lower_table(struct sem *s, const struct p4ast *d)
{
    struct p4ir_table *t = NEW(s, struct p4ir_table);
    t->name = qualify(s, d);
    t->loc = d->loc;
    t->id = s->prog->ntables;
    t->direct_counter = -1;
    t->direct_meter = -1;
    t->default_entry.action = -1;
    t->size = 1024;
    const struct p4ast *key = NULL;
    const struct p4ast *acts = NULL;
    const struct p4ast *def = NULL;
    const struct p4ast *ents = NULL;
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *p = d->list[i];
        if (p->kind == P4AST_TP_KEY)
            key = p;
        else if (p->kind == P4AST_TP_ACTIONS)
            acts = p;
        else if (p->kind == P4AST_TP_DEFAULT)
            def = p;
        else if (p->kind == P4AST_TP_ENTRIES)
            ents = p;
        else if (strcmp(p->name, "size") == 0) {
            struct p4_big v;
            if (const_int(s, p->a, &v))
                t->size = (int)(v.w[0] > 1u << 24 ? 1u << 24 : v.w[0]);
        } else if (strcmp(p->name, "counters") == 0 || strcmp(p->name, "meters") == 0) {
            struct sym *y = p->a->kind == P4AST_E_NAME ? lookup(s, p->a->name) : NULL;
            bool c = p->name[0] == 'c';
            if (!y || y->kind != SYM_EXTERN_INST ||
                s->prog->externs[y->ext].kind != (c ? P4EXT_DIRECT_COUNTER : P4EXT_DIRECT_METER)) {
                err(s, p->a->loc,
                    c ? "counters needs a direct_counter instance"
                      : "meters needs a direct_meter instance");
            } else if (c) {
                t->direct_counter = y->ext;
            } else {
                t->direct_meter = y->ext;
            }
        } else if (strcmp(p->name, "implementation") == 0) {
            err(s, p->loc, "table implementations (action profiles) are not supported");
        }
    }
    if (!acts) {
        err(s, d->loc, "table '%s' has no actions", d->name);
        return;
    }
    /* keys */
    int words = 0;
    if (key) {
        t->nkeys = key->nlist;
        t->keys = NEWN(s, struct p4ir_key, t->nkeys);
        for (int i = 0; i < key->nlist; i++) {
            const struct p4ast *ke = key->list[i];
            struct p4ir_key *k = &t->keys[i];
            k->e = lower_expr(s, ke->a);
            if (!is_scalar(k->e->type) || k->e->type->kind == P4T_INFINT)
                err(s, ke->a->loc, "table key must be a scalar of known width");
            k->mk = match_kind(s, ke);
            k->width = k->e->width ? k->e->width : 1;
            k->nw = p4util_nwords(k->width);
            k->woff = words;
            words += k->nw;
            const struct p4ast *n = p4parse_annot(ke, "name");
            k->name = n && n->str ? n->str : keep(s, p4util_strdup(ke->text));
        }
    }
    t->key_words = words;
    if (words > s->prog->max_key_words)
        s->prog->max_key_words = words;
    /* actions */
    t->nactions = acts->nlist;
    t->actions = NEWN(s, struct p4ir_table_action, acts->nlist);
    for (int i = 0; i < acts->nlist; i++) {
        const struct p4ast *ar = acts->list[i];
        const struct p4ast *callee = ar->a->kind == P4AST_E_CALL ? ar->a->a : ar->a;
        struct sym *y = callee->kind == P4AST_E_NAME ? lookup(s, callee->name) : NULL;
        if (!y || (y->kind != SYM_ACTION && y->kind != SYM_GLOBAL_ACTION)) {
            err(s, ar->a->loc, "'%s' is not an action",
                callee->kind == P4AST_E_NAME ? callee->name : "?");
            t->nactions = i;
            break;
        }
        struct p4ir_table_action *ta = &t->actions[i];
        struct p4ir_callable *fn = y->fn;
        ta->default_only = p4parse_annot(ar, "defaultonly") != NULL;
        ta->table_only = p4parse_annot(ar, "tableonly") != NULL;
        int ndir = 0;
        for (int j = 0; j < fn->nparams; j++)
            ndir += fn->params[j].dir != P4_DIR_NONE;
        const struct p4ast *call = ar->a->kind == P4AST_E_CALL ? ar->a : NULL;
        ta->call.fn = fn;
        ta->call.nargs = fn->nparams;
        ta->call.args = NEWN(s, struct p4ir_expr *, fn->nparams);
        int given = call ? call->nlist : 0;
        if (given != ndir)
            err(s, ar->a->loc, "action '%s' in a table list needs %d arguments, got %d",
                callee->name, ndir, given);
        int ai = 0;
        for (int j = 0; j < fn->nparams; j++) {
            const struct p4ir_param *p = &fn->params[j];
            if (p->dir == P4_DIR_NONE) {
                ta->ndata++;
                ta->data_words += p->nslots;
                continue;
            }
            if (ai >= given)
                continue;
            const struct p4ast *arg = call->list[ai++];
            if (p->dir == P4_DIR_IN)
                ta->call.args[j] = coerce(s, lower_expr(s, arg), p->type, "argument");
            else
                ta->call.args[j] = lower_ref(s, arg, "argument for an out parameter");
        }
        if (ta->data_words > s->prog->max_data_words)
            s->prog->max_data_words = ta->data_words;
        if (find_table_action(t, fn) != i)
            err(s, ar->loc, "action '%s' listed twice", callee->name);
    }
    /* default action */
    if (def) {
        action_data(s, t, def->a, &t->default_entry, true);
        t->const_default = def->is_const;
    } else {
        for (int i = 0; i < t->nactions; i++) {
            if (strcmp(t->actions[i].call.fn->name, "NoAction") == 0 &&
                t->actions[i].data_words == 0) {
                t->default_entry.action = i;
                t->default_entry.data = NEWN(s, uint64_t, 1);
            }
        }
    }
    /* entries */
    if (ents) {
        t->const_entries = ents->is_const;
        t->nentries = ents->nlist;
        t->entries = NEWN(s, struct p4ir_entry, ents->nlist);
        bool has_range = false;
        for (int i = 0; i < t->nkeys; i++)
            has_range |= t->keys[i].mk == P4MK_RANGE;
        for (int i = 0; i < ents->nlist; i++) {
            const struct p4ast *en = ents->list[i];
            struct p4ir_entry *e = &t->entries[i];
            e->loc = en->loc;
            e->value = NEWN(s, uint64_t, words);
            e->mask = NEWN(s, uint64_t, words);
            e->hi = has_range ? NEWN(s, uint64_t, words) : NULL;
            const struct p4ast *ks = en->a;
            int n = ks->kind == P4AST_E_LIST ? ks->nlist : 1;
            if (ks->kind == P4AST_E_DEFAULT && t->nkeys > 1)
                n = t->nkeys;
            if (n != t->nkeys) {
                err(s, ks->loc, "entry has %d key values, table '%s' has %d keys", n, d->name,
                    t->nkeys);
                continue;
            }
            for (int j = 0; j < t->nkeys; j++)
                key_value(s, &t->keys[j], ks->kind == P4AST_E_LIST ? ks->list[j] : ks, e->value,
                          e->mask, e->hi);
            action_data(s, t, en->b, e, false);
            /* priority: explicit (smaller wins) or textual order (first wins) */
            const struct p4ast *pa = p4parse_annot(en, "priority");
            e->priority = -1;
            if (pa && pa->num.width == 0)
                e->priority = (int)pa->num.v.w[0];
            else if (en->c) {
                struct p4_big v;
                if (const_int(s, en->c, &v))
                    e->priority = (int)v.w[0];
            }
        }
    }
    P4_PUSH(s->prog->tables, s->prog->ntables, s->prog->captables, t);
    struct sym *y = declare(s, d->name, SYM_TABLE, d->loc);
    y->table = t;
}

/* ---- extern instances ---- */

static int enum_arg(struct sem *s, const struct p4ast *a, const char *enum_name)
{
    struct p4ir_expr *e = fold(s, lower_expr(s, a));
    if (!is_const(e) || e->type->kind != P4T_ENUM || strcmp(e->type->name, enum_name) != 0) {
        err(s, a->loc, "expected a %s constant", enum_name);
        return 0;
    }
    return (int)e->k;
}

static void control_instance(struct sem *s, const struct p4ast *inst, const struct p4ast *decl);

static void instantiate(struct sem *s, const struct p4ast *d)
{
    const struct p4ast *t = d->a;
    const char *tn = t->kind == P4AST_TY_NAME ? t->name : "";
    struct sym *ty = lookup(s, tn);
    if (ty && ty->kind == SYM_CONTROL_DECL) {
        control_instance(s, d, ty->decl);
        return;
    }
    struct p4ir_extern x;
    memset(&x, 0, sizeof(x));
    x.name = qualify(s, d);
    x.loc = d->loc;
    x.size = 1;
    struct p4_big v;
    if (strcmp(tn, "register") == 0) {
        x.kind = P4EXT_REGISTER;
        if (t->nlist < 1 || d->nlist != 1) {
            err(s, d->loc, "register needs a type argument and a size");
            return;
        }
        struct p4_type *et = resolve_type(s, t->list[0]);
        if (!is_scalar(et) || et->kind == P4T_INFINT) {
            err(s, t->list[0]->loc, "register elements must be bit<W> or int<W>");
            return;
        }
        x.width = et->width;
        x.nw = et->nslots;
        if (const_int(s, d->list[0], &v))
            x.size = (int)v.w[0];
    } else if (strcmp(tn, "counter") == 0 || strcmp(tn, "meter") == 0) {
        bool c = tn[0] == 'c';
        x.kind = c ? P4EXT_COUNTER : P4EXT_METER;
        if (d->nlist != 2) {
            err(s, d->loc, "%s needs a size and a type", tn);
            return;
        }
        if (const_int(s, d->list[0], &v))
            x.size = (int)v.w[0];
        x.ctype = enum_arg(s, d->list[1], c ? "CounterType" : "MeterType");
    } else if (strcmp(tn, "direct_counter") == 0 || strcmp(tn, "direct_meter") == 0) {
        bool c = tn[7] == 'c';
        x.kind = c ? P4EXT_DIRECT_COUNTER : P4EXT_DIRECT_METER;
        if (d->nlist != 1) {
            err(s, d->loc, "%s needs a type", tn);
            return;
        }
        x.ctype = enum_arg(s, d->list[0], c ? "CounterType" : "MeterType");
        x.size = 0;
    } else {
        err(s, t->loc, "instances of '%s' are not supported", tn);
        return;
    }
    if (x.size < 0 || x.size > (1 << 24)) {
        err(s, d->loc, "%s size out of range", tn);
        x.size = 1;
    }
    P4_PUSH(s->prog->externs, s->prog->nexterns, s->prog->capexterns, x);
    struct sym *y = declare(s, d->name, SYM_EXTERN_INST, d->loc);
    y->ext = s->prog->nexterns - 1;
}

/* ---- controls and parsers ---- */

static void control_locals(struct sem *s, const struct p4ast *locals, struct p4ir_block *init)
{
    for (int i = 0; i < locals->nlist; i++) {
        const struct p4ast *l = locals->list[i];
        switch (l->kind) {
        case P4AST_D_CONST:
            const_decl(s, l);
            break;
        case P4AST_S_VAR:
            var_decl(s, l, init);
            break;
        case P4AST_D_INST:
            instantiate(s, l);
            break;
        case P4AST_D_VALUE_SET: {
            struct p4ir_extern x;
            memset(&x, 0, sizeof(x));
            x.kind = P4EXT_VALUE_SET;
            x.name = qualify(s, l);
            x.loc = l->loc;
            struct p4_type *vt = resolve_type(s, l->a);
            if (!is_num(vt) || vt->width > 64)
                err(s, l->a->loc, "value_set elements must be bit<W> (W <= 64)");
            x.width = vt->width ? vt->width : 1;
            x.nw = 1;
            struct p4_big v;
            x.size = 0;
            if (const_int(s, l->b, &v))
                x.size = (int)(v.w[0] > 4096 ? 4096 : v.w[0]);
            P4_PUSH(s->prog->externs, s->prog->nexterns, s->prog->capexterns, x);
            struct sym *y = declare(s, l->name, SYM_EXTERN_INST, l->loc);
            y->ext = s->prog->nexterns - 1;
            break;
        }
        case P4AST_D_ACTION: {
            struct p4ir_callable *fn = lower_action(s, l);
            struct sym *y = declare(s, l->name, SYM_ACTION, l->loc);
            y->fn = fn;
            break;
        }
        case P4AST_D_TABLE:
            lower_table(s, l);
            break;
        default:
            err(s, l->loc, "declaration not allowed here");
            break;
        }
    }
}

/* Binds constructor parameters to the instantiation's constant arguments. */
static void bind_ctor(struct sem *s, const struct p4ast *decl, const struct p4ast *args_from,
                      struct scope *arg_scope)
{
    int n = args_from ? args_from->nlist : 0;
    if (n != decl->nlist2) {
        err(s, args_from ? args_from->loc : decl->loc, "'%s' expects %d constructor arguments",
            decl->name, decl->nlist2);
        return;
    }
    for (int i = 0; i < n; i++) {
        const struct p4ast *p = decl->list2[i];
        struct scope *saved = s->scope;
        s->scope = arg_scope;
        struct p4_type *t = resolve_type(s, p->a);
        struct p4ir_expr *v = fold(s, coerce(s, lower_expr(s, args_from->list[i]), t, "argument"));
        s->scope = saved;
        if (!is_const(v)) {
            err(s, args_from->list[i]->loc, "constructor argument must be a constant");
            continue;
        }
        struct sym *y = declare(s, p->name, SYM_CONST, p->loc);
        y->type = t;
        y->cval = v;
    }
}

/* Lowers one instance of a control. Top-level instances bind their parameters to the
 * packet slots; nested ones get their own parameter slots (copy-in/copy-out). */
static struct p4ir_callable *lower_control(struct sem *s, const struct p4ast *decl,
                                           const char *prefix, bool top,
                                           const struct p4ast *ctor_args, struct scope *arg_scope)
{
    const char *saved_prefix = s->prefix;
    struct scope *saved_scope = s->scope;
    s->prefix = prefix;
    s->scope = s->global;
    push_scope(s);
    struct p4ir_callable *fn;
    if (top) {
        fn = NEW(s, struct p4ir_callable);
        fn->kind = P4CALL_CONTROL;
        fn->name = prefix;
        fn->loc = decl->loc;
        for (int i = 0; i < decl->nlist; i++) {
            const struct p4ast *p = decl->list[i];
            struct p4_type *t = resolve_type(s, p->a);
            if (t == s->t_packet_in || t == s->t_packet_out) {
                struct sym *y = declare(s, p->name, SYM_PACKET, p->loc);
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
                err(s, p->loc, "parameter '%s' of type %s does not match the parser's types",
                    p->name, type_str(t, b1, sizeof(b1)));
                continue;
            }
            struct sym *y = declare(s, p->name, SYM_VAR, p->loc);
            y->type = t;
            y->slot = slot;
        }
    } else {
        fn = new_callable(s, P4CALL_CONTROL, prefix, decl, decl->loc);
        bind_params(s, fn, decl);
    }
    bind_ctor(s, decl, ctor_args, arg_scope);
    struct p4ir_block *saved_inits = s->inits;
    s->inits = &fn->body;
    control_locals(s, decl->a, &fn->body);
    struct p4ir_callable *saved_fn = s->cur_fn;
    s->cur_fn = fn;
    if (decl->c)
        lower_block(s, decl->c, &fn->body);
    s->cur_fn = saved_fn;
    s->inits = saved_inits;
    s->scope = saved_scope;
    s->prefix = saved_prefix;
    return fn;
}

static void control_instance(struct sem *s, const struct p4ast *inst, const struct p4ast *decl)
{
    const char *name = qualify(s, inst);
    struct p4ir_callable *fn = lower_control(s, decl, name, false, inst, s->scope);
    struct sym *y = declare(s, inst->name, SYM_CONTROL_INST, inst->loc);
    y->fn = fn;
}

static int state_index(struct sem *s, const char *name, struct p4_loc loc)
{
    if (strcmp(name, "accept") == 0)
        return P4_STATE_ACCEPT;
    if (strcmp(name, "reject") == 0)
        return P4_STATE_REJECT;
    for (int i = 0; i < s->prog->nstates; i++) {
        if (strcmp(s->prog->states[i].name, name) == 0)
            return i;
    }
    err(s, loc, "unknown parser state '%s'", name);
    return P4_STATE_REJECT;
}

static void select_case(struct sem *s, struct p4ir_state *st, int ci, const struct p4ast *c)
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
        err(s, ks->loc, "case has %d values, select has %d keys", n, st->nkeys);
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
            struct sym *y = lookup(s, e->name);
            if (y && y->kind == SYM_EXTERN_INST &&
                s->prog->externs[y->ext].kind == P4EXT_VALUE_SET) {
                if (s->prog->externs[y->ext].width != t->width)
                    err(s, e->loc, "value set '%s' holds bit<%d> values, the key is %d bits",
                        e->name, s->prog->externs[y->ext].width, t->width);
                pc->kind[i] = P4SEL_VSET;
                pc->v[i] = (uint64_t)y->ext;
                continue;
            }
        }
        const struct p4ast *va = e->kind == P4AST_E_MASK || e->kind == P4AST_E_RANGE ? e->a : e;
        struct p4ir_expr *v = fold(s, coerce(s, lower_expr(s, va), t, "select case"));
        if (!is_const(v)) {
            err(s, va->loc, "select case must be a constant");
            continue;
        }
        pc->v[i] = v->k;
        pc->kind[i] = P4SEL_VALUE;
        if (e->kind != P4AST_E_DEFAULT && e != va) {
            struct p4ir_expr *m = fold(s, coerce(s, lower_expr(s, e->b), t, "select case"));
            if (!is_const(m)) {
                err(s, e->b->loc, "select case must be a constant");
                continue;
            }
            pc->m[i] = m->k;
            pc->kind[i] = e->kind == P4AST_E_MASK ? P4SEL_MASK : P4SEL_RANGE;
            if (e->kind == P4AST_E_MASK)
                pc->v[i] &= pc->m[i];
        }
    }
}

static void lower_parser(struct sem *s, const struct p4ast *decl)
{
    s->scope = s->global;
    push_scope(s);
    s->prefix = decl->name;
    s->in_parser = true;
    for (int i = 0; i < decl->nlist; i++) {
        const struct p4ast *p = decl->list[i];
        struct p4_type *t = resolve_type(s, p->a);
        if (t == s->t_packet_in) {
            struct sym *y = declare(s, p->name, SYM_PACKET, p->loc);
            y->packet_out = false;
            continue;
        }
        int slot = t == s->prog->hdr_type    ? s->prog->hdr_slot
                   : t == s->prog->meta_type ? s->prog->meta_slot
                   : t == s->prog->std_type  ? s->prog->std_slot
                                             : -1;
        if (slot < 0) {
            err(s, p->loc, "unexpected parser parameter '%s'", p->name);
            continue;
        }
        struct sym *y = declare(s, p->name, SYM_VAR, p->loc);
        y->type = t;
        y->slot = slot;
    }
    control_locals(s, decl->a, &s->prog->parser_init);
    const struct p4ast *states = decl->b;
    s->prog->nstates = states->nlist;
    s->prog->states = NEWN(s, struct p4ir_state, states->nlist);
    s->prog->start_state = -1;
    for (int i = 0; i < states->nlist; i++) {
        s->prog->states[i].name = states->list[i]->name;
        s->prog->states[i].loc = states->list[i]->loc;
        for (int j = 0; j < i; j++) {
            if (strcmp(states->list[j]->name, states->list[i]->name) == 0)
                err(s, states->list[i]->loc, "duplicate state '%s'", states->list[i]->name);
        }
        if (strcmp(states->list[i]->name, "start") == 0)
            s->prog->start_state = i;
    }
    if (s->prog->start_state < 0)
        err(s, decl->loc, "parser '%s' has no start state", decl->name);
    for (int i = 0; i < states->nlist; i++) {
        const struct p4ast *sd = states->list[i];
        struct p4ir_state *st = &s->prog->states[i];
        st->next = P4_STATE_REJECT;
        push_scope(s);
        bool has_transition = false;
        for (int j = 0; j < sd->nlist; j++) {
            const struct p4ast *a = sd->list[j];
            if (a->kind != P4AST_S_TRANSITION) {
                if (has_transition)
                    err(s, a->loc, "statement after transition");
                lower_stmt(s, a, &st->body);
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
                st->keys[k] = lower_expr(s, sel->list2[k]);
                if (!is_scalar(st->keys[k]->type) || st->keys[k]->nw > 1 ||
                    st->keys[k]->type->kind == P4T_INFINT)
                    err(s, sel->list2[k]->loc, "select key must be a scalar of at most 64 bits");
            }
            st->ncases = sel->nlist;
            st->cases = NEWN(s, struct p4ir_case, sel->nlist);
            for (int k = 0; k < sel->nlist; k++)
                select_case(s, st, k, sel->list[k]);
        }
        if (!has_transition)
            st->next = P4_STATE_REJECT; /* P4: a state without transition goes to reject */
        pop_scope(s);
    }
    s->in_parser = false;
    s->prefix = NULL;
}

/* ---- top level ---- */

static void declare_enum(struct sem *s, const struct p4ast *d)
{
    struct p4_type *t = new_type(s, P4T_ENUM, 32);
    t->name = d->name;
    t->decl = d;
    if (d->a) {
        struct p4_type *u = resolve_type(s, d->a);
        if (!is_num(u))
            err(s, d->a->loc, "enum underlying type must be bit<W> or int<W>");
        t->width = u->width;
        t->nslots = u->nslots;
        t->serializable = true;
    }
    t->nmembers = d->nlist;
    t->members = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(char *));
    t->values = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(uint64_t));
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, (void *)t->members);
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, t->values);
    struct sym *y = declare(s, d->name, SYM_TYPE, d->loc);
    y->type = t;
    for (int i = 0; i < d->nlist; i++) {
        t->members[i] = d->list[i]->name;
        t->values[i] = (uint64_t)i;
        if (d->list[i]->a) {
            struct p4ir_expr *v = fold(s, lower_expr(s, d->list[i]->a));
            if (!t->serializable || !is_const(v))
                err(s, d->list[i]->loc, "enum values need a serializable enum and a constant");
            else {
                struct p4_type *u = bit_type(s, t->width, false);
                v = coerce(s, v, u, "enum value");
                t->values[i] = v->k;
            }
        } else if (t->serializable) {
            err(s, d->list[i]->loc, "member '%s' of a serializable enum needs a value",
                d->list[i]->name);
        }
    }
}

static void declare_errors(struct sem *s, const struct p4ast *d)
{
    for (int i = 0; i < d->nlist; i++) {
        for (int j = 0; j < s->prog->nerrors; j++) {
            if (strcmp(s->prog->errors[j], d->list[i]->name) == 0)
                err(s, d->list[i]->loc, "error '%s' is already declared", d->list[i]->name);
        }
        P4_PUSH(s->prog->errors, s->prog->nerrors, s->prog->caperrors, d->list[i]->name);
    }
}

static int std_field(struct sem *s, const char *name)
{
    struct p4_type *t = s->prog->std_type;
    for (int i = 0; i < t->nfields; i++) {
        if (strcmp(t->fields[i].name, name) == 0)
            return s->prog->std_slot + t->fields[i].off;
    }
    return -1;
}

/* The qid field is whichever field carries @alias("queueing_metadata.qid"). */
static int std_alias(struct sem *s, const char *alias)
{
    struct p4_type *t = s->prog->std_type;
    for (int i = 0; i < t->nfields; i++) {
        const struct p4ast *a = p4parse_annot(t->fields[i].decl, "alias");
        if (a && a->str && strcmp(a->str, alias) == 0)
            return s->prog->std_slot + t->fields[i].off;
    }
    return -1;
}

/* Collects @field_list(N) metadata fields into field lists. */
static void collect_field_lists(struct sem *s, struct p4_type *t, int base)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_STRUCT)
            collect_field_lists(s, f->type, base + f->off);
        const struct p4ast *d = f->decl;
        for (int j = 0; d && j < d->nannots; j++) {
            const struct p4ast *a = d->annots[j];
            if (strcmp(a->name, "field_list") != 0 || a->num.width != 0)
                continue;
            int id = (int)a->num.v.w[0];
            struct p4ir_field_list *fl = NULL;
            for (int k = 0; k < s->prog->nfield_lists; k++) {
                if (s->prog->field_lists[k].id == id)
                    fl = &s->prog->field_lists[k];
            }
            if (!fl) {
                struct p4ir_field_list n = {id, NULL, 0};
                P4_PUSH(s->prog->field_lists, s->prog->nfield_lists, s->prog->capfield_lists, n);
                fl = &s->prog->field_lists[s->prog->nfield_lists - 1];
            }
            fl->r = p4util_realloc(fl->r, (size_t)(fl->nr + 1) * sizeof(*fl->r));
            fl->r[fl->nr].slot = base + f->off;
            fl->r[fl->nr].n = f->type->nslots;
            fl->nr++;
        }
    }
}

static const struct p4ast *block_decl(struct sem *s, const struct p4ast *arg, enum sym_kind want,
                                      const char *what)
{
    if (arg->kind != P4AST_E_CALL || arg->a->kind != P4AST_E_NAME) {
        err(s, arg->loc, "expected %s instantiation like Name()", what);
        return NULL;
    }
    struct sym *y = lookup(s, arg->a->name);
    if (!y || y->kind != want) {
        err(s, arg->loc, "'%s' is not a %s", arg->a->name, what);
        return NULL;
    }
    return y->decl;
}

static struct p4_type *param_type(struct sem *s, const struct p4ast *decl, int i)
{
    if (i >= decl->nlist)
        return NULL;
    return resolve_type(s, decl->list[i]->a);
}

static void lower_deferred(struct sem *s)
{
    for (int i = 0; i < s->ndeferred; i++) {
        const struct p4ast *d = s->deferred[i];
        if (d->kind == P4AST_D_FUNC) {
            lower_function(s, d);
        } else if (d->kind == P4AST_D_INST) {
            instantiate(s, d);
        } else {
            struct p4ir_callable *fn = lower_action(s, d);
            struct sym *y = declare(s, d->name, SYM_GLOBAL_ACTION, d->loc);
            y->fn = fn;
        }
    }
    s->ndeferred = 0;
}

static void lower_main(struct sem *s, const struct p4ast *m)
{
    if (m->nlist != 6) {
        err(s, m->loc, "V1Switch expects 6 blocks, got %d", m->nlist);
        return;
    }
    const struct p4ast *pd = block_decl(s, m->list[0], SYM_PARSER_DECL, "parser");
    const struct p4ast *cd[5];
    for (int i = 1; i < 6; i++)
        cd[i - 1] = block_decl(s, m->list[i], SYM_CONTROL_DECL, "control");
    if (!pd || !cd[0] || !cd[1] || !cd[2] || !cd[3] || !cd[4])
        return;
    struct p4_prog *prog = s->prog;
    prog->hdr_type = param_type(s, pd, 1);
    prog->meta_type = param_type(s, pd, 2);
    prog->std_type = param_type(s, pd, 3);
    if (!prog->hdr_type || !prog->meta_type || !prog->std_type ||
        prog->std_type->kind != P4T_STRUCT || prog->hdr_type->kind != P4T_STRUCT ||
        prog->meta_type->kind != P4T_STRUCT) {
        err(s, pd->loc,
            "parser must take (packet_in, out H, inout M, inout "
            "standard_metadata_t) with struct types");
        return;
    }
    /* packet region: [payload offset][hdr][meta][standard_metadata] */
    P4_ASSERT(prog->nslots == 0);
    prog->nslots = 1;
    prog->hdr_slot = alloc_slots(s, prog->hdr_type->nslots);
    prog->meta_slot = alloc_slots(s, prog->meta_type->nslots);
    prog->std_slot = alloc_slots(s, prog->std_type->nslots);
    prog->npkt_slots = prog->nslots;
    struct p4ir_std *st = &prog->std;
    st->ingress_port = std_field(s, "ingress_port");
    st->egress_spec = std_field(s, "egress_spec");
    st->egress_port = std_field(s, "egress_port");
    st->instance_type = std_field(s, "instance_type");
    st->packet_length = std_field(s, "packet_length");
    st->enq_timestamp = std_field(s, "enq_timestamp");
    st->enq_qdepth = std_field(s, "enq_qdepth");
    st->deq_timedelta = std_field(s, "deq_timedelta");
    st->deq_qdepth = std_field(s, "deq_qdepth");
    st->ingress_global_timestamp = std_field(s, "ingress_global_timestamp");
    st->egress_global_timestamp = std_field(s, "egress_global_timestamp");
    st->mcast_grp = std_field(s, "mcast_grp");
    st->egress_rid = std_field(s, "egress_rid");
    st->checksum_error = std_field(s, "checksum_error");
    st->parser_error = std_field(s, "parser_error");
    st->priority = std_field(s, "priority");
    st->qid = std_alias(s, "queueing_metadata.qid");
    if (st->qid < 0)
        st->qid = std_field(s, "qid");
    if (st->egress_spec < 0 || st->egress_port < 0 || st->ingress_port < 0)
        err(s, pd->loc, "standard_metadata_t lacks egress_spec/egress_port/ingress_port");
    collect_field_lists(s, prog->meta_type, prog->meta_slot);
    lower_deferred(s);
    lower_parser(s, pd);
    const char *names[5];
    for (int i = 0; i < 5; i++)
        names[i] = cd[i]->name;
    prog->verify = lower_control(s, cd[0], names[0], true, m->list[1], s->global);
    prog->ingress = lower_control(s, cd[1], names[1], true, m->list[2], s->global);
    prog->egress = lower_control(s, cd[2], names[2], true, m->list[3], s->global);
    prog->compute = lower_control(s, cd[3], names[3], true, m->list[4], s->global);
    prog->deparser = lower_control(s, cd[4], names[4], true, m->list[5], s->global);
}

struct p4_prog *p4sem_lower(struct p4ast *root, struct p4_diag *diag)
{
    struct sem sv;
    struct sem *s = &sv;
    memset(s, 0, sizeof(sv));
    s->diag = diag;
    s->prog = p4util_calloc(1, sizeof(struct p4_prog));
    int before = diag->nerrors;
    push_scope(s);
    s->global = s->scope;
    s->t_bool = new_type(s, P4T_BOOL, 1);
    s->t_bool->name = "bool";
    s->t_infint = new_type(s, P4T_INFINT, 0);
    s->t_infint->name = "int";
    s->t_void = new_type(s, P4T_VOID, 0);
    s->t_void->name = "void";
    s->t_string = new_type(s, P4T_STRING, 0);
    s->t_string->name = "string";
    s->t_error = new_type(s, P4T_ERROR, 32);
    s->t_error->name = "error";
    s->t_dontcare = new_type(s, P4T_DONTCARE, 0);
    s->t_dontcare->name = "_";
    s->t_list = new_type(s, P4T_LIST, 0);
    s->t_list->name = "list";
    s->t_match_kind = new_type(s, P4T_MATCH_KIND, 0);
    s->t_match_kind->name = "match_kind";
    s->t_packet_in = new_type(s, P4T_PACKET_IN, 0);
    s->t_packet_in->name = "packet_in";
    s->t_packet_out = new_type(s, P4T_PACKET_OUT, 0);
    s->t_packet_out->name = "packet_out";
    s->t_extern = new_type(s, P4T_EXTERN, 0);
    s->t_extern->name = "extern";
    s->t_bad = new_type(s, P4T_DONTCARE, 0);
    s->t_bad->name = "<error>";
    const struct p4ast *main_inst = NULL;
    for (int i = 0; i < root->nlist; i++) {
        const struct p4ast *d = root->list[i];
        struct sym *y;
        switch (d->kind) {
        case P4AST_D_CONST:
            const_decl(s, d);
            break;
        case P4AST_D_TYPEDEF:
            y = declare(s, d->name, SYM_TYPE, d->loc);
            y->type = resolve_type(s, d->a);
            break;
        case P4AST_D_HEADER:
        case P4AST_D_STRUCT:
            y = declare(s, d->name, SYM_TYPE, d->loc);
            y->type = layout_compound(s, d, d->kind == P4AST_D_HEADER ? P4T_HEADER : P4T_STRUCT);
            break;
        case P4AST_D_UNION:
            y = declare(s, d->name, SYM_TYPE, d->loc);
            y->type = layout_compound(s, d, P4T_UNION);
            for (int f = 0; f < y->type->nfields; f++) {
                if (y->type->fields[f].type->kind != P4T_HEADER)
                    err(s, d->list[f]->loc, "header_union members must be headers");
            }
            break;
        case P4AST_D_ENUM:
            declare_enum(s, d);
            break;
        case P4AST_D_ERROR:
            declare_errors(s, d);
            break;
        case P4AST_D_MATCH_KIND:
            break;
        case P4AST_D_EXTERN_TYPE:
            y = declare(s, d->name, SYM_EXTERN_TYPE, d->loc);
            y->decl = d;
            break;
        case P4AST_D_EXTERN_FUNC:
            y = declare(s, d->name, SYM_EXTERN_FUNC, d->loc);
            y->decl = d;
            break;
        case P4AST_D_PARSER_TYPE:
        case P4AST_D_CONTROL_TYPE:
        case P4AST_D_PACKAGE:
            y = declare(s, d->name, SYM_PACKAGE, d->loc);
            y->decl = d;
            break;
        case P4AST_D_PARSER:
            y = declare(s, d->name, SYM_PARSER_DECL, d->loc);
            y->decl = d;
            break;
        case P4AST_D_CONTROL:
            y = declare(s, d->name, SYM_CONTROL_DECL, d->loc);
            y->decl = d;
            break;
        case P4AST_D_ACTION:
        case P4AST_D_FUNC:
            P4_PUSH(s->deferred, s->ndeferred, s->capdeferred, d);
            break;
        case P4AST_D_INST:
            if (d->a->kind == P4AST_TY_NAME && strcmp(d->a->name, "V1Switch") == 0) {
                if (main_inst)
                    err(s, d->loc, "more than one V1Switch instance");
                main_inst = d;
            } else {
                P4_PUSH(s->deferred, s->ndeferred, s->capdeferred, d);
            }
            break;
        default:
            err(s, d->loc, "unexpected declaration");
            break;
        }
    }
    if (s->prog->nerrors == 0) {
        static const char *const core[] = {"NoError",
                                           "PacketTooShort",
                                           "NoMatch",
                                           "StackOutOfBounds",
                                           "HeaderTooShort",
                                           "ParserTimeout",
                                           "ParserInvalidArgument"};
        for (size_t i = 0; i < P4_ARRAY_LEN(core); i++)
            P4_PUSH(s->prog->errors, s->prog->nerrors, s->prog->caperrors, core[i]);
    }
    if (!main_inst && diag->nerrors == before)
        err(s, root->loc, "no 'V1Switch(...) main;' instance");
    else if (main_inst && diag->nerrors == before)
        lower_main(s, main_inst);
    for (int i = 0; i < s->nallsyms; i++)
        free(s->allsyms[i]);
    free(s->allsyms);
    for (int i = 0; i < s->nallscopes; i++)
        free(s->allscopes[i]);
    free(s->allscopes);
    free(s->bits);
    free(s->deferred);
    struct p4_prog *prog = s->prog;
    prog->npkt_slots = prog->npkt_slots ? prog->npkt_slots : 1;
    if (diag->nerrors != before) {
        p4_prog_free(prog);
        return NULL;
    }
    return prog;
}
