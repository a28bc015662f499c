/* TCP's per-packet fast paths against the general ones: headers filled from a connection's
 * template (tcp_hdr_fill) must be the bytes tcp_hdr_build writes for the same segment, for
 * every segment a flow sends (in-order data, out-of-order and SACK ACKs, retransmissions,
 * ECN-capable data, PSH and CWR); the receiver's in-order byte ranges; the message cuts a
 * stream's flow keeps (flow_segment_limit) and the totals its owner waits for. */
#include "tests/testtcp.h"

#include <stdlib.h>
#include <string.h>

#include "models/transport/ranges.h"

/* The general path's bytes for the segment p carries: p's header decoded and built again. */
static void assert_general_bytes(const struct pkt *p)
{
    struct tcp_seg s;
    assert_true(tcp_hdr_parse(p, &s));
    struct pkt q = {0};
    q.seq = p->seq; /* the IPv4 identification */
    tcp_hdr_build(&q, &s);
    assert_int_equal(q.hdr_len, p->hdr_len);
    assert_int_equal(q.size_bytes, p->size_bytes);
    assert_memory_equal(q.hdr, p->hdr, p->hdr_len);
    assert_int_equal(pkt_csum16(p->hdr + ETH_HDR_LEN, IPV4_HDR_LEN), 0);
}

/* Checks and frees every packet host h has sent (as drain_host); returns how many, and ORs
 * the TCP flags and ECN codepoints seen into *flags and *ecns (bit 1 << codepoint). */
static int check_sent(struct host *h, uint8_t *flags, uint8_t *ecns, int *with_opts)
{
    int n = 0;
    for (struct pkt *p; (p = host_next_sent(h));) {
        assert_general_bytes(p);
        *flags |= p->hdr[ETH_HDR_LEN + IPV4_HDR_LEN + 13];
        *ecns |= (uint8_t)(1u << pkt_ecn(p));
        *with_opts += p->hdr_len > TCP_HEADERS;
        n++;
        pkt_free(h->node.sim, p);
    }
    return n;
}

/* A segment with random fields; with `opts`, random options too (at most the 40 bytes TCP
 * has room for). */
static struct tcp_seg random_seg(unsigned *seed, bool opts)
{
    struct tcp_seg s = {
        .src_ip = pkt_host_ip((uint32_t)rand_r(seed) % 70000),
        .dst_ip = pkt_host_ip((uint32_t)rand_r(seed) % 70000),
        .src_port = (uint16_t)rand_r(seed),
        .dst_port = (uint16_t)rand_r(seed),
        .window = (uint16_t)rand_r(seed),
        .dscp = (uint8_t)(rand_r(seed) % 64),
        .seq = (uint32_t)rand_r(seed) * 2654435761u,
        .ack = (uint32_t)rand_r(seed) * 2246822519u,
        .flags = (uint8_t)rand_r(seed),
        .ecn = (uint8_t)(rand_r(seed) % 4),
        .payload_bytes = (uint32_t)rand_r(seed) % 9100,
    };
    if (!opts)
        return s;
    s.sack_perm = rand_r(seed) % 4 == 0;
    s.ts = rand_r(seed) % 2;
    s.tsval = (uint32_t)rand_r(seed);
    s.tsecr = (uint32_t)rand_r(seed);
    s.nsack = (uint8_t)(rand_r(seed) % (s.ts ? 3 : 4));
    for (int b = 0; b < s.nsack; b++) {
        s.sack[b][0] = (uint32_t)rand_r(seed);
        s.sack[b][1] = s.sack[b][0] + 1460;
    }
    return s;
}

/* The template against tcp_hdr_build over random fields: ECN codepoints, flags, lengths up to
 * and past the 16-bit IPv4 length, identifications, DSCP, ports and addresses. */
