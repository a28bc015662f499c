/* The interpreter: see p4vm.h. Expressions of at most 64 bits evaluate to a uint64_t kept
 * zero above the width (signed values are sign-extended only where an operation needs it);
 * wider values go through evalw() into word arrays. Dispatch is a switch behind the
 * VM_DISPATCH/VM_CASE macros so computed goto can replace it later. */
#include "p4/engine/p4hash.h"
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4vmi.h"
#include "p4/engine/p4wire.h"

#include <stdio.h>
#include <string.h>

#define VM_DISPATCH(op) switch (op)
#define VM_CASE(name) case P4OP_##name:

static uint64_t eval(struct p4vm *vm, const struct p4ir_expr *e);
static void evalw(struct p4vm *vm, const struct p4ir_expr *e, uint64_t *out);
static void exec_block(struct p4vm *vm, const struct p4ir_block *b);
static int apply_table(struct p4vm *vm, const struct p4ir_table *t, bool *hit);
static void call(struct p4vm *vm, const struct p4ir_call *c);

/* ---- references ---- */

/* next/last beyond the stack in a parser: reject with StackOutOfBounds (P4_16 8.18) */
__attribute__((noinline)) static void stack_out_of_bounds(struct p4vm *vm)
{
    if (vm->flow == P4VM_NORMAL) {
        vm->parser_error = ERR_STACK_OUT_OF_BOUNDS;
        vm->flow = P4VM_EXIT;
    }
}

static inline int64_t ref_slot(struct p4vm *vm, const struct p4ir_expr *e)
{
    if (e->op == P4OP_LOAD)
        return e->slot;
    uint64_t idx;
    switch (e->idx) {
    case P4IDX_NEXT:
        idx = vm->slots[e->slot];
        break;
    case P4IDX_LAST:
        idx = vm->slots[e->slot] - 1;
        break;
    default:
        idx = eval(vm, e->a);
        break;
    }
    if (idx >= (uint64_t)e->aux2) {
        if (e->idx != P4IDX_EXPR && vm->in_parser)
            stack_out_of_bounds(vm);
        return -1;
    }
    return e->slot + 1 + (int64_t)idx * e->aux + (int64_t)e->k;
}

/* ---- wide values ---- */

static void load_big(struct p4vm *vm, const struct p4ir_expr *e, struct p4_big *b, bool signext)
{
    memset(b, 0, sizeof(*b));
    if (e->nw > 1) {
        evalw(vm, e, b->w);
    } else {
        b->w[0] = eval(vm, e);
    }
    if (signext && e->type->kind == P4T_INT)
        p4big_trunc(b, e->width, true);
}

static void store_big(const struct p4ir_expr *e, const struct p4_big *b, uint64_t *out)
{
    struct p4_big t = *b;
    p4big_trunc(&t, e->width, false);
    memcpy(out, t.w, (size_t)e->nw * 8);
}

static inline struct p4ops_args op_args(const struct p4ir_expr *e)
{
    return (struct p4ops_args){e->width, e->awidth, e->aux, e->sgn, e->mask};
}

__attribute__((noinline)) void p4vm_fault(struct p4vm *vm, struct p4_loc loc, const char *msg)
{
    if (vm->pipe && vm->pipe->host.fault)
        vm->pipe->host.fault(vm->pipe->host.ud, loc.file, loc.line, loc.col, msg);
}

#define fault p4vm_fault

/* An operator of the table (p4ops.h) on operands of any width; r exact, not truncated. */
static void op_wide(struct p4vm *vm, const struct p4ir_expr *e, struct p4_big *r)
{
    struct p4_big x;
    struct p4_big y;
    enum p4op op = (enum p4op)e->op;
    bool sext = e->sgn && p4ops_wide_sext(op);
    load_big(vm, e->a, &x, sext);
    if (e->b)
        load_big(vm, e->b, &y, sext);
    else
        memset(&y, 0, sizeof(y));
    bool div0 = false;
    struct p4ops_args p = op_args(e);
    p4ops_wide(op, r, &x, &y, &p, &div0);
    if (div0)
        fault(vm, e->loc, op == P4OP_DIV ? "division by zero" : "modulo by zero");
}

/* A scalar view of the packet ahead (e->aux bits on, e->aux2 bits needed); a short packet
 * stops the parser with PacketTooShort. */
static uint64_t lookahead(struct p4vm *vm, const struct p4ir_expr *e, uint64_t *out)
{
    if (vm->in_bitpos + (uint64_t)e->aux2 > (uint64_t)vm->in_len * 8) {
        if (vm->flow == P4VM_NORMAL) {
            vm->parser_error = ERR_PACKET_TOO_SHORT;
            vm->flow = P4VM_EXIT;
        }
        if (out)
            memset(out, 0, (size_t)e->nw * 8);
        return 0;
    }
    uint32_t at = vm->in_bitpos + (uint32_t)e->aux;
    if (out) {
        read_field(vm->in, at, e->width, out);
        return 0;
    }
    return read_bits(vm->in, at, e->width);
}

