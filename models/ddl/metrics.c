/* Records and summaries of a DDL job's tensors, iterations and bursts. */
#include "models/ddl/metrics.h"

#include <math.h>
#include <stdlib.h>

#include "sim/util.h"

const char ddl_tensors_header[] =
    "job,worker,iteration,layer,direction,bytes,ready_s,done_s,latency_s,blocking_s,"
    "blocking_sum_s\n";
const char ddl_iterations_header[] = "job,worker,iteration,start_s,end_s,time_s\n";
const char ddl_bursts_header[] = "job,worker,iteration,bytes,first_tx_s,last_rx_s,bct_s,"
                                 "throughput_bps,start_queue_bytes\n";

/* Blocking per tensor: the critical path's (its last packet's), and the sum over its packets,
 * which can exceed wall time many times over and so is reported apart. */
void ddl_record_tensor(struct ddl_job *job, uint32_t worker, uint32_t iter, uint32_t layer,
                       bool pull, sim_time_t ready, const struct ddl_blk *blk)
{
    sim_time_t now = job->sim->now;
    stats_add(pull ? &job->pull_lat[layer] : &job->push_lat[layer], simtime_sec(now - ready));
    stats_add(pull ? &job->pull_blk[layer] : &job->push_blk[layer], simtime_sec(blk->last));
    stats_add(pull ? &job->pull_blk_sum[layer] : &job->push_blk_sum[layer],
              simtime_sec(blk->sum));
    if (job->out.tensors)
        fprintf(job->out.tensors, "%s,%u,%u,%u,%s,%llu,%.9f,%.9f,%.9f,%.9f,%.9f\n", job->name,
                worker, iter, layer, pull ? "pull" : "push",
                (unsigned long long)job->model->layers[layer].bytes, simtime_sec(ready),
                simtime_sec(now), simtime_sec(now - ready), simtime_sec(blk->last),
                simtime_sec(blk->sum));
}

/* Iteration t of a worker runs from the start of its forward pass (layer 0 computing) to the
 * start of iteration t+1's forward pass; the last one ends when its parameters have all arrived. */
void ddl_record_iteration(struct ddl_worker *w, uint32_t iter, sim_time_t end)
{
    struct ddl_job *job = w->job;
    stats_add(&job->iter_time, simtime_sec(end - w->iter_start));
    if (job->out.iterations)
        fprintf(job->out.iterations, "%s,%u,%u,%.9f,%.9f,%.9f\n", job->name, w->idx, iter,
                simtime_sec(w->iter_start), simtime_sec(end), simtime_sec(end - w->iter_start));
}

void ddl_record_burst(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    sim_time_t now = job->sim->now;
    if (!w->burst_seen_first)
        return; /* the first packet was lost: no start queue or first byte to report */
    double bct = simtime_sec(now - w->burst_first_tx);
    double tput = bct > 0 ? (double)w->burst_bytes * 8.0 / bct : NAN;
    stats_add(&job->bct, bct);
    if (isfinite(tput))
        stats_add(&job->burst_tput, tput);
    stats_add(&job->start_queue, (double)w->burst_start_queue);
    if (job->out.bursts)
        fprintf(job->out.bursts, "%s,%u,%u,%llu,%.9f,%.9f,%.9f,%.6g,%u\n", job->name, w->idx,
                w->burst_iter, (unsigned long long)w->burst_bytes,
                simtime_sec(w->burst_first_tx), simtime_sec(now), bct, tput,
                w->burst_start_queue);
}


/* The job's per-layer statistics: six arrays of L, from the job's arena. */
static struct stats **per_layer(struct ddl_job *job, int k)
{
    struct stats **v[] = {&job->push_lat, &job->pull_lat,     &job->push_blk,
                          &job->pull_blk, &job->push_blk_sum, &job->pull_blk_sum};
    return v[k];
}

/* Calls fn on every statistic of the job. */
static void each_stats(struct ddl_job *job, void (*fn)(struct stats *s))
{
    struct stats *whole[] = {&job->iter_time, &job->bct, &job->burst_tput, &job->start_queue};
    for (size_t i = 0; i < ARRAY_LEN(whole); i++)
        fn(whole[i]);
    for (int k = 0; k < 6; k++) {
        for (uint32_t l = 0; *per_layer(job, k) && l < job->L; l++)
            fn(&(*per_layer(job, k))[l]);
    }
}

static void init4(struct stats *s)
{
    stats_init(s, 4);
}

void ddl_metrics_init(struct ddl_job *job)
{
    for (int k = 0; k < 6; k++)
        *per_layer(job, k) = arena_calloc(&job->arena, job->L, sizeof(struct stats));
    each_stats(job, init4);
}

void ddl_metrics_fini(struct ddl_job *job)
{
    each_stats(job, stats_fini);
}

/* --- results --- */

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *layer_stats(const struct stats *s, uint32_t L)
{
    json_t *a = json_array();
    for (uint32_t l = 0; l < L; l++)
        json_array_append_new(a, jnum(stats_mean(&s[l])));
    return a;
}

static double mean_over_layers(const struct stats *s, uint32_t L)
{
    double sum = 0;
    uint64_t n = 0;
    for (uint32_t l = 0; l < L; l++) {
        sum += s[l].sum;
        n += s[l].n;
    }
    return n ? sum / (double)n : NAN;
}

