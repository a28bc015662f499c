/* Sweep files: parsing and validation, point enumeration, CSV header and cells (sweep.h). */
#include "sim/app/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "sim/param.h"
#include "sim/util.h"

const char *const sweep_sources[] = {"summary",    "flows",  "queues",   "tensors",
                                     "iterations", "bursts", "messages", NULL};
static const char *const reduce_names[] = {"one",   "mean", "min",    "max", "sum", "count",
                                           "first", "last", "median", "p90", "p99", NULL};

struct spec {
    const char *name;
    const struct cfg_node *define;
    const struct cfg_node *scenario;
    const struct cfg_node *set;
    const struct cfg_node *axes;
    const struct cfg_node *seeds;
    int64_t repeat;
    const struct cfg_node *metrics;
    bool keep;
};

#define SO(f) offsetof(struct spec, f)
static const struct param_def spec_params[] = {
    {"name", PARAM_STRING, SO(name), PARAM_OPTIONAL, NULL, NULL, NULL, "sweep name"},
    {"define", PARAM_NODE, SO(define), PARAM_OPTIONAL, NULL, NULL, NULL,
     "anything, not read: a place for YAML anchors (&f0) the axes refer to (*f0)"},
    {"scenario", PARAM_NODE, SO(scenario), NULL, NULL, NULL, NULL,
     "the base scenario: a path (relative to this file) or the scenario inline"},
    {"set", PARAM_NODE, SO(set), PARAM_OPTIONAL, NULL, NULL, NULL,
     "map of key path -> value applied to every point"},
    {"axes", PARAM_NODE, SO(axes), PARAM_OPTIONAL, NULL, NULL, NULL,
     "grid dimensions: {set, values}, {zip: [...]} or {points: [...]}"},
    {"seeds", PARAM_NODE, SO(seeds), PARAM_OPTIONAL, NULL, NULL, NULL,
     "run every grid position with each of these seeds"},
    {"repeat", PARAM_INT, SO(repeat), "0", "0", "1000000", NULL,
     "run every grid position with seeds 1..repeat (instead of seeds)"},
    {"metrics", PARAM_NODE, SO(metrics), NULL, NULL, NULL, NULL, "the columns each row reports"},
    {"keep", PARAM_BOOL, SO(keep), "false", NULL, NULL, NULL,
     "keep every point's output folder in OUT/points/"},
};

struct mspec {
    const char *name;
    int from;
    const char *path;
    const char *column;
    const struct cfg_node *where;
    int reduce;
};

#define MO(f) offsetof(struct mspec, f)
static const struct param_def metric_params[] = {
    {"name", PARAM_STRING, MO(name), NULL, NULL, NULL, NULL, "column name"},
    {"from", PARAM_ENUM, MO(from), "summary", NULL, NULL, sweep_sources,
     "summary (summary.json) or a CSV the run writes"},
    {"path", PARAM_STRING, MO(path), PARAM_OPTIONAL, NULL, NULL, NULL,
     "summary: key path, list items by index, name or *"},
    {"column", PARAM_STRING, MO(column), PARAM_OPTIONAL, NULL, NULL, NULL, "CSV: the column"},
    {"where", PARAM_NODE, MO(where), PARAM_OPTIONAL, NULL, NULL, NULL,
     "CSV: row filters \"column OP value\" (OP: == != < <= > >=)"},
    {"reduce", PARAM_ENUM, MO(reduce), "one", NULL, NULL, reduce_names,
     "how several values become one (one: exactly one value)"},
};

static bool is_scalar_list(const struct cfg_node *v)
{
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i]->kind != CFG_SCALAR)
            return false;
    }
    return true;
}

static void add_column(struct sweep *sw, const char *name)
{
    sw->columns = xrealloc(sw->columns, (sw->ncolumns + 1) * sizeof(*sw->columns));
    sw->columns[sw->ncolumns++] = arena_printf(&sw->mem, "%s", name);
}

