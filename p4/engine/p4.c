/* Program loading (preprocess, lex, parse, lower) and the v1model pipeline life cycle of one
 * switch instance: see p4.h. */
#include "p4/engine/p4.h"
#include "p4/engine/p4cc.h"
#include "p4/engine/p4cpp.h"
#include "p4/engine/p4native.h"
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4sem.h"
#include "p4/engine/p4use.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- loading ---- */

static struct p4_prog *load_source(const char *name, const char *src, size_t len,
                                   const struct p4_load_opts *opts, FILE *diag_out, int *nerrors)
{
    struct p4_diag diag = {diag_out, 0, 0};
    struct p4lex lx;
    struct p4parse ps;
    p4lex_init(&lx, src, len, name, &diag);
    struct p4ast *root = p4parse_program(&ps, &lx, &diag);
    struct p4_prog *prog = NULL;
    if (root && !diag.nerrors)
        prog = p4sem_lower(root, &diag, opts);
    if (prog) {
        prog->strings = p4lex_take_pool(&lx, &prog->nstrings);
        prog->cc_slot = prog->nslots;
        if (!diag.nerrors) {
            p4use_analyse(prog);
            prog->cc = p4cc_compile(prog);
            prog->nslots += p4cc_slots(prog->cc);
        }
    }
    p4parse_fini(&ps);
    p4lex_fini(&lx);
    if (nerrors)
        *nerrors = diag.nerrors;
    if (diag.nerrors && prog) {
        p4_prog_free(prog);
        prog = NULL;
    }
    return prog;
}

struct p4_prog *p4_prog_load(const char *path, const char *include_dir, FILE *diag_out,
                             int *nerrors)
{
    return p4_prog_load_opts(path, include_dir, NULL, diag_out, nerrors);
}

struct p4_prog *p4_prog_load_opts(const char *path, const char *include_dir,
                                  const struct p4_load_opts *opts, FILE *diag_out, int *nerrors)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (diag_out)
            fprintf(diag_out, "%s: error: cannot open file: %s\n", path, strerror(errno));
        if (nerrors)
            *nerrors = 1;
        return NULL;
    }
    fclose(f);
    size_t len;
    char *text = p4cpp_run_cached(path, include_dir, diag_out, &len);
    if (!text) {
        if (nerrors)
            *nerrors = 1;
        return NULL;
    }
    struct p4_prog *prog = load_source(path, text, len, opts, diag_out, nerrors);
    free(text);
    return prog;
}

struct p4_prog *p4_prog_load_text(const char *name, const char *text, const char *include_dir,
                                  bool preprocess_it, FILE *diag_out, int *nerrors)
{
    return p4_prog_load_text_opts(name, text, include_dir, preprocess_it, NULL, diag_out, nerrors);
}

struct p4_prog *p4_prog_load_text_opts(const char *name, const char *text, const char *include_dir,
                                       bool preprocess_it, const struct p4_load_opts *opts,
                                       FILE *diag_out, int *nerrors)
{
    if (!preprocess_it)
        return load_source(name, text, strlen(text), opts, diag_out, nerrors);
    char tmp[] = "/tmp/ddlsim-p4-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        if (nerrors)
            *nerrors = 1;
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    fprintf(f, "#line 1 \"%s\"\n%s", name, text);
    fclose(f);
    size_t len;
    char *out = p4cpp_run(tmp, include_dir, diag_out, &len);
    unlink(tmp);
    if (!out) {
        if (nerrors)
            *nerrors = 1;
        return NULL;
    }
    struct p4_prog *prog = load_source(name, out, len, opts, diag_out, nerrors);
    free(out);
    return prog;
}

