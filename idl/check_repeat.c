/* check_repeat.c: finding repeats and collisions fast.
 *
 * Repeated union arms, Literal values, enum values and set items are found with
 * a hash table of indices, and colliding names in sorted copies, so that a list
 * of 100,000 of them is checked in a moment. Values are equal as JSON sees them,
 * types as Python sees them (a union drops the arms Python would); the hashes
 * agree with both.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"

/* ---------------------------------------------------------------- equality */

const mcp_json *ck_value(checker *c, const idl_node *n)
{
    mcp_arena *a = c->a;
    switch (n->kind) {
    case IDL_NODE_NULL:
        return mcp_json_new_null(a);
    case IDL_NODE_BOOL:
        return mcp_json_new_bool(a, n->v.b);
    case IDL_NODE_INT:
        return mcp_json_new_int(a, n->v.i);
    case IDL_NODE_FLOAT:
        return mcp_json_new_float(a, n->v.f);
    case IDL_NODE_STR:
        return mcp_json_new_string(a, n->str, n->len);
    case IDL_NODE_SEQ:
    case IDL_NODE_MAP: {
        /* The loader bounds the depth (and the expansion of aliases), and keys
         * are unique: the members are placed, not searched. */
        assert(n->n == 0 || (n->kind == IDL_NODE_SEQ ? n->items != NULL : n->pairs != NULL));
        bool seq = n->kind == IDL_NODE_SEQ;
        mcp_json *v = seq ? mcp_json_new_array(a) : mcp_json_new_object(a);
        if (!v || !n->n)
            return v;
        if (seq)
            v->items = mcp_arena_alloc(a, n->n * sizeof *v->items);
        else
            v->members = mcp_arena_alloc(a, n->n * sizeof *v->members);
        if (seq ? !v->items : !v->members)
            return NULL;
        for (size_t i = 0; i < n->n; i++) {
            const mcp_json *item = ck_value(c, seq ? n->items[i] : n->pairs[i].value);
            if (!item)
                return NULL;
            if (seq)
                v->items[i] = (mcp_json *)item;
            else
                v->members[i] = (mcp_json_member){n->pairs[i].key->str, n->pairs[i].key->len, (mcp_json *)item};
        }
        v->n = v->cap = n->n;
        return v;
    }
    }
    return NULL;
}

/* Structural equality of two types as their schemas see them. */
static bool constraints_equal(const ir_constraints *x, const ir_constraints *y)
{
#define NUM_EQ(h, m) \
    (x->h == y->h && (!x->h || (x->m.is_int == y->m.is_int && (x->m.is_int ? x->m.i == y->m.i : x->m.f == y->m.f))))
#define INT_EQ(h, f) (x->h == y->h && (!x->h || x->f == y->f))
#define STR_EQ(f) ((!x->f && !y->f) || (x->f && y->f && strcmp(x->f, y->f) == 0))
    return NUM_EQ(has_minimum, minimum) && NUM_EQ(has_maximum, maximum) &&
           NUM_EQ(has_exclusive_minimum, exclusive_minimum) && NUM_EQ(has_exclusive_maximum, exclusive_maximum) &&
           NUM_EQ(has_multiple_of, multiple_of) && INT_EQ(has_min_length, min_length) &&
           INT_EQ(has_max_length, max_length) && INT_EQ(has_min_items, min_items) && INT_EQ(has_max_items, max_items) &&
           STR_EQ(pattern) && STR_EQ(format);
#undef NUM_EQ
#undef INT_EQ
#undef STR_EQ
}

static bool type_equal(const ir_type *x, const ir_type *y);
static uint64_t hash_mix(uint64_t h, uint64_t x);

/* Whether x[0..n) and y[0..n), each free of repeats, hold the same items in
 * any order: each of x is looked up among y's in a hash set. */
static bool same_members(const void *const *x, const void *const *y, size_t n, uint64_t (*hash)(const void *),
                         ck_items_equal_fn eq)
{
    const void **all = malloc((n ? 2 * n : 1) * sizeof *all);
    if (!all)
        return false;
    ck_index_set set;
    ck_index_set_init(&set, 2 * n);
    for (size_t i = 0; i < n; i++) {
        all[i] = y[i];
        ck_index_set_add(&set, hash(y[i]), i, all, eq);
    }
    bool same = true;
    for (size_t i = 0; i < n && same; i++) {
        all[n + i] = x[i];
        same = ck_index_set_add(&set, hash(x[i]), n + i, all, eq) != SIZE_MAX;
    }
    ck_index_set_free(&set);
    free(all);
    return same;
}

