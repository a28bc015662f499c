/* The progress line (progress.h). */
#include "sim/app/progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_init(struct progress *p, bool enabled)
{
    memset(p, 0, sizeof(*p));
    p->on = enabled && isatty(STDERR_FILENO);
    p->start_s = progress_now();
    p->last_s = p->start_s;
}

void progress_fmt_duration(double s, char *buf, size_t n)
{
    if (s < 0 || s != s)
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

static void draw(struct progress *p, const char *line)
{
    size_t len = strlen(line);
    /* pad with spaces over the previous line; no escape sequences, so any terminal works */
    fprintf(stderr, "\r%s%*s", line, len < p->drawn ? (int)(p->drawn - len) : 0, "");
    fflush(stderr);
    p->drawn = len;
}

/* True (and the clock advanced) when a redraw is due. */
static bool due(struct progress *p, double *now)
{
    if (!p->on)
        return false;
    *now = progress_now();
    return *now - p->last_s >= 1.0 / PROGRESS_HZ;
}

void progress_run(struct progress *p, sim_time_t now, sim_time_t stop, uint64_t events)
{
    double wall;
    if (!due(p, &wall))
        return;
    double rate = (double)(events - p->last_events) / (wall - p->last_s);
    p->last_s = wall;
    p->last_events = events;
    char t[32];
    char line[160];
    sim_time_fmt(now, t, sizeof(t));
    int k = snprintf(line, sizeof(line), "  simulated %s", t);
    if (stop > 0 && now > 0) {
        char ts[32];
        char eta[32];
        sim_time_fmt(stop, ts, sizeof(ts));
        double elapsed = wall - p->start_s;
        progress_fmt_duration(elapsed * (double)(stop - now) / (double)now, eta, sizeof(eta));
        k += snprintf(line + k, sizeof(line) - (size_t)k, " of %s (%.0f%%)", ts,
                      100.0 * (double)now / (double)stop);
        snprintf(line + k, sizeof(line) - (size_t)k, ", %.2f M events/s, ETA %s", rate / 1e6, eta);
    } else {
        snprintf(line + k, sizeof(line) - (size_t)k, ", %.2f M events/s", rate / 1e6);
    }
    draw(p, line);
}

void progress_sweep(struct progress *p, uint64_t ok, uint64_t failed, uint64_t skipped,
                    uint64_t total)
{
    double wall;
    if (!due(p, &wall))
        return;
    p->last_s = wall;
    double elapsed = wall - p->start_s;
    uint64_t done = ok + failed;
    uint64_t ran = done > skipped ? done - skipped : 0;
    char el[32];
    char eta[32] = "?";
    progress_fmt_duration(elapsed, el, sizeof(el));
    if (ran > 0)
        progress_fmt_duration(elapsed / (double)ran * (double)(total - done), eta, sizeof(eta));
    char line[160];
    snprintf(line, sizeof(line), "  points %llu/%llu done, %llu failed, elapsed %s, ETA %s",
             (unsigned long long)done, (unsigned long long)total, (unsigned long long)failed, el,
             eta);
    draw(p, line);
}

void progress_clear(struct progress *p)
{
    if (!p->on || p->drawn == 0)
        return;
    fprintf(stderr, "\r%*s\r", (int)p->drawn, "");
    fflush(stderr);
    p->drawn = 0;
}
