/* beyond.c: resources/read, prompts/get and completion/complete (running a
 * reader, a prompt or a completer and writing its result), and typed
 * elicitation. The protocol layer (server.c) finds the target and runs these
 * on a worker, like a tools/call.
 *
 * What a handler appends lives in its mcp_call: contents and prompt messages
 * as content blocks (call.h), completion values as strings; all in the
 * request's arena. */
#include <string.h>

#include "internal/call.h"
#include "mcpidl/jsonw.h"
#include "mcpidl/report.h"

/* ---------------------------------------------------------------- what handlers call */

const char *mcp_call_uri(const mcp_call *call) { return call ? call->uri : NULL; }

/* One item of `contents`, kept as a resource block. */
static mcp_status contents_item(mcp_call *call, mcp_block_kind kind, const char *uri, const char *mime,
                                const char *payload)
{
    if (call->nblocks == call->cap_blocks) {
        size_t cap = call->cap_blocks ? call->cap_blocks * 2 : 4;
        mcp_text_block *b =
            mcp_arena_realloc(call->arena, call->blocks, call->cap_blocks * sizeof *b, cap * sizeof *b);
        if (!b)
            return mcp_fail(call, "out of memory");
        call->blocks = b;
        call->cap_blocks = cap;
    }
    if (!uri)
        uri = call->uri;
    if (!mime)
        mime = call->default_mime;
    if (!uri || !*uri)
        return mcp_fail(call, "resource contents need a URI");
    mcp_text_block blk = {.kind = kind};
    blk.uri = mcp_arena_strdup(call->arena, uri);
    blk.mime = mime ? mcp_arena_strdup(call->arena, mime) : NULL;
    const char *p = mcp_arena_strdup(call->arena, payload);
    if (!blk.uri || (mime && !blk.mime) || !p)
        return mcp_fail(call, "out of memory");
    if (kind == MCP_BLOCK_RESOURCE_TEXT) {
        blk.text = p;
        blk.len = strlen(p);
    } else {
        blk.data = p;
    }
    call->blocks[call->nblocks++] = blk;
    return MCP_OK;
}

mcp_status mcp_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text)
{
    return contents_item(call, MCP_BLOCK_RESOURCE_TEXT, uri, mime, text ? text : "");
}

mcp_status mcp_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64)
{
    if (!base64 || !mcp_base64_valid(base64))
        return mcp_fail(call, "resource contents: the blob is not base64");
    return contents_item(call, MCP_BLOCK_RESOURCE_BLOB, uri, mime, base64);
}

mcp_status mcp_not_found(mcp_call *call)
{
    call->not_found = true;
    return MCP_ERROR;
}

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

/* ---------------------------------------------------------------- results */

/* The error of a handler that returned MCP_ERROR. */
static int handler_error(mcp_call *call, const char *what, const char **msg)
{
    *msg = mcp_arena_printf(call->arena, "Internal error: %s: %s", what,
                            call->fail_message ? call->fail_message : "the handler failed");
    return -32603;
}

static void contents_json(mcp_buf *out, const mcp_text_block *blocks, size_t n)
{
    mcp_buf_puts(out, "{\"contents\":[");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const mcp_text_block *b = &blocks[i];
        if (b->kind != MCP_BLOCK_RESOURCE_TEXT && b->kind != MCP_BLOCK_RESOURCE_BLOB)
            continue; /* only mcp_resource_text/blob make contents */
        if (!first)
            mcp_buf_putc(out, ',');
        first = false;
        mcp_buf_puts(out, "{\"uri\":");
        mcp_handler_string(out, b->uri, strlen(b->uri));
        if (b->mime) {
            mcp_buf_puts(out, ",\"mimeType\":");
            mcp_handler_string(out, b->mime, strlen(b->mime));
        }
        if (b->kind == MCP_BLOCK_RESOURCE_TEXT) {
            mcp_buf_puts(out, ",\"text\":");
            mcp_handler_string(out, b->text, b->len);
        } else {
            mcp_buf_puts(out, ",\"blob\":");
            mcp_json_string(out, b->data, strlen(b->data));
        }
        mcp_buf_putc(out, '}');
    }
    mcp_buf_puts(out, "]}");
}

