/* Per-run plots (plot.h). Data comes from the run's CSV files (read by gnuplot) and from
 * summary.json (samples inlined as gnuplot datablocks). */
#include "sim/app/plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/app/gnuplot.h"
#include "sim/app/sweep_metric.h"
#include "sim/cfg.h"
#include "sim/util.h"

#define PLOT_W 1000
#define PLOT_H 600
#define MAX_LINES 16 /* lines per plot; more would make the legend unreadable */

struct plotter {
    const char *dir;
    char *plots; /* dir/plots */
    bool quiet;
    int made;
    int failed;
};

static void bufs(struct cfg_buf *b, const char *s)
{
    for (; *s; s++)
        cfg_buf_putc(b, *s);
}

static void bufp(struct cfg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bufp(struct cfg_buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < (int)sizeof(small)) {
        bufs(b, small);
        return;
    }
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    bufs(b, s);
    free(s);
}

static void render(struct plotter *p, const char *name, const char *data, const char *cmds)
{
    char *base = xasprintf("%s/%s", p->plots, name);
    char err[600];
    if (gnuplot_render(data ? data : "", cmds, base, PLOT_W, PLOT_H, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: plot %s: %s\n", name, err);
        p->failed++;
    } else {
        p->made++;
        if (!p->quiet)
            printf("  %s/%s.png (.svg)\n", p->plots, name);
    }
    free(base);
}

static char *csv_path(struct plotter *p, const char *name)
{
    char *path = xasprintf("%s/%s", p->dir, name);
    if (access(path, R_OK) != 0) {
        free(path);
        return NULL;
    }
    char *q = gnuplot_quote(path);
    free(path);
    return q;
}

static const char common[] = "set datafile separator \",\"\nset key outside right top\n"
                             "set grid\nset border 3\nset tics nomirror\n";

/* Opens the run's result file NAME for reading; NULL when the run did not write it. */
static FILE *open_result(const struct plotter *p, const char *name)
{
    char *path = xasprintf("%s/%s", p->dir, name);
    FILE *f = fopen(path, "r");
    free(path);
    return f;
}

/* Splits a CSV line in place into at most max cells; returns how many. */
static size_t csv_cells(char *line, char **cells, size_t max)
{
    size_t k = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, ",\n", &save); t && k < max; t = strtok_r(NULL, ",\n", &save))
        cells[k++] = t;
    return k;
}

/* The index of key among keys[0..*n), appended when new and fewer than cap are held; cap when
 * it is new and there is no room. */
static size_t key_slot(char keys[][64], size_t *n, size_t cap, const char *key)
{
    size_t i;
    for (i = 0; i < *n && strcmp(keys[i], key) != 0; i++)
        ;
    if (i == *n && *n < cap)
        snprintf(keys[(*n)++], 64, "%s", key);
    return i;
}

/* The distinct pairs of values of columns c1 and c2 (c1 < c2) of the rows of the run's CSV file
 * NAME (header skipped), as "v1,v2" in order of appearance, at most cap. */
static size_t distinct(const struct plotter *p, const char *name, int c1, int c2,
                       char keys[][64], size_t cap)
{
    FILE *f = open_result(p, name);
    if (!f)
        return 0;
    char line[1024];
    size_t n = 0;
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        char *cells[16];
        if ((size_t)c2 >= csv_cells(line, cells, 16))
            continue;
        char key[64];
        snprintf(key, sizeof(key), "%s,%s", cells[c1], cells[c2]);
        key_slot(keys, &n, cap, key);
    }
    fclose(f);
    return n;
}

static void plot_queues(struct plotter *p)
{
    char *q = csv_path(p, "queues.csv");
    if (!q)
        return;
    char keys[MAX_LINES][64];
    size_t n = distinct(p, "queues.csv", 1, 2, keys, MAX_LINES);
    struct cfg_buf b = {0};
    bufs(&b, common);
    bufs(&b, "set title \"queue length at switch ports\"\nset xlabel \"time (ms)\"\n"
             "set ylabel \"queue (KB)\"\nplot ");
    for (size_t i = 0; i < n; i++) {
        char *comma = strchr(keys[i], ',');
        *comma = '\0';
        bufp(&b, "%s%s every ::1 using ($1*1e3):((strcol(2) eq \"%s\" && $3 == %s) ? $4/1e3 : "
                 "1/0) with lines lw 1.5 title \"%s:%s\"",
             i ? ", \\\n  " : "", q, keys[i], comma + 1, keys[i], comma + 1);
    }
    if (n)
        render(p, "queues", NULL, b.s);
    free(b.s);
    free(q);
}

