/* Parser: select on a tuple with masks, ranges and default; lookahead of bits and of a
 * header (select on one of its fields); advance; verify with
 * a user error; parser errors (PacketTooShort, NoMatch, user error) do not drop: ingress
 * sees standard_metadata.parser_error and the unparsed bytes follow as payload. */
#include <core.p4>
#include <v1model.p4>

error { BadVersion }

header a_t { bit<8> kind; bit<8> sub; }
header b_t { bit<16> v; }
header c_t { bit<4> ver; bit<4> len; }
header r_t { bit<8> err; bit<8> path; bit<8> peek; }

struct headers { a_t a; b_t b; c_t c; r_t r; }
struct meta_t { bit<8> path; bit<8> peek; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        m.peek = pkt.lookahead<bit<8>>();
        transition select(pkt.lookahead<a_t>().sub) {
            0xEE: peek_only;
            default: parse_a;
        }
    }
    state peek_only { m.path = 6; transition accept; }
    state parse_a {
        pkt.extract(h.a);
        transition select(h.a.kind, h.a.sub) {
            (0x10, 0x01): exact_path;
            (0x20 &&& 0xF0, _): masked_path;
            (0x30 .. 0x3F, 0x00 .. 0x0F): range_path;
            (0x40, _): skip_path;
            (0x50, _): check_path;
            (0x60, default): reject;
            (0x70, _): accept;
        }
    }
    state exact_path { m.path = 1; pkt.extract(h.b); transition accept; }
    state masked_path { m.path = 2; pkt.extract(h.b); transition accept; }
    state range_path { m.path = 3; transition accept; }
    state skip_path {
        m.path = 4;
        pkt.advance(16);
        pkt.extract(h.b);
        transition accept;
    }
    state check_path {
        m.path = 5;
        pkt.extract(h.c);
        verify(h.c.ver == 4, error.BadVersion);
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.r.setValid();
        h.r.path = m.path;
        h.r.peek = m.peek;
        if (sm.parser_error == error.NoError) {
            h.r.err = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            h.r.err = 1;
        } else if (sm.parser_error == error.NoMatch) {
            h.r.err = 2;
        } else if (sm.parser_error == error.BadVersion) {
            h.r.err = 3;
        } else {
            h.r.err = 0xff;
        }
        sm.egress_spec = 2;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.r);
        pkt.emit(h.a);
        pkt.emit(h.b);
        pkt.emit(h.c);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
