/* Structs as header fields (P4_16 7.2.3: a struct of bit fields in a header): extracted and
 * emitted in place, nested fields read, written and used as select keys, a whole nested
 * struct assigned and compared, and hashed as part of a data list. */
#include <core.p4>
#include <v1model.p4>

struct addr_t { bit<16> hi; bit<32> lo; }
header x_t { bit<8> kind; addr_t src; addr_t dst; bit<8> tail; }
header o_t { bit<8> same; bit<16> old_hi; bit<16> hsh; }

struct headers { o_t o; x_t x; }
struct meta_t { addr_t old; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.x);
        transition select(h.x.src.hi) {
            0x0A0B: accept;
            default: reject;
        }
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.x.src.lo = h.x.src.lo + 1;
        m.old = h.x.dst;
        h.x.dst = h.x.src;
        h.o.same = h.x.dst == h.x.src ? 8w1 : 8w0;
        h.o.old_hi = m.old.hi;
        hash(h.o.hsh, HashAlgorithm.identity, 16w0, { h.x.src }, 32w65536);
        sm.egress_spec = sm.parser_error == error.NoError ? 9w1 : 9w2;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.x);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
