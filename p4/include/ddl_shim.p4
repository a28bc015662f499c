/* ddlsim's DDL shim header (16 bytes), for P4 programs that schedule or aggregate DDL traffic.
 * It follows the UDP header (or the TCP header of each segment, or the RoCEv2 BTH) of packets
 * whose transport source port has the high byte 0xDD; see models/ddl/shim.h for the meaning of
 * every field. Usage:
 *     #include "ddl_shim.p4"
 *     state parse_udp {
 *         packet.extract(hdr.udp);
 *         transition select(hdr.udp.srcPort[15:8]) { DDL_PORT_HIGH: parse_ddl; default: accept; }
 *     }
 *     state parse_ddl { packet.extract(hdr.ddl); transition accept; }
 */
#ifndef DDLSIM_DDL_SHIM_P4
#define DDLSIM_DDL_SHIM_P4

const bit<8> DDL_PORT_HIGH = 0xDD;
const bit<8> DDL_SHIM_MAGIC = 0xD1;
const bit<8> DDL_FLAG_PULL = 0x01;
const bit<8> DDL_FLAG_BURST_FIRST = 0x02;
const bit<8> DDL_FLAG_BURST_LAST = 0x04;

header ddl_shim_t {
    bit<8>  magic;
    bit<8>  flags;
    bit<16> job;
    bit<16> layer;
    bit<16> chunk;
    bit<16> worker;
    bit<8>  priority;
    bit<8>  reserved;
    bit<32> iteration;
}

#endif