void p4_prog_free(struct p4_prog *prog)
{
    if (!prog)
        return;
    p4cc_free(prog->cc);
    for (int i = 0; i < prog->nallocs; i++)
        free(prog->allocs[i]);
    free(prog->allocs);
    for (int i = 0; i < prog->ntypes; i++)
        free(prog->types[i]);
    free(prog->types);
    for (int i = 0; i < prog->nstrings; i++)
        free(prog->strings[i]);
    free(prog->strings);
    for (int i = 0; i < prog->nfield_lists; i++)
        free(prog->field_lists[i].r);
    free(prog->field_lists);
    free(prog->states);
    free(prog->actions);
    free(prog->tables);
    free(prog->externs);
    free(prog->errors);
    free(prog);
}

/* The packet region and the scratch slots after it: packets run in place in this buffer, so
 * nothing is copied between the caller's state and the pipeline. */
void p4_prog_set_exec(struct p4_prog *prog, enum p4_exec exec)
{
    prog->exec_default = (int)exec;
}

int p4_exec_parse(const char *s, enum p4_exec *out)
{
    if (strcmp(s, "compiled") == 0)
        *out = P4_EXEC_COMPILED;
    else if (strcmp(s, "interp") == 0)
        *out = P4_EXEC_INTERP;
    else if (strcmp(s, "native") == 0)
        *out = P4_EXEC_NATIVE;
    else
        return -1;
    return 0;
}

size_t p4_prog_state_bytes(const struct p4_prog *prog)
{
    return (size_t)prog->nslots * 8;
}

bool p4_prog_egress_runs(const struct p4_prog *prog)
{
    return prog->egress && prog->egress->body.n;
}

bool p4_prog_output_early(const struct p4_prog *prog)
{
    return prog->use.output_early;
}

/* ---- pipeline instance ---- */

/* The engine when neither the host nor the program chooses (the compiled records where no
 * native code can be had). */
#define P4_EXEC_BUILTIN_DEFAULT P4_EXEC_NATIVE

int64_t p4pipe_now_ps(const struct p4_pipe *pipe)
{
    return pipe->host.now_ps ? pipe->host.now_ps(pipe->host.ud) : 0;
}

