#include "sim/app/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "p4/engine/p4cli.h"
#include "models/transport/transports.h"
#include "sim/app/figure.h"
#include "sim/app/plot.h"
#include "sim/app/progress.h"
#include "sim/app/registry.h"
#include "sim/app/rundir.h"
#include "sim/app/report.h"
#include "sim/app/scenario.h"
#include "sim/app/sweep_run.h"
#include "sim/units.h"
#include "sim/util.h"

#define EXIT_BAD_INPUT 2

static const char usage[] =
    "usage: ddlsim COMMAND [ARGS]\n"
    "\n"
    "  run FILE.yaml [--out DIR] [--seed N] [--set KEY=VALUE]... [--pcap NODE:PORT,...] [--quiet]\n"
    "      [--p4-exec=native|compiled|interp]  the engine of P4 switches (default native:\n"
    "                         machine code; compiled: records; interp: the reference\n"
    "                         interpreter; same results)\n"
    "      [--max-memory SIZE]\n"
    "      [--plot]           run a scenario; results go to DIR (default out/<file name>);\n"
    "                         --plot draws them into DIR/plots/\n"
    "  check FILE.yaml [--set KEY=VALUE]... [--max-memory SIZE]\n"
    "                         validate a scenario; every error as file:line:col\n"
    "  sweep FILE.yaml [--out DIR] [-j N] [--resume] [--keep] [--quiet] ...\n"
    "                         run a scenario over parameter axes into one CSV\n"
    "                         (ddlsim sweep --help; docs/sweeps.md)\n"
    "  figure NAME|all [--quick]\n"
    "                         run a figure's sweep (configs/figures/NAME.yaml): results/NAME.csv,\n"
    "                         .png, .svg and the claim beside our number; --quick compares with\n"
    "                         results/NAME.ref.csv\n"
    "  plot OUTDIR            gnuplot PNG and SVG of a run's results into OUTDIR/plots/\n"
    "  describe [KIND]        list the parameters of a kind (no KIND: list kinds)\n"
    "  p4 check FILE.p4       compile a P4_16 program and report errors\n"
    "  p4 test [--p4-exec=compiled|native|interp] FILE.p4 FILE.stf\n"
    "                         run STF packet tests against a P4 program\n"
    "\n"
    "exit codes: 0 success, 1 runtime failure, 2 bad input\n";

struct run_args {
    const char *file;
    const char *out;
    const char *pcap;
    const char **sets;
    int nsets;
    struct scenario_opts opts;
    bool quiet;
    bool plot;
};

/* Every RUN_HOOK_EVENTS events the run loop checks the output streams (a full disk stops the
 * run at once) and updates the progress line. */
#define RUN_HOOK_EVENTS 4096

struct run_watch {
    struct report *r;
    struct progress p;
    sim_time_t stop;
    bool failed;
};

static void run_watch_fire(struct sim *sim, uint64_t events, void *ud)
{
    struct run_watch *w = ud;
    if (report_check(w->r) < 0) {
        progress_clear(&w->p);
        w->failed = true;
        sim_stop(sim);
        return;
    }
    progress_run(&w->p, sim->now, w->stop, events);
}

