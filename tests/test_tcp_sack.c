/* TCP SACK: the option codec (RFC 2018 §2–3), the receiver's choice and order of blocks
 * (RFC 2018 §4), the sender's scoreboard (RFC 6675 §4: IsLost, pipe, NextSeg), SACK loss
 * recovery driven by hand (RFC 6675 §5), lost retransmissions found without the timer, and an
 * incast in which SACK retransmits exactly the dropped segments, with no timeout. */
#include "tests/testtcp.h"

#include <stdlib.h>
#include <string.h>

#include "models/net/switch.h"
#include "models/transport/tcp_sack.h"

/* SACK-permitted on a SYN (NOP NOP 4 2) and four blocks on an ACK (NOP NOP 5 34 + 4 × 8 bytes)
 * round-trip, and lengthen the header by 4 and 36 bytes. */
static void test_sack_hdr_roundtrip(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    struct pkt *p = pkt_alloc(sim);
    struct tcp_seg s = {.src_ip = 1, .dst_ip = 2, .src_port = 3, .dst_port = 4, .seq = 5,
                        .flags = TCP_SYN, .window = 100, .sack_perm = true};
    tcp_hdr_build(p, &s);
    assert_int_equal(p->hdr_len, TCP_HEADERS + 4);
    assert_int_equal(p->size_bytes, TCP_HEADERS + 4);
    struct tcp_seg r;
    assert_true(tcp_hdr_parse(p, &r));
    assert_true(r.sack_perm);
    assert_int_equal(r.nsack, 0);
    assert_int_equal(r.payload_bytes, 0);
    s = (struct tcp_seg){.src_ip = 1, .dst_ip = 2, .flags = TCP_ACK, .ack = 7, .nsack = 4};
    for (uint32_t i = 0; i < 4; i++) {
        s.sack[i][0] = 0xfffffff0u + 100 * i; /* wraps: wire numbers are mod 2^32 */
        s.sack[i][1] = s.sack[i][0] + 50;
    }
    tcp_hdr_build(p, &s);
    assert_int_equal(p->size_bytes, TCP_HEADERS + 36);
    assert_true(tcp_hdr_parse(p, &r));
    assert_false(r.sack_perm);
    assert_int_equal(r.nsack, 4);
    assert_int_equal(r.payload_bytes, 0);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(r.sack[i][0], s.sack[i][0]);
        assert_int_equal(r.sack[i][1], s.sack[i][1]);
    }
    pkt_free(sim, p);
    sim_destroy(sim);
}

/* The ACK the receiver sends next, decoded; its blocks as offsets in out. */
static int last_ack_blocks(struct tcp_flow *f, uint64_t out[][2])
{
    struct tcp_seg a[32];
    int n = drain_host(f->base.dst, a, 32);
    assert_true(n >= 1);
    const struct tcp_seg *s = &a[n - 1];
    for (int i = 0; i < s->nsack; i++) {
        out[i][0] = (uint32_t)(s->sack[i][0] - f->snd_isn - 1);
        out[i][1] = (uint32_t)(s->sack[i][1] - f->snd_isn - 1);
    }
    return s->nsack;
}

/* The next ACK carries exactly the n blocks `want` (offsets), in that order. */
static void ack_blocks_are(struct tcp_flow *f, const uint64_t want[][2], int n)
{
    uint64_t b[4][2];
    assert_int_equal(last_ack_blocks(f, b), n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(b[i][0], want[i][0]);
        assert_int_equal(b[i][1], want[i][1]);
    }
}

/* RFC 2018 §4: the first block holds the segment that triggered the ACK; the others repeat the
 * most recently reported ones, then the lowest others; at most 4; a block the cumulative ACK
 * passed is dropped. */
