/* The figure pipeline (figure.h): run the sweep, derive columns, plot, set the claim beside
 * our number, compare with the reference. */
#include "sim/app/figure.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/expr.h"
#include "sim/app/figure_table.h"
#include "sim/app/gnuplot.h"
#include "sim/app/sweep_metric.h"
#include "sim/app/sweep_run.h"
#include "sim/install.h"
#include "sim/out.h"
#include "sim/param.h"
#include "sim/util.h"

#define EXIT_BAD_INPUT 2

static const char *const style_names[] = {"lines", "bars", NULL};
static const char *const key_names[] = {"top-left", "top-right", "bottom-left", "bottom-right",
                                        "below", NULL};
#define KEY_BELOW 4 /* index of "below" in key_names */
/* gnuplot's words for key_names */
static const char *const key_gnuplot[] = {"top left", "top right", "bottom left", "bottom right",
                                          "below"};
static const char *const reduce_names[] = {"one",   "mean", "min",    "max", "sum", "count",
                                           "first", "last", "median", "p90", "p99", NULL};

struct fig_cfg {
    const char *title;
    const char *claim;
    const struct cfg_node *sweep;
    const struct cfg_node *quick;
    const struct cfg_node *pivot;
    const struct cfg_node *derive;
    const struct cfg_node *plot;
    const struct cfg_node *headline;
    const struct cfg_node *regression;
};

#define FO(f) offsetof(struct fig_cfg, f)
static const struct param_def fig_params[] = {
    {"title", PARAM_STRING, FO(title), NULL, NULL, NULL, NULL, "what the figure shows"},
    {"claim", PARAM_STRING, FO(claim), NULL, NULL, NULL, NULL,
     "the claim it checks (a paper's, or an analytic result), printed beside our number"},
    {"sweep", PARAM_NODE, FO(sweep), NULL, NULL, NULL, NULL, "the sweep: a path or inline"},
    {"quick", PARAM_NODE, FO(quick), PARAM_OPTIONAL, NULL, NULL, NULL,
     "keys of the sweep that --quick replaces (a few seconds for make test)"},
    {"pivot", PARAM_NODE, FO(pivot), PARAM_OPTIONAL, NULL, NULL, NULL,
     "{by, keys, values}: one row per distinct keys with a column VALUE_B per value of `by` "
     "(so that rows of different schemes can be compared), before derive"},
    {"derive", PARAM_NODE, FO(derive), PARAM_OPTIONAL, NULL, NULL, NULL,
     "derived columns: [{name, expr}]"},
    {"plot", PARAM_NODE, FO(plot), NULL, NULL, NULL, NULL, "how to draw it"},
    {"headline", PARAM_NODE, FO(headline), NULL, NULL, NULL, NULL,
     "the number set beside the claim: {column, reduce, label}, or a list of them"},
    {"regression", PARAM_NODE, FO(regression), NULL, NULL, NULL, NULL,
     "{columns, tolerance, why}: what --quick compares with results/NAME.ref.csv"},
};

struct plot_cfg {
    int style;
    const char *x;
    const struct cfg_node *y;
    const char *xlabel;
    const char *ylabel;
    double yscale;
    const struct cfg_node *titles;
    bool logx;
    bool logy;
    double ymin;
    int key;
};

#define PO(f) offsetof(struct plot_cfg, f)
static const struct param_def plot_params[] = {
    {"style", PARAM_ENUM, PO(style), "lines", NULL, NULL, style_names,
     "lines over the x column, or bars grouped by it"},
    {"x", PARAM_STRING, PO(x), NULL, NULL, NULL, NULL, "the x column"},
    {"y", PARAM_NODE, PO(y), NULL, NULL, NULL, NULL, "the y columns (a list)"},
    {"xlabel", PARAM_STRING, PO(xlabel), NULL, NULL, NULL, NULL, "x axis label with its unit"},
    {"ylabel", PARAM_STRING, PO(ylabel), NULL, NULL, NULL, NULL, "y axis label with its unit"},
    {"yscale", PARAM_DOUBLE, PO(yscale), "1", NULL, NULL, NULL,
     "y values are multiplied by this (1e3: seconds to ms)"},
    {"titles", PARAM_NODE, PO(titles), PARAM_OPTIONAL, NULL, NULL, NULL,
     "legend text per y column"},
    {"logx", PARAM_BOOL, PO(logx), "false", NULL, NULL, NULL, "logarithmic x axis"},
    {"logy", PARAM_BOOL, PO(logy), "false", NULL, NULL, NULL, "logarithmic y axis"},
    {"ymin", PARAM_DOUBLE, PO(ymin), "0", "0", NULL, NULL,
     "lower end of the y axis, after yscale (0: automatic; on a log axis, set it below the "
     "smallest value so that no bar or line falls off the bottom)"},
    {"key", PARAM_ENUM, PO(key), "top-left", NULL, NULL, key_names,
     "where the legend goes (below: under the plot, for many lines)"},
};