/* {set: PATH, values: [...], name: COLUMN} or {name: COLUMN, values: [...]} */
static int parse_list(struct diag *d, const struct cfg_node *m, struct sweep_list *l)
{
    const struct cfg_node *set = cfg_get(m, "set");
    const struct cfg_node *values = cfg_get(m, "values");
    const struct cfg_node *name = cfg_get(m, "name");
    int e = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->keys[i], "set") && strcmp(m->keys[i], "values") &&
            strcmp(m->keys[i], "name")) {
            diag_error(d, m->key_locs[i], "unknown key '%s' in an axis (set, values, name)",
                       m->keys[i]);
            e++;
        }
    }
    if (!values || values->kind != CFG_SEQ || values->n == 0) {
        diag_error(d, values ? values->loc : m->loc, "an axis needs a non-empty list 'values'");
        return e + 1;
    }
    if ((set && set->kind != CFG_SCALAR) || (name && name->kind != CFG_SCALAR)) {
        diag_error(d, m->loc, "'set' and 'name' of an axis are scalars");
        return e + 1;
    }
    if (!set && !name) {
        diag_error(d, m->loc, "an axis needs 'set' (a key path) or 'name' (a label column)");
        return e + 1;
    }
    l->path = set ? set->str : NULL;
    l->values = values;
    l->loc = m->loc;
    l->column = !is_scalar_list(values) ? NULL : name ? name->str : set->str;
    if (name && !l->column) {
        diag_error(d, name->loc, "a named axis needs scalar values (its cells are the values)");
        e++;
    }
    return e;
}

static int parse_points(struct sweep *sw, struct diag *d, const struct cfg_node *pts,
                        struct sweep_dim *dim)
{
    if (pts->kind != CFG_SEQ || pts->n == 0) {
        diag_error(d, pts->loc, "'points' must be a non-empty list of maps key.path: value");
        return 1;
    }
    int e = 0;
    dim->points = pts;
    dim->n = pts->n;
    for (size_t i = 0; i < pts->n; i++) {
        const struct cfg_node *m = pts->items[i];
        if (m->kind != CFG_MAP) {
            diag_error(d, m->loc, "each point is a map of key.path: value");
            e++;
            continue;
        }
        for (size_t k = 0; k < m->n; k++) {
            bool seen = false;
            for (size_t c = dim->col0; c < sw->ncolumns; c++)
                seen = seen || strcmp(sw->columns[c], m->keys[k]) == 0;
            if (!seen && m->items[k]->kind == CFG_SCALAR)
                add_column(sw, m->keys[k]);
        }
    }
    return e;
}

static int parse_dim(struct sweep *sw, struct diag *d, const struct cfg_node *a,
                     struct sweep_dim *dim)
{
    memset(dim, 0, sizeof(*dim));
    dim->col0 = sw->ncolumns;
    int e = 0;
    if (a->kind != CFG_MAP) {
        diag_error(d, a->loc, "an axis is a map: {set, values}, {zip: [...]} or {points: [...]}");
        return 1;
    }
    const struct cfg_node *zip = cfg_get(a, "zip");
    const struct cfg_node *pts = cfg_get(a, "points");
    if ((zip || pts) && a->n != 1) {
        diag_error(d, a->loc, "'zip' and 'points' stand alone in their axis entry");
        return 1;
    }
    if (pts) {
        e = parse_points(sw, d, pts, dim);
    } else {
        size_t n = zip ? (zip->kind == CFG_SEQ ? zip->n : 0) : 1;
        if (zip && n == 0) {
            diag_error(d, zip->loc, "'zip' must be a non-empty list of {set, values}");
            return 1;
        }
        dim->lists = arena_calloc(&sw->mem, n, sizeof(*dim->lists));
        dim->nlists = n;
        for (size_t i = 0; i < n; i++) {
            const struct cfg_node *m = zip ? zip->items[i] : a;
            if (m->kind != CFG_MAP) {
                diag_error(d, m->loc, "each zipped list is a map {set, values}");
                e++;
                continue;
            }
            int le = parse_list(d, m, &dim->lists[i]);
            e += le;
            if (le)
                continue;
            if (i > 0 && dim->lists[i].values->n != dim->n) {
                diag_error(d, dim->lists[i].values->loc,
                           "zipped lists must have the same length (%zu here, %zu before)",
                           dim->lists[i].values->n, dim->n);
                e++;
            }
            dim->n = dim->lists[i].values->n;
            if (dim->lists[i].column)
                add_column(sw, dim->lists[i].column);
        }
    }
    dim->ncols = sw->ncolumns - dim->col0;
    return e;
}

