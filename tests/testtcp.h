/* TCP tests: one flow whose two ends the test drives by hand (segments and ACKs injected,
 * what a host sent drained). Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTTCP_H
#define SIM_TESTS_TESTTCP_H

#include "tests/testscenario.h"

#include <stdio.h>

#include "models/transport/tcp.h"
#include "models/transport/tcp_hdr.h"
#include "models/net/host.h"
#include "sim/util.h"

/* ------------------------------------------------------------ helpers */

static inline struct tcp_flow *tcp_of(struct scenario *sc, const char *name)
{
    struct flow *f = scenario_flow(sc, name);
    assert_non_null(f);
    assert_ptr_equal(f->ops, &tcp_flow_ops);
    return container_of(f, struct tcp_flow, base);
}

/* One flow h0 -> h1 that starts late, so the test drives both ends by hand. */
static inline struct scenario *load_pair(const char *flow_extra)
{
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "topology: {kind: star, hosts: 2, link: {rate: 10Gbps, delay: 1us}}\n"
             "flows:\n"
             "  - {name: f0, type: tcp, src: h0, dst: h1, bytes: 100000, mss: 1000,\n"
             "     start: 1s, %s}\n",
             flow_extra);
    struct scenario *sc = load(yaml);
    /* as if started: the tests below play the network's part by hand */
    tcp_of(sc, "f0")->state = TCP_STATE_ESTABLISHED;
    return sc;
}

/* Delivers segment s of flow f, its addresses, ports and window filled in, to the receiver
 * (to_receiver) or to the sender. */
static inline void deliver_seg(struct tcp_flow *f, bool to_receiver, struct tcp_seg *s)
{
    struct host *from = to_receiver ? f->base.src : f->base.dst;
    struct host *to = to_receiver ? f->base.dst : f->base.src;
    s->src_ip = from->ip;
    s->dst_ip = to->ip;
    s->src_port = to_receiver ? f->snd_port : f->rcv_port;
    s->dst_port = to_receiver ? f->rcv_port : f->snd_port;
    s->window = 100;
    struct pkt *p = pkt_alloc(f->base.src->node.sim);
    tcp_hdr_build(p, s);
    struct endpoint *ep = to_receiver ? &f->rcv_ep : &f->snd_ep;
    ep->recv(ep, to, p);
}

/* Delivers a data segment [off, off+len) to the receiver of f. */
static inline void inject_data(struct tcp_flow *f, uint64_t off, uint32_t len, uint8_t ecn, uint8_t flags)
{
    struct tcp_seg s = {
        .seq = f->snd_isn + 1 + (uint32_t)off, /* the SYN took the ISN */
        .ack = f->rcv_isn + 1,
        .flags = (uint8_t)(TCP_ACK | flags),
        .ecn = ecn,
        .payload_bytes = len,
    };
    deliver_seg(f, true, &s);
}

/* Delivers an ACK for offset `off` carrying `nsack` SACK blocks (offsets) to the sender of f. */
static inline void inject_sack(struct tcp_flow *f, uint64_t off, bool ece, int nsack,
                               const uint64_t (*blocks)[2])
{
    struct tcp_seg s = {
        .seq = f->rcv_isn + 1,
        .ack = f->snd_isn + 1 + (uint32_t)off,
        .flags = (uint8_t)(TCP_ACK | (ece ? TCP_ECE : 0)),
        .nsack = (uint8_t)nsack,
    };
    for (int i = 0; i < nsack; i++) {
        s.sack[i][0] = f->snd_isn + 1 + (uint32_t)blocks[i][0];
        s.sack[i][1] = f->snd_isn + 1 + (uint32_t)blocks[i][1];
    }
    deliver_seg(f, false, &s);
}

/* Delivers an ACK for offset `off` to the sender of f. */
static inline void inject_ack(struct tcp_flow *f, uint64_t off, bool ece)
{
    inject_sack(f, off, ece, 0, NULL);
}

/* The frame a host's link started last and has not delivered: the one it serializes or, when
 * the end of its transmission is folded (link.h), the last one on the wire; NULL if none. */
static inline struct pkt *host_started(struct host *h)
{
    struct link *l = &h->node.ports[0]->tx;
    return l->serializing ? l->serializing : l->on_wire.tail;
}

/* Takes the oldest frame a link started and has not delivered (on the wire, then the one it
 * serializes); the arrival is cancelled once the wire is empty. */
static inline struct pkt *take_started(struct sim *sim, struct link *l)
{
    struct pkt *p = pkt_fifo_pop(&l->on_wire);
    if (!p) {
        p = l->serializing;
        l->serializing = NULL;
    } else if (!l->on_wire.head) {
        evq_cancel(&sim->evq, &l->arrive);
        l->keyed_pkt = NULL;
    }
    return p;
}

/* The next packet a host has sent while the simulation is not running: those its link took
 * (the link stays "busy" afterwards, so later ones wait in the NIC queue), then the queued ones,
 * in order; NULL when none is left. */
static inline struct pkt *host_next_sent(struct host *h)
{
    struct pkt *p = take_started(h->node.sim, &h->node.ports[0]->tx);
    return p ? p : pq_dequeue(&h->nic, PQ_ALL);
}

/* Frees every packet a host has sent (host_next_sent); decodes up to `max` into out. */
static inline int drain_host(struct host *h, struct tcp_seg *out, int max)
{
    int n = 0;
    for (struct pkt *p; (p = host_next_sent(h));) {
        if (n < max) {
            assert_true(tcp_hdr_parse(p, &out[n]));
            n++;
        }
        pkt_free(h->node.sim, p);
    }
    return n;
}

static inline uint64_t ack_off(const struct tcp_flow *f, const struct tcp_seg *s)
{
    return (uint32_t)(s->ack - f->snd_isn - 1);
}

/* Pulls every segment the window allows, as the NIC would; returns how many. */
static inline int pull_all(struct tcp_flow *f)
{
    int n = 0;
    struct pkt *p;
    while ((p = f->source.next_pkt(&f->source, f->base.src)) != NULL) {
        pkt_free(f->base.src->node.sim, p);
        n++;
    }
    return n;
}

#endif
