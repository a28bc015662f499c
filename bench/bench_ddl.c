/* DDL workload benchmark (issue: VGG-16, 8 workers, 1 PS, 10 Gbps, 10 iterations): wall time,
 * events/s, packets/s, peak RSS, with fixed routing and with basic.p4 in the switch. The switch
 * has one queue per port, so both stages run the same simulation (the fixed stage queues by
 * packet priority, basic.p4 by what the program sets): the benchmark checks that the simulated
 * time, the packets created and every iteration time are identical, and fails otherwise, so the
 * wall-time ratio is the cost of the P4 stage alone.
 * Usage: bench_ddl [iterations] [workers]. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "sim/app/scenario.h"
#include "sim/util.h"

struct result {
    sim_time_t end_ps;
    uint64_t pkts;
    double iter[5]; /* iteration times: count, sum, sum of squares, min, max */
    double wall_s;
};

static struct result run(int iterations, int workers, const char *program)
{
    char list[1024] = "";
    for (int i = 0; i < workers; i++) {
        char w[16];
        snprintf(w, sizeof(w), "%sh%d", i ? ", " : "", i);
        strncat(list, w, sizeof(list) - strlen(list) - 1);
    }
    char y[2048];
    snprintf(y, sizeof(y),
             "topology: {kind: star, hosts: %d, link: {rate: 10Gbps, delay: 1us},"
             " switch: {pfc: true, priorities: 1, program: %s}}\n"
             "jobs:\n"
             "  - {name: vgg, model: vgg16, workers: [%s], servers: [h%d], iterations: %d,"
             " chunk: 4MB}\n",
             workers + 1, program, list, workers, iterations);
    struct scenario *sc = bench_load("bench_ddl", y);
    double dt = bench_run(sc);
    const struct ddl_job *job = sc->jobs[0];
    struct result r = {.end_ps = sc->sim->now, .pkts = sc->sim->next_pkt_id, .wall_s = dt};
    const struct stats *it = &job->iter_time;
    double iter[5] = {(double)it->n, it->sum, it->sumsq, it->min, it->max};
    memcpy(r.iter, iter, sizeof(iter));
    printf("ddl vgg16 %d workers 1 PS 10Gbps %d iterations, program %s: simulated %.3f s"
           " (iteration %.3f s)"
           "  wall %.2f s  %.2f M events/s  %.2f M packets/s  peak RSS %.1f MiB  %s\n",
           workers, iterations, program, simtime_sec(sc->sim->now), stats_mean(&job->iter_time), dt,
           (double)sc->events / dt / 1e6, (double)sc->sim->next_pkt_id / dt / 1e6,
           bench_peak_rss_mib(), job->workers_done == job->nworkers ? "completed" : "INCOMPLETE");
    scenario_destroy(sc);
    return r;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    int workers = argc > 2 ? atoi(argv[2]) : 8;
    struct result a = run(iterations, workers, "none");
    struct result b = run(iterations, workers, "basic");
    bool same = a.end_ps == b.end_ps && a.pkts == b.pkts &&
                memcmp(a.iter, b.iter, sizeof(a.iter)) == 0;
    printf("ddl: fixed routing and basic.p4 give %s; basic.p4 / fixed wall time %.2f\n",
           same ? "identical outputs" : "DIFFERENT outputs", b.wall_s / a.wall_s);
    return same ? 0 : 1;
}
