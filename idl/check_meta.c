/* check_meta.c: the keys that say more than the types do, for the runtime
 * and for clients:
 *
 *   header         a tool parameter mirrored in the HTTP header Mcp-Param-NAME
 *                  (2026-07-28), published as x-mcp-header
 *   task           whether a tool runs as a task: forbidden, optional, required
 *   inline         whether a tool's handler runs on the thread that read the call
 *   cache          the caching hints (ttlMs, cacheScope) of the server's
 *                  results and of a resource's or template's reads
 *   list_changed   the lists the server announces changes of
 *   scopes         the OAuth scopes a caller needs
 *   schema_extra   JSON Schema keywords published beside the generated ones,
 *                  never enforced (pydantic's json_schema_extra)
 */
#include <math.h>
#include <string.h>

#include "check_int.h"

/* What a node is, for "..., not X": "a string 'abc'", or "a mapping". */
static const char *node_desc(checker *c, const idl_node *n)
{
    if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ || n->kind == IDL_NODE_NULL)
        return idl_node_kind_name(n);
    const char *s = idl_fmt(c->a, "%s '%s'", idl_node_kind_name(n), n->str);
    return s ? s : idl_node_kind_name(n);
}

/* The byte at s as a message shows it. */
static const char *byte_desc(checker *c, unsigned char b)
{
    if (b == ' ')
        return "a space";
    if (b < 0x20 || b == 0x7f)
        return "a control character";
    if (b >= 0x80)
        return "a non-ASCII character";
    const char *d = idl_fmt(c->a, "'%c'", b);
    return d ? d : "this character";
}

/* ---------------------------------------------------------------- header */

/* RFC 9110, section 5.6.2: tchar. */
static bool is_tchar(unsigned char b)
{
    return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
           (b && strchr("!#$%&'*+-.^_`|~", b));
}

/* The JSON Schema "type" a property of type t publishes at its top, or NULL
 * (a union, a reference, a Literal of mixed values, ...). */
static const char *published_type(const ir_type *t)
{
    switch (t->kind) {
    case IR_STR:
    case IR_BYTES:
        return "string";
    case IR_INT:
        return "integer";
    case IR_BOOL:
        return "boolean";
    case IR_LITERAL: {
        const char *ty = NULL;
        for (size_t i = 0; i < t->nvalues; i++) {
            const char *k = t->values[i]->kind == MCP_JSTRING ? "string"
                            : t->values[i]->kind == MCP_JINT  ? "integer"
                            : t->values[i]->kind == MCP_JBOOL ? "boolean"
                                                              : NULL;
            if (!k || (ty && strcmp(ty, k) != 0))
                return NULL;
            ty = k;
        }
        return ty;
    }
    default:
        return NULL;
    }
}

void ck_header_of(checker *c, const idl_node *spec, ck_field_owner owner, const char *owner_what, ir_field *f)
{
    const idl_node *v = idl_map_get(spec, "header");
    if (!v)
        return;
    if (owner != CK_OWNER_PARAMS) {
        ERR(c, ck_map_key(spec, "header")->loc,
            "'header' applies to tool parameters only, not to field '%s' of %s: a header mirrors a property at the "
            "top of a tool's arguments",
            f->name, owner_what);
        return;
    }
    if (!ck_string(c, v, "'header'"))
        return;
    if (v->len == 0) {
        ERR(c, v->loc, "'header' of parameter '%s' of %s cannot be empty: it names the HTTP header Mcp-Param-NAME",
            f->name, owner_what);
        return;
    }
    for (size_t i = 0; i < v->len; i++)
        if (!is_tchar((unsigned char)v->str[i])) {
            ERR(c, ck_loc_in_scalar(c, v, i),
                "'header' of parameter '%s' of %s must be an HTTP token (letters, digits and !#$%%&'*+-.^_`|~), "
                "not %s here",
                f->name, owner_what, byte_desc(c, (unsigned char)v->str[i]));
            return;
        }
    const char *type = published_type(f->type);
    if (!type) {
        const ir_type *t = f->type;
        bool optional = t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE;
        ERR(c, ck_map_key(spec, "header")->loc,
            "parameter '%s' of %s has a 'header', but its type is not one a header can carry: a header parameter is "
            "str, bytes, int, bool, or a Literal whose values are all strings, all integers or all booleans%s",
            f->name, owner_what,
            optional ? " (not Optional: its schema has no \"type\", and clients reject the tool; give it a default "
                       "instead)"
            : t->kind == IR_FLOAT                                ? " (not float: MCP forbids numbers in headers)"
            : t->kind == IR_NAMED && t->def->kind == IR_DEF_ENUM ? " (not an enum: its schema is a $ref; write a "
                                                                   "Literal)"
                                                                 : "");
        return;
    }
    f->header = v->str;
    f->header_loc = v->loc;
    f->header_kind = strcmp(type, "integer") == 0   ? IR_HEADER_INTEGER
                     : strcmp(type, "boolean") == 0 ? IR_HEADER_BOOLEAN
                                                    : IR_HEADER_STRING;
}