struct head_cfg {
    const char *column;
    int reduce;
    const char *label;
};

#define HO(f) offsetof(struct head_cfg, f)
static const struct param_def head_params[] = {
    {"column", PARAM_STRING, HO(column), NULL, NULL, NULL, NULL, "the column"},
    {"reduce", PARAM_ENUM, HO(reduce), "max", NULL, NULL, reduce_names, "over the rows"},
    {"label", PARAM_STRING, HO(label), NULL, NULL, NULL, NULL, "what the number is"},
};

struct reg_cfg {
    const struct cfg_node *columns;
    double tolerance;
    const char *why;
};

#define RO(f) offsetof(struct reg_cfg, f)
static const struct param_def reg_params[] = {
    {"columns", PARAM_NODE, RO(columns), NULL, NULL, NULL, NULL, "columns compared"},
    {"tolerance", PARAM_DOUBLE, RO(tolerance), NULL, "0", "1", NULL,
     "largest relative difference from the reference"},
    {"why", PARAM_STRING, RO(why), NULL, NULL, NULL, NULL, "the reasoning for the tolerance"},
};

struct fig_opts {
    bool quick;
    bool update_ref;
    bool quiet;
    int jobs;
    const char *results; /* results folder */
    const char *out;     /* sweep folder (one figure only) */
};

struct pivot_cfg {
    const char *by;
    const struct cfg_node *keys;
    const struct cfg_node *values;
};

#define VO(f) offsetof(struct pivot_cfg, f)
static const struct param_def pivot_params[] = {
    {"by", PARAM_STRING, VO(by), NULL, NULL, NULL, NULL, "the column whose values become columns"},
    {"keys", PARAM_NODE, VO(keys), NULL, NULL, NULL, NULL, "the columns that identify a row"},
    {"values", PARAM_NODE, VO(values), NULL, NULL, NULL, NULL, "the columns spread by `by`"},
};

#define MAX_HEADLINES 8

struct figure {
    char *file;
    char *name;
    struct cfg_doc *doc;
    struct fig_cfg cfg;
    struct plot_cfg plot;
    struct head_cfg head[MAX_HEADLINES];
    size_t nhead;
    struct pivot_cfg pivot;
    struct reg_cfg reg;
};

static void figure_free(struct figure *f)
{
    cfg_free(f->doc);
    free(f->file);
    free(f->name);
    free(f);
}

static bool all_scalars(const struct cfg_node *n)
{
    if (!n || n->kind != CFG_SEQ || n->n == 0)
        return false;
    for (size_t i = 0; i < n->n; i++) {
        if (n->items[i]->kind != CFG_SCALAR)
            return false;
    }
    return true;
}

static struct figure *figure_load(const char *path, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_file(path, d);
    if (!doc)
        return NULL;
    struct figure *f = xcalloc(1, sizeof(*f));
    f->doc = doc;
    f->file = xstrdup(path);
    const char *base = strrchr(path, '/');
    f->name = xstrdup(base ? base + 1 : path);
    char *dot = strrchr(f->name, '.');
    if (dot && dot != f->name)
        *dot = '\0';
    int e = param_decode(d, fig_params, ARRAY_LEN(fig_params), doc->root, &f->cfg, "the figure");
    if (e == 0) {
        e += param_decode(d, plot_params, ARRAY_LEN(plot_params), f->cfg.plot, &f->plot, "plot");
        const struct cfg_node *h = f->cfg.headline;
        bool list = h->kind == CFG_SEQ;
        f->nhead = list ? h->n : 1;
        if (f->nhead == 0 || f->nhead > MAX_HEADLINES) {
            diag_error(d, h->loc, "headline: 1 to %d of {column, reduce, label}", MAX_HEADLINES);
            e++;
            f->nhead = 0;
        }
        for (size_t i = 0; i < f->nhead; i++)
            e += param_decode(d, head_params, ARRAY_LEN(head_params), list ? h->items[i] : h,
                              &f->head[i], "headline");
        if (f->cfg.pivot) {
            e += param_decode(d, pivot_params, ARRAY_LEN(pivot_params), f->cfg.pivot, &f->pivot,
                              "pivot");
            if (e == 0 && (!all_scalars(f->pivot.keys) || !all_scalars(f->pivot.values))) {
                diag_error(d, f->cfg.pivot->loc, "pivot: 'keys' and 'values' are lists of "
                                                 "column names");
                e++;
            }
        }
        e += param_decode(d, reg_params, ARRAY_LEN(reg_params), f->cfg.regression, &f->reg,
                          "regression");
    }
    if (e == 0 && !all_scalars(f->plot.y)) {
        diag_error(d, f->plot.y->loc, "plot: 'y' is a list of column names");
        e++;
    }
    if (e == 0 && !all_scalars(f->reg.columns)) {
        diag_error(d, f->reg.columns->loc, "regression: 'columns' is a list of column names");
        e++;
    }
    if (e) {
        figure_free(f);
        return NULL;
    }
    return f;
}

