// cmd: p4 check FILE
// exit: 2
// expect: FILE:1:1: error: no 'V1Switch(...) main;' instance
