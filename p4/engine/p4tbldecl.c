/* Table declarations: see p4tbldecl.h. */
#include "p4/engine/p4tbldecl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4type.h"

#include <string.h>

static enum p4_match_kind match_kind(struct p4sem *s, const struct p4ast *k)
{
    static const char *const names[] = {"exact", "lpm", "ternary", "range", "optional", "selector"};
    for (size_t i = 0; i < P4_ARRAY_LEN(names); i++) {
        if (strcmp(k->name, names[i]) == 0) {
            if (i == P4MK_SELECTOR)
                break;
            return (enum p4_match_kind)i;
        }
    }
    p4sem_err(s, k->loc, "unsupported match kind '%s'", k->name);
    return P4MK_EXACT;
}

static int find_table_action(struct p4ir_table *t, const struct p4ir_callable *fn)
{
    for (int i = 0; i < t->nactions; i++) {
        if (t->actions[i].call.fn == fn)
            return i;
    }
    return -1;
}

/* Action data words for a call with constant arguments (entries, default action). */
static bool action_data(struct p4sem *s, struct p4ir_table *t, const struct p4ast *call,
                        struct p4ir_entry *en, bool is_default)
{
    const struct p4ast *callee = call->kind == P4AST_E_CALL ? call->a : call;
    if (callee->kind != P4AST_E_NAME) {
        p4sem_err(s, call->loc, "expected an action");
        return false;
    }
    struct p4sym *y = p4scope_lookup(s, callee->name);
    if (!y || (y->kind != SYM_ACTION && y->kind != SYM_GLOBAL_ACTION)) {
        p4sem_err(s, callee->loc, "'%s' is not an action", callee->name);
        return false;
    }
    int k = find_table_action(t, y->fn);
    if (k < 0) {
        p4sem_err(s, callee->loc, "action '%s' is not in the actions of table '%s'", callee->name,
                  t->name);
        return false;
    }
    const struct p4ir_table_action *ta = &t->actions[k];
    if (!is_default && ta->default_only)
        p4sem_err(s, callee->loc, "action '%s' is @defaultonly", callee->name);
    if (is_default && ta->table_only)
        p4sem_err(s, callee->loc, "action '%s' is @tableonly", callee->name);
    en->action = k;
    en->data = NEWN(s, uint64_t, ta->data_words);
    int given = call->kind == P4AST_E_CALL ? call->nlist : 0;
    const struct p4ir_callable *fn = ta->call.fn;
    int ndir = fn->nparams - ta->ndata;
    if (given != ta->ndata && given != fn->nparams) {
        p4sem_err(s, call->loc, "action '%s' expects %d arguments, got %d", callee->name, ta->ndata,
                  given);
        return false;
    }
    int w = 0;
    for (int i = 0; i < fn->nparams; i++) {
        const struct p4ir_param *p = &fn->params[i];
        if (ta->call.args[i])
            continue;
        int ai = given == fn->nparams ? i : i - ndir;
        if (ai < 0 || ai >= given)
            continue;
        struct p4ir_expr *v =
            p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, call->list[ai]), p->type, "argument"));
        if (!p4irgen_is_const(v)) {
            p4sem_err(s, call->list[ai]->loc, "action argument must be a constant");
            return false;
        }
        if (v->nw > 1)
            memcpy(en->data + w, v->kw, (size_t)v->nw * 8);
        else
            en->data[w] = v->k;
        w += p->nslots;
    }
    return true;
}

static void key_value(struct p4sem *s, const struct p4ir_key *k, const struct p4ast *ks,
                      uint64_t *val, uint64_t *mask, uint64_t *hi)
{
    struct p4_type *t = k->e->type;
    p4util_wmask(mask + k->woff, k->nw, k->width);
    if (ks->kind == P4AST_E_DEFAULT) {
        for (int i = 0; i < k->nw; i++) {
            val[k->woff + i] = 0;
            mask[k->woff + i] = 0;
            if (hi)
                hi[k->woff + i] = p4util_mask64(k->width - 64 * i);
        }
        if (k->mk == P4MK_EXACT)
            p4sem_err(s, ks->loc, "exact key '%s' needs a value", k->name);
        return;
    }
    const struct p4ast *va = ks->kind == P4AST_E_MASK || ks->kind == P4AST_E_RANGE ? ks->a : ks;
    struct p4ir_expr *v = p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, va), t, "key"));
    if (!p4irgen_is_const(v)) {
        p4sem_err(s, va->loc, "key value must be a constant");
        return;
    }
    const uint64_t *vw = v->nw > 1 ? v->kw : &v->k;
    memcpy(val + k->woff, vw, (size_t)k->nw * 8);
    if (hi)
        memcpy(hi + k->woff, vw, (size_t)k->nw * 8);
    if (ks->kind == P4AST_E_MASK) {
        if (k->mk == P4MK_EXACT || k->mk == P4MK_RANGE)
            p4sem_err(s, ks->loc, "mask on a key that is not ternary or lpm");
        struct p4ir_expr *m = p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, ks->b), t, "mask"));
        if (!p4irgen_is_const(m)) {
            p4sem_err(s, ks->b->loc, "mask must be a constant");
            return;
        }
        memcpy(mask + k->woff, m->nw > 1 ? m->kw : &m->k, (size_t)k->nw * 8);
    } else if (ks->kind == P4AST_E_RANGE) {
        if (k->mk != P4MK_RANGE)
            p4sem_err(s, ks->loc, "range on a key that is not a range key");
        struct p4ir_expr *h = p4expr_fold(s, p4expr_coerce(s, p4expr_lower(s, ks->b), t, "range"));
        if (!p4irgen_is_const(h) || !hi) {
            p4sem_err(s, ks->b->loc, "range bound must be a constant");
            return;
        }
        memcpy(hi + k->woff, h->nw > 1 ? h->kw : &h->k, (size_t)k->nw * 8);
        for (int i = 0; i < k->nw; i++)
            mask[k->woff + i] = 0;
    }
    for (int i = 0; i < k->nw; i++)
        val[k->woff + i] &= mask[k->woff + i];
}

