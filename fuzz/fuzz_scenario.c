/* libFuzzer target for the scenario front end: YAML parsing, parameter decoding, validation and
 * building. Bad input must end in located errors (never a crash, leak or hang); a scenario that
 * loads is destroyed without running (a random scenario could run for a long simulated time). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    FILE *sink = fopen("/dev/null", "w");
    struct diag d;
    diag_init(&d, sink);
    struct scenario *sc = scenario_load_string("fuzz.yaml", text, NULL, &d);
    if (sc)
        scenario_destroy(sc);
    fclose(sink);
    free(text);
    return 0;
}
