/* Serializable enums as values in every position: header fields, select keys and cases
 * (also on lookahead<Op>()), table keys (const entries and STF), action data (STF and
 * default_action), register elements, function parameters and results, switch labels, casts
 * both ways, comparisons, a constant, hash data lists. */
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { A = 1, B = 2, C = 0x10 }

header h_t { Kind k; bit<8> v; }
header o_t { Kind hsh; Kind dflt; Kind sel; Kind tbl; Kind reg; Kind fn; bit<8> sw; bit<8> cast; Kind ctl; bit<8> eq; }
struct headers { h_t h; o_t o; }
struct meta_t { Kind mk; Kind mk2; }
const Kind K = Kind.B;

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<Kind>()) {
            Kind.C: hk;
            default: hk;
        }
    }
    state hk {
        pkt.extract(h.h);
        transition select(h.h.k) {
            Kind.A: a;
            Kind.B: b;
            default: accept;
        }
    }
    state a { m.mk = Kind.A; transition accept; }
    state b { m.mk = Kind.B; transition accept; }
}

control VC(inout headers h, inout meta_t m) { apply { } }

Kind other(in Kind k) {
    return k == Kind.A ? Kind.B : Kind.A;
}

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    register<Kind>(4) r;
    action set_kind(Kind k) { h.o.tbl = k; }
    table t {
        key = { h.h.k: exact; }
        actions = { set_kind; NoAction; }
        const entries = { Kind.C: set_kind(Kind.A); }
        default_action = NoAction();
    }
    action set_dflt(Kind k) { h.o.dflt = k; }
    table t2 {
        key = { h.h.k: exact; }
        actions = { set_kind; set_dflt; }
        default_action = set_dflt(Kind.C);
    }
    apply {
        h.o.setValid();
        h.o.sel = m.mk;
        t.apply();
        t2.apply();
        r.write(1, h.h.k);
        r.read(m.mk2, 1);
        h.o.reg = m.mk2;
        h.o.fn = other(h.h.k);
        switch (h.h.k) {
            Kind.A: { h.o.sw = 0xA; }
            Kind.C: { h.o.sw = 0xC; }
            default: { h.o.sw = 0xD; }
        }
        h.o.cast = (bit<8>)h.h.k + 1;
        h.o.ctl = (Kind)h.h.v;
        h.o.eq = h.h.k == Kind.C ? 8w1 : 8w0;
        h.o.eq = h.o.eq | (h.h.k == K ? 8w2 : 8w0);
        hash(h.o.hsh, HashAlgorithm.identity, 8w0, {h.h.k}, 16w256);
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) { apply { pkt.emit(h.h); pkt.emit(h.o); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
