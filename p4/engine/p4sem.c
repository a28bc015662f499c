/* Semantic analysis and lowering, the driver: builtin types, top-level declarations,
 * the V1Switch package (packet slots, standard_metadata fields, field lists) and the
 * order of the stages. See p4sem.h. */
#include "p4/engine/p4sem.h"
#include "p4/engine/p4.h"
#include "p4/engine/p4ctl.h"
#include "p4/engine/p4expr.h"
#include "p4/engine/p4extern.h"
#include "p4/engine/p4irgen.h"
#include "p4/engine/p4prs.h"
#include "p4/engine/p4scope.h"
#include "p4/engine/p4stmt.h"
#include "p4/engine/p4type.h"

#include <stdlib.h>
#include <string.h>

void p4sem_err(struct p4sem *s, struct p4_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p4util_verror(s->diag, loc, fmt, ap);
    va_end(ap);
}

const char *p4sem_qualify(struct p4sem *s, const struct p4ast *d)
{
    const struct p4ast *n = p4parse_annot(d, "name");
    if (n && n->str) {
        if (n->str[0] == '.')
            return n->str + 1;
        if (s->prefix)
            return p4irgen_keep(s, p4util_asprintf("%s.%s", s->prefix, n->str));
        return n->str;
    }
    if (s->prefix)
        return p4irgen_keep(s, p4util_asprintf("%s.%s", s->prefix, d->name));
    return d->name;
}

static int std_field(struct p4sem *s, const char *name)
{
    struct p4_type *t = s->prog->std_type;
    for (int i = 0; i < t->nfields; i++) {
        if (strcmp(t->fields[i].name, name) == 0)
            return s->prog->std_slot + t->fields[i].off;
    }
    return -1;
}

/* The qid field is whichever field carries @alias("queueing_metadata.qid"). */
static int std_alias(struct p4sem *s, const char *alias)
{
    struct p4_type *t = s->prog->std_type;
    for (int i = 0; i < t->nfields; i++) {
        const struct p4ast *a = p4parse_annot(t->fields[i].decl, "alias");
        if (a && a->str && strcmp(a->str, alias) == 0)
            return s->prog->std_slot + t->fields[i].off;
    }
    return -1;
}

/* Collects @field_list(N) metadata fields into field lists. */
static void collect_field_lists(struct p4sem *s, struct p4_type *t, int base)
{
    for (int i = 0; i < t->nfields; i++) {
        const struct p4_field *f = &t->fields[i];
        if (f->type->kind == P4T_STRUCT)
            collect_field_lists(s, f->type, base + f->off);
        const struct p4ast *d = f->decl;
        for (int j = 0; d && j < d->nannots; j++) {
            const struct p4ast *a = d->annots[j];
            if (strcmp(a->name, "field_list") != 0 || a->num.width != 0)
                continue;
            int id = (int)a->num.v.w[0];
            struct p4ir_field_list *fl = NULL;
            for (int k = 0; k < s->prog->nfield_lists; k++) {
                if (s->prog->field_lists[k].id == id)
                    fl = &s->prog->field_lists[k];
            }
            if (!fl) {
                struct p4ir_field_list n = {id, NULL, 0};
                P4_PUSH(s->prog->field_lists, s->prog->nfield_lists, s->prog->capfield_lists, n);
                fl = &s->prog->field_lists[s->prog->nfield_lists - 1];
            }
            fl->r = p4util_realloc(fl->r, (size_t)(fl->nr + 1) * sizeof(*fl->r));
            fl->r[fl->nr].slot = base + f->off;
            fl->r[fl->nr].n = f->type->nslots;
            fl->nr++;
        }
    }
}

static const struct p4ast *block_decl(struct p4sem *s, const struct p4ast *arg,
                                      enum p4sym_kind want, const char *what)
{
    if (arg->kind != P4AST_E_CALL || arg->a->kind != P4AST_E_NAME) {
        p4sem_err(s, arg->loc, "expected %s instantiation like Name()", what);
        return NULL;
    }
    struct p4sym *y = p4scope_lookup(s, arg->a->name);
    if (!y || y->kind != want) {
        p4sem_err(s, arg->loc, "'%s' is not a %s", arg->a->name, what);
        return NULL;
    }
    return y->decl;
}

