/* The compiler of the compiled engine: lowered IR -> records (p4cci.h). A node gets a
 * specialised runner when the conditions of its fast path hold (widths, reference kinds,
 * layouts), else the runner that hands it to the interpreter. */
#include "p4/engine/p4cci.h"
#include "p4/engine/p4hash.h"
#include "p4/engine/p4native.h"

#include <stdlib.h>
#include <string.h>

static void *cc_alloc(struct p4cc *cc, size_t n)
{
    void *p = p4util_calloc(1, n ? n : 1);
    if (cc->nallocs == cc->capallocs) {
        cc->capallocs = cc->capallocs ? 2 * cc->capallocs : 64;
        cc->allocs = p4util_realloc(cc->allocs, (size_t)cc->capallocs * sizeof(void *));
    }
    cc->allocs[cc->nallocs++] = p;
    return p;
}

#define NEW(cc, T) ((T *)cc_alloc((cc), sizeof(T)))
#define NEWN(cc, T, n) ((T *)cc_alloc((cc), sizeof(T) * (size_t)(n)))

static const struct cx *cexpr(struct p4cc *cc, const struct p4ir_expr *e);
static struct cb cblock(struct p4cc *cc, const struct p4ir_block *b);
static const struct ccall *ccall_make(struct p4cc *cc, const struct p4ir_call *c);
static const struct ctab *ctab_make(struct p4cc *cc, const struct p4ir_table *t);

/* ---- expressions ---- */

/* A compiled node reads slot (shadowed headers decode such fields at extract). */
static void mark_read(struct p4cc *cc, int slot)
{
    if (slot >= 0 && slot < cc->prog->nslots)
        cc->read[slot] = true;
}

static bool narrow(const struct p4ir_expr *e)
{
    return e && e->nw == 1;
}

/* The runner of a binary operator on operands of at most 64 bits. */
static cx_fn *binary_fn(const struct p4ir_expr *e)
{
    switch ((enum p4op)e->op) {
    case P4OP_ADD:
        return cx_add;
    case P4OP_SUB:
        return cx_sub;
    case P4OP_AND:
        return cx_and;
    case P4OP_OR:
        return cx_or;
    case P4OP_XOR:
        return cx_xor;
    case P4OP_LAND:
        return cx_land;
    case P4OP_LOR:
        return cx_lor;
    default:
        break;
    }
    if (!e->sgn) { /* unsigned comparisons; signed ones sign-extend in cx_binop */
        switch ((enum p4op)e->op) {
        case P4OP_EQ:
            return cx_eq;
        case P4OP_NE:
            return cx_ne;
        case P4OP_LT:
            return cx_ult;
        case P4OP_LE:
            return cx_ule;
        case P4OP_GT:
            return cx_ugt;
        case P4OP_GE:
            return cx_uge;
        default:
            break;
        }
    }
    return cx_binop;
}

/* The number of operands of an operator of the operator table (p4ops.h), 0 for other ops. */
static int arity(enum p4op op)
{
    switch (op) {
#define CC_BIN_CASE(name, ...) case P4OP_##name:
        P4OPS_BINARY(CC_BIN_CASE)
#undef CC_BIN_CASE
        return 2;
#define CC_UN_CASE(name, ...) case P4OP_##name:
        P4OPS_UNARY(CC_UN_CASE)
#undef CC_UN_CASE
        return 1;
    default:
        return 0;
    }
}

