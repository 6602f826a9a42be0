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

static const char *const TOP_KEYS[] = {
    "mcpidl",  "imports",      "server",  "types", "tools", "resources", "resource_templates",
    "prompts", "elicitations", "registry"};
/* What an imported file may hold. */
static const char *const IMPORTED_KEYS[] = {"mcpidl", "imports", "types"};
/* The sections of a server's items: a file with none of them and no 'server' is a library. */
static const char *const ITEM_KEYS[] = {"tools", "resources", "resource_templates", "prompts", "elicitations"};
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

/* The format version of a file: 'mcpidl: 1'. */
static void check_version(checker *c, const idl_node *root)
{
    const idl_node *version = idl_map_get(root, "mcpidl");
    if (!version)
        ERR(c, root->loc, "missing 'mcpidl: 1' (the version of the format) at the top level");
    else if (version->kind == IDL_NODE_STR && strcmp(version->str, "1") == 0)
        ERR(c, version->loc, "'mcpidl' must be the number 1, not the string \"1\"; write 'mcpidl: 1' without quotes");
    else if (version->kind != IDL_NODE_INT || version->v.i != 1)
        ERR(c, version->loc, "unsupported format version '%s': this mcpidlc reads 'mcpidl: 1'",
            ck_scalar_text(version));
}

/* Where unit u is imported first (by a unit met before it). */
static idl_loc import_place(const idl_unit *units, size_t nunits, size_t u)
{
    for (size_t i = 0; i < nunits; i++)
        for (size_t k = 0; k < units[i].nimports; k++)
            if (units[i].imports[k] == u)
                return units[i].import_locs[k];
    return (idl_loc){0, 0, 0};
}

/* An imported file: types and imports only. */
static void check_imported(checker *c, const idl_unit *units, size_t nunits, size_t u)
{
    const idl_node *root = units[u].root;
    if (root->kind != IDL_NODE_MAP) {
        ERR(c, root->loc, "an imported file must be a mapping with 'mcpidl: 1' and 'types', not %s",
            idl_node_kind_name(root));
        idl_note(c->d, import_place(units, nunits, u), "'%s' is imported here", units[u].path);
        return;
    }
    check_version(c, root);
    for (size_t i = 0; i < root->n; i++) {
        const idl_node *k = root->pairs[i].key;
        bool known = false;
        for (size_t j = 0; j < COUNT(IMPORTED_KEYS) && !known; j++)
            known = strcmp(k->str, IMPORTED_KEYS[j]) == 0;
        if (known)
            continue;
        bool top = false;
        for (size_t j = 0; j < COUNT(TOP_KEYS) && !top; j++)
            top = strcmp(k->str, TOP_KEYS[j]) == 0;
        const char *near = top ? NULL : idl_did_you_mean(k->str, IMPORTED_KEYS, COUNT(IMPORTED_KEYS));
        if (top)
            ERR(c, k->loc, "'%s' is not allowed in an imported file, which holds only types (and its own imports)",
                k->str);
        else if (near)
            ERR(c, k->loc, "unknown key '%s' in the top level of an imported file; did you mean '%s'?", k->str, near);
        else
            ERR(c, k->loc, "unknown key '%s' in the top level of an imported file", k->str);
        idl_note(c->d, import_place(units, nunits, u), "'%s' is imported here", units[u].path);
    }
}

/* Whether the file is a library of types: 'types' (or 'imports'), but no
 * 'server' and none of the items' sections. */
static bool is_library(const idl_node *root)
{
    if (idl_map_get(root, "server") || !(idl_map_get(root, "types") || idl_map_get(root, "imports")))
        return false;
    for (size_t i = 0; i < COUNT(ITEM_KEYS); i++)
        if (idl_map_get(root, ITEM_KEYS[i]))
            return false;
    return true;
}

/* The units in the order their types are read: every file after the files it
 * imports (depth first from the file compiled, which comes last). */
static size_t *unit_order(checker *c, const idl_unit *units, size_t n)
{
    size_t *order = mcp_arena_alloc(c->a, n * sizeof *order);
    size_t *stack = mcp_arena_alloc(c->a, n * sizeof *stack);
    size_t *next = mcp_arena_alloc(c->a, n * sizeof *next);
    uint8_t *seen = mcp_arena_alloc(c->a, n);
    if (!order || !stack || !next || !seen)
        return NULL;
    size_t m = 0, sp = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        size_t u = stack[sp - 1];
        if (next[u] < units[u].nimports) {
            size_t v = units[u].imports[next[u]++];
            if (v < n && !seen[v]) {
                seen[v] = 1;
                stack[sp++] = v;
            }
            continue;
        }
        order[m++] = u;
        sp--;
    }
    return m == n ? order : NULL;
}

/* c->sees[u * n + v]: whether file u sees the types of file v (itself, and
 * the files it imports, directly or not). */
static bool build_sees(checker *c, const idl_unit *units, size_t n)
{
    c->sees = mcp_arena_alloc(c->a, n * n);
    size_t *stack = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *stack);
    if (!c->sees || !stack)
        return false;
    for (size_t u = 0; u < n; u++) {
        bool *row = c->sees + u * n;
        size_t sp = 0;
        row[u] = true;
        stack[sp++] = u;
        while (sp) {
            size_t w = stack[--sp];
            for (size_t k = 0; k < units[w].nimports; k++) {
                size_t v = units[w].imports[k];
                if (v < n && !row[v]) {
                    row[v] = true;
                    stack[sp++] = v;
                }
            }
        }
    }
    c->nunits = n;
    c->units = units;
    return true;
}

