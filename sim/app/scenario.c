/* A scenario's lifecycle: load (parse, then the builder's stages), run, destroy, lookups. */
#include "sim/app/scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/net/node.h"
#include "sim/app/build.h"
#include "sim/app/estimate.h"
#include "sim/app/registry.h"
#include "sim/util.h"

#define SP(field) offsetof(struct scenario_cfg, field)
const struct param_def scenario_params[] = {
    {"name", PARAM_STRING, SP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "scenario name"},
    {"seed", PARAM_INT, SP(seed), "1", "0", NULL, NULL, "run seed (RNG streams derive from it)"},
    {"stop", PARAM_TIME, SP(stop_ps), "0", "0", NULL, NULL,
     "simulated time to stop at (0 = when no events remain)"},
    {"defaults", PARAM_NODE, SP(defaults), PARAM_OPTIONAL, NULL, NULL, NULL,
     "parameters for every link/host/switch/flow that does not set them"},
    {"topology", PARAM_NODE, SP(topology), PARAM_OPTIONAL, NULL, NULL, NULL,
     "a generator: star, dumbbell, leaf_spine, fat_tree"},
    {"hosts", PARAM_NODE, SP(hosts), PARAM_OPTIONAL, NULL, NULL, NULL, "list of hosts"},
    {"switches", PARAM_NODE, SP(switches), PARAM_OPTIONAL, NULL, NULL, NULL, "list of switches"},
    {"links", PARAM_NODE, SP(links), PARAM_OPTIONAL, NULL, NULL, NULL, "list of links"},
    {"flows", PARAM_NODE, SP(flows), PARAM_OPTIONAL, NULL, NULL, NULL, "list of traffic flows"},
    {"jobs", PARAM_NODE, SP(jobs), PARAM_OPTIONAL, NULL, NULL, NULL,
     "list of distributed training jobs (ddlsim describe job)"},
    {"output", PARAM_NODE, SP(output), PARAM_OPTIONAL, NULL, NULL, NULL,
     "what to record: queue samples, pcap ports"},
};
const size_t scenario_nparams = ARRAY_LEN(scenario_params);

#define OP(field) offsetof(struct output_cfg, field)
const struct param_def output_params[] = {
    {"queue_interval", PARAM_TIME, OP(queue_interval_ps), "0", "0", NULL, NULL,
     "sample queue lengths this often into queues.csv (0 = off)"},
    {"queues", PARAM_NODE, OP(queues), PARAM_OPTIONAL, NULL, NULL, NULL,
     "ports to sample: \"switch\" (all ports) or \"switch:port\"; default all switch ports"},
    {"pcap", PARAM_NODE, OP(pcap), PARAM_OPTIONAL, NULL, NULL, NULL,
     "ports to trace into trace.pcap: \"node:port\" (frames sent by that port)"},
};
const size_t output_nparams = ARRAY_LEN(output_params);

/* The builder's stages in order. After an error, the stages that would build on what failed
 * only check: nodes and links when the topology was collected, flows always (build_flows
 * checks without creating once there are errors). */
static void build_all(struct builder *b)
{
    build_check_defaults(b);
    int topo_errors = topo_collect(&b->topo, b->sc->doc->root, b->d);
    b->errors += topo_errors;
    if (topo_errors == 0 &&
        estimate_check(&b->topo, b->sc->doc->root, estimate_limit(b->max_memory), b->d) < 0) {
        b->errors++;
        return;
    }
    if (topo_errors == 0) {
        build_nodes(b);
        build_links(b);
        if (b->errors == 0)
            build_connected(b);
    }
    if (b->errors) {
        build_flows(b);
        return;
    }
    build_routes(b);
    build_finish(b);
    build_flows(b);
    build_jobs(b);
    build_outputs(b);
}

