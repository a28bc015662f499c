/* P4_16 parser, statements and declarations (the other half of p4parse.c, which holds the
 * token helpers, annotations, types and expressions). Each grammar function starts with its
 * production. */
#include "p4/engine/p4pdecl.h"

#include <stdlib.h>
#include <string.h>

/* ---- statements ---- */

static struct p4ast *statement(struct p4parse *p);

/* block -> '{' { statement } '}' */
static struct p4ast *block(struct p4parse *p)
{
    struct p4_loc open = p->tok.loc;
    struct p4ast *b = p4parse_node(p, P4AST_S_BLOCK, open);
    p4parse_check(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF)
        p4parse_add(b, statement(p));
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return b;
}

/* selectExpr -> 'select' '(' exprs ')' '{' { keyset ':' name ';' } '}' */
static struct p4ast *select_expr(struct p4parse *p)
{
    struct p4ast *s = p4parse_node(p, P4AST_E_SELECT, p->tok.loc);
    p4parse_check(p, P4TOK_KW_SELECT);
    struct p4_loc open = p4parse_check(p, P4TOK_LPAREN);
    do {
        p4parse_add2(s, p4parse_expr(p));
    } while (p4parse_test(p, P4TOK_COMMA));
    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
    open = p4parse_check(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4ast *c = p4parse_node(p, P4AST_E_CASE, p->tok.loc);
        p4parse_annotations(p, c);
        c->a = p4parse_keyset(p);
        p4parse_check(p, P4TOK_COLON);
        c->loc = p->tok.loc;
        c->name = p4parse_name(p);
        p4parse_check(p, P4TOK_SEMI);
        p4parse_add(s, c);
    }
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return s;
}

/* varDecl -> typeRef name [ '=' expr ] ';'   (also instantiation typeRef '(' args ')' name ';') */
static struct p4ast *var_decl(struct p4parse *p, bool allow_inst)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *t = p4parse_type(p);
    if (allow_inst && p->tok.kind == P4TOK_LPAREN) {
        struct p4ast *d = p4parse_node(p, P4AST_D_INST, loc);
        d->a = t;
        p4parse_args(p, d);
        d->loc = p->tok.loc;
        d->name = p4parse_name(p);
        p4parse_check(p, P4TOK_SEMI);
        return d;
    }
    struct p4ast *d = p4parse_node(p, P4AST_S_VAR, p->tok.loc);
    d->a = t;
    d->name = p4parse_name(p);
    if (p4parse_test(p, P4TOK_ASSIGN))
        d->b = p4parse_expr(p);
    p4parse_check(p, P4TOK_SEMI);
    return d;
}

/* constDecl -> 'const' typeRef name '=' expr ';' */
static struct p4ast *const_decl(struct p4parse *p)
{
    p4parse_check(p, P4TOK_KW_CONST);
    struct p4ast *t = p4parse_type(p);
    struct p4ast *d = p4parse_node(p, P4AST_D_CONST, p->tok.loc);
    d->a = t;
    d->name = p4parse_name(p);
    p4parse_check(p, P4TOK_ASSIGN);
    d->b = p4parse_expr(p);
    p4parse_check(p, P4TOK_SEMI);
    return d;
}

static bool decl_starts(struct p4parse *p)
{
    const struct p4_token *n = p4parse_peek(p, 1);
    if (p->tok.kind == P4TOK_KW_ERROR)
        return n->kind == P4TOK_IDENT;
    if (p->tok.kind != P4TOK_IDENT)
        return p4parse_type_start(p, &p->tok);
    if (!p4parse_is_type(p, p->tok.str))
        return false;
    return n->kind == P4TOK_IDENT || n->kind == P4TOK_LT || n->kind == P4TOK_LBRACKET;
}

static struct p4ast *statement_inner(struct p4parse *p);

static struct p4ast *statement(struct p4parse *p)
{
    p4parse_enter(p);
    struct p4ast *st = statement_inner(p);
    p->depth--;
    return st;
}

/* The binary operator of a compound assignment at the current token ('+=' ... '>>=',
 * '|+|=', '|-|=', P4_16 1.2.4), consumed; 0 if there is none. */
