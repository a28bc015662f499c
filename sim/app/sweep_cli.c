/* `ddlsim sweep FILE.yaml [--out DIR] [-j N] [--resume|--fresh] [--force-resume]
 * [--retry-failed] [--keep] [--quiet]` (sweep_run.h). Under mpirun (build/ddlsim-mpi), rank 0
 * coordinates and the other ranks run points. */
#include "sim/app/sweep_run.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/rundir.h"
#include "sim/util.h"

#define EXIT_BAD_INPUT 2

static const char sweep_usage[] =
    "usage: ddlsim sweep FILE.yaml [--out DIR] [-j N] [--resume | --fresh] [--force-resume]\n"
    "                    [--retry-failed] [--keep] [--quiet]\n"
    "  --out DIR         sweep folder (default out/<file name>): results.csv, timing.csv,\n"
    "                    points/ (one record per finished point)\n"
    "  -j N              worker processes (default: one per core); under mpirun the ranks\n"
    "  --resume          finish an interrupted sweep: finished points are not run again\n"
    "  --force-resume    resume although the sweep, its scenario or an input file changed\n"
    "  --fresh           discard an earlier sweep in DIR and start over\n"
    "  --retry-failed    with --resume: run the points that failed again\n"
    "  --keep            keep every point's output folder in DIR/points/NNNNNNNN/\n"
    "  --quiet           no progress line, no summary\n";

static int parse_jobs(const char *s, int *jobs)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || !*s || *end || v < 1 || v > 4096) {
        fprintf(stderr, "ddlsim: error: -j expects a number of workers 1..4096, got '%s'\n", s);
        return -1;
    }
    *jobs = (int)v;
    return 0;
}

static int parse(int argc, char **argv, struct sweep_run_opts *o, const char **file)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},     {"jobs", required_argument, NULL, 'j'},
        {"resume", no_argument, NULL, 'r'},        {"force-resume", no_argument, NULL, 'F'},
        {"fresh", no_argument, NULL, 'f'},         {"retry-failed", no_argument, NULL, 'R'},
        {"keep", no_argument, NULL, 'k'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'j':
            if (parse_jobs(optarg, &o->jobs) < 0)
                return EXIT_BAD_INPUT;
            break;
        case 'r': o->resume = true; break;
        case 'F': o->resume = o->force_resume = true; break;
        case 'f': o->fresh = true; break;
        case 'R': o->retry_failed = true; break;
        case 'k': o->keep = true; break;
        case 'q': o->quiet = true; break;
        case 'h': fputs(sweep_usage, stdout); exit(0);
        case ':':
            fprintf(stderr, "ddlsim: error: option '%s' needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "ddlsim: error: unknown option '%s'\n%s", argv[optind - 1],
                    sweep_usage);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "ddlsim: error: expected exactly one sweep file\n%s", sweep_usage);
        return EXIT_BAD_INPUT;
    }
    if (o->resume && o->fresh) {
        fprintf(stderr, "ddlsim: error: --resume and --fresh exclude each other\n");
        return EXIT_BAD_INPUT;
    }
    *file = argv[optind];
    return 0;
}

int sweep_main(int argc, char **argv)
{
    int rank = 0;
    int size = 1;
    int mpi = sweep_mpi_init(&argc, &argv, &rank, &size);
    if (mpi < 0)
        return EXIT_BAD_INPUT;
    struct sweep_run_opts o = {0};
    const char *file = NULL;
    int rc = parse(argc, argv, &o, &file);
    struct sweep *sw = NULL;
    char *out = NULL;
    if (rc == 0) {
        struct diag d;
        diag_init(&d, stderr);
        sw = sweep_load(file, NULL, &d);
        if (!sw) {
            fprintf(stderr, "%s: %d error%s\n", file, diag_count(&d),
                    diag_count(&d) == 1 ? "" : "s");
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == 0) {
        out = o.out ? xstrdup(o.out) : rundir_default(file);
        o.out = out;
        if (mpi && rank > 0) {
            o.quiet = true;
            sweep_mpi_serve(sw, out, o.keep || sw->keep);
        } else {
            o.mpi = mpi;
            rc = sweep_execute(sw, &o);
        }
    } else if (mpi && rank == 0) {
        sweep_mpi_abort_workers();
    }
    sweep_free(sw);
    free(out);
    if (mpi)
        sweep_mpi_finalize();
    return rc;
}
