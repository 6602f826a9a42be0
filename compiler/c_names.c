/* c_names.c: the C entities of a server and their names (c_names.h). */
#include "c_names.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

bool c_is_object_def(const ir_type *t) { return t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM; }

bool c_is_optional(const ir_type *t) { return t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE; }

static bool push(c_names *n, void ***arr, size_t *len, size_t *cap, void *item)
{
    if (*len == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        void **na = mcp_arena_realloc(n->a, *arr, *cap * sizeof *na, nc * sizeof *na);
        if (!na) {
            n->oom = true;
            return false;
        }
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*len)++] = item;
    return true;
}

/* ------------------------------------------------------------------ tables of names */

/* Open addressing over strings, in the arena: the keys of types and
 * descriptors are looked up once per use of a type. */
struct c_table {
    const char **keys;
    void **values;
    size_t cap, n;
};

/* A hash of s[0..len), eight bytes at a time (the names are tens of bytes). */
static uint64_t hash_str(const char *s, size_t len)
{
    const uint64_t k = 0xFF51AFD7ED558CCDu;
    uint64_t h = 0x9E3779B97F4A7C15u ^ len, w;
    size_t i = 0;
    for (; len - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s + i, len - i);
    h = (h ^ w) * k;
    return h ^ (h >> 29);
}

/* A table for about `expected` names (it grows past them: in the arena, each
 * growth leaves the smaller arrays behind). */
c_table *c_table_new(c_names *n, size_t expected)
{
    c_table *t = mcp_arena_alloc(n->a, sizeof *t);
    if (!t)
        return NULL;
    t->cap = 16;
    while (t->cap < 2 * expected && t->cap < SIZE_MAX / 4)
        t->cap *= 2;
    t->keys = mcp_arena_alloc(n->a, t->cap * sizeof *t->keys);
    t->values = mcp_arena_alloc(n->a, t->cap * sizeof *t->values);
    return t->keys && t->values ? t : NULL;
}

/* The slot of key: its own, or the empty one it would take. */
static size_t slot_of(const c_table *t, const char *key)
{
    size_t i = hash_str(key, strlen(key)) & (t->cap - 1);
    while (t->keys[i] && strcmp(t->keys[i], key) != 0)
        i = (i + 1) & (t->cap - 1);
    return i;
}

void *c_table_get(const c_table *t, const char *key) { return t->values[slot_of(t, key)]; }

/* The first empty slot from key's. */
static size_t empty_slot(const c_table *t, const char *key)
{
    size_t i = hash_str(key, strlen(key)) & (t->cap - 1);
    while (t->keys[i])
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Key put at slot i of t, an empty one (after growing t when it is half
 * full: at the slot empty_slot gives then). */
static bool put_at(c_names *n, c_table *t, size_t i, const char *key, void *value)
{
    if (2 * (t->n + 1) > t->cap) {
        c_table bigger = {.cap = 2 * t->cap};
        bigger.keys = mcp_arena_alloc(n->a, bigger.cap * sizeof *bigger.keys);
        bigger.values = mcp_arena_alloc(n->a, bigger.cap * sizeof *bigger.values);
        if (!bigger.keys || !bigger.values) {
            n->oom = true;
            return false;
        }
        for (size_t j = 0; j < t->cap; j++)
            if (t->keys[j])
                put_at(n, &bigger, empty_slot(&bigger, t->keys[j]), t->keys[j], t->values[j]);
        *t = bigger;
        i = empty_slot(t, key);
    }
    t->keys[i] = key;
    t->values[i] = value;
    t->n++;
    return true;
}

bool c_table_put(c_names *n, c_table *t, const char *key, void *value)
{
    return put_at(n, t, empty_slot(t, key), key, value);
}

void *c_table_get_or_put(c_names *n, c_table *t, const char *key, void *value)
{
    size_t i = slot_of(t, key);
    if (t->keys[i])
        return t->values[i];
    put_at(n, t, i, key, value);
    return NULL;
}

/* ------------------------------------------------------------------ keys */

void c_literal_key(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JSTRING:
        mcp_buf_putc(b, '\'');
        mcp_buf_put(b, v->s, v->len);
        mcp_buf_putc(b, '\'');
        break;
    case MCP_JINT:
        mcp_buf_printf(b, "%lld", (long long)v->i);
        break;
    case MCP_JBOOL:
        mcp_buf_puts(b, v->b ? "True" : "False");
        break;
    default:
        mcp_buf_puts(b, "None");
    }
}

