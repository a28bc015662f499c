/* PCN signalling by a DDL job's workers: START a lead time before each burst, RESET after it
 * (pcn_signal.h). */
#include "models/ddl/pcn_signal.h"

#include <stdlib.h>

#include "models/ddl/job.h"
#include "models/net/pkt.h"
#include "sim/util.h"

struct pcn_worker {
    struct evq_timer start;
    struct ddl_worker *w;
    uint32_t announced; /* iterations whose START has left */
};

struct pcn_sink {
    struct endpoint ep;
    struct host *host;
    bool bound;
};

struct ddl_pcn {
    struct pcn_worker *pw;  /* [nworkers] */
    sim_time_t *until;      /* [L]: from forward layer l starting to the burst's first gradient */
    struct pcn_sink *sinks; /* [nservers] */
    uint64_t starts;
    uint64_t resets;
};

static void send_signal(struct ddl_job *job, struct ddl_worker *w, bool reset)
{
    struct sim *sim = job->sim;
    const struct ddl_pcn_cfg *c = &job->cfg.pcn;
    for (uint32_t s = 0; s < job->nservers; s++) {
        struct pkt *p = pkt_alloc(sim);
        p->flow = UINT32_MAX;
        p->t_created = sim->now;
        struct pkt_udp_spec u = {
            .src_ip = w->host->ip,
            .dst_ip = job->servers[s].host->ip,
            .src_port = DDL_PCN_PORT,
            .dst_port = DDL_PCN_PORT,
            .dscp = (uint8_t)(reset ? c->reset_dscp : c->start_dscp),
            .ecn = PKT_ECN_NOT_ECT,
            .payload_bytes = 4,
        };
        pkt_build_udp(p, &u);
        pkt_wr32(p->hdr + p->hdr_len, (uint32_t)c->threshold);
        p->hdr_len += 4;
        host_send(w->host, p);
    }
    if (reset)
        job->pcn->resets++;
    else
        job->pcn->starts++;
}

static void start_due(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct pcn_worker *pw = container_of(t, struct pcn_worker, start);
    pw->announced = pw->w->iter + 1;
    send_signal(pw->w->job, pw->w, false);
}

void ddl_pcn_forward(struct ddl_worker *w)
{
    struct ddl_job *job = w->job;
    if (!job->pcn)
        return;
    struct pcn_worker *pw = &job->pcn->pw[w->idx];
    if (pw->announced > w->iter)
        return;
    sim_time_t now = job->sim->now;
    sim_time_t at = now + job->pcn->until[w->layer] - job->cfg.pcn.lead_ps;
    if (at <= now) {
        evq_cancel(&job->sim->evq, &pw->start);
        start_due(job->sim, &pw->start);
    } else {
        evq_reschedule(&job->sim->evq, &pw->start, at);
    }
}

void ddl_pcn_burst_end(struct ddl_worker *w)
{
    if (w->job->pcn)
        send_signal(w->job, w, true);
}

uint64_t ddl_pcn_signals(const struct ddl_job *job, bool reset)
{
    return job->pcn ? (reset ? job->pcn->resets : job->pcn->starts) : 0;
}

static void sink_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    (void)ep;
    pkt_free(h->node.sim, p);
}

int ddl_pcn_init(struct ddl_job *job, const struct cfg_node *m, struct diag *d)
{
    if (!job->cfg.pcn.signal)
        return 0;
    if (!ddl_arch_bursts(job) || job->nservers == 0) {
        diag_error(d, cfg_key_loc(m, "pcn_signal"),
                   "job '%s': pcn_signal needs an architecture whose workers send bursts to "
                   "servers (arch ps), not %s",
                   job->name, ddl_arch_name(job));
        return 1;
    }
    struct ddl_pcn *pc = xcalloc(1, sizeof(*pc));
    job->pcn = pc;
    pc->pw = xcalloc(job->nworkers, sizeof(*pc->pw));
    for (uint32_t i = 0; i < job->nworkers; i++) {
        evq_timer_init(&pc->pw[i].start, start_due, EVQ_PHASE_DEFAULT);
        pc->pw[i].w = &job->workers[i];
    }
    /* until[l] = forward of layers l..L-1 + backward of layer L-1 */
    pc->until = xcalloc(job->L, sizeof(*pc->until));
    sim_time_t acc = job->model->layers[job->L - 1].bwd_ps;
    for (uint32_t l = job->L; l-- > 0;) {
        acc += job->model->layers[l].fwd_ps;
        pc->until[l] = acc;
    }
    pc->sinks = xcalloc(job->nservers, sizeof(*pc->sinks));
    for (uint32_t s = 0; s < job->nservers; s++) {
        struct pcn_sink *k = &pc->sinks[s];
        k->ep.recv = sink_recv;
        k->host = job->servers[s].host;
        /* another job's sink on the same host consumes the signals as well */
        if (!host_endpoint(k->host, DDL_PCN_PORT))
            k->bound = host_bind_port(k->host, &k->ep, DDL_PCN_PORT);
    }
    return 0;
}

void ddl_pcn_fini(struct ddl_job *job)
{
    struct ddl_pcn *pc = job->pcn;
    if (!pc)
        return;
    for (uint32_t i = 0; i < job->nworkers; i++)
        evq_cancel(&job->sim->evq, &pc->pw[i].start);
    for (uint32_t s = 0; s < job->nservers; s++) {
        if (pc->sinks[s].bound)
            host_unbind(pc->sinks[s].host, &pc->sinks[s].ep);
    }
    free(pc->sinks);
    free(pc->until);
    free(pc->pw);
    free(pc);
    job->pcn = NULL;
}
