/* In-network aggregation: the workers' slot windows (inc.h), and the dense architecture
 * (arch: inc, SwitchML/ATP). A worker's gradient of layer l becomes the layer's blocks of
 * INC_NVALS int32 values; the switch (aggregation.p4) sums them and multicasts each result; the
 * layer's parameters are ready at a worker when every block of it has come back. Blocks whose
 * slot another job holds go to the job's parameter server, which aggregates them in software
 * (inc_ps.c). Host software costs are not modelled (SwitchML's hosts use kernel-bypass I/O). */
#include "models/ddl/inc.h"

#include <stdlib.h>
#include <string.h>

#include "models/ddl/arch.h"
#include "models/ddl/metrics.h"
#include "models/ddl/worker.h"
#include "sim/util.h"

#define IP(f) offsetof(struct inc_cfg, f)
const struct param_def inc_params[] = {
    {"slots", PARAM_INT, IP(slots), "256", "1", "65536", NULL,
     "aggregator slots the job uses: a worker keeps one packet in flight per slot (its window)"},
    {"slot_base", PARAM_INT, IP(slot_base), "0", "0", "4294901760", NULL,
     "first slot of the switch's pool the job uses; a slot another job took first (or one beyond "
     "the pool) sends the job's packets for it to the parameter server"},
    {"timeout", PARAM_TIME, IP(timeout), "1ms", "1us", "10s", NULL,
     "a worker resends a block whose result has not come back within this"},
    {"loss", PARAM_DOUBLE, IP(loss), "0", "0", "0.5", NULL,
     "probability that a worker loses an aggregation packet it sends or receives"},
    {"verify", PARAM_BOOL, IP(verify), "true", NULL, NULL, NULL,
     "check every result a worker receives against the exact sum of the workers' quantised "
     "values (summary: inc.values_wrong)"},
    {"ecn_window", PARAM_BOOL, IP(ecn_window), "false", NULL, NULL, NULL,
     "ATP's congestion control: a worker halves its window of blocks in flight when a result "
     "arrives ECN-marked (at most once per window of results) and widens it by one per unmarked "
     "result, up to `slots` (the switch marks results once register agg_ecn_kmin is set)"},
};
const size_t inc_nparams = ARRAY_LEN(inc_params);

#define IDLE UINT64_MAX

static bool lose(struct inc *inc)
{
    if (inc->cfg.loss <= 0 || gsl_rng_uniform(inc->rng) >= inc->cfg.loss)
        return false;
    inc->st.lost++;
    return true;
}

static void send_block(struct inc *inc, struct inc_worker *w, uint64_t k)
{
    struct ddl_job *job = inc->job;
    uint32_t s = (uint32_t)(k % inc->W);
    struct inc_hdr h = {
        .job = (uint16_t)job->cfg.id,
        .flags = inc->sparse ? INC_F_SPARSE : 0,
        .ver = (uint8_t)((k / inc->W) & 1),
        .idx = inc->idx_of ? inc->idx_of[s] : (uint32_t)inc->cfg.slot_base + s,
        .worker = (uint8_t)w->dw->idx,
        .fanin = (uint8_t)job->nworkers,
        .slot = (uint16_t)s,
        .seq = (uint32_t)k,
    };
    int32_t q[INC_NVALS];
    inc_values(inc, w->dw->idx, k, q);
    struct pkt *p = inc_pkt_new(job->sim, w->dw->host, inc->ps->ip, w->sport, &h, q);
    job->bytes_sent += p->size_bytes;
    job->worker_bytes[w->dw->idx] += p->size_bytes;
    if (lose(inc))
        pkt_free(job->sim, p);
    else
        host_send(w->dw->host, p);
    sim_after(job->sim, &w->slots[s].timer, inc->cfg.timeout);
}

static void try_send(struct inc *inc, struct inc_worker *w)
{
    while (w->next < w->ready && w->slots[w->next % inc->W].k == IDLE &&
           (!inc->cfg.ecn_window || w->inflight < (uint32_t)w->cwnd)) {
        w->inflight++;
        w->slots[w->next % inc->W].k = w->next;
        inc->st.sent++;
        send_block(inc, w, w->next);
        w->next++;
    }
}

void inc_ready(struct inc *inc, struct inc_worker *w, uint64_t ready)
{
    if (ready > w->ready)
        w->ready = ready;
    try_send(inc, w);
}