static int compound_op(struct p4parse *p)
{
    const struct p4_token *n = p4parse_peek(p, 1);
    switch (p->tok.kind) {
    case P4TOK_PLUS:
    case P4TOK_MINUS:
    case P4TOK_STAR:
    case P4TOK_SLASH:
    case P4TOK_PERCENT:
    case P4TOK_AMP:
    case P4TOK_PIPE:
    case P4TOK_CARET:
    case P4TOK_SHL:
    case P4TOK_SATADD:
    case P4TOK_SATSUB: {
        if (n->kind != P4TOK_ASSIGN || !n->adjacent)
            return 0;
        int op = p->tok.kind;
        p4parse_advance(p);
        p4parse_advance(p);
        return op;
    }
    case P4TOK_GT: /* '>' '>=' */
        if (n->kind != P4TOK_GE || !n->adjacent)
            return 0;
        p4parse_advance(p);
        p4parse_advance(p);
        return P4TOK_SHR;
    default:
        return 0;
    }
}

/* simpleStatement -> variableDeclaration | lvalue ['op']= expression | call (no ';', except
 * that a declaration takes its own) */
static struct p4ast *simple_statement(struct p4parse *p)
{
    if (decl_starts(p))
        return var_decl(p, false);
    struct p4ast *s;
    struct p4ast *e = p4parse_unary(p);
    int op = compound_op(p);
    if (op || p->tok.kind == P4TOK_ASSIGN) {
        s = p4parse_node(p, P4AST_S_ASSIGN, op ? e->loc : p->tok.loc);
        if (!op)
            p4parse_advance(p);
        s->op = op;
        s->a = e;
        s->b = p4parse_expr(p);
        return s;
    }
    if (e->kind != P4AST_E_CALL) {
        if (p->tok.kind == P4TOK_SEMI)
            p4util_error(p->diag, e->loc, "statement is not a call or assignment");
        else
            p4parse_expected(p, "'='");
        longjmp(p->fail, 1);
    }
    s = p4parse_node(p, P4AST_S_CALL, e->loc);
    s->a = e;
    return s;
}

/* A declaration in a for header: typeRef name ['=' expression], without ';'. */
static struct p4ast *for_decl(struct p4parse *p)
{
    struct p4ast *s = p4parse_node(p, P4AST_S_VAR, p->tok.loc);
    s->a = p4parse_type(p);
    s->loc = p->tok.loc;
    s->name = p4parse_name(p);
    return s;
}

/* The rest of a comma-separated list of for-header statements, into list or list2. */
static void for_statements(struct p4parse *p, struct p4ast *into, bool second, struct p4ast *first,
                           enum p4tok_kind end)
{
    if (!first && p->tok.kind == end)
        return;
    do {
        struct p4ast *s = first;
        first = NULL;
        if (!s)
            s = decl_starts(p) ? for_decl(p) : simple_statement(p);
        if (s->kind == P4AST_S_VAR && !s->b && p4parse_test(p, P4TOK_ASSIGN))
            s->b = p4parse_expr(p);
        p4parse_add_to(into, second, s);
    } while (p4parse_test(p, P4TOK_COMMA));
}

/* forStatement -> FOR '(' init ';' [cond] ';' update ')' statement
 *              |  FOR '(' typeRef name IN expression ['..' expression] ')' statement */
static struct p4ast *for_statement(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    p4parse_advance(p);
    struct p4_loc open = p4parse_check(p, P4TOK_LPAREN);
    struct p4ast *s;
    p4parse_annotations(p, NULL);
    struct p4ast *first = decl_starts(p) ? for_decl(p) : NULL;
    if (first && p4parse_test(p, P4TOK_KW_IN)) {
        s = p4parse_node(p, P4AST_S_FORIN, loc);
        s->a = first;
        s->b = p4parse_expr(p);
        if (p->tok.kind == P4TOK_RANGE) {
            struct p4ast *r = p4parse_node(p, P4AST_E_RANGE, p->tok.loc);
            p4parse_advance(p);
            r->a = s->b;
            r->b = p4parse_expr(p);
            s->b = r;
        }
    } else {
        s = p4parse_node(p, P4AST_S_FOR, loc);
        for_statements(p, s, false, first, P4TOK_SEMI);
        p4parse_check(p, P4TOK_SEMI);
        if (p->tok.kind != P4TOK_SEMI)
            s->a = p4parse_expr(p);
        p4parse_check(p, P4TOK_SEMI);
        for_statements(p, s, true, NULL, P4TOK_RPAREN);
    }
    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
    s->c = statement(p);
    return s;
}

