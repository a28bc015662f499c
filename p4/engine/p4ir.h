/* The lowered program: types with slot layouts, expression and statement trees whose names
 * are all resolved to slot indices, callables, tables, parser states and extern instances.
 * Produced once by p4sem, shared read-only by every pipeline instance (p4vm).
 *
 * Storage model: a packet's state is an array of uint64_t slots. A scalar of width W uses
 * ceil(W/64) slots (little-endian words), always kept zero above W (signed values too).
 * A header is [valid][fields...]; a struct is [fields...]; a stack is [nextIndex][elem]*N;
 * a varbit<N> is [length in bits][value, ceil(N/64) words].
 * Slots [0, npkt_slots) are the per-packet region: slot 0 holds the payload offset (low 32
 * bits) and the truncate length (high 32), then hdr, meta and standard_metadata; the rest is
 * scratch (locals, parameters, temporaries). */
#ifndef SIM_P4_P4IR_H
#define SIM_P4_P4IR_H

#include "p4/engine/p4ops.h"
#include "p4/engine/p4parse.h"

enum p4type_kind {
    P4T_BIT,
    P4T_INT,
    P4T_BOOL,
    P4T_INFINT,
    P4T_ERROR,
    P4T_ENUM,
    P4T_HEADER,
    P4T_STRUCT,
    P4T_STACK,
    P4T_VOID,
    P4T_STRING,
    P4T_EXTERN,
    P4T_LIST,
    P4T_MATCH_KIND,
    P4T_PACKET_IN,
    P4T_PACKET_OUT,
    P4T_DONTCARE,
    P4T_VARBIT,
    P4T_UNION
};

struct p4_type;

struct p4_field {
    const char *name;
    struct p4_type *type;
    int off;    /* slot offset inside the compound */
    int bitoff; /* bit offset inside a header (from the first bit on the wire) */
    const struct p4ast *decl;
};

struct p4_type {
    enum p4type_kind kind;
    const char *name;
    int width; /* bits: BIT, INT, BOOL(1), ENUM/ERROR (underlying), HEADER (sum) */
    bool is_signed;
    int nslots;
    struct p4_field *fields; /* HEADER, STRUCT (HEADER slot 0 is the validity bit) */
    int nfields;
    struct p4_type *elem; /* STACK */
    int size;             /* STACK */
    const char **members; /* ENUM member names */
    uint64_t *values;     /* ENUM member values */
    int nmembers;
    bool serializable; /* ENUM with an underlying bit<W> */
    bool tuple;        /* STRUCT: a tuple<...> (fields "0", "1", ..., indexed by constants) */
    int varbit_max;    /* VARBIT: maximum bits (width is 0); HEADER: its varbit's max
                        * (the header's width counts only the fixed fields) */
    const struct p4ast *decl;
};

/* LOADX index kinds */
enum p4_idx { P4IDX_EXPR, P4IDX_NEXT, P4IDX_LAST };

struct p4ir_expr {
    uint8_t op;
    uint8_t nw;      /* result words: 1 for width <= 64 */
    uint8_t sgn;     /* operands are signed (compare, shift, cast source, saturating) */
    uint8_t idx;     /* LOADX: enum p4_idx */
    uint16_t width;  /* result width in bits */
    uint16_t awidth; /* operand width (CAST source, CONCAT right width, SLICE lo) */
    int32_t slot;    /* LOAD: slot; LOADX: stack base slot */
    int32_t aux;     /* LOADX: element stride; SLICE: lo; CONST wide: unused */
    int32_t aux2;    /* LOADX: stack size; EQC: nslots */
    uint64_t k;      /* CONST value; LOADX: offset inside the element */
    uint64_t mask;   /* all ones below width (narrow results) */
    uint64_t *kw;    /* wide CONST (P4_WMAX words) */
    struct p4ir_expr *a;
    struct p4ir_expr *b;
    struct p4ir_expr *c;
    struct p4ir_expr *hdr; /* field of a header: the header (hash/checksum data lists skip
                            * fields of invalid headers, as bmv2 does) */
    void *ptr;             /* CALL: struct p4ir_call; HIT/MISS: struct p4ir_table; AGG: its elements
                            * (struct p4ir_expr *[aux2], one per field of its type, in order) */
    const char *const *names; /* AGG of a `{f = v, ...}` list before it has a type */
    struct p4_type *type;
    struct p4_loc loc;
};

// clang-format off
#define P4ST_LIST(X)                                                                       \
    X(ASSIGN) X(ASSIGN_SLICE) X(COPY) X(SETVALID) X(BLOCK) X(IF) X(SWITCH) X(APPLY) X(CALL) \
    X(EXIT) X(RETURN) X(BUILTIN) X(EXTRACT) X(EMIT) X(VERIFY) X(ADVANCE) X(PUSH) X(POP)    \
    X(ZERO) X(SWITCHV) X(LOOP) X(FORIN) X(BREAK) X(CONTINUE)
// clang-format on

