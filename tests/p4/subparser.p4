/* Sub-parsers (P4_16 13.9): parsers instantiated in a parser (and in another sub-parser) and
 * invoked with apply. The calling state is split: its top half copies the arguments in and
 * runs the callee's states, whose accept continues the calling state (statements after the
 * call, then its transition) and copies out/inout arguments back; the callee's reject (or an
 * error: a failed verify, a stack overflow) rejects the whole parse, before any copy-out.
 * One instance applied from two states (two inlined copies), a callee looping over its own
 * states to extract into a header stack, an out scalar, and a nested sub-parser. */
#include <core.p4>
#include <v1model.p4>

error { BadTtl }

header eth_t { bit<8> type; }
header lbl_t { bit<7> v; bit<1> bos; }
header ip_t { bit<8> ttl; bit<8> proto; }
header o_t { bit<8> nlabels; bit<8> after; bit<8> perr; bit<8> inner; }

struct headers { o_t o; eth_t eth; lbl_t[4] lbls; ip_t ip; ip_t ip2; }
struct meta_t { bit<8> after; bit<8> count; }

/* labels into a stack until the bottom of stack; count is an out argument */
parser Labels(packet_in pkt, inout lbl_t[4] st, out bit<8> count) {
    state start {
        count = 0;
        transition more;
    }
    state more {
        pkt.extract(st.next);
        count = count + 1;
        transition select(st.last.bos) {
            0: more;
            1: accept;
        }
    }
}

parser Ip(packet_in pkt, out ip_t ip) {
    state start {
        pkt.extract(ip);
        verify(ip.ttl != 0, error.BadTtl);
        transition accept;
    }
}

/* a sub-parser applying another one */
parser Inner(packet_in pkt, out ip_t ip) {
    Ip() ipp;
    state start {
        ipp.apply(pkt, ip);
        transition accept;
    }
}

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    Labels() lp;
    Ip() ipp;
    Inner() inner;
    state start {
        pkt.extract(h.eth);
        transition select(h.eth.type) {
            0x88: mpls;
            0x01: ip;
            0x02: two;
            default: accept;
        }
    }
    state mpls {
        lp.apply(pkt, h.lbls, m.count);
        m.after = 0xA1;
        transition ip;
    }
    state ip {
        ipp.apply(pkt, h.ip);
        transition accept;
    }
    state two {
        ipp.apply(pkt, h.ip);
        inner.apply(pkt, h.ip2);
        m.after = 0xB2;
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.o.nlabels = m.count;
        h.o.after = m.after;
        h.o.perr = sm.parser_error == error.BadTtl ? 8w1
                 : sm.parser_error == error.StackOutOfBounds ? 8w2 : 8w0;
        h.o.inner = h.ip2.isValid() ? h.ip2.ttl : 8w0;
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.eth);
        pkt.emit(h.lbls);
        pkt.emit(h.ip);
        pkt.emit(h.ip2);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
