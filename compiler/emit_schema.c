/* emit_schema.c: IR -> JSON Schema, as the MCP Python SDK (pydantic) writes it. */
#include "emit_schema.h"

#include <string.h>

#include "defs_order.h"

struct schema_emitter {
    mcp_arena *a;
    const ir_server *srv;
    jval **def_schemas;   /* per def, built on first use (per schema, for a def whose siblings vary) */
    defs_order *order;    /* when pydantic generates each definition */
    size_t tool;          /* the schema being built: of this tool, */
    bool output;          /* its output (else its input) */
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
    e->a = a;
    e->srv = srv;
    size_t n = srv->ndefs ? srv->ndefs : 1;
    e->def_schemas = mcp_arena_alloc(a, n * sizeof *e->def_schemas);
    e->reached = mcp_arena_alloc(a, n * sizeof *e->reached);
    e->reached_list = mcp_arena_alloc(a, n * sizeof *e->reached_list);
    if (!e->def_schemas || !e->reached || !e->reached_list)
        return NULL;
    e->order = defs_order_new(a, srv);
    return e->order ? e : NULL;
}

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

static jval *type_schema(schema_emitter *e, const ir_type *t);

static void add_number(schema_emitter *e, jval *o, const char *key, ir_number n)
{
    j_set(e->a, o, key, n.is_int ? j_int(e->a, n.i) : j_float(e->a, n.f));
}

static void add_constraints(schema_emitter *e, jval *o, const ir_constraints *c)
{
    mcp_arena *a = e->a;
    if (c->has_minimum) add_number(e, o, "minimum", c->minimum);
    if (c->has_maximum) add_number(e, o, "maximum", c->maximum);
    if (c->has_exclusive_minimum) add_number(e, o, "exclusiveMinimum", c->exclusive_minimum);
    if (c->has_exclusive_maximum) add_number(e, o, "exclusiveMaximum", c->exclusive_maximum);
    if (c->has_multiple_of) add_number(e, o, "multipleOf", c->multiple_of);
    if (c->has_min_length) j_set(a, o, "minLength", j_int(a, c->min_length));
    if (c->has_max_length) j_set(a, o, "maxLength", j_int(a, c->max_length));
    if (c->has_min_items) j_set(a, o, "minItems", j_int(a, c->min_items));
    if (c->has_max_items) j_set(a, o, "maxItems", j_int(a, c->max_items));
    if (c->pattern) j_set(a, o, "pattern", j_str(a, c->pattern));
    if (c->format) j_set(a, o, "format", j_str(a, c->format));
}

static const char *literal_type(const idl_node *const *v, size_t n)
{
    const char *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *k = v[i]->kind == IDL_NODE_STR    ? "string"
                        : v[i]->kind == IDL_NODE_INT  ? "integer"
                        : v[i]->kind == IDL_NODE_BOOL ? "boolean"
                                                      : "null";
        if (t && strcmp(t, k) != 0)
            return NULL;
        t = k;
    }
    return t;
}

static jval *ref_to(schema_emitter *e, const ir_def *def)
{
    reach(e, def);
    jval *o = j_obj(e->a);
    j_set(e->a, o, "$ref", j_str(e->a, mcp_arena_printf(e->a, "#/$defs/%s", def->name)));
    return o;
}

