/* libFuzzer target: the P4 front end (lexer, parser, checker, lowering) on arbitrary text,
 * without the preprocessor. Bad input must produce diagnostics, never a crash or leak.
 * Valid programs are also instantiated and run on a fixed packet. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/fuzz/fuzzload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct p4_prog *prog = fuzz_load(data, size, false);
    if (prog) {
        static const uint8_t pkt[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x08, 0x00, 0x45};
        struct p4_pipe *pipe = p4_pipe_create(prog, NULL);
        uint64_t *state = calloc(1, p4_prog_state_bytes(prog) + 8);
        uint8_t out[256];
        struct p4_ingress_in in = {pkt, sizeof(pkt), 0, 1, 0, NULL, -1};
        struct p4_ingress_out io;
        p4_pipe_ingress(pipe, state, &in, &io);
        struct p4_egress_in ein;
        memset(&ein, 0, sizeof(ein));
        ein.egress_port = 2;
        ein.bytes = pkt;
        ein.len = sizeof(pkt);
        ein.out = out;
        ein.out_cap = sizeof(out);
        struct p4_egress_out eo;
        p4_pipe_egress(pipe, state, &ein, &eo);
        free(state);
        p4_pipe_destroy(pipe);
        p4_prog_free(prog);
    }
    return 0;
}
