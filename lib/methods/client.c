/* client.c: requests a handler sends the client (sampling, elicitation,
 * roots, any method) and the answers it gets, typed elicitation forms
 * included. The session (mcp_job_ask) sends them and waits. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"

static const mcp_json *client_fail(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);

static const mcp_json *client_fail(mcp_call *call, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *msg = mcp_arena_strdup(call->arena, text);
    call->client_error = msg ? msg : "a request to the client failed (out of memory)";
    return NULL;
}

/* The capability (MCP_CLIENT_*) `method` needs from the client; 0: none. */
static unsigned needed_capability(const char *method, const char **name)
{
    static const struct {
        const char *method, *name;
        unsigned bit;
    } NEEDS[] = {{"sampling/createMessage", "sampling", MCP_CLIENT_SAMPLING},
                 {"elicitation/create", "elicitation", MCP_CLIENT_ELICITATION},
                 {"roots/list", "roots", MCP_CLIENT_ROOTS}};
    for (size_t i = 0; i < sizeof NEEDS / sizeof *NEEDS; i++)
        if (strcmp(method, NEEDS[i].method) == 0) {
            *name = NEEDS[i].name;
            return NEEDS[i].bit;
        }
    *name = NULL;
    return 0;
}

/* A request whose params are JSON text (NULL: none); the result parsed into
 * the call's arena. In a modern request, the answer the request carries
 * (multi round-trip requests, mrtr.c). */
static const mcp_json *client_request_text(mcp_call *call, const char *method, const char *params, size_t params_len)
{
    if (!call)
        return NULL;
    call->client_error = NULL;
    mcp_job *j = call->job;
    if (!j && call->task_mode != MCP_CALL_TASK_RUN)
        return client_fail(call, "%s: no client to ask (the call is not served by a session)", method);
    const char *cap = NULL;
    unsigned need = needed_capability(method, &cap);
    if (need && !(mcp_call_client_caps(call) & need)) {
        mcp_mrtr_missing(call, need);
        return client_fail(call, "%s: the client did not declare the %s capability", method, cap);
    }
    if (call->mrtr && !mcp_mrtr_recording(call))
        return mcp_mrtr_request(call, method, params, params_len);
    if (!j) /* a task of 2025-11-25 runs outside its request */
        return client_fail(call, "%s: no requests to the client in a task of 2025-11-25 (ask before mcp_task_start)",
                           method);
    if (!mcp_job_can_ask(j))
        return client_fail(call,
                           "%s: requests to the client need worker threads (with --workers 0 "
                           "the handler runs on the thread that would read the answer)",
                           method);
    char *text = NULL, *why = NULL;
    size_t len = 0;
    if (mcp_job_ask(j, method, params, params_len, &text, &len, &why) != 0) {
        client_fail(call, "%s", why ? why : "out of memory");
        free(why);
        return NULL;
    }
    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *result = mcp_json_parse(call->arena, text, len, NULL, &err, NULL);
    free(text);
    if (!result)
        client_fail(call, "%s: out of memory", method);
    else if (mcp_mrtr_recording(call))
        mcp_mrtr_record(call, result);
    return result;
}

/* client_request_text with the params written in `t`, which it frees. */
static const mcp_json *client_request_buf(mcp_call *call, const char *method, mcp_buf *t)
{
    const mcp_json *r = t->oom ? client_fail(call, "%s: out of memory", method)
                               : client_request_text(call, method, t->data, t->len);
    mcp_buf_free(t);
    return r;
}

const mcp_json *mcp_client_request(mcp_call *call, const char *method, const mcp_json *params)
{
    if (!call || !method)
        return NULL;
    if (!params)
        return client_request_text(call, method, NULL, 0);
    mcp_buf t;
    mcp_buf_init(&t);
    bool finite = mcp_json_write(&t, params, -1);
    if (!finite) {
        mcp_buf_free(&t);
        return client_fail(call, "%s: the params hold a NaN or infinite float", method);
    }
    return client_request_buf(call, method, &t);
}

const char *mcp_client_error(const mcp_call *call) { return call ? call->client_error : NULL; }

bool mcp_sample_text(mcp_call *call, const char *prompt, int max_tokens, const char **reply_text)
{
    if (reply_text)
        *reply_text = NULL;
    if (!call)
        return false;
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_buf_puts(&t, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
    const char *pr = prompt ? prompt : "";
    mcp_handler_string(&t, pr, strlen(pr));
    mcp_buf_printf(&t, "}}],\"maxTokens\":%d}", max_tokens > 0 ? max_tokens : 1);
    const mcp_json *r = client_request_buf(call, "sampling/createMessage", &t);
    if (!r)
        return false;
    /* content: one block, or (2025-11-25) an array of them: the first text. */
    const mcp_json *content = mcp_json_get(r, "content");
    const mcp_json *text = NULL;
    if (content && content->kind == MCP_JARRAY) {
        for (size_t i = 0; i < content->n && !text; i++)
            if (mcp_json_str_is(mcp_json_get(content->items[i], "type"), "text"))
                text = mcp_json_get(content->items[i], "text");
    } else if (mcp_json_str_is(mcp_json_get(content, "type"), "text")) {
        text = mcp_json_get(content, "text");
    }
    if (!text || text->kind != MCP_JSTRING) {
        client_fail(call, "sampling/createMessage: the client's answer holds no text content");
        return false;
    }
    if (text->has_nul) {
        /* The handler gets a C string: a NUL would cut it short, silently
         * (arguments and forms refuse NUL for the same reason). */
        client_fail(call, "sampling/createMessage: the client's text holds a NUL character");
        return false;
    }
    if (reply_text)
        *reply_text = text->s;
    return true;
}

bool mcp_elicit(mcp_call *call, const char *message, const char *requested_schema_json, const mcp_json **content,
                const char **action)
{
    if (content)
        *content = NULL;
    if (action)
        *action = NULL;
    if (!call)
        return false;
    const char *schema_text = requested_schema_json ? requested_schema_json : "";
    mcp_json_err err = MCP_JSON_OK;
    size_t off = 0;
    mcp_json *schema = mcp_json_parse(call->arena, schema_text, strlen(schema_text), NULL, &err, &off);
    if (!schema || schema->kind != MCP_JOBJECT) {
        client_fail(call, "elicitation/create: the requested schema is not a JSON object%s%s", schema ? "" : ": ",
                    schema ? "" : mcp_json_error_str(err));
        return false;
    }
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_buf_puts(&t, "{\"message\":");
    const char *msg = message ? message : "";
    mcp_handler_string(&t, msg, strlen(msg));
    /* The text as given: it parsed as an object (and is strict JSON), so
     * there is nothing to gain in writing the tree back. */
    mcp_buf_puts(&t, ",\"requestedSchema\":");
    mcp_buf_puts(&t, schema_text);
    mcp_buf_putc(&t, '}');
    const mcp_json *r = client_request_buf(call, "elicitation/create", &t);
    if (!r)
        return false;
    const mcp_json *act = mcp_json_get(r, "action");
    if (!(mcp_json_str_is(act, "accept") || mcp_json_str_is(act, "decline") || mcp_json_str_is(act, "cancel"))) {
        client_fail(call, "elicitation/create: the client's answer has no valid action");
        return false;
    }
    if (action)
        *action = act->s;
    const mcp_json *c = mcp_json_get(r, "content");
    if (content && mcp_json_str_is(act, "accept") && c && c->kind == MCP_JOBJECT)
        *content = c;
    return true;
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
