/* Sweep workers as forked processes (sweep_run.h). The coordinator writes a point id (8 bytes)
 * into a worker's command pipe; the worker runs it in process and answers on its result pipe
 * with the record's length (8 bytes) and text. End of file on the result pipe before an answer
 * means the worker died: its point is recorded as failed and a new worker takes its place. */
#include "sim/app/sweep_run.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "p4/engine/p4cache.h"
#include "sim/util.h"

#define POLL_MS (1000 / PROGRESS_HZ)

struct worker {
    pid_t pid;
    int cmd;      /* coordinator -> worker */
    int res;      /* worker -> coordinator */
    int64_t point; /* running point, -1 when idle */
};

/* Moves all n bytes through fd (a pipe): write when `out`, else read. 0, or -1 on an error or
 * end of file. */
static int pipe_full(int fd, void *buf, size_t n, bool out)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = out ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int read_full(int fd, void *buf, size_t n)
{
    return pipe_full(fd, buf, n, false);
}

static int write_full(int fd, const void *buf, size_t n)
{
    return pipe_full(fd, (void *)buf, n, true);
}

static _Noreturn void worker_loop(const struct sweep *sw, const char *out, bool keep, int cmd,
                                  int res)
{
    uint64_t id;
    /* the worker's programs: each is loaded once, for its first point */
    struct p4_cache *p4_cache = p4_cache_create();
    while (read_full(cmd, &id, sizeof(id)) == 0) {
        struct sweep_rec r;
        sweep_point_run(sw, id, out, keep, p4_cache, &r);
        char *text = sweep_rec_format(&r);
        uint64_t len = strlen(text);
        if (write_full(res, &len, sizeof(len)) < 0 || write_full(res, text, len) < 0)
            _exit(1);
        free(text);
        sweep_rec_free(&r);
    }
    p4_cache_free(p4_cache);
    _exit(0);
}

/* Starts worker w. Returns 0 or -1 (errno set). */
static int spawn(struct sweep_ctl *c, struct worker *ws, int nw, struct worker *w)
{
    int cp[2];
    int rp[2];
    if (pipe(cp) < 0)
        return -1;
    if (pipe(rp) < 0) {
        close(cp[0]);
        close(cp[1]);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(cp[0]);
        close(cp[1]);
        close(rp[0]);
        close(rp[1]);
        return -1;
    }
    if (pid == 0) {
        /* only this worker's ends stay open, so every other worker sees its own EOF */
        for (int i = 0; i < nw; i++) {
            if (ws[i].pid > 0) {
                close(ws[i].cmd);
                close(ws[i].res);
            }
        }
        close(cp[1]);
        close(rp[0]);
        signal(SIGPIPE, SIG_DFL);
        /* a worker dies with its coordinator (kill -9 included), so a resumed sweep never
         * shares its folder with an orphan still running an old point */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != c->parent)
            _exit(1);
        worker_loop(c->sw, c->out, c->keep, cp[0], rp[1]);
    }
    close(cp[0]);
    close(rp[1]);
    w->pid = pid;
    w->cmd = cp[1];
    w->res = rp[0];
    w->point = -1;
    return 0;
}

static void retire(struct worker *w, int *status)
{
    close(w->cmd);
    close(w->res);
    while (waitpid(w->pid, status, 0) < 0 && errno == EINTR)
        ;
    w->pid = 0;
}

/* Reads worker w's answer; a dead worker's point is recorded as failed. */
static void collect(struct sweep_ctl *c, struct worker *w)
{
    uint64_t len;
    struct sweep_rec r;
    char *text = NULL;
    bool got = read_full(w->res, &len, sizeof(len)) == 0 && len < ((uint64_t)1 << 30);
    if (got) {
        text = xmalloc(len + 1);
        got = read_full(w->res, text, len) == 0;
        text[got ? len : 0] = '\0';
    }
    if (got && sweep_rec_parse(text, &r) == 0 && (int64_t)r.id == w->point) {
        sweep_ctl_done(c, &r);
        w->point = -1;
    } else {
        int status = 0;
        uint64_t id = (uint64_t)w->point;
        retire(w, &status);
        int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                   : WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status)
                                                              : 1;
        sweep_point_crashed(c->sw, id, c->out, code, &r);
        sweep_ctl_done(c, &r);
    }
    free(text);
}

int sweep_fork_run(struct sweep_ctl *c, const uint64_t *pending, uint64_t n, int jobs)
{
    if (jobs <= 0)
        jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs <= 0)
        jobs = 1;
    if ((uint64_t)jobs > n)
        jobs = (int)(n ? n : 1);
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    c->parent = getpid();
    struct worker *ws = xcalloc((size_t)jobs, sizeof(*ws));
    struct pollfd *pf = xcalloc((size_t)jobs, sizeof(*pf));
    uint64_t next = 0;
    int busy = 0;
    int rc = 0;
    while (next < n || busy > 0) {
        for (int i = 0; i < jobs && next < n; i++) {
            struct worker *w = &ws[i];
            if (w->pid == 0 && spawn(c, ws, jobs, w) < 0) {
                progress_clear(&c->prog);
                fprintf(stderr, "ddlsim: error: cannot start a worker: %s\n", strerror(errno));
                rc = -1;
                goto out_stop;
            }
            if (w->point >= 0)
                continue;
            w->point = (int64_t)pending[next];
            if (write_full(w->cmd, &pending[next], sizeof(pending[next])) < 0) {
                collect(c, w); /* died idle: its point is recorded as failed */
            }
            next++;
        }
        busy = 0;
        for (int i = 0; i < jobs; i++) {
            pf[i].fd = ws[i].pid && ws[i].point >= 0 ? ws[i].res : -1;
            pf[i].events = POLLIN;
            pf[i].revents = 0;
            busy += pf[i].fd >= 0;
        }
        if (busy == 0)
            continue;
        int k = poll(pf, (nfds_t)jobs, POLL_MS);
        for (int i = 0; k > 0 && i < jobs; i++) {
            if (pf[i].fd >= 0 && pf[i].revents)
                collect(c, &ws[i]);
        }
        sweep_ctl_tick(c);
    }
out_stop:
    for (int i = 0; i < jobs; i++) {
        int status;
        if (ws[i].pid > 0)
            retire(&ws[i], &status);
    }
    free(ws);
    free(pf);
    signal(SIGPIPE, old_pipe);
    return rc;
}
