/* Semantic analysis and lowering (AST → p4ir, see p4ir.h): the context shared by its stages.
 * The front end after the parser runs in one pass over the AST, spread over one file per
 * stage: names and scopes (p4scope), types and layouts (p4type), IR allocation (p4irgen),
 * expressions (p4expr), statements (p4stmt), calls and methods (p4call), v1model externs
 * (p4extern), table declarations (p4tbldecl), controls, actions and functions (p4ctl),
 * parsers (p4prs) and the package and driver (p4sem). Each stage checks what it lowers and
 * reports errors with file:line:col, then keeps going where it can. Internal to p4/engine. */
#ifndef SIM_P4_P4SEM_H
#define SIM_P4_P4SEM_H

#include "p4/engine/p4.h"
#include "p4/engine/p4ir.h"

enum p4sym_kind {
    SYM_TYPE,
    SYM_CONST,
    SYM_VAR,
    SYM_ACTION,
    SYM_TABLE,
    SYM_FUNC,
    SYM_EXTERN_INST,
    SYM_CONTROL_DECL,
    SYM_PARSER_DECL,
    SYM_EXTERN_TYPE,
    SYM_EXTERN_FUNC,
    SYM_PACKAGE,
    SYM_CONTROL_INST,
    SYM_PACKET,
    SYM_STATE,
    SYM_GLOBAL_ACTION,
    SYM_PARSER_INST
};

struct p4prs_inst;

struct p4sym {
    const char *name;
    enum p4sym_kind kind;
    struct p4_type *type;
    int slot;
    struct p4ir_expr *cval; /* SYM_CONST */
    const struct p4ast *decl;
    struct p4ir_callable *fn; /* actions, functions, control instances */
    struct p4ir_table *table;
    int ext;                   /* SYM_EXTERN_INST index; SYM_STATE index */
    bool packet_out;           /* SYM_PACKET */
    struct p4prs_inst *parser; /* SYM_PARSER_INST */
    struct p4sym *next;
};

struct p4scope {
    struct p4sym *syms;
    struct p4scope *up;
};

#define P4SEM_MAX_INST 32

struct p4sem {
    struct p4_diag *diag;
    const struct p4_load_opts *opts; /* models of user extern functions (may be NULL) */
    struct p4_prog *prog;
    struct p4scope *scope;
    struct p4scope *global;
    struct p4sym **allsyms;
    int nallsyms;
    int capallsyms;
    struct p4scope **allscopes;
    int nallscopes;
    int capallscopes;
    const char *prefix;           /* control instance name for qualified names */
    struct p4ir_callable *cur_fn; /* for return */
    bool in_parser;
    bool in_action;
    int loops;                /* loops around the statement being lowered (break/continue) */
    struct p4ir_block *inits; /* control local initializers */
    struct p4_type *t_bool, *t_infint, *t_void, *t_string, *t_error, *t_dontcare;
    struct p4_type *t_list, *t_match_kind, *t_packet_in, *t_packet_out, *t_extern;
    struct p4_type *t_bad; /* result of an erroneous expression: suppresses cascades */
    struct p4_type **bits; /* interned bit<W>/int<W> */
    int nbits;
    int capbits;
    int next_field_list;
    bool too_big;
    /* controls being lowered, outermost first: an instance of one of them inside itself would
     * never end (P4SEM_MAX_INST bounds the nesting of distinct ones) */
    const struct p4ast *ctl_stack[P4SEM_MAX_INST];
    int nctl;
    const struct p4ast **deferred; /* top-level actions and functions, lowered after the */
    int ndeferred;                 /* packet region is laid out (slots 0..npkt) */
    int capdeferred;
};

/* Reports an error at loc (counted in s->diag). */
void p4sem_err(struct p4sem *s, struct p4_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fully qualified name of a declaration: its @name, else the control instance prefix plus
 * its name. The string lives as long as the program. */
const char *p4sem_qualify(struct p4sem *s, const struct p4ast *d);

/* Lowers a parsed program; returns NULL after reporting errors. */
struct p4_prog *p4sem_lower(struct p4ast *root, struct p4_diag *diag,
                            const struct p4_load_opts *opts);

#endif
