/* Operators: arithmetic, bitwise, shifts, comparisons, saturating, concatenation, slices
 * (read and write), casts with sign extension, ?:, constant folding of unsized integers. */
#include <core.p4>
#include <v1model.p4>

const bit<32> K = (1 << 10) + 0x_05;   // folded as an unsized integer
const int<8> MINUS_THREE = -3;

header in_t {
    bit<32> a;
    bit<32> b;
    bit<8>  x;
    bit<8>  y;
    int<8>  s;
    int<8>  t;
}

header out_t {
    bit<32> add;
    bit<32> sub;
    bit<32> mul;
    bit<32> div;
    bit<32> mod;
    bit<32> band;
    bit<32> bor;
    bit<32> bxor;
    bit<32> bnot;
    bit<32> shl;
    bit<32> shr;
    bit<8>  sadd;
    bit<8>  ssub;
    bit<16> cat;
    bit<8>  slc;
    int<8>  ssadd;
    int<8>  sssub;
    int<8>  sshr;
    bit<8>  flags;
    bit<32> neg;
    bit<8>  cast_s;
    bit<16> widen;
    bit<4>  nib;
    bit<4>  nib2;
    bit<32> k;
    bit<32> cond;
    int<8>  smul;
}

struct headers { in_t i; out_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.i);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.add = h.i.a + h.i.b;
        h.o.sub = h.i.a - h.i.b;
        h.o.mul = h.i.a * h.i.b;
        h.o.div = h.i.a / h.i.b;
        h.o.mod = h.i.a % h.i.b;
        h.o.band = h.i.a & h.i.b;
        h.o.bor = h.i.a | h.i.b;
        h.o.bxor = h.i.a ^ h.i.b;
        h.o.bnot = ~h.i.a;
        h.o.shl = h.i.a << h.i.y;
        h.o.shl[3:0] = 4w0xA;
        h.o.shr = h.i.a >> 3;
        h.o.sadd = h.i.x |+| h.i.y;
        h.o.ssub = h.i.x |-| h.i.y;
        h.o.cat = h.i.x ++ h.i.y;
        h.o.slc = h.i.a[15:8];
        h.o.ssadd = h.i.s |+| h.i.t;
        h.o.sssub = h.i.s |-| h.i.t;
        h.o.sshr = h.i.s >> 2;
        h.o.flags = (bit<1>)(h.i.a < h.i.b) ++ (bit<1>)(h.i.s < h.i.t) ++
                    (bit<1>)(h.i.a == h.i.b) ++ (bit<1>)(h.i.x >= h.i.y) ++
                    (bit<1>)(h.i.s > h.i.t) ++ (bit<1>)(h.i.a != h.i.b && h.i.x > 0) ++
                    (bit<1>)(!(h.i.x == h.i.y) || false) ++ 1w1;
        h.o.neg = -h.i.a;
        h.o.cast_s = (bit<8>)h.i.s;
        h.o.widen = (bit<16>)(int<16>)h.i.s;
        h.o.nib = h.i.x[3:0];
        h.o.nib2 = 4w0xF - h.i.x[7:4];
        h.o.k = K * 2;
        h.o.cond = h.i.x > h.i.y ? h.i.a : h.i.b;
        h.o.smul = h.i.s * MINUS_THREE;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.i);
        pkt.emit(h.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
