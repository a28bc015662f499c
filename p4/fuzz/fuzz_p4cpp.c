/* libFuzzer target: P4 programs through the whole load path, preprocessor included (cpp runs
 * as a bounded child: p4cpp.h), on inputs up to 256 KB: #include, #warning floods, macros,
 * binary text. Bad input must produce diagnostics, never a crash, hang or leak. Valid programs
 * are instantiated (const entries installed) and destroyed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/fuzz/fuzzload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct p4_prog *prog = fuzz_load(data, size, true);
    if (prog) {
        struct p4_pipe *pipe = p4_pipe_create(prog, NULL);
        p4_pipe_destroy(pipe);
        p4_prog_free(prog);
    }
    return 0;
}
