// cmd: p4 check FILE
// exit: 2
// expect: FILE:5:27: error: #include nested depth 200 exceeds maximum of 200 (use -fmax-include-depth=DEPTH to increase the maximum)
// cpp stops the include loop at its nesting limit
#include "include_self.p4"