/* keyword '(' expr ')': a node of kind k at loc with a = the expression */
static struct p4ast *keyword_paren(struct p4parse *p, enum p4ast_kind k, struct p4_loc loc)
{
    p4parse_advance(p);
    struct p4ast *s = p4parse_node(p, k, loc);
    struct p4_loc open = p4parse_check(p, P4TOK_LPAREN);
    s->a = p4parse_expr(p);
    p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
    return s;
}

static struct p4ast *statement_inner(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *s;
    struct p4ast *ann = p4parse_node(p, P4AST_S_EMPTY, loc);
    p4parse_annotations(p, ann);
    switch (p->tok.kind) {
    case P4TOK_LBRACE:
        return block(p);
    case P4TOK_SEMI:
        p4parse_advance(p);
        return p4parse_node(p, P4AST_S_EMPTY, loc);
    case P4TOK_KW_IF: {
        s = keyword_paren(p, P4AST_S_IF, loc);
        s->b = statement(p);
        if (p4parse_test(p, P4TOK_KW_ELSE))
            s->c = statement(p);
        return s;
    }
    case P4TOK_KW_SWITCH: {
        s = keyword_paren(p, P4AST_S_SWITCH, loc);
        struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
        while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
            struct p4ast *c = p4parse_node(p, P4AST_S_SWCASE, p->tok.loc);
            if (p4parse_test(p, P4TOK_KW_DEFAULT))
                c->a = NULL;
            else
                c->a = p4parse_expr(p);
            p4parse_check(p, P4TOK_COLON);
            if (p->tok.kind == P4TOK_LBRACE)
                c->b = block(p);
            p4parse_add(s, c);
        }
        p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
        return s;
    }
    case P4TOK_KW_EXIT:
        p4parse_advance(p);
        p4parse_check(p, P4TOK_SEMI);
        return p4parse_node(p, P4AST_S_EXIT, loc);
    case P4TOK_KW_RETURN:
        p4parse_advance(p);
        s = p4parse_node(p, P4AST_S_RETURN, loc);
        if (p->tok.kind != P4TOK_SEMI)
            s->a = p4parse_expr(p);
        p4parse_check(p, P4TOK_SEMI);
        return s;
    case P4TOK_KW_CONST:
        s = const_decl(p);
        s->kind = P4AST_S_CONST;
        return s;
    case P4TOK_KW_TRANSITION:
        p4parse_advance(p);
        s = p4parse_node(p, P4AST_S_TRANSITION, loc);
        if (p->tok.kind == P4TOK_KW_SELECT) {
            s->a = select_expr(p);
            p4parse_test(p, P4TOK_SEMI);
        } else {
            s->a = p4parse_node(p, P4AST_E_NAME, p->tok.loc);
            s->a->name = p4parse_name(p);
            p4parse_check(p, P4TOK_SEMI);
        }
        return s;
    default:
        break;
    }
    if (p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, "for") == 0 &&
        p4parse_peek(p, 1)->kind == P4TOK_LPAREN)
        return for_statement(p);
    if (p->tok.kind == P4TOK_IDENT &&
        (strcmp(p->tok.str, "break") == 0 || strcmp(p->tok.str, "continue") == 0) &&
        p4parse_peek(p, 1)->kind == P4TOK_SEMI) {
        s = p4parse_node(p, p->tok.str[0] == 'b' ? P4AST_S_BREAK : P4AST_S_CONTINUE, loc);
        p4parse_advance(p);
        p4parse_advance(p);
        return s;
    }
    s = simple_statement(p);
    if (s->kind == P4AST_S_VAR)
        p4parse_move_annots(ann, s);
    else
        p4parse_check(p, P4TOK_SEMI);
    return s;
}

