// cmd: p4 check FILE
// exit: 2
// cc1 runs under an address-space limit
#include "/dev/zero"
