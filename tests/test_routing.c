/* Routing: shortest paths and equal-cost next hops on generated fabrics, the one-next-hop pick
 * for P4 route tables, and unreachable destinations. Expected counts follow from the topology:
 * in a k-ary fat tree an edge switch has k/2 uplinks and an aggregation switch k/2 core links;
 * in a leaf-spine fabric every leaf has one link to each spine. */
#include "tests/testscenario.h"

#include <stdio.h>
#include <string.h>

#include "models/net/host.h"
#include "models/net/routing.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"

static struct route_set *routes_of(struct scenario *sc, const char *sw)
{
    struct node *n = scenario_node(sc, sw);
    assert_non_null(n);
    assert_non_null(n->ops->routes);
    return n->ops->routes(n);
}

static uint32_t host_index(struct scenario *sc, const char *name)
{
    return node_host(scenario_node(sc, name))->index;
}

/* The node behind each next hop of `sw` toward host `dst`, as names in `peers`. */
static uint32_t next_peers(struct scenario *sc, const char *sw, const char *dst,
                           const char **peers, uint32_t max)
{
    struct node *n = scenario_node(sc, sw);
    const uint32_t *ports;
    uint32_t k = route_set_get(routes_of(sc, sw), host_index(sc, dst), &ports);
    assert_true(k <= max);
    for (uint32_t i = 0; i < k; i++)
        peers[i] = n->ports[ports[i]]->peer->node->name;
    return k;
}

static bool has(const char **names, uint32_t n, const char *want)
{
    for (uint32_t i = 0; i < n; i++) {
        if (strcmp(names[i], want) == 0)
            return true;
    }
    return false;
}

/* k = 4: hosts h0,h1 on edge0_0, h2,h3 on edge0_1 (pod 0), h4.. in pod 1, ...; 4 cores. */
static void test_routing_fat_tree(void **state)
{
    struct scenario *sc = load("topology: {kind: fat_tree, k: 4, switch: {program: none}}\n");
    const char *p[8];
    /* own host: the one port that leads to it */
    assert_int_equal(next_peers(sc, "edge0_0", "h0", p, 8), 1);
    assert_string_equal(p[0], "h0");
    /* a host in another pod: both uplinks (k/2 = 2) */
    assert_int_equal(next_peers(sc, "edge0_0", "h15", p, 8), 2);
    assert_true(has(p, 2, "agg0_0") && has(p, 2, "agg0_1"));
    /* same pod, other edge: still both aggregation switches (two equal 2-hop paths) */
    assert_int_equal(next_peers(sc, "edge0_0", "h3", p, 8), 2);
    /* an aggregation switch: one way down within its pod, k/2 = 2 cores out of it */
    assert_int_equal(next_peers(sc, "agg0_0", "h3", p, 8), 1);
    assert_string_equal(p[0], "edge0_1");
    assert_int_equal(next_peers(sc, "agg0_0", "h15", p, 8), 2);
    /* a core switch: exactly one way down to any host */
    for (int h = 0; h < 16; h++) {
        char name[24];
        snprintf(name, sizeof(name), "h%d", h);
        assert_int_equal(next_peers(sc, "core0", name, p, 8), 1);
    }
    assert_true(routing_reachable(scenario_node(sc, "h0"), scenario_node(sc, "h15"), 64));
    scenario_destroy(sc);
}

/* Route state per destination switch, not per host: in a k = 8 fat tree (32 edge switches with
 * 4 hosts each, 128 hosts) every switch keeps 32 destinations. An edge switch reaches each of
 * the 31 other edge switches through the same 4 uplinks, stored once: 4 next hops in all. A
 * core switch has one way down to each of the 32 edge switches, through its 8 ports (one per
 * pod): the 4 edge switches of a pod follow one another with the same port, so 8 lists of one
 * port. Doubling
 * the hosts of a leaf-spine leaf leaves the routes as they are. */
static void test_routing_state_per_destination_switch(void **state)
{
    struct scenario *sc = load("topology: {kind: fat_tree, k: 8, switch: {program: none}}\n");
    const struct route_set *edge = routes_of(sc, "edge3_2");
    assert_int_equal(route_set_nhosts(edge), 128);
    assert_int_equal(edge->ndsts, 32);
    assert_int_equal(edge->nnexthops, 4);
    assert_int_equal(route_set_reachable(edge), 128);
    const struct route_set *core = routes_of(sc, "core5");
    assert_int_equal(core->ndsts, 32);
    assert_int_equal(core->nnexthops, 8);
    scenario_destroy(sc);
    uint32_t stored[2];
    for (int i = 0; i < 2; i++) {
        char yaml[160];
        snprintf(yaml, sizeof(yaml),
                 "topology: {kind: leaf_spine, leaves: 3, spines: 2, hosts_per_leaf: %d, "
                 "switch: {program: none}}\n",
                 8 << i);
        sc = load(yaml);
        const struct route_set *rs = routes_of(sc, "spine1");
        assert_int_equal(rs->ndsts, 3);
        stored[i] = rs->nnexthops;
        scenario_destroy(sc);
    }
    assert_int_equal(stored[0], stored[1]);
}

