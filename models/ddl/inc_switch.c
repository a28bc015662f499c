/* The control-plane side of in-network aggregation: the job's workers must hang off one switch
 * that runs an aggregation program (aggregation.p4 or one with its tables); the job installs
 * its multicast group (job + 1: one replica per worker, rid = worker index), the address of
 * each replica (table agg_workers) and, for libra, its hot key blocks (table hot_keys). */
#include "models/ddl/inc.h"

#include <stdio.h>
#include <string.h>

#include "models/net/p4switch.h"
#include "models/net/switch.h"
#include "p4/engine/p4rt.h"

/* The switch on the other end of host h's link, or NULL. */
static struct sw *switch_of_host(struct host *h, uint32_t *port)
{
    if (h->node.nports == 0 || !h->node.ports[0]->peer)
        return NULL;
    struct port *peer = h->node.ports[0]->peer;
    *port = peer->index;
    return switch_of(peer->node);
}

static int add_worker(struct inc *inc, uint32_t w, struct host *h, uint32_t port,
                      struct diag *d)
{
    struct ddl_job *job = inc->job;
    char jb[16], rid[16], mac[24], ip[16];
    uint8_t m[6];
    pkt_ip_mac(h->ip, m);
    snprintf(jb, sizeof(jb), "%lld", (long long)job->cfg.id);
    snprintf(rid, sizeof(rid), "%u", w);
    snprintf(mac, sizeof(mac), "0x%02x%02x%02x%02x%02x%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
    snprintf(ip, sizeof(ip), "0x%08x", h->ip);
    struct p4rt_kv keys[2] = {{"hdr.agg.job", jb}, {"standard_metadata.egress_rid", rid}};
    struct p4rt_kv args[2] = {{"mac", mac}, {"ip", ip}};
    char err[512];
    if (p4rt_table_add(inc->pipe, "agg_workers", keys, 2, "to_worker", args, 2, -1, NULL, err,
                       sizeof(err)) < 0) {
        diag_error(d, job->cfg.workers->loc, "job '%s': %s", job->name, err);
        return 1;
    }
    p4rt_mc_add_member(inc->pipe, (uint32_t)job->cfg.id + 1, port, w);
    return 0;
}

int inc_switch_setup(struct inc *inc, struct host **wh, struct diag *d)
{
    struct ddl_job *job = inc->job;
    struct sw *sw0 = NULL;
    for (uint32_t w = 0; w < job->nworkers; w++) {
        uint32_t port = 0;
        struct sw *sw = switch_of_host(wh[w], &port);
        if (!sw || (sw0 && sw != sw0)) {
            diag_error(d, job->cfg.workers->items[w]->loc,
                       "job '%s': in-network aggregation needs every worker on one switch; "
                       "'%s' is %s", job->name, wh[w]->node.name,
                       sw ? "on another switch than the first worker" : "not linked to a switch");
            return 1;
        }
        sw0 = sw;
        inc->pipe = p4switch_pipe(sw);
        if (!inc->pipe || !p4rt_table_name(inc->pipe, "agg_workers")) {
            diag_error(d, job->cfg.workers->loc,
                       "job '%s': switch '%s' does not run an aggregation program (program: "
                       "aggregation)", job->name, sw->node.name);
            return 1;
        }
        if (add_worker(inc, w, wh[w], port, d))
            return 1;
    }
    return 0;
}

int64_t inc_pool_slots(struct host *h)
{
    uint32_t port;
    struct sw *sw = switch_of_host(h, &port);
    struct p4_pipe *pipe = sw ? p4switch_pipe(sw) : NULL;
    const char *name;
    int64_t size;
    int width;
    for (int i = 0; pipe && p4rt_register_at(pipe, i, &name, &size, &width) == 0; i++) {
        size_t n = strlen(name);
        if (n >= 9 && strcmp(name + n - 9, "agg_owner") == 0)
            return size;
    }
    return -1;
}

int inc_switch_hot(struct inc *inc, uint32_t key_block, uint32_t slot, struct diag *d)
{
    struct ddl_job *job = inc->job;
    char jb[16], kb[16], sl[16];
    snprintf(jb, sizeof(jb), "%lld", (long long)job->cfg.id);
    snprintf(kb, sizeof(kb), "%u", key_block);
    snprintf(sl, sizeof(sl), "%u", slot);
    struct p4rt_kv keys[2] = {{"hdr.agg.job", jb}, {"hdr.agg.idx", kb}};
    struct p4rt_kv args[1] = {{"slot", sl}};
    char err[512];
    if (p4rt_table_add(inc->pipe, "hot_keys", keys, 2, "hot", args, 1, -1, NULL, err,
                       sizeof(err)) >= 0)
        return 0;
    diag_error(d, job->cfg.workers->loc, "job '%s': %s", job->name, err);
    return 1;
}
