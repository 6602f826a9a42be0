/* check_fields.c: the fields of models and records and the parameters of
 * tools: each one's keys, type, title, C name, whether it is required, and the
 * constraints its mapping puts on its type (minimum, pattern, ...), which must
 * apply to that type and must not contradict each other. Also 'extra', which
 * says whether a model or a tool's arguments take keys beyond their fields.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "check_int.h"

/* ---------------------------------------------------------------- constraints */

typedef enum constraint_class { CC_NUMBER, CC_LENGTH, CC_ITEMS, CC_PATTERN, CC_FORMAT } constraint_class;

static const struct {
    const char *key;
    constraint_class cls;
} CONSTRAINT_KEYS[] = {
    {"minimum", CC_NUMBER},          {"maximum", CC_NUMBER},    {"exclusiveMinimum", CC_NUMBER},
    {"exclusiveMaximum", CC_NUMBER}, {"multipleOf", CC_NUMBER}, {"minLength", CC_LENGTH},
    {"maxLength", CC_LENGTH},        {"minItems", CC_ITEMS},    {"maxItems", CC_ITEMS},
    {"pattern", CC_PATTERN},         {"format", CC_FORMAT},
};

static const char *kind_phrase(const ir_type *t)
{
    switch (t->kind) {
    case IR_INT:
        return "'int'";
    case IR_FLOAT:
        return "'float'";
    case IR_STR:
        return "'str'";
    case IR_BOOL:
        return "'bool'";
    case IR_BYTES:
        return "'bytes'";
    case IR_NONE:
        return "'None'";
    case IR_ANY:
        return "'any'";
    case IR_LIST:
        return t->tuple_variadic ? "a variadic tuple" : "a list";
    case IR_SET:
        return "a set";
    case IR_TUPLE:
        return "a fixed tuple";
    case IR_DICT:
        return "a dict";
    case IR_UNION:
        return "a union";
    case IR_LITERAL:
        return "a Literal";
    case IR_NAMED:
        return "a named type";
    case IR_CONTENT:
        return "'content'";
    case IR_FORMAT:
        switch (t->format) {
        case MCP_FMT_DATETIME:
            return "'datetime'";
        case MCP_FMT_DATE:
            return "'date'";
        case MCP_FMT_TIME:
            return "'time'";
        case MCP_FMT_TIMEDELTA:
            return "'timedelta'";
        case MCP_FMT_UUID:
            return "'uuid'";
        case MCP_FMT_URL:
            return "'url'";
        default:
            return "'decimal'";
        }
    }
    return "this type";
}

static bool class_applies(constraint_class cls, const ir_type *t)
{
    switch (cls) {
    case CC_NUMBER:
        return t->kind == IR_INT || t->kind == IR_FLOAT;
    case CC_LENGTH:
        return t->kind == IR_STR || t->kind == IR_BYTES;
    case CC_ITEMS:
        return t->kind == IR_LIST || t->kind == IR_SET;
    case CC_PATTERN:
    case CC_FORMAT:
        return t->kind == IR_STR;
    }
    return false;
}

