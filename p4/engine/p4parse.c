/* P4_16 recursive-descent parser; see p4parse.h. Each grammar function starts with its
 * production. Expression precedence follows the P4_16 spec (bitwise operators bind tighter
 * than comparisons, unlike C). */
#include "p4/engine/p4parse.h"
#include "p4/engine/p4pdecl.h"

#include <stdlib.h>
#include <string.h>

struct p4ast *p4parse_node(struct p4parse *p, enum p4ast_kind k, struct p4_loc loc)
{
    struct p4ast *n = p4util_calloc(1, sizeof(*n));
    n->kind = k;
    n->loc = loc;
    P4_PUSH(p->nodes, p->nnodes, p->capnodes, n);
    return n;
}

void p4parse_add(struct p4ast *n, struct p4ast *kid)
{
    P4_PUSH(n->list, n->nlist, n->caplist, kid);
}

void p4parse_add2(struct p4ast *n, struct p4ast *kid)
{
    P4_PUSH(n->list2, n->nlist2, n->caplist2, kid);
}

void p4parse_add_to(struct p4ast *n, bool second, struct p4ast *kid)
{
    if (second)
        p4parse_add2(n, kid);
    else
        p4parse_add(n, kid);
}

void p4parse_fini(struct p4parse *p)
{
    for (int i = 0; i < p->nnodes; i++) {
        free(p->nodes[i]->list);
        free(p->nodes[i]->list2);
        free(p->nodes[i]->annots);
        free(p->nodes[i]->text);
        free(p->nodes[i]);
    }
    free(p->nodes);
    free(p->types);
    memset(p, 0, sizeof(*p));
}

const struct p4ast *p4parse_annot(const struct p4ast *n, const char *name)
{
    for (int i = 0; n && i < n->nannots; i++) {
        if (strcmp(n->annots[i]->name, name) == 0)
            return n->annots[i];
    }
    return NULL;
}

/* ---- tokens ---- */

void p4parse_advance(struct p4parse *p)
{
    if (p->nahead) {
        p->tok = p->ahead[0];
        memmove(p->ahead, p->ahead + 1, (size_t)(p->nahead - 1) * sizeof(p->ahead[0]));
        p->nahead--;
    } else {
        p4lex_next(p->lx, &p->tok);
    }
}

/* k-th token after the current one (k >= 1). */
const struct p4_token *p4parse_peek(struct p4parse *p, int k)
{
    while (p->nahead < k)
        p4lex_next(p->lx, &p->ahead[p->nahead++]);
    return &p->ahead[k - 1];
}

static _Noreturn void fail_near(struct p4parse *p, const char *fmt, const char *what)
{
    char msg[256];
    snprintf(msg, sizeof(msg), fmt, what);
    if (p->tok.kind == P4TOK_EOF)
        p4util_error(p->diag, p->tok.loc, "%s near <eof>", msg);
    else
        p4util_error(p->diag, p->tok.loc, "%s near '%.*s'", msg, p->tok.len > 40 ? 40 : p->tok.len,
                     p->tok.text);
    longjmp(p->fail, 1);
}

_Noreturn void p4parse_expected(struct p4parse *p, const char *what)
{
    fail_near(p, "expected %s", what);
}

bool p4parse_test(struct p4parse *p, enum p4tok_kind k)
{
    if (p->tok.kind == k) {
        p4parse_advance(p);
        return true;
    }
    return false;
}

struct p4_loc p4parse_check(struct p4parse *p, enum p4tok_kind k)
{
    struct p4_loc loc = p->tok.loc;
    if (p->tok.kind != k) {
        char what[32];
        snprintf(what, sizeof(what), "'%s'", p4tok_names[k]);
        p4parse_expected(p, what);
    }
    p4parse_advance(p);
    return loc;
}

