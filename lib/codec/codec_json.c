/* codec_json.c: JSON text to and from C values, for the functions each named
 * type of the generated code has (mcpidl/codec.h): the parser, the codec's
 * decoder and encoder (codec.c), and the report, put together. */
#include "mcpidl/codec.h"

#include <string.h>

#include "internal/codec.h"
#include "internal/pyrepr.h"
#include "mcpidl/json.h"
#include "mcpidl/report.h"

/* The report of text that is not JSON, in pydantic's form for json_invalid. */
static const char *invalid_json(mcp_arena *a, const char *title, const char *text, size_t len, mcp_json_err err,
                                size_t offset)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_printf(
        &b, "1 validation error for %s\n  Invalid JSON: %s at byte offset %zu [type=json_invalid, input_value=", title,
        mcp_json_error_str(err), offset);
    mcp_json input = {.kind = MCP_JSTRING, .s = text, .len = len};
    mcp_json_py_repr_short(&b, &input);
    mcp_buf_puts(&b, ", input_type=str]");
    const char *s = b.oom ? NULL : mcp_arena_strndup(a, b.data, b.len);
    mcp_buf_free(&b);
    return s ? s : "out of memory";
}

static const char *report_text(mcp_arena *a, const mcp_report *rep, const char *title)
{
    if (rep->oom)
        return "out of memory";
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_report_format(&b, rep, title);
    const char *s = b.oom ? NULL : mcp_arena_strndup(a, b.data, b.len);
    mcp_buf_free(&b);
    return s ? s : "out of memory";
}

bool mcp_value_from_json(const mcp_type *t, const char *text, size_t len, void *out, mcp_arena *a, const char **error)
{
    const char *why = NULL;
    memset(out, 0, t->size);
    mcp_json_err err;
    size_t offset;
    const mcp_json *v = mcp_json_parse(a, text, len, NULL, &err, &offset);
    if (!v) {
        why = err == MCP_JSON_E_NOMEM ? "out of memory" : invalid_json(a, t->tag, text, len, err, offset);
    } else {
        mcp_report rep;
        mcp_report_init(&rep, a);
        if (!mcp_decode(t, v, out, a, &rep))
            why = report_text(a, &rep, t->tag);
    }
    if (why && error)
        *error = why;
    return !why;
}

bool mcp_value_to_json(const mcp_type *t, const void *value, mcp_buf *out, mcp_arena *a, const char **error)
{
    const char *why = NULL;
    mcp_report fault;
    mcp_report_init(&fault, a);
    const mcp_json *v = mcp_to_json_report(t, value, a, &fault);
    if (!v) {
        /* what the C value holds that no JSON can carry, at its place */
        why = report_text(a, &fault, t->tag);
    } else {
        /* Checked as an output is: decoded into scratch space, with the report
         * of what does not fit. */
        void *scratch = mcp_arena_alloc(a, t->size ? t->size : 1);
        mcp_report rep;
        mcp_report_init(&rep, a);
        if (!scratch)
            why = "out of memory";
        else if (!mcp_decode(t, v, scratch, a, &rep))
            why = report_text(a, &rep, t->tag);
    }
    if (!why) {
        size_t mark = out->len;
        if (!mcp_json_write(out, v, -1)) {
            why = "out of memory";
            out->len = mark;
            if (out->data)
                out->data[mark] = 0;
        }
    }
    if (why && error)
        *error = why;
    return !why;
}