struct row_ctx {
    const struct table *t;
    size_t r;
};

static const char *row_lookup(void *ud, const char *name)
{
    struct row_ctx *c = ud;
    int col = table_col(c->t, name);
    return col < 0 ? NULL : c->t->rows[c->r][col];
}

/* Appends the derived columns. Returns 0 or -1 after a located message. */
static int derive(const struct figure *f, struct table *t, struct diag *d)
{
    const struct cfg_node *dl = f->cfg.derive;
    for (size_t i = 0; dl && i < dl->n; i++) {
        const struct cfg_node *m = dl->items[i];
        const struct cfg_node *name = cfg_get(m, "name");
        const struct cfg_node *ex = cfg_get(m, "expr");
        if (m->kind != CFG_MAP || !name || !ex || name->kind != CFG_SCALAR ||
            ex->kind != CFG_SCALAR || m->n != 2) {
            diag_error(d, m->loc, "a derived column is {name, expr}");
            return -1;
        }
        char **cells = xcalloc(t->nrows + 1, sizeof(*cells));
        for (size_t r = 0; r < t->nrows; r++) {
            struct row_ctx c = {t, r};
            double x;
            char err[300];
            if (expr_eval(ex->str, row_lookup, &c, &x, err, sizeof(err)) < 0) {
                diag_error(d, ex->loc, "%s (row %zu)", err, r + 1);
                for (size_t k = 0; k < r; k++)
                    free(cells[k]);
                free(cells);
                return -1;
            }
            cells[r] = xasprintf("%.12g", x);
        }
        table_add_col(t, name->str, cells);
        free(cells);
    }
    return 0;
}

static const char *legend(const struct figure *f, const char *col)
{
    const struct cfg_node *t = cfg_get(f->plot.titles, col);
    return t && t->kind == CFG_SCALAR ? t->str : col;
}

static void append(struct cfg_buf *b, const char *s)
{
    for (; *s; s++)
        cfg_buf_putc(b, *s);
}

