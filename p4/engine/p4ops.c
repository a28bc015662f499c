/* The operator table's front-end lookups and the wide (multiword) semantics: see p4ops.h. */
#include "p4/engine/p4ops.h"
#include "p4/engine/p4lex.h"

#include <string.h>

static const struct {
    int tok;
    enum p4op op;
    enum p4ops_class cls;
} binary_ops[] = {
#define P4OPS_ROW(op, tok, cls) {P4TOK_##tok, P4OP_##op, cls},
    P4OPS_BINARY(P4OPS_ROW)
#undef P4OPS_ROW
};

bool p4ops_binary_of(int tok, enum p4op *op, enum p4ops_class *cls)
{
    for (size_t i = 0; i < P4_ARRAY_LEN(binary_ops); i++) {
        if (binary_ops[i].tok == tok) {
            *op = binary_ops[i].op;
            *cls = binary_ops[i].cls;
            return true;
        }
    }
    return false;
}

enum p4ops_class p4ops_class_of(enum p4op op)
{
    for (size_t i = 0; i < P4_ARRAY_LEN(binary_ops); i++) {
        if (binary_ops[i].op == op)
            return binary_ops[i].cls;
    }
    return P4OPC_ARITH;
}

bool p4ops_wide_sext(enum p4op op)
{
    switch (op) {
    case P4OP_SADD:
    case P4OP_SSUB:
    case P4OP_SHR:
    case P4OP_EQ:
    case P4OP_NE:
    case P4OP_LT:
    case P4OP_LE:
    case P4OP_GT:
    case P4OP_GE:
        return true;
    default:
        return false;
    }
}

/* Saturation: clamps r (exact) to the range of bit<width> or int<width>. */
static void clamp(struct p4_big *r, const struct p4ops_args *p)
{
    struct p4_big lo;
    struct p4_big hi;
    memset(&lo, 0, sizeof(lo));
    p4util_wmask(hi.w, P4_WMAX, p->sgn ? p->width - 1 : p->width);
    if (p->sgn) {
        p4big_neg(&lo, &hi);
        p4big_sub(&lo, &lo, &(struct p4_big){{1}});
    }
    if (p4big_cmp_signed(r, &lo) < 0)
        *r = lo;
    else if (p4big_cmp_signed(r, &hi) > 0)
        *r = hi;
}

static int cmp_wide(const struct p4_big *x, const struct p4_big *y, bool sgn)
{
    if (sgn)
        return p4big_cmp_signed(x, y);
    for (int i = P4_WMAX - 1; i >= 0; i--) {
        if (x->w[i] != y->w[i])
            return x->w[i] < y->w[i] ? -1 : 1;
    }
    return 0;
}

static unsigned shift_amount(const struct p4_big *y)
{
    for (int i = 1; i < P4_WMAX; i++) {
        if (y->w[i])
            return P4_MAXWIDTH;
    }
    return y->w[0] > (uint64_t)P4_MAXWIDTH ? P4_MAXWIDTH : (unsigned)y->w[0];
}

static void bitwise(enum p4op op, struct p4_big *r, const struct p4_big *x, const struct p4_big *y)
{
    for (int i = 0; i < P4_WMAX; i++)
        r->w[i] = op == P4OP_AND   ? x->w[i] & y->w[i]
                  : op == P4OP_OR  ? x->w[i] | y->w[i]
                  : op == P4OP_XOR ? x->w[i] ^ y->w[i]
                                   : ~x->w[i];
}

void p4ops_wide(enum p4op op, struct p4_big *r, const struct p4_big *x, const struct p4_big *y,
                const struct p4ops_args *p, bool *fault)
{
    struct p4_big t;
    memset(r, 0, sizeof(*r));
    switch (op) {
    case P4OP_ADD:
        p4big_add(r, x, y);
        return;
    case P4OP_SUB:
        p4big_sub(r, x, y);
        return;
    case P4OP_MUL:
        p4big_mul(r, x, y);
        return;
    case P4OP_DIV:
    case P4OP_MOD:
        if (p4big_is_zero(y)) {
            *fault = true;
            return;
        }
        p4big_divmod(op == P4OP_DIV ? r : NULL, op == P4OP_MOD ? r : NULL, x, y);
        return;
    case P4OP_SADD:
    case P4OP_SSUB:
        if (op == P4OP_SADD)
            p4big_add(r, x, y);
        else
            p4big_sub(r, x, y);
        clamp(r, p);
        return;
    case P4OP_AND:
    case P4OP_OR:
    case P4OP_XOR:
    case P4OP_NOT:
        bitwise(op, r, x, y);
        return;
    case P4OP_NEG:
        p4big_neg(r, x);
        return;
    case P4OP_SHL:
        p4big_shl(r, x, shift_amount(y));
        return;
    case P4OP_SHR:
        p4big_shr(r, x, shift_amount(y), p->sgn);
        return;
    case P4OP_EQ:
    case P4OP_NE:
    case P4OP_LT:
    case P4OP_LE:
    case P4OP_GT:
    case P4OP_GE: {
        int c = cmp_wide(x, y, p->sgn);
        r->w[0] = op == P4OP_EQ   ? c == 0
                  : op == P4OP_NE ? c != 0
                  : op == P4OP_LT ? c < 0
                  : op == P4OP_LE ? c <= 0
                  : op == P4OP_GT ? c > 0
                                  : c >= 0;
        return;
    }
    case P4OP_CONCAT:
        t = *x;
        p4big_trunc(&t, p->width - p->awidth, false);
        p4big_shl(&t, &t, (unsigned)p->awidth);
        for (int i = 0; i < P4_WMAX; i++)
            r->w[i] = t.w[i] | y->w[i];
        return;
    case P4OP_SLICE:
        p4big_shr(r, x, (unsigned)p->lo, false);
        return;
    case P4OP_CAST:
        *r = *x;
        if (p->sgn)
            p4big_trunc(r, p->awidth, true);
        return;
    case P4OP_LNOT:
        r->w[0] = p4big_is_zero(x);
        return;
    default:
        return;
    }
}

bool p4ops_fold_infint(enum p4op op, struct p4_big *r, const struct p4_big *x,
                       const struct p4_big *y)
{
    static const struct p4ops_args inf = {P4_MAXWIDTH, P4_MAXWIDTH, 0, true, ~(uint64_t)0};
    bool fault = false;
    /* the binary operators but the saturating, logical and concatenation ones */
    bool binary = false;
#define P4OPS_IS(name, ...) binary |= op == P4OP_##name;
    P4OPS_BINARY(P4OPS_IS)
#undef P4OPS_IS
    enum p4ops_class cls = p4ops_class_of(op);
    if (!binary || op == P4OP_SADD || op == P4OP_SSUB || cls == P4OPC_LOGIC || cls == P4OPC_CONCAT)
        return false;
    p4ops_wide(op, r, x, y, &inf, &fault);
    return true;
}
