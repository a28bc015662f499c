/* Routing: shortest paths over switches with equal-cost multipath. Hosts never forward and have
 * one link, so a host's routes are those of the forwarding node it hangs off (its destination
 * node) except at that node, where the route is the port to the host. Each forwarding node
 * therefore keeps one route per destination node: the list of its ports on a shortest path
 * toward it (equal lists are stored once); a table shared by every route set maps a host to its
 * destination node and port. State grows with forwarding nodes × destination nodes, not hosts.
 *
 * The fixed forwarding stage hashes flows over a route's list; a P4 program's route table gets
 * one of them per destination host (routing_pick), because an lpm entry cannot hash flows.
 *
 * Addresses (routing_compute assigns every host's): flat, 10.0.0.0 + host index + 1 (pkt.h), or
 * hierarchical, where each destination node owns a prefix: 10.0.0.0 | d << addr_bits | slot + 1
 * for the slot-th host (by index) of destination d (hosts on no forwarding node form one more
 * group). The hosts of an edge switch can then be one lpm entry elsewhere (routing_pick_dst).
 *
 * Cost: one breadth-first search over switches per switch that has hosts. */
#ifndef SIM_MODELS_NET_ROUTING_H
#define SIM_MODELS_NET_ROUTING_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/pkt.h"
#include "sim/arena.h"

struct node;

#define ROUTE_NONE UINT32_MAX

/* Shared by every route set of a topology (reference counted): where each host is attached. */
struct route_hosts {
    struct arena mem; /* this struct and its tables, freed together */
    uint32_t refs;
    uint32_t nhosts;
    uint32_t ndsts;    /* destination nodes: forwarding nodes with hosts */
    uint32_t *dst;     /* host index -> destination index, or ROUTE_NONE */
    uint32_t *port;    /* host index -> the port of its destination node toward it */
    uint32_t *dst_node; /* destination index -> node id */
    uint32_t addr_bits; /* hierarchical addresses: bits of the slot; 0 = flat addresses */
    uint32_t *addr_host; /* hierarchical: low 24 address bits -> host index (or ROUTE_NONE) */
    uint32_t naddr;      /* entries of addr_host */
    uint32_t *addr;      /* hierarchical: host index -> low 24 address bits */
    uint32_t *dst_hosts; /* hierarchical: destination index -> its hosts (slots 1..n) */
};

struct route {
    uint32_t first; /* into the set's nexthops */
    uint32_t n;     /* equal-cost next hops; 0 = unreachable */
};

/* A forwarding node's routes, indexed by destination index (not host). */
struct route_set {
    struct route_hosts *hosts; /* NULL until routing_compute */
    uint32_t self;             /* this node's destination index, or ROUTE_NONE */
    struct route *dsts;
    uint32_t ndsts;
    uint32_t *nexthops; /* port indexes; equal consecutive lists shared */
    uint32_t nnexthops;
    uint32_t nexthops_cap;
};

void route_set_fini(struct route_set *rs);
/* Number of hosts (valid host indexes are 0 .. route_set_nhosts - 1). */
static inline uint32_t route_set_nhosts(const struct route_set *rs)
{
    return rs->hosts ? rs->hosts->nhosts : 0;
}
/* The next hops toward host `host`: their number (0: none) and *ports. */
static inline uint32_t route_set_get(const struct route_set *rs, uint32_t host,
                                     const uint32_t **ports)
{
    const struct route_hosts *rh = rs->hosts;
    if (!rh || host >= rh->nhosts)
        return 0;
    uint32_t d = rh->dst[host];
    if (d == rs->self && d != ROUTE_NONE) {
        *ports = rh->port + host;
        return 1;
    }
    if (d >= rs->ndsts || rs->dsts[d].n == 0)
        return 0;
    *ports = rs->nexthops + rs->dsts[d].first;
    return rs->dsts[d].n;
}
/* The host index of address `ip`, or UINT32_MAX. */
static inline uint32_t route_host_of_ip(const struct route_hosts *rh, uint32_t ip)
{
    if (!rh || !rh->addr_bits)
        return pkt_ip_host(ip);
    uint32_t a = ip ^ (10u << 24);
    return a < rh->naddr ? rh->addr_host[a] : UINT32_MAX;
}
/* The address of host `host` (rh non-NULL, host < rh->nhosts). */
static inline uint32_t route_host_ip(const struct route_hosts *rh, uint32_t host)
{
    return rh->addr_bits ? 10u << 24 | rh->addr[host] : pkt_host_ip(host);
}
/* The next hops toward address `ip` (as route_set_get for its host). With hierarchical
 * addresses a remote destination's route comes from the address's prefix alone, without the
 * host tables. */
static inline uint32_t route_set_get_ip(const struct route_set *rs, uint32_t ip,
                                        const uint32_t **ports)
{
    const struct route_hosts *rh = rs->hosts;
    if (!rh || !rh->addr_bits)
        return route_set_get(rs, pkt_ip_host(ip), ports);
    uint32_t a = ip ^ (10u << 24);
    uint32_t d = a >> rh->addr_bits;
    uint32_t slot = a & ((1u << rh->addr_bits) - 1);
    if (d >= rs->ndsts || slot == 0 || slot > rh->dst_hosts[d])
        return 0;
    if (d == rs->self)
        return route_set_get(rs, rh->addr_host[a], ports);
    *ports = rs->nexthops + rs->dsts[d].first;
    return rs->dsts[d].n;
}
/* Hosts with a route from this node. */
uint32_t route_set_reachable(const struct route_set *rs);
/* Whether a P4 route table here holds prefixes: with hierarchical addresses and an lpm table
 * (`lpm`), when a route per host would be more than `max_host_routes` entries. Host routes
 * spread the hosts of one edge switch over its equal-cost paths; a prefix sends them all one
 * way (an lpm entry cannot hash flows), so prefixes are kept for tables hosts do not fit in. */
bool route_set_prefixes(const struct route_set *rs, bool lpm, uint32_t max_host_routes);
/* The entries a P4 route table gets here: one per reachable destination node plus one per own
 * host with `prefixes`, else one per reachable host. */
uint32_t route_set_table_entries(const struct route_set *rs, bool prefixes);
/* The prefix of destination d's hosts (hierarchical addresses): its address and length. */
uint32_t route_dst_prefix(const struct route_hosts *rh, uint32_t d, int *len);
/* One next hop toward `host` for a table that cannot hash flows, chosen by a hash of the host
 * salted with the switch's `salt`, so the choices of successive levels are independent (a
 * plain host mod n at every level pairs them up and leaves most core paths unused). Returns
 * false when there is no route. */
bool routing_pick(const struct route_set *rs, uint32_t host, uint32_t salt, uint32_t *port);
/* The same for every host of destination node d at once (its prefix's lpm entry), hashed by d. */
bool routing_pick_dst(const struct route_set *rs, uint32_t d, uint32_t salt, uint32_t *port);

/* Fills the route set of every forwarding node of `nodes` (ids 0..n-1, nodes[i]->id == i is
 * not required) and assigns the hosts' addresses: hierarchical when `hier` (fabrics with edge
 * switches) and they fit in 10.0.0.0/8, else flat. */
void routing_compute(struct node *const *nodes, uint32_t n, bool hier);
/* Follows the first next hop from `src`'s link; true when it reaches the host `dst`. */
bool routing_reachable(struct node *src, struct node *dst, uint32_t max_hops);

#endif