static ir_server *check_units(mcp_arena *arena, mcp_arena *scratch, idl_diags *d, const idl_unit *units, size_t nunits,
                              const idl_options *opts)
{
    static const idl_options DEFAULTS = {0};
    checker c = {.a = arena, .scratch = scratch, .d = d, .opts = opts ? opts : &DEFAULTS, .suggest_budget = 5000000};
    size_t errors_before = d->errors;
    const idl_node *root = nunits ? units[0].root : NULL;
    if (!root)
        return NULL;
    if (root->kind != IDL_NODE_MAP) {
        ERR(&c, root->loc, "the top level must be a mapping with 'mcpidl: 1', 'server', 'types' and 'tools', not %s",
            idl_node_kind_name(root));
        return NULL;
    }
    c.srv = mcp_arena_alloc(arena, sizeof *c.srv);
    c.srv->files = c.srv ? mcp_arena_alloc(arena, nunits * sizeof *c.srv->files) : NULL;
    if (!c.srv || !c.srv->files || !build_sees(&c, units, nunits))
        return NULL;
    c.srv->nfiles = nunits;
    ck_keys(&c, root, TOP_KEYS, COUNT(TOP_KEYS), NULL, 0, "the top level");
    check_version(&c, root);
    for (size_t u = 1; u < nunits; u++)
        if (units[u].root)
            check_imported(&c, units, nunits, u);

    /* Each file's generated C is named after it: two of one name would clash. */
    for (size_t u = 1; u < nunits; u++)
        for (size_t v = 0; v < u; v++)
            if (units[u].stem && units[v].stem && strcmp(units[u].stem, units[v].stem) == 0) {
                ERR(&c, import_place(units, nunits, u),
                    "'%s' and '%s' have the same name: their generated files would both be %s.mcp.h; rename one",
                    units[u].path, units[v].path, units[u].stem);
                if (v)
                    idl_note(c.d, import_place(units, nunits, v), "'%s' is imported here", units[v].path);
                break;
            }
    c.srv->library = is_library(root);
    if (c.srv->library)
        c.srv->c_prefix = idl_c_ident(arena, units[0].stem ? units[0].stem : "library");
    else
        parse_server(&c, root);
    if (!c.srv->library)
        ck_registry(&c, root);
    for (size_t u = 0; u < nunits; u++) {
        ir_file *f = &c.srv->files[u];
        f->path = units[u].path;
        f->stem = units[u].stem;
        f->c_prefix = u == 0 ? c.srv->c_prefix : idl_c_ident(arena, units[u].stem ? units[u].stem : "imported");
        f->imports = units[u].imports;
        f->nimports = units[u].nimports;
        if (!f->c_prefix)
            return NULL;
    }

    /* The types of every file, each file's after those of the files it imports. */
    size_t *order = unit_order(&c, units, nunits);
    if (!order)
        return NULL;
    const idl_node **types = mcp_arena_alloc(arena, nunits * sizeof *types);
    if (!types)
        return NULL;
    size_t ntypes = 0;
    for (size_t u = 0; u < nunits; u++) {
        const idl_node *r = units[u].root;
        types[u] = r && r->kind == IDL_NODE_MAP ? ck_section(&c, r, "types", "definition") : NULL;
        ntypes += types[u] ? types[u]->n : 0;
    }
    ck_alloc_types(&c, ntypes);
    for (size_t i = 0; i < nunits; i++) {
        c.prefix = c.srv->files[order[i]].c_prefix;
        ck_declare_types(&c, types[order[i]]);
    }
    for (size_t i = 0; i < nunits; i++) {
        c.prefix = c.srv->files[order[i]].c_prefix;
        ck_define_types(&c, types[order[i]]);
    }
    c.prefix = c.srv->c_prefix;
    ck_parse_tools(&c, ck_section(&c, root, "tools", "tool"));
    ck_beyond(&c, root);
    if (!c.srv->library)
        ck_list_changed(&c, idl_map_get(root, "server"));

    /* The whole-file checks also run after errors, over what did resolve, so a
     * run reports as much as it can. */
    ck_check_defaults(&c);
    ck_check_finite(&c);
    ck_check_by_value_cycles(&c);
    ck_mark_cycles(&c);
    ck_check_c_names(&c);
    ck_free_lines(&c);
    assert(d->errors >= errors_before);
    return d->errors == errors_before ? c.srv : NULL;
}

ir_server *idl_check_units(mcp_arena *arena, idl_diags *d, const idl_unit *units, size_t nunits,
                           const idl_options *opts)
{
    mcp_arena scratch;
    mcp_arena_init(&scratch);
    ir_server *srv = check_units(arena, &scratch, d, units, nunits, opts);
    mcp_arena_free(&scratch);
    return srv;
}

ir_server *idl_check(mcp_arena *arena, idl_diags *d, const idl_node *root, const idl_options *opts)
{
    idl_unit unit = {.path = d->path, .stem = "server", .root = root};
    return idl_check_units(arena, d, &unit, 1, opts);
}

ir_server *idl_compile(mcp_arena *arena, idl_diags *d, const char *src, size_t len, const idl_options *opts)
{
    idl_node *root = idl_load_yaml(arena, d, src, len, NULL);
    if (!root)
        return NULL;
    return idl_check(arena, d, root, opts);
}
