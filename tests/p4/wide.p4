/* Values wider than 64 bits: bit<128> fields (IPv6 addresses), lpm on a 128-bit key,
 * arithmetic with carries across words, shifts, slices, concatenation, comparisons,
 * a 128-bit register, and unsized literals wider than 64 bits. */
#include <core.p4>
#include <v1model.p4>

const bit<128> BIG = 0x0001_0000_0000_0000_0000_0000_0000_0000;

header ip6_t {
    bit<128> src;
    bit<128> dst;
}
header r_t {
    bit<128> sum;
    bit<128> shifted;
    bit<64>  mid;
    bit<96>  cat;
    bit<8>   cmp;
    bit<8>   port;
    bit<128> reg;
}

struct headers { ip6_t ip6; r_t r; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ip6); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

register<bit<128>>(2) last_src;

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action route(bit<8> p) { hdr.r.port = p; }
    table rt {
        key = { hdr.ip6.dst: lpm; }
        actions = { route; }
        default_action = route(0xFF);
    }
    apply {
        hdr.r.setValid();
        rt.apply();
        hdr.r.sum = hdr.ip6.src + hdr.ip6.dst + BIG;
        hdr.r.shifted = hdr.ip6.src << 68;
        hdr.r.mid = hdr.ip6.dst[95:32];
        hdr.r.cat = hdr.ip6.src[31:0] ++ hdr.ip6.dst[63:0];
        hdr.r.cmp = (bit<1>)(hdr.ip6.src < hdr.ip6.dst) ++
                    (bit<7>)(bit<1>)(hdr.ip6.src == 0xfe80_0000_0000_0000_0000_0000_0000_0001);
        last_src.read(hdr.r.reg, 0);
        last_src.write(0, hdr.ip6.src);
        sm.egress_spec = 1;
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.ip6); pkt.emit(hdr.r); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
