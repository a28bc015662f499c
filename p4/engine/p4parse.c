/* P4_16 recursive-descent parser; see p4parse.h. Each grammar function starts with its
 * production. Expression precedence follows the P4_16 spec (bitwise operators bind tighter
 * than comparisons, unlike C). */
#include "p4/engine/p4parse.h"

#include <stdlib.h>
#include <string.h>

static struct p4ast *node(struct p4parse *p, enum p4ast_kind k, struct p4_loc loc)
{
    struct p4ast *n = p4util_calloc(1, sizeof(*n));
    n->kind = k;
    n->loc = loc;
    P4_PUSH(p->nodes, p->nnodes, p->capnodes, n);
    return n;
}

static void add(struct p4ast *n, struct p4ast *kid)
{
    P4_PUSH(n->list, n->nlist, n->caplist, kid);
}

static void add2(struct p4ast *n, struct p4ast *kid)
{
    P4_PUSH(n->list2, n->nlist2, n->caplist2, kid);
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

static void advance(struct p4parse *p)
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
static const struct p4_token *peek(struct p4parse *p, int k)
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

static _Noreturn void error_expected(struct p4parse *p, const char *what)
{
    fail_near(p, "expected %s", what);
}

static bool test_next(struct p4parse *p, enum p4tok_kind k)
{
    if (p->tok.kind == k) {
        advance(p);
        return true;
    }
    return false;
}

static struct p4_loc check_next(struct p4parse *p, enum p4tok_kind k)
{
    struct p4_loc loc = p->tok.loc;
    if (p->tok.kind != k) {
        char what[32];
        snprintf(what, sizeof(what), "'%s'", p4tok_names[k]);
        error_expected(p, what);
    }
    advance(p);
    return loc;
}

/* Closing token of a pair opened at `open`: Lua's "(to close X at line N)". */
static void check_match(struct p4parse *p, enum p4tok_kind what, enum p4tok_kind who,
                        struct p4_loc open)
{
    if (p->tok.kind == what) {
        advance(p);
        return;
    }
    char msg[128];
    if (open.line == p->tok.loc.line) {
        snprintf(msg, sizeof(msg), "'%s'", p4tok_names[what]);
        error_expected(p, msg);
    }
    snprintf(msg, sizeof(msg), "'%s' (to close '%s' at line %d)", p4tok_names[what],
             p4tok_names[who], open.line);
    error_expected(p, msg);
}

static const char *check_name(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_IDENT)
        error_expected(p, "<name>");
    const char *s = p->tok.str;
    advance(p);
    return s;
}

static bool is_type_name(struct p4parse *p, const char *s)
{
    for (int i = p->ntypes - 1; i >= 0; i--) {
        if (strcmp(p->types[i], s) == 0)
            return true;
    }
    return false;
}

static void declare_type(struct p4parse *p, const char *s)
{
    if (!is_type_name(p, s))
        P4_PUSH(p->types, p->ntypes, p->captypes, s);
}

static bool is_type_start_tok(struct p4parse *p, const struct p4_token *t)
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
        return is_type_name(p, t->str);
    default:
        return false;
    }
}

/* ---- annotations ---- */

/* annotation -> '@' name [ '(' balanced tokens ')' ] */
static void annotations(struct p4parse *p, struct p4ast *target)
{
    while (p->tok.kind == P4TOK_AT) {
        struct p4_loc loc = p->tok.loc;
        advance(p);
        if (p->tok.kind != P4TOK_IDENT && p->tok.kind < P4TOK_KW_ACTION)
            error_expected(p, "<name>");
        struct p4ast *a = node(p, P4AST_ANNOT, loc);
        a->name = p->tok.str ? p->tok.str : p4tok_names[p->tok.kind];
        a->num.width = -1;
        advance(p);
        if (p->tok.kind == P4TOK_LPAREN && p->tok.adjacent) {
            struct p4_loc open = p->tok.loc;
            advance(p);
            int depth = 1;
            bool neg = false;
            for (;;) {
                if (p->tok.kind == P4TOK_EOF)
                    check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
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
                advance(p);
            }
            advance(p);
        }
        if (target)
            P4_PUSH(target->annots, target->nannots, target->capannots, a);
    }
}

static void move_annots(struct p4ast *from, struct p4ast *to)
{
    for (int i = 0; i < from->nannots; i++)
        P4_PUSH(to->annots, to->nannots, to->capannots, from->annots[i]);
    from->nannots = 0;
}

/* ---- types ---- */

static struct p4ast *expr(struct p4parse *p);
static struct p4ast *type_ref(struct p4parse *p);

/* width -> NUMBER | '(' expr ')' */
static struct p4ast *width_arg(struct p4parse *p, struct p4ast *t)
{
    if (p->tok.kind == P4TOK_LT) {
        struct p4_loc open = p->tok.loc;
        advance(p);
        if (p->tok.kind == P4TOK_NUMBER) {
            t->a = node(p, P4AST_E_NUM, p->tok.loc);
            t->a->num = p->tok.num;
            advance(p);
        } else if (p->tok.kind == P4TOK_LPAREN) {
            advance(p);
            t->a = expr(p);
            check_next(p, P4TOK_RPAREN);
        } else if (p->tok.kind == P4TOK_IDENT) {
            t->a = node(p, P4AST_E_NAME, p->tok.loc);
            t->a->name = p->tok.str;
            advance(p);
        } else {
            error_expected(p, "width");
        }
        check_match(p, P4TOK_GT, P4TOK_LT, open);
    }
    return t;
}

