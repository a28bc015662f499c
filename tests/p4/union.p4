/* header_union: extract selects one member (the others become invalid), isValid() of the
 * union is true if any member is, setValid on a member invalidates the others, emit of a
 * struct holding a union emits its valid member only. */
#include <core.p4>
#include <v1model.p4>

header t_t { bit<8> kind; bit<8> flags; }
header a_t { bit<16> x; }
header b_t { bit<32> y; }
header_union ab_u { a_t a; b_t b; }

struct headers { t_t t; ab_u u; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        transition select(hdr.t.kind) {
            1: get_a;
            2: get_b;
            default: accept;
        }
    }
    state get_a { pkt.extract(hdr.u.a); transition accept; }
    state get_b { pkt.extract(hdr.u.b); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.t.flags = hdr.u.isValid() ? 8w1 : 8w0;
        if (hdr.u.a.isValid() && hdr.u.a.x == 0xFFFF) {
            /* turn a into b: setValid(b) invalidates a */
            hdr.u.b.setValid();
            hdr.u.b.y = 0x01020304;
            hdr.t.flags = hdr.t.flags | (hdr.u.a.isValid() ? 8w0x10 : 8w0x20);
        }
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
