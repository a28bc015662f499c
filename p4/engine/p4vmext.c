/* The interpreter's builtins: registers, counters, meters, hashes, checksums, clones and the
 * other v1model functions (see p4vm.h). Data lists are packed MSB first into vm->buf. */
#include "p4/engine/p4hash.h"
#include "p4/engine/p4pipe.h"
#include "p4/engine/p4vmi.h"
#include "p4/engine/p4wire.h"

#include <stdio.h>
#include <string.h>

#define eval p4vm_eval
#define evalw p4vm_evalw
#define ref_slot p4vm_ref_slot
#define fault p4vm_fault

size_t p4vm_pack(struct p4vm *vm, struct p4ir_expr *const *v, int n)
{
    uint32_t cap = (uint32_t)sizeof(vm->buf) * 8;
    uint32_t bits = 0;
    struct bitw b = {vm->buf, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        const struct p4ir_expr *e = v[i];
        int w = e->width;
        if (e->hdr) { /* fields of invalid headers are left out (bmv2) */
            int64_t hs = ref_slot(vm, e->hdr);
            if (hs < 0 || !vm->slots[hs])
                continue;
        }
        if (w == 0) { /* a varbit (the only non-scalar in data lists): its current length */
            int64_t vs = ref_slot(vm, e);
            if (vs < 0)
                continue;
            int len = (int)vm->slots[vs];
            if (len <= 0 || bits + (uint32_t)len > cap)
                continue;
            bitw_field(&b, vm->slots + vs + 1, len);
            bits += (uint32_t)len;
            continue;
        }
        if (bits + (uint32_t)w > cap)
            break;
        if (e->nw > 1) {
            uint64_t tmp[P4_WMAX];
            evalw(vm, e, tmp);
            bitw_field(&b, tmp, w);
        } else {
            bitw_put(&b, eval(vm, e) & p4util_mask64(w), w);
        }
        bits += (uint32_t)w;
    }
    bitw_flush(&b);
    return b.n;
}

void p4vm_set_ref(struct p4vm *vm, const struct p4ir_expr *ref, uint64_t v)
{
    int64_t s = ref_slot(vm, ref);
    if (s < 0)
        return;
    if (ref->nw > 1) {
        memset(vm->slots + s, 0, (size_t)ref->nw * 8);
        vm->slots[s] = v;
    } else {
        vm->slots[s] = v & ref->mask;
    }
}

static uint64_t checksum(struct p4vm *vm, const struct p4ir_stmt *st, int first)
{
    return p4vm_checksum_packed(vm, st, p4vm_pack(vm, st->args + first, st->nargs - first));
}

uint64_t p4vm_checksum_packed(struct p4vm *vm, const struct p4ir_stmt *st, size_t len)
{
    if (st->flag && vm->in) { /* _with_payload: append the unparsed bytes */
        uint32_t off = (uint32_t)vm->slots[0];
        for (uint32_t i = off; i < vm->in_len && len < sizeof(vm->buf); i++)
            vm->buf[len++] = vm->in[i];
    }
    if (st->aux2 == P4HASH_RANDOM)
        return p4pipe_random(vm->pipe);
    return p4hash_compute(st->aux2, vm->buf, len);
}

__attribute__((noinline)) static void log_msg(struct p4vm *vm, const struct p4ir_stmt *st)
{
    if (!vm->pipe || !vm->pipe->host.log)
        return;
    const char *fmt = st->args[0]->ptr;
    char msg[512];
    size_t n = 0;
    int arg = 1;
    for (const char *c = fmt; *c && n + 24 < sizeof(msg); c++) {
        if (c[0] == '{' && c[1] == '}' && arg < st->nargs) {
            const struct p4ir_expr *e = st->args[arg++];
            uint64_t v = e->nw > 1 ? 0 : eval(vm, e);
            if (e->type->kind == P4T_INT)
                n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%lld",
                                      (long long)p4ops_sext(v, e->width));
            else
                n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%llu", (unsigned long long)v);
            c++;
        } else {
            msg[n++] = *c;
        }
    }
    msg[n] = 0;
    vm->pipe->host.log(vm->pipe->host.ud, msg);
}

/* Registers, counters and meters (index out of range: writes ignored, reads 0). */
static void stateful(struct p4vm *vm, const struct p4ir_stmt *st)
{
    const struct p4_prog *prog = vm->prog;
    struct p4_pipe *pipe = vm->pipe;
    switch ((enum p4builtin)st->aux) {
    case P4B_REG_READ: {
        const struct p4ir_extern *x = &prog->externs[st->aux2];
        uint64_t idx = eval(vm, st->args[1]);
        int64_t s = ref_slot(vm, st->args[0]);
        if (s < 0)
            return;
        if (idx < (uint64_t)x->size)
            memcpy(vm->slots + s, pipe->ext[st->aux2].vals + idx * (uint64_t)x->nw,
                   (size_t)x->nw * 8);
        else
            memset(vm->slots + s, 0, (size_t)x->nw * 8);
        return;
    }
    case P4B_REG_WRITE: {
        const struct p4ir_extern *x = &prog->externs[st->aux2];
        uint64_t idx = eval(vm, st->args[0]);
        uint64_t tmp[P4_WMAX];
        if (x->nw > 1)
            evalw(vm, st->args[1], tmp);
        else
            tmp[0] = eval(vm, st->args[1]) & p4util_mask64(x->width);
        if (idx < (uint64_t)x->size)
            memcpy(pipe->ext[st->aux2].vals + idx * (uint64_t)x->nw, tmp, (size_t)x->nw * 8);
        return;
    }
    case P4B_COUNT: {
        const struct p4ir_extern *x = &prog->externs[st->aux2];
        uint64_t idx = eval(vm, st->args[0]);
        if (idx < (uint64_t)x->size) {
            pipe->ext[st->aux2].packets[idx]++;
            pipe->ext[st->aux2].bytes[idx] += vm->packet_length;
        }
        return;
    }
    case P4B_METER: {
        const struct p4ir_extern *x = &prog->externs[st->aux2];
        uint64_t idx = eval(vm, st->args[0]);
        enum p4_color c = P4_GREEN;
        if (idx < (uint64_t)x->size)
            c = p4table_meter(&pipe->ext[st->aux2].meters[idx],
                              x->ctype == 0 ? 1 : vm->packet_length, p4pipe_now_ps(pipe));
        p4vm_set_ref(vm, st->args[1], (uint64_t)c);
        return;
    }
    default:
        return;
    }
}

