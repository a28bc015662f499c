/* Externs: hash (crc32, crc16, csum16, xor16, identity) against known values, register
 * read-modify-write, counter, direct_counter, meter (packets, trTCM colors over time),
 * random with lo == hi, verify_checksum, mark_to_drop in egress, log_msg. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  op;
    bit<72> data;
    bit<32> crc32;
    bit<16> crc16;
    bit<16> csum;
    bit<16> xor16;
    bit<32> ident;
    bit<32> reg_old;
    bit<8>  color;
    bit<8>  rnd;
    bit<8>  cerr;
    bit<16> ck;
    bit<16> hmod;
}

struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) {
    apply {
        verify_checksum(hdr.h.isValid(), { hdr.h.op, hdr.h.data }, hdr.h.ck,
                        HashAlgorithm.csum16);
    }
}

register<bit<32>>(8) cnt;

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) port_pkts;
    direct_counter(CounterType.packets) dc;
    meter(2, MeterType.packets) mtr;

    action hit() { }
    table counted {
        key = { hdr.h.op: exact; }
        actions = { hit; NoAction; }
        counters = dc;
    }

    apply {
        hash(hdr.h.crc32, HashAlgorithm.crc32, 32w0, { hdr.h.data }, 33w0x100000000);
        hash(hdr.h.crc16, HashAlgorithm.crc16, 16w0, { hdr.h.data }, 17w0x10000);
        hash(hdr.h.csum, HashAlgorithm.csum16, 16w0, { hdr.h.data }, 17w0x10000);
        hash(hdr.h.xor16, HashAlgorithm.xor16, 16w0, { hdr.h.data }, 17w0x10000);
        hash(hdr.h.ident, HashAlgorithm.identity, 32w0, { hdr.h.data[31:0] }, 33w0x100000000);
        hash(hdr.h.hmod, HashAlgorithm.crc16, 16w100, { hdr.h.data }, 16w10);
        bit<32> old;
        cnt.read(old, (bit<32>)sm.ingress_port);
        cnt.write((bit<32>)sm.ingress_port, old + 1);
        hdr.h.reg_old = old;
        port_pkts.count((bit<32>)sm.ingress_port);
        counted.apply();
        mtr.execute_meter(32w1, hdr.h.color);
        random(hdr.h.rnd, 8w7, 8w7);
        hdr.h.cerr = (bit<8>)sm.checksum_error;
        log_msg("op={} port={}", { hdr.h.op, sm.ingress_port });
        sm.egress_spec = 3;
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.op == 0xDD) {
            mark_to_drop(sm);
        }
    }
}
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
