/* The operators of P4 expressions in one table. It drives the front end (which token lowers
 * to which opcode, and which operand rule applies), constant folding (of typed values through
 * the evaluators, of arbitrary-precision integer literals through p4ops_wide) and both
 * evaluators of p4vm: p4ops_narrow for values of at most 64 bits (uint64_t, zero above the
 * width) and p4ops_wide for wider ones (struct p4_big), so the semantics cannot drift apart.
 * Short-circuit operators (&&, ||, ?:) only appear in the table for the front end: evaluators
 * implement their control flow themselves. */
#ifndef SIM_P4_P4OPS_H
#define SIM_P4_P4OPS_H

#include "p4/engine/p4util.h"

/* Operand rules of binary operators (the front end checks and converts by class). */
enum p4ops_class {
    P4OPC_ARITH,  /* same numeric type in and out: + - * & | ^ |+| |-| */
    P4OPC_DIVMOD, /* as ARITH, unsigned and at most 64 bits */
    P4OPC_SHIFT,  /* left operand's type; unsigned amount of at most 64 bits */
    P4OPC_CMP,    /* same type in, bool out: == != < <= > >= */
    P4OPC_LOGIC,  /* bool in and out, short-circuit: && || */
    P4OPC_CONCAT  /* fixed widths in, the sum out: ++ */
};

// clang-format off
/* Binary operators: X(opcode, token, class). */
#define P4OPS_BINARY(X)                                                                    \
    X(ADD, PLUS, P4OPC_ARITH) X(SUB, MINUS, P4OPC_ARITH) X(MUL, STAR, P4OPC_ARITH)          \
    X(DIV, SLASH, P4OPC_DIVMOD) X(MOD, PERCENT, P4OPC_DIVMOD) X(SHL, SHL, P4OPC_SHIFT)      \
    X(SHR, SHR, P4OPC_SHIFT) X(AND, AMP, P4OPC_ARITH) X(OR, PIPE, P4OPC_ARITH)              \
    X(XOR, CARET, P4OPC_ARITH) X(SADD, SATADD, P4OPC_ARITH) X(SSUB, SATSUB, P4OPC_ARITH)    \
    X(EQ, EQ, P4OPC_CMP) X(NE, NE, P4OPC_CMP) X(LT, LT, P4OPC_CMP) X(LE, LE, P4OPC_CMP)      \
    X(GT, GT, P4OPC_CMP) X(GE, GE, P4OPC_CMP) X(LAND, ANDAND, P4OPC_LOGIC)                   \
    X(LOR, OROR, P4OPC_LOGIC) X(CONCAT, PLUSPLUS, P4OPC_CONCAT)
/* Unary operators with an operand and parameters from the node: X(opcode, token); SLICE and
 * CAST have no token (they come from e[h:l] and (T)e). */
#define P4OPS_UNARY(X) X(NOT, TILDE) X(NEG, MINUS) X(LNOT, NOT) X(SLICE, EOF) X(CAST, EOF)
// clang-format on

/* Opcodes of expressions (p4ir_expr.op): loads, constants and calls, then the operators.
 * X is variadic: X(opcode, ...) (operators pass their token and class too). */
// clang-format off
#define P4OP_LIST(X)                                                                       \
    X(CONST) X(LOAD) X(LOADX) X(COND) X(ISVALID) X(CALL) X(HIT) X(MISS) X(LOOKAHEAD)       \
    X(LASTINDEX) X(EQC) X(NEC) P4OPS_BINARY(X) P4OPS_UNARY(X)
// clang-format on

enum p4op {
#define P4OP_ENUM(n, ...) P4OP_##n,
    P4OP_LIST(P4OP_ENUM)
#undef P4OP_ENUM
        P4OP_COUNT
};

/* The binary opcode for a token and its class; false if the token is no binary operator. */
bool p4ops_binary_of(int tok, enum p4op *op, enum p4ops_class *cls);
/* The class of a binary opcode. */
enum p4ops_class p4ops_class_of(enum p4op op);

/* == != < <= > >= (inline: evaluators test it per node) */
static inline bool p4ops_is_cmp(enum p4op op)
{
    return op == P4OP_EQ || op == P4OP_NE || op == P4OP_LT || op == P4OP_LE || op == P4OP_GT ||
           op == P4OP_GE;
}

/* Parameters of an operator node: result width, operand width (CAST source, CONCAT right
 * operand, comparisons: both operands), SLICE low bit, signedness of the operands, mask of
 * the result width. */
struct p4ops_args {
    int width;
    int awidth;
    int lo;
    bool sgn;
    uint64_t mask;
};

static inline int64_t p4ops_sext(uint64_t v, int w)
{
    if (w >= 64)
        return (int64_t)v;
    return (int64_t)(v << (64 - w)) >> (64 - w);
}

