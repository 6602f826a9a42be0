/* json.c: JSON values in an arena: parsing (one pass over the strict
 * scanner's tokens), constructors, equality, writing, and conversion from
 * json-c. Nothing here recurses on the depth of a value: every walk keeps an
 * explicit stack, which starts on the C stack and moves to the heap when it
 * outgrows it (the heap copy is freed before returning). */
#include "internal/arena.h"
#include "internal/utf8.h"
#include "mcpidl/json.h"
#include "internal/json_scan.h"

#include <json.h> /* json-c: pkg-config json-c puts its directory on the path */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mcpidl/jsonw.h"

/* ---- scratch stacks ----------------------------------------------------- */

/* A growable array of `size`-byte elements in `inl` (caller storage, may be
 * NULL with cap 0) until it outgrows it, then on the heap. */
typedef struct {
    void *p;
    size_t n, cap, size;
    void *inl;
} vec;

#define VEC_INIT(arr, elsize) \
    { \
        (arr), 0, sizeof(arr) / (elsize), (elsize), (arr) \
    }
#define VEC_EMPTY(elsize) \
    { \
        NULL, 0, 0, (elsize), NULL \
    }

static bool vec_grow(vec *v, size_t need)
{
    size_t c = v->cap ? v->cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / v->size)
            return false;
        c *= 2;
    }
    void *q;
    if (v->p == v->inl) {
        q = malloc(c * v->size);
        if (q && v->n)
            memcpy(q, v->p, v->n * v->size);
    } else {
        q = realloc(v->p, c * v->size);
    }
    if (!q)
        return false;
    v->p = q;
    v->cap = c;
    return true;
}

/* Room for `need` elements; the check inline, as the parser asks per value. */
static inline bool vec_reserve(vec *v, size_t need) { return need <= v->cap || vec_grow(v, need); }

static void vec_free(vec *v)
{
    if (v->p != v->inl)
        free(v->p);
    v->p = v->inl;
    v->n = 0;
}

/* ---- duplicate keys ----------------------------------------------------- */

enum { SMALL_OBJECT = 16 };

static bool same_key(const mcp_json_member *x, const mcp_json_member *y)
{
    return x->key_len == y->key_len && (x->key_len == 0 || memcmp(x->key, y->key, x->key_len) == 0);
}