/* Evaluates an expression wider than 64 bits into e->nw words. */
__attribute__((noinline)) static void evalw(struct p4vm *vm, const struct p4ir_expr *e,
                                            uint64_t *out)
{
    int nw = e->nw;
    switch (e->op) {
    case P4OP_CONST:
        memcpy(out, e->kw, (size_t)nw * 8);
        return;
    case P4OP_LOAD:
        memcpy(out, vm->slots + e->slot, (size_t)nw * 8);
        return;
    case P4OP_LOADX: {
        int64_t s = ref_slot(vm, e);
        if (s < 0)
            memset(out, 0, (size_t)nw * 8);
        else
            memcpy(out, vm->slots + s, (size_t)nw * 8);
        return;
    }
    case P4OP_CALL: {
        const struct p4ir_call *c = e->ptr;
        call(vm, c);
        memcpy(out, vm->slots + c->fn->ret_slot, (size_t)nw * 8);
        return;
    }
    case P4OP_COND:
        if (eval(vm, e->a))
            evalw(vm, e->b, out);
        else
            evalw(vm, e->c, out);
        return;
    case P4OP_LOOKAHEAD:
        lookahead(vm, e, out);
        return;
#define P4VM_WIDE_CASE(name, ...) case P4OP_##name:
        P4OPS_BINARY(P4VM_WIDE_CASE)
        P4OPS_UNARY(P4VM_WIDE_CASE)
#undef P4VM_WIDE_CASE
        {
            struct p4_big r;
            op_wide(vm, e, &r);
            store_big(e, &r, out);
            return;
        }
    default:
        memset(out, 0, (size_t)nw * 8);
        return;
    }
}

/* A binary operator of the table with a narrow result (constant op: one case each). */
static inline __attribute__((always_inline)) uint64_t
binary(struct p4vm *vm, const struct p4ir_expr *e, enum p4op op)
{
    if (op == P4OP_LAND)
        return eval(vm, e->a) && eval(vm, e->b);
    if (op == P4OP_LOR)
        return eval(vm, e->a) || eval(vm, e->b);
    if (p4ops_is_cmp(op) && e->a->nw > 1) {
        struct p4_big r;
        op_wide(vm, e, &r);
        return r.w[0];
    }
    /* operands left to right (P4_16 8.1) */
    uint64_t x = eval(vm, e->a);
    uint64_t y = eval(vm, e->b);
    bool div0 = false;
    struct p4ops_args p = op_args(e);
    uint64_t r = p4ops_narrow(op, x, y, &p, &div0);
    if (div0)
        fault(vm, e->loc, op == P4OP_DIV ? "division by zero" : "modulo by zero");
    return r;
}

/* A unary operator of the table with a narrow result; SLICE and CAST may read a wide one. */
static inline __attribute__((always_inline)) uint64_t unary(struct p4vm *vm,
                                                            const struct p4ir_expr *e, enum p4op op)
{
    struct p4ops_args p = op_args(e);
    bool div0 = false;
    if ((op == P4OP_SLICE || op == P4OP_CAST) && e->a->nw > 1) {
        struct p4_big r;
        if (op == P4OP_SLICE) {
            op_wide(vm, e, &r);
            return r.w[0] & e->mask;
        }
        load_big(vm, e->a, &r, false);
        return p4ops_narrow(op, r.w[0], 0, &p, &div0);
    }
    return p4ops_narrow(op, eval(vm, e->a), 0, &p, &div0);
}

static uint64_t eval(struct p4vm *vm, const struct p4ir_expr *e)
{
    VM_DISPATCH(e->op)
    {
        VM_CASE(CONST) return e->k;
        VM_CASE(LOAD) return vm->slots[e->slot];
        VM_CASE(LOADX)
        {
            int64_t s = ref_slot(vm, e);
            return s < 0 ? 0 : vm->slots[s];
        }
#define P4VM_BINARY_CASE(name, ...) VM_CASE(name) return binary(vm, e, P4OP_##name);
#define P4VM_UNARY_CASE(name, ...) VM_CASE(name) return unary(vm, e, P4OP_##name);
        P4OPS_BINARY(P4VM_BINARY_CASE)
        P4OPS_UNARY(P4VM_UNARY_CASE)
#undef P4VM_BINARY_CASE
#undef P4VM_UNARY_CASE
        VM_CASE(COND) return eval(vm, e->a) ? eval(vm, e->b) : eval(vm, e->c);
        VM_CASE(ISVALID)
        {
            int64_t s = ref_slot(vm, e->a);
            return s < 0 ? 0 : vm->slots[s];
        }
        VM_CASE(CALL)
        {
            const struct p4ir_call *c = e->ptr;
            call(vm, c);
            return vm->slots[c->fn->ret_slot];
        }
        VM_CASE(HIT)
        VM_CASE(MISS)
        {
            bool hit;
            apply_table(vm, e->ptr, &hit);
            return e->op == P4OP_HIT ? hit : !hit;
        }
        VM_CASE(LOOKAHEAD) return lookahead(vm, e, NULL);
        VM_CASE(LASTINDEX) return (vm->slots[e->slot] - 1) & 0xffffffffu;
        VM_CASE(EQC)
        VM_CASE(NEC)
        {
            int64_t x = ref_slot(vm, e->a);
            int64_t y = ref_slot(vm, e->b);
            bool eq =
                x >= 0 && y >= 0 && p4vm_values_equal(vm->slots + x, vm->slots + y, e->a->type);
            return e->op == P4OP_EQC ? eq : !eq;
        }
    default:
        break;
    }
    return 0;
}

