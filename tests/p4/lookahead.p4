/* lookahead<T> of a header (assigned whole: fields and validity), of a struct of bit fields,
 * of a serializable enum and of fields of a header and a nested struct, none of which moves
 * the parser; and PacketTooShort when the packet is shorter than the whole T, even if only
 * one field of it is read. */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Op { PUSH = 1, POP = 2 }

struct inner_t { bit<4> hi; bit<4> lo; }
struct peek_t { bit<8> a; inner_t nib; bit<16> c; }
header h_t { bit<8> a; bit<8> b; bit<16> c; }
header o_t { bit<8> sa; bit<8> shi; bit<8> slo; bit<16> sc; bit<8> op; bit<8> fb; bit<8> perr; }

struct headers { h_t peek; h_t h; o_t o; }
struct meta_t { peek_t s; bit<8> fb; Op op; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        h.peek = pkt.lookahead<h_t>();
        m.s = pkt.lookahead<peek_t>();
        m.op = pkt.lookahead<Op>();
        m.fb = pkt.lookahead<peek_t>().nib.lo ++ pkt.lookahead<h_t>().b[7:4];
        transition select(pkt.lookahead<h_t>().c) {
            0xFFFF: short;
            default: take;
        }
    }
    state take {
        pkt.extract(h.h);
        transition accept;
    }
    state short {
        pkt.advance(8);
        m.fb = pkt.lookahead<h_t>().a;   /* 3 bytes left, h_t needs 4 */
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.sa = m.s.a;
        h.o.shi = (bit<8>)m.s.nib.hi;
        h.o.slo = (bit<8>)m.s.nib.lo;
        h.o.sc = m.s.c;
        h.o.op = (bit<8>)m.op;
        h.o.fb = m.fb;
        h.o.perr = sm.parser_error == error.PacketTooShort ? 8w1 : 8w0;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.peek);
        pkt.emit(h.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
