/* emit_schema.c: IR -> JSON Schema, as the MCP Python SDK (pydantic) writes it. */
#include "emit_schema.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "defs_order.h"
#include "fmt.h"
#include "mcpidl/jsonw.h"

/* The values of "type" and "format" that every schema repeats: one node each,
 * shared (the schemas are not changed once built). */
enum { WORD_INTEGER, WORD_NUMBER, WORD_STRING, WORD_BINARY, WORD_BOOLEAN, WORD_NULL, WORD_ARRAY, WORD_OBJECT, NWORDS };
static const char *const WORDS[NWORDS] = {"integer", "number", "string", "binary",
                                          "boolean", "null",   "array",  "object"};

struct schema_emitter {
    mcp_arena *a;    /* where the schema being built goes: */
    mcp_arena *keep; /* e's own arena, or the caller's scratch (schema_scratch) */
    sj b;            /* what fails while a schema is built (b.a is a) */
    mcp_json *words[NWORDS];
    const ir_server *srv;
    mcp_json **def_schemas; /* per def, built on first use (per schema, for a def whose siblings vary) */
    mcp_json **refs;        /* per def, {"$ref": "#/$defs/NAME"}, built on first use */
    /* The def schemas built once (def_schemas) by node, and the text each is
     * written as (at depth 0, with `text_indent`), written on first use: every
     * schema that reaches a def writes it again under its $defs. The text is
     * also kept indented for the depth it was last written at (the same one
     * for every entry of tools/list), to be copied whole. */
    const mcp_json **shared; /* open addressing, nshared slots (a power of two) */
    char **text;             /* per slot */
    size_t *text_len;
    char **deep; /* per slot: the text indented for depth deep_depth */
    size_t *deep_len, *deep_depth;
    size_t nshared;
    int text_indent;
    defs_order *order; /* when pydantic generates each definition */
    size_t tool;       /* the schema being built: of this tool, */
    bool output;       /* its output (else its input) */
    /* the $defs collected for the schema being built */
    bool *reached;
    const ir_def **reached_list;
    size_t nreached;
};

schema_emitter *schema_emitter_new(mcp_arena *a, const ir_server *srv)
{
    schema_emitter *e = mcp_arena_alloc(a, sizeof *e);
    if (!e)
        return NULL;
    e->a = e->keep = a;
    e->b = (sj){a, false};
    e->srv = srv;
    size_t n = srv->ndefs ? srv->ndefs : 1;
    e->def_schemas = mcp_arena_alloc(a, n * sizeof *e->def_schemas);
    e->refs = mcp_arena_alloc(a, n * sizeof *e->refs);
    e->nshared = 16;
    while (e->nshared < 2 * n)
        e->nshared *= 2;
    e->shared = mcp_arena_alloc(a, e->nshared * sizeof *e->shared);
    e->text = mcp_arena_alloc(a, e->nshared * sizeof *e->text);
    e->text_len = mcp_arena_alloc(a, e->nshared * sizeof *e->text_len);
    e->deep = mcp_arena_alloc(a, e->nshared * sizeof *e->deep);
    e->deep_len = mcp_arena_alloc(a, e->nshared * sizeof *e->deep_len);
    e->deep_depth = mcp_arena_alloc(a, e->nshared * sizeof *e->deep_depth);
    e->reached = mcp_arena_alloc(a, n * sizeof *e->reached);
    e->reached_list = mcp_arena_alloc(a, n * sizeof *e->reached_list);
    if (!e->def_schemas || !e->refs || !e->shared || !e->text || !e->text_len || !e->deep || !e->deep_len ||
        !e->deep_depth || !e->reached || !e->reached_list)
        return NULL;
    for (size_t i = 0; i < NWORDS; i++)
        if (!(e->words[i] = sj_str(a, WORDS[i])))
            return NULL;
    e->order = defs_order_new(a, srv);
    return e->order ? e : NULL;
}

/* ------------------------------------------------------------------ sj */

mcp_json *sj_str(mcp_arena *a, const char *s)
{
    if (!s)
        return NULL;
    mcp_json *v = mcp_json_new_null(a);
    if (v)
        *v = (mcp_json){.kind = MCP_JSTRING, .s = s, .len = strlen(s)};
    return v;
}

