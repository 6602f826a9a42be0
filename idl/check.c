/* check.c: from the YAML tree to the checked IR.
 *
 * One pass per concern, each reporting every problem it finds with a location:
 *   1. the top level and `server`;
 *   2. the names of `types` (so that types may refer to each other in any order);
 *   3. the bodies of types and tools: keys, type expressions, constraints;
 *   4. whole-file checks: defaults against their types, types that can never be
 *      finite, reference cycles, C name collisions.
 * Nothing here recurses on input depth beyond the limits of the loader (YAML
 * nesting) and of the type-expression parser (bracket nesting).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"
#include "mcpidl/buf.h"
#include "texpr.h"

/* ---------------------------------------------------------------- helpers */

bool ck_is_str(const idl_node *n) { return n && n->kind == IDL_NODE_STR; }

/* The key node of `key` in mapping `map` (which must have it). */
const idl_node *ck_map_key(const idl_node *map, const char *key)
{
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->pairs[i].key->str, key) == 0)
            return map->pairs[i].key;
    return map;
}

bool ck_str_eq(const idl_node *n, const char *s) { return ck_is_str(n) && strcmp(n->str, s) == 0; }

/* Check the keys of a mapping against the allowed ones. `what` names the
 * mapping in messages ("tool 'get_weather'"). `elsewhere` lists keys that are
 * valid in a sibling form, with a message for each (may be NULL). */

void ck_keys(checker *c, const idl_node *map, const char *const *allowed, size_t nallowed,
                       const key_hint *hints, size_t nhints, const char *what)
{
    for (size_t i = 0; i < map->n; i++) {
        const idl_node *k = map->pairs[i].key;
        bool ok = false;
        for (size_t j = 0; j < nallowed && !ok; j++)
            ok = strcmp(k->str, allowed[j]) == 0;
        if (ok)
            continue;
        bool hinted = false;
        for (size_t j = 0; j < nhints && !hinted; j++)
            if (strcmp(k->str, hints[j].key) == 0) {
                ERR(c, k->loc, "%s", hints[j].message);
                hinted = true;
            }
        if (hinted)
            continue;
        const char *near = idl_did_you_mean(k->str, allowed, nallowed);
        if (near)
            ERR(c, k->loc, "unknown key '%s' in %s; did you mean '%s'?", k->str, what, near);
        else
            ERR(c, k->loc, "unknown key '%s' in %s", k->str, what);
    }
}


/* ---- places inside a scalar
 *
 * A type expression or a pattern is reported at the exact character. The
 * scalar's text is the loaded value: to find a column, the source is read from
 * the scalar's start, escapes ("\\d", "\u00e9", '') counted as written. Past a
 * line break (a multi-line scalar) and in block scalars, the scalar's start is
 * the place. A cursor moves forward only, so that the places of the parts of one
 * expression, asked for in order, cost one pass over it. */

/* A line ends at "\n", "\r\n" or a lone "\r", as libyaml reads them. */
static bool is_break(const char *src, size_t len, size_t i)
{
    return src[i] == '\n' || (src[i] == '\r' && (i + 1 >= len || src[i + 1] != '\n'));
}

/* Byte offset of the start of line `line` (1-based), or SIZE_MAX. */
static size_t line_start(checker *c, uint32_t line)
{
    const idl_diags *d = c->d;
    if (!c->lines_built) {
        c->lines_built = true;
        size_t n = 1;
        for (size_t i = 0; i < d->src_len; i++)
            n += is_break(d->src, d->src_len, i);
        c->line_starts = d->src ? malloc(n * sizeof *c->line_starts) : NULL;
        if (c->line_starts) {
            /* libyaml does not count a byte-order mark as a character */
            c->line_starts[0] = d->src_len >= 3 && memcmp(d->src, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
            c->nlines = 1;
            for (size_t i = 0; i < d->src_len; i++)
                if (is_break(d->src, d->src_len, i))
                    c->line_starts[c->nlines++] = i + 1;
        }
    }
    if (!c->line_starts || line == 0 || line > c->nlines)
        return SIZE_MAX;
    return c->line_starts[line - 1];
}

typedef struct scalar_pos {
    const idl_node *node;
    bool lost;      /* no place is known from here on */
    size_t off;     /* the offset in the value reached */
    size_t pos;     /* the source byte that gives it */
    idl_loc loc;    /* the place of that byte */
} scalar_pos;

static size_t utf8_width(unsigned char ch)
{
    return ch < 0x80 ? 1 : ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC0 ? 2 : 1;
}

static size_t hex_value(const char *s, size_t n, size_t digits, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < digits; i++) {
        if (i >= n)
            return 0;
        char ch = s[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ? (ch | 0x20) - 'a' + 10 : -1;
        if (d < 0)
            return 0;
        v = v * 16 + (uint32_t)d;
    }
    *out = v;
    return digits;
}

static void scalar_pos_start(checker *c, scalar_pos *sp, const idl_node *n)
{
    *sp = (scalar_pos){.node = n, .loc = n->loc};
    sp->lost = n->style != IDL_STYLE_PLAIN && n->style != IDL_STYLE_SINGLE && n->style != IDL_STYLE_DOUBLE;
    size_t p = sp->lost ? SIZE_MAX : line_start(c, n->loc.line);
    if (p == SIZE_MAX) {
        sp->lost = true;
        return;
    }
    const char *src = c->d->src;
    size_t len = c->d->src_len;
    for (uint32_t col = 1; col < n->loc.col && p < len && src[p] != '\n' && src[p] != '\r'; col++)
        p += utf8_width((unsigned char)src[p]);
    if (n->style != IDL_STYLE_PLAIN) {
        p++; /* the opening quote */
        sp->loc.col++;
    }
    sp->pos = p;
}

/* The place of byte `off` of the scalar's value. */
static idl_loc scalar_pos_at(checker *c, scalar_pos *sp, size_t off)
{
    if (!c->d->src) {
        /* No source at hand: count the value's characters, as if nothing were escaped. */
        const idl_node *n = sp->node;
        idl_loc l = n->loc;
        if (n->style == IDL_STYLE_LITERAL || n->style == IDL_STYLE_FOLDED || memchr(n->str, '\n', n->len < off ? n->len : off))
            return l;
        if (n->style == IDL_STYLE_SINGLE || n->style == IDL_STYLE_DOUBLE)
            l.col++;
        l.col += idl_char_col(n->str, 0, off > n->len ? n->len : off) - 1;
        return l;
    }
    if (off < sp->off)
        scalar_pos_start(c, sp, sp->node);
    const char *src = c->d->src;
    size_t len = c->d->src_len;
    const idl_node *n = sp->node;
    while (!sp->lost && sp->off < off && sp->off < n->len) {
        size_t p = sp->pos;
        if (p >= len) {
            sp->lost = true;
            break;
        }
        size_t src_w = utf8_width((unsigned char)src[p]), val_w = src_w;
        uint32_t cols = 1;
        size_t q = p;
        while (q < len && (src[q] == ' ' || src[q] == '\t'))
            q++;
        if (q < len && (src[q] == '\n' || src[q] == '\r')) {
            /* A line break, with the white space around it, is folded: one space, or
             * one '\n' per empty line after the first break. */
            size_t breaks = 0, last = q;
            while (q < len && (src[q] == ' ' || src[q] == '\t' || src[q] == '\n' || src[q] == '\r')) {
                if (is_break(src, len, q)) {
                    breaks++;
                    last = q + 1;
                }
                q++;
            }
            if (breaks == 0 || q >= len) {
                sp->lost = true;
                break;
            }
            sp->pos = q;
            sp->off += breaks == 1 ? 1 : breaks - 1;
            sp->loc.line += (uint32_t)breaks;
            sp->loc.col = idl_char_col(src, last, q);
            continue;
        }
        if (q > p) {
            /* Blanks within a line are themselves; step over them at once. */
            size_t step = q - p < off - sp->off ? q - p : off - sp->off;
            sp->pos += step;
            sp->off += step;
            sp->loc.col += (uint32_t)step;
            continue;
        }
        if (n->style == IDL_STYLE_SINGLE && src[p] == '\'') {
            src_w = 2; /* '' */
            val_w = 1;
            cols = 2;
        } else if (n->style == IDL_STYLE_DOUBLE && src[p] == '\\' && p + 1 < len) {
            char e = src[p + 1];
            uint32_t cp = 0;
            size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            if (digits) {
                if (!hex_value(src + p + 2, len - p - 2, digits, &cp)) {
                    sp->lost = true;
                    break;
                }
                src_w = 2 + digits;
                val_w = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            } else if (e == '\n' || e == '\r') {
                sp->lost = true; /* an escaped line break */
                break;
            } else {
                src_w = 2;
                val_w = e == 'N' || e == '_' ? 2 : e == 'L' || e == 'P' ? 3 : 1;
            }
            cols = (uint32_t)src_w;
        }
        sp->pos += src_w;
        sp->off += val_w;
        sp->loc.col += cols;
    }
    return sp->lost ? n->loc : sp->loc;
}

/* Location of byte `off` of a scalar's text (for pointing inside a type expression). */
idl_loc ck_loc_in_scalar(checker *c, const idl_node *n, size_t off)
{
    scalar_pos sp;
    scalar_pos_start(c, &sp, n);
    return scalar_pos_at(c, &sp, off);
}

const char *ck_scalar_text(const idl_node *n)
{
    switch (n->kind) {
    case IDL_NODE_MAP:
        return "a mapping";
    case IDL_NODE_SEQ:
        return "a sequence";
    default:
        return n->str;
    }
}

/* A string value, or an error naming what was found. */
const char *ck_string(checker *c, const idl_node *n, const char *what)
{
    if (ck_is_str(n))
        return n->str;
    if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ)
        ERR(c, n->loc, "%s must be a string, not %s", what, idl_node_kind_name(n));
    else
        ERR(c, n->loc, "%s must be a string, not %s '%s'; quote it", what, idl_node_kind_name(n), ck_scalar_text(n));
    return NULL;
}

char *ck_description(checker *c, const idl_node *n, const char *what)
{
    if (n->kind == IDL_NODE_NULL)
        return NULL;
    const char *s = ck_string(c, n, what);
    if (!s)
        return NULL;
    return idl_trim_description(c->a, n->str, n->len);
}

/* ---------------------------------------------------------------- the type table */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static ir_def *find_def(checker *c, const char *name)
{
    if (!c->table_cap)
        return NULL;
    for (size_t i = hash_str(name) & (c->table_cap - 1);; i = (i + 1) & (c->table_cap - 1)) {
        if (!c->table[i].name)
            return NULL;
        if (strcmp(c->table[i].name, name) == 0)
            return c->table[i].def;
    }
}

static void add_def(checker *c, ir_def *def)
{
    for (size_t i = hash_str(def->name) & (c->table_cap - 1);; i = (i + 1) & (c->table_cap - 1))
        if (!c->table[i].name) {
            c->table[i] = (def_slot){def->name, def};
            return;
        }
}

static const char *const BUILTIN_NAMES[] = {
    "int", "float", "str", "bool", "bytes", "None", "any", "Any", "content", "list", "List", "dict",
    "Dict", "set", "Set", "tuple", "Tuple", "Optional", "Union", "Literal", "True", "False",
};

static bool is_builtin_name(const char *s)
{
    for (size_t i = 0; i < COUNT(BUILTIN_NAMES); i++)
        if (strcmp(s, BUILTIN_NAMES[i]) == 0)
            return true;
    return false;
}

