/* scopes.c: the OAuth scopes a message needs, from the server table (the
 * IDL's `scopes:` keys): what a transport that authenticates its callers
 * checks before the session sees the message (mcp_message_scopes, in
 * mcpidl/transport.h), and what the session checks again before a handler
 * runs. */
#include <string.h>

#include "internal/uritemplate.h"
#include "mcpidl/generated.h"
#include "mcpidl/transport.h"

typedef struct scope_set {
    const char **out;
    size_t cap, n;
} scope_set;

static void add_scopes(scope_set *s, const mcp_server *srv, const char *const *scopes, size_t n)
{
    if (!scopes) { /* an item that names none has the server's */
        scopes = srv->scopes;
        n = srv->nscopes;
    }
    for (size_t i = 0; scopes && i < n; i++) {
        if (!scopes[i])
            continue;
        bool seen = false;
        for (size_t k = 0; k < s->n && k < s->cap && !seen; k++)
            seen = strcmp(s->out[k], scopes[i]) == 0;
        /* Past cap, repeats cannot be told apart: the count may then be high,
         * never low, and the caller calls again with room for it. */
        if (seen)
            continue;
        if (s->n < s->cap)
            s->out[s->n] = scopes[i];
        s->n++;
    }
}

static const char *str_of(const mcp_json *o, const char *key)
{
    const mcp_json *v = mcp_json_get(o, key);
    return v && v->kind == MCP_JSTRING && !v->has_nul ? v->s : NULL;
}

static void add_prompt(scope_set *s, const mcp_server *srv, const char *name)
{
    for (size_t i = 0; name && i < srv->nprompts; i++)
        if (strcmp(srv->prompts[i].name, name) == 0) {
            add_scopes(s, srv, srv->prompts[i].scopes, srv->prompts[i].nscopes);
            return;
        }
}

/* A resource by its URI, else the first template it matches (as
 * resources/read finds them). */
static void add_resource(scope_set *s, const mcp_server *srv, const char *uri)
{
    if (!uri)
        return;
    for (size_t i = 0; i < srv->nresources; i++)
        if (srv->resources[i].uri && strcmp(srv->resources[i].uri, uri) == 0) {
            add_scopes(s, srv, srv->resources[i].scopes, srv->resources[i].nscopes);
            return;
        }
    mcp_arena a;
    mcp_arena_init(&a);
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const mcp_resource_template *t = &srv->templates[i];
        const char **v = mcp_arena_alloc(&a, (t->nvars ? t->nvars : 1) * sizeof *v);
        if (v && mcp_uri_template_match(t->uri_template, uri, &a, v, t->nvars)) {
            add_scopes(s, srv, t->scopes, t->nscopes);
            break;
        }
    }
    mcp_arena_free(&a);
}

static void add_message(scope_set *s, const mcp_server *srv, const mcp_json *m)
{
    if (!m || m->kind != MCP_JOBJECT)
        return;
    const char *method = str_of(m, "method");
    const mcp_json *params = mcp_json_get(m, "params");
    if (!method || !params || params->kind != MCP_JOBJECT)
        return;
    if (strcmp(method, "tools/call") == 0) {
        const char *name = str_of(params, "name");
        for (size_t i = 0; name && i < srv->ntools; i++)
            if (strcmp(srv->tools[i].name, name) == 0) {
                add_scopes(s, srv, srv->tools[i].scopes, srv->tools[i].nscopes);
                break;
            }
    } else if (strcmp(method, "resources/read") == 0 || strcmp(method, "resources/subscribe") == 0 ||
               strcmp(method, "resources/unsubscribe") == 0) {
        add_resource(s, srv, str_of(params, "uri"));
    } else if (strcmp(method, "subscriptions/listen") == 0) {
        /* 2026-07-28: the updates of each resource it subscribes to */
        const mcp_json *uris = mcp_json_get(mcp_json_get(params, "notifications"), "resourceSubscriptions");
        for (size_t i = 0; uris && uris->kind == MCP_JARRAY && i < uris->n; i++)
            if (uris->items[i]->kind == MCP_JSTRING && !uris->items[i]->has_nul)
                add_resource(s, srv, uris->items[i]->s);
    } else if (strcmp(method, "prompts/get") == 0) {
        add_prompt(s, srv, str_of(params, "name"));
    } else if (strcmp(method, "completion/complete") == 0) {
        const mcp_json *ref = mcp_json_get(params, "ref");
        const char *type = ref && ref->kind == MCP_JOBJECT ? str_of(ref, "type") : NULL;
        if (type && strcmp(type, "ref/prompt") == 0) {
            add_prompt(s, srv, str_of(ref, "name"));
        } else if (type && strcmp(type, "ref/resource") == 0) {
            const char *uri = str_of(ref, "uri");
            for (size_t i = 0; uri && i < srv->ntemplates; i++)
                if (strcmp(srv->templates[i].uri_template, uri) == 0) {
                    add_scopes(s, srv, srv->templates[i].scopes, srv->templates[i].nscopes);
                    break;
                }
        }
    }
}

size_t mcp_message_scopes(const mcp_server *srv, const mcp_json *m, const char **out, size_t cap)
{
    scope_set s = {.out = out, .cap = out ? cap : 0};
    if (!srv || !m)
        return 0;
    if (m->kind == MCP_JARRAY)
        for (size_t i = 0; i < m->n; i++)
            add_message(&s, srv, m->items[i]);
    else
        add_message(&s, srv, m);
    return s.n;
}
