/* The sweep coordinator: output folder, resume checks, records, merge, and `ddlsim sweep`
 * (sweep_run.h). */
#include "sim/app/sweep_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/app/provenance.h"
#include "sim/app/rundir.h"
#include "sim/app/version.h"
#include "sim/out.h"
#include "sim/util.h"

#define EXIT_BAD_INPUT 2
#define MAX_LISTED_FAILURES 10

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Writes text to path through a temporary file, fsynced, renamed, and the folder fsynced:
 * after a crash or power loss the file is either complete or absent. */
static int write_atomic(const char *dir, const char *path, const char *text)
{
    char *tmp = xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = -1;
    if (!f)
        goto out_free;
    bool ok = fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0 && fsync_dir(dir) == 0)
        rc = 0;
    else
        unlink(tmp);
out_free:
    free(tmp);
    return rc;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct cfg_buf b = {0};
    int ch;
    while ((ch = fgetc(f)) != EOF)
        cfg_buf_putc(&b, (char)ch);
    fclose(f);
    return b.s ? b.s : xstrdup("");
}

void sweep_ctl_tick(struct sweep_ctl *c)
{
    progress_sweep(&c->prog, c->ok, c->failed, c->skipped, c->total);
}

void sweep_ctl_done(struct sweep_ctl *c, struct sweep_rec *r)
{
    char *text = sweep_rec_format(r);
    char *dir = xasprintf("%s/points", c->out);
    char *path = sweep_point_path(c->out, "points", r->id, ".rec");
    if (write_atomic(dir, path, text) < 0) {
        progress_clear(&c->prog);
        fprintf(stderr, "ddlsim: error: cannot record point %" PRIu64 " in '%s': %s\n", r->id,
                path, strerror(errno));
        c->io_errors++;
    }
    if (r->exit_code == 0)
        c->ok++;
    else
        c->failed++;
    free(text);
    free(dir);
    free(path);
    sweep_rec_free(r);
    sweep_ctl_tick(c);
}

/* --- the output folder --- */

static int write_manifest(const struct sweep *sw, const char *out)
{
    json_t *o = json_object();
    json_object_set_new(o, "sweep", json_string(sw->file));
    json_object_set_new(o, "fingerprint", json_string(sw->fingerprint));
    json_object_set_new(o, "points", json_integer((json_int_t)sw->npoints));
    json_object_set_new(o, "ddlsim_version", json_string(ddlsim_version()));
    char *text = json_dumps(o, JSON_INDENT(2));
    json_decref(o);
    char *path = xasprintf("%s/sweep.json", out);
    char *withnl = xasprintf("%s\n", text);
    int rc = write_atomic(out, path, withnl);
    free(withnl);
    free(text);
    free(path);
    return rc;
}

/* The fingerprint stored in OUT/sweep.json ("" when none, NULL when unreadable). */
static char *manifest_fingerprint(const char *out)
{
    char *path = xasprintf("%s/sweep.json", out);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    bool exists = access(path, F_OK) == 0;
    free(path);
    if (!o)
        return exists ? NULL : xstrdup("");
    const char *fp = json_string_value(json_object_get(o, "fingerprint"));
    char *r = xstrdup(fp ? fp : "?");
    json_decref(o);
    return r;
}

/* Deletes the records, point folders and results of an earlier sweep in out. */
static void clear_folder(const char *out)
{
    const char *subs[] = {"points", ".work"};
    for (size_t i = 0; i < ARRAY_LEN(subs); i++) {
        char *p = xasprintf("%s/%s", out, subs[i]);
        rundir_remove_tree(p);
        free(p);
    }
    const char *files[] = {"results.csv", "timing.csv", "sweep.json"};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        char *p = xasprintf("%s/%s", out, files[i]);
        unlink(p);
        free(p);
    }
}

struct seen_input {
    char *path;
    char *now; /* current digest */
};

/* Checks that every input a finished point read still has the digest it had. Returns the
 * number of changed inputs (each reported once). */