static bool is_type_name(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* ---------------------------------------------------------------- type expressions */

typedef struct texpr_ctx {
    const idl_node *node;  /* the scalar holding the expression */
    bool allow_content;
    scalar_pos pos;        /* for places inside it */
} texpr_ctx;

static ir_type *new_type(checker *c, ir_kind kind, idl_loc loc)
{
    ir_type *t = mcp_arena_alloc(c->a, sizeof *t);
    if (t) {
        t->kind = kind;
        t->loc = loc;
    }
    return t;
}

static bool node_value_equal(const idl_node *a, const idl_node *b);

/* Structural equality of two types as their schemas see them. */
static bool constraints_equal(const ir_constraints *x, const ir_constraints *y)
{
#define NUM_EQ(h, m) (x->h == y->h && (!x->h || (x->m.is_int == y->m.is_int && (x->m.is_int ? x->m.i == y->m.i : x->m.f == y->m.f))))
#define INT_EQ(h, f) (x->h == y->h && (!x->h || x->f == y->f))
#define STR_EQ(f) ((!x->f && !y->f) || (x->f && y->f && strcmp(x->f, y->f) == 0))
    return NUM_EQ(has_minimum, minimum) && NUM_EQ(has_maximum, maximum) &&
           NUM_EQ(has_exclusive_minimum, exclusive_minimum) && NUM_EQ(has_exclusive_maximum, exclusive_maximum) &&
           NUM_EQ(has_multiple_of, multiple_of) && INT_EQ(has_min_length, min_length) &&
           INT_EQ(has_max_length, max_length) && INT_EQ(has_min_items, min_items) &&
           INT_EQ(has_max_items, max_items) && STR_EQ(pattern) && STR_EQ(format);
#undef NUM_EQ
#undef INT_EQ
#undef STR_EQ
}

static bool type_equal(const ir_type *x, const ir_type *y)
{
    if (x->kind != y->kind || !constraints_equal(&x->c, &y->c))
        return false;
    switch (x->kind) {
    case IR_LIST:
    case IR_SET:
        return type_equal(x->elem, y->elem);
    case IR_DICT:
        return type_equal(x->elem, y->elem); /* dict[int, T] and dict[str, T] share a schema */
    case IR_TUPLE:
    case IR_UNION:
        if (x->nitems != y->nitems)
            return false;
        for (size_t i = 0; i < x->nitems; i++)
            if (!type_equal(x->items[i], y->items[i]))
                return false;
        return true;
    case IR_LITERAL:
        if (x->nvalues != y->nvalues)
            return false;
        for (size_t i = 0; i < x->nvalues; i++)
            if (!node_value_equal(x->values[i], y->values[i]))
                return false;
        return true;
    case IR_NAMED:
        return x->def == y->def;
    default:
        return true;
    }
}

/* ---------------------------------------------------------------- finding repeats
 *
 * Repeated union arms, Literal values, enum values and set items are found with
 * a hash table of indices, so that a list of 100,000 of them is checked in a
 * moment. The hashes agree with node_value_equal and type_equal. */

static uint64_t hash_mix(uint64_t h, uint64_t x)
{
    x *= 0x9E3779B97F4A7C15u;
    x ^= x >> 29;
    return (h ^ x) * 1099511628211u;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

static uint64_t node_value_hash(const idl_node *v)
{
    switch (v->kind) {
    case IDL_NODE_NULL:
        return 1;
    case IDL_NODE_BOOL:
        return v->v.b ? 2 : 3;
    case IDL_NODE_INT:
    case IDL_NODE_FLOAT: {
        /* 1 and 1.0 are the same JSON number, and 0.0 is -0.0 */
        double x = v->kind == IDL_NODE_INT ? (double)v->v.i : v->v.f;
        if (x == 0)
            x = 0;
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        return hash_mix(4, bits);
    }
    case IDL_NODE_STR:
        return hash_mix(5, hash_bytes(v->str, v->len));
    case IDL_NODE_SEQ: {
        uint64_t h = 6;
        for (size_t i = 0; i < v->n; i++)
            h = hash_mix(h, node_value_hash(v->items[i]));
        return h;
    }
    case IDL_NODE_MAP: {
        uint64_t h = 7; /* the order of the keys does not matter */
        for (size_t i = 0; i < v->n; i++)
            h += hash_mix(hash_bytes(v->pairs[i].key->str, v->pairs[i].key->len), node_value_hash(v->pairs[i].value));
        return h;
    }
    }
    return 0;
}

static uint64_t type_hash(const ir_type *t)
{
    uint64_t h = hash_mix(11, (uint64_t)t->kind);
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        return hash_mix(h, type_hash(t->elem));
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            h = hash_mix(h, type_hash(t->items[i]));
        return h;
    case IR_LITERAL:
        for (size_t i = 0; i < t->nvalues; i++)
            h = hash_mix(h, node_value_hash(t->values[i]));
        return h;
    case IR_NAMED:
        return hash_mix(h, (uint64_t)(uintptr_t)t->def);
    default:
        return h;
    }
}

/* Indices of items[] seen so far. Without memory for the table, a linear scan of
 * the indices below the new one (every caller's items before it are the ones seen). */
typedef struct index_set {
    size_t *slot;   /* index + 1; 0: empty */
    uint64_t *hash;
    size_t mask;
} index_set;

typedef bool (*items_equal_fn)(const void *items, size_t a, size_t b);

static void index_set_init(index_set *s, size_t n)
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

static void index_set_free(index_set *s)
{
    free(s->slot);
    free(s->hash);
}

/* The index of an item already seen that equals items[i] (whose hash is h), or
 * SIZE_MAX after adding i. */
static size_t index_set_add(index_set *s, uint64_t h, size_t i, const void *items, items_equal_fn eq)
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

static bool types_at_equal(const void *items, size_t a, size_t b)
{
    ir_type *const *t = items;
    return type_equal(t[a], t[b]);
}

static bool nodes_at_equal(const void *items, size_t a, size_t b)
{
    const idl_node *const *v = items;
    return node_value_equal(v[a], v[b]);
}

/* Flatten, drop duplicates, put None last; one arm left is that arm. */
static ir_type *make_union(checker *c, idl_loc loc, ir_type **arms, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += arms[i]->kind == IR_UNION ? arms[i]->nitems : 1;
    ir_type **flat = mcp_arena_alloc(c->a, (total ? total : 1) * sizeof *flat);
    if (!flat)
        return NULL;
    size_t k = 0;
    bool has_none = false;
    ir_type *none = NULL;
    index_set seen;
    index_set_init(&seen, total);
    for (size_t i = 0; i < n; i++) {
        ir_type **src = arms[i]->kind == IR_UNION ? arms[i]->items : &arms[i];
        size_t m = arms[i]->kind == IR_UNION ? arms[i]->nitems : 1;
        for (size_t j = 0; j < m; j++) {
            ir_type *t = src[j];
            if (t->kind == IR_NONE) {
                has_none = true;
                none = t;
                continue;
            }
            flat[k] = t;
            if (index_set_add(&seen, type_hash(t), k, flat, types_at_equal) == SIZE_MAX)
                k++;
        }
    }
    index_set_free(&seen);
    if (has_none)
        flat[k++] = none;
    if (k == 1)
        return flat[0];
    ir_type *u = new_type(c, IR_UNION, loc);
    if (u) {
        u->items = flat;
        u->nitems = k;
    }
    return u;
}

static idl_node *literal_node(checker *c, const texpr *e, idl_loc loc)
{
    idl_node *n = mcp_arena_alloc(c->a, sizeof *n);
    if (!n)
        return NULL;
    n->loc = loc;
    switch (e->kind) {
    case TEXPR_STRING:
        n->kind = IDL_NODE_STR;
        n->str = e->str;
        n->len = e->len;
        return n;
    case TEXPR_INT:
        n->kind = IDL_NODE_INT;
        n->v.i = e->ival;
        n->overflow = e->overflow;
        n->str = "";
        return n;
    default:
        if (strcmp(e->name, "True") == 0 || strcmp(e->name, "False") == 0) {
            n->kind = IDL_NODE_BOOL;
            n->v.b = e->name[0] == 'T';
            n->str = e->name;
            return n;
        }
        n->kind = IDL_NODE_NULL;
        n->str = "None";
        return n;
    }
}

static const char *const GENERIC_NAMES[] = {"list", "List", "set", "Set", "dict", "Dict", "tuple", "Tuple", "Optional", "Union"};

static ir_type *resolve(checker *c, texpr_ctx *x, const texpr *e);

static ir_type *resolve_name(checker *c, texpr_ctx *x, const texpr *e, idl_loc loc)
{
    static const struct {
        const char *name;
        ir_kind kind;
    } SCALARS[] = {
        {"int", IR_INT}, {"float", IR_FLOAT}, {"str", IR_STR},   {"bool", IR_BOOL},
        {"bytes", IR_BYTES}, {"None", IR_NONE}, {"any", IR_ANY}, {"Any", IR_ANY},
    };
    for (size_t i = 0; i < COUNT(SCALARS); i++)
        if (strcmp(e->name, SCALARS[i].name) == 0)
            return new_type(c, SCALARS[i].kind, loc);
    if (strcmp(e->name, "content") == 0) {
        if (!x->allow_content) {
            ERR(c, loc, "'content' is only allowed as a tool's whole return type");
            return NULL;
        }
        return new_type(c, IR_CONTENT, loc);
    }
    for (size_t i = 0; i < COUNT(GENERIC_NAMES); i++)
        if (strcmp(e->name, GENERIC_NAMES[i]) == 0) {
            ERR(c, loc, "'%s' needs type arguments, e.g. '%s'", e->name,
                e->name[0] == 'd' || e->name[0] == 'D' ? "dict[str, int]"
                : e->name[0] == 'O'                    ? "Optional[int]"
                : e->name[0] == 'U'                    ? "Union[int, str]"
                : e->name[0] == 't' || e->name[0] == 'T' ? "tuple[int, str]"
                                                        : "list[int]");
            return NULL;
        }
    if (strcmp(e->name, "Literal") == 0) {
        ERR(c, loc, "'Literal' needs values, e.g. Literal['a', 'b']");
        return NULL;
    }
    if (strcmp(e->name, "True") == 0 || strcmp(e->name, "False") == 0) {
        ERR(c, loc, "expected a type, found '%s'; write Literal[%s]", e->name, e->name);
        return NULL;
    }
    ir_def *def = find_def(c, e->name);
    if (!def) {
        /* A suggestion compares the name with every type's: a file with thousands of
         * unknown names among thousands of types gets suggestions until a budget of
         * comparisons is spent (and none once the diagnostics are cut short). */
        bool shown = c->d->len < c->d->max_items && c->srv->ndefs <= c->suggest_budget;
        if (shown)
            c->suggest_budget -= c->srv->ndefs;
        const char *near = shown ? idl_did_you_mean(e->name, c->def_names, c->srv->ndefs) : NULL;
        if (!near && shown) {
            static const char *const KNOWN[] = {"int", "float", "str", "bool", "bytes", "None", "any"};
            near = idl_did_you_mean(e->name, KNOWN, COUNT(KNOWN));
        }
        if (near)
            ERR(c, loc, "unknown type '%s'; did you mean '%s'?", e->name, near);
        else
            ERR(c, loc, "unknown type '%s'", e->name);
        return NULL;
    }
    ir_type *t = new_type(c, IR_NAMED, loc);
    if (t)
        t->def = def;
    return t;
}

static bool check_arity(checker *c, const texpr *e, idl_loc loc, size_t want, const char *example)
{
    if (e->nargs == want)
        return true;
    ERR(c, loc, "'%s' takes %zu type argument%s, not %zu (e.g. '%s')", e->name, want, want == 1 ? "" : "s",
        e->nargs, example);
    return false;
}

static ir_type *resolve_generic(checker *c, texpr_ctx *x, const texpr *e, idl_loc loc)
{
    const char *h = e->name;
    /* `...` is only allowed as the second argument of tuple. */
    bool is_tuple = strcmp(h, "tuple") == 0 || strcmp(h, "Tuple") == 0;
    for (size_t i = 0; i < e->nargs; i++)
        if (e->args[i]->kind == TEXPR_ELLIPSIS && !(is_tuple && i == 1 && e->nargs == 2)) {
            ERR(c, scalar_pos_at(c, &x->pos, e->args[i]->off), "'...' is only allowed in tuple[T, ...]");
            return NULL;
        }
    if (strcmp(h, "list") == 0 || strcmp(h, "List") == 0 || strcmp(h, "set") == 0 || strcmp(h, "Set") == 0) {
        if (!check_arity(c, e, loc, 1, h[0] == 's' || h[0] == 'S' ? "set[str]" : "list[str]"))
            return NULL;
        ir_type *elem = resolve(c, x, e->args[0]);
        if (!elem)
            return NULL;
        ir_type *t = new_type(c, h[0] == 's' || h[0] == 'S' ? IR_SET : IR_LIST, loc);
        if (t)
            t->elem = elem;
        return t;
    }
    if (strcmp(h, "dict") == 0 || strcmp(h, "Dict") == 0) {
        if (!check_arity(c, e, loc, 2, "dict[str, int]"))
            return NULL;
        const texpr *k = e->args[0];
        bool int_keys = false;
        if (k->kind == TEXPR_NAME && strcmp(k->name, "int") == 0)
            int_keys = true;
        else if (!(k->kind == TEXPR_NAME && strcmp(k->name, "str") == 0)) {
            if (k->kind == TEXPR_NAME)
                ERR(c, scalar_pos_at(c, &x->pos, k->off), "dict keys must be 'str' or 'int', not '%s'", k->name);
            else
                ERR(c, scalar_pos_at(c, &x->pos, k->off), "dict keys must be 'str' or 'int'");
            return NULL;
        }
        ir_type *v = resolve(c, x, e->args[1]);
        if (!v)
            return NULL;
        ir_type *t = new_type(c, IR_DICT, loc);
        if (t) {
            t->elem = v;
            t->int_keys = int_keys;
        }
        return t;
    }
    if (is_tuple) {
        if (e->nargs == 2 && e->args[1]->kind == TEXPR_ELLIPSIS) {
            ir_type *elem = resolve(c, x, e->args[0]);
            if (!elem)
                return NULL;
            ir_type *t = new_type(c, IR_LIST, loc);
            if (t) {
                t->elem = elem;
                t->tuple_variadic = true;
            }
            return t;
        }
        ir_type **items = mcp_arena_alloc(c->a, e->nargs * sizeof *items);
        if (!items)
            return NULL;
        bool ok = true;
        for (size_t i = 0; i < e->nargs; i++)
            ok &= (items[i] = resolve(c, x, e->args[i])) != NULL;
        if (!ok)
            return NULL;
        ir_type *t = new_type(c, IR_TUPLE, loc);
        if (t) {
            t->items = items;
            t->nitems = e->nargs;
        }
        return t;
    }
    if (strcmp(h, "Optional") == 0) {
        if (!check_arity(c, e, loc, 1, "Optional[str]"))
            return NULL;
        ir_type *arms[2] = {resolve(c, x, e->args[0]), new_type(c, IR_NONE, loc)};
        if (!arms[0] || !arms[1])
            return NULL;
        return make_union(c, loc, arms, 2);
    }
    if (strcmp(h, "Union") == 0) {
        ir_type **arms = mcp_arena_alloc(c->a, e->nargs * sizeof *arms);
        if (!arms)
            return NULL;
        bool ok = true;
        for (size_t i = 0; i < e->nargs; i++)
            ok &= (arms[i] = resolve(c, x, e->args[i])) != NULL;
        return ok ? make_union(c, loc, arms, e->nargs) : NULL;
    }
    if (is_builtin_name(h) || find_def(c, h)) {
        ERR(c, loc, "'%s' takes no type arguments", h);
        return NULL;
    }
    const char *near = idl_did_you_mean(h, GENERIC_NAMES, COUNT(GENERIC_NAMES));
    if (near)
        ERR(c, loc, "unknown generic type '%s'; did you mean '%s'?", h, near);
    else
        ERR(c, loc, "unknown generic type '%s'", h);
    return NULL;
}

static ir_type *resolve(checker *c, texpr_ctx *x, const texpr *e)
{
    idl_loc loc = scalar_pos_at(c, &x->pos, e->off);
    switch (e->kind) {
    case TEXPR_NAME:
        return resolve_name(c, x, e, loc);
    case TEXPR_GENERIC:
        return resolve_generic(c, x, e, loc);
    case TEXPR_UNION: {
        ir_type **arms = mcp_arena_alloc(c->a, e->nargs * sizeof *arms);
        if (!arms)
            return NULL;
        bool ok = true;
        for (size_t i = 0; i < e->nargs; i++)
            ok &= (arms[i] = resolve(c, x, e->args[i])) != NULL;
        return ok ? make_union(c, loc, arms, e->nargs) : NULL;
    }
    case TEXPR_LITERAL: {
        const idl_node **vals = mcp_arena_alloc(c->a, e->nargs * sizeof *vals);
        if (!vals)
            return NULL;
        size_t k = 0;
        index_set seen;
        index_set_init(&seen, e->nargs);
        for (size_t i = 0; i < e->nargs; i++) {
            const texpr *v = e->args[i];
            const char *problem = v->kind == TEXPR_INT && v->overflow ? "Literal integer does not fit in 64 bits"
                                  : v->kind == TEXPR_STRING && memchr(v->str, 0, v->len)
                                      ? "Literal strings cannot contain NUL characters"
                                      : NULL;
            /* The values keep the place of the Literal: finding each one's column
             * would cost a pass over the text per value. */
            const idl_node *n = problem ? NULL : literal_node(c, v, loc);
            if (!n) {
                if (problem)
                    ERR(c, scalar_pos_at(c, &x->pos, v->off), "%s", problem);
                index_set_free(&seen);
                return NULL;
            }
            vals[k] = n;
            if (index_set_add(&seen, node_value_hash(n), k, vals, nodes_at_equal) == SIZE_MAX)
                k++;
        }
        index_set_free(&seen);
        ir_type *t = new_type(c, IR_LITERAL, loc);
        if (t) {
            t->values = vals;
            t->nvalues = k;
        }
        return t;
    }
    case TEXPR_ELLIPSIS:
        ERR(c, loc, "'...' is only allowed in tuple[T, ...]");
        return NULL;
    default:
        ERR(c, loc, "expected a type");
        return NULL;
    }
}

/* Parse and resolve the type expression held by scalar `n`. */
static ir_type *parse_type(checker *c, const idl_node *n, bool allow_content, const char *what)
{
    if (!ck_is_str(n)) {
        if (n->kind == IDL_NODE_NULL)
            ERR(c, n->loc, "%s: expected a type expression, found nothing", what);
        else if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ)
            ERR(c, n->loc, "%s: expected a type expression, not %s", what, idl_node_kind_name(n));
        else
            ERR(c, n->loc, "%s: expected a type expression, not %s '%s'", what, idl_node_kind_name(n), n->str);
        return NULL;
    }
    texpr_error err;
    texpr *e = texpr_parse(c->a, n->str, n->len, 0, &err);
    if (!e) {
        ERR(c, ck_loc_in_scalar(c, n, err.off), "%s", err.message);
        return NULL;
    }
    texpr_ctx x = {n, allow_content, {0}};
    scalar_pos_start(c, &x.pos, n);
    return resolve(c, &x, e);
}

