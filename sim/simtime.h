/* Simulated time: int64 picoseconds everywhere inside the simulator. Other units appear only at
 * the configuration and output boundaries. Serialization times are computed per packet with exact
 * 128-bit integer arithmetic, never from a rounded picoseconds-per-byte constant. */
#ifndef SIM_SIM_SIMTIME_H
#define SIM_SIM_SIMTIME_H

#include <stdint.h>
#include <stddef.h>

typedef int64_t sim_time_t; /* picoseconds; signed so differences are safe */

#define SIM_TIME_NEVER INT64_MAX
#define SIM_PS(x) ((sim_time_t)(x))
#define SIM_NS(x) ((sim_time_t)(x) * 1000)
#define SIM_US(x) ((sim_time_t)(x) * 1000000)
#define SIM_MS(x) ((sim_time_t)(x) * 1000000000)
#define SIM_SEC(x) ((sim_time_t)(x) * 1000000000000)

/* Time to put `bytes` on a wire of `rate_bps`: ceil(bytes * 8 * 1e12 / rate_bps) ps. */
static inline sim_time_t simtime_tx_ps(uint64_t bytes, uint64_t rate_bps)
{
    unsigned __int128 num = (unsigned __int128)bytes * 8u * 1000000000000u;
    return (sim_time_t)((num + rate_bps - 1) / rate_bps);
}

/* Seconds as a double, for output only. */
static inline double simtime_sec(sim_time_t t)
{
    return (double)t * 1e-12;
}

/* Formats t with a readable unit ("12.345us") into buf; returns buf. */
char *sim_time_fmt(sim_time_t t, char *buf, size_t n);

#endif