bool p4vm_values_equal(const uint64_t *x, const uint64_t *y, const struct p4_type *t)
{
    switch (t->kind) {
    case P4T_HEADER:
        if (x[0] != y[0])
            return false;
        if (!x[0])
            return true; /* both invalid: equal whatever their fields hold */
        for (int i = 0; i < t->nfields; i++) {
            const struct p4_field *f = &t->fields[i];
            if (!p4vm_values_equal(x + f->off, y + f->off, f->type))
                return false;
        }
        return true;
    case P4T_STRUCT:
    case P4T_UNION:
        for (int i = 0; i < t->nfields; i++) {
            const struct p4_field *f = &t->fields[i];
            if (!p4vm_values_equal(x + f->off, y + f->off, f->type))
                return false;
        }
        return true;
    case P4T_STACK: /* the elements, not nextIndex (P4_16 8.18) */
        for (int i = 0; i < t->size; i++) {
            int o = 1 + i * t->elem->nslots;
            if (!p4vm_values_equal(x + o, y + o, t->elem))
                return false;
        }
        return true;
    case P4T_VARBIT: /* the length, then the bits within it */
        if (x[0] != y[0])
            return false;
        for (int i = 0; i < t->nslots - 1 && (uint64_t)i * 64 < x[0]; i++) {
            uint64_t m = x[0] - (uint64_t)i * 64 >= 64
                             ? ~(uint64_t)0
                             : p4util_mask64((int)(x[0] - (uint64_t)i * 64));
            if ((x[1 + i] & m) != (y[1 + i] & m))
                return false;
        }
        return true;
    default:
        return memcmp(x, y, (size_t)t->nslots * 8) == 0;
    }
}

void p4vm_eval_const(const struct p4ir_expr *e, uint64_t *out)
{
    struct p4vm vm;
    memset(&vm, 0, sizeof(vm));
    if (e->nw > 1)
        evalw(&vm, e, out);
    else
        out[0] = eval(&vm, e);
}

/* ---- statements ---- */

/* The bit fields of a header or struct, recursively (structs may be header fields). */
static void read_fields(struct bitr *r, const struct p4_type *t, uint64_t *h)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_STRUCT)
            read_fields(r, f->type, h + f->off);
        else
            bitr_field(r, h + f->off, f->type->width);
    }
}

static void write_fields(struct bitw *b, const struct p4_type *t, const uint64_t *h)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_STRUCT)
            write_fields(b, f->type, h + f->off);
        else
            bitw_field(b, h + f->off, f->type->width);
    }
}

/* lookahead<H>() or lookahead<S>() as a whole, built in e's scratch slots (a header so read
 * is valid). */
static void lookahead_compound(struct p4vm *vm, const struct p4ir_expr *e)
{
    uint64_t *h = vm->slots + e->slot;
    memset(h, 0, (size_t)e->type->nslots * 8);
    if (vm->in_bitpos + (uint64_t)e->aux2 > (uint64_t)vm->in_len * 8) {
        if (vm->flow == P4VM_NORMAL) {
            vm->parser_error = ERR_PACKET_TOO_SHORT;
            vm->flow = P4VM_EXIT;
        }
        return;
    }
    struct bitr r;
    bitr_init(&r, vm->in, vm->in_len, vm->in_bitpos + (uint32_t)e->aux);
    read_fields(&r, e->type, h);
    if (e->type->kind == P4T_HEADER)
        h[0] = 1;
}

/* Writes the compound value of e (a reference, an aggregate, a function call) into the
 * nslots words at dst (an aggregate is built in its scratch slots first, so it may read
 * what it overwrites). */
