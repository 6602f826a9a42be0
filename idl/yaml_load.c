/* yaml_load.c: one YAML document as a tree of located nodes (see node.h).
 *
 * libyaml's event parser feeds an explicit stack of open mappings and sequences;
 * nothing here recurses, so the input's nesting never reaches the C stack. The
 * tree lives in the caller's arena; the loader's own bookkeeping (the stack, the
 * child slots, the anchors) lives in malloc'd memory and a private arena, both
 * released before returning.
 *
 * Bounds: nesting is limited to max_depth levels of mappings and sequences, also
 * through aliases (an alias counts with the height of the node it names, so every
 * path of the resulting DAG has at most max_depth collections); the nodes added by
 * alias expansion, counted with repetition, are limited to max_alias_nodes. Anchor
 * lookup is a crit-bit tree and duplicate keys are found by a merge sort when a
 * mapping closes: no input can make either quadratic.
 */
#include "node.h"

#include "internal/arena.h"
#include "internal/utf8.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

enum { DEFAULT_MAX_DEPTH = 64, DEFAULT_MAX_ALIAS_NODES = 100000 };
enum { SHOW_CHARS = 40, SHOW_SLOTS = 4 };

#define CORE_TAG_PREFIX "tag:yaml.org,2002:"

/* ---- anchors: a crit-bit tree keyed by the anchor's name ------------------ */

typedef struct anchor {
    char *name; /* NUL-terminated; libyaml's anchor names never hold NUL */
    size_t len;
    idl_node *node; /* the most recent node with this anchor */
    size_t weight;  /* nodes in its subtree, aliases expanded */
    size_t height;  /* levels of mappings and sequences in it */
    bool open;      /* the node is still being read (an alias to it is recursive) */
} anchor;

typedef struct cb_ref {
    void *p; /* a cb_node, or an anchor when leaf */
    bool leaf;
} cb_ref;

typedef struct cb_node {
    cb_ref child[2];
    size_t byte;       /* the critical byte */
    uint8_t otherbits; /* every bit set but the critical bit */
} cb_node;

static unsigned char byte_at(const char *s, size_t len, size_t i) { return i < len ? (unsigned char)s[i] : 0; }

static int cb_direction(const cb_node *q, const char *s, size_t len)
{
    return (1 + (q->otherbits | byte_at(s, len, q->byte))) >> 8;
}

static anchor *cb_find(cb_ref root, const char *name, size_t len)
{
    if (!root.p)
        return NULL;
    while (!root.leaf) {
        const cb_node *q = root.p;
        root = q->child[cb_direction(q, name, len)];
    }
    anchor *a = root.p;
    return a->len == len && memcmp(a->name, name, len) == 0 ? a : NULL;
}

/* The anchor named `name`, created when new; NULL when out of memory. */
static anchor *cb_insert(cb_ref *root, mcp_arena *work, const char *name, size_t len)
{
    anchor *found = cb_find(*root, name, len);
    if (found)
        return found;
    anchor *a = mcp_arena_alloc(work, sizeof *a);
    if (!a || !(a->name = mcp_arena_strndup(work, name, len)))
        return NULL;
    a->len = len;
    if (!root->p) {
        *root = (cb_ref){a, true};
        return a;
    }
    /* The leaf that shares the longest prefix with the new name. */
    cb_ref r = *root;
    while (!r.leaf) {
        const cb_node *q = r.p;
        r = q->child[cb_direction(q, name, len)];
    }
    const anchor *best = r.p;
    size_t newbyte = 0;
    unsigned otherbits = 0;
    size_t longest = best->len > len ? best->len : len;
    for (; newbyte < longest; newbyte++) {
        otherbits = byte_at(best->name, best->len, newbyte) ^ byte_at(name, len, newbyte);
        if (otherbits)
            break;
    }
    /* Names differ (cb_find did not find it) and hold no NUL, so newbyte < longest. */
    otherbits |= otherbits >> 1;
    otherbits |= otherbits >> 2;
    otherbits |= otherbits >> 4;
    otherbits = (otherbits & ~(otherbits >> 1)) ^ 255;
    int olddir = (1 + (otherbits | byte_at(best->name, best->len, newbyte))) >> 8;

    cb_node *n = mcp_arena_alloc(work, sizeof *n);
    if (!n)
        return NULL;
    n->byte = newbyte;
    n->otherbits = (uint8_t)otherbits;
    n->child[1 - olddir] = (cb_ref){a, true};

    cb_ref *where = root;
    while (!where->leaf) {
        cb_node *q = where->p;
        if (q->byte > newbyte || (q->byte == newbyte && q->otherbits > otherbits))
            break;
        where = &q->child[cb_direction(q, name, len)];
    }
    n->child[olddir] = *where;
    *where = (cb_ref){n, false};
    return a;
}

/* ---- the loader ------------------------------------------------------------ */

typedef struct frame {
    idl_node *node;  /* the open mapping or sequence */
    anchor *anchor;  /* its anchor, if any */
    size_t base;     /* its first slot in `slots` */
    size_t weight;   /* 1 + the weights of the children so far */
    size_t height;   /* the greatest height of a child so far */
    bool expect_key; /* mappings: the next node is a key */
    bool drop_value; /* mappings: the key was rejected; drop its value */
} frame;