/* Operators: the specialised runner when the operands fit in 64 bits. */
static void cexpr_op(struct p4cc *cc, const struct p4ir_expr *e, struct cx *x)
{
    enum p4op op = (enum p4op)e->op;
    if (arity(op) == 2 && narrow(e->a) && narrow(e->b)) {
        x->a = cexpr(cc, e->a);
        x->b = cexpr(cc, e->b);
        x->fn = binary_fn(e);
        if (e->a->op == P4OP_LOAD && e->b->op == P4OP_CONST) { /* slot op constant */
            cx_fn *sk = x->fn == cx_add   ? cx_add_sk
                        : x->fn == cx_sub ? cx_sub_sk
                        : x->fn == cx_eq  ? cx_eq_sk
                        : x->fn == cx_ne  ? cx_ne_sk
                                          : NULL;
            if (sk) {
                x->fn = sk;
                x->slot = e->a->slot;
                x->k = e->b->k;
            }
        }
    } else if (arity(op) == 1 && narrow(e->a)) {
        x->a = cexpr(cc, e->a);
        x->fn = cx_unop;
    } else if (op == P4OP_COND && narrow(e->a) && narrow(e->b) && narrow(e->c)) {
        x->a = cexpr(cc, e->a);
        x->b = cexpr(cc, e->b);
        x->c = cexpr(cc, e->c);
        x->fn = cx_cond;
    }
}

static const struct cx *cexpr(struct p4cc *cc, const struct p4ir_expr *e)
{
    struct cx *x = NEW(cc, struct cx);
    x->fn = cx_interp;
    x->e = e;
    x->op = (enum p4op)e->op;
    x->p = (struct p4ops_args){e->width, e->awidth, e->aux, e->sgn, e->mask};
    if (e->nw != 1)
        return x; /* wide values are evaluated by the interpreter where they are used */
    switch ((enum p4op)e->op) {
    case P4OP_CONST:
        x->fn = cx_const;
        x->k = e->k;
        break;
    case P4OP_LOAD:
        x->fn = cx_load;
        x->slot = e->slot;
        mark_read(cc, e->slot);
        break;
    case P4OP_LOADX: /* next/last stay with the interpreter (parser faults) */
        if (e->idx == P4IDX_EXPR && narrow(e->a)) {
            x->a = cexpr(cc, e->a);
            x->fn = cx_loadx;
            cc->read_all = true;
        }
        break;
    case P4OP_ISVALID:
        if (e->a->op == P4OP_LOAD) {
            x->fn = cx_load;
            x->slot = e->a->slot;
        }
        break;
    case P4OP_CALL: {
        const struct p4ir_call *c = e->ptr;
        if (c->fn->ret_type && c->fn->ret_type->nslots == 1) {
            x->call = ccall_make(cc, c);
            x->slot = c->fn->ret_slot;
            x->fn = cx_call;
        }
        break;
    }
    case P4OP_HIT:
    case P4OP_MISS:
        x->tab = ctab_make(cc, e->ptr);
        x->fn = cx_hit;
        break;
    default:
        cexpr_op(cc, e, x);
        break;
    }
    return x;
}

/* ---- calls and tables ---- */

static const struct cfn *cfn_of(struct p4cc *cc, const struct p4ir_callable *ir)
{
    for (int i = 0; i < cc->nfns; i++) {
        if (cc->fns[i]->ir == ir)
            return cc->fns[i];
    }
    struct cfn *f = NEW(cc, struct cfn);
    f->ir = ir;
    if (cc->nfns == cc->capfns) {
        cc->capfns = cc->capfns ? 2 * cc->capfns : 16;
        cc->fns = p4util_realloc(cc->fns, (size_t)cc->capfns * sizeof(*cc->fns));
    }
    cc->fns[cc->nfns++] = f;
    if (ir->kind != P4CALL_EXTERN)
        f->body = cblock(cc, &ir->body);
    return f;
}

/* Whether argument i only copies a value of at most 64 bits in (or is action data). */
static bool simple_arg(const struct p4ir_param *p, const struct p4ir_expr *arg)
{
    if (!arg)
        return true;
    return (p->dir == P4_DIR_IN || p->dir == P4_DIR_NONE) && p->nslots == 1 &&
           !p4ir_type_is_aggregate(p->type) && arg->nw == 1;
}

