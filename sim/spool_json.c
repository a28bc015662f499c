/* Spooled arrays in JSON outputs: a writer that prints a jansson tree as json_dumpf does with
 * JSON_INDENT, except that placeholder values stand for arrays read from a spool one record at a
 * time (spool.h). Placeholders are recognised by identity (the json_t itself), so no string a
 * scenario holds can pass for one. */
#include "sim/spool.h"

#include <stdlib.h>
#include <string.h>

#include "sim/util.h"

/* the n of JSON_INDENT(n) in a flags word */
#define INDENT_OF(flags) ((flags) & JSON_MAX_INDENT)

struct spool_json_ref {
    const json_t *v;
    const struct spool_stream *s;
    unsigned col;
};

json_t *spool_json_ref(const struct spool_stream *s, unsigned col)
{
    struct spool *sp = s->sp;
    json_t *v = json_string("(spooled samples)");
    sp->refs = xrealloc(sp->refs, (sp->nrefs + 1) * sizeof(*sp->refs));
    sp->refs[sp->nrefs++] = (struct spool_json_ref){v, s, col};
    return v;
}

/* The placeholder `v` is, newest first (a freed one's address may come back). */
static const struct spool_json_ref *find_ref(const struct spool *sp, const json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    for (uint32_t i = sp->nrefs; i-- > 0;) {
        if (sp->refs[i].v == v)
            return &sp->refs[i];
    }
    return NULL;
}

struct writer {
    struct spool *sp;
    FILE *f;
    size_t flags;
    int err;
};

/* jansson's dump_indent with JSON_INDENT: a new line and depth levels of indentation. */
static void indent(struct writer *w, int depth)
{
    fputc('\n', w->f);
    for (size_t i = 0; i < (size_t)depth * INDENT_OF(w->flags); i++)
        fputc(' ', w->f);
}

static void dump(struct writer *w, const json_t *v, int depth);

/* Between elements: "," and a new line; after the last: a new line at the parent's depth. */
static void after_item(struct writer *w, bool more, int depth)
{
    if (more)
        fputc(',', w->f);
    indent(w, more ? depth + 1 : depth);
}

static void dump_spooled(struct writer *w, const struct spool_json_ref *ref, int depth)
{
    struct spool_reader rd;
    spool_reader_init(&rd, ref->s);
    const void *rec = spool_reader_next(&rd);
    fputc('[', w->f);
    if (rec)
        indent(w, depth + 1);
    while (rec) {
        json_t *e = ref->s->json(rec, ref->col);
        dump(w, e, depth + 1);
        json_decref(e);
        rec = spool_reader_next(&rd);
        after_item(w, rec != NULL, depth);
    }
    fputc(']', w->f);
    spool_reader_fini(&rd);
    if (w->sp->err)
        w->err = -1;
}

static void dump_array(struct writer *w, const json_t *v, int depth)
{
    size_t n = json_array_size(v);
    fputc('[', w->f);
    if (n)
        indent(w, depth + 1);
    for (size_t i = 0; i < n; i++) {
        dump(w, json_array_get(v, i), depth + 1);
        after_item(w, i + 1 < n, depth);
    }
    fputc(']', w->f);
}

static void dump_object(struct writer *w, const json_t *v, int depth)
{
    void *it = json_object_iter((json_t *)v);
    fputc('{', w->f);
    if (it)
        indent(w, depth + 1);
    while (it) {
        void *next = json_object_iter_next((json_t *)v, it);
        json_t *key = json_stringn_nocheck(json_object_iter_key(it), json_object_iter_key_len(it));
        if (!key || json_dumpf(key, w->f, w->flags | JSON_ENCODE_ANY) != 0)
            w->err = -1;
        json_decref(key);
        fputs(": ", w->f);
        dump(w, json_object_iter_value(it), depth + 1);
        after_item(w, next != NULL, depth);
        it = next;
    }
    fputc('}', w->f);
}

static void dump(struct writer *w, const json_t *v, int depth)
{
    const struct spool_json_ref *ref = find_ref(w->sp, v);
    if (ref)
        dump_spooled(w, ref, depth);
    else if (json_is_object(v))
        dump_object(w, v, depth);
    else if (json_is_array(v))
        dump_array(w, v, depth);
    else if (!v || json_dumpf(v, w->f, w->flags | JSON_ENCODE_ANY) != 0)
        w->err = -1;
}

int spool_json_dumpf(struct spool *sp, const json_t *root, FILE *f, size_t flags)
{
    SIM_ASSERT(INDENT_OF(flags) > 0 && !(flags & (JSON_SORT_KEYS | JSON_COMPACT)));
    struct writer w = {.sp = sp, .f = f, .flags = flags};
    dump(&w, root, 0);
    free(sp->refs);
    sp->refs = NULL;
    sp->nrefs = 0;
    return w.err || ferror(f) ? -1 : 0;
}