static void timeout(struct sim *sim, struct evq_timer *t)
{
    (void)sim;
    struct inc_slot *s = container_of(t, struct inc_slot, timer);
    struct inc *inc = s->w->inc;
    inc->st.retx++;
    send_block(inc, s->w, s->k);
}

static void check(struct inc *inc, uint32_t s, uint8_t ver, uint64_t k, const uint8_t *vals)
{
    uint32_t cell = ver * inc->W + s;
    int32_t *e = inc->expect + (size_t)cell * INC_NVALS;
    if (inc->expect_k[cell] != k) {
        inc_expected(inc, k, e);
        inc->expect_k[cell] = k;
    }
    for (int i = 0; i < INC_NVALS; i++) {
        inc->st.checked++;
        inc->st.wrong += (int32_t)pkt_rd32(vals + 4 * i) != e[i];
    }
}

/* A block's layer is complete at worker w: its parameters are ready. */
static void layer_complete(struct inc *inc, struct inc_worker *w, uint32_t l, uint32_t iter)
{
    struct ddl_worker *dw = w->dw;
    if (inc->layer_done) {
        inc->layer_done(inc, w, l, iter);
        return;
    }
    ddl_record_tensor(inc->job, dw->idx, iter, l, false, dw->push_ready[l], &dw->push_blk[l]);
    dw->push_blk[l] = (struct ddl_blk){0, 0};
    ddl_worker_params_ready(dw, l, iter);
}

/* ATP's window: halve on a marked result (once per window of results), else one more. */
static void window(struct inc *inc, struct inc_worker *w, bool ce)
{
    w->since_cut++;
    if (!ce) {
        w->cwnd = MIN(w->cwnd + 1, (double)inc->W);
        return;
    }
    if (w->since_cut < (uint32_t)w->cwnd)
        return;
    w->cwnd = MAX(1.0, w->cwnd / 2);
    w->since_cut = 0;
    inc->st.cuts++;
    inc->st.cwnd_min = MIN(inc->st.cwnd_min, w->cwnd);
}

static uint64_t layer_blocks(const struct inc *inc, uint32_t l)
{
    return inc->layer_end[l] - (l + 1 < inc->job->L ? inc->layer_end[l + 1] : 0);
}

static void worker_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    (void)h;
    struct inc_worker *w = container_of(ep, struct inc_worker, ep);
    struct inc *inc = w->inc;
    struct sim *sim = inc->job->sim;
    struct inc_hdr hd;
    if (p->hdr_len < INC_PKT_BYTES || lose(inc)) {
        pkt_free(sim, p);
        return;
    }
    const uint8_t *b = p->hdr + ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN;
    inc_hdr_read(b, &hd);
    struct inc_slot *sl = hd.slot < inc->W ? &w->slots[hd.slot] : NULL;
    if (!(hd.flags & INC_F_RESULT) || hd.job != (uint16_t)inc->job->cfg.id || !sl ||
        sl->k == IDLE || (uint32_t)sl->k != hd.seq) {
        inc->st.dup_results++;
        pkt_free(sim, p);
        return;
    }
    uint64_t k = sl->k;
    bool ce = pkt_ecn(p) == PKT_ECN_CE;
    inc->st.ce += ce;
    w->inflight--;
    if (inc->cfg.ecn_window)
        window(inc, w, ce);
    if (hd.flags & INC_F_FROM_PS)
        inc->st.results_ps++;
    else
        inc->st.results_sw++;
    if (inc->cfg.verify)
        check(inc, hd.slot, hd.ver, k, b + INC_HDR_BYTES);
    pkt_free(sim, p);
    sl->k = IDLE;
    evq_cancel(&sim->evq, &sl->timer);
    uint32_t l = inc->blocks[k % inc->B].layer;
    if (--w->left[l] == 0) {
        w->left[l] = (uint32_t)layer_blocks(inc, l);
        layer_complete(inc, w, l, (uint32_t)(k / inc->B));
    }
    try_send(inc, w);
}

static int bind(struct ddl_job *job, struct host *h, struct endpoint *ep, struct diag *d)
{
    ep->port = INC_PORT;
    if (host_bind_port(h, ep, INC_PORT))
        return 0;
    diag_error(d, job->cfg.workers->loc,
               "job '%s': host '%s' already has an in-network aggregation endpoint (UDP port "
               "%u) of another job", job->name, h->node.name, INC_PORT);
    return 1;
}

