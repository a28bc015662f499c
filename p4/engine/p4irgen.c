/* IR allocation: see p4irgen.h. */
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4type.h"

#include <string.h>

void *p4ir_alloc(struct p4_prog *prog, size_t n)
{
    void *p = p4util_calloc(1, n);
    P4_PUSH(prog->allocs, prog->nallocs, prog->capallocs, p);
    return p;
}

struct p4ir_expr *p4irgen_expr(struct p4sem *s, enum p4op op, struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = NEW(s, struct p4ir_expr);
    e->op = (uint8_t)op;
    e->type = t;
    e->loc = loc;
    int w = t->kind == P4T_INFINT ? P4_MAXWIDTH : p4type_is_scalar(t) ? t->width : 0;
    e->width = (uint16_t)w;
    e->nw = (uint8_t)(t->kind == P4T_INFINT ? P4_WMAX : w > 64 ? p4util_nwords(w) : 1);
    e->mask = p4util_mask64(w);
    e->sgn = t->kind == P4T_INT || t->kind == P4T_INFINT;
    return e;
}

struct p4ir_expr *p4irgen_const(struct p4sem *s, struct p4_type *t, const struct p4_big *v,
                                struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, P4OP_CONST, t, loc);
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

struct p4ir_expr *p4irgen_const64(struct p4sem *s, struct p4_type *t, uint64_t v, struct p4_loc loc)
{
    struct p4_big b;
    p4big_set_u64(&b, v);
    return p4irgen_const(s, t, &b, loc);
}

bool p4irgen_is_const(const struct p4ir_expr *e)
{
    return e && e->op == P4OP_CONST;
}

void p4irgen_const_big(const struct p4ir_expr *e, struct p4_big *v)
{
    memset(v, 0, sizeof(*v));
    if (e->nw > 1)
        memcpy(v->w, e->kw, (size_t)e->nw * 8);
    else
        v->w[0] = e->k;
    if (e->type->kind == P4T_INT) /* sign-extend typed signed values */
        p4big_trunc(v, e->width, true);
}

bool p4irgen_is_ref(const struct p4ir_expr *e)
{
    return e->op == P4OP_LOAD || e->op == P4OP_LOADX;
}

/* Reference to a field inside a compound reference. */
struct p4ir_expr *p4irgen_field_ref(struct p4sem *s, const struct p4ir_expr *base, int off,
                                    struct p4_type *t, struct p4_loc loc)
{
    struct p4ir_expr *e = p4irgen_expr(s, (enum p4op)base->op, t, loc);
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

/* Blocks grow in program-owned memory so freeing the program frees them. */
void p4irgen_append(struct p4sem *s, struct p4ir_block *b, struct p4ir_stmt *st)
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

struct p4ir_stmt *p4irgen_stmt(struct p4sem *s, struct p4ir_block *b, enum p4st op,
                               struct p4_loc loc)
{
    struct p4ir_stmt *st = NEW(s, struct p4ir_stmt);
    st->op = op;
    st->loc = loc;
    p4irgen_append(s, b, st);
    return st;
}

#define P4SEM_MAX_SLOTS (1 << 22)

int p4irgen_slots(struct p4sem *s, int n)
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

const char *p4irgen_keep(struct p4sem *s, const char *str)
{
    P4_PUSH(s->prog->allocs, s->prog->nallocs, s->prog->capallocs, (void *)str);
    return str;
}