/* ---------------------------------------------------------------- values */

static bool node_value_equal(const idl_node *a, const idl_node *b)
{
    if (a->kind != b->kind) {
        /* 1 and 1.0 are the same JSON number */
        if ((a->kind == IDL_NODE_INT && b->kind == IDL_NODE_FLOAT) ||
            (a->kind == IDL_NODE_FLOAT && b->kind == IDL_NODE_INT)) {
            double x = a->kind == IDL_NODE_INT ? (double)a->v.i : a->v.f;
            double y = b->kind == IDL_NODE_INT ? (double)b->v.i : b->v.f;
            return x == y;
        }
        return false;
    }
    switch (a->kind) {
    case IDL_NODE_NULL:
        return true;
    case IDL_NODE_BOOL:
        return a->v.b == b->v.b;
    case IDL_NODE_INT:
        return a->v.i == b->v.i;
    case IDL_NODE_FLOAT:
        return a->v.f == b->v.f;
    case IDL_NODE_STR:
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case IDL_NODE_SEQ:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++)
            if (!node_value_equal(a->items[i], b->items[i]))
                return false;
        return true;
    case IDL_NODE_MAP:
        if (a->n != b->n)
            return false;
        for (size_t i = 0; i < a->n; i++) {
            const idl_node *v = idl_map_get(b, a->pairs[i].key->str);
            if (!v || !node_value_equal(a->pairs[i].value, v))
                return false;
        }
        return true;
    }
    return false;
}

static size_t utf8_chars(const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xC0) != 0x80;
    return k;
}

/* Text of a scalar for a message: at most 40 characters, control characters
 * escaped. */
static void put_shown(mcp_buf *b, const char *s, size_t n)
{
    enum { MAX_CHARS = 40 };
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if ((ch & 0xC0) != 0x80 && chars++ == MAX_CHARS) {
            mcp_buf_puts(b, "...");
            return;
        }
        if (ch == '\n')
            mcp_buf_puts(b, "\\n");
        else if (ch == '\t')
            mcp_buf_puts(b, "\\t");
        else if (ch < 0x20 || ch == 0x7F)
            mcp_buf_printf(b, "\\x%02X", ch);
        else
            mcp_buf_putc(b, (char)ch);
    }
}

/* A value for a message: 'text' for a string, the spelling of other scalars,
 * "the mapping" or "the sequence" (article_collections: "a mapping"). */
static void describe_value(mcp_buf *b, const idl_node *v)
{
    switch (v->kind) {
    case IDL_NODE_NULL:
        mcp_buf_puts(b, "null");
        break;
    case IDL_NODE_STR:
        mcp_buf_putc(b, '\'');
        put_shown(b, v->str, v->len);
        mcp_buf_putc(b, '\'');
        break;
    case IDL_NODE_MAP:
        mcp_buf_puts(b, "the mapping");
        break;
    case IDL_NODE_SEQ:
        mcp_buf_puts(b, "the sequence");
        break;
    default:
        put_shown(b, v->str, strlen(v->str));
    }
}

/* Where a value does not fit its type: the place to point at, and the value the
 * message speaks of (a mapping, for a key it should not have). */
typedef struct fault {
    idl_loc loc;
    const idl_node *subject;
} fault;

/* A bound for a message, as written: 3, 0.5, 1e+20. */
static void put_number(mcp_buf *b, ir_number n)
{
    if (n.is_int) {
        mcp_buf_printf(b, "%lld", (long long)n.i);
        return;
    }
    char t[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*g", prec, n.f);
        if (strtod(t, NULL) == n.f)
            break;
    }
    mcp_buf_puts(b, t);
}

/* Check that value `v` fits type `t`. On failure, write a message (with the path
 * inside the value when nested) into `msg` and return false. `loc` receives the
 * location of the offending part of the value. */
static bool value_fits(checker *c, const ir_type *t, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc);

static bool fits_number(const ir_type *t, const idl_node *v, mcp_buf *msg)
{
    double x;
    if (t->kind == IR_INT) {
        if (v->kind == IDL_NODE_INT && !v->overflow)
            x = (double)v->v.i;
        else if (v->kind == IDL_NODE_INT) {
            mcp_buf_puts(msg, "does not fit in a 64-bit integer");
            return false;
        } else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f) && v->v.f == floor(v->v.f) &&
                   fabs(v->v.f) < 9.2e18) {
            x = v->v.f;
        } else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f)) {
            mcp_buf_puts(msg, "is not an integer (it has a fractional part)");
            return false;
        } else {
            mcp_buf_puts(msg, "is not an integer");
            return false;
        }
    } else {
        if (v->kind == IDL_NODE_INT && !v->overflow)
            x = (double)v->v.i;
        else if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f))
            x = v->v.f;
        else if (v->kind == IDL_NODE_FLOAT) {
            mcp_buf_puts(msg, "is not a finite number");
            return false;
        } else {
            mcp_buf_puts(msg, "is not a number");
            return false;
        }
    }
    const ir_constraints *k = &t->c;
    if (k->has_minimum && x < ir_number_value(k->minimum)) {
        mcp_buf_puts(msg, "is less than the minimum ");
        put_number(msg, k->minimum);
        return false;
    }
    if (k->has_maximum && x > ir_number_value(k->maximum)) {
        mcp_buf_puts(msg, "is greater than the maximum ");
        put_number(msg, k->maximum);
        return false;
    }
    if (k->has_exclusive_minimum && x <= ir_number_value(k->exclusive_minimum)) {
        mcp_buf_puts(msg, "is not greater than exclusiveMinimum ");
        put_number(msg, k->exclusive_minimum);
        return false;
    }
    if (k->has_exclusive_maximum && x >= ir_number_value(k->exclusive_maximum)) {
        mcp_buf_puts(msg, "is not less than exclusiveMaximum ");
        put_number(msg, k->exclusive_maximum);
        return false;
    }
    if (k->has_multiple_of) {
        double m = ir_number_value(k->multiple_of);
        double q = x / m;
        if (q != floor(q)) {
            mcp_buf_puts(msg, "is not a multiple of ");
            put_number(msg, k->multiple_of);
            return false;
        }
    }
    return true;
}

