#include "sim/cfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "sim/util.h"

#define CFG_MAX_DEPTH 64
#define CFG_MAX_FILE_BYTES (64L << 20)
/* Aliases share nodes, so a small file can stand for an exponential tree ("billion laughs":
 * 24 levels of [*a, *a] are 16 million nodes), which a copy (--set, sweeps) or a walk over a
 * list would expand. A loaded tree may stand for at most this many nodes; an explicit list of
 * a million hosts is about three million. */
#define CFG_MAX_EXPANDED 4000000ULL


struct anchor {
    char *name;
    struct cfg_node *node;
};

struct loader {
    struct cfg_doc *doc;
    const char *file; /* the name locations carry (the document's, or a --set source) */
    int end_col;      /* a --set value: one line; a mark past it is at this column */
    struct diag *d;
    yaml_parser_t parser;
    struct anchor *anchors;
    size_t nanchors;
    int failed;
};

const char *cfg_kind_name(enum cfg_kind k)
{
    static const char *const names[] = {
        [CFG_NULL] = "null", [CFG_SCALAR] = "scalar", [CFG_MAP] = "map", [CFG_SEQ] = "list"};
    return (size_t)k < ARRAY_LEN(names) ? names[k] : "?";
}

static char *doc_keep(struct cfg_doc *doc, char *s)
{
    doc->strings = xrealloc(doc->strings, (doc->nstrings + 1) * sizeof(*doc->strings));
    doc->strings[doc->nstrings++] = s;
    return s;
}

struct cfg_node *cfg_new(struct cfg_doc *doc, enum cfg_kind kind, struct src_loc loc)
{
    struct cfg_node *n = xcalloc(1, sizeof(*n));
    n->kind = kind;
    n->loc = loc;
    n->expanded = 1;
    if (doc->narena == doc->cap_arena) {
        doc->cap_arena = doc->cap_arena ? 2 * doc->cap_arena : 64;
        doc->arena = xrealloc(doc->arena, doc->cap_arena * sizeof(*doc->arena));
    }
    doc->arena[doc->narena++] = n;
    return n;
}

static void node_grow(struct cfg_node *n)
{
    if (n->n < n->cap)
        return;
    n->cap = n->cap ? 2 * n->cap : 4;
    n->items = xrealloc(n->items, n->cap * sizeof(*n->items));
    if (n->kind == CFG_MAP) {
        n->keys = xrealloc(n->keys, n->cap * sizeof(*n->keys));
        n->key_locs = xrealloc(n->key_locs, n->cap * sizeof(*n->key_locs));
    }
}

void cfg_map_put(struct cfg_doc *doc, struct cfg_node *map, const char *key, struct cfg_node *v,
                 struct src_loc key_loc)
{
    (void)doc;
    SIM_ASSERT(map->kind == CFG_MAP);
    for (size_t i = 0; i < map->n; i++) {
        if (strcmp(map->keys[i], key) == 0) {
            map->items[i] = v;
            map->key_locs[i] = key_loc;
            return;
        }
    }
    node_grow(map);
    map->keys[map->n] = xstrdup(key);
    map->key_locs[map->n] = key_loc;
    map->items[map->n] = v;
    map->n++;
}

void cfg_seq_push(struct cfg_doc *doc, struct cfg_node *seq, struct cfg_node *v)
{
    (void)doc;
    SIM_ASSERT(seq->kind == CFG_SEQ);
    node_grow(seq);
    seq->items[seq->n++] = v;
}

static struct src_loc mark_loc(struct loader *L, yaml_mark_t m)
{
    if (L->end_col && m.line > 0)
        return (struct src_loc){L->file, 1, L->end_col};
    return (struct src_loc){L->file ? L->file : L->doc->file, (int)m.line + 1, (int)m.column + 1};
}

static void add_anchor(struct loader *L, const yaml_char_t *name, struct cfg_node *n)
{
    if (!name)
        return;
    L->anchors = xrealloc(L->anchors, (L->nanchors + 1) * sizeof(*L->anchors));
    L->anchors[L->nanchors].name = xstrdup((const char *)name);
    L->anchors[L->nanchors].node = n;
    L->nanchors++;
}