static void number_key(mcp_buf *b, const char *name, bool has, ir_number n)
{
    if (!has)
        return;
    if (n.is_int)
        mcp_buf_printf(b, "%s=%lld;", name, (long long)n.i);
    else
        mcp_buf_printf(b, "%s=%.17g;", name, n.f);
}

static void constraints_key(mcp_buf *b, const ir_constraints *c)
{
    size_t mark = b->len;
    mcp_buf_putc(b, '{');
    number_key(b, "min", c->has_minimum, c->minimum);
    number_key(b, "max", c->has_maximum, c->maximum);
    number_key(b, "xmin", c->has_exclusive_minimum, c->exclusive_minimum);
    number_key(b, "xmax", c->has_exclusive_maximum, c->exclusive_maximum);
    number_key(b, "mul", c->has_multiple_of, c->multiple_of);
    if (c->has_min_length)
        mcp_buf_printf(b, "minl=%lld;", (long long)c->min_length);
    if (c->has_max_length)
        mcp_buf_printf(b, "maxl=%lld;", (long long)c->max_length);
    if (c->has_min_items)
        mcp_buf_printf(b, "mini=%lld;", (long long)c->min_items);
    if (c->has_max_items)
        mcp_buf_printf(b, "maxi=%lld;", (long long)c->max_items);
    if (c->pattern) {
        mcp_buf_puts(b, "pat=");
        mcp_buf_puts(b, c->pattern);
        mcp_buf_putc(b, ';');
    }
    if (b->len == mark + 1)
        b->len = mark; /* no constraints: no braces */
    else
        mcp_buf_putc(b, '}');
    if (b->data)
        b->data[b->len] = 0;
}

/* What a descriptor checks beyond its type's structure. */
bool c_has_constraints(const ir_constraints *c)
{
    return c->has_minimum || c->has_maximum || c->has_exclusive_minimum || c->has_exclusive_maximum ||
           c->has_multiple_of || c->has_min_length || c->has_max_length || c->has_min_items || c->has_max_items ||
           c->pattern;
}

enum {
    KEY_CONSTRAINTS = 1, /* constraints, and the spelling tuple[T, ...]: what a descriptor checks */
    KEY_SITES = 2,       /* the C name of each Literal: the identity of a C type */
};

