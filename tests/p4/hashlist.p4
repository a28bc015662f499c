/* Data lists of hash/checksum skip the fields of invalid headers (bmv2 builds the input
 * from valid headers only); metadata fields are always included; identity takes the first
 * 8 bytes. */
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> x; bit<8> has_b; }
header b_t { bit<8> y; }
header r_t { bit<32> id; bit<16> cs; bit<64> first8; }

struct headers { a_t a; b_t b; r_t r; }
struct meta_t { bit<8> m; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.has_b) {
            1: get_b;
            default: accept;
        }
    }
    state get_b { pkt.extract(hdr.b); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.m = 0xEE;
        hdr.r.setValid();
        hash(hdr.r.id, HashAlgorithm.identity, 32w0, { hdr.b.y, hdr.a.x, m.m },
             33w0x100000000);
        hash(hdr.r.cs, HashAlgorithm.csum16, 16w0, { hdr.b.y, hdr.a.x }, 17w0x10000);
        hash(hdr.r.first8, HashAlgorithm.identity, 64w0,
             { 32w0x01020304, 32w0x05060708, 16w0x090A }, 65w0x10000000000000000);
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.r); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
