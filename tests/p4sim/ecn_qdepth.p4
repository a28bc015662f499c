/* Test program: basic L3 forwarding (routes from the scenario builder) and, at egress, ECN CE on
 * ECN-capable packets that found at least `threshold` packets in their queue (enq_qdepth); the
 * threshold is register 0 of ecn_threshold, set from the scenario. Counts marks in a counter. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
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

struct metadata {}

struct headers {
    ethernet_t ethernet;
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
    apply { ipv4_lpm.apply(); }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<32>>(1) ecn_threshold;
    counter(1, CounterType.packets) marked;
    apply {
        bit<32> k;
        ecn_threshold.read(k, 0);
        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0 && (bit<32>)sm.enq_qdepth >= k) {
            hdr.ipv4.ecn = 3;
            marked.count(0);
        }
    }
}

control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