/* typeRef -> baseType | name [ '<' typeArgs '>' ] | tuple '<' ... '>' ; then [ '[' expr ']' ] */
static struct p4ast *type_ref_inner(struct p4parse *p);

static struct p4ast *type_ref(struct p4parse *p)
{
    if (++p->depth > 200)
        fail_near(p, "%s", "nesting too deep");
    struct p4ast *t = type_ref_inner(p);
    p->depth--;
    return t;
}

static struct p4ast *type_ref_inner(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *t;
    switch (p->tok.kind) {
    case P4TOK_KW_BIT:
        advance(p);
        t = width_arg(p, node(p, P4AST_TY_BIT, loc));
        break;
    case P4TOK_KW_INT:
        advance(p);
        t = width_arg(p, node(p, P4AST_TY_INT, loc));
        break;
    case P4TOK_KW_VARBIT:
        advance(p);
        t = width_arg(p, node(p, P4AST_TY_VARBIT, loc));
        break;
    case P4TOK_KW_BOOL:
        advance(p);
        t = node(p, P4AST_TY_BOOL, loc);
        break;
    case P4TOK_KW_ERROR:
        advance(p);
        t = node(p, P4AST_TY_ERROR, loc);
        break;
    case P4TOK_KW_STRING:
        advance(p);
        t = node(p, P4AST_TY_STRING, loc);
        break;
    case P4TOK_KW_VOID:
        advance(p);
        t = node(p, P4AST_TY_VOID, loc);
        break;
    case P4TOK_KW_MATCH_KIND:
        advance(p);
        t = node(p, P4AST_TY_MATCH_KIND, loc);
        break;
    case P4TOK_KW_TUPLE:
    case P4TOK_IDENT: {
        bool tuple = p->tok.kind == P4TOK_KW_TUPLE;
        if (!tuple && strcmp(p->tok.str, "_") == 0) {
            advance(p);
            t = node(p, P4AST_TY_DONTCARE, loc);
            break;
        }
        t = node(p, tuple ? P4AST_TY_TUPLE : P4AST_TY_NAME, loc);
        t->name = p->tok.str;
        advance(p);
        if (p->tok.kind == P4TOK_LT) {
            struct p4_loc open = p->tok.loc;
            advance(p);
            do {
                add(t, type_ref(p));
            } while (test_next(p, P4TOK_COMMA));
            check_match(p, P4TOK_GT, P4TOK_LT, open);
        }
        break;
    }
    default:
        error_expected(p, "type");
    }
    while (p->tok.kind == P4TOK_LBRACKET) {
        struct p4ast *s = node(p, P4AST_TY_STACK, p->tok.loc);
        struct p4_loc open = p->tok.loc;
        advance(p);
        s->a = t;
        s->b = expr(p);
        check_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, open);
        t = s;
    }
    return t;
}

/* typeParams -> '<' name { ',' name } '>' */
static void type_params(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_LT)
        return;
    struct p4_loc open = p->tok.loc;
    advance(p);
    do {
        declare_type(p, check_name(p));
    } while (test_next(p, P4TOK_COMMA));
    check_match(p, P4TOK_GT, P4TOK_LT, open);
}

/* params -> '(' [ param { ',' param } ] ')' ; param -> annots [dir] typeRef name [= expr] */
static void params(struct p4parse *p, struct p4ast *owner, bool second)
{
    struct p4_loc open = check_next(p, P4TOK_LPAREN);
    if (p->tok.kind != P4TOK_RPAREN) {
        do {
            struct p4ast *prm = node(p, P4AST_D_PARAM, p->tok.loc);
            annotations(p, prm);
            if (test_next(p, P4TOK_KW_IN))
                prm->dir = P4_DIR_IN;
            else if (test_next(p, P4TOK_KW_OUT))
                prm->dir = P4_DIR_OUT;
            else if (test_next(p, P4TOK_KW_INOUT))
                prm->dir = P4_DIR_INOUT;
            prm->a = type_ref(p);
            prm->loc = p->tok.loc;
            prm->name = check_name(p);
            if (test_next(p, P4TOK_ASSIGN))
                prm->b = expr(p);
            if (second)
                add2(owner, prm);
            else
                add(owner, prm);
        } while (test_next(p, P4TOK_COMMA));
    }
    check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
}

/* ---- expressions ---- */

/* args -> '(' [ arg { ',' arg } ] ')' ; arg -> expr | '_' */
static void args(struct p4parse *p, struct p4ast *call)
{
    struct p4_loc open = check_next(p, P4TOK_LPAREN);
    if (p->tok.kind != P4TOK_RPAREN) {
        do {
            add(call, expr(p));
        } while (test_next(p, P4TOK_COMMA));
    }
    check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
}

