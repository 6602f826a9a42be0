/* lifecycle.c: what a server says about itself: initialize (the 2025
 * revisions' handshake), server/discover (2026-07-28), and ping. */
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"

static const char *changes(const mcp_server *srv, unsigned flag) { return srv->flags & flag ? "true" : "false"; }

void mcp_capabilities_write(mcp_buf *r, const mcp_server *srv, bool modern, bool tasks25)
{
    /* logging: the runtime serves logging/setLevel, or the _meta logLevel
     * (and handlers may log). */
    mcp_buf_puts(r, "{\"logging\":{}");
    if (srv->ntools > 0)
        mcp_buf_printf(r, ",\"tools\":{\"listChanged\":%s}", changes(srv, MCP_SERVER_TOOLS_CHANGE));
    if (srv->nresources > 0 || srv->ntemplates > 0)
        mcp_buf_printf(r, ",\"resources\":{\"subscribe\":true,\"listChanged\":%s}",
                       changes(srv, MCP_SERVER_RESOURCES_CHANGE));
    if (srv->nprompts > 0)
        mcp_buf_printf(r, ",\"prompts\":{\"listChanged\":%s}", changes(srv, MCP_SERVER_PROMPTS_CHANGE));
    if (srv->nprompts > 0 || srv->ntemplates > 0)
        mcp_buf_puts(r, ",\"completions\":{}");
    if (modern && mcp_server_has_tasks(srv))
        mcp_buf_puts(r, ",\"extensions\":{\"" MCP_TASKS_EXTENSION "\":{}}");
    else if (tasks25 && mcp_server_has_tasks(srv)) /* 2025-11-25's experimental tasks */
        mcp_buf_puts(r, ",\"tasks\":{\"list\":{},\"cancel\":{},\"requests\":{\"tools\":{\"call\":{}}}}");
    mcp_buf_putc(r, '}');
}

void mcp_server_info_write(mcp_buf *r, const mcp_server *srv, bool full)
{
    mcp_buf_puts(r, "{\"name\":");
    mcp_json_cstring(r, srv->name ? srv->name : "");
    if (srv->title) {
        mcp_buf_puts(r, ",\"title\":");
        mcp_json_cstring(r, srv->title);
    }
    mcp_buf_puts(r, ",\"version\":");
    mcp_json_cstring(r, srv->version ? srv->version : "");
    if (full && srv->description) {
        mcp_buf_puts(r, ",\"description\":");
        mcp_json_cstring(r, srv->description);
    }
    if (full && srv->icons) {
        mcp_buf_puts(r, ",\"icons\":");
        mcp_buf_puts(r, srv->icons);
    }
    if (full && srv->website_url) {
        mcp_buf_puts(r, ",\"websiteUrl\":");
        mcp_json_cstring(r, srv->website_url);
    }
    mcp_buf_putc(r, '}');
}

static void initialize_start(mcp_req *r)
{
    const mcp_env *env = mcp_req_env(r);
    const mcp_json *params = mcp_req_params(r);
    /* The client's version when served, else the latest. */
    const mcp_json *pv = mcp_json_get(params, "protocolVersion");
    const char *version = pv && pv->kind == MCP_JSTRING ? mcp_version_find(pv->s, pv->len) : NULL;
    if (!version)
        version = MCP_LATEST_VERSION;
    const mcp_json *caps = mcp_json_get(params, "capabilities");
    unsigned client = (mcp_json_get(caps, "sampling") ? MCP_CLIENT_SAMPLING : 0) |
                      (mcp_json_get(caps, "elicitation") ? MCP_CLIENT_ELICITATION : 0) |
                      (mcp_json_get(caps, "roots") ? MCP_CLIENT_ROOTS : 0);
    const mcp_json *info = mcp_json_get(params, "clientInfo");
    const mcp_json *cname = mcp_json_get(info, "name"), *cver = mcp_json_get(info, "version");
    mcp_log(env->log, MCP_LOG_INFO, "initialize from %s %s: protocol %s",
            cname && cname->kind == MCP_JSTRING ? cname->s : "(unnamed client)",
            cver && cver->kind == MCP_JSTRING ? cver->s : "", version);

    const mcp_server *srv = env->server;
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "{\"protocolVersion\":");
    mcp_json_cstring(&b, version);
    mcp_buf_puts(&b, ",\"capabilities\":");
    mcp_capabilities_write(&b, srv, false, mcp_version_has_tasks25(version));
    mcp_buf_puts(&b, ",\"serverInfo\":");
    mcp_server_info_write(&b, srv, true);
    if (srv->instructions) {
        mcp_buf_puts(&b, ",\"instructions\":");
        mcp_json_cstring(&b, srv->instructions);
    }
    if (srv->meta) {
        mcp_buf_puts(&b, ",\"_meta\":");
        mcp_buf_puts(&b, srv->meta);
    }
    mcp_buf_putc(&b, '}');
    if (b.oom) {
        mcp_buf_free(&b);
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    mcp_session_begin(mcp_req_session(r), version, client);
    mcp_listeners_add_session(mcp_methods_listeners(mcp_req_methods(r)), mcp_req_session(r));
    mcp_req_result(r, b.data, b.len);
    mcp_buf_free(&b);
}

/* server/discover: the revisions served, the capabilities, the
 * instructions (the server's identity rides in every modern result's _meta;
 * discover's has the whole of it, and the server's own _meta: MCP_METHOD_FULL_INFO). */
static void discover_start(mcp_req *r)
{
    const mcp_server *srv = mcp_req_env(r)->server;
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "{\"supportedVersions\":");
    mcp_buf_puts(&b, mcp_supported_versions_json);
    mcp_buf_puts(&b, ",\"capabilities\":");
    mcp_capabilities_write(&b, srv, true, false);
    if (srv->instructions) {
        mcp_buf_puts(&b, ",\"instructions\":");
        mcp_json_cstring(&b, srv->instructions);
    }
    mcp_buf_putc(&b, '}');
    if (b.oom)
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        mcp_req_result(r, b.data, b.len);
    mcp_buf_free(&b);
}

static void ping_start(mcp_req *r) { mcp_req_result(r, "{}", 2); }

const mcp_method mcp_method_initialize = {.name = "initialize",
                                          .flags = MCP_METHOD_EARLY | MCP_METHOD_INITIALIZE | MCP_METHOD_LEGACY_ONLY,
                                          .start = initialize_start};
const mcp_method mcp_method_discover = {.name = "server/discover",
                                        .flags = MCP_METHOD_MODERN_ONLY | MCP_METHOD_CACHEABLE | MCP_METHOD_FULL_INFO,
                                        .start = discover_start};
const mcp_method mcp_method_ping = {
    .name = "ping", .flags = MCP_METHOD_EARLY | MCP_METHOD_LEGACY_ONLY, .start = ping_start};