static struct p4_type *param_type(struct p4sem *s, const struct p4ast *decl, int i)
{
    if (i >= decl->nlist)
        return NULL;
    return p4type_resolve(s, decl->list[i]->a);
}

static void lower_deferred(struct p4sem *s)
{
    for (int i = 0; i < s->ndeferred; i++) {
        const struct p4ast *d = s->deferred[i];
        if (d->kind == P4AST_D_FUNC) {
            p4ctl_lower_function(s, d);
        } else if (d->kind == P4AST_D_INST) {
            p4extern_instantiate(s, d);
        } else {
            struct p4ir_callable *fn = p4ctl_lower_action(s, d);
            struct p4sym *y = p4scope_declare(s, d->name, SYM_GLOBAL_ACTION, d->loc);
            y->fn = fn;
        }
    }
    s->ndeferred = 0;
}

static void lower_main(struct p4sem *s, const struct p4ast *m)
{
    if (m->nlist != 6) {
        p4sem_err(s, m->loc, "V1Switch expects 6 blocks, got %d", m->nlist);
        return;
    }
    const struct p4ast *pd = block_decl(s, m->list[0], SYM_PARSER_DECL, "parser");
    const struct p4ast *cd[5];
    for (int i = 1; i < 6; i++)
        cd[i - 1] = block_decl(s, m->list[i], SYM_CONTROL_DECL, "control");
    if (!pd || !cd[0] || !cd[1] || !cd[2] || !cd[3] || !cd[4])
        return;
    struct p4_prog *prog = s->prog;
    prog->hdr_type = param_type(s, pd, 1);
    prog->meta_type = param_type(s, pd, 2);
    prog->std_type = param_type(s, pd, 3);
    if (!prog->hdr_type || !prog->meta_type || !prog->std_type ||
        prog->std_type->kind != P4T_STRUCT || prog->hdr_type->kind != P4T_STRUCT ||
        prog->meta_type->kind != P4T_STRUCT) {
        p4sem_err(s, pd->loc,
                  "parser must take (packet_in, out H, inout M, inout "
                  "standard_metadata_t) with struct types");
        return;
    }
    /* packet region: [payload offset][hdr][meta][standard_metadata] */
    P4_ASSERT(prog->nslots == 0);
    prog->nslots = 1;
    prog->hdr_slot = p4irgen_slots(s, prog->hdr_type->nslots);
    prog->meta_slot = p4irgen_slots(s, prog->meta_type->nslots);
    prog->std_slot = p4irgen_slots(s, prog->std_type->nslots);
    prog->npkt_slots = prog->nslots;
    struct p4ir_std *st = &prog->std;
    st->ingress_port = std_field(s, "ingress_port");
    st->egress_spec = std_field(s, "egress_spec");
    st->egress_port = std_field(s, "egress_port");
    st->instance_type = std_field(s, "instance_type");
    st->packet_length = std_field(s, "packet_length");
    st->enq_timestamp = std_field(s, "enq_timestamp");
    st->enq_qdepth = std_field(s, "enq_qdepth");
    st->deq_timedelta = std_field(s, "deq_timedelta");
    st->deq_qdepth = std_field(s, "deq_qdepth");
    st->ingress_global_timestamp = std_field(s, "ingress_global_timestamp");
    st->egress_global_timestamp = std_field(s, "egress_global_timestamp");
    st->mcast_grp = std_field(s, "mcast_grp");
    st->egress_rid = std_field(s, "egress_rid");
    st->checksum_error = std_field(s, "checksum_error");
    st->parser_error = std_field(s, "parser_error");
    st->priority = std_field(s, "priority");
    st->qid = std_alias(s, "queueing_metadata.qid");
    if (st->qid < 0)
        st->qid = std_field(s, "qid");
    if (st->egress_spec < 0 || st->egress_port < 0 || st->ingress_port < 0)
        p4sem_err(s, pd->loc, "standard_metadata_t lacks egress_spec/egress_port/ingress_port");
    collect_field_lists(s, prog->meta_type, prog->meta_slot);
    lower_deferred(s);
    p4prs_lower(s, pd);
    const char *names[5];
    for (int i = 0; i < 5; i++)
        names[i] = cd[i]->name;
    prog->verify = p4ctl_lower(s, cd[0], names[0], true, m->list[1], s->global);
    prog->ingress = p4ctl_lower(s, cd[1], names[1], true, m->list[2], s->global);
    prog->egress = p4ctl_lower(s, cd[2], names[2], true, m->list[3], s->global);
    prog->compute = p4ctl_lower(s, cd[3], names[3], true, m->list[4], s->global);
    prog->deparser = p4ctl_lower(s, cd[4], names[4], true, m->list[5], s->global);
}