static struct scenario *build(struct cfg_doc *doc, const struct scenario_opts *o, struct diag *d)
{
    struct arena mem = {0};
    struct scenario *sc = arena_calloc(&mem, 1, sizeof(*sc));
    sc->mem = mem;
    sc->doc = doc;
    sc->diag = d;
    sc->p4_cache = o ? o->p4_cache : NULL;
    struct builder b = {.sc = sc, .d = d, .max_memory = o ? o->max_memory : 0};
    diag_hold(d);
    for (int i = 0; o && i < o->nsets; i++) {
        if (cfg_set(doc, o->sets[i], d) < 0)
            b.errors++;
    }
    for (int i = 0; o && i < o->nassigns; i++) {
        const struct scenario_assign *a = &o->assigns[i];
        if (cfg_set_node(doc, a->path, a->value, a->value->loc, d) < 0)
            b.errors++;
    }
    /* a failed --set leaves the tree as it was: the file is still checked in full */
    if (param_decode(d, scenario_params, scenario_nparams, doc->root, &sc->cfg, "the scenario"))
        b.errors++;
    if (o && o->seed_given)
        sc->cfg.seed = (int64_t)o->seed;
    sc->sim = sim_create((uint64_t)sc->cfg.seed, d);
    build_all(&b);
    strmap_fini(&b.names);
    topo_free(&b.topo);
    free(b.kind_of);
    free(b.where);
    if (b.errors || diag_count(d)) {
        diag_release(d);
        scenario_destroy(sc);
        return NULL;
    }
    diag_release(d);
    return sc;
}

struct scenario *scenario_load(const char *path, const struct scenario_opts *o, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_file(path, d);
    return doc ? build(doc, o, d) : NULL;
}

struct scenario *scenario_load_string(const char *name, const char *yaml,
                                      const struct scenario_opts *o, struct diag *d)
{
    struct cfg_doc *doc = cfg_load_string(name, yaml, d);
    return doc ? build(doc, o, d) : NULL;
}

struct scenario *scenario_load_node(const char *name, const struct cfg_node *root,
                                    const struct scenario_opts *o, struct diag *d)
{
    return build(cfg_doc_from(name, root), o, d);
}

int scenario_run(struct scenario *sc)
{
    sim_time_t until = sc->cfg.stop_ps ? sc->cfg.stop_ps : SIM_TIME_NEVER;
    uint64_t folded = sc->sim->evq.folded;
    sc->events += sim_run(sc->sim, until);
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        for (uint32_t k = 0; sc->nodes[i] && k < sc->nodes[i]->nports; k++)
            link_settle(sc->sim, &sc->nodes[i]->ports[k]->tx);
    }
    sc->folded += sc->sim->evq.folded - folded; /* events run without a queue entry */
    sc->events += sc->sim->evq.folded - folded;
    if (!sc->sim->evq.past_horizon)
        return 0;
    char now[32];
    fprintf(stderr,
            "ddlsim: error: simulated time would pass its limit of %.0f s (about 26.7 days) "
            "at %s of simulated time; shorten the scenario (smaller flows, faster links, or "
            "`stop:`)\n",
            simtime_sec(SIM_TIME_HORIZON), sim_time_fmt(sc->sim->now, now, sizeof(now)));
    return -1;
}

void scenario_destroy(struct scenario *sc)
{
    if (!sc)
        return;
    for (uint32_t i = 0; i < sc->njobs; i++)
        ddl_job_destroy(sc->jobs[i]);
    for (uint32_t i = 0; i < sc->nflows; i++)
        sc->flows[i]->ops->destroy(sc->sim, sc->flows[i]);
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        if (sc->nodes[i])
            sc->nodes[i]->ops->destroy(sc->nodes[i]);
    }
    if (sc->sim)
        SIM_ASSERT(pkt_live(sc->sim) == 0);
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        if (sc->kind_shared[k])
            registry_node_kinds[k].ops->shared_destroy(sc->kind_shared[k]);
    }
    free(sc->probes);
    free(sc->pcap_ports);
    sim_destroy(sc->sim);
    cfg_free(sc->doc);
    arena_free(&sc->mem); /* sc itself and its node, flow and job tables */
}

struct node *scenario_node(const struct scenario *sc, const char *name)
{
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        if (sc->nodes[i] && strcmp(sc->nodes[i]->name, name) == 0)
            return sc->nodes[i];
    }
    return NULL;
}

struct flow *scenario_flow(const struct scenario *sc, const char *name)
{
    for (uint32_t i = 0; i < sc->nflows; i++) {
        if (strcmp(sc->flows[i]->name, name) == 0)
            return sc->flows[i];
    }
    return NULL;
}

uint32_t scenario_count(const struct scenario *sc, const char *kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < sc->nnodes; i++)
        n += sc->nodes[i] && strcmp(sc->nodes[i]->ops->kind, kind) == 0;
    return n;
}
