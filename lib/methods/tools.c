/* tools.c: tools/list and tools/call, from decoded arguments to the
 * CallToolResult, following the MCP Python SDK's structured-output rules
 * (IDL.md, "The call result"): arguments validated as <tool>Arguments; the
 * handler's value (C or raw JSON) validated against the declared type;
 * `content` rendered from the returned value, `structuredContent` from the
 * validated one. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "internal/utf8.h"
#include "mcpidl/jsonw.h"

static void truncate_to(mcp_buf *b, size_t len)
{
    if (b->len > len) {
        b->len = len;
        b->data[len] = 0;
    }
}

/* A text block of v as indented JSON (what text_block would write with the
 * text of mcp_json_write(v, 2)), written straight into b: the JSON, then
 * escaped where it stands. False, with nothing written, when v holds a
 * non-finite float (or when out of memory, b->oom set). */
static bool json_block(mcp_buf *b, bool *first, const mcp_json *v)
{
    size_t mark = b->len;
    if (!*first)
        mcp_buf_putc(b, ',');
    mcp_buf_puts(b, "{\"type\":\"text\",\"text\":");
    size_t start = b->len;
    if (!mcp_json_write(b, v, 2)) {
        if (!b->oom)
            truncate_to(b, mark);
        return false;
    }
    if (mcp_utf8_valid(b->data + start, b->len - start)) {
        mcp_json_string_in_place(b, start);
    } else {
        /* Bytes that are not UTF-8 (a hand-built value): the handler's rule. */
        size_t n = b->len - start;
        char *copy = malloc(n ? n : 1);
        if (!copy) {
            b->oom = true;
            return false;
        }
        memcpy(copy, b->data + start, n);
        truncate_to(b, start);
        mcp_handler_string(b, copy, n);
        free(copy);
    }
    mcp_buf_putc(b, '}');
    *first = false;
    return !b->oom;
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
        mcp_text_block_write(b, first, v->s, v->len);
        return true;
    }
    const mcp_type *e = effective(t, v);
    if (v->kind == MCP_JARRAY && !(e && e->kind == MCP_T_SET)) {
        for (size_t i = 0; i < v->n; i++) {
            const mcp_type *it = !e                       ? NULL
                                 : e->kind == MCP_T_TUPLE ? (i < e->nitems ? e->items[i] : NULL)
                                 : e->kind == MCP_T_LIST  ? e->elem
                                                          : NULL;
            if (!render(b, first, it, v->items[i], scratch))
                return false;
        }
        return true;
    }
    (void)scratch;
    return json_block(b, first, v);
}

/* ------------------------------------------------------------------ one serialisation */

/* Whether render() makes exactly one block of v, of the whole value as JSON. */
static bool one_json_block(const mcp_type *t, const mcp_json *v)
{
    if (v->kind == MCP_JNULL || v->kind == MCP_JSTRING)
        return false;
    if (v->kind != MCP_JARRAY)
        return true;
    const mcp_type *e = effective(t, v);
    return e && e->kind == MCP_T_SET;
}

/* Whether x and y write the same JSON text (mcp_json_write, any indent), no
 * float of theirs non-finite. False when unsure (deeper than 64 levels). */
static bool same_text(const mcp_json *x, const mcp_json *y, int depth)
{
    if (x == y)
        return true; /* a node shared (an Any value): its floats were checked finite */
    if (!x || !y || x->kind != y->kind || depth > 64)
        return false;
    switch (x->kind) {
    case MCP_JNULL:
        return true;
    case MCP_JBOOL:
        return x->b == y->b;
    case MCP_JINT:
        return x->i == y->i;
    case MCP_JFLOAT:
        return isfinite(x->d) && x->d == y->d && signbit(x->d) == signbit(y->d); /* -0.0 writes as -0.0 */
    case MCP_JBIGINT:
    case MCP_JSTRING:
        return x->len == y->len && (x->len == 0 || memcmp(x->s, y->s, x->len) == 0);
    case MCP_JARRAY:
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++)
            if (!same_text(x->items[i], y->items[i], depth + 1))
                return false;
        return true;
    case MCP_JOBJECT:
        if (x->n != y->n)
            return false;
        for (size_t i = 0; i < x->n; i++) {
            const mcp_json_member *a = &x->members[i], *b = &y->members[i];
            if (a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len) != 0 ||
                !same_text(a->value, b->value, depth + 1))
                return false;
        }
        return true;
    }
    return false;
}

