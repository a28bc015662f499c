/* The table of transports a flow's `type` can name (udp, tcp, rdma, rpc). Adding a transport =
 * a file pair with its `struct flow_ops` plus one line in transports.c. The message layer and
 * training jobs look transports up here by name, so they never name one directly. */
#ifndef SIM_MODELS_TRANSPORT_TRANSPORTS_H
#define SIM_MODELS_TRANSPORT_TRANSPORTS_H

#include <stddef.h>

#include "models/transport/flow.h"

extern const struct flow_ops *const transport_flows[];
extern const size_t transport_nflows;

/* The transport called `type`, or NULL. */
const struct flow_ops *transport_find(const char *type);

#endif
