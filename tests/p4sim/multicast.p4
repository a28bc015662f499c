/* Test program: everything that arrives on port 0 goes to multicast group 1; packets arriving
 * elsewhere are forwarded by the routes the scenario builder installs. Replicas carry their
 * rid in the IPv4 identification field, so receivers can tell them apart. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<8>  versionIhl;
    bit<8>  tos;
    bit<16> totalLen;
    bit<16> identification;
    bit<16> flagsFrag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct metadata {}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action ipv4_forward(bit<48> dstAddr, bit<9> port) {
        sm.egress_spec = port;
        hdr.ethernet.dstAddr = dstAddr;
    }
    action drop() { mark_to_drop(sm); }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; }
        default_action = drop();
    }
    apply {
        if (sm.ingress_port == 0) {
            sm.mcast_grp = 1;
        } else {
            ipv4_lpm.apply();
        }
    }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 5) {
            hdr.ipv4.identification = sm.egress_rid;
        }
    }
}

control CC(inout headers hdr, inout metadata meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