/* Parses the options shared by run and check. Returns 0, or EXIT_BAD_INPUT after a message. */
static int parse_args(int argc, char **argv, struct run_args *a, bool run)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},  {"seed", required_argument, NULL, 's'},
        {"set", required_argument, NULL, 'S'},  {"pcap", required_argument, NULL, 'p'},
        {"quiet", no_argument, NULL, 'q'},      {"help", no_argument, NULL, 'h'},
        {"plot", no_argument, NULL, 'P'},       {"p4-exec", required_argument, NULL, 'X'},
        {"max-memory", required_argument, NULL, 'M'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof(*a));
    a->sets = xcalloc((size_t)argc + 1, sizeof(*a->sets));
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:s:S:p:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
        case 'p':
        case 's':
        case 'q':
        case 'P':
            if (!run) {
                const char *name = "?";
                for (const struct option *lo = longopts; lo->name; lo++) {
                    if (lo->val == c)
                        name = lo->name;
                }
                fprintf(stderr, "ddlsim: error: option '--%s' applies to run only\n", name);
                return EXIT_BAD_INPUT;
            }
            if (c == 'o')
                a->out = optarg;
            else if (c == 'p')
                a->pcap = optarg;
            else if (c == 'q')
                a->quiet = true;
            else if (c == 'P')
                a->plot = true;
            else {
                char *end;
                errno = 0;
                unsigned long long v = strtoull(optarg, &end, 10);
                if (errno || !*optarg || *end || optarg[0] == '-') {
                    fprintf(stderr, "ddlsim: error: --seed expects a non-negative integer, "
                                    "got '%s'\n", optarg);
                    return EXIT_BAD_INPUT;
                }
                a->opts.seed_given = true;
                a->opts.seed = v;
            }
            break;
        case 'S':
            a->sets[a->nsets++] = optarg;
            break;
        case 'X': /* the P4 engine of every switch: --set defaults.switch.p4_exec=... */
            if (strcmp(optarg, "compiled") && strcmp(optarg, "interp") && strcmp(optarg, "native")) {
                fprintf(stderr,
                        "ddlsim: error: --p4-exec expects compiled, native or interp, got '%s'\n",
                        optarg);
                return EXIT_BAD_INPUT;
            }
            a->sets[a->nsets++] = !strcmp(optarg, "interp")   ? "defaults.switch.p4_exec=interp"
                                  : !strcmp(optarg, "native") ? "defaults.switch.p4_exec=native"
                                                              : "defaults.switch.p4_exec=compiled";
            break;
        case 'M': {
            char err[256] = "";
            int urc = units_parse_size(optarg, &a->opts.max_memory, err, sizeof(err));
            if (urc < 0 || a->opts.max_memory == 0) {
                fprintf(stderr, "ddlsim: error: --max-memory: %s\n",
                        urc < 0 ? err : "must be more than 0");
                return EXIT_BAD_INPUT;
            }
            break;
        }
        case 'h':
            fputs(usage, stdout);
            exit(0);
        case ':':
            fprintf(stderr, "ddlsim: error: option '%s' needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "ddlsim: error: unknown option '%s'\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "ddlsim: error: expected exactly one scenario file\n%s", usage);
        return EXIT_BAD_INPUT;
    }
    a->file = argv[optind];
    a->opts.sets = a->sets;
    a->opts.nsets = a->nsets;
    return 0;
}

static int cmd_check(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_args(argc, argv, &a, false);
    if (rc == 0) {
        struct diag d;
        diag_init(&d, stderr);
        struct scenario *sc = scenario_load(a.file, &a.opts, &d);
        if (sc) {
            uint32_t nh = scenario_count(sc, "host");
            uint32_t ns = scenario_count(sc, "switch");
            printf("%s: ok (%u host%s, %u switch%s, %u flow%s)\n", a.file, nh, nh == 1 ? "" : "s",
                   ns, ns == 1 ? "" : "es", sc->nflows, sc->nflows == 1 ? "" : "s");
            scenario_destroy(sc);
        } else {
            fprintf(stderr, "%s: %d error%s\n", a.file, diag_count(&d),
                    diag_count(&d) == 1 ? "" : "s");
            rc = EXIT_BAD_INPUT;
        }
    }
    free(a.sets);
    return rc;
}

static int cmd_run(int argc, char **argv)
{
    struct run_args a;
    int rc = parse_args(argc, argv, &a, true);
    char *dir = NULL;
    struct scenario *sc = NULL;
    struct report *r = NULL;
    if (rc)
        goto out;
    struct diag d;
    diag_init(&d, stderr);
    sc = scenario_load(a.file, &a.opts, &d);
    if (!sc) {
        fprintf(stderr, "%s: %d error%s\n", a.file, diag_count(&d), diag_count(&d) == 1 ? "" : "s");
        rc = EXIT_BAD_INPUT;
        goto out;
    }
    dir = a.out ? xstrdup(a.out) : rundir_default(a.file);
    r = report_open(sc, dir, a.pcap, &rc);
    if (!r)
        goto out;
    struct run_watch w = {.r = r, .stop = sc->cfg.stop_ps};
    progress_init(&w.p, !a.quiet);
    sc->sim->hook = (struct sim_hook){run_watch_fire, &w, RUN_HOOK_EVENTS};
    double t0 = progress_now();
    int run_rc = scenario_run(sc);
    double wall = progress_now() - t0;
    progress_clear(&w.p);
    sc->sim->hook.fn = NULL;
    if (run_rc < 0 || w.failed || report_check(r) < 0 || report_finish(r) < 0) {
        rc = 1;
        goto out;
    }
    if (!a.quiet) {
        report_print(sc, stdout, wall);
        printf("\nresults in %s/ (summary.json, flows.csv%s%s%s)\n", dir,
               sc->njobs ? ", tensors.csv, iterations.csv, bursts.csv" : "",
               r->sc->out.queue_interval_ps && sc->nprobes ? ", queues.csv" : "",
               r->pcap.frames || sc->npcap_ports || a.pcap ? ", trace.pcap" : "");
    }
    if (a.plot && plot_run_dir(dir, a.quiet) != 0)
        rc = 1;
out:
    report_free(r);
    scenario_destroy(sc);
    free(dir);
    free(a.sets);
    return rc;
}

