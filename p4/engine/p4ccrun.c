/* The compiled engine's runners: one function per kind of record (p4cci.h). Each does what
 * the interpreter does for the node it was compiled from (p4vm.c, p4vmext.c), with the
 * operands resolved ahead; the *_interp ones hand the node to the interpreter. */
#include "p4/engine/p4cci.h"
#include "p4/engine/p4hash.h"
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4vmi.h"
#include "p4/engine/p4wire.h"

#include <string.h>

#define RUN(x) ((x)->fn(vm, (x)))

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return __builtin_bswap64(x);
}

static inline void store_be64(uint8_t *p, uint64_t v)
{
    uint64_t x = __builtin_bswap64(v);
    memcpy(p, &x, 8);
}

/* ---- header shadows (p4cci.h) ---- */

static inline uint8_t *shadow_bytes(struct p4vm *vm, int32_t at)
{
    return (uint8_t *)(vm->slots + at + 1);
}

/* Reads the fields a shadowed header keeps only in its shadow (p4cci.h, cshadow.lazy) into
 * their slots. */
static inline __attribute__((always_inline)) void
shadow_decode(struct p4vm *vm, const struct cshadow *sh, const struct cfields *f)
{
    const uint8_t *b = shadow_bytes(vm, sh->at);
    uint64_t *h = vm->slots + sh->hslot;
    for (int i = 0; i < f->n; i++)
        h[f->f[i].off] = load_be64(b + f->f[i].bo) >> f->f[i].sh & f->f[i].mask;
}

/* Before something other than a compiled node reads or writes fields: every field is in its
 * slot again and no shadow holds. */
static void shadows_drop(struct p4vm *vm)
{
    const struct p4cc *cc = vm->pipe->cc;
    for (int k = 0; k < cc->nshadows; k++) {
        const struct cshadow *sh = &cc->shadows[k];
        if (!vm->slots[sh->at])
            continue;
        shadow_decode(vm, sh, &sh->lazy);
        vm->slots[sh->at] = 0;
    }
}

void p4cc_sync(const struct p4cc *cc, uint64_t *slots, bool drop)
{
    struct p4vm vm = {.slots = slots};
    for (int k = 0; k < cc->nshadows; k++) {
        const struct cshadow *sh = &cc->shadows[k];
        if (!slots[sh->at])
            continue;
        shadow_decode(&vm, sh, &sh->lazy);
        if (drop)
            slots[sh->at] = 0;
    }
}

/* Writes v (masked) through to the field's bytes in its header's shadow. */
static inline void write_through(struct p4vm *vm, const struct cpatch *p, uint64_t v)
{
    uint8_t *b = shadow_bytes(vm, p->at) + p->bo;
    store_be64(b, (load_be64(b) & ~(p->mask << p->sh)) | v << p->sh);
}

/* ---- expressions ---- */

uint64_t cx_const(struct p4vm *vm, const struct cx *x)
{
    (void)vm;
    return x->k;
}

uint64_t cx_load(struct p4vm *vm, const struct cx *x)
{
    return vm->slots[x->slot];
}

/* s[i].f with a computed index (out of range reads 0, as the interpreter) */
uint64_t cx_loadx(struct p4vm *vm, const struct cx *x)
{
    const struct p4ir_expr *e = x->e;
    uint64_t idx = RUN(x->a);
    if (idx >= (uint64_t)e->aux2)
        return 0;
    return vm->slots[e->slot + 1 + (int64_t)idx * e->aux + (int64_t)e->k];
}

uint64_t cx_interp(struct p4vm *vm, const struct cx *x)
{
    shadows_drop(vm);
    return p4vm_eval(vm, x->e);
}

uint64_t cx_land(struct p4vm *vm, const struct cx *x)
{
    return RUN(x->a) && RUN(x->b);
}

uint64_t cx_lor(struct p4vm *vm, const struct cx *x)
{
    return RUN(x->a) || RUN(x->b);
}

uint64_t cx_cond(struct p4vm *vm, const struct cx *x)
{
    return RUN(x->a) ? RUN(x->b) : RUN(x->c);
}

