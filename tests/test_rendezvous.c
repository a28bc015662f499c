/* The rendezvous of RPC over RDMA (a 64-byte request and reply per message, before the payload)
 * under every message preset, several compute scales and iteration counts. Regression: requests
 * pushed while the sender's NIC had not yet taken the previous one (a PFC pause, a busy link, or
 * two messages leaving the CPU in the same instant) were packed into one 128-byte datagram and
 * the receiver aborted in iteration 2 (configs/ddl-rdma.yaml with preset=rpc-rdma,
 * compute_scale=0.05). Each run must finish every iteration of every worker. */
#include "tests/testscenario.h"

#include <stdio.h>

#include "models/ddl/job.h"
#include "models/transport/msg.h"
#include "sim/app/scenario.h"

/* A small VGG-like model: many small tensors around two large ones, three workers pushing to one
 * server, so that PFC pauses the workers' NICs while several rendezvous requests wait behind
 * them (with the bug every point of this grid aborted). */
static const char grid_yaml[] =
    "topology:\n"
    "  kind: star\n"
    "  hosts: 4\n"
    "  link: {rate: 40Gbps, delay: 1us}\n"
    "  switch: {pfc: true, buffer: 8MB}\n"
    "jobs:\n"
    "  - name: j\n"
    "    model:\n"
    "      name: small\n"
    "      layers:\n"
    "        - {name: s0, bytes: 16KB, forward: 200us, backward: 400us}\n"
    "        - {name: s1, bytes: 24KB, forward: 200us, backward: 400us}\n"
    "        - {name: s2, bytes: 32KB, forward: 200us, backward: 400us}\n"
    "        - {name: s3, bytes: 40KB, forward: 200us, backward: 400us}\n"
    "        - {name: s4, bytes: 48KB, forward: 200us, backward: 400us}\n"
    "        - {name: s5, bytes: 56KB, forward: 200us, backward: 400us}\n"
    "        - {name: big, bytes: 2MB, forward: 100us, backward: 200us}\n"
    "        - {name: s6, bytes: 64KB, forward: 200us, backward: 400us}\n"
    "        - {name: s7, bytes: 72KB, forward: 200us, backward: 400us}\n"
    "        - {name: s8, bytes: 80KB, forward: 200us, backward: 400us}\n"
    "        - {name: s9, bytes: 88KB, forward: 200us, backward: 400us}\n"
    "        - {name: s10, bytes: 96KB, forward: 200us, backward: 400us}\n"
    "        - {name: s11, bytes: 104KB, forward: 200us, backward: 400us}\n"
    "        - {name: fc, bytes: 4MB, forward: 50us, backward: 100us}\n"
    "    workers: [h0, h1, h2]\n"
    "    servers: [h3]\n"
    "    iterations: %d\n"
    "    chunk: 1MB\n"
    "    preset: %s\n"
    "    compute_scale: %s\n";

static void run_point(const char *preset, const char *scale, int iters)
{
    char y[sizeof(grid_yaml) + 64];
    snprintf(y, sizeof(y), grid_yaml, iters, preset, scale);
    struct scenario *sc = load_run(y);
    const struct ddl_job *job = sc->jobs[0];
    if (job->workers_done != 3 || job->iter_time.n != (uint64_t)(3 * iters))
        fail_msg("%s x %s x %d: %d workers done, %llu iterations", preset, scale, iters,
                 (int)job->workers_done, (unsigned long long)job->iter_time.n);
    scenario_destroy(sc);
}

static void test_rendezvous_grid(void **state)
{
    static const char *const presets[] = {"grpc-tcp", "rpc-rdma", "rdma-zero-copy"};
    static const char *const scales[] = {"0.01", "0.05", "1"};
    for (size_t p = 0; p < 3; p++) {
        for (size_t s = 0; s < 3; s++) {
            for (int it = 1; it <= 3; it++)
                run_point(presets[p], scales[s], it);
        }
    }
}

/* Five messages submitted in the same instant with no sender cost: their five requests are
 * pushed together. Each must travel as its own 64-byte datagram and get its own reply, so all
 * five messages are delivered (the flow completes when the fifth arrives). */
static void test_rendezvous_simultaneous(void **state)
{
    struct scenario *sc = load_run("hosts: [{name: a}, {name: b}]\n"
                                   "links: [{a: a, b: b, rate: 10Gbps, delay: 1us}]\n"
                                   "flows: [{name: r, type: rpc, src: a, dst: b, transport: udp,"
                                   " size: 10KB, count: 5, window: 5, control_rtt: true}]\n");
    const struct flow *f = scenario_flow(sc, "r");
    assert_true(f->st.complete_ps > 0);
    scenario_destroy(sc);
}

TEST_MAIN(cmocka_unit_test(test_rendezvous_simultaneous), cmocka_unit_test(test_rendezvous_grid))