static bool type_args_follow(struct p4parse *p)
{
    if (p->tok.kind != P4TOK_LT)
        return false;
    const struct p4_token *n = peek(p, 1);
    return is_type_start_tok(p, n) || n->kind == P4TOK_KW_ERROR;
}

static struct p4ast *primary(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *e;
    switch (p->tok.kind) {
    case P4TOK_NUMBER:
        e = node(p, P4AST_E_NUM, loc);
        e->num = p->tok.num;
        advance(p);
        return e;
    case P4TOK_KW_TRUE:
    case P4TOK_KW_FALSE:
        e = node(p, P4AST_E_BOOL, loc);
        e->num.v.w[0] = p->tok.kind == P4TOK_KW_TRUE;
        advance(p);
        return e;
    case P4TOK_STRING:
        e = node(p, P4AST_E_STR, loc);
        e->str = p->tok.str;
        advance(p);
        return e;
    case P4TOK_IDENT:
        e = node(p, P4AST_E_NAME, loc);
        e->name = p->tok.str;
        advance(p);
        return e;
    case P4TOK_KW_ERROR:
        e = node(p, P4AST_E_NAME, loc);
        e->name = "error";
        advance(p);
        return e;
    case P4TOK_DOT: /* .name: top-level scope */
        advance(p);
        e = node(p, P4AST_E_NAME, loc);
        e->name = check_name(p);
        return e;
    case P4TOK_LBRACE: {
        advance(p);
        e = node(p, P4AST_E_LIST, loc);
        if (p->tok.kind != P4TOK_RBRACE) {
            do {
                if (p->tok.kind == P4TOK_RBRACE)
                    break;
                add(e, expr(p));
            } while (test_next(p, P4TOK_COMMA));
        }
        check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, loc);
        return e;
    }
    case P4TOK_LPAREN: {
        const struct p4_token *n = peek(p, 1);
        bool cast = false;
        if (is_type_start_tok(p, n) && n->kind != P4TOK_IDENT)
            cast = true;
        else if (n->kind == P4TOK_IDENT && is_type_name(p, n->str) &&
                 (peek(p, 2)->kind == P4TOK_RPAREN || peek(p, 2)->kind == P4TOK_LT))
            cast = true;
        advance(p);
        if (cast) {
            e = node(p, P4AST_E_CAST, loc);
            e->a = type_ref(p);
            check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
            return e;
        }
        e = expr(p);
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
        return e;
    }
    default:
        error_expected(p, "expression");
    }
}

static struct p4ast *unary(struct p4parse *p);

static struct p4ast *postfix(struct p4parse *p)
{
    struct p4ast *e = primary(p);
    for (;;) {
        struct p4_loc loc = p->tok.loc;
        if (p->tok.kind == P4TOK_DOT) {
            advance(p);
            struct p4ast *m = node(p, P4AST_E_MEMBER, p->tok.loc); /* at the member name */
            m->a = e;
            if (p->tok.kind == P4TOK_IDENT || p->tok.kind >= P4TOK_KW_ACTION) {
                m->name = p->tok.str ? p->tok.str : p4tok_names[p->tok.kind];
                advance(p);
            } else {
                error_expected(p, "<name>");
            }
            e = m;
        } else if (p->tok.kind == P4TOK_LBRACKET) {
            advance(p);
            struct p4ast *i = expr(p);
            if (test_next(p, P4TOK_COLON)) {
                struct p4ast *s = node(p, P4AST_E_SLICE, loc);
                s->a = e;
                s->b = i;
                s->c = expr(p);
                e = s;
            } else {
                struct p4ast *x = node(p, P4AST_E_INDEX, loc);
                x->a = e;
                x->b = i;
                e = x;
            }
            check_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, loc);
        } else if (p->tok.kind == P4TOK_LPAREN || type_args_follow(p)) {
            struct p4ast *c = node(p, P4AST_E_CALL, loc);
            c->a = e;
            if (p->tok.kind == P4TOK_LT) {
                struct p4_loc open = p->tok.loc;
                advance(p);
                do {
                    add2(c, type_ref(p));
                } while (test_next(p, P4TOK_COMMA));
                check_match(p, P4TOK_GT, P4TOK_LT, open);
            }
            args(p, c);
            e = c;
        } else {
            return e;
        }
    }
}

#define P4PARSE_MAX_DEPTH 200

static void enter(struct p4parse *p)
{
    if (++p->depth > P4PARSE_MAX_DEPTH)
        fail_near(p, "%s", "nesting too deep");
}

static struct p4ast *unary_inner(struct p4parse *p);

static struct p4ast *unary(struct p4parse *p)
{
    enter(p);
    struct p4ast *e = unary_inner(p);
    p->depth--;
    return e;
}