/* Operands left to right (P4_16 8.1), as the interpreter. */
#define CX_BINARY(name, expr)                                                                      \
    uint64_t name(struct p4vm *vm, const struct cx *x)                                             \
    {                                                                                              \
        uint64_t a = RUN(x->a);                                                                    \
        uint64_t b = RUN(x->b);                                                                    \
        return (expr);                                                                             \
    }
CX_BINARY(cx_add, (a + b) & x->p.mask)
CX_BINARY(cx_sub, (a - b) & x->p.mask)
CX_BINARY(cx_and, (a & b))
CX_BINARY(cx_or, a | b)
CX_BINARY(cx_xor, a ^ b)
CX_BINARY(cx_eq, a == b)
CX_BINARY(cx_ne, a != b)
CX_BINARY(cx_ult, a < b)
CX_BINARY(cx_ule, a <= b)
CX_BINARY(cx_ugt, a > b)
CX_BINARY(cx_uge, a >= b)
#undef CX_BINARY

/* A slot and a constant (x->a is the LOAD, x->k the constant): h.f + 1, h.f == 0x800 */
uint64_t cx_add_sk(struct p4vm *vm, const struct cx *x)
{
    return (vm->slots[x->slot] + x->k) & x->p.mask;
}

uint64_t cx_sub_sk(struct p4vm *vm, const struct cx *x)
{
    return (vm->slots[x->slot] - x->k) & x->p.mask;
}

uint64_t cx_eq_sk(struct p4vm *vm, const struct cx *x)
{
    return vm->slots[x->slot] == x->k;
}

uint64_t cx_ne_sk(struct p4vm *vm, const struct cx *x)
{
    return vm->slots[x->slot] != x->k;
}

uint64_t cx_binop(struct p4vm *vm, const struct cx *x)
{
    uint64_t a = RUN(x->a);
    uint64_t b = RUN(x->b);
    bool div0 = false;
    uint64_t r = p4ops_narrow(x->op, a, b, &x->p, &div0);
    if (div0)
        p4vm_fault(vm, x->e->loc, x->op == P4OP_DIV ? "division by zero" : "modulo by zero");
    return r;
}

uint64_t cx_unop(struct p4vm *vm, const struct cx *x)
{
    bool div0 = false;
    return p4ops_narrow(x->op, RUN(x->a), 0, &x->p, &div0);
}

uint64_t cx_call(struct p4vm *vm, const struct cx *x)
{
    p4cc_run_call(vm, x->call);
    return vm->slots[x->slot];
}

uint64_t cx_hit(struct p4vm *vm, const struct cx *x)
{
    bool hit;
    p4cc_apply(vm, x->tab, &hit);
    return x->op == P4OP_HIT ? hit : !hit;
}

/* ---- calls and tables ---- */

void p4cc_run_call(struct p4vm *vm, const struct ccall *c)
{
    if (!c->simple) {
        shadows_drop(vm);
        p4vm_call(vm, c->ir);
        return;
    }
    for (int i = 0; i < c->nin; i++)
        vm->slots[c->in_slot[i]] = RUN(c->in[i]);
    p4cc_block(vm, &c->fn->body);
    if (vm->flow == P4VM_RETURN)
        vm->flow = P4VM_NORMAL;
}

int p4cc_apply(struct p4vm *vm, const struct ctab *ct, bool *hit)
{
    const struct p4ir_table *t = ct->ir;
    uint64_t *key = vm->pipe->keybuf;
    if (ct->kslot) { /* every key a slot read */
        for (int i = 0; i < t->nkeys; i++)
            key[t->keys[i].woff] = vm->slots[ct->kslot[i]];
    } else {
        for (int i = 0; i < t->nkeys; i++) {
            const struct p4ir_key *k = &t->keys[i];
            if (ct->keys[i]) {
                key[k->woff] = RUN(ct->keys[i]);
            } else {
                shadows_drop(vm);
                p4vm_evalw(vm, k->e, key + k->woff);
            }
        }
    }
    const uint64_t *data;
    int action = p4vm_table_match(vm, t, hit, &data);
    if (action < 0)
        return -1;
    const struct ccall *c = &ct->acts[action];
    if (c->ndata < 0)
        p4vm_action_data(vm, c->ir->fn, data);
    for (int i = 0; i < c->ndata; i++)
        vm->slots[c->data_slot[i]] = data[i];
    p4cc_run_call(vm, c);
    return action;
}