/* The structural key of a use of t. */
static void type_key(mcp_buf *b, const ir_type *t, c_hold h, int mode)
{
    static const char *const SCALAR[] = {
        [IR_INT] = "int",     [IR_FLOAT] = "float", [IR_STR] = "str", [IR_BOOL] = "bool",
        [IR_BYTES] = "bytes", [IR_NONE] = "None",   [IR_ANY] = "any"};
    bool full = mode & KEY_CONSTRAINTS;
    switch (t->kind) {
    case IR_INT:
    case IR_FLOAT:
    case IR_STR:
    case IR_BOOL:
    case IR_BYTES:
    case IR_NONE:
    case IR_ANY:
        mcp_buf_puts(b, SCALAR[t->kind]);
        break;
    case IR_FORMAT:
        mcp_buf_puts(b, ir_format_name(t->format));
        break;
    case IR_LIST:
        mcp_buf_puts(b, full && t->tuple_variadic ? "tuple*[" : "list[");
        type_key(b, t->elem, C_HOLD_VALUE, mode);
        mcp_buf_putc(b, ']');
        break;
    case IR_SET:
        mcp_buf_puts(b, "set[");
        type_key(b, t->elem, C_HOLD_VALUE, mode);
        mcp_buf_putc(b, ']');
        break;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int," : "dict[str,");
        type_key(b, t->elem, C_HOLD_VALUE, mode);
        mcp_buf_putc(b, ']');
        break;
    case IR_TUPLE:
    case IR_UNION:
        if (c_is_optional(t) && c_is_object_def(t->items[0])) {
            mcp_buf_puts(b, "nptr[");
            mcp_buf_puts(b, t->items[0]->def->name);
            mcp_buf_putc(b, ']');
            break;
        }
        mcp_buf_puts(b, t->kind == IR_TUPLE ? "tuple[" : c_is_optional(t) ? "opt[" : "union[");
        for (size_t i = 0; i < (c_is_optional(t) ? 1 : t->nitems); i++) {
            if (i)
                mcp_buf_putc(b, ',');
            type_key(b, t->items[i], C_HOLD_INDIRECT, mode);
        }
        mcp_buf_putc(b, ']');
        break;
    case IR_LITERAL:
        mcp_buf_puts(b, "Literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            c_literal_key(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        if (mode & KEY_SITES) {
            mcp_buf_putc(b, '@');
            mcp_buf_puts(b, t->c_name);
        }
        break;
    case IR_NAMED:
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            mcp_buf_puts(b, "ptr[");
        mcp_buf_puts(b, t->def->name);
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            mcp_buf_putc(b, ']');
        break;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        break;
    }
    if (full)
        constraints_key(b, t->c);
}

/* A buffer for a name or a key: the model's scratch while it is built (which
 * saves an allocation per use of a type), else `local`. */
static mcp_buf *scratch(c_names *n, mcp_buf *local)
{
    mcp_buf *b = n->building ? &n->scratch : local;
    if (b == local)
        mcp_buf_init(b);
    mcp_buf_clear(b);
    return b;
}

/* The text of b in the arena, and b freed unless it is the scratch. */
static const char *take(c_names *n, mcp_buf *b)
{
    const char *s = mcp_arena_strndup(n->a, b->data ? b->data : "", b->len);
    if (b->oom || !s)
        n->oom = true;
    if (b != &n->scratch)
        mcp_buf_free(b);
    return s ? s : "";
}

static const char *key_of(c_names *n, const ir_type *t, c_hold h, int mode)
{
    mcp_buf local, *b = scratch(n, &local);
    type_key(b, t, h, mode);
    return take(n, b);
}

const char *c_type_text(c_names *n, const ir_type *t, c_hold h, bool constraints)
{
    return key_of(n, t, h, constraints ? KEY_CONSTRAINTS : 0);
}

/* ------------------------------------------------------------------ name pieces */

/* A C-identifier piece for a literal value. */
static void literal_ident(mcp_buf *b, const mcp_json *v)
{
    switch (v->kind) {
    case MCP_JSTRING: {
        if (!v->len)
            mcp_buf_puts(b, "empty");
        for (size_t i = 0; i < v->len; i++) {
            unsigned char ch = (unsigned char)v->s[i];
            bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
            if (alnum || ch == '_')
                mcp_buf_putc(b, (char)ch);
            else if ((ch & 0xC0) != 0x80)
                mcp_buf_putc(b, '_');
        }
        break;
    }
    case MCP_JINT:
        if (v->i < 0)
            mcp_buf_printf(b, "m%llu", (unsigned long long)(0 - (uint64_t)v->i));
        else
            mcp_buf_printf(b, "%lld", (long long)v->i);
        break;
    case MCP_JBOOL:
        mcp_buf_puts(b, v->b ? "true" : "false");
        break;
    default:
        mcp_buf_puts(b, "none");
    }
}

/* The name piece of a type, without the prefix: str_list, WeatherData_opt, the
 * site of a Literal (Shirt_color). With `spelled`, a list written
 * tuple[T, ...] is T_tuple (a descriptor's piece; the C type is a list). A
 * tuple or union that is a `part` of another composite (an item, an arm, an
 * element) is bracketed, tuple_..._end and union_..._end, so that the names of
 * different structures differ: list[tuple[float]] is tuple_float_end_list,
 * tuple[list[float]] is tuple_float_list. */
static void base_name(c_names *n, mcp_buf *b, const ir_type *t, bool spelled, bool part)
{
    static const char *const SCALAR[] = {
        [IR_INT] = "int",     [IR_FLOAT] = "float", [IR_STR] = "str", [IR_BOOL] = "bool",
        [IR_BYTES] = "bytes", [IR_NONE] = "none",   [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_FORMAT:
        mcp_buf_puts(b, ir_format_name(t->format));
        return;
    case IR_LIST:
        base_name(n, b, t->elem, spelled, true);
        mcp_buf_puts(b, spelled && t->tuple_variadic ? "_tuple" : "_list");
        return;
    case IR_SET:
        base_name(n, b, t->elem, spelled, true);
        mcp_buf_puts(b, "_set");
        return;
    case IR_DICT:
        base_name(n, b, t->elem, spelled, true);
        mcp_buf_puts(b, t->int_keys ? "_intdict" : "_dict");
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple");
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_putc(b, '_');
            base_name(n, b, t->items[i], spelled, true);
        }
        if (part)
            mcp_buf_puts(b, "_end");
        return;
    case IR_UNION:
        if (c_is_optional(t)) {
            base_name(n, b, t->items[0], spelled, true);
            mcp_buf_puts(b, "_opt");
            return;
        }
        if (part)
            mcp_buf_puts(b, "union_");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, "_or_");
            base_name(n, b, t->items[i], spelled, true);
        }
        if (part)
            mcp_buf_puts(b, "_end");
        return;
    case IR_LITERAL:
        /* prefix_SITE: the piece is SITE (the checker names every Literal) */
        assert(t->c_name && strncmp(t->c_name, n->prefix, strlen(n->prefix)) == 0 &&
               t->c_name[strlen(n->prefix)] == '_');
        mcp_buf_puts(b, t->c_name + strlen(n->prefix) + 1);
        return;
    case IR_NAMED:
        mcp_buf_puts(b, t->def->name);
        return;
    case IR_CONTENT:
        mcp_buf_puts(b, "content");
        return;
    default:
        mcp_buf_puts(b, SCALAR[t->kind]);
    }
}

