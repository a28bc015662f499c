/* Compound assignment (P4_16 1.2.4): += -= *= /= %= <<= >>= &= |= ^= |+|= |-|= on bit<8>,
 * a slice, a 72-bit value (carry between words), an int<8> (arithmetic shift), and a stack
 * element whose index comes from a function with a side effect: the location is evaluated
 * once (the index function runs once, the same element is read and written). */
#include <core.p4>
#include <v1model.p4>

header in_t { bit<8> a; bit<8> b; bit<72> w; int<8> s; }
header o_t {
    bit<8> add; bit<8> sub; bit<8> mul; bit<8> div; bit<8> mod; bit<8> shl; bit<8> shr;
    bit<8> and; bit<8> or; bit<8> xor; bit<8> sadd; bit<8> ssub; bit<8> sl; bit<72> w;
    int<8> s; bit<8> idx;
}
header e_t { bit<8> f; }

struct headers { in_t i; o_t o; e_t[3] s; }
struct meta_t { bit<32> i; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.i);
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

/* the index, then the index moves on */
bit<32> post(inout bit<32> i) {
    bit<32> r = i;
    i = i + 1;
    return r;
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        bit<8> a = h.i.a;
        bit<8> b = h.i.b;
        h.o.add = a; h.o.add += b;
        h.o.sub = a; h.o.sub -= b;
        h.o.mul = a; h.o.mul *= b;
        h.o.div = a; h.o.div /= b;
        h.o.mod = a; h.o.mod %= b;
        h.o.shl = a; h.o.shl <<= 3;
        h.o.shr = a; h.o.shr >>= 2;
        h.o.and = a; h.o.and &= b;
        h.o.or = a; h.o.or |= b;
        h.o.xor = a; h.o.xor ^= b;
        h.o.sadd = a; h.o.sadd |+|= b;
        h.o.ssub = a; h.o.ssub |-|= b;
        h.o.sl = 0xF0; h.o.sl[3:0] += 5;
        h.o.w = h.i.w; h.o.w += 1; h.o.w ^= 72w0x800000000000000000;
        h.o.s = h.i.s; h.o.s >>= 1;
        m.i = 0;
        h.s[post(m.i)].f += 0x10;
        h.o.idx = (bit<8>)m.i;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.s);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