static int check_inputs(const char *inputs, uint64_t id, struct seen_input **seen, size_t *nseen)
{
    int changed = 0;
    char *copy = xstrdup(inputs);
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char role[64];
        char digest[SHA256_HEX_LEN + 64];
        int n = 0;
        if (sscanf(line, "%63s %127s %n", role, digest, &n) != 2 || n == 0)
            continue;
        const char *path = line + n;
        if (strcmp(role, "scenario") == 0)
            continue; /* its tree is in the sweep's fingerprint; comments may change */
        size_t k;
        for (k = 0; k < *nseen && strcmp((*seen)[k].path, path) != 0; k++)
            ;
        if (k == *nseen) {
            char now[SHA256_HEX_LEN] = "missing";
            if (strcmp(role, "p4_include") == 0)
                prov_folder_digest(path, now);
            else if (sha256_file(path, now) < 0)
                snprintf(now, sizeof(now), "missing");
            *seen = xrealloc(*seen, (*nseen + 1) * sizeof(**seen));
            (*seen)[*nseen] = (struct seen_input){xstrdup(path), xstrdup(now)};
            (*nseen)++;
            if (strcmp(now, digest) != 0) {
                fprintf(stderr, "ddlsim: error: %s '%s' changed since point %" PRIu64 " ran\n",
                        role, path, id);
                changed++;
            }
        }
    }
    free(copy);
    return changed;
}

/* Reads the records already in out: done[id] is 1 (ok) or 2 (failed). Returns the number of
 * changed inputs found (when check is set). */
static int load_done(const struct sweep *sw, const char *out, uint8_t *done, bool check)
{
    struct seen_input *seen = NULL;
    size_t nseen = 0;
    int changed = 0;
    for (uint64_t id = 0; id < sw->npoints; id++) {
        char *path = sweep_point_path(out, "points", id, ".rec");
        char *text = read_file(path);
        struct sweep_rec r;
        if (text && sweep_rec_parse(text, &r) == 0 && r.id == id) {
            done[id] = r.exit_code == 0 ? 1 : 2;
            if (check)
                changed += check_inputs(r.inputs, id, &seen, &nseen);
            sweep_rec_free(&r);
        }
        free(text);
        free(path);
    }
    for (size_t k = 0; k < nseen; k++) {
        free(seen[k].path);
        free(seen[k].now);
    }
    free(seen);
    return changed;
}

/* Prepares out for this run; returns 0, or an exit code after a message. */
static int prepare(const struct sweep *sw, const struct sweep_run_opts *o, uint8_t *done)
{
    char *fp = manifest_fingerprint(o->out);
    int rc = 0;
    if (fp && *fp && !o->resume && !o->fresh) {
        fprintf(stderr, "ddlsim: error: '%s' holds a sweep already: --resume to finish it, "
                        "--fresh to start over\n", o->out);
        rc = EXIT_BAD_INPUT;
    } else if (o->fresh || (fp && !*fp)) {
        clear_folder(o->out);
    } else if (!fp || strcmp(fp, sw->fingerprint) != 0) {
        fprintf(stderr, "ddlsim: %s: the sweep or its base scenario changed since the points in "
                        "'%s' were computed\n", o->force_resume ? "warning" : "error", o->out);
        rc = o->force_resume ? 0 : EXIT_BAD_INPUT;
    }
    free(fp);
    if (rc)
        return rc;
    char *points = xasprintf("%s/points", o->out);
    char *work = xasprintf("%s/.work", o->out);
    rundir_remove_tree(work);
    if (out_mkdirs(points) < 0 || out_mkdirs(work) < 0 || write_manifest(sw, o->out) < 0) {
        fprintf(stderr, "ddlsim: error: cannot create sweep folder '%s': %s\n", o->out,
                strerror(errno));
        rc = 1;
    }
    free(points);
    free(work);
    if (rc == 0 && o->resume && load_done(sw, o->out, done, !o->force_resume) > 0) {
        fprintf(stderr, "ddlsim: error: inputs of finished points changed; --force-resume keeps "
                        "those points anyway, --fresh recomputes everything\n");
        rc = EXIT_BAD_INPUT;
    }
    return rc;
}

