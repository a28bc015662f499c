#include "models/ddl/shim.h"

#include "models/net/pkt.h"

void ddl_shim_write(uint8_t *b, const struct ddl_shim *s)
{
    b[0] = DDL_SHIM_MAGIC;
    b[1] = s->flags;
    pkt_wr16(b + 2, s->job);
    pkt_wr16(b + 4, s->layer);
    pkt_wr16(b + 6, s->chunk);
    pkt_wr16(b + 8, s->worker);
    b[10] = s->priority;
    b[11] = 0;
    pkt_wr32(b + 12, s->iteration);
}

bool ddl_shim_read(const uint8_t *b, struct ddl_shim *s)
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
