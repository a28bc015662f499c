/* Command-line entry of the P4 engine: `ddlsim p4 check FILE.p4` and
 * `ddlsim p4 test FILE.p4 FILE.stf`. argv[0] is the subcommand ("check" or "test").
 * Returns the process exit code: 0 success, 1 failed expectations, 2 bad input. */
#ifndef SIM_P4_P4CLI_H
#define SIM_P4_P4CLI_H

int p4cli_main(int argc, char **argv);

#endif
