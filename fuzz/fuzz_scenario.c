/* libFuzzer target for scenarios: YAML parsing, parameter decoding, validation, the memory
 * estimate, building, and then the simulation itself for a bounded number of events. Bad input
 * must end in located errors, and a scenario that loads must run without a crash, a leak, an
 * overflow (UBSan) or unbounded memory: the build may need at most FUZZ_MAX_MEMORY by the
 * estimate, and libFuzzer's -rss_limit_mb bounds the rest (make fuzz-yaml). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/scenario.h"
#include "sim/sim.h"

#define FUZZ_MAX_MEMORY (256ULL << 20)
#define FUZZ_MAX_EVENTS 20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void stop_now(struct sim *sim, uint64_t events, void *ud)
{
    (void)events;
    (void)ud;
    sim_stop(sim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    FILE *sink = fopen("/dev/null", "w");
    struct diag d;
    diag_init(&d, sink);
    struct scenario_opts o = {.max_memory = FUZZ_MAX_MEMORY};
    struct scenario *sc = scenario_load_string("fuzz.yaml", text, &o, &d);
    if (sc) {
        sc->sim->hook = (struct sim_hook){stop_now, NULL, FUZZ_MAX_EVENTS};
        scenario_run(sc);
        scenario_destroy(sc);
    }
    fclose(sink);
    free(text);
    return 0;
}
