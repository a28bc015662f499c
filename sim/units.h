/* Unit parsing at the configuration boundary: time ("1.5us"), rate ("10Gbps"), size ("64KiB").
 * Decimal values are parsed exactly (no floating point): the result is rounded to the nearest
 * base unit and range-checked. On error the functions return -1 and write a message to err. */
#ifndef SIM_SIM_UNITS_H
#define SIM_SIM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "sim/simtime.h"

/* "250ns", "1.5us", "2ms", "1s", "0" → picoseconds (ps, ns, us, ms, s). */
int units_parse_time(const char *s, sim_time_t *out, char *err, size_t errn);
/* "10Gbps", "100Mbps", "1.5Tbps", "9600bps" → bits per second (decimal prefixes K M G T). */
int units_parse_rate(const char *s, uint64_t *out, char *err, size_t errn);
/* "1500", "1500B", "1MB" (10^6), "64KiB" (2^10), "1GiB" → bytes. */
int units_parse_size(const char *s, uint64_t *out, char *err, size_t errn);

#endif