static const char *class_types(constraint_class cls)
{
    switch (cls) {
    case CC_NUMBER:
        return "'int' and 'float'";
    case CC_LENGTH:
        return "'str' and 'bytes'";
    case CC_ITEMS:
        return "lists, sets and tuple[T, ...]";
    default:
        return "'str'";
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

/* Contradictions are reported at the second key. */
void ck_apply_constraints(checker *c, const idl_node *m, ir_type *t)
{
    ir_type *target = t;
    if (t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE)
        target = t->items[0];
    ir_constraints *k = NULL; /* target's, once a constraint applies */
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
                    key,
                    target->kind == IR_NAMED ? idl_fmt(c->a, "the named type '%s'", target->def->name)
                                             : kind_phrase(target),
                    class_types(cls));
            else
                ERR(c, m->pairs[i].key->loc, "'%s' does not apply to %s; it applies to %s", key, kind_phrase(target),
                    class_types(cls));
            continue;
        }
        if (!k && !(k = ck_own_constraints(c, target)))
            return;
        first[ci] = m->pairs[i].key;
        switch (ci) {
        case 0:
            k->has_minimum = read_number(c, v, key, &k->minimum);
            break;
        case 1:
            k->has_maximum = read_number(c, v, key, &k->maximum);
            break;
        case 2:
            k->has_exclusive_minimum = read_number(c, v, key, &k->exclusive_minimum);
            break;
        case 3:
            k->has_exclusive_maximum = read_number(c, v, key, &k->exclusive_maximum);
            break;
        case 4:
            k->has_multiple_of = read_number(c, v, key, &k->multiple_of);
            if (k->has_multiple_of && ir_number_value(k->multiple_of) <= 0) {
                ERR(c, v->loc, "'multipleOf' must be greater than 0");
                k->has_multiple_of = false;
            }
            break;
        case 5:
            k->has_min_length = read_count(c, v, key, &k->min_length);
            break;
        case 6:
            k->has_max_length = read_count(c, v, key, &k->max_length);
            break;
        case 7:
            k->has_min_items = read_count(c, v, key, &k->min_items);
            break;
        case 8:
            k->has_max_items = read_count(c, v, key, &k->max_items);
            break;
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
    /* Contradictions (none when no constraint applies). */
    if (!k)
        return;
#define LATER(a, b) \
    (first[a] && first[b] ? (first[a]->loc.line > first[b]->loc.line || (first[a]->loc.line == first[b]->loc.line && \
                                                                         first[a]->loc.col > first[b]->loc.col) \
                                 ? first[a] \
                                 : first[b]) \
                                ->loc \
                          : (idl_loc){0, 0, 0})
    if (k->has_minimum && k->has_maximum && ir_number_value(k->minimum) > ir_number_value(k->maximum))
        ERR(c, LATER(0, 1), "minimum is greater than maximum: no value can satisfy both");
    if (k->has_exclusive_minimum && k->has_exclusive_maximum &&
        ir_number_value(k->exclusive_minimum) >= ir_number_value(k->exclusive_maximum))
        ERR(c, LATER(2, 3), "exclusiveMinimum is not less than exclusiveMaximum: no value can satisfy both");
    if (k->has_minimum && k->has_exclusive_maximum &&
        ir_number_value(k->minimum) >= ir_number_value(k->exclusive_maximum))
        ERR(c, LATER(0, 3), "minimum is not less than exclusiveMaximum: no value can satisfy both");
    if (k->has_exclusive_minimum && k->has_maximum &&
        ir_number_value(k->exclusive_minimum) >= ir_number_value(k->maximum))
        ERR(c, LATER(2, 1), "exclusiveMinimum is not less than maximum: no value can satisfy both");
    if (k->has_min_length && k->has_max_length && k->min_length > k->max_length)
        ERR(c, LATER(5, 6), "minLength is greater than maxLength: no value can satisfy both");
    if (k->has_min_items && k->has_max_items && k->min_items > k->max_items)
        ERR(c, LATER(7, 8), "minItems is greater than maxItems: no value can satisfy both");
#undef LATER
}

/* ---------------------------------------------------------------- fields */

static const char *const FIELD_KEYS[] = {
    "type",   "description", "title",  "default",      "required",
    "c_name", "c_type",      "header", "schema_extra", CK_CONSTRAINT_KEY_NAMES,
};

/* Visit the Literals of t, depth first in the order written: count them (base
 * NULL), or name each, *k counting them. */
static void visit_literals(checker *c, ir_type *t, const char *base, size_t total, size_t *k)
{
    assert(!base || c);
    switch (t->kind) {
    case IR_LITERAL:
        ++*k;
        if (base && total == 1)
            t->c_name = idl_fmt(c->a, "%s_%s", c->prefix, base);
        else if (base)
            t->c_name = idl_fmt(c->a, "%s_%s_%zu", c->prefix, base, *k);
        return;
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        visit_literals(c, t->elem, base, total, k);
        return;
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            visit_literals(c, t->items[i], base, total, k);
        return;
    default:
        return;
    }
}

bool ck_literals_to_name(const ir_type *t, const idl_node *spec)
{
    size_t k = 0;
    visit_literals(NULL, (ir_type *)t, NULL, 0, &k);
    return k || (spec && spec->kind == IDL_NODE_MAP && idl_map_get(spec, "c_type"));
}

void ck_name_literals(checker *c, ir_type *t, const idl_node *spec, const char *site, const char *what)
{
    const idl_node *v = spec && spec->kind == IDL_NODE_MAP ? idl_map_get(spec, "c_type") : NULL;
    const char *base = site;
    if (v && ck_string(c, v, "'c_type'")) {
        if (!idl_is_c_identifier(v->str) || idl_is_c_keyword(v->str))
            ERR(c, v->loc, "'c_type' must be a C identifier that is not a keyword, not '%s'", v->str);
        base = v->str;
    }
    size_t total = 0, k = 0;
    visit_literals(c, t, NULL, 0, &total);
    if (v && total == 0)
        ERR(c, ck_map_key(spec, "c_type")->loc, "'c_type' names the C enum of a Literal, but %s holds no Literal",
            what);
    visit_literals(c, t, base, total, &k);
}

bool ck_field_title(checker *c, const idl_node *map, ir_field *f)
{
    const idl_node *title = idl_map_get(map, "title");
    if (!title || !ck_string(c, title, "'title'"))
        return false;
    f->title = title->str;
    f->explicit_title = true;
    return true;
}

/* Parse one field (or parameter) `key: spec`. */
static bool parse_field(checker *c, const idl_pair *p, ck_field_owner owner, const char *owner_what,
                        const char *c_owner, ir_field *f)
{
    memset(f, 0, sizeof *f);
    const idl_node *key = p->key, *spec = p->value;
    f->name = key->str;
    f->loc = key->loc;
    if (memchr(key->str, 0, key->len)) {
        ERR(c, key->loc, "a field name cannot contain a NUL character");
        return false;
    }
    const idl_node *type_node = spec, *required = NULL, *default_node = NULL;
    bool is_map = spec->kind == IDL_NODE_MAP;
    if (is_map) {
        ck_keysf(c, spec, FIELD_KEYS, COUNT(FIELD_KEYS), NULL, 0, "field '%s' of %s", f->name, owner_what);
        type_node = idl_map_get(spec, "type");
        if (!type_node) {
            ERR(c, key->loc, "field '%s' of %s has no 'type'", f->name, owner_what);
            return false;
        }
        f->description = ck_description_of(c, spec);
        required = idl_map_get(spec, "required");
        default_node = idl_map_get(spec, "default");
    }
    f->type = ck_parse_type(c, type_node, false, "type of '%s'", f->name);
    if (!f->type)
        return false;
    if (is_map) {
        ck_apply_constraints(c, spec, f->type);
        ck_header_of(c, spec, owner, owner_what, f);
        if (idl_map_get(spec, "schema_extra")) { /* its name, for messages about it */
            char where[400];
            idl_snprintf(where, sizeof where, "field '%s' of %s", f->name, owner_what);
            f->schema_extra = ck_schema_extra_of(c, spec, CK_EXTRA_FIELD, where);
        }
    }
    if (!(is_map && ck_field_title(c, spec, f)))
        f->title = idl_title_case(c->a, f->name);
    f->c_name = ck_c_name(c, is_map ? spec : NULL, f->name);
    if (ck_literals_to_name(f->type, is_map ? spec : NULL)) {
        char what[400];
        idl_snprintf(what, sizeof what, "the type of field '%s' of %s", f->name, owner_what);
        ck_name_literals(c, f->type, is_map ? spec : NULL, idl_fmt(c->a, "%s_%s", c_owner, f->c_name), what);
    }
    f->required = default_node == NULL;
    if (required) {
        if (required->kind != IDL_NODE_BOOL) {
            ERR(c, required->loc, "'required' must be true or false");
        } else if (owner != CK_OWNER_RECORD && !required->v.b) {
            ERR(c, required->loc, "'required: false' is only allowed in records; give '%s' a default instead%s",
                f->name, owner == CK_OWNER_MODEL ? ", or make its type a record (kind: record)" : "");
        } else if (owner == CK_OWNER_RECORD) {
            f->required = required->v.b;
        }
    }
    if (owner == CK_OWNER_RECORD && default_node) {
        ERR(c, ck_map_key(spec, "default")->loc,
            "records take no defaults: an absent key stays absent; write 'required: false' for '%s', "
            "or make the type a model",
            f->name);
        default_node = NULL;
    }
    if (default_node)
        ck_add_default(c, f, default_node, owner_what);
    return true;
}

ir_field *ck_parse_fields(checker *c, const idl_node *map, ck_field_owner owner, const char *owner_what,
                          const char *c_owner, size_t *n)
{
    *n = 0;
    if (!map || map->kind == IDL_NODE_NULL)
        return NULL;
    if (map->kind != IDL_NODE_MAP) {
        ERR(c, map->loc, "the fields of %s must be a mapping of NAME: TYPE, not %s", owner_what,
            idl_node_kind_name(map));
        return NULL;
    }
    ir_field *fields = mcp_arena_alloc(c->a, (map->n ? map->n : 1) * sizeof *fields);
    if (!fields)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < map->n; i++) {
        const idl_pair *p = &map->pairs[i];
        if (owner == CK_OWNER_PARAMS && p->key->str[0] == '_') {
            ERR(c, p->key->loc, "parameter '%s' of %s cannot start with '_'", p->key->str, owner_what);
            continue;
        }
        if (parse_field(c, p, owner, owner_what, c_owner, &fields[k]))
            k++;
    }
    *n = k;
    return fields;
}

/* ---------------------------------------------------------------- extra */

void ck_extra_of(checker *c, const idl_node *body, bool *forbid)
{
    const idl_node *v = idl_map_get(body, "extra");
    if (!v)
        return;
    if (ck_str_eq(v, "ignore"))
        *forbid = false;
    else if (ck_str_eq(v, "forbid"))
        *forbid = true;
    else
        ERR(c, v->loc, "'extra' must be 'ignore' or 'forbid', not '%s'", ck_scalar_text(v));
}