static jval *type_schema(schema_emitter *e, const ir_type *t)
{
    mcp_arena *a = e->a;
    jval *o = NULL;
    switch (t->kind) {
    case IR_INT:
        o = j_obj(a);
        j_set(a, o, "type", j_str(a, "integer"));
        break;
    case IR_FLOAT:
        o = j_obj(a);
        j_set(a, o, "type", j_str(a, "number"));
        break;
    case IR_STR:
        o = j_obj(a);
        j_set(a, o, "type", j_str(a, "string"));
        break;
    case IR_BYTES:
        o = j_obj(a);
        j_set(a, o, "format", j_str(a, "binary"));
        j_set(a, o, "type", j_str(a, "string"));
        break;
    case IR_BOOL:
        o = j_obj(a);
        j_set(a, o, "type", j_str(a, "boolean"));
        break;
    case IR_NONE:
        o = j_obj(a);
        j_set(a, o, "type", j_str(a, "null"));
        break;
    case IR_ANY:
    case IR_CONTENT:
        return j_obj(a);
    case IR_LIST:
    case IR_SET:
        o = j_obj(a);
        j_set(a, o, "items", type_schema(e, t->elem));
        j_set(a, o, "type", j_str(a, "array"));
        if (t->kind == IR_SET)
            j_set(a, o, "uniqueItems", j_bool(a, true));
        break;
    case IR_TUPLE: {
        o = j_obj(a);
        jval *items = j_arr(a);
        for (size_t i = 0; i < t->nitems; i++)
            j_push(a, items, type_schema(e, t->items[i]));
        j_set(a, o, "maxItems", j_int(a, (int64_t)t->nitems));
        j_set(a, o, "minItems", j_int(a, (int64_t)t->nitems));
        j_set(a, o, "prefixItems", items);
        j_set(a, o, "type", j_str(a, "array"));
        return o;
    }
    case IR_DICT:
        o = j_obj(a);
        j_set(a, o, "additionalProperties", t->elem->kind == IR_ANY ? j_bool(a, true) : type_schema(e, t->elem));
        j_set(a, o, "type", j_str(a, "object"));
        return o;
    case IR_UNION: {
        o = j_obj(a);
        /* Arms whose schemas are equal (as Python compares them) are one, in the
         * place of the first and with the schema of the last, as pydantic's
         * dict-based deduplication leaves them. */
        jval *arms = j_arr(a);
        for (size_t i = 0; i < t->nitems; i++) {
            jval *s = type_schema(e, t->items[i]);
            size_t j = 0;
            while (j < arms->n && !j_equal_py(arms->items[j], s))
                j++;
            if (j < arms->n)
                arms->items[j] = s;
            else
                j_push(a, arms, s);
        }
        if (arms->n == 1)
            return arms->items[0];
        j_set(a, o, "anyOf", arms);
        return o;
    }
    case IR_LITERAL: {
        o = j_obj(a);
        if (t->nvalues == 1) {
            j_set(a, o, "const", j_from_node(a, t->values[0]));
        } else {
            jval *vals = j_arr(a);
            for (size_t i = 0; i < t->nvalues; i++)
                j_push(a, vals, j_from_node(a, t->values[i]));
            j_set(a, o, "enum", vals);
        }
        const char *ty = literal_type(t->values, t->nvalues);
        if (ty)
            j_set(a, o, "type", j_str(a, ty));
        return o;
    }
    case IR_NAMED:
        return ref_to(e, t->def);
    }
    if (o)
        add_constraints(e, o, &t->c);
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
static jval *property_schema(schema_emitter *e, const ir_def *owner, const ir_field *fields, size_t i)
{
    mcp_arena *a = e->a;
    const ir_field *f = &fields[i];
    jval *s = type_schema(e, f->type);
    s = j_copy_obj(a, s); /* shared sub-schemas (a $ref, a merged arm) stay untouched */
    if (!s)
        return NULL;
    const ir_def *ref = f->type->kind == IR_NAMED ? f->type->def : NULL;
    bool drop = ref && defs_order_is_candidate(f) && drops_equal_sibling(e, owner, i);
    if (!is_ref_like(f->type) || f->explicit_title) {
        if (!(drop && strcmp(ref->name, f->title) == 0))
            j_set(a, s, "title", j_str(a, f->title));
    }
    if (f->description && !(drop && ref->description && strcmp(ref->description, f->description) == 0))
        j_set(a, s, "description", j_str(a, f->description));
    if (f->default_value)
        j_set(a, s, "default", j_from_node(a, f->default_value));
    return s;
}

static jval *object_schema(schema_emitter *e, const char *title, const char *description, const ir_def *owner,
                           const ir_field *fields, size_t n, bool forbid)
{
    mcp_arena *a = e->a;
    jval *o = j_obj(a);
    jval *props = j_obj(a);
    if (!o || !props)
        return NULL;
    props->keep_order = true;
    jval *required = j_arr(a);
    for (size_t i = 0; i < n; i++) {
        j_set(a, props, fields[i].name, property_schema(e, owner, fields, i));
        if (fields[i].required)
            j_push(a, required, j_str(a, fields[i].name));
    }
    if (forbid)
        j_set(a, o, "additionalProperties", j_bool(a, false));
    if (description)
        j_set(a, o, "description", j_str(a, description));
    j_set(a, o, "properties", props);
    if (required && required->n)
        j_set(a, o, "required", required);
    j_set(a, o, "title", j_str(a, title));
    j_set(a, o, "type", j_str(a, "object"));
    return o;
}

static jval *def_schema(schema_emitter *e, const ir_def *def)
{
    if (e->def_schemas[def->index])
        return e->def_schemas[def->index];
    bool varies = false; /* its siblings depend on the schema it is written in */
    for (size_t i = 0; i < def->nfields && !varies; i++)
        varies = defs_order_is_candidate(&def->fields[i]);
    mcp_arena *a = e->a;
    jval *o;
    if (def->kind == IR_DEF_ENUM) {
        o = j_obj(a);
        jval *vals = j_arr(a);
        for (size_t i = 0; i < def->nvalues; i++)
            j_push(a, vals, j_from_node(a, def->values[i]));
        if (def->description)
            j_set(a, o, "description", j_str(a, def->description));
        j_set(a, o, "enum", vals);
        j_set(a, o, "title", j_str(a, def->name));
        j_set(a, o, "type", j_str(a, def->int_enum ? "integer" : "string"));
    } else {
        /* Building a model's properties may reach other defs; those are
         * recorded in the current reach set by the caller's traversal. */
        o = object_schema(e, def->name, def->description, def, def->fields, def->nfields, def->extra_forbid);
    }
    if (!varies)
        e->def_schemas[def->index] = o;
    return o;
}

/* The $defs entry of a type named `properties` or `default`: pydantic sorts the
 * keys of every object except those under such a key, so this one keeps the
 * order in which pydantic builds it. */
static jval *defs_entry(schema_emitter *e, const ir_def *def)
{
    jval *s = def_schema(e, def);
    if (strcmp(def->name, "properties") != 0 && strcmp(def->name, "default") != 0)
        return s;
    static const char *const MODEL[] = {"type", "properties", "required", "title", "description", "additionalProperties"};
    static const char *const RECORD[] = {"type", "properties", "required", "additionalProperties", "title", "description"};
    static const char *const ENUM[] = {"title", "description", "enum", "type"};
    const char *const *order = def->kind == IR_DEF_ENUM ? ENUM : def->kind == IR_DEF_RECORD ? RECORD : MODEL;
    size_t n = def->kind == IR_DEF_ENUM ? sizeof ENUM / sizeof *ENUM : sizeof MODEL / sizeof *MODEL;
    jval *o = j_obj(e->a);
    if (!o)
        return NULL;
    o->keep_order = true;
    for (size_t i = 0; i < n; i++) {
        jval *v = j_get(s, order[i]);
        if (v)
            j_set(e->a, o, order[i], v);
    }
    return o;
}

/* Close the reach set over the fields of every reached def. */
static void close_reached(schema_emitter *e)
{
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        for (size_t j = 0; j < def->nfields; j++)
            type_schema(e, def->fields[j].type); /* reaches referenced defs (cheap: scalars only) */
    }
}