static bool ascii_case_equal(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return false;
    }
    return *a == *b;
}

void ck_check_headers(checker *c, const ir_tool *t)
{
    /* Few parameters carry a header: pairs will do. */
    for (size_t i = 0; i < t->nparams; i++) {
        if (!t->params[i].header)
            continue;
        for (size_t j = 0; j < i; j++)
            if (t->params[j].header && ascii_case_equal(t->params[i].header, t->params[j].header)) {
                ERR(c, t->params[i].header_loc,
                    "header '%s' of parameter '%s' is header '%s' of parameter '%s' (line %u) again: header names "
                    "are case-insensitive, and each must be unique in tool '%s'",
                    t->params[i].header, t->params[i].name, t->params[j].header, t->params[j].name,
                    t->params[j].header_loc.line, t->name);
                break;
            }
    }
}

/* ---------------------------------------------------------------- task */

void ck_task_of(checker *c, const idl_node *body, ir_tool *t)
{
    const idl_node *v = idl_map_get(body, "task");
    t->task = IR_TASK_FORBIDDEN;
    if (!v)
        return;
    if (ck_str_eq(v, "forbidden"))
        t->task = IR_TASK_FORBIDDEN;
    else if (ck_str_eq(v, "optional"))
        t->task = IR_TASK_OPTIONAL;
    else if (ck_str_eq(v, "required"))
        t->task = IR_TASK_REQUIRED;
    else
        ERR(c, v->loc, "'task' of tool '%s' must be forbidden, optional or required, not %s", t->name, node_desc(c, v));
}

/* ---------------------------------------------------------------- inline */

/* `inline: true`: the handler runs on the thread that read the call; not for
 * a tool that may run as a task (after ck_task_of). */
void ck_inline_of(checker *c, const idl_node *body, ir_tool *t)
{
    const idl_node *v = idl_map_get(body, "inline");
    if (!v)
        return;
    if (v->kind != IDL_NODE_BOOL)
        ERR(c, v->loc, "'inline' of tool '%s' must be true or false, not %s", t->name, node_desc(c, v));
    else if (v->v.b && t->task != IR_TASK_FORBIDDEN)
        ERR(c, v->loc, "tool '%s' cannot be inline: it may run as a task (task: %s), and tasks run on workers", t->name,
            t->task == IR_TASK_REQUIRED ? "required" : "optional");
    else
        t->run_inline = v->v.b;
}

/* ---------------------------------------------------------------- cache */

static const char *const CACHE_KEYS[] = {"ttl_ms", "scope"};

void ck_cache_of(checker *c, const idl_node *body, const char *what, bool private_default, ir_cache *out)
{
    const idl_node *m = idl_map_get(body, "cache");
    *out = (ir_cache){0};
    if (!m)
        return;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'cache' of %s must be a mapping {ttl_ms: MILLISECONDS, scope: public | private}, not %s", what,
            node_desc(c, m));
        return;
    }
    ck_keysf(c, m, CACHE_KEYS, COUNT(CACHE_KEYS), NULL, 0, "the 'cache' of %s", what);
    bool ok = true;
    const idl_node *ttl = idl_map_get(m, "ttl_ms");
    if (!ttl) {
        ERR(c, ck_map_key(body, "cache")->loc,
            "'cache' of %s has no 'ttl_ms' (how many milliseconds a client may keep the result)", what);
        ok = false;
    } else if (ttl->kind != IDL_NODE_INT || ttl->overflow || ttl->v.i < 0) {
        ERR(c, ttl->loc, "'ttl_ms' must be a whole number of milliseconds, 0 or more, not %s", node_desc(c, ttl));
        ok = false;
    }
    bool priv = private_default;
    const idl_node *scope = idl_map_get(m, "scope");
    if (scope) {
        if (ck_str_eq(scope, "public")) {
            priv = false;
        } else if (ck_str_eq(scope, "private")) {
            priv = true;
        } else {
            ERR(c, scope->loc, "'scope' of the 'cache' of %s must be public or private, not %s", what,
                node_desc(c, scope));
            ok = false;
        }
    }
    if (ok)
        *out = (ir_cache){.set = true, .private_scope = priv, .ttl_ms = ttl->v.i};
}