static int setup_workers(struct inc *inc, struct host **wh, struct diag *d)
{
    struct ddl_job *job = inc->job;
    inc->w = arena_calloc(&job->arena, job->nworkers, sizeof(*inc->w));
    int errors = 0;
    for (uint32_t i = 0; i < job->nworkers; i++) {
        struct inc_worker *w = &inc->w[i];
        w->dw = &job->workers[i];
        w->inc = inc;
        w->sport = (uint16_t)(0xA600 | (i & 0xff));
        w->cwnd = inc->W;
        w->ep.recv = worker_recv;
        w->slots = arena_calloc(&job->arena, inc->W, sizeof(*w->slots));
        for (uint32_t s = 0; s < inc->W; s++) {
            w->slots[s].k = IDLE;
            w->slots[s].w = w;
            evq_timer_init(&w->slots[s].timer, timeout, EVQ_PHASE_DEFAULT);
        }
        w->left = arena_calloc(&job->arena, job->L, sizeof(*w->left));
        for (uint32_t l = 0; l < job->L; l++)
            w->left[l] = (uint32_t)layer_blocks(inc, l);
        errors += bind(job, wh[i], &w->ep, d);
    }
    return errors;
}

int inc_decode(struct inc *inc, struct ddl_job *job, const struct cfg_node *m, struct diag *d)
{
    if (inc->decoded)
        return 0;
    param_defaults(inc_params, inc_nparams, &inc->cfg);
    char what[300];
    snprintf(what, sizeof(what), "inc of job '%s'", job->name);
    if (param_apply(d, inc_params, inc_nparams, m, &inc->cfg, what))
        return 1;
    inc->decoded = true;
    return 0;
}

int inc_setup(struct inc *inc, struct ddl_job *job, const struct cfg_node *m,
              struct host **wh, struct host *ps, struct inc_block *blocks, uint64_t B,
              uint64_t *layer_end, struct diag *d)
{
    inc->job = job;
    inc->blocks = blocks;
    inc->B = B;
    inc->layer_end = layer_end;
    inc->ps = ps;
    if (inc_decode(inc, job, m, d))
        return 1;
    if (job->nworkers > 32) {
        diag_error(d, job->cfg.workers->loc,
                   "job '%s': in-network aggregation takes at most 32 workers (the slot bitmap "
                   "has 32 bits), not %u", job->name, job->nworkers);
        return 1;
    }
    if (!inc->W)
        inc->W = (uint32_t)inc->cfg.slots;
    while ((1u << inc->clog2n) < job->nworkers)
        inc->clog2n++;
    char name[300];
    snprintf(name, sizeof(name), "job.%s.inc.loss", job->name);
    inc->rng = sim_rng(job->sim, name);
    inc->seed = job->sim->seed ^ ((uint64_t)job->cfg.id << 48);
    inc->st.cwnd_min = inc->W;
    inc->cells = arena_calloc(&job->arena, 2 * (size_t)inc->W, sizeof(*inc->cells));
    inc->expect = arena_calloc(&job->arena, 2 * (size_t)inc->W * INC_NVALS, sizeof(*inc->expect));
    inc->expect_k = arena_calloc(&job->arena, 2 * (size_t)inc->W, sizeof(*inc->expect_k));
    for (size_t c = 0; c < 2 * (size_t)inc->W; c++) {
        inc->expect_k[c] = IDLE;
        inc->cells[c].seq = UINT32_MAX;
    }
    int errors = setup_workers(inc, wh, d);
    inc->ps_ep.recv = inc_ps_recv;
    errors += bind(job, ps, &inc->ps_ep, d);
    return errors ? errors : inc_switch_setup(inc, wh, d);
}

void inc_teardown(struct inc *inc)
{
    struct ddl_job *job = inc->job;
    for (uint32_t i = 0; inc->w && i < job->nworkers; i++) {
        struct inc_worker *w = &inc->w[i];
        for (uint32_t s = 0; w->slots && s < inc->W; s++)
            evq_cancel(&job->sim->evq, &w->slots[s].timer);
        if (w->ep.recv)
            host_unbind(w->dw->host, &w->ep);
    }
    if (inc->ps && inc->ps_ep.recv)
        host_unbind(inc->ps, &inc->ps_ep);
}