static struct p4ast *unary_inner(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    enum p4tok_kind k = p->tok.kind;
    if (k == P4TOK_NOT || k == P4TOK_TILDE || k == P4TOK_MINUS || k == P4TOK_PLUS) {
        advance(p);
        struct p4ast *e = node(p, P4AST_E_UNARY, loc);
        e->op = (int)k;
        e->a = unary(p);
        return e;
    }
    if (k == P4TOK_LPAREN) {
        /* casts bind like prefix operators */
        struct p4ast *e = primary(p);
        if (e->kind == P4AST_E_CAST && !e->b) {
            e->b = unary(p);
            return e;
        }
        /* a parenthesized expression may be followed by postfix operators */
        for (;;) {
            struct p4_loc l2 = p->tok.loc;
            if (p->tok.kind == P4TOK_DOT) {
                advance(p);
                struct p4ast *m = node(p, P4AST_E_MEMBER, p->tok.loc);
                m->a = e;
                m->name = check_name(p);
                e = m;
            } else if (p->tok.kind == P4TOK_LBRACKET) {
                advance(p);
                struct p4ast *i = expr(p);
                check_next(p, P4TOK_COLON);
                struct p4ast *s = node(p, P4AST_E_SLICE, l2);
                s->a = e;
                s->b = i;
                s->c = expr(p);
                check_match(p, P4TOK_RBRACKET, P4TOK_LBRACKET, l2);
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
        const struct p4_token *n = peek(p, 1);
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
    struct p4ast *left = unary(p);
    for (;;) {
        int op;
        int prec = binprec(p, &op);
        if (!prec || prec < minprec)
            return left;
        struct p4_loc loc = p->tok.loc;
        advance(p);
        if (op == P4TOK_SHR)
            advance(p);
        struct p4ast *e = node(p, P4AST_E_BINARY, loc);
        e->op = op;
        e->a = left;
        e->b = binary(p, prec + 1);
        left = e;
    }
}

/* expr -> binary [ '?' expr ':' expr ] */
static struct p4ast *expr(struct p4parse *p)
{
    struct p4ast *c = binary(p, 1);
    if (p->tok.kind == P4TOK_QUESTION) {
        struct p4ast *e = node(p, P4AST_E_COND, p->tok.loc);
        advance(p);
        e->a = c;
        e->b = expr(p);
        check_next(p, P4TOK_COLON);
        e->c = expr(p);
        return e;
    }
    return c;
}

/* keysetElem -> 'default' | '_' | expr [ '&&&' expr | '..' expr ] */
static struct p4ast *keyset_elem(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    if (test_next(p, P4TOK_KW_DEFAULT))
        return node(p, P4AST_E_DEFAULT, loc);
    if (p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, "_") == 0) {
        advance(p);
        return node(p, P4AST_E_DEFAULT, loc);
    }
    struct p4ast *e = expr(p);
    if (p->tok.kind == P4TOK_MASK || p->tok.kind == P4TOK_RANGE) {
        struct p4ast *m =
            node(p, p->tok.kind == P4TOK_MASK ? P4AST_E_MASK : P4AST_E_RANGE, p->tok.loc);
        advance(p);
        m->a = e;
        m->b = expr(p);
        return m;
    }
    return e;
}

/* keyset -> '(' keysetElem { ',' keysetElem } ')' | keysetElem */
static struct p4ast *keyset(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    if (p->tok.kind == P4TOK_LPAREN) {
        advance(p);
        struct p4ast *l = node(p, P4AST_E_LIST, loc);
        do {
            add(l, keyset_elem(p));
        } while (test_next(p, P4TOK_COMMA));
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, loc);
        if (l->nlist == 1 && p->tok.kind != P4TOK_MASK && p->tok.kind != P4TOK_RANGE)
            return l->list[0];
        if (l->nlist == 1) { /* (a) &&& b */
            struct p4ast *m =
                node(p, p->tok.kind == P4TOK_MASK ? P4AST_E_MASK : P4AST_E_RANGE, p->tok.loc);
            advance(p);
            m->a = l->list[0];
            m->b = expr(p);
            return m;
        }
        return l;
    }
    return keyset_elem(p);
}

/* ---- statements ---- */

static struct p4ast *statement(struct p4parse *p);

/* block -> '{' { statement } '}' */
static struct p4ast *block(struct p4parse *p)
{
    struct p4_loc open = p->tok.loc;
    struct p4ast *b = node(p, P4AST_S_BLOCK, open);
    check_next(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF)
        add(b, statement(p));
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return b;
}

/* selectExpr -> 'select' '(' exprs ')' '{' { keyset ':' name ';' } '}' */
static struct p4ast *select_expr(struct p4parse *p)
{
    struct p4ast *s = node(p, P4AST_E_SELECT, p->tok.loc);
    check_next(p, P4TOK_KW_SELECT);
    struct p4_loc open = check_next(p, P4TOK_LPAREN);
    do {
        add2(s, expr(p));
    } while (test_next(p, P4TOK_COMMA));
    check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
    open = check_next(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4ast *c = node(p, P4AST_E_CASE, p->tok.loc);
        annotations(p, c);
        c->a = keyset(p);
        check_next(p, P4TOK_COLON);
        c->loc = p->tok.loc;
        c->name = check_name(p);
        check_next(p, P4TOK_SEMI);
        add(s, c);
    }
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return s;
}

/* varDecl -> typeRef name [ '=' expr ] ';'   (also instantiation typeRef '(' args ')' name ';') */
static struct p4ast *var_decl(struct p4parse *p, bool allow_inst)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *t = type_ref(p);
    if (allow_inst && p->tok.kind == P4TOK_LPAREN) {
        struct p4ast *d = node(p, P4AST_D_INST, loc);
        d->a = t;
        args(p, d);
        d->loc = p->tok.loc;
        d->name = check_name(p);
        check_next(p, P4TOK_SEMI);
        return d;
    }
    struct p4ast *d = node(p, P4AST_S_VAR, p->tok.loc);
    d->a = t;
    d->name = check_name(p);
    if (test_next(p, P4TOK_ASSIGN))
        d->b = expr(p);
    check_next(p, P4TOK_SEMI);
    return d;
}

