/* Shortest-path routes with ECMP over the switches of a topology. */
#include "models/net/routing.h"

#include <stdlib.h>
#include <string.h>

#include "models/net/host.h"
#include "models/net/node.h"
#include "sim/util.h"

/* rh and its tables live in one arena (rh->mem, inside its own first block). */
static void route_hosts_free(struct route_hosts *rh)
{
    arena_free(&rh->mem);
}

void route_set_fini(struct route_set *rs)
{
    if (rs->hosts && --rs->hosts->refs == 0)
        route_hosts_free(rs->hosts);
    free(rs->dsts);
    free(rs->nexthops);
    memset(rs, 0, sizeof(*rs));
    rs->self = ROUTE_NONE;
}

/* Sets the next hops of destination `d`; a list equal to the end of the stored ones (the
 * previous destination's, typically: every remote destination of an edge switch goes up) is
 * shared. */
static void route_set_put(struct route_set *rs, uint32_t d, const uint32_t *ports, uint32_t n)
{
    if (n == 0)
        return;
    if (rs->nnexthops >= n &&
        memcmp(rs->nexthops + rs->nnexthops - n, ports, n * sizeof(*ports)) == 0) {
        rs->dsts[d] = (struct route){rs->nnexthops - n, n};
        return;
    }
    if (rs->nnexthops + n > rs->nexthops_cap) {
        rs->nexthops_cap = MAX(rs->nnexthops + n, 2 * rs->nexthops_cap);
        rs->nexthops = xrealloc(rs->nexthops, rs->nexthops_cap * sizeof(*rs->nexthops));
    }
    memcpy(rs->nexthops + rs->nnexthops, ports, n * sizeof(*ports));
    rs->dsts[d] = (struct route){rs->nnexthops, n};
    rs->nnexthops += n;
}

uint32_t route_set_reachable(const struct route_set *rs)
{
    uint32_t n = 0;
    const uint32_t *ports;
    for (uint32_t h = 0; h < route_set_nhosts(rs); h++)
        n += route_set_get(rs, h, &ports) > 0;
    return n;
}

bool route_set_prefixes(const struct route_set *rs, bool lpm, uint32_t max_host_routes)
{
    return lpm && rs->hosts && rs->hosts->addr_bits &&
           route_set_reachable(rs) > max_host_routes;
}

uint32_t route_set_table_entries(const struct route_set *rs, bool prefixes)
{
    const struct route_hosts *rh = rs->hosts;
    if (!prefixes || !rh || !rh->addr_bits)
        return route_set_reachable(rs);
    uint32_t n = 0;
    for (uint32_t d = 0; d < rs->ndsts; d++)
        n += d != rs->self && rs->dsts[d].n > 0;
    for (uint32_t h = 0; rs->self != ROUTE_NONE && h < rh->nhosts; h++)
        n += rh->dst[h] == rs->self;
    return n;
}

uint32_t route_dst_prefix(const struct route_hosts *rh, uint32_t d, int *len)
{
    *len = 32 - (int)rh->addr_bits;
    return 10u << 24 | d << rh->addr_bits;
}

/* One of n ports by a hash of `key` salted with `salt`. */
static uint32_t pick(const uint32_t *ports, uint32_t n, uint32_t key, uint32_t salt)
{
    uint64_t h = hash_fnv1a(&key, sizeof(key), hash_fnv1a(&salt, sizeof(salt), HASH_FNV_INIT));
    return ports[h % n];
}

bool routing_pick(const struct route_set *rs, uint32_t host, uint32_t salt, uint32_t *port)
{
    const uint32_t *ports;
    uint32_t n = route_set_get(rs, host, &ports);
    if (n == 0)
        return false;
    *port = pick(ports, n, host, salt);
    return true;
}

bool routing_pick_dst(const struct route_set *rs, uint32_t d, uint32_t salt, uint32_t *port)
{
    if (d >= rs->ndsts || d == rs->self || rs->dsts[d].n == 0)
        return false;
    *port = pick(rs->nexthops + rs->dsts[d].first, rs->dsts[d].n, d, salt);
    return true;
}

/* The topology as a flat adjacency list, by node id. */
struct graph {
    uint32_t nn;       /* ids 0..nn-1 */
    uint32_t *adj_off; /* neighbour ids of node i: adj[adj_off[i] .. adj_off[i + 1]) */
    uint32_t *adj;     /* in port order */
    int64_t *host_of;  /* node id -> host index, -1 for nodes that are not hosts */
    struct route_set **rs; /* node id -> its route set (forwarding nodes), else NULL */
};