/* Members of one array by key, ties in array order. */
static int member_ptr_cmp(const void *a, const void *b)
{
    const mcp_json_member *x = *(const mcp_json_member *const *)a;
    const mcp_json_member *y = *(const mcp_json_member *const *)b;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    int c = x->key_len ? memcmp(x->key, y->key, x->key_len) : 0;
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

/* The index of the first member of m[0..n) whose key repeats an earlier one,
 * or SIZE_MAX. O(n^2) for small objects, else a sort of pointers (scratch in
 * idx). *nomem set (and SIZE_MAX returned) when the scratch cannot grow. */
static size_t first_repeat(const mcp_json_member *m, size_t n, vec *idx, bool *nomem)
{
    if (n < 2)
        return SIZE_MAX;
    if (n <= SMALL_OBJECT) {
        for (size_t j = 1; j < n; j++)
            for (size_t i = 0; i < j; i++)
                if (same_key(&m[i], &m[j]))
                    return j;
        return SIZE_MAX;
    }
    if (!vec_reserve(idx, n)) {
        *nomem = true;
        return SIZE_MAX;
    }
    const mcp_json_member **p = idx->p;
    for (size_t i = 0; i < n; i++)
        p[i] = &m[i];
    qsort(p, n, sizeof *p, member_ptr_cmp);
    size_t best = SIZE_MAX;
    for (size_t i = 1; i < n; i++) {
        if (same_key(p[i - 1], p[i])) {
            size_t k = (size_t)(p[i] - m); /* the later of the two */
            if (k < best)
                best = k;
        }
    }
    return best;
}

/* ---- nodes -------------------------------------------------------------- */

static mcp_json *node(mcp_arena *a, mcp_json_kind kind)
{
    mcp_json *v = mcp_arena_take(a, sizeof *v);
    if (v)
        *v = (mcp_json){.kind = kind};
    return v;
}

mcp_json *mcp_json_new_null(mcp_arena *a) { return node(a, MCP_JNULL); }

mcp_json *mcp_json_new_bool(mcp_arena *a, bool b)
{
    mcp_json *v = node(a, MCP_JBOOL);
    if (v)
        v->b = b;
    return v;
}

/* The parser's number nodes, inline; the public constructors are these. */
static inline mcp_json *int_node(mcp_arena *a, int64_t i)
{
    mcp_json *v = node(a, MCP_JINT);
    if (v)
        v->i = i;
    return v;
}

static inline mcp_json *float_node(mcp_arena *a, double d)
{
    mcp_json *v = node(a, MCP_JFLOAT);
    if (v)
        v->d = d;
    return v;
}

mcp_json *mcp_json_new_int(mcp_arena *a, int64_t i) { return int_node(a, i); }

mcp_json *mcp_json_new_float(mcp_arena *a, double d) { return float_node(a, d); }

mcp_json *mcp_json_new_string(mcp_arena *a, const char *s, size_t len)
{
    mcp_json *v = node(a, MCP_JSTRING);
    if (!v)
        return NULL;
    char *p = mcp_arena_strndup(a, len ? s : "", len);
    if (!p)
        return NULL;
    v->s = p;
    v->len = len;
    v->has_nul = len && memchr(p, 0, len) != NULL;
    return v;
}

mcp_json *mcp_json_new_array(mcp_arena *a) { return node(a, MCP_JARRAY); }
mcp_json *mcp_json_new_object(mcp_arena *a) { return node(a, MCP_JOBJECT); }

/* Room for one more element in *items (n used, *cap room; a cap below n
 * counts as n). */
static bool grow_room(mcp_arena *a, void **items, size_t n, size_t *cap, size_t size)
{
    size_t c = *cap > n ? *cap : n;
    if (n < c)
        return true;
    size_t nc = c ? c * 2 : 4;
    if (nc < c || nc > SIZE_MAX / size)
        return false;
    void *p = mcp_arena_alloc(a, nc * size);
    if (!p)
        return false;
    if (n)
        memcpy(p, *items, n * size);
    *items = p;
    *cap = nc;
    return true;
}

bool mcp_json_append(mcp_arena *a, mcp_json *array, mcp_json *item)
{
    if (!array || array->kind != MCP_JARRAY || !item)
        return false;
    void *p = array->items;
    if (!grow_room(a, &p, array->n, &array->cap, sizeof *array->items))
        return false;
    array->items = p;
    array->items[array->n++] = item;
    return true;
}

bool mcp_json_setn(mcp_arena *a, mcp_json *object, const char *key, size_t len, mcp_json *value)
{
    if (!object || object->kind != MCP_JOBJECT || !value || (!key && len))
        return false;
    for (size_t i = 0; i < object->n; i++) {
        mcp_json_member *m = &object->members[i];
        if (m->key_len == len && (len == 0 || memcmp(m->key, key, len) == 0)) {
            m->value = value;
            return true;
        }
    }
    char *k = mcp_arena_strndup(a, len ? key : "", len);
    if (!k)
        return false;
    void *p = object->members;
    if (!grow_room(a, &p, object->n, &object->cap, sizeof *object->members))
        return false;
    object->members = p;
    object->members[object->n++] = (mcp_json_member){k, len, value};
    return true;
}

bool mcp_json_set(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value)
{
    return key && mcp_json_setn(a, object, key, strlen(key), value);
}

/* Code point order of two keys (UTF-8 byte order; a prefix first). */
static int key_cmp(const char *x, size_t nx, const char *y, size_t ny)
{
    int c = memcmp(x, y, nx < ny ? nx : ny);
    return c ? c : (nx > ny) - (nx < ny);
}

bool mcp_json_set_sorted(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value)
{
    if (!object || object->kind != MCP_JOBJECT || !value || !key)
        return false;
    size_t len = strlen(key), lo = 0, hi = object->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const mcp_json_member *m = &object->members[mid];
        int c = key_cmp(m->key, m->key_len, key, len);
        if (c == 0) {
            object->members[mid].value = value;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    char *k = mcp_arena_strndup(a, key, len);
    void *p = object->members;
    if (!k || !grow_room(a, &p, object->n, &object->cap, sizeof *object->members))
        return false;
    object->members = p;
    memmove(&object->members[lo + 1], &object->members[lo], (object->n - lo) * sizeof *object->members);
    object->members[lo] = (mcp_json_member){k, len, value};
    object->n++;
    return true;
}

mcp_json *mcp_json_copy(mcp_arena *a, const mcp_json *v)
{
    if (!v)
        return NULL;
    mcp_json *c = node(a, v->kind);
    if (!c)
        return NULL;
    *c = *v;
    c->cap = v->n;
    size_t size = v->kind == MCP_JARRAY ? sizeof *v->items : v->kind == MCP_JOBJECT ? sizeof *v->members : 0;
    if (size && v->n) {
        void *p = mcp_arena_alloc(a, v->n * size);
        if (!p)
            return NULL;
        memcpy(p, v->kind == MCP_JARRAY ? (const void *)v->items : (const void *)v->members, v->n * size);
        if (v->kind == MCP_JARRAY)
            c->items = p;
        else
            c->members = p;
    }
    return c;
}

const mcp_json *mcp_json_getn(const mcp_json *v, const char *key, size_t len)
{
    if (!v || v->kind != MCP_JOBJECT || (!key && len))
        return NULL;
    for (size_t i = 0; i < v->n; i++) {
        const mcp_json_member *m = &v->members[i];
        if (m->key_len == len && (len == 0 || memcmp(m->key, key, len) == 0))
            return m->value;
    }
    return NULL;
}

const mcp_json *mcp_json_get(const mcp_json *v, const char *key)
{
    return key ? mcp_json_getn(v, key, strlen(key)) : NULL;
}

/* ---- parsing ------------------------------------------------------------ */

/* An open container: its node, and where its children start on the scratch
 * stack of its kind (items for arrays, members for objects). */
typedef struct {
    mcp_json *node;
    size_t first;
} open_c;

typedef struct {
    mcp_arena *a;
    vec opens;   /* open_c */
    vec items;   /* mcp_json *: children of the open arrays */
    vec members; /* mcp_json_member: members of the open objects */
    vec offsets; /* size_t: the offset of each key in members */
    vec idx;     /* scratch for first_repeat */
    bool fast;   /* the fast pass: offsets not kept */
} parser;

/* An unescaped, NUL-terminated arena copy of a string token's text. */
static char *token_text(mcp_arena *a, const mcp_json_token *tk)
{
    char *p = mcp_arena_alloc(a, tk->unescaped_len + 1); /* zero-filled */
    if (!p)
        return NULL;
    if (tk->has_escapes)
        mcp_json_unescape(tk->text, tk->len, p);
    else if (tk->len)
        memcpy(p, tk->text, tk->len);
    return p;
}

/* The offset of the first repeated key of the objects still open, or
 * SIZE_MAX (the keys gathered so far: what mcp_json_validate has seen). */
static size_t open_repeats(parser *ps, bool *nomem)
{
    const open_c *o = ps->opens.p;
    const mcp_json_member *m = ps->members.p;
    const size_t *off = ps->offsets.p;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < ps->opens.n; i++) {
        if (o[i].node->kind != MCP_JOBJECT)
            continue;
        size_t end = ps->members.n;
        for (size_t j = i + 1; j < ps->opens.n; j++) {
            if (o[j].node->kind == MCP_JOBJECT) {
                end = o[j].first;
                break;
            }
        }
        size_t k = first_repeat(m + o[i].first, end - o[i].first, &ps->idx, nomem);
        if (k != SIZE_MAX && off[o[i].first + k] < best)
            best = off[o[i].first + k];
    }
    return best;
}

/* Close the innermost container: move its children into an exact-size arena
 * array. Returns the node, or NULL with *err / *at set. */
static mcp_json *close_container(parser *ps, mcp_json_err *err, size_t *at, size_t tok_offset)
{
    open_c o = ((open_c *)ps->opens.p)[--ps->opens.n];
    mcp_json *v = o.node;
    bool nomem = false;
    if (v->kind == MCP_JARRAY) {
        size_t n = ps->items.n - o.first;
        if (n) {
            if (n > SIZE_MAX / sizeof *v->items || !(v->items = mcp_arena_take(ps->a, n * sizeof *v->items)))
                goto nomem;
            memcpy(v->items, (mcp_json **)ps->items.p + o.first, n * sizeof *v->items);
        }
        v->n = v->cap = n;
        ps->items.n = o.first;
        return v;
    }
    size_t n = ps->members.n - o.first;
    const mcp_json_member *m = (const mcp_json_member *)ps->members.p + o.first;
    size_t k = first_repeat(m, n, &ps->idx, &nomem);
    if (nomem)
        goto nomem;
    if (k != SIZE_MAX) {
        if (ps->fast) {
            /* The fast pass keeps no key offsets: it gives up, and the
             * scanner's pass finds the repeat. */
            *err = MCP_JSON_E_DUPLICATE_KEY;
            *at = tok_offset;
            return NULL;
        }
        size_t d = ((size_t *)ps->offsets.p)[o.first + k];
        /* An enclosing object may repeat a key earlier in the text. */
        ps->members.n = o.first;
        ps->offsets.n = o.first;
        size_t e = open_repeats(ps, &nomem);
        if (nomem)
            goto nomem;
        *err = MCP_JSON_E_DUPLICATE_KEY;
        *at = e < d ? e : d;
        return NULL;
    }
    if (n) {
        if (n > SIZE_MAX / sizeof *v->members || !(v->members = mcp_arena_take(ps->a, n * sizeof *v->members)))
            goto nomem;
        memcpy(v->members, m, n * sizeof *v->members);
    }
    v->n = v->cap = n;
    ps->members.n = o.first;
    if (!ps->fast)
        ps->offsets.n = o.first;
    return v;
nomem:
    *err = MCP_JSON_E_NOMEM;
    *at = tok_offset;
    return NULL;
}

static mcp_json *scalar(mcp_arena *a, mcp_json_tok t, const mcp_json_token *tk)
{
    mcp_json *v;
    switch (t) {
    case MCP_JSON_STRING:
        if (!(v = node(a, MCP_JSTRING)) || !(v->s = token_text(a, tk)))
            return NULL;
        v->len = tk->unescaped_len;
        v->has_nul = tk->has_nul;
        return v;
    case MCP_JSON_INT:
        return mcp_json_new_int(a, tk->i);
    case MCP_JSON_BIGINT:
        if (!(v = node(a, MCP_JBIGINT)) || !(v->s = mcp_arena_strndup(a, tk->text, tk->len)))
            return NULL;
        v->len = tk->len;
        return v;
    case MCP_JSON_FLOAT:
        return mcp_json_new_float(a, tk->d);
    case MCP_JSON_TRUE:
        return mcp_json_new_bool(a, true);
    case MCP_JSON_FALSE:
        return mcp_json_new_bool(a, false);
    default:
        return mcp_json_new_null(a);
    }
}

static void parser_free(parser *ps)
{
    vec_free(&ps->opens);
    vec_free(&ps->items);
    vec_free(&ps->members);
    vec_free(&ps->offsets);
    vec_free(&ps->idx);
}

/* A parser named `ps` over arena `a`, whose stacks start in buffers on the
 * caller's stack (most messages never outgrow them): both passes use one. */
#define PARSER_ON_STACK(ps, a) \
    open_c ps##_opens[32]; \
    mcp_json *ps##_items[128]; \
    mcp_json_member ps##_members[32]; \
    size_t ps##_offsets[32]; \
    parser ps = { \
        .a = (a), \
        .opens = VEC_INIT(ps##_opens, sizeof(open_c)), \
        .items = VEC_INIT(ps##_items, sizeof(mcp_json *)), \
        .members = VEC_INIT(ps##_members, sizeof(mcp_json_member)), \
        .offsets = VEC_INIT(ps##_offsets, sizeof(size_t)), \
        .idx = VEC_EMPTY(sizeof(mcp_json_member *)), \
    }

/* The parse over the scanner's tokens: every text, every error exactly. */
static mcp_json *parse_scanned(mcp_arena *a, const char *text, size_t len, const mcp_json_limits *lim,
                               mcp_json_err *err, size_t *err_offset)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, len, lim);
    PARSER_ON_STACK(ps, a);
    mcp_json *root = NULL;
    mcp_json_err e = MCP_JSON_OK;
    size_t at = 0;
    for (;;) {
        mcp_json_tok t = mcp_json_next(&sc);
        const mcp_json_token *tk = &sc.tok;
        mcp_json *v;
        switch (t) {
        case MCP_JSON_ERROR: {
            e = sc.err;
            at = sc.err_offset;
            /* A repeated key before the syntax error comes first. */
            bool nomem = false;
            size_t d = open_repeats(&ps, &nomem);
            if (nomem) {
                e = MCP_JSON_E_NOMEM;
            } else if (d < at) {
                e = MCP_JSON_E_DUPLICATE_KEY;
                at = d;
            }
            goto fail;
        }
        case MCP_JSON_END:
            goto done;
        case MCP_JSON_OBJ_BEGIN:
        case MCP_JSON_ARR_BEGIN: {
            bool arr = t == MCP_JSON_ARR_BEGIN;
            if (!(v = node(a, arr ? MCP_JARRAY : MCP_JOBJECT)) || !vec_reserve(&ps.opens, ps.opens.n + 1))
                goto nomem;
            ((open_c *)ps.opens.p)[ps.opens.n++] = (open_c){v, arr ? ps.items.n : ps.members.n};
            continue;
        }
        case MCP_JSON_KEY: {
            char *k = token_text(a, tk);
            if (!k || !vec_reserve(&ps.members, ps.members.n + 1) || !vec_reserve(&ps.offsets, ps.offsets.n + 1))
                goto nomem;
            ((mcp_json_member *)ps.members.p)[ps.members.n++] = (mcp_json_member){k, tk->unescaped_len, NULL};
            ((size_t *)ps.offsets.p)[ps.offsets.n++] = tk->offset;
            continue;
        }
        case MCP_JSON_OBJ_END:
        case MCP_JSON_ARR_END:
            if (!(v = close_container(&ps, &e, &at, tk->offset)))
                goto fail;
            break;
        default:
            if (!(v = scalar(a, t, tk)))
                goto nomem;
            break;
        }
        /* Attach the finished value to its container. */
        if (ps.opens.n == 0) {
            root = v;
        } else if (((open_c *)ps.opens.p)[ps.opens.n - 1].node->kind == MCP_JARRAY) {
            if (!vec_reserve(&ps.items, ps.items.n + 1))
                goto nomem;
            ((mcp_json **)ps.items.p)[ps.items.n++] = v;
        } else {
            ((mcp_json_member *)ps.members.p)[ps.members.n - 1].value = v;
        }
    }
nomem:
    e = MCP_JSON_E_NOMEM;
    at = sc.tok.offset;
fail:
    root = NULL;
done:
    parser_free(&ps);
    if (err)
        *err = e;
    if (err_offset)
        *err_offset = e == MCP_JSON_OK ? 0 : at;
    return root;
}

/* ---- parsing: the fast pass --------------------------------------------- */

/* The same tree for the same text, in one pass over the bytes with the
 * tokenizer inlined: no token records, the common number forms converted
 * exactly without strtod, a string's node and text in one allocation. It
 * takes only texts it can see are valid (the scanner's grammar, checked as
 * it goes); at anything else (an error, a repeated key, nesting at the limit)
 * it gives up and the scanner's pass parses the text again, to accept it or
 * report its error exactly. What the abandoned pass allocated stays in the
 * arena until it is reset: at most a few times the text's size. */

enum { FAST_DONE, FAST_GIVE_UP, FAST_NOMEM };


/* Whitespace as RFC 8259 has it. */
static const bool ws_byte[256] = {[' '] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true};

/* String bytes that need a look: controls, '"', '\\', and non-ASCII. */
static const bool str_special[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1, [0x08] = 1,
    [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1,
    [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1,
    [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1,
#define X8(b) \
    [(b)] = 1, [(b) + 1] = 1, [(b) + 2] = 1, [(b) + 3] = 1, [(b) + 4] = 1, [(b) + 5] = 1, [(b) + 6] = 1, [(b) + 7] = 1
    X8(0x80),   X8(0x88),   X8(0x90),   X8(0x98),   X8(0xa0),   X8(0xa8),   X8(0xb0),   X8(0xb8),   X8(0xc0),
    X8(0xc8),   X8(0xd0),   X8(0xd8),   X8(0xe0),   X8(0xe8),   X8(0xf0),   X8(0xf8),
#undef X8
};

static int fast_hex4(const unsigned char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i];
        int h = c >= '0' && c <= '9'   ? (int)(c - '0')
                : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
                : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10)
                                       : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The first byte at or after p that str_special marks, or end. Eight bytes
 * at a time while none of them can be one: a byte is special when it is
 * below 0x20, '"', '\\' or has its top bit set. (The subtraction tricks may
 * also flag a plain byte next to a special one; the byte loop decides.) */
static const unsigned char *skip_plain(const unsigned char *p, const unsigned char *end)
{
#if defined(__SSE2__)
    /* Sixteen bytes at a time: a byte is special when it equals '"' or '\\',
     * or is at most 0x1f (max(x, 0x1f) == 0x1f), or has its top bit set. */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                   _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl), x));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return p + __builtin_ctz(m);
        p += 16;
    }
#endif
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, sizeof x);
        uint64_t q = x ^ (ones * '"'), s = x ^ (ones * '\\');
        uint64_t hit = (x | ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((s - ones) & ~s)) & high;
        if (hit) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* The lowest flagged byte is a special one: a false flag needs a
             * borrow from a lower, special, byte. */
            return p + (__builtin_ctzll(hit) >> 3);
#else
            break;
#endif
        }
        p += 8;
    }
    while (p < end && !str_special[*p])
        p++;
    return p;
}

