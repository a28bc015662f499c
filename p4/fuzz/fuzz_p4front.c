/* libFuzzer target: the P4 front end (lexer, parser, checker, lowering) on arbitrary text,
 * without the preprocessor (fuzz_p4load.h). */
#include "p4/fuzz/fuzz_p4load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_p4_load(data, size, false);
}