static const char *base_of(c_names *n, const ir_type *t, bool spelled)
{
    mcp_buf local, *b = scratch(n, &local);
    base_name(n, b, t, spelled, false);
    return take(n, b);
}

/* The pieces of names that generated functions and constants of a type
 * append to its name (C_NAME_COUNT, ...): an enum constant spelled like one
 * gets a '_' (SortBy's value 'name' is SortBy_name_, as SortBy_name() is a
 * function). */
static bool is_reserved_piece(const char *s)
{
    static const char *const RESERVED[] = {"COUNT", "name", "desc", "from_json", "to_json"};
    for (size_t i = 0; i < sizeof RESERVED / sizeof *RESERVED; i++)
        if (strcmp(s, RESERVED[i]) == 0)
            return true;
    return false;
}

/* Names from pieces, one per item, made unique within their type: a piece
 * met before gets _N, N the item's position from 1 (an enum's values 'a-b'
 * and 'a_b' are a_b and a_b_2). Found in a table, however many there are. */
static const char **unique_pieces(c_names *n, const char *type_name, const char **pieces, size_t count)
{
    const char **names = mcp_arena_alloc(n->a, (count ? count : 1) * sizeof *names);
    c_table *seen = c_table_new(n, count);
    if (!names || !seen) {
        n->oom = true;
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (c_table_get(seen, pieces[i]))
            names[i] = c_fmt(n, "%s_%s_%zu", type_name, pieces[i], i + 1);
        else
            names[i] = c_fmt(n, "%s_%s", type_name, pieces[i]);
        c_table_put(n, seen, pieces[i], (void *)pieces[i]);
    }
    return names;
}

