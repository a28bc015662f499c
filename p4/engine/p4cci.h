/* Internal to the compiled engine (p4cc.c builds these records, p4ccrun.c runs them): see
 * p4cc.h. Records are allocated once at compile time and never change afterwards. */
#ifndef SIM_P4_P4CCI_H
#define SIM_P4_P4CCI_H

#include "p4/engine/p4cc.h"
#include "p4/engine/p4ops.h"

struct cx;
struct cs;
struct ccall;
struct ctab;
typedef uint64_t cx_fn(struct p4vm *vm, const struct cx *x);
typedef void cs_fn(struct p4vm *vm, const struct cs *s);

/* An expression of at most 64 bits. */
struct cx {
    cx_fn *fn;
    const struct cx *a;
    const struct cx *b;
    const struct cx *c;
    int32_t slot;
    uint64_t k; /* constant */
    struct p4ops_args p;
    enum p4op op;
    const struct p4ir_expr *e; /* the node (interpreted fallbacks, fault locations) */
    const struct ccall *call;  /* CALL */
    const struct ctab *tab;    /* HIT, MISS */
};

/* A block: statements run in order until one changes the flow. */
struct cb {
    const struct cs *s;
    int n;
};

/* A compiled action, function or control body. */
struct cfn {
    const struct p4ir_callable *ir;
    struct cb body;
};

/* A call site: simple when every argument is a value of at most 64 bits copied in (or action
 * data); otherwise the interpreter's call runs it (copy-in/copy-out of references). */
struct ccall {
    const struct p4ir_call *ir;
    const struct cfn *fn;
    const struct cx **in;   /* simple: the arguments that are no action data, in order */
    const int32_t *in_slot; /* their parameters' slots */
    int nin;
    const int32_t *data_slot; /* the action data parameters' slots (each one slot) */
    int ndata;                /* -1: some action data parameter takes several slots */
    bool simple;
};

/* A table apply: compiled keys (NULL: a wide key the interpreter evaluates) and actions;
 * when every key is a slot read, the slots (kslot, else NULL). */
struct ctab {
    const struct p4ir_table *ir;
    const struct cx **keys;
    struct ccall *acts;
    const int32_t *kslot; /* every key a slot of at most 64 bits: key word k->woff gets it */
};

/* A field of at most 64 bits (1..64) at a fixed bit position of a flat layout: its slot
 * (from the header, or absolute in a data list), width and mask, where it lies in the 8 bytes
 * from its first byte (bo, sh: right shift) and in the layout's big-endian 64-bit words: word
 * wi gets v << ls, or when the field spills into word wi + 1, v >> ls and v << (64 - ls). */
struct cfield {
    int32_t off;
    uint8_t w;
    uint8_t bo;
    uint8_t sh;
    uint8_t wi;
    uint8_t ls;
    bool spill;
    uint64_t mask;
};

/* A flat list of fields in wire order. `window`: every field lies in the 8 bytes from its
 * first byte, so a byte-aligned header is read with one 64-bit load per field; `words`: the
 * layout fits in CFIELDS_MAX_BYTES and no field is empty, so it is written as nwords
 * big-endian words built with two ORs per field. */
#define CFIELDS_MAX_BYTES 64
#define CFIELDS_MAX_WORDS (CFIELDS_MAX_BYTES / 8)
struct cfields {
    const struct cfield *f;
    int n;
    int bytes; /* the header's bytes (width rounded up) */
    int nwords;
    bool window;
    bool words;
};

/* A data list packed from slots: per element its slot, width and the validity slot of its
 * header (-1: none). `fixed`: every element has validity slot hslot0, so the list is all
 * present or all absent and `lay` gives its fixed layout (when lay.words). When the list is
 * a shadowed header's fields in order, leaving out only whole 16-bit words (a checksum
 * field), its csum16 is that of the shadow's words with smask applied (shadow >= 0). */
struct cpack {
    const int32_t *slot;
    const int32_t *hslot;
    const uint8_t *w;
    int n;
    bool fixed;
    int32_t hslot0;
    struct cfields lay;
    int32_t shadow;
    const uint64_t *smask;
    int snwords;
};

/* A shadowed header: one the parser extracts at a fixed slot (hslot) from a byte-aligned
 * position with a `words` layout. Its wire bytes are kept in the state as well, from slot
 * at + 1; slot `at` is 1 while they match the fields (set by the extract, kept by every compiled
 * write to a field, which writes through) and 0 once anything else may read or write fields.
 * While it is 1, an emit or a checksum of the header copies or sums those bytes, and only the
 * fields compiled nodes read (dec) are in their slots: the others (lazy) are decoded when it
 * drops to 0 (or for p4cc_sync). */
struct cshadow {
    int32_t hslot;
    int32_t at;
    struct cfields lay;
    struct cfields dec;
    struct cfields lazy;
};

/* A write-through of one field (within 8 bytes from byte bo of the shadow at slot at + 1). */
struct cpatch {
    int32_t at;
    uint8_t bo;
    uint8_t sh;
    uint64_t mask;
};