static void copy_value(struct p4vm *vm, int64_t dst, const struct p4ir_expr *e)
{
    int n = e->type->nslots;
    int64_t src;
    switch (e->op) {
    case P4OP_CALL: {
        const struct p4ir_call *c = e->ptr;
        call(vm, c);
        src = c->fn->ret_slot;
        break;
    }
    case P4OP_AGG: {
        struct p4ir_expr *const *el = e->ptr;
        const struct p4_type *t = e->type;
        src = e->slot;
        if (t->kind == P4T_HEADER)
            vm->slots[src] = 1;
        for (int i = 0; i < e->aux2; i++) {
            const struct p4_field *f = &t->fields[i];
            if (p4ir_type_is_aggregate(f->type))
                copy_value(vm, src + f->off, el[i]);
            else if (el[i]->nw > 1)
                evalw(vm, el[i], vm->slots + src + f->off);
            else
                vm->slots[src + f->off] = eval(vm, el[i]) & p4util_mask64(f->type->width);
        }
        break;
    }
    case P4OP_LOOKAHEAD:
        src = e->slot;
        lookahead_compound(vm, e);
        break;
    default:
        src = ref_slot(vm, e);
        break;
    }
    if (dst < 0 || vm->flow)
        return;
    if (src < 0)
        memset(vm->slots + dst, 0, (size_t)n * 8);
    else
        memmove(vm->slots + dst, vm->slots + src, (size_t)n * 8);
}

/* ref = val: the location first, then the value (P4_16 8.2: left to right). */
static void store(struct p4vm *vm, const struct p4ir_expr *ref, const struct p4ir_expr *val)
{
    int64_t s = ref_slot(vm, ref);
    if (ref->nw == 1) {
        uint64_t v = eval(vm, val);
        if (s >= 0 && !vm->flow) /* a failed lookahead or an exit drops the write */
            vm->slots[s] = v & ref->mask;
        return;
    }
    uint64_t tmp[P4_WMAX];
    evalw(vm, val, tmp);
    if (s >= 0 && !vm->flow)
        memcpy(vm->slots + s, tmp, (size_t)ref->nw * 8);
}

/* Writes the low w bits of v into bits [lo, lo+w) of the nw words at slot s. */
static void write_slice(struct p4vm *vm, int64_t s, int nw, int lo, int w, const struct p4_big *v)
{
    if (nw == 1) {
        uint64_t m = p4util_mask64(w) << lo;
        vm->slots[s] = (vm->slots[s] & ~m) | ((v->w[0] << lo) & m);
        return;
    }
    struct p4_big m;
    struct p4_big nv;
    memset(&m, 0, sizeof(m));
    p4util_wmask(m.w, P4_WMAX, w);
    p4big_shl(&m, &m, (unsigned)lo);
    p4big_shl(&nv, v, (unsigned)lo);
    for (int i = 0; i < nw; i++)
        vm->slots[s + i] = (vm->slots[s + i] & ~m.w[i]) | (nv.w[i] & m.w[i]);
}

/* ref[lo + w - 1 : lo] = val, the location first */
__attribute__((noinline)) static void store_slice(struct p4vm *vm, const struct p4ir_expr *ref,
                                                  int lo, const struct p4ir_expr *val)
{
    int64_t s = ref_slot(vm, ref);
    struct p4_big v;
    load_big(vm, val, &v, false);
    if (s >= 0 && !vm->flow)
        write_slice(vm, s, ref->nw, lo, val->width, &v);
}

static void parser_fail(struct p4vm *vm, int err)
{
    vm->parser_error = err;
    vm->flow = P4VM_EXIT;
}

/* Extraction of a header with a varbit field of vlen bits (the slow path). */
__attribute__((noinline)) static void extract_varbit(struct bitr *r, const struct p4_type *t,
                                                     uint64_t *h, uint64_t vlen)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_VARBIT) {
            uint64_t *v = h + f->off;
            memset(v, 0, (size_t)f->type->nslots * 8);
            v[0] = vlen;
            if (vlen)
                bitr_field(r, v + 1, (int)vlen);
            continue;
        }
        if (f->type->kind == P4T_STRUCT)
            read_fields(r, f->type, h + f->off);
        else
            bitr_field(r, h + f->off, f->type->width);
    }
}