/* Member i of o made key: v, the members from i on moved up by one. */
static void insert_member(sj *b, mcp_json *o, size_t i, const char *key, size_t len, mcp_json *v)
{
    if (o->n >= o->cap) { /* a cap below n counts as n, as for mcp_json_set */
        size_t cap = o->n ? o->n * 2 : 4;
        mcp_json_member *m = mcp_arena_alloc(b->a, cap * sizeof *m);
        if (!m) {
            b->oom = true;
            return;
        }
        if (o->n)
            memcpy(m, o->members, o->n * sizeof *m);
        o->members = m;
        o->cap = cap;
    }
    memmove(&o->members[i + 1], &o->members[i], (o->n - i) * sizeof *o->members);
    o->members[i] = (mcp_json_member){key, len, v};
    o->n++;
}

void sj_put(sj *b, mcp_json *o, const char *key, mcp_json *v)
{
    if (!o || o->kind != MCP_JOBJECT || !key || !v) {
        b->oom = true;
        return;
    }
    size_t len = strlen(key), lo = 0, hi = o->n;
    while (lo < hi) { /* code point order: UTF-8 byte order, a prefix first */
        size_t mid = lo + (hi - lo) / 2;
        const mcp_json_member *m = &o->members[mid];
        int c = memcmp(m->key, key, m->key_len < len ? m->key_len : len);
        if (!c)
            c = (m->key_len > len) - (m->key_len < len);
        if (!c) {
            o->members[mid].value = v;
            return;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    insert_member(b, o, lo, key, len, v);
}

void sj_add(sj *b, mcp_json *o, const char *key, mcp_json *v)
{
    if (!o || o->kind != MCP_JOBJECT || !key || !v) {
        b->oom = true;
        return;
    }
    size_t len = strlen(key);
    for (size_t i = 0; i < o->n; i++) {
        mcp_json_member *m = &o->members[i];
        if (m->key_len == len && memcmp(m->key, key, len) == 0) {
            m->value = v;
            return;
        }
    }
    insert_member(b, o, o->n, key, len, v);
}

/* ------------------------------------------------------------------ schemas */

/* Build in arena a from now on; the arena built in before. */
static mcp_arena *use_arena(schema_emitter *e, mcp_arena *a)
{
    mcp_arena *was = e->a;
    e->a = e->b.a = a;
    return was;
}

void schema_scratch(schema_emitter *e, mcp_arena *scratch) { use_arena(e, scratch ? scratch : e->keep); }

static void reach(schema_emitter *e, const ir_def *def)
{
    if (!e->reached[def->index]) {
        e->reached[def->index] = true;
        e->reached_list[e->nreached++] = def;
    }
}

static void reset_reached(schema_emitter *e)
{
    for (size_t i = 0; i < e->nreached; i++)
        e->reached[e->reached_list[i]->index] = false;
    e->nreached = 0;
}

static mcp_json *type_schema(schema_emitter *e, const ir_type *t);

static void add_number(schema_emitter *e, mcp_json *o, const char *key, ir_number n)
{
    sj_put(&e->b, o, key, n.is_int ? mcp_json_new_int(e->a, n.i) : mcp_json_new_float(e->a, n.f));
}

static void add_constraints(schema_emitter *e, mcp_json *o, const ir_constraints *c)
{
    mcp_arena *a = e->a;
    if (c->has_minimum)
        add_number(e, o, "minimum", c->minimum);
    if (c->has_maximum)
        add_number(e, o, "maximum", c->maximum);
    if (c->has_exclusive_minimum)
        add_number(e, o, "exclusiveMinimum", c->exclusive_minimum);
    if (c->has_exclusive_maximum)
        add_number(e, o, "exclusiveMaximum", c->exclusive_maximum);
    if (c->has_multiple_of)
        add_number(e, o, "multipleOf", c->multiple_of);
    if (c->has_min_length)
        sj_put(&e->b, o, "minLength", mcp_json_new_int(a, c->min_length));
    if (c->has_max_length)
        sj_put(&e->b, o, "maxLength", mcp_json_new_int(a, c->max_length));
    if (c->has_min_items)
        sj_put(&e->b, o, "minItems", mcp_json_new_int(a, c->min_items));
    if (c->has_max_items)
        sj_put(&e->b, o, "maxItems", mcp_json_new_int(a, c->max_items));
    if (c->pattern)
        sj_put(&e->b, o, "pattern", sj_str(a, c->pattern));
    if (c->format)
        sj_put(&e->b, o, "format", sj_str(a, c->format));
}

static const char *literal_type(const mcp_json *const *v, size_t n)
{
    const char *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *k = v[i]->kind == MCP_JSTRING ? "string"
                        : v[i]->kind == MCP_JINT  ? "integer"
                        : v[i]->kind == MCP_JBOOL ? "boolean"
                                                  : "null";
        if (t && strcmp(t, k) != 0)
            return NULL;
        t = k;
    }
    return t;
}

/* A copy of v in which objects keep their order when `keep`, and pass it on
 * to the values of 'properties' and 'default' (through arrays); the others
 * are sorted. The IDL's values are only a few levels deep (the loader bounds
 * them), so this may recurse. */
static mcp_json *value_copy(mcp_arena *a, const mcp_json *v, bool keep)
{
    if (v->kind != MCP_JARRAY && v->kind != MCP_JOBJECT)
        return mcp_json_copy(a, v);
    mcp_json *c = v->kind == MCP_JARRAY ? mcp_json_new_array(a) : mcp_json_new_object(a);
    for (size_t i = 0; c && i < v->n; i++) {
        if (v->kind == MCP_JARRAY) {
            if (!mcp_json_append(a, c, value_copy(a, v->items[i], keep)))
                return NULL;
            continue;
        }
        const mcp_json_member *m = &v->members[i];
        bool child_keep = strcmp(m->key, "properties") == 0 || strcmp(m->key, "default") == 0;
        mcp_json *x = value_copy(a, m->value, child_keep);
        if (!(keep ? mcp_json_set(a, c, m->key, x) : mcp_json_set_sorted(a, c, m->key, x)))
            return NULL;
    }
    return c;
}

mcp_json *schema_value(mcp_arena *a, const mcp_json *v) { return v ? value_copy(a, v, true) : NULL; }

/* Merge a schema_extra into schema o, as pydantic applies json_schema_extra
 * (dict.update, then its sort): each key takes its place among the sorted
 * keys, replacing a generated one of the same name, and its value is sorted
 * like the rest of the schema. (The checker refuses the keys the IDL writes
 * itself, but for $schema at a tool's root.) */
static void merge_extra(schema_emitter *e, mcp_json *o, const mcp_json *extra)
{
    for (size_t i = 0; o && extra && i < extra->n; i++)
        sj_put(&e->b, o, extra->members[i].key, value_copy(e->a, extra->members[i].value, false));
}

/* A reference to def, one node per def shared by every schema (the sub-schemas
 * type_schema returns are not changed in place: property_schema changes a copy). */
static mcp_json *ref_to(schema_emitter *e, const ir_def *def)
{
    reach(e, def);
    mcp_json **ref = &e->refs[def->index];
    if (!*ref) {
        mcp_arena *was = use_arena(e, e->keep);
        mcp_json *o = mcp_json_new_object(e->a);
        sj_put(&e->b, o, "$ref", sj_str(e->a, idl_fmt(e->a, "#/$defs/%s", def->name)));
        *ref = e->b.oom ? NULL : o;
        use_arena(e, was);
    }
    return *ref;
}

/* Reach the defs that type_schema(e, t) would refer to, in the same order,
 * without building the schema. */
static void reach_type(schema_emitter *e, const ir_type *t)
{
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        reach_type(e, t->elem);
        return;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            reach_type(e, t->items[i]);
        return;
    case IR_NAMED:
        reach(e, t->def);
        return;
    default:
        return;
    }
}

