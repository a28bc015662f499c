/* P4_16 lexer over preprocessed text. Honours cpp line markers (`# 12 "file.p4"`) so
 * locations name the user's file; skips comments kept by `cpp -C`. Integer literals keep
 * arbitrary precision (up to P4_MAXWIDTH bits) plus an optional width/signedness prefix.
 * `>` is always a single token; the parser joins two adjacent ones into a right shift so
 * `register<bit<32>>(N)` closes nested type arguments. */
#ifndef SIM_P4_P4LEX_H
#define SIM_P4_P4LEX_H

#include "p4/engine/p4util.h"

// clang-format off
#define P4TOK_LIST(X)                                                                      \
    X(EOF, "<eof>") X(IDENT, "<name>") X(NUMBER, "<number>") X(STRING, "<string>")         \
    X(LPAREN, "(") X(RPAREN, ")") X(LBRACE, "{") X(RBRACE, "}") X(LBRACKET, "[")           \
    X(RBRACKET, "]") X(LT, "<") X(GT, ">") X(SEMI, ";") X(COLON, ":") X(COMMA, ",")         \
    X(DOT, ".") X(ASSIGN, "=") X(QUESTION, "?") X(NOT, "!") X(TILDE, "~") X(PLUS, "+")      \
    X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") X(AMP, "&") X(PIPE, "|")       \
    X(CARET, "^") X(AT, "@") X(EQ, "==") X(NE, "!=") X(LE, "<=") X(GE, ">=") X(SHL, "<<")  \
    X(ANDAND, "&&") X(MASK, "&&&") X(OROR, "||") X(PLUSPLUS, "++") X(SATADD, "|+|")         \
    X(SATSUB, "|-|") X(RANGE, "..") X(SHR, ">>")                                           \
    X(KW_ACTION, "action") X(KW_BIT, "bit") X(KW_BOOL, "bool") X(KW_CONST, "const")         \
    X(KW_CONTROL, "control") X(KW_DEFAULT, "default") X(KW_ELSE, "else")                    \
    X(KW_ENUM, "enum") X(KW_ERROR, "error") X(KW_EXIT, "exit") X(KW_EXTERN, "extern")       \
    X(KW_FALSE, "false") X(KW_HEADER, "header") X(KW_HEADER_UNION, "header_union")          \
    X(KW_IF, "if") X(KW_IN, "in") X(KW_INOUT, "inout") X(KW_INT, "int")                     \
    X(KW_MATCH_KIND, "match_kind") X(KW_OUT, "out") X(KW_PACKAGE, "package")                \
    X(KW_PARSER, "parser") X(KW_RETURN, "return") X(KW_SELECT, "select")                    \
    X(KW_STRING, "string") X(KW_STRUCT, "struct") X(KW_SWITCH, "switch")                    \
    X(KW_TABLE, "table") X(KW_TRANSITION, "transition") X(KW_TRUE, "true")                  \
    X(KW_TUPLE, "tuple") X(KW_TYPEDEF, "typedef") X(KW_TYPE, "type") X(KW_VARBIT, "varbit") \
    X(KW_VOID, "void") X(KW_VALUE_SET, "value_set") X(KW_ABSTRACT, "abstract")              \
    X(KW_THIS, "this")
// clang-format on

enum p4tok_kind {
#define P4TOK_ENUM(name, text) P4TOK_##name,
    P4TOK_LIST(P4TOK_ENUM)
#undef P4TOK_ENUM
        P4TOK_COUNT
};

extern const char *const p4tok_names[P4TOK_COUNT];

/* An integer literal: value (two's complement, P4_WMAX words), width -1 if unsized. */
struct p4_num {
    struct p4_big v;
    int width;
    bool is_signed;
};

struct p4_token {
    enum p4tok_kind kind;
    struct p4_loc loc;
    const char *text; /* points into the source buffer */
    int len;          /* bytes of text */
    bool adjacent;    /* no whitespace between this token and the previous one */
    struct p4_num num;
    char *str; /* identifiers and strings: owned by the lexer's string pool */
};

struct p4lex {
    const char *src;
    size_t pos;
    size_t n;
    const char *file; /* current file name (pool string) */
    int line;
    size_t line_start;
    struct p4_diag *diag;
    char **pool; /* every string handed out, freed by p4lex_fini */
    int npool;
    int cappool;
};

/* src must stay alive while tokens are used; name is the initial file name. */
void p4lex_init(struct p4lex *lx, const char *src, size_t n, const char *name,
                struct p4_diag *diag);
void p4lex_fini(struct p4lex *lx);
/* Next token; lexical errors are reported to the diag and skipped. */
void p4lex_next(struct p4lex *lx, struct p4_token *t);
/* Intern a string in the lexer's pool (lives until p4lex_fini). */
const char *p4lex_intern(struct p4lex *lx, const char *s, size_t n);
/* Take ownership of the pool (so strings outlive the lexer). */
char **p4lex_take_pool(struct p4lex *lx, int *n);

#endif