/* Closing token of a pair opened at `open`: Lua's "(to close X at line N)". */
void p4parse_match(struct p4parse *p, enum p4tok_kind what, enum p4tok_kind who, struct p4_loc open)
{
    if (p->tok.kind == what) {
        p4parse_advance(p);
        return;
    }
    char msg[128];
    if (open.line == p->tok.loc.line) {
        snprintf(msg, sizeof(msg), "'%s'", p4tok_names[what]);
        p4parse_expected(p, msg);
    }
    snprintf(msg, sizeof(msg), "'%s' (to close '%s' at line %d)", p4tok_names[what],
             p4tok_names[who], open.line);
    p4parse_expected(p, msg);
}

const char *p4parse_name(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_IDENT)
        p4parse_expected(p, "<name>");
    const char *s = p->tok.str;
    p4parse_advance(p);
    return s;
}

bool p4parse_is_type(struct p4parse *p, const char *s)
{
    for (int i = p->ntypes - 1; i >= 0; i--) {
        if (strcmp(p->types[i], s) == 0)
            return true;
    }
    return false;
}

void p4parse_declare_type(struct p4parse *p, const char *s)
{
    if (!p4parse_is_type(p, s))
        P4_PUSH(p->types, p->ntypes, p->captypes, s);
}

bool p4parse_type_start(struct p4parse *p, const struct p4_token *t)
{
    switch (t->kind) {
    case P4TOK_KW_BIT:
    case P4TOK_KW_INT:
    case P4TOK_KW_BOOL:
    case P4TOK_KW_VARBIT:
    case P4TOK_KW_STRING:
    case P4TOK_KW_TUPLE:
    case P4TOK_KW_VOID:
        return true;
    case P4TOK_IDENT:
        return p4parse_is_type(p, t->str);
    default:
        return false;
    }
}

/* ---- annotations ---- */

/* annotation -> '@' name [ '(' balanced tokens ')' ] */
void p4parse_annotations(struct p4parse *p, struct p4ast *target)
{
    while (p->tok.kind == P4TOK_AT) {
        struct p4_loc loc = p->tok.loc;
        p4parse_advance(p);
        if (p->tok.kind != P4TOK_IDENT && p->tok.kind < P4TOK_KW_ACTION)
            p4parse_expected(p, "<name>");
        struct p4ast *a = p4parse_node(p, P4AST_ANNOT, loc);
        a->name = p->tok.str ? p->tok.str : p4tok_names[p->tok.kind];
        a->num.width = -1;
        p4parse_advance(p);
        if (p->tok.kind == P4TOK_LPAREN && p->tok.adjacent) {
            struct p4_loc open = p->tok.loc;
            p4parse_advance(p);
            int depth = 1;
            bool neg = false;
            for (;;) {
                if (p->tok.kind == P4TOK_EOF)
                    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
                if (p->tok.kind == P4TOK_LPAREN)
                    depth++;
                if (p->tok.kind == P4TOK_RPAREN && --depth == 0)
                    break;
                if (p->tok.kind == P4TOK_STRING && !a->str)
                    a->str = p->tok.str;
                if (p->tok.kind == P4TOK_MINUS)
                    neg = true;
                if (p->tok.kind == P4TOK_NUMBER && a->num.width == -1) {
                    a->num = p->tok.num;
                    if (neg)
                        p4big_neg(&a->num.v, &a->num.v);
                    a->num.width = 0;
                }
                p4parse_advance(p);
            }
            p4parse_advance(p);
        }
        if (target)
            P4_PUSH(target->annots, target->nannots, target->capannots, a);
    }
}

void p4parse_move_annots(struct p4ast *from, struct p4ast *to)
{
    for (int i = 0; i < from->nannots; i++)
        P4_PUSH(to->annots, to->nannots, to->capannots, from->annots[i]);
    from->nannots = 0;
}

/* ---- types ---- */

/* width -> NUMBER | '(' expr ')' */
static struct p4ast *width_arg(struct p4parse *p, struct p4ast *t)
{
    if (p->tok.kind == P4TOK_LT) {
        struct p4_loc open = p->tok.loc;
        p4parse_advance(p);
        if (p->tok.kind == P4TOK_NUMBER) {
            t->a = p4parse_node(p, P4AST_E_NUM, p->tok.loc);
            t->a->num = p->tok.num;
            p4parse_advance(p);
        } else if (p->tok.kind == P4TOK_LPAREN) {
            p4parse_advance(p);
            t->a = p4parse_expr(p);
            p4parse_check(p, P4TOK_RPAREN);
        } else if (p->tok.kind == P4TOK_IDENT) {
            t->a = p4parse_node(p, P4AST_E_NAME, p->tok.loc);
            t->a->name = p->tok.str;
            p4parse_advance(p);
        } else {
            p4parse_expected(p, "width");
        }
        p4parse_match(p, P4TOK_GT, P4TOK_LT, open);
    }
    return t;
}