/* ---- statements ---- */

void cs_interp(struct p4vm *vm, const struct cs *s)
{
    shadows_drop(vm);
    p4vm_exec(vm, s->st);
}

void cs_assign(struct p4vm *vm, const struct cs *s)
{
    uint64_t v = RUN(s->b);
    if (!vm->flow) /* a failed lookahead or an exit drops the write */
        vm->slots[s->slot] = v & s->k;
}

/* s[i].f = v: the location first, then the value (P4_16 8.2); out of range writes nothing */
void cs_assign_x(struct p4vm *vm, const struct cs *s)
{
    const struct p4ir_expr *ref = s->st->a;
    uint64_t idx = RUN(s->a);
    uint64_t v = RUN(s->b);
    shadows_drop(vm); /* the element may be a shadowed header */
    if (idx < (uint64_t)ref->aux2 && !vm->flow)
        vm->slots[ref->slot + 1 + (int64_t)idx * ref->aux + (int64_t)ref->k] = v & s->k;
}

/* dst = src (both of at most 64 bits): no flow change is possible */
void cs_assign_load(struct p4vm *vm, const struct cs *s)
{
    vm->slots[s->slot] = vm->slots[s->slot2] & s->k;
}

void cs_assign_const(struct p4vm *vm, const struct cs *s)
{
    vm->slots[s->slot] = s->mask2;
}

/* An assignment to a shadowed header's field */
void cs_assign_wt(struct p4vm *vm, const struct cs *s)
{
    uint64_t v = RUN(s->b) & s->k;
    if (!vm->flow) {
        vm->slots[s->slot] = v;
        write_through(vm, s->wt, v);
    }
}

/* A run of simple assignments (p4cci.h, cmove): no flow change is possible */
void cs_moves(struct p4vm *vm, const struct cs *s)
{
    uint64_t *sl = vm->slots;
    for (const struct cmove *m = s->mv, *end = s->mv + s->nmv; m < end; m++) {
        uint64_t v = ((sl[m->src] & m->smask) + m->k) & m->mask;
        sl[m->dst] = v;
        if (m->wt)
            write_through(vm, m->wt, v);
    }
}

/* if (h.isValid()) on a header at a fixed slot */
void cs_if_slot(struct p4vm *vm, const struct cs *s)
{
    if (vm->slots[s->slot2])
        p4cc_block(vm, &s->body);
    else
        p4cc_block(vm, &s->els);
}

void cs_block(struct p4vm *vm, const struct cs *s)
{
    p4cc_block(vm, &s->body);
}

void cs_if(struct p4vm *vm, const struct cs *s)
{
    if (RUN(s->b))
        p4cc_block(vm, &s->body);
    else
        p4cc_block(vm, &s->els);
}

void cs_setvalid(struct p4vm *vm, const struct cs *s)
{
    vm->slots[s->slot] = s->k;
}

void cs_apply(struct p4vm *vm, const struct cs *s)
{
    bool hit;
    p4cc_apply(vm, s->tab, &hit);
}

void cs_switch(struct p4vm *vm, const struct cs *s)
{
    bool hit;
    int a = p4cc_apply(vm, s->tab, &hit);
    if (vm->flow)
        return;
    if (a >= 0 && s->st->has_case[a])
        p4cc_block(vm, &s->cases[a]);
    else
        p4cc_block(vm, &s->els);
}

void cs_switchv(struct p4vm *vm, const struct cs *s)
{
    uint64_t v = RUN(s->b);
    const struct p4ir_stmt *st = s->st;
    for (int i = 0; i < st->ncases; i++) {
        if (st->has_case[i] && st->vals[i] == v) {
            p4cc_block(vm, &s->cases[i]);
            return;
        }
    }
    p4cc_block(vm, &s->els);
}

