#include "sim/app/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/app/provenance.h"
#include "sim/app/registry.h"
#include "sim/util.h"

#define CI_LEVEL 0.99

static void sample_fire(struct sim *sim, struct evq_timer *t)
{
    struct report *r = container_of(t, struct report, sample);
    struct scenario *sc = r->sc;
    FILE *f = r->queues.f;
    for (uint32_t i = 0; i < sc->nprobes; i++) {
        const struct queue_probe *q = &sc->probes[i];
        uint64_t bytes;
        uint32_t pkts;
        q->node->ops->queue_len(q->node, q->port, &bytes, &pkts);
        fprintf(f, "%.9f,%s,%u,%llu,%u\n", simtime_sec(sim->now), q->node->name, q->port,
                (unsigned long long)bytes, pkts);
    }
    /* Sample while anything else is still scheduled, so sampling alone never keeps a
     * simulation alive. */
    if (evq_len(&sim->evq) > 0)
        evq_schedule(&sim->evq, t, sim->now + sc->out.queue_interval_ps);
}

static int attach_tap(struct report *r, const char *spec, int *exit_code)
{
    struct scenario *sc = r->sc;
    char *s = xstrdup(spec);
    char *colon = strrchr(s, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (colon)
        *colon = '\0';
    struct node *n = scenario_node(sc, s);
    if (!colon || !colon[1] || *end || !n || port < 0 || port >= (long)n->nports) {
        fprintf(stderr, "ddlsim: error: --pcap '%s': expected NODE:PORT with a declared node and "
                        "an existing port\n", spec);
        free(s);
        *exit_code = 2;
        return -1;
    }
    n->ports[port]->tx.tap = &r->pcap;
    free(s);
    return 0;
}

struct report *report_open(struct scenario *sc, const char *dir, const char *extra_pcap,
                           int *exit_code)
{
    char err[512];
    struct report *r = xcalloc(1, sizeof(*r));
    r->sc = sc;
    *exit_code = 1;
    if (rundir_open(&r->rd, dir, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        r->dir = xstrdup(dir);
        goto out_fail;
    }
    r->dir = xstrdup(r->rd.tmp);
    dir = r->dir;
    spool_set_dir(&sc->sim->spool, dir); /* cwnd/rate samples go to a file in the folder */
    if (sc->npcap_ports || (extra_pcap && *extra_pcap)) {
        for (uint32_t i = 0; i < sc->npcap_ports; i++) {
            if (attach_tap(r, sc->pcap_ports[i], exit_code) < 0)
                goto out_fail;
        }
        char *list = xstrdup(extra_pcap ? extra_pcap : "");
        char *save = NULL;
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (attach_tap(r, tok, exit_code) < 0) {
                free(list);
                goto out_fail;
            }
        }
        free(list);
        if (pcap_open(&r->pcap, dir, "trace.pcap", err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            goto out_fail;
        }
        r->tracing = true;
    }
    bool rpc = false;
    for (uint32_t i = 0; i < sc->nflows; i++)
        rpc = rpc || sc->flows[i]->ops->messages;
    if (rpc) {
        if (out_open(&r->messages, dir, "messages.csv", err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            goto out_fail;
        }
        r->msgs = true;
        fprintf(r->messages.f, "flow,message,bytes,submit_s,delivered_s,latency_s\n");
        for (uint32_t i = 0; i < sc->nflows; i++)
            sc->flows[i]->messages = r->messages.f;
    }
    if (sc->njobs) {
        if (out_open(&r->tensors, dir, "tensors.csv", err, sizeof(err)) < 0 ||
            out_open(&r->iterations, dir, "iterations.csv", err, sizeof(err)) < 0 ||
            out_open(&r->bursts, dir, "bursts.csv", err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            r->ddl = true;
            goto out_fail;
        }
        r->ddl = true;
        fputs(ddl_tensors_header, r->tensors.f);
        fputs(ddl_iterations_header, r->iterations.f);
        fputs(ddl_bursts_header, r->bursts.f);
        for (uint32_t i = 0; i < sc->njobs; i++)
            sc->jobs[i]->out = (struct ddl_out){r->tensors.f, r->iterations.f, r->bursts.f};
    }
    if (sc->out.queue_interval_ps && sc->nprobes) {
        if (out_open(&r->queues, dir, "queues.csv", err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            goto out_fail;
        }
        fprintf(r->queues.f, "time_s,switch,port,bytes,packets\n");
        r->sampling = true;
        evq_timer_init(&r->sample, sample_fire, EVQ_PHASE_DEFAULT);
        evq_schedule(&sc->sim->evq, &r->sample, sc->sim->now);
    }
    *exit_code = 0;
    return r;
out_fail:
    report_free(r);
    return NULL;
}

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *stats_json(const struct stats *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "samples", json_integer((json_int_t)s->n));
    json_object_set_new(o, "mean", jnum(stats_mean(s)));
    json_object_set_new(o, "ci99_halfwidth", jnum(stats_ci_halfwidth(s, CI_LEVEL)));
    json_object_set_new(o, "min", jnum(s->n ? s->min : NAN));
    json_object_set_new(o, "max", jnum(s->n ? s->max : NAN));
    return o;
}

static json_t *flow_json(const struct flow *f)
{
    const struct flow_stats *st = &f->st;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(f->name));
    json_object_set_new(o, "type", json_string(f->ops->type));
    json_object_set_new(o, "src", json_string(f->src->node.name));
    json_object_set_new(o, "dst", json_string(f->dst->node.name));
    json_object_set_new(o, "tx_packets", json_integer((json_int_t)st->tx_pkts));
    json_object_set_new(o, "tx_bytes", json_integer((json_int_t)st->tx_bytes));
    json_object_set_new(o, "rx_packets", json_integer((json_int_t)st->rx_pkts));
    json_object_set_new(o, "rx_bytes", json_integer((json_int_t)st->rx_bytes));
    /* datagrams not received; a reliable transport's tx - rx counts its retransmissions */
    json_object_set_new(o, "lost_packets",
                        f->ops->reliable ? json_null()
                                         : json_integer((json_int_t)(st->tx_pkts - st->rx_pkts)));
    json_object_set_new(o, "retransmitted_packets", json_integer((json_int_t)st->retx_pkts));
    json_object_set_new(o, "timeouts", json_integer((json_int_t)st->timeouts));
    json_object_set_new(o, "ce_marked", json_integer((json_int_t)st->rx_ce));
    json_object_set_new(o, "first_tx_s", jnum(st->tx_pkts ? simtime_sec(st->first_tx_ps) : NAN));
    json_object_set_new(o, "last_rx_s", jnum(st->rx_pkts ? simtime_sec(st->last_rx_ps) : NAN));
    json_object_set_new(o, "last_rx_ps", json_integer(st->rx_pkts ? st->last_rx_ps : -1));
    json_object_set_new(o, "complete_s",
                        jnum(st->complete_ps >= 0 ? simtime_sec(st->complete_ps) : NAN));
    json_object_set_new(o, "fct_s", jnum(flow_fct_s(f)));
    json_object_set_new(o, "goodput_bps", jnum(flow_goodput_bps(f)));
    json_object_set_new(o, "delay_s", stats_json(&st->delay));
    json_object_set_new(o, "queue_delay_s", stats_json(&st->qdelay));
    if (f->ops->stats_json)
        f->ops->stats_json(f, o);
    return o;
}

static json_t *jobs_json(const struct scenario *sc)
{
    json_t *jobs = json_array();
    for (uint32_t i = 0; i < sc->njobs; i++) {
        json_t *o = json_object();
        ddl_job_json(sc->jobs[i], o);
        json_array_append_new(jobs, o);
    }
    return jobs;
}

/* The array `section` of summary.json: every node of that registry kind asked for its object.
 * Returns the packets those nodes lost. */
static uint64_t nodes_json(const struct scenario *sc, const char *section, json_t *root)
{
    const struct node_ops *ops = NULL;
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        if (strcmp(registry_node_kinds[k].section, section) == 0)
            ops = registry_node_kinds[k].ops;
    }
    SIM_ASSERT(ops);
    uint64_t drops = 0;
    json_t *arr = json_array();
    for (uint32_t i = 0; i < sc->nnodes; i++) {
        const struct node *n = sc->nodes[i];
        if (n->ops != ops)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(n->name));
        if (ops->stats_json)
            ops->stats_json(n, o, sc->sim->now);
        drops += ops->drops ? ops->drops(n) : 0;
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, section, arr);
    return drops;
}

static json_t *summary_json(const struct scenario *sc)
{
    json_t *root = json_object();
    sim_time_t end = sc->sim->now;
    json_object_set_new(root, "provenance", prov_json(sc));
    json_object_set_new(root, "scenario", json_string(sc->cfg.name ? sc->cfg.name : ""));
    json_object_set_new(root, "seed", json_integer(sc->cfg.seed));
    json_object_set_new(root, "end_time_s", json_real(simtime_sec(end)));
    json_object_set_new(root, "end_time_ps", json_integer(end));
    json_object_set_new(root, "events", json_integer((json_int_t)sc->events));
    json_object_set_new(root, "packets_created", json_integer((json_int_t)sc->sim->next_pkt_id));
    json_t *flows = json_array();
    for (uint32_t i = 0; i < sc->nflows; i++)
        json_array_append_new(flows, flow_json(sc->flows[i]));
    json_object_set_new(root, "flows", flows);
    uint64_t total_drops = 0;
    /* summary.json's element arrays, in this order; node kinds a scenario has beyond these
     * follow */
    static const char *const order[] = {"switches", "jobs", "hosts"};
    for (size_t k = 0; k < ARRAY_LEN(order); k++) {
        if (strcmp(order[k], "jobs") == 0)
            json_object_set_new(root, "jobs", jobs_json(sc));
        else
            total_drops += nodes_json(sc, order[k], root);
    }
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        if (!json_object_get(root, registry_node_kinds[k].section))
            total_drops += nodes_json(sc, registry_node_kinds[k].section, root);
    }
    json_object_set_new(root, "total_drops", json_integer((json_int_t)total_drops));
    return root;
}