/* The table's properties other than key, actions, default_action and entries. */
static void table_props(struct p4sem *s, struct p4ir_table *t, const struct p4ast *p)
{
    if (strcmp(p->name, "size") == 0) {
        struct p4_big v;
        if (p4expr_const_int(s, p->a, &v))
            t->size = (int)(v.w[0] > 1u << 24 ? 1u << 24 : v.w[0]);
    } else if (strcmp(p->name, "counters") == 0 || strcmp(p->name, "meters") == 0) {
        struct p4sym *y = p->a->kind == P4AST_E_NAME ? p4scope_lookup(s, p->a->name) : NULL;
        bool c = p->name[0] == 'c';
        if (!y || y->kind != SYM_EXTERN_INST ||
            s->prog->externs[y->ext].kind != (c ? P4EXT_DIRECT_COUNTER : P4EXT_DIRECT_METER)) {
            p4sem_err(s, p->a->loc,
                      c ? "counters needs a direct_counter instance"
                        : "meters needs a direct_meter instance");
        } else if (c) {
            t->direct_counter = y->ext;
        } else {
            t->direct_meter = y->ext;
        }
    } else if (strcmp(p->name, "implementation") == 0) {
        p4sem_err(s, p->loc, "table implementations (action profiles) are not supported");
    }
}

/* key = { e: match_kind; ... }: word offsets in the key buffer */
static void table_keys(struct p4sem *s, struct p4ir_table *t, const struct p4ast *key)
{
    int words = 0;
    t->nkeys = key->nlist;
    t->keys = NEWN(s, struct p4ir_key, t->nkeys);
    for (int i = 0; i < key->nlist; i++) {
        const struct p4ast *ke = key->list[i];
        struct p4ir_key *k = &t->keys[i];
        k->e = p4expr_lower(s, ke->a);
        if (!p4type_is_scalar(k->e->type) || k->e->type->kind == P4T_INFINT)
            p4sem_err(s, ke->a->loc, "table key must be a scalar of known width");
        k->mk = match_kind(s, ke);
        k->width = k->e->width ? k->e->width : 1;
        k->nw = p4util_nwords(k->width);
        k->woff = words;
        words += k->nw;
        const struct p4ast *n = p4parse_annot(ke, "name");
        k->name = n && n->str ? n->str : p4irgen_keep(s, p4util_strdup(ke->text));
    }
    t->key_words = words;
    if (words > s->prog->max_key_words)
        s->prog->max_key_words = words;
}

/* actions = { a; b(args); ... }: directional arguments bound now, action data later */
static void table_actions(struct p4sem *s, struct p4ir_table *t, const struct p4ast *acts)
{
    t->nactions = acts->nlist;
    t->actions = NEWN(s, struct p4ir_table_action, acts->nlist);
    for (int i = 0; i < acts->nlist; i++) {
        const struct p4ast *ar = acts->list[i];
        const struct p4ast *callee = ar->a->kind == P4AST_E_CALL ? ar->a->a : ar->a;
        struct p4sym *y = callee->kind == P4AST_E_NAME ? p4scope_lookup(s, callee->name) : NULL;
        if (!y || (y->kind != SYM_ACTION && y->kind != SYM_GLOBAL_ACTION)) {
            p4sem_err(s, ar->a->loc, "'%s' is not an action",
                      callee->kind == P4AST_E_NAME ? callee->name : "?");
            t->nactions = i;
            break;
        }
        struct p4ir_table_action *ta = &t->actions[i];
        struct p4ir_callable *fn = y->fn;
        ta->default_only = p4parse_annot(ar, "defaultonly") != NULL;
        ta->table_only = p4parse_annot(ar, "tableonly") != NULL;
        int ndir = 0;
        for (int j = 0; j < fn->nparams; j++)
            ndir += fn->params[j].dir != P4_DIR_NONE;
        const struct p4ast *call = ar->a->kind == P4AST_E_CALL ? ar->a : NULL;
        ta->call.fn = fn;
        ta->call.nargs = fn->nparams;
        ta->call.args = NEWN(s, struct p4ir_expr *, fn->nparams);
        int given = call ? call->nlist : 0;
        if (given != ndir)
            p4sem_err(s, ar->a->loc, "action '%s' in a table list needs %d arguments, got %d",
                      callee->name, ndir, given);
        int ai = 0;
        for (int j = 0; j < fn->nparams; j++) {
            const struct p4ir_param *p = &fn->params[j];
            if (p->dir == P4_DIR_NONE) {
                ta->ndata++;
                ta->data_words += p->nslots;
                continue;
            }
            if (ai >= given)
                continue;
            const struct p4ast *arg = call->list[ai++];
            if (p->dir == P4_DIR_IN)
                ta->call.args[j] = p4expr_coerce(s, p4expr_lower(s, arg), p->type, "argument");
            else
                ta->call.args[j] = p4expr_lower_ref(s, arg, "argument for an out parameter");
        }
        if (ta->data_words > s->prog->max_data_words)
            s->prog->max_data_words = ta->data_words;
        if (find_table_action(t, fn) != i)
            p4sem_err(s, ar->loc, "action '%s' listed twice", callee->name);
    }
}

