/* Header stacks: extract into .next in a loop, .last, nextIndex, [i] with a constant and a
 * run-time index, push_front/pop_front, emit of a whole stack; StackOutOfBounds. */
#include <core.p4>
#include <v1model.p4>

header lbl_t { bit<7> v; bit<1> bos; }
header r_t { bit<8> n; bit<8> last; bit<8> second; bit<8> dyn; bit<8> err; }

struct headers { r_t r; lbl_t[3] s; }
struct meta_t { bit<2> idx; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.s.next);
        transition select(h.s.last.bos) {
            0: start;
            1: accept;
        }
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.r.setValid();
        h.r.n = (bit<8>)h.s.nextIndex;
        h.r.last = 1w0 ++ h.s.last.v;
        h.r.second = 1w0 ++ h.s[1].v;
        m.idx = 2;
        h.r.dyn = 1w0 ++ h.s[m.idx].v;
        h.r.err = (sm.parser_error == error.StackOutOfBounds) ? 8w1 : 8w0;
        sm.egress_spec = 1;
        if (h.s[0].v == 0x10) {
            h.s.pop_front(1);
        } else if (h.s[0].v == 0x20) {
            h.s.push_front(1);
            h.s[0].setValid();
            h.s[0].v = 0x7f;
            h.s[0].bos = 0;
        }
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.r);
        pkt.emit(h.s);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
