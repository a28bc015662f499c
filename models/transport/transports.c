/* The transports, by name. */
#include "models/transport/transports.h"

#include <string.h>

#include "models/transport/rdma.h"
#include "models/transport/rpc.h"
#include "models/transport/tcp.h"
#include "models/transport/udp.h"
#include "sim/util.h"

const struct flow_ops *const transport_flows[] = {
    &udp_flow_ops,
    &rdma_flow_ops,
    &rpc_flow_ops,
    &tcp_flow_ops,
};
const size_t transport_nflows = ARRAY_LEN(transport_flows);

const struct flow_ops *transport_find(const char *type)
{
    for (size_t i = 0; i < transport_nflows; i++) {
        if (strcmp(transport_flows[i]->type, type) == 0)
            return transport_flows[i];
    }
    return NULL;
}
