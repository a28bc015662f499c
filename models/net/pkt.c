#include "models/net/pkt.h"

#include <string.h>

#include "sim/util.h"

#define PKT_POOL_SLAB 1024

_Static_assert(offsetof(struct pkt, ext) == 64 && offsetof(struct pkt, hdr) == 128,
               "struct pkt: the per-hop fields fill the first cache line");

void pkt_pool_init(struct sim *sim)
{
    pool_init(&sim->pkt_pool, sizeof(struct pkt), PKT_POOL_SLAB);
}

void pkt_fifo_free(struct sim *sim, struct pkt_fifo *q)
{
    struct pkt *p;
    while ((p = pkt_fifo_pop(q)) != NULL)
        pkt_free(sim, p);
}

struct pkt *pkt_clone(struct sim *sim, const struct pkt *p)
{
    struct pkt *c = pkt_alloc(sim);
    uint64_t id = c->id;
    memcpy(c, p, offsetof(struct pkt, hdr) + p->hdr_len);
    c->id = id;
    c->next = NULL;
    c->ext = NULL;
    return c;
}

int64_t pkt_live(const struct sim *sim)
{
    return sim->pkt_pool.live;
}

uint32_t pkt_host_ip(uint32_t host_index)
{
    return (10u << 24) | ((host_index + 1) & 0xffffffu);
}

uint32_t pkt_ip_host(uint32_t ip)
{
    if ((ip >> 24) != 10u || (ip & 0xffffffu) == 0)
        return UINT32_MAX;
    return (ip & 0xffffffu) - 1;
}

void pkt_ip_mac(uint32_t ip, uint8_t mac[6])
{
    mac[0] = 0x02;
    mac[1] = 0x00;
    pkt_wr32(mac + 2, (ip >> 24) == 10u ? ip & 0xffffffu : 0);
}

uint16_t pkt_csum16(const uint8_t *b, uint32_t n)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2)
        sum += pkt_rd16(b + i);
    if (n & 1)
        sum += (uint32_t)b[n - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

uint8_t *pkt_build_ipv4(struct pkt *p, const struct pkt_ipv4_spec *s)
{
    uint8_t *h = p->hdr;
    uint8_t mac[6];
    pkt_ip_mac(s->dst_ip, mac);
    memcpy(h, mac, 6);
    pkt_ip_mac(s->src_ip, mac);
    memcpy(h + 6, mac, 6);
    pkt_wr16(h + 12, ETHERTYPE_IPV4);
    uint8_t *ip = h + ETH_HDR_LEN;
    uint32_t ip_len = IPV4_HDR_LEN + s->l4_bytes;
    uint16_t tos_word = (uint16_t)(0x45 << 8 | (uint8_t)((s->dscp << 2) | (s->ecn & 3)));
    uint16_t len = (uint16_t)(ip_len > 0xffff ? 0xffff : ip_len);
    uint16_t ttl_word = (uint16_t)((s->ttl ? s->ttl : 64) << 8 | s->proto);
    pkt_wr16(ip, tos_word);
    pkt_wr16(ip + 2, len);
    pkt_wr16(ip + 4, (uint16_t)p->seq); /* identification */
    pkt_wr16(ip + 6, 0x4000);           /* don't fragment */
    pkt_wr16(ip + 8, ttl_word);
    pkt_wr32(ip + 12, s->src_ip);
    pkt_wr32(ip + 16, s->dst_ip);
    /* the checksum: pkt_csum16 of the header's words, summed as they are written */
    uint32_t sum = (uint32_t)tos_word + len + (uint16_t)p->seq + 0x4000 + ttl_word +
                   (s->src_ip >> 16) + (s->src_ip & 0xffff) + (s->dst_ip >> 16) +
                   (s->dst_ip & 0xffff);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    pkt_wr16(ip + 10, (uint16_t)~sum);
    p->size_bytes = ETH_HDR_LEN + ip_len;
    return ip + IPV4_HDR_LEN;
}

void pkt_build_udp(struct pkt *p, const struct pkt_udp_spec *s)
{
    struct pkt_ipv4_spec ip = {s->src_ip, s->dst_ip, IPPROTO_UDP_, s->dscp, s->ecn, s->ttl,
                               UDP_HDR_LEN + s->payload_bytes};
    uint8_t *udp = pkt_build_ipv4(p, &ip);
    pkt_wr16(udp, s->src_port);
    pkt_wr16(udp + 2, s->dst_port);
    pkt_wr16(udp + 4, (uint16_t)(UDP_HDR_LEN + s->payload_bytes));
    pkt_wr16(udp + 6, 0); /* no UDP checksum: the payload is virtual */
    p->hdr_len = ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN;
}

void pkt_set_ecn(struct pkt *p, uint8_t ecn)
{
    if (!pkt_is_ipv4(p))
        return;
    uint8_t *ip = p->hdr + ETH_HDR_LEN;
    uint16_t old_word = pkt_rd16(ip);
    ip[1] = (uint8_t)((ip[1] & 0xfc) | (ecn & 3));
    uint16_t new_word = pkt_rd16(ip);
    /* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') */
    uint32_t sum = (uint16_t)~pkt_rd16(ip + 10);
    sum += (uint16_t)~old_word;
    sum += new_word;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    pkt_wr16(ip + 10, (uint16_t)~sum);
}

uint32_t pkt_flow_hash(const struct pkt *p, uint32_t salt)
{
    /* The bytes the hash covers, packed in their order: salt, protocol, addresses, ports. */
    uint8_t key[sizeof(salt) + 1 + 8 + 4];
    size_t n = sizeof(salt);
    memcpy(key, &salt, sizeof(salt));
    if (pkt_is_ipv4(p)) {
        const uint8_t *ip = p->hdr + ETH_HDR_LEN;
        key[n++] = ip[9];          /* protocol */
        memcpy(key + n, ip + 12, 8); /* addresses */
        n += 8;
        if (p->hdr_len >= ETH_HDR_LEN + IPV4_HDR_LEN + 4) {
            memcpy(key + n, ip + IPV4_HDR_LEN, 4); /* ports */
            n += 4;
        }
    }
    uint64_t h = hash_fnv1a(key, n, HASH_FNV_INIT);
    return (uint32_t)(h ^ (h >> 32));
}
