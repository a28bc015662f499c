/* What the P4 fuzz targets share: the input as program text, loaded with or without the
 * preprocessor, diagnostics discarded. */
#ifndef P4_FUZZ_FUZZLOAD_H
#define P4_FUZZ_FUZZLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4.h"

/* The program in data[0, size), NULL if it has errors. */
static inline struct p4_prog *fuzz_load(const uint8_t *data, size_t size, bool preprocess)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    FILE *devnull = fopen("/dev/null", "w");
    int nerr = 0;
    struct p4_prog *prog =
        p4_prog_load_text("fuzz.p4", text, "p4/include", preprocess, devnull, &nerr);
    fclose(devnull);
    free(text);
    return prog;
}

#endif