typedef struct loader {
    mcp_arena *arena; /* the tree */
    char *pool;       /* the tree's nodes, arrays and text are cut from chunks of it (take) */
    size_t pool_left;
    mcp_arena work; /* the anchors; freed at the end */
    idl_diags *d;
    const char *src;
    size_t len;
    uint32_t file; /* the index of the file in the diagnostics (idl_loc.file) */
    bool bom;      /* src starts with a UTF-8 BOM, which libyaml does not count */
    size_t max_depth, max_alias_nodes;

    frame *stack;
    size_t depth, stack_cap;
    idl_node **slots; /* children of the open collections (keys and values alternate) */
    size_t nslots, slots_cap;

    cb_ref anchors;
    size_t alias_nodes; /* nodes added by alias expansion so far */
    size_t documents;
    idl_node *root;
    bool stop;           /* a fatal error: read no further */
    size_t *line_starts; /* see index_lines; NULL: libyaml's lines are right */
    size_t nlines;
    char shown[SHOW_SLOTS][2 + SHOW_CHARS * 6 + 4]; /* see show_with */
    unsigned next_shown;
} loader;

static size_t sat_add(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

static uint32_t clamp32(size_t v) { return v >= UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

/* libyaml also breaks lines at NEL (U+0085), LS (U+2028) and PS (U+2029); diag.c,
 * editors and compilers do not. Does the text hold any of them? */
static bool has_unicode_breaks(const char *src, size_t len)
{
    const char *end = src + len;
    for (const char *p = src; (p = memchr(p, 0xC2, (size_t)(end - p))) != NULL; p++)
        if (p + 1 < end && (unsigned char)p[1] == 0x85)
            return true;
    for (const char *p = src; (p = memchr(p, 0xE2, (size_t)(end - p))) != NULL; p++)
        if (p + 2 < end && (unsigned char)p[1] == 0x80 && ((unsigned char)p[2] == 0xA8 || (unsigned char)p[2] == 0xA9))
            return true;
    return false;
}

/* For a text with such breaks: the character index (libyaml's mark.index: the
 * characters after the BOM) at which each line starts, lines ending at "\n",
 * "\r\n" or a lone "\r" as in diag.c. Without memory, libyaml's own lines are
 * used. */
static void index_lines(loader *L)
{
    size_t cap = 64, n = 0, k = 0;
    size_t *starts = malloc(cap * sizeof *starts);
    if (!starts)
        return;
    starts[n++] = 0;
    for (size_t i = L->bom ? 3 : 0; i < L->len; i++) {
        unsigned char c = (unsigned char)L->src[i];
        if ((c & 0xC0) == 0x80)
            continue; /* not the first byte of a character */
        k++;
        if (c == '\n' || (c == '\r' && (i + 1 >= L->len || L->src[i + 1] != '\n'))) {
            if (n == cap) {
                size_t *more = cap <= SIZE_MAX / 2 / sizeof *starts ? realloc(starts, 2 * cap * sizeof *starts) : NULL;
                if (!more) {
                    free(starts);
                    return;
                }
                starts = more;
                cap *= 2;
            }
            starts[n++] = k;
        }
    }
    L->line_starts = starts;
    L->nlines = n;
}

static idl_loc mark_loc(const loader *L, yaml_mark_t m)
{
    if (!L->line_starts)
        return (idl_loc){clamp32(sat_add(m.line, 1)), clamp32(sat_add(m.column, 1)), L->file};
    size_t lo = 0, hi = L->nlines; /* the last line starting at or before m.index */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (L->line_starts[mid] <= m.index)
            lo = mid;
        else
            hi = mid;
    }
    return (idl_loc){clamp32(sat_add(lo, 1)), clamp32(sat_add(m.index - L->line_starts[lo], 1)), L->file};
}

/* The place of a byte offset, counted as libyaml counts: a leading BOM is not a
 * character (whatever idl_loc_of_offset makes of it, it does not see it). */
static idl_loc offset_loc(const loader *L, size_t off)
{
    idl_loc loc = L->bom && off >= 3 ? idl_loc_of_offset(L->src + 3, L->len - 3, off - 3)
                                     : idl_loc_of_offset(L->src, L->len, off);
    loc.file = L->file;
    return loc;
}

/* The byte offset of a libyaml mark: its index counts characters after the BOM. */
static size_t mark_offset(const loader *L, yaml_mark_t m)
{
    size_t i = L->bom ? 3 : 0, k = 0;
    while (i < L->len && k < m.index) {
        i++;
        while (i < L->len && ((unsigned char)L->src[i] & 0xC0) == 0x80)
            i++;
        k++;
    }
    return i;
}

static void error_at(loader *L, idl_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void error_at(loader *L, idl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    loc.file = L->file;
    idl_diag_vadd(L->d, IDL_ERROR, loc, fmt, ap);
    va_end(ap);
}

static void out_of_memory(loader *L)
{
    error_at(L, (idl_loc){0, 0, 0}, "out of memory while reading the YAML");
    L->stop = true;
}

/* A name for a message: at most SHOW_CHARS characters, control and line-separator
 * characters escaped. Written into one of the loader's SHOW_SLOTS buffers in turn
 * (a message shows at most two names; the diagnostic copies its text), so that
 * millions of errors allocate nothing here. */
static const char *show_with(loader *L, const char *prefix, const char *s, size_t n)
{
    char *out = L->shown[L->next_shown];
    L->next_shown = (L->next_shown + 1) % SHOW_SLOTS;
    size_t o = strlen(prefix), chars = 0, i = 0;
    memcpy(out, prefix, o);
    while (i < n) {
        if (chars == SHOW_CHARS) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char c = (unsigned char)s[i];
        uint32_t cp = c;
        size_t w = mcp_utf8_seq((const unsigned char *)s + i, n - i, &cp, NULL);
        if (w == 0) { /* libyaml passes only UTF-8: a byte cut from a name */
            w = 1;
            cp = c;
        }
        if (c == '\n' || c == '\t' || c == '\r') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        } else if (w == 1 && (c < 0x20 || c >= 0x7F)) {
            o += (size_t)snprintf(out + o, 5, "\\x%02X", c);
        } else if ((cp >= 0x80 && cp < 0xA0) || cp == 0x2028 || cp == 0x2029) {
            o += (size_t)snprintf(out + o, 7, "\\u%04X", (unsigned)cp);
        } else {
            memcpy(out + o, s + i, w);
            o += w;
        }
        i += w;
        chars++;
    }
    out[o] = 0;
    return out;
}

static const char *show(loader *L, const char *s, size_t n) { return show_with(L, "", s, n); }

/* A tag as written: "!!int" for the core tags, else libyaml's resolved tag. */
static const char *show_tag(loader *L, const char *tag)
{
    size_t plen = strlen(CORE_TAG_PREFIX);
    if (strncmp(tag, CORE_TAG_PREFIX, plen) == 0)
        return show_with(L, "!!", tag + plen, strlen(tag + plen));
    return show(L, tag, strlen(tag));
}

/* ---- scalars --------------------------------------------------------------- */

typedef enum tag_kind {
    TAG_NONE,
    TAG_STR,
    TAG_INT,
    TAG_FLOAT,
    TAG_BOOL,
    TAG_NULL,
    TAG_MAP,
    TAG_SEQ,
    TAG_OTHER,
} tag_kind;

static tag_kind classify_tag(const char *tag)
{
    if (!tag)
        return TAG_NONE;
    static const struct {
        const char *name;
        tag_kind kind;
    } core[] = {
        {"str", TAG_STR},   {"int", TAG_INT}, {"float", TAG_FLOAT}, {"bool", TAG_BOOL},
        {"null", TAG_NULL}, {"map", TAG_MAP}, {"seq", TAG_SEQ},
    };
    size_t plen = strlen(CORE_TAG_PREFIX);
    if (strncmp(tag, CORE_TAG_PREFIX, plen) != 0)
        return TAG_OTHER;
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        if (strcmp(tag + plen, core[i].name) == 0)
            return core[i].kind;
    return TAG_OTHER;
}

static bool text_is(const char *s, size_t n, const char *lit) { return n == strlen(lit) && memcmp(s, lit, n) == 0; }

static bool ascii_caseeq(const char *s, size_t n, const char *lower)
{
    if (n != strlen(lower))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != lower[i])
            return false;
    }
    return true;
}

