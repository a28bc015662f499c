/* Order of evaluation (P4_16 8.1, 6.8, 14.2.2): operands and arguments left to right; an
 * assignment evaluates its left side (a computed stack index) before its right side; an
 * out/inout argument's location is computed once, when the call copies in, so the copy-out
 * writes the element chosen then even if the callee changes the index; table keys in order. */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> f; }
header o_t { bit<8> diff; bit<8> first; bit<8> second; bit<8> idx; bit<8> hit; }

struct headers { o_t o; e_t[3] s; }
struct meta_t { bit<8> c; bit<32> i; bit<8> p1; bit<8> p2; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

/* increments the counter and returns its new value */
bit<8> tick(inout bit<8> c) {
    c = c + 1;
    return c;
}

/* returns 0xAA and moves the index on */
bit<8> bump(inout bit<32> i) {
    i = i + 1;
    return 0xAA;
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action pair(bit<8> a, bit<8> b) {
        m.p1 = a;
        m.p2 = b;
    }
    action set_and_move(out bit<8> v, inout bit<32> i) {
        v = 0x55;
        i = i + 1;
    }
    action hit() { h.o.hit = 1; }
    /* keys in order: tick(m.c) runs before m.c is read as the second key */
    table t {
        key = { tick(m.c): exact @name("k1"); m.c: exact @name("k2"); }
        actions = { hit; NoAction; }
        const entries = { (4, 4): hit(); }
        default_action = NoAction();
    }
    apply {
        h.o.setValid();
        m.c = 0;
        h.o.diff = tick(m.c) - tick(m.c);   /* 1 - 2 */
        pair(tick(m.c), tick(m.c));         /* (3, 4) */
        h.o.first = m.p1;
        h.o.second = m.p2;
        m.c = 3;
        t.apply();
        m.i = 0;
        h.s[m.i].f = bump(m.i);             /* s[0] = 0xAA, then i = 1 */
        set_and_move(h.s[m.i].f, m.i);      /* s[1] = 0x55, then i = 2 */
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
