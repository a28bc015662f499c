/* The switch node kind: parameters, build hooks, the fixed forwarding stage and the packet
 * path through pipeline and traffic manager. */
#include "models/net/switch.h"

#include <stdlib.h>
#include <string.h>

#include "models/net/p4switch.h"
#include "models/net/switch_report.h"
#include "sim/util.h"

static const char *const sched_names[] = {"strict", "drr", NULL};
static const char *const ecn_names[] = {"none", "threshold", "red", NULL};
static const char *const queue_by_names[] = {"class", "priority", NULL};
static const char *const unit_names[] = {"bytes", "packets", NULL};
static const char *const routes_names[] = {"auto", "on", "off", NULL};
/* in the order of enum p4_exec */
static const char *const p4_exec_names[] = {"auto", "compiled", "interp", "native", NULL};
static const char *const ts_names[] = {"us", "ns", NULL};

static const struct param_def drr_weight = {"weight", PARAM_INT, 0, NULL, "1", "1000000"};
static const struct param_def pfc_class = {"class", PARAM_INT, 0, NULL, "0", "7"};
static const struct param_def port_number = {"port", PARAM_INT, 0, NULL, "0", "65535"};

#define EP(field) offsetof(struct p4switch_entry, field)
/* tables: all five keys; default_actions: the first three */
static const struct param_def entry_params[] = {
    {"table", PARAM_STRING, EP(table), NULL, NULL, NULL, NULL, "table name (or unique suffix)"},
    {"action", PARAM_STRING, EP(action), NULL, NULL, NULL, NULL, "action name"},
    {"args", PARAM_MAP, EP(args), PARAM_OPTIONAL, NULL, NULL, NULL, "action parameter: value"},
    {"key", PARAM_MAP, EP(key), PARAM_OPTIONAL, NULL, NULL, NULL,
     "key field: value (exact 0x0a000001, lpm 0x0a000000/8, ternary v&&&mask, range lo..hi)"},
    {"priority", PARAM_INT, EP(priority), "-1", "-1", "2147483647", NULL,
     "ternary/range entries: larger wins (-1: none)"},
};
#define DEFAULT_ACTION_KEYS 3
#define RP(field) offsetof(struct p4switch_register, field)
static const struct param_def register_params[] = {
    {"register", PARAM_STRING, RP(reg), NULL, NULL, NULL, NULL, "register name"},
    {"index", PARAM_INT, RP(index), NULL, "0", NULL, NULL, "cell"},
    {"value", PARAM_INT, RP(value), NULL, "0", NULL, NULL, "initial value"},
};
#define MP(field) offsetof(struct p4switch_mcast, field)
static const struct param_def mcast_params[] = {
    {"group", PARAM_INT, MP(group), NULL, "1", "65535", NULL, "multicast group id"},
    {"ports", PARAM_LIST, MP(ports), NULL, NULL, NULL, NULL, "member ports", &port_number, 1},
    {"rid", PARAM_INT, MP(rid), "0", "0", "65535", NULL, "replication id of the copies"},
};
#define MRP(field) offsetof(struct p4switch_mirror, field)
static const struct param_def mirror_params[] = {
    {"session", PARAM_INT, MRP(session), NULL, "0", "65535", NULL, "mirroring session id"},
    {"port", PARAM_INT, MRP(port), NULL, "0", "65535", NULL, "port the clones leave on"},
};