/* hash(out, algo, base, data, max): base + H(data) % max (max 0: base) */
static void hash_op(struct p4vm *vm, const struct p4ir_stmt *st)
{
    struct p4_pipe *pipe = vm->pipe;
    uint64_t base = eval(vm, st->args[1]);
    uint64_t max;
    if (st->args[2]->nw > 1) { /* a max of 2^64 or more never reduces the hash */
        uint64_t w[P4_WMAX];
        evalw(vm, st->args[2], w);
        bool big = false;
        for (int i = 1; i < st->args[2]->nw; i++)
            big |= w[i] != 0;
        max = w[0];
        if (big) {
            uint64_t h =
                st->aux2 == P4HASH_RANDOM
                    ? p4pipe_random(pipe)
                    : p4hash_compute(st->aux2, vm->buf, p4vm_pack(vm, st->args + 3, st->nargs - 3));
            p4vm_set_ref(vm, st->args[0], base + h);
            return;
        }
    } else {
        max = eval(vm, st->args[2]);
    }
    uint64_t h;
    if (st->aux2 == P4HASH_RANDOM) {
        h = p4pipe_random(pipe);
    } else {
        size_t len = p4vm_pack(vm, st->args + 3, st->nargs - 3);
        h = p4hash_compute(st->aux2, vm->buf, len);
    }
    p4vm_set_ref(vm, st->args[0], max ? base + h % max : base);
}

void p4vm_builtin(struct p4vm *vm, const struct p4ir_stmt *st)
{
    const struct p4_prog *prog = vm->prog;
    struct p4_pipe *pipe = vm->pipe;
    switch ((enum p4builtin)st->aux) {
    case P4B_MARK_TO_DROP:
        vm->slots[prog->std.egress_spec] = 511;
        if (prog->std.mcast_grp >= 0)
            vm->slots[prog->std.mcast_grp] = 0;
        return;
    case P4B_REG_READ:
    case P4B_REG_WRITE:
    case P4B_COUNT:
    case P4B_METER:
        stateful(vm, st);
        return;
    case P4B_DMETER:
        p4vm_set_ref(vm, st->args[0], vm->dmeter_color[st->aux2 & 63]);
        return;
    case P4B_HASH:
        hash_op(vm, st);
        return;
    case P4B_RANDOM: {
        uint64_t lo = eval(vm, st->args[1]);
        uint64_t hi = eval(vm, st->args[2]);
        uint64_t r = lo;
        if (hi > lo) {
            uint64_t span = hi - lo + 1;
            r = lo + (span ? p4pipe_random(pipe) % span : p4pipe_random(pipe));
        }
        p4vm_set_ref(vm, st->args[0], r);
        return;
    }
    case P4B_VERIFY_CKSUM: {
        if (!eval(vm, st->args[0]))
            return;
        uint64_t c = checksum(vm, st, 2);
        uint64_t have = eval(vm, st->args[1]);
        if ((c & st->args[1]->mask) != have && prog->std.checksum_error >= 0)
            vm->slots[prog->std.checksum_error] = 1;
        return;
    }
    case P4B_UPDATE_CKSUM:
        if (eval(vm, st->args[0]))
            p4vm_set_ref(vm, st->args[1], checksum(vm, st, 2));
        return;
    case P4B_CLONE:
        vm->clone_session = (int)(eval(vm, st->args[0]) & 0x7fffffff);
        vm->clone_fl = st->aux2;
        vm->clone_e2e = st->vals[0] != 0;
        return;
    case P4B_RESUBMIT:
        vm->resubmit = true;
        vm->resubmit_fl = st->aux2;
        return;
    case P4B_RECIRC:
        vm->recirculate = true;
        vm->recirc_fl = st->aux2;
        return;
    case P4B_NOP:
    case P4B_DCOUNT:
        return;
    case P4B_LOG_MSG:
        log_msg(vm, st);
        return;
    case P4B_TRUNCATE:
        /* kept in the packet state (slot 0, high half) so it survives to egress */
        vm->slots[0] = (vm->slots[0] & 0xffffffffu) | (eval(vm, st->args[0]) & 0xffffffffu) << 32;
        return;
    case P4B_ASSERT:
        if (!eval(vm, st->args[0]))
            fault(vm, st->loc, "assertion failed");
        return;
    }
}