static mcp_json *type_schema(schema_emitter *e, const ir_type *t)
{
    mcp_arena *a = e->a;
    mcp_json *o = NULL;
    switch (t->kind) {
    case IR_INT:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "type", e->words[WORD_INTEGER]);
        break;
    case IR_FLOAT:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "type", e->words[WORD_NUMBER]);
        break;
    case IR_STR:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "type", e->words[WORD_STRING]);
        break;
    case IR_BYTES:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "format", e->words[WORD_BINARY]);
        sj_put(&e->b, o, "type", e->words[WORD_STRING]);
        break;
    case IR_BOOL:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "type", e->words[WORD_BOOLEAN]);
        break;
    case IR_FORMAT:
        o = mcp_json_new_object(a);
        if (t->format == MCP_FMT_DECIMAL) {
            /* pydantic's Decimal: a number, or a string of digits */
            mcp_json *arms = mcp_json_new_array(a);
            mcp_json *num = mcp_json_new_object(a);
            sj_put(&e->b, num, "type", e->words[WORD_NUMBER]);
            mcp_json *str = mcp_json_new_object(a);
            sj_put(&e->b, str, "pattern", sj_str(a, "^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$"));
            sj_put(&e->b, str, "type", e->words[WORD_STRING]);
            sj_push(&e->b, arms, num);
            sj_push(&e->b, arms, str);
            sj_put(&e->b, o, "anyOf", arms);
            break;
        }
        sj_put(&e->b, o, "format", sj_str(a, ir_format_schema(t->format)));
        if (t->format == MCP_FMT_URL)
            sj_put(&e->b, o, "minLength", mcp_json_new_int(a, 1));
        sj_put(&e->b, o, "type", e->words[WORD_STRING]);
        break;
    case IR_NONE:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "type", e->words[WORD_NULL]);
        break;
    case IR_ANY:
    case IR_CONTENT:
        return mcp_json_new_object(a);
    case IR_LIST:
    case IR_SET:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "items", type_schema(e, t->elem));
        sj_put(&e->b, o, "type", e->words[WORD_ARRAY]);
        if (t->kind == IR_SET)
            sj_put(&e->b, o, "uniqueItems", mcp_json_new_bool(a, true));
        break;
    case IR_TUPLE: {
        o = mcp_json_new_object(a);
        mcp_json *items = mcp_json_new_array(a);
        for (size_t i = 0; i < t->nitems; i++)
            sj_push(&e->b, items, type_schema(e, t->items[i]));
        sj_put(&e->b, o, "maxItems", mcp_json_new_int(a, (int64_t)t->nitems));
        sj_put(&e->b, o, "minItems", mcp_json_new_int(a, (int64_t)t->nitems));
        sj_put(&e->b, o, "prefixItems", items);
        sj_put(&e->b, o, "type", e->words[WORD_ARRAY]);
        return o;
    }
    case IR_DICT:
        o = mcp_json_new_object(a);
        sj_put(&e->b, o, "additionalProperties",
               t->elem->kind == IR_ANY ? mcp_json_new_bool(a, true) : type_schema(e, t->elem));
        sj_put(&e->b, o, "type", e->words[WORD_OBJECT]);
        return o;
    case IR_UNION: {
        o = mcp_json_new_object(a);
        /* Arms whose schemas are equal (as Python compares them) are one, in the
         * place of the first and with the schema of the last, as pydantic's
         * dict-based deduplication leaves them. */
        mcp_json *arms = mcp_json_new_array(a);
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_json *whole = type_schema(e, t->items[i]);
            /* an arm that is itself an anyOf (decimal's) gives its arms, as pydantic flattens it */
            bool flat = whole && t->items[i]->kind == IR_FORMAT && t->items[i]->format == MCP_FMT_DECIMAL;
            size_t nsub = flat ? whole->members[0].value->n : 1;
            for (size_t k = 0; k < nsub; k++) {
                mcp_json *s = flat ? whole->members[0].value->items[k] : whole;
                size_t j = 0;
                while (j < arms->n && !mcp_json_equal_py(arms->items[j], s))
                    j++;
                if (j < arms->n)
                    arms->items[j] = s;
                else
                    sj_push(&e->b, arms, s);
            }
        }
        if (arms->n == 1)
            return arms->items[0];
        sj_put(&e->b, o, "anyOf", arms);
        return o;
    }
    case IR_LITERAL: {
        o = mcp_json_new_object(a);
        if (t->nvalues == 1) {
            sj_put(&e->b, o, "const", schema_value(a, t->values[0]));
        } else {
            mcp_json *vals = mcp_json_new_array(a);
            for (size_t i = 0; i < t->nvalues; i++)
                sj_push(&e->b, vals, schema_value(a, t->values[i]));
            sj_put(&e->b, o, "enum", vals);
        }
        const char *ty = literal_type(t->values, t->nvalues);
        if (ty)
            sj_put(&e->b, o, "type", sj_str(a, ty));
        return o;
    }
    case IR_NAMED:
        return ref_to(e, t->def);
    }
    if (o)
        add_constraints(e, o, t->c);
    return o;
}