static void test_tcp_fast_fill_matches_build(void **state)
{
    unsigned seed = 11;
    for (int i = 0; i < 20000; i++) {
        struct tcp_seg s = random_seg(&seed, false);
        struct tcp_hdr_tmpl t;
        tcp_hdr_tmpl_init(&t, &s);
        if (i % 7 == 0)
            s.payload_bytes = 0xffffu - 40 + (uint32_t)(rand_r(&seed) % 80);
        struct pkt a = {0};
        struct pkt b = {0};
        a.seq = b.seq = (uint32_t)rand_r(&seed);
        tcp_hdr_build(&a, &s);
        tcp_hdr_fill(&b, &t, s.seq, s.ack, s.flags, s.ecn, s.payload_bytes);
        assert_int_equal(a.hdr_len, b.hdr_len);
        assert_int_equal(a.size_bytes, b.size_bytes);
        assert_memory_equal(a.hdr, b.hdr, a.hdr_len);
    }
}

/* tcp_hdr_parse_seg decodes what tcp_hdr_parse does except the fields it leaves alone, with
 * SACK blocks, timestamps and SACK-permitted in any mix. */
static void test_tcp_fast_parse_seg(void **state)
{
    unsigned seed = 3;
    for (int i = 0; i < 5000; i++) {
        struct tcp_seg s = random_seg(&seed, true);
        struct pkt p = {0};
        tcp_hdr_build(&p, &s);
        struct tcp_seg all;
        struct tcp_seg seg;
        memset(&all, 0, sizeof(all));
        memset(&seg, 0, sizeof(seg));
        assert_true(tcp_hdr_parse(&p, &all));
        assert_true(tcp_hdr_parse_seg(&p, &seg));
        assert_int_equal(seg.src_ip, 0); /* left alone */
        assert_int_equal(seg.window, 0);
        seg.src_ip = all.src_ip;
        seg.dst_ip = all.dst_ip;
        seg.src_port = all.src_port;
        seg.dst_port = all.dst_port;
        seg.window = all.window;
        seg.dscp = all.dscp;
        assert_memory_equal(&seg, &all, sizeof(seg));
        assert_int_equal(seg.nsack, s.nsack);
        assert_int_equal(seg.ts, s.ts);
    }
}

/* A flow with ECN: new data (ECT, PSH at the end, CWR after a cut), out-of-order arrivals
 * (ACKs with SACK blocks: the general path), in-order and hole-filling ACKs (the template),
 * a fast retransmission (not ECT) and SACK recovery's retransmissions: every header the flow
 * sends is the general path's. */