/* constDecl -> 'const' typeRef name '=' expr ';' */
static struct p4ast *const_decl(struct p4parse *p)
{
    check_next(p, P4TOK_KW_CONST);
    struct p4ast *t = type_ref(p);
    struct p4ast *d = node(p, P4AST_D_CONST, p->tok.loc);
    d->a = t;
    d->name = check_name(p);
    check_next(p, P4TOK_ASSIGN);
    d->b = expr(p);
    check_next(p, P4TOK_SEMI);
    return d;
}

static bool decl_starts(struct p4parse *p)
{
    const struct p4_token *n = peek(p, 1);
    if (p->tok.kind == P4TOK_KW_ERROR)
        return n->kind == P4TOK_IDENT;
    if (p->tok.kind != P4TOK_IDENT)
        return is_type_start_tok(p, &p->tok);
    if (!is_type_name(p, p->tok.str))
        return false;
    return n->kind == P4TOK_IDENT || n->kind == P4TOK_LT || n->kind == P4TOK_LBRACKET;
}

static struct p4ast *statement_inner(struct p4parse *p);

static struct p4ast *statement(struct p4parse *p)
{
    enter(p);
    struct p4ast *st = statement_inner(p);
    p->depth--;
    return st;
}

static struct p4ast *statement_inner(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *s;
    struct p4ast *ann = node(p, P4AST_S_EMPTY, loc);
    annotations(p, ann);
    switch (p->tok.kind) {
    case P4TOK_LBRACE:
        return block(p);
    case P4TOK_SEMI:
        advance(p);
        return node(p, P4AST_S_EMPTY, loc);
    case P4TOK_KW_IF: {
        advance(p);
        s = node(p, P4AST_S_IF, loc);
        struct p4_loc open = check_next(p, P4TOK_LPAREN);
        s->a = expr(p);
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
        s->b = statement(p);
        if (test_next(p, P4TOK_KW_ELSE))
            s->c = statement(p);
        return s;
    }
    case P4TOK_KW_SWITCH: {
        advance(p);
        s = node(p, P4AST_S_SWITCH, loc);
        struct p4_loc open = check_next(p, P4TOK_LPAREN);
        s->a = expr(p);
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
        open = check_next(p, P4TOK_LBRACE);
        while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
            struct p4ast *c = node(p, P4AST_S_SWCASE, p->tok.loc);
            if (test_next(p, P4TOK_KW_DEFAULT))
                c->a = NULL;
            else
                c->a = expr(p);
            check_next(p, P4TOK_COLON);
            if (p->tok.kind == P4TOK_LBRACE)
                c->b = block(p);
            add(s, c);
        }
        check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
        return s;
    }
    case P4TOK_KW_EXIT:
        advance(p);
        check_next(p, P4TOK_SEMI);
        return node(p, P4AST_S_EXIT, loc);
    case P4TOK_KW_RETURN:
        advance(p);
        s = node(p, P4AST_S_RETURN, loc);
        if (p->tok.kind != P4TOK_SEMI)
            s->a = expr(p);
        check_next(p, P4TOK_SEMI);
        return s;
    case P4TOK_KW_CONST:
        s = const_decl(p);
        s->kind = P4AST_S_CONST;
        return s;
    case P4TOK_KW_TRANSITION:
        advance(p);
        s = node(p, P4AST_S_TRANSITION, loc);
        if (p->tok.kind == P4TOK_KW_SELECT) {
            s->a = select_expr(p);
            test_next(p, P4TOK_SEMI);
        } else {
            s->a = node(p, P4AST_E_NAME, p->tok.loc);
            s->a->name = check_name(p);
            check_next(p, P4TOK_SEMI);
        }
        return s;
    default:
        break;
    }
    if (decl_starts(p)) {
        s = var_decl(p, false);
        move_annots(ann, s);
        return s;
    }
    struct p4ast *e = unary(p);
    if (p->tok.kind == P4TOK_ASSIGN) {
        s = node(p, P4AST_S_ASSIGN, p->tok.loc);
        advance(p);
        s->a = e;
        s->b = expr(p);
    } else {
        if (e->kind != P4AST_E_CALL) {
            if (p->tok.kind == P4TOK_SEMI)
                p4util_error(p->diag, e->loc, "statement is not a call or assignment");
            else
                error_expected(p, "'='");
            longjmp(p->fail, 1);
        }
        s = node(p, P4AST_S_CALL, e->loc);
        s->a = e;
    }
    check_next(p, P4TOK_SEMI);
    return s;
}

/* ---- declarations ---- */

/* actionDecl -> 'action' name params block */
static struct p4ast *action_decl(struct p4parse *p)
{
    check_next(p, P4TOK_KW_ACTION);
    struct p4ast *d = node(p, P4AST_D_ACTION, p->tok.loc);
    d->name = check_name(p);
    params(p, d, false);
    d->a = block(p);
    return d;
}

