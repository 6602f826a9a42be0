/* check_tools.c: the `tools` section. A tool has a name MCP allows, a
 * description (a warning without one: clients show it to the model), params
 * (fields, check_fields.c), a return type, optional annotations, and whether
 * it gives structured output: a model's or a dict's return is the structured
 * content itself, any other is wrapped in a 'result' property, 'content' has no
 * schema.
 */
#include <string.h>

#include "check_int.h"

static const char *const TOOL_KEYS[] = {
    "description",  "title",  "params", "extra", "returns", "structured_output", "annotations", "c_name", "task",
    "schema_extra", "scopes", "icons",  "_meta", "inline"};
static const char *const RETURNS_KEYS[] = {"type", "description", "title", "c_type", CK_CONSTRAINT_KEY_NAMES};
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
    ck_keysf(c, m, ANNOTATION_KEYS, COUNT(ANNOTATION_KEYS), NULL, 0, "the annotations of tool '%s'", t->name);
    ir_annotations *a = &t->annotations; /* the hints start at -1, unset (parse_tool) */
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
        static const key_hint HINTS[] = {
            {"default", "'default' is not allowed on returns: a result is always present"},
            {"required", "'required' is not allowed on returns: a result is always present"},
        };
        ck_keysf(c, ret, RETURNS_KEYS, COUNT(RETURNS_KEYS), HINTS, COUNT(HINTS), "the returns of tool '%s'", t->name);
        type_node = idl_map_get(ret, "type");
        if (!type_node) {
            ERR(c, ret_key->loc, "'returns' of tool '%s' has no 'type'", t->name);
            return;
        }
    }
    t->returns = ck_parse_type(c, type_node, true, "returns of tool '%s'", t->name);
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
    /* A 'c_type' on a return that is not wrapped is reported below. */
    bool wrapped = !(t->output == IR_OUTPUT_OBJECT || t->output == IR_OUTPUT_DICT || rt->kind == IR_CONTENT);
    if (ck_literals_to_name(t->returns, wrapped ? ret : NULL)) {
        char what[300];
        idl_snprintf(what, sizeof what, "the return type of tool '%s'", t->name);
        ck_name_literals(c, t->returns, wrapped ? ret : NULL, idl_fmt(c->a, "%s_result", t->c_name), what);
    }
    if (ret->kind != IDL_NODE_MAP)
        return;
    bool decorated = false;
    for (size_t i = 0; i < ret->n; i++)
        if (strcmp(ret->pairs[i].key->str, "type") != 0)
            decorated = true;
    if (decorated && !wrapped) {
        const char *whatis = rt->kind == IR_CONTENT          ? "a 'content'"
                             : t->output == IR_OUTPUT_DICT   ? "a dict[str, T]"
                             : rt->def->kind == IR_DEF_MODEL ? "a model"
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
    r->description = ck_description_of(c, ret);
    ck_field_title(c, ret, r);
    ck_apply_constraints(c, ret, t->returns);
}

static void parse_tool(checker *c, ir_tool *t, const idl_pair *p)
{
    const idl_node *key = p->key, *body = p->value;
    memset(t, 0, sizeof *t);
    t->name = key->str;
    t->loc = key->loc;
    t->annotations.read_only_hint = t->annotations.destructive_hint = -1;
    t->annotations.idempotent_hint = t->annotations.open_world_hint = -1;
    t->c_name = idl_c_ident(c->a, t->name); /* for a body that is not a mapping */
    if (!is_tool_name(key->str, key->len))
        ERR(c, key->loc,
            "invalid tool name '%s': a tool name is 1 to 128 characters, each a letter, a digit, "
            "'_', '-' or '.'",
            key->str);
    if (!ck_body_ok(c, p, "tool", "description, params, returns, ..."))
        return;
    char what[300];
    idl_snprintf(what, sizeof what, "tool '%s'", t->name);
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
    ck_extra_of(c, body, &t->extra_forbid);
    t->c_name = ck_c_name(c, body, t->name);
    t->params = ck_parse_fields(c, idl_map_get(body, "params"), CK_OWNER_PARAMS, what,
                                idl_fmt(c->a, "%s_args", t->c_name), &t->nparams);
    ck_check_headers(c, t);
    ck_task_of(c, body, t);
    ck_inline_of(c, body, t);
    t->schema_extra = ck_schema_extra_of(c, body, CK_EXTRA_TOOL, what);
    ck_scopes_of(c, body, what, &t->scopes);
    ck_display_of(c, body, what, &t->display);

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
            ERR(c, so->loc, "tool '%s' has structured_output: true, but its return type 'content' has no schema",
                t->name);
        if (t->structured == IR_STRUCTURED_FALSE)
            t->output = IR_OUTPUT_NONE;
    }
    const idl_node *ann = idl_map_get(body, "annotations");
    if (ann)
        parse_annotations(c, t, ann);
}

void ck_parse_tools(checker *c, const idl_node *tools)
{
    if (!tools)
        return;
    c->srv->tools = mcp_arena_alloc(c->a, (tools->n ? tools->n : 1) * sizeof *c->srv->tools);
    if (!c->srv->tools)
        return;
    for (size_t i = 0; i < tools->n; i++)
        parse_tool(c, &c->srv->tools[c->srv->ntools++], &tools->pairs[i]);
}