#define SWP(field) offsetof(struct switch_cfg, field)
#define TMP(field) (offsetof(struct switch_cfg, tm) + offsetof(struct tmgr_cfg, field))
static const struct param_def switch_params[] = {
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
    {"drr_weights", PARAM_LIST, SWP(weights), PARAM_OPTIONAL, NULL, NULL, NULL,
     "DRR weight per queue (default all 1)", &drr_weight, 1, 0, 8},
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
    {"pfc_classes", PARAM_LIST, SWP(pfc_classes), PARAM_OPTIONAL, NULL, NULL, NULL,
     "lossless classes (default all)", &pfc_class, 1, 0, 8},
    {"pfc_xoff", PARAM_SIZE, TMP(pfc_xoff_bytes), "64KB", "1KB", NULL, NULL,
     "per ingress port and class: send PAUSE at or above this many bytes buffered"},
    {"pfc_xon", PARAM_SIZE, TMP(pfc_xon_bytes), "32KB", "0", NULL, NULL,
     "send resume at or below this many bytes"},
    {"pfc_headroom", PARAM_SIZE, TMP(pfc_headroom_bytes), "0", "0", NULL, NULL,
     "bytes absorbed after XOFF (0 = auto: 2 x rate x delay + 3 MTU frames + PAUSE)"},
    {"program", PARAM_STRING, SWP(program), "basic", NULL, NULL, NULL,
     "P4 program: basic, tensorexpress, a .p4 path, or none (fixed routing, no P4)"},
    {"queue_by", PARAM_ENUM, SWP(queue_by), "class", NULL, NULL, queue_by_names,
     "program none: a packet's egress queue is its traffic class (class: the sending flow's "
     "priority, also its NIC queue and PFC class, so DDL tensor priorities do not reorder "
     "packets of one class: FIFO) or its scheduling priority (priority: a DDL packet's layer "
     "priority from the shim, switch priority scheduling without P4); a P4 program chooses "
     "with standard_metadata.priority"},
    {"tables", PARAM_TABLE, SWP(p4_tables), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 table entries", entry_params, ARRAY_LEN(entry_params), sizeof(struct p4switch_entry)},
    {"default_actions", PARAM_TABLE, SWP(p4_defaults), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 default actions", entry_params, DEFAULT_ACTION_KEYS, sizeof(struct p4switch_entry)},
    {"registers", PARAM_TABLE, SWP(p4_registers), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 register initial values", register_params, ARRAY_LEN(register_params),
     sizeof(struct p4switch_register)},
    {"multicast", PARAM_TABLE, SWP(p4_multicast), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 multicast groups", mcast_params, ARRAY_LEN(mcast_params),
     sizeof(struct p4switch_mcast)},
    {"mirror", PARAM_TABLE, SWP(p4_mirror), PARAM_OPTIONAL, NULL, NULL, NULL,
     "P4 mirroring (clone) sessions", mirror_params, ARRAY_LEN(mirror_params),
     sizeof(struct p4switch_mirror)},
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
    {"p4_exec", PARAM_ENUM, SWP(p4_exec), "auto", NULL, NULL, p4_exec_names,
     "P4: the engine (auto: the default, native; native: the compiled form as machine code; "
     "compiled: the compiled form run as records; interp: the reference interpreter)"},
    {"timestamps", PARAM_ENUM, SWP(timestamps), "us", NULL, NULL, ts_names,
     "P4: unit of standard_metadata timestamps (us like bmv2, or ns)"},
    {"sram_stages", PARAM_INT, SWP(sram_stages), "12", "1", "64", NULL,
     "P4: pipeline stages whose SRAM holds the program's registers"},
    {"sram_stage_bytes", PARAM_SIZE, SWP(sram_stage_bytes), "1MB", "0", NULL, NULL,
     "P4: register memory per stage; a program whose registers (cells x element bytes) exceed "
     "sram_stages x sram_stage_bytes is an error"},
};
static const size_t switch_nparams = ARRAY_LEN(switch_params);

static struct sw *sw_of(struct node *n)
{
    return container_of(n, struct sw, node);
}

void switch_enqueue(struct sw *sw, uint32_t out, struct pkt *p)
{
    struct sim *sim = sw->node.sim;
    if (out >= sw->node.nports) {
        sw->no_route_drops++;
        pkt_free(sim, p);
        return;
    }
    /* the traffic manager's lines and the port's three (the kick, a transmission's counters, the
     * wire: node.h), fetched together instead of one after the other */
    tmgr_prefetch(&sw->tm, out);
    const char *port = (const char *)sw->node.ports[out];
    SIM_PREFETCH(port);
    SIM_PREFETCH(port + 64);
    SIM_PREFETCH(port + 128);
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

/* Fixed routing: destination IPv4 address → next hops (routing.h), ECMP by 5-tuple hash;
 * the queue is the packet's traffic class or its scheduling priority (`queue_by`). */
static void route_ingress(struct sw *sw, struct pkt *p)
{
    const uint32_t *ports;
    uint32_t n = pkt_is_ipv4(p) ? route_set_get_ip(&sw->routes, pkt_ipv4_dst(p), &ports) : 0;
    if (n == 0) {
        sw->no_route_drops++;
        pkt_free(sw->node.sim, p);
        return;
    }
    uint32_t k = n == 1 ? 0 : pkt_flow_hash(p, sw->salt) % n;
    p->qclass = sw->queue_by == SWITCH_QUEUE_BY_PRIORITY ? p->prio : p->tc;
    switch_enqueue(sw, ports[k], p);
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
    struct sw *sw = sw_of(n);
    if (pfc_is_pause(p)) {
        pfc_receive(n->sim, in, p);
        return;
    }
    sw->rx_pkts++; /* p->in_port: set by the link (in->index) */
    if (sw->pipelined)
        delayline_push(n->sim, &sw->pipe, p);
    else
        sw->stage->ingress(sw, p); /* what the delay line does at once, without reading it */
}

static struct pkt *switch_pull(struct node *n, struct port *out)
{
    struct sw *sw = sw_of(n);
    /* a PAUSE holds traffic classes; a queue may hold another class than its index (queue_by
     * priority, or a P4 program's priority), so a queue is held while its head's class is */
    bool pfc = out->pfc_heard;
    uint8_t tc_allowed = pfc ? pfc_allowed(out, n->sim->now) : PQ_ALL;
    for (;;) {
        uint8_t allowed = pfc ? pq_queues_allowed(&sw->tm.ports[out->index].q, tc_allowed) : PQ_ALL;
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

static bool switch_idle(const struct node *n, const struct port *out)
{
    const struct sw *sw = container_of(n, struct sw, node);
    return sw->tm.ports[out->index].q.pkts == 0;
}

static void switch_destroy(struct node *n)
{
    struct sw *sw = sw_of(n);
    /* packets in the pipeline and queues may hold stage state: free them first */
    delayline_fini(n->sim, &sw->pipe);
    if (sw->tm.ports)
        tmgr_fini(n->sim, &sw->tm);
    if (sw->stage->destroy)
        sw->stage->destroy(sw);
    route_set_fini(&sw->routes);
    param_free(switch_params, switch_nparams, &sw->cfg);
    node_fini(n);
    free(sw);
}

static int switch_check(const void *cfgp, const struct param_layers *where, const char *name,
                        struct diag *d)
{
    const struct switch_cfg *c = cfgp;
    int errors = 0;
    if (c->tm.pfc && c->tm.pfc_xon_bytes > c->tm.pfc_xoff_bytes) {
        diag_error(d, param_layers_loc(where, "pfc_xon"),
                   "switch '%s': pfc_xon must not exceed pfc_xoff", name);
        errors++;
    }
    if (c->tm.ecn_mode == TMGR_ECN_RED && c->tm.ecn_kmax <= c->tm.ecn_kmin) {
        diag_error(d, param_layers_loc(where, "ecn_kmax"),
                   "switch '%s': ecn red needs ecn_kmax > ecn_kmin", name);
        errors++;
    }
    return errors;
}

static struct node *switch_create(const struct node_env *env, const char *name, uint32_t id,
                                  const void *cfgp)
{
    const struct switch_cfg *cfg = cfgp;
    struct sw *sw = xaligned(64, sizeof(*sw)); /* its lines as switch.h lays them out */
    memset(sw, 0, sizeof(*sw));
    node_init(&sw->node, env->sim, &switch_node_ops, name, id);
    sw->cfg = *cfg;
    sw->queue_by = (uint8_t)cfg->queue_by;
    sw->pipelined = cfg->latency_ps > 0;
    sw->cfg.tm.pfc_classes = 0xff;
    if (cfg->pfc_classes.given) {
        sw->cfg.tm.pfc_classes = 0;
        for (uint32_t k = 0; k < cfg->pfc_classes.n; k++)
            sw->cfg.tm.pfc_classes |= (uint8_t)(1u << param_vec_int(&cfg->pfc_classes, k));
    }
    sw->stage = &route_stage;
    sw->salt = (uint32_t)hash_fnv1a(name, strlen(name), HASH_FNV_INIT);
    delayline_init(&sw->pipe, cfg->latency_ps, pipeline_out, sw);
    return &sw->node;
}

/* Bytes the upstream may still send after XOFF: while the PAUSE waits behind a frame already on
 * our wire (one frame), crosses the link (its own time and one propagation delay) and the
 * upstream finishes the frame it started (one frame), plus what is on the wire toward us (one
 * propagation delay), plus one frame of response time, as 802.1Qbb headroom sizing counts. */
static uint64_t auto_headroom(const struct link_cfg *l)
{
    unsigned __int128 bdp = (unsigned __int128)l->rate_bps * (uint64_t)l->delay_ps * 2;
    return (uint64_t)(bdp / 8 / 1000000000000ULL) + 3 * link_wire_bytes(l, 1514) +
           link_wire_bytes(l, PFC_FRAME_BYTES);
}

/* The traffic manager, once every link is connected. */
static int switch_connected(struct node *n, const struct node_env *env,
                            const struct param_layers *where)
{
    (void)env;
    (void)where;
    struct sw *sw = sw_of(n);
    char stream[256];
    snprintf(stream, sizeof(stream), "switch.%s.ecn", n->name);
    tmgr_init(&sw->tm, &sw->cfg.tm, n->nports, sim_rng(n->sim, stream));
    const struct param_vec *w = &sw->cfg.weights;
    for (uint32_t i = 0; i < n->nports; i++) {
        for (uint32_t c = 0; c < w->n; c++)
            sw->tm.ports[i].q.weight[c] = (uint32_t)param_vec_int(w, c);
        pq_attach(&sw->tm.ports[i].q, &n->ports[i]->tx.cfg);
        uint64_t h = sw->cfg.tm.pfc_headroom_bytes;
        sw->tm.ports[i].headroom_bytes = h ? h : auto_headroom(&n->ports[i]->tx.cfg);
    }
    return 0;
}

static struct route_set *switch_routes(struct node *n)
{
    return &sw_of(n)->routes;
}

const struct node_ops switch_node_ops = {
    .kind = "switch",
    .summary = "a switch: forwarding stage + traffic manager (entries of `switches:`)",
    .params = switch_params,
    .nparams = &switch_nparams,
    .cfg_size = sizeof(struct switch_cfg),
    .shared_create = p4switch_shared_create,
    .shared_destroy = p4switch_shared_destroy,
    .shared_inputs = p4switch_shared_inputs,
    .check = switch_check,
    .create = switch_create,
    .connected = switch_connected,
    .finish = p4switch_setup,
    .routes = switch_routes,
    .receive = switch_receive,
    .pull = switch_pull,
    .idle = switch_idle,
    .destroy = switch_destroy,
    .stats_json = switch_stats_json,
    .drops = switch_drops,
    .print = switch_print,
    .queue_len = switch_queue_len,
};
