/* Routing: shortest paths over switches with equal-cost multipath. Hosts never forward and have
 * one link; each forwarding node (a switch) gets, per destination host, the list of its ports
 * that lie on a shortest path (its route set). The fixed forwarding stage hashes flows over
 * that list; a P4 program's route table gets one of them per destination (routing_pick),
 * because an lpm entry cannot hash flows.
 *
 * Cost: one breadth-first search over switches per switch that has hosts (every host behind the
 * same switch has the same routes except at that switch). */
#ifndef SIM_MODELS_NET_ROUTING_H
#define SIM_MODELS_NET_ROUTING_H

#include <stdbool.h>
#include <stdint.h>

struct node;

struct route {
    uint32_t first; /* into the set's nexthops */
    uint32_t n;     /* equal-cost next hops; 0 = unreachable */
};

/* A forwarding node's routes, indexed by destination host index. */
struct route_set {
    struct route *routes;
    uint32_t nroutes;
    uint32_t routes_cap;
    uint32_t *nexthops; /* port indexes */
    uint32_t nnexthops;
    uint32_t nexthops_cap;
};

void route_set_fini(struct route_set *rs);
/* Sets the next hops (ports) of destination host `host`. */
void route_set_put(struct route_set *rs, uint32_t host, const uint32_t *ports, uint32_t n);
/* The next hops toward host `host`: their number (0: none) and *ports. */
static inline uint32_t route_set_get(const struct route_set *rs, uint32_t host,
                                     const uint32_t **ports)
{
    if (host >= rs->nroutes || rs->routes[host].n == 0)
        return 0;
    *ports = rs->nexthops + rs->routes[host].first;
    return rs->routes[host].n;
}
/* One next hop toward `host` for a table that cannot hash flows, chosen by a hash of the host
 * salted with the switch's `salt`, so the choices of successive levels are independent (a
 * plain host mod n at every level pairs them up and leaves most core paths unused). Returns
 * false when there is no route. */
bool routing_pick(const struct route_set *rs, uint32_t host, uint32_t salt, uint32_t *port);

/* Fills the route set of every forwarding node of `nodes` (ids 0..n-1, nodes[i]->id == i is
 * not required). */
void routing_compute(struct node *const *nodes, uint32_t n);
/* Follows the first next hop from `src`'s link; true when it reaches the host `dst`. */
bool routing_reachable(struct node *src, struct node *dst, uint32_t max_hops);

#endif