void p4cc_loop_fault(struct p4vm *vm, const struct cs *s)
{
    p4vm_fault(vm, s->st->loc, "loop stopped after 1048576 iterations");
}

/* while (b or true) { body; els (the update) }, stopped after P4VM_LOOP_MAX iterations */
void cs_loop(struct p4vm *vm, const struct cs *s)
{
    for (uint32_t n = 0; !s->b || RUN(s->b); n++) {
        if (vm->flow)
            return;
        if (n == P4VM_LOOP_MAX) {
            p4cc_loop_fault(vm, s);
            return;
        }
        p4cc_block(vm, &s->body);
        if (!p4vm_loop_continues(vm))
            return;
        p4cc_block(vm, &s->els);
        if (vm->flow)
            return;
    }
}

void cs_break(struct p4vm *vm, const struct cs *s)
{
    (void)s;
    vm->flow = P4VM_BREAK;
}

void cs_continue(struct p4vm *vm, const struct cs *s)
{
    (void)s;
    vm->flow = P4VM_CONTINUE;
}

void cs_call(struct p4vm *vm, const struct cs *s)
{
    p4cc_run_call(vm, s->call);
}

void cs_exit(struct p4vm *vm, const struct cs *s)
{
    (void)s;
    vm->flow = P4VM_EXIT;
}

void cs_return(struct p4vm *vm, const struct cs *s)
{
    (void)s;
    vm->flow = P4VM_RETURN;
}

/* Reads a fixed-layout header at slot h from the packet (the length was checked). */
static void extract_fields(struct p4vm *vm, const struct cfields *f, uint64_t *h)
{
    const struct cfield *fd = f->f;
    if (f->window && !(vm->in_bitpos & 7)) { /* one 64-bit load per field */
        uint32_t at = vm->in_bitpos >> 3;
        const uint8_t *p = vm->in + at;
        uint8_t buf[CFIELDS_MAX_BYTES + 8];
        if ((uint64_t)at + (uint64_t)f->bytes + 8 > vm->in_len) { /* near the end: a copy */
            memcpy(buf, p, (size_t)f->bytes);
            memset(buf + f->bytes, 0, 8);
            p = buf;
        }
        for (int i = 0; i < f->n; i++)
            h[fd[i].off] = load_be64(p + fd[i].bo) >> fd[i].sh & fd[i].mask;
    } else {
        struct bitr r;
        bitr_init(&r, vm->in, vm->in_len, vm->in_bitpos);
        for (int i = 0; i < f->n; i++)
            h[fd[i].off] = bitr_get(&r, fd[i].w);
    }
    h[0] = 1;
}

/* Copies the header's bytes at the packet position into its shadow (valid when byte-aligned). */
static void shadow_fill(struct p4vm *vm, const struct cfields *f, int32_t at)
{
    uint32_t from = vm->in_bitpos >> 3;
    uint8_t *d = shadow_bytes(vm, at);
    const uint8_t *p = vm->in + from;
    if ((uint64_t)from + (uint64_t)f->nwords * 8 <= vm->in_len) {
        for (int i = 0; i < f->nwords; i++)
            memcpy(d + 8 * i, p + 8 * i, 8);
    } else {
        memcpy(d, p, (size_t)f->bytes);
    }
    vm->slots[at] = 1;
}

/* A fixed-layout header from its flat field list. A shadowed one at a byte-aligned position
 * is copied to its shadow first and the fields compiled nodes read are decoded from there (the
 * shadow has a word of slack, so every field is one 64-bit load); the others stay in the
 * shadow until something else needs their slots (shadows_drop). */