/* ---- declarations ---- */

/* actionDecl -> 'action' name params block */
static struct p4ast *action_decl(struct p4parse *p)
{
    p4parse_check(p, P4TOK_KW_ACTION);
    struct p4ast *d = p4parse_node(p, P4AST_D_ACTION, p->tok.loc);
    d->name = p4parse_name(p);
    p4parse_params(p, d, false);
    d->a = block(p);
    return d;
}

static bool is_word(struct p4parse *p, const char *w)
{
    return p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, w) == 0;
}

/* keyElement -> expr ':' name annotations ';' */
static struct p4ast *key_elem(struct p4parse *p)
{
    struct p4ast *ke = p4parse_node(p, P4AST_TP_KEY_ELEM, p->tok.loc);
    const char *start = p->tok.text;
    ke->a = p4parse_expr(p);
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
    p4parse_check(p, P4TOK_COLON);
    ke->loc = p->tok.loc; /* errors about the key point at its match kind */
    ke->name = p4parse_name(p);
    p4parse_annotations(p, ke);
    p4parse_check(p, P4TOK_SEMI);
    return ke;
}

/* actionRef -> annotations name [ '(' args ')' ] ';' */
static struct p4ast *action_ref(struct p4parse *p)
{
    struct p4ast *ar = p4parse_node(p, P4AST_TP_ACTION_REF, p->tok.loc);
    p4parse_annotations(p, ar);
    ar->loc = p->tok.loc;
    ar->a = p4parse_unary(p);
    p4parse_check(p, P4TOK_SEMI);
    return ar;
}

/* entry -> annotations [ 'const' ] [ 'priority' '=' expr ':' ] keyset ':' actionRef ';' */
static struct p4ast *table_entry(struct p4parse *p)
{
    struct p4ast *en = p4parse_node(p, P4AST_TP_ENTRY, p->tok.loc);
    p4parse_annotations(p, en);
    en->is_const = p4parse_test(p, P4TOK_KW_CONST);
    if (is_word(p, "priority") && p4parse_peek(p, 1)->kind == P4TOK_ASSIGN) {
        p4parse_advance(p);
        p4parse_advance(p);
        en->c = p4parse_expr(p);
        p4parse_check(p, P4TOK_COLON);
    }
    en->loc = p->tok.loc;
    en->a = p4parse_keyset(p);
    p4parse_check(p, P4TOK_COLON);
    en->b = p4parse_unary(p);
    p4parse_check(p, P4TOK_SEMI);
    return en;
}

/* property -> word '=' ( '{' { elem } '}' | value ';' ): the property's node (elem NULL: a
 * single value) */
static struct p4ast *table_prop(struct p4parse *p, enum p4ast_kind kind, struct p4_loc loc,
                                struct p4ast *(*elem)(struct p4parse *p))
{
    p4parse_advance(p);
    p4parse_check(p, P4TOK_ASSIGN);
    struct p4ast *k = p4parse_node(p, kind, loc);
    if (!elem) {
        k->a = p4parse_unary(p);
        p4parse_check(p, P4TOK_SEMI);
        return k;
    }
    struct p4_loc o = p4parse_check(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF)
        p4parse_add(k, elem(p));
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o);
    return k;
}

/* tableDecl -> 'table' name '{' { property } '}' */
static struct p4ast *table_decl(struct p4parse *p)
{
    p4parse_check(p, P4TOK_KW_TABLE);
    struct p4ast *d = p4parse_node(p, P4AST_D_TABLE, p->tok.loc);
    d->name = p4parse_name(p);
    if (p->tok.kind == P4TOK_LPAREN) { /* old syntax: table t() { ... } */
        struct p4_loc o = p->tok.loc;
        p4parse_advance(p);
        p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, o);
    }
    struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4_loc loc = p->tok.loc;
        struct p4ast *ann = p4parse_node(p, P4AST_S_EMPTY, loc);
        p4parse_annotations(p, ann);
        bool is_const = p4parse_test(p, P4TOK_KW_CONST);
        loc = p->tok.loc;
        struct p4ast *k;
        if (is_word(p, "key")) {
            k = table_prop(p, P4AST_TP_KEY, loc, key_elem);
        } else if (is_word(p, "actions")) {
            k = table_prop(p, P4AST_TP_ACTIONS, loc, action_ref);
        } else if (is_word(p, "default_action")) {
            k = table_prop(p, P4AST_TP_DEFAULT, loc, NULL);
            k->is_const = is_const;
        } else if (is_word(p, "entries")) {
            k = table_prop(p, P4AST_TP_ENTRIES, loc, table_entry);
            k->is_const = is_const;
        } else {
            k = p4parse_node(p, P4AST_TP_OTHER, loc);
            k->name = p4parse_name(p);
            p4parse_check(p, P4TOK_ASSIGN);
            k->a = p4parse_expr(p);
            p4parse_check(p, P4TOK_SEMI);
        }
        p4parse_add(d, k);
    }
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    return d;
}

