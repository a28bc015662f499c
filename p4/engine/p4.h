/* Public API of the P4_16 engine (v1model / bmv2 simple_switch semantics).
 *
 * A `struct p4_prog` is a loaded program (immutable, shareable). A `struct p4_pipe` is one
 * switch's instance of it: table entries, registers, counters, meters, multicast groups and
 * mirroring sessions live here. Per packet, the caller runs ingress, applies the traffic
 * manager decision it gets back (drop / unicast / multicast / resubmit, plus an optional
 * clone), and later runs egress on each copy. The packet's P4 state (parsed headers, user
 * metadata, standard_metadata, and the program's scratch slots) lives in a caller-owned state
 * buffer of p4_prog_state_bytes() bytes; ingress and egress run in place in it (nothing is
 * copied in or out), so queued packets need no engine memory. Nothing here
 * allocates per packet. Time comes from the host callback in picoseconds; timestamps seen by
 * the program are µs (bmv2) unless the host asks for ns. */
#ifndef SIM_P4_P4_H
#define SIM_P4_P4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct p4_prog;
struct p4_pipe;

#define P4_DROP_PORT 511

/* instance_type values (bmv2 simple_switch) */
enum p4_instance {
    P4_INSTANCE_NORMAL = 0,
    P4_INSTANCE_INGRESS_CLONE = 1,
    P4_INSTANCE_EGRESS_CLONE = 2,
    P4_INSTANCE_COALESCED = 3,
    P4_INSTANCE_RECIRC = 4,
    P4_INSTANCE_REPLICATION = 5,
    P4_INSTANCE_RESUBMIT = 6,
};

/* The engine a pipeline runs packets with: the compiled form turned into machine code
 * (p4native.h; the default, and the compiled form where that is not available), the compiled
 * form run as records (p4cc.h), or the tree-walking interpreter kept as the reference
 * (p4vm.h). Their results are identical. */
enum p4_exec { P4_EXEC_DEFAULT, P4_EXEC_COMPILED, P4_EXEC_INTERP, P4_EXEC_NATIVE };

/* "compiled", "interp" or "native" -> *out; -1 for anything else. */
int p4_exec_parse(const char *s, enum p4_exec *out);

/* Callbacks into the embedding simulator. Any pointer may be NULL. */
struct p4_host {
    void *ud;
    int64_t (*now_ps)(void *ud);            /* current time; NULL: time 0 */
    void (*log)(void *ud, const char *msg); /* log_msg output; NULL: discarded */
    bool timestamps_ns;                     /* false: µs like bmv2 */
    uint64_t seed;                          /* random() stream seed */
    /* Run-time faults of the program (division by zero, failed assert): the source
     * location and a message; NULL: ignored (the operation yields 0 / continues). */
    void (*fault)(void *ud, const char *file, int line, int col, const char *msg);
    enum p4_exec exec; /* DEFAULT: the program's (p4_prog_set_exec), else the engine's */
};

/* A C model of a user-declared extern function (`extern bit<16> f(in bit<8> x, out ...);`).
 * The engine calls it with the arguments copied in: args[i] holds parameter i's value in
 * ceil(widths[i] / 64) little-endian words, zero above the width; the model reads in and
 * inout arguments and writes out and inout ones and the result (ret, ret_width bits; NULL
 * for void), which the engine copies out, truncated to their widths. Parameters and the
 * result are bit<W>, int<W> (two's complement), bool or serializable enums. */
struct p4_extern_call {
    void *model_ud; /* the model's ud */
    void *host_ud;  /* the calling pipeline's p4_host.ud */
    int nargs;
    uint64_t *const *args; /* per parameter */
    const int *widths;     /* per parameter, bits */
    uint64_t *ret;
    int ret_width;
};
typedef void p4_extern_fn(struct p4_extern_call *call);

struct p4_extern_model {
    const char *name; /* the extern function's name */
    p4_extern_fn *fn;
    void *ud;
};

/* Options of loading: models of user-declared extern functions (a program that calls one
 * without a model is refused with a located error). */
struct p4_load_opts {
    const struct p4_extern_model *externs;
    int nexterns;
};

/* Loads path: runs the C preprocessor (cpp -C -undef -nostdinc -x assembler-with-cpp
 * -D__TARGET_BMV2__ -I include_dir), lexes, parses, checks and lowers. Errors go to diag_out
 * as `file:line:col: error: message`; returns NULL and sets *nerrors on failure. */
