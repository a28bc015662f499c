/* Spooled records: blocks of fixed-size records on one unlinked file per simulation (spool.h). */
#define _GNU_SOURCE /* mkostemp */
#include "sim/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/util.h"

/* A block on the file: this header, then n records. */
struct block_hdr {
    uint64_t next; /* file offset of the stream's next block; SPOOL_NONE: the last so far */
    uint32_t n;
    uint32_t pad;
};

#define HDR sizeof(struct block_hdr)

void spool_init(struct spool *sp)
{
    memset(sp, 0, sizeof(*sp));
    sp->fd = -1;
}

void spool_fini(struct spool *sp)
{
    if (sp->fd >= 0)
        close(sp->fd);
    free(sp->dir);
    free(sp->refs);
    spool_init(sp);
}

void spool_set_dir(struct spool *sp, const char *dir)
{
    free(sp->dir);
    sp->dir = dir ? xstrdup(dir) : NULL;
}

/* Creates the file (once) and unlinks it: only the descriptor reaches it. */
static int spool_open(struct spool *sp)
{
    if (sp->fd >= 0)
        return 0;
    const char *dir = sp->dir;
    if (!dir)
        dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *path = xasprintf("%s/.samples.XXXXXX", dir);
    sp->fd = mkostemp(path, O_CLOEXEC);
    if (sp->fd < 0)
        sp->err = errno;
    else
        unlink(path);
    free(path);
    return sp->fd < 0 ? -1 : 0;
}

/* Writes or reads all n bytes at `off`; a failure is kept in sp->err. */
static int io_at(struct spool *sp, bool wr, void *buf, size_t n, uint64_t off)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = wr ? pwrite(sp->fd, p, n, (off_t)off) : pread(sp->fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            sp->err = r < 0 ? errno : wr ? ENOSPC : EIO;
            return -1;
        }
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

void spool_stream_init(struct spool_stream *s, struct spool *sp, uint32_t rec, spool_json_fn *json)
{
    SIM_ASSERT(rec > 0 && rec <= SPOOL_BLOCK - HDR);
    *s = (struct spool_stream){.sp = sp, .rec = rec, .first = SPOOL_NONE, .last = SPOOL_NONE,
                               .json = json};
}

void spool_stream_fini(struct spool_stream *s)
{
    free(s->buf);
    s->buf = NULL;
}

static uint32_t per_block(const struct spool_stream *s)
{
    return (uint32_t)((SPOOL_BLOCK - HDR) / s->rec);
}

/* Writes the full block at the end of the file and links the stream's previous block to it. */
static void flush_block(struct spool_stream *s)
{
    struct spool *sp = s->sp;
    uint32_t n = s->nbuf;
    s->nbuf = 0;
    if (sp->err || spool_open(sp) < 0)
        return; /* the run stops at its next output check */
    struct block_hdr h = {.next = SPOOL_NONE, .n = n};
    memcpy(s->buf, &h, HDR);
    uint64_t off = sp->end;
    if (io_at(sp, true, s->buf, HDR + (size_t)n * s->rec, off) < 0)
        return;
    sp->end += HDR + (uint64_t)n * s->rec;
    if (s->last != SPOOL_NONE && io_at(sp, true, &off, sizeof(off), s->last) < 0)
        return;
    if (s->first == SPOOL_NONE)
        s->first = off;
    s->last = off;
}

void spool_append(struct spool_stream *s, const void *rec)
{
    if (!s->buf)
        s->buf = xmalloc(SPOOL_BLOCK);
    memcpy(s->buf + HDR + (size_t)s->nbuf * s->rec, rec, s->rec);
    s->nbuf++;
    s->count++;
    if (s->nbuf == per_block(s))
        flush_block(s);
}

void spool_reader_init(struct spool_reader *r, const struct spool_stream *s)
{
    *r = (struct spool_reader){.s = s, .next = s->first};
}

void spool_reader_fini(struct spool_reader *r)
{
    free(r->blk);
    r->blk = NULL;
}

/* Moves to the next block with records; false at the end or on a read error. */
static bool next_block(struct spool_reader *r)
{
    const struct spool_stream *s = r->s;
    while (r->state == 0 && r->next != SPOOL_NONE) {
        if (!r->blk)
            r->blk = xmalloc(SPOOL_BLOCK);
        struct block_hdr h;
        if (io_at(s->sp, false, &h, HDR, r->next) < 0 || h.n > per_block(s) ||
            io_at(s->sp, false, r->blk, (size_t)h.n * s->rec, r->next + HDR) < 0) {
            r->state = 2;
            return false;
        }
        r->next = h.next;
        r->recs = r->blk;
        r->i = 0;
        r->n = h.n;
        if (r->n)
            return true;
    }
    if (r->state == 0) {
        r->state = 1;
        r->recs = s->buf ? s->buf + HDR : NULL;
        r->i = 0;
        r->n = s->nbuf;
        return r->n > 0;
    }
    r->state = 2;
    return false;
}

const void *spool_reader_next(struct spool_reader *r)
{
    if (r->i == r->n && (r->state == 2 || !next_block(r)))
        return NULL;
    return r->recs + (size_t)r->i++ * r->s->rec;
}
