/* Scenario tests: load a scenario from YAML text or fail the test with the error count (the
 * errors themselves go to stderr, located). Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTSCENARIO_H
#define SIM_TESTS_TESTSCENARIO_H

#include "tests/testutil.h"

#include <stdio.h>

#include "sim/app/scenario.h"

static inline struct scenario *load(const char *yaml)
{
    struct diag d;
    diag_init(&d, stderr);
    struct scenario *sc = scenario_load_string("test.yaml", yaml, NULL, &d);
    if (!sc)
        fail_msg("scenario did not load (%d errors)", diag_count(&d));
    return sc;
}

#endif