/* The types that have no declaration: bool, int, void, string, error, ... */
static void builtin_types(struct p4sem *s)
{
    s->t_bool = p4type_new(s, P4T_BOOL, 1);
    s->t_bool->name = "bool";
    s->t_infint = p4type_new(s, P4T_INFINT, 0);
    s->t_infint->name = "int";
    s->t_void = p4type_new(s, P4T_VOID, 0);
    s->t_void->name = "void";
    s->t_string = p4type_new(s, P4T_STRING, 0);
    s->t_string->name = "string";
    s->t_error = p4type_new(s, P4T_ERROR, 32);
    s->t_error->name = "error";
    s->t_dontcare = p4type_new(s, P4T_DONTCARE, 0);
    s->t_dontcare->name = "_";
    s->t_list = p4type_new(s, P4T_LIST, 0);
    s->t_list->name = "list";
    s->t_match_kind = p4type_new(s, P4T_MATCH_KIND, 0);
    s->t_match_kind->name = "match_kind";
    s->t_packet_in = p4type_new(s, P4T_PACKET_IN, 0);
    s->t_packet_in->name = "packet_in";
    s->t_packet_out = p4type_new(s, P4T_PACKET_OUT, 0);
    s->t_packet_out->name = "packet_out";
    s->t_extern = p4type_new(s, P4T_EXTERN, 0);
    s->t_extern->name = "extern";
    s->t_bad = p4type_new(s, P4T_DONTCARE, 0);
    s->t_bad->name = "<error>";
}

/* The symbol of a declaration the scope keeps as written (its AST): externs, parsers,
 * controls and package types (parser and control types are package-like templates). */
static enum p4sym_kind decl_sym(enum p4ast_kind k)
{
    static const struct {
        enum p4ast_kind ast;
        enum p4sym_kind sym;
    } syms[] = {
        {P4AST_D_EXTERN_TYPE, SYM_EXTERN_TYPE},  {P4AST_D_EXTERN_FUNC, SYM_EXTERN_FUNC},
        {P4AST_D_PARSER_TYPE, SYM_PACKAGE},      {P4AST_D_CONTROL_TYPE, SYM_PACKAGE},
        {P4AST_D_PACKAGE, SYM_PACKAGE},          {P4AST_D_PARSER, SYM_PARSER_DECL},
        {P4AST_D_CONTROL, SYM_CONTROL_DECL},
    };
    for (size_t i = 0; i < P4_ARRAY_LEN(syms); i++) {
        if (syms[i].ast == k)
            return syms[i].sym;
    }
    P4_ASSERT(!"not a kept declaration");
    return SYM_PACKAGE;
}

/* A top-level declaration: types and externs are declared now; actions, functions and
 * instances wait until the packet slots are laid out; the V1Switch instance is kept. */
