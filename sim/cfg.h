/* YAML → configuration tree. Every node keeps the source location of its value (and map keys
 * the location of the key), so later stages can report `file:line:col`. Nodes live in an arena
 * owned by the cfg_doc; aliases share their anchor's node. Map keys are unique (duplicates are
 * errors) and remember whether a consumer read them, so unknown keys can be reported. */
#ifndef SIM_SIM_CFG_H
#define SIM_SIM_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "sim/diag.h"

enum cfg_kind {
    CFG_NULL,
    CFG_SCALAR,
    CFG_MAP,
    CFG_SEQ,
};

struct cfg_node {
    enum cfg_kind kind;
    struct src_loc loc;
    char *str;  /* scalar text (CFG_SCALAR) */
    bool plain; /* scalar was unquoted */
    size_t n;   /* entries of a map or sequence */
    size_t cap;
    struct cfg_node **items;  /* sequence items, or map values */
    char **keys;              /* map keys */
    struct src_loc *key_locs; /* map key locations */
    uint64_t expanded;        /* loaded nodes: the tree's size with aliases expanded */
};

struct cfg_doc {
    char *file; /* the name errors use */
    struct cfg_node *root;
    struct cfg_node **arena;
    size_t narena;
    size_t cap_arena;
    char **strings; /* owned strings not held by a node (e.g. --set sources) */
    size_t nstrings;
};

/* Parses a YAML file; on error reports through diag and returns NULL. */
struct cfg_doc *cfg_load_file(const char *path, struct diag *d);
/* Parses YAML text; `name` is the file name used in messages. */
struct cfg_doc *cfg_load_string(const char *name, const char *text, struct diag *d);
void cfg_free(struct cfg_doc *doc);
/* A new document named `name` holding a copy of the tree `root`. */
struct cfg_doc *cfg_doc_from(const char *name, const struct cfg_node *root);

/* Map lookup; NULL when absent or when `map` is not a map. */
struct cfg_node *cfg_get(const struct cfg_node *map, const char *key);
/* The location of a key (falls back to the map's location). */
struct src_loc cfg_key_loc(const struct cfg_node *map, const char *key);

/* Applies a command-line override "a.b.c=value". A sequence element is addressed by index or
 * by the value of its `name` key. Missing map keys are created. Returns 0, or -1 after
 * reporting an error. */
int cfg_set(struct cfg_doc *doc, const char *assignment, struct diag *d);

/* Puts a copy of the tree `v` (which may belong to another document) at `path`, as cfg_set
 * does with a scalar; errors are reported at `loc`. Returns 0 or -1. */
int cfg_set_node(struct cfg_doc *doc, const char *path, const struct cfg_node *v,
                 struct src_loc loc, struct diag *d);
/* A deep copy of `n` owned by `doc` (source locations kept). */
struct cfg_node *cfg_copy(struct cfg_doc *doc, const struct cfg_node *n);

/* A growing text buffer (s is NUL-terminated; free(s) when done). */
struct cfg_buf {
    char *s;
    size_t len;
    size_t cap;
};
void cfg_buf_putc(struct cfg_buf *b, char c);
/* Appends the canonical text of a tree: scalars quoted, lists in order, map keys sorted, no
 * locations or comments. Two trees that mean the same configuration give the same text, so its
 * digest identifies a resolved configuration. */
void cfg_canonical(const struct cfg_node *n, struct cfg_buf *b);

/* Node constructors for code that builds trees (generators, tests). */
struct cfg_node *cfg_new(struct cfg_doc *doc, enum cfg_kind kind, struct src_loc loc);
void cfg_map_put(struct cfg_doc *doc, struct cfg_node *map, const char *key, struct cfg_node *v,
                 struct src_loc key_loc);
void cfg_seq_push(struct cfg_doc *doc, struct cfg_node *seq, struct cfg_node *v);

const char *cfg_kind_name(enum cfg_kind k);

#endif
