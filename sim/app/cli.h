/* The ddlsim command line: run, check, describe, p4. Returns the process exit code:
 * 0 success, 1 runtime failure, 2 bad input (CLI flags, YAML, P4). */
#ifndef SIM_SIM_APP_CLI_H
#define SIM_SIM_APP_CLI_H

int cli_main(int argc, char **argv);

#endif
