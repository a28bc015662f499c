/* varbit values between variables: a local varbit initialized from a header field, assigned
 * to another local and to a field of another header, and compared (== on varbits compares
 * the length, then the bits within it). */
#include <core.p4>
#include <v1model.p4>

header len_t { bit<8> n; }
header opts_t { varbit<64> options; }
header o_t { bit<8> same; bit<8> empty_eq; }

struct headers { o_t o; len_t l; opts_t a; opts_t b; }
struct meta_t { }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.l);
        pkt.extract(h.a, (bit<32>)h.l.n * 8);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        varbit<64> v = h.a.options;
        varbit<64> w;
        h.o.empty_eq = w == v ? 8w1 : 8w0;
        w = v;
        h.b.setValid();
        h.b.options = w;
        h.o.same = h.b.options == h.a.options ? 8w1 : 8w0;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.l);
        pkt.emit(h.a);
        pkt.emit(h.b);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
