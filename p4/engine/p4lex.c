/* P4_16 lexer: see p4lex.h. */
#include "p4/engine/p4lex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const p4tok_names[P4TOK_COUNT] = {
#define P4TOK_NAME(name, text) text,
    P4TOK_LIST(P4TOK_NAME)
#undef P4TOK_NAME
};

void p4lex_init(struct p4lex *lx, const char *src, size_t n, const char *name, struct p4_diag *diag)
{
    memset(lx, 0, sizeof(*lx));
    lx->src = src;
    lx->n = n;
    lx->diag = diag;
    lx->line = 1;
    lx->file = p4lex_intern(lx, name, strlen(name));
}

void p4lex_fini(struct p4lex *lx)
{
    for (int i = 0; i < lx->npool; i++)
        free(lx->pool[i]);
    free(lx->pool);
    lx->pool = NULL;
    lx->npool = 0;
}

char **p4lex_take_pool(struct p4lex *lx, int *n)
{
    char **p = lx->pool;
    *n = lx->npool;
    lx->pool = NULL;
    lx->npool = 0;
    lx->cappool = 0;
    return p;
}

const char *p4lex_intern(struct p4lex *lx, const char *s, size_t n)
{
    /* Linear dedup of the last few strings keeps the pool small for file names. */
    for (int i = lx->npool - 1; i >= 0 && i >= lx->npool - 4; i--) {
        if (strlen(lx->pool[i]) == n && memcmp(lx->pool[i], s, n) == 0)
            return lx->pool[i];
    }
    char *c = p4util_strndup(s, n);
    P4_PUSH(lx->pool, lx->npool, lx->cappool, c);
    return c;
}

static int peekc(struct p4lex *lx, size_t k)
{
    return lx->pos + k < lx->n ? (unsigned char)lx->src[lx->pos + k] : 0;
}

static struct p4_loc here(struct p4lex *lx)
{
    struct p4_loc l = {lx->file, lx->line, (int)(lx->pos - lx->line_start) + 1, NULL};
    return l;
}

static void newline(struct p4lex *lx)
{
    lx->pos++;
    lx->line++;
    lx->line_start = lx->pos;
}

/* A line starting with '#': a cpp line marker `# N "file" flags` or `#line N "file"`;
 * other directives (#pragma) are skipped. */
static void directive(struct p4lex *lx)
{
    struct p4_loc at = here(lx);
    lx->pos++;
    while (peekc(lx, 0) == ' ' || peekc(lx, 0) == '\t')
        lx->pos++;
    if (strncmp(lx->src + lx->pos, "line", 4) == 0 && lx->pos + 4 <= lx->n)
        lx->pos += 4;
    while (peekc(lx, 0) == ' ' || peekc(lx, 0) == '\t')
        lx->pos++;
    if (isdigit(peekc(lx, 0))) {
        long num = 0;
        while (isdigit(peekc(lx, 0)))
            num = num < 100000000 ? num * 10 + (peekc(lx, 0) - '0') : num, lx->pos++;
        while (peekc(lx, 0) == ' ' || peekc(lx, 0) == '\t')
            lx->pos++;
        const char *file = NULL;
        size_t flen = 0;
        if (peekc(lx, 0) == '"') {
            lx->pos++;
            size_t s = lx->pos;
            while (peekc(lx, 0) && peekc(lx, 0) != '"' && peekc(lx, 0) != '\n')
                lx->pos++;
            file = lx->src + s;
            flen = lx->pos - s;
        }
        while (peekc(lx, 0) && peekc(lx, 0) != '\n')
            lx->pos++;
        if (peekc(lx, 0) == '\n')
            newline(lx);
        lx->line = (int)num;
        if (file)
            lx->file = p4lex_intern(lx, file, flen);
        return;
    }
    if (strncmp(lx->src + lx->pos, "pragma", 6) != 0)
        p4util_error(lx->diag, at, "unexpected preprocessor directive (run the preprocessor)");
    while (peekc(lx, 0) && peekc(lx, 0) != '\n')
        lx->pos++;
}