/* Flows' samples from summary.json as datablocks: cwnd (TCP) and rate (RDMA). */
static void plot_samples(struct plotter *p, json_t *root)
{
    struct cfg_buf cd = {0}, cp = {0}, rd = {0}, rp = {0};
    int nc = 0;
    int nr = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(root, "flows"), i, f)
    {
        const char *name = json_string_value(json_object_get(f, "name"));
        json_t *cw = json_object_get(f, "cwnd_samples");
        json_t *rs = json_object_get(f, "rate_samples");
        if (cw && nc < MAX_LINES) {
            json_t *t = json_object_get(cw, "t_s");
            json_t *w = json_object_get(cw, "cwnd_bytes");
            bufp(&cd, "$c%d << EOD\n", nc);
            for (size_t k = 0; k < json_array_size(t); k++)
                bufp(&cd, "%.9g,%.9g\n", json_number_value(json_array_get(t, k)) * 1e3,
                     json_number_value(json_array_get(w, k)) / 1e3);
            bufs(&cd, "EOD\n");
            bufp(&cp, "%s$c%d using 1:2 with lines lw 1.5 title \"%s\"", nc ? ", \\\n  " : "",
                 nc, name ? name : "?");
            nc++;
        }
        if (rs && nr < MAX_LINES) {
            bufp(&rd, "$r%d << EOD\n", nr);
            for (size_t k = 0; k < json_array_size(rs); k++) {
                json_t *e = json_array_get(rs, k);
                bufp(&rd, "%.9g,%.9g\n", json_number_value(json_array_get(e, 0)) * 1e3,
                     json_number_value(json_array_get(e, 1)) / 1e9);
            }
            bufs(&rd, "EOD\n");
            bufp(&rp, "%s$r%d using 1:2 with steps lw 1.5 title \"%s\"", nr ? ", \\\n  " : "",
                 nr, name ? name : "?");
            nr++;
        }
    }
    if (nc) {
        char *cmds = xasprintf("%sset title \"TCP congestion window\"\nset xlabel \"time (ms)\"\n"
                               "set ylabel \"cwnd (KB)\"\nplot %s\n", common, cp.s);
        render(p, "cwnd", cd.s, cmds);
        free(cmds);
    }
    if (nr) {
        char *cmds = xasprintf("%sset title \"RDMA sending rate (DCQCN)\"\nset xlabel \"time (ms)\"\n"
                               "set ylabel \"rate (Gbps)\"\nplot %s\n", common, rp.s);
        render(p, "rate", rd.s, cmds);
        free(cmds);
    }
    free(cd.s);
    free(cp.s);
    free(rd.s);
    free(rp.s);
}

/* One datablock per (job, worker) of iterations.csv, so each worker's line is continuous. */
static void plot_iterations(struct plotter *p)
{
    FILE *f = open_result(p, "iterations.csv");
    if (!f)
        return;
    char keys[MAX_LINES][64];
    struct cfg_buf blocks[MAX_LINES];
    memset(blocks, 0, sizeof(blocks));
    size_t n = 0;
    char line[1024];
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        char *c[6];
        if (csv_cells(line, c, 6) < 6)
            continue;
        char key[64];
        snprintf(key, sizeof(key), "%s worker %s", c[0], c[1]);
        size_t i = key_slot(keys, &n, MAX_LINES, key);
        if (i == MAX_LINES)
            continue;
        bufp(&blocks[i], "%s,%.9g\n", c[2], atof(c[5]) * 1e3);
    }
    fclose(f);
    struct cfg_buf d = {0};
    struct cfg_buf b = {0};
    bufs(&b, common);
    bufs(&b, "set title \"training iteration time\"\nset xlabel \"iteration\"\n"
             "set ylabel \"iteration time (ms)\"\nset xtics 1\nplot ");
    for (size_t i = 0; i < n; i++) {
        bufp(&d, "$it%zu << EOD\n%sEOD\n", i, blocks[i].s);
        bufp(&b, "%s$it%zu using 1:2 with linespoints lw 1.5 title \"%s\"", i ? ", \\\n  " : "",
             i, keys[i]);
        free(blocks[i].s);
    }
    if (n)
        render(p, "iterations", d.s, b.s);
    free(d.s);
    free(b.s);
}

/* Largest layer index and worker index in tensors.csv (of its first job). */
static void tensor_extent(const char *path, long *layers, long *workers, char *job, size_t jn)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    *layers = *workers = 0;
    job[0] = '\0';
    if (!f)
        return;
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        char *save = NULL;
        char *j = strtok_r(line, ",", &save);
        char *w = strtok_r(NULL, ",", &save);
        strtok_r(NULL, ",", &save);
        char *l = strtok_r(NULL, ",", &save);
        if (!l)
            continue;
        if (!job[0])
            snprintf(job, jn, "%s", j);
        if (strcmp(job, j) != 0)
            continue;
        *workers = MAX(*workers, atol(w) + 1);
        *layers = MAX(*layers, atol(l) + 1);
    }
    fclose(f);
}

