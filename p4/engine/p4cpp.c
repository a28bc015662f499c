/* Running the C preprocessor on a P4 program, as p4c does (see p4cpp.h). */
#include "p4/engine/p4cpp.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
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

static _Noreturn void run_cpp(const char *path, const char *include_dir, int out, int err)
{
    setpgid(0, 0); /* cpp and cc1 in a group of their own, killed together */
    dup2(out, 1);
    dup2(err, 2);
    struct rlimit mem = {P4CPP_MAX_MEMORY, P4CPP_MAX_MEMORY};
    struct rlimit cpu = {P4CPP_MAX_SECONDS, P4CPP_MAX_SECONDS + 1};
    setrlimit(RLIMIT_AS, &mem);
    setrlimit(RLIMIT_CPU, &cpu);
    char *argv[] = {"cpp",
                    "-C",
                    "-undef",
                    "-nostdinc",
                    "-x",
                    "assembler-with-cpp",
                    "-D__TARGET_BMV2__",
                    "-I",
                    (char *)include_dir,
                    (char *)path,
                    NULL};
    execvp("cpp", argv);
    fprintf(stderr, "cannot run cpp\n");
    _exit(127);
}

/* Reads both pipes together until both end (a child that fills one pipe while the parent waits
 * on the other would block forever), or until the time or output limit; then the child is
 * killed. Returns a reason for giving up, or NULL. */
static const char *drain(pid_t pid, struct sink *out, struct sink *err)
{
    double t0 = now_s();
    bool open_out = true;
    bool open_err = true;
    while (open_out || open_err) {
        double left = P4CPP_MAX_SECONDS - (now_s() - t0);
        if (left <= 0) {
            kill(-pid, SIGKILL);
            return "the preprocessor took longer than the limit";
        }
        struct pollfd fds[2] = {{open_out ? out->fd : -1, POLLIN, 0},
                                {open_err ? err->fd : -1, POLLIN, 0}};
        int rc = poll(fds, 2, (int)(left * 1000) + 1);
        if (rc < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            return "cannot read the preprocessor's output";
        }
        if (rc <= 0)
            continue;
        if (fds[0].revents && !sink_read(out))
            open_out = false;
        if (fds[1].revents && !sink_read(err))
            open_err = false;
        if (out->dropped) {
            kill(-pid, SIGKILL);
            return "the preprocessed program is larger than the limit";
        }
    }
    return NULL;
}

/* Refuses what cpp would choke on with a confusing message: directories, devices, FIFOs, files
 * larger than the output limit. */
static bool check_input(const char *path, FILE *diag_out)
{
    struct stat st;
    const char *why = NULL;
    if (stat(path, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a folder, not a P4 program";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file";
    else if ((uint64_t)st.st_size > P4CPP_MAX_OUTPUT)
        why = "is larger than the limit of 64 MB";
    if (why && diag_out)
        fprintf(diag_out, "%s: error: %s\n", path, why);
    return why == NULL;
}

static void print_messages(const char *path, const struct sink *err, FILE *diag_out)
{
    if (!diag_out)
        return;
    fwrite(err->buf, 1, err->n, diag_out);
    if (err->n && err->buf[err->n - 1] != '\n')
        fputc('\n', diag_out);
    if (err->dropped)
        fprintf(diag_out, "%s: note: %zu more bytes of preprocessor messages not shown\n", path,
                err->dropped);
}

char *p4cpp_run(const char *path, const char *include_dir, FILE *diag_out, size_t *len)
{
    if (!check_input(path, diag_out))
        return NULL;
    int out[2];
    int err[2];
    if (pipe(out) != 0) {
        if (diag_out)
            fprintf(diag_out, "%s: error: cannot run the preprocessor\n", path);
        return NULL;
    }
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        if (diag_out)
            fprintf(diag_out, "%s: error: cannot run the preprocessor\n", path);
        return NULL;
    }
    fflush(diag_out);
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        run_cpp(path, include_dir, out[1], err[1]);
    }
    if (pid > 0)
        setpgid(pid, pid); /* also here: the child may not have run yet when it is killed */
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        if (diag_out)
            fprintf(diag_out, "%s: error: cannot run the preprocessor\n", path);
        return NULL;
    }
    struct sink so;
    struct sink se;
    sink_init(&so, out[0], P4CPP_MAX_OUTPUT);
    sink_init(&se, err[0], P4CPP_MAX_MESSAGES);
    const char *gave_up = drain(pid, &so, &se);
    close(out[0]);
    close(err[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    print_messages(path, &se, diag_out);
    bool ok = !gave_up && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && diag_out) {
        if (gave_up)
            fprintf(diag_out, "%s: error: %s (%d s, %d MB of output)\n", path, gave_up,
                    P4CPP_MAX_SECONDS, (int)(P4CPP_MAX_OUTPUT >> 20));
        else if (WIFSIGNALED(status))
            fprintf(diag_out,
                    "%s: error: the preprocessor was stopped by signal %d (limits: %d s of CPU, "
                    "%d MB of memory)\n",
                    path, WTERMSIG(status), P4CPP_MAX_SECONDS, (int)(P4CPP_MAX_MEMORY >> 20));
        else if (!se.n)
            fprintf(diag_out, "%s: error: preprocessing failed\n", path);
    }
    free(se.buf);
    if (!ok) {
        free(so.buf);
        return NULL;
    }
    so.buf[so.n] = 0;
    *len = so.n;
    return so.buf;
}
