/* libFuzzer target: P4 programs through the whole load path, preprocessor included (cpp runs
 * as a bounded child: p4cpp.h), on inputs up to 256 KB: #include, #warning floods, macros,
 * binary text. Bad input must produce diagnostics, never a crash, hang or leak. Valid programs
 * are instantiated (const entries installed) and destroyed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    FILE *devnull = fopen("/dev/null", "w");
    int nerr = 0;
    struct p4_prog *prog = p4_prog_load_text("fuzz.p4", text, "p4/include", true, devnull, &nerr);
    if (prog) {
        struct p4_pipe *pipe = p4_pipe_create(prog, NULL);
        p4_pipe_destroy(pipe);
        p4_prog_free(prog);
    }
    fclose(devnull);
    free(text);
    return 0;
}