static void test_sack_receiver_blocks(void **state)
{
    struct scenario *sc = load_pair("sack: true");
    struct tcp_flow *f = tcp_of(sc, "f0");
    /* every segment is 1000 bytes: a block [off, off + 1000) unless it joined a neighbour */
    inject_data(f, 2000, 1000, PKT_ECN_NOT_ECT, 0);
    ack_blocks_are(f, (const uint64_t[][2]){{2000, 3000}}, 1);
    inject_data(f, 6000, 1000, PKT_ECN_NOT_ECT, 0);
    inject_data(f, 4000, 1000, PKT_ECN_NOT_ECT, 0);
    /* the newest first, then 6000 (reported last), 2000 */
    ack_blocks_are(f, (const uint64_t[][2]){{4000, 5000}, {6000, 7000}, {2000, 3000}}, 3);
    inject_data(f, 3000, 1000, PKT_ECN_NOT_ECT, 0); /* joins 2000 and 4000 */
    ack_blocks_are(f, (const uint64_t[][2]){{2000, 5000}, {6000, 7000}}, 2);
    for (uint64_t off = 8000; off <= 14000; off += 2000)
        inject_data(f, off, 1000, PKT_ECN_NOT_ECT, 0);
    /* six ranges held, four reported: the newest, then the most recently reported */
    assert_int_equal(f->ooo_max_ranges, 6);
    ack_blocks_are(f,
                   (const uint64_t[][2]){{14000, 15000}, {12000, 13000}, {10000, 11000},
                                         {8000, 9000}},
                   4);
    inject_data(f, 0, 2000, PKT_ECN_NOT_ECT, 0); /* in order up to 5000 */
    assert_int_equal(f->rcv_nxt, 5000);
    /* 2000-5000 is acknowledged: not a block any more */
    ack_blocks_are(f,
                   (const uint64_t[][2]){{14000, 15000}, {12000, 13000}, {10000, 11000},
                                         {8000, 9000}},
                   4);
    inject_data(f, 9000, 1000, PKT_ECN_NOT_ECT, 0); /* joins 8000 and 10000 */
    /* the recent list is short: the lowest other range (6000) comes last */
    ack_blocks_are(f,
                   (const uint64_t[][2]){{8000, 11000}, {14000, 15000}, {12000, 13000},
                                         {6000, 7000}},
                   4);
    scenario_destroy(sc);
}

/* The scoreboard merges, clips to [una, max) and forgets what the cumulative ACK passed; the
 * lost boundary is the start of the highest block with more than (DupThresh − 1) × MSS bytes
 * SACKed from it up; pipe and NextSeg follow RFC 6675 §4. */
static void test_sack_scoreboard(void **state)
{
    struct tcp_sack_sb sb;
    tcp_sack_sb_reset(&sb, 0);
    assert_true(tcp_sack_sb_add(&sb, 0, 10000, 3000, 4000));
    assert_true(tcp_sack_sb_add(&sb, 0, 10000, 1000, 2000));
    assert_false(tcp_sack_sb_add(&sb, 0, 10000, 1000, 2000)); /* nothing new */
    assert_true(tcp_sack_sb_add(&sb, 0, 10000, 4000, 5000));  /* touches 3000-4000: merged */
    assert_true(tcp_sack_sb_add(&sb, 0, 10000, 9000, 12000)); /* clipped at max */
    assert_int_equal(sb.n, 3);
    assert_int_equal(sb.sacked, 1000 + 2000 + 1000);
    assert_int_equal(sb.blk[1][0], 3000);
    assert_int_equal(sb.blk[1][1], 5000);
    /* thresh 2000 (DupThresh 3, MSS 1000): 9000-10000 alone is 1000, with 3000-5000 it is
     * 3000 > 2000, so everything unSACKed below 3000 is lost */
    assert_int_equal(tcp_sack_lost_end(&sb, 0, 2000), 3000);
    assert_int_equal(tcp_sack_lost_end(&sb, 0, 4000), 0); /* 4000 SACKed in all: not more */
    assert_int_equal(tcp_sack_unsacked(&sb, 0, 10000), 6000);
    /* pipe: unSACKed from 3000 on (5000-9000) + retransmitted below HighRxt (none yet) */
    assert_int_equal(tcp_sack_pipe(&sb, 0, 10000, 2000), 4000);
    uint64_t seq;
    uint64_t len;
    assert_true(tcp_sack_next_lost(&sb, 0, 2000, 1000, &seq, &len));
    assert_int_equal(seq, 0);
    assert_int_equal(len, 1000);
    sb.high_rxt = 1000; /* 0-1000 retransmitted: in the pipe again; next hole 2000-3000 */
    assert_int_equal(tcp_sack_pipe(&sb, 0, 10000, 2000), 5000);
    assert_true(tcp_sack_next_lost(&sb, 0, 2000, 1460, &seq, &len));
    assert_int_equal(seq, 2000);
    assert_int_equal(len, 1000); /* up to the block at 3000 */
    sb.high_rxt = 3000;
    assert_false(tcp_sack_next_lost(&sb, 0, 2000, 1000, &seq, &len));
    assert_int_equal(tcp_sack_skip(&sb, 3500), 5000);
    assert_int_equal(tcp_sack_next_block(&sb, 5000), 9000);
    tcp_sack_sb_advance(&sb, 4000);
    assert_int_equal(sb.n, 2);
    assert_int_equal(sb.blk[0][0], 4000);
    assert_int_equal(sb.sacked, 1000 + 1000);
    assert_int_equal(sb.high_rxt, 4000);
    /* a retransmission of 0-1000 left when 10000 bytes were out; once more than thresh bytes
     * sent after it are SACKed and 0-1000 is still missing, it was lost: HighRxt goes back */
    tcp_sack_sb_reset(&sb, 0);
    sb.high_rxt = 1000;
    sb.rtx_fence = 10000;
    tcp_sack_sb_add(&sb, 0, 20000, 1000, 2000);
    tcp_sack_sb_add(&sb, 0, 20000, 10000, 12000);
    assert_int_equal(tcp_sack_sacked_above(&sb, 10000), 2000);
    assert_false(tcp_sack_lost_retx(&sb, 0, 2000)); /* 2000 is not more than thresh */
    tcp_sack_sb_add(&sb, 0, 20000, 12000, 13000);
    assert_true(tcp_sack_lost_retx(&sb, 0, 2000));
    assert_int_equal(sb.high_rxt, 0);
    assert_false(tcp_sack_lost_retx(&sb, 0, 2000)); /* nothing retransmitted now */
}

