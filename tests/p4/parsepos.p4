/* The parser's bit position: a header extracted after an advance in the same state, and a
 * state reached by two paths (one with an optional header and an advance, one without), so
 * that neither can be read at a position fixed when the program is loaded. */
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> op; }
header opt_t { bit<16> v; }
header b_t { bit<8> x; bit<8> y; }
header c_t { bit<8> z; }
struct headers { a_t a; opt_t opt; b_t b; c_t c; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.op) { 1: with_opt; default: body; }
    }
    state with_opt { pkt.extract(hdr.opt); pkt.advance(8); pkt.extract(hdr.c); transition body; }
    state body { pkt.extract(hdr.b); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.b.x = hdr.b.x + 1; hdr.c.z = hdr.c.z + 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.a); pkt.emit(hdr.opt); pkt.emit(hdr.c); pkt.emit(hdr.b); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