static void test_tcp_fast_flow_segments(void **state)
{
    struct scenario *sc = load_pair("init_cwnd: 10, ecn: true, rcv_wnd: 1MB");
    struct tcp_flow *f = tcp_of(sc, "f0");
    uint8_t flags = 0;
    uint8_t ecns = 0;
    int opts = 0;
    /* receiver: in order, a hole, more above it, the hole filled, a duplicate */
    inject_data(f, 0, 1000, PKT_ECN_ECT0, 0);
    inject_data(f, 2000, 1000, PKT_ECN_ECT0, 0);
    inject_data(f, 4000, 1000, PKT_ECN_CE, 0);
    inject_data(f, 1000, 1000, PKT_ECN_ECT0, 0);
    inject_data(f, 3000, 1000, PKT_ECN_ECT0, TCP_CWR);
    inject_data(f, 1000, 1000, PKT_ECN_ECT0, 0);
    assert_int_equal(check_sent(f->base.dst, &flags, &ecns, &opts), 6);
    assert_int_equal(opts, 3); /* the three ACKs sent while data waits above a hole: SACK */
    assert_true(flags & TCP_ECE);
    assert_int_equal(f->rcv_nxt, 5000);
    /* sender: the initial window, an ECE cut (CWR on the next new segment) */
    assert_int_equal(pull_all(f), 10);
    inject_ack(f, 1000, true);
    assert_int_equal(f->ecn_cuts, 1);
    pull_all(f);
    /* three duplicate ACKs with SACK blocks: recovery retransmits 1000 (not ECT) and more */
    const uint64_t blk[1][2] = {{2000, 5000}};
    inject_sack(f, 1000, false, 1, blk);
    inject_sack(f, 1000, false, 1, blk);
    inject_sack(f, 1000, false, 1, blk);
    assert_true(f->in_recovery);
    assert_true(f->sack_retx + f->base.st.retx_pkts > 0);
    flags = 0;
    ecns = 0;
    opts = 0;
    int n = check_sent(f->base.src, &flags, &ecns, &opts);
    assert_true(n >= 1);
    assert_int_equal(opts, 0);
    assert_true(ecns & (1u << PKT_ECN_NOT_ECT)); /* the retransmission */
    /* the rest of the flow's bytes up to the last (PSH) segment, then a timeout's resend */
    inject_ack(f, f->snd_max, false);
    for (int i = 0; i < 200 && f->snd_max < 100000; i++) {
        struct pkt *p;
        while ((p = f->source.next_pkt(&f->source, f->base.src)) != NULL) {
            assert_general_bytes(p);
            flags |= p->hdr[ETH_HDR_LEN + IPV4_HDR_LEN + 13];
            ecns |= (uint8_t)(1u << pkt_ecn(p));
            pkt_free(sc->sim, p);
        }
        inject_ack(f, f->snd_max, false);
    }
    assert_int_equal(f->snd_una, 100000);
    assert_true(flags & TCP_CWR);
    assert_true(flags & TCP_PSH);
    assert_true(ecns & (1u << PKT_ECN_ECT0));
    scenario_destroy(sc);
}

/* The receiver's ranges: an in-order arrival with no hole moves the prefix without touching
 * the range list (nothing allocated), and gives what the general merge gives. */
static void test_tcp_fast_ranges_in_order(void **state)
{
    struct ranges r;
    ranges_init(&r);
    assert_int_equal(ranges_add(&r, 0, 1000), 1000);
    assert_int_equal(ranges_add(&r, 500, 2000), 1000); /* overlaps the prefix */
    assert_int_equal(ranges_add(&r, 2000, 2000), 0);   /* empty */
    assert_null(r.r);
    assert_int_equal(r.n, 0);
    assert_int_equal(r.prefix, 2000);
    assert_int_equal(ranges_add(&r, 3000, 4000), 0); /* a hole: the general path */
    assert_int_equal(r.n, 1);
    assert_int_equal(ranges_add(&r, 2000, 3000), 2000);
    assert_int_equal(r.n, 0);
    assert_int_equal(ranges_add(&r, 4000, 4500), 500); /* in order again */
    assert_int_equal(r.prefix, 4500);
    ranges_fini(&r);
    /* random arrivals, mostly in order: ranges_add and the general path alone agree */
    struct ranges fast;
    struct ranges slow;
    ranges_init(&fast);
    ranges_init(&slow);
    unsigned seed = 9;
    for (int i = 0; i < 20000; i++) {
        uint64_t start = fast.prefix + (uint64_t)(rand_r(&seed) % 6) * 1000;
        start = start >= 2500 ? start - 2500 : 0; /* some behind the prefix */
        uint64_t end = start + (uint64_t)(rand_r(&seed) % 3000);
        assert_int_equal(ranges_add(&fast, start, end), ranges_add_holes(&slow, start, end));
        assert_int_equal(fast.prefix, slow.prefix);
        assert_int_equal(fast.n, slow.n);
        assert_memory_equal(fast.r, slow.r, fast.n * sizeof(fast.r[0]));
    }
    assert_true(fast.prefix > 1000000);
    ranges_fini(&fast);
    ranges_fini(&slow);
}

/* Messages of these sizes, back to back in the stream; the callback counts its calls. */
static const uint64_t msg_sizes[] = {3000, 500, 1, 7000, 1460, 2920};
static int msg_end_calls;