static const struct ccall *ccall_make(struct p4cc *cc, const struct p4ir_call *c)
{
    struct ccall *k = NEW(cc, struct ccall);
    k->ir = c;
    k->simple = c->fn->kind != P4CALL_EXTERN;
    const struct cx **in = NEWN(cc, const struct cx *, c->nargs);
    int32_t *in_slot = NEWN(cc, int32_t, c->nargs);
    int32_t *data_slot = NEWN(cc, int32_t, c->nargs);
    for (int i = 0; i < c->nargs; i++) {
        const struct p4ir_param *p = &c->fn->params[i];
        k->simple &= simple_arg(p, c->args[i]);
        if (c->args[i] && c->args[i]->nw == 1) {
            in_slot[k->nin] = p->slot;
            in[k->nin++] = cexpr(cc, c->args[i]);
        }
        if (p->dir == P4_DIR_NONE && k->ndata >= 0)
            k->ndata = p->nslots == 1 ? k->ndata + 1 : -1;
        if (p->dir == P4_DIR_NONE && k->ndata > 0)
            data_slot[k->ndata - 1] = p->slot;
    }
    k->in = in;
    k->in_slot = in_slot;
    k->data_slot = data_slot;
    if (k->simple)
        k->fn = cfn_of(cc, c->fn);
    return k;
}

static const struct ctab *ctab_make(struct p4cc *cc, const struct p4ir_table *t)
{
    struct ctab *ct = NEW(cc, struct ctab);
    ct->ir = t;
    ct->keys = NEWN(cc, const struct cx *, t->nkeys);
    int32_t *kslot = NEWN(cc, int32_t, t->nkeys);
    bool loads = true;
    for (int i = 0; i < t->nkeys; i++) {
        ct->keys[i] = t->keys[i].nw == 1 ? cexpr(cc, t->keys[i].e) : NULL;
        loads &= ct->keys[i] && ct->keys[i]->fn == cx_load;
        kslot[i] = loads ? ct->keys[i]->slot : 0;
    }
    ct->kslot = loads ? kslot : NULL;
    ct->acts = NEWN(cc, struct ccall, t->nactions);
    for (int i = 0; i < t->nactions; i++)
        ct->acts[i] = *ccall_make(cc, &t->actions[i].call);
    return ct;
}

/* ---- flat layouts ---- */

#define FIELDS_MAX 256

/* The fields of a header or struct in wire order, nested structs flattened; false if one is
 * wider than 64 bits or a varbit. */
static bool flatten(const struct p4_type *t, int base, int32_t *off, uint8_t *w, int *n)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_STRUCT) {
            if (!flatten(f->type, base + f->off, off, w, n))
                return false;
            continue;
        }
        if (f->type->kind == P4T_VARBIT || f->type->width > 64 || f->type->nslots != 1 ||
            *n == FIELDS_MAX)
            return false;
        off[*n] = base + f->off;
        w[*n] = (uint8_t)f->type->width;
        (*n)++;
    }
    return true;
}

/* The layout of n fields (slots off, widths w) packed in order from bit 0. */
static struct cfields layout(struct p4cc *cc, const int32_t *off, const uint8_t *w, int n)
{
    struct cfield *f = NEWN(cc, struct cfield, n);
    int bit = 0;
    bool window = true;
    bool words = true;
    for (int i = 0; i < n; i++) {
        f[i].off = off[i];
        f[i].w = w[i];
        if (w[i] == 0)
            words = window = false;
        if (bit % 8 + w[i] > 64)
            window = false;
        if (bit + w[i] <= CFIELDS_MAX_BYTES * 8 && w[i]) {
            f[i].bo = (uint8_t)(bit / 8);
            f[i].sh = (uint8_t)(64 - bit % 8 - w[i]);
            int b = bit % 64;
            f[i].wi = (uint8_t)(bit / 64);
            f[i].spill = b + w[i] > 64;
            f[i].ls = (uint8_t)(f[i].spill ? b + w[i] - 64 : 64 - b - w[i]);
            f[i].mask = p4util_mask64(w[i]);
        }
        bit += w[i];
    }
    int bytes = (bit + 7) / 8;
    if (bytes > CFIELDS_MAX_BYTES)
        words = window = false;
    return (struct cfields){f, n, bytes, (bit + 63) / 64, window && bytes, words && bytes};
}

