/* A recursive-descent evaluator (expr.h):
 *   expr   -> term (('+' | '-') term)*
 *   term   -> factor (('*' | '/') factor)*
 *   factor -> '-' factor | '(' expr ')' | NUMBER[unit] | NAME */
#include "sim/app/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/units.h"

#define EXPR_MAX_DEPTH 64

struct parser {
    const char *s;
    size_t pos;
    expr_lookup_fn *lookup;
    void *ud;
    char *err;
    size_t errn;
    int depth;
    int failed;
};

int expr_number(const char *s, double *out)
{
    char *end;
    double x = strtod(s, &end);
    if (end != s && *end == '\0') {
        *out = x;
        return 0;
    }
    char e[128];
    sim_time_t t;
    uint64_t v;
    if (units_parse_time(s, &t, e, sizeof(e)) == 0) {
        *out = (double)t * 1e-12;
        return 0;
    }
    if (units_parse_rate(s, &v, e, sizeof(e)) == 0 || units_parse_size(s, &v, e, sizeof(e)) == 0) {
        *out = (double)v;
        return 0;
    }
    return -1;
}

static void skip(struct parser *p)
{
    while (isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static double fail(struct parser *p, const char *msg, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->errn, "in '%s' at column %zu: %s%s", p->s, p->pos + 1, msg,
                 what ? what : "");
    p->failed = 1;
    return NAN;
}

static double expr(struct parser *p);

/* A number or a name: letters, digits, '_', '.' (a unit follows its number directly). */
static double atom(struct parser *p)
{
    size_t start = p->pos;
    while (isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_' || p->s[p->pos] == '.')
        p->pos++;
    /* an exponent's sign belongs to the number: 1e-6 */
    if (p->pos > start && isdigit((unsigned char)p->s[start]) &&
        (p->s[p->pos] == '-' || p->s[p->pos] == '+') && tolower(p->s[p->pos - 1]) == 'e') {
        p->pos++;
        while (isalnum((unsigned char)p->s[p->pos]))
            p->pos++;
    }
    if (p->pos == start)
        return fail(p, "expected a number, a name or '('", NULL);
    char tok[128];
    snprintf(tok, sizeof(tok), "%.*s", (int)(p->pos - start), p->s + start);
    double x;
    if (isdigit((unsigned char)tok[0]) || tok[0] == '.') {
        if (expr_number(tok, &x) < 0)
            return fail(p, "not a number: ", tok);
        return x;
    }
    const char *cell = p->lookup(p->ud, tok);
    if (!cell)
        return fail(p, "unknown column ", tok);
    if (expr_number(cell, &x) < 0)
        return fail(p, "not a number in column ", tok);
    return x;
}

static double factor(struct parser *p)
{
    skip(p);
    if (++p->depth > EXPR_MAX_DEPTH)
        return fail(p, "nested too deeply", NULL);
    double x;
    if (p->s[p->pos] == '-') {
        p->pos++;
        x = -factor(p);
    } else if (p->s[p->pos] == '(') {
        p->pos++;
        x = expr(p);
        skip(p);
        if (p->s[p->pos] != ')')
            return fail(p, "expected ')'", NULL);
        p->pos++;
    } else {
        x = atom(p);
    }
    p->depth--;
    skip(p);
    return x;
}

static double term(struct parser *p)
{
    double x = factor(p);
    while (!p->failed && (p->s[p->pos] == '*' || p->s[p->pos] == '/')) {
        char op = p->s[p->pos++];
        double y = factor(p);
        if (op == '/' && y == 0)
            return fail(p, "division by zero", NULL);
        x = op == '*' ? x * y : x / y;
    }
    return x;
}

static double expr(struct parser *p)
{
    double x = term(p);
    while (!p->failed && (p->s[p->pos] == '+' || p->s[p->pos] == '-')) {
        char op = p->s[p->pos++];
        double y = term(p);
        x = op == '+' ? x + y : x - y;
    }
    return x;
}

int expr_eval(const char *s, expr_lookup_fn *lookup, void *ud, double *out, char *err,
              size_t errn)
{
    struct parser p = {.s = s, .lookup = lookup, .ud = ud, .err = err, .errn = errn};
    double x = expr(&p);
    skip(&p);
    if (!p.failed && p.s[p.pos])
        fail(&p, "unexpected ", p.s + p.pos);
    if (p.failed)
        return -1;
    *out = x;
    return 0;
}