/* A string whose opening quote is at *pp: checked (the scanner's rules), its
 * raw bytes [*raw, *raw + *raw_len), the decoded length, whether it holds an
 * escape or a \u0000; *pp past the closing quote. False: give up. */
static inline __attribute__((always_inline)) bool fast_string(const unsigned char **pp, const unsigned char *end,
                                                              const unsigned char **raw, size_t *raw_len, size_t *ulen,
                                                              bool *esc, bool *nul)
{
    const unsigned char *p = *pp + 1, *start = p;
    size_t u = 0;
    bool e = false, z = false;
    for (;;) {
        p = skip_plain(p, end);
        if (p >= end)
            return false;
        unsigned c = *p;
        if (c == '"')
            break;
        if (c == '\\') {
            if (end - p < 2)
                return false;
            e = true;
            switch (p[1]) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                u -= 1; /* two bytes for one */
                p += 2;
                continue;
            case 'u':
                break;
            default:
                return false;
            }
            if (end - p < 6)
                return false;
            int cp = fast_hex4(p + 2);
            if (cp < 0 || (cp >= 0xdc00 && cp <= 0xdfff))
                return false;
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
                    return false;
                int lo = fast_hex4(p + 8);
                if (lo < 0xdc00 || lo > 0xdfff)
                    return false;
                u = u - 12 + 4;
                p += 12;
                continue;
            }
            if (cp == 0)
                z = true;
            u = u - 6 + (cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3);
            p += 6;
            continue;
        }
        if (c < 0x20)
            return false;
        size_t k = mcp_utf8_seq(p, (size_t)(end - p), NULL, NULL);
        if (!k)
            return false;
        p += k;
    }
    *raw = start;
    *raw_len = (size_t)(p - start);
    *ulen = *raw_len + u; /* u counted what escapes take off */
    *esc = e;
    *nul = z;
    *pp = p + 1;
    return true;
}