static bool is_ref_like(const ir_type *t)
{
    return t->kind == IR_NAMED ||
           (t->kind == IR_UNION && t->nitems == 2 && t->items[0]->kind == IR_NAMED && t->items[1]->kind == IR_NONE);
}

/* Whether a sibling of a property equal to the referenced definition's own is
 * dropped: pydantic drops it when the definition was generated before the
 * property was written (defs_order.h), which is always so unless a replay says
 * otherwise. `owner` holds the field (NULL: the root object), as its i-th. */
static bool drops_equal_sibling(const schema_emitter *e, const ir_def *owner, size_t i)
{
    return defs_order_generated_before(e->order, e->tool, e->output, owner, i);
}

/* The schema of one property: the type's schema, then title, description and
 * default beside it (a reference gets no derived title, and a sibling equal to
 * the referenced definition's own key may be dropped). */
static mcp_json *property_schema(schema_emitter *e, const ir_def *owner, const ir_field *fields, size_t i)
{
    mcp_arena *a = e->a;
    const ir_field *f = &fields[i];
    mcp_json *s = type_schema(e, f->type);
    s = mcp_json_copy(a, s); /* shared sub-schemas (a $ref, a merged arm) stay untouched */
    if (!s)
        return NULL;
    const ir_def *ref = f->type->kind == IR_NAMED ? f->type->def : NULL;
    bool drop = ref && defs_order_is_candidate(f) && drops_equal_sibling(e, owner, i);
    if (!is_ref_like(f->type) || f->explicit_title) {
        if (!(drop && strcmp(ref->name, f->title) == 0))
            sj_put(&e->b, s, "title", sj_str(a, f->title));
    }
    if (f->description && !(drop && ref->description && strcmp(ref->description, f->description) == 0))
        sj_put(&e->b, s, "description", sj_str(a, f->description));
    if (f->default_value)
        sj_put(&e->b, s, "default", schema_value(a, f->default_value));
    if (f->header)
        sj_put(&e->b, s, "x-mcp-header", sj_str(a, f->header));
    for (size_t k = 0; f->schema_extra && k < f->schema_extra->n; k++)
        if (!(drop && defs_order_extra_sibling(f, k)))
            sj_put(&e->b, s, f->schema_extra->members[k].key, value_copy(a, f->schema_extra->members[k].value, false));
    return s;
}

