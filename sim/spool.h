/* Spooled records: fixed-size records taken during a run (a flow's cwnd or rate samples) go to a
 * file as they are taken, one block at a time, and are read back per stream, in order, when the
 * outputs are written. A stream holds one block in memory whatever the run's length.
 *
 * All streams of a simulation share one file (struct sim's spool), created at the first full
 * block in the run's temporary folder (spool_set_dir; the system's temporary folder when there
 * is none) and unlinked at once: it never shows in a result set, and a killed run leaves
 * nothing behind. On the file a stream is a chain of blocks; each block names the next. A failed
 * write is kept in `err` (the run's output check stops the run with it); later records are then
 * dropped. */
#ifndef SIM_SIM_SPOOL_H
#define SIM_SIM_SPOOL_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#define SPOOL_BLOCK 4096 /* bytes of one block, its header included */

struct spool_stream;

struct spool {
    int fd;                    /* -1 until the first block is written */
    char *dir;                 /* where the file goes; NULL: $TMPDIR or /tmp */
    uint64_t end;              /* bytes written to the file */
    int err;                   /* errno of the first failed write or read; 0: none */
    struct spool_json_ref *refs; /* placeholders made by spool_json_ref (spool_json.c) */
    uint32_t nrefs;
};

/* How a stream's records appear in JSON: column `col` of record `rec` as a new value. */
typedef json_t *spool_json_fn(const void *rec, unsigned col);

struct spool_stream {
    struct spool *sp;
    uint32_t rec;       /* bytes of one record */
    uint32_t nbuf;      /* records in buf, not yet on the file */
    uint64_t count;     /* records appended */
    uint64_t first;     /* file offsets of the first and last block on the file; SPOOL_NONE */
    uint64_t last;
    unsigned char *buf; /* SPOOL_BLOCK bytes, allocated at the first record */
    spool_json_fn *json;
};

#define SPOOL_NONE UINT64_MAX

void spool_init(struct spool *sp);
void spool_fini(struct spool *sp);
/* The folder the file is created in (the run's temporary folder); before the first block. */
void spool_set_dir(struct spool *sp, const char *dir);

/* A stream of records of `rec` bytes (at most SPOOL_BLOCK - 16) shown in JSON by `json`. */
void spool_stream_init(struct spool_stream *s, struct spool *sp, uint32_t rec, spool_json_fn *json);
void spool_stream_fini(struct spool_stream *s);
/* Appends one record (copied). */
void spool_append(struct spool_stream *s, const void *rec);

/* Reads a stream's records in order: those on the file, then those still in memory. */
struct spool_reader {
    const struct spool_stream *s;
    uint64_t next;  /* file offset of the next block; SPOOL_NONE: the memory tail is next */
    uint32_t i, n;  /* position in and records of the current block */
    const unsigned char *recs;
    unsigned char *blk;
    int state;      /* 0: file blocks, 1: memory tail, 2: done */
};

void spool_reader_init(struct spool_reader *r, const struct spool_stream *s);
/* The next record, or NULL at the end (or after a read error: sp->err is set). */
const void *spool_reader_next(struct spool_reader *r);
void spool_reader_fini(struct spool_reader *r);

/* JSON (spool_json.c): a placeholder for the array of column `col` of the stream's records,
 * to put in a tree written by spool_json_dumpf. */
json_t *spool_json_ref(const struct spool_stream *s, unsigned col);
/* Writes `root` exactly as json_dumpf(root, f, flags) would with the placeholders replaced by
 * their arrays, read from the spool one record at a time. `flags` must hold JSON_INDENT(n) and
 * no JSON_SORT_KEYS / JSON_COMPACT. Forgets the placeholders. Returns 0, or -1 on a write or
 * read error. */
int spool_json_dumpf(struct spool *sp, const json_t *root, FILE *f, size_t flags);

#endif
