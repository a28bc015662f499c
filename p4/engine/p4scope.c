/* Names and scopes: see p4scope.h. */
#include "p4/engine/p4scope.h"

#include <string.h>

void p4scope_push(struct p4sem *s)
{
    struct p4scope *sc = p4util_calloc(1, sizeof(*sc));
    P4_PUSH(s->allscopes, s->nallscopes, s->capallscopes, sc);
    sc->up = s->scope;
    s->scope = sc;
}

void p4scope_pop(struct p4sem *s)
{
    s->scope = s->scope->up;
}

static struct p4sym *lookup_in(struct p4scope *sc, const char *name)
{
    for (struct p4sym *y = sc->syms; y; y = y->next) {
        if (strcmp(y->name, name) == 0)
            return y;
    }
    return NULL;
}

struct p4sym *p4scope_lookup(struct p4sem *s, const char *name)
{
    for (struct p4scope *sc = s->scope; sc; sc = sc->up) {
        struct p4sym *y = lookup_in(sc, name);
        if (y)
            return y;
    }
    return NULL;
}

struct p4sym *p4scope_declare(struct p4sem *s, const char *name, enum p4sym_kind k,
                              struct p4_loc loc)
{
    struct p4sym *old = lookup_in(s->scope, name);
    if (old && !(old->kind == SYM_EXTERN_FUNC && k == SYM_EXTERN_FUNC))
        p4sem_err(s, loc, "'%s' is already declared", name);
    struct p4sym *y = p4util_calloc(1, sizeof(*y));
    P4_PUSH(s->allsyms, s->nallsyms, s->capallsyms, y);
    y->name = name;
    y->kind = k;
    y->ext = -1;
    y->next = s->scope->syms;
    s->scope->syms = y;
    return y;
}