static bool cfields(struct p4cc *cc, const struct p4_type *t, struct cfields *out)
{
    int32_t off[FIELDS_MAX];
    uint8_t w[FIELDS_MAX];
    int n = 0;
    if (t->kind != P4T_HEADER || t->varbit_max || !flatten(t, 0, off, w, &n))
        return false;
    *out = layout(cc, off, w, n);
    if (out->bytes != (t->width + 7) / 8) { /* not expected: the header's own width rules */
        out->bytes = (t->width + 7) / 8;
        out->window = out->words = false;
    }
    return true;
}

/* A data list of slots of at most 64 bits that always fits in p4vm.buf. */
static bool cpack(struct p4cc *cc, struct p4ir_expr *const *v, int n, struct cpack *out)
{
    int bits = 0;
    for (int i = 0; i < n; i++) {
        const struct p4ir_expr *e = v[i];
        if (e->op != P4OP_LOAD || e->nw != 1 || e->width <= 0 ||
            (e->hdr && e->hdr->op != P4OP_LOAD))
            return false;
        bits += e->width;
    }
    if (bits > (int)sizeof(((struct p4vm *)0)->buf) * 8)
        return false;
    int32_t *slot = NEWN(cc, int32_t, n);
    int32_t *hslot = NEWN(cc, int32_t, n);
    uint8_t *w = NEWN(cc, uint8_t, n);
    bool fixed = true;
    for (int i = 0; i < n; i++) {
        slot[i] = v[i]->slot;
        hslot[i] = v[i]->hdr ? v[i]->hdr->slot : -1;
        w[i] = (uint8_t)v[i]->width;
        fixed &= hslot[i] == hslot[0];
    }
    *out = (struct cpack){.slot = slot, .hslot = hslot, .w = w, .n = n};
    out->fixed = fixed && n;
    out->hslot0 = n ? hslot[0] : -1;
    out->lay = layout(cc, slot, w, n);
    out->shadow = -1;
    return true;
}

/* ---- header shadows (p4cci.h) ---- */

static void mark_pack(struct p4cc *cc, const struct cpack *p)
{
    for (int i = 0; i < p->n; i++)
        mark_read(cc, p->slot[i]);
}

/* Splits each shadow's fields into those compiled nodes read (decoded at extract) and the
 * rest (decoded when the shadow drops). */
static void split_shadows(struct p4cc *cc)
{
    for (int k = 0; k < cc->nshadows; k++) {
        struct cshadow *sh = &cc->shadows[k];
        struct cfield *dec = NEWN(cc, struct cfield, sh->lay.n);
        struct cfield *lazy = NEWN(cc, struct cfield, sh->lay.n);
        int nd = 0;
        int nl = 0;
        for (int i = 0; i < sh->lay.n; i++) {
            const struct cfield *f = &sh->lay.f[i];
            if (cc->read_all || cc->read[sh->hslot + f->off])
                dec[nd++] = *f;
            else
                lazy[nl++] = *f;
        }
        sh->dec = sh->lay;
        sh->dec.f = dec;
        sh->dec.n = nd;
        sh->lazy = sh->lay;
        sh->lazy.f = lazy;
        sh->lazy.n = nl;
    }
}

#define SHADOWS_MAX 64

/* The layout of a header extracted at a fixed slot that can be shadowed, or NULL. */
static bool shadowable(struct p4cc *cc, const struct p4ir_stmt *st, struct cfields *lay)
{
    return st->op == P4ST_EXTRACT && st->a->op == P4OP_LOAD && !st->b &&
           cfields(cc, st->type, lay) && lay->window && lay->words;
}

