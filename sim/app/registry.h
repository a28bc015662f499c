/* The table of every kind the top layer knows: node kinds (plug-ins with a struct node_ops),
 * and the configuration sections `ddlsim describe` lists. Transports are listed by the
 * transport layer (models/transport/transports.h). Adding a node kind = its file pair with a
 * struct node_ops plus one line here. */
#ifndef SIM_SIM_APP_REGISTRY_H
#define SIM_SIM_APP_REGISTRY_H

#include <stddef.h>

#include "models/net/node.h"
#include "sim/param.h"

/* A node kind and the scenario's list of its explicit declarations (`hosts:`). */
struct registry_node_kind {
    const struct node_ops *ops;
    const char *section; /* top-level list of explicit declarations, and summary.json key */
};

extern const struct registry_node_kind registry_node_kinds[];
extern const size_t registry_nnode_kinds;
/* The node kind called `kind` ("host", "switch"); its index in *index. NULL when none. */
const struct registry_node_kind *registry_node_kind(const char *kind, size_t *index);

/* Other configuration sections (scenario, topology, link, output, job) for `describe`. */
struct registry_kind {
    const char *name;
    const char *summary;
    const struct param_def *params;
    const size_t *nparams;
};

extern const struct registry_kind registry_kinds[];
extern const size_t registry_nkinds;

const struct registry_kind *registry_find(const char *name);

#endif
