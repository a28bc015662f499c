/* Running one sweep point in process, and point records (sweep_point.h). */
#include "sim/app/sweep_point.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/app/progress.h"
#include "sim/app/provenance.h"
#include "sim/app/report.h"
#include "sim/app/rundir.h"
#include "sim/app/sweep_metric.h"
#include "sim/util.h"

#define POINT_HOOK_EVENTS 4096

char *sweep_point_path(const char *out, const char *sub, uint64_t id, const char *suffix)
{
    return xasprintf("%s/%s/%08" PRIu64 "%s", out, sub, id, suffix);
}

static void append(struct cfg_buf *b, const char *s)
{
    for (; *s; s++)
        cfg_buf_putc(b, *s);
}

static void append_cell(struct cfg_buf *b, const char *s)
{
    char *c = sweep_csv_cell(s);
    cfg_buf_putc(b, ',');
    append(b, c);
    free(c);
}

char *sweep_row(const struct sweep *sw, const struct sweep_point *p, const char *seed,
                char *const *values, int exit_code, const char *hash, const char *error)
{
    struct cfg_buf b = {0};
    char num[32];
    snprintf(num, sizeof(num), "%" PRIu64, p->id);
    append(&b, num);
    for (size_t i = 0; i < sw->ncolumns; i++)
        append_cell(&b, p->cells[i]);
    append_cell(&b, seed);
    for (size_t i = 0; i < sw->nmetrics; i++)
        append_cell(&b, values ? values[i] : "");
    append_cell(&b, exit_code == 0 ? "ok" : "failed");
    snprintf(num, sizeof(num), "%d", exit_code);
    append_cell(&b, num);
    append_cell(&b, hash);
    append_cell(&b, error);
    return b.s;
}

/* The message that explains a failure: the first line with "error:", else the last line. */
static char *first_error(const char *errfile)
{
    FILE *f = fopen(errfile, "r");
    if (!f)
        return xstrdup("");
    char *line = NULL;
    size_t cap = 0;
    char *pick = NULL;
    char *last = NULL;
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!*line)
            continue;
        if (!pick && strstr(line, "error:"))
            pick = xstrdup(line);
        free(last);
        last = xstrdup(line);
    }
    free(line);
    fclose(f);
    if (pick) {
        free(last);
        return pick;
    }
    return last ? last : xstrdup("");
}

static void stop_on_write_error(struct sim *sim, uint64_t events, void *ud)
{
    (void)events;
    if (report_check(ud) < 0)
        sim_stop(sim);
}

/* Runs the scenario into dir; fills hash, inputs and values. Returns the exit code. */
static int run_into(const struct sweep *sw, struct scenario *sc, const char *dir,
                    struct sweep_rec *rec, char **values, char *hash)
{
    prov_config_hash(sc, hash);
    struct prov_inputs in;
    prov_collect(sc, &in);
    struct cfg_buf b = {0};
    for (size_t i = 0; i < in.n; i++) {
        append(&b, in.v[i].role);
        cfg_buf_putc(&b, ' ');
        append(&b, in.v[i].sha256);
        cfg_buf_putc(&b, ' ');
        append(&b, in.v[i].path);
        cfg_buf_putc(&b, '\n');
    }
    prov_free(&in);
    rec->inputs = b.s ? b.s : xstrdup("");
    int rc = 1;
    struct report *r = report_open(sc, dir, NULL, &rc);
    if (!r)
        return rc;
    sc->sim->hook = (struct sim_hook){stop_on_write_error, r, POINT_HOOK_EVENTS};
    int run_rc = scenario_run(sc);
    sc->sim->hook.fn = NULL;
    rc = run_rc < 0 || report_check(r) < 0 || report_finish(r) < 0 ? 1 : 0;
    report_free(r);
    if (rc == 0) {
        char err[1024];
        if (sweep_metrics_eval(sw, dir, values, err, sizeof(err)) < 0) {
            fprintf(stderr, "%s\n", err);
            rc = 2;
        }
    }
    return rc;
}

