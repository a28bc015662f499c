/* v1model packet life cycle: I2E clone (copy of the original input), E2E clone (copy of the
 * egress headers, metadata reset), resubmit and recirculate preserving a @field_list,
 * multicast replication with egress_rid, instance_type values. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> inst;
    bit<8> rid;
    bit<8> meta_val;
    bit<8> eport;
    bit<8> count;
}

struct headers { h_t h; }
struct meta_t {
    @field_list(1) bit<8> keep;
    bit<8> lost;
}

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.h.count = hdr.h.count + 1;
        if (hdr.h.op == 1) {
            clone(CloneType.I2E, 5);
            sm.egress_spec = 1;
        } else if (hdr.h.op == 2) {
            sm.mcast_grp = 7;
        } else if (hdr.h.op == 3) {
            if (sm.instance_type == 0) {
                m.keep = 0x42;
                m.lost = 0x99;
                resubmit_preserving_field_list(1);
            } else {
                hdr.h.meta_val = m.keep ^ m.lost;
                sm.egress_spec = 2;
            }
        } else if (hdr.h.op == 4) {
            if (sm.instance_type == 4) {
                hdr.h.meta_val = m.keep;
                sm.egress_spec = 2;
            } else {
                sm.egress_spec = 3;
            }
        } else if (hdr.h.op == 5) {
            sm.egress_spec = 1;
        }
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.h.inst = (bit<8>)sm.instance_type;
        hdr.h.rid = (bit<8>)sm.egress_rid;
        hdr.h.eport = (bit<8>)sm.egress_port;
        if (hdr.h.op == 4 && hdr.h.count == 1) {
            m.keep = 0x17;
            recirculate_preserving_field_list(1);
        }
        if (hdr.h.op == 5 && sm.instance_type == 0) {
            clone(CloneType.E2E, 6);
        }
    }
}
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