static void find_shadows(struct p4cc *cc, const struct p4ir_block *b)
{
    for (int i = 0; i < b->n; i++) {
        const struct p4ir_stmt *st = b->s[i];
        find_shadows(cc, &st->body);
        find_shadows(cc, &st->els);
        for (int c = 0; c < st->ncases; c++)
            find_shadows(cc, &st->cases[c]);
        struct cfields lay;
        if (st->op != P4ST_EXTRACT || cc->nshadows == SHADOWS_MAX || !shadowable(cc, st, &lay))
            continue;
        bool have = false;
        for (int k = 0; k < cc->nshadows; k++)
            have |= cc->shadows[k].hslot == st->a->slot;
        if (have)
            continue;
        struct cshadow *sh = &cc->shadows[cc->nshadows++];
        *sh = (struct cshadow){st->a->slot, cc->prog->nslots + cc->nslots, lay};
        cc->nslots += 2 + lay.nwords; /* the flag, the words, a word of slack for patches */
    }
}

static const struct cshadow *shadow_of(const struct p4cc *cc, int hslot)
{
    for (int k = 0; k < cc->nshadows; k++) {
        if (cc->shadows[k].hslot == hslot)
            return &cc->shadows[k];
    }
    return NULL;
}

/* The write-through for a write to slot `slot`, NULL if it is no shadowed header's field. */
static const struct cpatch *patch_of(struct p4cc *cc, int slot)
{
    for (int k = 0; k < cc->nshadows; k++) {
        const struct cshadow *sh = &cc->shadows[k];
        for (int i = 0; i < sh->lay.n; i++) {
            const struct cfield *f = &sh->lay.f[i];
            if (sh->hslot + f->off != slot)
                continue;
            struct cpatch *p = NEW(cc, struct cpatch);
            *p = (struct cpatch){sh->at, f->bo, f->sh, f->mask};
            return p;
        }
    }
    return NULL;
}

/* A data list of a shadowed header's fields in order that leaves out only runs of whole
 * 16-bit words: its csum16 is the header's with those bits masked (p4cci.h, cpack). */
static void cpack_shadow(struct p4cc *cc, struct cpack *p)
{
    p->shadow = -1;
    const struct cshadow *sh = p->fixed ? shadow_of(cc, p->hslot0) : NULL;
    if (!sh)
        return;
    uint64_t *m = NEWN(cc, uint64_t, sh->lay.nwords);
    int j = 0;
    int bit = 0;
    int gap = 0; /* bits of the current run left out */
    for (int i = 0; i < sh->lay.n; i++) {
        const struct cfield *f = &sh->lay.f[i];
        if (j < p->n && p->slot[j] == sh->hslot + f->off && p->w[j] == f->w) {
            if (gap % 16)
                return;
            for (int b = bit; b < bit + f->w; b++)
                m[b / 64] |= (uint64_t)1 << (63 - b % 64);
            j++;
            gap = 0;
        } else {
            if (!gap && bit % 16)
                return;
            gap += f->w;
        }
        bit += f->w;
    }
    if (j < p->n || gap % 16)
        return;
    p->shadow = sh->at;
    p->smask = m;
    p->snwords = sh->lay.nwords;
}

/* ---- statements ---- */