void cs_extract(struct p4vm *vm, const struct cs *s)
{
    uint32_t total = (uint32_t)s->k;
    if (vm->in_bitpos + (uint64_t)total > (uint64_t)vm->in_len * 8) {
        vm->parser_error = ERR_PACKET_TOO_SHORT;
        vm->flow = P4VM_EXIT;
        return;
    }
    uint64_t *h = vm->slots + s->slot;
    if (s->slot2 >= 0 && !(vm->in_bitpos & 7)) { /* the fields compiled nodes read */
        shadow_fill(vm, &s->fields, s->slot2);
        shadow_decode(vm, s->sh, &s->sh->dec);
        h[0] = 1;
    } else {
        extract_fields(vm, &s->fields, h);
        if (s->slot2 >= 0)
            vm->slots[s->slot2] = 0;
    }
    vm->in_bitpos += total;
}

/* A shadowed header at a byte position with all its words in the packet: its bytes copied
 * word by word into the shadow, the fields compiled nodes read decoded (else cs_extract). */
void cs_extract_shadow(struct p4vm *vm, const struct cs *s)
{
    uint32_t bitpos = vm->in_bitpos;
    uint32_t from = bitpos >> 3;
    int nwords = s->fields.nwords;
    if ((bitpos & 7) || (uint64_t)from + (uint64_t)nwords * 8 > vm->in_len) {
        cs_extract(vm, s);
        return;
    }
    uint64_t *d = vm->slots + s->slot2 + 1;
    const uint8_t *p = vm->in + from;
    for (int i = 0; i < nwords; i++)
        memcpy(d + i, p + 8 * i, 8);
    vm->slots[s->slot2] = 1;
    shadow_decode(vm, s->sh, &s->sh->dec);
    vm->slots[s->slot] = 1;
    vm->in_bitpos = bitpos + (uint32_t)s->k;
}

/* extract(s.next): beyond the stack the parser stops with StackOutOfBounds (P4_16 8.18) */
void cs_extract_next(struct p4vm *vm, const struct cs *s)
{
    const struct p4ir_expr *ref = s->st->a;
    uint64_t idx = vm->slots[ref->slot];
    if (idx >= (uint64_t)ref->aux2) {
        vm->parser_error = ERR_STACK_OUT_OF_BOUNDS;
        vm->flow = P4VM_EXIT;
        return;
    }
    uint32_t total = (uint32_t)s->k;
    if (vm->in_bitpos + (uint64_t)total > (uint64_t)vm->in_len * 8) {
        vm->parser_error = ERR_PACKET_TOO_SHORT;
        vm->flow = P4VM_EXIT;
        return;
    }
    int64_t at = ref->slot + 1 + (int64_t)idx * ref->aux + (int64_t)ref->k;
    shadows_drop(vm); /* the element may be a shadowed header */
    extract_fields(vm, &s->fields, vm->slots + at);
    vm->in_bitpos += total;
    vm->slots[ref->slot]++;
}

/* Places the fields of a `words` layout (slots from base) into its big-endian 64-bit words
 * w[0 .. nwords - 1], which the caller zeroed (w[nwords] takes nothing but a zero). */
static inline void place_words(const uint64_t *base, const struct cfields *f, uint64_t *w)
{
    const struct cfield *fd = f->f;
    for (int i = 0; i < f->n; i++) {
        uint64_t v = base[fd[i].off] & fd[i].mask;
        if (__builtin_expect(!fd[i].spill, 1)) {
            w[fd[i].wi] |= v << fd[i].ls;
        } else {
            w[fd[i].wi] |= v >> fd[i].ls;
            w[fd[i].wi + 1] |= v << (64 - fd[i].ls);
        }
    }
}