/* The compact JSON text b->data[from..from+n) (mcp_json_write(v, -1)) made
 * the JSON string literal of mcp_json_write(v, 2), appended to b: the
 * indented text, escaped as mcp_json_string_in_place escapes it. The
 * indented text is the compact one with a line break and indentation after
 * each opening bracket of a non-empty container and after each comma, before
 * each closing one, and a space after each colon (outside strings); the
 * escaping doubles each backslash, escapes each quote and writes each line
 * break as \n (the compact text holds no control character: its strings are
 * escaped). *high set when some byte is not ASCII. False when out of memory. */
static bool append_indented_literal(mcp_buf *b, size_t from, size_t n, bool *high)
{
    /* Each byte of the compact text makes at most two of the literal but for
     * the line breaks: with room for twice what is left (and the closing
     * quote) at the top of each step, only a line break needs a check. */
    if (n > (SIZE_MAX - 64) / 2 || !mcp_buf_reserve(b, 2 * n + 64))
        return false;
    const char *c = b->data + from;
    char *w = b->data + b->len, *lim = b->data + b->cap - 1;
    size_t depth = 0;
    unsigned char any = 0;
    uint64_t wide = 0; /* the bytes copied eight at a time, or-ed */
    /* A line break and the indentation of depth, with the room kept. */
#define BREAK() \
    do { \
        size_t need_ = 3 + 2 * depth + 16 + 2 * (n - i); \
        if ((size_t)(lim - w) < need_) { \
            b->len = (size_t)(w - b->data); \
            if (!mcp_buf_reserve(b, need_ + n + 64)) \
                return false; \
            c = b->data + from; \
            w = b->data + b->len; \
            lim = b->data + b->cap - 1; \
        } \
        *w++ = '\\'; \
        *w++ = 'n'; \
        if (depth <= 8) { /* sixteen spaces written, as many kept as needed */ \
            memcpy(w, "                ", 16); \
            w += 2 * depth; \
        } else { \
            for (size_t k_ = 0; k_ < 2 * depth; k_++) \
                *w++ = ' '; \
        } \
    } while (0)
    *w++ = '"';
    for (size_t i = 0; i < n; i++) {
        char ch = c[i];
        switch (ch) {
        case '"': /* a string: copied, its quotes and backslashes escaped */
            *w++ = '\\';
            *w++ = '"';
            /* Eight bytes at a time while none of them is a quote or a
             * backslash (and all eight are the compact text's): copied as
             * they are. */
            for (i++; i + 8 <= n; i += 8) {
                uint64_t x;
                memcpy(&x, c + i, sizeof x);
                uint64_t q = x ^ 0x2222222222222222u, s = x ^ 0x5c5c5c5c5c5c5c5cu;
                if ((((q - 0x0101010101010101u) & ~q) | ((s - 0x0101010101010101u) & ~s)) & 0x8080808080808080u)
                    break;
                memcpy(w, &x, sizeof x);
                w += 8;
                wide |= x;
            }
            for (; i < n && (ch = c[i]) != '"'; i++) {
                any |= (unsigned char)ch;
                if (ch == '\\' && i + 1 < n) {
                    *w++ = '\\';
                    *w++ = '\\';
                    ch = c[++i]; /* what the backslash escapes: itself escaped when a quote or a backslash */
                    if (ch == '"' || ch == '\\')
                        *w++ = '\\';
                }
                *w++ = ch;
            }
            *w++ = '\\';
            *w++ = '"';
            break;
        case '{':
        case '[':
            *w++ = ch;
            if (i + 1 < n && (c[i + 1] == '}' || c[i + 1] == ']')) {
                *w++ = c[++i];
                break;
            }
            depth++;
            BREAK();
            break;
        case '}':
        case ']':
            depth--;
            BREAK();
            *w++ = ch;
            break;
        case ',':
            *w++ = ',';
            BREAK();
            break;
        case ':':
            *w++ = ':';
            *w++ = ' ';
            break;
        default:
            any |= (unsigned char)ch;
            *w++ = ch;
            break;
        }
    }
    *w++ = '"';
#undef BREAK
    b->len = (size_t)(w - b->data);
    b->data[b->len] = 0;
    *high = any >= 0x80 || (wide & 0x8080808080808080u);
    return true;
}

