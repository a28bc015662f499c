/* pcap trace writer (nanosecond-resolution classic pcap, link type Ethernet). Frames carry the
 * real header bytes; the virtual payload is not written (caplen < origlen), which tshark shows
 * as a frame captured partially. Writes go through an out_file, so the trace is renamed into
 * place only when the run finishes. */
#ifndef SIM_SIM_PCAP_H
#define SIM_SIM_PCAP_H

#include <stdint.h>

#include "sim/out.h"
#include "sim/simtime.h"

struct pcap_writer {
    struct out_file file;
    uint64_t frames;
};

int pcap_open(struct pcap_writer *w, const char *dir, const char *name, char *err, size_t errn);
void pcap_write(struct pcap_writer *w, sim_time_t t, const uint8_t *hdr, uint32_t caplen,
                uint32_t origlen);
int pcap_close(struct pcap_writer *w, char *err, size_t errn);
void pcap_abort(struct pcap_writer *w);

#endif
