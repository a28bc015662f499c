/* Internal: the state of one pipeline instance (struct p4_pipe), shared by p4.c (life
 * cycle), p4vm.c (execution) and p4rt.c (control plane). Not for use outside p4/engine. */
#ifndef SIM_P4_P4PIPE_H
#define SIM_P4_P4PIPE_H

#include "p4/engine/p4.h"
#include "p4/engine/p4cc.h"
#include "p4/engine/p4table.h"
#include "p4/engine/p4vm.h"

struct p4_ext_state {
    uint64_t *vals;    /* registers: size * nw words */
    uint64_t *packets; /* counters */
    uint64_t *bytes;
    struct p4_meter *meters; /* meters */
    int nvals;               /* value sets: members in use */
};

struct p4_mc_group {
    uint32_t id;
    struct p4_mc_member *members;
    int n;
    int cap;
};

struct p4_mc_node {
    uint32_t rid;
    uint32_t *ports;
    int nports;
};

struct p4_mirror {
    uint32_t session;
    uint32_t port;
};

struct p4_pipe {
    const struct p4_prog *prog;
    struct p4_host host;
    struct p4vm vm;
    uint64_t *slots;          /* prog->nslots: a spare state (preserving from the state reset) */
    uint64_t *keybuf;         /* prog->max_key_words */
    struct p4table *tables;   /* prog->ntables */
    struct p4_ext_state *ext; /* prog->nexterns */
    struct p4_mc_group *groups;
    int ngroups;
    int capgroups;
    struct p4_mc_node *nodes; /* multicast nodes (STF/bmv2 style handles) */
    int nnodes;
    int capnodes;
    struct p4_mirror *mirrors;
    int nmirrors;
    int capmirrors;
    uint64_t rng; /* xorshift64* state */
    const struct p4cc *cc; /* the compiled engine, NULL: the interpreter */
    struct p4cc_native native; /* cc's native code, called directly (all NULL: none) */
    unsigned runs;             /* bit (1 << enum p4cc_block): the block has statements */
    bool lean; /* p4_pipe_lean */
    struct p4_lean_calls calls; /* p4_pipe_lean_calls */
};

int64_t p4pipe_now_ps(const struct p4_pipe *pipe);
/* p4cc_lean_out_fn where the headers did not fit in place: the deparser into buf (cap bytes)
 * and the payload after, as p4_pipe_egress then (computeChecksum has run). */
void p4pipe_lean_buf(struct p4vm *vm, uint8_t *bytes, uint32_t len, uint8_t *buf, uint32_t cap,
                     struct p4_egress_out *out);
uint64_t p4pipe_random(struct p4_pipe *pipe);
/* p4rt.c: p4rt_find_name, or -1 with the reason in err: "unknown WHAT 'q'" (with `table`:
 * "table 'TABLE' has no WHAT 'q'") or "ambiguous WHAT name 'q'". */
int p4rt_lookup(const char *const *names, int n, const char *q, const char *what,
                const char *table, char *err, size_t errlen);
/* p4rt.c: table t's action of that name (p4rt_lookup). */
int p4rt_find_action(const struct p4ir_table *t, const char *name, char *err, size_t errlen);

#endif
