/* Queueing metadata and time: priority chosen in ingress is visible in egress as qid;
 * enq_qdepth/deq_qdepth from the traffic manager; timestamps in microseconds. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  prio;
    bit<8>  qid;
    bit<32> enq_qdepth;
    bit<32> deq_qdepth;
    bit<32> deq_timedelta;
    bit<32> enq_ts;
    bit<48> ig_ts;
    bit<48> eg_ts;
    bit<32> pkt_len;
}

struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.priority = hdr.h.prio[2:0];
        hdr.h.ig_ts = sm.ingress_global_timestamp;
        hdr.h.pkt_len = sm.packet_length;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.h.qid = (bit<8>)sm.qid;
        hdr.h.enq_qdepth = (bit<32>)sm.enq_qdepth;
        hdr.h.deq_qdepth = (bit<32>)sm.deq_qdepth;
        hdr.h.deq_timedelta = sm.deq_timedelta;
        hdr.h.enq_ts = sm.enq_timestamp;
        hdr.h.eg_ts = sm.egress_global_timestamp;
    }
}
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