static int write_json(struct report *r, char *err, size_t errn)
{
    struct out_file o;
    if (out_open(&o, r->dir, "summary.json", err, errn) < 0)
        return -1;
    json_t *root = summary_json(r->sc);
    int rc = spool_json_dumpf(&r->sc->sim->spool, root, o.f,
                              JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    fputc('\n', o.f);
    if (rc != 0) {
        snprintf(err, errn, "cannot write summary.json");
        out_abort(&o);
        return -1;
    }
    return out_commit(&o, err, errn);
}

static void csv_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, ",%.12g", x);
    else
        fputs(",", f);
}

static int write_flows_csv(struct report *r, char *err, size_t errn)
{
    struct out_file o;
    if (out_open(&o, r->dir, "flows.csv", err, errn) < 0)
        return -1;
    FILE *f = o.f;
    fprintf(f, "flow,type,src,dst,tx_packets,tx_bytes,rx_packets,rx_bytes,lost_packets,"
               "retransmitted_packets,timeouts,ce_marked,first_tx_s,last_rx_s,fct_s,goodput_bps,"
               "delay_mean_s,delay_ci99_s,queue_delay_mean_s,queue_delay_ci99_s\n");
    const struct scenario *sc = r->sc;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        const struct flow *fl = sc->flows[i];
        const struct flow_stats *st = &fl->st;
        char lost[24] = "";
        if (!fl->ops->reliable)
            snprintf(lost, sizeof(lost), "%llu", (unsigned long long)(st->tx_pkts - st->rx_pkts));
        fprintf(f, "%s,%s,%s,%s,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu", fl->name,
                fl->ops->type, fl->src->node.name, fl->dst->node.name,
                (unsigned long long)st->tx_pkts, (unsigned long long)st->tx_bytes,
                (unsigned long long)st->rx_pkts, (unsigned long long)st->rx_bytes, lost,
                (unsigned long long)st->retx_pkts, (unsigned long long)st->timeouts,
                (unsigned long long)st->rx_ce);
        csv_num(f, st->tx_pkts ? simtime_sec(st->first_tx_ps) : NAN);
        csv_num(f, st->rx_pkts ? simtime_sec(st->last_rx_ps) : NAN);
        csv_num(f, flow_fct_s(fl));
        csv_num(f, flow_goodput_bps(fl));
        csv_num(f, stats_mean(&st->delay));
        csv_num(f, stats_ci_halfwidth(&st->delay, CI_LEVEL));
        csv_num(f, stats_mean(&st->qdelay));
        csv_num(f, stats_ci_halfwidth(&st->qdelay, CI_LEVEL));
        fputc('\n', f);
    }
    return out_commit(&o, err, errn);
}