uint64_t p4pipe_random(struct p4_pipe *pipe)
{
    uint64_t x = pipe->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    pipe->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static void add_const_entries(struct p4_pipe *pipe, const struct p4ir_table *t)
{
    struct p4table *rt = &pipe->tables[t->id];
    for (int i = 0; i < t->nentries; i++) { /* in textual order: ties go to the first */
        const struct p4ir_entry *e = &t->entries[i];
        if (e->action < 0)
            continue;
        int h = p4table_add(rt, e->value, e->mask, e->hi, e->priority, e->action, e->data);
        if (h >= 0) /* the entry just added (a search by handle made installing quadratic) */
            rt->last_added->fixed = e->is_const;
    }
}

/* No request made: a program without clone, resubmit or recirculate keeps these for good. */
static void reset_requests(struct p4vm *vm)
{
    vm->clone_session = -1;
    vm->clone_fl = -1;
    vm->clone_e2e = false;
    vm->resubmit = false;
    vm->resubmit_fl = -1;
    vm->recirculate = false;
    vm->recirc_fl = -1;
}

/* The glue's rarer work is never needed (p4_pipe_lean): no clone, resubmit, recirculate or
 * truncate; no ingress timestamp; an early output whose deparser only emits and whose blocks
 * after ingress refer to no scratch. */
static bool lean_program(const struct p4_prog *prog)
{
    const struct p4use *u = &prog->use;
    return !u->requests && !u->truncates && u->deparse_emits && u->output_early &&
           !u->egress_scratch && u->std.ingress_global_timestamp < 0;
}

static void set_lean_calls(struct p4_pipe *pipe);

struct p4_pipe *p4_pipe_create(const struct p4_prog *prog, const struct p4_host *host)
{
    struct p4_pipe *pipe = p4util_calloc(1, sizeof(*pipe));
    pipe->prog = prog;
    if (host)
        pipe->host = *host;
    pipe->rng = pipe->host.seed ? pipe->host.seed : 0x853c49e6748fea9bULL;
    pipe->slots = p4util_calloc((size_t)prog->nslots + 1, 8);
    pipe->keybuf = p4util_calloc((size_t)prog->max_key_words + 1, 8);
    pipe->tables = p4util_calloc((size_t)prog->ntables + 1, sizeof(*pipe->tables));
    for (int i = 0; i < prog->ntables; i++) {
        p4table_init(&pipe->tables[i], prog->tables[i]);
        add_const_entries(pipe, prog->tables[i]);
    }
    pipe->ext = p4util_calloc((size_t)prog->nexterns + 1, sizeof(*pipe->ext));
    for (int i = 0; i < prog->nexterns; i++) {
        const struct p4ir_extern *x = &prog->externs[i];
        struct p4_ext_state *es = &pipe->ext[i];
        size_t n = (size_t)x->size + 1;
        switch (x->kind) {
        case P4EXT_REGISTER:
            es->vals = p4util_calloc(n * (size_t)x->nw, 8);
            break;
        case P4EXT_COUNTER:
            es->packets = p4util_calloc(n, 8);
            es->bytes = p4util_calloc(n, 8);
            break;
        case P4EXT_METER:
            es->meters = p4util_calloc(n, sizeof(struct p4_meter));
            break;
        case P4EXT_VALUE_SET: /* vals: (value, mask) pairs; nvals members */
            es->vals = p4util_calloc(2 * n, 8);
            break;
        default:
            break;
        }
    }
    enum p4_exec exec = pipe->host.exec ? pipe->host.exec : (enum p4_exec)prog->exec_default;
    if (exec == P4_EXEC_DEFAULT)
        exec = P4_EXEC_BUILTIN_DEFAULT;
    pipe->cc = exec == P4_EXEC_COMPILED ? prog->cc : NULL;
    if (exec == P4_EXEC_NATIVE)
        pipe->cc = p4native_twin(prog->cc, stderr);
    const struct p4ir_callable *const blocks[5] = {prog->verify, prog->ingress, prog->egress,
                                                   prog->compute, prog->deparser};
    for (int i = 0; i < 5; i++)
        pipe->runs |= blocks[i] && blocks[i]->body.n ? 1u << i : 0;
    if (pipe->cc)
        p4cc_native_entries(pipe->cc, blocks, &pipe->native);
    pipe->lean = lean_program(prog);
    set_lean_calls(pipe);
    pipe->vm.prog = prog;
    pipe->vm.pipe = pipe;
    pipe->vm.slots = pipe->slots;
    reset_requests(&pipe->vm);
    return pipe;
}

void p4_pipe_destroy(struct p4_pipe *pipe)
{
    if (!pipe)
        return;
    const struct p4_prog *prog = pipe->prog;
    for (int i = 0; i < prog->ntables; i++)
        p4table_fini(&pipe->tables[i]);
    free(pipe->tables);
    for (int i = 0; i < prog->nexterns; i++) {
        free(pipe->ext[i].vals);
        free(pipe->ext[i].packets);
        free(pipe->ext[i].bytes);
        free(pipe->ext[i].meters);
    }
    free(pipe->ext);
    for (int i = 0; i < pipe->ngroups; i++)
        free(pipe->groups[i].members);
    free(pipe->groups);
    for (int i = 0; i < pipe->nnodes; i++)
        free(pipe->nodes[i].ports);
    free(pipe->nodes);
    free(pipe->mirrors);
    free(pipe->slots);
    free(pipe->keybuf);
    free(pipe);
}

const struct p4_prog *p4_pipe_prog(const struct p4_pipe *pipe)
{
    return pipe->prog;
}

/* The parser and the blocks are inlined where the pipeline runs them, so that each native
 * block is called from a call site of its own (one site shared by all of them, as
 * p4cc_run_control has, sees a different target at each call: a predictor that keeps the last
 * target of each site mispredicts every one). */
static inline __attribute__((always_inline)) void run_parser(struct p4_pipe *pipe)
{
    if (pipe->native.parser)
        pipe->native.parser(&pipe->vm, pipe->native.rec);
    else if (pipe->cc)
        p4cc_run_parser(pipe->cc, &pipe->vm);
    else
        p4vm_run_parser(&pipe->vm);
}

/* A block with no statements changes nothing (the flow is normal before and after each). */
static inline __attribute__((always_inline)) void
run_control(struct p4_pipe *pipe, enum p4cc_block which, const struct p4ir_callable *c)
{
    if (!(pipe->runs >> which & 1))
        return;
    if (pipe->native.ctl[which])
        pipe->native.ctl[which](&pipe->vm, pipe->native.rec);
    else if (pipe->cc)
        p4cc_run_control(pipe->cc, &pipe->vm, which, c);
    else
        p4vm_run_control(&pipe->vm, c);
}

static void set_std(struct p4_pipe *pipe, int slot, uint64_t v)
{
    if (slot >= 0)
        pipe->vm.slots[slot] = v;
}

static uint64_t get_std(const struct p4_pipe *pipe, int slot)
{
    return slot >= 0 ? pipe->vm.slots[slot] : 0;
}

static uint64_t timestamp(const struct p4_pipe *pipe, int64_t ps)
{
    if (ps < 0)
        ps = 0;
    return (uint64_t)(pipe->host.timestamps_ns ? ps / 1000 : ps / 1000000);
}

/* Copies the per-packet region and the compiled engine's slots. */
static void copy_packet(const struct p4_prog *prog, uint64_t *dst, const uint64_t *src)
{
    memcpy(dst, src, (size_t)prog->npkt_slots * 8);
    memcpy(dst + prog->cc_slot, src + prog->cc_slot, (size_t)(prog->nslots - prog->cc_slot) * 8);
}

/* Copies a field list's fields (every field in its slot on both sides first); the compiled
 * engine's header shadows of dst no longer hold. */
static inline void copy_field_list(const struct p4_pipe *pipe, uint64_t *dst, const uint64_t *src,
                                   int fl)
{
    const struct p4_prog *prog = pipe->prog;
    if (fl < 0 || !src)
        return;
    if (pipe->cc) {
        p4cc_sync(pipe->cc, (uint64_t *)src, false); /* only fills slots the shadows stand for */
        p4cc_sync(pipe->cc, dst, true);
    }
    for (int i = 0; i < prog->nfield_lists; i++) {
        const struct p4ir_field_list *l = &prog->field_lists[i];
        if (l->id != fl)
            continue;
        for (int j = 0; j < l->nr; j++)
            memcpy(dst + l->r[j].slot, src + l->r[j].slot, (size_t)l->r[j].n * 8);
    }
}

/* Runs the packet in place in state (every slot, scratch included). */
static void bind_state(struct p4_pipe *pipe, void *state)
{
    pipe->vm.slots = state;
}

/* Zeroes the state and copies field list fl from `from` (the state of the previous pass of a
 * resubmitted or recirculated packet, which may be state itself). */
static __attribute__((noinline)) void zero_preserving(struct p4_pipe *pipe, void *state,
                                                      const void *from, int fl)
{
    const struct p4_prog *prog = pipe->prog;
    if (from == state) {
        copy_packet(prog, pipe->slots, from);
        from = pipe->slots;
    }
    memset(state, 0, (size_t)prog->nslots * 8);
    copy_field_list(pipe, state, from, fl);
}

/* The per-packet entry points are `hot`: the compiler puts them together (.text.hot), with
 * the P4 switch's, so their lines do not pile up in a few sets of the instruction cache. Spread
 * over the binary they did: callgrind --cache-sim=yes on the DCTCP case counted 2.1 million
 * L1 instruction misses with them spread, 0.27 million together (the same instructions). */
/* Zeroes the state, copies preserved fields, sets the ingress standard metadata the program
 * refers to (p4use.h) and runs the parser. */
static __attribute__((hot)) void start_packet(struct p4_pipe *pipe, void *state,
                                                const struct p4_ingress_in *in,
                         const void *from, int fl)
{
    const struct p4_prog *prog = pipe->prog;
    const struct p4ir_std *used = &prog->use.std;
    struct p4vm *vm = &pipe->vm;
    bind_state(pipe, state);
    if (fl >= 0 && from)
        zero_preserving(pipe, state, from, fl);
    else
        memset(state, 0, (size_t)prog->nslots * 8);
    uint32_t plen = in->packet_length ? in->packet_length : in->len;
    set_std(pipe, used->ingress_port, in->ingress_port & 0x1ff);
    set_std(pipe, used->instance_type, in->instance_type);
    set_std(pipe, prog->std.packet_length, plen); /* read again at egress */
    if (used->ingress_global_timestamp >= 0)
        set_std(pipe, used->ingress_global_timestamp,
                timestamp(pipe, p4pipe_now_ps(pipe)) & 0xffffffffffffULL);
    if (prog->use.requests)
        reset_requests(vm);
    vm->in = in->bytes;
    vm->in_len = in->len;
    vm->in_bitpos = 0;
    vm->packet_length = plen;
    run_parser(pipe);
}

/* What ingress decided (the requests, egress_spec, mcast_grp, priority) as out. */
static inline __attribute__((always_inline)) void ingress_result(struct p4_pipe *pipe,
                                                                 struct p4_ingress_out *out)
{
    const struct p4_prog *prog = pipe->prog;
    struct p4vm *vm = &pipe->vm;
    memset(out, 0, sizeof(*out));
    out->clone_session = -1;
    out->clone_fl = -1;
    out->resubmit_fl = -1;
    if (vm->clone_session >= 0 && !vm->clone_e2e) { /* requests stay unset without use.requests */
        out->clone_session = vm->clone_session;
        out->clone_fl = vm->clone_fl;
    }
    uint64_t spec = get_std(pipe, prog->std.egress_spec);
    uint64_t grp = get_std(pipe, prog->std.mcast_grp);
    if (vm->resubmit) {
        out->fwd = P4_FWD_RESUBMIT;
        out->resubmit_fl = vm->resubmit_fl;
    } else if (grp != 0) {
        out->fwd = P4_FWD_MULTICAST;
        out->mcast_grp = (uint32_t)grp;
    } else if (spec == P4_DROP_PORT) {
        out->fwd = P4_FWD_DROP;
    } else {
        out->fwd = P4_FWD_UNICAST;
        out->egress_port = (uint32_t)spec;
    }
    out->priority = (uint32_t)get_std(pipe, prog->std.priority) & 7;
    out->payload_off = (uint32_t)vm->slots[0];
}

__attribute__((hot)) void p4_pipe_ingress(struct p4_pipe *pipe, void *state,
                                          const struct p4_ingress_in *in,
                                          struct p4_ingress_out *out)
{
    const struct p4_prog *prog = pipe->prog;
    start_packet(pipe, state, in, in->preserve_from, in->preserve_fl);
    run_control(pipe, P4CC_VERIFY, prog->verify);
    run_control(pipe, P4CC_INGRESS, prog->ingress);
    ingress_result(pipe, out);
}

bool p4_pipe_lean(const struct p4_pipe *pipe)
{
    return pipe->lean;
}

/* p4_lean_in_fn of a pipeline without native code: the general call. (The native one does it
 * in one generated function, p4nemit.c: no field list to preserve, no ingress timestamp, no
 * requests to reset or report on a lean pipeline.) */
static void general_lean_in(struct p4vm *vm, uint64_t *state, const uint8_t *bytes,
                            uint64_t lens, uint32_t port, struct p4_ingress_out *out)
{
    const struct p4_ingress_in in = {.bytes = bytes,
                                     .len = (uint32_t)(lens >> 32),
                                     .packet_length = (uint32_t)lens,
                                     .ingress_port = port,
                                     .instance_type = P4_INSTANCE_NORMAL,
                                     .preserve_fl = -1};
    p4_pipe_ingress(vm->pipe, state, &in, out);
}

void p4_pipe_state_sync(const struct p4_pipe *pipe, void *state)
{
    if (pipe->cc)
        p4cc_sync(pipe->cc, state, false);
}

void p4_pipe_state_copy(const struct p4_pipe *pipe, void *dst, const void *src)
{
    copy_packet(pipe->prog, dst, src);
}

/* bmv2 reset_metadata(): user metadata and standard_metadata are zeroed; packet_length and
 * instance_type are set again by the traffic manager. */
static void reset_metadata(const struct p4_prog *prog, uint64_t *d, uint64_t plen,
                           uint32_t instance)
{
    memset(d + prog->meta_slot, 0, (size_t)prog->meta_type->nslots * 8);
    memset(d + prog->std_slot, 0, (size_t)prog->std_type->nslots * 8);
    if (prog->std.packet_length >= 0)
        d[prog->std.packet_length] = plen;
    if (prog->std.instance_type >= 0)
        d[prog->std.instance_type] = instance;
}

void p4_pipe_clone_i2e(struct p4_pipe *pipe, void *state, const struct p4_ingress_in *in,
                       const void *from, int fl)
{
    const struct p4_prog *prog = pipe->prog;
    /* the parser sees the original ingress port; afterwards metadata is reset and only the
     * clone's field list survives (bmv2 copy_field_list_and_set_type) */
    start_packet(pipe, state, in, NULL, -1);
    uint64_t plen = get_std(pipe, prog->std.packet_length);
    reset_metadata(prog, state, plen, P4_INSTANCE_INGRESS_CLONE);
    copy_field_list(pipe, state, from, fl);
}

void p4_pipe_clone_e2e(struct p4_pipe *pipe, void *dst, const void *src, int fl)
{
    const struct p4_prog *prog = pipe->prog;
    uint64_t *d = dst;
    const uint64_t *s = src;
    /* headers as egress left them; all metadata reset except the field list */
    copy_packet(prog, d, s);
    uint64_t plen = prog->std.packet_length >= 0 ? s[prog->std.packet_length] : 0;
    reset_metadata(prog, d, plen, P4_INSTANCE_EGRESS_CLONE);
    copy_field_list(pipe, d, s, fl);
}

/* The egress standard metadata (the traffic manager's fields) the program refers to. */
static void set_egress_std(struct p4_pipe *pipe, const struct p4_egress_in *in)
{
    const struct p4_prog *prog = pipe->prog;
    const struct p4ir_std *used = &prog->use.std;
    set_std(pipe, used->egress_port, in->egress_port & 0x1ff);
    set_std(pipe, used->egress_rid, in->egress_rid & 0xffff);
    /* bmv2 sets egress_spec to a non-drop value before egress: only egress's own
     * mark_to_drop drops here */
    set_std(pipe, prog->std.egress_spec, 0);
    set_std(pipe, used->instance_type, in->instance_type);
    set_std(pipe, used->enq_qdepth, in->enq_qdepth & 0x7ffff);
    set_std(pipe, used->deq_qdepth, in->deq_qdepth & 0x7ffff);
    if (used->enq_timestamp >= 0)
        set_std(pipe, used->enq_timestamp, timestamp(pipe, in->enq_ps) & 0xffffffffu);
    if (used->deq_timedelta >= 0)
        set_std(pipe, used->deq_timedelta, timestamp(pipe, in->deq_timedelta_ps) & 0xffffffffu);
    if (used->egress_global_timestamp >= 0)
        set_std(pipe, used->egress_global_timestamp,
                timestamp(pipe, p4pipe_now_ps(pipe)) & 0xffffffffffffULL);
    set_std(pipe, used->qid, get_std(pipe, prog->std.priority) & 0x1f);
}

/* Runs the deparser into buf (cap bytes: emits write nothing beyond). */
static inline __attribute__((always_inline)) void run_deparser(struct p4_pipe *pipe, uint8_t *buf,
                                                                uint32_t cap)
{
    struct p4vm *vm = &pipe->vm;
    vm->out = buf;
    vm->out_cap = cap;
    vm->out_len = 0;
    vm->out_overflow = false;
    run_control(pipe, P4CC_DEPARSER, pipe->prog->deparser);
}

/* Appends the payload (the input after the parsed headers, from off), truncates (the
 * length truncate() asked for, in slot 0's high half), reports. */
static inline __attribute__((always_inline)) void finish_output(struct p4vm *vm,
                                                                const struct p4_egress_in *in,
                                                                uint32_t off, bool truncates,
                                                                struct p4_egress_out *out)
{
    if (off < in->len && in->bytes) {
        uint32_t n = in->len - off;
        if (vm->out_len + n > vm->out_cap) {
            n = vm->out_cap - vm->out_len;
            vm->out_overflow = true;
        }
        memcpy(vm->out + vm->out_len, in->bytes + off, n);
        vm->out_len += n;
    }
    uint32_t trunc = truncates ? (uint32_t)(vm->slots[0] >> 32) : 0;
    if (trunc && vm->out_len > trunc)
        vm->out_len = trunc;
    out->out_len = vm->out_len;
    out->overflow = vm->out_overflow;
    vm->out = NULL;
}

/* Runs the deparser over the parsed headers (off bytes of in->in_place: emits write nothing
 * beyond) and moves the payload after them when their length changed; false when the
 * headers grew past off (nothing of the payload written over). */
static inline __attribute__((always_inline)) bool
deparse_in_place(struct p4_pipe *pipe, const struct p4_egress_in *in, uint32_t off,
                 struct p4_egress_out *out)
{
    struct p4vm *vm = &pipe->vm;
    run_deparser(pipe, in->in_place, off);
    if (vm->out_overflow)
        return false;
    uint32_t n = in->len - off;
    if (vm->out_len != off)
        memmove(in->in_place + vm->out_len, in->in_place + off, n);
    vm->out_len += n;
    vm->out_cap = in->out_cap;
    out->in_place = true;
    finish_output(vm, in, in->len, pipe->prog->use.truncates, out);
    return true;
}

/* Runs the checksum update and the deparser, then appends the payload. In place (p4.h), a
 * deparser that only emits writes over the parsed headers, and runs again into in->out when
 * they grew; an E2E clone copies the input after egress, so it is never written over. */
static inline __attribute__((always_inline)) void
deparse(struct p4_pipe *pipe, const struct p4_egress_in *in, struct p4_egress_out *out)
{
    const struct p4_prog *prog = pipe->prog;
    struct p4vm *vm = &pipe->vm;
    run_control(pipe, P4CC_COMPUTE, prog->compute);
    uint32_t off = (uint32_t)vm->slots[0];
    if (in->in_place && prog->use.deparse_emits && off <= in->len && in->len <= in->out_cap &&
        !(vm->clone_session >= 0 && vm->clone_e2e) && deparse_in_place(pipe, in, off, out))
        return;
    run_deparser(pipe, in->out, in->out_cap);
    finish_output(vm, in, off, prog->use.truncates, out);
}

/* Runs a non-empty egress control with its standard metadata; false when it dropped the
 * packet. */
static __attribute__((noinline)) bool
run_egress(struct p4_pipe *pipe, const struct p4_egress_in *in, struct p4_egress_out *out)
{
    const struct p4_prog *prog = pipe->prog;
    struct p4vm *vm = &pipe->vm;
    set_egress_std(pipe, in);
    run_control(pipe, P4CC_EGRESS, prog->egress);
    if (vm->clone_session >= 0 && vm->clone_e2e) {
        out->clone_session = vm->clone_session;
        out->clone_fl = vm->clone_fl;
    }
    /* state holds the headers as egress left them (E2E clones copy them; recirculation keeps
     * the metadata) */
    if (get_std(pipe, prog->std.egress_spec) == P4_DROP_PORT) {
        out->drop = true;
        return false;
    }
    return true;
}

/* An empty egress control reads nothing and requests nothing: its standard metadata is not
 * set (no later block can read it: the checksum and deparser controls have no
 * standard_metadata, and clones and recirculation are requested only by egress). */
__attribute__((hot)) void p4_pipe_egress(struct p4_pipe *pipe, void *state, const struct p4_egress_in *in,
                    struct p4_egress_out *out)
{
    const struct p4_prog *prog = pipe->prog;
    struct p4vm *vm = &pipe->vm;
    bind_state(pipe, state);
    /* scratch starts zeroed in every block run, as after the parser (blocks that refer to
     * none need not) */
    if (prog->use.egress_scratch)
        memset(vm->slots + prog->npkt_slots, 0, (size_t)(prog->cc_slot - prog->npkt_slots) * 8);
    if (prog->use.requests)
        reset_requests(vm);
    *out = (struct p4_egress_out){.clone_session = -1, .clone_fl = -1, .recirc_fl = -1};
    vm->in = in->bytes;
    vm->in_len = in->len;
    vm->packet_length = (uint32_t)get_std(pipe, prog->std.packet_length);
    if ((pipe->runs >> P4CC_EGRESS & 1) && !run_egress(pipe, in, out))
        return;
    deparse(pipe, in, out);
    out->recirculate = vm->recirculate;
    out->recirc_fl = vm->recirc_fl;
}

/* The lean egress's output over bytes (in place where the headers fit, else into buf), as
 * p4_pipe_egress makes it on a lean pipeline (its program early: egress empty). */
static inline struct p4_egress_in lean_egress_in(uint8_t *bytes, uint32_t len, uint8_t *buf,
                                                 uint32_t cap)
{
    return (struct p4_egress_in){
        .bytes = bytes, .len = len, .out = buf, .out_cap = cap, .in_place = bytes};
}

/* p4_lean_out_fn of a pipeline without native code: the general call. (The native one runs
 * computeChecksum and the deparser in place: no scratch to zero, no requests to reset or
 * report.) */
static void general_lean_out(struct p4vm *vm, uint64_t *state, uint8_t *bytes, uint64_t lens,
                             uint8_t *buf, struct p4_egress_out *out)
{
    const struct p4_egress_in in = lean_egress_in(bytes, (uint32_t)(lens >> 32), buf,
                                                  (uint32_t)lens);
    p4_pipe_egress(vm->pipe, state, &in, out);
}

struct p4_lean_calls p4_pipe_lean_calls(struct p4_pipe *pipe)
{
    return pipe->calls;
}

/* The lean calls' functions (p4_pipe_lean_calls): native where the pipeline has them. */
static void set_lean_calls(struct p4_pipe *pipe)
{
    pipe->calls.in = pipe->native.lean_in ? pipe->native.lean_in : general_lean_in;
    pipe->calls.out = pipe->native.lean_out ? pipe->native.lean_out : general_lean_out;
    pipe->calls.vm = &pipe->vm;
}

/* The native lean_out gave up on the in-place deparse: the deparser into buf and the payload
 * after, as deparse does then. */
void p4pipe_lean_buf(struct p4vm *vm, uint8_t *bytes, uint32_t len, uint8_t *buf, uint32_t cap,
                     struct p4_egress_out *out)
{
    *out = (struct p4_egress_out){.clone_session = -1, .clone_fl = -1, .recirc_fl = -1};
    const struct p4_egress_in in = lean_egress_in(bytes, len, buf, cap);
    run_deparser(vm->pipe, buf, cap);
    finish_output(vm, &in, (uint32_t)vm->slots[0], false, out);
}

int p4_pipe_mcast_members(const struct p4_pipe *pipe, uint32_t grp,
                          const struct p4_mc_member **members)
{
    for (int i = 0; i < pipe->ngroups; i++) {
        if (pipe->groups[i].id == grp) {
            *members = pipe->groups[i].members;
            return pipe->groups[i].n;
        }
    }
    *members = NULL;
    return 0;
}

int p4_pipe_mirror_port(const struct p4_pipe *pipe, uint32_t session)
{
    for (int i = 0; i < pipe->nmirrors; i++) {
        if (pipe->mirrors[i].session == session)
            return (int)pipe->mirrors[i].port;
    }
    return -1;
}
