/* Standard metadata the program reaches only through whole-struct values and arguments: the
 * pipeline sets just the fields some part of the program refers to (p4use.h), so each field
 * below must still arrive with its value. Ingress: ingress_port through a struct copy,
 * ingress_global_timestamp through a nested control that takes the struct, instance_type
 * through a function's struct argument (a resubmitted pass sees 6). Egress: egress_port through a struct copy,
 * deq_qdepth through a function's struct argument, enq_timestamp through a register write's
 * argument, egress_global_timestamp through a hash data list. A local of a function that
 * ingress and computeChecksum both call, read before any write, is 0 in each call (the
 * scratch slots start zeroed in every block run). */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> port;
    bit<8>  itype;
    bit<48> ig_ts;
    bit<16> eport;
    bit<32> deq;
    bit<32> enq_ts;
    bit<48> eg_ts;
    bit<8>  a;
    bit<8>  b;
}

struct headers { h_t h; }
struct meta_t { @field_list(1) bit<8> k; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

bit<8> itype_of(in standard_metadata_t s) {
    return (bit<8>)s.instance_type;
}

bit<32> deq_of(in standard_metadata_t s) {
    return (bit<32>)s.deq_qdepth;
}

/* t is set only when x > 5; otherwise it is read as it was */
bit<8> above5(in bit<8> x) {
    bit<8> t;
    if (x > 5) {
        t = x;
    }
    return t;
}

control Stamp(inout headers hdr, in standard_metadata_t s) {
    apply { hdr.h.ig_ts = s.ingress_global_timestamp; }
}

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    Stamp() stamp;
    apply {
        standard_metadata_t c = sm;
        hdr.h.port = (bit<16>)c.ingress_port;
        stamp.apply(hdr, sm);
        hdr.h.itype = itype_of(sm) + 0x10;
        if (hdr.h.a == 0xee && itype_of(sm) == 0) {
            resubmit_preserving_field_list(1);
        }
        hdr.h.a = above5(hdr.h.a);
        sm.egress_spec = 2;
    }
}

register<bit<32>>(1) enq_reg;

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        standard_metadata_t e = sm;
        hdr.h.eport = (bit<16>)e.egress_port;
        hdr.h.deq = deq_of(sm);
        enq_reg.write(0, sm.enq_timestamp);
        enq_reg.read(hdr.h.enq_ts, 0);
        hash(hdr.h.eg_ts, HashAlgorithm.identity, (bit<48>)0, { sm.egress_global_timestamp },
             64w0x1000000000000);
    }
}

control CC(inout headers hdr, inout meta_t m) {
    apply { hdr.h.b = above5(hdr.h.b); }
}

control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
