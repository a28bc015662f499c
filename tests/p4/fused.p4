/* The compiled engine's fused paths, each with its fallback: a run of assignments in one
 * action (a parameter, a field copy, a field minus a constant, a constant; the header fields
 * written through to their wire bytes, one into a header that was never extracted), a
 * one-key select with value cases and a default, an extract whose 64-bit words run past the
 * end of a short packet, and a csum16 over one header's fields leaving out its checksum. */
#include <core.p4>
#include <v1model.p4>

header p_t {
    bit<8>  kind;
    bit<8>  ttl;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

header q_t {
    bit<16> tag;
}

struct headers {
    p_t p;
    q_t q;
}

struct meta_t { }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.p);
        transition select(h.p.kind) {
            1: with_q;
            7: with_q;
            default: accept;
        }
    }
    state with_q {
        pkt.extract(h.q);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action fwd(bit<9> port, bit<32> a) {
        sm.egress_spec = port;
        h.p.dst = h.p.src;
        h.p.src = a;
        h.p.ttl = h.p.ttl - 1;
        h.q.tag = 0x1234;
    }
    table t {
        key = { h.p.kind: exact; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply { t.apply(); }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }

control CC(inout headers h, inout meta_t m) {
    apply {
        update_checksum(h.p.isValid(), { h.p.kind, h.p.ttl, h.p.src, h.p.dst }, h.p.csum,
                        HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.p);
        pkt.emit(h.q);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
