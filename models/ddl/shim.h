/* The DDL shim header: 16 bytes that every DDL data packet carries right after its transport
 * header (after UDP; after TCP in every segment; after the BTH for RDMA), so switches — P4
 * programs such as TensorExpress's — can read which tensor a packet belongs to. Packets of DDL
 * streams also use a transport source port in 0xDD00..0xDDFF, so a parser can select on the
 * port's high byte (p4/include/ddl_shim.p4 declares the header for P4 programs).
 *
 *   offset  field      bits  meaning
 *   0       magic        8   0xD1
 *   1       flags        8   bit 0: pull (server → worker); bit 1: first packet of a burst;
 *                            bit 2: last packet of a burst
 *   2       job         16
 *   4       layer       16   tensor id = layer index (0 = input side)
 *   6       chunk       16   chunk index within the tensor
 *   8       worker      16   the worker the data is from (push) or for (pull)
 *   10      priority     8   0..7, higher = more urgent (input-side layers highest)
 *   11      reserved     8
 *   12      iteration   32
 * All fields are big-endian. */
#ifndef SIM_MODELS_DDL_SHIM_H
#define SIM_MODELS_DDL_SHIM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/net/pkt.h"

#define DDL_SHIM_BYTES 16
#define DDL_SHIM_MAGIC 0xD1
#define DDL_PORT_BASE 0xDD00
#define DDL_FLAG_PULL 0x01
#define DDL_FLAG_BURST_FIRST 0x02
#define DDL_FLAG_BURST_LAST 0x04

struct ddl_shim {
    uint8_t flags;
    uint16_t job;
    uint16_t layer;
    uint16_t chunk;
    uint16_t worker;
    uint8_t priority;
    uint32_t iteration;
};

void ddl_shim_write(uint8_t *b, const struct ddl_shim *s);
/* Returns false when the bytes are not a shim (bad magic). Inline: a receiver reads one per
 * data packet and uses a few of the fields. */
static inline bool ddl_shim_read(const uint8_t *b, struct ddl_shim *s)
{
    if (b[0] != DDL_SHIM_MAGIC)
        return false;
    s->flags = b[1];
    s->job = pkt_rd16(b + 2);
    s->layer = pkt_rd16(b + 4);
    s->chunk = pkt_rd16(b + 6);
    s->worker = pkt_rd16(b + 8);
    s->priority = b[10];
    s->iteration = pkt_rd32(b + 12);
    return true;
}

#endif