void ddl_job_json(const struct ddl_job *job, json_t *o)
{
    double it = stats_mean(&job->iter_time);
    json_object_set_new(o, "name", json_string(job->name));
    json_object_set_new(o, "arch", json_string(ddl_arch_name(job)));
    json_object_set_new(o, "model", json_string(job->model->name));
    json_object_set_new(o, "workers", json_integer(job->nworkers));
    json_object_set_new(o, "servers", json_integer(job->nservers));
    json_object_set_new(o, "transport", json_string(job->tp->type));
    json_object_set_new(o, "scheduler", json_string(job->cfg.sched == DDL_SCHED_PRIORITY ? "priority" : "fifo"));
    json_object_set_new(o, "iterations", json_integer(job->cfg.iterations));
    json_object_set_new(o, "completed", json_boolean(job->workers_done == job->nworkers));
    json_object_set_new(o, "end_s", jnum(job->end_ps >= 0 ? simtime_sec(job->end_ps) : NAN));
    json_object_set_new(o, "iteration_time_mean_s", jnum(it));
    json_object_set_new(o, "iteration_time_max_s",
                        jnum(job->iter_time.n ? job->iter_time.max : NAN));
    json_object_set_new(o, "throughput_samples_per_s",
                        jnum((double)job->nworkers * (double)job->cfg.batch / it));
    json_object_set_new(o, "bytes_sent", json_integer((json_int_t)job->bytes_sent));
    if (job->gpus > 1 || job->cfg.collective != DDL_COLL_RING) {
        static const char *const names[] = {"ring", "tree", "hierarchical"};
        json_object_set_new(o, "collective", json_string(names[job->cfg.collective]));
        json_object_set_new(o, "gpus_per_host", json_integer(job->gpus));
        json_object_set_new(o, "intra_bytes", json_integer((json_int_t)job->intra_bytes));
    }
    json_object_set_new(o, "push_latency_mean_s", jnum(mean_over_layers(job->push_lat, job->L)));
    json_object_set_new(o, "pull_latency_mean_s", jnum(mean_over_layers(job->pull_lat, job->L)));
    json_object_set_new(o, "push_blocking_mean_s",
                        jnum(mean_over_layers(job->push_blk, job->L)));
    json_object_set_new(o, "pull_blocking_mean_s",
                        jnum(mean_over_layers(job->pull_blk, job->L)));
    json_object_set_new(o, "push_blocking_sum_mean_s",
                        jnum(mean_over_layers(job->push_blk_sum, job->L)));
    json_object_set_new(o, "pull_blocking_sum_mean_s",
                        jnum(mean_over_layers(job->pull_blk_sum, job->L)));
    json_object_set_new(o, "push_latency_by_layer_s", layer_stats(job->push_lat, job->L));
    json_object_set_new(o, "pull_latency_by_layer_s", layer_stats(job->pull_lat, job->L));
    json_object_set_new(o, "push_blocking_by_layer_s", layer_stats(job->push_blk, job->L));
    json_object_set_new(o, "pull_blocking_by_layer_s", layer_stats(job->pull_blk, job->L));
    if (job->arch->json)
        job->arch->json(job, o);
    json_t *b = json_object();
    json_object_set_new(b, "count", json_integer((json_int_t)job->bct.n));
    json_object_set_new(b, "completion_time_mean_s", jnum(stats_mean(&job->bct)));
    json_object_set_new(b, "throughput_mean_bps", jnum(stats_mean(&job->burst_tput)));
    json_object_set_new(b, "start_queue_mean_bytes", jnum(stats_mean(&job->start_queue)));
    if (job->cfg.pcn.signal) {
        json_object_set_new(b, "pcn_starts", json_integer((json_int_t)ddl_pcn_signals(job, false)));
        json_object_set_new(b, "pcn_resets", json_integer((json_int_t)ddl_pcn_signals(job, true)));
    }
    json_object_set_new(o, "bursts", b);
}

void ddl_job_print(const struct ddl_job *job, FILE *out)
{
    char t[32];
    double it = stats_mean(&job->iter_time);
    fprintf(out, "\njob %s: %s %s, %u workers%s, %lld iterations, %s, %s scheduler%s\n",
            job->name, job->model->name, ddl_arch_name(job), job->nworkers,
            job->nservers ? "" : "", (long long)job->cfg.iterations, job->tp->type,
            job->cfg.sched == DDL_SCHED_PRIORITY ? "priority" : "fifo",
            job->workers_done == job->nworkers ? "" : "  (NOT COMPLETED)");
    if (job->nservers)
        fprintf(out, "  servers %u\n", job->nservers);
    fprintf(out, "  iteration time %s, %.1f samples/s\n",
            sim_time_fmt((sim_time_t)llround(it * 1e12), t, sizeof(t)),
            (double)job->nworkers * (double)job->cfg.batch / it);
    fprintf(out, "  tensor latency push %.3f ms, pull %.3f ms; blocking push %.3f ms, pull %.3f ms\n",
            1e3 * mean_over_layers(job->push_lat, job->L),
            1e3 * mean_over_layers(job->pull_lat, job->L),
            1e3 * mean_over_layers(job->push_blk, job->L),
            1e3 * mean_over_layers(job->pull_blk, job->L));
    if (job->bct.n)
        fprintf(out, "  bursts: %llu, completion %.3f ms, throughput %.3f Gbps, start queue %.0f B\n",
                (unsigned long long)job->bct.n, 1e3 * stats_mean(&job->bct),
                stats_mean(&job->burst_tput) / 1e9, stats_mean(&job->start_queue));
}
