#include "tests/testutil.h"

#include "models/net/pkt.h"
#include "models/net/pq.h"
#include "sim/sim.h"
#include "sim/util.h"

static struct pkt *udp(struct sim *sim, uint32_t src, uint32_t dst, uint16_t sport, uint8_t ecn,
                       uint32_t payload)
{
    struct pkt *p = pkt_alloc(sim);
    struct pkt_udp_spec s = {.src_ip = pkt_host_ip(src),
                             .dst_ip = pkt_host_ip(dst),
                             .src_port = sport,
                             .dst_port = 10000,
                             .ecn = ecn,
                             .payload_bytes = payload};
    pkt_build_udp(p, &s);
    return p;
}

/* Each test gets a simulation of its own and must leave no packet allocated. */
static int setup(void **state)
{
    *state = sim_create(1, NULL);
    return 0;
}

static int teardown(void **state)
{
    struct sim *sim = *state;
    int64_t live = pkt_live(sim);
    sim_destroy(sim);
    return live == 0 ? 0 : -1;
}

static void test_pkt_udp_headers(void **state)
{
    struct sim *sim = *state;
    struct pkt *p = udp(sim, 0, 5, 2000, PKT_ECN_ECT0, 1472);
    assert_int_equal(p->size_bytes, 1514);
    assert_int_equal(p->hdr_len, 42);
    assert_true(pkt_is_ipv4(p));
    assert_int_equal(pkt_ipv4_dst(p), pkt_host_ip(5));
    assert_int_equal(pkt_ip_host(pkt_ipv4_dst(p)), 5);
    assert_int_equal(pkt_rd16(p->hdr + 14 + 2), 1500);    /* IPv4 total length */
    assert_int_equal(pkt_csum16(p->hdr + 14, 20), 0);     /* header checksum verifies */
    assert_int_equal(pkt_ecn(p), PKT_ECN_ECT0);
    pkt_free(sim, p);
    assert_int_equal(pkt_live(sim), 0);
}

/* IPv4 headers over a spread of fields (addresses whose words carry in the sum, every DSCP and
 * ECN value, TTL 0 = 64, lengths past 65535 clamped): each field where RFC 791 puts it, and the
 * header checksum verifies (the one's complement sum of all ten words is 0xffff). */
static void test_pkt_ipv4_fields(void **state)
{
    struct sim *sim = *state;
    uint32_t x = 12345;
    for (int i = 0; i < 2000; i++) {
        x = x * 1103515245u + 12345u;
        struct pkt_ipv4_spec s = {.src_ip = x ^ 0xffff0000u * (uint32_t)(i & 1),
                                  .dst_ip = x * 2654435761u,
                                  .proto = (uint8_t)(x >> 8),
                                  .dscp = (uint8_t)(i & 63),
                                  .ecn = (uint8_t)(i >> 6 & 3),
                                  .ttl = (uint8_t)(i % 3 == 0 ? 0 : x >> 16),
                                  .l4_bytes = i == 7 ? 70000u : x % 9000};
        struct pkt *p = pkt_alloc(sim);
        uint8_t *l4 = pkt_build_ipv4(p, &s);
        const uint8_t *ip = p->hdr + ETH_HDR_LEN;
        assert_ptr_equal(l4, ip + IPV4_HDR_LEN);
        uint32_t len = IPV4_HDR_LEN + s.l4_bytes;
        assert_int_equal(p->size_bytes, ETH_HDR_LEN + len);
        assert_int_equal(ip[0], 0x45);
        assert_int_equal(ip[1], s.dscp << 2 | s.ecn);
        assert_int_equal(pkt_rd16(ip + 2), len > 0xffff ? 0xffff : len);
        assert_int_equal(pkt_rd16(ip + 4), (uint16_t)p->seq);
        assert_int_equal(pkt_rd16(ip + 6), 0x4000);
        assert_int_equal(ip[8], s.ttl ? s.ttl : 64);
        assert_int_equal(ip[9], s.proto);
        assert_int_equal(pkt_rd32(ip + 12), s.src_ip);
        assert_int_equal(pkt_rd32(ip + 16), s.dst_ip);
        assert_int_equal(pkt_csum16(ip, IPV4_HDR_LEN), 0);
        pkt_free(sim, p);
    }
}

/* Marking CE patches the checksum incrementally; the header must still verify. */
static void test_pkt_ecn_checksum(void **state)
{
    struct sim *sim = *state;
    struct pkt *p = udp(sim, 3, 7, 4321, PKT_ECN_ECT0, 100);
    pkt_set_ecn(p, PKT_ECN_CE);
    assert_int_equal(pkt_ecn(p), PKT_ECN_CE);
    assert_int_equal(pkt_csum16(p->hdr + 14, 20), 0);
    pkt_free(sim, p);
}

/* The flow hash as FNV-1a over the fields one by one (salt, protocol, addresses, ports), the
 * definition pkt_flow_hash's packed key must reproduce. */
