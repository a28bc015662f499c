/* Scenario tests: load a scenario from YAML text or fail the test with the error count (the
 * errors themselves go to stderr, located); set-ups and checks several tests share.
 * Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTSCENARIO_H
#define SIM_TESTS_TESTSCENARIO_H

#include "tests/testutil.h"

#include <stdbool.h>
#include <stdio.h>

#include "models/ddl/job.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

static inline struct scenario *load(const char *yaml)
{
    struct diag d;
    diag_init(&d, stderr);
    struct scenario *sc = scenario_load_string("test.yaml", yaml, NULL, &d);
    if (!sc)
        fail_msg("scenario did not load (%d errors)", diag_count(&d));
    return sc;
}

/* Loads a scenario and runs it to its end. */
static inline struct scenario *load_run(const char *yaml)
{
    struct scenario *sc = load(yaml);
    scenario_run(sc);
    return sc;
}

/* Loads and runs a scenario whose first job must end with all its `workers` done. */
static inline struct scenario *run_job(const char *yaml, uint32_t workers)
{
    struct scenario *sc = load_run(yaml);
    assert_int_equal(sc->jobs[0]->workers_done, workers);
    return sc;
}

/* The incast of the foundation issue: n senders h0.. to h<n> on a star, 10G/1us links, `bytes`
 * each (flows f0..), the switch's parameters given; the caller frees the text. */
static inline char *incast_yaml_framed(int n, const char *bytes, const char *sw_params, bool ecn,
                                       const char *framing)
{
    size_t cap = 4096 + (size_t)n * 128;
    char *y = xmalloc(cap);
    int len = snprintf(y, cap,
                       "topology: {kind: star, hosts: %d, link: {rate: 10Gbps, delay: 1us}}\n"
                       "defaults: {switch: {%s}, flow: {ecn: %s}, link: {framing: %s}}\n"
                       "flows:\n",
                       n + 1, sw_params, ecn ? "true" : "false", framing);
    for (int i = 0; i < n; i++)
        len += snprintf(y + len, cap - (size_t)len,
                        "  - {name: f%d, src: h%d, dst: h%d, bytes: %s}\n", i, i, n, bytes);
    return y;
}

static inline char *incast_yaml(int n, const char *bytes, const char *sw_params, bool ecn)
{
    return incast_yaml_framed(n, bytes, sw_params, ecn, "ethernet");
}

/* Every flow of the scenario received exactly `bytes`. */
static inline void assert_flows_received(const struct scenario *sc, uint64_t bytes)
{
    for (uint32_t i = 0; i < sc->nflows; i++)
        assert_int_equal(sc->flows[i]->st.rx_bytes, bytes);
}

/* A k = 4 fat tree (16 hosts) in which host i sends `bytes` to host (i + shift) % 16. */
static inline struct scenario *load_fat_tree_flows(int shift, const char *bytes)
{
    char y[4096];
    int len = snprintf(y, sizeof(y), "topology: {kind: fat_tree, k: 4}\nflows:\n");
    for (int i = 0; i < 16; i++)
        len += snprintf(y + len, sizeof(y) - (size_t)len, "  - {src: h%d, dst: h%d, bytes: %s}\n",
                        i, (i + shift) % 16, bytes);
    return load(y);
}

/* How many of a k = 4 fat tree's core switches (core0..core3) received packets. */
static inline int fat_tree_cores_used(struct scenario *sc)
{
    int used = 0;
    for (int c = 0; c < 4; c++) {
        char name[16];
        snprintf(name, sizeof(name), "core%d", c);
        used += switch_of(scenario_node(sc, name))->rx_pkts > 0;
    }
    return used;
}

#endif
