/* call.c: the call a handler gets, and what it says through it: memory,
 * failure, raw JSON, content blocks (mcpidl.h, "the handler's API"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "internal/utf8.h"
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

void mcp_call_for_job(mcp_call *call, mcp_job *j)
{
    mcp_call_init(call, mcp_job_arena(j), NULL, mcp_job_meta(j), mcp_job_cancelled(j));
    call->job = j;
}

unsigned mcp_call_client_caps(const mcp_call *call)
{
    if (!call)
        return 0;
    if (call->task_mode == MCP_CALL_TASK_RUN)
        return call->task_caps;
    return call->job ? mcp_job_ctx(call->job)->client_caps : 0;
}

const mcp_caller *mcp_call_caller(const mcp_call *call)
{
    return call && call->job ? mcp_job_ctx(call->job)->caller : NULL;
}

const char *mcp_caller_subject(const mcp_caller *caller) { return caller ? caller->subject : NULL; }

bool mcp_caller_has_scope(const mcp_caller *caller, const char *scope)
{
    for (size_t i = 0; caller && scope && i < caller->nscopes; i++)
        if (caller->scopes[i] && strcmp(caller->scopes[i], scope) == 0)
            return true;
    return false;
}

const mcp_json *mcp_caller_claim(const mcp_caller *caller, const char *name)
{
    return caller ? mcp_json_get(caller->claims, name) : NULL;
}

mcp_runtime *mcp_call_runtime(const mcp_call *call) { return call && call->job ? mcp_job_env(call->job)->rt : NULL; }

int mcp_handler_error(mcp_call *call, const char *what, const char **msg)
{
    *msg = mcp_arena_printf(call->arena, "Internal error: %s: %s", what,
                            call->fail_message ? call->fail_message : "the handler failed");
    return MCP_RPC_INTERNAL_ERROR;
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

mcp_status mcp_fail_protocol(mcp_call *call, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(call->arena, fmt, ap);
    va_end(ap);
    call->fail_message = msg ? msg : "the handler failed (and its message could not be stored)";
    call->rpc_code = code ? code : MCP_RPC_INTERNAL_ERROR;
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
    call->blocks[call->nblocks++] = (mcp_text_block){.text = t, .len = strlen(t), .role = call->role};
    return MCP_OK;
}

/* Content blocks other than text (mcp_content_image, ...): one more block,
 * its strings copied; NULL (the call failed) when out of memory. */
static mcp_text_block *block_push(mcp_call *call, mcp_block_kind kind)
{
    if (call->nblocks == call->cap_blocks) {
        size_t cap = call->cap_blocks ? call->cap_blocks * 2 : 4;
        mcp_text_block *b = mcp_arena_realloc(call->arena, call->blocks, call->cap_blocks * sizeof *b, cap * sizeof *b);
        if (!b) {
            mcp_fail(call, "out of memory");
            return NULL;
        }
        call->blocks = b;
        call->cap_blocks = cap;
    }
    mcp_text_block *blk = &call->blocks[call->nblocks];
    memset(blk, 0, sizeof *blk);
    blk->kind = kind;
    blk->role = call->role;
    return blk;
}

/* Copies of the strings s[0..n) (NULLs stay NULL); false when out of memory. */
static bool block_copy(mcp_call *call, const char **dst[], const char *const src[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *dst[i] = src[i] ? mcp_arena_strdup(call->arena, src[i]) : NULL;
        if (src[i] && !*dst[i])
            return false;
    }
    return true;
}

/* Standard base64 (RFC 4648 section 4), padded, nothing else. */
bool mcp_base64_valid(const char *s)
{
    size_t n = strlen(s), pad = 0;
    if (n % 4)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad ||
            !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return false;
    }
    return pad <= 2;
}

static mcp_status media_block(mcp_call *call, mcp_block_kind kind, const char *what, const char *mime, const char *b64)
{
    if (!mime || !*mime)
        return mcp_fail(call, "%s content needs a MIME type", what);
    if (!b64 || !mcp_base64_valid(b64))
        return mcp_fail(call, "%s content: the data is not base64", what);
    mcp_text_block *blk = block_push(call, kind);
    if (!blk)
        return MCP_ERROR;
    if (!block_copy(call, (const char **[]){&blk->mime, &blk->data}, (const char *const[]){mime, b64}, 2))
        return mcp_fail(call, "out of memory");
    call->nblocks++;
    return MCP_OK;
}

mcp_status mcp_content_image(mcp_call *call, const char *mime, const char *base64)
{
    return media_block(call, MCP_BLOCK_IMAGE, "image", mime, base64);
}

mcp_status mcp_content_audio(mcp_call *call, const char *mime, const char *base64)
{
    return media_block(call, MCP_BLOCK_AUDIO, "audio", mime, base64);
}

