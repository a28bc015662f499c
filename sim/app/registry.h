/* The table of configurable kinds, for `ddlsim describe`. Adding a model kind = one line here
 * plus its parameter table. */
#ifndef SIM_SIM_APP_REGISTRY_H
#define SIM_SIM_APP_REGISTRY_H

#include <stddef.h>

#include "sim/param.h"

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