static int next_event(struct loader *L, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&L->parser, ev)) {
        yaml_mark_t m = L->parser.problem_mark;
        diag_error(L->d, mark_loc(L, m), "YAML syntax error: %s%s%s",
                   L->parser.problem ? L->parser.problem : "unknown problem",
                   L->parser.context ? " " : "", L->parser.context ? L->parser.context : "");
        L->failed = 1;
        return -1;
    }
    return 0;
}

/* Sets n->expanded from its items; reports an error when the limit is passed. */
static bool expanded_ok(struct loader *L, struct cfg_node *n)
{
    uint64_t sum = 1;
    for (size_t i = 0; i < n->n; i++) {
        sum += n->items[i]->expanded;
        if (sum > CFG_MAX_EXPANDED)
            break;
    }
    n->expanded = sum;
    if (sum <= CFG_MAX_EXPANDED)
        return true;
    diag_error(L->d, n->loc,
               "YAML aliases make this stand for more than %llu values; write it out or use "
               "fewer aliases of aliases",
               CFG_MAX_EXPANDED);
    L->failed = 1;
    return false;
}

static struct cfg_node *load_node(struct loader *L, yaml_event_t *ev, int depth);

/* One entry of `map` from its key event: the key, then its value. False when loading stops. */
static bool load_entry(struct loader *L, struct cfg_node *map, yaml_event_t *ev, int depth)
{
    struct src_loc kloc = mark_loc(L, ev->start_mark);
    if (ev->type != YAML_SCALAR_EVENT) {
        diag_error(L->d, kloc, "map keys must be plain strings");
        L->failed = 1;
        return false;
    }
    char *key = xstrdup((const char *)ev->data.scalar.value);
    yaml_event_t vev;
    struct cfg_node *v = NULL;
    if (next_event(L, &vev) == 0) {
        v = load_node(L, &vev, depth + 1);
        yaml_event_delete(&vev);
    }
    if (v && cfg_get(map, key)) {
        struct src_loc prev = cfg_key_loc(map, key);
        diag_error(L->d, kloc, "duplicate key '%s' (first given at line %d)", key, prev.line);
    } else if (v) {
        cfg_map_put(L->doc, map, key, v, kloc);
    }
    free(key);
    return v != NULL;
}

/* A map or a list (kind) from its start event up to its end event. */
static struct cfg_node *load_collection(struct loader *L, yaml_event_t *start, int depth,
                                        enum cfg_kind kind)
{
    bool map = kind == CFG_MAP;
    struct cfg_node *c = cfg_new(L->doc, kind, mark_loc(L, start->start_mark));
    add_anchor(L, map ? start->data.mapping_start.anchor : start->data.sequence_start.anchor, c);
    for (;;) {
        yaml_event_t ev;
        if (next_event(L, &ev) < 0)
            return NULL;
        if (ev.type == (map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT)) {
            yaml_event_delete(&ev);
            return expanded_ok(L, c) ? c : NULL;
        }
        bool ok;
        if (map) {
            ok = load_entry(L, c, &ev, depth);
        } else {
            struct cfg_node *v = load_node(L, &ev, depth + 1);
            ok = v != NULL;
            if (ok)
                cfg_seq_push(L->doc, c, v);
        }
        yaml_event_delete(&ev);
        if (!ok)
            return NULL;
    }
}

static bool scalar_is_null(const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0;
}

static struct cfg_node *load_node(struct loader *L, yaml_event_t *ev, int depth)
{
    struct src_loc loc = mark_loc(L, ev->start_mark);
    if (depth > CFG_MAX_DEPTH) {
        diag_error(L->d, loc, "nesting deeper than %d levels", CFG_MAX_DEPTH);
        L->failed = 1;
        return NULL;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        struct cfg_node *n = cfg_new(L->doc, scalar_is_null(ev) ? CFG_NULL : CFG_SCALAR, loc);
        n->str = xstrdup((const char *)ev->data.scalar.value);
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        add_anchor(L, ev->data.scalar.anchor, n);
        return n;
    }
    case YAML_MAPPING_START_EVENT:
        return load_collection(L, ev, depth, CFG_MAP);
    case YAML_SEQUENCE_START_EVENT:
        return load_collection(L, ev, depth, CFG_SEQ);
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (size_t i = L->nanchors; i-- > 0;) {
            if (strcmp(L->anchors[i].name, name) == 0)
                return L->anchors[i].node;
        }
        diag_error(L->d, loc, "unknown alias '*%s'", name);
        L->failed = 1;
        return NULL;
    }
    default:
        diag_error(L->d, loc, "unexpected YAML event");
        L->failed = 1;
        return NULL;
    }
}