/* ---------------------------------------------------------------- list_changed */

void ck_list_changed(checker *c, const idl_node *server)
{
    const idl_node *v = server && server->kind == IDL_NODE_MAP ? idl_map_get(server, "list_changed") : NULL;
    if (!v)
        return;
    if (v->kind != IDL_NODE_SEQ) {
        ERR(c, v->loc,
            "'list_changed' must be a list of the lists whose changes the server announces (tools, "
            "prompts, resources), not %s",
            node_desc(c, v));
        return;
    }
    static const char *const KINDS[] = {"tools", "prompts", "resources"};
    ir_server *s = c->srv;
    bool *flag[] = {&s->list_changed_tools, &s->list_changed_prompts, &s->list_changed_resources};
    const size_t have[] = {s->ntools, s->nprompts, s->nresources + s->ntemplates};
    for (size_t i = 0; i < v->n; i++) {
        const idl_node *k = v->items[i];
        size_t j = 0;
        while (j < COUNT(KINDS) && !ck_str_eq(k, KINDS[j]))
            j++;
        if (j == COUNT(KINDS)) {
            const char *near = ck_is_str(k) ? idl_did_you_mean(k->str, KINDS, COUNT(KINDS)) : NULL;
            const char *said = ck_is_str(k) ? idl_fmt(c->a, "'%s'", k->str) : node_desc(c, k);
            if (near)
                ERR(c, k->loc, "unknown list %s in 'list_changed'; did you mean '%s'?", said ? said : "", near);
            else
                ERR(c, k->loc, "unknown list %s in 'list_changed': the lists are tools, prompts and resources",
                    said ? said : "");
            continue;
        }
        if (*flag[j]) {
            idl_diag_add(c->d, c->opts->warnings_as_errors ? IDL_ERROR : IDL_WARNING, k->loc,
                         "'%s' appears twice in 'list_changed'", KINDS[j]);
            continue;
        }
        *flag[j] = true;
        if (!have[j])
            idl_diag_add(c->d, c->opts->warnings_as_errors ? IDL_ERROR : IDL_WARNING, k->loc,
                         "'list_changed' names %s, but the server has none%s: it announces no %s capability, and "
                         "this says nothing",
                         KINDS[j], j == 2 ? " (nor resource templates)" : "", KINDS[j]);
    }
}

/* ---------------------------------------------------------------- scopes */

/* RFC 6749, section 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
static bool is_scope_char(unsigned char b) { return b == 0x21 || (b >= 0x23 && b <= 0x5B) || (b >= 0x5D && b <= 0x7E); }

void ck_scopes_of(checker *c, const idl_node *body, const char *what, ir_scopes *out)
{
    const idl_node *v = body && body->kind == IDL_NODE_MAP ? idl_map_get(body, "scopes") : NULL;
    *out = (ir_scopes){0};
    if (!v)
        return;
    if (v->kind != IDL_NODE_SEQ) {
        ERR(c, v->loc, "'scopes' of %s must be a list of OAuth scopes, not %s", what, node_desc(c, v));
        return;
    }
    out->set = true;
    out->items = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *out->items);
    if (!out->items)
        return;
    for (size_t i = 0; i < v->n; i++) {
        const idl_node *k = v->items[i];
        if (!ck_string(c, k, "a scope"))
            continue;
        if (k->len == 0) {
            ERR(c, k->loc, "a scope of %s cannot be empty", what);
            continue;
        }
        size_t bad = 0;
        while (bad < k->len && is_scope_char((unsigned char)k->str[bad]))
            bad++;
        if (bad < k->len) {
            ERR(c, ck_loc_in_scalar(c, k, bad),
                "scope '%s' of %s cannot hold %s: an OAuth scope is printable ASCII without spaces, '\"' or '\\' "
                "(RFC 6749)",
                k->str, what, byte_desc(c, (unsigned char)k->str[bad]));
            continue;
        }
        size_t j = 0;
        while (j < out->n && strcmp(out->items[j], k->str) != 0)
            j++;
        if (j < out->n) {
            idl_diag_add(c->d, c->opts->warnings_as_errors ? IDL_ERROR : IDL_WARNING, k->loc,
                         "scope '%s' appears twice in the scopes of %s", k->str, what);
            continue;
        }
        out->items[out->n++] = k->str;
    }
}

/* ---------------------------------------------------------------- schema_extra */