/* typeRef -> baseType | name [ '<' typeArgs '>' ] | tuple '<' ... '>' ; then [ '[' expr ']' ] */
static struct p4ast *type_ref_inner(struct p4parse *p);

struct p4ast *p4parse_type(struct p4parse *p)
{
    if (++p->depth > 200)
        fail_near(p, "%s", "nesting too deep");
    struct p4ast *t = type_ref_inner(p);
    p->depth--;
    return t;
}

/* The base types: one keyword each, bit/int/varbit with a <width>. */
static const struct base_type {
    enum p4tok_kind tok;
    enum p4ast_kind ty;
    bool width;
} base_types[] = {
    {P4TOK_KW_BIT, P4AST_TY_BIT, true},       {P4TOK_KW_INT, P4AST_TY_INT, true},
    {P4TOK_KW_VARBIT, P4AST_TY_VARBIT, true}, {P4TOK_KW_BOOL, P4AST_TY_BOOL, false},
    {P4TOK_KW_ERROR, P4AST_TY_ERROR, false},  {P4TOK_KW_STRING, P4AST_TY_STRING, false},
    {P4TOK_KW_VOID, P4AST_TY_VOID, false},    {P4TOK_KW_MATCH_KIND, P4AST_TY_MATCH_KIND, false},
};

static struct p4ast *base_type(struct p4parse *p)
{
    for (size_t i = 0; i < P4_ARRAY_LEN(base_types); i++) {
        const struct base_type *b = &base_types[i];
        if (p->tok.kind == b->tok) {
            struct p4ast *t = p4parse_node(p, b->ty, p->tok.loc);
            p4parse_advance(p);
            return b->width ? width_arg(p, t) : t;
        }
    }
    return NULL;
}

/* [ '<' typeRef { ',' typeRef } '>' ]: each type given to n by add */
static void type_args(struct p4parse *p, struct p4ast *n,
                      void (*add)(struct p4ast *n, struct p4ast *kid))
{
    if (p->tok.kind != P4TOK_LT)
        return;
    struct p4_loc open = p->tok.loc;
    p4parse_advance(p);
    do {
        add(n, p4parse_type(p));
    } while (p4parse_test(p, P4TOK_COMMA));
    p4parse_match(p, P4TOK_GT, P4TOK_LT, open);
}

/* name [ '<' typeArgs '>' ], tuple '<' ... '>' or _ */
static struct p4ast *named_type(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    bool tuple = p->tok.kind == P4TOK_KW_TUPLE;
    if (!tuple && p->tok.kind != P4TOK_IDENT)
        p4parse_expected(p, "type");
    if (!tuple && strcmp(p->tok.str, "_") == 0) {
        p4parse_advance(p);
        return p4parse_node(p, P4AST_TY_DONTCARE, loc);
    }
    struct p4ast *t = p4parse_node(p, tuple ? P4AST_TY_TUPLE : P4AST_TY_NAME, loc);
    t->name = p->tok.str;
    p4parse_advance(p);
    type_args(p, t, p4parse_add);
    return t;
}

static struct p4ast *type_ref_inner(struct p4parse *p)
{
    struct p4ast *t = base_type(p);
    if (!t)
        t = named_type(p);
    while (p->tok.kind == P4TOK_LBRACKET) {
        struct p4ast *s = p4parse_node(p, P4AST_TY_STACK, p->tok.loc);
        struct p4_loc open = p->tok.loc;
        p4parse_advance(p);
        s->a = t;
        s->b = p4parse_expr(p);
        p4parse_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, open);
        t = s;
    }
    return t;
}

