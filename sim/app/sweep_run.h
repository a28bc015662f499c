/* Running a sweep: the coordinator (one process: the parent of forked workers, or MPI rank 0)
 * hands out point ids one at a time to whichever worker is free (dynamic distribution), stores
 * each finished point's record (sweep_point.h), and at the end merges the records, in point
 * order, into OUT/results.csv and OUT/timing.csv. Workers run points in process (no exec), so
 * a worker can keep what it loaded between points.
 *
 * `ddlsim sweep` (sweep_main) checks a resumed folder first: the sweep and its base scenario
 * (OUT/sweep.json holds their fingerprint) and every input file a finished point read must be
 * unchanged, unless --force-resume. */
#ifndef SIM_SIM_APP_SWEEP_RUN_H
#define SIM_SIM_APP_SWEEP_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/app/progress.h"
#include "sim/app/sweep.h"
#include "sim/app/sweep_point.h"

struct sweep_ctl {
    const struct sweep *sw;
    const char *out;
    bool keep;
    struct progress prog;
    uint64_t ok;
    uint64_t failed;
    uint64_t skipped; /* finished before this run (resume) */
    uint64_t total;
    int io_errors; /* records that could not be stored */
    int parent;    /* the coordinator's process id (forked workers check it) */
};

/* Stores a finished point's record atomically (fsync, rename, fsync of the folder) and updates
 * the counters and the progress line. Frees the record's contents. */
void sweep_ctl_done(struct sweep_ctl *c, struct sweep_rec *r);
/* Redraws the progress line if due. */
void sweep_ctl_tick(struct sweep_ctl *c);

/* Runs the pending points on `jobs` forked worker processes; a worker that dies is recorded as
 * a failed point and replaced. Returns 0, or -1 after a message (cannot fork). */
int sweep_fork_run(struct sweep_ctl *c, const uint64_t *pending, uint64_t n, int jobs);

/* MPI (sweep_mpi.c). sweep_mpi_init returns 1 when this process is one of several MPI ranks
 * (rank and size set), 0 when not started by mpirun (or with one rank), -1 after a message when
 * started by mpirun with several ranks but built without MPI. */
int sweep_mpi_init(int *argc, char ***argv, int *rank, int *size);
/* Rank 0: hands the pending points to ranks 1..size-1 and stores their records. */
int sweep_mpi_run(struct sweep_ctl *c, const uint64_t *pending, uint64_t n);
/* Ranks > 0: run the points rank 0 sends until it says stop. */
void sweep_mpi_serve(const struct sweep *sw, const char *out, bool keep);
/* Tells the other ranks that rank 0 gives up (before any work was handed out). */
void sweep_mpi_abort_workers(void);
void sweep_mpi_finalize(void);

/* `ddlsim sweep FILE.yaml [options]`; returns the exit code. */
int sweep_main(int argc, char **argv);
/* Runs a loaded sweep into `out` (figures use it). jobs <= 0: one per core. Returns 0 when
 * every point succeeded, 1 when some failed or on I/O errors, 2 when a resume was refused. */
struct sweep_run_opts {
    const char *out;
    int jobs;
    bool resume;
    bool force_resume;
    bool fresh;
    bool retry_failed;
    bool keep;
    bool quiet;
    bool mpi; /* this is rank 0 of several MPI ranks: they are the workers */
};
int sweep_execute(const struct sweep *sw, const struct sweep_run_opts *o);

#endif