static bool fits_string(const ir_type *t, const idl_node *v, mcp_buf *msg)
{
    if (v->kind != IDL_NODE_STR) {
        mcp_buf_puts(msg, "is not a string");
        return false;
    }
    if (memchr(v->str, 0, v->len)) {
        mcp_buf_puts(msg, "contains a NUL character");
        return false;
    }
    size_t n = utf8_chars(v->str, v->len);
    if (t->c.has_min_length && (int64_t)n < t->c.min_length) {
        mcp_buf_printf(msg, "is shorter than minLength %lld", (long long)t->c.min_length);
        return false;
    }
    if (t->c.has_max_length && (int64_t)n > t->c.max_length) {
        mcp_buf_printf(msg, "is longer than maxLength %lld", (long long)t->c.max_length);
        return false;
    }
    if (t->c.pattern && idl_pattern_matches(t->c.pattern, strlen(t->c.pattern), v->str, v->len) == 0) {
        mcp_buf_printf(msg, "does not match pattern '%s'", t->c.pattern);
        return false;
    }
    return true;
}

/* A dict[int, T] key: -?(0|[1-9][0-9]*) within int64. */
static bool is_int64_key(const char *s)
{
    const char *p = s + (*s == '-');
    if (!*p || (*p == '0' && p[1]))
        return false;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return false;
    errno = 0;
    char *end;
    (void)strtoll(s, &end, 10);
    return errno != ERANGE;
}

static void path_push_key(mcp_buf *path, const char *key)
{
    if (path->len)
        mcp_buf_putc(path, '.');
    mcp_buf_puts(path, key);
}

static void path_push_index(mcp_buf *path, size_t i)
{
    if (path->len)
        mcp_buf_putc(path, '.');
    mcp_buf_printf(path, "%zu", i);
}

/* Names with their index, sorted by name then index: collisions are found in
 * n log n, so a type with 100,000 fields is checked in a moment. */
typedef struct name_ix {
    const char *name;
    size_t ix;
} name_ix;

static int name_ix_cmp(const void *a, const void *b)
{
    const name_ix *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    if (r)
        return r;
    return x->ix < y->ix ? -1 : x->ix > y->ix;
}

/* The first position in sorted v[0..n) whose name is not less than `name`. */
static size_t name_ix_lower(const name_ix *v, size_t n, const char *name)
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

/* Sorted (name, index) pairs of `names`, in malloc'd memory (free it), or NULL. */
static name_ix *sorted_index(const char *const *names, size_t stride, size_t n)
{
    name_ix *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (name_ix){*(const char *const *)((const char *)names + i * stride), i};
    qsort(v, n, sizeof *v, name_ix_cmp);
    return v;
}

/* The index of the entry of sorted v[0..n) named `name` whose length (len_of) is
 * `len`, or SIZE_MAX: names may hold NUL characters, which strcmp does not see. */
static size_t sorted_find(const name_ix *v, size_t n, const char *name, size_t len,
                          size_t (*len_of)(const void *ctx, size_t i), const void *ctx)
{
    for (size_t k = name_ix_lower(v, n, name); k < n && strcmp(v[k].name, name) == 0; k++)
        if (len_of(ctx, v[k].ix) == len)
            return v[k].ix;
    return SIZE_MAX;
}

static size_t key_len(const void *ctx, size_t i) { return ((const idl_node *)ctx)->pairs[i].key->len; }
static size_t field_name_len(const void *ctx, size_t i) { return strlen(((const ir_def *)ctx)->fields[i].name); }

/* The fields of a model or record. The value's keys and the type's fields are
 * looked up in sorted copies: a default of 50,000 keys is checked in a moment. */
static bool fits_fields(checker *c, const ir_def *def, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc)
{
    if (v->kind != IDL_NODE_MAP) {
        mcp_buf_printf(msg, "is not a mapping of the fields of '%s'", def->name);
        return false;
    }
    name_ix *keys = NULL;
    if (v->n) {
        keys = malloc(v->n * sizeof *keys);
        if (!keys)
            return true; /* out of memory: no verdict */
        for (size_t i = 0; i < v->n; i++)
            keys[i] = (name_ix){v->pairs[i].key->str, i};
        qsort(keys, v->n, sizeof *keys, name_ix_cmp);
    }
    bool ok = true;
    size_t mark = path->len;
    for (size_t i = 0; i < def->nfields && ok; i++) {
        const ir_field *f = &def->fields[i];
        size_t k = v->n ? sorted_find(keys, v->n, f->name, strlen(f->name), key_len, v) : SIZE_MAX;
        if (k == SIZE_MAX) {
            if (f->required) {
                loc->loc = v->loc;
                loc->subject = v;
                mcp_buf_printf(msg, "lacks the required field '%s'", f->name);
                ok = false;
            }
            continue;
        }
        path_push_key(path, f->name);
        ok = value_fits(c, f->type, v->pairs[k].value, path, msg, loc);
        if (ok) {
            path->len = mark;
            path->data[mark] = 0;
        }
    }
    free(keys);
    if (!ok || !def->extra_forbid || v->n == 0)
        return ok;
    name_ix *names = def->nfields ? sorted_index(&def->fields[0].name, sizeof *def->fields, def->nfields) : NULL;
    if (def->nfields && !names)
        return true;
    for (size_t i = 0; i < v->n; i++) {
        const idl_node *k = v->pairs[i].key;
        if (def->nfields && sorted_find(names, def->nfields, k->str, k->len, field_name_len, def) != SIZE_MAX)
            continue;
        loc->loc = k->loc;
        loc->subject = v;
        mcp_buf_printf(msg, "has the key '%s', which '%s' does not allow (extra: forbid)", k->str, def->name);
        ok = false;
        break;
    }
    free(names);
    return ok;
}

static bool value_fits(checker *c, const ir_type *t, const idl_node *v, mcp_buf *path, mcp_buf *msg, fault *loc)
{
    loc->loc = v->loc;
    loc->subject = v;
    switch (t->kind) {
    case IR_INT:
    case IR_FLOAT:
        return fits_number(t, v, msg);
    case IR_STR:
    case IR_BYTES:
        return fits_string(t, v, msg);
    case IR_BOOL:
        if (v->kind == IDL_NODE_BOOL)
            return true;
        mcp_buf_puts(msg, "is not a boolean");
        return false;
    case IR_NONE:
        if (v->kind == IDL_NODE_NULL)
            return true;
        mcp_buf_puts(msg, "is not null");
        return false;
    case IR_ANY:
        if (v->kind == IDL_NODE_FLOAT && !isfinite(v->v.f)) {
            mcp_buf_puts(msg, "is not a finite number (JSON has no NaN or infinity)");
            return false;
        }
        return true;
    case IR_CONTENT:
        return false;
    case IR_LIST:
    case IR_SET:
    case IR_TUPLE: {
        if (v->kind != IDL_NODE_SEQ) {
            mcp_buf_puts(msg, "is not a sequence");
            return false;
        }
        if (t->kind == IR_TUPLE && v->n != t->nitems) {
            mcp_buf_printf(msg, "has %zu item%s, but the tuple has %zu", v->n, v->n == 1 ? "" : "s", t->nitems);
            return false;
        }
        if (t->c.has_min_items && (int64_t)v->n < t->c.min_items) {
            mcp_buf_printf(msg, "has fewer than minItems %lld items", (long long)t->c.min_items);
            return false;
        }
        if (t->c.has_max_items && (int64_t)v->n > t->c.max_items) {
            mcp_buf_printf(msg, "has more than maxItems %lld items", (long long)t->c.max_items);
            return false;
        }
        size_t mark = path->len;
        index_set seen;
        index_set_init(&seen, t->kind == IR_SET ? v->n : 0);
        bool ok = true;
        for (size_t i = 0; i < v->n && ok; i++) {
            path_push_index(path, i);
            ok = value_fits(c, t->kind == IR_TUPLE ? t->items[i] : t->elem, v->items[i], path, msg, loc);
            if (!ok)
                break;
            path->len = mark;
            path->data[mark] = 0;
            size_t j;
            if (t->kind == IR_SET &&
                (j = index_set_add(&seen, node_value_hash(v->items[i]), i, v->items, nodes_at_equal)) != SIZE_MAX) {
                loc->loc = v->items[i]->loc;
                loc->subject = v;
                mcp_buf_puts(msg, "repeats ");
                describe_value(msg, v->items[i]);
                mcp_buf_printf(msg, " (items %zu and %zu); a set's items are unique", j, i);
                ok = false;
            }
        }
        index_set_free(&seen);
        return ok;
    }
    case IR_DICT: {
        if (v->kind != IDL_NODE_MAP) {
            mcp_buf_puts(msg, "is not a mapping");
            return false;
        }
        size_t mark = path->len;
        for (size_t i = 0; i < v->n; i++) {
            const idl_node *k = v->pairs[i].key;
            if (t->int_keys && !is_int64_key(k->str)) {
                loc->loc = k->loc;
                loc->subject = v;
                mcp_buf_printf(msg, "has the key '%s', which is not a decimal 64-bit integer", k->str);
                return false;
            }
            path_push_key(path, k->str);
            if (!value_fits(c, t->elem, v->pairs[i].value, path, msg, loc))
                return false;
            path->len = mark;
            path->data[mark] = 0;
        }
        return true;
    }
    case IR_UNION: {
        if (t->nitems == 2 && t->items[1]->kind == IR_NONE && v->kind != IDL_NODE_NULL)
            return value_fits(c, t->items[0], v, path, msg, loc); /* Optional[T]: what is wrong for T */
        mcp_buf scratch_path, scratch_msg;
        mcp_buf_init(&scratch_path);
        mcp_buf_init(&scratch_msg);
        bool ok = false;
        for (size_t i = 0; i < t->nitems && !ok; i++) {
            mcp_buf_clear(&scratch_path);
            mcp_buf_clear(&scratch_msg);
            fault l;
            ok = value_fits(c, t->items[i], v, &scratch_path, &scratch_msg, &l);
        }
        mcp_buf_free(&scratch_path);
        mcp_buf_free(&scratch_msg);
        loc->loc = v->loc;
        loc->subject = v;
        if (!ok)
            mcp_buf_puts(msg, "matches none of the types of the union");
        return ok;
    }
    case IR_LITERAL:
        for (size_t i = 0; i < t->nvalues; i++)
            if (v->kind == t->values[i]->kind && node_value_equal(v, t->values[i]))
                return true;
        mcp_buf_puts(msg, "is not one of the Literal values");
        return false;
    case IR_NAMED: {
        const ir_def *def = t->def;
        if (def->kind == IR_DEF_ENUM) {
            for (size_t i = 0; i < def->nvalues; i++)
                if (v->kind == def->values[i]->kind && node_value_equal(v, def->values[i]))
                    return true;
            mcp_buf_printf(msg, "is not a value of enum '%s'", def->name);
            return false;
        }
        return fits_fields(c, def, v, path, msg, loc);
    }
    }
    return false;
}

/* Report whether `v`, the default of field `f`, fits its type:
 *   default 'three' of 'count' in model 'Person' is not an integer
 *   default of 'home' in model 'Person' lacks the required field 'zip'
 *   default of 'tags' in model 'Person' does not fit its type: at tags.2, 'three' is not an integer */
static void check_default(checker *c, const ir_field *f, const char *owner)
{
    mcp_buf path, msg, shown;
    mcp_buf_init(&path);
    mcp_buf_init(&msg);
    mcp_buf_init(&shown);
    fault at = {f->default_value->loc, f->default_value};
    if (!value_fits(c, f->type, f->default_value, &path, &msg, &at)) {
        const idl_node *v = at.subject;
        bool collection = v->kind == IDL_NODE_MAP || v->kind == IDL_NODE_SEQ;
        describe_value(&shown, v);
        const char *m = msg.data ? msg.data : "does not fit its type";
        if (path.len)
            ERR(c, at.loc, "default of '%s' in %s does not fit its type: at %s.%s, %s %s", f->name, owner, f->name,
                path.data, shown.data ? shown.data : "", m);
        else if (collection)
            ERR(c, at.loc, "default of '%s' in %s %s", f->name, owner, m);
        else
            ERR(c, at.loc, "default %s of '%s' in %s %s", shown.data ? shown.data : "", f->name, owner, m);
    }
    mcp_buf_free(&path);
    mcp_buf_free(&msg);
    mcp_buf_free(&shown);
}

/* ---------------------------------------------------------------- constraints */

typedef enum constraint_class { CC_NUMBER, CC_LENGTH, CC_ITEMS, CC_PATTERN, CC_FORMAT } constraint_class;