static bool is_word(struct p4parse *p, const char *w)
{
    return p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, w) == 0;
}

/* tableDecl -> 'table' name '{' { property } '}' */
static struct p4ast *table_decl(struct p4parse *p)
{
    check_next(p, P4TOK_KW_TABLE);
    struct p4ast *d = node(p, P4AST_D_TABLE, p->tok.loc);
    d->name = check_name(p);
    if (p->tok.kind == P4TOK_LPAREN) { /* old syntax: table t() { ... } */
        struct p4_loc o = p->tok.loc;
        advance(p);
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, o);
    }
    struct p4_loc open = check_next(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4_loc loc = p->tok.loc;
        struct p4ast *ann = node(p, P4AST_S_EMPTY, loc);
        annotations(p, ann);
        bool is_const = test_next(p, P4TOK_KW_CONST);
        loc = p->tok.loc;
        if (is_word(p, "key")) {
            advance(p);
            check_next(p, P4TOK_ASSIGN);
            struct p4ast *k = node(p, P4AST_TP_KEY, loc);
            struct p4_loc o2 = check_next(p, P4TOK_LBRACE);
            while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
                struct p4ast *ke = node(p, P4AST_TP_KEY_ELEM, p->tok.loc);
                const char *start = p->tok.text;
                ke->a = expr(p);
                const char *end = p->tok.text;
                /* key text without whitespace: the name STF uses */
                char *txt = p4util_malloc((size_t)(end - start) + 1);
                size_t n = 0;
                for (const char *c = start; c < end; c++) {
                    if (*c != ' ' && *c != '\t' && *c != '\n' && *c != '\r')
                        txt[n++] = *c;
                }
                txt[n] = 0;
                ke->text = txt;
                check_next(p, P4TOK_COLON);
                ke->loc = p->tok.loc; /* errors about the key point at its match kind */
                ke->name = check_name(p);
                annotations(p, ke);
                check_next(p, P4TOK_SEMI);
                add(k, ke);
            }
            check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o2);
            add(d, k);
        } else if (is_word(p, "actions")) {
            advance(p);
            check_next(p, P4TOK_ASSIGN);
            struct p4ast *k = node(p, P4AST_TP_ACTIONS, loc);
            struct p4_loc o2 = check_next(p, P4TOK_LBRACE);
            while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
                struct p4ast *ar = node(p, P4AST_TP_ACTION_REF, p->tok.loc);
                annotations(p, ar);
                ar->loc = p->tok.loc;
                ar->a = unary(p);
                check_next(p, P4TOK_SEMI);
                add(k, ar);
            }
            check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o2);
            add(d, k);
        } else if (is_word(p, "default_action")) {
            advance(p);
            check_next(p, P4TOK_ASSIGN);
            struct p4ast *k = node(p, P4AST_TP_DEFAULT, loc);
            k->is_const = is_const;
            k->a = unary(p);
            check_next(p, P4TOK_SEMI);
            add(d, k);
        } else if (is_word(p, "entries")) {
            advance(p);
            check_next(p, P4TOK_ASSIGN);
            struct p4ast *k = node(p, P4AST_TP_ENTRIES, loc);
            k->is_const = is_const;
            struct p4_loc o2 = check_next(p, P4TOK_LBRACE);
            while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
                struct p4ast *en = node(p, P4AST_TP_ENTRY, p->tok.loc);
                annotations(p, en);
                if (is_word(p, "priority") && peek(p, 1)->kind == P4TOK_ASSIGN) {
                    advance(p);
                    advance(p);
                    en->c = expr(p);
                    check_next(p, P4TOK_COLON);
                }
                en->loc = p->tok.loc;
                en->a = keyset(p);
                check_next(p, P4TOK_COLON);
                en->b = unary(p);
                check_next(p, P4TOK_SEMI);
                add(k, en);
            }
            check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o2);
            add(d, k);
        } else {
            struct p4ast *k = node(p, P4AST_TP_OTHER, loc);
            k->name = check_name(p);
            check_next(p, P4TOK_ASSIGN);
            k->a = expr(p);
            check_next(p, P4TOK_SEMI);
            add(d, k);
        }
    }
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return d;
}

/* controlLocal -> constDecl | actionDecl | tableDecl | varDecl | instantiation */
static struct p4ast *local_decl(struct p4parse *p)
{
    struct p4ast *ann = node(p, P4AST_S_EMPTY, p->tok.loc);
    annotations(p, ann);
    struct p4ast *d;
    if (p->tok.kind == P4TOK_KW_CONST)
        d = const_decl(p);
    else if (p->tok.kind == P4TOK_KW_ACTION)
        d = action_decl(p);
    else if (p->tok.kind == P4TOK_KW_TABLE)
        d = table_decl(p);
    else if (p->tok.kind == P4TOK_KW_VALUE_SET) {
        /* valueSetDecl -> 'value_set' '<' typeRef '>' '(' expr ')' name ';' */
        d = node(p, P4AST_D_VALUE_SET, p->tok.loc);
        advance(p);
        struct p4_loc open = check_next(p, P4TOK_LT);
        d->a = type_ref(p);
        check_match(p, P4TOK_GT, P4TOK_LT, open);
        open = check_next(p, P4TOK_LPAREN);
        d->b = expr(p);
        check_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
        d->loc = p->tok.loc;
        d->name = check_name(p);
        check_next(p, P4TOK_SEMI);
    } else if (is_type_start_tok(p, &p->tok) || p->tok.kind == P4TOK_KW_ERROR ||
               p->tok.kind == P4TOK_IDENT)
        d = var_decl(p, true);
    else
        error_expected(p, "declaration");
    move_annots(ann, d);
    return d;
}

