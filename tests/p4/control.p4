/* Control flow and declarations: functions with return, actions called directly, return in
 * an action, exit, nested control instances with constructor parameters (each instance has
 * its own table), serializable and plain enums, typedef, struct and header assignment from
 * lists, header copy (validity too), setInvalid (not emitted), copy-in/copy-out. */
#include <core.p4>
#include <v1model.p4>

typedef bit<8> byte_t;
enum bit<8> Kind { A = 1, B = 2, C = 0x10 }
enum Mode { OFF, ON }

header h_t { byte_t op; byte_t x; byte_t y; byte_t z; }
header g_t { byte_t p; byte_t q; }

struct pair_t { byte_t lo; byte_t hi; }
struct headers { h_t h; g_t g; g_t g2; }
struct meta_t { pair_t pr; Mode mode; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.g); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

bit<8> max8(in bit<8> a, in bit<8> b) {
    if (a > b) {
        return a;
    }
    return b;
}

control Adder(inout byte_t v)(bit<8> amount) {
    action add_it() { v = v + amount; }
    table t {
        key = { v: exact; }
        actions = { add_it; NoAction; }
        default_action = add_it();
    }
    apply { t.apply(); }
}

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    Adder(1) inc;
    Adder(10) inc10;

    action swap(inout byte_t a, inout byte_t b) {
        byte_t t = a;
        a = b;
        b = t;
    }
    action early(out byte_t r) {
        r = 5;
        return;
        r = 6;
    }

    apply {
        sm.egress_spec = 1;
        Kind k = (Kind)hdr.h.op;
        if (k == Kind.A) {
            hdr.h.z = max8(hdr.h.x, hdr.h.y);
        } else if (k == Kind.B) {
            swap(hdr.h.x, hdr.h.y);
            early(hdr.h.z);
        } else if (k == Kind.C) {
            inc.apply(hdr.h.x);
            inc10.apply(hdr.h.y);
            m.mode = Mode.ON;
        } else if (hdr.h.op == 3) {
            m.pr = { hdr.h.x, hdr.h.y };
            hdr.g2 = { m.pr.hi, m.pr.lo };
            hdr.g.setInvalid();
        } else if (hdr.h.op == 4) {
            hdr.g2 = hdr.g;
            hdr.g2.q = 0xEE;
            hdr.h.z = (hdr.g2 == hdr.g) ? 8w1 : 8w2;
        } else if (hdr.h.op == 5) {
            hdr.h.z = 0x55;
            exit;
        }
        if (m.mode == Mode.ON) {
            hdr.h.z = 0xA0;
        }
        hdr.h.op = hdr.h.op | 0x80;
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.h); pkt.emit(hdr.g); pkt.emit(hdr.g2); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