static uint32_t flow_hash_by_fields(const struct pkt *p, uint32_t salt)
{
    uint64_t h = hash_fnv1a(&salt, sizeof(salt), HASH_FNV_INIT);
    if (pkt_is_ipv4(p)) {
        const uint8_t *ip = p->hdr + ETH_HDR_LEN;
        h = hash_fnv1a(ip + 9, 1, h);
        h = hash_fnv1a(ip + 12, 8, h);
        if (p->hdr_len >= ETH_HDR_LEN + IPV4_HDR_LEN + 4)
            h = hash_fnv1a(ip + IPV4_HDR_LEN, 4, h);
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* Random headers (IPv4 or not, lengths around the IPv4 and port boundaries, random salts):
 * pkt_flow_hash equals the field-by-field FNV-1a on every one. */
static void test_pkt_flow_hash_packed(void **state)
{
    struct sim *sim = *state;
    struct pkt *p = pkt_alloc(sim);
    uint32_t x = 2463534242u;
    int ipv4 = 0;
    for (int i = 0; i < 20000; i++) {
        for (int b = 0; b < 64; b++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            p->hdr[b] = (uint8_t)x;
        }
        if (x & 3) /* mostly IPv4 */
            pkt_wr16(p->hdr + 12, ETHERTYPE_IPV4);
        p->hdr_len = (uint16_t)(ETH_HDR_LEN + IPV4_HDR_LEN - 2 + (x >> 8) % 10);
        ipv4 += pkt_is_ipv4(p);
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        assert_int_equal(pkt_flow_hash(p, x), flow_hash_by_fields(p, x));
    }
    assert_true(ipv4 > 10000); /* most with the IPv4 fields, both with and without ports */
    pkt_free(sim, p);
}

static void test_pkt_flow_hash(void **state)
{
    struct sim *sim = *state;
    struct pkt *a = udp(sim, 1, 2, 1000, 0, 10);
    struct pkt *b = udp(sim, 1, 2, 1000, 0, 999);
    struct pkt *c = udp(sim, 1, 2, 1001, 0, 10);
    assert_int_equal(pkt_flow_hash(a, 7), pkt_flow_hash(b, 7)); /* same 5-tuple */
    assert_int_not_equal(pkt_flow_hash(a, 7), pkt_flow_hash(c, 7));
    assert_int_not_equal(pkt_flow_hash(a, 7), pkt_flow_hash(a, 8)); /* salt per switch */
    struct pkt *d = pkt_clone(sim, a);
    assert_int_not_equal(d->id, a->id);
    assert_memory_equal(d->hdr, a->hdr, a->hdr_len);
    pkt_free(sim, a);
    pkt_free(sim, b);
    pkt_free(sim, c);
    pkt_free(sim, d);
    assert_int_equal(pkt_live(sim), 0);
}

static void test_pq_strict(void **state)
{
    struct sim *sim = *state;
    struct pq q;
    pq_init(&q, 8, PQ_SCHED_STRICT, 0);
    uint8_t prios[6] = {0, 3, 7, 3, 0, 9};
    for (int i = 0; i < 6; i++) {
        struct pkt *p = udp(sim, 0, 1, 1, 0, 100);
        p->qclass = prios[i];
        p->seq = (uint32_t)i;
        pq_enqueue(&q, p);
    }
    assert_int_equal(q.pkts, 6);
    /* 9 is clamped to the top queue (7), FIFO inside a class */
    /* with class 7 held (a PFC pause), class 3 goes first */
    struct pkt *first = pq_dequeue(&q, (uint8_t)~0x80u);
    assert_int_equal(first->seq, 1);
    pq_enqueue(&q, first); /* back at the tail of class 3 */
    int want[6] = {2, 5, 3, 1, 0, 4};
    for (int i = 0; i < 6; i++) {
        struct pkt *p = pq_dequeue(&q, PQ_ALL);
        assert_int_equal(p->seq, want[i]);
        pkt_free(sim, p);
    }
    assert_null(pq_dequeue(&q, PQ_ALL));
    assert_int_equal(q.bytes, 0);
    pq_fini(sim, &q);
}

/* DRR with weights 1 and 3 and always-backlogged classes serves bytes 1:3. */
static void test_pq_drr_weights(void **state)
{
    struct sim *sim = *state;
    struct pq q;
    pq_init(&q, 2, PQ_SCHED_DRR, 1514);
    q.weight[1] = 3;
    for (int i = 0; i < 400; i++) {
        struct pkt *p = udp(sim, 0, 1, 1, 0, 1000);
        p->qclass = (uint8_t)(i % 2);
        pq_enqueue(&q, p);
    }
    uint64_t bytes[2] = {0, 0};
    for (int i = 0; i < 200; i++) {
        struct pkt *p = pq_dequeue(&q, PQ_ALL);
        bytes[p->qclass] += p->size_bytes;
        pkt_free(sim, p);
    }
    double ratio = (double)bytes[1] / (double)bytes[0];
    assert_true(ratio > 2.7 && ratio < 3.3);
    /* class 1 held: DRR serves class 0 only, and nothing when class 0 is held too */
    struct pkt *p = pq_dequeue(&q, 0x01);
    assert_int_equal(p->qclass, 0);
    pkt_free(sim, p);
    assert_null(pq_dequeue(&q, 0x00));
    pq_fini(sim, &q);
    assert_int_equal(pkt_live(sim), 0);
}

TEST_MAIN(cmocka_unit_test_setup_teardown(test_pkt_udp_headers, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pkt_ecn_checksum, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pkt_ipv4_fields, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pkt_flow_hash, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pkt_flow_hash_packed, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pq_strict, setup, teardown),
          cmocka_unit_test_setup_teardown(test_pq_drr_weights, setup, teardown))
