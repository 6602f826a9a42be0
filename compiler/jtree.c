/* jtree.c: the JSON tree behind the schema emitter. */
#include "jtree.h"

#include <stdlib.h>
#include <string.h>

#include "mcpidl/jsonw.h"

static jval *mk(mcp_arena *a, jkind k)
{
    jval *v = mcp_arena_alloc(a, sizeof *v);
    if (v)
        v->kind = k;
    return v;
}

jval *j_null(mcp_arena *a) { return mk(a, J_NULL); }

jval *j_bool(mcp_arena *a, bool b)
{
    jval *v = mk(a, J_BOOL);
    if (v)
        v->b = b;
    return v;
}

jval *j_int(mcp_arena *a, int64_t i)
{
    jval *v = mk(a, J_INT);
    if (v)
        v->i = i;
    return v;
}

jval *j_float(mcp_arena *a, double f)
{
    jval *v = mk(a, J_FLOAT);
    if (v)
        v->f = f;
    return v;
}

jval *j_strn(mcp_arena *a, const char *s, size_t len)
{
    jval *v = mk(a, J_STR);
    if (v) {
        v->s = s;
        v->len = len;
    }
    return v;
}

jval *j_str(mcp_arena *a, const char *s) { return s ? j_strn(a, s, strlen(s)) : NULL; }
jval *j_arr(mcp_arena *a) { return mk(a, J_ARR); }
jval *j_obj(mcp_arena *a) { return mk(a, J_OBJ); }

static bool grow(mcp_arena *a, void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 4;
    void *np = mcp_arena_realloc(a, *p, *cap * elem, nc * elem);
    if (!np)
        return false;
    *p = np;
    *cap = nc;
    return true;
}

bool j_push(mcp_arena *a, jval *arr, jval *v)
{
    if (!arr || !v || !grow(a, (void **)&arr->items, &arr->cap, arr->n, sizeof *arr->items))
        return false;
    arr->items[arr->n++] = v;
    return true;
}

bool j_set(mcp_arena *a, jval *obj, const char *key, jval *v)
{
    if (!obj || !v || !key)
        return false;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->members[i].key, key) == 0) {
            obj->members[i].val = v;
            return true;
        }
    if (!grow(a, (void **)&obj->members, &obj->cap, obj->n, sizeof *obj->members))
        return false;
    obj->members[obj->n++] = (jmember){key, v};
    return true;
}

jval *j_get(const jval *obj, const char *key)
{
    if (!obj || obj->kind != J_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->members[i].key, key) == 0)
            return obj->members[i].val;
    return NULL;
}

jval *j_copy_obj(mcp_arena *a, const jval *obj)
{
    jval *c = mk(a, J_OBJ);
    if (!c)
        return NULL;
    c->keep_order = obj->keep_order;
    if (obj->n) {
        c->members = mcp_arena_alloc(a, obj->n * sizeof *c->members);
        if (!c->members)
            return NULL;
        memcpy(c->members, obj->members, obj->n * sizeof *c->members);
        c->n = c->cap = obj->n;
    }
    return c;
}

static jval *from_node(mcp_arena *a, const idl_node *n, bool keep)
{
    switch (n->kind) {
    case IDL_NODE_NULL:
        return j_null(a);
    case IDL_NODE_BOOL:
        return j_bool(a, n->v.b);
    case IDL_NODE_INT:
        return j_int(a, n->v.i);
    case IDL_NODE_FLOAT:
        return j_float(a, n->v.f);
    case IDL_NODE_STR:
        return j_strn(a, n->str, n->len);
    case IDL_NODE_SEQ: {
        jval *arr = j_arr(a);
        for (size_t i = 0; arr && i < n->n; i++)
            if (!j_push(a, arr, from_node(a, n->items[i], keep)))
                return NULL;
        return arr;
    }
    case IDL_NODE_MAP: {
        jval *obj = j_obj(a);
        if (!obj)
            return NULL;
        obj->keep_order = keep;
        for (size_t i = 0; i < n->n; i++) {
            const char *k = n->pairs[i].key->str;
            bool child_keep = strcmp(k, "properties") == 0 || strcmp(k, "default") == 0;
            if (!j_set(a, obj, k, from_node(a, n->pairs[i].value, child_keep)))
                return NULL;
        }
        return obj;
    }
    }
    return NULL;
}

