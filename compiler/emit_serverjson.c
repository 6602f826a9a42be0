/* emit_serverjson.c: the MCP Registry's server.json (schema 2025-09-29) of a
 * server: the name, title, description and version from `server` (or the
 * `registry` section), and the website, repository, icons, packages and
 * remotes of `registry`, which the checker has made JSON already. Keys in the
 * order the registry's examples write them. */
#include <string.h>

#include "emit_serverjson.h"

static bool put_str(mcp_arena *a, mcp_json *o, const char *key, const char *s)
{
    return !s || mcp_json_set(a, o, key, mcp_json_new_string(a, s, strlen(s)));
}

static bool put_val(mcp_arena *a, mcp_json *o, const char *key, const mcp_json *v)
{
    /* mcp_json_set takes a mutable value; the document only reads it. */
    return !v || mcp_json_set(a, o, key, mcp_json_copy(a, v));
}

mcp_json *emit_server_json(mcp_arena *a, const ir_server *srv)
{
    const ir_registry *r = &srv->registry;
    mcp_json *o = mcp_json_new_object(a);
    bool ok = o && put_str(a, o, "$schema", SERVER_JSON_SCHEMA) && put_str(a, o, "name", ir_registry_name(srv)) &&
              put_str(a, o, "title", srv->title) && put_str(a, o, "description", ir_registry_description(srv)) &&
              put_str(a, o, "version", srv->version) &&
              put_str(a, o, "websiteUrl", r->website_url ? r->website_url : srv->website_url) &&
              put_val(a, o, "repository", r->repository) && put_val(a, o, "icons", r->icons) &&
              put_val(a, o, "packages", r->packages) && put_val(a, o, "remotes", r->remotes);
    return ok ? o : NULL;
}