static void extract(struct p4vm *vm, const struct p4ir_stmt *st)
{
    const struct p4ir_expr *ref = st->a;
    int64_t s = ref_slot(vm, ref);
    if (s < 0) {
        parser_fail(vm, ERR_STACK_OUT_OF_BOUNDS);
        return;
    }
    const struct p4_type *t = st->type;
    uint64_t vlen = 0;
    if (st->b) { /* extract(hdr, bits): the varbit field gets `bits` bits */
        vlen = eval(vm, st->b);
        if (vlen % 8) {
            parser_fail(vm, ERR_PARSER_INVALID_ARGUMENT);
            return;
        }
        if (vlen > (uint64_t)t->varbit_max) {
            parser_fail(vm, ERR_HEADER_TOO_SHORT);
            return;
        }
    }
    uint64_t total = (uint64_t)t->width + vlen;
    if (vm->in_bitpos + total > (uint64_t)vm->in_len * 8) {
        parser_fail(vm, ERR_PACKET_TOO_SHORT);
        return;
    }
    uint64_t *h = vm->slots + s;
    struct bitr r;
    bitr_init(&r, vm->in, vm->in_len, vm->in_bitpos);
    if (!t->varbit_max) {
        read_fields(&r, t, h);
    } else {
        extract_varbit(&r, t, h, vlen);
    }
    h[0] = 1;
    vm->in_bitpos += (uint32_t)total;
    if (ref->op == P4OP_LOADX && ref->idx == P4IDX_NEXT)
        vm->slots[ref->slot]++;
}

static void emit_header(struct p4vm *vm, const struct p4_type *t, const uint64_t *h)
{
    if (!h[0])
        return;
    uint32_t bits = (uint32_t)t->width;
    if (t->varbit_max) {
        for (int i = 0; i < t->nfields; i++) {
            if (t->fields[i].type->kind == P4T_VARBIT)
                bits += (uint32_t)h[t->fields[i].off];
        }
    }
    uint32_t bytes = (bits + 7) / 8;
    if (vm->out_len + bytes > vm->out_cap) {
        vm->out_overflow = true;
        return;
    }
    struct bitw b = {vm->out + vm->out_len, 0, 0, 0};
    if (!t->varbit_max) {
        write_fields(&b, t, h);
    } else {
        for (int i = 0; i < t->nfields; i++) {
            const struct p4_field *f = &t->fields[i];
            if (f->type->kind == P4T_VARBIT) {
                int len = (int)h[f->off];
                if (len > 0)
                    bitw_field(&b, h + f->off + 1, len);
                continue;
            }
            if (f->type->kind == P4T_STRUCT)
                write_fields(&b, f->type, h + f->off);
            else
                bitw_field(&b, h + f->off, f->type->width);
        }
    }
    bitw_flush(&b);
    vm->out_len += bytes;
}

/* A header, or each member of a union (at most one is valid). */
static void emit_one(struct p4vm *vm, const struct p4_type *t, const uint64_t *h)
{
    if (t->kind == P4T_HEADER) {
        emit_header(vm, t, h);
        return;
    }
    for (int i = 0; i < t->nfields; i++)
        emit_header(vm, t->fields[i].type, h + t->fields[i].off);
}

static void emit(struct p4vm *vm, const struct p4ir_stmt *st)
{
    int64_t s = ref_slot(vm, st->a);
    if (s < 0)
        return;
    const struct p4_type *t = st->type;
    if (t->kind != P4T_STACK) {
        emit_one(vm, t, vm->slots + s);
        return;
    }
    for (int i = 0; i < t->size; i++)
        emit_one(vm, t->elem, vm->slots + s + 1 + i * t->elem->nslots);
}

/* Marks a header, or every member of a union, invalid. */
static void invalidate(const struct p4_type *t, uint64_t *h)
{
    if (t->kind == P4T_HEADER) {
        h[0] = 0;
        return;
    }
    for (int i = 0; i < t->nfields; i++)
        h[t->fields[i].off] = 0;
}

__attribute__((noinline)) static void stack_shift(struct p4vm *vm, const struct p4ir_stmt *st,
                                                  bool push)
{
    int64_t s = ref_slot(vm, st->a);
    if (s < 0)
        return;
    const struct p4_type *t = st->type;
    int n = st->aux;
    int es = t->elem->nslots;
    uint64_t *base = vm->slots + s + 1;
    int size = t->size;
    if (n > size)
        n = size;
    if (push) {
        memmove(base + n * es, base, (size_t)(size - n) * (size_t)es * 8);
        for (int i = 0; i < n; i++)
            invalidate(t->elem, base + i * es);
        uint64_t ni = vm->slots[s] + (uint64_t)n;
        vm->slots[s] = ni > (uint64_t)size ? (uint64_t)size : ni;
    } else {
        memmove(base, base + n * es, (size_t)(size - n) * (size_t)es * 8);
        for (int i = size - n; i < size; i++)
            invalidate(t->elem, base + i * es);
        vm->slots[s] = vm->slots[s] >= (uint64_t)n ? vm->slots[s] - (uint64_t)n : 0;
    }
}

__attribute__((noinline)) static void loop(struct p4vm *vm, const struct p4ir_stmt *st)
{
    for (uint32_t n = 0; !st->b || eval(vm, st->b); n++) {
        if (vm->flow)
            return;
        if (n == P4VM_LOOP_MAX) {
            fault(vm, st->loc, "loop stopped after 1048576 iterations");
            return;
        }
        exec_block(vm, &st->body);
        if (!p4vm_loop_continues(vm))
            return;
        exec_block(vm, &st->els);
        if (vm->flow)
            return;
    }
}