static void detach_jobs(struct report *r)
{
    for (uint32_t i = 0; i < r->sc->njobs; i++)
        r->sc->jobs[i]->out = (struct ddl_out){NULL, NULL, NULL};
    for (uint32_t i = 0; i < r->sc->nflows; i++)
        r->sc->flows[i]->messages = NULL;
}

int report_finish(struct report *r)
{
    char err[512];
    int rc = 0;
    if (r->msgs) {
        detach_jobs(r);
        r->msgs = false;
        if (out_commit(&r->messages, err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            rc = -1;
        }
    }
    if (r->ddl) {
        detach_jobs(r);
        r->ddl = false;
        struct out_file *files[3] = {&r->tensors, &r->iterations, &r->bursts};
        for (int i = 0; i < 3; i++) {
            if (rc == 0 && out_commit(files[i], err, sizeof(err)) < 0) {
                fprintf(stderr, "ddlsim: error: %s\n", err);
                rc = -1;
            } else if (rc != 0) {
                out_abort(files[i]);
            }
        }
    }
    if (r->sampling) {
        evq_cancel(&r->sc->sim->evq, &r->sample);
        r->sampling = false;
        if (out_commit(&r->queues, err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            rc = -1;
        }
    }
    if (r->tracing) {
        r->tracing = false;
        if (pcap_close(&r->pcap, err, sizeof(err)) < 0) {
            fprintf(stderr, "ddlsim: error: %s\n", err);
            rc = -1;
        }
    }
    if (rc == 0 && write_flows_csv(r, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && write_json(r, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && rundir_commit(&r->rd, err, sizeof(err)) < 0) {
        fprintf(stderr, "ddlsim: error: %s\n", err);
        rc = -1;
    }
    return rc;
}

/* A stream that failed to write (disk full, file size limit) stops the run at once. */
int report_check(struct report *r)
{
    struct {
        bool open;
        FILE *f;
        const char *name;
    } s[] = {
        {r->sampling, r->queues.f, "queues.csv"},   {r->tracing, r->pcap.file.f, "trace.pcap"},
        {r->msgs, r->messages.f, "messages.csv"},  {r->ddl, r->tensors.f, "tensors.csv"},
        {r->ddl, r->iterations.f, "iterations.csv"}, {r->ddl, r->bursts.f, "bursts.csv"},
    };
    const char *dir = r->rd.final ? r->rd.final : r->dir;
    for (size_t i = 0; i < ARRAY_LEN(s); i++) {
        if (s[i].open && s[i].f && ferror(s[i].f)) {
            fprintf(stderr, "ddlsim: error: cannot write %s in '%s': %s\n", s[i].name, dir,
                    strerror(errno ? errno : EIO));
            return -1;
        }
    }
    if (r->sc->sim->spool.err) {
        fprintf(stderr, "ddlsim: error: cannot write the flows' cwnd/rate samples in '%s': %s\n",
                dir, strerror(r->sc->sim->spool.err));
        return -1;
    }
    return 0;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    if (r->sampling) {
        evq_cancel(&r->sc->sim->evq, &r->sample);
        out_abort(&r->queues);
    }
    if (r->tracing)
        pcap_abort(&r->pcap);
    if (r->msgs) {
        detach_jobs(r);
        out_abort(&r->messages);
    }
    if (r->ddl) {
        detach_jobs(r);
        out_abort(&r->tensors);
        out_abort(&r->iterations);
        out_abort(&r->bursts);
    }
    for (uint32_t i = 0; i < r->sc->nnodes; i++) {
        struct node *n = r->sc->nodes[i];
        for (uint32_t p = 0; p < n->nports; p++)
            n->ports[p]->tx.tap = NULL;
    }
    spool_set_dir(&r->sc->sim->spool, NULL);
    rundir_abort(&r->rd);
    free(r->dir);
    free(r);
}

static void fmt_time(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "-");
    else
        sim_time_fmt((sim_time_t)llround(s * 1e12), buf, n);
}

void report_print(const struct scenario *sc, FILE *out, double wall_s)
{
    char t1[32];
    char t2[32];
    sim_time_fmt(sc->sim->now, t1, sizeof(t1));
    fprintf(out,
            "scenario %s: seed %lld, simulated %s, %llu events in %.3f s (%.2f M events/s, "
            "%.1f%% folded)\n",
            sc->cfg.name ? sc->cfg.name : "(unnamed)", (long long)sc->cfg.seed, t1,
            (unsigned long long)sc->events, wall_s,
            wall_s > 0 ? (double)sc->events / wall_s / 1e6 : 0.0,
            sc->events ? 100.0 * (double)sc->folded / (double)sc->events : 0.0);
    if (sc->nflows) {
        fprintf(out, "\n%-12s %-14s %-5s %12s %12s %7s %7s %12s %12s %12s\n", "flow", "path",
                "type", "sent B", "recv B", "lost", "retx", "done at", "FCT", "goodput");
        for (uint32_t i = 0; i < sc->nflows; i++) {
            const struct flow *f = sc->flows[i];
            const struct flow_stats *st = &f->st;
            char path[64];
            char gp[32];
            snprintf(path, sizeof(path), "%s>%s", f->src->node.name, f->dst->node.name);
            fmt_time(st->complete_ps >= 0 ? simtime_sec(st->complete_ps) : NAN, t1, sizeof(t1));
            fmt_time(flow_fct_s(f), t2, sizeof(t2));
            double g = flow_goodput_bps(f);
            if (isfinite(g))
                snprintf(gp, sizeof(gp), "%.3f Gbps", g / 1e9);
            else
                snprintf(gp, sizeof(gp), "-");
            char lost[24];
            if (f->ops->reliable)
                snprintf(lost, sizeof(lost), "-");
            else
                snprintf(lost, sizeof(lost), "%llu", (unsigned long long)(st->tx_pkts - st->rx_pkts));
            fprintf(out, "%-12s %-14s %-5s %12llu %12llu %7s %7llu %12s %12s %12s\n", f->name,
                    path, f->ops->type, (unsigned long long)st->tx_bytes,
                    (unsigned long long)st->rx_bytes, lost, (unsigned long long)st->retx_pkts, t1,
                    t2, gp);
        }
    }
    for (uint32_t i = 0; i < sc->njobs; i++)
        ddl_job_print(sc->jobs[i], out);
    for (size_t k = 0; k < registry_nnode_kinds; k++) {
        bool header = false;
        const struct node_ops *ops = registry_node_kinds[k].ops;
        for (uint32_t i = 0; ops->print && i < sc->nnodes; i++) {
            if (sc->nodes[i]->ops == ops)
                ops->print(sc->nodes[i], out, sc->sim->now, &header);
        }
    }
}
