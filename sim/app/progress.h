/* A one-line progress display on stderr, redrawn in place at most PROGRESS_HZ times a second,
 * only when stderr is a terminal and the user did not ask for --quiet; otherwise every call is
 * a no-op and nothing extra is printed. `run` shows simulated time, events/s and an ETA against
 * the stop time; `sweep` shows points done and failed, elapsed time and an ETA. */
#ifndef SIM_SIM_APP_PROGRESS_H
#define SIM_SIM_APP_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/simtime.h"

#define PROGRESS_HZ 4

struct progress {
    bool on;
    double start_s;  /* wall clock at init */
    double last_s;   /* wall clock of the last redraw */
    uint64_t last_events;
    size_t drawn;    /* characters on the line now */
};

/* Monotonic wall clock in seconds. */
double progress_now(void);
/* `enabled` false (--quiet) or stderr not a terminal: the display stays off. */
void progress_init(struct progress *p, bool enabled);
/* Run progress: simulated time `now`, stop time (0: none), events so far. */
void progress_run(struct progress *p, sim_time_t now, sim_time_t stop, uint64_t events);
/* Sweep progress: points finished (ok + failed) out of total; `skipped` were done before a
 * resume and do not count toward the rate. */
void progress_sweep(struct progress *p, uint64_t ok, uint64_t failed, uint64_t skipped,
                    uint64_t total);
/* Erases the line (before other output, and at the end). */
void progress_clear(struct progress *p);
/* "2h05m", "3m07s", "12.4s" */
void progress_fmt_duration(double s, char *buf, size_t n);

#endif
