/* Tables: exact (two keys), ternary with priorities, range, lpm on a slice, const entries
 * (textual order and @priority), const default_action, switch on action_run, hit/miss,
 * action data, directional action arguments, @name on keys. */
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  k1;
    bit<16> k2;
    bit<8>  t;
    bit<16> r;
    bit<32> ip;
    bit<8>  res_exact;
    bit<8>  res_tern;
    bit<8>  res_range;
    bit<8>  res_const;
    bit<8>  res_lpm;
    bit<8>  flags;
}

struct headers { h_t h; }
struct meta_t { bit<8> scratch; }

parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control VC(inout headers hdr, inout meta_t m) { apply { } }

control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set_exact(bit<8> v) { hdr.h.res_exact = v; }
    action set_tern(bit<8> v) { hdr.h.res_tern = v; }
    action set_range(bit<8> v) { hdr.h.res_range = v; }
    action set_const(bit<8> v) { hdr.h.res_const = v; }
    action set_lpm(bit<8> v) { hdr.h.res_lpm = v; }
    action add_to(inout bit<8> x, bit<8> d) { x = x + d; }
    action miss_mark() { hdr.h.flags = hdr.h.flags | 0x80; }

    table t_exact {
        key = { hdr.h.k1: exact; hdr.h.k2: exact @name("second"); }
        actions = { set_exact; NoAction; }
        default_action = NoAction();
    }
    table t_tern {
        key = { hdr.h.t: ternary; }
        actions = { set_tern; miss_mark; }
        default_action = miss_mark();
    }
    table t_range {
        key = { hdr.h.r: range; }
        actions = { set_range; add_to(hdr.h.res_range); }
    }
    table t_const {
        key = { hdr.h.t: ternary; hdr.h.k1: exact; }
        actions = { set_const; }
        const default_action = set_const(0xEE);
        const entries = {
            (0x0F &&& 0x0F, 1): set_const(1);
            (0x00 &&& 0x00, 1): set_const(2);
            (_, 2): set_const(3);
            @priority(1) (0x33, 3): set_const(4);
            @priority(2) (_, 3): set_const(5);
        }
    }
    table t_lpm {
        key = { hdr.h.ip[31:8]: lpm @name("prefix"); }
        actions = { set_lpm; }
    }

    apply {
        if (t_exact.apply().hit) {
            hdr.h.flags = hdr.h.flags | 1;
        }
        switch (t_tern.apply().action_run) {
            set_tern: { hdr.h.flags = hdr.h.flags | 2; }
            miss_mark: { hdr.h.flags = hdr.h.flags | 4; }
        }
        if (t_range.apply().miss) {
            hdr.h.flags = hdr.h.flags | 8;
        }
        t_const.apply();
        t_lpm.apply();
        sm.egress_spec = 1;
    }
}

control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
