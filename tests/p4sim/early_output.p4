/* Test program: L3 forwarding (routes from the scenario builder) with an empty egress control
 * and a checksum control that only computes, so the switch makes each unicast packet's output
 * once the traffic manager holds it (p4_prog_output_early). Register 0 of `mode`, set by the
 * test, picks what ingress does to the headers: 0 nothing more; 1 sets ECN ECT(1); 2 inserts a
 * 4-byte tag after Ethernet (the output is longer); 3 sets ECN CE and the checksum 0xffff,
 * unchecked; 4 leaves the checksum as it came; 5 drops the IPv4 header (the output is
 * shorter). */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header tag_t {
    bit<32> v;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<6>  dscp;
    bit<2>  ecn;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct metadata {
    bit<1> raw; /* the checksum stays as ingress set it */
}

struct headers {
    ethernet_t ethernet;
    tag_t      tag;
    ipv4_t     ipv4;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) mode;
    action ipv4_forward(bit<48> dstAddr, bit<9> port) {
        sm.egress_spec = port;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action drop() { mark_to_drop(sm); }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { ipv4_forward; drop; }
        default_action = drop();
    }
    apply {
        ipv4_lpm.apply();
        bit<8> m;
        mode.read(m, 0);
        if (m == 1) {
            hdr.ipv4.ecn = 1;
        } else if (m == 2) {
            hdr.tag.setValid();
            hdr.tag.v = 0x5441470a;
        } else if (m == 3) {
            hdr.ipv4.ecn = 3;
            hdr.ipv4.hdrChecksum = 0xffff;
            meta.raw = 1;
        } else if (m == 4) {
            meta.raw = 1;
        } else if (m == 5) {
            hdr.ipv4.setInvalid();
        }
    }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid() && meta.raw == 0,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
