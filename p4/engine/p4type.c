/* Types and layouts: see p4type.h. */
#include "p4/engine/p4type.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"

#include <string.h>

struct p4_type *p4type_new(struct p4sem *s, enum p4type_kind k, int width)
{
    struct p4_type *t = p4util_calloc(1, sizeof(*t));
    P4_PUSH(s->prog->types, s->prog->ntypes, s->prog->captypes, t);
    t->kind = k;
    t->width = width;
    t->nslots = p4util_nwords(width);
    return t;
}

struct p4_type *p4type_bit(struct p4sem *s, int width, bool is_signed)
{
    for (int i = 0; i < s->nbits; i++) {
        if (s->bits[i]->width == width && s->bits[i]->is_signed == is_signed)
            return s->bits[i];
    }
    struct p4_type *t = p4type_new(s, is_signed ? P4T_INT : P4T_BIT, width);
    t->is_signed = is_signed;
    P4_PUSH(s->bits, s->nbits, s->capbits, t);
    return t;
}

bool p4type_is_scalar(const struct p4_type *t)
{
    return t->kind == P4T_BIT || t->kind == P4T_INT || t->kind == P4T_BOOL || t->kind == P4T_ENUM ||
           t->kind == P4T_ERROR;
}

bool p4type_is_num(const struct p4_type *t)
{
    return t->kind == P4T_BIT || t->kind == P4T_INT;
}

bool p4type_is_compound(const struct p4_type *t)
{
    return t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_STACK ||
           t->kind == P4T_VARBIT || t->kind == P4T_UNION;
}

bool p4type_storable(struct p4sem *s, const struct p4_type *t, struct p4_loc loc,
                     const char *what)
{
    if (p4type_is_scalar(t) || p4type_is_compound(t))
        return true;
    char b1[64];
    p4sem_err(s, loc, "%s of type %s is not supported", what, p4type_str(t, b1, sizeof(b1)));
    return false;
}

const char *p4type_str(const struct p4_type *t, char *buf, size_t n)
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

static int const_width(struct p4sem *s, const struct p4ast *a)
{
    struct p4_big v;
    if (!p4expr_const_int(s, a, &v))
        return -1;
    if (p4big_is_neg(&v) || p4big_bits(&v) > 16)
        return -2;
    return (int)v.w[0];
}

bool p4type_is_bits(const struct p4_type *t)
{
    if (t->kind == P4T_BIT || t->kind == P4T_INT || t->kind == P4T_BOOL ||
        (t->kind == P4T_ENUM && t->serializable))
        return true;
    if (t->kind != P4T_STRUCT || t->tuple)
        return false;
    for (int i = 0; i < t->nfields; i++) {
        if (!p4type_is_bits(t->fields[i].type))
            return false;
    }
    return true;
}

struct p4_type *p4type_layout(struct p4sem *s, const struct p4ast *d, enum p4type_kind k)
{
    struct p4_type *t = p4type_new(s, k, 0);
    t->name = d->name;
    t->decl = d;
    t->nfields = d->nlist;
    t->fields = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(struct p4_field));
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, t->fields);
    int off = k == P4T_HEADER ? 1 : 0;
    int bitoff = 0;
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *f = d->list[i];
        struct p4_type *ft = p4type_resolve(s, f->a);
        for (int j = 0; j < i; j++) {
            if (strcmp(t->fields[j].name, f->name) == 0)
                p4sem_err(s, f->loc, "duplicate field '%s'", f->name);
        }
        if (k == P4T_HEADER && ft->kind == P4T_VARBIT) {
            if (t->varbit_max)
                p4sem_err(s, f->loc, "a header may have only one varbit field");
            t->varbit_max = ft->varbit_max;
        } else if (k == P4T_HEADER && !p4type_is_bits(ft)) {
            char b[64];
            p4sem_err(s, f->loc, "header field '%s' has unsupported type %s", f->name,
                      p4type_str(ft, b, sizeof(b)));
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
    if (k == P4T_STRUCT)
        t->width = bitoff; /* bits on the wire, for a struct of bit fields */
    if (k == P4T_HEADER) {
        t->width = bitoff; /* fixed fields only; a varbit adds its run-time length */
        if (bitoff % 8 && !t->varbit_max)
            p4sem_err(s, d->loc, "header '%s' is %d bits, not a multiple of 8", d->name, bitoff);
    }
    return t;
}

/* The one varbit<max> type (types are compared by identity). */
static struct p4_type *varbit_type(struct p4sem *s, int max)
{
    for (int i = 0; i < s->prog->ntypes; i++) {
        struct p4_type *t = s->prog->types[i];
        if (t->kind == P4T_VARBIT && t->varbit_max == max)
            return t;
    }
    struct p4_type *vt = p4type_new(s, P4T_VARBIT, 0);
    vt->name = "varbit";
    vt->varbit_max = max;
    vt->nslots = 1 + p4util_nwords(max);
    return vt;
}

struct p4_type *p4type_tuple(struct p4sem *s, struct p4_type *const *el, int n)
{
    for (int i = 0; i < s->prog->ntypes; i++) {
        struct p4_type *t = s->prog->types[i];
        if (!t->tuple || t->nfields != n)
            continue;
        int k = 0;
        while (k < n && t->fields[k].type == el[k])
            k++;
        if (k == n)
            return t;
    }
    static const char *const digits[] = {"0",  "1",  "2",  "3",  "4",  "5",  "6",  "7",
                                         "8",  "9",  "10", "11", "12", "13", "14", "15",
                                         "16", "17", "18", "19", "20", "21", "22", "23",
                                         "24", "25", "26", "27", "28", "29", "30", "31"};
    struct p4_type *t = p4type_new(s, P4T_STRUCT, 0);
    t->name = "tuple";
    t->tuple = true;
    t->nfields = n;
    t->fields = NEWN(s, struct p4_field, n);
    int off = 0;
    int bitoff = 0;
    for (int i = 0; i < n; i++) {
        t->fields[i].name = i < 32 ? digits[i] : "_";
        t->fields[i].type = el[i];
        t->fields[i].off = off;
        t->fields[i].bitoff = bitoff;
        off += el[i]->nslots;
        bitoff += el[i]->width;
    }
    t->nslots = off;
    return t;
}

