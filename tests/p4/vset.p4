/* Parser value sets: select cases that match any member added by the control plane (exact
 * or masked), mixed with constant cases. */
#include <core.p4>
#include <v1model.p4>

header t_t { bit<16> type; bit<8> res; }
struct headers { t_t t; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) tunnel_types;
    state start {
        pkt.extract(hdr.t);
        transition select(hdr.t.type) {
            0x0800: ip;
            tunnel_types: tunnel;
            default: accept;
        }
    }
    state ip { hdr.t.res = 1; transition accept; }
    state tunnel { hdr.t.res = 2; transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.t); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