/* typeParams -> '<' name { ',' name } '>' */
int p4parse_type_params(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_LT)
        return 0;
    struct p4_loc open = p->tok.loc;
    p4parse_advance(p);
    int n = 0;
    do {
        p4parse_declare_type(p, p4parse_name(p));
        n++;
    } while (p4parse_test(p, P4TOK_COMMA));
    p4parse_match(p, P4TOK_GT, P4TOK_LT, open);
    return n;
}

/* params -> '(' [ param { ',' param } ] ')' ; param -> annots [dir] typeRef name [= expr] */
void p4parse_params(struct p4parse *p, struct p4ast *owner, bool second)
{
    struct p4_loc open = p4parse_check(p, P4TOK_LPAREN);
    if (p->tok.kind != P4TOK_RPAREN) {
        do {
            struct p4ast *prm = p4parse_node(p, P4AST_D_PARAM, p->tok.loc);
            p4parse_annotations(p, prm);
            if (p4parse_test(p, P4TOK_KW_IN))
                prm->dir = P4_DIR_IN;
            else if (p4parse_test(p, P4TOK_KW_OUT))
                prm->dir = P4_DIR_OUT;
            else if (p4parse_test(p, P4TOK_KW_INOUT))
                prm->dir = P4_DIR_INOUT;
            prm->a = p4parse_type(p);
            prm->loc = p->tok.loc;
            prm->name = p4parse_name(p);
            if (p4parse_test(p, P4TOK_ASSIGN))
                prm->b = p4parse_expr(p);
            p4parse_add_to(owner, second, prm);
        } while (p4parse_test(p, P4TOK_COMMA));
    }
    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
}

/* ---- expressions ---- */

/* args -> '(' [ arg { ',' arg } ] ')' ; arg -> expr | '_' */
void p4parse_args(struct p4parse *p, struct p4ast *call)
{
    struct p4_loc open = p4parse_check(p, P4TOK_LPAREN);
    if (p->tok.kind != P4TOK_RPAREN) {
        do {
            p4parse_add(call, p4parse_expr(p));
        } while (p4parse_test(p, P4TOK_COMMA));
    }
    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
}

static bool type_args_follow(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_LT)
        return false;
    const struct p4_token *n = p4parse_peek(p, 1);
    return p4parse_type_start(p, n) || n->kind == P4TOK_KW_ERROR;
}

/* A literal or a name (one token), NULL for any other token. */
static struct p4ast *token_leaf(struct p4parse *p)
{
    const struct p4_token *t = &p->tok;
    struct p4ast *e;
    switch (t->kind) {
    case P4TOK_NUMBER:
        e = p4parse_node(p, P4AST_E_NUM, t->loc);
        e->num = t->num;
        break;
    case P4TOK_KW_TRUE:
    case P4TOK_KW_FALSE:
        e = p4parse_node(p, P4AST_E_BOOL, t->loc);
        e->num.v.w[0] = t->kind == P4TOK_KW_TRUE;
        break;
    case P4TOK_STRING:
        e = p4parse_node(p, P4AST_E_STR, t->loc);
        e->str = t->str;
        break;
    case P4TOK_IDENT:
    case P4TOK_KW_ERROR:
        e = p4parse_node(p, P4AST_E_NAME, t->loc);
        e->name = t->kind == P4TOK_IDENT ? t->str : "error";
        break;
    default:
        return NULL;
    }
    p4parse_advance(p);
    return e;
}

