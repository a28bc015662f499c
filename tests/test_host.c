/* Host endpoint table: bind, bind to a port, unbind (probe runs stay intact), lookups. */
#include "tests/testutil.h"

#include <stdlib.h>

#include "models/net/host.h"
#include "sim/param.h"

static void noop_recv(struct endpoint *ep, struct host *h, struct pkt *p)
{
    (void)ep;
    pkt_free(h->node.sim, p);
}

static void test_host_endpoints(void **state)
{
    struct sim *sim = sim_create(1, NULL);
    struct host_cfg cfg;
    param_defaults(host_node_ops.params, *host_node_ops.nparams, &cfg);
    struct host *h = host_create(sim, "h", 0, 0, &cfg);
    enum { N = 1000 };
    struct endpoint *eps = calloc(N, sizeof(*eps));
    for (int i = 0; i < N; i++) {
        eps[i].recv = noop_recv;
        assert_int_equal(host_bind(h, &eps[i]), 10000 + i);
    }
    struct endpoint roce = {.recv = noop_recv};
    assert_true(host_bind_port(h, &roce, 4791));
    struct endpoint dup = {.recv = noop_recv};
    assert_false(host_bind_port(h, &dup, 4791));
    assert_false(host_bind_port(h, &dup, 10005));
    /* unbind every third endpoint; the rest must still be found */
    for (int i = 0; i < N; i += 3)
        host_unbind(h, &eps[i]);
    for (int i = 0; i < N; i++) {
        struct endpoint *e = host_endpoint(h, (uint16_t)(10000 + i));
        if (i % 3 == 0)
            assert_null(e);
        else
            assert_ptr_equal(e, &eps[i]);
    }
    assert_ptr_equal(host_endpoint(h, 4791), &roce);
    assert_int_equal(h->nep, N - (N + 2) / 3 + 1);
    /* a freed port can be bound again; DDL ports come from their own range */
    assert_true(host_bind_port(h, &dup, 10000));
    assert_int_equal(host_ddl_port(h), 0xDD00);
    assert_int_equal(host_ddl_port(h), 0xDD01);
    h->node.ops->destroy(&h->node);
    free(eps);
    sim_destroy(sim);
}

TEST_MAIN(cmocka_unit_test(test_host_endpoints))
