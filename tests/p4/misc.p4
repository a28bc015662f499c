/* Assorted constructs: an untouched egress_spec sends to port 0, `type` declarations,
 * switch on a value, bool variables, nested structs, isValid() as a table key, optional
 * match, direct_meter, legacy clone3/resubmit(data)/mark_to_drop(), truncate, int<W>. */
#include <core.p4>
#include <v1model.p4>

type bit<8> tag_t;

header h_t { bit<8> op; bit<8> a; int<8> s; bit<8> r1; bit<8> r2; bit<8> r3; }
header opt_t { bit<8> v; }

struct inner_t { bit<8> x; bool flag; }
struct headers { h_t h; opt_t o; }
struct meta_t { inner_t inr; bit<8> legacy; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.op) {
            0x20: get_opt;
            default: accept;
        }
    }
    state get_opt { pkt.extract(hdr.o); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    direct_meter<bit<8>>(MeterType.packets) dm;
    action color() { dm.read(hdr.h.r3); }
    action by_validity(bit<8> v) { hdr.h.r2 = v; }
    @name("valid_tbl") table vt {
        key = { hdr.o.isValid(): exact; hdr.h.a: optional; }
        actions = { by_validity; @defaultonly NoAction; }
        default_action = NoAction();
    }
    table metered {
        key = { hdr.h.op: exact; }
        actions = { color; }
        meters = dm;
    }

    apply {
        tag_t t = (tag_t)hdr.h.op;
        bool big = hdr.h.a > 100;
        m.inr.flag = big;
        switch (hdr.h.op) {
            0x10: { hdr.h.r1 = 1; }
            0x11:
            0x12: { hdr.h.r1 = 2; }
            default: { hdr.h.r1 = 3; }
        }
        if (m.inr.flag) {
            hdr.h.r1 = hdr.h.r1 | 0x80;
        }
        vt.apply();
        metered.apply();
        if (hdr.h.s < -5) {
            hdr.h.r2 = hdr.h.r2 | 0x40;
        }
        hdr.h.s = hdr.h.s >> 1;
        if (hdr.h.op == 0x30) {
            m.legacy = 0x77;
            if (sm.instance_type == 0) {
                resubmit({ m.legacy });
            } else {
                hdr.h.r3 = m.legacy;
                sm.egress_spec = 4;
            }
        }
        if (hdr.h.op == 0x40) {
            m.legacy = 0x66;
            clone3(CloneType.I2E, 9, { m.legacy });
            mark_to_drop();
        }
        if (hdr.h.op == 0x50) {
            truncate(3);
            sm.egress_spec = 2;
        }
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            hdr.h.r3 = m.legacy;
        }
    }
}
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.o); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