static const char STRUCTURED_HEAD[] = "{\"content\":[{\"type\":\"text\",\"text\":";
static bool structured_finish(const mcp_tool *tool, mcp_buf *out, size_t mark, size_t start);

/* The usual answer of a tool with structuredContent whose content is one
 * block of the value as JSON, from one serialisation: the value validated
 * and re-encoded (sv) first; when sv writes the same text as the returned
 * value, that compact text is structuredContent, and the text block is
 * derived from it (indented_literal) instead of writing the value a second
 * time. False, with nothing written, when that does not apply (a failed
 * validation, a value that validation changed, text that is not UTF-8):
 * the general path then writes the answer, errors and all. */
static bool structured_once(const mcp_tool *tool, const mcp_json *raw, mcp_arena *a, mcp_buf *out)
{
    if (!one_json_block(tool->result, raw))
        return false;
    mcp_report rep;
    mcp_report_init(&rep, a);
    void *valid = mcp_arena_alloc(a, tool->result->size ? tool->result->size : 1);
    if (!valid || !mcp_decode(tool->result, raw, valid, a, &rep))
        return false;
    const mcp_json *sv = mcp_to_json(tool->result, valid, a, NULL);
    if (!sv || !same_text(raw, sv, 0))
        return false;

    size_t mark = out->len;
    mcp_buf_put(out, STRUCTURED_HEAD, sizeof STRUCTURED_HEAD - 1);
    size_t start = out->len;
    if (!mcp_json_write(out, sv, -1)) {
        if (!out->oom)
            truncate_to(out, mark);
        return out->oom;
    }
    return structured_finish(tool, out, mark, start);
}

/* structured_once for a C value that mcp_write_plain writes: its compact text
 * is the one structured_once would write, with no tree built, no validation
 * and no second encoding (codec.c says why the text is the same). False, with
 * nothing written, when the writer refuses the value or the text does not
 * make one block of JSON: the general path then encodes the value, reporting
 * any fault. */
static bool structured_direct(const mcp_tool *tool, const void *value, mcp_buf *out)
{
    size_t mark = out->len;
    mcp_buf_put(out, STRUCTURED_HEAD, sizeof STRUCTURED_HEAD - 1);
    size_t start = out->len;
    if (out->oom)
        return true;
    if (!mcp_write_plain(tool->result, value, out)) {
        if (out->oom)
            return true;
        truncate_to(out, mark);
        return false;
    }
    char c = out->data[start];
    if (c == 'n' || c == '"' || c == '[') { /* not one_json_block: null, a string, a list or tuple */
        truncate_to(out, mark);
        return false;
    }
    return structured_finish(tool, out, mark, start);
}

/* The rest of structured_once, the compact text of the value at
 * out->data[start..out->len) after the head written at mark. */
static bool structured_finish(const mcp_tool *tool, mcp_buf *out, size_t mark, size_t start)
{
    static const char MID[] = "}],\"structuredContent\":";
    static const char WRAP[] = "{\"result\":";
    bool wrapped = tool->output == MCP_OUTPUT_WRAPPED;
    size_t n = out->len - start;
    bool high;
    if (!append_indented_literal(out, start, n, &high)) {
        out->oom = true;
        return true;
    }
    if (high && !mcp_utf8_valid(out->data + start, n)) {
        truncate_to(out, mark); /* the handler's rule for such bytes: the general path */
        return false;
    }
    /* [compact][literal] -> [literal]MID[WRAP][compact]: the compact text
     * appended again, then all of it moved down over the first copy. */
    mcp_buf_put(out, MID, sizeof MID - 1);
    if (wrapped)
        mcp_buf_put(out, WRAP, sizeof WRAP - 1);
    if (!mcp_buf_reserve(out, n))
        return true; /* out->oom */
    memcpy(out->data + out->len, out->data + start, n);
    out->len += n;
    memmove(out->data + start, out->data + start + n, out->len - start - n);
    out->len -= n;
    out->data[out->len] = 0;
    mcp_buf_puts(out, wrapped ? "},\"isError\":false}" : ",\"isError\":false}");
    return true;
}