/* results.csv (rows in point order) and timing.csv. Returns 0 or -1 after a message. */
static int merge(const struct sweep *sw, const char *out, uint64_t *missing)
{
    char err[512];
    struct out_file res;
    struct out_file tim;
    if (out_open(&res, out, "results.csv", err, sizeof(err)) < 0 ||
        out_open(&tim, out, "timing.csv", err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        return -1;
    }
    char *header = sweep_csv_header(sw);
    fputs(header, res.f);
    free(header);
    fputs("point,wall_s\n", tim.f);
    *missing = 0;
    for (uint64_t id = 0; id < sw->npoints; id++) {
        char *path = sweep_point_path(out, "points", id, ".rec");
        char *text = read_file(path);
        struct sweep_rec r;
        if (text && sweep_rec_parse(text, &r) == 0) {
            fprintf(res.f, "%s\n", r.row);
            fprintf(tim.f, "%" PRIu64 ",%.6f\n", id, r.wall_s);
            sweep_rec_free(&r);
        } else {
            (*missing)++;
        }
        free(text);
        free(path);
    }
    int rc = out_commit(&res, err, sizeof(err));
    if (rc == 0)
        rc = out_commit(&tim, err, sizeof(err));
    else
        out_abort(&tim);
    if (rc < 0)
        fprintf(stderr, "ddlsim: error: %s\n", err);
    return rc;
}

static void list_failures(const struct sweep *sw, const char *out)
{
    int listed = 0;
    for (uint64_t id = 0; id < sw->npoints && listed < MAX_LISTED_FAILURES; id++) {
        char *path = sweep_point_path(out, "points", id, ".rec");
        char *text = read_file(path);
        struct sweep_rec r;
        if (text && sweep_rec_parse(text, &r) == 0) {
            if (r.exit_code != 0) {
                fprintf(stderr, "  point %" PRIu64 " failed (exit %d): %s\n", id, r.exit_code,
                        r.error);
                listed++;
            }
            sweep_rec_free(&r);
        }
        free(text);
        free(path);
    }
}

int sweep_execute(const struct sweep *sw, const struct sweep_run_opts *o)
{
    uint8_t *done = xcalloc(sw->npoints ? sw->npoints : 1, 1);
    int rc = prepare(sw, o, done);
    if (rc) {
        if (o->mpi)
            sweep_mpi_abort_workers();
        free(done);
        return rc;
    }
    uint64_t *pending = xmalloc((sw->npoints ? sw->npoints : 1) * sizeof(*pending));
    uint64_t n = 0;
    struct sweep_ctl c = {.sw = sw, .out = o->out, .keep = o->keep || sw->keep,
                          .total = sw->npoints};
    for (uint64_t id = 0; id < sw->npoints; id++) {
        if (done[id] == 0 || (done[id] == 2 && o->retry_failed))
            pending[n++] = id;
        else if (done[id] == 1)
            c.ok++;
        else
            c.failed++;
    }
    c.skipped = c.ok + c.failed;
    progress_init(&c.prog, !o->quiet);
    double t0 = progress_now();
    rc = o->mpi ? sweep_mpi_run(&c, pending, n) : sweep_fork_run(&c, pending, n, o->jobs);
    progress_clear(&c.prog);
    uint64_t missing = 0;
    if (rc == 0)
        rc = merge(sw, o->out, &missing);
    if (!o->quiet) {
        char el[32];
        progress_fmt_duration(progress_now() - t0, el, sizeof(el));
        printf("sweep %s: %" PRIu64 " point%s (%" PRIu64 " done before), %" PRIu64 " ok, %" PRIu64
               " failed in %s; results in %s/results.csv\n",
               sw->name ? sw->name : sw->file, sw->npoints, sw->npoints == 1 ? "" : "s",
               c.skipped, c.ok, c.failed, el, o->out);
    }
    if (c.failed)
        list_failures(sw, o->out);
    if (missing)
        fprintf(stderr, "ddlsim: error: %" PRIu64 " points have no record\n", missing);
    free(pending);
    free(done);
    return rc < 0 || c.io_errors || missing || c.failed ? 1 : 0;
}