static void list_kinds(void)
{
    printf("kinds (ddlsim describe KIND):\n");
    for (size_t i = 0; i < registry_nkinds; i++)
        printf("  %-10s %s\n", registry_kinds[i].name, registry_kinds[i].summary);
    for (size_t i = 0; i < registry_nnode_kinds; i++)
        printf("  %-10s %s\n", registry_node_kinds[i].ops->kind,
               registry_node_kinds[i].ops->summary);
    printf("flow types (entries of `flows:` with `type: T`; ddlsim describe T):\n");
    for (size_t i = 0; i < transport_nflows; i++)
        printf("  %-10s %s\n", transport_flows[i]->type, transport_flows[i]->summary);
}

static int unknown_kind(const char *kind)
{
    const char *names[64];
    size_t n = 0;
    for (size_t i = 0; i < registry_nkinds && n < ARRAY_LEN(names); i++)
        names[n++] = registry_kinds[i].name;
    for (size_t i = 0; i < registry_nnode_kinds && n < ARRAY_LEN(names); i++)
        names[n++] = registry_node_kinds[i].ops->kind;
    for (size_t i = 0; i < transport_nflows && n < ARRAY_LEN(names); i++)
        names[n++] = transport_flows[i]->type;
    const char *hint = param_suggest(kind, names, n);
    fprintf(stderr, "ddlsim: error: unknown kind '%s'%s%s%s\n", kind,
            hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
    return EXIT_BAD_INPUT;
}

static int cmd_describe(int argc, char **argv)
{
    if (argc < 2) {
        list_kinds();
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "ddlsim: error: describe takes one kind\n");
        return EXIT_BAD_INPUT;
    }
    const struct flow_ops *fo = transport_find(argv[1]);
    const struct registry_node_kind *nk = registry_node_kind(argv[1], NULL);
    const struct registry_kind *k = registry_find(argv[1]);
    if (fo)
        param_describe(stdout, fo->type, fo->summary, fo->params, *fo->nparams);
    else if (nk)
        param_describe(stdout, nk->ops->kind, nk->ops->summary, nk->ops->params,
                       *nk->ops->nparams);
    else if (k)
        param_describe(stdout, k->name, k->summary, k->params, *k->nparams);
    else
        return unknown_kind(argv[1]);
    return 0;
}

/* `ddlsim p4 ...`: the P4 tool takes the words after "p4". */
static int cmd_p4(int argc, char **argv)
{
    return p4cli_main(argc - 1, argv + 1);
}

/* The commands; each gets its own name as argv[0]. */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"run", cmd_run},      {"check", cmd_check},       {"figure", figure_main}, {"plot", plot_main},
    {"sweep", sweep_main}, {"describe", cmd_describe}, {"p4", cmd_p4},
};

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return EXIT_BAD_INPUT;
    }
    /* a JSON value jansson cannot allocate would vanish from summary.json without a word:
     * out of memory there is the runtime failure it is everywhere else */
    json_set_alloc_funcs(xmalloc, free);
    const char *cmd = argv[1];
    for (size_t i = 0; i < ARRAY_LEN(commands); i++) {
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    fprintf(stderr, "ddlsim: error: unknown command '%s'\n%s", cmd, usage);
    return EXIT_BAD_INPUT;
}