jval *j_from_node(mcp_arena *a, const idl_node *n) { return from_node(a, n, true); }

/* A number's value, booleans as 0 and 1 when `bool_is_number`; false when v is
 * no number. */
static bool number_of(const jval *v, bool bool_is_number, double *out)
{
    if (v->kind == J_INT)
        *out = (double)v->i;
    else if (v->kind == J_FLOAT)
        *out = v->f;
    else if (v->kind == J_BOOL && bool_is_number)
        *out = v->b;
    else
        return false;
    return true;
}

static bool equal(const jval *x, const jval *y, bool bool_is_number)
{
    if (x->kind != y->kind || (x->kind == J_BOOL && bool_is_number)) {
        double a, b;
        if (number_of(x, bool_is_number, &a) && number_of(y, bool_is_number, &b))
            return a == b;
        return false;
    }
    switch (x->kind) {
    case J_NULL:
        return true;
    case J_BOOL:
        return x->b == y->b;
    case J_INT:
        return x->i == y->i;
    case J_FLOAT:
        return x->f == y->f;
    case J_STR:
        return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
    case J_ARR:
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++)
            if (!equal(x->items[i], y->items[i], bool_is_number))
                return false;
        return true;
    case J_OBJ:
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++) {
            const jval *o = j_get(y, x->members[i].key);
            if (!o || !equal(x->members[i].val, o, bool_is_number))
                return false;
        }
        return true;
    }
    return false;
}

bool j_equal(const jval *x, const jval *y) { return equal(x, y, false); }
bool j_equal_py(const jval *x, const jval *y) { return equal(x, y, true); }

static int member_cmp(const void *pa, const void *pb)
{
    const jmember *a = pa, *b = pb;
    return strcmp(a->key, b->key); /* UTF-8 byte order is code point order */
}

static void newline(mcp_buf *b, int indent, int depth)
{
    mcp_buf_putc(b, '\n');
    for (int i = 0; i < indent * depth; i++)
        mcp_buf_putc(b, ' ');
}

static void write_val(mcp_buf *b, const jval *v, int indent, int depth)
{
    switch (v->kind) {
    case J_NULL:
        mcp_buf_puts(b, "null");
        return;
    case J_BOOL:
        mcp_buf_puts(b, v->b ? "true" : "false");
        return;
    case J_INT:
        mcp_json_int(b, v->i);
        return;
    case J_FLOAT:
        if (!mcp_json_double(b, v->f))
            mcp_buf_puts(b, "null");
        return;
    case J_STR:
        mcp_json_string(b, v->s, v->len);
        return;
    case J_ARR:
        if (!v->n) {
            mcp_buf_puts(b, "[]");
            return;
        }
        mcp_buf_putc(b, '[');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            if (indent >= 0)
                newline(b, indent, depth + 1);
            write_val(b, v->items[i], indent, depth + 1);
        }
        if (indent >= 0)
            newline(b, indent, depth);
        mcp_buf_putc(b, ']');
        return;
    case J_OBJ: {
        if (!v->n) {
            mcp_buf_puts(b, "{}");
            return;
        }
        jmember small[16];
        jmember *m = v->members;
        jmember *heap = NULL;
        if (!v->keep_order && v->n > 1) {
            m = v->n <= 16 ? small : (heap = malloc(v->n * sizeof *heap));
            if (!m) {
                b->oom = true;
                return;
            }
            memcpy(m, v->members, v->n * sizeof *m);
            qsort(m, v->n, sizeof *m, member_cmp);
        }
        mcp_buf_putc(b, '{');
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            if (indent >= 0)
                newline(b, indent, depth + 1);
            mcp_json_cstring(b, m[i].key);
            mcp_buf_puts(b, indent >= 0 ? ": " : ":");
            write_val(b, m[i].val, indent, depth + 1);
        }
        if (indent >= 0)
            newline(b, indent, depth);
        mcp_buf_putc(b, '}');
        free(heap);
        return;
    }
    }
}

void j_write(mcp_buf *b, const jval *v, int indent) { write_val(b, v, indent, 0); }