/* RFC 6675 §5 by hand: ten segments out, 0-1000 and 2000-3000 lost. The third duplicate ACK
 * starts recovery (ssthresh = cwnd = flight / 2) and retransmits 0-1000 at once; pipe then
 * exceeds cwnd. When more SACKed bytes mark 2000-3000 lost and pipe drops below cwnd − MSS, it
 * goes out; a partial ACK lets new data out; the full ACK ends recovery at ssthresh. */
static void test_sack_sender_recovery(void **state)
{
    struct scenario *sc = load_pair("init_cwnd: 10, sack: true, limited_transmit: false");
    struct tcp_flow *f = tcp_of(sc, "f0");
    struct tcp_seg a[16];
    assert_int_equal(pull_all(f), 10);
    drain_host(f->base.src, a, 16);
    const uint64_t b1[][2] = {{1000, 2000}};
    const uint64_t b2[][2] = {{3000, 4000}, {1000, 2000}};
    const uint64_t b3[][2] = {{3000, 5000}, {1000, 2000}};
    inject_sack(f, 0, false, 1, b1);
    inject_sack(f, 0, false, 2, b2);
    assert_false(f->in_recovery);
    inject_sack(f, 0, false, 2, b3);
    assert_true(f->in_recovery);
    assert_int_equal(f->ssthresh_bytes, 5000);
    assert_int_equal(f->cwnd_bytes, 5000);
    assert_int_equal(f->recover, 10000);
    assert_int_equal(drain_host(f->base.src, a, 16), 1);
    assert_int_equal((uint32_t)(a[0].seq - f->snd_isn - 1), 0);
    /* SACKed 3000-6000: pipe = 6000-10000 + 0-1000 = 5000, no room for a segment */
    const uint64_t b4[][2] = {{3000, 6000}, {1000, 2000}};
    inject_sack(f, 0, false, 2, b4);
    assert_int_equal(drain_host(f->base.src, a, 16), 0);
    /* SACKed 3000-7000: pipe 4000, 2000-3000 is lost (4000 SACKed above it): retransmitted */
    const uint64_t b5[][2] = {{3000, 7000}, {1000, 2000}};
    inject_sack(f, 0, false, 2, b5);
    assert_int_equal(drain_host(f->base.src, a, 16), 1);
    assert_int_equal((uint32_t)(a[0].seq - f->snd_isn - 1), 2000);
    assert_int_equal(f->sack_retx, 1);
    /* partial ACK to 2000: pipe = 7000-10000 + 2000-3000 = 4000, no hole left: new data */
    const uint64_t b6[][2] = {{3000, 7000}};
    inject_sack(f, 2000, false, 1, b6);
    assert_true(f->in_recovery);
    assert_int_equal(drain_host(f->base.src, a, 16), 1);
    assert_int_equal((uint32_t)(a[0].seq - f->snd_isn - 1), 10000);
    assert_int_equal(f->cwnd_bytes, 5000); /* no deflation or inflation with SACK */
    inject_ack(f, 10000, false);
    assert_false(f->in_recovery);
    assert_int_equal(f->cwnd_bytes, 5000);
    assert_int_equal(f->base.st.retx_pkts, 2);
    assert_int_equal(f->base.st.timeouts, 0);
    scenario_destroy(sc);
}