static void emit_fields(struct p4vm *vm, const struct cfields *f, const uint64_t *h)
{
    if (!h[0])
        return;
    uint32_t bytes = (uint32_t)f->bytes;
    if (vm->out_len + bytes > vm->out_cap) {
        vm->out_overflow = true;
        return;
    }
    uint8_t *o = vm->out + vm->out_len;
    vm->out_len += bytes;
    if (f->words) {
        uint64_t w[CFIELDS_MAX_WORDS + 1] = {0};
        place_words(h, f, w);
        uint8_t tmp[CFIELDS_MAX_BYTES];
        uint32_t room = vm->out_cap - (vm->out_len - bytes);
        uint8_t *d = room >= (uint32_t)f->nwords * 8 ? o : tmp;
        for (int i = 0; i < f->nwords; i++) {
            uint64_t x = __builtin_bswap64(w[i]);
            memcpy(d + 8 * i, &x, 8);
        }
        if (d == tmp)
            memcpy(o, tmp, bytes);
        return;
    }
    struct bitw b = {o, 0, 0, 0};
    for (int i = 0; i < f->n; i++)
        bitw_field(&b, h + f->f[i].off, f->f[i].w);
    bitw_flush(&b);
}

void cs_emit(struct p4vm *vm, const struct cs *s)
{
    emit_fields(vm, &s->fields, vm->slots + s->slot);
}

/* A shadowed header: its bytes when the shadow holds. */
void cs_emit_shadow(struct p4vm *vm, const struct cs *s)
{
    const struct cfields *f = &s->fields;
    if (!vm->slots[s->slot2] || !vm->slots[s->slot]) {
        emit_fields(vm, f, vm->slots + s->slot);
        return;
    }
    uint32_t bytes = (uint32_t)f->bytes;
    if (vm->out_len + bytes > vm->out_cap) {
        vm->out_overflow = true;
        return;
    }
    const uint8_t *src = shadow_bytes(vm, s->slot2);
    if (vm->out_len + (uint32_t)f->nwords * 8 <= vm->out_cap)
        memcpy(vm->out + vm->out_len, src, (size_t)f->nwords * 8);
    else
        memcpy(vm->out + vm->out_len, src, bytes);
    vm->out_len += bytes;
}

/* emit(stack): each element in order (s->k elements, s->mask2 slots apart) */
void cs_emit_stack(struct p4vm *vm, const struct cs *s)
{
    const uint64_t *base = vm->slots + s->slot + 1;
    for (uint64_t i = 0; i < s->k; i++)
        emit_fields(vm, &s->fields, base + i * s->mask2);
}

/* Packs a flat data list into vm->buf (fields of invalid headers left out); byte length. */
static size_t pack_flat(struct p4vm *vm, const struct cpack *p)
{
    struct bitw b = {vm->buf, 0, 0, 0};
    const uint64_t *sl = vm->slots;
    for (int i = 0; i < p->n; i++) {
        if (p->hslot[i] >= 0 && !sl[p->hslot[i]])
            continue;
        bitw_put(&b, sl[p->slot[i]] & p4util_mask64(p->w[i]), p->w[i]);
    }
    bitw_flush(&b);
    return b.n;
}

/* The 16-bit one's complement of a sum of big-endian 64-bit words: folded with end-around
 * carry, it is the one's complement sum of their 16-bit words (RFC 1071). */
static uint64_t csum16_fold(unsigned __int128 sum)
{
    uint64_t lo = (uint64_t)sum;
    uint64_t s = lo + (uint64_t)(sum >> 64);
    s += s < lo;
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffffffffu) + (s >> 32);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

/* csum16 of a flat data list without writing its bytes: the stream's big-endian 64-bit words
 * are summed (a last partial word padded with zeros as bytes would be). A list of one header's
 * fields has a fixed layout: absent, it is empty; present, its words are built directly. */