struct p4_prog *p4_prog_load(const char *path, const char *include_dir, FILE *diag_out,
                             int *nerrors);
/* Same from memory. If preprocess is false the text must not contain #include/#define. */
struct p4_prog *p4_prog_load_text(const char *name, const char *text, const char *include_dir,
                                  bool preprocess, FILE *diag_out, int *nerrors);
/* The same two with options (opts may be NULL). */
struct p4_prog *p4_prog_load_opts(const char *path, const char *include_dir,
                                  const struct p4_load_opts *opts, FILE *diag_out, int *nerrors);
struct p4_prog *p4_prog_load_text_opts(const char *name, const char *text, const char *include_dir,
                                       bool preprocess, const struct p4_load_opts *opts,
                                       FILE *diag_out, int *nerrors);
void p4_prog_free(struct p4_prog *prog);
/* The engine of the program's pipelines whose host leaves p4_host.exec at DEFAULT. */
void p4_prog_set_exec(struct p4_prog *prog, enum p4_exec exec);
/* Size of the per-packet state buffer (8-byte aligned): the packet region and scratch. */
size_t p4_prog_state_bytes(const struct p4_prog *prog);
/* False when the egress control has no statements: then nothing reads the traffic manager's
 * fields of p4_egress_in (ports, rid, instance type, queue depths and times). */
bool p4_prog_egress_runs(const struct p4_prog *prog);

/* True when nothing that happens to a packet between ingress and egress (its time in the
 * queue, the traffic manager's fields, other packets) can change what egress,
 * computeChecksum and the deparser make of its state: the egress control has no statements
 * and the other two only compute on the state (no table, call, extern with state, log, assert,
 * division or loop; p4use.h). Then p4_pipe_egress may run on a unicast packet's state right
 * after p4_pipe_ingress, with the traffic manager's fields of p4_egress_in left zero, and
 * makes the same output as later. */
bool p4_prog_output_early(const struct p4_prog *prog);

struct p4_pipe *p4_pipe_create(const struct p4_prog *prog, const struct p4_host *host);
void p4_pipe_destroy(struct p4_pipe *pipe);
const struct p4_prog *p4_pipe_prog(const struct p4_pipe *pipe);

enum p4_fwd { P4_FWD_DROP, P4_FWD_UNICAST, P4_FWD_MULTICAST, P4_FWD_RESUBMIT };

/* bmv2 conventions for the traffic manager: a resubmitted or recirculated packet enters with
 * instance_type 6 or 4, ingress_port 0 and its metadata reset except the preserved field
 * list; a unicast packet enters egress with instance_type 0 (even after resubmission),
 * replicas with 5 and their rid. */
struct p4_ingress_in {
    const uint8_t *bytes;   /* header bytes the parser may read */
    uint32_t len;           /* bytes available */
    uint32_t packet_length; /* bytes on the wire (headers + virtual payload); 0: len */
    uint32_t ingress_port;
    uint32_t instance_type;    /* enum p4_instance */
    const void *preserve_from; /* resubmit/recirculate: state of the original, or NULL */
    int preserve_fl;           /* field list id to copy from preserve_from (-1: none) */
};

struct p4_ingress_out {
    enum p4_fwd fwd;
    uint32_t egress_port; /* P4_FWD_UNICAST */
    uint32_t mcast_grp;   /* P4_FWD_MULTICAST */
    uint32_t priority;    /* standard_metadata.priority (0..7, higher served first) */
    int clone_session;    /* I2E clone requested: session id, else -1 */
    int clone_fl;         /* field list to preserve in the clone (-1: none) */
    int resubmit_fl;      /* P4_FWD_RESUBMIT: field list (-1: none) */
    uint32_t payload_off; /* bytes the parser consumed */
};

/* Runs parser, verifyChecksum and ingress into state. */
void p4_pipe_ingress(struct p4_pipe *pipe, void *state, const struct p4_ingress_in *in,
                     struct p4_ingress_out *out);

/* Puts every header field of state in its slot: the compiled engine may keep fields that no
 * compiled node reads only as the header's wire bytes (p4cc.h); afterwards the state reads
 * as the interpreter's would (for tests that compare states). */
void p4_pipe_state_sync(const struct p4_pipe *pipe, void *state);
/* Copies a state (multicast replicas get a full copy, as in bmv2). */
void p4_pipe_state_copy(const struct p4_pipe *pipe, void *dst, const void *src);
/* Parses the original bytes into state for an I2E clone, without running ingress: the
 * parser sees in->ingress_port, then all metadata is reset except packet_length, the
 * field list fl copied from `from`, and instance_type = 1 (bmv2). */