/* controlLocal -> constDecl | actionDecl | tableDecl | varDecl | instantiation */
static struct p4ast *local_decl(struct p4parse *p)
{
    struct p4ast *ann = p4parse_node(p, P4AST_S_EMPTY, p->tok.loc);
    p4parse_annotations(p, ann);
    struct p4ast *d;
    if (p->tok.kind == P4TOK_KW_CONST)
        d = const_decl(p);
    else if (p->tok.kind == P4TOK_KW_ACTION)
        d = action_decl(p);
    else if (p->tok.kind == P4TOK_KW_TABLE)
        d = table_decl(p);
    else if (p->tok.kind == P4TOK_KW_VALUE_SET) {
        /* valueSetDecl -> 'value_set' '<' typeRef '>' '(' expr ')' name ';' */
        d = p4parse_node(p, P4AST_D_VALUE_SET, p->tok.loc);
        p4parse_advance(p);
        struct p4_loc open = p4parse_check(p, P4TOK_LT);
        d->a = p4parse_type(p);
        p4parse_match(p, P4TOK_GT, P4TOK_LT, open);
        open = p4parse_check(p, P4TOK_LPAREN);
        d->b = p4parse_expr(p);
        p4parse_match(p, P4TOK_RPAREN, P4TOK_LPAREN, open);
        d->loc = p->tok.loc;
        d->name = p4parse_name(p);
        p4parse_check(p, P4TOK_SEMI);
    } else if (p4parse_type_start(p, &p->tok) || p->tok.kind == P4TOK_KW_ERROR ||
               p->tok.kind == P4TOK_IDENT)
        d = var_decl(p, true);
    else
        p4parse_expected(p, "declaration");
    p4parse_move_annots(ann, d);
    return d;
}

/* parserDecl -> 'parser' name [typeParams] params [params] ( ';' | '{' locals states '}' ) */
static struct p4ast *parser_or_control(struct p4parse *p, bool is_parser)
{
    p4parse_advance(p);
    struct p4ast *d = p4parse_node(p, is_parser ? P4AST_D_PARSER : P4AST_D_CONTROL, p->tok.loc);
    d->name = p4parse_name(p);
    p4parse_declare_type(p, d->name);
    p4parse_type_params(p);
    p4parse_params(p, d, false);
    if (p->tok.kind == P4TOK_LPAREN)
        p4parse_params(p, d, true);
    if (p4parse_test(p, P4TOK_SEMI)) {
        d->kind = is_parser ? P4AST_D_PARSER_TYPE : P4AST_D_CONTROL_TYPE;
        return d;
    }
    struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
    d->a = p4parse_node(p, P4AST_S_BLOCK, open); /* locals */
    d->b = p4parse_node(p, P4AST_S_BLOCK, open); /* states */
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        if (is_parser && is_word(p, "state")) {
            p4parse_advance(p);
            struct p4ast *st = p4parse_node(p, P4AST_D_STATE, p->tok.loc);
            st->name = p4parse_name(p);
            struct p4_loc o2 = p4parse_check(p, P4TOK_LBRACE);
            while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF)
                p4parse_add(st, statement(p));
            p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, o2);
            p4parse_add(d->b, st);
        } else if (!is_parser && is_word(p, "apply")) {
            p4parse_advance(p);
            d->c = block(p);
            break;
        } else {
            p4parse_add(d->a, local_decl(p));
        }
    }
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
    if (!is_parser && !d->c)
        p4util_error(p->diag, d->loc, "control '%s' has no apply block", d->name);
    return d;
}

