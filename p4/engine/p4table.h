/* Match-action table storage and lookup for one pipeline instance. Entries are kept as
 * (value, mask[, range hi]) word vectors over the concatenated key; exact-only tables are
 * indexed by an open-addressing hash, others are scanned in priority order (largest first,
 * ties by insertion order). lpm-only tables use the prefix length as priority. */
#ifndef SIM_P4_P4TABLE_H
#define SIM_P4_P4TABLE_H

#include "p4/engine/p4ir.h"

/* trTCM meter state (bmv2 semantics: RED if the peak bucket lacks tokens, else YELLOW if
 * the committed bucket lacks tokens, else GREEN). Rates in units per second. */
struct p4_meter {
    bool configured;
    uint64_t cir;    /* committed rate, units/s */
    uint64_t cburst; /* units */
    uint64_t pir;
    uint64_t pburst;
    unsigned __int128 ctok; /* tokens * 1e12 */
    unsigned __int128 ptok;
    int64_t last_ps;
};

enum p4_color { P4_GREEN = 0, P4_YELLOW = 1, P4_RED = 2 };

/* Per-entry state of a table's direct counter and direct meter. */
struct p4table_direct {
    uint64_t packets;
    uint64_t bytes;
    struct p4_meter meter;
};

/* An entry lives in one block from the table's slabs: this header, the direct state (only in
 * tables with a direct counter or meter), then its words: value and mask (key_words each),
 * range upper bounds (tables with a range key), action data. The accessors below find them. */
struct p4table_entry {
    int action;
    int priority;
    int handle;
    bool fixed; /* a const initial entry: the control plane cannot remove it */
};

struct p4table_level {
    int priority;   /* total mask bits */
    int count;      /* entries of this length */
    uint64_t mask0; /* mask[0], read by one-word lookups without a second load */
    uint64_t *mask; /* key_words words */
};

struct p4table;
typedef struct p4table_entry *p4table_lookup_fn(const struct p4table *t, const uint64_t *key);

struct p4table {
    const struct p4ir_table *ir;
    /* the lookup for the table's kind of keys, chosen once at init: exact-only (hashed),
     * lpm-only of one key word, lpm-only, others (a scan); p4table_lookup calls it */
    p4table_lookup_fn *lookup;
    int key_words;
    bool has_range;
    bool exact_only;
    bool lpm_only;
    struct p4table_entry **entries; /* priority order */
    int n;
    int cap;
    int *index;    /* exact-only: open addressing over entries (-1 empty) */
    int index_cap; /* power of two */
    /* lpm-only: every entry hashed by (masked value, prefix length); a lookup probes each
     * prefix length present, longest first (entries of one length share one mask) */
    struct p4table_entry **lpm_index; /* open addressing, NULL empty; power-of-two size */
    int lpm_cap;
    struct p4table_level *levels; /* distinct prefix lengths, longest first */
    int nlevels;
    /* tables that are not lpm-indexed: every entry hashed by (value, mask), to find a
     * duplicate without scanning (installing n entries was quadratic) */
    struct p4table_entry **dup_index; /* open addressing, NULL empty; power-of-two size */
    int dup_cap;
    struct p4table_entry *last_added; /* the entry of the last successful p4table_add */
    int default_action; /* -1: no action */
    uint64_t *default_data;
    int next_handle;
    /* entry storage: blocks of entry_bytes carved from slabs; removed entries are reused */
    size_t entry_bytes;
    void **slabs;
    int nslabs;
    int slab_left;   /* blocks not yet handed out in the last slab */
    char *slab_next; /* the next of them */
    struct p4table_entry *free_list;
    bool has_direct;   /* a direct counter or meter: entries carry p4table_direct */
    size_t value_off;  /* bytes from an entry to its value words */
    size_t data_off;   /* ... to its action data */
};

static inline uint64_t *p4table_value(const struct p4table *t, const struct p4table_entry *e)
{
    return (uint64_t *)((char *)e + t->value_off);
}
static inline uint64_t *p4table_mask(const struct p4table *t, const struct p4table_entry *e)
{
    return p4table_value(t, e) + t->key_words;
}
/* Range upper bounds, NULL when the table has no range key. */
static inline uint64_t *p4table_hi(const struct p4table *t, const struct p4table_entry *e)
{
    return t->has_range ? p4table_value(t, e) + 2 * t->key_words : NULL;
}
static inline uint64_t *p4table_data(const struct p4table *t, const struct p4table_entry *e)
{
    return (uint64_t *)((char *)e + t->data_off);
}
/* The direct counter and meter state, NULL when the table has neither. */
static inline struct p4table_direct *p4table_direct(const struct p4table *t,
                                                    const struct p4table_entry *e)
{
    return t->has_direct ? (struct p4table_direct *)((char *)e + 16) : NULL;
}

void p4table_init(struct p4table *t, const struct p4ir_table *ir);
void p4table_fini(struct p4table *t);
/* Adds an entry (copies the vectors; hi may be NULL). priority: larger wins (ignored for
 * exact-only and lpm-only tables). Returns the handle, or -1 if an exact entry with the
 * same key exists (duplicate) or the table is full. */
int p4table_add(struct p4table *t, const uint64_t *value, const uint64_t *mask, const uint64_t *hi,
                int priority, int action, const uint64_t *data);
/* Makes room for n more entries without growing the indexes on the way (a hint). */
void p4table_reserve(struct p4table *t, int n);
/* Removes an entry: 0, -1 if there is none with that handle, -2 if it is fixed. */
int p4table_remove(struct p4table *t, int handle);
struct p4table_entry *p4table_lookup(const struct p4table *t, const uint64_t *key);
int p4table_set_default(struct p4table *t, int action, const uint64_t *data);

/* Meter color for a packet of `units` at time now_ps. */
enum p4_color p4table_meter(struct p4_meter *m, uint64_t units, int64_t now_ps);

#endif