static uint64_t sizes_end(uint64_t off)
{
    uint64_t end = 0;
    for (size_t i = 0; i < ARRAY_LEN(msg_sizes); i++) {
        end += msg_sizes[i];
        if (off < end)
            return end;
    }
    return off; /* beyond the stream pushed so far */
}

static uint64_t count_msg_end(struct flow *f, uint64_t off, void *ud)
{
    (void)f;
    (void)ud;
    msg_end_calls++;
    return sizes_end(off);
}

/* flow_segment_limit keeps the last message's range: the cuts are the callback's for offsets
 * going forward, back (retransmissions), across messages and past the stream's end, and the
 * callback is asked once per message on a forward pass. */
static void test_tcp_fast_segment_limit(void **state)
{
    struct flow f = {.streaming = true, .stream = {.msg_end = count_msg_end}};
    uint64_t total = 0;
    for (size_t i = 0; i < ARRAY_LEN(msg_sizes); i++)
        total += msg_sizes[i];
    msg_end_calls = 0;
    for (uint64_t off = 0; off < total;) { /* in order, 1000-byte segments */
        uint64_t len = flow_segment_limit(&f, off, 1000);
        uint64_t end = sizes_end(off);
        assert_int_equal(len, MIN(1000, end - off));
        off += len;
    }
    assert_int_equal(msg_end_calls, ARRAY_LEN(msg_sizes));
    unsigned seed = 5;
    for (int i = 0; i < 5000; i++) { /* anywhere, the stream's end included */
        uint64_t off = (uint64_t)rand_r(&seed) % (total + 100);
        uint64_t want = (uint64_t)rand_r(&seed) % 3000 + 1;
        uint64_t end = sizes_end(off);
        assert_int_equal(flow_segment_limit(&f, off, want), end > off ? MIN(want, end - off) : want);
    }
}

/* The owner's answer: complete at every message end of msg_sizes, 0 past the last. */
static uint64_t report_calls;
static uint64_t report_seen;

static uint64_t count_report(struct flow *f, uint64_t total, void *ud)
{
    (void)f;
    (void)ud;
    report_calls++;
    report_seen = total;
    uint64_t end = sizes_end(total);
    return end > total ? end : 0;
}

/* flow_report_delivered / flow_report_acked call the owner only from the total it asked for:
 * once per message end crossed on the way, and at every growth when it answered 0. */
static void test_tcp_fast_report_thresholds(void **state)
{
    struct flow f = {.streaming = true,
                     .stream = {.delivered = count_report, .acked = count_report}};
    uint64_t total = 0;
    for (size_t i = 0; i < ARRAY_LEN(msg_sizes); i++)
        total += msg_sizes[i];
    for (int which = 0; which < 2; which++) {
        report_calls = 0;
        uint64_t ends_crossed = 0;
        uint64_t next_end = 0; /* the owner's last answer */
        for (uint64_t t = 100; t <= total + 2000; t += 100) {
            if (which)
                flow_report_acked(&f, t);
            else
                flow_report_delivered(&f, t);
            if (t >= next_end) { /* the owner must have been called with this total */
                assert_int_equal(report_seen, t);
                ends_crossed++;
                next_end = sizes_end(t) > t ? sizes_end(t) : 0;
            }
        }
        assert_int_equal(report_calls, ends_crossed);
        assert_true(report_calls < (total + 2000) / 100); /* skipped inside messages */
        assert_true(report_calls > ARRAY_LEN(msg_sizes)); /* past the end: every time */
    }
}

TEST_MAIN(cmocka_unit_test(test_tcp_fast_report_thresholds),
          cmocka_unit_test(test_tcp_fast_segment_limit),
          cmocka_unit_test(test_tcp_fast_fill_matches_build),
          cmocka_unit_test(test_tcp_fast_parse_seg),
          cmocka_unit_test(test_tcp_fast_flow_segments),
          cmocka_unit_test(test_tcp_fast_ranges_in_order))