/* The constants of an enum or a Literal named `type_name`. */
static const char **enum_consts(c_names *n, const char *type_name, const mcp_json *const *values, size_t count)
{
    const char **pieces = mcp_arena_alloc(n->a, (count ? count : 1) * sizeof *pieces);
    if (!pieces) {
        n->oom = true;
        return NULL;
    }
    mcp_buf b;
    mcp_buf_init(&b);
    for (size_t i = 0; i < count; i++) {
        mcp_buf_clear(&b);
        literal_ident(&b, values[i]);
        if (is_reserved_piece(b.data))
            mcp_buf_putc(&b, '_');
        pieces[i] = mcp_arena_strndup(n->a, b.data, b.len);
        if (b.oom || !pieces[i]) {
            mcp_buf_free(&b);
            n->oom = true;
            return NULL;
        }
    }
    mcp_buf_free(&b);
    return unique_pieces(n, type_name, pieces, count);
}

/* The members of a union: each arm's name piece, a keyword with a '_'. Also
 * the piece of its tag constant (TYPE_MEMBER). */
static const char **union_arms(c_names *n, const ir_type *u)
{
    const char **pieces = mcp_arena_alloc(n->a, u->nitems * sizeof *pieces);
    if (!pieces) {
        n->oom = true;
        return NULL;
    }
    for (size_t i = 0; i < u->nitems; i++) {
        pieces[i] = base_of(n, u->items[i], false);
        if (idl_is_c_keyword(pieces[i]))
            pieces[i] = c_fmt(n, "%s_", pieces[i]);
    }
    const char **names = unique_pieces(n, "", pieces, u->nitems);
    for (size_t i = 0; names && i < u->nitems; i++)
        names[i] += 1; /* without the '_' of the empty type name */
    return names;
}

/* ------------------------------------------------------------------ C types */

static void add_struct(c_names *n, c_struct *s)
{
    assert(!c_struct_find(n, s->key)); /* one struct per key */
    s->index = n->nstructs;
    push(n, (void ***)&n->structs, &n->nstructs, &n->cap_structs, s);
    c_table_put(n, n->struct_keys, s->key, s);
}

c_struct *c_struct_find(const c_names *n, const char *key) { return c_table_get(n->struct_keys, key); }

c_struct *c_struct_of(c_names *n, const ir_type *t, c_hold h) { return c_struct_find(n, key_of(n, t, h, KEY_SITES)); }

/* Register the composite (or Literal) C type of t and return its name. */
static const char *composite(c_names *n, const ir_type *t, c_hold h)
{
    const char *key = key_of(n, t, h, KEY_SITES);
    c_struct *s = c_struct_find(n, key);
    if (s)
        return s->name;
    s = mcp_arena_alloc(n->a, sizeof *s);
    if (!s) {
        n->oom = true;
        return "void";
    }
    const char *name = t->kind == IR_LITERAL ? t->c_name : c_fmt(n, "%s_%s", n->prefix, base_of(n, t, false));
    *s = (c_struct){.key = key, .name = name, .t = t, .h = h, .is_enum = t->kind == IR_LITERAL};
    if (t->kind == IR_LITERAL)
        s->consts = enum_consts(n, name, t->values, t->nvalues);
    if (t->kind == IR_UNION && !c_is_optional(t))
        s->arms = union_arms(n, t);
    add_struct(n, s);
    /* register what it contains */
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        c_type_of(n, t->elem, C_HOLD_VALUE);
        break;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            c_type_of(n, t->items[i], C_HOLD_INDIRECT);
        break;
    default:
        break;
    }
    return name;
}

const char *c_type_of(c_names *n, const ir_type *t, c_hold h)
{
    switch (t->kind) {
    case IR_INT:
        return "int64_t";
    case IR_FLOAT:
        return "double";
    case IR_STR:
    case IR_FORMAT:
        return "const char *";
    case IR_BOOL:
        return "bool";
    case IR_BYTES:
        return "mcp_bytes";
    case IR_NONE:
        return "mcp_none";
    case IR_ANY:
        return "const mcp_json *";
    case IR_NAMED:
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            return c_fmt(n, "const %s *", t->def->c_name);
        return t->def->c_name;
    case IR_UNION:
        if (c_is_optional(t) && c_is_object_def(t->items[0]))
            return c_fmt(n, "const %s *", t->items[0]->def->c_name);
        return composite(n, t, h);
    case IR_CONTENT:
        return "void";
    default:
        return composite(n, t, h);
    }
}

