/* The `rpc` flow kind: messages over a transport with host software costs (see rpc_app.c). */
#ifndef SIM_MODELS_TRANSPORT_RPC_H
#define SIM_MODELS_TRANSPORT_RPC_H

#include "models/transport/flow.h"

extern const struct flow_ops rpc_flow_ops;

#endif