static mcp_json *object_schema(schema_emitter *e, const char *title, const char *description, const ir_def *owner,
                               const ir_field *fields, size_t n, bool forbid)
{
    mcp_arena *a = e->a;
    mcp_json *o = mcp_json_new_object(a);
    mcp_json *props = mcp_json_new_object(a);
    if (!o || !props)
        return NULL;
    mcp_json *required = mcp_json_new_array(a);
    for (size_t i = 0; i < n; i++) { /* properties keep their declaration order */
        sj_add(&e->b, props, fields[i].name, property_schema(e, owner, fields, i));
        if (fields[i].required)
            sj_push(&e->b, required, sj_str(a, fields[i].name));
    }
    if (forbid)
        sj_put(&e->b, o, "additionalProperties", mcp_json_new_bool(a, false));
    if (description)
        sj_put(&e->b, o, "description", sj_str(a, description));
    sj_put(&e->b, o, "properties", props);
    if (required && required->n)
        sj_put(&e->b, o, "required", required);
    sj_put(&e->b, o, "title", sj_str(a, title));
    sj_put(&e->b, o, "type", e->words[WORD_OBJECT]);
    return o;
}

/* The slot of node v in e->shared: its own, or the empty one it would take. */
static size_t shared_slot(const schema_emitter *e, const mcp_json *v)
{
    size_t i = (size_t)(((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15u) & (e->nshared - 1);
    while (e->shared[i] && e->shared[i] != v)
        i = (i + 1) & (e->nshared - 1);
    return i;
}

static mcp_json *def_schema(schema_emitter *e, const ir_def *def)
{
    assert(def->index < e->srv->ndefs && e->srv->defs[def->index] == def);
    if (e->def_schemas[def->index])
        return e->def_schemas[def->index];
    bool varies = false; /* its siblings depend on the schema it is written in */
    for (size_t i = 0; i < def->nfields && !varies; i++)
        varies = defs_order_is_candidate(&def->fields[i]);
    /* A schema kept for every schema that reaches the def is built in e's own arena. */
    mcp_arena *was = use_arena(e, varies ? e->a : e->keep);
    mcp_arena *a = e->a;
    mcp_json *o;
    if (def->kind == IR_DEF_ENUM) {
        o = mcp_json_new_object(a);
        mcp_json *vals = mcp_json_new_array(a);
        for (size_t i = 0; i < def->nvalues; i++)
            sj_push(&e->b, vals, schema_value(a, def->values[i]));
        if (def->description)
            sj_put(&e->b, o, "description", sj_str(a, def->description));
        sj_put(&e->b, o, "enum", vals);
        sj_put(&e->b, o, "title", sj_str(a, def->name));
        sj_put(&e->b, o, "type", sj_str(a, def->int_enum ? "integer" : "string"));
    } else {
        /* Building a model's properties may reach other defs; those are
         * recorded in the current reach set by the caller's traversal. */
        o = object_schema(e, def->name, def->description, def, def->fields, def->nfields, def->extra_forbid);
        merge_extra(e, o, def->schema_extra);
    }
    if (!varies && o) {
        e->def_schemas[def->index] = o;
        e->shared[shared_slot(e, o)] = o;
    }
    use_arena(e, was);
    return o;
}

/* The $defs entry of a type named `properties` or `default`: pydantic sorts the
 * keys of every object except those under such a key, so this one keeps the
 * order in which pydantic builds it. */
static mcp_json *defs_entry(schema_emitter *e, const ir_def *def)
{
    mcp_json *s = def_schema(e, def);
    if (strcmp(def->name, "properties") != 0 && strcmp(def->name, "default") != 0)
        return s;
    static const char *const MODEL[] = {"type",  "properties",  "required",
                                        "title", "description", "additionalProperties"};
    static const char *const RECORD[] = {"type",  "properties", "required", "additionalProperties",
                                         "title", "description"};
    static const char *const ENUM[] = {"title", "description", "enum", "type"};
    const char *const *order = def->kind == IR_DEF_ENUM ? ENUM : def->kind == IR_DEF_RECORD ? RECORD : MODEL;
    size_t n = def->kind == IR_DEF_ENUM ? sizeof ENUM / sizeof *ENUM : sizeof MODEL / sizeof *MODEL;
    mcp_json *o = mcp_json_new_object(e->a);
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const mcp_json *v = mcp_json_get(s, order[i]);
        if (v)
            sj_add(&e->b, o, order[i], (mcp_json *)v);
    }
    /* json_schema_extra's keys come after the built ones, in their order. */
    for (size_t i = 0; def->schema_extra && i < def->schema_extra->n; i++) {
        const char *key = def->schema_extra->members[i].key;
        sj_add(&e->b, o, key, (mcp_json *)mcp_json_get(s, key));
    }
    return o;
}

/* Close the reach set over the fields of every reached def. */
static void close_reached(schema_emitter *e)
{
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        for (size_t j = 0; j < def->nfields; j++)
            reach_type(e, def->fields[j].type);
    }
}