static bool is_null_text(const char *s, size_t n)
{
    return n == 0 || text_is(s, n, "~") || text_is(s, n, "null") || text_is(s, n, "Null") || text_is(s, n, "NULL");
}

/* 1 for true, 0 for false, -1 for neither. */
static int bool_text(const char *s, size_t n)
{
    if (ascii_caseeq(s, n, "true"))
        return 1;
    if (ascii_caseeq(s, n, "false"))
        return 0;
    return -1;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+. Beyond int64 the value is clamped and
 * *overflow set. */
static bool parse_int(const char *s, size_t n, int64_t *out, bool *overflow)
{
    size_t i = 0;
    unsigned base = 10;
    bool neg = false;
    if (n > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
        base = s[1] == 'o' ? 8 : 16;
        i = 2;
    } else if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        i = 1;
    }
    if (i >= n)
        return false;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    bool over = false;
    for (; i < n; i++) {
        int dv = digit_value(s[i]);
        if (dv < 0 || (unsigned)dv >= base)
            return false;
        if (!over && v > (limit - (uint64_t)dv) / base)
            over = true;
        if (!over)
            v = v * base + (uint64_t)dv;
    }
    if (over)
        v = limit;
    if (!neg)
        *out = (int64_t)v;
    else if (v == (uint64_t)INT64_MAX + 1)
        *out = INT64_MIN;
    else
        *out = -(int64_t)v;
    *overflow = over;
    return true;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool is_decimal_float(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        i++;
    if (i < n && s[i] == '.') {
        i++;
        if (i == n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
    } else {
        if (i == n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
        if (i < n && s[i] == '.') {
            i++;
            while (i < n && is_digit(s[i]))
                i++;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '-' || s[i] == '+'))
            i++;
        if (i == n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
    }
    return i == n;
}

/* 1 or -1 for [-+]?(.inf|.Inf|.INF), 0 for neither. */
static int inf_text(const char *s, size_t n)
{
    int sign = 1;
    if (n > 0 && (s[0] == '-' || s[0] == '+')) {
        sign = s[0] == '-' ? -1 : 1;
        s++;
        n--;
    }
    return text_is(s, n, ".inf") || text_is(s, n, ".Inf") || text_is(s, n, ".INF") ? sign : 0;
}

static bool nan_text(const char *s, size_t n)
{
    return text_is(s, n, ".nan") || text_is(s, n, ".NaN") || text_is(s, n, ".NAN");
}

/* strtod of a decimal float already matched by is_decimal_float, whatever the
 * locale's decimal point. False when out of memory. */
static bool decimal_to_double(const char *s, size_t n, double *out, bool *overflow)
{
    const char *dp = localeconv()->decimal_point;
    size_t dplen = dp && *dp ? strlen(dp) : 1;
    if (n > (SIZE_MAX - 1) / (dplen + 1))
        return false;
    char small[128];
    size_t need = n * dplen + 1;
    char *buf = need <= sizeof small ? small : malloc(need);
    if (!buf)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.' && dp && *dp) {
            memcpy(buf + o, dp, dplen);
            o += dplen;
        } else {
            buf[o++] = s[i];
        }
    }
    buf[o] = 0;
    errno = 0;
    double v = strtod(buf, NULL);
    *overflow = errno == ERANGE && isinf(v);
    *out = v;
    if (buf != small)
        free(buf);
    return true;
}

/* Resolve a plain scalar's text by the core schema: sets kind and value. */
static bool resolve_core(idl_node *node)
{
    const char *s = node->str;
    size_t n = node->len;
    int b, inf;
    node->kind = IDL_NODE_STR;
    if (is_null_text(s, n)) {
        node->kind = IDL_NODE_NULL;
    } else if ((b = bool_text(s, n)) >= 0) {
        node->kind = IDL_NODE_BOOL;
        node->v.b = b == 1;
    } else if (parse_int(s, n, &node->v.i, &node->overflow)) {
        node->kind = IDL_NODE_INT;
    } else if (is_decimal_float(s, n)) {
        node->kind = IDL_NODE_FLOAT;
        return decimal_to_double(s, n, &node->v.f, &node->overflow);
    } else if ((inf = inf_text(s, n)) != 0) {
        node->kind = IDL_NODE_FLOAT;
        node->v.f = inf > 0 ? INFINITY : -INFINITY;
    } else if (nan_text(s, n)) {
        node->kind = IDL_NODE_FLOAT;
        node->v.f = NAN;
    }
    return true;
}

/* Resolve a scalar with an explicit core tag. False (node left a string) when the
 * text is not of the tag's kind. */
static bool resolve_tagged(idl_node *node, tag_kind tk, bool *oom)
{
    *oom = false;
    if (tk == TAG_STR)
        return true;
    if (tk == TAG_FLOAT) {
        const char *s = node->str;
        size_t n = node->len;
        int inf;
        if (is_decimal_float(s, n)) {
            node->kind = IDL_NODE_FLOAT;
            *oom = !decimal_to_double(s, n, &node->v.f, &node->overflow);
            return true;
        }
        if ((inf = inf_text(s, n)) != 0 || nan_text(s, n)) {
            node->kind = IDL_NODE_FLOAT;
            node->v.f = inf ? (inf > 0 ? INFINITY : -INFINITY) : NAN;
            return true;
        }
        return false;
    }
    *oom = !resolve_core(node);
    idl_node_kind want = tk == TAG_INT ? IDL_NODE_INT : tk == TAG_BOOL ? IDL_NODE_BOOL : IDL_NODE_NULL;
    if (node->kind == want)
        return true;
    node->kind = IDL_NODE_STR;
    node->overflow = false;
    memset(&node->v, 0, sizeof node->v);
    return false;
}

/* ---- building -------------------------------------------------------------- */

/* The tree's pieces are many and small (a file of 30,000 lines has some 60,000
 * nodes, most scalars of a few bytes): an arena allocation of each would round
 * it up to the arena's alignment (32 bytes on x86-64). They are cut instead
 * from chunks of POOL_CHUNK bytes, each piece aligned only as its type needs
 * (text not at all); a piece larger than a quarter of a chunk gets an
 * allocation of its own. Not zero-filled; NULL without memory. */
enum { POOL_CHUNK = 16 << 10 };

static void *take(loader *L, size_t n, size_t align)
{
    size_t pad = (align - (uintptr_t)L->pool % align) % align;
    if (L->pool && n <= L->pool_left && pad <= L->pool_left - n) {
        void *p = L->pool + pad;
        L->pool += pad + n;
        L->pool_left -= pad + n;
        return p;
    }
    if (n > POOL_CHUNK / 4)
        return mcp_arena_take(L->arena, n);
    char *chunk = mcp_arena_take(L->arena, POOL_CHUNK);
    if (!chunk)
        return NULL;
    L->pool = chunk + n; /* the arena aligns a chunk for any type */
    L->pool_left = POOL_CHUNK - n;
    return chunk;
}

static idl_node *new_node(loader *L, idl_node_kind kind, idl_scalar_style style, idl_loc loc)
{
    idl_node *n = take(L, sizeof *n, _Alignof(idl_node));
    if (!n) {
        out_of_memory(L);
        return NULL;
    }
    *n = (idl_node){.kind = kind, .style = style, .loc = loc};
    return n;
}

static bool push_slot(loader *L, idl_node *n)
{
    if (L->nslots == L->slots_cap) {
        size_t cap = L->slots_cap ? L->slots_cap * 2 : 64;
        if (cap > SIZE_MAX / sizeof *L->slots) {
            out_of_memory(L);
            return false;
        }
        idl_node **s = realloc(L->slots, cap * sizeof *s);
        if (!s) {
            out_of_memory(L);
            return false;
        }
        L->slots = s;
        L->slots_cap = cap;
    }
    L->slots[L->nslots++] = n;
    return true;
}

static bool is_merge_key(const idl_node *key)
{
    return key->style == IDL_STYLE_PLAIN && key->len == 2 && memcmp(key->str, "<<", 2) == 0;
}

/* A finished node goes to the open collection (or becomes the root). Keys that
 * are not strings were reported where they started; they and their values are
 * dropped here. */
static void deliver(loader *L, idl_node *n, size_t weight, size_t height)
{
    if (L->depth == 0) {
        L->root = n;
        return;
    }
    frame *f = &L->stack[L->depth - 1];
    f->weight = sat_add(f->weight, weight);
    if (height > f->height)
        f->height = height;
    if (f->node->kind == IDL_NODE_SEQ) {
        push_slot(L, n);
    } else if (f->expect_key) {
        f->expect_key = false;
        if (n->kind != IDL_NODE_STR) {
            f->drop_value = true;
            return;
        }
        if (is_merge_key(n))
            error_at(L, n->loc, "merge keys ('<<') are not supported");
        push_slot(L, n);
    } else {
        f->expect_key = true;
        if (f->drop_value)
            f->drop_value = false;
        else
            push_slot(L, n);
    }
}

static bool at_key(const loader *L)
{
    if (L->depth == 0)
        return false;
    const frame *f = &L->stack[L->depth - 1];
    return f->node->kind == IDL_NODE_MAP && f->expect_key;
}

/* Register an anchor for a node (collections are open until they close). */
static anchor *define_anchor(loader *L, const yaml_char_t *name, idl_node *n, bool open)
{
    if (!name)
        return NULL;
    anchor *a = cb_insert(&L->anchors, &L->work, (const char *)name, strlen((const char *)name));
    if (!a) {
        out_of_memory(L);
        return NULL;
    }
    a->node = n;
    a->weight = 1;
    a->height = 0;
    a->open = open;
    return a;
}

static void on_scalar(loader *L, const yaml_event_t *ev)
{
    idl_loc loc = mark_loc(L, ev->start_mark);
    const char *tag = (const char *)ev->data.scalar.tag;
    tag_kind tk = classify_tag(tag);
    idl_scalar_style style;
    switch (ev->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
        style = IDL_STYLE_SINGLE;
        break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
        style = IDL_STYLE_DOUBLE;
        break;
    case YAML_LITERAL_SCALAR_STYLE:
        style = IDL_STYLE_LITERAL;
        break;
    case YAML_FOLDED_SCALAR_STYLE:
        style = IDL_STYLE_FOLDED;
        break;
    default:
        style = IDL_STYLE_PLAIN;
        break;
    }
    idl_node *n = new_node(L, IDL_NODE_STR, style, loc);
    if (!n)
        return;
    n->len = ev->data.scalar.length;
    char *text = n->len < SIZE_MAX ? take(L, n->len + 1, 1) : NULL; /* not zeroed: all written */
    if (text) {
        memcpy(text, ev->data.scalar.value, n->len);
        text[n->len] = 0;
    }
    n->str = text;
    if (!n->str) {
        out_of_memory(L);
        return;
    }
    bool key = at_key(L);
    if (tk == TAG_OTHER) {
        error_at(L, loc,
                 "tag '%s' is not supported (only the core tags !!str, !!int, !!float, "
                 "!!bool, !!null, !!map and !!seq are)",
                 show_tag(L, tag));
        tk = TAG_NONE;
    } else if (tk == TAG_MAP || tk == TAG_SEQ) {
        error_at(L, loc, "tag '%s' cannot be used on a scalar", show_tag(L, tag));
        tk = TAG_STR;
    }

    idl_node *anchored = n;
    if (key) {
        if (tk != TAG_NONE && tk != TAG_STR)
            error_at(L, loc, "tag '%s' cannot be used on a mapping key: keys are always strings", show_tag(L, tag));
        if (ev->data.scalar.anchor && tk == TAG_NONE && style == IDL_STYLE_PLAIN) {
            /* An alias to it elsewhere is a value: resolve a copy. */
            anchored = new_node(L, IDL_NODE_STR, style, loc);
            if (!anchored)
                return;
            anchored->str = n->str;
            anchored->len = n->len;
            if (!resolve_core(anchored)) {
                out_of_memory(L);
                return;
            }
        }
    } else if (tk == TAG_NONE) {
        if (style == IDL_STYLE_PLAIN && !resolve_core(n)) {
            out_of_memory(L);
            return;
        }
    } else {
        bool oom;
        if (!resolve_tagged(n, tk, &oom))
            error_at(L, loc, "'%s' is not a valid %s value", show(L, n->str, n->len), show_tag(L, tag));
        if (oom) {
            out_of_memory(L);
            return;
        }
    }
    if (ev->data.scalar.anchor)
        define_anchor(L, ev->data.scalar.anchor, anchored, false);
    deliver(L, n, 1, 0);
}

static void on_alias(loader *L, const yaml_event_t *ev)
{
    idl_loc loc = mark_loc(L, ev->start_mark);
    const char *name = (const char *)ev->data.alias.anchor;
    size_t nlen = strlen(name);
    anchor *a = cb_find(L->anchors, name, nlen);
    if (!a || a->open) {
        if (!a)
            error_at(L, loc, "undefined alias '*%s'", show(L, name, nlen));
        else
            error_at(L, loc, "recursive alias '*%s': it is inside the node it refers to", show(L, name, nlen));
        idl_node *n = new_node(L, IDL_NODE_NULL, IDL_STYLE_PLAIN, loc); /* a placeholder */
        if (n)
            deliver(L, n, 1, 0);
        return;
    }
    if (a->height > L->max_depth || L->depth > L->max_depth - a->height) {
        error_at(L, loc, "alias '*%s' makes the nesting deeper than %zu levels of mappings and sequences",
                 show(L, name, nlen), L->max_depth);
        L->stop = true;
        return;
    }
    L->alias_nodes = sat_add(L->alias_nodes, a->weight);
    if (L->alias_nodes > L->max_alias_nodes) {
        error_at(L, loc, "alias expansion exceeds %zu nodes (an alias bomb?)", L->max_alias_nodes);
        L->stop = true;
        return;
    }
    idl_node *n = a->node;
    if (at_key(L)) {
        if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ) {
            error_at(L, loc, "a mapping key must be a string, not %s (alias '*%s')", idl_node_kind_name(n),
                     show(L, name, nlen));
        } else {
            /* Keys are strings: the anchored scalar's text, placed at the alias. */
            idl_node *k = new_node(L, IDL_NODE_STR, n->style, loc);
            if (!k)
                return;
            k->str = n->str;
            k->len = n->len;
            n = k;
        }
    }
    deliver(L, n, a->weight, a->height);
}

