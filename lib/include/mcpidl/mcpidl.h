/* mcpidl.h: the runtime a generated MCP server links against.
 *
 * A server is a .mcp.yaml file compiled by mcpidlc (which writes NAME.mcp.h
 * and NAME.mcp.c), plus one C function per tool, plus a one-line main:
 *
 *     int main(int argc, char **argv) { return mcp_main(&weather_server, argc, argv); }
 *
 * Handlers receive their decoded, validated arguments and fill a C value of the
 * declared return type; the runtime validates and encodes it. Everything a
 * handler allocates with mcp_alloc() lives as long as the request: a handler
 * never frees anything. Handlers run on a pool of worker threads: with more
 * than one worker (the default is one per CPU), they must be thread-safe.
 */
#ifndef MCPIDL_MCPIDL_H
#define MCPIDL_MCPIDL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/json.h"
#include "mcpidl/types.h"

/* The ABI generated code is written for; NAME.mcp.h checks it with #error. */
#define MCPIDL_ABI 1
#define MCPIDL_VERSION "0.1.0"

#if defined(__GNUC__)
#define MCP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MCP_PRINTF(f, a)
#endif

typedef enum mcp_status {
    MCP_OK = 0,      /* the handler filled its output (or returned raw JSON) */
    MCP_ERROR = 1,   /* the handler failed: see mcp_fail() */
} mcp_status;

/* One request being served. Valid during the handler call only. */
typedef struct mcp_call mcp_call;

/* Memory that lives as long as the request, zero-filled. NULL only when out of
 * memory: check it, and fail the call (mcp_fail) when it happens. */
void *mcp_alloc(mcp_call *call, size_t n);
char *mcp_strdup(mcp_call *call, const char *s);
char *mcp_sprintf(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);
/* The request's arena, for building mcp_json values (`any` fields). */
mcp_arena *mcp_call_arena(mcp_call *call);

/* Fail the call: the client receives an isError result whose text is
 * "Error executing tool NAME: MESSAGE". Returns MCP_ERROR, so a handler can
 * `return mcp_fail(call, "no reading for %s", city);`. */
mcp_status mcp_fail(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);

/* Return raw JSON instead of filling the output (data from upstream, say).
 * The runtime validates it against the declared return type: on success,
 * `content` is rendered from the raw value and `structuredContent` from the
 * validated one (defaults filled, unknown keys dropped, field order); on
 * failure the client receives the validation report as an isError result.
 * Text that is not JSON is a failure too. Returns MCP_OK. */
mcp_status mcp_return_json_text(mcp_call *call, const char *json);
mcp_status mcp_return_json_textn(mcp_call *call, const char *json, size_t len);
mcp_status mcp_return_json(mcp_call *call, const mcp_json *value);
struct json_object;
mcp_status mcp_return_jsonc(mcp_call *call, const struct json_object *value);

/* For tools declared `returns: content`: append a text block (the text is copied). */
mcp_status mcp_content_text(mcp_call *call, const char *text);

/* The name of the tool being called; the request's `_meta` (NULL when absent). */
const char *mcp_call_tool(const mcp_call *call);
const mcp_json *mcp_call_meta(const mcp_call *call);
/* True once the client has cancelled this request (notifications/cancelled):
 * a long handler may check it and return early; its result is not sent. */
bool mcp_call_cancelled(const mcp_call *call);

/* ---------------------------------------------------------------- the server table
 * Written by mcpidlc; user code only takes its address. */

typedef enum mcp_output_kind {
    MCP_OUTPUT_NONE,      /* no outputSchema (structured_output: false, or content) */
    MCP_OUTPUT_OBJECT,    /* a model or record, published as is */
    MCP_OUTPUT_DICT,      /* dict[str, T] */
    MCP_OUTPUT_WRAPPED,   /* {"result": value} */
} mcp_output_kind;

typedef mcp_status (*mcp_handler_fn)(mcp_call *call, const void *args, void *out);

typedef struct mcp_tool {
    const char *name;
    const char *list_entry;        /* this tool's entry of tools/list, compact JSON */
    const mcp_type *args;          /* an OBJECT titled <tool>Arguments */
    const mcp_type *result;        /* the declared return type; NULL for `content` */
    mcp_output_kind output;
    bool structured;               /* false: no structuredContent, no output validation */
    const char *output_title;      /* the title of output reports (WeatherData, <tool>Output) */
    mcp_handler_fn handler;
} mcp_tool;

typedef struct mcp_server {
    int abi;                       /* MCPIDL_ABI of the generated code */
    const char *name;
    const char *version;
    const char *title;             /* NULL when absent */
    const char *instructions;      /* NULL when absent */
    const mcp_tool *tools;
    size_t ntools;
} mcp_server;

/* ---------------------------------------------------------------- running */

/* Serve `server` over stdio until the client closes its end or SIGTERM/SIGINT
 * arrives (in-flight calls are answered first). Options: --workers N,
 * --max-message-bytes N, --max-depth N, --max-concurrent N, --page-size N,
 * --log-level LEVEL, --help, --version (docs/c-api.md). Returns the exit
 * status for main(). */
int mcp_main(const mcp_server *server, int argc, char **argv);

#endif