static const struct {
    const char *key;
    constraint_class cls;
} CONSTRAINT_KEYS[] = {
    {"minimum", CC_NUMBER},   {"maximum", CC_NUMBER},   {"exclusiveMinimum", CC_NUMBER},
    {"exclusiveMaximum", CC_NUMBER}, {"multipleOf", CC_NUMBER}, {"minLength", CC_LENGTH},
    {"maxLength", CC_LENGTH}, {"minItems", CC_ITEMS},   {"maxItems", CC_ITEMS},
    {"pattern", CC_PATTERN},  {"format", CC_FORMAT},
};

static const char *kind_phrase(const ir_type *t)
{
    switch (t->kind) {
    case IR_INT: return "'int'";
    case IR_FLOAT: return "'float'";
    case IR_STR: return "'str'";
    case IR_BOOL: return "'bool'";
    case IR_BYTES: return "'bytes'";
    case IR_NONE: return "'None'";
    case IR_ANY: return "'any'";
    case IR_LIST: return t->tuple_variadic ? "a variadic tuple" : "a list";
    case IR_SET: return "a set";
    case IR_TUPLE: return "a fixed tuple";
    case IR_DICT: return "a dict";
    case IR_UNION: return "a union";
    case IR_LITERAL: return "a Literal";
    case IR_NAMED: return "a named type";
    case IR_CONTENT: return "'content'";
    }
    return "this type";
}

static bool class_applies(constraint_class cls, const ir_type *t)
{
    switch (cls) {
    case CC_NUMBER: return t->kind == IR_INT || t->kind == IR_FLOAT;
    case CC_LENGTH: return t->kind == IR_STR || t->kind == IR_BYTES;
    case CC_ITEMS: return t->kind == IR_LIST || t->kind == IR_SET;
    case CC_PATTERN:
    case CC_FORMAT: return t->kind == IR_STR;
    }
    return false;
}

static const char *class_types(constraint_class cls)
{
    switch (cls) {
    case CC_NUMBER: return "'int' and 'float'";
    case CC_LENGTH: return "'str' and 'bytes'";
    case CC_ITEMS: return "lists, sets and tuple[T, ...]";
    default: return "'str'";
    }
}

static bool read_number(checker *c, const idl_node *v, const char *key, ir_number *out)
{
    if (v->kind == IDL_NODE_INT && !v->overflow) {
        *out = (ir_number){.is_int = true, .i = v->v.i};
        return true;
    }
    if (v->kind == IDL_NODE_FLOAT && isfinite(v->v.f)) {
        *out = (ir_number){.is_int = false, .f = v->v.f};
        return true;
    }
    if (v->kind == IDL_NODE_FLOAT)
        ERR(c, v->loc, "'%s' must be a finite number, not %s", key, v->str);
    else if (v->kind == IDL_NODE_INT)
        ERR(c, v->loc, "'%s' does not fit in a 64-bit integer", key);
    else
        ERR(c, v->loc, "'%s' must be a number, not %s", key, idl_node_kind_name(v));
    return false;
}

static bool read_count(checker *c, const idl_node *v, const char *key, int64_t *out)
{
    if (v->kind == IDL_NODE_INT && !v->overflow && v->v.i >= 0) {
        *out = v->v.i;
        return true;
    }
    ERR(c, v->loc, "'%s' must be a non-negative integer", key);
    return false;
}

/* Apply the constraint keys of field mapping `m` to type `t` (to the non-null arm
 * of an Optional). Contradictions are reported at the second key. */
static void apply_constraints(checker *c, const idl_node *m, ir_type *t)
{
    ir_type *target = t;
    if (t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE)
        target = t->items[0];
    ir_constraints *k = &target->c;
    const idl_node *first[COUNT(CONSTRAINT_KEYS)] = {0};
    for (size_t i = 0; i < m->n; i++) {
        const char *key = m->pairs[i].key->str;
        const idl_node *v = m->pairs[i].value;
        size_t ci;
        for (ci = 0; ci < COUNT(CONSTRAINT_KEYS); ci++)
            if (strcmp(key, CONSTRAINT_KEYS[ci].key) == 0)
                break;
        if (ci == COUNT(CONSTRAINT_KEYS))
            continue;
        constraint_class cls = CONSTRAINT_KEYS[ci].cls;
        if (!class_applies(cls, target)) {
            if (target->kind == IR_UNION || target->kind == IR_NAMED || target->kind == IR_ANY)
                ERR(c, m->pairs[i].key->loc, "'%s' cannot constrain %s; it applies to %s (also inside Optional[...])",
                    key, target->kind == IR_NAMED ? mcp_arena_printf(c->a, "the named type '%s'", target->def->name)
                                                  : kind_phrase(target),
                    class_types(cls));
            else
                ERR(c, m->pairs[i].key->loc, "'%s' does not apply to %s; it applies to %s", key, kind_phrase(target),
                    class_types(cls));
            continue;
        }
        first[ci] = m->pairs[i].key;
        switch (ci) {
        case 0: k->has_minimum = read_number(c, v, key, &k->minimum); break;
        case 1: k->has_maximum = read_number(c, v, key, &k->maximum); break;
        case 2: k->has_exclusive_minimum = read_number(c, v, key, &k->exclusive_minimum); break;
        case 3: k->has_exclusive_maximum = read_number(c, v, key, &k->exclusive_maximum); break;
        case 4:
            k->has_multiple_of = read_number(c, v, key, &k->multiple_of);
            if (k->has_multiple_of && ir_number_value(k->multiple_of) <= 0) {
                ERR(c, v->loc, "'multipleOf' must be greater than 0");
                k->has_multiple_of = false;
            }
            break;
        case 5: k->has_min_length = read_count(c, v, key, &k->min_length); break;
        case 6: k->has_max_length = read_count(c, v, key, &k->max_length); break;
        case 7: k->has_min_items = read_count(c, v, key, &k->min_items); break;
        case 8: k->has_max_items = read_count(c, v, key, &k->max_items); break;
        case 9:
            if (ck_string(c, v, "'pattern'")) {
                size_t off = 0;
                const char *msg = idl_pattern_check(c->a, v->str, v->len, &off);
                if (msg)
                    ERR(c, ck_loc_in_scalar(c, v, off), "%s", msg);
                else
                    k->pattern = v->str;
            }
            break;
        case 10:
            if (ck_string(c, v, "'format'"))
                k->format = v->str;
            break;
        }
    }
    /* Contradictions. */
#define LATER(a, b) (first[a] && first[b] ? (first[a]->loc.line > first[b]->loc.line || (first[a]->loc.line == first[b]->loc.line && first[a]->loc.col > first[b]->loc.col) ? first[a] : first[b])->loc : (idl_loc){0, 0})
    if (k->has_minimum && k->has_maximum && ir_number_value(k->minimum) > ir_number_value(k->maximum))
        ERR(c, LATER(0, 1), "minimum is greater than maximum: no value can satisfy both");
    if (k->has_exclusive_minimum && k->has_exclusive_maximum &&
        ir_number_value(k->exclusive_minimum) >= ir_number_value(k->exclusive_maximum))
        ERR(c, LATER(2, 3), "exclusiveMinimum is not less than exclusiveMaximum: no value can satisfy both");
    if (k->has_minimum && k->has_exclusive_maximum && ir_number_value(k->minimum) >= ir_number_value(k->exclusive_maximum))
        ERR(c, LATER(0, 3), "minimum is not less than exclusiveMaximum: no value can satisfy both");
    if (k->has_exclusive_minimum && k->has_maximum && ir_number_value(k->exclusive_minimum) >= ir_number_value(k->maximum))
        ERR(c, LATER(2, 1), "exclusiveMinimum is not less than maximum: no value can satisfy both");
    if (k->has_min_length && k->has_max_length && k->min_length > k->max_length)
        ERR(c, LATER(5, 6), "minLength is greater than maxLength: no value can satisfy both");
    if (k->has_min_items && k->has_max_items && k->min_items > k->max_items)
        ERR(c, LATER(7, 8), "minItems is greater than maxItems: no value can satisfy both");
#undef LATER
}

/* ---------------------------------------------------------------- fields */

typedef enum field_owner { OWNER_MODEL, OWNER_RECORD, OWNER_PARAMS } field_owner;

static const char *const FIELD_KEYS[] = {
    "type", "description", "title", "default", "required", "c_name", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format",
    "minItems", "maxItems",
};

/* Parse one field (or parameter) `key: spec`. */
static bool parse_field(checker *c, const idl_pair *p, field_owner owner, const char *owner_what, ir_field *f)
{
    memset(f, 0, sizeof *f);
    const idl_node *key = p->key, *spec = p->value;
    f->name = key->str;
    f->loc = key->loc;
    if (memchr(key->str, 0, key->len)) {
        ERR(c, key->loc, "a field name cannot contain a NUL character");
        return false;
    }
    const idl_node *type_node = spec;
    const idl_node *c_name = NULL, *title = NULL, *required = NULL;
    if (spec->kind == IDL_NODE_MAP) {
        char what[300];
        snprintf(what, sizeof what, "field '%s' of %s", f->name, owner_what);
        ck_keys(c, spec, FIELD_KEYS, COUNT(FIELD_KEYS), NULL, 0, what);
        type_node = idl_map_get(spec, "type");
        if (!type_node) {
            ERR(c, key->loc, "field '%s' of %s has no 'type'", f->name, owner_what);
            return false;
        }
        const idl_node *desc = idl_map_get(spec, "description");
        if (desc)
            f->description = ck_description(c, desc, "'description'");
        title = idl_map_get(spec, "title");
        c_name = idl_map_get(spec, "c_name");
        required = idl_map_get(spec, "required");
        f->default_value = idl_map_get(spec, "default");
    }
    char what[300];
    snprintf(what, sizeof what, "type of '%s'", f->name);
    f->type = parse_type(c, type_node, false, what);
    if (!f->type)
        return false;
    if (spec->kind == IDL_NODE_MAP)
        apply_constraints(c, spec, f->type);
    if (title && ck_string(c, title, "'title'")) {
        f->title = title->str;
        f->explicit_title = true;
    } else {
        f->title = idl_title_case(c->a, f->name);
    }
    if (c_name && ck_string(c, c_name, "'c_name'")) {
        if (!idl_is_c_identifier(c_name->str) || idl_is_c_keyword(c_name->str))
            ERR(c, c_name->loc, "'c_name' must be a C identifier that is not a keyword, not '%s'", c_name->str);
        f->c_name = c_name->str;
    } else {
        f->c_name = idl_c_ident(c->a, f->name);
    }
    f->required = f->default_value == NULL;
    if (required) {
        if (required->kind != IDL_NODE_BOOL) {
            ERR(c, required->loc, "'required' must be true or false");
        } else if (owner != OWNER_RECORD && !required->v.b) {
            ERR(c, required->loc, "'required: false' is only allowed in records; give '%s' a default instead%s",
                f->name, owner == OWNER_MODEL ? ", or make its type a record (kind: record)" : "");
        } else if (owner == OWNER_RECORD) {
            f->required = required->v.b;
        }
    }
    if (owner == OWNER_RECORD && f->default_value) {
        ERR(c, ck_map_key(spec, "default")->loc,
            "records take no defaults: an absent key stays absent; write 'required: false' for '%s', "
            "or make the type a model", f->name);
        f->default_value = NULL;
    }
    return true;
}

/* Parse the mapping of fields or parameters into an array. */
static ir_field *parse_fields(checker *c, const idl_node *map, field_owner owner, const char *owner_what, size_t *n)
{
    *n = 0;
    if (!map || map->kind == IDL_NODE_NULL)
        return NULL;
    if (map->kind != IDL_NODE_MAP) {
        ERR(c, map->loc, "the fields of %s must be a mapping of NAME: TYPE, not %s", owner_what, idl_node_kind_name(map));
        return NULL;
    }
    ir_field *fields = mcp_arena_alloc(c->a, (map->n ? map->n : 1) * sizeof *fields);
    if (!fields)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < map->n; i++) {
        const idl_pair *p = &map->pairs[i];
        if (owner == OWNER_PARAMS && p->key->str[0] == '_') {
            ERR(c, p->key->loc, "parameter '%s' of %s cannot start with '_'", p->key->str, owner_what);
            continue;
        }
        if (parse_field(c, p, owner, owner_what, &fields[k]))
            k++;
    }
    *n = k;
    return fields;
}

/* ---------------------------------------------------------------- named types */

static const char *const MODEL_KEYS[] = {"kind", "description", "extra", "fields"};
static const char *const ENUM_KEYS[] = {"kind", "description", "values"};