static void on_collection_start(loader *L, const yaml_event_t *ev, bool map)
{
    idl_loc loc = mark_loc(L, ev->start_mark);
    const yaml_char_t *anchor_name = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    const char *tag = (const char *)(map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    bool flow = map ? ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                    : ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
    const char *what = map ? "a mapping" : "a sequence";

    if (L->depth >= L->max_depth) {
        error_at(L, loc, "nesting deeper than %zu levels of mappings and sequences", L->max_depth);
        L->stop = true;
        return;
    }
    tag_kind tk = classify_tag(tag);
    if (tk == TAG_OTHER)
        error_at(L, loc,
                 "tag '%s' is not supported (only the core tags !!str, !!int, !!float, "
                 "!!bool, !!null, !!map and !!seq are)",
                 show_tag(L, tag));
    else if (tk != TAG_NONE && tk != (map ? TAG_MAP : TAG_SEQ))
        error_at(L, loc, "tag '%s' cannot be used on %s", show_tag(L, tag), what);
    if (at_key(L))
        error_at(L, loc, "a mapping key must be a string, not %s", what);

    idl_node *n = new_node(L, map ? IDL_NODE_MAP : IDL_NODE_SEQ, flow ? IDL_STYLE_FLOW : IDL_STYLE_BLOCK, loc);
    if (!n)
        return;
    if (L->depth == L->stack_cap) {
        size_t cap = L->stack_cap ? L->stack_cap * 2 : 16;
        frame *s = cap <= SIZE_MAX / sizeof *s ? realloc(L->stack, cap * sizeof *s) : NULL;
        if (!s) {
            out_of_memory(L);
            return;
        }
        L->stack = s;
        L->stack_cap = cap;
    }
    anchor *a = NULL;
    if (anchor_name && !(a = define_anchor(L, anchor_name, n, true)))
        return;
    L->stack[L->depth++] = (frame){
        .node = n,
        .anchor = a,
        .base = L->nslots,
        .weight = 1,
        .height = 0,
        .expect_key = map,
    };
}

/* Bottom-up merge sort of pair indices by key bytes, then by position. */
static int key_cmp(idl_node *const *slots, size_t base, size_t a, size_t b)
{
    const idl_node *ka = slots[base + 2 * a], *kb = slots[base + 2 * b];
    size_t n = ka->len < kb->len ? ka->len : kb->len;
    int r = n ? memcmp(ka->str, kb->str, n) : 0;
    if (r)
        return r;
    if (ka->len != kb->len)
        return ka->len < kb->len ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
}

static bool keys_equal(const idl_node *a, const idl_node *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
}

static void check_duplicates(loader *L, size_t base, size_t n)
{
    if (n < 2)
        return;
    if (n > SIZE_MAX / (2 * sizeof(size_t))) {
        out_of_memory(L);
        return;
    }
    size_t *idx = malloc(2 * n * sizeof *idx);
    if (!idx) {
        out_of_memory(L);
        return;
    }
    size_t *src = idx, *dst = idx + n;
    for (size_t i = 0; i < n; i++)
        src[i] = i;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = mid + width < n ? mid + width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = key_cmp(L->slots, base, src[i], src[j]) <= 0 ? src[i++] : src[j++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        size_t *t = src;
        src = dst;
        dst = t;
        if (width > n / 2)
            break;
    }
    size_t first = src[0];
    for (size_t i = 1; i < n; i++) {
        const idl_node *k = L->slots[base + 2 * src[i]];
        const idl_node *f = L->slots[base + 2 * first];
        if (!keys_equal(k, f)) {
            first = src[i];
            continue;
        }
        const char *name = show(L, k->str, k->len);
        error_at(L, k->loc, "duplicate key '%s'", name);
        idl_diag_add(L->d, IDL_NOTE, f->loc, "'%s' first defined here", name);
    }
    free(idx);
}

static void on_collection_end(loader *L)
{
    if (L->depth == 0)
        return; /* libyaml pairs starts and ends; defensive */
    frame f = L->stack[--L->depth];
    idl_node *n = f.node;
    size_t count = L->nslots - f.base;
    if (n->kind == IDL_NODE_MAP) {
        size_t pairs = count / 2;
        if (pairs) {
            n->pairs = pairs <= SIZE_MAX / sizeof *n->pairs ? take(L, pairs * sizeof *n->pairs, _Alignof(idl_pair))
                                                            : NULL;
            if (!n->pairs) {
                out_of_memory(L);
                return;
            }
            for (size_t i = 0; i < pairs; i++)
                n->pairs[i] = (idl_pair){L->slots[f.base + 2 * i], L->slots[f.base + 2 * i + 1]};
            check_duplicates(L, f.base, pairs);
        }
        n->n = pairs;
    } else if (count) {
        n->items = count <= SIZE_MAX / sizeof *n->items ? take(L, count * sizeof *n->items, _Alignof(idl_node *))
                                                        : NULL;
        if (!n->items) {
            out_of_memory(L);
            return;
        }
        memcpy(n->items, L->slots + f.base, count * sizeof *n->items);
        n->n = count;
    }
    L->nslots = f.base;
    size_t height = f.height + 1;
    if (f.anchor && f.anchor->node == n) {
        f.anchor->weight = f.weight;
        f.anchor->height = height;
        f.anchor->open = false;
    }
    deliver(L, n, f.weight, height);
}

/* ---- libyaml's errors ------------------------------------------------------- */

/* Is there a '[', ']' or ',' near byte offset `off` on its line? */
static bool bracket_near(const loader *L, size_t off)
{
    enum { NEAR = 32 };
    if (off > L->len)
        off = L->len;
    size_t lo = off, hi = off;
    while (lo > 0 && off - lo < NEAR && L->src[lo - 1] != '\n' && L->src[lo - 1] != '\r')
        lo--;
    while (hi < L->len && hi - off <= NEAR && L->src[hi] != '\n' && L->src[hi] != '\r')
        hi++;
    for (size_t i = lo; i < hi; i++)
        if (L->src[i] == '[' || L->src[i] == ']' || L->src[i] == ',')
            return true;
    return false;
}

static void yaml_error(loader *L, const yaml_parser_t *p)
{
    L->stop = true;
    const char *problem = p->problem ? p->problem : "invalid YAML";
    if (p->error == YAML_MEMORY_ERROR || p->error == YAML_NO_ERROR) {
        out_of_memory(L);
        return;
    }
    if (p->error == YAML_READER_ERROR) {
        idl_loc loc = offset_loc(L, p->problem_offset);
        if (p->problem_value < 0)
            error_at(L, loc, "%s", problem);
        else if (strstr(problem, "octet"))
            error_at(L, loc, "%s (byte 0x%02X)", problem, (unsigned)p->problem_value);
        else
            error_at(L, loc, "%s (U+%04X)", problem, (unsigned)p->problem_value);
        return;
    }
    /* Scanner and parser errors: marks count characters, lines from 0. */
    idl_loc loc = mark_loc(L, p->problem_mark);
    size_t off = mark_offset(L, p->problem_mark);
    bool in_flow = p->flow_level > 0 || (p->context && strstr(p->context, "flow"));
    const char *hint = "";
    if (in_flow && bracket_near(L, off))
        hint = "; quote type expressions that contain '[', ']' or ',' inside {...} or [...], "
               "e.g. {type: \"list[str]\"}";
    else if (off < L->len && L->src[off] == '\t' && !strstr(problem, "tab"))
        hint = "; indent with spaces, not tabs";
    if (p->context)
        error_at(L, loc, "%s: %s%s", p->context, problem, hint);
    else
        error_at(L, loc, "%s%s", problem, hint);
    /* Where the construct began, when that is on another line (an unclosed quote,
     * an unclosed bracket). */
    if (p->context && p->context_mark.line != p->problem_mark.line) {
        const char *what = p->context;
        if (strncmp(what, "while parsing ", 14) == 0)
            what += 14;
        else if (strncmp(what, "while scanning ", 15) == 0)
            what += 15;
        if (strncmp(what, "a ", 2) == 0)
            what += 2;
        else if (strncmp(what, "an ", 3) == 0)
            what += 3;
        idl_diag_add(L->d, IDL_NOTE, mark_loc(L, p->context_mark), "the %s starts here", what);
    }
}

/* ---- entry points -------------------------------------------------------------- */

idl_node *idl_load_yaml(mcp_arena *arena, idl_diags *d, const char *src, size_t len, const idl_load_limits *limits)
{
    return idl_load_yaml_file(arena, d, 0, src, len, limits);
}

idl_node *idl_load_yaml_file(mcp_arena *arena, idl_diags *d, uint32_t file, const char *src, size_t len,
                             const idl_load_limits *limits)
{
    size_t errors_before = d->errors;
    if (!src) {
        src = "";
        len = 0;
    }
    loader L = {
        .arena = arena,
        .d = d,
        .src = src,
        .len = len,
        .file = file,
        .bom = len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0,
        .max_depth = limits && limits->max_depth ? limits->max_depth : DEFAULT_MAX_DEPTH,
        .max_alias_nodes = limits && limits->max_alias_nodes ? limits->max_alias_nodes : DEFAULT_MAX_ALIAS_NODES,
    };
    mcp_arena_init(&L.work);

    if (len >= 2 && ((unsigned char)src[0] == 0xFE || (unsigned char)src[0] == 0xFF) &&
        ((unsigned char)src[1] ^ (unsigned char)src[0]) == 0x01) {
        error_at(&L, (idl_loc){1, 1, 0}, "the file is encoded in UTF-16: save it as UTF-8");
        goto done;
    }
    const char *nul = memchr(src, 0, len);
    if (nul) {
        error_at(&L, offset_loc(&L, (size_t)(nul - src)), "NUL character in the file");
        goto done;
    }

    if (has_unicode_breaks(src, len))
        index_lines(&L);

    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        out_of_memory(&L);
        goto done;
    }
    /* The encoding is detected, not forced: with a BOM, a forced UTF-8 makes libyaml
     * see the BOM as a character of the first line and misread the indentation. */
    yaml_parser_set_input_string(&parser, (const unsigned char *)src, len);

    while (!L.stop) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            yaml_error(&L, &parser);
            break;
        }
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (L.documents++ > 0) {
                error_at(&L, mark_loc(&L, ev.start_mark), "only one YAML document per file is allowed");
                L.stop = true;
            }
            break;
        case YAML_STREAM_END_EVENT:
            if (L.documents == 0)
                error_at(&L, (idl_loc){1, 1, 0}, "empty file: expected a mapping with 'mcpidl: 1' at the top");
            L.stop = true;
            break;
        case YAML_SCALAR_EVENT:
            on_scalar(&L, &ev);
            break;
        case YAML_ALIAS_EVENT:
            on_alias(&L, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
            on_collection_start(&L, &ev, false);
            break;
        case YAML_MAPPING_START_EVENT:
            on_collection_start(&L, &ev, true);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            on_collection_end(&L);
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }

    yaml_parser_delete(&parser);
done:
    free(L.line_starts);
    free(L.stack);
    free(L.slots);
    mcp_arena_free(&L.work);
    if (d->errors != errors_before || !L.root)
        return NULL;
    return L.root;
}

idl_node *idl_map_get(const idl_node *map, const char *key)
{
    if (!map || map->kind != IDL_NODE_MAP || !key)
        return NULL;
    size_t n = strlen(key);
    for (size_t i = 0; i < map->n; i++) {
        const idl_node *k = map->pairs[i].key;
        if (k->len == n && memcmp(k->str, key, n) == 0)
            return map->pairs[i].value;
    }
    return NULL;
}

const char *idl_node_kind_name(const idl_node *n)
{
    if (!n)
        return "nothing";
    switch (n->kind) {
    case IDL_NODE_NULL:
        return "null";
    case IDL_NODE_BOOL:
        return "a boolean";
    case IDL_NODE_INT:
        return "an integer";
    case IDL_NODE_FLOAT:
        return "a float";
    case IDL_NODE_STR:
        return "a string";
    case IDL_NODE_MAP:
        return "a mapping";
    case IDL_NODE_SEQ:
        return "a sequence";
    }
    return "a node";
}
