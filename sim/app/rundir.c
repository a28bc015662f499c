/* Run folders: a fresh temporary folder per run, swapped into place when complete (rundir.h). */
#define _GNU_SOURCE /* renameat2 */
#include "sim/app/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/out.h"
#include "sim/util.h"

#define TMP_TAG ".ddlsim-"

/* What a run or `ddlsim plot` may leave in a run folder. */
static const char *const outputs[] = {
    "summary.json", "flows.csv", "queues.csv", "trace.pcap", "messages.csv",
    "tensors.csv",  "iterations.csv", "bursts.csv", "plots",
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    return rc < 0 && errno != ENOENT ? -1 : 0;
}

int rundir_remove_tree(const char *dir)
{
    return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool rundir_replaceable(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        if (n[0] == '.' && len > 4 && strcmp(n + len - 4, ".tmp") == 0)
            continue; /* a file of an interrupted run of an older ddlsim */
        ok = false;
        for (size_t i = 0; i < ARRAY_LEN(outputs); i++)
            ok = ok || strcmp(n, outputs[i]) == 0;
    }
    closedir(d);
    return ok;
}

/* Splits "a/b/name" into its parent ("a/b", or "." ) and its last component. */
static void split(const char *path, char **parent, char **base)
{
    char *p = xstrdup(path);
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        p[--len] = '\0';
    char *slash = strrchr(p, '/');
    if (!slash) {
        *parent = xstrdup(".");
        *base = p;
        return;
    }
    *base = xstrdup(slash + 1);
    if (slash == p)
        slash[1] = '\0';
    else
        *slash = '\0';
    *parent = p;
}

/* Removes .NAME.ddlsim-* folders in `parent` whose lock no live process holds. */
static void remove_stale(const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    char *prefix = xasprintf(".%s" TMP_TAG, base);
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        char *path = xasprintf("%s/%s", parent, e->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
            rundir_remove_tree(path);
        if (fd >= 0)
            close(fd);
        free(path);
    }
    free(prefix);
    closedir(d);
}

int rundir_open(struct rundir *rd, const char *final, char *err, size_t errn)
{
    memset(rd, 0, sizeof(*rd));
    rd->lock_fd = -1;
    char *parent;
    char *base;
    split(final, &parent, &base);
    int rc = -1;
    struct stat st;
    if (out_mkdirs(parent) < 0 || stat(parent, &st) < 0) {
        snprintf(err, errn, "cannot create output folder '%s': %s", parent, strerror(errno));
        goto out_free;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errn, "cannot create output folder '%s': %s", parent, strerror(ENOTDIR));
        goto out_free;
    }
    if (stat(final, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errn, "cannot create output folder '%s': a file of that name exists",
                     final);
            goto out_free;
        }
        if (!rundir_replaceable(final)) {
            snprintf(err, errn, "output folder '%s' holds files that are not ddlsim results; "
                                "refusing to replace it (choose another --out)", final);
            goto out_free;
        }
    }
    remove_stale(parent, base);
    char *tmpl = xasprintf("%s/.%s" TMP_TAG "XXXXXX", parent, base);
    if (!mkdtemp(tmpl)) {
        snprintf(err, errn, "cannot create output folder in '%s': %s", parent, strerror(errno));
        free(tmpl);
        goto out_free;
    }
    rd->tmp = tmpl;
    mode_t um = umask(0); /* mkdtemp makes 0700; give the folder the usual mode */
    umask(um);
    chmod(tmpl, 0777 & ~um);
    rd->lock_fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rd->lock_fd < 0 || flock(rd->lock_fd, LOCK_EX) < 0) {
        snprintf(err, errn, "cannot lock output folder '%s': %s", tmpl, strerror(errno));
        rundir_abort(rd);
        goto out_free;
    }
    rd->final = xstrdup(final);
    rc = 0;
out_free:
    free(parent);
    free(base);
    return rc;
}

int rundir_commit(struct rundir *rd, char *err, size_t errn)
{
    /* An empty target (or none) is replaced by a plain rename; an existing set is exchanged
     * atomically, and the old set, now at the temporary name, is deleted. */
    if (rename(rd->tmp, rd->final) == 0) {
        free(rd->tmp);
        rd->tmp = NULL;
    } else if (errno == ENOTEMPTY || errno == EEXIST) {
        if (renameat2(AT_FDCWD, rd->tmp, AT_FDCWD, rd->final, RENAME_EXCHANGE) != 0) {
            if (errno != EINVAL && errno != ENOSYS) {
                snprintf(err, errn, "cannot move results into '%s': %s", rd->final,
                         strerror(errno));
                return -1;
            }
            /* no exchange on this file system: move the old set aside, then ours in */
            char *old = xasprintf("%s.old", rd->tmp);
            if (rename(rd->final, old) != 0 || rename(rd->tmp, rd->final) != 0) {
                snprintf(err, errn, "cannot move results into '%s': %s", rd->final,
                         strerror(errno));
                free(old);
                return -1;
            }
            rundir_remove_tree(old);
            free(old);
        } else {
            rundir_remove_tree(rd->tmp);
        }
        free(rd->tmp);
        rd->tmp = NULL;
    } else {
        snprintf(err, errn, "cannot move results into '%s': %s", rd->final, strerror(errno));
        return -1;
    }
    if (rd->lock_fd >= 0)
        close(rd->lock_fd);
    rd->lock_fd = -1;
    free(rd->final);
    rd->final = NULL;
    return 0;
}

void rundir_abort(struct rundir *rd)
{
    if (rd->tmp)
        rundir_remove_tree(rd->tmp);
    if (rd->lock_fd >= 0)
        close(rd->lock_fd);
    free(rd->tmp);
    free(rd->final);
    memset(rd, 0, sizeof(*rd));
    rd->lock_fd = -1;
}

char *rundir_default(const char *scenario)
{
    const char *base = strrchr(scenario, '/');
    base = base ? base + 1 : scenario;
    char *name = xstrdup(base);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
    char *dir = xasprintf("out/%s", name);
    free(name);
    return dir;
}
