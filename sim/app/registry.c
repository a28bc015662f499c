/* Every kind the simulator has, for the builder, the report and `describe`. */
#include "sim/app/registry.h"

#include <string.h>

#include "models/ddl/inc.h"
#include "models/ddl/job.h"
#include "models/ddl/sparse.h"
#include "models/net/host.h"
#include "models/net/link.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/app/topo.h"
#include "sim/util.h"

const struct registry_node_kind registry_node_kinds[] = {
    {&switch_node_ops, "switches"},
    {&host_node_ops, "hosts"},
};
const size_t registry_nnode_kinds = ARRAY_LEN(registry_node_kinds);

const struct registry_node_kind *registry_node_kind(const char *kind, size_t *index)
{
    for (size_t i = 0; i < registry_nnode_kinds; i++) {
        if (strcmp(registry_node_kinds[i].ops->kind, kind) == 0) {
            if (index)
                *index = i;
            return &registry_node_kinds[i];
        }
    }
    return NULL;
}

const struct registry_kind registry_kinds[] = {
    {"scenario", "top-level keys of a scenario file", scenario_params, &scenario_nparams},
    {"topology", "topology generators (section `topology:`)", topo_params, &topo_nparams},
    {"link", "a full-duplex link (entries of `links:`, `defaults.link`)", link_params,
     &link_nparams},
    {"output", "what a run records (section `output:`)", output_params, &output_nparams},
    {"job", "a distributed training job (entries of `jobs:`)", ddl_job_params, &ddl_job_nparams},
    {"inc", "in-network aggregation of a job with arch inc or libra (`inc:` of a job)",
     inc_params, &inc_nparams},
    {"sparse", "the sparse workload of a job with arch libra (`sparse:` of a job)", sparse_params,
     &sparse_nparams},
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