static bool at_line_start(struct p4lex *lx)
{
    for (size_t i = lx->line_start; i < lx->pos; i++) {
        if (lx->src[i] != ' ' && lx->src[i] != '\t')
            return false;
    }
    return true;
}

/* Skips whitespace, comments and directives; returns true if anything was skipped. */
static bool skip_space(struct p4lex *lx)
{
    bool skipped = false;
    for (;;) {
        int c = peekc(lx, 0);
        if (c == '\n') {
            newline(lx);
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->pos++;
        } else if (c == '/' && peekc(lx, 1) == '/') {
            while (peekc(lx, 0) && peekc(lx, 0) != '\n')
                lx->pos++;
        } else if (c == '/' && peekc(lx, 1) == '*') {
            struct p4_loc at = here(lx);
            lx->pos += 2;
            while (peekc(lx, 0) && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/')) {
                if (peekc(lx, 0) == '\n')
                    newline(lx);
                else
                    lx->pos++;
            }
            if (!peekc(lx, 0))
                p4util_error(lx->diag, at, "unfinished comment");
            else
                lx->pos += 2;
        } else if (c == '#' && at_line_start(lx)) {
            directive(lx);
        } else {
            return skipped;
        }
        skipped = true;
    }
}

static const struct {
    const char *s;
    enum p4tok_kind k;
} keywords[] = {
    {"action", P4TOK_KW_ACTION},
    {"bit", P4TOK_KW_BIT},
    {"bool", P4TOK_KW_BOOL},
    {"const", P4TOK_KW_CONST},
    {"control", P4TOK_KW_CONTROL},
    {"default", P4TOK_KW_DEFAULT},
    {"else", P4TOK_KW_ELSE},
    {"enum", P4TOK_KW_ENUM},
    {"error", P4TOK_KW_ERROR},
    {"exit", P4TOK_KW_EXIT},
    {"extern", P4TOK_KW_EXTERN},
    {"false", P4TOK_KW_FALSE},
    {"header", P4TOK_KW_HEADER},
    {"header_union", P4TOK_KW_HEADER_UNION},
    {"if", P4TOK_KW_IF},
    {"in", P4TOK_KW_IN},
    {"inout", P4TOK_KW_INOUT},
    {"int", P4TOK_KW_INT},
    {"match_kind", P4TOK_KW_MATCH_KIND},
    {"out", P4TOK_KW_OUT},
    {"package", P4TOK_KW_PACKAGE},
    {"parser", P4TOK_KW_PARSER},
    {"return", P4TOK_KW_RETURN},
    {"select", P4TOK_KW_SELECT},
    {"string", P4TOK_KW_STRING},
    {"struct", P4TOK_KW_STRUCT},
    {"switch", P4TOK_KW_SWITCH},
    {"table", P4TOK_KW_TABLE},
    {"transition", P4TOK_KW_TRANSITION},
    {"true", P4TOK_KW_TRUE},
    {"tuple", P4TOK_KW_TUPLE},
    {"typedef", P4TOK_KW_TYPEDEF},
    {"varbit", P4TOK_KW_VARBIT},
    {"void", P4TOK_KW_VOID},
    {"value_set", P4TOK_KW_VALUE_SET},
    {"abstract", P4TOK_KW_ABSTRACT},
    {"this", P4TOK_KW_THIS},
};

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Reads digits in base (with '_' separators) into v; returns number of digits. */
static int read_digits(struct p4lex *lx, int base, struct p4_big *v, bool *overflow)
{
    int nd = 0;
    struct p4_big b;
    p4big_set_u64(&b, (uint64_t)base);
    for (;;) {
        int c = peekc(lx, 0);
        if (c == '_') {
            lx->pos++;
            continue;
        }
        int d = digit_value(c);
        if (d >= base)
            break;
        if (p4big_bits(v) > P4_MAXWIDTH - 5)
            *overflow = true;
        struct p4_big dv;
        p4big_set_u64(&dv, (uint64_t)d);
        p4big_mul(v, v, &b);
        p4big_add(v, v, &dv);
        lx->pos++;
        nd++;
    }
    return nd;
}

