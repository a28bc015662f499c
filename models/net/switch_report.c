/* A switch's statistics: summary.json object, drops, human summary lines, queue samples. */
#include "models/net/switch_report.h"

#include <math.h>

#include "models/net/switch.h"
#include "sim/util.h"

static const struct sw *sw_of(const struct node *n)
{
    return container_of(n, struct sw, node);
}

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* Totals of a port over its classes; marks by the traffic manager and by the P4 program. */
struct port_sums {
    uint64_t enq;
    uint64_t drops;
    uint64_t drop_bytes;
    uint64_t marks;
};

static struct port_sums port_sums(const struct tmgr_port *tp)
{
    struct port_sums s = {.marks = tp->p4_marks};
    for (int c = 0; c < tp->q.nprio; c++) {
        s.enq += tmgr_enq(tp, c)->pkts;
        s.drops += tp->cls[c].drop_pkts;
        s.drop_bytes += tp->cls[c].drop_bytes;
        s.marks += tp->cls[c].mark_pkts;
    }
    return s;
}

static json_t *classes_json(const struct tmgr_port *tp)
{
    json_t *classes = json_array();
    for (int c = 0; c < tp->q.nprio; c++) {
        const struct tmgr_stats *st = &tp->cls[c];
        const struct tmgr_enq_stats *es = tmgr_enq(tp, c);
        if (es->pkts == 0 && st->drop_pkts == 0)
            continue;
        json_t *co = json_object();
        json_object_set_new(co, "priority", json_integer(c));
        json_object_set_new(co, "enqueued", json_integer((json_int_t)es->pkts));
        json_object_set_new(co, "dropped", json_integer((json_int_t)st->drop_pkts));
        json_object_set_new(co, "marked", json_integer((json_int_t)st->mark_pkts));
        json_object_set_new(co, "max_queue_bytes", json_integer((json_int_t)es->max_bytes));
        json_object_set_new(co, "max_queue_packets", json_integer(es->max_pkts));
        json_array_append_new(classes, co);
    }
    return classes;
}

static json_t *port_json(const struct sw *s, uint32_t p, sim_time_t end)
{
    const struct port *port = s->node.ports[p];
    const struct tmgr_port *tp = &s->tm.ports[p];
    struct port_sums sum = port_sums(tp);
    json_t *o = json_object();
    json_object_set_new(o, "port", json_integer(p));
    json_object_set_new(o, "peer", json_string(port->peer->node->name));
    json_object_set_new(o, "tx_packets", json_integer((json_int_t)port->tx.tx_pkts));
    json_object_set_new(o, "tx_bytes", json_integer((json_int_t)port->tx.tx_bytes));
    json_object_set_new(o, "utilization",
                        jnum(end > 0 ? (double)link_busy_ps(&port->tx) / (double)end : NAN));
    json_object_set_new(o, "enqueued", json_integer((json_int_t)sum.enq));
    json_object_set_new(o, "dropped", json_integer((json_int_t)sum.drops));
    json_object_set_new(o, "dropped_bytes", json_integer((json_int_t)sum.drop_bytes));
    json_object_set_new(o, "marked", json_integer((json_int_t)sum.marks));
    json_object_set_new(o, "marked_p4", json_integer((json_int_t)tp->p4_marks));
    json_object_set_new(o, "max_queue_bytes", json_integer((json_int_t)tp->max_bytes));
    json_object_set_new(o, "max_queue_packets", json_integer(tp->max_pkts));
    json_object_set_new(o, "classes", classes_json(tp));
    if (s->tm.cfg.pfc || port->pfc_rx.frames)
        json_object_set_new(o, "pfc", pfc_stats_json(port, &tp->headroom_drops));
    return o;
}

/* Drops by reason: full buffer or queue limit, PFC headroom overflow (lossless classes), the
 * P4 program (ingress or egress drop, or its limits), no route. */
static json_t *drops_json(const struct sw *s)
{
    uint64_t tm = 0;
    uint64_t headroom = 0;
    for (uint32_t p = 0; p < s->node.nports; p++) {
        struct port_sums sum = port_sums(&s->tm.ports[p]);
        tm += sum.drops;
        headroom += s->tm.ports[p].headroom_drops;
    }
    json_t *o = json_object();
    json_object_set_new(o, "buffer", json_integer((json_int_t)(tm - headroom)));
    json_object_set_new(o, "pfc_headroom", json_integer((json_int_t)headroom));
    json_object_set_new(o, "p4_ingress", json_integer((json_int_t)s->ingress_drops));
    json_object_set_new(o, "p4_egress", json_integer((json_int_t)s->egress_drops));
    json_object_set_new(o, "p4_limits", json_integer((json_int_t)s->p4_limit_drops));
    json_object_set_new(o, "no_route", json_integer((json_int_t)s->no_route_drops));
    return o;
}

void switch_stats_json(const struct node *n, json_t *obj, sim_time_t end)
{
    const struct sw *s = sw_of(n);
    json_object_set_new(obj, "rx_packets", json_integer((json_int_t)s->rx_pkts));
    json_object_set_new(obj, "no_route_drops", json_integer((json_int_t)s->no_route_drops));
    json_object_set_new(obj, "drops", drops_json(s));
    json_object_set_new(obj, "peak_buffer_bytes", json_integer((json_int_t)s->tm.peak_buffered));
    json_t *ports = json_array();
    for (uint32_t p = 0; p < n->nports; p++)
        json_array_append_new(ports, port_json(s, p, end));
    json_object_set_new(obj, "ports", ports);
}

uint64_t switch_drops(const struct node *n)
{
    const struct sw *s = sw_of(n);
    uint64_t drops = s->no_route_drops + s->ingress_drops + s->egress_drops + s->p4_limit_drops;
    for (uint32_t p = 0; p < n->nports; p++)
        drops += port_sums(&s->tm.ports[p]).drops;
    return drops;
}

void switch_print(const struct node *n, FILE *out, sim_time_t end, bool *header)
{
    const struct sw *s = sw_of(n);
    for (uint32_t p = 0; p < n->nports; p++) {
        const struct tmgr_port *tp = &s->tm.ports[p];
        struct port_sums sum = port_sums(tp);
        if (sum.drops == 0 && sum.marks == 0 && tp->max_pkts < 2)
            continue;
        if (!*header) {
            fprintf(out, "\n%-16s %10s %10s %10s %14s %10s\n", "switch port", "enqueued",
                    "dropped", "marked", "max queue B", "util");
            *header = true;
        }
        char name[64];
        snprintf(name, sizeof(name), "%s:%u>%s", n->name, p, n->ports[p]->peer->node->name);
        double util = end > 0 ? (double)link_busy_ps(&n->ports[p]->tx) / (double)end : 0.0;
        fprintf(out, "%-16s %10llu %10llu %10llu %14llu %9.1f%%\n", name,
                (unsigned long long)sum.enq, (unsigned long long)sum.drops,
                (unsigned long long)sum.marks, (unsigned long long)tp->max_bytes, 100.0 * util);
    }
}

void switch_queue_len(const struct node *n, uint32_t port, uint64_t *bytes, uint32_t *pkts)
{
    const struct pq *q = &sw_of(n)->tm.ports[port].q;
    *bytes = q->bytes;
    *pkts = q->pkts;
}
