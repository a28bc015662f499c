/* The native back end's C emission, one emitter per record kind (see p4nemit.h).
 *
 * Flow. A record block (p4cc_block) stops after the first statement that leaves vm->flow set,
 * and every enclosing block does the same up to the function (a control, an action's call),
 * so generated code jumps straight to the end of the function: `if (FLOW) goto out;`. The
 * check is left out only where flow is known to be normal before and after a statement that
 * cannot change it (`clean`): a record runs the first statement of a block even when flow was
 * already set (an if whose condition called an action that exited), and so does this code. */
#include "p4/engine/p4nemit.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4cci.h"
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4vmi.h"

_Static_assert(sizeof(enum p4vm_flow) == sizeof(int), "flow is read as an int");
_Static_assert(sizeof(bool) == 1, "bools are read as one byte");

/* Actions applied by tables are inlined down to this depth (deeper: called as records). */
#define INLINE_DEPTH 4
/* p4n_lean_in zeroes a state of up to this many slots with one store each, else by memset. */
#define P4N_LEAN_STORES 256

struct em {
    struct p4nsrc *o;
    const struct p4cc *cc;
    int nlab;
    int depth;
    int bitpos; /* in the parser: the packet's bit position here when it is known, else -1 */
};

void p4nemit_put(struct p4nsrc *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (o->len + (size_t)n + 1 > o->cap) {
        while (o->len + (size_t)n + 1 > o->cap)
            o->cap = o->cap ? 2 * o->cap : 65536;
        o->text = p4util_realloc(o->text, o->cap);
    }
    va_start(ap, fmt);
    vsnprintf(o->text + o->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->len += (size_t)n;
}

void p4nemit_free(struct p4nsrc *o)
{
    free(o->text);
    free(o->rec);
    memset(o, 0, sizeof(*o));
}

#define PUT(m, ...) p4nemit_put((m)->o, __VA_ARGS__)

/* The index of p in the table R. */
static int rec(struct em *m, const void *p)
{
    P4_PUSH(m->o->rec, m->o->nrec, m->o->caprec, p);
    return m->o->nrec - 1;
}

/* ---- expressions ---- */

static const struct {
    cx_fn *fn;
    const char *op; /* C operator; "+" and "-" are masked */
} binops[] = {
    {cx_add, "+"},  {cx_sub, "-"},  {cx_and, "&"},  {cx_or, "|"},   {cx_xor, "^"},
    {cx_eq, "=="},  {cx_ne, "!="},  {cx_ult, "<"},  {cx_ule, "<="}, {cx_ugt, ">"},
    {cx_uge, ">="}, {cx_land, "&&"}, {cx_lor, "||"},
};

static const char *binop_of(const struct cx *x)
{
    for (size_t i = 0; i < P4_ARRAY_LEN(binops); i++) {
        if (binops[i].fn == x->fn)
            return binops[i].op;
    }
    return NULL;
}

/* An operator of p4ops_narrow written inline below: the unsigned ones (signed shifts, casts
 * and comparisons stay with the runner). */
static bool narrow_inline(const struct cx *x)
{
    if (x->fn != cx_binop && x->fn != cx_unop)
        return false;
    switch (x->op) {
    case P4OP_MUL:
    case P4OP_SHL:
    case P4OP_NOT:
    case P4OP_NEG:
    case P4OP_LNOT:
        return true;
    case P4OP_SHR:
    case P4OP_CAST:
        return !x->p.sgn;
    case P4OP_SLICE:
        return x->p.lo < 64;
    case P4OP_CONCAT:
        return x->p.awidth < 64;
    default:
        return false;
    }
}

static bool pure(const struct cx *x);

/* Whether the narrow operator x can be written inline (its operands pure). */
static bool narrow_pure(const struct cx *x)
{
    return narrow_inline(x) && pure(x->a) && (x->fn == cx_unop || pure(x->b));
}

/* An expression that reads slots and constants only: it has no effect and cannot change the
 * flow, so C may evaluate it in any order. */
static bool pure(const struct cx *x)
{
    if (narrow_pure(x))
        return true;
    if (x->fn == cx_const || x->fn == cx_load || x->fn == cx_add_sk || x->fn == cx_sub_sk ||
        x->fn == cx_eq_sk || x->fn == cx_ne_sk)
        return true;
    if (x->fn == cx_cond)
        return pure(x->a) && pure(x->b) && pure(x->c);
    return binop_of(x) && pure(x->a) && pure(x->b);
}

static void expr(struct em *m, const struct cx *x);

/* x (narrow_pure) as C with p4ops_narrow's results: fmt's %A and %B are the operands, %W the
 * width, %L the low bit or the left operand's width, %M the mask. */
static void narrow(struct em *m, const struct cx *x)
{
    static const struct {
        enum p4op op;
        const char *fmt;
    } forms[] = {
        {P4OP_MUL, "((%A * %B) & %M)"},
        {P4OP_SHL, "(%B >= %W ? 0 : (%A << %B) & %M)"},
        {P4OP_SHR, "(%B >= %W ? 0 : %A >> %B)"},
        {P4OP_NOT, "(~%A & %M)"},
        {P4OP_NEG, "((0 - %A) & %M)"},
        {P4OP_LNOT, "(uint64_t)!%A"},
        {P4OP_SLICE, "((%A >> %L) & %M)"},
        {P4OP_CAST, "(%A & %M)"},
        {P4OP_CONCAT, "(((%A << %L) | %B) & %M)"},
    };
    const char *f = NULL;
    for (size_t i = 0; i < P4_ARRAY_LEN(forms) && !f; i++)
        f = forms[i].op == x->op ? forms[i].fmt : NULL;
    for (; *f; f++) {
        if (*f != '%') {
            PUT(m, "%c", *f);
            continue;
        }
        f++;
        if (*f == 'A' || *f == 'B') {
            PUT(m, "(");
            expr(m, *f == 'A' ? x->a : x->b);
            PUT(m, ")");
        } else if (*f == 'W') {
            PUT(m, "%dULL", x->p.width);
        } else if (*f == 'L') {
            PUT(m, "%d", x->op == P4OP_SLICE ? x->p.lo : x->p.awidth);
        } else {
            PUT(m, "0x%llxULL", (unsigned long long)x->p.mask);
        }
    }
}

static void expr(struct em *m, const struct cx *x)
{
    const char *op = binop_of(x);
    if (narrow_inline(x)) {
        narrow(m, x);
    } else if (x->fn == cx_const) {
        PUT(m, "0x%llxULL", (unsigned long long)x->k);
    } else if (x->fn == cx_load) {
        PUT(m, "S[%d]", x->slot);
    } else if (x->fn == cx_add_sk || x->fn == cx_sub_sk) {
        PUT(m, "((S[%d] %s 0x%llxULL) & 0x%llxULL)", x->slot, x->fn == cx_add_sk ? "+" : "-",
            (unsigned long long)x->k, (unsigned long long)x->p.mask);
    } else if (x->fn == cx_eq_sk || x->fn == cx_ne_sk) {
        PUT(m, "(uint64_t)(S[%d] %s 0x%llxULL)", x->slot, x->fn == cx_eq_sk ? "==" : "!=",
            (unsigned long long)x->k);
    } else if (x->fn == cx_cond) {
        PUT(m, "(");
        expr(m, x->a);
        PUT(m, " ? ");
        expr(m, x->b);
        PUT(m, " : ");
        expr(m, x->c);
        PUT(m, ")");
    } else {
        bool masked = x->fn == cx_add || x->fn == cx_sub;
        PUT(m, "%s", masked ? "((" : "(uint64_t)(");
        expr(m, x->a);
        PUT(m, " %s ", op);
        expr(m, x->b);
        if (masked)
            PUT(m, ") & 0x%llxULL)", (unsigned long long)x->p.mask);
        else
            PUT(m, ")");
    }
}

/* A value: inline when pure, else its record's runner. */
static void value(struct em *m, const struct cx *x)
{
    if (pure(x))
        expr(m, x);
    else
        PUT(m, "CX(%d)", rec(m, x));
}

/* ---- statements ---- */

static bool block(struct em *m, const struct cb *b, const char *out, bool clean);

/* A record run by its runner; the flow may change. */
static bool by_record(struct em *m, const struct cs *s)
{
    PUT(m, "CS(%d);\n", rec(m, s));
    return false;
}

/* The write of v to a shadowed header's field (p): whole bytes stored big-endian (WB), else a
 * read-modify-write of the 8-byte window (WT). */
static void write_through(struct em *m, const struct cpatch *p, const char *v)
{
    if (!p)
        return;
    int w = __builtin_popcountll(p->mask);
    if (p->sh % 8 == 0 && w % 8 == 0)
        PUT(m, "WB(%d, %d, %d, %s);\n", p->at, p->bo + (64 - p->sh - w) / 8, w / 8, v);
    else
        PUT(m, "WT(%d, %d, %d, 0x%llxULL, %s);\n", p->at, p->bo, p->sh,
            (unsigned long long)p->mask, v);
}

static bool moves(struct em *m, const struct cs *s, bool clean)
{
    for (int i = 0; i < s->nmv; i++) {
        const struct cmove *mv = &s->mv[i];
        PUT(m, "S[%d] = ((S[%d] & 0x%llxULL) + 0x%llxULL) & 0x%llxULL;\n", mv->dst, mv->src,
            (unsigned long long)mv->smask, (unsigned long long)mv->k,
            (unsigned long long)mv->mask);
        char v[32];
        snprintf(v, sizeof(v), "S[%d]", mv->dst);
        write_through(m, mv->wt, v);
    }
    return clean;
}

/* cs_assign, cs_assign_wt: the value, then the write unless the flow changed. */
static bool assign(struct em *m, const struct cs *s, bool clean)
{
    bool p = pure(s->b);
    PUT(m, "{ uint64_t v = ");
    value(m, s->b);
    PUT(m, " & 0x%llxULL;\n%s{ S[%d] = v;\n", (unsigned long long)s->k,
        p && clean ? "" : "if (!FLOW) ", s->slot);
    write_through(m, s->wt, "v");
    PUT(m, "} }\n");
    return p && clean;
}

static bool branches(struct em *m, const struct cs *s, const char *out, bool clean)
{
    PUT(m, ") {\n");
    bool a = block(m, &s->body, out, clean);
    PUT(m, "} else {\n");
    bool b = block(m, &s->els, out, clean);
    PUT(m, "}\n");
    return a && b;
}

static bool if_stmt(struct em *m, const struct cs *s, const char *out, bool clean)
{
    if (s->fn == cs_if_slot) {
        PUT(m, "if (S[%d]", s->slot2);
        return branches(m, s, out, clean);
    }
    PUT(m, "if (");
    value(m, s->b);
    return branches(m, s, out, clean && pure(s->b));
}

/* A shadowed header at a byte position with its words inside the packet (cs_extract_shadow);
 * anything else through the record. */
static bool extract_shadow(struct em *m, const struct cs *s, const char *out, bool clean)
{
    const struct cshadow *sh = s->sh;
    int nw8 = s->fields.nwords * 8;
    if (m->bitpos >= 0 && m->bitpos % 8 == 0) /* a known byte position: constant offsets */
        PUT(m,
            "{ uint32_t fr = %d;\n"
            "if ((uint64_t)fr + %d > IN_LEN) { CS(%d); if (FLOW) goto %s; }\n",
            m->bitpos / 8, nw8, rec(m, s), out);
    else
        PUT(m, "{ uint32_t bp = BITPOS, fr = bp >> 3;\n"
               "if ((bp & 7) || (uint64_t)fr + %d > IN_LEN) { CS(%d); if (FLOW) goto %s; }\n",
            nw8, rec(m, s), out);
    PUT(m, "else { uint8_t *d = (uint8_t *)(S + %d);\nmemcpy(d, IN + fr, %d);\nS[%d] = 1;\n",
        s->slot2 + 1, nw8, s->slot2);
    for (int i = 0; i < sh->dec.n; i++) {
        const struct cfield *f = &sh->dec.f[i];
        PUT(m, "S[%d] = LD64(d + %d) >> %d & 0x%llxULL;\n", sh->hslot + f->off, f->bo, f->sh,
            (unsigned long long)f->mask);
    }
    PUT(m, "S[%d] = 1;\nBITPOS = fr * 8 + %u; } }\n", s->slot, (unsigned)s->k);
    return clean;
}

/* A shadowed header's bytes while its shadow holds and they fit in the output
 * (cs_emit_shadow), else the record. */
static bool emit_shadow(struct em *m, const struct cs *s, bool clean)
{
    PUT(m, "{ uint32_t ol = OUT_LEN;\nif (!S[%d] || !S[%d] || ol + %d > OUT_CAP) { CS(%d); }\n"
           "else { memcpy(OUT + ol, S + %d, %d);\nOUT_LEN = ol + %d; } }\n",
        s->slot2, s->slot, s->fields.bytes, rec(m, s), s->slot2 + 1, s->fields.bytes,
        s->fields.bytes);
    return clean; /* emit_fields never changes the flow */
}

/* A fixed-layout header built as big-endian words (cs_emit with a `words` layout) while its
 * words fit in the output, else the record. */
static bool emit_words(struct em *m, const struct cs *s, bool clean)
{
    const struct cfields *f = &s->fields;
    if (!f->words)
        return by_record(m, s);
    PUT(m, "if (S[%d]) { uint32_t ol = OUT_LEN;\nif (ol + %d > OUT_CAP) { CS(%d); }\nelse {\n",
        s->slot, f->nwords * 8, rec(m, s));
    for (int i = 0; i <= f->nwords; i++)
        PUT(m, "uint64_t w%d = 0;\n", i);
    for (int i = 0; i < f->n; i++) {
        const struct cfield *fd = &f->f[i];
        PUT(m, "{ uint64_t v = S[%d] & 0x%llxULL; ", s->slot + fd->off,
            (unsigned long long)fd->mask);
        if (!fd->spill)
            PUT(m, "w%d |= v << %d; }\n", fd->wi, fd->ls);
        else
            PUT(m, "w%d |= v >> %d; w%d |= v << %d; }\n", fd->wi, fd->ls, fd->wi + 1,
                64 - fd->ls);
    }
    for (int i = 0; i < f->nwords; i++)
        PUT(m, "ST64(OUT + ol + %d, w%d);\n", 8 * i, i);
    PUT(m, "OUT_LEN = ol + %d; } }\n", f->bytes);
    return clean; /* emit_fields never changes the flow */
}

/* update_checksum of a shadowed header while it holds (cs_update_cksum_shadow). A one's
 * complement sum of 16-bit words does not depend on their byte order (RFC 1071): the words are
 * summed as loaded (little-endian, as LD64 assumes), with end-around carries, and the folded
 * sum is swapped back once. */
static bool cksum_shadow(struct em *m, const struct cs *s, const char *out, bool clean)
{
    const struct cpack *p = &s->pack;
    PUT(m,
        "if (!S[%d] || !S[%d] || !S[%d]) { CS(%d); if (FLOW) goto %s; }\n"
        "else { const uint8_t *b = (const uint8_t *)(S + %d); uint64_t sum = 0;\n",
        s->a->slot, p->shadow, p->hslot0, rec(m, s), out, p->shadow + 1);
    for (int i = 0; i < p->snwords; i++) { /* the words as loaded, the masks swapped to match */
        if (p->smask[i])
            PUT(m, "ADDC(sum, LE64(b + %d) & 0x%llxULL);\n", 8 * i,
                (unsigned long long)__builtin_bswap64(p->smask[i]));
    }
    PUT(m, "uint64_t c = FOLD(sum) & 0x%llxULL;\nS[%d] = c;\n", (unsigned long long)s->mask2,
        s->slot2);
    write_through(m, s->wt, "c");
    PUT(m, "}\n");
    return clean;
}

/* Whether the code emitted since `from` can leave the flow set: it calls a record or a
 * helper (CS, CX, R[...]) or assigns or tests FLOW; code without any is inline code that
 * cannot. */
static bool may_set_flow(const struct em *m, size_t from)
{
    const char *t = m->o->text + from;
    return strstr(t, "CS(") || strstr(t, "CX(") || strstr(t, "R[") || strstr(t, "FLOW =");
}

/* An action call: its body inlined (a simple call), else p4cc_run_call; whether the flow is
 * known to be normal after it (normal before, and no statement of the body can set it). */
static bool call(struct em *m, const struct ccall *c, bool clean)
{
    if (!c->simple || m->depth >= INLINE_DEPTH) {
        PUT(m, "((call_fn *)R[%d])(V, R[%d]);\n", P4N_RUN_CALL, rec(m, c));
        return false;
    }
    size_t at = m->o->len;
    for (int i = 0; i < c->nin; i++) {
        clean &= pure(c->in[i]);
        PUT(m, "S[%d] = ", c->in_slot[i]);
        value(m, c->in[i]);
        PUT(m, ";\n");
    }
    char out[32];
    snprintf(out, sizeof(out), "x%d", m->nlab++);
    m->depth++;
    PUT(m, "{\n");
    block(m, &c->fn->body, out, clean);
    clean &= !may_set_flow(m, at);
    if (clean)
        PUT(m, "%s:; }\n", out);
    else
        PUT(m, "%s:; if (FLOW == %d) FLOW = 0; }\n", out, P4VM_RETURN);
    m->depth--;
    return clean;
}

/* The lookup of the key in KEYBUF into a<l> (the action, -1 none) and d (its data): in a
 * table without direct counters or meters, the table's lookup and the entry's or the default
 * action read directly (p4vm_table_match without its direct state), else p4cc_match. */
static void match(struct em *m, const struct p4ir_table *t, int l)
{
    if (t->direct_counter >= 0 || t->direct_meter >= 0) {
        PUT(m, "int a%d = ((match_fn *)R[%d])(V, R[%d], &h, &d);\n(void)h;\n", l, P4N_MATCH,
            rec(m, t));
        return;
    }
    PUT(m,
        "(void)h; const char *rt = *(char **)(*(char **)(V + %zu) + %zu) + %zu;\n"
        "const char *en = (*(lookup_fn *const *)(rt + %zu))(rt, K);\nint a%d;\n"
        "if (!en) { a%d = *(const int *)(rt + %zu); d = *(uint64_t *const *)(rt + %zu); }\n"
        "else { a%d = *(const int *)(en + %zu); d = (const uint64_t *)(en + "
        "*(const size_t *)(rt + %zu)); }\n",
        offsetof(struct p4vm, pipe), offsetof(struct p4_pipe, tables),
        (size_t)t->id * sizeof(struct p4table), offsetof(struct p4table, lookup), l, l,
        offsetof(struct p4table, default_action), offsetof(struct p4table, default_data), l,
        offsetof(struct p4table_entry, action), offsetof(struct p4table, data_off));
}

/* cs_apply, cs_switch on a table whose keys are slots: keys copied, the lookup, the action's
 * data and body per action index; a switch's cases after. Others through the record. */
static bool table(struct em *m, const struct cs *s, const char *out, bool clean)
{
    const struct ctab *t = s->tab;
    if (!t->kslot)
        return by_record(m, s);
    int l = m->nlab++;
    PUT(m, "{ const uint64_t *d; _Bool h; uint64_t *K = KEYBUF;\n");
    for (int i = 0; i < t->ir->nkeys; i++)
        PUT(m, "K[%d] = S[%d];\n", t->ir->keys[i].woff, t->kslot[i]);
    size_t at = m->o->len;
    match(m, t->ir, l);
    PUT(m, "switch (a%d) {\n", l);
    for (int i = 0; i < t->ir->nactions; i++) {
        const struct ccall *c = &t->acts[i];
        PUT(m, "case %d: {\n", i);
        if (c->ndata < 0)
            PUT(m, "((data_fn *)R[%d])(V, R[%d], d);\n", P4N_ACTION_DATA, rec(m, c->ir->fn));
        for (int j = 0; j < c->ndata; j++)
            PUT(m, "S[%d] = d[%d];\n", c->data_slot[j], j);
        call(m, c, clean);
        PUT(m, "break; }\n");
    }
    PUT(m, "default: break; }\n");
    clean &= !may_set_flow(m, at);
    if (!clean)
        PUT(m, "if (FLOW) goto %s;\n", out);
    if (s->fn == cs_switch) {
        const struct p4ir_stmt *st = s->st;
        PUT(m, "switch (a%d) {\n", l);
        for (int i = 0; i < st->ncases; i++) {
            if (!st->has_case[i])
                continue;
            PUT(m, "case %d: {\n", i);
            if (!block(m, &s->cases[i], out, true))
                PUT(m, "if (FLOW) goto %s;\n", out);
            PUT(m, "break; }\n");
        }
        PUT(m, "default: {\n");
        block(m, &s->els, out, true);
        PUT(m, "} }\n");
    }
    PUT(m, "}\n");
    return clean && !may_set_flow(m, at);
}

/* register.read(dst, index) and register.write(index, value) on elements of at most 64 bits
 * with pure operands (cs_reg_read, cs_reg_read_wt, cs_reg_write), else the record. */
static bool reg(struct em *m, const struct cs *s, bool clean)
{
    int x = s->st->aux2;
    if (!pure(s->a) || (s->fn == cs_reg_write && !pure(s->b)))
        return by_record(m, s);
    PUT(m, "{ uint64_t *rv = *(uint64_t **)(*(char **)(*(char **)(V + %zu) + %zu) + %zu);\n"
           "uint64_t idx = ", offsetof(struct p4vm, pipe), offsetof(struct p4_pipe, ext),
        (size_t)x * sizeof(struct p4_ext_state) + offsetof(struct p4_ext_state, vals));
    expr(m, s->a);
    PUT(m, ";\n");
    long long size = m->cc->prog->externs[x].size;
    if (s->fn == cs_reg_write) {
        PUT(m, "uint64_t v = ");
        expr(m, s->b);
        PUT(m, " & 0x%llxULL;\nif (idx < %lldULL) rv[idx] = v; }\n", (unsigned long long)s->k,
            size);
        return clean;
    }
    PUT(m, "S[%d] = idx < %lldULL ? rv[idx] : 0;\n", s->slot, size);
    char v[32];
    snprintf(v, sizeof(v), "S[%d]", s->slot);
    write_through(m, s->wt, v);
    PUT(m, "}\n");
    return clean;
}

/* A loop (cs_loop): the condition, the flow, the iteration limit, the body (break and continue
 * end it as p4vm_loop_continues does), the update; anything else that sets the flow ends
 * the loop and reaches the enclosing block's check. */
static bool loop(struct em *m, const struct cs *s)
{
    int l = m->nlab++;
    char body[32];
    char upd[32];
    snprintf(body, sizeof(body), "lb%d", l);
    snprintf(upd, sizeof(upd), "lu%d", l);
    PUT(m, "for (uint32_t n%d = 0;; n%d++) {\n", l, l);
    if (s->b) {
        PUT(m, "if (!(");
        value(m, s->b);
        PUT(m, ")) break;\n");
    }
    PUT(m, "if (FLOW) break;\nif (n%d == %uu) { ((loopf_fn *)R[%d])(V, R[%d]); break; }\n{\n", l,
        P4VM_LOOP_MAX, P4N_LOOP_FAULT, rec(m, s));
    block(m, &s->body, body, true);
    PUT(m, "}\n%s:\nif (FLOW == %d) { FLOW = 0; break; }\nif (FLOW == %d) FLOW = 0;\n"
           "if (FLOW) break;\n{\n", body, P4VM_BREAK, P4VM_CONTINUE);
    block(m, &s->els, upd, true);
    PUT(m, "}\n%s:\nif (FLOW) break;\n}\n", upd);
    return false;
}

/* Whether a parser statement keeps the bit position or moves it by a known amount (added to
 * *bits): a shadowed header's extract (its record, the fallback, moves it as much when it
 * succeeds; when it fails the parser ends) and inline assignments. Others (extracts through
 * records, advance, sub-parsers, branches) can move it by amounts known only at run time. */
static bool fixed_step(const struct cs *s, int *bits)
{
    if (s->fn == cs_extract_shadow)
        *bits += (int)s->k;
    return s->fn == cs_extract_shadow || s->fn == cs_moves || s->fn == cs_assign_load ||
           s->fn == cs_assign_const || s->fn == cs_setvalid;
}

/* One statement; whether the flow is known to be normal after it. */
static bool stmt(struct em *m, const struct cs *s, const char *out, bool clean)
{
    const struct p4ir_std *std = &m->cc->prog->std;
    int moved = 0;
    if (!fixed_step(s, &moved))
        m->bitpos = -1; /* before: the statement's own extracts do not know it either */
    if (s->fn == cs_extract_shadow) {
        bool c = extract_shadow(m, s, out, clean);
        m->bitpos = m->bitpos >= 0 ? m->bitpos + moved : -1;
        return c;
    }
    if (s->fn == cs_moves)
        return moves(m, s, clean);
    if (s->fn == cs_assign_load) {
        PUT(m, "S[%d] = S[%d] & 0x%llxULL;\n", s->slot, s->slot2, (unsigned long long)s->k);
        return clean;
    }
    if (s->fn == cs_assign_const || s->fn == cs_setvalid) {
        PUT(m, "S[%d] = 0x%llxULL;\n", s->slot,
            (unsigned long long)(s->fn == cs_setvalid ? s->k : s->mask2));
        return clean;
    }
    if (s->fn == cs_assign || s->fn == cs_assign_wt)
        return assign(m, s, clean);
    if (s->fn == cs_if || s->fn == cs_if_slot)
        return if_stmt(m, s, out, clean);
    if (s->fn == cs_block) {
        PUT(m, "{\n");
        bool c = block(m, &s->body, out, clean);
        PUT(m, "}\n");
        return c;
    }
    if (s->fn == cs_exit || s->fn == cs_return || s->fn == cs_break || s->fn == cs_continue) {
        int f = s->fn == cs_exit     ? P4VM_EXIT
                : s->fn == cs_return ? P4VM_RETURN
                : s->fn == cs_break  ? P4VM_BREAK
                                     : P4VM_CONTINUE;
        PUT(m, "FLOW = %d; goto %s;\n", f, out);
        return true; /* not reached */
    }
    if (s->fn == cs_loop)
        return loop(m, s);
    if (s->fn == cs_drop) {
        PUT(m, "S[%d] = 511;\n", std->egress_spec);
        if (std->mcast_grp >= 0)
            PUT(m, "S[%d] = 0;\n", std->mcast_grp);
        return clean;
    }
    if (s->fn == cs_emit_shadow)
        return emit_shadow(m, s, clean);
    if (s->fn == cs_emit)
        return emit_words(m, s, clean);
    if (s->fn == cs_call)
        return call(m, s->call, clean);
    if (s->fn == cs_update_cksum_shadow)
        return cksum_shadow(m, s, out, clean);
    if (s->fn == cs_apply || s->fn == cs_switch)
        return table(m, s, out, clean);
    if (s->fn == cs_reg_read || s->fn == cs_reg_read_wt || s->fn == cs_reg_write)
        return reg(m, s, clean);
    return by_record(m, s);
}

/* A block's statements; out is the label that ends the function. */
static bool block(struct em *m, const struct cb *b, const char *out, bool clean)
{
    for (int i = 0; i < b->n; i++) {
        clean = stmt(m, &b->s[i], out, clean);
        if (!clean) {
            PUT(m, "if (FLOW) goto %s;\n", out);
            clean = true;
        }
    }
    return clean;
}

/* ---- the parser and the program ---- */

/* Where state `next` leads: its label, or the end of the parser (accept, reject). */
static void go_state(struct em *m, int next)
{
    if (next >= 0)
        PUT(m, "goto st%d;\n", next);
    else
        PUT(m, "goto done;\n");
}

/* A state's transition (p4vm_parse): none, a select on one key with value cases (p4cci.h,
 * cstate) as a C switch, or p4cc_select. */
static void transition(struct em *m, int st)
{
    const struct p4ir_state *s = &m->cc->prog->states[st];
    const struct cstate *c = &m->cc->states[st];
    if (!s->nkeys) {
        go_state(m, s->next);
        return;
    }
    if (c->nvals >= 0) {
        PUT(m, "switch (");
        expr(m, c->keys[0]);
        PUT(m, ") {\n");
        for (int i = 0; i < c->nvals; i++) {
            bool dup = false; /* the first of equal cases wins */
            for (int j = 0; j < i; j++)
                dup |= c->vals[j] == c->vals[i];
            if (dup)
                continue;
            PUT(m, "case 0x%llxULL: ", (unsigned long long)c->vals[i]);
            go_state(m, c->next[i]);
        }
        PUT(m, "default: ");
        if (c->dflt == -3)
            PUT(m, "PERR = %d; goto done;\n", ERR_NO_MATCH);
        else
            go_state(m, c->dflt);
        PUT(m, "}\n");
        return;
    }
    PUT(m,
        "{ int nx = ((sel_fn *)R[%d])(V, R[%d], %d);\nif (FLOW) goto done;\n"
        "if (nx == -3) { PERR = %d; goto done; }\nswitch (nx) {\n",
        P4N_SELECT, P4N_CC, st, ERR_NO_MATCH);
    for (int i = 0; i < s->ncases; i++) {
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= s->cases[j].next == s->cases[i].next;
        if (s->cases[i].next >= 0 && !dup)
            PUT(m, "case %d: goto st%d;\n", s->cases[i].next, s->cases[i].next);
    }
    PUT(m, "default: goto done; } }\n");
}

/* Whether a path from state st can come back to a state on it (color: 0 new, 1 on the path,
 * 2 done). Recursion is as deep as the longest path of states. */
static bool cycle_from(const struct p4_prog *prog, int st, uint8_t *color)
{
    if (st < 0 || color[st] == 2)
        return false;
    if (color[st] == 1)
        return true;
    color[st] = 1;
    const struct p4ir_state *s = &prog->states[st];
    bool cyc = !s->nkeys && cycle_from(prog, s->next, color);
    for (int i = 0; !cyc && s->nkeys && i < s->ncases; i++)
        cyc = cycle_from(prog, s->cases[i].next, color);
    color[st] = 2;
    return cyc;
}

/* A parser whose states form no cycle visits each at most once: it cannot reach the limit of
 * state transitions, and its code needs no count. */
static bool parser_bounded(const struct p4_prog *prog)
{
    if (prog->nstates > 4096) /* (the recursion's depth; the limit is 100000 transitions) */
        return false;
    uint8_t *color = p4util_calloc((size_t)prog->nstates + 1, 1);
    bool cyc = cycle_from(prog, prog->start_state, color);
    free(color);
    return !cyc;
}

/* The bit position after a block of parser statements that starts at `at` (-1 unknown). */
static int block_moves(const struct cb *b, int at)
{
    for (int i = 0; i < b->n && at >= 0; i++) {
        if (!fixed_step(&b->s[i], &at))
            at = -1;
    }
    return at;
}

/* Merges position v into state st's entry position (pos: -2 not reached, -1 unknown). */
static bool merge_pos(int *pos, int st, int v)
{
    if (st < 0 || pos[st] == v || pos[st] == -1)
        return false;
    pos[st] = pos[st] == -2 ? v : -1;
    return true;
}

/* The bit position at each state's entry, where every path to it has the same known one
 * (the parser starts at bit 0): a fixed point over the transitions, each entry position
 * changing at most twice (not reached, a position, unknown). The caller frees it. */
static int *entry_positions(const struct p4cc *cc)
{
    const struct p4_prog *prog = cc->prog;
    int *pos = p4util_malloc(((size_t)prog->nstates + 1) * sizeof(int));
    for (int st = 0; st < prog->nstates; st++)
        pos[st] = -2;
    bool changed = merge_pos(pos, prog->start_state, block_moves(&cc->parser_init, 0));
    while (changed) {
        changed = false;
        for (int st = 0; st < prog->nstates; st++) {
            if (pos[st] == -2)
                continue;
            const struct p4ir_state *s = &prog->states[st];
            int out = block_moves(&cc->states[st].body, pos[st]);
            if (!s->nkeys)
                changed |= merge_pos(pos, s->next, out);
            for (int i = 0; s->nkeys && i < s->ncases; i++)
                changed |= merge_pos(pos, s->cases[i].next, out);
            if (s->nkeys && cc->states[st].nvals >= 0)
                changed |= merge_pos(pos, cc->states[st].dflt, out);
        }
    }
    return pos;
}

static void parser(struct em *m)
{
    const struct p4_prog *prog = m->cc->prog;
    bool bounded = parser_bounded(prog);
    int *pos = entry_positions(m->cc);
    PUT(m,
        "static inline void parser_(void *vm, const void *const *R)\n"
        "{\nchar *V = vm; uint64_t *S = SLOTS;\n"
        "int steps = 0;\nFLOW = 0; PERR = 0; IN_PARSER = 1;\n");
    if (!block(m, &m->cc->parser_init, "done", true))
        PUT(m, "if (FLOW) goto done;\n");
    PUT(m, "if (FLOW) goto done;\n");
    go_state(m, prog->start_state);
    for (int st = 0; st < prog->nstates; st++) {
        PUT(m, "st%d:\n", st);
        m->bitpos = pos[st] >= 0 ? pos[st] : -1;
        if (!bounded)
            PUT(m, "if (++steps > 100000) { PERR = %d; goto done; }\n", ERR_PARSER_TIMEOUT);
        block(m, &m->cc->states[st].body, "done", true);
        transition(m, st);
    }
    m->bitpos = -1;
    free(pos);
    PUT(m, "done:\nFLOW = 0; IN_PARSER = 0; S[0] = BITPOS / 8;\n");
    if (prog->std.parser_error >= 0)
        PUT(m, "S[%d] = (uint64_t)PERR;\n", prog->std.parser_error);
    PUT(m, "(void)steps; (void)R;\n}\n\n"
           "void p4n_parser(void *vm, const void *const *R) { parser_(vm, R); }\n\n");
}

/* Accessors of struct p4vm fields by offset, the helpers' types, byte order, checksums. */
static void prelude(struct em *m)
{
    PUT(m,
        "/* generated by ddlsim from a P4 program's compiled records */\n"
        "#include <stdint.h>\n#include <string.h>\n"
        "typedef uint64_t cx_fn(void *, const void *);\n"
        "typedef void cs_fn(void *, const void *);\n"
        "typedef int sel_fn(void *, const void *, int);\n"
        "typedef int match_fn(void *, const void *, _Bool *, const uint64_t **);\n"
        "typedef void data_fn(void *, const void *, const uint64_t *);\n"
        "typedef void call_fn(void *, const void *);\n"
        "typedef const char *lookup_fn(const void *, const uint64_t *);\n"
        "typedef void loopf_fn(void *, const void *);\n"
        "#define SLOTS (*(uint64_t **)(V + %zu))\n#define IN (*(const uint8_t **)(V + %zu))\n"
        "#define IN_LEN (*(uint32_t *)(V + %zu))\n#define BITPOS (*(uint32_t *)(V + %zu))\n"
        "#define PERR (*(int *)(V + %zu))\n#define OUT (*(uint8_t **)(V + %zu))\n"
        "#define OUT_CAP (*(uint32_t *)(V + %zu))\n#define OUT_LEN (*(uint32_t *)(V + %zu))\n"
        "#define OUT_OVF (*(_Bool *)(V + %zu))\n#define FLOW (*(int *)(V + %zu))\n"
        "#define IN_PARSER (*(_Bool *)(V + %zu))\n#define PLEN (*(uint32_t *)(V + %zu))\n"
        "#define KEYBUF (*(uint64_t **)(*(char **)(V + %zu) + %zu))\n",
        offsetof(struct p4vm, slots), offsetof(struct p4vm, in), offsetof(struct p4vm, in_len),
        offsetof(struct p4vm, in_bitpos), offsetof(struct p4vm, parser_error),
        offsetof(struct p4vm, out), offsetof(struct p4vm, out_cap),
        offsetof(struct p4vm, out_len), offsetof(struct p4vm, out_overflow),
        offsetof(struct p4vm, flow), offsetof(struct p4vm, in_parser),
        offsetof(struct p4vm, packet_length), offsetof(struct p4vm, pipe),
        offsetof(struct p4_pipe, keybuf));
    PUT(m, "#define CS(i) ((*(cs_fn *const *)R[i])(V, R[i]))\n"
           "#define CX(i) ((*(cx_fn *const *)R[i])(V, R[i]))\n"
           "static inline uint64_t LD64(const uint8_t *p)\n"
           "{ uint64_t x; memcpy(&x, p, 8); return __builtin_bswap64(x); }\n"
           "static inline void ST64(uint8_t *p, uint64_t v)\n"
           "{ v = __builtin_bswap64(v); memcpy(p, &v, 8); }\n"
           "#define WT(at, bo, sh, mask, v) do { uint8_t *b_ = (uint8_t *)(S + (at) + 1) + (bo);"
           " ST64(b_, (LD64(b_) & ~((mask) << (sh))) | (uint64_t)(v) << (sh)); } while (0)\n"
           "#define WB(at, o, n, v) do { uint8_t *b_ = (uint8_t *)(S + (at) + 1) + (o); \\\n"
           "uint64_t v_ = (v); if ((n) == 1) *b_ = (uint8_t)v_; \\\n"
           "else if ((n) == 2) { uint16_t x_ = __builtin_bswap16((uint16_t)v_);"
           " memcpy(b_, &x_, 2); } \\\n"
           "else if ((n) == 4) { uint32_t x_ = __builtin_bswap32((uint32_t)v_);"
           " memcpy(b_, &x_, 4); } \\\n"
           "else { uint64_t x_ = __builtin_bswap64(v_ << (64 - 8 * (n))); memcpy(b_, &x_, (n)); } }"
           " while (0)\n"
           "static inline uint64_t LE64(const uint8_t *p)\n"
           "{ uint64_t x; memcpy(&x, p, 8); return x; }\n"
           "#define ADDC(s, x) do { uint64_t x_ = (x); (s) += x_; (s) += (s) < x_; } while (0)\n"
           "static inline uint64_t FOLD(uint64_t s)\n"
           "{ s = (s & 0xffffffffu) + (s >> 32); s = (s & 0xffffffffu) + (s >> 32);\n"
           "s = (s & 0xffff) + (s >> 16); s = (s & 0xffff) + (s >> 16);\n"
           "return __builtin_bswap16((uint16_t)~s); }\n\n");
}

/* R, the table of the pipeline's native code (p4cc_native.rec), read from the pipeline: the
 * lean functions take at most six arguments, all in registers. */
static void pipe_rec(struct em *m)
{
    PUT(m, "const void *const *R = *(const void *const **)(*(char **)(V + %zu) + %zu);\n",
        offsetof(struct p4vm, pipe), offsetof(struct p4_pipe, native) +
        offsetof(struct p4cc_native, rec));
}

/* `S[slot]`, or 0 where the program has no such field (slot < 0). */
static void slot_or_zero(struct em *m, int slot)
{
    if (slot >= 0)
        PUT(m, "S[%d]", slot);
    else
        PUT(m, "0");
}

/* The results of ingress into p4_ingress_out *O as p4_pipe_ingress reports them when no
 * request was made. */
static void lean_results(struct em *m)
{
    const struct p4_prog *prog = m->cc->prog;
    PUT(m, "{ uint64_t spec = ");
    slot_or_zero(m, prog->std.egress_spec);
    PUT(m, ", grp = ");
    slot_or_zero(m, prog->std.mcast_grp);
    PUT(m, ", prio = ");
    slot_or_zero(m, prog->std.priority);
    PUT(m, ";\nint uni = !grp && spec != %d;\n"
           "*(int *)(O + %zu) = grp ? %d : uni ? %d : %d;\n"
           "*(uint32_t *)(O + %zu) = uni ? (uint32_t)spec : 0;\n"
           "*(uint32_t *)(O + %zu) = (uint32_t)grp;\n*(uint32_t *)(O + %zu) = (uint32_t)prio & 7;\n"
           "*(int *)(O + %zu) = -1; *(int *)(O + %zu) = -1; *(int *)(O + %zu) = -1;\n"
           "*(uint32_t *)(O + %zu) = (uint32_t)S[0]; }\n",
        P4_DROP_PORT, offsetof(struct p4_ingress_out, fwd), P4_FWD_MULTICAST, P4_FWD_UNICAST,
        P4_FWD_DROP, offsetof(struct p4_ingress_out, egress_port),
        offsetof(struct p4_ingress_out, mcast_grp), offsetof(struct p4_ingress_out, priority),
        offsetof(struct p4_ingress_out, clone_session), offsetof(struct p4_ingress_out, clone_fl),
        offsetof(struct p4_ingress_out, resubmit_fl),
        offsetof(struct p4_ingress_out, payload_off));
}

/* The zeroing of every slot with constant stores (16 bytes each), the ingress
 * standard fields and input, the parser, verify and ingress, and the results as one function:
 * p4n_lean_in(vm, state, bytes, len << 32 | packet_length, port, out), the lean calls' `in`
 * (p4.h). */
static void lean_ingress(struct em *m)
{
    const struct p4_prog *prog = m->cc->prog;
    PUT(m, "void p4n_lean_in(void *vm, uint64_t *S, const uint8_t *in, uint64_t lens, "
           "uint32_t port, void *out)\n{\nchar *V = vm, *O = out;\n");
    pipe_rec(m);
    PUT(m, "uint32_t len = (uint32_t)(lens >> 32), plen = (uint32_t)lens;\nSLOTS = S;\n");
    if (prog->nslots <= P4N_LEAN_STORES) { /* two slots a store */
        PUT(m, "typedef uint64_t z2_t __attribute__((vector_size(16), aligned(8)));\n");
        for (int i = 0; i + 1 < prog->nslots; i += 2)
            PUT(m, "*(z2_t *)(S + %d) = (z2_t){0, 0};\n", i);
        if (prog->nslots % 2)
            PUT(m, "S[%d] = 0;\n", prog->nslots - 1);
    } else {
        PUT(m, "memset(S, 0, %zu);\n", (size_t)prog->nslots * 8);
    }
    if (prog->use.std.ingress_port >= 0)
        PUT(m, "S[%d] = port & 0x1ff;\n", prog->use.std.ingress_port);
    if (prog->std.packet_length >= 0)
        PUT(m, "S[%d] = plen;\n", prog->std.packet_length);
    PUT(m, "IN = in; IN_LEN = len; BITPOS = 0; PLEN = plen;\nparser_(vm, R);\n");
    const struct p4ir_callable *const blocks[2] = {prog->verify, prog->ingress};
    const enum p4cc_block ids[2] = {P4CC_VERIFY, P4CC_INGRESS};
    for (int i = 0; i < 2; i++) {
        if (blocks[i] && blocks[i]->body.n)
            PUT(m, "ctl%d_(vm, R);\n", ids[i]);
    }
    lean_results(m);
    PUT(m, "(void)port;\n}\n\n");
}

/* computeChecksum and the deparser in place over the input's header bytes as one function,
 * p4n_lean_out(vm, state, bytes, len << 32 | cap, buf, out): the payload moves after the headers
 * when their length changed; where they do not fit where the parser read them (nothing of the
 * payload written over) p4pipe_lean_buf deparses into buf. */
static void lean_output(struct em *m)
{
    const struct p4_prog *prog = m->cc->prog;
    PUT(m, "typedef void lean_buf_fn(void *, uint8_t *, uint32_t, uint8_t *, uint32_t, void *);\n"
           "void p4n_lean_out(void *vm, uint64_t *S, uint8_t *b, uint64_t lens, uint8_t *buf, "
           "void *out)\n{\nchar *V = vm, *O = out;\n");
    pipe_rec(m);
    PUT(m, "uint32_t len = (uint32_t)(lens >> 32), cap = (uint32_t)lens;\n"
           "SLOTS = S; IN = b; IN_LEN = len;\n");
    if (prog->std.packet_length >= 0)
        PUT(m, "PLEN = (uint32_t)S[%d];\n", prog->std.packet_length);
    else
        PUT(m, "PLEN = 0;\n");
    if (prog->compute && prog->compute->body.n)
        PUT(m, "ctl%d_(vm, R);\n", P4CC_COMPUTE);
    PUT(m, "uint32_t off = (uint32_t)S[0];\nif (off > len || len > cap) goto buf;\n"
           "OUT = b; OUT_CAP = off; OUT_LEN = 0; OUT_OVF = 0;\n");
    if (prog->deparser && prog->deparser->body.n)
        PUT(m, "ctl%d_(vm, R);\n", P4CC_DEPARSER);
    PUT(m, "if (OUT_OVF) goto buf;\n{ uint32_t ol = OUT_LEN;\n"
           "if (ol != off) memmove(b + ol, b + off, len - off);\n"
           "OUT_LEN = ol + len - off; OUT_CAP = cap; OUT = 0;\n"
           "*(_Bool *)(O + %zu) = 0; *(uint32_t *)(O + %zu) = ol + len - off;\n"
           "*(int *)(O + %zu) = -1; *(int *)(O + %zu) = -1; *(_Bool *)(O + %zu) = 0;\n"
           "*(int *)(O + %zu) = -1; *(_Bool *)(O + %zu) = 0; *(_Bool *)(O + %zu) = 1;\n"
           "return; }\nbuf:\n((lean_buf_fn *)R[%d])(vm, b, len, buf, cap, out);\n}\n\n",
        offsetof(struct p4_egress_out, drop), offsetof(struct p4_egress_out, out_len),
        offsetof(struct p4_egress_out, clone_session), offsetof(struct p4_egress_out, clone_fl),
        offsetof(struct p4_egress_out, recirculate), offsetof(struct p4_egress_out, recirc_fl),
        offsetof(struct p4_egress_out, overflow), offsetof(struct p4_egress_out, in_place),
        P4N_LEAN_BUF);
}

void p4nemit_program(const struct p4cc *cc, struct p4nsrc *out)
{
    memset(out, 0, sizeof(*out));
    struct em m = {out, cc, 0, 0, -1};
    const void *fixed[P4N_FIXED] = {(const void *)p4cc_select,    (const void *)p4cc_match,
                                    (const void *)p4vm_action_data, (const void *)p4cc_run_call,
                                    cc,                             (const void *)p4cc_loop_fault,
                                    (const void *)p4pipe_lean_buf};
    for (int i = 0; i < P4N_FIXED; i++)
        rec(&m, fixed[i]);
    prelude(&m);
    parser(&m);
    for (int i = 0; i < 5; i++) {
        PUT(&m, "static inline void ctl%d_(void *vm, const void *const *R)\n{\nchar *V = vm; "
                "uint64_t *S = SLOTS;\nFLOW = 0;\n", i);
        if (cc->ctl[i])
            block(&m, &cc->ctl[i]->body, "out", true);
        PUT(&m, "goto out;\nout:\nFLOW = 0;\n(void)S; (void)R;\n}\n\n"
                "void p4n_ctl%d(void *vm, const void *const *R) { ctl%d_(vm, R); }\n\n", i, i);
    }
    lean_ingress(&m);
    lean_output(&m);
}