/* Assigns the loop variable one element (a value or a whole header). */
static void forin_assign(struct p4vm *vm, const struct p4ir_stmt *st, const struct p4ir_expr *e)
{
    if (p4ir_type_is_aggregate(st->type)) {
        int64_t src = ref_slot(vm, e);
        if (src >= 0)
            memmove(vm->slots + st->a->slot, vm->slots + src, (size_t)st->type->nslots * 8);
    } else {
        store(vm, st->a, e);
    }
}

__attribute__((noinline)) static void forin(struct p4vm *vm, const struct p4ir_stmt *st)
{
    if (!st->flag) {
        for (int i = 0; i < st->nargs; i++) {
            forin_assign(vm, st, st->args[i]);
            exec_block(vm, &st->body);
            if (!p4vm_loop_continues(vm))
                return;
        }
        return;
    }
    uint64_t lo = eval(vm, st->b);
    uint64_t hi = eval(vm, st->args[0]);
    bool sgn = st->b->sgn;
    int w = st->b->width;
    if (sgn ? p4ops_sext(lo, w) > p4ops_sext(hi, w) : lo > hi)
        return;
    for (uint64_t v = lo, n = 0;; v = (v + 1) & st->a->mask, n++) {
        if (n == P4VM_LOOP_MAX) {
            fault(vm, st->loc, "loop stopped after 1048576 iterations");
            return;
        }
        vm->slots[st->a->slot] = v;
        exec_block(vm, &st->body);
        if (!p4vm_loop_continues(vm) || v == hi)
            return;
    }
}

static void exec(struct p4vm *vm, const struct p4ir_stmt *st)
{
    switch (st->op) {
    case P4ST_ASSIGN:
        store(vm, st->a, st->b);
        return;
    case P4ST_ASSIGN_SLICE:
        store_slice(vm, st->a, st->aux, st->b);
        return;
    case P4ST_COPY: {
        int64_t dst = ref_slot(vm, st->a);
        if (st->b->op != P4OP_LOAD && st->b->op != P4OP_LOADX) {
            copy_value(vm, dst, st->b);
            return;
        }
        int64_t src = ref_slot(vm, st->b);
        if (src >= 0 && dst >= 0)
            memmove(vm->slots + dst, vm->slots + src, (size_t)st->aux * 8);
        return;
    }
    case P4ST_SETVALID: {
        int64_t s = ref_slot(vm, st->a);
        if (s >= 0)
            vm->slots[s] = (uint64_t)st->aux;
        return;
    }
    case P4ST_BLOCK:
        exec_block(vm, &st->body);
        return;
    case P4ST_IF:
        if (eval(vm, st->b))
            exec_block(vm, &st->body);
        else
            exec_block(vm, &st->els);
        return;
    case P4ST_SWITCH: {
        bool hit;
        int a = apply_table(vm, st->table, &hit);
        if (vm->flow)
            return;
        if (a >= 0 && st->has_case[a])
            exec_block(vm, &st->cases[a]);
        else
            exec_block(vm, &st->els);
        return;
    }
    case P4ST_SWITCHV: {
        uint64_t v = eval(vm, st->b);
        for (int i = 0; i < st->ncases; i++) {
            if (st->has_case[i] && st->vals[i] == v) {
                exec_block(vm, &st->cases[i]);
                return;
            }
        }
        exec_block(vm, &st->els);
        return;
    }
    case P4ST_APPLY: {
        bool hit;
        apply_table(vm, st->table, &hit);
        return;
    }
    case P4ST_CALL:
        call(vm, st->call);
        return;
    case P4ST_EXIT:
        vm->flow = P4VM_EXIT;
        return;
    case P4ST_RETURN:
        if (st->a)
            store(vm, st->a, st->b);
        vm->flow = P4VM_RETURN;
        return;
    case P4ST_BUILTIN:
        p4vm_builtin(vm, st);
        return;
    case P4ST_EXTRACT:
        extract(vm, st);
        return;
    case P4ST_EMIT:
        emit(vm, st);
        return;
    case P4ST_VERIFY:
        if (!eval(vm, st->a))
            parser_fail(vm, (int)eval(vm, st->b));
        return;
    case P4ST_ADVANCE: {
        uint64_t n = eval(vm, st->b);
        if (vm->in_bitpos + n > (uint64_t)vm->in_len * 8)
            parser_fail(vm, ERR_PACKET_TOO_SHORT);
        else
            vm->in_bitpos += (uint32_t)n;
        return;
    }
    case P4ST_PUSH:
    case P4ST_POP:
        stack_shift(vm, st, st->op == P4ST_PUSH);
        return;
    case P4ST_LOOP:
        loop(vm, st);
        return;
    case P4ST_FORIN:
        forin(vm, st);
        return;
    case P4ST_BREAK:
        vm->flow = P4VM_BREAK;
        return;
    case P4ST_CONTINUE:
        vm->flow = P4VM_CONTINUE;
        return;
    case P4ST_ZERO: {
        int64_t s = ref_slot(vm, st->a);
        if (s >= 0)
            memset(vm->slots + s, 0, (size_t)st->aux * 8);
        return;
    }
    }
}

