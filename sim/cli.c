#include "sim/cli.h"

#include <stdio.h>
#include <string.h>

#include "p4/engine/p4cli.h"

int cli_main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "p4") == 0)
        return p4cli_main(argc - 2, argv + 2);
    fprintf(stderr, "usage: ddlsim run|check|describe|p4 ...\n");
    return 2;
}