/* ------------------------------------------------------------------ results */

static void error_result(mcp_buf *out, const char *tool, const char *text, size_t len)
{
    mcp_buf msg;
    mcp_buf_init(&msg);
    mcp_buf_printf(&msg, "Error executing tool %s: ", tool);
    mcp_buf_put(&msg, text, len);
    mcp_buf_puts(out, "{\"content\":[{\"type\":\"text\",\"text\":");
    mcp_handler_string(out, msg.data ? msg.data : "", msg.len);
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

static bool invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out, bool direct)
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
    call->failed = st != MCP_OK;
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
            mcp_block_write(out, &first, &call->blocks[i]);
        mcp_buf_puts(out, "],\"isError\":false}");
        return !out->oom;
    }

    /* The returned value as JSON: raw, or from the C value. */
    const mcp_json *raw = call->raw;
    if (call->raw_error) {
        error_result(out, tool->name, call->raw_error, strlen(call->raw_error));
        return !out->oom;
    }
    if (!raw && direct && tool->structured && tool->output != MCP_OUTPUT_NONE && structured_direct(tool, value, out))
        return !out->oom;
    if (!raw) {
        /* A fault of the C value (a NULL string, an enum out of range) is
         * reported like a validation error of the output, at its place. */
        bool wrap = tool->output == MCP_OUTPUT_WRAPPED;
        if (wrap)
            mcp_report_push_key(&rep, "result", 6);
        raw = mcp_to_json_report(tool->result, value, a, &rep);
        if (wrap)
            mcp_report_pop(&rep);
        if (!raw) {
            if (rep.oom || !rep.len)
                return false;
            report_result(out, tool->name, &rep, tool->output_title ? tool->output_title : tool->name);
            return !out->oom;
        }
    }

    if (tool->structured && tool->output != MCP_OUTPUT_NONE && structured_once(tool, raw, a, out))
        return !out->oom;

    /* content, from the returned value, straight into out: what follows it
     * may still turn the result into an error, which then replaces it. */
    size_t mark = out->len;
    mcp_buf_puts(out, "{\"content\":[");
    bool first = true;
    if (!render(out, &first, tool->result, raw, a) && !out->oom) {
        truncate_to(out, mark);
        static const char NAN_MSG[] = "the returned value holds a NaN or infinite float, which JSON cannot carry";
        error_result(out, tool->name, NAN_MSG, sizeof NAN_MSG - 1);
        return !out->oom;
    }

    if (!tool->structured || tool->output == MCP_OUTPUT_NONE) {
        mcp_buf_puts(out, "],\"isError\":false}");
        return !out->oom;
    }

    /* structuredContent, from the validated value */
    void *valid = mcp_arena_alloc(a, tool->result->size ? tool->result->size : 1);
    if (!valid)
        return false;
    bool wrapped = tool->output == MCP_OUTPUT_WRAPPED;
    if (wrapped)
        mcp_report_push_key(&rep, "result", 6);
    bool ok = mcp_decode(tool->result, raw, valid, a, &rep);
    if (wrapped)
        mcp_report_pop(&rep);
    if (!ok) {
        if (rep.oom || out->oom)
            return false;
        truncate_to(out, mark);
        report_result(out, tool->name, &rep, tool->output_title);
        return !out->oom;
    }
    const char *why = NULL;
    mcp_json *sv = mcp_to_json(tool->result, valid, a, &why);
    if (!sv)
        return false;
    mcp_buf_puts(out, "],\"structuredContent\":");
    if (wrapped)
        mcp_buf_puts(out, "{\"result\":");
    mcp_json_write(out, sv, -1);
    if (wrapped)
        mcp_buf_putc(out, '}');
    mcp_buf_puts(out, ",\"isError\":false}");
    return !out->oom;
}

bool mcp_tool_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    return invoke(call, arguments, out, true);
}

