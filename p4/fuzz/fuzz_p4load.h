/* The body of the P4 program fuzzers (fuzz_p4front, fuzz_p4cpp): load an input as a program,
 * with or without the preprocessor, and, when it loads, instantiate it and run one packet
 * through ingress and egress on the compiled engine (the native one compiles each program with
 * the C compiler: per input that is a process per run; fuzz_p4stf covers native code on its
 * fixed programs). Bad input must produce diagnostics, never a crash, hang or leak.
 * Header-only: each fuzzer is one file. */
#ifndef SIM_P4_FUZZ_FUZZ_P4LOAD_H
#define SIM_P4_FUZZ_FUZZ_P4LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "p4/engine/p4.h"

static void fuzz_p4_run_packet(struct p4_prog *prog)
{
    static const uint8_t pkt[64] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x08, 0x00, 0x45};
    /* the compiled records: the native engine would run the C compiler for every input */
    struct p4_host host = {0};
    host.exec = P4_EXEC_COMPILED;
    struct p4_pipe *pipe = p4_pipe_create(prog, &host);
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
}

static int fuzz_p4_load(const uint8_t *data, size_t size, bool cpp)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    FILE *devnull = fopen("/dev/null", "w");
    int nerr = 0;
    struct p4_prog *prog = p4_prog_load_text("fuzz.p4", text, "p4/include", cpp, devnull, &nerr);
    if (prog) {
        fuzz_p4_run_packet(prog);
        p4_prog_free(prog);
    }
    fclose(devnull);
    free(text);
    return 0;
}

#endif