static bool parse_extra(checker *c, const idl_node *v, bool *forbid)
{
    if (ck_str_eq(v, "ignore")) {
        *forbid = false;
        return true;
    }
    if (ck_str_eq(v, "forbid")) {
        *forbid = true;
        return true;
    }
    ERR(c, v->loc, "'extra' must be 'ignore' or 'forbid', not '%s'", ck_scalar_text(v));
    return false;
}

/* Pass 2: create a shell for every named type, so that references resolve in any order. */
static void declare_types(checker *c, const idl_node *types)
{
    if (!types || types->kind == IDL_NODE_NULL)
        return;
    if (types->kind != IDL_NODE_MAP) {
        ERR(c, types->loc, "'types' must be a mapping of NAME: definition, not %s", idl_node_kind_name(types));
        return;
    }
    size_t cap = 16;
    while (cap < types->n * 2)
        cap *= 2;
    c->table = mcp_arena_alloc(c->a, cap * sizeof *c->table);
    c->def_names = mcp_arena_alloc(c->a, (types->n ? types->n : 1) * sizeof *c->def_names);
    c->srv->defs = mcp_arena_alloc(c->a, (types->n ? types->n : 1) * sizeof *c->srv->defs);
    if (!c->table || !c->def_names || !c->srv->defs)
        return;
    c->table_cap = cap;
    for (size_t i = 0; i < types->n; i++) {
        const idl_node *k = types->pairs[i].key, *v = types->pairs[i].value;
        if (!is_type_name(k->str)) {
            ERR(c, k->loc, "invalid type name '%s': a type name is a letter or '_' followed by letters, digits or '_'",
                k->str);
            continue;
        }
        if (is_builtin_name(k->str)) {
            ERR(c, k->loc, "'%s' is a built-in type name; choose another name", k->str);
            continue;
        }
        ir_def *def = mcp_arena_alloc(c->a, sizeof *def);
        if (!def)
            return;
        def->name = k->str;
        def->loc = k->loc;
        def->c_name = mcp_arena_printf(c->a, "%s_%s", c->srv->c_prefix, k->str);
        def->kind = IR_DEF_MODEL;
        if (v->kind == IDL_NODE_MAP) {
            const idl_node *kind = idl_map_get(v, "kind");
            if (kind) {
                if (ck_str_eq(kind, "model"))
                    def->kind = IR_DEF_MODEL;
                else if (ck_str_eq(kind, "record"))
                    def->kind = IR_DEF_RECORD;
                else if (ck_str_eq(kind, "enum"))
                    def->kind = IR_DEF_ENUM;
                else {
                    static const char *const KINDS[] = {"model", "record", "enum"};
                    const char *near = ck_is_str(kind) ? idl_did_you_mean(kind->str, KINDS, 3) : NULL;
                    if (near)
                        ERR(c, kind->loc, "unknown kind '%s'; did you mean '%s'?", ck_scalar_text(kind), near);
                    else
                        ERR(c, kind->loc, "unknown kind '%s': a type is a model, a record or an enum",
                            ck_scalar_text(kind));
                }
            }
        }
        def->index = c->srv->ndefs;
        c->srv->defs[c->srv->ndefs] = def;
        c->def_names[c->srv->ndefs++] = def->name;
        add_def(c, def);
    }
}

static void define_enum(checker *c, ir_def *def, const idl_node *body)
{
    const idl_node *values = idl_map_get(body, "values");
    if (!values) {
        ERR(c, def->loc, "enum '%s' has no 'values'", def->name);
        return;
    }
    if (values->kind != IDL_NODE_SEQ || values->n == 0) {
        ERR(c, values->loc, "'values' of enum '%s' must be a non-empty list", def->name);
        return;
    }
    def->values = mcp_arena_alloc(c->a, values->n * sizeof *def->values);
    if (!def->values)
        return;
    bool strings = false, ints = false;
    index_set seen;
    index_set_init(&seen, values->n);
    for (size_t i = 0; i < values->n; i++) {
        const idl_node *v = values->items[i];
        if (v->kind == IDL_NODE_STR) {
            if (memchr(v->str, 0, v->len)) {
                ERR(c, v->loc, "enum values cannot contain NUL characters");
                continue;
            }
            if (ints) {
                ERR(c, v->loc, "enum '%s' mixes strings and integers: its values must be all strings or all integers",
                    def->name);
                continue;
            }
            strings = true;
        } else if (v->kind == IDL_NODE_INT && !v->overflow) {
            if (strings) {
                ERR(c, v->loc, "enum '%s' mixes strings and integers: its values must be all strings or all integers",
                    def->name);
                continue;
            }
            ints = true;
        } else {
            ERR(c, v->loc, "enum values must be strings or 64-bit integers, not %s%s%s", idl_node_kind_name(v),
                v->kind <= IDL_NODE_FLOAT ? " " : "", v->kind <= IDL_NODE_FLOAT ? v->str : "");
            continue;
        }
        def->values[def->nvalues] = v;
        if (index_set_add(&seen, node_value_hash(v), def->nvalues, def->values, nodes_at_equal) == SIZE_MAX)
            def->nvalues++;
        else
            ERR(c, v->loc, "enum '%s' repeats the value '%s'", def->name, v->str);
    }
    index_set_free(&seen);
    def->int_enum = ints;
}

/* Pass 3a: the bodies of named types. */
static void define_types(checker *c, const idl_node *types)
{
    if (!types || types->kind != IDL_NODE_MAP)
        return;
    for (size_t i = 0; i < types->n; i++) {
        const idl_node *k = types->pairs[i].key, *body = types->pairs[i].value;
        ir_def *def = find_def(c, k->str);
        if (!def || def->loc.line != k->loc.line || def->loc.col != k->loc.col)
            continue;
        if (body->kind != IDL_NODE_MAP) {
            ERR(c, body->kind == IDL_NODE_NULL ? k->loc : body->loc,
                "type '%s' must be a mapping (kind, fields or values, ...), not %s", def->name,
                idl_node_kind_name(body));
            continue;
        }
        char what[300];
        if (def->kind == IR_DEF_ENUM) {
            snprintf(what, sizeof what, "enum '%s'", def->name);
            static const key_hint HINTS[] = {
                {"fields", "'fields' is not allowed on an enum; an enum has 'values'"},
                {"extra", "'extra' is not allowed on an enum"},
            };
            ck_keys(c, body, ENUM_KEYS, COUNT(ENUM_KEYS), HINTS, COUNT(HINTS), what);
            define_enum(c, def, body);
        } else {
            snprintf(what, sizeof what, "%s '%s'", def->kind == IR_DEF_MODEL ? "model" : "record", def->name);
            static const key_hint HINTS[] = {
                {"values", "'values' is only allowed on enums (kind: enum)"},
            };
            ck_keys(c, body, MODEL_KEYS, COUNT(MODEL_KEYS), HINTS, COUNT(HINTS), what);
            const idl_node *extra = idl_map_get(body, "extra");
            if (extra)
                parse_extra(c, extra, &def->extra_forbid);
            def->fields = parse_fields(c, idl_map_get(body, "fields"),
                                       def->kind == IR_DEF_MODEL ? OWNER_MODEL : OWNER_RECORD, what, &def->nfields);
        }
        const idl_node *desc = idl_map_get(body, "description");
        if (desc)
            def->description = ck_description(c, desc, "'description'");
    }
}

/* ---------------------------------------------------------------- tools */

static const char *const TOOL_KEYS[] = {"description", "title", "params", "extra", "returns",
                                        "structured_output", "annotations", "c_name"};
static const char *const RETURNS_KEYS[] = {
    "type", "description", "title", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
};
static const char *const ANNOTATION_KEYS[] = {"title", "readOnlyHint", "destructiveHint", "idempotentHint",
                                              "openWorldHint"};

static bool is_tool_name(const char *s, size_t len)
{
    if (len == 0 || len > 128)
        return false;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              ch == '-' || ch == '.'))
            return false;
    }
    return true;
}

static void parse_annotations(checker *c, ir_tool *t, const idl_node *m)
{
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'annotations' must be a mapping");
        return;
    }
    char what[300];
    snprintf(what, sizeof what, "the annotations of tool '%s'", t->name);
    ck_keys(c, m, ANNOTATION_KEYS, COUNT(ANNOTATION_KEYS), NULL, 0, what);
    ir_annotations *a = &t->annotations;
    a->read_only_hint = a->destructive_hint = a->idempotent_hint = a->open_world_hint = -1;
    int *hints[] = {NULL, &a->read_only_hint, &a->destructive_hint, &a->idempotent_hint, &a->open_world_hint};
    for (size_t i = 0; i < COUNT(ANNOTATION_KEYS); i++) {
        const idl_node *v = idl_map_get(m, ANNOTATION_KEYS[i]);
        if (!v)
            continue;
        if (i == 0) {
            a->title = ck_string(c, v, "'title'");
        } else if (v->kind != IDL_NODE_BOOL) {
            ERR(c, v->loc, "'%s' must be true or false", ANNOTATION_KEYS[i]);
        } else {
            *hints[i] = v->v.b;
        }
    }
    t->has_annotations = true;
}

static void parse_returns(checker *c, ir_tool *t, const idl_node *ret_key, const idl_node *ret)
{
    const idl_node *type_node = ret;
    ir_field *r = &t->result;
    r->name = "result";
    r->c_name = "result";
    r->title = "Result";
    r->required = true;
    r->loc = ret->loc;
    if (ret->kind == IDL_NODE_MAP) {
        char what[300];
        snprintf(what, sizeof what, "the returns of tool '%s'", t->name);
        static const key_hint HINTS[] = {
            {"default", "'default' is not allowed on returns: a result is always present"},
            {"required", "'required' is not allowed on returns: a result is always present"},
        };
        ck_keys(c, ret, RETURNS_KEYS, COUNT(RETURNS_KEYS), HINTS, COUNT(HINTS), what);
        type_node = idl_map_get(ret, "type");
        if (!type_node) {
            ERR(c, ret_key->loc, "'returns' of tool '%s' has no 'type'", t->name);
            return;
        }
    }
    char what[300];
    snprintf(what, sizeof what, "returns of tool '%s'", t->name);
    t->returns = parse_type(c, type_node, true, what);
    if (!t->returns)
        return;
    const ir_type *rt = t->returns;
    if (rt->kind == IR_CONTENT)
        t->output = IR_OUTPUT_NONE;
    else if (rt->kind == IR_NAMED && rt->def->kind != IR_DEF_ENUM)
        t->output = IR_OUTPUT_OBJECT;
    else if (rt->kind == IR_DICT && !rt->int_keys)
        t->output = IR_OUTPUT_DICT;
    else
        t->output = IR_OUTPUT_WRAPPED;
    r->type = t->returns;
    if (ret->kind != IDL_NODE_MAP)
        return;
    bool decorated = false;
    for (size_t i = 0; i < ret->n; i++)
        if (strcmp(ret->pairs[i].key->str, "type") != 0)
            decorated = true;
    if (decorated && (t->output == IR_OUTPUT_OBJECT || t->output == IR_OUTPUT_DICT || rt->kind == IR_CONTENT)) {
        const char *whatis = rt->kind == IR_CONTENT ? "a 'content'" : t->output == IR_OUTPUT_DICT ? "a dict[str, T]"
                             : rt->def->kind == IR_DEF_MODEL                                   ? "a model"
                                                                                                : "a record";
        for (size_t i = 0; i < ret->n; i++) {
            bool known = false; /* an unknown key is reported once, above */
            for (size_t k = 1; k < COUNT(RETURNS_KEYS) && !known; k++)
                known = strcmp(ret->pairs[i].key->str, RETURNS_KEYS[k]) == 0;
            if (known)
                ERR(c, ret->pairs[i].key->loc,
                    "'%s' on returns applies to the wrapped 'result' property, but %s return is not wrapped",
                    ret->pairs[i].key->str, whatis);
        }
        return;
    }
    const idl_node *desc = idl_map_get(ret, "description");
    if (desc)
        r->description = ck_description(c, desc, "'description'");
    const idl_node *title = idl_map_get(ret, "title");
    if (title && ck_string(c, title, "'title'")) {
        r->title = title->str;
        r->explicit_title = true;
    }
    apply_constraints(c, ret, t->returns);
}

