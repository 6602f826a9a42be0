/* json.c: JSON values in an arena: parsing (one pass over the strict
 * scanner's tokens), constructors, equality, writing, and conversion from
 * json-c. Nothing here recurses on the depth of a value: every walk keeps an
 * explicit stack, which starts on the C stack and moves to the heap when it
 * outgrows it (the heap copy is freed before returning). */
#include "mcpidl/json.h"

#include <json.h> /* json-c: pkg-config json-c puts its directory on the path */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/jsonw.h"

/* ---- scratch stacks ----------------------------------------------------- */

/* A growable array of `size`-byte elements in `inl` (caller storage, may be
 * NULL with cap 0) until it outgrows it, then on the heap. */
typedef struct {
    void *p;
    size_t n, cap, size;
    void *inl;
} vec;

#define VEC_INIT(arr, elsize) {(arr), 0, sizeof(arr) / (elsize), (elsize), (arr)}
#define VEC_EMPTY(elsize) {NULL, 0, 0, (elsize), NULL}

static bool vec_reserve(vec *v, size_t need)
{
    if (need <= v->cap)
        return true;
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
    mcp_json *v = mcp_arena_alloc(a, sizeof *v);
    if (v)
        v->kind = kind;
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

mcp_json *mcp_json_new_int(mcp_arena *a, int64_t i)
{
    mcp_json *v = node(a, MCP_JINT);
    if (v)
        v->i = i;
    return v;
}

mcp_json *mcp_json_new_float(mcp_arena *a, double d)
{
    mcp_json *v = node(a, MCP_JFLOAT);
    if (v)
        v->d = d;
    return v;
}

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
            if (n > SIZE_MAX / sizeof *v->items || !(v->items = mcp_arena_alloc(ps->a, n * sizeof *v->items)))
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
        if (n > SIZE_MAX / sizeof *v->members || !(v->members = mcp_arena_alloc(ps->a, n * sizeof *v->members)))
            goto nomem;
        memcpy(v->members, m, n * sizeof *v->members);
    }
    v->n = v->cap = n;
    ps->members.n = o.first;
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

mcp_json *mcp_json_parse(mcp_arena *a, const char *text, size_t len, const mcp_json_limits *lim,
                         mcp_json_err *err, size_t *err_offset)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, len, lim);
    open_c opens_inl[32];
    mcp_json *items_inl[128];
    mcp_json_member members_inl[32];
    size_t offsets_inl[32];
    parser ps = {
        .a = a,
        .opens = VEC_INIT(opens_inl, sizeof(open_c)),
        .items = VEC_INIT(items_inl, sizeof(mcp_json *)),
        .members = VEC_INIT(members_inl, sizeof(mcp_json_member)),
        .offsets = VEC_INIT(offsets_inl, sizeof(size_t)),
        .idx = VEC_EMPTY(sizeof(mcp_json_member *)),
    };
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
    vec_free(&ps.opens);
    vec_free(&ps.items);
    vec_free(&ps.members);
    vec_free(&ps.offsets);
    vec_free(&ps.idx);
    if (err)
        *err = e;
    if (err_offset)
        *err_offset = e == MCP_JSON_OK ? 0 : at;
    return root;
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
                        : my->key_len                ? memcmp(my->key, mx->key, mx->key_len)
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

bool mcp_json_equal(const mcp_json *x, const mcp_json *y)
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

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    const mcp_json *v;
    size_t i;
} wframe;

static void newline_indent(mcp_buf *b, size_t spaces)
{
    static const char sp[] = "                                ";
    mcp_buf_putc(b, '\n');
    while (spaces) {
        size_t k = spaces < sizeof sp - 1 ? spaces : sizeof sp - 1;
        mcp_buf_put(b, sp, k);
        spaces -= k;
    }
}

/* A scalar or an empty container; false for a non-finite float. */
static bool write_leaf(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JNULL: mcp_buf_put(b, "null", 4); return true;
    case MCP_JBOOL: v->b ? mcp_buf_put(b, "true", 4) : mcp_buf_put(b, "false", 5); return true;
    case MCP_JINT: mcp_json_int(b, v->i); return true;
    case MCP_JBIGINT: mcp_buf_put(b, v->s, v->len); return true;
    case MCP_JFLOAT:
        if (mcp_json_double(b, v->d))
            return true;
        mcp_buf_put(b, "null", 4);
        return false;
    case MCP_JSTRING: mcp_json_string(b, v->s, v->len); return true;
    case MCP_JARRAY: mcp_buf_put(b, "[]", 2); return true;
    case MCP_JOBJECT: mcp_buf_put(b, "{}", 2); return true;
    }
    mcp_buf_put(b, "null", 4);
    return false;
}

bool mcp_json_write(mcp_buf *b, const mcp_json *v, int indent)
{
    if (!v) {
        mcp_buf_put(b, "null", 4);
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
            mcp_buf_putc(b, v->kind == MCP_JARRAY ? '[' : '{');
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
                mcp_buf_putc(b, f->v->kind == MCP_JARRAY ? ']' : '}');
                continue;
            }
            if (f->i)
                mcp_buf_putc(b, ',');
            if (pretty)
                newline_indent(b, st.n * step);
            if (f->v->kind == MCP_JARRAY) {
                v = f->v->items[f->i++];
            } else {
                const mcp_json_member *m = &f->v->members[f->i++];
                mcp_json_string(b, m->key, m->key_len);
                if (pretty)
                    mcp_buf_put(b, ": ", 2);
                else
                    mcp_buf_putc(b, ':');
                v = m->value;
            }
            if (!v) { /* a hand-built container with a hole */
                mcp_buf_put(b, "null", 4);
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

/* The length of the valid UTF-8 (RFC 3629) sequence at p[0..n), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t k;
    unsigned lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else
        return 0;
    if (n < k || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if (p[i] < 0x80 || p[i] > 0xbf)
            return 0;
    return k;
}

static bool valid_utf8(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = utf8_seq(p + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

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
        if (n < 0 || (!s && n) || !valid_utf8(s, (size_t)n))
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
            char *k = key && valid_utf8(key, klen) ? mcp_arena_strndup(a, key, klen) : NULL;
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