/* The room fast_text needs for a string of raw_len bytes: a short one is
 * copied as one 16-byte word. */
enum { FAST_WORD = 16 };
static inline size_t text_room(size_t raw_len) { return raw_len < FAST_WORD ? FAST_WORD : raw_len + 1; }

/* A string's text, unescaped and NUL-terminated, at dst (room for
 * text_room(raw_len) bytes); end: the end of the text that holds raw. */
static inline void fast_text(char *dst, const unsigned char *raw, size_t raw_len, bool esc, const unsigned char *end)
{
    if (esc) {
        dst[mcp_json_unescape((const char *)raw, raw_len, dst)] = 0;
        return;
    }
    if (raw_len < FAST_WORD && end - raw >= FAST_WORD)
        memcpy(dst, raw, FAST_WORD); /* the bytes past raw_len are overwritten or unused */
    else if (raw_len)
        memcpy(dst, raw, raw_len);
    dst[raw_len] = 0;
}

static const double FAST_POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* A number at *pp (its first byte is '-' or a digit): its node, *pp past it;
 * NULL with *why FAST_GIVE_UP or FAST_NOMEM. Floats are the nearest double,
 * as the scanner's strtod gives them: exactly (Clinger's fast path) when the
 * significand fits 2^53 and the power of ten is exact, else by strtod on the
 * digits without a decimal point (so the locale does not matter). */