/* 16 senders × 1 MB into one port through a 1 MB buffer: every byte arrives once, and with SACK
 * the senders retransmit only what the switch dropped (each retransmission replaces one drop),
 * which NewReno after a timeout does not promise; no flow waits for its timer. */
static void test_sack_incast_retransmits_drops(void **state)
{
    const int n = 16;
    char *y = xmalloc(8192);
    int len = snprintf(y, 8192,
                       "topology: {kind: star, hosts: %d, link: {framing: ppp}}\n"
                       "defaults:\n"
                       "  switch: {program: none, buffer: 1MB}\n"
                       "  flow: {type: tcp, bytes: 1MB, rto_min: 10ms, rto_init: 10ms,\n"
                       "         handshake: true, sack: true}\n"
                       "flows:\n",
                       n + 1);
    for (int i = 0; i < n; i++)
        len += snprintf(y + len, 8192 - (size_t)len, "  - {src: h%d, dst: h%d}\n", i, n);
    struct scenario *sc = load_run(y);
    uint64_t retx = 0;
    for (uint32_t i = 0; i < sc->nflows; i++) {
        assert_int_equal(sc->flows[i]->st.rx_bytes, 1000000);
        retx += sc->flows[i]->st.retx_pkts;
    }
    const struct sw *s = switch_of(scenario_node(sc, "s0"));
    uint64_t drops = s->tm.ports[n].cls[0].drop_pkts;
    assert_true(drops > 0);
    assert_int_equal(retx, drops);
    for (uint32_t i = 0; i < sc->nflows; i++)
        assert_int_equal(sc->flows[i]->st.timeouts, 0); /* lost retransmissions resent too */
    scenario_destroy(sc);
    free(y);
}

/* The handshake's third segment: the first data segment carries the ACK when data is ready;
 * with nothing to send (a stream that has not pushed yet) a pure 54-byte ACK goes out. */
static void test_handshake_third_ack(void **state)
{
    struct scenario *sc = load_pair("sack: true");
    struct tcp_flow *f = tcp_of(sc, "f0");
    struct tcp_seg a[4];
    for (int ready = 1; ready >= 0; ready--) {
        f->state = TCP_STATE_SYN_SENT;
        f->total_bytes = ready ? 100000 : 0;
        struct pkt *p = pkt_alloc(f->base.src->node.sim);
        struct tcp_seg s = {.src_ip = f->base.dst->ip, .dst_ip = f->base.src->ip,
                            .src_port = f->rcv_port, .dst_port = f->snd_port, .seq = f->rcv_isn,
                            .ack = f->snd_isn + 1, .flags = TCP_SYN | TCP_ACK, .window = 100,
                            .sack_perm = true};
        tcp_hdr_build(p, &s);
        f->snd_ep.recv(&f->snd_ep, f->base.src, p);
        assert_int_equal(f->state, TCP_STATE_ESTABLISHED);
        if (ready) { /* whatever went out carries data */
            int n = drain_host(f->base.src, a, 4);
            for (int i = 0; i < n; i++)
                assert_true(a[i].payload_bytes > 0);
        } else {
            assert_int_equal(drain_host(f->base.src, a, 4), 1);
            assert_int_equal(a[0].flags, TCP_ACK);
            assert_int_equal(a[0].payload_bytes, 0);
            assert_int_equal(a[0].ack, f->rcv_isn + 1);
        }
    }
    scenario_destroy(sc);
}

/* nic_queue: the flow's one window (20 segments of 1514-byte frames) goes into the NIC queue at
 * once; a 10-frame nic_buffer holds ten (one more is on the wire at once), so nine are NIC
 * drops, which the timer repairs (slow start from one segment does not fill the queue again).
 * Without nic_queue the NIC takes a segment only when its wire is free and nothing is dropped.
 * Both deliver every byte. */
