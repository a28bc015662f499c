/* The builder's output stage: which ports queues.csv samples and which ports trace.pcap
 * records. */
#include "sim/app/build.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

/* "name" or "name:port" → node and port (port -1 when absent). */
static struct node *port_ref(struct builder *b, const struct cfg_node *v, long *port)
{
    if (v->kind != CFG_SCALAR) {
        build_error(b, v->loc, "expected \"node\" or \"node:port\"");
        return NULL;
    }
    char *s = xstrdup(v->str);
    char *colon = strrchr(s, ':');
    *port = -1;
    if (colon) {
        *colon = '\0';
        char *end;
        *port = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || *port < 0) {
            build_error(b, v->loc, "bad port number in '%s'", v->str);
            free(s);
            return NULL;
        }
    }
    struct node *n = build_node(b, s);
    if (!n)
        build_unknown_node(b, v->loc, s, "output port");
    else if (*port >= (long)n->nports) {
        build_error(b, v->loc, "'%s' has %u ports (0..%u)", s, n->nports,
                    n->nports ? n->nports - 1 : 0);
        n = NULL;
    }
    free(s);
    return n;
}

static void add_probes(struct scenario *sc, struct node *n, long port)
{
    for (uint32_t p = 0; p < n->nports; p++) {
        if (port >= 0 && (uint32_t)port != p)
            continue;
        sc->probes = xrealloc(sc->probes, (sc->nprobes + 1) * sizeof(*sc->probes));
        sc->probes[sc->nprobes++] = (struct queue_probe){n, p};
    }
}

/* output.queues: default every port of every node that has queues. */
static void queue_probes(struct builder *b)
{
    struct scenario *sc = b->sc;
    if (sc->out.queue_interval_ps && !sc->out.queues) {
        for (uint32_t i = 0; i < sc->nnodes; i++) {
            if (sc->nodes[i]->ops->queue_len)
                add_probes(sc, sc->nodes[i], -1);
        }
    }
    const struct cfg_node *q = sc->out.queues;
    for (size_t i = 0; q && i < (q->kind == CFG_SEQ ? q->n : 1); i++) {
        const struct cfg_node *v = q->kind == CFG_SEQ ? q->items[i] : q;
        long port;
        struct node *n = port_ref(b, v, &port);
        if (!n)
            continue;
        if (!n->ops->queue_len) {
            build_error(b, v->loc, "queue samples are taken at switch ports; '%s' is a %s",
                        n->name, n->ops->kind);
            continue;
        }
        add_probes(sc, n, port);
    }
}

void build_outputs(struct builder *b)
{
    struct scenario *sc = b->sc;
    if (param_decode(b->d, output_params, output_nparams, sc->cfg.output, &sc->out, "output")) {
        b->errors++;
        return;
    }
    queue_probes(b);
    const struct cfg_node *pc = sc->out.pcap;
    for (size_t i = 0; pc && i < (pc->kind == CFG_SEQ ? pc->n : 1); i++) {
        const struct cfg_node *v = pc->kind == CFG_SEQ ? pc->items[i] : pc;
        long port;
        if (port_ref(b, v, &port)) {
            sc->pcap_ports = xrealloc(sc->pcap_ports, (sc->npcap_ports + 1) * sizeof(char *));
            sc->pcap_ports[sc->npcap_ports++] = v->str;
        }
    }
}