static int parse_where(struct sweep *sw, struct diag *d, const struct cfg_node *w,
                       struct sweep_metric *m)
{
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    static const int codes[] = {SWEEP_OP_EQ, SWEEP_OP_NE, SWEEP_OP_LE,
                                SWEEP_OP_GE, SWEEP_OP_LT, SWEEP_OP_GT};
    size_t n = w->kind == CFG_SEQ ? w->n : 1;
    m->where = arena_calloc(&sw->mem, n, sizeof(*m->where));
    for (size_t i = 0; i < n; i++) {
        const struct cfg_node *c = w->kind == CFG_SEQ ? w->items[i] : w;
        const char *s = c->kind == CFG_SCALAR ? c->str : "";
        const char *at = NULL;
        size_t k;
        for (k = 0; k < ARRAY_LEN(ops) && !at; k++)
            at = strstr(s, ops[k]);
        if (!at) {
            diag_error(d, c->loc, "a filter is \"column OP value\" with OP one of == != < <= > >=");
            return 1;
        }
        k--;
        char *col = arena_printf(&sw->mem, "%.*s", (int)(at - s), s);
        char *end = col + strlen(col);
        while (end > col && end[-1] == ' ')
            *--end = '\0';
        const char *v = at + strlen(ops[k]);
        while (*v == ' ')
            v++;
        m->where[m->nwhere].column = col;
        m->where[m->nwhere].op = codes[k];
        m->where[m->nwhere].value = v;
        m->nwhere++;
    }
    return 0;
}

static int parse_metrics(struct sweep *sw, struct diag *d, const struct cfg_node *ms)
{
    if (ms->kind != CFG_SEQ || ms->n == 0) {
        diag_error(d, ms->loc, "'metrics' must be a non-empty list of {name, from, ...}");
        return 1;
    }
    int e = 0;
    sw->metrics = arena_calloc(&sw->mem, ms->n, sizeof(*sw->metrics));
    for (size_t i = 0; i < ms->n; i++) {
        struct mspec s;
        char what[64];
        snprintf(what, sizeof(what), "metric %zu", i + 1);
        if (param_decode(d, metric_params, ARRAY_LEN(metric_params), ms->items[i], &s, what)) {
            e++;
            continue;
        }
        struct sweep_metric *m = &sw->metrics[sw->nmetrics++];
        m->name = s.name;
        m->from = s.from;
        m->path = s.path;
        m->column = s.column;
        m->reduce = s.reduce;
        m->loc = ms->items[i]->loc;
        if (s.from == 0 && (!s.path || s.column || s.where)) {
            diag_error(d, m->loc, "metric '%s': from summary takes 'path' (no column, where)",
                       s.name);
            e++;
        } else if (s.from != 0 && (!s.column || s.path)) {
            diag_error(d, m->loc, "metric '%s': from %s takes 'column' (and 'where'), not 'path'",
                       s.name, sweep_sources[s.from]);
            e++;
        }
        if (s.where)
            e += parse_where(sw, d, s.where, m);
        for (size_t k = 0; k + 1 < sw->nmetrics; k++) {
            if (strcmp(sw->metrics[k].name, m->name) == 0) {
                diag_error(d, m->loc, "duplicate metric name '%s'", m->name);
                e++;
            }
        }
    }
    return e;
}

