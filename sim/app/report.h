/* Results of a run: a human summary on stdout and an output folder with summary.json (through
 * jansson), flows.csv, queues.csv (queue lengths sampled every output.queue_interval) and
 * trace.pcap (frames sent by chosen ports). Every file is written under a temporary name and
 * renamed when complete (out.h). Nothing here depends on wall-clock time, so the same scenario
 * and seed give byte-identical files. */
#ifndef SIM_SIM_APP_REPORT_H
#define SIM_SIM_APP_REPORT_H

#include <stdio.h>

#include "sim/out.h"
#include "sim/pcap.h"
#include "sim/app/scenario.h"

struct report {
    struct scenario *sc;
    char *dir;
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
/* Writes summary.json and flows.csv and commits every file. Returns 0 or -1 (message printed). */
int report_finish(struct report *r);
/* Removes temporary files of an unfinished report and frees it. */
void report_free(struct report *r);
/* The human summary. */
void report_print(const struct scenario *sc, FILE *out, double wall_s);

#endif
