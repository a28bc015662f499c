// cmd: p4 check FILE
// exit: 2
// cc1 runs out of its address-space limit
#define A(x) x x x x x x x x x x
#define B(x) A(A(A(A(x))))
B(B(B(B(a))))