/* '{' name [ '=' expr ] { ',' name [ '=' expr ] } [ ',' ] '}' (values: the '=' forms too), the
 * members added to d */
static void member_list(struct p4parse *p, struct p4ast *d, bool values)
{
    struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
    do {
        if (p->tok.kind == P4TOK_RBRACE)
            break;
        struct p4ast *m = p4parse_node(p, P4AST_D_ENUM_MEMBER, p->tok.loc);
        m->name = p4parse_name(p);
        if (values && p4parse_test(p, P4TOK_ASSIGN))
            m->a = p4parse_expr(p);
        p4parse_add(d, m);
    } while (p4parse_test(p, P4TOK_COMMA));
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
}

/* enumDecl -> 'enum' [ 'bit' '<' N '>' ] name '{' member [ '=' expr ] { ',' ... } '}' */
static struct p4ast *enum_decl(struct p4parse *p)
{
    p4parse_check(p, P4TOK_KW_ENUM);
    struct p4ast *d = p4parse_node(p, P4AST_D_ENUM, p->tok.loc);
    if (p->tok.kind != P4TOK_IDENT)
        d->a = p4parse_type(p);
    d->loc = p->tok.loc;
    d->name = p4parse_name(p);
    p4parse_declare_type(p, d->name);
    member_list(p, d, true);
    return d;
}

/* externDecl -> 'extern' name [typeParams] '{' { method } '}' | 'extern' function proto */
static struct p4ast *extern_decl(struct p4parse *p)
{
    p4parse_check(p, P4TOK_KW_EXTERN);
    bool is_type = p->tok.kind == P4TOK_IDENT && (p4parse_peek(p, 1)->kind == P4TOK_LBRACE ||
                                                  p4parse_peek(p, 1)->kind == P4TOK_LT);
    if (is_type) {
        struct p4ast *d = p4parse_node(p, P4AST_D_EXTERN_TYPE, p->tok.loc);
        d->name = p4parse_name(p);
        p4parse_declare_type(p, d->name);
        if (p->tok.kind == P4TOK_LT) {
            p4parse_type_params(p);
            if (p->tok.kind != P4TOK_LBRACE) {
                /* it was `extern Name<T> f(...)`: unusual; treat as function */
                p4parse_expected(p, "'{'");
            }
        }
        struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
        while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
            struct p4ast *m = p4parse_node(p, P4AST_D_EXTERN_FUNC, p->tok.loc);
            p4parse_annotations(p, m);
            m->is_const = p4parse_test(p, P4TOK_KW_ABSTRACT);
            if (p->tok.kind == P4TOK_IDENT && strcmp(p->tok.str, d->name) == 0 &&
                p4parse_peek(p, 1)->kind == P4TOK_LPAREN) {
                m->name = p4parse_name(p); /* constructor */
            } else {
                m->a = p4parse_type(p);
                m->loc = p->tok.loc;
                m->name = p4parse_name(p);
                p4parse_type_params(p);
            }
            p4parse_params(p, m, false);
            p4parse_check(p, P4TOK_SEMI);
            p4parse_add(d, m);
        }
        p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
        return d;
    }
    struct p4ast *f = p4parse_node(p, P4AST_D_EXTERN_FUNC, p->tok.loc);
    f->a = p4parse_type(p);
    f->loc = p->tok.loc;
    f->name = p4parse_name(p);
    f->op = p4parse_type_params(p); /* generic if > 0 */
    p4parse_params(p, f, false);
    p4parse_check(p, P4TOK_SEMI);
    return f;
}

/* fields -> '{' { annots typeRef name ';' } '}' */
static void fields(struct p4parse *p, struct p4ast *d)
{
    struct p4_loc open = p4parse_check(p, P4TOK_LBRACE);
    while (p->tok.kind != P4TOK_RBRACE && p->tok.kind != P4TOK_EOF) {
        struct p4ast *f = p4parse_node(p, P4AST_D_FIELD, p->tok.loc);
        p4parse_annotations(p, f);
        f->a = p4parse_type(p);
        f->loc = p->tok.loc;
        f->name = p4parse_name(p);
        p4parse_check(p, P4TOK_SEMI);
        p4parse_add(d, f);
    }
    p4parse_match(p, P4TOK_RBRACE, P4TOK_LBRACE, open);
}