static struct p4ast *primary(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *e = token_leaf(p);
    if (e)
        return e;
    switch (p->tok.kind) {
    case P4TOK_DOT: /* .name: top-level scope */
        p4parse_advance(p);
        e = p4parse_node(p, P4AST_E_NAME, loc);
        e->name = p4parse_name(p);
        return e;
    case P4TOK_LBRACE: {
        p4parse_advance(p);
        e = p4parse_node(p, P4AST_E_LIST, loc);
        if (p->tok.kind != P4TOK_RBRACE) {
            do {
                if (p->tok.kind == P4TOK_RBRACE)
                    break;
                if (p->tok.kind == P4TOK_IDENT && p4parse_peek(p, 1)->kind == P4TOK_ASSIGN) {
                    /* { field = value, ... }: names in list2, one per value */
                    struct p4ast *n = p4parse_node(p, P4AST_E_NAME, p->tok.loc);
                    n->name = p->tok.str;
                    p4parse_advance(p);
                    p4parse_advance(p);
                    p4parse_add2(e, n);
                }
                p4parse_add(e, p4parse_expr(p));
            } while (p4parse_test(p, P4TOK_COMMA));
        }
        p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, loc);
        return e;
    }
    case P4TOK_LPAREN: {
        const struct p4_token *n = p4parse_peek(p, 1);
        bool cast = false;
        if (p4parse_type_start(p, n) && n->kind != P4TOK_IDENT)
            cast = true;
        else if (n->kind == P4TOK_IDENT && p4parse_is_type(p, n->str) &&
                 (p4parse_peek(p, 2)->kind == P4TOK_RPAREN || p4parse_peek(p, 2)->kind == P4TOK_LT))
            cast = true;
        p4parse_advance(p);
        if (cast) {
            e = p4parse_node(p, P4AST_E_CAST, loc);
            e->a = p4parse_type(p);
            p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
            return e;
        }
        e = p4parse_expr(p);
        p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
        return e;
    }
    default:
        p4parse_expected(p, "expression");
    }
}

static struct p4ast *postfix(struct p4parse *p)
{
    struct p4ast *e = primary(p);
    for (;;) {
        struct p4_loc loc = p->tok.loc;
        if (p->tok.kind == P4TOK_DOT) {
            p4parse_advance(p);
            struct p4ast *m = p4parse_node(p, P4AST_E_MEMBER, p->tok.loc); /* at the member name */
            m->a = e;
            if (p->tok.kind == P4TOK_IDENT || p->tok.kind >= P4TOK_KW_ACTION) {
                m->name = p->tok.str ? p->tok.str : p4tok_names[p->tok.kind];
                p4parse_advance(p);
            } else {
                p4parse_expected(p, "<name>");
            }
            e = m;
        } else if (p->tok.kind == P4TOK_LBRACKET) {
            p4parse_advance(p);
            struct p4ast *i = p4parse_expr(p);
            if (p4parse_test(p, P4TOK_COLON)) {
                struct p4ast *s = p4parse_node(p, P4AST_E_SLICE, loc);
                s->a = e;
                s->b = i;
                s->c = p4parse_expr(p);
                e = s;
            } else {
                struct p4ast *x = p4parse_node(p, P4AST_E_INDEX, loc);
                x->a = e;
                x->b = i;
                e = x;
            }
            p4parse_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, loc);
        } else if (p->tok.kind == P4TOK_LPAREN || type_args_follow(p)) {
            struct p4ast *c = p4parse_node(p, P4AST_E_CALL, loc);
            c->a = e;
            type_args(p, c, p4parse_add2);
            p4parse_args(p, c);
            e = c;
        } else {
            return e;
        }
    }
}

#define P4PARSE_MAX_DEPTH 200

void p4parse_enter(struct p4parse *p)
{
    if (++p->depth > P4PARSE_MAX_DEPTH)
        fail_near(p, "%s", "nesting too deep");
}

static struct p4ast *unary_inner(struct p4parse *p);

struct p4ast *p4parse_unary(struct p4parse *p)
{
    p4parse_enter(p);
    struct p4ast *e = unary_inner(p);
    p->depth--;
    return e;
}