/* leaf-spine with 4 spines: a remote host is reached through every spine; a spine has one way
 * down to each host. */
static void test_routing_leaf_spine(void **state)
{
    struct scenario *sc = load("topology: {kind: leaf_spine, leaves: 3, spines: 4, "
                               "hosts_per_leaf: 2, switch: {program: none}}\n");
    const char *p[8];
    assert_int_equal(next_peers(sc, "leaf0", "h5", p, 8), 4);
    for (int s = 0; s < 4; s++) {
        char name[24];
        snprintf(name, sizeof(name), "spine%d", s);
        assert_true(has(p, 4, name));
    }
    assert_int_equal(next_peers(sc, "spine2", "h5", p, 8), 1);
    assert_string_equal(p[0], "leaf2");
    scenario_destroy(sc);
}

/* routing_pick gives a P4 route table one next hop per destination. With 4 spines and 64
 * remote destinations a uniform hash puts 16 on each spine (binomial standard deviation
 * sqrt(64 * 1/4 * 3/4) = 3.5); every spine must get at least 6 (about 3 deviations below the
 * mean), i.e. the pick spreads, and it must always be one of the equal-cost next hops. */
static void test_routing_pick_spreads(void **state)
{
    struct scenario *sc = load("topology: {kind: leaf_spine, leaves: 2, spines: 4, "
                               "hosts_per_leaf: 64, switch: {program: none}}\n");
    struct node *leaf = scenario_node(sc, "leaf0");
    const struct route_set *rs = routes_of(sc, "leaf0");
    uint32_t used[4] = {0};
    for (int h = 64; h < 128; h++) {
        char name[24];
        snprintf(name, sizeof(name), "h%d", h);
        uint32_t port;
        assert_true(routing_pick(rs, host_index(sc, name), 12345, &port));
        const char *peer = leaf->ports[port]->peer->node->name;
        assert_true(strncmp(peer, "spine", 5) == 0);
        used[peer[5] - '0']++;
    }
    for (int s = 0; s < 4; s++)
        assert_true(used[s] >= 6);
    /* the same salt and host give the same port (an lpm entry is fixed) */
    uint32_t a;
    uint32_t b;
    assert_true(routing_pick(rs, 70, 7, &a) && routing_pick(rs, 70, 7, &b));
    assert_int_equal(a, b);
    scenario_destroy(sc);
}

/* Two stars joined by nothing: no route between them, and flows across are refused. */
static void test_routing_unreachable(void **state)
{
    const char *yaml = "switches: [{name: a, program: none}, {name: b, program: none}]\n"
                       "hosts: [{name: x}, {name: y}]\n"
                       "links: [{a: x, b: a}, {a: y, b: b}]\n";
    struct scenario *sc = load(yaml);
    const uint32_t *ports;
    assert_int_equal(route_set_get(routes_of(sc, "a"), host_index(sc, "y"), &ports), 0);
    assert_int_equal(route_set_get(routes_of(sc, "a"), host_index(sc, "x"), &ports), 1);
    assert_false(routing_reachable(scenario_node(sc, "x"), scenario_node(sc, "y"), 16));
    uint32_t port;
    assert_false(routing_pick(routes_of(sc, "b"), host_index(sc, "x"), 1, &port));
    scenario_destroy(sc);
}

/* Addresses. A fat tree (k = 4: 8 edge switches of 2 hosts, edge0_0 first) gets one prefix per
 * edge switch: 2 bits of slot (slots 1..2), so h0, h1 are 10.0.0.1, .2 and h2 (edge0_1's first)
 * is 10.0.0.(1 << 2 | 1) = .5; h15 (edge3_1: destination 7, slot 2) is .30. Every address leads
 * back to its host. A star and a dumbbell keep flat addresses, 10.0.0.0 + index + 1. */