/* typedefDecl -> ('typedef' | 'type') typeRef name ';' (at the keyword) */
static struct p4ast *typedef_decl(struct p4parse *p, struct p4_loc loc)
{
    p4parse_advance(p);
    struct p4ast *d = p4parse_node(p, P4AST_D_TYPEDEF, loc);
    d->a = p4parse_type(p);
    d->loc = p->tok.loc;
    d->name = p4parse_name(p);
    p4parse_declare_type(p, d->name);
    p4parse_check(p, P4TOK_SEMI);
    return d;
}

struct p4ast *p4pdecl_declaration(struct p4parse *p)
{
    struct p4_loc loc = p->tok.loc;
    struct p4ast *ann = p4parse_node(p, P4AST_S_EMPTY, loc);
    p4parse_annotations(p, ann);
    struct p4ast *d = NULL;
    switch (p->tok.kind) {
    case P4TOK_SEMI:
        p4parse_advance(p);
        return NULL;
    case P4TOK_KW_CONST:
        d = const_decl(p);
        break;
    case P4TOK_KW_TYPEDEF:
    case P4TOK_KW_TYPE:
        d = typedef_decl(p, loc);
        break;
    case P4TOK_KW_HEADER:
    case P4TOK_KW_STRUCT:
    case P4TOK_KW_HEADER_UNION: {
        enum p4ast_kind k = p->tok.kind == P4TOK_KW_HEADER   ? P4AST_D_HEADER
                            : p->tok.kind == P4TOK_KW_STRUCT ? P4AST_D_STRUCT
                                                             : P4AST_D_UNION;
        p4parse_advance(p);
        d = p4parse_node(p, k, p->tok.loc);
        d->name = p4parse_name(p);
        p4parse_declare_type(p, d->name);
        p4parse_type_params(p);
        fields(p, d);
        break;
    }
    case P4TOK_KW_ENUM:
        d = enum_decl(p);
        break;
    case P4TOK_KW_ERROR:
    case P4TOK_KW_MATCH_KIND: {
        d = p4parse_node(p, p->tok.kind == P4TOK_KW_ERROR ? P4AST_D_ERROR : P4AST_D_MATCH_KIND,
                         loc);
        p4parse_advance(p);
        member_list(p, d, false);
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
        p4parse_advance(p);
        d = p4parse_node(p, P4AST_D_PACKAGE, p->tok.loc);
        d->name = p4parse_name(p);
        p4parse_declare_type(p, d->name);
        p4parse_type_params(p);
        p4parse_params(p, d, false);
        p4parse_check(p, P4TOK_SEMI);
        break;
    case P4TOK_KW_ACTION:
        d = action_decl(p);
        break;
    default: {
        if (is_word(p, "type") && (p4parse_type_start(p, p4parse_peek(p, 1)) ||
                                   p4parse_peek(p, 1)->kind == P4TOK_IDENT)) {
            d = typedef_decl(p, loc);
            break;
        }
        if (!p4parse_type_start(p, &p->tok) && p->tok.kind != P4TOK_IDENT)
            p4parse_expected(p, "declaration");
        struct p4ast *t = p4parse_type(p);
        if (p->tok.kind == P4TOK_LPAREN) {
            d = p4parse_node(p, P4AST_D_INST, loc);
            d->a = t;
            p4parse_args(p, d);
            d->loc = p->tok.loc;
            d->name = p4parse_name(p);
            p4parse_check(p, P4TOK_SEMI);
        } else {
            d = p4parse_node(p, P4AST_D_FUNC, p->tok.loc);
            d->a = t;
            d->name = p4parse_name(p);
            p4parse_type_params(p);
            p4parse_params(p, d, false);
            d->b = block(p);
        }
        break;
    }
    }
    p4parse_move_annots(ann, d);
    return d;
}