/* Put $defs (every reached def, except `skip`) and $schema on a root object. */
static mcp_json *finish_root(schema_emitter *e, mcp_json *root, const ir_def *skip)
{
    mcp_arena *a = e->a;
    close_reached(e);
    mcp_json *defs = mcp_json_new_object(a);
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        if (def != skip)
            sj_put(&e->b, defs, def->name, defs_entry(e, def));
    }
    /* def_schema may have reached further defs while building; close again. */
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        if (def != skip && !mcp_json_get(defs, def->name))
            sj_put(&e->b, defs, def->name, defs_entry(e, def));
    }
    if (defs->n)
        sj_put(&e->b, root, "$defs", defs);
    if (e->srv->schema_dialect)
        sj_put(&e->b, root, "$schema", sj_str(a, e->srv->schema_dialect));
    reset_reached(e);
    return e->b.oom ? NULL : root; /* a part failed: the schema is given up */
}

/* The schema about to be built: tool t's input or output. */
static void set_schema(schema_emitter *e, const ir_tool *t, bool output)
{
    assert(t >= e->srv->tools && t < e->srv->tools + e->srv->ntools);
    e->tool = (size_t)(t - e->srv->tools);
    e->output = output;
}

mcp_json *schema_input(schema_emitter *e, const ir_tool *t)
{
    reset_reached(e);
    const char *title = idl_fmt(e->a, "%sArguments", t->name);
    set_schema(e, t, false);
    mcp_json *root = object_schema(e, title, NULL, NULL, t->params, t->nparams, t->extra_forbid);
    if (!root)
        return NULL;
    root = mcp_json_copy(e->a, root);
    root = finish_root(e, root, NULL);
    merge_extra(e, root, t->schema_extra);
    return e->b.oom ? NULL : root;
}

mcp_json *schema_output(schema_emitter *e, const ir_tool *t)
{
    mcp_arena *a = e->a;
    reset_reached(e);
    set_schema(e, t, true);
    if (!t->returns)
        return NULL;
    switch (t->output) {
    case IR_OUTPUT_NONE:
        return NULL;
    case IR_OUTPUT_OBJECT: {
        const ir_def *def = t->returns->def;
        if (def->on_cycle) {
            mcp_json *root = mcp_json_new_object(a);
            reach(e, def);
            sj_put(&e->b, root, "$ref", sj_str(a, idl_fmt(a, "#/$defs/%s", def->name)));
            sj_put(&e->b, root, "type", e->words[WORD_OBJECT]);
            return finish_root(e, root, NULL);
        }
        mcp_json *root = mcp_json_copy(a, def_schema(e, def));
        /* reach what the root's fields reference */
        for (size_t j = 0; j < def->nfields; j++)
            reach_type(e, def->fields[j].type);
        return finish_root(e, root, def);
    }
    case IR_OUTPUT_DICT: {
        mcp_json *root = mcp_json_new_object(a);
        const ir_type *elem = t->returns->elem;
        sj_put(&e->b, root, "additionalProperties",
               elem->kind == IR_ANY ? mcp_json_new_bool(a, true) : type_schema(e, elem));
        sj_put(&e->b, root, "title", sj_str(a, idl_fmt(a, "%sDictOutput", t->name)));
        sj_put(&e->b, root, "type", e->words[WORD_OBJECT]);
        return finish_root(e, root, NULL);
    }
    case IR_OUTPUT_WRAPPED: {
        const char *title = idl_fmt(a, "%sOutput", t->name);
        mcp_json *root = object_schema(e, title, NULL, NULL, &t->result, 1, false);
        return finish_root(e, root, NULL);
    }
    }
    return NULL;
}

