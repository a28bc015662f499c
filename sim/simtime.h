/* Simulated time: int64 picoseconds everywhere inside the simulator. Other units appear only at
 * the configuration and output boundaries. Serialization times are computed per packet with exact
 * 128-bit integer arithmetic, never from a rounded picoseconds-per-byte constant. */
#ifndef SIM_SIM_SIMTIME_H
#define SIM_SIM_SIMTIME_H

#include <stdint.h>
#include <stddef.h>

typedef int64_t sim_time_t; /* picoseconds; signed so differences are safe */

#define SIM_TIME_NEVER INT64_MAX
/* The latest instant a simulation may reach: a quarter of the int64 range (about 26.7 days). An
 * event asked for later stops the run with an error (evq_schedule, scenario_run). Configured
 * times are at most half the range (units.c), so `now + delay` cannot overflow; computed steps
 * (serialization, CPU costs) are added with simtime_add, which saturates. */
#define SIM_TIME_HORIZON (INT64_MAX / 4)
#define SIM_PS(x) ((sim_time_t)(x))
#define SIM_NS(x) ((sim_time_t)(x) * 1000)
#define SIM_US(x) ((sim_time_t)(x) * 1000000)
#define SIM_MS(x) ((sim_time_t)(x) * 1000000000)
#define SIM_SEC(x) ((sim_time_t)(x) * 1000000000000)

/* Time to put `bytes` on a wire of `rate_bps`: ceil(bytes * 8 * 1e12 / rate_bps) ps, at most
 * SIM_TIME_NEVER. */
static inline sim_time_t simtime_tx_ps(uint64_t bytes, uint64_t rate_bps)
{
    unsigned __int128 num = (unsigned __int128)bytes * 8u * 1000000000000u;
    unsigned __int128 t = (num + rate_bps - 1) / rate_bps;
    return t > SIM_TIME_NEVER ? SIM_TIME_NEVER : (sim_time_t)t;
}

/* a + b and k * a for non-negative times, saturating at SIM_TIME_NEVER (past the horizon). */
static inline sim_time_t simtime_add(sim_time_t a, sim_time_t b)
{
    return a > SIM_TIME_NEVER - b ? SIM_TIME_NEVER : a + b;
}

static inline sim_time_t simtime_mul(int64_t k, sim_time_t a)
{
    return k > 0 && a > SIM_TIME_NEVER / k ? SIM_TIME_NEVER : k * a;
}

/* Seconds as a double, for output only. */
static inline double simtime_sec(sim_time_t t)
{
    return (double)t * 1e-12;
}

/* Formats t with a readable unit ("12.345us") into buf; returns buf. */
char *sim_time_fmt(sim_time_t t, char *buf, size_t n);

#endif
