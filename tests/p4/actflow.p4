/* exit and return inside actions, applied by tables and called directly: the statements
 * after an exit do not run (in the action, after the apply, in the rest of ingress); a
 * return leaves only its action, so the statements after the apply or call still run, even
 * after a later table whose actions can exit. Actions that do neither change nothing of it. */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> op; bit<8> a; bit<8> b; bit<8> c; }
struct headers { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action stop() { hdr.h.a = 1; exit; }
    action back() { hdr.h.a = 2; return; }
    action go() { hdr.h.a = 3; }
    action stop2() { hdr.h.c = 0xE1; exit; }
    action go2() { hdr.h.c = 0xC3; }
    table t {
        key = { hdr.h.op: exact; }
        actions = { stop; back; go; }
        const entries = { 1 : stop(); 2 : back(); }
        default_action = go();
    }
    table t2 {
        key = { hdr.h.op: exact; }
        actions = { stop2; go2; }
        const entries = { 3 : stop2(); }
        default_action = go2();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 4) {
            back();
            hdr.h.b = 0xB4;
        } else {
            t.apply();
            hdr.h.b = 0xBB;
        }
        t2.apply();
        hdr.h.op = hdr.h.op | 0x80;
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
