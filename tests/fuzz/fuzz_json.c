/* fuzz_json: the strict JSON parser (lib/json/json.c, lib/json/json_scan.c) and writer.
 *
 * Properties: the parser and mcp_json_validate() agree on every text (the
 * same error at the same offset); a parsed value written back (compact and
 * pretty) parses again to an equal value, and writing that again gives the
 * same text.
 */
#include <string.h>

#include "fuzz_util.h"
#include "internal/pyrepr.h"
#include "mcpidl/json.h"

enum { MAX_DEPTH = 64 };

static mcp_json *parse(mcp_arena *a, const char *text, size_t len, mcp_json_err *err, size_t *off)
{
    mcp_json_limits lim = {.max_depth = MAX_DEPTH};
    return mcp_json_parse(a, text, len, &lim, err, off);
}

/* Written with `indent`, v parses back to an equal value; returns the text. */
static mcp_buf round_trip(mcp_arena *a, const mcp_json *v, int indent)
{
    mcp_buf b;
    mcp_buf_init(&b);
    FUZZ_CHECK(mcp_json_write(&b, v, indent)); /* parsed floats are finite */
    FUZZ_CHECK(!b.oom);
    mcp_json_err err;
    size_t off;
    mcp_json *again = parse(a, b.data ? b.data : "", b.len, &err, &off);
    if (!again)
        fprintf(stderr, "written text does not parse (%s at %zu): %.*s\n", mcp_json_error_str(err), off,
                (int)(b.len < 400 ? b.len : 400), b.data);
    FUZZ_CHECK(again != NULL);
    FUZZ_CHECK(mcp_json_equal(v, again));
    mcp_buf b2;
    mcp_buf_init(&b2);
    FUZZ_CHECK(mcp_json_write(&b2, again, indent));
    FUZZ_CHECK(b2.len == b.len && memcmp(b2.data, b.data, b.len) == 0);
    mcp_buf_free(&b2);
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_json_err err;
    size_t off;
    mcp_json *v = parse(&a, text, size, &err, &off);

    mcp_json_limits lim = {.max_depth = MAX_DEPTH};
    size_t voff = 0;
    mcp_json_err verr = mcp_json_validate(text, size, &lim, &voff);
    if (!v) {
        FUZZ_CHECK(err != MCP_JSON_OK);
        FUZZ_CHECK(off <= size);
        if (err != MCP_JSON_E_NOMEM)
            FUZZ_CHECK(verr == err && voff == off);
        mcp_arena_free(&a);
        return 0;
    }
    FUZZ_CHECK(err == MCP_JSON_OK && verr == MCP_JSON_OK);

    mcp_buf compact = round_trip(&a, v, -1);
    mcp_buf pretty = round_trip(&a, v, 2);
    /* Compact text has no whitespace outside strings: never longer than the pretty one. */
    FUZZ_CHECK(compact.len <= pretty.len);
    mcp_buf_free(&compact);
    mcp_buf_free(&pretty);

    mcp_buf repr;
    mcp_buf_init(&repr);
    mcp_json_py_repr(&repr, v);
    mcp_buf_clear(&repr);
    mcp_json_py_repr_short(&repr, v);
    FUZZ_CHECK(repr.oom || repr.len <= 25 + 3 + 24); /* at most 25 bytes, "...", 24 bytes */
    mcp_buf_free(&repr);
    mcp_arena_free(&a);
    return 0;
}
