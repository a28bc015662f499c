/* Header stacks as values: assignment of a whole stack (elements, validity and nextIndex),
 * == and != (elements only; invalid elements are equal whatever their fields hold), a stack
 * of header unions (extract into next.member, isValid, push_front invalidating every member,
 * emit), next/last/lastIndex in select keys, assignments and controls, and out-of-range
 * behaviour: a run-time index past the end reads 0 and writes nothing; next or last past the
 * end in a parser rejects with StackOutOfBounds. */
#include <core.p4>
#include <v1model.p4>

header e_t { bit<8> f; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union u_t { a_t a; b_t b; }
header tag_t { bit<8> t; }
header o_t { bit<8> eq; bit<8> ne; bit<8> oob; bit<8> li; bit<8> last; bit<8> uvalid; bit<8> perr; }

struct headers { o_t o; e_t[3] s; e_t[3] t; tag_t[2] tags; u_t[2] u; }
struct meta_t { bit<32> li; bit<8> lastf; bit<32> idx; }

parser P(packet_in pkt, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(h.s.next);
        pkt.extract(h.s.next);
        m.li = h.s.lastIndex;
        transition select(h.s.last.f) {
            0xEE: empty_last;
            default: unions;
        }
    }
    state unions {
        pkt.extract(h.tags.next);
        transition select(h.tags.last.t) {
            0x0A: ua;
            0x0B: ub;
            0x0C: over;
            default: accept;
        }
    }
    state ua {
        pkt.extract(h.u.next.a);
        transition select(h.u.lastIndex) {
            0: unions;
            default: accept;
        }
    }
    state ub {
        pkt.extract(h.u.next.b);
        transition select(h.u.lastIndex) {
            0: unions;
            default: accept;
        }
    }
    state empty_last {
        m.lastf = h.t.last.f;   /* h.t is empty: StackOutOfBounds */
        transition accept;
    }
    state over {
        pkt.extract(h.s.next);
        m.lastf = h.s.next.f;   /* h.s is full: StackOutOfBounds */
        transition accept;
    }
}

control VC(inout headers h, inout meta_t m) { apply { } }

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.o.setValid();
        h.t = h.s;
        h.o.eq = h.t == h.s ? 8w1 : 8w0;
        h.t[2].f = 0x99;
        h.o.ne = h.t != h.s ? 8w1 : 8w0;
        h.t[1].f = h.t[1].f + 1;
        h.o.ne = h.o.ne | (h.t != h.s ? 8w2 : 8w0);
        m.idx = 5;
        h.o.oob = h.s[m.idx].f;
        h.s[m.idx].f = 0x77;
        h.o.li = (bit<8>)m.li;
        h.o.last = h.s.last.f;
        h.o.uvalid = (h.u[0].isValid() ? 8w1 : 8w0) | (h.u[1].b.isValid() ? 8w2 : 8w0);
        h.o.perr = sm.parser_error == error.StackOutOfBounds ? 8w1 : 8w0;
        if (h.o.perr == 0 && h.u[0].a.isValid()) {
            h.u.push_front(1);
        }
        sm.egress_spec = 1;
    }
}

control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers h) {
    apply {
        pkt.emit(h.o);
        pkt.emit(h.s);
        pkt.emit(h.t);
        pkt.emit(h.tags);
        pkt.emit(h.u);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