/* parserDecl -> 'parser' name [typeParams] params [params] ( ';' | '{' locals states '}' ) */
static struct p4ast *parser_or_control(struct p4parse *p, bool is_parser)
{
    advance(p);
    struct p4ast *d = node(p, is_parser ? P4AST_D_PARSER : P4AST_D_CONTROL, p->tok.loc);
    d->name = check_name(p);
    declare_type(p, d->name);
    type_params(p);
    params(p, d, false);
    if (p->tok.kind == P4TOK_LPAREN)
        params(p, d, true);
    if (test_next(p, P4TOK_SEMI)) {
        d->kind = is_parser ? P4AST_D_PARSER_TYPE : P4AST_D_CONTROL_TYPE;
        return d;
    }
    struct p4_loc open = check_next(p, P4TOK_LBRACE);
    d->a = node(p, P4AST_S_BLOCK, open); /* locals */
    d->b = node(p, P4AST_S_BLOCK, open); /* states */
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        if (is_parser && is_word(p, "state")) {
            advance(p);
            struct p4ast *st = node(p, P4AST_D_STATE, p->tok.loc);
            st->name = check_name(p);
            struct p4_loc o2 = check_next(p, P4TOK_LBRACE);
            while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF)
                add(st, statement(p));
            check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o2);
            add(d->b, st);
        } else if (!is_parser && is_word(p, "apply")) {
            advance(p);
            d->c = block(p);
            break;
        } else {
            add(d->a, local_decl(p));
        }
    }
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    if (!is_parser && !d->c)
        p4util_error(p->diag, d->loc, "control '%s' has no apply block", d->name);
    return d;
}

/* enumDecl -> 'enum' [ 'bit' '<' N '>' ] name '{' member [ '=' expr ] { ',' ... } '}' */
static struct p4ast *enum_decl(struct p4parse *p)
{
    check_next(p, P4TOK_KW_ENUM);
    struct p4ast *d = node(p, P4AST_D_ENUM, p->tok.loc);
    if (p->tok.kind != P4TOK_IDENT)
        d->a = type_ref(p);
    d->loc = p->tok.loc;
    d->name = check_name(p);
    declare_type(p, d->name);
    struct p4_loc open = check_next(p, P4TOK_LBRACE);
    do {
        if (p->tok.kind == P4TOK_RBRACE)
            break;
        struct p4ast *m = node(p, P4AST_D_ENUM_MEMBER, p->tok.loc);
        m->name = check_name(p);
        if (test_next(p, P4TOK_ASSIGN))
            m->a = expr(p);
        add(d, m);
    } while (test_next(p, P4TOK_COMMA));
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return d;
}

/* externDecl -> 'extern' name [typeParams] '{' { method } '}' | 'extern' function proto */
static struct p4ast *extern_decl(struct p4parse *p)
{
    check_next(p, P4TOK_KW_EXTERN);
    bool is_type = p->tok.kind == P4TOK_IDENT &&
                   (peek(p, 1)->kind == P4TOK_LBRACE || peek(p, 1)->kind == P4TOK_LT);
    if (is_type) {
        struct p4ast *d = node(p, P4AST_D_EXTERN_TYPE, p->tok.loc);
        d->name = check_name(p);
        declare_type(p, d->name);
        if (p->tok.kind == P4TOK_LT) {
            type_params(p);
            if (p->tok.kind != P4TOK_LBRACE) {
                /* it was `extern Name<T> f(...)`: unusual; treat as function */
                error_expected(p, "'{'");
            }
        }
        struct p4_loc open = check_next(p, P4TOK_LBRACE);
        while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
            struct p4ast *m = node(p, P4AST_D_EXTERN_FUNC, p->tok.loc);
            annotations(p, m);
            m->is_const = test_next(p, P4TOK_KW_ABSTRACT);
            if (p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, d->name) == 0 &&
                peek(p, 1)->kind == P4TOK_LPAREN) {
                m->name = check_name(p); /* constructor */
            } else {
                m->a = type_ref(p);
                m->loc = p->tok.loc;
                m->name = check_name(p);
                type_params(p);
            }
            params(p, m, false);
            check_next(p, P4TOK_SEMI);
            add(d, m);
        }
        check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
        return d;
    }
    struct p4ast *f = node(p, P4AST_D_EXTERN_FUNC, p->tok.loc);
    f->a = type_ref(p);
    f->loc = p->tok.loc;
    f->name = check_name(p);
    type_params(p);
    params(p, f, false);
    check_next(p, P4TOK_SEMI);
    return f;
}

