// cmd: p4 check FILE
// exit: 2
// expect: FILE:5:2: error: #error stop here
// expect:     5 | #error stop here
#error stop here