/* ------------------------------------------------------------------ descriptors */

static c_desc *new_desc(c_names *n, const char *key, const char *name, const ir_type *t, c_hold h)
{
    c_desc *d = mcp_arena_alloc(n->a, sizeof *d);
    if (!d) {
        n->oom = true;
        return NULL;
    }
    *d = (c_desc){.key = key, .name = name, .t = t, .h = h};
    push(n, (void ***)&n->descs, &n->ndescs, &n->cap_descs, d);
    c_table_put(n, n->desc_keys, key, d);
    return d;
}

static c_desc *desc_at(c_names *n, const ir_type *t, c_hold h, const char *site);

/* Whether t holds constraints of its own: the type of a field, or the value of
 * an Optional one. */
static bool holds_constraints(const ir_type *t)
{
    return c_has_constraints(t->c) || (c_is_optional(t) && c_has_constraints(t->items[0]->c));
}

static const char *desc_of(c_names *n, const ir_type *t, c_hold h, const char *site)
{
    const c_desc *d = desc_at(n, t, h, site);
    return d ? d->name : "oom";
}

/* The descriptor of the type of a field (or of a tool's result), which
 * belongs to the field when it holds the field's constraints: then
 * `what`, with the field's place, says so in messages. */
static const char *field_desc(c_names *n, const ir_field *f, const char *site, const char *what)
{
    c_desc *d = desc_at(n, f->type, C_HOLD_VALUE, site);
    if (!d)
        return "oom";
    if (d->site && !d->what) {
        d->what = what;
        d->loc = f->loc;
    }
    return d->name;
}

/* An object's descriptor: its fields' descriptors first; `owner` is the C
 * name that the sites of the fields' constraints are named after, and
 * `owner_what` names it in messages ("model 'Shirt'"). */
static void object_desc(c_names *n, c_desc *d, const char *cname, const char *owner, const char *owner_what,
                        const char *title, const ir_field *fields, size_t nfields, bool forbid, bool record)
{
    d->object = true;
    d->ctype = cname;
    d->title = title;
    d->fields = fields;
    d->nfields = nfields;
    d->forbid = forbid;
    d->record = record;
    d->field_descs = mcp_arena_alloc(n->a, (nfields ? nfields : 1) * sizeof *d->field_descs);
    if (!d->field_descs) {
        n->oom = true;
        return;
    }
    for (size_t i = 0; i < nfields; i++) {
        const ir_field *f = &fields[i];
        d->field_descs[i] = holds_constraints(f->type) ? field_desc(n, f, c_fmt(n, "%s_%s_field", owner, f->c_name),
                                                                    c_fmt(n, "field '%s' of %s", f->name, owner_what))
                                                       : desc_of(n, f->type, C_HOLD_VALUE, NULL);
    }
    push(n, (void ***)&n->bodies, &n->nbodies, &n->cap_bodies, d);
}

/* The descriptor of a use of t. A type with constraints (the type of a field,
 * or the value of an Optional one) belongs to its field: its name is the
 * field's `site` (PREFIX_Shirt_size_field_desc); any other is shared by the
 * uses of its structure, and named after it (PREFIX_str_list_desc). */
