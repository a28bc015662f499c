/* Declarative parameter tables: each model kind lists its parameters (name, type with unit,
 * default, range, help) and param_decode fills a config struct from a YAML map, reporting every
 * unknown key (with a suggestion), missing required key, bad unit and out-of-range value at its
 * source location. `ddlsim describe KIND` prints the same table. */
#ifndef SIM_SIM_PARAM_H
#define SIM_SIM_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/diag.h"

enum param_type {
    PARAM_TIME,   /* sim_time_t, picoseconds */
    PARAM_RATE,   /* uint64_t, bits/s */
    PARAM_SIZE,   /* uint64_t, bytes */
    PARAM_INT,    /* int64_t */
    PARAM_DOUBLE, /* double */
    PARAM_BOOL,   /* bool */
    PARAM_ENUM,   /* int, index into `choices` */
    PARAM_STRING, /* const char *, points into the config tree */
    PARAM_NODE,   /* struct cfg_node *: sub-tree decoded by the owner */
    PARAM_LIST,   /* struct param_vec of scalars of the type, unit and range of `elem` */
    PARAM_TABLE,  /* struct param_vec of entries: a list of maps, each decoded by `elem` */
    PARAM_MAP,    /* struct param_vec of struct param_kv: a map of free names to scalars (names
                   * that come from elsewhere, e.g. a P4 program's key fields) */
};

struct param_def {
    const char *name;
    enum param_type type;
    size_t offset;               /* into the config struct */
    const char *def;             /* default value text; NULL = required */
    const char *min;             /* inclusive bound in the type's units; NULL = none */
    const char *max;
    const char *const *choices;  /* PARAM_ENUM: NULL-terminated names */
    const char *help;
    /* PARAM_LIST: the element (its type, default-less, range); PARAM_TABLE: the entry's keys */
    const struct param_def *elem;
    size_t nelem;      /* PARAM_TABLE: keys in `elem` (PARAM_LIST: 1) */
    size_t elem_size;  /* PARAM_TABLE: size of one decoded entry struct */
    uint32_t max_items; /* PARAM_LIST, PARAM_TABLE, PARAM_MAP: at most this many (0: no limit) */
};

/* The value of a list-valued parameter. Items are allocated: the owner of the config struct
 * frees them with param_free. */
struct param_vec {
    void *items;           /* n items: the element's storage (int64_t, double, ...), entry
                            * structs, or struct param_kv */
    struct src_loc *locs;  /* where each item was written */
    uint32_t n;
    bool given;            /* the key was present (an empty list is given) */
    struct src_loc loc;    /* the list */
};

struct param_kv {
    const char *key; /* points into the config tree */
    const char *val;
};

/* Item i of a PARAM_LIST of integer-like elements (int, size, rate, time). */
static inline int64_t param_vec_int(const struct param_vec *v, uint32_t i)
{
    return ((const int64_t *)v->items)[i];
}
/* Entry i of a PARAM_TABLE decoded into `type`. */
#define PARAM_VEC_AT(v, type, i) (&((type *)(v)->items)[i])

/* Where an element's configuration comes from, innermost first: its own map, a generator's
 * section (topology.switch), the `defaults:` section. `loc` is the element's declaration. */
struct param_layers {
    const struct cfg_node *map[3];
    struct src_loc loc;
};
/* The location of `key`'s value in the innermost layer that sets it; else of the element's own
 * map; else its declaration. */
struct src_loc param_layers_loc(const struct param_layers *l, const char *key);

#define PARAM_OPTIONAL "" /* `def` for a key that may be absent and has no default */

/* Frees what decoding allocated in `out` (lists and tables, recursively); the struct's other
 * fields are untouched. */
void param_free(const struct param_def *defs, size_t ndefs, void *out);

/* Fills `out` from `map` (which may be NULL: defaults only). `what` names the object in
 * messages ("link 'l1'"). Returns the number of errors reported. */
int param_decode(struct diag *d, const struct param_def *defs, size_t ndefs,
                 const struct cfg_node *map, void *out, const char *what);

/* The three steps of param_decode, for layered configuration (table defaults, then a
 * `defaults:` section, then the element's own map): */
void param_defaults(const struct param_def *defs, size_t ndefs, void *out);
/* Overrides fields present in `map` (NULL: nothing); unknown keys are errors. */
int param_apply(struct diag *d, const struct param_def *defs, size_t ndefs,
                const struct cfg_node *map, void *out, const char *what);
/* Reports required keys (def == NULL) absent from `map`, at the map (or `loc`). */
int param_require(struct diag *d, const struct param_def *defs, size_t ndefs,
                  const struct cfg_node *map, struct src_loc loc, const char *what);
/* Like param_require for an element whose keys may also come from a `defaults:` map: a
 * required key missing from both `own` and `defaults` is reported at `own`. */
int param_require_layers(struct diag *d, const struct param_def *defs, size_t ndefs,
                         const struct cfg_node *own, const struct cfg_node *defaults,
                         const char *what);

/* Parses one scalar of a type into `dst` (for values that are not in a table). */
int param_parse_value(struct diag *d, const struct param_def *def, const struct cfg_node *v,
                      void *dst);

/* True when the key is present in `map` (for parameters whose absence means something). */
bool param_given(const struct cfg_node *map, const char *key);

/* Prints a table for `ddlsim describe`. */
void param_describe(FILE *out, const char *kind, const char *summary, const struct param_def *defs,
                    size_t ndefs);

/* The closest name to `key` among `names` (edit distance ≤ 2 or a third of the length), for
 * "did you mean" hints; NULL when nothing is close. */
const char *param_suggest(const char *key, const char *const *names, size_t n);

const char *param_type_name(enum param_type t);

#endif