static int base_prefix(struct p4lex *lx)
{
    if (peekc(lx, 0) == '0') {
        int c = peekc(lx, 1);
        int base = 0;
        if (c == 'x' || c == 'X')
            base = 16;
        else if (c == 'b' || c == 'B')
            base = 2;
        else if (c == 'o' || c == 'O')
            base = 8;
        else if (c == 'd' || c == 'D')
            base = 10;
        if (base && (digit_value(peekc(lx, 2)) < base || peekc(lx, 2) == '_')) {
            lx->pos += 2;
            return base;
        }
    }
    return 10;
}

static void lex_number(struct p4lex *lx, struct p4_token *t)
{
    struct p4_big v;
    bool overflow = false;
    p4big_set_u64(&v, 0);
    t->num.width = -1;
    t->num.is_signed = false;
    int base = base_prefix(lx);
    read_digits(lx, base, &v, &overflow);
    int c = peekc(lx, 0);
    if (base == 10 && (c == 'w' || c == 's')) {
        bool neg = false;
        size_t save = lx->pos;
        lx->pos++;
        if (peekc(lx, 0) == '-' && isdigit(peekc(lx, 1))) {
            neg = true;
            lx->pos++;
        }
        if (isdigit(peekc(lx, 0))) {
            if (p4big_bits(&v) > 16 || v.w[0] == 0 || v.w[0] > P4_MAXWIDTH) {
                p4util_error(lx->diag, t->loc, "invalid width in literal near '%.*s'",
                             (int)(lx->pos - (size_t)(t->text - lx->src)), t->text);
                v.w[0] = 32;
            }
            t->num.width = (int)v.w[0];
            t->num.is_signed = c == 's';
            p4big_set_u64(&v, 0);
            base = base_prefix(lx);
            read_digits(lx, base, &v, &overflow);
            if (neg)
                p4big_neg(&v, &v);
            struct p4_big tr = v;
            p4big_trunc(&tr, t->num.width, t->num.is_signed);
            if (!neg && p4big_cmp_signed(&tr, &v) != 0 && !t->num.is_signed)
                p4util_error(lx->diag, t->loc, "value does not fit in %d bits near '%.*s'",
                             t->num.width, (int)(lx->pos - (size_t)(t->text - lx->src)), t->text);
            v = tr;
        } else {
            lx->pos = save;
        }
    }
    if (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_') {
        while (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_')
            lx->pos++;
        p4util_error(lx->diag, t->loc, "malformed number near '%.*s'",
                     (int)(lx->pos - (size_t)(t->text - lx->src)), t->text);
    }
    if (overflow)
        p4util_error(lx->diag, t->loc, "number too large near '%.*s'",
                     (int)(lx->pos - (size_t)(t->text - lx->src)), t->text);
    t->num.v = v;
    t->kind = P4TOK_NUMBER;
}

static void lex_token(struct p4lex *lx, struct p4_token *t);

void p4lex_next(struct p4lex *lx, struct p4_token *t)
{
    lex_token(lx, t);
    if (t->kind != P4TOK_EOF && !t->loc.near) /* names and operators have theirs already */
        t->loc.near = p4lex_intern(lx, t->text, (size_t)t->len);
}

static void lex_token(struct p4lex *lx, struct p4_token *t)
{
again:
    memset(t, 0, sizeof(*t));
    t->adjacent = !skip_space(lx);
    t->loc = here(lx);
    t->text = lx->src + lx->pos;
    int c = peekc(lx, 0);
    if (!c) {
        if (lx->pos < lx->n) { /* NUL byte inside the text */
            p4util_error(lx->diag, t->loc, "unexpected character near '\\0'");
            lx->pos++;
            goto again;
        }
        t->kind = P4TOK_EOF;
        t->len = 0;
        return;
    }
    if (isalpha(c) || c == '_') {
        while (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_')
            lx->pos++;
        t->len = (int)(lx->pos - (size_t)(t->text - lx->src));
        t->kind = P4TOK_IDENT;
        for (size_t i = 0; i < P4_ARRAY_LEN(keywords); i++) { /* the first letter first */
            if (keywords[i].s[0] == c && (int)strlen(keywords[i].s) == t->len &&
                memcmp(keywords[i].s, t->text, (size_t)t->len) == 0) {
                t->kind = keywords[i].k;
                break;
            }
        }
        t->str = (char *)p4lex_intern(lx, t->text, (size_t)t->len);
        t->loc.near = t->str;
        return;
    }
    if (isdigit(c)) {
        lex_number(lx, t);
        t->len = (int)(lx->pos - (size_t)(t->text - lx->src));
        return;
    }
    if (c == '"') {
        lx->pos++;
        size_t s = lx->pos;
        while (peekc(lx, 0) && peekc(lx, 0) != '"' && peekc(lx, 0) != '\n') {
            if (peekc(lx, 0) == '\\' && peekc(lx, 1))
                lx->pos++;
            lx->pos++;
        }
        size_t e = lx->pos;
        if (peekc(lx, 0) != '"') {
            p4util_error(lx->diag, t->loc, "unfinished string near '%.*s'", (int)(lx->pos - s + 1),
                         t->text);
        } else {
            lx->pos++;
        }
        t->kind = P4TOK_STRING;
        t->str = (char *)p4lex_intern(lx, lx->src + s, e - s);
        t->len = (int)(lx->pos - (size_t)(t->text - lx->src));
        return;
    }
    static const struct {
        const char *s;
        enum p4tok_kind k;
    } ops[] = {
        {"&&&", P4TOK_MASK},   {"|+|", P4TOK_SATADD}, {"|-|", P4TOK_SATSUB},  {"==", P4TOK_EQ},
        {"!=", P4TOK_NE},      {"<=", P4TOK_LE},      {">=", P4TOK_GE},       {"<<", P4TOK_SHL},
        {"&&", P4TOK_ANDAND},  {"||", P4TOK_OROR},    {"++", P4TOK_PLUSPLUS}, {"..", P4TOK_RANGE},
        {"(", P4TOK_LPAREN},   {")", P4TOK_RPAREN},   {"{", P4TOK_LBRACE},    {"}", P4TOK_RBRACE},
        {"[", P4TOK_LBRACKET}, {"]", P4TOK_RBRACKET}, {"<", P4TOK_LT},        {">", P4TOK_GT},
        {";", P4TOK_SEMI},     {":", P4TOK_COLON},    {",", P4TOK_COMMA},     {".", P4TOK_DOT},
        {"=", P4TOK_ASSIGN},   {"?", P4TOK_QUESTION}, {"!", P4TOK_NOT},       {"~", P4TOK_TILDE},
        {"+", P4TOK_PLUS},     {"-", P4TOK_MINUS},    {"*", P4TOK_STAR},      {"/", P4TOK_SLASH},
        {"%", P4TOK_PERCENT},  {"&", P4TOK_AMP},      {"|", P4TOK_PIPE},      {"^", P4TOK_CARET},
        {"@", P4TOK_AT},
    };
    for (size_t i = 0; i < P4_ARRAY_LEN(ops); i++) {
        if (ops[i].s[0] != c)
            continue;
        size_t l = strlen(ops[i].s);
        if (lx->pos + l <= lx->n && memcmp(lx->src + lx->pos, ops[i].s, l) == 0) {
            lx->pos += l;
            t->kind = ops[i].k;
            t->len = (int)l;
            t->loc.near = ops[i].s;
            return;
        }
    }
    if (c >= 32 && c < 127)
        p4util_error(lx->diag, t->loc, "unexpected character near '%c'", c);
    else
        p4util_error(lx->diag, t->loc, "unexpected character near '\\x%02x'", c);
    lx->pos++;
    goto again;
}