static void parse_tool(checker *c, ir_tool *t, const idl_node *key, const idl_node *body)
{
    memset(t, 0, sizeof *t);
    t->name = key->str;
    t->loc = key->loc;
    t->annotations.read_only_hint = t->annotations.destructive_hint = -1;
    t->annotations.idempotent_hint = t->annotations.open_world_hint = -1;
    t->c_name = idl_c_ident(c->a, t->name); /* replaced below by an explicit 'c_name' */
    if (!is_tool_name(key->str, key->len))
        ERR(c, key->loc, "invalid tool name '%s': a tool name is 1 to 128 characters, each a letter, a digit, "
            "'_', '-' or '.'", key->str);
    if (body->kind != IDL_NODE_MAP) {
        ERR(c, body->kind == IDL_NODE_NULL ? key->loc : body->loc,
            "tool '%s' must be a mapping (description, params, returns, ...), not %s", t->name,
            idl_node_kind_name(body));
        return;
    }
    char what[300];
    snprintf(what, sizeof what, "tool '%s'", t->name);
    ck_keys(c, body, TOOL_KEYS, COUNT(TOOL_KEYS), NULL, 0, what);

    const idl_node *desc = idl_map_get(body, "description");
    if (desc)
        t->description = ck_description(c, desc, "'description'");
    if (t->description && !t->description[0])
        t->description = NULL;
    if (!t->description)
        idl_diag_add(c->d, c->opts->warnings_as_errors ? IDL_ERROR : IDL_WARNING, desc ? desc->loc : key->loc,
                     "tool '%s' has %s description; clients show it to the model to choose tools", t->name,
                     desc ? "an empty" : "no");
    const idl_node *title = idl_map_get(body, "title");
    if (title)
        t->title = ck_string(c, title, "'title'");
    const idl_node *extra = idl_map_get(body, "extra");
    if (extra)
        parse_extra(c, extra, &t->extra_forbid);
    const idl_node *c_name = idl_map_get(body, "c_name");
    if (c_name && ck_string(c, c_name, "'c_name'")) {
        if (!idl_is_c_identifier(c_name->str) || idl_is_c_keyword(c_name->str))
            ERR(c, c_name->loc, "'c_name' must be a C identifier that is not a keyword, not '%s'", c_name->str);
        t->c_name = c_name->str;
    } else {
        t->c_name = idl_c_ident(c->a, t->name);
    }
    snprintf(what, sizeof what, "tool '%s'", t->name);
    t->params = parse_fields(c, idl_map_get(body, "params"), OWNER_PARAMS, what, &t->nparams);

    const idl_node *so = idl_map_get(body, "structured_output");
    t->structured = IR_STRUCTURED_AUTO;
    if (so) {
        if (so->kind == IDL_NODE_BOOL)
            t->structured = so->v.b ? IR_STRUCTURED_TRUE : IR_STRUCTURED_FALSE;
        else if (!ck_str_eq(so, "auto"))
            ERR(c, so->loc, "'structured_output' must be auto, true or false, not '%s'", ck_scalar_text(so));
    }
    const idl_node *ret = idl_map_get(body, "returns");
    if (!ret) {
        ERR(c, key->loc, "tool '%s' has no 'returns' (a type expression, or 'content')", t->name);
    } else {
        parse_returns(c, t, ck_map_key(body, "returns"), ret);
        if (t->returns && t->returns->kind == IR_CONTENT && t->structured == IR_STRUCTURED_TRUE)
            ERR(c, so->loc,
                "tool '%s' has structured_output: true, but its return type 'content' has no schema", t->name);
        if (t->structured == IR_STRUCTURED_FALSE)
            t->output = IR_OUTPUT_NONE;
    }
    const idl_node *ann = idl_map_get(body, "annotations");
    if (ann)
        parse_annotations(c, t, ann);
}

static void parse_tools(checker *c, const idl_node *tools)
{
    if (!tools || tools->kind == IDL_NODE_NULL)
        return;
    if (tools->kind != IDL_NODE_MAP) {
        ERR(c, tools->loc, "'tools' must be a mapping of NAME: tool, not %s", idl_node_kind_name(tools));
        return;
    }
    c->srv->tools = mcp_arena_alloc(c->a, (tools->n ? tools->n : 1) * sizeof *c->srv->tools);
    if (!c->srv->tools)
        return;
    for (size_t i = 0; i < tools->n; i++)
        parse_tool(c, &c->srv->tools[c->srv->ntools++], tools->pairs[i].key, tools->pairs[i].value);
}

/* ---------------------------------------------------------------- whole-file checks */

static void check_defaults(checker *c)
{
    for (size_t i = 0; i < c->srv->ndefs; i++) {
        ir_def *def = c->srv->defs[i];
        char what[300];
        snprintf(what, sizeof what, "%s '%s'", def->kind == IR_DEF_RECORD ? "record" : "model", def->name);
        for (size_t j = 0; j < def->nfields; j++)
            if (def->fields[j].default_value)
                check_default(c, &def->fields[j], what);
    }
    for (size_t i = 0; i < c->srv->ntools; i++) {
        ir_tool *t = &c->srv->tools[i];
        char what[300];
        snprintf(what, sizeof what, "tool '%s'", t->name);
        for (size_t j = 0; j < t->nparams; j++)
            if (t->params[j].default_value)
                check_default(c, &t->params[j], what);
    }
}

static bool type_finite(const ir_type *t, const bool *finite)
{
    switch (t->kind) {
    case IR_TUPLE:
        for (size_t i = 0; i < t->nitems; i++)
            if (!type_finite(t->items[i], finite))
                return false;
        return true;
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (type_finite(t->items[i], finite))
                return true;
        return false;
    case IR_NAMED:
        return finite[t->def->index];
    default:
        return true; /* scalars, and containers that may be empty */
    }
}

typedef struct ref_list {
    size_t *items;
    size_t n, cap;
} ref_list;

static void collect_refs(checker *c, const ir_type *t, ref_list *out)
{
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        collect_refs(c, t->elem, out);
        return;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            collect_refs(c, t->items[i], out);
        return;
    case IR_NAMED:
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 8;
            size_t *items = mcp_arena_realloc(c->a, out->items, out->cap * sizeof *items, cap * sizeof *items);
            if (!items)
                return;
            out->items = items;
            out->cap = cap;
        }
        out->items[out->n++] = t->def->index;
        return;
    default:
        return;
    }
}

/* The first named type that keeps `t` from being finite (type_finite is false). */
static const ir_def *infinite_part(const ir_type *t, const bool *finite)
{
    switch (t->kind) {
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (!type_finite(t->items[i], finite))
                return infinite_part(t->items[i], finite);
        return NULL;
    case IR_NAMED:
        return finite[t->def->index] ? NULL : t->def;
    default:
        return NULL;
    }
}

/* A type that can never be finite: a model that requires itself with no list,
 * Optional or dict in between, or requires such a type. The finite types are
 * found from the bottom up with a work list: a type is looked at again only when
 * a type its required fields refer to turns out finite, and a cursor remembers
 * how many of its fields are known to be finite, so that no input (a chain of
 * 100,000 types in any order) makes this quadratic. */
static void check_finite(checker *c)
{
    size_t n = c->srv->ndefs;
    if (!n)
        return;
    bool *finite = mcp_arena_alloc(c->a, n * sizeof *finite);
    size_t *cursor = mcp_arena_alloc(c->a, n * sizeof *cursor);
    ref_list *refs = mcp_arena_alloc(c->a, n * sizeof *refs);
    size_t *rev_start = mcp_arena_alloc(c->a, (n + 1) * sizeof *rev_start);
    if (!finite || !cursor || !refs || !rev_start)
        return;
    size_t nrefs = 0;
    for (size_t i = 0; i < n; i++) {
        const ir_def *def = c->srv->defs[i];
        for (size_t j = 0; j < def->nfields; j++)
            if (def->fields[j].required)
                collect_refs(c, def->fields[j].type, &refs[i]);
        nrefs += refs[i].n;
    }
    /* Who refers to whom, reversed: rev[rev_start[j] .. rev_start[j + 1]) refer to j. */
    size_t *rev = mcp_arena_alloc(c->a, (nrefs ? nrefs : 1) * sizeof *rev);
    size_t *queue = mcp_arena_alloc(c->a, (n + nrefs) * sizeof *queue);
    if (!rev || !queue)
        return;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < refs[i].n; k++)
            rev_start[refs[i].items[k] + 1]++;
    for (size_t j = 0; j < n; j++)
        rev_start[j + 1] += rev_start[j];
    size_t *fill = cursor; /* borrowed, zeroed again below */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < refs[i].n; k++) {
            size_t j = refs[i].items[k];
            rev[rev_start[j] + fill[j]++] = i;
        }
    memset(cursor, 0, n * sizeof *cursor);

    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        queue[tail++] = i;
    while (head < tail) {
        size_t i = queue[head++];
        if (finite[i])
            continue;
        const ir_def *def = c->srv->defs[i];
        while (cursor[i] < def->nfields &&
               (!def->fields[cursor[i]].required || type_finite(def->fields[cursor[i]].type, finite)))
            cursor[i]++;
        if (cursor[i] < def->nfields)
            continue;
        finite[i] = true;
        for (size_t k = rev_start[i]; k < rev_start[i + 1]; k++)
            if (!finite[rev[k]] && tail < n + nrefs)
                queue[tail++] = rev[k];
    }

    /* Each type that is not finite waits for one other (next); those on a loop of
     * waiting are the cause, the others wait for a type that is never finite. */
    size_t *next = queue; /* reused */
    uint8_t *state = mcp_arena_alloc(c->a, n); /* 0 unseen, 1 on the current walk, 2 done, 3 on a loop */
    if (!state)
        return;
    for (size_t i = 0; i < n; i++) {
        next[i] = i;
        if (!finite[i]) {
            const ir_field *f = &c->srv->defs[i]->fields[cursor[i]];
            const ir_def *d = infinite_part(f->type, finite);
            next[i] = d ? d->index : i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (finite[i] || state[i])
            continue;
        size_t v = i;
        while (!finite[v] && state[v] == 0) {
            state[v] = 1;
            v = next[v];
        }
        if (!finite[v] && state[v] == 1) /* a new loop through v */
            for (size_t w = v; state[w] != 3; w = next[w])
                state[w] = 3;
        for (size_t w = i; !finite[w] && state[w] == 1; w = next[w])
            state[w] = 2;
    }
    c->never_finite_at = mcp_arena_alloc(c->a, n * sizeof *c->never_finite_at);
    for (size_t i = 0; i < n; i++) {
        if (finite[i])
            continue;
        const ir_def *def = c->srv->defs[i];
        const ir_field *f = &def->fields[cursor[i]];
        const ir_def *d = c->srv->defs[next[i]];
        if (c->never_finite_at)
            c->never_finite_at[i] = f;
        if (d == def)
            ERR(c, f->loc,
                "type '%s' can never be finite: its required field '%s' needs another '%s'; make the field "
                "Optional, a list or a dict, or give it a default",
                def->name, f->name, def->name);
        else if (state[i] == 3)
            ERR(c, f->loc,
                "type '%s' can never be finite: its required field '%s' needs type '%s', which needs another '%s' "
                "(through required fields); make the field Optional, a list or a dict, or give it a default",
                def->name, f->name, d->name, def->name);
        else
            ERR(c, f->loc, "type '%s' can never be finite: its required field '%s' needs type '%s', which can never be finite",
                def->name, f->name, d->name);
    }
}

/* A model or record whose fields hold itself by value, directly or through
 * other types' fields (`next: {type: Node, default: ...}`): JSON allows it
 * when a default ends the recursion, but a C struct cannot contain itself.
 * Optional[...], lists, dicts, unions and tuples hold models by pointer, so
 * only plain named-type fields count. Iterative depth-first search. */
static void check_by_value_cycles(checker *c)
{
    size_t n = c->srv->ndefs;
    if (!n)
        return;
    unsigned char *state = mcp_arena_alloc(c->a, n); /* 0 new, 1 on the path, 2 done */
    size_t *stack = mcp_arena_alloc(c->a, n * sizeof *stack);
    size_t *next = mcp_arena_alloc(c->a, n * sizeof *next);
    if (!state || !stack || !next)
        return;
    for (size_t root = 0; root < n; root++) {
        if (state[root])
            continue;
        size_t sp = 0;
        stack[sp++] = root;
        state[root] = 1;
        while (sp) {
            const ir_def *d = c->srv->defs[stack[sp - 1]];
            size_t *k = &next[d->index];
            if (*k < d->nfields) {
                const ir_field *f = &d->fields[(*k)++];
                if (f->type->kind != IR_NAMED || f->type->def->kind == IR_DEF_ENUM)
                    continue;
                size_t w = f->type->def->index;
                if (state[w] == 1) {
                    /* Not again for the field already said to be never finite. */
                    if (c->never_finite_at && c->never_finite_at[d->index] == f)
                        continue;
                    const char *held = f->type->def->name;
                    if (w == d->index)
                        ERR(c, f->loc,
                            "'%s' holds a '%s' inside a '%s' by value, which a C struct cannot do; make the field "
                            "Optional[%s] (or a list)",
                            f->name, held, d->name, held);
                    else
                        ERR(c, f->loc,
                            "'%s' holds a '%s' inside a '%s' by value, which a C struct cannot do (a '%s' holds a "
                            "'%s' in turn); make the field Optional[%s] (or a list)",
                            f->name, held, d->name, held, d->name, held);
                } else if (state[w] == 0) {
                    state[w] = 1;
                    stack[sp++] = w;
                }
                continue;
            }
            state[stack[--sp]] = 2;
        }
    }
}

