/* P4_16 parser: tokens → AST. One generic node type (`struct p4ast`) keeps the tree small:
 * `a`, `b`, `c` are fixed children, `list` and `list2` ordered children, `annots` the
 * annotations. Syntax errors are reported Lua-style (`expected ';' near '}'`) and stop the
 * parse (the first one is the useful one). All nodes are owned by the `struct p4parse`. */
#ifndef SIM_P4_P4PARSE_H
#define SIM_P4_P4PARSE_H

#include "p4/engine/p4lex.h"

#include <setjmp.h>

// clang-format off
#define P4AST_LIST(X)                                                                      \
    X(TY_BIT) X(TY_INT) X(TY_BOOL) X(TY_VARBIT) X(TY_ERROR) X(TY_STRING) X(TY_VOID)        \
    X(TY_NAME) X(TY_STACK) X(TY_TUPLE) X(TY_DONTCARE) X(TY_MATCH_KIND)                     \
    X(E_NUM) X(E_BOOL) X(E_STR) X(E_NAME) X(E_MEMBER) X(E_INDEX) X(E_SLICE) X(E_CALL)      \
    X(E_UNARY) X(E_BINARY) X(E_COND) X(E_CAST) X(E_LIST) X(E_MASK) X(E_RANGE)             \
    X(E_DEFAULT) X(E_SELECT) X(E_CASE)                                                     \
    X(S_BLOCK) X(S_IF) X(S_SWITCH) X(S_SWCASE) X(S_ASSIGN) X(S_CALL) X(S_VAR) X(S_CONST)  \
    X(S_EXIT) X(S_RETURN) X(S_EMPTY) X(S_TRANSITION) X(S_FOR) X(S_FORIN) X(S_BREAK)       \
    X(S_CONTINUE)                                      \
    X(D_CONST) X(D_TYPEDEF) X(D_HEADER) X(D_STRUCT) X(D_UNION) X(D_FIELD) X(D_ENUM)       \
    X(D_ENUM_MEMBER) X(D_ERROR) X(D_MATCH_KIND) X(D_EXTERN_TYPE) X(D_EXTERN_FUNC)         \
    X(D_PARAM) X(D_PARSER_TYPE) X(D_PARSER) X(D_STATE) X(D_CONTROL_TYPE) X(D_CONTROL)     \
    X(D_PACKAGE) X(D_INST) X(D_ACTION) X(D_FUNC) X(D_TABLE) X(D_VALUE_SET)                \
    X(TP_KEY) X(TP_KEY_ELEM) X(TP_ACTIONS) X(TP_ACTION_REF) X(TP_DEFAULT) X(TP_ENTRIES)   \
    X(TP_ENTRY) X(TP_OTHER) X(ANNOT)
// clang-format on

enum p4ast_kind {
#define P4AST_ENUM(name) P4AST_##name,
    P4AST_LIST(P4AST_ENUM)
#undef P4AST_ENUM
};

enum p4_dir { P4_DIR_NONE, P4_DIR_IN, P4_DIR_OUT, P4_DIR_INOUT };

struct p4ast {
    enum p4ast_kind kind;
    struct p4_loc loc;
    const char *name;  /* declared or referenced name; annotation name */
    int op;            /* operator token kind (E_UNARY, E_BINARY; S_ASSIGN: compound, 0 plain);
                        * D_EXTERN_FUNC: number of type parameters */
    enum p4_dir dir;   /* D_PARAM */
    bool is_const;     /* const default_action / const entries / extern method abstract */
    struct p4_num num; /* E_NUM; annotation number */
    const char *str;   /* E_STR; annotation string */
    char *text;        /* TP_KEY_ELEM: key expression text (owned) */
    struct p4ast *a;
    struct p4ast *b;
    struct p4ast *c;
    struct p4ast **list;
    int nlist;
    int caplist;
    struct p4ast **list2;
    int nlist2;
    int caplist2;
    struct p4ast **annots;
    int nannots;
    int capannots;
};

struct p4parse {
    struct p4lex *lx;
    struct p4_token tok;      /* current */
    struct p4_token ahead[3]; /* lookahead buffer */
    int nahead;
    struct p4_diag *diag;
    jmp_buf fail;
    struct p4ast **nodes; /* every node, for freeing */
    int nnodes;
    int capnodes;
    int depth;          /* nesting of expressions/statements (bounded: no stack overflow) */
    const char **types; /* names declared as types so far */
    int ntypes;
    int captypes;
};

/* Parses a whole program; returns the list node (kind S_BLOCK) of top-level declarations,
 * or NULL after a syntax error (reported to diag). */
struct p4ast *p4parse_program(struct p4parse *p, struct p4lex *lx, struct p4_diag *diag);
void p4parse_fini(struct p4parse *p);
/* First annotation named name on n, or NULL. */
const struct p4ast *p4parse_annot(const struct p4ast *n, const char *name);

#endif