static mcp_json *fast_number(mcp_arena *a, const unsigned char **pp, const unsigned char *end, int *why)
{
    const unsigned char *p = *pp, *start = p;
    bool neg = false, is_float = false;
    *why = FAST_GIVE_UP;
    if (*p == '-') {
        neg = true;
        if (++p == end)
            return NULL;
    }
    /* The significant digits: at most 19 in w, the rest counted. */
    uint64_t w = 0;
    int nd = 0;              /* significant digits seen (leading zeros skipped) */
    long long drop = 0;      /* digits beyond the 19 kept, before the point */
    long long frac_kept = 0; /* digits kept after the point */
    bool lost = false;       /* a nonzero digit beyond the 19 */
    const unsigned char *int_start = p;
    if (*p == '0') {
        p++;
        if (p < end && *p >= '0' && *p <= '9')
            return NULL;
    } else if (*p >= '1' && *p <= '9') {
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (nd < 19) {
                w = w * 10 + (uint64_t)(*p - '0');
                nd++;
            } else {
                drop++;
                lost |= *p != '0';
            }
        }
    } else {
        return NULL;
    }
    size_t int_len = (size_t)(p - int_start);
    if (p < end && *p == '.') {
        is_float = true;
        if (++p == end || *p < '0' || *p > '9')
            return NULL;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            if (nd == 0 && *p == '0') {
                frac_kept++; /* a leading zero: only the scale */
            } else if (nd < 19) {
                w = w * 10 + (uint64_t)(*p - '0');
                nd++;
                frac_kept++;
            } else {
                lost |= *p != '0';
            }
        }
    }
    long long ex = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        is_float = true;
        bool eneg = false;
        if (++p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        if (p == end || *p < '0' || *p > '9')
            return NULL;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if (ex < 1000000000)
                ex = ex * 10 + (*p - '0');
        if (eneg)
            ex = -ex;
    }
    mcp_json *v;
    if (!is_float) {
        /* An integer: int64 when it fits (19 digits may not), else the text. */
        bool fits = drop == 0 && (nd < 19 || w <= (uint64_t)INT64_MAX + (neg ? 1u : 0u));
        if (int_len > 19)
            fits = false;
        if (fits) {
            v = int_node(a, neg ? (w == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)w) : (int64_t)w);
        } else {
            v = node(a, MCP_JBIGINT);
            if (v && !(v->s = mcp_arena_strndup(a, (const char *)start, (size_t)(p - start))))
                v = NULL;
            if (v)
                v->len = (size_t)(p - start);
        }
        if (!v)
            *why = FAST_NOMEM;
        *pp = p;
        return v;
    }
    long long e10 = ex + drop - frac_kept; /* value = w * 10^e10 (+ lost digits) */
    double d;
    if (nd == 0) {
        d = 0.0;
    } else if (!lost && w <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
        d = (double)w;
        d = e10 < 0 ? d / FAST_POW10[-e10] : d * FAST_POW10[e10];
    } else if (lost) {
        /* More than 19 significant digits: near a midpoint between two
         * doubles, the rest decides. The scanner keeps them all. */
        return NULL;
    } else {
        /* The exact digits, "DIGITSeEXP", for strtod. */
        char buf[64];
        int k = 0;
        char tmp[24];
        int n = 0;
        uint64_t x = w;
        do {
            tmp[n++] = (char)('0' + x % 10);
            x /= 10;
        } while (x);
        while (n)
            buf[k++] = tmp[--n];
        if (e10 > 100000)
            e10 = 100000;
        if (e10 < -100000)
            e10 = -100000;
        buf[k++] = 'e';
        if (e10 < 0) {
            buf[k++] = '-';
            e10 = -e10;
        }
        n = 0;
        do {
            tmp[n++] = (char)('0' + e10 % 10);
            e10 /= 10;
        } while (e10);
        while (n)
            buf[k++] = tmp[--n];
        buf[k] = 0;
        d = strtod(buf, NULL);
        if (!isfinite(d))
            return NULL; /* out of range: the scanner's error */
    }
    if (!(v = float_node(a, neg ? -d : d))) {
        *why = FAST_NOMEM;
        return NULL;
    }
    *pp = p;
    return v;
}

/* At a limit (depth, string length, array length) it gives up too: the
 * scanner reports the error where it is. */
static int parse_fast(parser *ps, const char *text, size_t len, int max_depth, size_t max_string, size_t max_array,
                      size_t max_values, mcp_json **out)
{
    mcp_arena *a = ps->a;
    const unsigned char *p = (const unsigned char *)text, *end = p + len;
    int why = FAST_GIVE_UP;
    size_t nvalues = 0;
    for (;;) {
        /* A value at p. */
        while (p < end && ws_byte[*p])
            p++;
        if (p == end || ++nvalues > max_values)
            return FAST_GIVE_UP;
        mcp_json *v;
        unsigned c = *p;
        if (c == '{' || c == '[') {
            bool arr = c == '[';
            if ((int)ps->opens.n >= max_depth)
                return FAST_GIVE_UP;
            if (!(v = node(a, arr ? MCP_JARRAY : MCP_JOBJECT)) || !vec_reserve(&ps->opens, ps->opens.n + 1))
                return FAST_NOMEM;
            ((open_c *)ps->opens.p)[ps->opens.n++] = (open_c){v, arr ? ps->items.n : ps->members.n};
            p++;
            while (p < end && ws_byte[*p])
                p++;
            if (p < end && *p == (arr ? ']' : '}')) {
                p++;
                mcp_json_err e;
                size_t at;
                if (!(v = close_container(ps, &e, &at, 0)))
                    return e == MCP_JSON_E_NOMEM ? FAST_NOMEM : FAST_GIVE_UP;
                goto attach;
            }
            if (arr)
                continue;
            goto key;
        } else if (c == '"') {
            const unsigned char *raw;
            size_t raw_len, ulen;
            bool esc, nul;
            if (!fast_string(&p, end, &raw, &raw_len, &ulen, &esc, &nul) || ulen > max_string)
                return FAST_GIVE_UP;
            /* The node and its text in one allocation. */
            if (!(v = mcp_arena_take(a, sizeof *v + text_room(raw_len))))
                return FAST_NOMEM;
            char *t = (char *)(v + 1);
            fast_text(t, raw, raw_len, esc, end);
            *v = (mcp_json){.kind = MCP_JSTRING, .s = t, .len = ulen, .has_nul = nul};
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if (!(v = fast_number(a, &p, end, &why)))
                return why;
        } else if (c == 't' && end - p >= 4 && memcmp(p, "true", 4) == 0) {
            p += 4;
            if (!(v = mcp_json_new_bool(a, true)))
                return FAST_NOMEM;
        } else if (c == 'f' && end - p >= 5 && memcmp(p, "false", 5) == 0) {
            p += 5;
            if (!(v = mcp_json_new_bool(a, false)))
                return FAST_NOMEM;
        } else if (c == 'n' && end - p >= 4 && memcmp(p, "null", 4) == 0) {
            p += 4;
            if (!(v = mcp_json_new_null(a)))
                return FAST_NOMEM;
        } else {
            return FAST_GIVE_UP;
        }
    attach:
        /* Attach v; close what it completes; find the next value. */
        for (;;) {
            if (ps->opens.n == 0) {
                while (p < end && ws_byte[*p])
                    p++;
                if (p != end)
                    return FAST_GIVE_UP;
                *out = v;
                return FAST_DONE;
            }
            const open_c *top = &((open_c *)ps->opens.p)[ps->opens.n - 1];
            bool arr = top->node->kind == MCP_JARRAY;
            if (arr) {
                if (ps->items.n - top->first >= max_array)
                    return FAST_GIVE_UP;
                if (!vec_reserve(&ps->items, ps->items.n + 1))
                    return FAST_NOMEM;
                ((mcp_json **)ps->items.p)[ps->items.n++] = v;
            } else {
                ((mcp_json_member *)ps->members.p)[ps->members.n - 1].value = v;
            }
            while (p < end && ws_byte[*p])
                p++;
            if (p == end)
                return FAST_GIVE_UP;
            if (*p == ',') {
                p++;
                if (arr)
                    break; /* the next value ("]" there is no value: given up) */
                goto key;
            }
            if (*p != (arr ? ']' : '}'))
                return FAST_GIVE_UP;
            p++;
            mcp_json_err e;
            size_t at;
            if (!(v = close_container(ps, &e, &at, 0)))
                return e == MCP_JSON_E_NOMEM ? FAST_NOMEM : FAST_GIVE_UP;
        }
        continue;
    key:
        /* A key and its ':' at p (after '{' or ','). */
        while (p < end && ws_byte[*p])
            p++;
        if (p == end || *p != '"')
            return FAST_GIVE_UP;
        {
            /* (No key offsets: at a repeated key this pass gives up.) */
            const unsigned char *raw;
            size_t raw_len, ulen;
            bool esc, nul;
            if (!fast_string(&p, end, &raw, &raw_len, &ulen, &esc, &nul) || ulen > max_string)
                return FAST_GIVE_UP;
            char *k = mcp_arena_take(a, text_room(raw_len));
            if (!k || !vec_reserve(&ps->members, ps->members.n + 1))
                return FAST_NOMEM;
            fast_text(k, raw, raw_len, esc, end);
            ((mcp_json_member *)ps->members.p)[ps->members.n++] = (mcp_json_member){k, ulen, NULL};
        }
        while (p < end && ws_byte[*p])
            p++;
        if (p == end || *p != ':')
            return FAST_GIVE_UP;
        p++;
    }
}

