/* Loops (P4_16 1.2.5): for (init; cond; update) with a bound from the packet, break and
 * continue, nested loops (break leaves the inner one), for-in over a range (including one
 * that ends at the type's largest value), over a list and over a header stack (copies of the
 * elements), a return from inside a loop in a function, and a loop in an action. */
#include <core.p4>
#include <v1model.p4>

header in_t { bit<8> n; bit<8> lim; }
header o_t {
    bit<8> sum; bit<16> mask; bit<8> prod; bit<8> top; bit<8> total; bit<8> lsum;
    bit<8> pairs; bit<8> first; bit<8> act;
}
header e_t { bit<8> f; }

struct headers { in_t i; o_t o; e_t[3] s; }
struct meta_t { }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.i);
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

/* the first i whose square exceeds lim */
bit<8> first_big(in bit<8> lim) {
    for (bit<8> i = 0; i < 255; i = i + 1) {
        if (i * i > lim) {
            return i;
        }
    }
    return 0;
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action count_down(bit<8> from) {
        for (bit<8> k = from; k > 0; k = k - 1) {
            h.o.act = h.o.act + 2;
        }
    }
    apply {
        h.o.setValid();
        for (bit<8> i = 0; i < h.i.n; i = i + 1) {
            h.o.sum = h.o.sum + i;
        }
        for (bit<8> i = 0; i < 10; i += 1) {
            if (i == 3) {
                continue;
            }
            if (i == 6) {
                break;
            }
            h.o.mask = h.o.mask | (16w1 << i);
        }
        h.o.prod = 1;
        for (bit<8> k in 2 .. 5) {
            h.o.prod = h.o.prod * k;
        }
        for (bit<4> k in 14 .. 15) {
            h.o.top = h.o.top + 1;
        }
        for (e_t e in h.s) {
            if (e.isValid()) {
                h.o.total = h.o.total + e.f;
            }
        }
        for (bit<8> v in {1, 2, 4}) {
            h.o.lsum = h.o.lsum + v;
        }
        for (bit<8> i = 0; i < 3; i = i + 1) {
            for (bit<8> j = 0; j < 3; j = j + 1) {
                if (j == i) {
                    break;
                }
                h.o.pairs = h.o.pairs + 1;
            }
        }
        h.o.first = first_big(h.i.lim);
        count_down(3);
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