/* Put $defs (every reached def, except `skip`) and $schema on a root object. */
static jval *finish_root(schema_emitter *e, jval *root, const ir_def *skip)
{
    mcp_arena *a = e->a;
    close_reached(e);
    jval *defs = j_obj(a);
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        if (def != skip)
            j_set(a, defs, def->name, defs_entry(e, def));
    }
    /* def_schema may have reached further defs while building; close again. */
    for (size_t i = 0; i < e->nreached; i++) {
        const ir_def *def = e->reached_list[i];
        if (def != skip && !j_get(defs, def->name))
            j_set(a, defs, def->name, defs_entry(e, def));
    }
    if (defs->n)
        j_set(a, root, "$defs", defs);
    if (e->srv->schema_dialect)
        j_set(a, root, "$schema", j_str(a, e->srv->schema_dialect));
    reset_reached(e);
    return root;
}

/* The schema about to be built: tool t's input or output. */
static void set_schema(schema_emitter *e, const ir_tool *t, bool output)
{
    e->tool = (size_t)(t - e->srv->tools);
    e->output = output;
}

jval *schema_input(schema_emitter *e, const ir_tool *t)
{
    reset_reached(e);
    const char *title = mcp_arena_printf(e->a, "%sArguments", t->name);
    set_schema(e, t, false);
    jval *root = object_schema(e, title, NULL, NULL, t->params, t->nparams, t->extra_forbid);
    if (!root)
        return NULL;
    root = j_copy_obj(e->a, root);
    return finish_root(e, root, NULL);
}

