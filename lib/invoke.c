/* invoke.c: one tools/call, from decoded arguments to the CallToolResult,
 * following the MCP Python SDK's structured-output rules (IDL.md, "The call
 * result"): arguments validated as <tool>Arguments; the handler's value (C or
 * raw JSON) validated against the declared type; `content` rendered from the
 * returned value, `structuredContent` from the validated one. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "call.h"
#include "mcpidl/jsonw.h"

/* ------------------------------------------------------------------ the handler's API */

void mcp_call_init(mcp_call *call, mcp_arena *arena, const mcp_tool *tool, const mcp_json *meta,
                   const atomic_bool *cancelled)
{
    memset(call, 0, sizeof *call);
    call->arena = arena;
    call->tool = tool;
    call->meta = meta;
    call->cancelled = cancelled;
}

void *mcp_alloc(mcp_call *call, size_t n) { return mcp_arena_alloc(call->arena, n); }

char *mcp_strdup(mcp_call *call, const char *s) { return s ? mcp_arena_strdup(call->arena, s) : NULL; }

static char *vformat(mcp_arena *a, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        return NULL;
    char *p = mcp_arena_alloc(a, (size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *mcp_sprintf(mcp_call *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = vformat(call->arena, fmt, ap);
    va_end(ap);
    return p;
}

mcp_arena *mcp_call_arena(mcp_call *call) { return call->arena; }

mcp_status mcp_fail(mcp_call *call, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(call->arena, fmt, ap);
    va_end(ap);
    call->fail_message = msg ? msg : "the handler failed (and its message could not be stored)";
    return MCP_ERROR;
}

mcp_status mcp_return_json(mcp_call *call, const mcp_json *value)
{
    call->raw = value ? value : mcp_json_new_null(call->arena);
    call->raw_error = NULL;
    return MCP_OK;
}

mcp_status mcp_return_json_textn(mcp_call *call, const char *json, size_t len)
{
    mcp_json_err err = MCP_JSON_OK;
    size_t off = 0;
    mcp_json *v = json ? mcp_json_parse(call->arena, json, len, NULL, &err, &off) : NULL;
    if (!v) {
        call->raw = NULL;
        call->raw_error = json ? mcp_arena_printf(call->arena, "the returned text is not JSON: %s at byte %zu",
                                                  mcp_json_error_str(err), off)
                               : "the returned JSON text is NULL";
        return MCP_OK;
    }
    return mcp_return_json(call, v);
}

mcp_status mcp_return_json_text(mcp_call *call, const char *json)
{
    return mcp_return_json_textn(call, json, json ? strlen(json) : 0);
}

mcp_status mcp_return_jsonc(mcp_call *call, const struct json_object *value)
{
    mcp_json *v = mcp_json_from_jsonc(call->arena, value);
    if (!v) {
        call->raw = NULL;
        call->raw_error = "the returned json-c value could not be converted";
        return MCP_OK;
    }
    return mcp_return_json(call, v);
}

mcp_status mcp_content_text(mcp_call *call, const char *text)
{
    if (call->nblocks == call->cap_blocks) {
        size_t cap = call->cap_blocks ? call->cap_blocks * 2 : 4;
        mcp_text_block *b = mcp_arena_realloc(call->arena, call->blocks, call->cap_blocks * sizeof *b, cap * sizeof *b);
        if (!b)
            return mcp_fail(call, "out of memory");
        call->blocks = b;
        call->cap_blocks = cap;
    }
    const char *t = mcp_arena_strdup(call->arena, text ? text : ""); /* the caller's buffer may not live on */
    if (!t)
        return mcp_fail(call, "out of memory");
    call->blocks[call->nblocks++] = (mcp_text_block){t, strlen(t)};
    return MCP_OK;
}

const char *mcp_call_tool(const mcp_call *call) { return call->tool->name; }
const mcp_json *mcp_call_meta(const mcp_call *call) { return call->meta; }
bool mcp_call_cancelled(const mcp_call *call) { return call->cancelled && atomic_load(call->cancelled); }

/* ------------------------------------------------------------------ content */

/* A JSON string of text that a handler wrote (a failure message, a content
 * block): bytes that are not UTF-8 become U+FFFD, so the answer stays JSON. */
static void handler_string(mcp_buf *b, const char *s, size_t n)
{
    if (mcp_utf8_valid(s, n)) {
        mcp_json_string(b, s, n);
        return;
    }
    mcp_buf fixed;
    mcp_buf_init(&fixed);
    for (size_t i = 0; i < n;) {
        size_t len = 1;
        unsigned char c = (unsigned char)s[i];
        if (c >= 0xC0)
            len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
        if (c >= 0x80 && (i + len > n || !mcp_utf8_valid(s + i, len))) {
            mcp_buf_puts(&fixed, "\xef\xbf\xbd");
            i++;
            continue;
        }
        mcp_buf_put(&fixed, s + i, len);
        i += len;
    }
    mcp_json_string(b, fixed.data ? fixed.data : "", fixed.len);
    if (fixed.oom)
        b->oom = true;
    mcp_buf_free(&fixed);
}

static void text_block(mcp_buf *b, bool *first, const char *text, size_t len)
{
    if (!*first)
        mcp_buf_putc(b, ',');
    *first = false;
    mcp_buf_puts(b, "{\"type\":\"text\",\"text\":");
    handler_string(b, text, len);
    mcp_buf_putc(b, '}');
}

/* The type that describes `v` under `t`: through Optional, and through a union
 * to its first arm of the value's JSON kind. */
static const mcp_type *effective(const mcp_type *t, const mcp_json *v)
{
    for (;;) {
        if (!t)
            return NULL;
        if (t->kind == MCP_T_OPTIONAL || t->kind == MCP_T_PTR) {
            t = t->elem;
        } else if (t->kind == MCP_T_UNION) {
            const mcp_type *pick = NULL;
            for (uint32_t i = 0; i < t->nitems && !pick; i++) {
                mcp_tkind k = t->items[i]->kind;
                bool arrayish = k == MCP_T_LIST || k == MCP_T_SET || k == MCP_T_TUPLE;
                if (v->kind == MCP_JARRAY ? arrayish : !arrayish)
                    pick = t->items[i];
            }
            t = pick;
        } else {
            return t;
        }
    }
}

/* Content blocks from a value (the SDK's _convert_to_content): a string is its
 * text, null gives nothing, a list or tuple one block per item (flattened), a
 * set and anything else one block of indented JSON. */
static bool render(mcp_buf *b, bool *first, const mcp_type *t, const mcp_json *v, mcp_arena *scratch)
{
    if (v->kind == MCP_JNULL)
        return true;
    if (v->kind == MCP_JSTRING) {
        text_block(b, first, v->s, v->len);
        return true;
    }
    const mcp_type *e = effective(t, v);
    if (v->kind == MCP_JARRAY && !(e && e->kind == MCP_T_SET)) {
        for (size_t i = 0; i < v->n; i++) {
            const mcp_type *it = !e ? NULL : e->kind == MCP_T_TUPLE ? (i < e->nitems ? e->items[i] : NULL)
                                         : e->kind == MCP_T_LIST    ? e->elem
                                                                    : NULL;
            if (!render(b, first, it, v->items[i], scratch))
                return false;
        }
        return true;
    }
    mcp_buf text;
    mcp_buf_init(&text);
    bool ok = mcp_json_write(&text, v, 2);
    if (ok && !text.oom)
        text_block(b, first, text.data, text.len);
    mcp_buf_free(&text);
    (void)scratch;
    return ok;
}

/* ------------------------------------------------------------------ results */

static void error_result(mcp_buf *out, const char *tool, const char *text, size_t len)
{
    mcp_buf msg;
    mcp_buf_init(&msg);
    mcp_buf_printf(&msg, "Error executing tool %s: ", tool);
    mcp_buf_put(&msg, text, len);
    mcp_buf_puts(out, "{\"content\":[{\"type\":\"text\",\"text\":");
    handler_string(out, msg.data ? msg.data : "", msg.len);
    mcp_buf_puts(out, "}],\"isError\":true}");
    if (msg.oom)
        out->oom = true;
    mcp_buf_free(&msg);
}

static void report_result(mcp_buf *out, const char *tool, const mcp_report *rep, const char *title)
{
    mcp_buf text;
    mcp_buf_init(&text);
    mcp_report_format(&text, rep, title);
    error_result(out, tool, text.data ? text.data : "", text.len);
    if (text.oom)
        out->oom = true;
    mcp_buf_free(&text);
}

bool mcp_tool_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    const mcp_tool *tool = call->tool;
    mcp_arena *a = call->arena;
    mcp_report rep;
    mcp_report_init(&rep, a);

    /* Arguments, validated as <tool>Arguments. */
    static const mcp_json EMPTY = {.kind = MCP_JOBJECT};
    void *args = mcp_arena_alloc(a, tool->args->size ? tool->args->size : 1);
    if (!args)
        return false;
    if (!mcp_decode(tool->args, arguments ? arguments : &EMPTY, args, a, &rep)) {
        if (rep.oom)
            return false;
        report_result(out, tool->name, &rep, tool->args->tag);
        return !out->oom;
    }

    /* The handler. */
    void *value = tool->result ? mcp_arena_alloc(a, tool->result->size ? tool->result->size : 1) : NULL;
    if (tool->result && !value)
        return false;
    mcp_status st = tool->handler(call, args, value);
    if (st != MCP_OK) {
        const char *m = call->fail_message ? call->fail_message : "the handler failed without a message";
        error_result(out, tool->name, m, strlen(m));
        return !out->oom;
    }

    /* `returns: content`: the handler's own blocks. */
    if (!tool->result) {
        bool first = true;
        mcp_buf_puts(out, "{\"content\":[");
        for (size_t i = 0; i < call->nblocks; i++)
            text_block(out, &first, call->blocks[i].text, call->blocks[i].len);
        mcp_buf_puts(out, "],\"isError\":false}");
        return !out->oom;
    }

    /* The returned value as JSON: raw, or from the C value. */
    const mcp_json *raw = call->raw;
    if (call->raw_error) {
        error_result(out, tool->name, call->raw_error, strlen(call->raw_error));
        return !out->oom;
    }
    if (!raw) {
        const char *why = NULL;
        raw = mcp_to_json(tool->result, value, a, &why);
        if (!raw) {
            error_result(out, tool->name, why, strlen(why));
            return !out->oom;
        }
    }

    /* content, from the returned value */
    mcp_buf content;
    mcp_buf_init(&content);
    bool first = true;
    if (!render(&content, &first, tool->result, raw, a) && !content.oom) {
        mcp_buf_free(&content);
        static const char NAN_MSG[] = "the returned value holds a NaN or infinite float, which JSON cannot carry";
        error_result(out, tool->name, NAN_MSG, sizeof NAN_MSG - 1);
        return !out->oom;
    }

    if (!tool->structured || tool->output == MCP_OUTPUT_NONE) {
        mcp_buf_puts(out, "{\"content\":[");
        mcp_buf_put(out, content.data ? content.data : "", content.len);
        mcp_buf_puts(out, "],\"isError\":false}");
        bool ok = !content.oom && !out->oom;
        mcp_buf_free(&content);
        return ok;
    }

    /* structuredContent, from the validated value */
    void *valid = mcp_arena_alloc(a, tool->result->size ? tool->result->size : 1);
    if (!valid) {
        mcp_buf_free(&content);
        return false;
    }
    bool wrapped = tool->output == MCP_OUTPUT_WRAPPED;
    if (wrapped)
        mcp_report_push_key(&rep, "result", 6);
    bool ok = mcp_decode(tool->result, raw, valid, a, &rep);
    if (wrapped)
        mcp_report_pop(&rep);
    if (!ok) {
        mcp_buf_free(&content);
        if (rep.oom)
            return false;
        report_result(out, tool->name, &rep, tool->output_title);
        return !out->oom;
    }
    const char *why = NULL;
    mcp_json *sv = mcp_to_json(tool->result, valid, a, &why);
    if (!sv) {
        mcp_buf_free(&content);
        return false;
    }
    mcp_buf_puts(out, "{\"content\":[");
    mcp_buf_put(out, content.data ? content.data : "", content.len);
    mcp_buf_puts(out, "],\"structuredContent\":");
    if (wrapped)
        mcp_buf_puts(out, "{\"result\":");
    mcp_json_write(out, sv, -1);
    if (wrapped)
        mcp_buf_putc(out, '}');
    mcp_buf_puts(out, ",\"isError\":false}");
    ok = !content.oom && !out->oom;
    mcp_buf_free(&content);
    return ok;
}
