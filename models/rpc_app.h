/* The `rpc` flow kind: messages over a transport with host software costs (see rpc_app.c). */
#ifndef SIM_MODELS_RPC_APP_H
#define SIM_MODELS_RPC_APP_H

#include "models/flow.h"

extern const struct flow_ops rpc_flow_ops;

#endif