int mcp_read_invoke(mcp_call *call, const mcp_resource *r, const mcp_resource_template *t,
                    const char *const *vars, mcp_buf *out, const char **msg)
{
    call->default_mime = r ? r->mime_type : t ? t->mime_type : NULL;
    mcp_status st = MCP_OK;
    if (r && (r->text || r->blob)) {
        st = r->text ? mcp_resource_text(call, NULL, NULL, r->text) : mcp_resource_blob(call, NULL, NULL, r->blob);
    } else {
        mcp_read_fn read = r ? r->read : t ? t->read : NULL;
        st = read ? read(call, call->uri, vars) : mcp_fail(call, "no reader");
    }
    if (call->not_found) {
        *msg = "Resource not found";
        return -32002;
    }
    if (st != MCP_OK)
        return handler_error(call, "reading the resource", msg);
    contents_json(out, call->blocks, call->nblocks);
    return 0;
}

int mcp_prompt_invoke(mcp_call *call, const mcp_prompt *p, const char *const *args, mcp_buf *out, const char **msg)
{
    if (p->get(call, args) != MCP_OK)
        return handler_error(call, "getting the prompt", msg);
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

/* The most values one answer carries (the specification's limit). */
#define MAX_COMPLETIONS 100

int mcp_complete_invoke(mcp_call *call, const mcp_completer *k, const char *value, const mcp_json *context,
                        mcp_buf *out, const char **msg)
{
    if (k && k->handler) {
        if (k->handler(call, value, context) != MCP_OK)
            return handler_error(call, "completing", msg);
    } else if (k) {
        size_t n = strlen(value);
        for (size_t i = 0; i < k->nvalues; i++)
            if (strncmp(k->values[i], value, n) == 0 && mcp_complete_value(call, k->values[i]) != MCP_OK)
                return handler_error(call, "completing", msg);
    }
    mcp_buf_puts(out, "{\"completion\":{\"values\":[");
    size_t shown = call->nvalues < MAX_COMPLETIONS ? call->nvalues : MAX_COMPLETIONS;
    for (size_t i = 0; i < shown; i++) {
        if (i)
            mcp_buf_putc(out, ',');
        mcp_handler_string(out, call->values[i], strlen(call->values[i]));
    }
    mcp_buf_printf(out, "],\"total\":%zu,\"hasMore\":%s}}", call->nvalues,
                   call->nvalues > shown ? "true" : "false");
    return 0;
}

/* ---------------------------------------------------------------- typed elicitation */

bool mcp_elicit_form(mcp_call *call, const mcp_elicitation *form, const char *message, void *out,
                     mcp_elicit_action *action)
{
    if (action)
        *action = MCP_ELICIT_NONE;
    if (!call || !form || !out)
        return false;
    const mcp_json *content = NULL;
    const char *act = NULL;
    if (!mcp_elicit(call, message ? message : form->message, form->schema, &content, &act))
        return false;
    mcp_elicit_action a = MCP_ELICIT_NONE;
    if (act && strcmp(act, "accept") == 0)
        a = MCP_ELICIT_ACCEPT;
    else if (act && strcmp(act, "decline") == 0)
        a = MCP_ELICIT_DECLINE;
    else if (act && strcmp(act, "cancel") == 0)
        a = MCP_ELICIT_CANCEL;
    if (action)
        *action = a;
    if (a != MCP_ELICIT_ACCEPT)
        return false;
    memset(out, 0, form->type->size);
    mcp_report *rep = mcp_arena_alloc(call->arena, sizeof *rep);
    if (!rep) {
        call->client_error = "out of memory";
        return false;
    }
    mcp_report_init(rep, call->arena);
    mcp_json empty = {.kind = MCP_JOBJECT};
    if (mcp_decode(form->type, content ? content : &empty, out, call->arena, rep))
        return true;
    mcp_buf text;
    mcp_buf_init(&text);
    mcp_buf_printf(&text, "elicitation/create: the answer does not fit the form '%s': ", form->name);
    mcp_report_format(&text, rep, form->name);
    call->client_error = mcp_arena_strndup(call->arena, text.data ? text.data : "", text.len);
    mcp_buf_free(&text);
    return false;
}
