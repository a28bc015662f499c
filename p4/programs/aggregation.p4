/* aggregation.p4: in-network aggregation of gradients (SwitchML and ATP, NSDI'21; Libra's hot
 * parameters, arXiv 2205.05243), on top of basic.p4's L3 forwarding.
 *
 * Workers send UDP packets to port AGG_PORT, addressed to the job's parameter server, with an
 * aggregation header and AGG_NVALS int32 values (gradients quantised with a shared exponent per
 * block). The switch keeps a pool of AGG_POOL aggregator slots in registers; each slot has two
 * copies (version bit), and each copy a worker bitmap, a contribution counter and AGG_NVALS
 * integer sums.
 *
 *   - A contribution whose worker bit is not yet set in its copy is added (the first one of a
 *     round writes instead); it sets its bit and clears the worker's bit in the other copy,
 *     which the worker has then finished with. The last contribution (counter = fan-in) writes
 *     the result into the packet and multicasts it to the job's workers (group job + 1, egress
 *     table agg_workers gives each replica its worker's address); the others are consumed.
 *   - A contribution whose bit is already set is a retransmission: it only reads. If the copy is
 *     complete the result goes back to the sender alone (its result was lost); otherwise it is
 *     dropped (its first copy is already counted).
 *   - A slot belongs to the first job that uses it (register agg_owner holds job + 1). A packet
 *     for a slot another job holds, or beyond the pool, goes on to the parameter server it is
 *     addressed to, which aggregates it in software (ATP's best-effort fallback).
 *   - Sparse updates (flag AGG_F_SPARSE: Libra) carry a key block instead of a slot: the
 *     hot_keys table maps hot blocks to slots; a miss (a cold block) goes to the server.
 *   - Aggregate packets (flag AGG_F_RESULT) are ECN-marked in egress when the queue they leave
 *     behind is deeper than register agg_ecn_kmin[0] packets (0 = never), as ATP does, so
 *     workers shrink their windows.
 * Results (from the switch or from the server) carry AGG_F_RESULT and are routed normally. */
#include <core.p4>
#include <v1model.p4>

#define AGG_POOL 2048
#define AGG_NVALS 64

const bit<16> TYPE_IPV4 = 0x800;
const bit<8> PROTO_UDP = 17;
const bit<16> AGG_PORT = 0xA66A;
const bit<8> AGG_F_RESULT = 0x01;
const bit<8> AGG_F_SPARSE = 0x02;
const bit<8> AGG_F_FROM_PS = 0x04;

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<6>    dscp;
    bit<2>    ecn;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length;
    bit<16> checksum;
}

/* 16 bytes; models/ddl/inc_pkt.h writes the same layout */
header agg_t {
    bit<16> job;
    bit<8>  flags;
    bit<8>  ver;      /* which copy of the slot: 0 or 1 */
    bit<32> idx;      /* slot (dense) or key block (sparse) */
    bit<8>  worker;   /* 0..31: the worker's bit in the bitmap */
    bit<8>  fanin;    /* contributions that complete a slot (the job's workers) */
    bit<16> slot;     /* the sender's window slot (hosts use it; the switch does not) */
    bit<32> seq;      /* the sender's block number (hosts use it; the switch does not) */
}

header value_t {
    bit<32> v;
}

struct metadata {
    bit<32> slot;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    agg_t      agg;
    value_t[AGG_NVALS] vals;
}

