// cmd: p4 check FILE
// exit: 2
// expect: FILE:4:10: fatal error: does_not_exist.p4: No such file or directory
#include "does_not_exist.p4"
