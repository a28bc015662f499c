/* What a switch reports: its summary.json object (per port: counters, classes, PFC), its drops,
 * the congested ports of the human summary, and queue lengths for queues.csv. These are the
 * switch kind's reporting hooks (switch_node_ops); nothing outside the switch reads its traffic
 * manager. */
#ifndef SIM_MODELS_NET_SWITCH_REPORT_H
#define SIM_MODELS_NET_SWITCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "models/net/node.h"

void switch_stats_json(const struct node *n, json_t *obj, sim_time_t end);
uint64_t switch_drops(const struct node *n);
void switch_print(const struct node *n, FILE *out, sim_time_t end, bool *header);
void switch_queue_len(const struct node *n, uint32_t port, uint64_t *bytes, uint32_t *pkts);

#endif
