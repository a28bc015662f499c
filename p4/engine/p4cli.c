#include "p4/engine/p4cli.h"

#include <stdio.h>

int p4cli_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "ddlsim: error: the P4 engine is not built yet\n");
    return 2;
}