void p4_pipe_clone_i2e(struct p4_pipe *pipe, void *state, const struct p4_ingress_in *in,
                       const void *from, int fl);
/* E2E clone: state = headers of src after egress, metadata zeroed except field list fl. */
void p4_pipe_clone_e2e(struct p4_pipe *pipe, void *dst, const void *src, int fl);

struct p4_egress_in {
    uint32_t egress_port;
    uint32_t egress_rid;
    uint32_t instance_type;
    uint32_t enq_qdepth;      /* packets, excluding this one */
    uint32_t deq_qdepth;      /* packets left behind */
    int64_t enq_ps;           /* enqueue time */
    int64_t deq_timedelta_ps; /* time spent in the queue */
    const uint8_t *bytes;     /* the original input bytes (payload source) */
    uint32_t len;
    uint8_t *out; /* output buffer */
    uint32_t out_cap;
    /* NULL, or bytes itself, writable, out_cap bytes: the output may replace the input in
     * place (p4_egress_out.in_place says where it is), the payload moving only when the
     * headers' length changed */
    uint8_t *in_place;
};

struct p4_egress_out {
    bool drop;
    uint32_t out_len;  /* bytes written to out (headers + unparsed remainder) */
    int clone_session; /* E2E clone: session or -1 */
    int clone_fl;
    bool recirculate;
    int recirc_fl;
    bool overflow; /* out_cap too small: output truncated */
    bool in_place; /* the output is in in_place (the input's bytes), else in out */
};

/* Runs egress, computeChecksum and the deparser on state. */
void p4_pipe_egress(struct p4_pipe *pipe, void *state, const struct p4_egress_in *in,
                    struct p4_egress_out *out);

/* True when the pipeline's program never needs the glue's rarer work (no clone, resubmit,
 * recirculate, truncate or ingress timestamp; an early output, p4_prog_output_early, whose
 * deparser only emits): then the two lean calls below may stand for p4_pipe_ingress and
 * p4_pipe_egress, with the same state and results in fewer steps. */
bool p4_pipe_lean(const struct p4_pipe *pipe);

/* The two lean calls, functions to call directly with their first argument (vm), for a caller
 * that makes them per packet: the native engine's generated functions where the pipeline has
 * them, else the general calls behind the same signature.
 * in(vm, state, bytes, p4_lean_lens(len, packet_length), port, out) is p4_pipe_ingress of a
 * packet that enters normally: in = {bytes, len, packet_length, port, 0, NULL, -1}, with
 * packet_length not 0 (a wire length counts the headers).
 * out(vm, state, bytes, p4_lean_lens(len, cap), buf, out) is p4_pipe_egress on the state
 * `in` left, with in = {.bytes = bytes, .len = len, .out = buf, .out_cap = cap, .in_place =
 * bytes} (the traffic manager's fields zero). */
struct p4vm;
typedef void p4_lean_in_fn(struct p4vm *vm, uint64_t *state, const uint8_t *bytes,
                           uint64_t len_packet_length /* len << 32 | packet_length */,
                           uint32_t port, struct p4_ingress_out *out);
typedef void p4_lean_out_fn(struct p4vm *vm, uint64_t *state, uint8_t *bytes,
                            uint64_t len_cap /* len << 32 | cap */, uint8_t *buf,
                            struct p4_egress_out *out);
struct p4_lean_calls {
    p4_lean_in_fn *in;
    p4_lean_out_fn *out;
    struct p4vm *vm;
};
struct p4_lean_calls p4_pipe_lean_calls(struct p4_pipe *pipe);
/* The lean functions' second length argument: len << 32 | n (n: packet_length, or the
 * output's capacity). */
static inline uint64_t p4_lean_lens(uint32_t len, uint32_t n)
{
    return (uint64_t)len << 32 | n;
}

/* Multicast groups and mirroring sessions (set with p4rt). */
struct p4_mc_member {
    uint32_t port;
    uint32_t rid;
};
int p4_pipe_mcast_members(const struct p4_pipe *pipe, uint32_t grp,
                          const struct p4_mc_member **members);
/* Egress port of a mirroring session, or -1 if the session does not exist. */
int p4_pipe_mirror_port(const struct p4_pipe *pipe, uint32_t session);

#endif