static void test_routing_hier_addresses(void **state)
{
    struct scenario *sc = load("topology: {kind: fat_tree, k: 4, switch: {program: none}}\n");
    const uint32_t net = 10u << 24;
    assert_int_equal(node_host(scenario_node(sc, "h0"))->ip, net | 1);
    assert_int_equal(node_host(scenario_node(sc, "h1"))->ip, net | 2);
    assert_int_equal(node_host(scenario_node(sc, "h2"))->ip, net | 5);
    assert_int_equal(node_host(scenario_node(sc, "h15"))->ip, net | 30);
    const struct route_hosts *rh = routes_of(sc, "core0")->hosts;
    assert_int_equal(rh->addr_bits, 2);
    for (int h = 0; h < 16; h++) {
        char name[24];
        snprintf(name, sizeof(name), "h%d", h);
        const struct host *ho = node_host(scenario_node(sc, name));
        assert_int_equal(route_host_of_ip(rh, ho->ip), ho->index);
        assert_int_equal(route_host_ip(rh, ho->index), ho->ip);
    }
    assert_int_equal(route_host_of_ip(rh, net | 3), UINT32_MAX); /* a slot with no host */
    /* fixed routing's lookup by address gives every switch the routes of the host; an address
     * of no host has none */
    const char *sws[] = {"edge0_0", "edge3_1", "agg1_0", "core2"};
    for (int i = 0; i < 4; i++) {
        const struct route_set *rs = routes_of(sc, sws[i]);
        for (uint32_t h = 0; h < 16; h++) {
            const uint32_t *a;
            const uint32_t *b;
            uint32_t n = route_set_get(rs, h, &a);
            assert_int_equal(route_set_get_ip(rs, route_host_ip(rh, h), &b), n);
            assert_memory_equal(a, b, n * sizeof(*a));
        }
        const uint32_t *none;
        assert_int_equal(route_set_get_ip(rs, net | 3, &none), 0);
        assert_int_equal(route_set_get_ip(rs, net | 31, &none), 0);
        assert_int_equal(route_set_get_ip(rs, 11u << 24 | 1, &none), 0);
    }
    int len;
    assert_int_equal(route_dst_prefix(rh, 1, &len), net | 4);
    assert_int_equal(len, 30);
    scenario_destroy(sc);
    const char *flat[] = {"topology: {kind: star, hosts: 6, switch: {program: none}}\n",
                          "topology: {kind: dumbbell, left: 3, right: 3, "
                          "switch: {program: none}}\n"};
    for (int i = 0; i < 2; i++) {
        sc = load(flat[i]);
        assert_int_equal(node_host(scenario_node(sc, "h5"))->ip, net | 6);
        assert_int_equal(routes_of(sc, "s0")->hosts->addr_bits, 0);
        scenario_destroy(sc);
    }
}

/* With prefixes a P4 route table gets one entry per destination switch and one per own host: in
 * a k = 8 fat tree an edge switch has 31 other edge switches' prefixes and its 4 hosts (35), a
 * core switch 32 prefixes; without, one per host (128). Prefixes are taken only for an lpm
 * table and only when the 128 host routes are more than the limit given. A prefix's pick is one
 * of the equal-cost next hops toward that edge switch. */
static void test_routing_table_entries(void **state)
{
    struct scenario *sc = load("topology: {kind: fat_tree, k: 8, switch: {program: none}}\n");
    const struct route_set *edge = routes_of(sc, "edge3_2");
    assert_int_equal(route_set_table_entries(edge, true), 35);
    assert_int_equal(route_set_table_entries(edge, false), 128);
    assert_int_equal(route_set_table_entries(routes_of(sc, "core5"), true), 32);
    assert_false(route_set_prefixes(edge, true, 128));
    assert_true(route_set_prefixes(edge, true, 127));
    assert_false(route_set_prefixes(edge, false, 127));
    uint32_t port;
    assert_false(routing_pick_dst(edge, edge->self, 1, &port));
    for (uint32_t d = 0; d < edge->ndsts; d++) {
        if (d == edge->self)
            continue;
        assert_true(routing_pick_dst(edge, d, 99, &port));
        const uint32_t *ports = edge->nexthops + edge->dsts[d].first;
        bool found = false;
        for (uint32_t i = 0; i < edge->dsts[d].n; i++)
            found |= ports[i] == port;
        assert_true(found);
    }
    scenario_destroy(sc);
}

TEST_MAIN(cmocka_unit_test(test_routing_fat_tree), cmocka_unit_test(test_routing_leaf_spine),
          cmocka_unit_test(test_routing_state_per_destination_switch),
          cmocka_unit_test(test_routing_pick_spreads), cmocka_unit_test(test_routing_unreachable),
          cmocka_unit_test(test_routing_hier_addresses),
          cmocka_unit_test(test_routing_table_entries))
