/* libFuzzer target: the STF runner on arbitrary scripts against one program, $DDLSIM_FUZZ_PROGRAM
 * (default p4/programs/basic.p4; `make fuzz` runs it for every program of p4/programs). The
 * program is loaded once; every input gets a fresh pipeline. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p4/engine/p4.h"
#include "p4/engine/p4stf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct p4_prog *prog; /* libFuzzer harness state: loaded once per process */
    if (!prog) {
        int nerr;
        const char *path = getenv("DDLSIM_FUZZ_PROGRAM");
        prog = p4_prog_load(path && *path ? path : "p4/programs/basic.p4", "p4/include", stderr,
                            &nerr);
        if (!prog)
            abort();
    }
    char path[] = "/tmp/ddlsim-fuzz-stf-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    FILE *devnull = fopen("/dev/null", "w");
    p4stf_run(prog, path, devnull, devnull);
    fclose(devnull);
    unlink(path);
    return 0;
}