void sweep_point_run(const struct sweep *sw, uint64_t id, const char *out, bool keep,
                     struct p4_cache *p4_cache, struct sweep_rec *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->id = id;
    double t0 = progress_now();
    char *errfile = sweep_point_path(out, ".work", id, ".err");
    char *dir = sweep_point_path(out, keep ? "points" : ".work", id, "");
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) {
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    struct sweep_point p;
    sweep_point_get(sw, id, &p);
    struct diag d;
    diag_init(&d, stderr);
    char **values = xcalloc(sw->nmetrics + 1, sizeof(*values));
    char hash[SHA256_HEX_LEN] = "";
    char seed[32] = "";
    struct scenario *sc = sweep_point_scenario(sw, &p, p4_cache, &d);
    if (!sc) {
        fprintf(stderr, "%s: %d error%s\n", sw->file, diag_count(&d), diag_count(&d) == 1 ? "" : "s");
        rec->exit_code = 2;
    } else {
        snprintf(seed, sizeof(seed), "%lld", (long long)sc->cfg.seed);
        rec->exit_code = run_into(sw, sc, dir, rec, values, hash);
        scenario_destroy(sc);
    }
    if (!sc && p.seed_given)
        snprintf(seed, sizeof(seed), "%" PRIu64, p.seed);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    char *error = rec->exit_code ? first_error(errfile) : xstrdup("");
    rec->row = sweep_row(sw, &p, seed, rec->exit_code ? NULL : values, rec->exit_code, hash, error);
    rec->error = error;
    if (!rec->inputs)
        rec->inputs = xstrdup("");
    if (!keep)
        rundir_remove_tree(dir);
    unlink(errfile);
    for (size_t i = 0; i < sw->nmetrics; i++)
        free(values[i]);
    free(values);
    free(dir);
    free(errfile);
    sweep_point_free(&p);
    rec->wall_s = progress_now() - t0;
}

void sweep_point_crashed(const struct sweep *sw, uint64_t id, const char *out, int exit_code,
                         struct sweep_rec *rec)
{
    memset(rec, 0, sizeof(*rec));
    rec->id = id;
    rec->exit_code = exit_code;
    char *errfile = sweep_point_path(out, ".work", id, ".err");
    char *msg = first_error(errfile);
    char *error;
    if (exit_code > 128)
        error = xasprintf("worker killed by signal %d (%s)%s%s", exit_code - 128,
                          strsignal(exit_code - 128), *msg ? ": " : "", msg);
    else
        error = xasprintf("worker exited with %d%s%s", exit_code, *msg ? ": " : "", msg);
    struct sweep_point p;
    sweep_point_get(sw, id, &p);
    char seed[32] = "";
    if (p.seed_given)
        snprintf(seed, sizeof(seed), "%" PRIu64, p.seed);
    rec->row = sweep_row(sw, &p, seed, NULL, exit_code, "", error);
    rec->error = error;
    rec->inputs = xstrdup("");
    unlink(errfile);
    free(errfile);
    char *dir = sweep_point_path(out, ".work", id, "");
    rundir_remove_tree(dir);
    free(dir);
    sweep_point_free(&p);
    free(msg);
}

char *sweep_rec_format(const struct sweep_rec *r)
{
    char *err = xstrdup(r->error ? r->error : "");
    for (char *c = err; *c; c++)
        *c = *c == '\n' ? ' ' : *c;
    char *t = xasprintf("ddlsim-point 1\nid %" PRIu64 "\nexit %d\nwall %.6f\nerror %s\nrow %s\n%send\n",
                        r->id, r->exit_code, r->wall_s, err, r->row, r->inputs);
    free(err);
    return t;
}

int sweep_rec_parse(const char *text, struct sweep_rec *r)
{
    memset(r, 0, sizeof(*r));
    unsigned long long id;
    int n = 0;
    if (sscanf(text, "ddlsim-point 1\nid %llu\nexit %d\nwall %lf\nerror%n", &id, &r->exit_code,
               &r->wall_s, &n) != 3 || n == 0)
        return -1;
    r->id = id;
    const char *e = text + n + (text[n] == ' ');
    const char *enl = strchr(e, '\n');
    if (!enl || strncmp(enl + 1, "row ", 4) != 0)
        return -1;
    r->error = xasprintf("%.*s", (int)(enl - e), e);
    const char *row = enl + 5;
    const char *nl = strchr(row, '\n');
    size_t len = strlen(text);
    if (!nl || len < 4 || strcmp(text + len - 4, "end\n") != 0) {
        free(r->error);
        r->error = NULL;
        return -1;
    }
    r->row = xasprintf("%.*s", (int)(nl - row), row);
    r->inputs = xasprintf("%.*s", (int)(text + len - 4 - (nl + 1)), nl + 1);
    return 0;
}

void sweep_rec_free(struct sweep_rec *r)
{
    free(r->row);
    free(r->inputs);
    free(r->error);
    r->row = r->inputs = r->error = NULL;
}
