#include "models/net/switch.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

static const char *const sched_names[] = {"strict", "drr", NULL};
static const char *const ecn_names[] = {"none", "threshold", "red", NULL};
static const char *const unit_names[] = {"bytes", "packets", NULL};
static const char *const routes_names[] = {"auto", "on", "off", NULL};
static const char *const ts_names[] = {"us", "ns", NULL};

#define SWP(field) offsetof(struct switch_cfg, field)
#define TMP(field) (offsetof(struct switch_cfg, tm) + offsetof(struct tmgr_cfg, field))
const struct param_def switch_params[] = {
    {"name", PARAM_STRING, SWP(name), PARAM_OPTIONAL, NULL, NULL, NULL, "switch name (unique)"},
    {"latency", PARAM_TIME, SWP(latency_ps), "0", "0", "1s", NULL,
     "pipeline latency from ingress port to traffic manager"},
    {"buffer", PARAM_SIZE, TMP(buffer_bytes), "0", NULL, NULL, NULL,
     "shared packet buffer for all ports, bytes (0 = unlimited)"},
    {"queue_limit", PARAM_SIZE, TMP(queue_limit_bytes), "0", NULL, NULL, NULL,
     "byte limit of each queue (0 = unlimited)"},
    {"priorities", PARAM_INT, TMP(nprio), "8", "1", "8", NULL,
     "queues per egress port; packet priority p uses queue min(p, priorities-1)"},
    {"scheduler", PARAM_ENUM, TMP(sched), "strict", NULL, NULL, sched_names,
     "strict: higher priority first; drr: deficit round robin with weights"},
    {"drr_quantum", PARAM_SIZE, TMP(drr_quantum_bytes), "1514B", "64B", "1MB", NULL,
     "DRR quantum, bytes per round per unit of weight"},
    {"drr_weights", PARAM_NODE, SWP(weights), PARAM_OPTIONAL, NULL, NULL, NULL,
     "DRR weight per queue, a list of integers (default all 1)"},
    {"ecn", PARAM_ENUM, TMP(ecn_mode), "none", NULL, NULL, ecn_names,
     "ECN marking at enqueue of ECN-capable packets"},
    {"ecn_unit", PARAM_ENUM, TMP(ecn_unit), "bytes", NULL, NULL, unit_names,
     "unit of ecn_kmin/ecn_kmax: queue bytes or packets"},
    {"ecn_kmin", PARAM_SIZE, TMP(ecn_kmin), "0", NULL, NULL, NULL,
     "threshold: mark at or above; red: marking starts"},
    {"ecn_kmax", PARAM_SIZE, TMP(ecn_kmax), "0", NULL, NULL, NULL,
     "red: probability reaches ecn_pmax here, 1 above"},
    {"ecn_pmax", PARAM_DOUBLE, TMP(ecn_pmax), "1", "0", "1", NULL,
     "red: marking probability at ecn_kmax"},
    {"pfc", PARAM_BOOL, TMP(pfc), "false", NULL, NULL, NULL,
     "priority flow control (802.1Qbb) for the lossless classes"},
    {"pfc_classes", PARAM_NODE, SWP(pfc_classes), PARAM_OPTIONAL, NULL, NULL, NULL,
     "lossless classes, a list of 0..7 (default all)"},
    {"pfc_xoff", PARAM_SIZE, TMP(pfc_xoff_bytes), "64KB", "1KB", NULL, NULL,
     "per ingress port and class: send PAUSE at or above this many bytes buffered"},
    {"pfc_xon", PARAM_SIZE, TMP(pfc_xon_bytes), "32KB", "0", NULL, NULL,
     "send resume at or below this many bytes"},
    {"pfc_headroom", PARAM_SIZE, TMP(pfc_headroom_bytes), "0", "0", NULL, NULL,
     "bytes absorbed after XOFF (0 = auto: 2 x rate x delay + 3 MTU frames + PAUSE)"},
    {"program", PARAM_STRING, SWP(program), "basic", NULL, NULL, NULL,
     "P4 program: basic, tensorexpress, a .p4 path, or none (fixed routing, no P4)"},
    {"tables", PARAM_NODE, SWP(p4_tables), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 table entries: [{table, key: {field: value}, action, args: {param: value}, priority}]"},
    {"default_actions", PARAM_NODE, SWP(p4_defaults), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 default actions: [{table, action, args}]"},
    {"registers", PARAM_NODE, SWP(p4_registers), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 register initial values: [{register, index, value}]"},
    {"multicast", PARAM_NODE, SWP(p4_multicast), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 multicast groups: [{group, ports: [...], rid}]"},
    {"mirror", PARAM_NODE, SWP(p4_mirror), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 mirroring (clone) sessions: [{session, port}]"},
    {"routes", PARAM_ENUM, SWP(routes), "auto", NULL, NULL, routes_names,
     "P4: install shortest-path routes into route_table (auto: if the program has it)"},
    {"route_table", PARAM_STRING, SWP(route_table), "ipv4_lpm", NULL, NULL, NULL,
     "P4: lpm table that receives the routes"},
    {"route_key", PARAM_STRING, SWP(route_key), "hdr.ipv4.dstAddr", NULL, NULL, NULL,
     "P4: its key (the destination address)"},
    {"route_action", PARAM_STRING, SWP(route_action), "ipv4_forward", NULL, NULL, NULL,
     "P4: its action"},
    {"route_port_arg", PARAM_STRING, SWP(route_port_arg), "port", NULL, NULL, NULL,
     "P4: the action parameter that gets the egress port"},
    {"route_mac_arg", PARAM_STRING, SWP(route_mac_arg), "dstAddr", NULL, NULL, NULL,
     "P4: the action parameter that gets the next hop MAC (\"\" for none)"},
    {"timestamps", PARAM_ENUM, SWP(timestamps), "us", NULL, NULL, ts_names,
     "P4: unit of standard_metadata timestamps (us like bmv2, or ns)"},
};
const size_t switch_nparams = ARRAY_LEN(switch_params);

static void switch_receive(struct node *n, struct port *in, struct pkt *p);
static struct pkt *switch_pull(struct node *n, struct port *out);
static void switch_destroy(struct node *n);

static const struct node_ops switch_ops = {
    .kind = "switch",
    .receive = switch_receive,
    .pull = switch_pull,
    .destroy = switch_destroy,
};

bool node_is_switch(const struct node *n)
{
    return n->ops == &switch_ops;
}

void switch_enqueue(struct sw *sw, uint32_t out, struct pkt *p)
{
    struct sim *sim = sw->node.sim;
    if (out >= sw->node.nports) {
        sw->no_route_drops++;
        pkt_free(sim, p);
        return;
    }
    uint32_t in = p->in_port;
    uint8_t cls = p->tc & 7;
    bool lossless = tmgr_lossless(&sw->tm, p);
    if (!tmgr_enqueue(sim, &sw->tm, out, p))
        return;
    if (lossless && sw->tm.ports[in].ingress_bytes[cls] >= sw->tm.cfg.pfc_xoff_bytes &&
        !((sw->node.ports[in]->pfc_tx.paused >> cls) & 1u))
        pfc_send_xoff(sim, sw->node.ports[in], cls);
    link_kick(sim, &sw->node.ports[out]->tx);
}

/* Fixed routing: destination IPv4 address → host index → next hops, ECMP by 5-tuple hash;
 * the queue is the packet's priority. */
static void route_ingress(struct sw *sw, struct pkt *p)
{
    uint32_t h = pkt_is_ipv4(p) ? pkt_ip_host(pkt_ipv4_dst(p)) : UINT32_MAX;
    if (h >= sw->nroutes || sw->routes[h].n == 0) {
        sw->no_route_drops++;
        pkt_free(sw->node.sim, p);
        return;
    }
    const struct switch_route *r = &sw->routes[h];
    uint32_t k = r->n == 1 ? 0 : pkt_flow_hash(p, sw->salt) % r->n;
    p->qclass = p->prio;
    switch_enqueue(sw, sw->nexthops[r->first + k], p);
}

static const struct switch_stage_ops route_stage = {.ingress = route_ingress};

void switch_set_stage(struct sw *sw, const struct switch_stage_ops *ops, void *ud)
{
    sw->stage = ops;
    sw->stage_ud = ud;
}

static void pipeline_out(struct delayline *dl, struct pkt *p, void *ud)
{
    (void)dl;
    struct sw *sw = ud;
    sw->stage->ingress(sw, p);
}

void switch_reinject(struct sw *sw, struct pkt *p)
{
    delayline_push(sw->node.sim, &sw->pipe, p);
}

static void switch_receive(struct node *n, struct port *in, struct pkt *p)
{
    struct sw *sw = switch_of(n);
    if (pfc_is_pause(p)) {
        pfc_receive(n->sim, in, p);
        return;
    }
    sw->rx_pkts++;
    p->in_port = (uint16_t)in->index;
    delayline_push(n->sim, &sw->pipe, p);
}

static struct pkt *switch_pull(struct node *n, struct port *out)
{
    struct sw *sw = switch_of(n);
    uint8_t allowed = out->pfc_rx.frames ? pfc_allowed(out, n->sim->now) : PQ_ALL;
    for (;;) {
        struct pkt *p = tmgr_dequeue(n->sim, &sw->tm, out->index, allowed);
        if (!p)
            return NULL;
        if (tmgr_lossless(&sw->tm, p)) {
            struct port *in = n->ports[p->in_port];
            uint8_t cls = p->tc & 7;
            if (((in->pfc_tx.paused >> cls) & 1u) &&
                sw->tm.ports[p->in_port].ingress_bytes[cls] <= sw->tm.cfg.pfc_xon_bytes)
                pfc_send_xon(n->sim, in, cls);
        }
        if (sw->stage->egress)
            p = sw->stage->egress(sw, out->index, p);
        if (!p)
            continue; /* dropped or recirculated by the egress stage: try the next one */
        p->tm_ce = false;
        tmgr_note_tx(&sw->tm, out->index, p, n->sim->now, link_tx_ps(&out->tx, p->size_bytes));
        return p;
    }
}

static void switch_destroy(struct node *n)
{
    struct sw *sw = switch_of(n);
    /* packets in the pipeline and queues may hold stage state: free them first */
    delayline_fini(n->sim, &sw->pipe);
    if (sw->tm.ports)
        tmgr_fini(n->sim, &sw->tm);
    if (sw->stage->destroy)
        sw->stage->destroy(sw);
    free(sw->routes);
    free(sw->nexthops);
    node_fini(n);
    free(sw);
}

struct sw *switch_create(struct sim *sim, const char *name, uint32_t id,
                         const struct switch_cfg *cfg)
{
    struct sw *sw = xcalloc(1, sizeof(*sw));
    node_init(&sw->node, sim, &switch_ops, name, id);
    sw->cfg = *cfg;
    sw->stage = &route_stage;
    sw->salt = (uint32_t)hash_fnv1a(name, strlen(name), HASH_FNV_INIT);
    delayline_init(&sw->pipe, cfg->latency_ps, pipeline_out, sw);
    return sw;
}

void switch_finish_ports(struct sw *sw)
{
    char stream[256];
    snprintf(stream, sizeof(stream), "switch.%s.ecn", sw->node.name);
    tmgr_init(&sw->tm, &sw->cfg.tm, sw->node.nports, sim_rng(sw->node.sim, stream));
    const struct cfg_node *w = sw->cfg.weights;
    for (uint32_t i = 0; w && i < sw->node.nports; i++) {
        for (size_t c = 0; c < w->n && c < PQ_MAX_PRIO; c++)
            sw->tm.ports[i].q.cls[c].weight = (uint32_t)strtoul(w->items[c]->str, NULL, 10);
    }
    for (uint32_t i = 0; i < sw->node.nports; i++) {
        const struct link_cfg *l = &sw->node.ports[i]->tx.cfg;
        uint64_t h = sw->cfg.tm.pfc_headroom_bytes;
        if (h == 0) {
            /* bytes the upstream may still send after XOFF: while the PAUSE waits behind a frame
             * already on our wire (one frame), crosses the link (its own time and one
             * propagation delay) and the upstream finishes the frame it started (one frame),
             * plus what is on the wire toward us (one propagation delay), plus one frame of
             * response time, as 802.1Qbb headroom sizing counts */
            unsigned __int128 bdp = (unsigned __int128)l->rate_bps * (uint64_t)l->delay_ps * 2;
            h = (uint64_t)(bdp / 8 / 1000000000000ULL) + 3 * (1514 + l->overhead_bytes) +
                PFC_FRAME_BYTES + l->overhead_bytes;
        }
        sw->tm.ports[i].headroom_bytes = h;
    }
}

void switch_set_route(struct sw *sw, uint32_t host, const uint32_t *ports, uint32_t n)
{
    /* The builder adds one host at a time: grow geometrically, or building a large fabric
     * copies every table once per host. */
    if (host >= sw->nroutes) {
        if (host >= sw->routes_cap) {
            sw->routes_cap = MAX(host + 1, 2 * sw->routes_cap);
            sw->routes = xrealloc(sw->routes, sw->routes_cap * sizeof(*sw->routes));
        }
        memset(sw->routes + sw->nroutes, 0, (host + 1 - sw->nroutes) * sizeof(*sw->routes));
        sw->nroutes = host + 1;
    }
    if (sw->nnexthops + n > sw->nexthops_cap) {
        sw->nexthops_cap = MAX(sw->nnexthops + n, 2 * sw->nexthops_cap);
        sw->nexthops = xrealloc(sw->nexthops, sw->nexthops_cap * sizeof(*sw->nexthops));
    }
    memcpy(sw->nexthops + sw->nnexthops, ports, n * sizeof(*ports));
    sw->routes[host] = (struct switch_route){sw->nnexthops, n};
    sw->nnexthops += n;
}