static c_desc *desc_at(c_names *n, const ir_type *t, c_hold h, const char *site)
{
    bool at_site = holds_constraints(t);
    assert(!at_site || site); /* constraints are written on fields, or on the result of a tool */
    const char *key = at_site ? c_fmt(n, "field:%s", site) : key_of(n, t, h, KEY_CONSTRAINTS | KEY_SITES);
    c_desc *d = c_table_get(n->desc_keys, key);
    if (d)
        return d;
    if (t->kind == IR_NAMED && h == C_HOLD_VALUE && c_def_imported(t->def)) {
        /* Defined (and exported) by the imported file's own C. */
        d = new_desc(n, key, c_fmt(n, C_NAME_DESC, t->def->c_name), t, h);
        if (d) {
            d->ctype = t->def->c_name;
            d->exported = d->imported = true;
        }
        return d;
    }
    const char *name;
    if (at_site)
        name = c_fmt(n, "%s_%s_desc", n->prefix, site);
    else if (t->kind == IR_NAMED && h == C_HOLD_INDIRECT && c_is_object_def(t))
        name = c_fmt(n, "%s_%s_ptr_desc", n->prefix, t->def->name);
    else
        name = c_fmt(n, "%s_%s_desc", n->prefix, base_of(n, t, true));
    d = new_desc(n, key, name, t, h);
    if (!d)
        return NULL;
    d->ctype = c_type_of(n, t, h);
    d->site = at_site;

    /* A model or record held by pointer. */
    d->ptr = (t->kind == IR_NAMED && h == C_HOLD_INDIRECT && c_is_object_def(t)) ||
             (c_is_optional(t) && c_is_object_def(t->items[0]));
    if (d->ptr) {
        d->elem = desc_of(n, t->kind == IR_NAMED ? t : t->items[0], C_HOLD_VALUE, NULL);
    } else if (t->kind == IR_NAMED && t->def->kind != IR_DEF_ENUM) {
        const ir_def *def = t->def;
        object_desc(n, d, def->c_name, def->name,
                    c_fmt(n, "%s '%s'", def->kind == IR_DEF_RECORD ? "record" : "model", def->name), def->name,
                    def->fields, def->nfields, def->extra_forbid, def->kind == IR_DEF_RECORD);
        return d;
    } else if (t->kind == IR_LIST || t->kind == IR_SET || t->kind == IR_DICT) {
        d->elem = desc_of(n, t->elem, C_HOLD_VALUE, NULL);
    } else if (c_is_optional(t)) {
        d->elem = desc_of(n, t->items[0], C_HOLD_INDIRECT, at_site ? c_fmt(n, "%s_value", site) : NULL);
    } else if (t->kind == IR_TUPLE || t->kind == IR_UNION) {
        d->items = mcp_arena_alloc(n->a, t->nitems * sizeof *d->items);
        if (!d->items) {
            n->oom = true;
            return d;
        }
        for (size_t i = 0; i < t->nitems; i++)
            d->items[i] = desc_of(n, t->items[i], C_HOLD_INDIRECT, NULL);
    }
    push(n, (void ***)&n->bodies, &n->nbodies, &n->cap_bodies, d);
    return d;
}

/* ------------------------------------------------------------------ the model */

/* Every C type: every named type, then every tool's arguments and result,
 * every form, and what they hold. */
static bool add_types(c_names *n)
{
    mcp_arena *a = n->a;
    const ir_server *srv = n->srv;
    for (size_t i = 0; i < srv->ndefs; i++) {
        const ir_def *def = srv->defs[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (c_struct){.key = def->name,
                        .name = def->c_name,
                        .def = def,
                        .is_enum = def->kind == IR_DEF_ENUM,
                        .imported = c_def_imported(def)};
        if (s->is_enum)
            s->consts = enum_consts(n, s->name, def->values, def->nvalues);
        add_struct(n, s);
    }
    for (size_t i = 0; i < srv->ndefs; i++)
        for (size_t j = 0; j < srv->defs[i]->nfields && !c_def_imported(srv->defs[i]); j++)
            c_type_of(n, srv->defs[i]->fields[j].type, C_HOLD_VALUE);
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (c_struct){.key = c_fmt(n, "args:%s", t->name),
                        .name = c_fmt(n, C_NAME_ARGS, n->prefix, t->c_name),
                        .args_of = t};
        add_struct(n, s);
        for (size_t j = 0; j < t->nparams; j++)
            c_type_of(n, t->params[j].type, C_HOLD_VALUE);
        if (t->returns)
            c_out_type(n, t);
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        c_struct *s = mcp_arena_alloc(a, sizeof *s);
        if (!s)
            return false;
        *s = (c_struct){.key = c_fmt(n, "form:%s", e->name),
                        .name = c_fmt(n, C_NAME_FORM, n->prefix, e->c_name),
                        .form_of = e};
        add_struct(n, s);
        for (size_t j = 0; j < e->nfields; j++)
            c_type_of(n, e->fields[j].type, C_HOLD_VALUE);
    }
    return !n->oom;
}

