#include "sim/app/registry.h"

#include <string.h>

#include "models/ddl/job.h"
#include "models/net/host.h"
#include "models/net/link.h"
#include "models/net/switch.h"
#include "sim/app/scenario.h"
#include "sim/app/topo.h"
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
