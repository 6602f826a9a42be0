/* json_validate.c: judging a whole JSON text, duplicate keys included.
 *
 * The tokenizer checks everything else; this keeps the keys of every open
 * object, and sorts an object's keys when it closes (O(k log k), whatever the
 * keys are: no hash to flood). The keys of closed objects are dropped. */
#include "internal/json_scan.h"

#include <stdlib.h>
#include <string.h>

/* One key of an open object. Escaped keys are decoded into a side buffer
 * that may move while it grows, so they hold an offset into it until the
 * object is checked. */
typedef struct {
    const char *p;
    size_t n;
    size_t offset; /* of the key's opening quote */
    size_t ubuf;   /* where its decoded bytes start in the side buffer */
    bool decoded;
} key_ent;

typedef struct {
    size_t keys; /* first key of the object */
    size_t ubuf; /* side buffer length when it opened */
} open_obj;

typedef struct {
    key_ent *keys;
    size_t nkeys, capkeys;
    char *ubuf;
    size_t nubuf, capubuf;
    open_obj *objs;
    size_t nobjs, capobjs;
} validator;

/* Make *p (of *cap elements of size bytes) hold need; false when it cannot. */
static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            return false;
        c *= 2;
    }
    void *q = realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static int key_cmp(const void *a, const void *b)
{
    const key_ent *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return x->n ? memcmp(x->p, y->p, x->n) : 0;
}

static bool same_key(const key_ent *x, const key_ent *y)
{
    return x->n == y->n && (x->n == 0 || memcmp(x->p, y->p, x->n) == 0);
}

/* Sort keys[from, to) and return the offset of the first repeated key in text
 * order, or SIZE_MAX when there is none. */
static size_t first_duplicate(validator *v, size_t from, size_t to)
{
    size_t n = to - from;
    if (n < 2) /* (and keys may still be NULL: no pointer arithmetic on it) */
        return SIZE_MAX;
    key_ent *k = v->keys + from;
    for (size_t i = 0; i < n; i++)
        if (k[i].decoded)
            k[i].p = v->ubuf + k[i].ubuf;
    qsort(k, n, sizeof *k, key_cmp);
    /* In each run of equal keys (in whatever order qsort left them), the
     * repeat is the second in text order: the second smallest offset. */
    size_t best = SIZE_MAX;
    for (size_t i = 0, j; i < n; i = j) {
        size_t first = k[i].offset, second = SIZE_MAX;
        for (j = i + 1; j < n && same_key(&k[j], &k[i]); j++) {
            size_t o = k[j].offset;
            if (o < first) {
                second = first;
                first = o;
            } else if (o < second) {
                second = o;
            }
        }
        if (second < best)
            best = second;
    }
    return best;
}

/* The first duplicate in the objects still open. */
static size_t open_duplicates(validator *v)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < v->nobjs; i++) {
        size_t to = i + 1 < v->nobjs ? v->objs[i + 1].keys : v->nkeys;
        size_t d = first_duplicate(v, v->objs[i].keys, to);
        if (d < best)
            best = d;
    }
    return best;
}

static mcp_json_err validate(validator *v, mcp_json_scanner *sc, size_t *at)
{
    void *mem; /* arrays pass through it to grow(), which takes a void ** */
    bool ok;
    for (;;) {
        mcp_json_tok t = mcp_json_next(sc);
        switch (t) {
        case MCP_JSON_ERROR: {
            /* A duplicate before the syntax error comes first. */
            size_t d = open_duplicates(v);
            if (d < sc->err_offset) {
                *at = d;
                return MCP_JSON_E_DUPLICATE_KEY;
            }
            *at = sc->err_offset;
            return sc->err;
        }
        case MCP_JSON_END:
            return MCP_JSON_OK;
        case MCP_JSON_OBJ_BEGIN:
            mem = v->objs;
            ok = grow(&mem, &v->capobjs, v->nobjs + 1, sizeof *v->objs);
            v->objs = mem;
            if (!ok) {
                *at = sc->tok.offset;
                return MCP_JSON_E_NOMEM;
            }
            v->objs[v->nobjs++] = (open_obj){v->nkeys, v->nubuf};
            break;
        case MCP_JSON_KEY: {
            mem = v->keys;
            ok = grow(&mem, &v->capkeys, v->nkeys + 1, sizeof *v->keys);
            v->keys = mem;
            if (!ok) {
                *at = sc->tok.offset;
                return MCP_JSON_E_NOMEM;
            }
            key_ent *k = &v->keys[v->nkeys++];
            k->offset = sc->tok.offset;
            k->decoded = sc->tok.has_escapes;
            if (k->decoded) {
                mem = v->ubuf;
                ok = grow(&mem, &v->capubuf, v->nubuf + sc->tok.len, 1);
                v->ubuf = mem;
                if (!ok) {
                    *at = sc->tok.offset;
                    return MCP_JSON_E_NOMEM;
                }
                k->ubuf = v->nubuf;
                k->n = mcp_json_unescape(sc->tok.text, sc->tok.len, v->ubuf + v->nubuf);
                k->p = NULL;
                v->nubuf += k->n;
            } else {
                k->p = sc->tok.text;
                k->n = sc->tok.len;
                k->ubuf = 0;
            }
            break;
        }
        case MCP_JSON_OBJ_END: {
            open_obj o = v->objs[v->nobjs - 1];
            size_t d = first_duplicate(v, o.keys, v->nkeys);
            v->nobjs--;
            v->nkeys = o.keys;
            v->nubuf = o.ubuf;
            if (d != SIZE_MAX) {
                /* An enclosing object may repeat a key earlier in the text. */
                size_t e = open_duplicates(v);
                *at = e < d ? e : d;
                return MCP_JSON_E_DUPLICATE_KEY;
            }
            break;
        }
        default:
            break;
        }
    }
}

mcp_json_err mcp_json_validate(const char *text, size_t len, const mcp_json_limits *lim, size_t *err_offset)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, len, lim);
    validator v = {0};
    size_t at = 0;
    mcp_json_err err = validate(&v, &sc, &at);
    free(v.keys);
    free(v.ubuf);
    free(v.objs);
    if (err_offset)
        *err_offset = err == MCP_JSON_OK ? 0 : at;
    return err;
}