mcp_status mcp_content_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text)
{
    if (!uri || !*uri)
        return mcp_fail(call, "resource content needs a URI");
    mcp_text_block *blk = block_push(call, MCP_BLOCK_RESOURCE_TEXT);
    if (!blk)
        return MCP_ERROR;
    if (!block_copy(call, (const char **[]){&blk->uri, &blk->mime, &blk->text},
                    (const char *const[]){uri, mime, text ? text : ""}, 3))
        return mcp_fail(call, "out of memory");
    blk->len = strlen(blk->text);
    call->nblocks++;
    return MCP_OK;
}

mcp_status mcp_content_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64)
{
    if (!uri || !*uri)
        return mcp_fail(call, "resource content needs a URI");
    if (!base64 || !mcp_base64_valid(base64))
        return mcp_fail(call, "resource content: the blob is not base64");
    mcp_text_block *blk = block_push(call, MCP_BLOCK_RESOURCE_BLOB);
    if (!blk)
        return MCP_ERROR;
    if (!block_copy(call, (const char **[]){&blk->uri, &blk->mime, &blk->data},
                    (const char *const[]){uri, mime, base64}, 3))
        return mcp_fail(call, "out of memory");
    call->nblocks++;
    return MCP_OK;
}

mcp_status mcp_content_resource_link(mcp_call *call, const char *uri, const char *name, const char *mime,
                                     const char *description)
{
    if (!uri || !*uri || !name)
        return mcp_fail(call, "a resource link needs a URI and a name");
    mcp_text_block *blk = block_push(call, MCP_BLOCK_RESOURCE_LINK);
    if (!blk)
        return MCP_ERROR;
    if (!block_copy(call, (const char **[]){&blk->uri, &blk->name, &blk->mime, &blk->description},
                    (const char *const[]){uri, name, mime, description}, 4))
        return mcp_fail(call, "out of memory");
    call->nblocks++;
    return MCP_OK;
}

const char *mcp_call_tool(const mcp_call *call) { return call->tool ? call->tool->name : NULL; }
const mcp_json *mcp_call_meta(const mcp_call *call) { return call->meta; }
bool mcp_call_cancelled(const mcp_call *call) { return call->cancelled && atomic_load(call->cancelled); }

/* ------------------------------------------------------------------ content */

/* A JSON string of text that a handler wrote (a failure message, a content
 * block): bytes that are not UTF-8 become U+FFFD, so the answer stays JSON. */
void mcp_handler_string(mcp_buf *b, const char *s, size_t n)
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

void mcp_text_block_write(mcp_buf *b, bool *first, const char *text, size_t len)
{
    if (!*first)
        mcp_buf_putc(b, ',');
    *first = false;
    mcp_buf_puts(b, "{\"type\":\"text\",\"text\":");
    mcp_handler_string(b, text, len);
    mcp_buf_putc(b, '}');
}

/* "key":"value" after a comma, the value a handler's string. */
static void block_member(mcp_buf *b, const char *key, const char *value)
{
    mcp_buf_printf(b, ",\"%s\":", key);
    mcp_handler_string(b, value, strlen(value));
}

/* One block of a `returns: content` tool, as the MCP ContentBlock of its kind. */
void mcp_block_write(mcp_buf *b, bool *first, const mcp_text_block *blk)
{
    switch (blk->kind) {
    case MCP_BLOCK_TEXT:
        mcp_text_block_write(b, first, blk->text, blk->len);
        return;
    case MCP_BLOCK_IMAGE:
    case MCP_BLOCK_AUDIO:
        if (!*first)
            mcp_buf_putc(b, ',');
        mcp_buf_puts(b, blk->kind == MCP_BLOCK_IMAGE ? "{\"type\":\"image\"" : "{\"type\":\"audio\"");
        block_member(b, "data", blk->data);
        block_member(b, "mimeType", blk->mime);
        break;
    case MCP_BLOCK_RESOURCE_TEXT:
    case MCP_BLOCK_RESOURCE_BLOB:
        if (!*first)
            mcp_buf_putc(b, ',');
        mcp_buf_puts(b, "{\"type\":\"resource\",\"resource\":{\"uri\":");
        mcp_handler_string(b, blk->uri, strlen(blk->uri));
        if (blk->mime)
            block_member(b, "mimeType", blk->mime);
        if (blk->kind == MCP_BLOCK_RESOURCE_TEXT) {
            mcp_buf_puts(b, ",\"text\":");
            mcp_handler_string(b, blk->text, blk->len);
        } else {
            block_member(b, "blob", blk->data);
        }
        mcp_buf_putc(b, '}');
        break;
    case MCP_BLOCK_RESOURCE_LINK:
        if (!*first)
            mcp_buf_putc(b, ',');
        mcp_buf_puts(b, "{\"type\":\"resource_link\",\"uri\":");
        mcp_handler_string(b, blk->uri, strlen(blk->uri));
        block_member(b, "name", blk->name);
        if (blk->description)
            block_member(b, "description", blk->description);
        if (blk->mime)
            block_member(b, "mimeType", blk->mime);
        break;
    }
    mcp_buf_putc(b, '}');
    *first = false;
}

/* Defined in jsonw.c: b->data[start..len) made a JSON string literal in place,
 * exactly as mcp_json_string would write it. */
