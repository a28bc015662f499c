/* pcn.p4: proactive congestion notification (PCN, Sensors 21(1):174, 2021) on top of basic.p4's
 * L3 forwarding. A DDL burst meets the queue other traffic has built on its egress port; PCN
 * drains that queue before the burst arrives by ECN-marking the non-DDL packets of the port at a
 * lowered threshold, so ECN-reactive background flows (DCTCP, DCQCN) back off in time, while DDL
 * packets keep the default threshold. Two ways to know when a burst is coming, per egress port:
 *
 *   signalled   a DDL sender sends a START packet (IPv4 DSCP = the START code) a lead time before
 *               its burst and a RESET packet (DSCP = the RESET code) after it. START raises the
 *               port's count of active DDL senders and lowers its threshold to the one the
 *               sender asks for (a pcn_t header after UDP port PCN_UDP_PORT; 0 or no header: the
 *               configured lowered threshold); several senders' thresholds combine by min.
 *               RESET lowers the count; the last one restores the default threshold. So
 *               that a lost RESET cannot keep a port lowered for good, `hold` after the last
 *               START the port is restored anyway (0: never).
 *   predictive  no host help: the switch sees DDL packets (the DDL shim after a 0xDDxx source
 *               port, ddl_shim.p4; over RoCEv2 after the BTH and any RETH) on the port, takes
 *               a packet after an idle gap as the start of a burst, learns the period between
 *               burst starts (EWMA, weight 1/8) and lowers the threshold from `lead` before the
 *               next expected start until the burst is over (no DDL packet for `gap`), or
 *               `window` after the expected start if none came.
 *
 * Marking happens at egress: an ECN-capable packet that found at least K packets in its queue
 * (enq_qdepth >= K) leaves with CE (11), which DCTCP (echoed ECE) and DCQCN (CNP) react to.
 * Run the switch with `ecn: none` so that only the program marks.
 *
 * Configuration: register pcn_cfg, written from the scenario (switch `registers:` in YAML) or STF;
 * a cell left 0 takes the default below. Times are in the switch's timestamp unit (us as in
 * bmv2, ns with `timestamps: ns`). */
#include <core.p4>
#include <v1model.p4>
#include "ddl_shim.p4"

const bit<16> TYPE_IPV4 = 0x800;
const bit<8> PROTO_TCP = 6;
const bit<8> PROTO_UDP = 17;
const bit<16> PCN_UDP_PORT = 0x50C0; /* signal packets may carry a pcn_t header to this port */
const bit<16> ROCE_UDP_PORT = 4791;
const bit<8> ROCE_OP_WRITE_FIRST = 0x06; /* RDMA WRITE opcodes whose BTH a RETH follows */
const bit<8> ROCE_OP_WRITE_ONLY = 0x0a;

/* pcn_cfg cells */
const bit<32> CFG_MODE = 0;       /* bit 0: signalled, bit 1: predictive; 0: plain ECN at K */
const bit<32> CFG_K = 1;          /* default threshold, packets */
const bit<32> CFG_K_LOW = 2;      /* lowered threshold for non-DDL packets, packets */
const bit<32> CFG_START_DSCP = 3; /* DSCP of START signals */
const bit<32> CFG_RESET_DSCP = 4; /* DSCP of RESET signals */
const bit<32> CFG_LEAD = 5;       /* predictive: lower this long before the expected burst */
const bit<32> CFG_GAP = 6;        /* predictive: DDL silence that ends a burst */
const bit<32> CFG_WINDOW = 7;     /* predictive: stay lowered this long past the expected start */
const bit<32> CFG_HOLD = 8;       /* signalled: a port lowered this long after its last START
                                   * is restored (a lost RESET); 0: no limit */

/* defaults of cells left 0: K = 40 packets (the paper's default threshold); lowered K = 2
 * packets: DCTCP keeps a link busy with K > C x RTT / 7 (DCTCP paper), 1.1 packets at 10 Gb/s
 * and a 9 us round trip, so 2 leaves the queue nearly empty without idling the port; START and
 * RESET are local-use DSCPs (RFC 2474 pool 3, xxxx01); lead 10 ms, gap 1 ms and window 10 ms
 * in us */
const bit<32> DEF_K = 40;
const bit<32> DEF_K_LOW = 2;
const bit<6> DEF_START_DSCP = 0x05;
const bit<6> DEF_RESET_DSCP = 0x09;
const bit<48> DEF_LEAD = 10000;
const bit<48> DEF_GAP = 1000;
const bit<48> DEF_WINDOW = 10000;

const bit<32> MODE_SIGNALLED = 1;
const bit<32> MODE_PREDICTIVE = 2;
const bit<32> PORTS = 64;

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

