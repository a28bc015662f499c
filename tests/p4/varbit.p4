/* varbit: extract(hdr, bits) with a run-time length (IPv4-style options after a fixed
 * header), emit of the current length, header copy and equality, a checksum over a data list
 * that includes the varbit, and the parser errors for bad lengths. */
#include <core.p4>
#include <v1model.p4>

header ip_t { bit<4> version; bit<4> ihl; bit<8> ttl; bit<16> csum; }
header opts_t { varbit<64> options; }
header r_t { bit<8> err; bit<8> same; }

struct headers { r_t r; ip_t ip; opts_t opts; opts_t copy; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ip);
        pkt.extract(hdr.opts, (bit<32>)hdr.ip.ihl * 8);
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.r.setValid();
        hdr.r.err = sm.parser_error == error.NoError ? 8w0
                  : sm.parser_error == error.HeaderTooShort ? 8w1
                  : sm.parser_error == error.PacketTooShort ? 8w2 : 8w3;
        hdr.ip.ttl = hdr.ip.ttl - 1;
        if (hdr.ip.version == 2) {
            hdr.copy = hdr.opts;
        }
        hdr.r.same = (hdr.copy == hdr.opts) ? 8w1 : 8w0;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) {
    apply {
        update_checksum(hdr.ip.isValid(), { hdr.ip.version, hdr.ip.ihl, hdr.ip.ttl,
                                            hdr.opts.options }, hdr.ip.csum,
                        HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.r); pkt.emit(hdr.ip); pkt.emit(hdr.opts); pkt.emit(hdr.copy); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
