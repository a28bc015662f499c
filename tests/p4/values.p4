/* Headers and structs as values: functions that take them (in, from a list, a {f = v} list
 * or a call) and return them (return of a list), actions with header inout parameters,
 * (H){...} casts, a list assignment that reads what it overwrites (a swap), a list built
 * header becoming valid, tuple and list<T> locals (constant indexes, for-in), and `_` as a
 * don't-care out argument. */
#include <core.p4>
#include <v1model.p4>

header in_t { bit<8> a; bit<8> b; }
header x_t { bit<8> v; bit<8> w; }
header y_t { bit<8> z; }
header o_t {
    bit<8> sa; bit<8> sb; bit<8> na; bit<8> nb; bit<8> same; bit<8> t0; bit<16> t1;
    bit<8> lsum; bit<8> d; bit<8> pa; bit<8> pb;
}

struct pair_t { bit<8> a; bit<8> b; }
struct headers { in_t i; x_t x; y_t y; o_t o; }
struct meta_t { pair_t p; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.i);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

x_t make(in bit<8> v, in bit<8> w) {
    return {v, w};
}

pair_t swap(in pair_t p) {
    return {p.b, p.a};
}

bool same(in x_t a, in x_t b) {
    return a == b;
}

void scale(inout pair_t p) {
    p.a = p.a * 2;
    p.b = p.b * 2;
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action bump(inout x_t x) {
        x.v = x.v + 1;
    }
    action get2(out bit<8> a, out bit<8> b) {
        a = 7;
        b = 8;
    }
    apply {
        h.o.setValid();
        h.x = make(h.i.a, h.i.b);
        bump(h.x);
        pair_t s1 = swap({h.i.a, h.i.b});
        h.o.sa = s1.a;
        h.o.sb = s1.b;
        pair_t s2 = swap({b = 5, a = 6});
        h.o.na = s2.a;
        h.o.nb = s2.b;
        h.o.same = same(h.x, make(h.i.a + 1, h.i.b)) ? 8w1 : 8w0;
        h.y = (y_t){0xAB};
        tuple<bit<8>, bit<16>> t = {1, 0x0203};
        h.o.t0 = t[0];
        h.o.t1 = t[1];
        list<bit<8>> l = {3, 4, 5};
        for (bit<8> e in l) {
            h.o.lsum = h.o.lsum + e;
        }
        get2(h.o.d, _);
        m.p = {h.i.a, h.i.b};
        m.p = {m.p.b, m.p.a};
        scale(m.p);
        h.o.pa = m.p.a;
        h.o.pb = m.p.b;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.x);
        pkt.emit(h.y);
        pkt.emit(h.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