static int parse_seeds(struct sweep *sw, struct diag *d, const struct spec *s)
{
    if (s->seeds && s->repeat) {
        diag_error(d, s->seeds->loc, "give 'seeds' or 'repeat', not both");
        return 1;
    }
    if (s->repeat) {
        sw->nseeds = (size_t)s->repeat;
        sw->seeds = arena_calloc(&sw->mem, sw->nseeds, sizeof(*sw->seeds));
        for (size_t i = 0; i < sw->nseeds; i++)
            sw->seeds[i] = i + 1;
        return 0;
    }
    if (!s->seeds)
        return 0;
    if (s->seeds->kind != CFG_SEQ || s->seeds->n == 0) {
        diag_error(d, s->seeds->loc, "'seeds' must be a non-empty list of integers");
        return 1;
    }
    sw->nseeds = s->seeds->n;
    sw->seeds = arena_calloc(&sw->mem, sw->nseeds, sizeof(*sw->seeds));
    for (size_t i = 0; i < sw->nseeds; i++) {
        const struct cfg_node *v = s->seeds->items[i];
        char *end = NULL;
        unsigned long long x = v->kind == CFG_SCALAR ? strtoull(v->str, &end, 10) : 0;
        if (v->kind != CFG_SCALAR || !*v->str || *end || v->str[0] == '-') {
            diag_error(d, v->loc, "a seed is a non-negative integer");
            return 1;
        }
        sw->seeds[i] = x;
    }
    return 0;
}

/* The base scenario's tree, for validation and the fingerprint. */
static struct cfg_doc *base_doc(const struct sweep *sw, struct diag *d)
{
    if (sw->scenario_path)
        return cfg_load_file(sw->scenario_path, d);
    return cfg_doc_from(sw->file, sw->scenario_node);
}

/* Applies the sweep's `set` map to doc. Returns the number of errors. */
static int apply_set(const struct sweep *sw, struct cfg_doc *doc, struct diag *d)
{
    int e = 0;
    for (size_t i = 0; sw->set && i < sw->set->n; i++)
        e += cfg_set_node(doc, sw->set->keys[i], sw->set->items[i], sw->set->key_locs[i], d) < 0;
    return e;
}

/* Every key path of the sweep must exist in (or be addable to) the base scenario: tried on a
 * fresh copy each, so errors are located in the sweep file before anything runs. */
static int validate_paths(const struct sweep *sw, const struct cfg_doc *base, struct diag *d)
{
    int e = 0;
    struct cfg_doc *doc = cfg_doc_from(base->file, base->root);
    e += apply_set(sw, doc, d);
    cfg_free(doc);
    for (size_t k = 0; k < sw->ndims; k++) {
        const struct sweep_dim *dim = &sw->dims[k];
        for (size_t i = 0; i < dim->nlists; i++) {
            if (!dim->lists[i].path)
                continue;
            doc = cfg_doc_from(base->file, base->root);
            const struct cfg_node *v = dim->lists[i].values->items[0];
            e += cfg_set_node(doc, dim->lists[i].path, v, v->loc, d) < 0;
            cfg_free(doc);
        }
        for (size_t p = 0; dim->points && p < dim->points->n; p++) {
            const struct cfg_node *m = dim->points->items[p];
            doc = cfg_doc_from(base->file, base->root);
            for (size_t i = 0; m->kind == CFG_MAP && i < m->n; i++)
                e += cfg_set_node(doc, m->keys[i], m->items[i], m->key_locs[i], d) < 0;
            cfg_free(doc);
        }
    }
    return e;
}

static void fingerprint(struct sweep *sw, const struct cfg_doc *base)
{
    struct cfg_buf b = {0};
    cfg_canonical(sw->doc->root, &b);
    cfg_buf_putc(&b, '\n');
    cfg_canonical(base->root, &b);
    sha256_hex_of(b.s, b.len, sw->fingerprint);
    free(b.s);
}

static int resolve_scenario(struct sweep *sw, struct diag *d, const struct cfg_node *sc)
{
    if (sc->kind == CFG_MAP) {
        sw->scenario_node = sc;
        return 0;
    }
    if (sc->kind != CFG_SCALAR || !sc->str[0]) {
        diag_error(d, sc->loc, "'scenario' is a path or the scenario itself (a map)");
        return 1;
    }
    const char *slash = strrchr(sw->file, '/');
    if (sc->str[0] == '/' || !slash)
        sw->scenario_path = arena_printf(&sw->mem, "%s", sc->str);
    else
        sw->scenario_path =
            arena_printf(&sw->mem, "%.*s/%s", (int)(slash - sw->file), sw->file, sc->str);
    return 0;
}