/* Saturating + or - of values of at most 64 bits. */
static inline uint64_t p4ops_sat(uint64_t x, uint64_t y, bool add, const struct p4ops_args *p)
{
    int w = p->width;
    if (!p->sgn) {
        if (add) {
            uint64_t r = x + y;
            if (r < x || r > p->mask)
                return p->mask;
            return r;
        }
        return x > y ? x - y : 0;
    }
    __int128 sx = p4ops_sext(x, w);
    __int128 sy = p4ops_sext(y, w);
    __int128 r = add ? sx + sy : sx - sy;
    __int128 max = ((__int128)1 << (w - 1)) - 1;
    __int128 min = -((__int128)1 << (w - 1));
    if (r > max)
        r = max;
    if (r < min)
        r = min;
    return (uint64_t)r & p->mask;
}

/* <0, 0, >0 for operands of at most 64 bits (signed: as int<awidth>). */
static inline int p4ops_cmp(uint64_t x, uint64_t y, const struct p4ops_args *p)
{
    if (p->sgn) {
        int64_t sx = p4ops_sext(x, p->awidth);
        int64_t sy = p4ops_sext(y, p->awidth);
        return sx < sy ? -1 : sx > sy;
    }
    return x < y ? -1 : x > y;
}

/* Value of a non-short-circuit operator on operands of at most 64 bits (y unused by unary
 * operators), zero above the width. Division or modulo by zero yields 0 and sets *fault.
 * Called with a constant op, it compiles to the one case. */
static inline __attribute__((always_inline)) uint64_t
p4ops_narrow(enum p4op op, uint64_t x, uint64_t y, const struct p4ops_args *p, bool *fault)
{
    switch (op) {
    case P4OP_ADD:
        return (x + y) & p->mask;
    case P4OP_SUB:
        return (x - y) & p->mask;
    case P4OP_MUL:
        return (x * y) & p->mask;
    case P4OP_DIV:
    case P4OP_MOD:
        if (!y) {
            *fault = true;
            return 0;
        }
        return op == P4OP_DIV ? x / y : x % y;
    case P4OP_SHL:
        return y >= (uint64_t)p->width ? 0 : (x << y) & p->mask;
    case P4OP_SHR:
        if (p->sgn)
            return (uint64_t)(p4ops_sext(x, p->width) >> (y >= 63 ? 63 : y)) & p->mask;
        return y >= (uint64_t)p->width ? 0 : x >> y;
    case P4OP_AND:
        return x & y;
    case P4OP_OR:
        return x | y;
    case P4OP_XOR:
        return x ^ y;
    case P4OP_SADD:
    case P4OP_SSUB:
        return p4ops_sat(x, y, op == P4OP_SADD, p);
    case P4OP_EQ:
        return p4ops_cmp(x, y, p) == 0;
    case P4OP_NE:
        return p4ops_cmp(x, y, p) != 0;
    case P4OP_LT:
        return p4ops_cmp(x, y, p) < 0;
    case P4OP_LE:
        return p4ops_cmp(x, y, p) <= 0;
    case P4OP_GT:
        return p4ops_cmp(x, y, p) > 0;
    case P4OP_GE:
        return p4ops_cmp(x, y, p) >= 0;
    case P4OP_CONCAT:
        return ((x << p->awidth) | y) & p->mask;
    case P4OP_NOT:
        return ~x & p->mask;
    case P4OP_NEG:
        return (0 - x) & p->mask;
    case P4OP_LNOT:
        return !x;
    case P4OP_SLICE:
        return (x >> p->lo) & p->mask;
    case P4OP_CAST:
        if (p->sgn && p->awidth < 64)
            x = (uint64_t)p4ops_sext(x, p->awidth);
        return x & p->mask;
    default:
        return 0;
    }
}

/* True if the wide form of op needs its operands sign-extended (when p->sgn). */
bool p4ops_wide_sext(enum p4op op);

/* Value of a non-short-circuit operator on operands of any width (loaded into P4_WMAX words,
 * sign-extended where p4ops_wide_sext says so); the result is exact in P4_WMAX words and
 * the caller truncates it to the width (saturation clamps to the width already).
 * Comparisons yield 0 or 1. Division by zero yields 0 and sets *fault. */
void p4ops_wide(enum p4op op, struct p4_big *r, const struct p4_big *x, const struct p4_big *y,
                const struct p4ops_args *p, bool *fault);

/* Folds op on two integer literals of arbitrary precision (signed, P4_WMAX words): + - * / %
 * & | ^ << >> and comparisons. Returns false for an operator literals do not support.
 * The caller rejects division by zero and of negative values first. */
bool p4ops_fold_infint(enum p4op op, struct p4_big *r, const struct p4_big *x,
                       const struct p4_big *y);

#endif