enum p4st {
#define P4ST_ENUM(n) P4ST_##n,
    P4ST_LIST(P4ST_ENUM)
#undef P4ST_ENUM
};

struct p4ir_stmt;

struct p4ir_block {
    struct p4ir_stmt **s;
    int n;
    int cap;
};

struct p4ir_call;

/* LOOP: while (b or true) { body; els (the update) }, break and continue as in C.
 * FORIN: a (the loop variable) takes each of args[0..nargs) in turn, or with flag set every
 * value from b to args[0] inclusive; then body runs. */
struct p4ir_stmt {
    enum p4st op;
    int aux; /* SETVALID value; COPY/ZERO nslots; BUILTIN id; PUSH/POP count */
    int aux2;
    int flag;                /* BUILTIN checksum: include the payload */
    struct p4ir_expr *a;     /* target reference */
    struct p4ir_expr *b;     /* value */
    struct p4ir_expr **args; /* BUILTIN arguments */
    int nargs;
    struct p4ir_block body;   /* BLOCK, IF then */
    struct p4ir_block els;    /* IF else; SWITCH default */
    struct p4ir_block *cases; /* SWITCH: one per table action (may be empty) */
    bool *has_case;
    int ncases;
    uint64_t *vals;           /* SWITCHV case values */
    struct p4ir_call *call;   /* CALL */
    struct p4ir_table *table; /* APPLY, SWITCH */
    struct p4_type *type;     /* EXTRACT/EMIT header type (EXTRACT: b = varbit length) */
    struct p4_loc loc;
};

/* A parameter of an action, function or nested control (copy-in/copy-out). */
struct p4ir_param {
    const char *name;
    enum p4_dir dir;
    struct p4_type *type;
    int slot;
    int nslots;
};

struct p4_extern_model;

enum p4ir_call_kind { P4CALL_ACTION, P4CALL_FUNC, P4CALL_CONTROL, P4CALL_EXTERN };

/* An action, function or control instance. */
struct p4ir_callable {
    enum p4ir_call_kind kind;
    const char *name; /* fully qualified (Control.action) */
    int id;           /* index in prog->actions for actions */
    struct p4ir_param *params;
    int nparams;
    struct p4ir_block body;
    int ret_slot;
    struct p4_type *ret_type;
    const struct p4_extern_model *model; /* EXTERN: the C model */
    struct p4_loc loc;
};

/* A call site: callee plus one argument per parameter (references for out/inout). */
struct p4ir_call {
    struct p4ir_callable *fn;
    struct p4ir_expr **args; /* NULL entries: action data (from the table) */
    int nargs;
    int locs; /* scratch slots, one per argument: out/inout locations computed at copy-in */
};

enum p4_match_kind { P4MK_EXACT, P4MK_LPM, P4MK_TERNARY, P4MK_RANGE, P4MK_OPTIONAL, P4MK_SELECTOR };

struct p4ir_key {
    struct p4ir_expr *e;
    enum p4_match_kind mk;
    int width;
    int nw;
    int woff;         /* word offset in the key buffer */
    const char *name; /* key text or @name */
};

struct p4ir_table_action {
    struct p4ir_call call; /* args for directional params; NULL for action data */
    bool default_only;
    bool table_only;
    int ndata; /* action data params */
    int data_words;
};

/* A compile-time entry (const entries / default action). */
struct p4ir_entry {
    uint64_t *value; /* key_words */
    uint64_t *mask;  /* key_words */
    uint64_t *hi;    /* range upper bounds (key_words), NULL if no range key */
    int action;      /* index into table actions */
    uint64_t *data;  /* action data words */
    int priority;    /* larger wins */
    bool is_const;   /* in a const entries list, or marked const */
    struct p4_loc loc;
};

struct p4ir_table {
    const char *name;
    int id;
    struct p4ir_key *keys;
    int nkeys;
    int key_words;
    struct p4ir_table_action *actions;
    int nactions;
    struct p4ir_entry default_entry;
    bool const_default;
    struct p4ir_entry *entries; /* initial entries in textual order (priority: larger wins) */
    int nentries;
    bool const_entries;
    bool smallest_wins; /* largest_priority_wins = false: smaller control-plane priorities win */
    int priority_delta; /* between consecutive initial entries without a priority */
    int size;
    int direct_counter; /* extern index or -1 */
    int direct_meter;
    struct p4_loc loc;
};

enum p4ext_kind {
    P4EXT_REGISTER,
    P4EXT_COUNTER,
    P4EXT_DIRECT_COUNTER,
    P4EXT_METER,
    P4EXT_DIRECT_METER,
    P4EXT_ACTION_PROFILE,
    P4EXT_VALUE_SET /* parser value set: size (value, mask) pairs set by the control plane */
};

enum p4_counter_type { P4CT_PACKETS, P4CT_BYTES, P4CT_BOTH };

struct p4ir_extern {
    enum p4ext_kind kind;
    const char *name;
    int size;
    int width; /* register element width */
    int nw;
    int ctype; /* counter/meter type: packets/bytes(/both) */
    struct p4_loc loc;
};