parser MyParser(packet_in packet,
                out headers hdr,
                inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            PROTO_UDP: parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.dstPort) {
            AGG_PORT: parse_agg;
            default: accept;
        }
    }

    state parse_agg {
        packet.extract(hdr.agg);
        transition parse_vals;
    }

    state parse_vals {
        packet.extract(hdr.vals.next);
        transition select(hdr.vals.lastIndex) {
            AGG_NVALS - 1: accept;
            default: parse_vals;
        }
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<16>>(AGG_POOL) agg_owner;        /* job + 1; 0 = free */
    register<bit<32>>(2 * AGG_POOL) agg_bitmap;   /* [ver * POOL + slot] */
    register<bit<8>>(2 * AGG_POOL) agg_count;     /* contributions so far; 0 = complete/idle */
    register<bit<32>>(2 * AGG_POOL * AGG_NVALS) agg_value;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
            NoAction;
        }
        size = 65536;
        default_action = drop();
    }

    action hot(bit<32> slot) {
        meta.slot = slot;
    }

    /* Libra: the hot key blocks of each job and their slots; a miss is a cold block */
    table hot_keys {
        key = {
            hdr.agg.job: exact;
            hdr.agg.idx: exact;
        }
        actions = {
            hot;
            NoAction;
        }
        size = AGG_POOL;
        default_action = NoAction();
    }

    /* the values of copy `cell` into the packet */
    action read_values(bit<32> cell) {
        for (bit<8> i = 0; i < AGG_NVALS; i = i + 1) {
            bit<32> x;
            agg_value.read(x, cell * AGG_NVALS + (bit<32>)i);
            hdr.vals[i].v = x;
        }
    }

    /* the first contribution of a round writes, later ones add; the packet carries the sum */
    action add_values(bit<32> cell, bool first) {
        for (bit<8> i = 0; i < AGG_NVALS; i = i + 1) {
            bit<32> x = 0;
            if (!first) {
                agg_value.read(x, cell * AGG_NVALS + (bit<32>)i);
            }
            x = x + hdr.vals[i].v;
            agg_value.write(cell * AGG_NVALS + (bit<32>)i, x);
            hdr.vals[i].v = x;
        }
    }

    /* the packet goes back to its sender as a result */
    action reply() {
        standard_metadata.egress_spec = standard_metadata.ingress_port;
        macAddr_t m = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = m;
        ip4Addr_t a = hdr.ipv4.dstAddr;
        hdr.ipv4.dstAddr = hdr.ipv4.srcAddr;
        hdr.ipv4.srcAddr = a;
    }

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
            return;
        }
        if (hdr.agg.isValid() && hdr.vals[AGG_NVALS - 1].isValid() &&
            (hdr.agg.flags & AGG_F_RESULT) == 0 && hdr.agg.worker < 32 && hdr.agg.ver < 2) {
            bool in_switch = true;
            meta.slot = hdr.agg.idx;
            if ((hdr.agg.flags & AGG_F_SPARSE) != 0) {
                meta.slot = AGG_POOL;
                hot_keys.apply();
            }
            bit<16> owner = 0;
            if (meta.slot >= AGG_POOL) {
                in_switch = false;                 /* beyond the pool, or a cold key block */
            } else {
                agg_owner.read(owner, meta.slot);
                if (owner == 0) {
                    owner = hdr.agg.job + 1;
                    agg_owner.write(meta.slot, owner);
                }
                if (owner != hdr.agg.job + 1) {
                    in_switch = false;             /* another job holds the slot */
                }
            }
            if (in_switch) {
                bit<32> cell = (bit<32>)hdr.agg.ver * AGG_POOL + meta.slot;
                bit<32> other = (bit<32>)(1 - hdr.agg.ver) * AGG_POOL + meta.slot;
                bit<32> me = (bit<32>)1 << hdr.agg.worker;
                bit<32> seen;
                bit<8> count;
                agg_bitmap.read(seen, cell);
                agg_count.read(count, cell);
                if ((seen & me) == 0) {
                    agg_bitmap.write(cell, seen | me);
                    bit<32> seen_other;
                    agg_bitmap.read(seen_other, other);
                    agg_bitmap.write(other, seen_other & ~me);
                    add_values(cell, count == 0);
                    count = count + 1;
                    if (count >= hdr.agg.fanin) {
                        agg_count.write(cell, 0);
                        hdr.agg.flags = hdr.agg.flags | AGG_F_RESULT;
                        standard_metadata.mcast_grp = hdr.agg.job + 1;
                    } else {
                        agg_count.write(cell, count);
                        drop();
                    }
                } else if (count == 0) {
                    read_values(cell);
                    hdr.agg.flags = hdr.agg.flags | AGG_F_RESULT;
                    reply();
                } else {
                    drop();
                }
                return;
            }
        }
        ipv4_lpm.apply();
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    register<bit<32>>(1) agg_ecn_kmin;

    action to_worker(macAddr_t mac, ip4Addr_t ip) {
        hdr.ethernet.dstAddr = mac;
        hdr.ipv4.dstAddr = ip;
    }

    /* the address of each replica of a job's multicast result (rid = worker index) */
    table agg_workers {
        key = {
            hdr.agg.job: exact;
            standard_metadata.egress_rid: exact;
        }
        actions = {
            to_worker;
            NoAction;
        }
        size = 1024;
        default_action = NoAction();
    }

    apply {
        if (hdr.agg.isValid() && (hdr.agg.flags & AGG_F_RESULT) != 0) {
            if (standard_metadata.instance_type == 5) {
                agg_workers.apply();
            }
            bit<32> kmin;
            agg_ecn_kmin.read(kmin, 0);
            if (kmin != 0 && (bit<32>)standard_metadata.deq_qdepth > kmin &&
                hdr.ipv4.ecn != 0) {
                hdr.ipv4.ecn = 3;
            }
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.totalLen,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.fragOffset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.srcAddr,
              hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum,
            HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.udp);
        packet.emit(hdr.agg);
        packet.emit(hdr.vals);
    }
}

V1Switch(
MyParser(),
MyVerifyChecksum(),
MyIngress(),
MyEgress(),
MyComputeChecksum(),
MyDeparser()
) main;
