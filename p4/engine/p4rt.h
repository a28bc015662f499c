/* Control-plane API of a pipeline instance, by name (as the STF runner and the YAML layer
 * use it). Table, action and key names match exactly or by a unique suffix (bmv2 STF rule);
 * `X$N` in a key name means `X[N]`. Key values use STF syntax:
 *   exact    0x0a000001 | 167772161 | 0b1010
 *   lpm      0x0a000000/8 | 0x0a****** (length from the non-'*' digits)
 *   ternary  0x****0101 (mask covers only the written digits) | V&&&M
 *   range    LO->HI | LO..HI
 * A key that is not given is a wildcard (not allowed for exact keys). Every function returns
 * 0 on success or -1 with a message in err (errlen bytes, no location: the caller adds its
 * own). */
#ifndef SIM_P4_P4RT_H
#define SIM_P4_P4RT_H

#include "p4/engine/p4.h"

struct p4rt_kv {
    const char *name;
    const char *value;
};

/* priority: larger wins for ternary/range tables; < 0 means "not given" (lowest). */
int p4rt_table_add(struct p4_pipe *pipe, const char *table, const struct p4rt_kv *keys, int nkeys,
                   const char *action, const struct p4rt_kv *args, int nargs, int priority,
                   int *handle, char *err, size_t errlen);
int p4rt_table_remove(struct p4_pipe *pipe, const char *table, int handle, char *err,
                      size_t errlen);
int p4rt_table_set_default(struct p4_pipe *pipe, const char *table, const char *action,
                           const struct p4rt_kv *args, int nargs, char *err, size_t errlen);
/* Full name of a table (after suffix matching), or NULL. */
const char *p4rt_table_name(const struct p4_pipe *pipe, const char *table);
/* The table's size (entries it can hold), or -1 for an unknown table. */
int p4rt_table_size(const struct p4_pipe *pipe, const char *table);

/* Introspection for configuration builders (e.g. "does this program have an lpm table on
 * hdr.ipv4.dstAddr and which parameters does its forwarding action take?"). Indexes start at
 * 0; each returns 0, or -1 past the end / for unknown names. Strings belong to the program. */
int p4rt_table_at(const struct p4_pipe *pipe, int i, const char **name);
int p4rt_table_key(const struct p4_pipe *pipe, const char *table, int i, const char **name,
                   const char **match_kind, int *width);
int p4rt_table_action(const struct p4_pipe *pipe, const char *table, int i, const char **name);
/* i-th action-data (control-plane) parameter of an action of a table. */
int p4rt_action_param(const struct p4_pipe *pipe, const char *table, const char *action, int i,
                      const char **name, int *width);

/* ---- binary entries ----
 * The same control plane without text: names are resolved once to ids, keys and action data
 * are given as words (ceil(width / 64) little-endian words, nothing above the width), and an
 * entry buffer is reused for many adds. Errors as above. Route installation of large
 * topologies goes through here. */
struct p4rt_entry {
    const void *table; /* the table's IR (struct p4ir_table) */
    int table_id;
    int action;   /* index among the table's actions */
    int priority; /* < 0: not given */
    uint64_t given; /* bit k: key k was set (tables of at most 64 keys) */
    uint64_t *value;
    uint64_t *mask;
    uint64_t *hi;
    uint64_t *data;
};
int p4rt_table_id(const struct p4_pipe *pipe, const char *table, char *err, size_t errlen);
/* Index of a key of table id (names as for text adds), or -1. */
int p4rt_key_id(const struct p4_pipe *pipe, int table, const char *key, char *err, size_t errlen);
/* Prepares e for adds of `action` to table id (entry_fini frees it): -1 if the action is not
 * the table's, is @defaultonly, or the table takes no control-plane entries. */
int p4rt_entry_init(struct p4rt_entry *e, const struct p4_pipe *pipe, int table,
                    const char *action, char *err, size_t errlen);
void p4rt_entry_fini(struct p4rt_entry *e);
/* Index among the action's data parameters of `param`, or -1. */
int p4rt_entry_param(const struct p4rt_entry *e, const char *param, char *err, size_t errlen);
/* Key k: a value matched in full (prefix_len < 0) or its first prefix_len bits (lpm and
 * ternary keys only). */
int p4rt_entry_key(struct p4rt_entry *e, int k, const uint64_t *value, int prefix_len, char *err,
                   size_t errlen);
/* Data parameter i (p4rt_entry_param) of the action. */
int p4rt_entry_arg(struct p4rt_entry *e, int i, const uint64_t *value, char *err, size_t errlen);
/* Adds the entry; the keys and arguments stay set for the next add. */
int p4rt_entry_add(struct p4_pipe *pipe, const struct p4rt_entry *e, int *handle, char *err,
                   size_t errlen);
/* Makes room for n more entries in table id (a hint for bulk adds). */
void p4rt_table_reserve(struct p4_pipe *pipe, int table, int n);
/* Name lookup used by the control plane: exact, else unique suffix (see above). */
int p4rt_find_name(const char *const *names, int n, const char *q);

/* The i-th register array of the program: name, cells and element width in bits (register
 * memory accounting). Returns -1 past the last one. */
int p4rt_register_at(const struct p4_pipe *pipe, int i, const char **name, int64_t *size,
                     int *width);
int p4rt_register_read(struct p4_pipe *pipe, const char *reg, uint64_t index, uint64_t *value,
                       char *err, size_t errlen);
int p4rt_register_write(struct p4_pipe *pipe, const char *reg, uint64_t index, uint64_t value,
                        char *err, size_t errlen);
int p4rt_register_reset(struct p4_pipe *pipe, const char *reg, char *err, size_t errlen);
int p4rt_counter_read(struct p4_pipe *pipe, const char *ctr, uint64_t index, uint64_t *packets,
                      uint64_t *bytes, char *err, size_t errlen);
/* Rates in units (packets or bytes) per second, bursts in units. */
int p4rt_meter_set(struct p4_pipe *pipe, const char *mtr, uint64_t index, uint64_t cir,
                   uint64_t cburst, uint64_t pir, uint64_t pburst, char *err, size_t errlen);

/* Adds a member to a parser value set: "V" or "V&&&M" (ternary digits like STF keys). */
int p4rt_value_set_add(struct p4_pipe *pipe, const char *vset, const char *value, char *err,
                       size_t errlen);

int p4rt_mc_group_create(struct p4_pipe *pipe, uint32_t grp, char *err, size_t errlen);
/* Node handles are 0, 1, 2, ... in creation order (bmv2). */
int p4rt_mc_node_create(struct p4_pipe *pipe, uint32_t rid, const uint32_t *ports, int nports,
                        int *handle);
int p4rt_mc_node_associate(struct p4_pipe *pipe, uint32_t grp, int handle, char *err,
                           size_t errlen);
/* Convenience for configs: add (port, rid) to a group, creating the group if needed. */
int p4rt_mc_add_member(struct p4_pipe *pipe, uint32_t grp, uint32_t port, uint32_t rid);
int p4rt_mirror_add(struct p4_pipe *pipe, uint32_t session, uint32_t port, char *err,
                    size_t errlen);

#endif
