/* Scenario tests: load a scenario from YAML text or fail the test with the error count (the
 * errors themselves go to stderr, located). Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTSCENARIO_H
#define SIM_TESTS_TESTSCENARIO_H

#include "tests/testutil.h"

#include <stdarg.h>
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

/* load() of a YAML text formatted printf-style (at most 4 KB). */
static inline struct scenario *loadf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline struct scenario *loadf(const char *fmt, ...)
{
    char y[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(y, sizeof(y), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(y))
        fail_msg("scenario text longer than %zu bytes", sizeof(y));
    return load(y);
}

#endif
