// cmd: p4 check FILE
// exit: 2
// expect: FILE:16:17: error: condition must be bool near 'a'
// expect: FILE:16:19: error: both branches of '?:' are integers without a width; give one a type, e.g. (bit<32>)1 near '?'
#include <core.p4>
#include <v1model.p4>
struct metadata { bit<32> a; bit<8> b; }
header h_t { bit<8> x; bit<8> y; }
struct headers { h_t h; }
parser P(packet_in p, out headers h, inout metadata m, inout standard_metadata_t s) { state start { p.extract(h.h); transition accept; } }
control V(inout headers h, inout metadata m) { apply { } }
control E(inout headers h, inout metadata m, inout standard_metadata_t s) { apply { } }
control C(inout headers h, inout metadata m) { apply { } }
control D(packet_out p, in headers h) { apply { p.emit(h.h); } }
control I(inout headers h, inout metadata m, inout standard_metadata_t s) {
apply { m.a = m.a ? 1 : 2; }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
