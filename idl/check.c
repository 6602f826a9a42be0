/* check.c: from the YAML tree to the checked IR.
 *
 * One pass per concern, each reporting every problem it finds with a location:
 *   1. the top level and `server` (here), `registry` (check_registry.c);
 *   2. the names of `types` (so that types may refer to each other in any order);
 *   3. the bodies of types (check_types.c, check_fields.c), tools
 *      (check_tools.c), and resources, prompts and elicitations
 *      (check_beyond.c): keys, type expressions, constraints;
 *   4. whole-file checks: defaults against their types (check_values.c), types
 *      that can never be finite, reference cycles, C name collisions
 *      (check_file.c).
 * Nothing here recurses on input depth beyond the limits of the loader (YAML
 * nesting) and of the type-expression parser (bracket nesting).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"

static const char *const TOP_KEYS[] = {"mcpidl",  "server",       "types",   "tools", "resources", "resource_templates",
                                       "prompts", "elicitations", "registry"};
static const char *const SERVER_KEYS[] = {"name",           "version", "title",        "instructions", "c_prefix",
                                          "schema_dialect", "cache",   "list_changed", "scopes",       "description",
                                          "websiteUrl",     "icons",   "_meta"};

/* `server`: its name and version, and the C prefix of the generated names. */
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
    ck_server_display(c, server);
    ck_cache_of(c, server, "the server", false, &s->cache);
    ck_scopes_of(c, server, "the server", &s->scopes);
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
    ck_keys(&c, root, TOP_KEYS, COUNT(TOP_KEYS), NULL, 0, "the top level");
    const idl_node *version = idl_map_get(root, "mcpidl");
    if (!version)
        ERR(&c, root->loc, "missing 'mcpidl: 1' (the version of the format) at the top level");
    else if (version->kind == IDL_NODE_STR && strcmp(version->str, "1") == 0)
        ERR(&c, version->loc, "'mcpidl' must be the number 1, not the string \"1\"; write 'mcpidl: 1' without quotes");
    else if (version->kind != IDL_NODE_INT || version->v.i != 1)
        ERR(&c, version->loc, "unsupported format version '%s': this mcpidlc reads 'mcpidl: 1'",
            ck_scalar_text(version));

    parse_server(&c, root);
    ck_registry(&c, root);
    const idl_node *types = ck_section(&c, root, "types", "definition");
    ck_declare_types(&c, types);
    ck_define_types(&c, types);
    ck_parse_tools(&c, ck_section(&c, root, "tools", "tool"));
    ck_beyond(&c, root);
    ck_list_changed(&c, idl_map_get(root, "server"));

    /* The whole-file checks also run after errors, over what did resolve, so a
     * run reports as much as it can. */
    ck_check_defaults(&c);
    ck_check_finite(&c);
    ck_check_by_value_cycles(&c);
    ck_mark_cycles(&c);
    ck_check_c_names(&c);
    free(c.line_starts);
    assert(d->errors >= errors_before);
    return d->errors == errors_before ? c.srv : NULL;
}

ir_server *idl_compile(mcp_arena *arena, idl_diags *d, const char *src, size_t len, const idl_options *opts)
{
    idl_node *root = idl_load_yaml(arena, d, src, len, NULL);
    if (!root)
        return NULL;
    return idl_check(arena, d, root, opts);
}
