/* completion/complete: suggestions for a prompt's argument or a template's
 * variable, from a static list or a handler. */
#include <string.h>

#include "internal/methods.h"
#include "internal/uritemplate.h"
#include "mcpidl/jsonw.h"

mcp_status mcp_complete_value(mcp_call *call, const char *value)
{
    if (!value)
        return MCP_OK;
    if (call->nvalues == call->cap_values) {
        size_t cap = call->cap_values ? call->cap_values * 2 : 16;
        const char **v = mcp_arena_realloc(call->arena, call->values, call->cap_values * sizeof *v, cap * sizeof *v);
        if (!v)
            return mcp_fail(call, "out of memory");
        call->values = v;
        call->cap_values = cap;
    }
    const char *copy = mcp_arena_strdup(call->arena, value);
    if (!copy)
        return mcp_fail(call, "out of memory");
    call->values[call->nvalues++] = copy;
    return MCP_OK;
}

/* ---------------------------------------------------------------- completion/complete */

/* The most values one answer carries (the specification's limit). */
#define MAX_COMPLETIONS 100

static int complete_invoke(mcp_call *call, const mcp_completer *k, const char *value, const mcp_json *context,
                           mcp_buf *out, const char **msg)
{
    if (k && k->handler) {
        if (k->handler(call, value, context) != MCP_OK)
            return mcp_handler_error(call, "completing", msg);
    } else if (k) {
        size_t n = strlen(value);
        for (size_t i = 0; i < k->nvalues; i++)
            if (strncmp(k->values[i], value, n) == 0 && mcp_complete_value(call, k->values[i]) != MCP_OK)
                return mcp_handler_error(call, "completing", msg);
    }
    mcp_buf_puts(out, "{\"completion\":{\"values\":[");
    size_t shown = call->nvalues < MAX_COMPLETIONS ? call->nvalues : MAX_COMPLETIONS;
    for (size_t i = 0; i < shown; i++) {
        if (i)
            mcp_buf_putc(out, ',');
        mcp_handler_string(out, call->values[i], strlen(call->values[i]));
    }
    mcp_buf_printf(out, "],\"total\":%zu,\"hasMore\":%s}}", call->nvalues, call->nvalues > shown ? "true" : "false");
    return 0;
}

typedef struct complete_data {
    const mcp_completer *completer; /* NULL: nothing to suggest */
    const char *value;
    const mcp_json *context;
} complete_data;

static const mcp_completer *find_completer(const mcp_completer *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

static void complete_start(mcp_req *r)
{
    const mcp_json *params = mcp_req_params(r);
    const mcp_json *ref = mcp_json_get(params, "ref");
    const mcp_json *arg = mcp_json_get(params, "argument");
    if (!ref || ref->kind != MCP_JOBJECT) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: ref must be an object");
        return;
    }
    if (!arg || arg->kind != MCP_JOBJECT) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: argument must be an object");
        return;
    }
    const mcp_json *aname = mcp_need_string(r, arg, "name");
    if (!aname)
        return;
    const mcp_json *value = mcp_need_string(r, arg, "value");
    if (!value)
        return;
    const mcp_json *type = mcp_json_get(ref, "type");
    const mcp_server *srv = mcp_req_env(r)->server;
    const mcp_completer *k = NULL;
    bool known_arg = false;
    if (mcp_json_str_is(type, "ref/prompt")) {
        const mcp_json *name = mcp_need_string(r, ref, "name");
        if (!name)
            return;
        const mcp_prompt *p = mcp_find_prompt(mcp_req_methods(r), srv, name->s, name->len);
        if (!p) {
            mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, name->s, name->len, "Invalid params: unknown prompt: ");
            return;
        }
        for (size_t i = 0; i < p->nargs; i++)
            known_arg = known_arg || strcmp(p->args[i].name, aname->s) == 0;
        k = find_completer(p->complete, p->ncomplete, aname->s);
    } else if (mcp_json_str_is(type, "ref/resource")) {
        const mcp_json *uri = mcp_need_string(r, ref, "uri");
        if (!uri)
            return;
        const mcp_resource_template *t = NULL;
        for (size_t i = 0; i < srv->ntemplates && !t; i++)
            if (strcmp(srv->templates[i].uri_template, uri->s) == 0 &&
                !mcp_item_off(mcp_req_methods(r), MCP_LIST_TEMPLATES, i))
                t = &srv->templates[i];
        if (!t) {
            mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, uri->s, uri->len, "Invalid params: no resource template ");
            return;
        }
        for (size_t i = 0; i < t->nvars; i++) {
            const char *v = mcp_uri_template_var(t->uri_template, i, mcp_req_arena(r));
            known_arg = known_arg || (v && strcmp(v, aname->s) == 0);
        }
        k = find_completer(t->complete, t->ncomplete, aname->s);
    } else {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: ref.type must be \"ref/prompt\" or \"ref/resource\"");
        return;
    }
    if (!known_arg) {
        mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, aname->s, aname->len, "Invalid params: unknown argument: ");
        return;
    }
    const mcp_json *ctx = mcp_json_get(mcp_json_get(params, "context"), "arguments");
    if (ctx && ctx->kind != MCP_JOBJECT)
        ctx = NULL;
    complete_data *d = mcp_arena_alloc(mcp_req_arena(r), sizeof *d);
    if (!d) {
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    *d = (complete_data){k, value->s, ctx};
    mcp_req_run(r, d);
}

static int complete_run(mcp_job *j, void *data, mcp_buf *out, const char **msg, mcp_buf *err_data)
{
    (void)err_data;
    const complete_data *d = data;
    mcp_call call;
    mcp_call_for_job(&call, j);
    return complete_invoke(&call, d->completer, d->value, d->context, out, msg);
}

static bool serves_completions(const mcp_server *srv) { return srv->nprompts > 0 || srv->ntemplates > 0; }

const mcp_method mcp_method_complete = {
    .name = "completion/complete", .served = serves_completions, .start = complete_start, .run = complete_run};