/* One of a run of simple assignments fused into one record (cs_moves): slot dst gets
 * ((slot src & smask) + k) & mask, written through to a shadow when wt is set. A copy has
 * smask all ones and k 0, a constant smask 0, h.f - c adds -c (widths are at most 64 bits, so
 * the sum modulo 2^64 masked is the narrow result). */
struct cmove {
    int32_t dst;
    int32_t src;
    uint64_t smask;
    uint64_t k;
    uint64_t mask;
    const struct cpatch *wt;
};

struct cs {
    cs_fn *fn;
    const struct p4ir_stmt *st;
    const struct cx *a;
    const struct cx *b;
    int32_t slot;
    int32_t slot2; /* checksum and hash results: the destination slot, -1: by reference;
                    * extract, emit: the header's shadow (-1: none) */
    uint64_t k;
    uint64_t mask2;
    struct cb body;
    struct cb els;
    const struct cb *cases;
    const struct ctab *tab;
    const struct ccall *call;
    struct cfields fields;
    struct cpack pack;
    const struct cpatch *wt;  /* a write to a shadowed header's field */
    const struct cshadow *sh; /* extract: the header's shadow */
    const struct cmove *mv;   /* moves: nmv assignments */
    int nmv;
};

/* A parser state: with nvals >= 0 its select has one key (of at most 64 bits, compiled to a
 * node that cannot change the flow) and cases that are values or default: the case for value
 * vals[i] goes to next[i], no match to dflt (-3: no case). */
struct cstate {
    struct cb body;
    const struct cx **keys;
    const uint64_t *vals;
    const int *next;
    int nvals;
    int dflt;
};

struct p4cc {
    const struct p4_prog *prog;
    const struct cfn *ctl[5]; /* verify, ingress, egress, compute, deparser */
    struct cb parser_init;
    struct cstate *states;
    struct cshadow *shadows;
    int nshadows;
    int nslots;       /* the slots the shadows take (from prog->nslots at compile time) */
    bool *read;       /* per slot below prog->nslots: read by a compiled node (shadowed fields) */
    bool read_all;    /* a compiled node reads slots it cannot name (a computed index) */
    struct cfn **fns; /* compiled callables (looked up by their IR) */
    int nfns;
    int capfns;
    void **allocs;
    int nallocs;
    int capallocs;
    /* The native back end (p4native.h): a twin of this form whose parser and controls run
     * generated machine code (rec: the records and helpers it calls, p4nemit.c). */
    void (*nparser)(struct p4vm *vm, const void *const *rec);
    void (*nctl[5])(struct p4vm *vm, const void *const *rec);
    p4cc_lean_in_fn *nlean_in;
    p4cc_lean_out_fn *nlean_out;
    const void *const *nrec;
    struct p4native *nat; /* the loaded code (on the twin) */
    struct p4cc *twin;    /* the twin, once tried (NULL: no native code) */
    bool twin_tried;
};

/* ---- runners (p4ccrun.c) ---- */
cx_fn cx_const, cx_load, cx_interp, cx_land, cx_lor, cx_cond, cx_add, cx_sub, cx_and, cx_or, cx_xor,
    cx_eq, cx_ne, cx_ult, cx_ule, cx_ugt, cx_uge, cx_binop, cx_unop, cx_call, cx_hit, cx_add_sk,
    cx_sub_sk, cx_eq_sk, cx_ne_sk, cx_loadx;
cs_fn cs_interp, cs_assign, cs_assign_load, cs_assign_const, cs_assign_wt, cs_reg_read_wt,
    cs_emit_shadow, cs_if_slot, cs_block, cs_if, cs_setvalid, cs_apply, cs_switch, cs_switchv,
    cs_call, cs_exit, cs_return, cs_extract, cs_emit, cs_update_cksum, cs_verify_cksum, cs_hash,
    cs_drop, cs_reg_read, cs_reg_write, cs_loop, cs_break, cs_continue, cs_assign_x,
    cs_extract_next, cs_emit_stack, cs_moves, cs_extract_shadow, cs_update_cksum_shadow;

/* The same as p4vm's, on compiled records. */
void p4cc_run_call(struct p4vm *vm, const struct ccall *c);
int p4cc_apply(struct p4vm *vm, const struct ctab *t, bool *hit);
/* The select of parser state st (its keys evaluated): the next state, -3 no case matches. */
int p4cc_select(struct p4vm *vm, const struct p4cc *cc, int st);
/* The fault of loop s stopped after P4VM_LOOP_MAX iterations. */
void p4cc_loop_fault(struct p4vm *vm, const struct cs *s);
/* p4vm_table_match, not inline (native code calls it through a pointer). */
int p4cc_match(struct p4vm *vm, const struct p4ir_table *t, bool *hit, const uint64_t **data);

static inline void p4cc_block(struct p4vm *vm, const struct cb *b)
{
    for (const struct cs *s = b->s, *end = b->s + b->n; s < end; s++) {
        s->fn(vm, s);
        if (vm->flow)
            return;
    }
}

#endif