/* Every descriptor (which also registers every C type a descriptor needs):
 * the named types' (their codec functions use them), then the tools' and
 * the forms'. */
static bool add_descs(c_names *n)
{
    mcp_arena *a = n->a;
    const ir_server *srv = n->srv;
    size_t nd = srv->ndefs ? srv->ndefs : 1, nt = srv->ntools ? srv->ntools : 1;
    n->def_desc = mcp_arena_alloc(a, nd * sizeof *n->def_desc);
    n->args_desc = mcp_arena_alloc(a, nt * sizeof *n->args_desc);
    n->result_desc = mcp_arena_alloc(a, nt * sizeof *n->result_desc);
    n->form_desc = mcp_arena_alloc(a, (srv->nelicitations ? srv->nelicitations : 1) * sizeof *n->form_desc);
    if (!n->def_desc || !n->args_desc || !n->result_desc || !n->form_desc)
        return false;
    for (size_t i = 0; i < srv->ndefs; i++) {
        ir_type *t = mcp_arena_alloc(a, sizeof *t);
        if (!t)
            return false;
        *t = (ir_type){.kind = IR_NAMED, .def = srv->defs[i], .loc = srv->defs[i]->loc, .c = &ir_no_constraints};
        c_desc *d = desc_at(n, t, C_HOLD_VALUE, NULL);
        if (!d)
            return false;
        d->exported = true;
        n->def_desc[i] = d->name;
    }
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const char *args = c_fmt(n, C_NAME_ARGS, n->prefix, t->c_name);
        c_desc *d = new_desc(n, c_fmt(n, "args:%s", t->name), c_fmt(n, C_NAME_DESC, args), NULL, C_HOLD_VALUE);
        if (!d)
            return false;
        object_desc(n, d, args, c_fmt(n, "%s_args", t->c_name), c_fmt(n, "tool '%s'", t->name),
                    c_fmt(n, "%sArguments", t->name), t->params, t->nparams, t->extra_forbid, false);
        n->args_desc[i] = d->name;
        if (!t->returns || t->returns->kind == IR_CONTENT)
            n->result_desc[i] = NULL;
        else if (holds_constraints(t->returns))
            n->result_desc[i] = field_desc(n, &t->result, c_fmt(n, "%s_result_field", t->c_name),
                                           c_fmt(n, "the result of tool '%s'", t->name));
        else
            n->result_desc[i] = desc_of(n, t->returns, C_HOLD_VALUE, NULL);
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        const char *form = c_fmt(n, C_NAME_FORM, n->prefix, e->c_name);
        c_desc *d = new_desc(n, c_fmt(n, "form:%s", e->name), c_fmt(n, C_NAME_DESC, form), NULL, C_HOLD_VALUE);
        if (!d)
            return false;
        object_desc(n, d, form, c_fmt(n, "%s_form", e->c_name), c_fmt(n, "elicitation '%s'", e->name), e->name,
                    e->fields, e->nfields, false, true);
        n->form_desc[i] = d->name;
    }
    return !n->oom;
}

c_names *c_names_new(mcp_arena *a, const ir_server *srv, idl_diags *d, size_t *collisions)
{
    c_names *n = mcp_arena_alloc(a, sizeof *n);
    if (!n)
        return NULL;
    *n = (c_names){.a = a, .srv = srv, .prefix = srv->c_prefix, .building = true};
    /* Sized for what a file of this many declarations has, roughly. */
    size_t decls = c_declarations(srv);
    n->struct_keys = c_table_new(n, 2 * decls);
    n->desc_keys = c_table_new(n, 3 * decls);
    bool ok = n->struct_keys && n->desc_keys && add_types(n) && add_descs(n) && c_check_names(n, d, collisions);
    mcp_buf_free(&n->scratch);
    n->building = false;
    return ok && !n->oom ? n : NULL;
}