static int parse(struct sweep *sw, struct diag *d)
{
    struct spec s;
    if (param_decode(d, spec_params, ARRAY_LEN(spec_params), sw->doc->root, &s, "the sweep"))
        return 1;
    sw->name = s.name;
    sw->keep = s.keep;
    int e = resolve_scenario(sw, d, s.scenario);
    if (s.set && s.set->kind != CFG_MAP) {
        diag_error(d, s.set->loc, "'set' is a map of key.path: value");
        e++;
    } else {
        sw->set = s.set;
    }
    if (s.axes && s.axes->kind != CFG_SEQ) {
        diag_error(d, s.axes->loc, "'axes' is a list of dimensions");
        e++;
    } else if (s.axes) {
        sw->dims = arena_calloc(&sw->mem, s.axes->n, sizeof(*sw->dims));
        for (size_t i = 0; i < s.axes->n; i++)
            e += parse_dim(sw, d, s.axes->items[i], &sw->dims[sw->ndims++]);
    }
    e += parse_seeds(sw, d, &s);
    e += parse_metrics(sw, d, s.metrics);
    for (size_t i = 0; i < sw->ncolumns; i++) {
        for (size_t k = 0; k < sw->nmetrics; k++) {
            if (strcmp(sw->columns[i], sw->metrics[k].name) == 0) {
                diag_error(d, sw->metrics[k].loc, "metric '%s' has the name of an axis column",
                           sw->metrics[k].name);
                e++;
            }
        }
    }
    sw->ncombos = 1;
    for (size_t i = 0; i < sw->ndims; i++)
        sw->ncombos *= sw->dims[i].n ? sw->dims[i].n : 1;
    sw->npoints = sw->ncombos * (sw->nseeds ? sw->nseeds : 1);
    if (e == 0 && sw->npoints > 100000000) {
        diag_error(d, s.axes ? s.axes->loc : sw->doc->root->loc,
                   "%llu points: a sweep is limited to 10^8", (unsigned long long)sw->npoints);
        e++;
    }
    return e;
}

/* The sweep of `doc` (read from `file`), in an arena of its own (sw->mem). */
static struct sweep *sweep_new(struct cfg_doc *doc, const char *file)
{
    struct arena mem = {0};
    struct sweep *sw = arena_calloc(&mem, 1, sizeof(*sw));
    sw->mem = mem;
    sw->doc = doc;
    sw->file = arena_printf(&sw->mem, "%s", file);
    return sw;
}

static struct sweep *finish_load(struct sweep *sw, const struct cfg_node *quick, struct diag *d)
{
    if (!sw->doc->root || sw->doc->root->kind != CFG_MAP) {
        diag_error(d, (struct src_loc){sw->file, 1, 1}, "a sweep file is a map (scenario, axes, "
                                                         "metrics, ...)");
        sweep_free(sw);
        return NULL;
    }
    for (size_t i = 0; quick && quick->kind == CFG_MAP && i < quick->n; i++)
        cfg_map_put(sw->doc, sw->doc->root, quick->keys[i], cfg_copy(sw->doc, quick->items[i]),
                    quick->key_locs[i]);
    if (parse(sw, d)) {
        sweep_free(sw);
        return NULL;
    }
    struct cfg_doc *base = base_doc(sw, d);
    if (!base || validate_paths(sw, base, d)) {
        cfg_free(base);
        sweep_free(sw);
        return NULL;
    }
    fingerprint(sw, base);
    cfg_free(base);
    return sw;
}

struct sweep *sweep_load(const char *path, const struct cfg_node *quick, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_file(path, d);
    if (!doc)
        return NULL;
    return finish_load(sweep_new(doc, path), quick, d);
}

struct sweep *sweep_load_node(const char *file, const struct cfg_node *root,
                              const struct cfg_node *quick, struct diag *d)
{
    return finish_load(sweep_new(cfg_doc_from(file, root), file), quick, d);
}

void sweep_free(struct sweep *sw)
{
    if (!sw)
        return;
    free(sw->columns);
    cfg_free(sw->doc);
    arena_free(&sw->mem); /* sw itself and the rest of its tables */
}

static void push_assign(struct sweep_point *p, const char *path, const struct cfg_node *v)
{
    p->assigns = xrealloc(p->assigns, (p->nassigns + 1) * sizeof(*p->assigns));
    p->assigns[p->nassigns++] = (struct scenario_assign){path, v};
}