/* Draws the table; returns 0 or -1 after a message. */
static int draw(const struct figure *f, const struct table *t, const char *base)
{
    int xc = table_col(t, f->plot.x);
    if (xc < 0) {
        fprintf(stderr, "ddlsim: error: %s: plot x column '%s' is not in the results\n", f->file,
                f->plot.x);
        return -1;
    }
    struct cfg_buf data = {0};
    struct cfg_buf cmd = {0};
    append(&data, "$d << EOD\n");
    for (size_t r = 0; r < t->nrows; r++) {
        double x;
        bool bars = f->plot.style == 1;
        char *cell = bars || expr_number(t->rows[r][xc], &x) < 0
                         ? sweep_csv_cell(t->rows[r][xc])
                         : xasprintf("%.12g", x);
        append(&data, cell);
        free(cell);
        for (size_t i = 0; i < f->plot.y->n; i++) {
            int yc = table_col(t, f->plot.y->items[i]->str);
            double y;
            char num[64] = ",NaN";
            if (yc >= 0 && expr_number(t->rows[r][yc], &y) == 0)
                snprintf(num, sizeof(num), ",%.12g", y * f->plot.yscale);
            append(&data, num);
        }
        cfg_buf_putc(&data, '\n');
    }
    append(&data, "EOD\n");
    char *title = gnuplot_quote(f->cfg.title);
    char *xl = gnuplot_quote(f->plot.xlabel);
    char *yl = gnuplot_quote(f->plot.ylabel);
    char *head = xasprintf("set datafile separator \",\"\nset title %s\nset xlabel %s\n"
                           "set ylabel %s\nset key %s box opaque\nset grid\n%s%s%s",
                           title, xl, yl, key_gnuplot[f->plot.key], f->plot.logx ? "set logscale x\n" : "",
                           f->plot.logy ? "set logscale y\nset format y \"%g\"\n" : "",
                           f->plot.style == 1 ? "set style data histograms\n"
                                                "set style histogram clustered gap 1\n"
                                                "set style fill solid 0.8 border -1\n"
                                                "set yrange [0:*]\n"
                                              : "");
    append(&cmd, head);
    if (f->plot.ymin > 0) {
        char *r = xasprintf("set yrange [%.12g:*]\n", f->plot.ymin);
        append(&cmd, r);
        free(r);
    }
    if (f->plot.key == KEY_BELOW) {
        /* gnuplot lays a key below the plot over the x label: room for the label and one row
         * per line at most */
        char *m = xasprintf("set bmargin %zu\n", 4 + f->plot.y->n);
        append(&cmd, m);
        free(m);
    }
    append(&cmd, "plot ");
    /* lines: the reference columns (second on) dashed, drawn first; the first column, ddlsim's
     * own, on top with points, so a perfect match still shows both */
    for (size_t k = 0; k < f->plot.y->n; k++) {
        size_t i = f->plot.style == 1 ? k : (k + 1) % f->plot.y->n;
        char *lt = gnuplot_quote(legend(f, f->plot.y->items[i]->str));
        char *clause = f->plot.style == 1
                           ? xasprintf("%s$d using %zu%s title %s", k ? ", " : "", i + 2,
                                       i == 0 ? ":xtic(1)" : "", lt)
                       : i == 0 ? xasprintf("%s$d using 1:2 with linespoints lw 2 pt 7 ps 1.5 "
                                            "lc rgb \"#d62728\" title %s", k ? ", " : "", lt)
                                : xasprintf("%s$d using 1:%zu with lines lw 2 dt 2 lc %zu title %s",
                                            k ? ", " : "", i + 2, i, lt);
        append(&cmd, clause);
        free(clause);
        free(lt);
    }
    cfg_buf_putc(&cmd, '\n');
    char err[600];
    int rc = gnuplot_render(data.s, cmd.s, base, 900, 560, err, sizeof(err));
    if (rc < 0)
        fprintf(stderr, "ddlsim: error: figure %s: %s\n", f->name, err);
    free(title);
    free(xl);
    free(yl);
    free(head);
    free(data.s);
    free(cmd.s);
    return rc;
}

