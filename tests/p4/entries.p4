/* Const entries on lpm (longest prefix wins regardless of order) and range tables, exact
 * tables with entries and a non-const `entries` list extended by the control plane, and
 * update_checksum_with_payload (a UDP-style checksum over header fields and the payload). */
#include <core.p4>
#include <v1model.p4>

header h_t { bit<32> ip; bit<16> port; bit<8> lpm_res; bit<8> range_res; bit<8> ex_res; bit<16> csum; }

struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action l(bit<8> v) { hdr.h.lpm_res = v; }
    action r(bit<8> v) { hdr.h.range_res = v; }
    action x(bit<8> v) { hdr.h.ex_res = v; }
    table lpm_t {
        key = { hdr.h.ip: lpm; }
        actions = { l; }
        const entries = {
            0x0A000000 &&& 0xFF000000: l(8);
            0x0A010100 &&& 0xFFFFFF00: l(24);
            0x0A010000 &&& 0xFFFF0000: l(16);
            _: l(0);
        }
    }
    table range_t {
        key = { hdr.h.port: range; }
        actions = { r; }
        const entries = {
            0 .. 1023: r(1);
            1000 .. 2000: r(2);
        }
        default_action = r(0xFF);
    }
    table ex_t {
        key = { hdr.h.port: exact; }
        actions = { x; NoAction; }
        entries = {
            80: x(0x50);
            443: x(0xBB);
        }
        default_action = NoAction();
    }
    apply {
        lpm_t.apply();
        range_t.apply();
        ex_t.apply();
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) {
    apply {
        update_checksum_with_payload(true, { hdr.h.ip, hdr.h.port }, hdr.h.csum,
                                     HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