static void declare_top(struct p4sem *s, const struct p4ast *d, const struct p4ast **main_inst)
{
    struct p4sym *y;
    switch (d->kind) {
    case P4AST_D_CONST:
        p4stmt_const_decl(s, d);
        break;
    case P4AST_D_TYPEDEF:
        y = p4scope_declare(s, d->name, SYM_TYPE, d->loc);
        y->type = p4type_resolve(s, d->a);
        break;
    case P4AST_D_HEADER:
    case P4AST_D_STRUCT:
        y = p4scope_declare(s, d->name, SYM_TYPE, d->loc);
        y->type = p4type_layout(s, d, d->kind == P4AST_D_HEADER ? P4T_HEADER : P4T_STRUCT);
        break;
    case P4AST_D_UNION:
        y = p4scope_declare(s, d->name, SYM_TYPE, d->loc);
        y->type = p4type_layout(s, d, P4T_UNION);
        for (int f = 0; f < y->type->nfields; f++) {
            if (y->type->fields[f].type->kind != P4T_HEADER)
                p4sem_err(s, d->list[f]->loc, "header_union members must be headers");
        }
        break;
    case P4AST_D_ENUM:
        p4type_declare_enum(s, d);
        break;
    case P4AST_D_ERROR:
        p4type_declare_errors(s, d);
        break;
    case P4AST_D_MATCH_KIND:
        break;
    case P4AST_D_EXTERN_TYPE:
    case P4AST_D_EXTERN_FUNC:
    case P4AST_D_PARSER_TYPE:
    case P4AST_D_CONTROL_TYPE:
    case P4AST_D_PACKAGE:
    case P4AST_D_PARSER:
    case P4AST_D_CONTROL:
        y = p4scope_declare(s, d->name, decl_sym(d->kind), d->loc);
        y->decl = d;
        break;
    case P4AST_D_ACTION:
    case P4AST_D_FUNC:
        P4_PUSH(s->deferred, s->ndeferred, s->capdeferred, d);
        break;
    case P4AST_D_INST:
        if (d->a->kind == P4AST_TY_NAME && strcmp(d->a->name, "V1Switch") == 0) {
            if (*main_inst)
                p4sem_err(s, d->loc, "more than one V1Switch instance");
            *main_inst = d;
        } else {
            P4_PUSH(s->deferred, s->ndeferred, s->capdeferred, d);
        }
        break;
    default:
        p4sem_err(s, d->loc, "unexpected declaration");
        break;
    }
}

struct p4_prog *p4sem_lower(struct p4ast *root, struct p4_diag *diag,
                            const struct p4_load_opts *opts)
{
    struct p4sem sv;
    struct p4sem *s = &sv;
    memset(s, 0, sizeof(sv));
    s->diag = diag;
    s->opts = opts;
    s->prog = p4util_calloc(1, sizeof(struct p4_prog));
    int before = diag->nerrors;
    p4scope_push(s);
    s->global = s->scope;
    builtin_types(s);
    const struct p4ast *main_inst = NULL;
    for (int i = 0; i < root->nlist; i++)
        declare_top(s, root->list[i], &main_inst);
    if (s->prog->nerrors == 0) {
        static const char *const core[] = {"NoError",
                                           "PacketTooShort",
                                           "NoMatch",
                                           "StackOutOfBounds",
                                           "HeaderTooShort",
                                           "ParserTimeout",
                                           "ParserInvalidArgument"};
        for (size_t i = 0; i < P4_ARRAY_LEN(core); i++)
            P4_PUSH(s->prog->errors, s->prog->nerrors, s->prog->caperrors, core[i]);
    }
    if (!main_inst && diag->nerrors == before)
        p4sem_err(s, root->loc, "no 'V1Switch(...) main;' instance");
    else if (main_inst && diag->nerrors == before)
        lower_main(s, main_inst);
    for (int i = 0; i < s->nallsyms; i++)
        free(s->allsyms[i]);
    free(s->allsyms);
    for (int i = 0; i < s->nallscopes; i++)
        free(s->allscopes[i]);
    free(s->allscopes);
    free(s->bits);
    free(s->deferred);
    struct p4_prog *prog = s->prog;
    prog->npkt_slots = prog->npkt_slots ? prog->npkt_slots : 1;
    if (diag->nerrors != before) {
        p4_prog_free(prog);
        return NULL;
    }
    return prog;
}