/* fields -> '{' { annots typeRef name ';' } '}' */
static void fields(struct p4parse *p, struct p4ast *d)
{
    struct p4_loc open = check_next(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4ast *f = node(p, P4AST_D_FIELD, p->tok.loc);
        annotations(p, f);
        f->a = type_ref(p);
        f->loc = p->tok.loc;
        f->name = check_name(p);
        check_next(p, P4TOK_SEMI);
        add(d, f);
    }
    check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
}

static struct p4ast *declaration(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *ann = node(p, P4AST_S_EMPTY, loc);
    annotations(p, ann);
    struct p4ast *d = NULL;
    switch (p->tok.kind) {
    case P4TOK_SEMI:
        advance(p);
        return NULL;
    case P4TOK_KW_CONST:
        d = const_decl(p);
        break;
    case P4TOK_KW_TYPEDEF:
    case P4TOK_KW_TYPE:
        advance(p);
        d = node(p, P4AST_D_TYPEDEF, loc);
        d->a = type_ref(p);
        d->loc = p->tok.loc;
        d->name = check_name(p);
        declare_type(p, d->name);
        check_next(p, P4TOK_SEMI);
        break;
    case P4TOK_KW_HEADER:
    case P4TOK_KW_STRUCT:
    case P4TOK_KW_HEADER_UNION: {
        enum p4ast_kind k = p->tok.kind == P4TOK_KW_HEADER   ? P4AST_D_HEADER
                            : p->tok.kind == P4TOK_KW_STRUCT ? P4AST_D_STRUCT
                                                             : P4AST_D_UNION;
        advance(p);
        d = node(p, k, p->tok.loc);
        d->name = check_name(p);
        declare_type(p, d->name);
        type_params(p);
        fields(p, d);
        break;
    }
    case P4TOK_KW_ENUM:
        d = enum_decl(p);
        break;
    case P4TOK_KW_ERROR:
    case P4TOK_KW_MATCH_KIND: {
        d = node(p, p->tok.kind == P4TOK_KW_ERROR ? P4AST_D_ERROR : P4AST_D_MATCH_KIND, loc);
        advance(p);
        struct p4_loc open = check_next(p, P4TOK_LBRACE);
        do {
            if (p->tok.kind == P4TOK_RBRACE)
                break;
            struct p4ast *m = node(p, P4AST_D_ENUM_MEMBER, p->tok.loc);
            m->name = check_name(p);
            add(d, m);
        } while (test_next(p, P4TOK_COMMA));
        check_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
        break;
    }
    case P4TOK_KW_EXTERN:
        d = extern_decl(p);
        break;
    case P4TOK_KW_PARSER:
        d = parser_or_control(p, true);
        break;
    case P4TOK_KW_CONTROL:
        d = parser_or_control(p, false);
        break;
    case P4TOK_KW_PACKAGE:
        advance(p);
        d = node(p, P4AST_D_PACKAGE, p->tok.loc);
        d->name = check_name(p);
        declare_type(p, d->name);
        type_params(p);
        params(p, d, false);
        check_next(p, P4TOK_SEMI);
        break;
    case P4TOK_KW_ACTION:
        d = action_decl(p);
        break;
    default: {
        if (is_word(p, "type") &&
            (is_type_start_tok(p, peek(p, 1)) || peek(p, 1)->kind == P4TOK_IDENT)) {
            advance(p);
            d = node(p, P4AST_D_TYPEDEF, loc);
            d->a = type_ref(p);
            d->loc = p->tok.loc;
            d->name = check_name(p);
            declare_type(p, d->name);
            check_next(p, P4TOK_SEMI);
            break;
        }
        if (!is_type_start_tok(p, &p->tok) && p->tok.kind != P4TOK_IDENT)
            error_expected(p, "declaration");
        struct p4ast *t = type_ref(p);
        if (p->tok.kind == P4TOK_LPAREN) {
            d = node(p, P4AST_D_INST, loc);
            d->a = t;
            args(p, d);
            d->loc = p->tok.loc;
            d->name = check_name(p);
            check_next(p, P4TOK_SEMI);
        } else {
            d = node(p, P4AST_D_FUNC, p->tok.loc);
            d->a = t;
            d->name = check_name(p);
            type_params(p);
            params(p, d, false);
            d->b = block(p);
        }
        break;
    }
    }
    move_annots(ann, d);
    return d;
}

struct p4ast *p4parse_program(struct p4parse *p, struct p4lex *lx, struct p4_diag *diag)
{
    memset(p, 0, sizeof(*p));
    p->lx = lx;
    p->diag = diag;
    static const char *const builtin_types[] = {"packet_in", "packet_out"};
    for (size_t i = 0; i < P4_ARRAY_LEN(builtin_types); i++)
        declare_type(p, builtin_types[i]);
    struct p4ast *prog = node(p, P4AST_S_BLOCK, (struct p4_loc){lx->file, 1, 1, NULL});
    if (setjmp(p->fail))
        return NULL;
    advance(p);
    while (p->tok.kind != P4TOK_EOF) {
        struct p4ast *d = declaration(p);
        if (d)
            add(prog, d);
    }
    if (diag->nerrors)
        return NULL;
    return prog;
}
