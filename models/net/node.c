/* Nodes and ports: creation, connection, teardown. */
#include "models/net/node.h"

#include "models/net/host.h"

#include <stdlib.h>

#include "sim/util.h"

_Static_assert(offsetof(struct port, tx) + offsetof(struct link, ctrl_queued) < 64 &&
                   offsetof(struct port, tx) + offsetof(struct link, tx_done) == 64 &&
                   offsetof(struct port, tx) + offsetof(struct link, on_wire) == 128 &&
                   offsetof(struct port, tx) + offsetof(struct link, keyed) < 192,
               "struct port: the link's hot lines are the port's lines 0, 1 and 2");

void node_init(struct node *n, struct sim *sim, const struct node_ops *ops, const char *name,
               uint32_t id)
{
    n->id = id;
    n->name = xstrdup(name);
    n->sim = sim;
    n->ops = ops;
    n->ports = NULL;
    n->nports = 0;
}

void node_fini(struct node *n)
{
    for (uint32_t i = 0; i < n->nports; i++) {
        pfc_port_fini(n->sim, n->ports[i]);
        link_fini(n->sim, &n->ports[i]->tx);
        free(n->ports[i]);
    }
    free(n->ports);
    free(n->name);
}

static struct port *add_port(struct node *n)
{
    /* on cache lines of its own: an event on the port reads its first three (node.h) */
    struct port *p = xaligned(64, sizeof(*p));
    *p = (struct port){0};
    p->node = n;
    p->index = n->nports;
    pfc_port_init(p);
    n->ports = xrealloc(n->ports, (n->nports + 1) * sizeof(*n->ports));
    n->ports[n->nports++] = p;
    return p;
}

void node_connect(struct node *a, struct node *b, const struct link_cfg *cfg)
{
    struct port *pa = add_port(a);
    struct port *pb = add_port(b);
    pa->peer = pb;
    pb->peer = pa;
    link_init(&pa->tx, pa, cfg);
    link_init(&pb->tx, pb, cfg);
}

struct host *node_host(struct node *n)
{
    return host_of(n);
}