void sweep_point_get(const struct sweep *sw, uint64_t id, struct sweep_point *p)
{
    memset(p, 0, sizeof(*p));
    p->id = id;
    p->cells = xcalloc(sw->ncolumns + 1, sizeof(*p->cells));
    for (size_t c = 0; c < sw->ncolumns; c++)
        p->cells[c] = "";
    uint64_t nseeds = sw->nseeds ? sw->nseeds : 1;
    uint64_t combo = id / nseeds;
    if (sw->nseeds) {
        p->seed_given = true;
        p->seed = sw->seeds[id % nseeds];
    }
    for (size_t i = 0; sw->set && i < sw->set->n; i++)
        push_assign(p, sw->set->keys[i], sw->set->items[i]);
    /* first axis outermost: position along dim k is (combo / product of later sizes) % n_k */
    uint64_t stride = sw->ncombos;
    for (size_t k = 0; k < sw->ndims; k++) {
        const struct sweep_dim *dim = &sw->dims[k];
        stride /= dim->n;
        size_t pos = (size_t)((combo / stride) % dim->n);
        size_t col = dim->col0;
        for (size_t i = 0; i < dim->nlists; i++) {
            const struct cfg_node *v = dim->lists[i].values->items[pos];
            if (dim->lists[i].path)
                push_assign(p, dim->lists[i].path, v);
            if (dim->lists[i].column)
                p->cells[col++] = v->str;
        }
        const struct cfg_node *m = dim->points ? dim->points->items[pos] : NULL;
        for (size_t i = 0; m && i < m->n; i++) {
            push_assign(p, m->keys[i], m->items[i]);
            for (size_t c = dim->col0; c < dim->col0 + dim->ncols; c++) {
                if (strcmp(sw->columns[c], m->keys[i]) == 0 && m->items[i]->kind == CFG_SCALAR)
                    p->cells[c] = m->items[i]->str;
            }
        }
    }
}

void sweep_point_free(struct sweep_point *p)
{
    free(p->assigns);
    free(p->cells);
    memset(p, 0, sizeof(*p));
}

struct scenario *sweep_point_scenario(const struct sweep *sw, const struct sweep_point *p,
                                      struct p4_cache *p4_cache, struct diag *d)
{
    struct scenario_opts o = {
        .assigns = p->assigns,
        .nassigns = (int)p->nassigns,
        .seed_given = p->seed_given,
        .seed = p->seed,
        .p4_cache = p4_cache,
    };
    if (sw->scenario_path)
        return scenario_load(sw->scenario_path, &o, d);
    return scenario_load_node(sw->file, sw->scenario_node, &o, d);
}

char *sweep_csv_cell(const char *s)
{
    if (!strpbrk(s, ",\"\n\r"))
        return xstrdup(s);
    struct cfg_buf b = {0};
    cfg_buf_putc(&b, '"');
    for (; *s; s++) {
        if (*s == '"')
            cfg_buf_putc(&b, '"');
        cfg_buf_putc(&b, *s == '\n' || *s == '\r' ? ' ' : *s);
    }
    cfg_buf_putc(&b, '"');
    return b.s;
}

char *sweep_csv_header(const struct sweep *sw)
{
    struct cfg_buf b = {0};
    const char *fixed_tail[] = {"status", "exit_code", "config_hash", "error"};
    const char *p = "point";
    for (; *p; p++)
        cfg_buf_putc(&b, *p);
    for (size_t i = 0; i < sw->ncolumns + 1 + sw->nmetrics + ARRAY_LEN(fixed_tail); i++) {
        const char *name = i < sw->ncolumns                   ? sw->columns[i]
                           : i == sw->ncolumns                ? "seed"
                           : i <= sw->ncolumns + sw->nmetrics ? sw->metrics[i - sw->ncolumns - 1].name
                                                              : fixed_tail[i - sw->ncolumns - 1 -
                                                                           sw->nmetrics];
        char *cell = sweep_csv_cell(name);
        cfg_buf_putc(&b, ',');
        for (char *c = cell; *c; c++)
            cfg_buf_putc(&b, *c);
        free(cell);
    }
    cfg_buf_putc(&b, '\n');
    return b.s;
}