static uint64_t value_hash_of(const void *v) { return ck_value_hash(v); }
static uint64_t type_hash_of(const void *t) { return ck_type_hash(t); }

/* Equality of two types as Python sees them, which is how a union drops its
 * repeated arms: a Literal's values and a union's arms are sets (Literal['a',
 * 'b'] is Literal['b', 'a']), dict[int, T] is not dict[str, T], list[T] is not
 * tuple[T, ...]. */
static bool type_equal(const ir_type *x, const ir_type *y)
{
    if (x->kind != y->kind || !constraints_equal(x->c, y->c))
        return false;
    switch (x->kind) {
    case IR_LIST:
        return x->tuple_variadic == y->tuple_variadic && type_equal(x->elem, y->elem);
    case IR_SET:
        return type_equal(x->elem, y->elem);
    case IR_DICT:
        return x->int_keys == y->int_keys && type_equal(x->elem, y->elem);
    case IR_TUPLE:
        if (x->nitems != y->nitems)
            return false;
        for (size_t i = 0; i < x->nitems; i++)
            if (!type_equal(x->items[i], y->items[i]))
                return false;
        return true;
    case IR_UNION:
        return x->nitems == y->nitems && same_members((const void *const *)x->items, (const void *const *)y->items,
                                                      x->nitems, type_hash_of, ck_types_at_equal);
    case IR_LITERAL:
        return x->nvalues == y->nvalues && same_members((const void *const *)x->values, (const void *const *)y->values,
                                                        x->nvalues, value_hash_of, ck_values_at_equal);
    case IR_NAMED:
        return x->def == y->def;
    case IR_FORMAT:
        return x->format == y->format;
    default:
        return true;
    }
}

/* ---------------------------------------------------------------- hashes */

static uint64_t hash_mix(uint64_t h, uint64_t x)
{
    x *= 0x9E3779B97F4A7C15u;
    x ^= x >> 29;
    return (h ^ x) * 1099511628211u;
}

uint64_t ck_hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

uint64_t ck_value_hash(const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JNULL:
        return 1;
    case MCP_JBOOL:
        return v->b ? 2 : 3;
    case MCP_JINT:
    case MCP_JFLOAT: {
        /* 1 and 1.0 are the same JSON number, and 0.0 is -0.0 */
        double x = v->kind == MCP_JINT ? (double)v->i : v->d;
        if (x == 0)
            x = 0;
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        return hash_mix(4, bits);
    }
    case MCP_JBIGINT: /* never built from YAML: equal only to itself here */
        return hash_mix(8, ck_hash_bytes(v->s, v->len));
    case MCP_JSTRING:
        return hash_mix(5, ck_hash_bytes(v->s, v->len));
    case MCP_JARRAY: {
        uint64_t h = 6;
        for (size_t i = 0; i < v->n; i++)
            h = hash_mix(h, ck_value_hash(v->items[i]));
        return h;
    }
    case MCP_JOBJECT: {
        uint64_t h = 7; /* the order of the keys does not matter */
        for (size_t i = 0; i < v->n; i++)
            h += hash_mix(ck_hash_bytes(v->members[i].key, v->members[i].key_len), ck_value_hash(v->members[i].value));
        return h;
    }
    }
    return 0;
}

uint64_t ck_type_hash(const ir_type *t)
{
    uint64_t h = hash_mix(11, (uint64_t)t->kind);
    switch (t->kind) {
    case IR_LIST:
        return hash_mix(hash_mix(h, t->tuple_variadic), ck_type_hash(t->elem));
    case IR_SET:
        return hash_mix(h, ck_type_hash(t->elem));
    case IR_DICT:
        return hash_mix(hash_mix(h, t->int_keys), ck_type_hash(t->elem));
    case IR_TUPLE:
        for (size_t i = 0; i < t->nitems; i++)
            h = hash_mix(h, ck_type_hash(t->items[i]));
        return h;
    case IR_UNION: /* sets: the order does not matter */
        for (size_t i = 0; i < t->nitems; i++)
            h += hash_mix(13, ck_type_hash(t->items[i]));
        return h;
    case IR_LITERAL:
        for (size_t i = 0; i < t->nvalues; i++)
            h += hash_mix(17, ck_value_hash(t->values[i]));
        return h;
    case IR_NAMED:
        return hash_mix(h, (uint64_t)(uintptr_t)t->def);
    case IR_FORMAT:
        return hash_mix(h, (uint64_t)t->format);
    default:
        return h;
    }
}

