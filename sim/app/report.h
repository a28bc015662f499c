/* Results of a run: a human summary on stdout and an output folder with summary.json (through
 * jansson), flows.csv, queues.csv (queue lengths sampled every output.queue_interval) and
 * trace.pcap (frames sent by chosen ports). The files go to a fresh temporary folder that
 * replaces the output folder in one rename when all are complete (rundir.h), so the folder
 * holds one run's complete set. summary.json records the provenance (version, input digests).
 * Nothing here depends on wall-clock time, so the same scenario and seed give byte-identical
 * files. */
#ifndef SIM_SIM_APP_REPORT_H
#define SIM_SIM_APP_REPORT_H

#include <stdio.h>

#include "sim/out.h"
#include "sim/pcap.h"
#include "sim/app/rundir.h"
#include "sim/app/scenario.h"

struct report {
    struct scenario *sc;
    char *dir; /* where files are written: the run's temporary folder (rundir.h) */
    struct rundir rd;
    struct out_file queues;
    bool sampling;
    struct evq_timer sample;
    struct pcap_writer pcap;
    bool tracing;
    bool ddl; /* tensors.csv, iterations.csv, bursts.csv are open */
    struct out_file tensors;
    struct out_file iterations;
    struct out_file bursts;
    bool msgs; /* messages.csv is open */
    struct out_file messages;
};

/* Prepares the output folder and the streams written during the run (queue samples, pcap).
 * `extra_pcap` is a comma-separated list of "node:port" from the command line (or NULL).
 * Returns NULL after printing an error (exit code 2 for bad port names, 1 for I/O). */
struct report *report_open(struct scenario *sc, const char *dir, const char *extra_pcap,
                           int *exit_code);
/* Writes summary.json and flows.csv, commits every file and moves the folder into place.
 * Returns 0 or -1 (message printed). */
int report_finish(struct report *r);
/* Returns -1 (message printed) when a stream written during the run has failed; call it now
 * and then during the run so a full disk is reported when it happens. */
int report_check(struct report *r);
/* Removes the temporary folder of an unfinished report and frees it. */
void report_free(struct report *r);
/* The human summary. */
void report_print(const struct scenario *sc, FILE *out, double wall_s);

#endif
