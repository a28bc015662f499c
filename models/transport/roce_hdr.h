/* RoCEv2 header codec: the InfiniBand Base Transport Header (BTH, 12 B), the ACK Extended
 * Transport Header (AETH, 4 B) and the RDMA Extended Transport Header (RETH, 16 B), carried in
 * UDP to port 4791 (IBTA Annex A17, RoCEv2). Fields are big-endian on the wire; PSNs are 24-bit
 * and compared modulo 2^24. A frame ends with a 4 B invariant CRC that the simulator counts in
 * the frame size but never writes (the payload is virtual). */
#ifndef SIM_MODELS_TRANSPORT_ROCE_HDR_H
#define SIM_MODELS_TRANSPORT_ROCE_HDR_H

#include <stdbool.h>
#include <stdint.h>

#define ROCE_UDP_PORT 4791
#define ROCE_BTH_LEN 12
#define ROCE_AETH_LEN 4
#define ROCE_RETH_LEN 16
#define ROCE_ICRC_LEN 4
#define ROCE_CNP_PAD_LEN 16 /* reserved bytes after the BTH of a CNP (Annex A17.9.3) */
#define ROCE_PSN_MASK 0xffffffu
#define ROCE_PKEY_DEFAULT 0xffff

/* Opcodes of the RC transport (IBA vol. 1, Table 35) and the RoCEv2 CNP. */
enum roce_opcode {
    ROCE_OP_SEND_FIRST = 0x00,
    ROCE_OP_SEND_MIDDLE = 0x01,
    ROCE_OP_SEND_LAST = 0x02,
    ROCE_OP_SEND_ONLY = 0x04,
    ROCE_OP_WRITE_FIRST = 0x06,
    ROCE_OP_WRITE_MIDDLE = 0x07,
    ROCE_OP_WRITE_LAST = 0x08,
    ROCE_OP_WRITE_ONLY = 0x0a,
    ROCE_OP_ACK = 0x11,
    ROCE_OP_CNP = 0x81,
};

/* AETH syndromes (IBA vol. 1, §9.3.5): an ACK with "invalid" credit count, and the NAK for a
 * PSN sequence error, whose BTH PSN is the PSN the responder expects. */
#define ROCE_AETH_ACK 0x1f
#define ROCE_AETH_NAK_PSN_SEQ 0x60
#define ROCE_AETH_IS_NAK(s) (((s) >> 5) == 3)

struct roce_bth {
    uint8_t opcode;
    bool solicited;
    bool migreq;
    uint8_t pad; /* pad bytes that align the payload to 4 B */
    uint16_t pkey;
    bool fecn;
    bool becn;
    uint32_t dqpn; /* 24 bits */
    bool ack_req;  /* the A bit: the requester asks for an acknowledgement */
    uint32_t psn;  /* 24 bits */
};

struct roce_aeth {
    uint8_t syndrome;
    uint32_t msn; /* 24 bits: messages completed by the responder */
};

struct roce_reth {
    uint64_t va;
    uint32_t rkey;
    uint32_t dma_len;
};

void roce_bth_write(uint8_t *b, const struct roce_bth *h);
void roce_bth_read(const uint8_t *b, struct roce_bth *h);
void roce_aeth_write(uint8_t *b, const struct roce_aeth *a);
void roce_aeth_read(const uint8_t *b, struct roce_aeth *a);
void roce_reth_write(uint8_t *b, const struct roce_reth *r);
void roce_reth_read(const uint8_t *b, struct roce_reth *r);

/* a − b as a signed distance in the 24-bit PSN space, in [−2^23, 2^23). */
static inline int32_t roce_psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & ROCE_PSN_MASK;
    return d & 0x800000u ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* Whether a data opcode carries a RETH (first or only packet of an RDMA WRITE). */
static inline bool roce_op_has_reth(uint8_t op)
{
    return op == ROCE_OP_WRITE_FIRST || op == ROCE_OP_WRITE_ONLY;
}

#endif