void inc_stats_json(const struct inc *inc, json_t *o)
{
    json_t *j = json_object();
    const struct inc_stats *s = &inc->st;
    json_object_set_new(j, "blocks_sent", json_integer((json_int_t)s->sent));
    json_object_set_new(j, "retransmissions", json_integer((json_int_t)s->retx));
    json_object_set_new(j, "packets_lost", json_integer((json_int_t)s->lost));
    json_object_set_new(j, "results_switch", json_integer((json_int_t)s->results_sw));
    json_object_set_new(j, "results_server", json_integer((json_int_t)s->results_ps));
    json_object_set_new(j, "results_duplicate", json_integer((json_int_t)s->dup_results));
    json_object_set_new(j, "server_contributions", json_integer((json_int_t)s->ps_contrib));
    json_object_set_new(j, "results_ce", json_integer((json_int_t)s->ce));
    json_object_set_new(j, "values_checked", json_integer((json_int_t)s->checked));
    json_object_set_new(j, "values_wrong", json_integer((json_int_t)s->wrong));
    if (inc->cfg.ecn_window) {
        json_object_set_new(j, "window_cuts", json_integer((json_int_t)s->cuts));
        json_object_set_new(j, "window_min", json_real(s->cwnd_min));
    }
    json_object_set_new(o, "inc", j);
}

/* --- arch: inc (dense) --- */

/* The job's blocks in backward order (last layer first), as gradients become ready. */
static uint64_t dense_blocks(struct ddl_job *job, struct inc_block **out, uint64_t **end)
{
    uint64_t B = 0;
    for (uint32_t l = 0; l < job->L; l++)
        B += (job->model->layers[l].bytes / 4 + INC_NVALS - 1) / INC_NVALS;
    struct inc_block *b = arena_calloc(&job->arena, B ? B : 1, sizeof(*b));
    uint64_t *e = arena_calloc(&job->arena, job->L, sizeof(*e));
    uint64_t n = 0;
    for (uint32_t l = job->L; l-- > 0;) {
        uint64_t vals = job->model->layers[l].bytes / 4;
        for (uint64_t f = 0; f < vals; f += INC_NVALS)
            b[n++] = (struct inc_block){l, (uint32_t)MIN((uint64_t)INC_NVALS, vals - f), f};
        e[l] = n;
    }
    *out = b;
    *end = e;
    return B;
}

static int dense_init(struct ddl_job *job, struct host **wh, struct host **sh, struct diag *d)
{
    if (job->nservers != 1) {
        diag_error(d, job->cfg.servers->loc,
                   "job '%s': arch inc takes one parameter server (it aggregates what the switch "
                   "cannot), not %u", job->name, job->nservers);
        return 1;
    }
    struct inc *inc = arena_calloc(&job->arena, 1, sizeof(*inc));
    job->inc = inc;
    struct inc_block *blocks;
    uint64_t *end;
    uint64_t B = dense_blocks(job, &blocks, &end);
    return inc_setup(inc, job, job->cfg.inc, wh, sh[0], blocks, B, end, d);
}

static void dense_fini(struct ddl_job *job)
{
    if (!job->inc)
        return;
    inc_teardown(job->inc);
    job->inc = NULL;
}

static void dense_grad_ready(struct ddl_worker *dw, uint32_t layer)
{
    struct ddl_job *job = dw->job;
    struct inc *inc = job->inc;
    struct inc_worker *w = &inc->w[dw->idx];
    if (layer_blocks(inc, layer) == 0) {
        layer_complete(inc, w, layer, dw->iter);
        return;
    }
    inc_ready(inc, w, (uint64_t)dw->iter * inc->B + inc->layer_end[layer]);
}

static void dense_delivered(struct ddl_job *job, struct ddl_item *it)
{
    (void)job;
    (void)it; /* no message connections */
}

static void dense_json(const struct ddl_job *job, json_t *o)
{
    inc_stats_json(job->inc, o);
}

const struct ddl_arch_ops ddl_arch_inc = {
    .init = dense_init,
    .fini = dense_fini,
    .grad_ready = dense_grad_ready,
    .delivered = dense_delivered,
    .json = dense_json,
};