/* const entries = { keys : action(args); ... } */
static void table_entries(struct p4sem *s, struct p4ir_table *t, const struct p4ast *d,
                          const struct p4ast *ents)
{
    int words = t->key_words;
    t->const_entries = ents->is_const;
    t->nentries = ents->nlist;
    t->entries = NEWN(s, struct p4ir_entry, ents->nlist);
    bool has_range = false;
    for (int i = 0; i < t->nkeys; i++)
        has_range |= t->keys[i].mk == P4MK_RANGE;
    for (int i = 0; i < ents->nlist; i++) {
        const struct p4ast *en = ents->list[i];
        struct p4ir_entry *e = &t->entries[i];
        e->loc = en->loc;
        e->value = NEWN(s, uint64_t, words);
        e->mask = NEWN(s, uint64_t, words);
        e->hi = has_range ? NEWN(s, uint64_t, words) : NULL;
        const struct p4ast *ks = en->a;
        int n = ks->kind == P4AST_E_LIST ? ks->nlist : 1;
        if (ks->kind == P4AST_E_DEFAULT && t->nkeys > 1)
            n = t->nkeys;
        if (n != t->nkeys) {
            p4sem_err(s, ks->loc, "entry has %d key values, table '%s' has %d keys", n, d->name,
                      t->nkeys);
            continue;
        }
        for (int j = 0; j < t->nkeys; j++)
            key_value(s, &t->keys[j], ks->kind == P4AST_E_LIST ? ks->list[j] : ks, e->value,
                      e->mask, e->hi);
        action_data(s, t, en->b, e, false);
        /* priority: explicit (smaller wins) or textual order (first wins) */
        const struct p4ast *pa = p4parse_annot(en, "priority");
        e->priority = -1;
        if (pa && pa->num.width == 0)
            e->priority = (int)pa->num.v.w[0];
        else if (en->c) {
            struct p4_big v;
            if (p4expr_const_int(s, en->c, &v))
                e->priority = (int)v.w[0];
        }
    }
}

void p4tbldecl_lower(struct p4sem *s, const struct p4ast *d)
{
    struct p4ir_table *t = NEW(s, struct p4ir_table);
    t->name = p4sem_qualify(s, d);
    t->loc = d->loc;
    t->id = s->prog->ntables;
    t->direct_counter = -1;
    t->direct_meter = -1;
    t->default_entry.action = -1;
    t->size = 1024;
    const struct p4ast *key = NULL;
    const struct p4ast *acts = NULL;
    const struct p4ast *def = NULL;
    const struct p4ast *ents = NULL;
    for (int i = 0; i < d->nlist; i++) {
        const struct p4ast *p = d->list[i];
        if (p->kind == P4AST_TP_KEY)
            key = p;
        else if (p->kind == P4AST_TP_ACTIONS)
            acts = p;
        else if (p->kind == P4AST_TP_DEFAULT)
            def = p;
        else if (p->kind == P4AST_TP_ENTRIES)
            ents = p;
        else
            table_props(s, t, p);
    }
    if (!acts) {
        p4sem_err(s, d->loc, "table '%s' has no actions", d->name);
        return;
    }
    if (key)
        table_keys(s, t, key);
    table_actions(s, t, acts);
    /* default action */
    if (def) {
        action_data(s, t, def->a, &t->default_entry, true);
        t->const_default = def->is_const;
    } else {
        for (int i = 0; i < t->nactions; i++) {
            if (strcmp(t->actions[i].call.fn->name, "NoAction") == 0 &&
                t->actions[i].data_words == 0) {
                t->default_entry.action = i;
                t->default_entry.data = NEWN(s, uint64_t, 1);
            }
        }
    }
    if (ents)
        table_entries(s, t, d, ents);
    P4_PUSH(s->prog->tables, s->prog->ntables, s->prog->captables, t);
    struct p4sym *y = p4scope_declare(s, d->name, SYM_TABLE, d->loc);
    y->table = t;
}
