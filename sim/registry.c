#include "sim/registry.h"

#include <string.h>

#include "models/ddl_job.h"
#include "models/host.h"
#include "models/link.h"
#include "models/switch.h"
#include "models/rpc_app.h"
#include "models/tp_rdma.h"
#include "models/tp_tcp.h"
#include "models/udp_app.h"
#include "sim/scenario.h"
#include "sim/topo.h"
#include "sim/util.h"

const struct registry_kind registry_kinds[] = {
    {"scenario", "top-level keys of a scenario file", scenario_params, &scenario_nparams},
    {"topology", "topology generators (section `topology:`)", topo_params, &topo_nparams},
    {"link", "a full-duplex link (entries of `links:`, `defaults.link`)", link_params,
     &link_nparams},
    {"host", "an end host with one NIC (entries of `hosts:`, `defaults.host`)", host_params,
     &host_nparams},
    {"switch", "a switch: forwarding stage + traffic manager (entries of `switches:`)",
     switch_params, &switch_nparams},
    {"output", "what a run records (section `output:`)", output_params, &output_nparams},
    {"job", "a distributed training job (entries of `jobs:`)", ddl_job_params, &ddl_job_nparams},
};
const size_t registry_nkinds = ARRAY_LEN(registry_kinds);

const struct registry_kind *registry_find(const char *name)
{
    for (size_t i = 0; i < registry_nkinds; i++) {
        if (strcmp(registry_kinds[i].name, name) == 0)
            return &registry_kinds[i];
    }
    return NULL;
}

const struct flow_ops *const registry_flows[] = {
    &udp_flow_ops,
    &rdma_flow_ops,
    &rpc_flow_ops,
    &tcp_flow_ops,
};
const size_t registry_nflows = ARRAY_LEN(registry_flows);

const struct flow_ops *registry_flow(const char *type)
{
    for (size_t i = 0; i < registry_nflows; i++) {
        if (strcmp(registry_flows[i]->type, type) == 0)
            return registry_flows[i];
    }
    return NULL;
}