static void plot_tensors(struct plotter *p)
{
    char *q = csv_path(p, "tensors.csv");
    if (!q)
        return;
    char *path = xasprintf("%s/tensors.csv", p->dir);
    long layers;
    long workers;
    char job[64];
    tensor_extent(path, &layers, &workers, job, sizeof(job));
    free(path);
    if (layers == 0) {
        free(q);
        return;
    }
    long band = layers + 2;
    struct cfg_buf b = {0};
    bufs(&b, common);
    bufp(&b, "set title \"tensor timeline of job %s: ready to delivered, per layer and worker\"\n"
             "set xlabel \"time (ms)\"\nset ylabel \"worker / layer\"\nset yrange [-1:%ld]\n"
             "set ytics (",
         job, workers * band);
    for (long w = 0; w < workers; w++)
        bufp(&b, "%s\"w%ld L0\" %ld, \"L%ld\" %ld", w ? ", " : "", w, w * band, layers - 1,
             w * band + layers - 1);
    bufp(&b, ")\nplot %s every ::1 using ($7*1e3):((strcol(1) eq \"%s\" && strcol(5) eq "
             "\"push\") ? $2*%ld+$4-0.2 : 1/0):(($8-$7)*1e3):(0) with vectors nohead lw 2 "
             "lc rgb \"#d62728\" title \"push\", \\\n"
             "  %s every ::1 using ($7*1e3):((strcol(1) eq \"%s\" && strcol(5) eq \"pull\") ? "
             "$2*%ld+$4+0.2 : 1/0):(($8-$7)*1e3):(0) with vectors nohead lw 2 "
             "lc rgb \"#1f77b4\" title \"pull\"\n",
         q, job, band, q, job, band);
    render(p, "tensors", NULL, b.s);
    free(b.s);
    free(q);
}

static void plot_fct(struct plotter *p)
{
    FILE *f = open_result(p, "flows.csv");
    if (!f)
        return;
    char line[4096];
    double *v = NULL;
    size_t n = 0;
    int col = -1;
    if (fgets(line, sizeof(line), f)) {
        char *save = NULL;
        int i = 0;
        for (char *t = strtok_r(line, ",\n", &save); t; t = strtok_r(NULL, ",\n", &save), i++)
            col = strcmp(t, "fct_s") == 0 ? i : col;
    }
    while (col >= 0 && fgets(line, sizeof(line), f)) {
        char *s = line;
        for (int i = 0; i < col && s; i++) {
            s = strchr(s, ',');
            s = s ? s + 1 : NULL;
        }
        char *end;
        double x = s ? strtod(s, &end) : NAN;
        if (s && end != s && isfinite(x)) {
            v = xrealloc(v, (n + 1) * sizeof(*v));
            v[n++] = x;
        }
    }
    fclose(f);
    if (n > 0) {
        sweep_reduce(SWEEP_MEDIAN, v, n); /* sorts */
        struct cfg_buf d = {0};
        bufs(&d, "$fct << EOD\n");
        for (size_t i = 0; i < n; i++)
            bufp(&d, "%.9g,%.9g\n", v[i] * 1e3, (double)(i + 1) / (double)n);
        bufs(&d, "EOD\n");
        char *cmds = xasprintf("%sset title \"flow completion times (%zu flows)\"\n"
                               "set xlabel \"flow completion time (ms)\"\n"
                               "set ylabel \"fraction of flows (CDF)\"\nset yrange [0:1.05]\n"
                               "plot $fct using 1:2 with steps lw 2 title \"CDF\"\n",
                               common, n);
        render(p, "fct_cdf", d.s, cmds);
        free(cmds);
        free(d.s);
    }
    free(v);
}

int plot_run_dir(const char *dir, bool quiet)
{
    struct plotter p = {.dir = dir, .quiet = quiet};
    char *sum = xasprintf("%s/summary.json", dir);
    json_error_t je;
    json_t *root = json_load_file(sum, 0, &je);
    free(sum);
    if (!root) {
        fprintf(stderr, "ddlsim: error: '%s' is not a run folder (summary.json: %s)\n", dir,
                je.text);
        return 1;
    }
    p.plots = xasprintf("%s/plots", dir);
    if (mkdir(p.plots, 0777) < 0 && errno != EEXIST) {
        fprintf(stderr, "ddlsim: error: cannot create '%s': %s\n", p.plots, strerror(errno));
        json_decref(root);
        free(p.plots);
        return 1;
    }
    if (!quiet)
        printf("plots of %s:\n", dir);
    plot_queues(&p);
    plot_samples(&p, root);
    plot_iterations(&p);
    plot_tensors(&p);
    plot_fct(&p);
    json_decref(root);
    if (p.made == 0 && p.failed == 0)
        fprintf(stderr, "ddlsim: error: the run in '%s' recorded nothing to plot (no queue "
                        "samples, flows, jobs)\n", dir);
    free(p.plots);
    return p.failed || p.made == 0 ? 1 : 0;
}

int plot_main(int argc, char **argv)
{
    bool quiet = false;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = true;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "ddlsim: error: usage: ddlsim plot OUTDIR [--quiet]\n");
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "ddlsim: error: usage: ddlsim plot OUTDIR [--quiet]\n");
        return 2;
    }
    return plot_run_dir(dir, quiet);
}