static void test_tcp_nic_queue(void **state)
{
    for (int q = 0; q <= 1; q++) {
        char y[512];
        snprintf(y, sizeof(y),
                 "topology: {kind: star, hosts: 2}\n"
                 "defaults: {host: {nic_buffer: 15140B}}\n"
                 "flows: [{type: tcp, src: h0, dst: h1, bytes: 29200, init_cwnd: 20,\n"
                 "         rto_min: 1ms, rto_init: 1ms, nic_queue: %s}]\n",
                 q ? "true" : "false");
        struct scenario *sc = load_run(y);
        const struct host *h0 = host_of(scenario_node(sc, "h0"));
        assert_int_equal(sc->flows[0]->st.rx_bytes, 29200);
        if (q)
            assert_int_equal(h0->nic_drops, 20 - 10 - 1);
        else
            assert_int_equal(h0->nic_drops, 0);
        scenario_destroy(sc);
    }
}

/* send_buffer: at most 10 segments outstanding, so over a 100 us link each round trip carries
 * 14600 bytes: 1 MB takes ceil(1e6 / 14600) = 69 round trips of at least 200 us. */
static void test_tcp_send_buffer(void **state)
{
    struct scenario *sc =
        load_run("topology: {kind: star, hosts: 2, link: {delay: 50us}}\n"
                 "flows: [{type: tcp, src: h0, dst: h1, bytes: 1MB, init_cwnd: 100,\n"
                 "         send_buffer: 14600B}]\n");
    const struct tcp_flow *f = tcp_of(sc, "f0");
    assert_int_equal(f->base.st.rx_bytes, 1000000);
    double fct = flow_fct_s(&f->base);
    assert_true(fct > 68 * 200e-6);
    assert_true(fct < 70 * 215e-6);
    scenario_destroy(sc);
}

/* RFC 7323: the timestamps option (NOP NOP 8 10 TSval TSecr) round-trips and lengthens the
 * header by 12 bytes. In a transfer every ACK of new data gives an RTT sample (70 segments of
 * 1460 - 12 bytes, one ACK each), where without the option one segment is timed per round
 * trip; a full data frame stays mss + 54 bytes. */
static void test_tcp_timestamps(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    struct pkt *p = pkt_alloc(sim);
    struct tcp_seg s = {.flags = TCP_ACK, .ts = true, .tsval = 0x12345678u, .tsecr = 7,
                        .payload_bytes = 100};
    tcp_hdr_build(p, &s);
    struct tcp_seg r;
    assert_true(tcp_hdr_parse(p, &r));
    assert_true(r.ts);
    assert_int_equal(r.tsval, 0x12345678u);
    assert_int_equal(r.tsecr, 7);
    assert_int_equal(r.hdr_bytes, TCP_HEADERS + TCP_TS_OPT_BYTES);
    assert_int_equal(r.payload_bytes, 100);
    pkt_free(sim, p);
    sim_destroy(sim);
    uint64_t samples[2];
    for (int ts = 0; ts <= 1; ts++) {
        char y[256];
        snprintf(y, sizeof(y),
                 "topology: {kind: star, hosts: 2}\n"
                 "flows: [{type: tcp, src: h0, dst: h1, bytes: 101360, timestamps: %s}]\n",
                 ts ? "true" : "false");
        struct scenario *sc = load_run(y);
        const struct tcp_flow *f = tcp_of(sc, "f0");
        assert_int_equal(f->base.st.rx_bytes, 101360);
        assert_int_equal(f->base.st.tx_pkts, ts ? 70 : (101360 + 1459) / 1460);
        samples[ts] = f->rtt_samples;
        struct link *l = &scenario_node(sc, "h0")->ports[0]->tx;
        assert_int_equal(l->tx_bytes, ts ? 70 * 1514 : 69 * 1514 + (101360 - 69 * 1460) + 54);
        assert_true(f->srtt_ps > SIM_US(6));
        scenario_destroy(sc);
    }
    assert_int_equal(samples[1], 70);
    assert_true(samples[0] < 20);
}

TEST_MAIN(cmocka_unit_test(test_sack_hdr_roundtrip), cmocka_unit_test(test_sack_receiver_blocks),
          cmocka_unit_test(test_sack_scoreboard), cmocka_unit_test(test_sack_sender_recovery),
          cmocka_unit_test(test_sack_incast_retransmits_drops),
          cmocka_unit_test(test_handshake_third_ack), cmocka_unit_test(test_tcp_nic_queue),
          cmocka_unit_test(test_tcp_send_buffer), cmocka_unit_test(test_tcp_timestamps))