/* Reads one YAML document's root node into L->doc's arena; NULL (and L->failed) on error, a
 * null node for an empty document. Frees the parser. */
static struct cfg_node *load_root(struct loader *L)
{
    yaml_event_t ev;
    struct cfg_node *root = NULL;
    bool done = false;
    bool ended = false; /* the first document ended: only the end of the stream may follow */
    while (!done && next_event(L, &ev) == 0) {
        switch (ev.type) {
        case YAML_STREAM_START_EVENT:
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (ended) {
                diag_error(L->d, mark_loc(L, ev.start_mark),
                           "a second YAML document starts here; a scenario file holds one");
                L->failed = 1;
                done = true;
            }
            break;
        case YAML_DOCUMENT_END_EVENT:
            ended = true;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            root = load_node(L, &ev, 0);
            if (!root)
                done = true;
            break;
        }
        yaml_event_delete(&ev);
    }
    for (size_t i = 0; i < L->nanchors; i++)
        free(L->anchors[i].name);
    free(L->anchors);
    yaml_parser_delete(&L->parser);
    if (!root && !L->failed)
        root = cfg_new(L->doc, CFG_NULL, (struct src_loc){L->doc->file, 1, 1});
    return L->failed ? NULL : root;
}

static struct cfg_doc *load(struct loader *L)
{
    struct cfg_doc *doc = L->doc;
    int before = diag_count(L->d);
    struct cfg_node *root = load_root(L);
    if (!root || diag_count(L->d) > before) {
        cfg_free(doc);
        return NULL;
    }
    if (!root || root->kind == CFG_NULL)
        root = cfg_new(doc, CFG_MAP, (struct src_loc){doc->file, 1, 1});
    if (root->kind != CFG_MAP) {
        diag_error(L->d, root->loc, "a scenario must be a map of sections, not a %s",
                   cfg_kind_name(root->kind));
        cfg_free(doc);
        return NULL;
    }
    doc->root = root;
    return doc;
}

static struct cfg_doc *doc_new(const char *name)
{
    struct cfg_doc *doc = xcalloc(1, sizeof(*doc));
    doc->file = xstrdup(name);
    return doc;
}

struct cfg_doc *cfg_doc_from(const char *name, const struct cfg_node *root)
{
    struct cfg_doc *doc = doc_new(name);
    doc->root = cfg_copy(doc, root);
    return doc;
}

struct cfg_doc *cfg_load_string(const char *name, const char *text, struct diag *d)
{
    struct loader L = {.doc = doc_new(name), .d = d};
    yaml_parser_initialize(&L.parser);
    yaml_parser_set_input_string(&L.parser, (const unsigned char *)text, strlen(text));
    return load(&L);
}

