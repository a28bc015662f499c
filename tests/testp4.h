/* P4 engine tests: a program loaded (from a file or from source text) with a pipeline of it, or
 * the test fails. Header-only: each test binary is one file. */
#ifndef SIM_TESTS_TESTP4_H
#define SIM_TESTS_TESTP4_H

#include "tests/testutil.h"

#include <stdio.h>

#include "p4/engine/p4.h"

/* Loads the program `name` (a path, or the name of `text` when the source is given) and returns
 * a pipeline of it with `host`'s callbacks (NULL: none); the program is left in *prog. */
static inline struct p4_pipe *test_pipe(const char *name, const char *text,
                                        const struct p4_host *host, struct p4_prog **prog)
{
    int nerr;
    *prog = text ? p4_prog_load_text(name, text, "p4/include", true, stderr, &nerr)
                 : p4_prog_load(name, "p4/include", stderr, &nerr);
    assert_non_null(*prog);
    return p4_pipe_create(*prog, host);
}

static inline void test_pipe_free(struct p4_pipe *pipe, struct p4_prog *prog)
{
    p4_pipe_destroy(pipe);
    p4_prog_free(prog);
}

#endif
