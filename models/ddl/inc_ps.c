/* The parameter server's side of in-network aggregation: packets the switch passed on (their
 * slot is held by another job, lies beyond the pool, or their key block is cold) are aggregated
 * here by the switch's own rules — per slot copy a worker bitmap, a counter and the int32 sums
 * (wrapping like the switch's registers); the last contribution sends the result to every
 * worker, and a retransmission of a completed copy gets the result back alone. Slot ownership in
 * the switch never changes hands, so a block is aggregated entirely in the switch or entirely
 * here. */
#include "models/ddl/inc.h"

#include <string.h>

#include "sim/util.h"

static void send_result(struct inc *inc, const struct inc_hdr *in, const struct inc_cell *c,
                        uint32_t worker)
{
    struct ddl_job *job = inc->job;
    struct inc_hdr h = *in;
    h.flags = (uint8_t)(in->flags | INC_F_RESULT | INC_F_FROM_PS);
    struct pkt *p = inc_pkt_new(job->sim, inc->ps, job->workers[worker].host->ip, INC_PORT, &h,
                                c->vals);
    host_send(inc->ps, p);
}

void inc_ps_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    (void)h;
    struct inc *inc = container_of(ep, struct inc, ps_ep);
    struct ddl_job *job = inc->job;
    struct inc_hdr hd;
    const uint8_t *b = p->hdr + ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN;
    if (p->hdr_len < INC_PKT_BYTES) {
        pkt_free(job->sim, p);
        return;
    }
    inc_hdr_read(b, &hd);
    if ((hd.flags & INC_F_RESULT) || hd.job != (uint16_t)job->cfg.id || hd.slot >= inc->W ||
        hd.worker >= job->nworkers || hd.ver > 1) {
        pkt_free(job->sim, p);
        return;
    }
    struct inc_cell *c = &inc->cells[hd.ver * inc->W + hd.slot];
    struct inc_cell *other = &inc->cells[(1u - hd.ver) * inc->W + hd.slot];
    uint32_t me = 1u << hd.worker;
    if (!(c->seen & me)) {
        inc->st.ps_contrib++;
        c->seen |= me;
        other->seen &= ~me;
        for (int i = 0; i < INC_NVALS; i++) {
            uint32_t v = pkt_rd32(b + INC_HDR_BYTES + 4 * i);
            c->vals[i] = (int32_t)(c->count == 0 ? v : (uint32_t)c->vals[i] + v);
        }
        c->seq = hd.seq;
        if (++c->count >= hd.fanin) {
            c->count = 0;
            for (uint32_t w = 0; w < job->nworkers; w++)
                send_result(inc, &hd, c, w);
        }
    } else if (c->count == 0) {
        send_result(inc, &hd, c, hd.worker);
    }
    pkt_free(job->sim, p);
}