/* ---------------------------------------------------------------- index sets
 *
 * Without memory for the table, a linear scan of the indices below the new one
 * (every caller's items before it are the ones seen). */

void ck_index_set_init(ck_index_set *s, size_t n)
{
    memset(s, 0, sizeof *s);
    if (n == 0)
        return; /* nothing will be added */
    size_t cap = 16;
    while (cap / 2 < n && cap < SIZE_MAX / 4 / sizeof(uint64_t))
        cap *= 2;
    if (cap / 2 < n)
        return;
    s->slot = calloc(cap, sizeof *s->slot);
    s->hash = malloc(cap * sizeof *s->hash);
    if (!s->slot || !s->hash) {
        free(s->slot);
        free(s->hash);
        s->slot = NULL;
        s->hash = NULL;
        return;
    }
    s->mask = cap - 1;
}

void ck_index_set_free(ck_index_set *s)
{
    free(s->slot);
    free(s->hash);
}

size_t ck_index_set_add(ck_index_set *s, uint64_t h, size_t i, const void *items, ck_items_equal_fn eq)
{
    if (!s->slot) {
        for (size_t j = 0; j < i; j++)
            if (eq(items, j, i))
                return j;
        return SIZE_MAX;
    }
    for (size_t k = (size_t)h & s->mask;; k = (k + 1) & s->mask) {
        if (!s->slot[k]) {
            s->slot[k] = i + 1;
            s->hash[k] = h;
            return SIZE_MAX;
        }
        if (s->hash[k] == h && eq(items, s->slot[k] - 1, i))
            return s->slot[k] - 1;
    }
}

bool ck_types_at_equal(const void *items, size_t a, size_t b)
{
    ir_type *const *t = items;
    return type_equal(t[a], t[b]);
}

bool ck_values_at_equal(const void *items, size_t a, size_t b)
{
    const mcp_json *const *v = items;
    return mcp_json_equal(v[a], v[b]);
}

/* ---------------------------------------------------------------- sorted names
 *
 * Names with their index, sorted by name then index: collisions are found in
 * n log n, so a type with 100,000 fields is checked in a moment. */

int ck_name_ix_cmp(const void *a, const void *b)
{
    const ck_name_ix *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    if (r)
        return r;
    return x->ix < y->ix ? -1 : x->ix > y->ix;
}

size_t ck_name_ix_lower(const ck_name_ix *v, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t ck_name_ix_run_end(const ck_name_ix *v, size_t n, size_t g)
{
    size_t e = g + 1;
    while (e < n && strcmp(v[e].name, v[g].name) == 0)
        e++;
    return e;
}

/* Fill v with the non-NULL names and sort it; their count. */
static size_t sort_names(ck_name_ix *v, const char *const *names, size_t stride, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = *(const char *const *)((const char *)names + i * stride);
        if (name)
            v[m++] = (ck_name_ix){name, i};
    }
    qsort(v, m, sizeof *v, ck_name_ix_cmp);
    return m;
}

ck_name_ix *ck_sorted_index(const char *const *names, size_t stride, size_t n, size_t *m)
{
    *m = 0;
    ck_name_ix *v = malloc((n ? n : 1) * sizeof *v);
    if (v)
        *m = sort_names(v, names, stride, n);
    return v;
}

ck_name_ix *ck_sorted_names(checker *c, const char *const *names, size_t stride, size_t n, size_t *m)
{
    *m = 0;
    ck_name_ix *v = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *v);
    if (v)
        *m = sort_names(v, names, stride, n);
    return v;
}

size_t ck_sorted_find(const ck_name_ix *v, size_t n, const char *name, size_t len,
                      size_t (*len_of)(const void *ctx, size_t i), const void *ctx)
{
    for (size_t k = ck_name_ix_lower(v, n, name); k < n && strcmp(v[k].name, name) == 0; k++)
        if (len_of(ctx, v[k].ix) == len)
            return v[k].ix;
    return SIZE_MAX;
}