/* Mark the types that lie on a reference cycle (Tarjan's strongly connected
 * components, iteratively: a chain of thousands of types needs no deep stack). */
static void mark_cycles(checker *c)
{
    size_t n = c->srv->ndefs;
    if (!n)
        return;
    ref_list *edges = mcp_arena_alloc(c->a, n * sizeof *edges);
    size_t *index = mcp_arena_alloc(c->a, n * sizeof *index);   /* 0: unvisited, else order + 1 */
    size_t *low = mcp_arena_alloc(c->a, n * sizeof *low);
    bool *on_stack = mcp_arena_alloc(c->a, n * sizeof *on_stack);
    size_t *stack = mcp_arena_alloc(c->a, n * sizeof *stack);
    size_t *call = mcp_arena_alloc(c->a, n * sizeof *call);     /* DFS stack of nodes */
    size_t *next_edge = mcp_arena_alloc(c->a, n * sizeof *next_edge);
    if (!edges || !index || !low || !on_stack || !stack || !call || !next_edge)
        return;
    for (size_t i = 0; i < n; i++) {
        const ir_def *def = c->srv->defs[i];
        for (size_t j = 0; j < def->nfields; j++)
            collect_refs(c, def->fields[j].type, &edges[i]);
    }
    size_t counter = 0, sp = 0;
    for (size_t root = 0; root < n; root++) {
        if (index[root])
            continue;
        size_t depth = 0;
        call[depth++] = root;
        index[root] = low[root] = ++counter;
        stack[sp++] = root;
        on_stack[root] = true;
        while (depth) {
            size_t v = call[depth - 1];
            if (next_edge[v] < edges[v].n) {
                size_t w = edges[v].items[next_edge[v]++];
                if (w == v) {
                    c->srv->defs[v]->on_cycle = true;
                } else if (!index[w]) {
                    index[w] = low[w] = ++counter;
                    stack[sp++] = w;
                    on_stack[w] = true;
                    call[depth++] = w;
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            depth--;
            if (depth && low[v] < low[call[depth - 1]])
                low[call[depth - 1]] = low[v];
            if (low[v] == index[v]) {
                size_t count = 0, w;
                size_t start = sp;
                do {
                    w = stack[--start];
                    count++;
                } while (w != v);
                for (size_t k = start; k < sp; k++) {
                    on_stack[stack[k]] = false;
                    if (count > 1)
                        c->srv->defs[stack[k]]->on_cycle = true;
                }
                sp = start;
            }
        }
    }
}

/* Sorted (name, index) pairs of n names (NULL names left out); *m receives the count. */
static name_ix *sorted_names(checker *c, const char *const *names, size_t stride, size_t n, size_t *m)
{
    *m = 0;
    name_ix *v = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *name = *(const char *const *)((const char *)names + i * stride);
        if (name)
            v[(*m)++] = (name_ix){name, i};
    }
    qsort(v, *m, sizeof *v, name_ix_cmp);
    return v;
}

/* Two members of one C struct may not share a name; nor may a member and the
 * presence flag generated for an optional record key (has_NAME). */
static void check_member_names(checker *c, const ir_field *fields, size_t n, bool record, const char *owner)
{
    if (n < 2)
        return;
    size_t m;
    name_ix *v = sorted_names(c, &fields[0].c_name, sizeof *fields, n, &m);
    if (!v)
        return;
    for (size_t g = 0; g < m;) {
        size_t e = g + 1;
        while (e < m && strcmp(v[e].name, v[g].name) == 0)
            e++;
        for (size_t k = g + 1; k < e; k++)
            ERR(c, fields[v[k].ix].loc,
                "fields '%s' and '%s' of %s have the same C name '%s'; give one a 'c_name'", fields[v[g].ix].name,
                fields[v[k].ix].name, owner, v[k].name);
        g = e;
    }
    if (!record)
        return;
    for (size_t i = 0; i < n; i++) {
        if (fields[i].required || !fields[i].c_name)
            continue;
        const char *flag = mcp_arena_printf(c->a, "has_%s", fields[i].c_name);
        if (!flag)
            return;
        for (size_t k = name_ix_lower(v, m, flag); k < m && strcmp(v[k].name, flag) == 0; k++)
            ERR(c, fields[v[k].ix].loc,
                "field '%s' of %s has the C name '%s', which is the presence flag of the optional key '%s'; "
                "give it a 'c_name'",
                fields[v[k].ix].name, owner, flag, fields[i].name);
    }
}

static void check_c_names(checker *c)
{
    ir_server *s = c->srv;
    for (size_t i = 0; i < s->ndefs; i++) {
        const ir_def *def = s->defs[i];
        char what[300];
        snprintf(what, sizeof what, "%s '%s'", def->kind == IR_DEF_RECORD ? "record" : "model", def->name);
        check_member_names(c, def->fields, def->nfields, def->kind == IR_DEF_RECORD, what);
    }
    for (size_t i = 0; i < s->ntools; i++) {
        const ir_tool *t = &s->tools[i];
        char what[300];
        snprintf(what, sizeof what, "tool '%s'", t->name);
        check_member_names(c, t->params, t->nparams, false, what);
        if (!t->c_name)
            continue;
        /* The tool's generated names must not be a type's. */
        const char *args = mcp_arena_printf(c->a, "%s_args", t->c_name);
        const ir_def *clash[2] = {find_def(c, t->c_name), args ? find_def(c, args) : NULL};
        for (size_t j = 0; j < 2; j++)
            if (clash[j])
                ERR(c, clash[j]->loc,
                    "type '%s' has the same C name as a name generated for tool '%s' (%s_%s); rename the type "
                    "or give the tool a 'c_name'",
                    clash[j]->name, t->name, s->c_prefix, clash[j]->name);
    }
    if (s->ntools > 1) {
        size_t m;
        name_ix *v = sorted_names(c, &s->tools[0].c_name, sizeof *s->tools, s->ntools, &m);
        for (size_t g = 0; v && g < m;) {
            size_t e = g + 1;
            while (e < m && strcmp(v[e].name, v[g].name) == 0)
                e++;
            for (size_t k = g + 1; k < e; k++)
                ERR(c, s->tools[v[k].ix].loc, "tools '%s' and '%s' have the same C name '%s'; give one a 'c_name'",
                    s->tools[v[g].ix].name, s->tools[v[k].ix].name, v[k].name);
            g = e;
        }
    }
    const ir_def *server = find_def(c, "server");
    if (server)
        ERR(c, server->loc, "type 'server' has the same C name as the server table (%s_server); rename it",
            s->c_prefix);
}

/* ---------------------------------------------------------------- the top level */

static const char *const TOP_KEYS[] = {"mcpidl", "server", "types", "tools",
                                       "resources", "resource_templates", "prompts", "elicitations"};
static const char *const SERVER_KEYS[] = {"name", "version", "title", "instructions", "c_prefix", "schema_dialect"};

static void parse_server(checker *c, const idl_node *root)
{
    ir_server *s = c->srv;
    const idl_node *server = idl_map_get(root, "server");
    if (!server) {
        ERR(c, root->loc, "missing 'server' (its name and version)");
        s->c_prefix = "server";
        return;
    }
    if (server->kind != IDL_NODE_MAP) {
        ERR(c, server->loc, "'server' must be a mapping with 'name' and 'version', not %s", idl_node_kind_name(server));
        s->c_prefix = "server";
        return;
    }
    ck_keys(c, server, SERVER_KEYS, COUNT(SERVER_KEYS), NULL, 0, "'server'");
    const idl_node *name = idl_map_get(server, "name");
    if (!name)
        ERR(c, ck_map_key(root, "server")->loc, "'server' has no 'name'");
    else if (ck_string(c, name, "the server's 'name'")) {
        if (!name->str[0])
            ERR(c, name->loc, "the server's 'name' cannot be empty");
        s->name = name->str;
    }
    const idl_node *version = idl_map_get(server, "version");
    if (!version)
        ERR(c, ck_map_key(root, "server")->loc, "'server' has no 'version'");
    else if (version->kind == IDL_NODE_INT || version->kind == IDL_NODE_FLOAT)
        ERR(c, version->loc, "the server's 'version' must be a string: YAML reads %s as a number; quote it: \"%s\"",
            version->str, version->str);
    else if (ck_string(c, version, "the server's 'version'"))
        s->version = version->str;
    const idl_node *v;
    if ((v = idl_map_get(server, "title")))
        s->title = ck_string(c, v, "the server's 'title'");
    if ((v = idl_map_get(server, "instructions")))
        s->instructions = ck_string(c, v, "the server's 'instructions'");
    if ((v = idl_map_get(server, "schema_dialect")))
        s->schema_dialect = ck_string(c, v, "'schema_dialect'");
    if ((v = idl_map_get(server, "c_prefix")) && ck_string(c, v, "'c_prefix'")) {
        if (!idl_is_c_identifier(v->str) || idl_is_c_keyword(v->str))
            ERR(c, v->loc, "'c_prefix' must be a C identifier, not '%s'", v->str);
        s->c_prefix = v->str;
    } else if (s->name && s->name[0]) {
        s->c_prefix = idl_c_ident(c->a, s->name);
    } else {
        s->c_prefix = "server";
    }
}

ir_server *idl_check(mcp_arena *arena, idl_diags *d, const idl_node *root, const idl_options *opts)
{
    static const idl_options DEFAULTS = {0};
    checker c = {.a = arena, .d = d, .opts = opts ? opts : &DEFAULTS, .suggest_budget = 5000000};
    size_t errors_before = d->errors;
    if (!root)
        return NULL;
    if (root->kind != IDL_NODE_MAP) {
        ERR(&c, root->loc, "the top level must be a mapping with 'mcpidl: 1', 'server', 'types' and 'tools', not %s",
            idl_node_kind_name(root));
        return NULL;
    }
    c.srv = mcp_arena_alloc(arena, sizeof *c.srv);
    if (!c.srv)
        return NULL;
    static const key_hint HINTS[] = {{"", ""}};
    ck_keys(&c, root, TOP_KEYS, COUNT(TOP_KEYS), HINTS, 0, "the top level");
    const idl_node *version = idl_map_get(root, "mcpidl");
    if (!version)
        ERR(&c, root->loc, "missing 'mcpidl: 1' (the version of the format) at the top level");
    else if (version->kind == IDL_NODE_STR && strcmp(version->str, "1") == 0)
        ERR(&c, version->loc, "'mcpidl' must be the number 1, not the string \"1\"; write 'mcpidl: 1' without quotes");
    else if (version->kind != IDL_NODE_INT || version->v.i != 1)
        ERR(&c, version->loc, "unsupported format version '%s': this mcpidlc reads 'mcpidl: 1'", ck_scalar_text(version));

    parse_server(&c, root);
    const idl_node *types = idl_map_get(root, "types");
    declare_types(&c, types);
    define_types(&c, types);
    parse_tools(&c, idl_map_get(root, "tools"));
    ck_beyond(&c, root);

    /* The whole-file checks also run after errors, over what did resolve, so a
     * run reports as much as it can. */
    check_defaults(&c);
    check_finite(&c);
    check_by_value_cycles(&c);
    mark_cycles(&c);
    check_c_names(&c);
    free(c.line_starts);
    return d->errors == errors_before ? c.srv : NULL;
}

ir_server *idl_compile(mcp_arena *arena, idl_diags *d, const char *src, size_t len, const idl_options *opts)
{
    idl_node *root = idl_load_yaml(arena, d, src, len, NULL);
    if (!root)
        return NULL;
    return idl_check(arena, d, root, opts);
}