static struct p4ast *unary_inner(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    enum p4tok_kind k = p->tok.kind;
    if (k == P4TOK_NOT || k == P4TOK_TILDE || k == P4TOK_MINUS || k == P4TOK_PLUS) {
        p4parse_advance(p);
        struct p4ast *e = p4parse_node(p, P4AST_E_UNARY, loc);
        e->op = (int)k;
        e->a = p4parse_unary(p);
        return e;
    }
    if (k == P4TOK_LPAREN) {
        /* casts bind like prefix operators */
        struct p4ast *e = primary(p);
        if (e->kind == P4AST_E_CAST && !e->b) {
            e->b = p4parse_unary(p);
            return e;
        }
        /* a parenthesized expression may be followed by postfix operators */
        for (;;) {
            struct p4_loc l2 = p->tok.loc;
            if (p->tok.kind == P4TOK_DOT) {
                p4parse_advance(p);
                struct p4ast *m = p4parse_node(p, P4AST_E_MEMBER, p->tok.loc);
                m->a = e;
                m->name = p4parse_name(p);
                e = m;
            } else if (p->tok.kind == P4TOK_LBRACKET) {
                p4parse_advance(p);
                struct p4ast *i = p4parse_expr(p);
                p4parse_check(p, P4TOK_COLON);
                struct p4ast *s = p4parse_node(p, P4AST_E_SLICE, l2);
                s->a = e;
                s->b = i;
                s->c = p4parse_expr(p);
                p4parse_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, l2);
                e = s;
            } else {
                return e;
            }
        }
    }
    return postfix(p);
}

/* Binary precedence levels, loosest first; 0 = not a binary operator. */
static int binprec(struct p4parse *p, int *op)
{
    *op = (int)p->tok.kind;
    switch (p->tok.kind) {
    case P4TOK_OROR:
        return 1;
    case P4TOK_ANDAND:
        return 2;
    case P4TOK_EQ:
    case P4TOK_NE:
        return 3;
    case P4TOK_LT:
    case P4TOK_LE:
    case P4TOK_GE:
        return 4;
    case P4TOK_GT: {
        const struct p4_token *n = p4parse_peek(p, 1);
        if (n->kind == P4TOK_GT && n->adjacent) {
            *op = P4TOK_SHR;
            return 8;
        }
        return 4;
    }
    case P4TOK_PIPE:
        return 5;
    case P4TOK_CARET:
        return 6;
    case P4TOK_AMP:
        return 7;
    case P4TOK_SHL:
        return 8;
    case P4TOK_PLUSPLUS:
    case P4TOK_PLUS:
    case P4TOK_MINUS:
    case P4TOK_SATADD:
    case P4TOK_SATSUB:
        return 9;
    case P4TOK_STAR:
    case P4TOK_SLASH:
    case P4TOK_PERCENT:
        return 10;
    default:
        return 0;
    }
}

static struct p4ast *binary(struct p4parse *p, int minprec)
{
    struct p4ast *left = p4parse_unary(p);
    for (;;) {
        int op;
        int prec = binprec(p, &op);
        if (!prec || prec < minprec)
            return left;
        struct p4_loc loc = p->tok.loc;
        p4parse_advance(p);
        if (op == P4TOK_SHR)
            p4parse_advance(p);
        struct p4ast *e = p4parse_node(p, P4AST_E_BINARY, loc);
        e->op = op;
        e->a = left;
        e->b = binary(p, prec + 1);
        left = e;
    }
}

/* expr -> binary [ '?' expr ':' expr ] */
struct p4ast *p4parse_expr(struct p4parse *p)
{
    struct p4ast *c = binary(p, 1);
    if (p->tok.kind == P4TOK_QUESTION) {
        p4parse_enter(p); /* a ? b : c ? d : ... recurses once per '?' */
        struct p4ast *e = p4parse_node(p, P4AST_E_COND, p->tok.loc);
        p4parse_advance(p);
        e->a = c;
        e->b = p4parse_expr(p);
        p4parse_check(p, P4TOK_COLON);
        e->c = p4parse_expr(p);
        p->depth--;
        return e;
    }
    return c;
}

/* keysetElem -> 'default' | '_' | expr [ '&&&' expr | '..' expr ] */
static struct p4ast *keyset_elem(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    if (p4parse_test(p, P4TOK_KW_DEFAULT))
        return p4parse_node(p, P4AST_E_DEFAULT, loc);
    if (p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, "_") == 0) {
        p4parse_advance(p);
        return p4parse_node(p, P4AST_E_DEFAULT, loc);
    }
    struct p4ast *e = p4parse_expr(p);
    if (p->tok.kind == P4TOK_MASK || p->tok.kind == P4TOK_RANGE) {
        struct p4ast *m =
            p4parse_node(p, p->tok.kind == P4TOK_MASK ? P4AST_E_MASK : P4AST_E_RANGE, p->tok.loc);
        p4parse_advance(p);
        m->a = e;
        m->b = p4parse_expr(p);
        return m;
    }
    return e;
}