static void graph_init(struct graph *g, struct node *const *nodes, uint32_t n)
{
    g->nn = 0;
    for (uint32_t i = 0; i < n; i++)
        g->nn = MAX(g->nn, nodes[i]->id + 1);
    g->adj_off = xcalloc(g->nn + 1, sizeof(*g->adj_off));
    g->host_of = xmalloc((g->nn + 1) * sizeof(*g->host_of));
    g->rs = xcalloc(g->nn + 1, sizeof(*g->rs));
    for (uint32_t i = 0; i < g->nn; i++)
        g->host_of[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
        struct node *nd = nodes[i];
        struct host *h = node_host(nd);
        g->adj_off[nd->id + 1] = nd->nports;
        if (h)
            g->host_of[nd->id] = h->index;
        else if (nd->ops->routes)
            g->rs[nd->id] = nd->ops->routes(nd);
    }
    for (uint32_t i = 0; i < g->nn; i++)
        g->adj_off[i + 1] += g->adj_off[i];
    g->adj = xmalloc((g->adj_off[g->nn] + 1) * sizeof(*g->adj));
    for (uint32_t i = 0; i < n; i++) {
        struct node *nd = nodes[i];
        for (uint32_t p = 0; p < nd->nports; p++)
            g->adj[g->adj_off[nd->id] + p] = nd->ports[p]->peer->node->id;
    }
}

static void graph_fini(struct graph *g)
{
    free(g->adj_off);
    free(g->adj);
    free(g->host_of);
    free(g->rs);
}

/* Hop counts over forwarding nodes from `src` (UINT32_MAX: unreachable, and every host). */
static void distances(const struct graph *g, uint32_t src, uint32_t *dist, uint32_t *queue)
{
    for (uint32_t i = 0; i < g->nn; i++)
        dist[i] = UINT32_MAX;
    uint32_t qh = 0;
    uint32_t qt = 0;
    dist[src] = 0;
    queue[qt++] = src;
    while (qh < qt) {
        uint32_t n = queue[qh++];
        for (uint32_t e = g->adj_off[n]; e < g->adj_off[n + 1]; e++) {
            uint32_t m = g->adj[e];
            if (g->rs[m] && dist[m] == UINT32_MAX) {
                dist[m] = dist[n] + 1;
                queue[qt++] = m;
            }
        }
    }
}

/* Next hops of every forwarding node toward `s` (at its own offset in hops). */
static void next_hops(const struct graph *g, uint32_t s, const uint32_t *dist, uint32_t *hops,
                      uint32_t *nhops)
{
    for (uint32_t t = 0; t < g->nn; t++) {
        nhops[t] = 0;
        if (!g->rs[t] || dist[t] == UINT32_MAX || t == s)
            continue;
        for (uint32_t e = g->adj_off[t]; e < g->adj_off[t + 1]; e++) {
            if (dist[g->adj[e]] + 1 == dist[t])
                hops[g->adj_off[t] + nhops[t]++] = e - g->adj_off[t];
        }
    }
}

/* Routes of every other forwarding node toward destination node `s` (index `d`). */
static void routes_to(const struct graph *g, uint32_t s, uint32_t d, const uint32_t *dist,
                      const uint32_t *hops, const uint32_t *nhops)
{
    for (uint32_t t = 0; t < g->nn; t++) {
        if (t != s && g->rs[t] && dist[t] != UINT32_MAX)
            route_set_put(g->rs[t], d, hops + g->adj_off[t], nhops[t]);
    }
}

static bool has_hosts(const struct graph *g, uint32_t s)
{
    for (uint32_t e = g->adj_off[s]; g->rs[s] && e < g->adj_off[s + 1]; e++) {
        if (g->host_of[g->adj[e]] >= 0)
            return true;
    }
    return false;
}

/* The destination nodes and where every host is attached; empty route sets sharing it. */
static struct route_hosts *attach_hosts(const struct graph *g, uint32_t *didx)
{
    struct arena mem = {0};
    struct route_hosts *rh = arena_calloc(&mem, 1, sizeof(*rh));
    rh->mem = mem;
    for (uint32_t i = 0; i < g->nn; i++)
        rh->nhosts = (uint32_t)MAX((int64_t)rh->nhosts, g->host_of[i] + 1);
    rh->dst = arena_calloc(&rh->mem, rh->nhosts + 1, sizeof(*rh->dst));
    rh->port = arena_calloc(&rh->mem, rh->nhosts + 1, sizeof(*rh->port));
    rh->dst_node = arena_calloc(&rh->mem, g->nn + 1, sizeof(*rh->dst_node));
    for (uint32_t h = 0; h < rh->nhosts; h++)
        rh->dst[h] = ROUTE_NONE;
    for (uint32_t s = 0; s < g->nn; s++) {
        didx[s] = ROUTE_NONE;
        if (!has_hosts(g, s))
            continue;
        didx[s] = rh->ndsts;
        rh->dst_node[rh->ndsts++] = s;
        for (uint32_t e = g->adj_off[s]; e < g->adj_off[s + 1]; e++) {
            int64_t hi = g->host_of[g->adj[e]];
            if (hi >= 0) {
                rh->dst[hi] = didx[s];
                rh->port[hi] = e - g->adj_off[s];
            }
        }
    }
    for (uint32_t t = 0; t < g->nn; t++) {
        struct route_set *rs = g->rs[t];
        if (!rs)
            continue;
        route_set_fini(rs);
        rs->hosts = rh;
        rh->refs++;
        rs->self = didx[t];
        rs->ndsts = rh->ndsts;
        rs->dsts = xcalloc(rh->ndsts + 1, sizeof(*rs->dsts));
    }
    return rh;
}