mcp_json *mcp_json_parse(mcp_arena *a, const char *text, size_t len, const mcp_json_limits *lim, mcp_json_err *err,
                         size_t *err_offset)
{
    int max = lim ? lim->max_depth : 0;
    if (max <= 0)
        max = MCP_JSON_DEFAULT_MAX_DEPTH;
    if (max > MCP_JSON_DEPTH_CAP)
        max = MCP_JSON_DEPTH_CAP;
    PARSER_ON_STACK(ps, a);
    mcp_json *root = NULL;
    size_t max_string = lim && lim->max_string ? lim->max_string : SIZE_MAX;
    size_t max_array = lim && lim->max_array ? lim->max_array : SIZE_MAX;
    size_t max_values = lim && lim->max_values ? lim->max_values : SIZE_MAX;
    ps.fast = true;
    int r = text || !len ? parse_fast(&ps, text ? text : "", len, max, max_string, max_array, max_values, &root)
                         : FAST_GIVE_UP;
    parser_free(&ps);
    if (r == FAST_DONE) {
        if (err)
            *err = MCP_JSON_OK;
        if (err_offset)
            *err_offset = 0;
        return root;
    }
    /* Out of memory or not sure: the scanner's pass says what it is. */
    return parse_scanned(a, text, len, lim, err, err_offset);
}

/* ---- equality ----------------------------------------------------------- */

static bool is_number(mcp_json_kind k) { return k == MCP_JINT || k == MCP_JBIGINT || k == MCP_JFLOAT; }

/* An int64 and a double, exactly. */
static bool int_eq_double(int64_t i, double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        return false;
    int64_t k = (int64_t)d;
    return (double)k == d && k == i;
}

/* Integer digits (as a BIGINT holds them) and a number of another kind. */
static bool digits_eq(const char *s, size_t n, const mcp_json *y)
{
    char tmp[400];
    int k;
    if (y->kind == MCP_JINT) {
        k = snprintf(tmp, sizeof tmp, "%lld", (long long)y->i);
    } else {
        /* Integral and finite: printf's %.0f is exact (glibc, musl). */
        if (!isfinite(y->d) || y->d != floor(y->d))
            return false;
        k = snprintf(tmp, sizeof tmp, "%.0f", y->d);
    }
    return k > 0 && (size_t)k < sizeof tmp && (size_t)k == n && memcmp(tmp, s, n) == 0;
}

static bool number_eq(const mcp_json *x, const mcp_json *y)
{
    if (x->kind == MCP_JBIGINT && y->kind == MCP_JBIGINT)
        return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
    if (x->kind == MCP_JBIGINT)
        return digits_eq(x->s, x->len, y);
    if (y->kind == MCP_JBIGINT)
        return digits_eq(y->s, y->len, x);
    if (x->kind == MCP_JINT && y->kind == MCP_JINT)
        return x->i == y->i;
    if (x->kind == MCP_JFLOAT && y->kind == MCP_JFLOAT)
        return x->d == y->d;
    return x->kind == MCP_JINT ? int_eq_double(x->i, y->d) : int_eq_double(y->i, x->d);
}

typedef struct {
    const mcp_json *x, *y;
} pair;

/* Push the pairs of matching members of two objects of n members each;
 * false when a key of x is missing from y or the heap runs out. */