mcp_json *schema_tool_entry(schema_emitter *e, const ir_tool *t)
{
    /* The members in the order MCP lists them, not sorted. */
    mcp_arena *a = e->a;
    mcp_json *o = mcp_json_new_object(a);
    if (!o)
        return NULL;
    sj_add(&e->b, o, "name", sj_str(a, t->name));
    if (t->title)
        sj_add(&e->b, o, "title", sj_str(a, t->title));
    if (t->description)
        sj_add(&e->b, o, "description", sj_str(a, t->description));
    sj_add(&e->b, o, "inputSchema", schema_input(e, t));
    mcp_json *out = schema_output(e, t);
    if (out)
        sj_add(&e->b, o, "outputSchema", out);
    if (t->has_annotations) {
        const ir_annotations *an = &t->annotations;
        mcp_json *ann = mcp_json_new_object(a);
        if (an->title)
            sj_add(&e->b, ann, "title", sj_str(a, an->title));
        const char *names[] = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"};
        const int vals[] = {an->read_only_hint, an->destructive_hint, an->idempotent_hint, an->open_world_hint};
        for (size_t i = 0; i < 4; i++)
            if (vals[i] >= 0)
                sj_add(&e->b, ann, names[i], mcp_json_new_bool(a, vals[i] != 0));
        sj_add(&e->b, o, "annotations", ann);
    }
    /* The 2025-11-25 Tool's execution.taskSupport ("forbidden" when absent). */
    if (t->task != IR_TASK_FORBIDDEN) {
        mcp_json *ex = mcp_json_new_object(a);
        sj_add(&e->b, ex, "taskSupport", sj_str(a, t->task == IR_TASK_REQUIRED ? "required" : "optional"));
        sj_add(&e->b, o, "execution", ex);
    }
    schema_display(&e->b, o, &t->display, true);
    return e->b.oom ? NULL : o;
}

mcp_json *schema_icons(sj *b, const ir_display *d)
{
    if (!d->has_icons)
        return NULL;
    mcp_json *arr = mcp_json_new_array(b->a);
    for (size_t i = 0; arr && i < d->nicons; i++) {
        const ir_icon *ic = &d->icons[i];
        mcp_json *o = mcp_json_new_object(b->a);
        if (ic->src)
            sj_add(b, o, "src", sj_str(b->a, ic->src));
        if (ic->mime_type)
            sj_add(b, o, "mimeType", sj_str(b->a, ic->mime_type));
        if (ic->sizes) {
            mcp_json *sizes = mcp_json_new_array(b->a);
            for (size_t k = 0; k < ic->nsizes; k++)
                sj_push(b, sizes, sj_str(b->a, ic->sizes[k]));
            sj_add(b, o, "sizes", sizes);
        }
        if (ic->theme)
            sj_add(b, o, "theme", sj_str(b->a, ic->theme));
        sj_push(b, arr, o);
    }
    if (!arr)
        b->oom = true;
    return arr;
}

void schema_display(sj *b, mcp_json *o, const ir_display *d, bool with_meta)
{
    if (d->has_icons)
        sj_add(b, o, "icons", schema_icons(b, d));
    if (with_meta && d->meta)
        sj_add(b, o, "_meta", mcp_json_copy(b->a, d->meta));
}

mcp_json *schema_tools_list(schema_emitter *e)
{
    mcp_json *arr = mcp_json_new_array(e->a);
    for (size_t i = 0; arr && i < e->srv->ntools; i++)
        sj_push(&e->b, arr, schema_tool_entry(e, &e->srv->tools[i]));
    return e->b.oom ? NULL : arr;
}

/* ------------------------------------------------------------------ writing */

static bool write_value(schema_emitter *e, mcp_buf *b, const mcp_json *v, int indent, size_t depth);

/* text, written at depth `depth`: each of its line breaks followed by the
 * indentation of that depth (its strings hold none: JSON escapes them). */
