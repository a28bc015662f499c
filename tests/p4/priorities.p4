/* Entry priorities (P4_16 14.2.1.4): `priority = N:` on initial entries with
 * largest_priority_wins = false and priority_delta (entries without a priority continue from
 * the previous one by the delta), per-entry `const`, the default largest-wins convention
 * with control-plane entries (STF `add T PRIO ...`) ranked among the initial ones, p4c's
 * @priority(N) on const entries (smallest wins), and initial entries without priorities
 * (textual order, above control-plane entries that give none). */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; }
header o_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers { h_t h; o_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.h);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action a_set(bit<8> v) { h.o.a = v; }
    action b_set(bit<8> v) { h.o.b = v; }
    action c_set(bit<8> v) { h.o.c = v; }
    action d_set(bit<8> v) { h.o.d = v; }
    table tA {
        key = { h.h.k: ternary; }
        actions = { a_set; }
        largest_priority_wins = false;
        priority_delta = 10;
        entries = {
            const priority=10: 0x01 &&& 0x0F : a_set(1);
                               0x00 &&& 0x00 : a_set(2);   /* 20 */
                               0x11 &&& 0xFF : a_set(3);   /* 30 */
                  priority=5:  0x22 &&& 0xFF : a_set(4);
        }
    }
    table tB {
        key = { h.h.k: ternary; }
        actions = { b_set; }
        entries = {
            priority=20: 0x00 &&& 0xF0 : b_set(1);
                         0x05 &&& 0xFF : b_set(2);         /* 19 */
            priority=10: 0x00 &&& 0x00 : b_set(3);
        }
    }
    table tC {
        key = { h.h.k: ternary; }
        actions = { c_set; }
        const entries = {
            @priority(2) 0x00 &&& 0x00 : c_set(1);
            @priority(1) 0x33 &&& 0xFF : c_set(2);
        }
    }
    table tD {
        key = { h.h.k: ternary; }
        actions = { d_set; }
        entries = {
            0x00 &&& 0xF0 : d_set(1);
            0x00 &&& 0x00 : d_set(2);
        }
    }
    apply {
        h.o.setValid();
        tA.apply();
        tB.apply();
        tC.apply();
        tD.apply();
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.h);
        pkt.emit(h.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