bool mcp_tool_invoke_general(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    return invoke(call, arguments, out, false);
}

/* ---------------------------------------------------------------- the methods */

bool mcp_version_has_tasks25(const char *version) { return version && strcmp(version, "2025-11-25") == 0; }

bool mcp_server_has_tasks(const mcp_server *srv)
{
    for (size_t i = 0; i < srv->ntools; i++)
        if (srv->tools[i].task != MCP_TASK_NONE)
            return true;
    return false;
}

static void tools_list_start(mcp_req *r) { mcp_list_answer(r, MCP_LIST_TOOLS); }

typedef struct call_data {
    const mcp_tool *tool;
    const mcp_json *args;
    bool task25;                /* 2025-11-25: params.task, the call is a task */
    long long ttl_ms;           /* params.task.ttl (0: none) */
    unsigned long long session; /* task25: the session's serial (the task is its) */
} call_data;

/* 2025-11-25's experimental tasks: params.task (an object with an optional
 * ttl in milliseconds) on a tool of the server's that may run as a task.
 * False after the error answer. */
static bool task_param(mcp_req *r, const mcp_tool *tool, bool *task25, long long *ttl_ms)
{
    const mcp_reqctx *ctx = mcp_req_ctx(r);
    *task25 = false;
    *ttl_ms = 0;
    if (ctx->modern || !mcp_version_has_tasks25(ctx->version) || !mcp_server_has_tasks(mcp_req_env(r)->server))
        return true; /* no tasks capability declared: params.task is ignored */
    const mcp_json *task = mcp_json_get(mcp_req_params(r), "task");
    if (!task) {
        if (tool->task == MCP_TASK_REQUIRED) {
            mcp_req_error_named(
                r, MCP_RPC_METHOD_NOT_FOUND, tool->name, strlen(tool->name),
                "Method not found: task augmentation required (execution.taskSupport: required) for tool ");
            return false;
        }
        return true;
    }
    if (task->kind != MCP_JOBJECT) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: task must be an object");
        return false;
    }
    if (tool->task == MCP_TASK_NONE) {
        mcp_req_error_named(r, MCP_RPC_METHOD_NOT_FOUND, tool->name, strlen(tool->name),
                            "Method not found: no task augmentation (execution.taskSupport: forbidden) for tool ");
        return false;
    }
    const mcp_json *ttl = mcp_json_get(task, "ttl");
    if (ttl && ttl->kind != MCP_JNULL) {
        if (ttl->kind == MCP_JINT && ttl->i >= 0)
            *ttl_ms = ttl->i;
        else if (ttl->kind == MCP_JFLOAT && ttl->d >= 0 && ttl->d < 9e15)
            *ttl_ms = (long long)ttl->d;
        else if (ttl->kind != MCP_JBIGINT || ttl->s[0] == '-') {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: task.ttl must be a number of milliseconds");
            return false;
        }
    }
    *task25 = true;
    return true;
}

static void tools_call_start(mcp_req *r)
{
    const mcp_json *name = mcp_json_get(mcp_req_params(r), "name");
    if (!name) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: missing tool name");
        return;
    }
    if (name->kind != MCP_JSTRING) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: name must be a string");
        return;
    }
    const mcp_tool *tool = mcp_find_tool(mcp_req_methods(r), name->s, name->len);
    if (!tool) {
        mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, name->s, name->len, "Unknown tool: ");
        return;
    }
    if (tool->task == MCP_TASK_REQUIRED && mcp_req_ctx(r)->modern &&
        !(mcp_req_ctx(r)->client_caps & MCP_CLIENT_TASKS)) {
        static const char DATA[] = "{\"requiredCapabilities\":{\"extensions\":{\"" MCP_TASKS_EXTENSION "\":{}}}}";
        mcp_req_error_data(
            r, MCP_RPC_MISSING_CAPABILITY,
            "Missing required client capability: the tool runs only as a task (extension " MCP_TASKS_EXTENSION ")",
            DATA, sizeof DATA - 1);
        return;
    }
    bool task25;
    long long ttl_ms;
    if (!task_param(r, tool, &task25, &ttl_ms))
        return;
    const mcp_json *args;
    if (!mcp_arguments_of(r, &args))
        return;
    call_data *d = mcp_arena_alloc(mcp_req_arena(r), sizeof *d);
    if (!d) {
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    *d = (call_data){tool, args, task25, ttl_ms, mcp_session_serial(mcp_req_session(r))};
    if (mcp_tool_runs_inline(mcp_req_methods(r), tool))
        mcp_req_run_here(r, d);
    else
        mcp_req_run(r, d);
}