static void cbuiltin(struct p4cc *cc, const struct p4ir_stmt *st, struct cs *s)
{
    struct p4ir_expr *const *a = st->args;
    switch ((enum p4builtin)st->aux) {
    case P4B_MARK_TO_DROP:
        if (cc->prog->std.egress_spec >= 0)
            s->fn = cs_drop;
        return;
    case P4B_UPDATE_CKSUM:
    case P4B_VERIFY_CKSUM:
        if (narrow(a[0]) && narrow(a[1]) && cpack(cc, a + 2, st->nargs - 2, &s->pack)) {
            s->a = cexpr(cc, a[0]);
            s->b = cexpr(cc, a[1]);
            s->slot2 = a[1]->op == P4OP_LOAD ? a[1]->slot : -1;
            s->mask2 = a[1]->mask;
            s->wt = s->slot2 >= 0 ? patch_of(cc, s->slot2) : NULL;
            cpack_shadow(cc, &s->pack);
            if (st->aux2 != P4HASH_CSUM16 || st->flag || s->pack.shadow < 0)
                mark_pack(cc, &s->pack); /* read from slots even while a shadow holds */
            s->fn = st->aux == P4B_UPDATE_CKSUM ? cs_update_cksum : cs_verify_cksum;
            if (s->fn == cs_update_cksum && st->aux2 == P4HASH_CSUM16 && !st->flag &&
                s->pack.shadow >= 0 && s->slot2 >= 0 && s->a->fn == cx_load)
                s->fn = cs_update_cksum_shadow;
        }
        return;
    case P4B_REG_READ: /* (dst, index) */
        if (cc->prog->externs[st->aux2].nw == 1 && a[0]->op == P4OP_LOAD && narrow(a[1])) {
            s->a = cexpr(cc, a[1]);
            s->slot = a[0]->slot;
            s->wt = patch_of(cc, s->slot);
            s->fn = s->wt ? cs_reg_read_wt : cs_reg_read;
        }
        return;
    case P4B_REG_WRITE: /* (index, value) */
        if (cc->prog->externs[st->aux2].nw == 1 && narrow(a[0]) && narrow(a[1])) {
            s->a = cexpr(cc, a[0]);
            s->b = cexpr(cc, a[1]);
            s->k = p4util_mask64(cc->prog->externs[st->aux2].width);
            s->fn = cs_reg_write;
        }
        return;
    case P4B_HASH:
        if (narrow(a[1]) && narrow(a[2]) && cpack(cc, a + 3, st->nargs - 3, &s->pack)) {
            s->a = cexpr(cc, a[1]);
            s->b = cexpr(cc, a[2]);
            mark_pack(cc, &s->pack);
            s->fn = cs_hash;
        }
        return;
    default:
        return;
    }
}

static struct cb *ccases(struct p4cc *cc, const struct p4ir_stmt *st)
{
    struct cb *c = NEWN(cc, struct cb, st->ncases);
    for (int i = 0; i < st->ncases; i++)
        c[i] = cblock(cc, &st->cases[i]);
    return c;
}

/* extract and emit of fixed-layout headers (shadowed ones included) and of stacks */
static void cpacket(struct p4cc *cc, const struct p4ir_stmt *st, struct cs *s)
{
    const struct p4ir_expr *ref = st->a;
    bool load = ref->op == P4OP_LOAD;
    if (st->op == P4ST_EXTRACT) {
        if ((load || (ref->op == P4OP_LOADX && ref->idx == P4IDX_NEXT)) && !st->b &&
            cfields(cc, st->type, &s->fields)) {
            s->fn = load ? cs_extract : cs_extract_next;
            s->slot = ref->slot;
            s->k = (uint64_t)st->type->width;
            const struct cshadow *sh = load ? shadow_of(cc, ref->slot) : NULL;
            s->slot2 = sh ? sh->at : -1;
            s->sh = sh;
            if (sh)
                s->fn = cs_extract_shadow;
        }
        return;
    }
    if (load && cfields(cc, st->type, &s->fields)) {
        const struct cshadow *sh = shadow_of(cc, ref->slot);
        s->fn = sh ? cs_emit_shadow : cs_emit;
        s->slot = ref->slot;
        s->slot2 = sh ? sh->at : -1;
    } else if (load && st->type->kind == P4T_STACK && cfields(cc, st->type->elem, &s->fields)) {
        s->fn = cs_emit_stack;
        s->slot = ref->slot;
        cc->read_all = true; /* its elements may be shadowed headers */
        s->k = (uint64_t)st->type->size;
        s->mask2 = (uint64_t)st->type->elem->nslots;
    }
}

