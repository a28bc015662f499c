/* A scenario: the YAML file turned into a running simulation. scenario_load parses and
 * validates everything (reporting every error it finds, located), then the builder (build.c)
 * creates nodes, links, routes, flows, jobs and output taps; scenario_run runs it; report.h
 * writes the results.
 *
 * Top-level keys: name, seed, stop, defaults (link/host/switch/flow parameters applied to every
 * element that does not set them), topology (a generator), hosts, switches, links, flows,
 * jobs (distributed training), output. */
#ifndef SIM_SIM_APP_SCENARIO_H
#define SIM_SIM_APP_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "models/ddl/job.h"
#include "models/net/node.h"
#include "models/transport/flow.h"
#include "sim/arena.h"
#include "sim/cfg.h"
#include "sim/sim.h"

#define SCENARIO_MAX_KINDS 8 /* node kinds in the registry */

struct scenario_cfg {
    const char *name;
    int64_t seed;
    sim_time_t stop_ps; /* 0 = until no events remain */
    const struct cfg_node *defaults;
    const struct cfg_node *topology;
    const struct cfg_node *hosts;
    const struct cfg_node *switches;
    const struct cfg_node *links;
    const struct cfg_node *flows;
    const struct cfg_node *jobs;
    const struct cfg_node *output;
};

struct output_cfg {
    sim_time_t queue_interval_ps; /* 0 = no queue samples */
    const struct cfg_node *queues; /* list of "switch" or "switch:port" */
    const struct cfg_node *pcap;   /* list of "node:port" */
};

/* A port whose queue length queues.csv samples. */
struct queue_probe {
    struct node *node;
    uint32_t port;
};

struct scenario {
    struct arena mem; /* this struct and its node, flow and job tables */
    struct sim *sim;
    struct diag *diag;
    struct cfg_doc *doc;
    struct scenario_cfg cfg;
    struct output_cfg out;
    struct node **nodes; /* declaration order; nodes[i]->id == i */
    uint32_t nnodes;
    void *kind_shared[SCENARIO_MAX_KINDS]; /* per registry node kind (ops->shared_create) */
    struct flow **flows;
    uint32_t nflows;
    struct ddl_job **jobs;
    uint32_t njobs;
    struct queue_probe *probes;
    uint32_t nprobes;
    const char **pcap_ports; /* "node:port" specs to trace, resolved at output setup */
    uint32_t npcap_ports;
    uint64_t events;
    uint64_t folded; /* of the events, those run without a queue entry (link.h) */
    struct p4_cache *p4_cache; /* scenario_opts.p4_cache (the caller's) */
};

/* A tree placed at a key path (sweep points): like --set, with any YAML value. */
struct scenario_assign {
    const char *path;
    const struct cfg_node *value; /* copied into the scenario; errors point at its location */
};

struct scenario_opts {
    const char *const *sets; /* "a.b=v" overrides, applied in order */
    int nsets;
    const struct scenario_assign *assigns; /* applied after sets, in order */
    int nassigns;
    bool seed_given;
    uint64_t seed;
    uint64_t max_memory; /* bytes a build may need (estimate.h); 0: the machine's */
    /* Loaded P4 programs to take programs from and add them to (p4/engine/p4cache.h), owned
     * by the caller and kept across scenarios (sweep workers); NULL: loaded per scenario. */
    struct p4_cache *p4_cache;
};

extern const struct param_def scenario_params[];
extern const size_t scenario_nparams;
extern const struct param_def output_params[];
extern const size_t output_nparams;

/* Loads, validates and builds. Reports errors through d and returns NULL if any. */
struct scenario *scenario_load(const char *path, const struct scenario_opts *o, struct diag *d);
/* The same from YAML text (tests); `name` is used in messages. */
struct scenario *scenario_load_string(const char *name, const char *yaml,
                                      const struct scenario_opts *o, struct diag *d);
/* The same from a tree (an inline scenario of a sweep file), copied; `name` locates relative
 * paths (P4 programs, models) and names the scenario input. */
struct scenario *scenario_load_node(const char *name, const struct cfg_node *root,
                                    const struct scenario_opts *o, struct diag *d);
/* Runs to the stop time or until no event remains. */
/* Returns 0, or -1 after printing an error when simulated time would pass SIM_TIME_HORIZON. */
int scenario_run(struct scenario *sc);
void scenario_destroy(struct scenario *sc);

struct node *scenario_node(const struct scenario *sc, const char *name);
struct flow *scenario_flow(const struct scenario *sc, const char *name);
/* Nodes of kind `kind` ("host", "switch"). */
uint32_t scenario_count(const struct scenario *sc, const char *kind);

#endif