struct cfg_doc *cfg_load_file(const char *path, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        diag_error(d, (struct src_loc){path, 0, 0}, "cannot open scenario: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    const char *why = NULL;
    if (fstat(fileno(f), &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "it is a folder, not a scenario file";
    else if (!S_ISREG(st.st_mode))
        why = "it is not a regular file";
    else if (st.st_size > CFG_MAX_FILE_BYTES)
        why = "it is larger than the limit of 64 MB";
    if (why) {
        diag_error(d, (struct src_loc){path, 0, 0}, "cannot read scenario: %s", why);
        fclose(f);
        return NULL;
    }
    struct loader L = {.doc = doc_new(path), .d = d};
    yaml_parser_initialize(&L.parser);
    yaml_parser_set_input_file(&L.parser, f);
    struct cfg_doc *doc = load(&L);
    fclose(f);
    return doc;
}

void cfg_free(struct cfg_doc *doc)
{
    if (!doc)
        return;
    for (size_t i = 0; i < doc->narena; i++) {
        struct cfg_node *n = doc->arena[i];
        free(n->str);
        if (n->keys) {
            for (size_t k = 0; k < n->n; k++)
                free(n->keys[k]);
        }
        free(n->keys);
        free(n->key_locs);
        free(n->items);
        free(n);
    }
    for (size_t i = 0; i < doc->nstrings; i++)
        free(doc->strings[i]);
    free(doc->strings);
    free(doc->arena);
    free(doc->file);
    free(doc);
}

struct cfg_node *cfg_get(const struct cfg_node *map, const char *key)
{
    if (!map || map->kind != CFG_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++) {
        if (strcmp(map->keys[i], key) == 0)
            return map->items[i];
    }
    return NULL;
}

struct src_loc cfg_key_loc(const struct cfg_node *map, const char *key)
{
    if (map && map->kind == CFG_MAP) {
        for (size_t i = 0; i < map->n; i++) {
            if (strcmp(map->keys[i], key) == 0)
                return map->key_locs[i];
        }
    }
    return map ? map->loc : (struct src_loc){0};
}

/* Finds the child of `n` named by one path segment: a map key, a list index, or the list item
 * whose `name` is the segment. */
static struct cfg_node *path_child(struct cfg_node *n, const char *seg)
{
    if (n->kind == CFG_MAP)
        return cfg_get(n, seg);
    if (n->kind != CFG_SEQ)
        return NULL;
    char *end;
    unsigned long idx = strtoul(seg, &end, 10);
    if (*seg && *end == '\0')
        return idx < n->n ? n->items[idx] : NULL;
    for (size_t i = 0; i < n->n; i++) {
        struct cfg_node *name = cfg_get(n->items[i], "name");
        if (name && name->kind == CFG_SCALAR && strcmp(name->str, seg) == 0)
            return n->items[i];
    }
    return NULL;
}

/* Walks `path` (segments separated by '.') from the root, creating missing map keys, and puts
 * `v` at its end. Errors are reported at `loc`. */
static int place(struct cfg_doc *doc, char *path, struct cfg_node *v, struct src_loc loc,
                 struct diag *d)
{
    struct cfg_node *n = doc->root;
    char *save = NULL;
    char *seg = strtok_r(path, ".", &save);
    if (!seg || !n) {
        diag_error(d, loc, "expected a key path such as a.b.c");
        return -1;
    }
    while (seg) {
        char *next = strtok_r(NULL, ".", &save);
        struct cfg_node *child = path_child(n, seg);
        if (!next) {
            if (n->kind != CFG_MAP && !child) {
                diag_error(d, loc, "no item '%s' in the %s at %s:%d:%d", seg, cfg_kind_name(n->kind),
                           n->loc.file, n->loc.line, n->loc.col);
                return -1;
            }
            if (n->kind == CFG_MAP) {
                cfg_map_put(doc, n, seg, v, loc);
            } else {
                for (size_t i = 0; i < n->n; i++) {
                    if (n->items[i] == child)
                        n->items[i] = v;
                }
            }
            return 0;
        }
        if (!child) {
            if (n->kind != CFG_MAP) {
                diag_error(d, loc, "no item '%s' in the list at %s:%d:%d", seg, n->loc.file,
                           n->loc.line, n->loc.col);
                return -1;
            }
            child = cfg_new(doc, CFG_MAP, loc);
            cfg_map_put(doc, n, seg, child, loc);
        }
        if (child->kind != CFG_MAP && child->kind != CFG_SEQ) {
            diag_error(d, loc, "'%s' is a %s, it has no field '%s'", seg,
                       cfg_kind_name(child->kind), next);
            return -1;
        }
        n = child;
        seg = next;
    }
    return -1;
}

/* Parses the value of a --set as YAML (a scalar, or a list or map in flow style) into `doc`.
 * The text is indented to its column in `src`, so locations point into the assignment. */
static struct cfg_node *set_value(struct cfg_doc *doc, const char *src, const char *text, int col,
                                  struct diag *d)
{
    if (text[0] == '\0') { /* an empty value is an empty string, as it always was */
        struct cfg_node *v = cfg_new(doc, CFG_SCALAR, (struct src_loc){src, 1, col});
        v->str = xstrdup("");
        v->plain = true;
        return v;
    }
    char *padded = xasprintf("%*s%s", col - 1, "", text);
    struct loader L = {.doc = doc, .file = src, .end_col = (int)strlen(src) + 1, .d = d};
    yaml_parser_initialize(&L.parser);
    yaml_parser_set_input_string(&L.parser, (const unsigned char *)padded, strlen(padded));
    struct cfg_node *v = load_root(&L);
    free(padded);
    return v;
}

/* The column of the first empty segment of a key path (1-based in `path`), or 0. */
static int empty_segment(const char *path)
{
    const char *seg = path;
    for (const char *p = path;; p++) {
        if (*p == '.' || *p == '\0') {
            if (p == seg)
                return (int)(seg - path) + 1;
            if (*p == '\0')
                return 0;
            seg = p + 1;
        }
    }
}

int cfg_set(struct cfg_doc *doc, const char *assignment, struct diag *d)
{
    char *src = doc_keep(doc, xasprintf("--set %s", assignment));
    const char *eq = strchr(assignment, '=');
    struct src_loc loc = {src, 1, 7}; /* after "--set " */
    if (!eq || eq == assignment) {
        diag_error(d, loc, "expected --set key.path=value (e.g. --set flows.f0.bytes=8MB)");
        return -1;
    }
    char *path = xstrdup(assignment);
    path[eq - assignment] = '\0';
    int empty = empty_segment(path);
    if (empty) {
        diag_error(d, (struct src_loc){src, 1, 6 + empty},
                   "empty key in the path '%s' (expected keys separated by '.', e.g. "
                   "flows.f0.bytes)", path);
        free(path);
        return -1;
    }
    int vcol = (int)(eq - assignment) + 8; /* after "--set " and "=" */
    struct cfg_node *v = set_value(doc, src, eq + 1, vcol, d);
    int rc = v ? place(doc, path, v, loc, d) : -1;
    free(path);
    return rc;
}

struct cfg_node *cfg_copy(struct cfg_doc *doc, const struct cfg_node *n)
{
    struct cfg_node *c = cfg_new(doc, n->kind, n->loc);
    c->plain = n->plain;
    if (n->str)
        c->str = xstrdup(n->str);
    for (size_t i = 0; i < n->n; i++) {
        struct cfg_node *item = cfg_copy(doc, n->items[i]);
        if (n->kind == CFG_MAP)
            cfg_map_put(doc, c, n->keys[i], item, n->key_locs[i]);
        else
            cfg_seq_push(doc, c, item);
    }
    return c;
}

int cfg_set_node(struct cfg_doc *doc, const char *path, const struct cfg_node *v,
                 struct src_loc loc, struct diag *d)
{
    char *p = xstrdup(path);
    int rc = place(doc, p, cfg_copy(doc, v), loc, d);
    free(p);
    return rc;
}

static void emit_str(struct cfg_buf *b, const char *s)
{
    cfg_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            cfg_buf_putc(b, '\\');
        cfg_buf_putc(b, *s);
    }
    cfg_buf_putc(b, '"');
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

void cfg_canonical(const struct cfg_node *n, struct cfg_buf *b)
{
    if (!n || n->kind == CFG_NULL) {
        cfg_buf_putc(b, '~');
        return;
    }
    if (n->kind == CFG_SCALAR) {
        emit_str(b, n->str ? n->str : "");
        return;
    }
    if (n->kind == CFG_SEQ) {
        cfg_buf_putc(b, '[');
        for (size_t i = 0; i < n->n; i++) {
            if (i)
                cfg_buf_putc(b, ',');
            cfg_canonical(n->items[i], b);
        }
        cfg_buf_putc(b, ']');
        return;
    }
    /* map keys sorted: their order in the file carries no meaning */
    char ***order = xmalloc((n->n ? n->n : 1) * sizeof(*order));
    for (size_t i = 0; i < n->n; i++)
        order[i] = &n->keys[i];
    qsort(order, n->n, sizeof(order[0]), key_cmp);
    cfg_buf_putc(b, '{');
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            cfg_buf_putc(b, ',');
        emit_str(b, *order[i]);
        cfg_buf_putc(b, ':');
        cfg_canonical(n->items[order[i] - n->keys], b);
    }
    cfg_buf_putc(b, '}');
    free(order);
}

void cfg_buf_putc(struct cfg_buf *b, char c)
{
    if (b->len + 2 > b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->s = xrealloc(b->s, b->cap);
    }
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
}
