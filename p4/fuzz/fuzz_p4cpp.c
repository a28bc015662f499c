/* libFuzzer target: P4 programs through the whole load path, preprocessor included (cpp runs
 * as a bounded child: p4cpp.h), on inputs up to 256 KB: #include, #warning floods, macros,
 * binary text (fuzz_p4load.h). */
#include "p4/fuzz/fuzz_p4load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_p4_load(data, size, true);
}