header tcp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<32> seqNo;
    bit<32> ackNo;
    bit<4>  dataOffset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgentPtr;
}

/* RoCEv2 base transport header and RDMA extended transport header (DDL over RDMA: the shim
 * follows them) */
header bth_t {
    bit<8>  opcode;
    bit<8>  flags;
    bit<16> pkey;
    bit<8>  reserved;
    bit<24> dqpn;
    bit<8>  ackreq;
    bit<24> psn;
}

header reth_t {
    bit<64> va;
    bit<32> rkey;
    bit<32> dmaLen;
}

/* what a signal asks for: the lowered threshold in packets (0: the switch's) */
header pcn_t {
    bit<32> threshold;
}

struct metadata {
    bit<32> k; /* this packet's marking threshold, packets */
    bit<1>  ddl;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    tcp_t      tcp;
    bth_t      bth;
    reth_t     reth;
    ddl_shim_t ddl;
    pcn_t      pcn;
}

/* configuration, and the per-egress-port state both modes keep */
register<bit<32>, bit<32>>(9) pcn_cfg;
register<bit<32>, bit<32>>(PORTS) pcn_active; /* 1 while a signalled burst is announced */
register<bit<32>, bit<32>>(PORTS) pcn_count;  /* DDL senders between START and RESET */
register<bit<32>, bit<32>>(PORTS) pcn_low;    /* min of their lowered thresholds */
register<bit<48>, bit<32>>(PORTS) pcn_since;  /* time of the last START */
register<bit<48>, bit<32>>(PORTS) pred_last;   /* last DDL packet */
register<bit<48>, bit<32>>(PORTS) pred_start;  /* start of the last burst */
register<bit<48>, bit<32>>(PORTS) pred_period; /* EWMA of the time between burst starts */
register<bit<32>, bit<32>>(PORTS) pred_bursts; /* bursts seen */

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
            PROTO_TCP: parse_tcp;
            default: accept;
        }
    }

    state parse_udp {
        packet.extract(hdr.udp);
        transition select(hdr.udp.srcPort[15:8], hdr.udp.dstPort) {
            (_, PCN_UDP_PORT): parse_pcn;
            (_, ROCE_UDP_PORT): parse_bth;
            (DDL_PORT_HIGH, _): parse_ddl;
            default: accept;
        }
    }

    state parse_bth {
        packet.extract(hdr.bth);
        transition select(hdr.bth.opcode) {
            ROCE_OP_WRITE_FIRST: parse_reth;
            ROCE_OP_WRITE_ONLY: parse_reth;
            default: roce_ddl;
        }
    }

    state parse_reth {
        packet.extract(hdr.reth);
        transition roce_ddl;
    }

    state roce_ddl {
        transition select(hdr.udp.srcPort[15:8]) {
            DDL_PORT_HIGH: parse_ddl;
            default: accept;
        }
    }

    state parse_tcp {
        packet.extract(hdr.tcp);
        transition select(hdr.tcp.srcPort[15:8]) {
            DDL_PORT_HIGH: parse_ddl;
            default: accept;
        }
    }

    state parse_ddl {
        packet.extract(hdr.ddl);
        transition accept;
    }

    state parse_pcn {
        packet.extract(hdr.pcn);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

/* A configuration cell, or its default when it is 0. */
control ReadCfg(in bit<32> idx, in bit<32> dflt, out bit<32> v) {
    apply {
        pcn_cfg.read(v, idx);
        if (v == 0) {
            v = dflt;
        }
    }
}

/* Signalled mode: START and RESET packets update their egress port's state. */
control Signals(inout headers hdr, in bit<32> port, in bit<32> k, in bit<32> k_low,
                in bit<48> now) {
    ReadCfg() start_code;
    ReadCfg() reset_code;
    apply {
        bit<32> sc;
        bit<32> rc;
        bit<32> hold;
        start_code.apply(CFG_START_DSCP, (bit<32>)DEF_START_DSCP, sc);
        reset_code.apply(CFG_RESET_DSCP, (bit<32>)DEF_RESET_DSCP, rc);
        pcn_cfg.read(hold, CFG_HOLD);
        bit<32> dscp = (bit<32>)hdr.ipv4.dscp;
        bit<32> n;
        bit<48> since;
        pcn_count.read(n, port);
        pcn_since.read(since, port);
        if (n > 0 && hold != 0 && now - since >= (bit<48>)hold) {
            n = 0; /* no START for `hold`: a RESET was lost */
            pcn_count.write(port, 0);
            pcn_active.write(port, 0);
            pcn_low.write(port, k);
        }
        if (dscp == sc) {
            bit<32> want = k_low;
            if (hdr.pcn.isValid() && hdr.pcn.threshold != 0) {
                want = hdr.pcn.threshold;
            }
            bit<32> low;
            pcn_low.read(low, port);
            if (n == 0 || want < low) {
                low = want;
            }
            pcn_low.write(port, low);
            pcn_count.write(port, n + 1);
            pcn_active.write(port, 1);
            pcn_since.write(port, now);
        } else if (dscp == rc && n > 0) {
            pcn_count.write(port, n - 1);
            if (n == 1) {
                pcn_active.write(port, 0);
                pcn_low.write(port, k);
            }
        }
    }
}

/* Predictive mode: learns burst starts and periods from DDL packets; says whether the port is in
 * its lowered window now. */
control Predict(in bit<32> port, in bit<1> ddl, in bit<48> now, out bool lowered) {
    ReadCfg() lead_cfg;
    ReadCfg() gap_cfg;
    ReadCfg() window_cfg;
    apply {
        bit<32> lead32;
        bit<32> gap32;
        bit<32> window32;
        lead_cfg.apply(CFG_LEAD, (bit<32>)DEF_LEAD, lead32);
        gap_cfg.apply(CFG_GAP, (bit<32>)DEF_GAP, gap32);
        window_cfg.apply(CFG_WINDOW, (bit<32>)DEF_WINDOW, window32);
        bit<48> lead = (bit<48>)lead32;
        bit<48> gap = (bit<48>)gap32;
        bit<48> window = (bit<48>)window32;
        bit<48> last;
        bit<48> start;
        bit<48> period;
        pred_last.read(last, port);
        pred_start.read(start, port);
        pred_period.read(period, port);
        if (ddl == 1) {
            if (last == 0 || now - last >= gap) {
                /* a new burst: learn the period from the previous start */
                if (start != 0) {
                    bit<48> sample = now - start;
                    if (period == 0) {
                        period = sample;
                    } else {
                        period = (period * 7 + sample) >> 3;
                    }
                    pred_period.write(port, period);
                }
                start = now;
                pred_start.write(port, now);
                bit<32> b;
                pred_bursts.read(b, port);
                pred_bursts.write(port, b + 1);
            }
            last = now;
            pred_last.write(port, now);
        }
        lowered = false;
        if (last != 0 && now - last < gap) {
            lowered = true; /* a burst is in progress */
        }
        if (period != 0) {
            bit<48> next = start + period;
            if (now + lead >= next && now < next + window) {
                lowered = true;
            }
        }
    }
}

control MyIngress(inout headers hdr,
                  inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    ReadCfg() mode_cfg;
    ReadCfg() k_cfg;
    ReadCfg() klow_cfg;
    Signals() signals;
    Predict() predict;

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

    apply {
        if (!hdr.ipv4.isValid()) {
            drop();
            return;
        }
        ipv4_lpm.apply();
        if (standard_metadata.egress_spec == 511) {
            return;
        }
        bit<32> port = (bit<32>)standard_metadata.egress_spec;
        bit<32> mode;
        bit<32> k;
        bit<32> k_low;
        pcn_cfg.read(mode, CFG_MODE);
        k_cfg.apply(CFG_K, DEF_K, k);
        klow_cfg.apply(CFG_K_LOW, DEF_K_LOW, k_low);
        if (hdr.ddl.isValid() && hdr.ddl.magic == DDL_SHIM_MAGIC) {
            meta.ddl = 1;
        }
        meta.k = k;
        if ((mode & MODE_SIGNALLED) != 0) {
            signals.apply(hdr, port, k, k_low, standard_metadata.ingress_global_timestamp);
            bit<32> active;
            bit<32> low;
            pcn_active.read(active, port);
            pcn_low.read(low, port);
            if (meta.ddl == 0 && active == 1 && low < meta.k) {
                meta.k = low;
            }
        }
        if ((mode & MODE_PREDICTIVE) != 0) {
            bool lowered;
            predict.apply(port, meta.ddl, standard_metadata.ingress_global_timestamp, lowered);
            if (meta.ddl == 0 && lowered && k_low < meta.k) {
                meta.k = k_low;
            }
        }
    }
}

control MyEgress(inout headers hdr,
                 inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    counter(PORTS, CounterType.packets) marks_ddl;
    counter(PORTS, CounterType.packets) marks_other;
    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ecn != 0 &&
            (bit<32>)standard_metadata.enq_qdepth >= meta.k) {
            hdr.ipv4.ecn = 3;
            if (meta.ddl == 1) {
                marks_ddl.count((bit<32>)standard_metadata.egress_port);
            } else {
                marks_other.count((bit<32>)standard_metadata.egress_port);
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
        packet.emit(hdr.tcp);
        packet.emit(hdr.bth);
        packet.emit(hdr.reth);
        packet.emit(hdr.ddl);
        packet.emit(hdr.pcn);
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