static bool match_members(vec *st, const mcp_json *x, const mcp_json *y, bool *nomem)
{
    size_t n = x->n;
    if (!vec_reserve(st, st->n + n)) {
        *nomem = true;
        return false;
    }
    pair *out = (pair *)st->p + st->n;
    const mcp_json_member **sy = NULL;
    if (n > SMALL_OBJECT && n <= SIZE_MAX / sizeof *sy)
        sy = malloc(n * sizeof *sy);
    if (sy) {
        for (size_t i = 0; i < n; i++)
            sy[i] = &y->members[i];
        qsort(sy, n, sizeof *sy, member_ptr_cmp);
    }
    for (size_t i = 0; i < n; i++) {
        const mcp_json_member *mx = &x->members[i];
        const mcp_json *yv = NULL;
        if (sy) {
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const mcp_json_member *my = sy[mid];
                int c = my->key_len != mx->key_len ? (my->key_len < mx->key_len ? -1 : 1)
                        : my->key_len              ? memcmp(my->key, mx->key, mx->key_len)
                                                   : 0;
                if (c == 0) {
                    yv = my->value;
                    break;
                }
                if (c < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        } else {
            for (size_t j = 0; j < n; j++) {
                if (same_key(mx, &y->members[j])) {
                    yv = y->members[j].value;
                    break;
                }
            }
        }
        if (!yv) {
            free(sy);
            return false;
        }
        out[i] = (pair){mx->value, yv};
    }
    free(sy);
    st->n += n;
    return true;
}

/* A boolean as the integer Python sees in it (True == 1), for number_eq. */
static const mcp_json *as_number(const mcp_json *v, mcp_json *tmp)
{
    if (v->kind != MCP_JBOOL)
        return v;
    *tmp = (mcp_json){.kind = MCP_JINT, .i = v->b};
    return tmp;
}

/* mcp_json_equal, and with `py` Python's ==, where booleans are numbers. */
static bool equal(const mcp_json *x, const mcp_json *y, bool py)
{
    pair inl[64];
    vec st = VEC_INIT(inl, sizeof(pair));
    bool eq = true, nomem = false;
    inl[st.n++] = (pair){x, y};
    while (eq && st.n) {
        pair p = ((pair *)st.p)[--st.n];
        x = p.x;
        y = p.y;
        if (x == y)
            continue;
        if (!x || !y) {
            eq = false;
            break;
        }
        if (is_number(x->kind) && is_number(y->kind)) {
            eq = number_eq(x, y);
            continue;
        }
        if (py && (x->kind == MCP_JBOOL ? is_number(y->kind) : y->kind == MCP_JBOOL && is_number(x->kind))) {
            mcp_json tx, ty;
            eq = number_eq(as_number(x, &tx), as_number(y, &ty));
            continue;
        }
        if (x->kind != y->kind) {
            eq = false;
            break;
        }
        switch (x->kind) {
        case MCP_JNULL:
            break;
        case MCP_JBOOL:
            eq = x->b == y->b;
            break;
        case MCP_JSTRING:
            eq = x->len == y->len && (x->len == 0 || memcmp(x->s, y->s, x->len) == 0);
            break;
        case MCP_JARRAY:
            if (x->n != y->n) {
                eq = false;
                break;
            }
            if (!vec_reserve(&st, st.n + x->n)) {
                eq = false;
                break;
            }
            /* In reverse, so that the first items are compared first. */
            for (size_t i = x->n; i-- > 0;)
                ((pair *)st.p)[st.n++] = (pair){x->items[i], y->items[i]};
            break;
        case MCP_JOBJECT:
            eq = x->n == y->n && match_members(&st, x, y, &nomem);
            break;
        default:
            eq = false;
            break;
        }
    }
    vec_free(&st);
    return eq;
}

bool mcp_json_equal(const mcp_json *x, const mcp_json *y) { return equal(x, y, false); }
bool mcp_json_equal_py(const mcp_json *x, const mcp_json *y) { return equal(x, y, true); }

/* ---- writing ------------------------------------------------------------ */

/* mcp_buf_put and mcp_buf_putc, inline while the room is there (the writer
 * puts a byte or two at a time). */
static inline void wput(mcp_buf *b, const char *p, size_t n)
{
    if (!b->oom && b->cap - b->len > n) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;
    } else {
        mcp_buf_put(b, p, n);
    }
}

static inline void wputc(mcp_buf *b, char c)
{
    if (!b->oom && b->cap - b->len > 1) {
        b->data[b->len++] = c;
        b->data[b->len] = 0;
    } else {
        mcp_buf_putc(b, c);
    }
}

typedef struct {
    const mcp_json *v;
    size_t i;
} wframe;

static void newline_indent(mcp_buf *b, size_t spaces)
{
    static const char sp[] = "                                ";
    wputc(b, '\n');
    while (spaces) {
        size_t k = spaces < sizeof sp - 1 ? spaces : sizeof sp - 1;
        wput(b, sp, k);
        spaces -= k;
    }
}

/* A scalar or an empty container; false for a non-finite float. */
static bool write_leaf(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JNULL:
        wput(b, "null", 4);
        return true;
    case MCP_JBOOL:
        v->b ? wput(b, "true", 4) : wput(b, "false", 5);
        return true;
    case MCP_JINT:
        mcp_json_int(b, v->i);
        return true;
    case MCP_JBIGINT:
        wput(b, v->s, v->len);
        return true;
    case MCP_JFLOAT:
        if (mcp_json_double(b, v->d))
            return true;
        wput(b, "null", 4);
        return false;
    case MCP_JSTRING:
        mcp_json_string(b, v->s, v->len);
        return true;
    case MCP_JARRAY:
        wput(b, "[]", 2);
        return true;
    case MCP_JOBJECT:
        wput(b, "{}", 2);
        return true;
    }
    wput(b, "null", 4);
    return false;
}

bool mcp_json_write(mcp_buf *b, const mcp_json *v, int indent)
{
    if (!v) {
        wput(b, "null", 4);
        return true;
    }
    wframe inl[64];
    vec st = VEC_INIT(inl, sizeof(wframe));
    bool pretty = indent >= 0, ok = true;
    size_t step = pretty ? (size_t)indent : 0;
    for (;;) {
        /* Write v: a leaf whole, a container's opening. */
        if ((v->kind == MCP_JARRAY || v->kind == MCP_JOBJECT) && v->n) {
            if (!vec_reserve(&st, st.n + 1)) {
                b->oom = true;
                ok = false;
                break;
            }
            ((wframe *)st.p)[st.n++] = (wframe){v, 0};
            wputc(b, v->kind == MCP_JARRAY ? '[' : '{');
        } else if (!write_leaf(b, v)) {
            ok = false;
        }
        /* Find the next value: close finished containers, write separators. */
        v = NULL;
        while (st.n && !b->oom) {
            wframe *f = &((wframe *)st.p)[st.n - 1];
            if (f->i == f->v->n) {
                st.n--;
                if (pretty)
                    newline_indent(b, st.n * step);
                wputc(b, f->v->kind == MCP_JARRAY ? ']' : '}');
                continue;
            }
            if (f->i)
                wputc(b, ',');
            if (pretty)
                newline_indent(b, st.n * step);
            if (f->v->kind == MCP_JARRAY) {
                v = f->v->items[f->i++];
            } else {
                const mcp_json_member *m = &f->v->members[f->i++];
                mcp_json_string(b, m->key, m->key_len);
                if (pretty)
                    wput(b, ": ", 2);
                else
                    wputc(b, ':');
                v = m->value;
            }
            if (!v) { /* a hand-built container with a hole */
                wput(b, "null", 4);
                continue;
            }
            break;
        }
        if (!v)
            break;
    }
    vec_free(&st);
    return ok && !b->oom;
}