static void put_indented(mcp_buf *b, const char *text, size_t len, int indent, size_t depth)
{
    size_t spaces = indent > 0 ? (size_t)indent * depth : 0, lines = 0;
    const char *end = text + len;
    for (const char *p = text; spaces && (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++)
        lines++;
    if (lines > (SIZE_MAX - len - 1) / (spaces + 1) || !mcp_buf_reserve(b, len + lines * spaces))
        return;
    char *o = b->data + b->len;
    for (const char *p = text; p < end;) {
        const char *nl = lines ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        size_t k = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        memcpy(o, p, k);
        o += k;
        p += k;
        if (nl) {
            memset(o, ' ', spaces);
            o += spaces;
        }
    }
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

/* The shared text of slot `slot` (written), at depth `depth`: copied whole
 * when it was last written at that depth, else indented and kept for it. */
static bool put_shared(schema_emitter *e, mcp_buf *b, size_t slot, int indent, size_t depth)
{
    if (!depth || indent <= 0) {
        mcp_buf_put(b, e->text[slot], e->text_len[slot]);
        return true;
    }
    if (!e->deep[slot] || e->deep_depth[slot] != depth) {
        mcp_buf t;
        mcp_buf_init(&t);
        put_indented(&t, e->text[slot], e->text_len[slot], indent, depth);
        char *text = t.oom ? NULL : mcp_arena_strndup(e->keep, t.data ? t.data : "", t.len);
        size_t len = t.len;
        mcp_buf_free(&t);
        if (!text) {
            b->oom = true;
            return false;
        }
        e->deep[slot] = text;
        e->deep_len[slot] = len;
        e->deep_depth[slot] = depth;
    }
    mcp_buf_put(b, e->deep[slot], e->deep_len[slot]);
    return true;
}

/* `comma` (when not 0), then a line break and the indentation of `depth`
 * when pretty. */
static void next_line(mcp_buf *b, char comma, int indent, size_t depth)
{
    size_t spaces = indent < 0 ? 0 : (size_t)indent * depth, n = (comma != 0) + (indent >= 0) + spaces;
    if (n && mcp_buf_reserve(b, n)) {
        char *o = b->data + b->len;
        if (comma)
            *o++ = comma;
        if (indent >= 0) {
            *o++ = '\n';
            memset(o, ' ', spaces);
        }
        b->len += n;
        b->data[b->len] = 0;
    }
}

/* v as mcp_json_write writes it, inside containers `depth` deep. */
static bool write_value(schema_emitter *e, mcp_buf *b, const mcp_json *v, int indent, size_t depth)
{
    if (!v || !((v->kind == MCP_JARRAY || v->kind == MCP_JOBJECT) && v->n))
        return mcp_json_write(b, v, indent); /* a scalar, an empty container, or a hole ("null") */
    size_t slot = shared_slot(e, v);
    if (e->shared[slot] == v && indent == e->text_indent && e->text[slot])
        return put_shared(e, b, slot, indent, depth);
    if (e->shared[slot] == v && depth) {
        /* Written at depth 0 once, then copied wherever it appears. */
        if (indent != e->text_indent) {
            memset(e->text, 0, e->nshared * sizeof *e->text);
            memset(e->deep, 0, e->nshared * sizeof *e->deep);
            e->text_indent = indent;
        }
        mcp_buf t;
        mcp_buf_init(&t);
        bool ok = write_value(e, &t, v, indent, 0);
        char *text = ok && !t.oom ? mcp_arena_strndup(e->keep, t.data, t.len) : NULL;
        size_t len = t.len;
        mcp_buf_free(&t);
        if (!text) {
            b->oom = true;
            return false;
        }
        e->text[slot] = text;
        e->text_len[slot] = len;
        return put_shared(e, b, slot, indent, depth);
    }
    bool ok = true, array = v->kind == MCP_JARRAY;
    mcp_buf_putc(b, array ? '[' : '{');
    for (size_t i = 0; i < v->n; i++) {
        next_line(b, i ? ',' : 0, indent, depth + 1);
        if (!array) {
            mcp_json_string(b, v->members[i].key, v->members[i].key_len);
            mcp_buf_put(b, ": ", indent >= 0 ? 2 : 1);
        }
        ok = write_value(e, b, array ? v->items[i] : v->members[i].value, indent, depth + 1) && ok;
    }
    next_line(b, 0, indent, depth);
    mcp_buf_putc(b, array ? ']' : '}');
    return ok && !b->oom;
}

bool schema_write(schema_emitter *e, mcp_buf *b, const mcp_json *v, int indent, size_t depth)
{
    return write_value(e, b, v, indent, depth);
}