/* Fills s for statement st: a specialised runner, or the interpreter's (set by the caller). */
static void cstmt(struct p4cc *cc, const struct p4ir_stmt *st, struct cs *s)
{
    const struct p4ir_expr *ref = st->a;
    bool load = ref && ref->op == P4OP_LOAD;
    switch (st->op) {
    case P4ST_ASSIGN:
        if (load && ref->nw == 1 && narrow(st->b)) {
            s->fn = cs_assign;
            s->slot = ref->slot;
            s->k = ref->mask;
            s->b = cexpr(cc, st->b);
            if (st->b->op == P4OP_LOAD) {
                s->fn = cs_assign_load;
                s->slot2 = st->b->slot;
            } else if (st->b->op == P4OP_CONST) {
                s->fn = cs_assign_const;
                s->mask2 = st->b->k & ref->mask;
            }
            s->wt = patch_of(cc, ref->slot);
            if (s->wt)
                s->fn = cs_assign_wt;
        } else if (ref && ref->op == P4OP_LOADX && ref->idx == P4IDX_EXPR && ref->nw == 1 &&
                   narrow(ref->a) && narrow(st->b)) {
            s->fn = cs_assign_x;
            s->a = cexpr(cc, ref->a);
            s->b = cexpr(cc, st->b);
            s->k = ref->mask;
        }
        return;
    case P4ST_BLOCK:
        s->fn = cs_block;
        s->body = cblock(cc, &st->body);
        return;
    case P4ST_IF:
        s->fn = cs_if;
        s->b = cexpr(cc, st->b);
        s->body = cblock(cc, &st->body);
        s->els = cblock(cc, &st->els);
        if (s->b->fn == cx_load) { /* a validity bit or a bool at a fixed slot */
            s->fn = cs_if_slot;
            s->slot2 = s->b->slot;
        }
        return;
    case P4ST_SETVALID:
        if (load) {
            s->fn = cs_setvalid;
            s->slot = ref->slot;
            s->k = (uint64_t)st->aux;
        }
        return;
    case P4ST_APPLY:
    case P4ST_SWITCH:
        s->fn = st->op == P4ST_APPLY ? cs_apply : cs_switch;
        s->tab = ctab_make(cc, st->table);
        if (st->op == P4ST_SWITCH) {
            s->cases = ccases(cc, st);
            s->els = cblock(cc, &st->els);
        }
        return;
    case P4ST_SWITCHV:
        if (narrow(st->b)) {
            s->fn = cs_switchv;
            s->b = cexpr(cc, st->b);
            s->cases = ccases(cc, st);
            s->els = cblock(cc, &st->els);
        }
        return;
    case P4ST_CALL:
        s->fn = cs_call;
        s->call = ccall_make(cc, st->call);
        return;
    case P4ST_EXIT:
        s->fn = cs_exit;
        return;
    case P4ST_LOOP:
        if (!st->b || narrow(st->b)) {
            s->fn = cs_loop;
            s->b = st->b ? cexpr(cc, st->b) : NULL;
            s->body = cblock(cc, &st->body);
            s->els = cblock(cc, &st->els);
        }
        return;
    case P4ST_BREAK:
        s->fn = cs_break;
        return;
    case P4ST_CONTINUE:
        s->fn = cs_continue;
        return;
    case P4ST_RETURN:
        if (!st->a)
            s->fn = cs_return;
        return;
    case P4ST_BUILTIN:
        cbuiltin(cc, st, s);
        return;
    case P4ST_EXTRACT:
    case P4ST_EMIT:
        cpacket(cc, st, s);
        return;
    default:
        return;
    }
}

/* A compiled assignment as a move (p4cci.h, cmove), false if it is none: its value a slot,
 * a constant, or a slot plus or minus a constant. */
static bool as_move(const struct cs *s, struct cmove *m)
{
    if (s->fn != cs_assign && s->fn != cs_assign_load && s->fn != cs_assign_const &&
        s->fn != cs_assign_wt)
        return false;
    const struct cx *b = s->b;
    *m = (struct cmove){s->slot, 0, 0, 0, s->k, s->wt};
    if (b->fn == cx_const) {
        m->k = b->k;
    } else if (b->fn == cx_load || b->fn == cx_add_sk || b->fn == cx_sub_sk) {
        m->src = b->slot;
        m->smask = ~(uint64_t)0;
        m->k = b->fn == cx_add_sk ? b->k : b->fn == cx_sub_sk ? (uint64_t)0 - b->k : 0;
        if (b->fn != cx_load)
            m->mask &= b->p.mask;
    } else {
        return false;
    }
    return true;
}