static int write_table(const struct table *t, const char *dir, const char *name)
{
    struct out_file o;
    char err[512];
    if (out_mkdirs(dir) < 0 || out_open(&o, dir, name, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: cannot write '%s/%s': %s\n", dir, name, strerror(errno));
        return -1;
    }
    table_write(t, o.f);
    if (out_commit(&o, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        return -1;
    }
    return 0;
}

/* Compares the regression columns with the reference, row by row (same points). Returns the
 * number of values outside the tolerance (each reported), or -1 when there is no reference. */
static int compare(const struct figure *f, const struct table *t, const char *ref_path)
{
    struct table ref;
    if (table_read(ref_path, &ref) < 0 && ref.ncols == 0) {
        fprintf(stderr, "ddlsim: error: no reference %s (make figures-update writes it): %s\n",
                ref_path, strerror(errno));
        return -1;
    }
    int bad = 0;
    if (ref.nrows != t->nrows) {
        fprintf(stderr, "  %zu rows, the reference has %zu\n", t->nrows, ref.nrows);
        bad++;
    }
    for (size_t i = 0; i < f->reg.columns->n; i++) {
        const char *col = f->reg.columns->items[i]->str;
        int a = table_col(t, col);
        int b = table_col(&ref, col);
        if (a < 0 || b < 0) {
            fprintf(stderr, "  column '%s' missing from the %s\n", col, a < 0 ? "results" : "reference");
            bad++;
            continue;
        }
        for (size_t r = 0; r < t->nrows && r < ref.nrows; r++) {
            double x;
            double y;
            bool nx = expr_number(t->rows[r][a], &x) < 0;
            bool ny = expr_number(ref.rows[r][b], &y) < 0;
            if (nx && ny && strcmp(t->rows[r][a], ref.rows[r][b]) == 0)
                continue;
            double lim = f->reg.tolerance * fabs(y);
            if (nx || ny || fabs(x - y) > lim) {
                fprintf(stderr, "  point %s: %s = %s, reference %s (%+.3g%%, tolerance %g%%)\n",
                        t->rows[r][0], col, t->rows[r][a], ref.rows[r][b],
                        nx || ny || y == 0 ? NAN : 100 * (x - y) / fabs(y),
                        100 * f->reg.tolerance);
                bad++;
            }
        }
    }
    table_free(&ref);
    return bad;
}

static void headline(const struct figure *f, const struct table *t)
{
    printf("  claim: %s\n", f->cfg.claim);
    for (size_t i = 0; i < f->nhead; i++) {
        const struct head_cfg *h = &f->head[i];
        int c = table_col(t, h->column);
        double *v = xcalloc(t->nrows + 1, sizeof(*v));
        size_t n = 0;
        for (size_t r = 0; c >= 0 && r < t->nrows; r++) {
            if (expr_number(t->rows[r][c], &v[n]) == 0)
                n++;
        }
        double x = sweep_reduce(h->reduce, v, n);
        printf("  ours:  %s = %.6g (%s over %zu points)\n", h->label, x,
               reduce_names[h->reduce], n);
        free(v);
    }
}

/* The figure's pivot, if any; returns 0 or -1 after a message. */
static int pivot(const struct figure *f, struct table *t)
{
    if (!f->cfg.pivot)
        return 0;
    const struct cfg_node *k = f->pivot.keys;
    const struct cfg_node *v = f->pivot.values;
    const char **keys = xcalloc(k->n, sizeof(*keys));
    const char **vals = xcalloc(v->n, sizeof(*vals));
    for (size_t i = 0; i < k->n; i++)
        keys[i] = k->items[i]->str;
    for (size_t i = 0; i < v->n; i++)
        vals[i] = v->items[i]->str;
    char err[300];
    int rc = table_pivot(t, f->pivot.by, keys, k->n, vals, v->n, err, sizeof(err));
    if (rc < 0)
        fprintf(stderr, "%s: error: %s\n", f->file, err);
    free(keys);
    free(vals);
    return rc;
}

static struct sweep *figure_sweep(const struct figure *f, bool quick, struct diag *d)
{
    const struct cfg_node *q = quick ? f->cfg.quick : NULL;
    const struct cfg_node *s = f->cfg.sweep;
    if (s->kind == CFG_MAP)
        return sweep_load_node(f->file, s, q, d);
    if (s->kind != CFG_SCALAR) {
        diag_error(d, s->loc, "'sweep' is a path or a sweep (a map)");
        return NULL;
    }
    const char *slash = strrchr(f->file, '/');
    char *path = s->str[0] == '/' || !slash
                     ? xstrdup(s->str)
                     : xasprintf("%.*s/%s", (int)(slash - f->file), f->file, s->str);
    struct sweep *sw = sweep_load(path, q, d);
    free(path);
    return sw;
}

/* Runs one figure; returns its exit code. */
static int figure_run(const char *path, const struct fig_opts *o)
{
    struct diag d;
    diag_init(&d, stderr);
    struct figure *f = figure_load(path, &d);
    struct sweep *sw = f ? figure_sweep(f, o->quick, &d) : NULL;
    if (!sw) {
        fprintf(stderr, "%s: %d error%s\n", path, diag_count(&d), diag_count(&d) == 1 ? "" : "s");
        if (f)
            figure_free(f);
        return EXIT_BAD_INPUT;
    }
    char *out = o->out ? xstrdup(o->out)
                       : xasprintf("out/figures/%s%s", f->name, o->quick ? "-quick" : "");
    if (!o->quiet)
        printf("figure %s%s: %s\n", f->name, o->quick ? " (quick)" : "", f->cfg.title);
    struct sweep_run_opts so = {.out = out, .jobs = o->jobs, .fresh = true, .quiet = true};
    int rc = sweep_execute(sw, &so);
    char *res = xasprintf("%s/results.csv", out);
    struct table t = {0};
    if (rc != 0) {
        fprintf(stderr, "ddlsim: error: figure %s: the sweep failed (%s)\n", f->name, res);
        rc = 1;
    } else if (table_read(res, &t) < 0) {
        fprintf(stderr, "ddlsim: error: cannot read '%s': %s\n", res, strerror(errno));
        rc = 1;
    } else if (pivot(f, &t) < 0 || derive(f, &t, &d) < 0) {
        rc = EXIT_BAD_INPUT;
    }
    const char *drop[] = {"status", "exit_code", "config_hash", "error"};
    for (size_t i = 0; i < ARRAY_LEN(drop); i++)
        table_drop_col(&t, drop[i]);
    const char *dest = o->quick ? out : o->results;
    char *csv = xasprintf("%s.csv", f->name);
    char *base = xasprintf("%s/%s", dest, f->name);
    if (rc == 0 && (write_table(&t, dest, csv) < 0 || draw(f, &t, base) < 0))
        rc = 1;
    if (rc == 0 && !o->quiet) {
        headline(f, &t);
        printf("  wrote %s.csv, %s.png, %s.svg\n", base, base, base);
    }
    char *ref = xasprintf("%s/%s.ref.csv", o->results, f->name);
    char *refname = xasprintf("%s.ref.csv", f->name);
    if (rc == 0 && o->quick && o->update_ref) {
        rc = write_table(&t, o->results, refname) < 0 ? 1 : 0;
        if (rc == 0 && !o->quiet)
            printf("  reference %s updated\n", ref);
    } else if (rc == 0 && o->quick) {
        int bad = compare(f, &t, ref);
        if (bad != 0) {
            fprintf(stderr, "ddlsim: error: figure %s: %s against %s (tolerance %g: %s)\n",
                    f->name, bad < 0 ? "cannot compare" : "values outside the tolerance", ref,
                    f->reg.tolerance, f->reg.why);
            rc = 1;
        } else if (!o->quiet) {
            printf("  reference: every value within %g%% of %s\n", 100 * f->reg.tolerance, ref);
        }
    }
    free(ref);
    free(refname);
    free(csv);
    free(base);
    free(res);
    table_free(&t);
    free(out);
    sweep_free(sw);
    figure_free(f);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every configs/figures/NAME.yaml of the installation, sorted. */
static int figure_all(const char *root, const struct fig_opts *o)
{
    char *dir = xasprintf("%s/configs/figures", root);
    DIR *dp = opendir(dir);
    if (!dp) {
        fprintf(stderr, "ddlsim: error: cannot open '%s': %s\n", dir, strerror(errno));
        free(dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
            names = xrealloc(names, (n + 1) * sizeof(*names));
            names[n++] = xasprintf("%s/%s", dir, e->d_name);
        }
    }
    closedir(dp);
    qsort(names, n, sizeof(*names), name_cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        int r = figure_run(names[i], o);
        rc = r > rc ? r : rc;
        free(names[i]);
    }
    free(names);
    free(dir);
    return rc;
}

int figure_main(int argc, char **argv)
{
    struct fig_opts o = {0};
    const char *name = NULL;
    char root[4096];
    install_root(root, sizeof(root));
    char *results = xasprintf("%s/results", root);
    o.results = results;
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--quick") == 0) {
            o.quick = true;
        } else if (strcmp(a, "--update-ref") == 0) {
            o.update_ref = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o.quiet = true;
        } else if (strcmp(a, "--results") == 0 && has_value) {
            o.results = argv[++i];
        } else if (strcmp(a, "--out") == 0 && has_value) {
            o.out = argv[++i];
        } else if (strcmp(a, "-j") == 0 && has_value) {
            o.jobs = atoi(argv[++i]);
            rc = o.jobs < 1 ? EXIT_BAD_INPUT : 0;
        } else if (a[0] != '-' && !name) {
            name = a;
        } else {
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc || !name || (o.update_ref && !o.quick) || (o.out && strcmp(name, "all") == 0)) {
        fprintf(stderr, "usage: ddlsim figure NAME|FILE.yaml|all [--quick [--update-ref]] "
                        "[--results DIR] [--out DIR] [-j N] [--quiet]\n"
                        "  (--update-ref needs --quick; --out needs one figure)\n");
        free(results);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(name, "all") == 0) {
        rc = figure_all(root, &o);
    } else {
        size_t len = strlen(name);
        char *path = strchr(name, '/') || (len > 5 && strcmp(name + len - 5, ".yaml") == 0)
                         ? xstrdup(name)
                         : xasprintf("%s/configs/figures/%s.yaml", root, name);
        rc = figure_run(path, &o);
        free(path);
    }
    free(results);
    return rc;
}
