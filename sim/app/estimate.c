#include "sim/app/estimate.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sim/evq.h"
#include "sim/strmap.h"
#include "sim/util.h"

/* Bytes per object, rounded up from the peak RSS of `ddlsim check` on generated topologies with
 * `program: none`: a star of 10,000 and 40,000 hosts (4.2-4.7 KB per host with its link and
 * switch port), leaf_spine 200-400 x 200-400 x 1 (2.4 KB per link once routes are counted). A
 * switch holds a route per destination switch (one with hosts): 8 bytes plus 4 per equal-cost
 * next hop (models/net/routing.h), the next hops bounded by its links to other switches (or 1):
 * exact for the leaves of a leaf-spine and the edges of a fat tree, an upper bound elsewhere. */
#define EST_BASE (16ULL << 20)
#define EST_HOST 5000ULL
#define EST_SWITCH 8000ULL
#define EST_LINK 3000ULL
#define EST_ROUTE 8ULL
#define EST_NEXTHOP 4ULL
/* Timers an object may have pending at once, each an entry of the event queue while the run
 * goes (the per-object bytes above come from `check`, which runs no event): a link a transmission
 * end and an arrival each way and its two ports' PFC pause and refresh; a host its CPU core (one
 * by default) and a spare; a switch its pipeline's delay line (a flow's: estimate.h). */
#define EST_TIMERS_LINK 8ULL
#define EST_TIMERS_HOST 2ULL
#define EST_TIMERS_SWITCH 1ULL

/* Sum over switches of (8 + 4 x its links to switches): the route bytes per destination. A
 * destination is a switch with hosts (models/net/routing.h: hosts behind one switch share its
 * routes); their number goes to *ndst. */
static uint64_t route_bytes_per_dst(const struct topo *t, uint64_t *ndst)
{
    struct strmap idx;
    strmap_init(&idx, t->nnodes);
    uint64_t *deg = xcalloc(t->nnodes + 1, sizeof(*deg));
    bool *dst = xcalloc(t->nnodes + 1, sizeof(*dst));
    for (size_t i = 0; i < t->nnodes; i++)
        strmap_put(&idx, t->nodes[i].name, (uint32_t)i);
    for (size_t i = 0; i < t->nlinks; i++) {
        uint32_t a;
        uint32_t b;
        if (!strmap_get(&idx, t->links[i].a, &a) || !strmap_get(&idx, t->links[i].b, &b))
            continue;
        bool ha = t->nodes[a].kind == DECL_HOST;
        bool hb = t->nodes[b].kind == DECL_HOST;
        if (!ha && !hb) {
            deg[a]++;
            deg[b]++;
        }
        if (ha && !hb)
            dst[b] = true;
        if (hb && !ha)
            dst[a] = true;
    }
    uint64_t sum = 0;
    *ndst = 0;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].kind != DECL_HOST)
            sum += EST_ROUTE + EST_NEXTHOP * (deg[i] ? deg[i] : 1);
        *ndst += dst[i];
    }
    free(dst);
    free(deg);
    strmap_fini(&idx);
    return sum;
}

void estimate_compute(struct estimate *e, const struct topo *t, const struct cfg_node *root)
{
    *e = (struct estimate){0};
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].kind == DECL_HOST)
            e->hosts++;
        else
            e->switches++;
    }
    e->links = t->nlinks;
    uint64_t ndst;
    uint64_t per_dst = route_bytes_per_dst(t, &ndst);
    e->routes = e->switches * ndst;
    const struct cfg_node *flows = cfg_get(root, "flows");
    e->flows = flows && flows->kind == CFG_SEQ ? flows->n : 0;
    e->timers = e->links * EST_TIMERS_LINK + e->hosts * EST_TIMERS_HOST +
                e->switches * EST_TIMERS_SWITCH + e->flows * EST_TIMERS_FLOW;
    uint64_t declared = e->flows;
    estimate_jobs(e, t, root);
    e->queue_bytes = evq_bytes_bound(e->timers);
    e->model_bytes = EST_BASE + e->hosts * EST_HOST + e->switches * EST_SWITCH +
                     e->links * EST_LINK + ndst * per_dst + declared * EST_FLOW + e->job_bytes;
    e->bytes = e->model_bytes + e->queue_bytes;
}

uint64_t estimate_limit(uint64_t given)
{
    if (given)
        return given;
    long pages = sysconf(_SC_PHYS_PAGES);
    long psize = sysconf(_SC_PAGESIZE);
    uint64_t lim = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : UINT64_MAX;
    static const int res[] = {RLIMIT_AS, RLIMIT_DATA};
    for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
        struct rlimit rl;
        if (getrlimit(res[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (uint64_t)rl.rlim_cur < lim)
            lim = (uint64_t)rl.rlim_cur;
    }
    return lim;
}

/* Decimal units, as sizes are written (units.c: 1 MB = 10^6 bytes). */
static void fmt_bytes(char *buf, size_t n, uint64_t b)
{
    if (b >= 1000000000ULL)
        snprintf(buf, n, "%.1f GB", (double)b / 1e9);
    else if (b >= 1000000ULL)
        snprintf(buf, n, "%.0f MB", (double)b / 1e6);
    else
        snprintf(buf, n, "%.0f KB", (double)b / 1e3);
}

int estimate_check(const struct topo *t, const struct cfg_node *root, uint64_t limit,
                   struct diag *d)
{
    struct estimate e;
    estimate_compute(&e, t, root);
    if (e.bytes <= limit)
        return 0;
    const struct cfg_node *at = cfg_get(root, "topology");
    if (!at)
        at = cfg_get(root, "hosts");
    struct src_loc loc = at ? at->loc : root->loc;
    char need[32];
    char have[32];
    fmt_bytes(need, sizeof(need), e.bytes);
    fmt_bytes(have, sizeof(have), limit);
    char jobs[80] = "";
    if (e.workers && e.servers)
        snprintf(jobs, sizeof(jobs), ", %llu DDL workers and %llu server%s",
                 (unsigned long long)e.workers, (unsigned long long)e.servers,
                 e.servers == 1 ? "" : "s");
    else if (e.workers)
        snprintf(jobs, sizeof(jobs), ", %llu DDL workers", (unsigned long long)e.workers);
    diag_error(d, loc,
               "this scenario needs about %s of memory (%llu hosts, %llu switch%s, %llu links, "
               "%llu routes, %llu flows%s), more than the %s this run may use (--max-memory); "
               "make the topology smaller",
               need, (unsigned long long)e.hosts, (unsigned long long)e.switches,
               e.switches == 1 ? "" : "es", (unsigned long long)e.links,
               (unsigned long long)e.routes, (unsigned long long)e.flows, jobs, have);
    return -1;
}