/* keyset -> '(' keysetElem { ',' keysetElem } ')' | keysetElem */
struct p4ast *p4parse_keyset(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    if (p->tok.kind == P4TOK_LPAREN) {
        p4parse_advance(p);
        struct p4ast *l = p4parse_node(p, P4AST_E_LIST, loc);
        do {
            p4parse_add(l, keyset_elem(p));
        } while (p4parse_test(p, P4TOK_COMMA));
        p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
        if (l->nlist == 1 && p->tok.kind != P4TOK_MASK && p->tok.kind != P4TOK_RANGE)
            return l->list[0];
        if (l->nlist == 1) { /* (a) &&& b */
            struct p4ast *m = p4parse_node(
                p, p->tok.kind == P4TOK_MASK ? P4AST_E_MASK : P4AST_E_RANGE, p->tok.loc);
            p4parse_advance(p);
            m->a = l->list[0];
            m->b = p4parse_expr(p);
            return m;
        }
        return l;
    }
    return keyset_elem(p);
}

/* The checker and the code generator walk the tree recursively. Operator chains (`a + a + ...`,
 * `x.f.g...`, `a[0][0]...`) are built by loops, not by the bounded recursion of the parser, so
 * the tree's height is checked here, with an explicit stack, once the whole program is parsed:
 * a tree higher than P4PARSE_MAX_HEIGHT is refused at the node where the limit is passed. */
#define P4PARSE_MAX_HEIGHT 1000

struct height_frame {
    const struct p4ast *n;
    int next; /* next child to visit: a, b, c, then list, list2 */
};

static const struct p4ast *nth_child(const struct p4ast *n, int i)
{
    const struct p4ast *fixed[3] = {n->a, n->b, n->c};
    if (i < 3)
        return fixed[i];
    i -= 3;
    if (i < n->nlist)
        return n->list[i];
    i -= n->nlist;
    return i < n->nlist2 ? n->list2[i] : NULL;
}

static bool check_height(struct p4parse *p, const struct p4ast *root)
{
    struct height_frame st[P4PARSE_MAX_HEIGHT + 1];
    int top = 0;
    st[0] = (struct height_frame){root, 0};
    while (top >= 0) {
        struct height_frame *f = &st[top];
        int nchild = 3 + f->n->nlist + f->n->nlist2;
        if (f->next >= nchild) {
            top--;
            continue;
        }
        const struct p4ast *c = nth_child(f->n, f->next++);
        if (!c)
            continue;
        if (top == P4PARSE_MAX_HEIGHT) {
            p4util_error(p->diag, c->loc,
                         "expression nested too deep (more than %d levels; split it with "
                         "temporaries)",
                         P4PARSE_MAX_HEIGHT);
            return false;
        }
        st[++top] = (struct height_frame){c, 0};
    }
    return true;
}

struct p4ast *p4parse_program(struct p4parse *p, struct p4lex *lx, struct p4_diag *diag)
{
    memset(p, 0, sizeof(*p));
    p->lx = lx;
    p->diag = diag;
    static const char *const builtin_types[] = {"packet_in", "packet_out", "list"};
    for (size_t i = 0; i < P4_ARRAY_LEN(builtin_types); i++)
        p4parse_declare_type(p, builtin_types[i]);
    struct p4ast *prog = p4parse_node(p, P4AST_S_BLOCK, (struct p4_loc){lx->file, 1, 1, NULL});
    if (setjmp(p->fail))
        return NULL;
    p4parse_advance(p);
    while (p->tok.kind != P4TOK_EOF) {
        struct p4ast *d = p4pdecl_declaration(p);
        if (d)
            p4parse_add(prog, d);
    }
    if (diag->nerrors || !check_height(p, prog))
        return NULL;
    return prog;
}