struct p4_type *p4type_stack(struct p4sem *s, struct p4_type *elem, int size)
{
    for (int i = 0; i < s->prog->ntypes; i++) {
        struct p4_type *t = s->prog->types[i];
        if (t->kind == P4T_STACK && t->elem == elem && t->size == size)
            return t;
    }
    struct p4_type *st = p4type_new(s, P4T_STACK, 0);
    st->elem = elem;
    st->size = size;
    st->name = "stack";
    st->nslots = 1 + size * elem->nslots;
    return st;
}

struct p4_type *p4type_resolve(struct p4sem *s, const struct p4ast *t)
{
    switch (t->kind) {
    case P4AST_TY_BIT:
    case P4AST_TY_INT: {
        int w = 1;
        if (t->a) {
            w = const_width(s, t->a);
            if (w < 1 || w > P4_MAXWIDTH) {
                p4sem_err(s, t->loc, "invalid width (must be 1..%d)", P4_MAXWIDTH);
                w = 32;
            }
        } else if (t->kind == P4AST_TY_INT) {
            return s->t_infint;
        }
        return p4type_bit(s, w, t->kind == P4AST_TY_INT);
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
            p4sem_err(s, t->loc, "invalid varbit width (must be 1..%d)", P4_MAXWIDTH);
            w = 8;
        }
        return varbit_type(s, w);
    }
    case P4AST_TY_TUPLE: {
        if (!t->nlist)
            return s->t_list;
        struct p4_type *el[64];
        int n = t->nlist < 64 ? t->nlist : 64;
        for (int i = 0; i < n; i++)
            el[i] = p4type_resolve(s, t->list[i]);
        return p4type_tuple(s, el, n);
    }
    case P4AST_TY_STACK: {
        struct p4_type *e = p4type_resolve(s, t->a);
        int n = const_width(s, t->b);
        if (n < 1 || n > 4096) {
            p4sem_err(s, t->b->loc, "header stack size must be a constant in 1..4096");
            n = 1;
        }
        if (e->kind != P4T_HEADER && e->kind != P4T_UNION)
            p4sem_err(s, t->loc, "header stack element must be a header or a header_union");
        return p4type_stack(s, e, n);
    }
    case P4AST_TY_NAME: {
        struct p4sym *y = p4scope_lookup(s, t->name);
        if (!y) {
            p4sem_err(s, t->loc, "unknown type '%s'", t->name);
            return p4type_bit(s, 32, false);
        }
        if (y->kind == SYM_TYPE && !y->type) {
            /* declared, but its own layout is not finished: it contains itself */
            p4sem_err(s, t->loc, "type '%s' is used inside its own declaration", t->name);
            return p4type_bit(s, 32, false);
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
        p4sem_err(s, t->loc, "'%s' is not a type", t->name);
        return p4type_bit(s, 32, false);
    }
    default:
        p4sem_err(s, t->loc, "type expected");
        return p4type_bit(s, 32, false);
    }
}

void p4type_declare_enum(struct p4sem *s, const struct p4ast *d)
{
    struct p4_type *t = p4type_new(s, P4T_ENUM, 32);
    t->name = d->name;
    t->decl = d;
    if (d->a) {
        struct p4_type *u = p4type_resolve(s, d->a);
        if (!p4type_is_num(u))
            p4sem_err(s, d->a->loc, "enum underlying type must be bit<W> or int<W>");
        t->width = u->width;
        t->nslots = u->nslots;
        t->serializable = true;
    }
    t->nmembers = d->nlist;
    t->members = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(char *));
    t->values = p4util_calloc((size_t)(d->nlist ? d->nlist : 1), sizeof(uint64_t));
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, (void *)t->members);
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, t->values);
    struct p4sym *y = p4scope_declare(s, d->name, SYM_TYPE, d->loc);
    y->type = t;
    for (int i = 0; i < d->nlist; i++) {
        t->members[i] = d->list[i]->name;
        t->values[i] = (uint64_t)i;
        if (d->list[i]->a) {
            struct p4ir_expr *v = p4expr_fold(s, p4expr_lower(s, d->list[i]->a));
            if (!t->serializable || !p4irgen_is_const(v))
                p4sem_err(s, d->list[i]->loc,
                          "enum values need a serializable enum and a constant");
            else {
                struct p4_type *u = p4type_bit(s, t->width, false);
                v = p4expr_coerce(s, v, u, "enum value");
                t->values[i] = v->k;
            }
        } else if (t->serializable) {
            p4sem_err(s, d->list[i]->loc, "member '%s' of a serializable enum needs a value",
                      d->list[i]->name);
        }
    }
}

void p4type_declare_errors(struct p4sem *s, const struct p4ast *d)
{
    for (int i = 0; i < d->nlist; i++) {
        for (int j = 0; j < s->prog->nerrors; j++) {
            if (strcmp(s->prog->errors[j], d->list[i]->name) == 0)
                p4sem_err(s, d->list[i]->loc, "error '%s' is already declared", d->list[i]->name);
        }
        P4_PUSH(s->prog->errors, s->prog->nerrors, s->prog->caperrors, d->list[i]->name);
    }
}