/* Hierarchical addresses (routing.h) into rh's tables; false when they do not fit in 24
 * bits. */
static bool hier_addresses(struct route_hosts *rh)
{
    uint32_t *addr = arena_calloc(&rh->mem, rh->nhosts + 1, sizeof(*addr));
    uint32_t ngroups = rh->ndsts + 1; /* the last: hosts on no forwarding node */
    uint32_t *count = arena_calloc(&rh->mem, ngroups, sizeof(*count));
    uint32_t max = 0;
    for (uint32_t h = 0; h < rh->nhosts; h++) {
        uint32_t g = rh->dst[h] == ROUTE_NONE ? rh->ndsts : rh->dst[h];
        addr[h] = ++count[g];
        max = MAX(max, addr[h]);
    }
    uint32_t bits = 1;
    while ((1u << bits) <= max)
        bits++;
    if (((uint64_t)ngroups << bits) > (1u << 24))
        return false; /* addr and count stay unused in rh->mem */
    rh->addr = addr;
    rh->dst_hosts = count;
    rh->addr_bits = bits;
    rh->naddr = ngroups << bits;
    rh->addr_host = arena_calloc(&rh->mem, rh->naddr, sizeof(*rh->addr_host));
    for (uint32_t a = 0; a < rh->naddr; a++)
        rh->addr_host[a] = ROUTE_NONE;
    for (uint32_t h = 0; h < rh->nhosts; h++) {
        uint32_t g = rh->dst[h] == ROUTE_NONE ? rh->ndsts : rh->dst[h];
        addr[h] |= g << bits;
        rh->addr_host[addr[h]] = h;
    }
    return true;
}

/* Gives every host of `nodes` its hierarchical address when they fit; else they keep their
 * flat ones (host_create). */
static void assign_addresses(struct route_hosts *rh, struct node *const *nodes, uint32_t n)
{
    if (!hier_addresses(rh))
        return;
    for (uint32_t i = 0; i < n; i++) {
        struct host *h = node_host(nodes[i]);
        if (h)
            h->ip = route_host_ip(rh, h->index);
    }
}

void routing_compute(struct node *const *nodes, uint32_t n, bool hier)
{
    struct graph g;
    graph_init(&g, nodes, n);
    uint32_t *dist = xmalloc((g.nn + 1) * sizeof(*dist));
    uint32_t *queue = xmalloc((g.nn + 1) * sizeof(*queue));
    uint32_t *hops = xmalloc((g.adj_off[g.nn] + 1) * sizeof(*hops));
    uint32_t *nhops = xmalloc((g.nn + 1) * sizeof(*nhops));
    uint32_t *didx = xmalloc((g.nn + 1) * sizeof(*didx));
    struct route_hosts *rh = attach_hosts(&g, didx);
    for (uint32_t d = 0; d < rh->ndsts; d++) {
        uint32_t s = rh->dst_node[d];
        distances(&g, s, dist, queue);
        next_hops(&g, s, dist, hops, nhops);
        routes_to(&g, s, d, dist, hops, nhops);
    }
    if (rh->refs == 0) /* no forwarding node holds it */
        route_hosts_free(rh);
    else if (hier)
        assign_addresses(rh, nodes, n);
    free(didx);
    free(nhops);
    free(hops);
    free(queue);
    free(dist);
    graph_fini(&g);
}

bool routing_reachable(struct node *src, struct node *dst, uint32_t max_hops)
{
    struct host *d = node_host(dst);
    if (!d || src->nports == 0)
        return false;
    struct node *n = src->ports[0]->peer->node;
    for (uint32_t hop = 0; hop <= max_hops; hop++) {
        if (n == dst)
            return true;
        struct route_set *rs = n->ops->routes ? n->ops->routes(n) : NULL;
        const uint32_t *ports;
        if (!rs || route_set_get(rs, d->index, &ports) == 0)
            return false;
        n = n->ports[ports[0]]->peer->node;
    }
    return false;
}