/* ---- from json-c -------------------------------------------------------- */


typedef struct {
    struct json_object *src;
    mcp_json *dst;
    size_t i;
    struct json_object_iterator it, end;
} jframe;

/* The node for a json-c value: a scalar whole, a container with its
 * exact-size array (filled by the caller). NULL when out of memory or for
 * something JSON cannot hold. */
static mcp_json *from_jsonc_node(mcp_arena *a, struct json_object *o)
{
    mcp_json *v;
    switch (json_object_get_type(o)) {
    case json_type_null:
        return mcp_json_new_null(a);
    case json_type_boolean:
        return mcp_json_new_bool(a, json_object_get_boolean(o) != 0);
    case json_type_double:
        return mcp_json_new_float(a, json_object_get_double(o));
    case json_type_int: {
        int64_t i = json_object_get_int64(o);
#if defined(JSON_C_VERSION_NUM) && JSON_C_VERSION_NUM >= ((0 << 16) | (14 << 8))
        if (i == INT64_MAX) {
            uint64_t u = json_object_get_uint64(o);
            if (u > (uint64_t)INT64_MAX) {
                char tmp[24];
                int k = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)u);
                if (!(v = node(a, MCP_JBIGINT)) || !(v->s = mcp_arena_strndup(a, tmp, (size_t)k)))
                    return NULL;
                v->len = (size_t)k;
                return v;
            }
        }
#endif
        return mcp_json_new_int(a, i);
    }
    case json_type_string: {
        int n = json_object_get_string_len(o);
        const char *s = json_object_get_string(o);
        if (n < 0 || (!s && n) || !mcp_utf8_valid(s, (size_t)n))
            return NULL;
        return mcp_json_new_string(a, s ? s : "", (size_t)n);
    }
    case json_type_array: {
        size_t n = json_object_array_length(o);
        if (!(v = node(a, MCP_JARRAY)))
            return NULL;
        if (n) {
            if (n > SIZE_MAX / sizeof *v->items || !(v->items = mcp_arena_alloc(a, n * sizeof *v->items)))
                return NULL;
        }
        v->n = v->cap = n;
        return v;
    }
    case json_type_object: {
        int n = json_object_object_length(o);
        if (n < 0 || !(v = node(a, MCP_JOBJECT)))
            return NULL;
        if (n) {
            if ((size_t)n > SIZE_MAX / sizeof *v->members ||
                !(v->members = mcp_arena_alloc(a, (size_t)n * sizeof *v->members)))
                return NULL;
        }
        v->n = v->cap = (size_t)n;
        return v;
    }
    }
    return NULL;
}

/* The largest power of two <= k (0 for 0). */
static size_t pow2_floor(size_t k)
{
    size_t p = 1;
    if (!k)
        return 0;
    while (p <= k / 2)
        p *= 2;
    return p;
}

mcp_json *mcp_json_from_jsonc(mcp_arena *a, const struct json_object *v)
{
    /* json-c's accessors take non-const pointers; nothing here modifies. */
    struct json_object *src = (struct json_object *)(uintptr_t)v;
    mcp_json *root = from_jsonc_node(a, src);
    if (!root || (root->kind != MCP_JARRAY && root->kind != MCP_JOBJECT))
        return root;
    jframe inl[32];
    vec st = VEC_INIT(inl, sizeof(jframe));
    vec idx = VEC_EMPTY(sizeof(mcp_json_member *));
    mcp_json *child = root;
    struct json_object *csrc = src;
    bool ok = true;
    for (;;) {
        if (child->kind == MCP_JARRAY || child->kind == MCP_JOBJECT) {
            /* A cycle makes the path from the root eventually periodic: some
             * node at depth D then repeats the one at the largest power of two
             * below D (the path's values are compared with a checkpoint that
             * doubles its distance, as in Brent's algorithm). */
            if (st.n && ((jframe *)st.p)[pow2_floor(st.n - 1)].src == csrc) {
                ok = false;
                break;
            }
            if (st.n && ((jframe *)st.p)[st.n - 1].src == csrc) {
                ok = false;
                break;
            }
            if (!vec_reserve(&st, st.n + 1)) {
                ok = false;
                break;
            }
            jframe *f = &((jframe *)st.p)[st.n++];
            *f = (jframe){.src = csrc, .dst = child, .i = 0};
            if (child->kind == MCP_JOBJECT) {
                f->it = json_object_iter_begin(csrc);
                f->end = json_object_iter_end(csrc);
            }
        }
        /* The next child to convert. */
        child = NULL;
        while (st.n) {
            jframe *f = &((jframe *)st.p)[st.n - 1];
            mcp_json *d = f->dst;
            if (d->kind == MCP_JARRAY) {
                if (f->i == d->n) {
                    st.n--;
                    continue;
                }
                csrc = json_object_array_get_idx(f->src, f->i);
                if (!(child = from_jsonc_node(a, csrc)))
                    break;
                d->items[f->i++] = child;
                break;
            }
            if (f->i == d->n || json_object_iter_equal(&f->it, &f->end)) {
                bool nomem = false;
                d->n = f->i;
                if (first_repeat(d->members, d->n, &idx, &nomem) != SIZE_MAX || nomem) {
                    ok = false;
                    break;
                }
                st.n--;
                continue;
            }
            const char *key = json_object_iter_peek_name(&f->it);
            csrc = json_object_iter_peek_value(&f->it);
            json_object_iter_next(&f->it);
            size_t klen = key ? strlen(key) : 0;
            char *k = key && mcp_utf8_valid(key, klen) ? mcp_arena_strndup(a, key, klen) : NULL;
            if (!k || !(child = from_jsonc_node(a, csrc))) {
                child = NULL;
                break;
            }
            d->members[f->i++] = (mcp_json_member){k, klen, child};
            break;
        }
        if (!ok || !child)
            break;
    }
    if (ok && st.n) /* stopped on a failed child */
        ok = false;
    vec_free(&st);
    vec_free(&idx);
    return ok ? root : NULL;
}
