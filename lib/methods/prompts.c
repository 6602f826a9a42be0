/* prompts.c: prompts/list and prompts/get (running a prompt's handler and
 * writing its messages). */
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"

/* ---------------------------------------------------------------- what prompt handlers call */

void mcp_prompt_role(mcp_call *call, mcp_role role)
{
    if (call && (role == MCP_ROLE_USER || role == MCP_ROLE_ASSISTANT))
        call->role = role;
}

mcp_status mcp_prompt_description(mcp_call *call, const char *description)
{
    call->prompt_description = description ? mcp_arena_strdup(call->arena, description) : NULL;
    if (description && !call->prompt_description)
        return mcp_fail(call, "out of memory");
    return MCP_OK;
}

/* ---------------------------------------------------------------- prompts/get */

const mcp_prompt *mcp_find_prompt(const mcp_methods_state *st, const mcp_server *srv, const char *name, size_t len)
{
    for (size_t i = 0; i < srv->nprompts; i++)
        if (srv->prompts[i].name && strlen(srv->prompts[i].name) == len && memcmp(srv->prompts[i].name, name, len) == 0)
            return mcp_item_off(st, MCP_LIST_PROMPTS, i) ? NULL : &srv->prompts[i];
    return NULL;
}

static int prompt_invoke(mcp_call *call, const mcp_prompt *p, const char *const *args, mcp_buf *out, const char **msg)
{
    if (p->get(call, args) != MCP_OK)
        return mcp_handler_error(call, "getting the prompt", msg);
    mcp_buf_putc(out, '{');
    if (call->prompt_description) {
        mcp_buf_puts(out, "\"description\":");
        mcp_handler_string(out, call->prompt_description, strlen(call->prompt_description));
        mcp_buf_putc(out, ',');
    }
    mcp_buf_puts(out, "\"messages\":[");
    for (size_t i = 0; i < call->nblocks; i++) {
        if (i)
            mcp_buf_putc(out, ',');
        mcp_buf_puts(out, call->blocks[i].role == MCP_ROLE_ASSISTANT ? "{\"role\":\"assistant\",\"content\":"
                                                                     : "{\"role\":\"user\",\"content\":");
        bool first = true;
        mcp_block_write(out, &first, &call->blocks[i]);
        mcp_buf_putc(out, '}');
    }
    mcp_buf_puts(out, "]}");
    return 0;
}

typedef struct get_data {
    const mcp_prompt *prompt;
    const char *const *args;
} get_data;

static void get_start(mcp_req *r)
{
    const mcp_json *name = mcp_need_string(r, mcp_req_params(r), "name");
    if (!name)
        return;
    const mcp_prompt *p = mcp_find_prompt(mcp_req_methods(r), mcp_req_env(r)->server, name->s, name->len);
    if (!p) {
        mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, name->s, name->len, "Invalid params: unknown prompt: ");
        return;
    }
    const mcp_json *args;
    if (!mcp_arguments_of(r, &args))
        return;
    get_data *d = mcp_arena_alloc(mcp_req_arena(r), sizeof *d);
    const char **vals = mcp_arena_alloc(mcp_req_arena(r), (p->nargs ? p->nargs : 1) * sizeof *vals);
    if (!d || !vals) {
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    for (size_t i = 0; i < p->nargs; i++) {
        const mcp_json *v = mcp_json_get(args, p->args[i].name);
        if (v && v->kind == MCP_JNULL)
            v = NULL;
        if (v && (v->kind != MCP_JSTRING || v->has_nul)) {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: argument '%s' of prompt '%s' must be a string",
                          p->args[i].name, p->name);
            return;
        }
        if (!v && p->args[i].required) {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: missing required argument '%s' of prompt '%s'",
                          p->args[i].name, p->name);
            return;
        }
        vals[i] = v ? v->s : NULL;
    }
    *d = (get_data){p, vals};
    mcp_req_run(r, d);
}

static int get_run(mcp_job *j, void *data, mcp_buf *out, const char **msg, mcp_buf *err_data)
{
    const get_data *d = data;
    mcp_call call;
    mcp_call_for_job(&call, j);
    call.uri = d->prompt->name;
    int code = mcp_mrtr_begin(&call, j, "prompts/get", msg);
    if (code == 0)
        code = prompt_invoke(&call, d->prompt, d->args, out, msg);
    return mcp_mrtr_end(&call, mcp_job_env(j), code, code != 0, out, msg, err_data);
}

static void prompts_list_start(mcp_req *r) { mcp_list_answer(r, MCP_LIST_PROMPTS); }

static bool serves_prompts(const mcp_server *srv) { return srv->nprompts > 0; }

const mcp_method mcp_method_prompts_list = {
    .name = "prompts/list", .flags = MCP_METHOD_CACHEABLE, .served = serves_prompts, .start = prompts_list_start};
const mcp_method mcp_method_prompts_get = {
    .name = "prompts/get", .served = serves_prompts, .start = get_start, .run = get_run};