/* Fuses each run of two or more moves in s[0..n) into one record; the new count. */
static int fuse_moves(struct p4cc *cc, struct cs *s, int n)
{
    struct cmove m;
    int out = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && as_move(&s[j], &m))
            j++;
        if (j - i < 2) {
            s[out++] = s[i++];
            continue;
        }
        struct cmove *mv = NEWN(cc, struct cmove, j - i);
        for (int k = i; k < j; k++)
            as_move(&s[k], &mv[k - i]);
        struct cs f = s[i];
        f.fn = cs_moves;
        f.mv = mv;
        f.nmv = j - i;
        s[out++] = f;
        i = j;
    }
    return out;
}

static struct cb cblock(struct p4cc *cc, const struct p4ir_block *b)
{
    struct cs *s = NEWN(cc, struct cs, b->n);
    for (int i = 0; i < b->n; i++) {
        s[i].fn = cs_interp;
        s[i].st = b->s[i];
        cstmt(cc, b->s[i], &s[i]);
    }
    return (struct cb){s, fuse_moves(cc, s, b->n)};
}

/* ---- programs ---- */

/* A parser state; its select specialised when it has one key of at most 64 bits that cannot
 * change the flow and cases of values and a default (p4cci.h, cstate). */
static void cstate(struct p4cc *cc, const struct p4ir_state *s, struct cstate *c)
{
    const struct cx **keys = NEWN(cc, const struct cx *, s->nkeys);
    for (int k = 0; k < s->nkeys; k++)
        keys[k] = cexpr(cc, s->keys[k]);
    c->body = cblock(cc, &s->body);
    c->keys = keys;
    c->nvals = -1;
    bool fast = s->nkeys == 1 && (keys[0]->fn == cx_load || keys[0]->fn == cx_const);
    for (int i = 0; fast && i < s->ncases; i++)
        fast = s->cases[i].kind[0] == P4SEL_VALUE || s->cases[i].kind[0] == P4SEL_DEFAULT;
    if (!fast)
        return;
    uint64_t *vals = NEWN(cc, uint64_t, s->ncases);
    int *next = NEWN(cc, int, s->ncases);
    c->dflt = -3;
    c->nvals = 0;
    for (int i = 0; i < s->ncases && c->dflt == -3; i++) {
        if (s->cases[i].kind[0] == P4SEL_DEFAULT) {
            c->dflt = s->cases[i].next;
        } else {
            vals[c->nvals] = s->cases[i].v[0];
            next[c->nvals++] = s->cases[i].next;
        }
    }
    c->vals = vals;
    c->next = next;
}

struct p4cc *p4cc_compile(const struct p4_prog *prog)
{
    struct p4cc *cc = p4util_calloc(1, sizeof(*cc));
    cc->prog = prog;
    cc->shadows = NEWN(cc, struct cshadow, SHADOWS_MAX);
    cc->read = NEWN(cc, bool, prog->nslots);
    find_shadows(cc, &prog->parser_init);
    for (int i = 0; i < prog->nstates; i++)
        find_shadows(cc, &prog->states[i].body);
    const struct p4ir_callable *blocks[5] = {prog->verify, prog->ingress, prog->egress,
                                             prog->compute, prog->deparser};
    for (int i = 0; i < 5; i++) {
        if (blocks[i])
            cc->ctl[i] = cfn_of(cc, blocks[i]);
    }
    cc->parser_init = cblock(cc, &prog->parser_init);
    cc->states = NEWN(cc, struct cstate, prog->nstates);
    for (int i = 0; i < prog->nstates; i++)
        cstate(cc, &prog->states[i], &cc->states[i]);
    split_shadows(cc);
    return cc;
}

int p4cc_slots(const struct p4cc *cc)
{
    return cc ? cc->nslots : 0;
}

void p4cc_free(struct p4cc *cc)
{
    if (!cc)
        return;
    if (cc->twin) {
        p4native_free(cc->twin->nat);
        free(cc->twin);
    }
    for (int i = 0; i < cc->nallocs; i++)
        free(cc->allocs[i]);
    free(cc->allocs);
    free(cc->fns);
    free(cc);
}