static uint64_t csum16_flat(struct p4vm *vm, const struct cpack *p)
{
    const uint64_t *sl = vm->slots;
    unsigned __int128 sum = 0;
    if (p->shadow >= 0 && sl[p->shadow]) {
        if (!sl[p->hslot0])
            return 0xffff;
        const uint8_t *b = shadow_bytes(vm, p->shadow);
        for (int i = 0; i < p->snwords; i++)
            sum += load_be64(b + 8 * i) & p->smask[i];
        return csum16_fold(sum);
    }
    if (p->fixed && p->lay.words) {
        if (p->hslot0 >= 0 && !sl[p->hslot0])
            return 0xffff;
        uint64_t w[CFIELDS_MAX_WORDS + 1] = {0};
        place_words(sl, &p->lay, w);
        for (int i = 0; i < p->lay.nwords; i++)
            sum += w[i];
        return csum16_fold(sum);
    }
    uint64_t acc = 0;
    int bits = 0;
    for (int i = 0; i < p->n; i++) {
        if (p->hslot[i] >= 0 && !sl[p->hslot[i]])
            continue;
        int w = p->w[i];
        uint64_t v = sl[p->slot[i]] & p4util_mask64(w);
        int room = 64 - bits;
        if (w < room) {
            acc = acc << w | v;
            bits += w;
        } else if (w == room) {
            sum += room == 64 ? v : acc << w | v;
            acc = 0;
            bits = 0;
        } else {
            int rest = w - room;
            sum += acc << room | v >> rest;
            acc = v & p4util_mask64(rest);
            bits = rest;
        }
    }
    if (bits)
        sum += acc << (64 - bits);
    return csum16_fold(sum);
}

static uint64_t cksum(struct p4vm *vm, const struct cs *s)
{
    const struct p4ir_stmt *st = s->st;
    if (st->aux2 == P4HASH_CSUM16 && !st->flag)
        return csum16_flat(vm, &s->pack);
    return p4vm_checksum_packed(vm, st, pack_flat(vm, &s->pack));
}

void cs_update_cksum(struct p4vm *vm, const struct cs *s)
{
    if (!RUN(s->a))
        return;
    uint64_t c = cksum(vm, s);
    if (s->slot2 >= 0) {
        vm->slots[s->slot2] = c & s->mask2;
        if (s->wt)
            write_through(vm, s->wt, c & s->mask2);
    } else {
        shadows_drop(vm);
        p4vm_set_ref(vm, s->st->args[1], c);
    }
}

/* update_checksum(h.isValid(), {h's fields}, h.csum, csum16) on a shadowed h (p4cci.h, cpack):
 * while the shadow holds, the sum of its masked words (else cs_update_cksum). */
void cs_update_cksum_shadow(struct p4vm *vm, const struct cs *s)
{
    uint64_t *sl = vm->slots;
    const struct cpack *p = &s->pack;
    if (!sl[s->a->slot] || !sl[p->shadow] || !sl[p->hslot0]) {
        cs_update_cksum(vm, s);
        return;
    }
    const uint8_t *b = shadow_bytes(vm, p->shadow);
    unsigned __int128 sum = 0;
    for (int i = 0; i < p->snwords; i++)
        sum += load_be64(b + 8 * i) & p->smask[i];
    uint64_t c = csum16_fold(sum) & s->mask2;
    sl[s->slot2] = c;
    if (s->wt)
        write_through(vm, s->wt, c);
}

void cs_verify_cksum(struct p4vm *vm, const struct cs *s)
{
    if (!RUN(s->a))
        return;
    uint64_t c = cksum(vm, s);
    uint64_t have = RUN(s->b);
    int err = vm->prog->std.checksum_error;
    if ((c & s->st->args[1]->mask) != have && err >= 0)
        vm->slots[err] = 1;
}

/* hash(out, algo, base, data, max) with max of at most 64 bits. */
void cs_hash(struct p4vm *vm, const struct cs *s)
{
    const struct p4ir_stmt *st = s->st;
    uint64_t base = RUN(s->a);
    uint64_t max = RUN(s->b);
    uint64_t h;
    if (st->aux2 == P4HASH_RANDOM)
        h = p4pipe_random(vm->pipe);
    else
        h = p4hash_compute(st->aux2, vm->buf, pack_flat(vm, &s->pack));
    shadows_drop(vm);
    p4vm_set_ref(vm, st->args[0], max ? base + h % max : base);
}

/* register.read(dst, index) into a slot, elements of at most 64 bits */
void cs_reg_read(struct p4vm *vm, const struct cs *s)
{
    uint64_t idx = RUN(s->a);
    const struct p4ir_extern *x = &vm->prog->externs[s->st->aux2];
    vm->slots[s->slot] = idx < (uint64_t)x->size ? vm->pipe->ext[s->st->aux2].vals[idx] : 0;
}

