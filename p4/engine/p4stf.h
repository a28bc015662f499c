/* STF packet tests (the format of p4c's bmv2 tests) with ddlsim extensions:
 *   register_read R IDX == V, counter_read C IDX packets == N / bytes == N,
 *   time_advance 10us, packet_at TIME PORT HEX, set_queue_depth PORT ENQ [DEQ],
 *   set_queue_delay PORT 5us, meter_set M IDX CIR CBURST PIR PBURST, value_set_add VS VALUE.
 * Returns 0 if every expectation holds, 1 if one failed (each failure printed to out with
 * the expected and received bytes), 2 on bad input (`file:line:col: error:` on err). */
#ifndef SIM_P4_P4STF_H
#define SIM_P4_P4STF_H

#include "p4/engine/p4.h"

int p4stf_run(const struct p4_prog *prog, const char *stf_path, FILE *out, FILE *err);

#endif