static void exec_block(struct p4vm *vm, const struct p4ir_block *b)
{
    for (int i = 0; i < b->n; i++) {
        exec(vm, b->s[i]);
        if (vm->flow)
            return;
    }
}

/* A user extern function: its C model runs on the parameter slots (copied in by call()), the
 * results are cut to their widths. */
__attribute__((noinline)) static void extern_model(struct p4vm *vm, const struct p4ir_callable *fn)
{
    uint64_t *args[64];
    int widths[64];
    int n = fn->nparams < 64 ? fn->nparams : 64;
    for (int i = 0; i < n; i++) {
        args[i] = vm->slots + fn->params[i].slot;
        widths[i] = fn->params[i].type->width;
    }
    struct p4_extern_call c = {
        fn->model->ud,
        vm->pipe ? vm->pipe->host.ud : NULL,
        n,
        args,
        widths,
        fn->ret_type && fn->ret_type->kind != P4T_VOID ? vm->slots + fn->ret_slot : NULL,
        fn->ret_type ? fn->ret_type->width : 0};
    fn->model->fn(&c);
    for (int i = 0; i < n; i++)
        p4util_wtrunc(args[i], fn->params[i].nslots, widths[i]);
    if (c.ret)
        p4util_wtrunc(c.ret, fn->ret_type->nslots, c.ret_width);
}

/* The slot an out/inout argument refers to (the slice's base for a slice), -1 out of range. */
static int64_t arg_slot(struct p4vm *vm, const struct p4ir_expr *arg)
{
    return ref_slot(vm, arg->op == P4OP_SLICE ? arg->a : arg);
}

/* Copy-in/copy-out call of an action, function or nested control. Arguments are evaluated
 * left to right; an out/inout argument's location is computed once, at copy-in, and kept in
 * the call site's scratch slots for the copy-out (P4_16 6.8). */
static void call(struct p4vm *vm, const struct p4ir_call *c)
{
    const struct p4ir_callable *fn = c->fn;
    for (int i = 0; i < c->nargs; i++) {
        const struct p4ir_param *p = &fn->params[i];
        const struct p4ir_expr *arg = c->args[i];
        if (!arg)
            continue;
        bool ref = p->dir == P4_DIR_OUT || p->dir == P4_DIR_INOUT;
        bool whole = arg->op != P4OP_SLICE && p4ir_type_is_aggregate(p->type);
        int64_t loc = ref ? arg_slot(vm, arg) : -1;
        if (ref)
            vm->slots[c->locs + i] = (uint64_t)loc;
        if (p->dir == P4_DIR_OUT) {
            memset(vm->slots + p->slot, 0, (size_t)p->nslots * 8);
        } else if (whole && ref) {
            if (loc >= 0)
                memmove(vm->slots + p->slot, vm->slots + loc, (size_t)p->nslots * 8);
            else
                memset(vm->slots + p->slot, 0, (size_t)p->nslots * 8);
        } else if (whole) {
            copy_value(vm, p->slot, arg);
        } else if (p->nslots > 1) {
            evalw(vm, arg, vm->slots + p->slot);
        } else {
            vm->slots[p->slot] = eval(vm, arg);
        }
    }
    if (fn->kind == P4CALL_EXTERN)
        extern_model(vm, fn);
    else
        exec_block(vm, &fn->body);
    if (vm->flow == P4VM_RETURN)
        vm->flow = P4VM_NORMAL;
    for (int i = 0; i < c->nargs; i++) {
        const struct p4ir_param *p = &fn->params[i];
        const struct p4ir_expr *arg = c->args[i];
        if (!arg || (p->dir != P4_DIR_OUT && p->dir != P4_DIR_INOUT))
            continue;
        int64_t s = (int64_t)vm->slots[c->locs + i];
        if (s < 0)
            continue;
        if (arg->op == P4OP_SLICE) {
            struct p4_big v;
            memset(&v, 0, sizeof(v));
            memcpy(v.w, vm->slots + p->slot, (size_t)p->nslots * 8);
            write_slice(vm, s, arg->a->nw, arg->aux, arg->width, &v);
            continue;
        }
        memmove(vm->slots + s, vm->slots + p->slot, (size_t)p->nslots * 8);
    }
}

