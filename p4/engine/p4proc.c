/* Running a helper program as a bounded child (see p4proc.h). */
#include "p4/engine/p4proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "p4/engine/p4util.h"

/* One output of the child: a growing buffer, or a counter once `max` bytes are kept. */
struct sink {
    int fd;
    char *buf;
    size_t n;
    size_t cap;
    size_t max;     /* bytes kept */
    size_t dropped; /* bytes read past max */
};

static void sink_init(struct sink *s, int fd, size_t max)
{
    memset(s, 0, sizeof(*s));
    s->fd = fd;
    s->max = max;
    s->cap = 4096;
    s->buf = p4util_malloc(s->cap);
}

/* Reads what is available; returns false at end of file. */
static bool sink_read(struct sink *s)
{
    char tmp[65536];
    ssize_t r = read(s->fd, tmp, sizeof(tmp));
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (r <= 0)
        return false;
    size_t keep = (size_t)r;
    if (s->n + keep > s->max)
        keep = s->max - s->n;
    if (s->n + keep + 1 > s->cap) {
        while (s->n + keep + 1 > s->cap)
            s->cap *= 2;
        s->buf = p4util_realloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->n, tmp, keep);
    s->n += keep;
    s->dropped += (size_t)r - keep;
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static _Noreturn void run_child(char *const argv[], const struct p4proc_limits *lim, int out,
                                int err)
{
    setpgid(0, 0); /* the program and its own children in a group, killed together */
    dup2(out, 1);
    dup2(err, 2);
    struct rlimit mem = {lim->max_memory, lim->max_memory};
    struct rlimit cpu = {(rlim_t)lim->max_seconds, (rlim_t)lim->max_seconds + 1};
    setrlimit(RLIMIT_AS, &mem);
    setrlimit(RLIMIT_CPU, &cpu);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s\n", argv[0]);
    _exit(127);
}

/* Reads both pipes together until both end (a child that fills one pipe while the parent waits
 * on the other would block forever), or until the time or output limit; then the child is
 * killed. Returns a reason for giving up, or NULL. */
static const char *drain(pid_t pid, const char *what, int max_seconds, struct sink *out,
                         struct sink *err, char *why, size_t whylen)
{
    double t0 = now_s();
    bool open_out = true;
    bool open_err = true;
    while (open_out || open_err) {
        double left = max_seconds - (now_s() - t0);
        const char *stop = NULL;
        if (left <= 0)
            stop = "took longer than the limit";
        struct pollfd fds[2] = {{open_out ? out->fd : -1, POLLIN, 0},
                                {open_err ? err->fd : -1, POLLIN, 0}};
        int rc = stop ? 0 : poll(fds, 2, (int)(left * 1000) + 1);
        if (!stop && rc < 0 && errno != EINTR)
            stop = "could not be read";
        if (!stop && rc > 0) {
            if (fds[0].revents && !sink_read(out))
                open_out = false;
            if (fds[1].revents && !sink_read(err))
                open_err = false;
            if (out->dropped)
                stop = "wrote more output than the limit";
        }
        if (stop) {
            kill(-pid, SIGKILL);
            snprintf(why, whylen, "%s %s", what, stop);
            return why;
        }
    }
    return NULL;
}

int p4proc_run(char *const argv[], const char *what, const struct p4proc_limits *lim,
               struct p4proc_result *r)
{
    memset(r, 0, sizeof(*r));
    int out[2];
    int err[2];
    if (pipe(out) != 0)
        return -1;
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        run_child(argv, lim, out[1], err[1]);
    }
    if (pid > 0)
        setpgid(pid, pid); /* also here: the child may not have run yet when it is killed */
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        return -1;
    }
    struct sink so;
    struct sink se;
    sink_init(&so, out[0], lim->max_output);
    sink_init(&se, err[0], lim->max_messages);
    r->gave_up = drain(pid, what, lim->max_seconds, &so, &se, r->why, sizeof(r->why));
    close(out[0]);
    close(err[0]);
    while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
        ;
    so.buf[so.n] = 0;
    se.buf[se.n] = 0;
    r->out = so.buf;
    r->nout = so.n;
    r->err = se.buf;
    r->nerr = se.n;
    r->err_dropped = se.dropped;
    return 0;
}

int p4proc_ok(const struct p4proc_result *r)
{
    return !r->gave_up && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

void p4proc_free(struct p4proc_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