static int tools_call_run(mcp_job *j, void *data, mcp_buf *out, const char **msg, mcp_buf *err_data)
{
    const call_data *d = data;
    mcp_call call;
    mcp_call_for_job(&call, j);
    call.tool = d->tool;
    const mcp_reqctx *ctx = mcp_job_ctx(j);
    if (d->tool->task != MCP_TASK_NONE && ctx->modern && (ctx->client_caps & MCP_CLIENT_TASKS))
        call.task_mode = MCP_CALL_TASK_MAY;
    if (d->task25)
        call.task_mode = MCP_CALL_TASK_MAY;
    const mcp_env *env = mcp_job_env(j);
    int code = mcp_mrtr_begin(&call, j, "tools/call", msg);
    if (code == 0 && d->task25 && !mcp_mrtr_begin_record(&call)) {
        *msg = "Internal error: out of memory";
        return MCP_RPC_INTERNAL_ERROR;
    }
    if (code == 0 && !mcp_methods_invoker(env->mstate)(&call, d->args, out))
        out->oom = true;
    if (d->task25 && code == 0) {
        /* 2025-11-25: the answer is a task, running when the handler said
         * mcp_task_start, else born ended with what the handler said. */
        if (out->oom) {
            *msg = "Internal error: out of memory";
            return MCP_RPC_INTERNAL_ERROR;
        }
        mcp_buf res = *out, kept;
        mcp_buf_init(out);
        mcp_buf_init(&kept);
        mcp_mrtr_peek(&call, NULL, &kept);
        mcp_buf_putc(&kept, 0);
        mcp_mrtr_release(&call);
        if (kept.oom) {
            mcp_buf_free(&res);
            *msg = "Internal error: out of memory";
            return MCP_RPC_INTERNAL_ERROR;
        }
        mcp_task25 how = {d->ttl_ms, NULL, 0, NULL, kept.data, d->session};
        if (!call.task_start) {
            how.done = &res;
            how.rpc_code = call.rpc_code;
            how.rpc_message = call.fail_message;
        }
        code = mcp_task_create25(mcp_methods_tasks(env->mstate), d->tool, d->args, ctx->client_caps,
                                 mcp_caller_subject(ctx->caller), &how, out, msg);
        mcp_buf_free(&res);
        mcp_buf_free(&kept);
        return code;
    }
    if (code == 0 && call.task_start && mcp_mrtr_peek(&call, NULL, NULL) == 0 && !out->oom) {
        /* The handler asked to go on as a task, with the answers it used. */
        mcp_buf kept;
        mcp_buf_init(&kept);
        mcp_mrtr_peek(&call, NULL, &kept);
        mcp_buf_clear(out);
        if (kept.oom) {
            out->oom = true;
        } else {
            code = mcp_task_create(mcp_methods_tasks(env->mstate), d->tool, d->args, kept.data ? kept.data : "",
                                   kept.len, ctx->client_caps, mcp_caller_subject(ctx->caller), out, msg);
        }
        mcp_buf_free(&kept);
        mcp_mrtr_release(&call);
        return code;
    }
    if (code == 0 && call.rpc_code && mcp_mrtr_peek(&call, NULL, NULL) == 0) {
        mcp_mrtr_release(&call);
        *msg = call.fail_message;
        return call.rpc_code;
    }
    return mcp_mrtr_end(&call, env, code, call.failed, out, msg, err_data);
}

const mcp_method mcp_method_tools_list = {
    .name = "tools/list", .flags = MCP_METHOD_CACHEABLE, .start = tools_list_start};
const mcp_method mcp_method_tools_call = {.name = "tools/call", .start = tools_call_start, .run = tools_call_run};