/* Builtin operations (externs and v1model functions). */
// clang-format off
#define P4B_LIST(X)                                                                        \
    X(MARK_TO_DROP) X(REG_READ) X(REG_WRITE) X(COUNT) X(DCOUNT) X(METER) X(DMETER) X(HASH)  \
    X(RANDOM) X(VERIFY_CKSUM) X(UPDATE_CKSUM) X(CLONE) X(RESUBMIT) X(RECIRC) X(NOP)         \
    X(LOG_MSG) X(TRUNCATE) X(ASSERT)
// clang-format on

enum p4builtin {
#define P4B_ENUM(n) P4B_##n,
    P4B_LIST(P4B_ENUM)
#undef P4B_ENUM
};

enum p4_select_kind { P4SEL_VALUE, P4SEL_MASK, P4SEL_RANGE, P4SEL_DEFAULT, P4SEL_VSET };

struct p4ir_case {
    uint64_t *v;   /* per key (P4SEL_VSET: the value set's extern index) */
    uint64_t *m;   /* per key mask (or range hi) */
    uint8_t *kind; /* per key: enum p4_select_kind */
    int next;
};

/* keys of one select expression, at most (the front end refuses more) */
#define P4_SELECT_KEYS_MAX 16
#define P4_STATE_ACCEPT (-1)
#define P4_STATE_REJECT (-2)

struct p4ir_state {
    const char *name;
    struct p4ir_block body;
    struct p4ir_expr **keys; /* select keys (each <= 64 bits) */
    int nkeys;
    struct p4ir_case *cases;
    int ncases;
    int next; /* when no select */
    struct p4_loc loc;
};

/* Slot range preserved by a field list (clone/resubmit/recirculate). */
struct p4ir_range {
    int slot;
    int n;
};

struct p4ir_field_list {
    int id;
    struct p4ir_range *r;
    int nr;
};

/* standard_metadata slots (-1 if the program's struct lacks the field). */
struct p4ir_std {
    int ingress_port, egress_spec, egress_port, instance_type, packet_length, enq_timestamp,
        enq_qdepth, deq_timedelta, deq_qdepth, ingress_global_timestamp, egress_global_timestamp,
        mcast_grp, egress_rid, checksum_error, parser_error, priority, qid;
};

/* What the program can observe of the glue's work (p4use.h). */
struct p4use {
    struct p4ir_std std; /* as prog->std, -1 for the fields no part of the program refers to */
    bool requests;       /* clone, resubmit or recirculate appear */
    bool truncates;      /* truncate appears */
    bool egress_scratch; /* egress, computeChecksum or the deparser refer to scratch slots */
    bool deparse_emits;  /* the deparser only emits (running it twice writes the same) */
    bool output_early;   /* egress is empty and computeChecksum and the deparser only compute
                          * on the state: their output is the same made right after ingress */
};

struct p4_prog {
    char **strings; /* string pool */
    int nstrings;
    struct p4_type **types;
    int ntypes;
    int captypes;
    int nslots;     /* total */
    int npkt_slots; /* per-packet region */
    int cc_slot;    /* [cc_slot, nslots): the compiled engine's per-packet slots (p4cc.h) */
    int hdr_slot;   /* parser's hdr parameter */
    struct p4_type *hdr_type;
    int meta_slot;
    struct p4_type *meta_type;
    int std_slot;
    struct p4_type *std_type;
    struct p4ir_std std;
    struct p4use use;
    /* blocks of the V1Switch package */
    struct p4ir_state *states; /* malloc'ed (grows while sub-parsers are inlined) */
    int nstates;
    int capstates;
    int start_state;
    struct p4ir_block parser_init; /* parser locals initialization */
    struct p4ir_callable *verify;
    struct p4ir_callable *ingress;
    struct p4ir_callable *egress;
    struct p4ir_callable *compute;
    struct p4ir_callable *deparser;
    struct p4ir_callable **actions;
    int nactions;
    int capactions;
    struct p4ir_table **tables;
    int ntables;
    int captables;
    struct p4ir_extern *externs;
    int nexterns;
    int capexterns;
    struct p4ir_field_list *field_lists;
    int nfield_lists;
    int capfield_lists;
    const char **errors; /* error names; index = value */
    int nerrors;
    int caperrors;
    int max_key_words;
    int max_data_words;
    struct p4cc *cc;  /* the compiled form (p4cc.h), made at load */
    int exec_default; /* enum p4_exec for pipelines whose host does not choose */
    /* everything allocated at lowering, freed with the program */
    void **allocs;
    int nallocs;
    int capallocs;
};

/* Values that live in several slots and are copied as a whole (not scalars). */
static inline bool p4ir_type_is_aggregate(const struct p4_type *t)
{
    return t->kind == P4T_HEADER || t->kind == P4T_STRUCT || t->kind == P4T_STACK ||
           t->kind == P4T_UNION || t->kind == P4T_VARBIT;
}

/* Allocation owned by the program (freed by p4_prog_free). */
void *p4ir_alloc(struct p4_prog *prog, size_t n);

#endif
