#include "sim/pcap.h"

#include <string.h>

#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1u

static void put32(FILE *f, uint32_t v)
{
    fwrite(&v, 4, 1, f); /* pcap is written in host byte order; readers use the magic */
}

static void put16(FILE *f, uint16_t v)
{
    fwrite(&v, 2, 1, f);
}

int pcap_open(struct pcap_writer *w, const char *dir, const char *name, char *err, size_t errn)
{
    memset(w, 0, sizeof(*w));
    if (out_open(&w->file, dir, name, err, errn) < 0)
        return -1;
    FILE *f = w->file.f;
    put32(f, PCAP_MAGIC_NS);
    put16(f, 2);
    put16(f, 4);
    put32(f, 0);     /* thiszone */
    put32(f, 0);     /* sigfigs */
    put32(f, 65535); /* snaplen */
    put32(f, PCAP_LINKTYPE_ETHERNET);
    return 0;
}

void pcap_write(struct pcap_writer *w, sim_time_t t, const uint8_t *hdr, uint32_t caplen,
                uint32_t origlen)
{
    FILE *f = w->file.f;
    int64_t ns = t / 1000;
    put32(f, (uint32_t)(ns / 1000000000));
    put32(f, (uint32_t)(ns % 1000000000));
    put32(f, caplen);
    put32(f, origlen);
    fwrite(hdr, 1, caplen, f);
    w->frames++;
}

int pcap_close(struct pcap_writer *w, char *err, size_t errn)
{
    return out_commit(&w->file, err, errn);
}

void pcap_abort(struct pcap_writer *w)
{
    out_abort(&w->file);
}
