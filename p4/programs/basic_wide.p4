/* basic_wide.p4: basic.p4 for switches beyond it: 16-bit port numbers (ddlsim numbers the
 * switch's port p >= 511 as P4 port p + 1, since 511 stays the drop port) and a route table of
 * 2^20 entries. A scenario that names `program: basic` gets this one on switches with more than
 * 511 ports or more routes than basic.p4's 1024 entries, with a note. */
#define V1MODEL_PORT_BITS 16
#define BASIC_LPM_SIZE 1048576
#include "basic.p4"
