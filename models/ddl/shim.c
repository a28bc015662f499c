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