jval *schema_output(schema_emitter *e, const ir_tool *t)
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
            jval *root = j_obj(a);
            reach(e, def);
            j_set(a, root, "$ref", j_str(a, mcp_arena_printf(a, "#/$defs/%s", def->name)));
            j_set(a, root, "type", j_str(a, "object"));
            return finish_root(e, root, NULL);
        }
        jval *root = j_copy_obj(a, def_schema(e, def));
        /* reach what the root's fields reference */
        for (size_t j = 0; j < def->nfields; j++)
            type_schema(e, def->fields[j].type);
        return finish_root(e, root, def);
    }
    case IR_OUTPUT_DICT: {
        jval *root = j_obj(a);
        const ir_type *elem = t->returns->elem;
        j_set(a, root, "additionalProperties", elem->kind == IR_ANY ? j_bool(a, true) : type_schema(e, elem));
        j_set(a, root, "title", j_str(a, mcp_arena_printf(a, "%sDictOutput", t->name)));
        j_set(a, root, "type", j_str(a, "object"));
        return finish_root(e, root, NULL);
    }
    case IR_OUTPUT_WRAPPED: {
        const char *title = mcp_arena_printf(a, "%sOutput", t->name);
        jval *root = object_schema(e, title, NULL, NULL, &t->result, 1, false);
        return finish_root(e, root, NULL);
    }
    }
    return NULL;
}

jval *schema_tool_entry(schema_emitter *e, const ir_tool *t)
{
    mcp_arena *a = e->a;
    jval *o = j_obj(a);
    if (!o)
        return NULL;
    o->keep_order = true;
    j_set(a, o, "name", j_str(a, t->name));
    if (t->title)
        j_set(a, o, "title", j_str(a, t->title));
    if (t->description)
        j_set(a, o, "description", j_str(a, t->description));
    j_set(a, o, "inputSchema", schema_input(e, t));
    jval *out = schema_output(e, t);
    if (out)
        j_set(a, o, "outputSchema", out);
    if (t->has_annotations) {
        const ir_annotations *an = &t->annotations;
        jval *ann = j_obj(a);
        ann->keep_order = true;
        if (an->title)
            j_set(a, ann, "title", j_str(a, an->title));
        const char *names[] = {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"};
        const int vals[] = {an->read_only_hint, an->destructive_hint, an->idempotent_hint, an->open_world_hint};
        for (size_t i = 0; i < 4; i++)
            if (vals[i] >= 0)
                j_set(a, ann, names[i], j_bool(a, vals[i] != 0));
        j_set(a, o, "annotations", ann);
    }
    return o;
}

jval *schema_tools_list(schema_emitter *e)
{
    jval *arr = j_arr(e->a);
    for (size_t i = 0; arr && i < e->srv->ntools; i++)
        if (!j_push(e->a, arr, schema_tool_entry(e, &e->srv->tools[i])))
            return NULL;
    return arr;
}