/* Keys a schema_extra may not set, and why: the IDL writes them, and the
 * runtime validates by what it wrote. */
static const struct {
    const char *key;
    const char *why;
} REFUSED[] = {
    {"type", "the type expression makes it"},
    {"properties", "the fields make it"},
    {"required", "the fields and their defaults make it"},
    {"additionalProperties", "'extra' (or a dict's value type) makes it"},
    {"items", "the type expression makes it"},
    {"prefixItems", "the type expression makes it"},
    {"anyOf", "the type expression makes it (a union, Optional)"},
    {"enum", "the type expression makes it (a Literal, an enum)"},
    {"const", "the type expression makes it (a Literal)"},
    {"$ref", "the type expression makes it (a named type)"},
    {"$defs", "the named types make it"},
    {"uniqueItems", "the type expression makes it (a set)"},
    {"title", "write 'title:' instead"},
    {"description", "write 'description:' instead"},
    {"default", "write 'default:' instead (it is checked against the type)"},
    {"x-mcp-header", "write 'header:' on the parameter instead"},
};

static const char *const CONSTRAINT_KEYS[] = {CK_CONSTRAINT_KEY_NAMES};

bool ck_json_value_ok(checker *c, const idl_node *n, const char *key, const char *what)
{
    switch (n->kind) {
    case IDL_NODE_FLOAT:
        if (!isfinite(n->v.f) || n->overflow) {
            ERR(c, n->loc, "'%s' of %s holds the float %s, which JSON cannot carry", key, what, n->str);
            return false;
        }
        return true;
    case IDL_NODE_INT:
        if (n->overflow) {
            ERR(c, n->loc, "'%s' of %s holds the integer %s, which does not fit in 64 bits", key, what, n->str);
            return false;
        }
        return true;
    case IDL_NODE_SEQ:
        for (size_t i = 0; i < n->n; i++)
            if (!ck_json_value_ok(c, n->items[i], key, what))
                return false;
        return true;
    case IDL_NODE_MAP:
        for (size_t i = 0; i < n->n; i++)
            if (!ck_json_value_ok(c, n->pairs[i].value, key, what))
                return false;
        return true;
    default:
        return true;
    }
}

const mcp_json *ck_schema_extra_of(checker *c, const idl_node *body, ck_extra_site site, const char *what)
{
    const idl_node *m = idl_map_get(body, "schema_extra");
    if (!m)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'schema_extra' of %s must be a mapping of JSON Schema keywords, not %s", what, node_desc(c, m));
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; i < m->n; i++) {
        const idl_node *k = m->pairs[i].key;
        const char *why = NULL;
        for (size_t j = 0; j < COUNT(REFUSED) && !why; j++)
            if (strcmp(k->str, REFUSED[j].key) == 0)
                why = REFUSED[j].why;
        for (size_t j = 0; j < COUNT(CONSTRAINT_KEYS) && !why; j++)
            if (strcmp(k->str, CONSTRAINT_KEYS[j]) == 0)
                why = site == CK_EXTRA_FIELD ? "write it as the field's own key, which is also checked at run time"
                                             : "it belongs on a field, as the field's own key";
        if (!why && site != CK_EXTRA_TOOL && (strcmp(k->str, "$schema") == 0 || strcmp(k->str, "$id") == 0))
            why = "it belongs at the root of a schema: on a tool (or the server's 'schema_dialect')";
        if (why) {
            ERR(c, k->loc,
                "'schema_extra' of %s cannot set '%s': %s; schema_extra adds keywords the IDL does not write", what,
                k->str, why);
            ok = false;
        }
        if (memchr(k->str, 0, k->len)) {
            ERR(c, k->loc, "a key of 'schema_extra' cannot contain a NUL character");
            ok = false;
        }
        if (!ck_json_value_ok(c, m->pairs[i].value, "schema_extra", what))
            ok = false;
    }
    return ok && m->n ? ck_value(c, m) : NULL;
}