void p4vm_action_data(struct p4vm *vm, const struct p4ir_callable *fn, const uint64_t *data)
{
    int w = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const struct p4ir_param *p = &fn->params[i];
        if (p->dir != P4_DIR_NONE)
            continue;
        if (p->nslots == 1)
            vm->slots[p->slot] = data[w];
        else
            memcpy(vm->slots + p->slot, data + w, (size_t)p->nslots * 8);
        w += p->nslots;
    }
}

int p4vm_table_lookup(struct p4vm *vm, const struct p4ir_table *t, bool *hit)
{
    const uint64_t *data;
    int action = p4vm_table_match(vm, t, hit, &data);
    if (action >= 0)
        p4vm_action_data(vm, t->actions[action].call.fn, data);
    return action;
}

static int apply_table(struct p4vm *vm, const struct p4ir_table *t, bool *hit)
{
    uint64_t *key = vm->pipe->keybuf;
    for (int i = 0; i < t->nkeys; i++) {
        const struct p4ir_key *k = &t->keys[i];
        if (k->nw == 1)
            key[k->woff] = eval(vm, k->e);
        else
            evalw(vm, k->e, key + k->woff);
    }
    int action = p4vm_table_lookup(vm, t, hit);
    if (action >= 0)
        call(vm, &t->actions[action].call);
    return action;
}

/* ---- blocks ---- */

int p4vm_select(struct p4vm *vm, const struct p4ir_state *s, const uint64_t *keys, int nk)
{
    for (int c = 0; c < s->ncases; c++) {
        const struct p4ir_case *pc = &s->cases[c];
        bool ok = true;
        for (int i = 0; i < nk && ok; i++) {
            switch (pc->kind[i]) {
            case P4SEL_VALUE:
                ok = keys[i] == pc->v[i];
                break;
            case P4SEL_MASK:
                ok = (keys[i] & pc->m[i]) == pc->v[i];
                break;
            case P4SEL_RANGE:
                ok = keys[i] >= pc->v[i] && keys[i] <= pc->m[i];
                break;
            case P4SEL_VSET: {
                const struct p4_ext_state *es = &vm->pipe->ext[pc->v[i]];
                ok = false;
                for (int k = 0; k < es->nvals && !ok; k++)
                    ok = (keys[i] & es->vals[2 * k + 1]) == es->vals[2 * k];
                break;
            }
            default:
                break;
            }
        }
        if (ok)
            return pc->next;
    }
    return -3;
}

static void parse_init(struct p4vm *vm, const void *ctx)
{
    (void)ctx;
    exec_block(vm, &vm->prog->parser_init);
}

static void parse_body(struct p4vm *vm, const void *ctx, int st)
{
    (void)ctx;
    exec_block(vm, &vm->prog->states[st].body);
}

static int parse_select(struct p4vm *vm, const void *ctx, int st)
{
    (void)ctx;
    const struct p4ir_state *s = &vm->prog->states[st];
    uint64_t k[P4_SELECT_KEYS_MAX];
    for (int i = 0; i < s->nkeys; i++)
        k[i] = eval(vm, s->keys[i]);
    return vm->flow ? -3 : p4vm_select(vm, s, k, s->nkeys);
}

void p4vm_run_parser(struct p4vm *vm)
{
    p4vm_parse(vm, parse_init, parse_body, parse_select, NULL);
}

void p4vm_run_control(struct p4vm *vm, const struct p4ir_callable *c)
{
    vm->flow = P4VM_NORMAL;
    exec_block(vm, &c->body);
    vm->flow = P4VM_NORMAL;
}

/* ---- entry points for p4vmext.c and the compiled engine (p4vmi.h) ---- */

uint64_t p4vm_eval(struct p4vm *vm, const struct p4ir_expr *e)
{
    return eval(vm, e);
}

void p4vm_evalw(struct p4vm *vm, const struct p4ir_expr *e, uint64_t *out)
{
    evalw(vm, e, out);
}

int64_t p4vm_ref_slot(struct p4vm *vm, const struct p4ir_expr *e)
{
    return ref_slot(vm, e);
}

void p4vm_exec(struct p4vm *vm, const struct p4ir_stmt *st)
{
    exec(vm, st);
}

void p4vm_call(struct p4vm *vm, const struct p4ir_call *c)
{
    call(vm, c);
}

int p4vm_apply_table(struct p4vm *vm, const struct p4ir_table *t, bool *hit)
{
    return apply_table(vm, t, hit);
}

void p4vm_extract(struct p4vm *vm, const struct p4ir_stmt *st)
{
    extract(vm, st);
}

void p4vm_emit(struct p4vm *vm, const struct p4ir_stmt *st)
{
    emit(vm, st);
}