void cs_reg_read_wt(struct p4vm *vm, const struct cs *s)
{
    cs_reg_read(vm, s);
    write_through(vm, s->wt, vm->slots[s->slot]);
}

/* register.write(index, value), elements of at most 64 bits */
void cs_reg_write(struct p4vm *vm, const struct cs *s)
{
    uint64_t idx = RUN(s->a);
    uint64_t v = RUN(s->b) & s->k;
    const struct p4ir_extern *x = &vm->prog->externs[s->st->aux2];
    if (idx < (uint64_t)x->size)
        vm->pipe->ext[s->st->aux2].vals[idx] = v;
}

void cs_drop(struct p4vm *vm, const struct cs *s)
{
    (void)s;
    const struct p4ir_std *std = &vm->prog->std;
    vm->slots[std->egress_spec] = 511;
    if (std->mcast_grp >= 0)
        vm->slots[std->mcast_grp] = 0;
}

/* ---- blocks ---- */

static void parse_init(struct p4vm *vm, const void *ctx)
{
    const struct p4cc *cc = ctx;
    p4cc_block(vm, &cc->parser_init);
}

static void parse_body(struct p4vm *vm, const void *ctx, int st)
{
    const struct p4cc *cc = ctx;
    p4cc_block(vm, &cc->states[st].body);
}

/* A select on one key with constant cases compares it with each in turn (p4cci.h, cstate). */
int p4cc_select(struct p4vm *vm, const struct p4cc *cc, int st)
{
    const struct cstate *cs = &cc->states[st];
    const struct p4ir_state *s = &vm->prog->states[st];
    if (cs->nvals >= 0) {
        uint64_t v = RUN(cs->keys[0]);
        for (int i = 0; i < cs->nvals; i++) {
            if (v == cs->vals[i])
                return cs->next[i];
        }
        return cs->dflt;
    }
    uint64_t k[P4_SELECT_KEYS_MAX];
    for (int i = 0; i < s->nkeys; i++)
        k[i] = RUN(cs->keys[i]);
    return vm->flow ? -3 : p4vm_select(vm, s, k, s->nkeys);
}

static int parse_select(struct p4vm *vm, const void *ctx, int st)
{
    return p4cc_select(vm, ctx, st);
}

int p4cc_match(struct p4vm *vm, const struct p4ir_table *t, bool *hit, const uint64_t **data)
{
    return p4vm_table_match(vm, t, hit, data);
}

void p4cc_run_parser(const struct p4cc *cc, struct p4vm *vm)
{
    p4vm_parse(vm, parse_init, parse_body, parse_select, cc);
}

void p4cc_run_control(const struct p4cc *cc, struct p4vm *vm, enum p4cc_block which,
                      const struct p4ir_callable *c)
{
    const struct cfn *f = cc->ctl[which];
    vm->flow = P4VM_NORMAL;
    if (f && f->ir == c) {
        p4cc_block(vm, &f->body);
    } else {
        shadows_drop(vm);
        p4vm_run_control(vm, c);
    }
    vm->flow = P4VM_NORMAL;
}

void p4cc_native_entries(const struct p4cc *cc, const struct p4ir_callable *const blocks[5],
                         struct p4cc_native *n)
{
    *n = (struct p4cc_native){.parser = cc->nparser, .rec = cc->nrec};
    for (int i = 0; i < 5; i++) /* native code only for the block it was emitted from */
        n->ctl[i] = cc->nctl[i] && cc->ctl[i]->ir == blocks[i] ? cc->nctl[i] : NULL;
    bool in = n->parser != NULL, out = true;
    for (int i = 0; i < 5; i++) {
        bool ok = !(blocks[i] && blocks[i]->body.n) || n->ctl[i];
        in &= ok || i > P4CC_INGRESS;
        out &= ok || i < P4CC_COMPUTE;
    }
    n->lean_in = in ? cc->nlean_in : NULL;
    n->lean_out = out ? cc->nlean_out : NULL;
}
