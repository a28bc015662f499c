#include "models/net/pfc.h"

#include <string.h>

#include "models/net/node.h"
#include "sim/util.h"

static const uint8_t pfc_dst_mac[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};

static void pfc_wake(struct sim *sim, struct evq_timer *t);
static void pfc_refresh(struct sim *sim, struct evq_timer *t);

void pfc_port_init(struct port *p)
{
    memset(&p->pfc_rx, 0, sizeof(p->pfc_rx));
    memset(&p->pfc_tx, 0, sizeof(p->pfc_tx));
    evq_timer_init(&p->pfc_rx.wake, pfc_wake, EVQ_PHASE_DEFAULT);
    evq_timer_init(&p->pfc_tx.refresh, pfc_refresh, EVQ_PHASE_DEFAULT);
}

void pfc_port_fini(struct sim *sim, struct port *p)
{
    evq_cancel(&sim->evq, &p->pfc_rx.wake);
    evq_cancel(&sim->evq, &p->pfc_tx.refresh);
}

void pfc_build(struct pkt *p, uint8_t class_mask, const uint16_t quanta[PFC_NCLASSES])
{
    uint8_t *h = p->hdr;
    memset(h, 0, PFC_FRAME_BYTES);
    memcpy(h, pfc_dst_mac, 6);
    h[6] = 0x02;
    h[7] = 0xff; /* a locally administered source address for switch ports */
    pkt_wr16(h + 12, PFC_ETHERTYPE);
    pkt_wr16(h + 14, PFC_OPCODE);
    pkt_wr16(h + 16, class_mask);
    for (int c = 0; c < PFC_NCLASSES; c++)
        pkt_wr16(h + 18 + 2 * c, quanta[c]);
    p->hdr_len = PFC_FRAME_BYTES;
    p->size_bytes = PFC_FRAME_BYTES;
    p->prio = PFC_NCLASSES - 1;
    p->tc = PFC_NCLASSES - 1;
}

/* The earliest future pause end, or SIM_TIME_NEVER. */
static sim_time_t next_end(const struct pfc_rx *rx, sim_time_t now)
{
    sim_time_t t = SIM_TIME_NEVER;
    for (int c = 0; c < PFC_NCLASSES; c++) {
        if (rx->paused_until[c] > now && rx->paused_until[c] < t)
            t = rx->paused_until[c];
    }
    return t;
}

void pfc_receive(struct sim *sim, struct port *in, struct pkt *p)
{
    struct pfc_rx *rx = &in->pfc_rx;
    sim_time_t now = sim->now;
    /* one quantum = 512 bit times = 64 byte times at the port's rate */
    sim_time_t quantum = simtime_tx_ps(64, in->tx.cfg.rate_bps);
    uint16_t mask = pkt_rd16(p->hdr + 16);
    rx->frames++;
    in->pfc_heard = true;
    for (int c = 0; c < PFC_NCLASSES; c++) {
        if (!(mask & (1u << c)))
            continue;
        sim_time_t until = now + (sim_time_t)pkt_rd16(p->hdr + 18 + 2 * c) * quantum;
        sim_time_t old_end = MAX(now, rx->paused_until[c]);
        /* paused time is exact: extend or cut the interval already counted */
        rx->paused_ps[c] += until - old_end;
        rx->paused_until[c] = until;
    }
    pkt_free(sim, p);
    sim_time_t wake = next_end(rx, now);
    evq_cancel(&sim->evq, &rx->wake);
    if (wake != SIM_TIME_NEVER)
        evq_schedule(&sim->evq, &rx->wake, wake);
    link_kick(sim, &in->tx); /* a resume may have freed a class */
}

static void pfc_wake(struct sim *sim, struct evq_timer *t)
{
    struct pfc_rx *rx = container_of(t, struct pfc_rx, wake);
    struct port *port = container_of(rx, struct port, pfc_rx);
    sim_time_t wake = next_end(rx, sim->now);
    if (wake != SIM_TIME_NEVER)
        evq_schedule(&sim->evq, &rx->wake, wake);
    link_kick(sim, &port->tx);
}

uint8_t pfc_allowed(const struct port *out, sim_time_t now)
{
    uint8_t m = 0;
    for (int c = 0; c < PFC_NCLASSES; c++) {
        if (out->pfc_rx.paused_until[c] <= now)
            m |= (uint8_t)(1u << c);
    }
    return m;
}

static void send_frame(struct sim *sim, struct port *p, uint8_t mask, uint16_t q)
{
    uint16_t quanta[PFC_NCLASSES] = {0};
    for (int c = 0; c < PFC_NCLASSES; c++) {
        if (mask & (1u << c))
            quanta[c] = q;
    }
    struct pkt *f = pkt_alloc(sim);
    f->t_created = sim->now;
    pfc_build(f, mask, quanta);
    link_send_ctrl(sim, &p->tx, f);
}

/* Half the pause time: refresh well before the upstream resumes on its own. */
static sim_time_t refresh_period(const struct port *p)
{
    return simtime_tx_ps(64, p->tx.cfg.rate_bps) * (PFC_MAX_QUANTA / 2);
}

void pfc_send_xoff(struct sim *sim, struct port *p, uint8_t c)
{
    if (!((p->pfc_tx.paused >> c) & 1u))
        p->pfc_tx.xoff_transitions++;
    p->pfc_tx.paused |= (uint8_t)(1u << c);
    p->pfc_tx.pause_frames++;
    send_frame(sim, p, (uint8_t)(1u << c), PFC_MAX_QUANTA);
    if (!evq_timer_pending(&p->pfc_tx.refresh))
        evq_schedule(&sim->evq, &p->pfc_tx.refresh, sim->now + refresh_period(p));
}

void pfc_send_xon(struct sim *sim, struct port *p, uint8_t c)
{
    p->pfc_tx.paused &= (uint8_t)~(1u << c);
    p->pfc_tx.resume_frames++;
    send_frame(sim, p, (uint8_t)(1u << c), 0);
    if (!p->pfc_tx.paused)
        evq_cancel(&sim->evq, &p->pfc_tx.refresh);
}

static void pfc_refresh(struct sim *sim, struct evq_timer *t)
{
    struct pfc_tx *tx = container_of(t, struct pfc_tx, refresh);
    struct port *p = container_of(tx, struct port, pfc_tx);
    if (!tx->paused)
        return;
    tx->pause_frames++;
    send_frame(sim, p, tx->paused, PFC_MAX_QUANTA);
    evq_schedule(&sim->evq, t, sim->now + refresh_period(p));
}

json_t *pfc_stats_json(const struct port *port, const uint64_t *headroom_drops)
{
    json_t *o = json_object();
    json_object_set_new(o, "pause_frames_sent", json_integer((json_int_t)port->pfc_tx.pause_frames));
    json_object_set_new(o, "resume_frames_sent",
                        json_integer((json_int_t)port->pfc_tx.resume_frames));
    json_object_set_new(o, "frames_received", json_integer((json_int_t)port->pfc_rx.frames));
    if (headroom_drops)
        json_object_set_new(o, "headroom_drops", json_integer((json_int_t)*headroom_drops));
    json_t *paused = json_object();
    for (int c = 0; c < PFC_NCLASSES; c++) {
        if (port->pfc_rx.paused_ps[c] == 0)
            continue;
        char k[2] = {(char)('0' + c), '\0'};
        json_object_set_new(paused, k, json_real(simtime_sec(port->pfc_rx.paused_ps[c])));
    }
    json_object_set_new(o, "paused_s", paused);
    return o;
}
