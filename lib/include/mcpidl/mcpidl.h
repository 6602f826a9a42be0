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

#include "mcpidl/codec.h"
#include "mcpidl/json.h"
#include "mcpidl/types.h"

/* The ABI generated code is written for; NAME.mcp.h checks it with #error. */
#define MCPIDL_ABI 2
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

/* More blocks for `returns: content` tools, each rendered as the MCP
 * ContentBlock of its kind, in the order appended. Every string is copied.
 * `base64` must be standard base64 (RFC 4648, padded, no line breaks):
 * anything else fails the call. A NULL `mime` (where optional) or
 * `description` leaves the member out. Each returns MCP_OK, or fails the call
 * (mcp_fail) and returns MCP_ERROR.
 *   {"type":"image","data":B64,"mimeType":MIME}
 *   {"type":"audio","data":B64,"mimeType":MIME}
 *   {"type":"resource","resource":{"uri":URI,"mimeType":MIME,"text":TEXT}}
 *   {"type":"resource","resource":{"uri":URI,"mimeType":MIME,"blob":B64}}
 *   {"type":"resource_link","uri":URI,"name":NAME,"description":D,"mimeType":MIME} */
mcp_status mcp_content_image(mcp_call *call, const char *mime, const char *base64);
mcp_status mcp_content_audio(mcp_call *call, const char *mime, const char *base64);
mcp_status mcp_content_resource_text(mcp_call *call, const char *uri, const char *mime,
                                     const char *text);
mcp_status mcp_content_resource_blob(mcp_call *call, const char *uri, const char *mime,
                                     const char *base64);
mcp_status mcp_content_resource_link(mcp_call *call, const char *uri, const char *name,
                                     const char *mime, const char *description);

/* ---------------------------------------------------------------- messages to the client
 * Sent while the handler runs, before its result, with the request (on HTTP,
 * on the SSE stream of its POST). Nothing is sent once the request is
 * cancelled or the client is gone. Callable from the handler's thread only. */

/* MCP log levels (RFC 5424 severities), least severe first. */
typedef enum mcp_level {
    MCP_LEVEL_DEBUG = 0,
    MCP_LEVEL_INFO,
    MCP_LEVEL_NOTICE,
    MCP_LEVEL_WARNING,
    MCP_LEVEL_ERROR,
    MCP_LEVEL_CRITICAL,
    MCP_LEVEL_ALERT,
    MCP_LEVEL_EMERGENCY,
} mcp_level;

/* notifications/message {"level":..., "logger":LOGGER, "data":TEXT}, when
 * `level` is at or above the session's level (logging/setLevel; "info"
 * until the client sets one). `logger` may be NULL (left out). Text that
 * is not UTF-8 has its bad bytes replaced by U+FFFD. */
void mcp_log_message(mcp_call *call, mcp_level level, const char *logger, const char *fmt, ...)
    MCP_PRINTF(4, 5);
/* The same with any JSON value as "data" (NULL: null). */
void mcp_log_json(mcp_call *call, mcp_level level, const char *logger, const mcp_json *data);
/* Whether a message at `level` would be sent now (to skip building it). */
bool mcp_log_enabled(const mcp_call *call, mcp_level level);

/* notifications/progress {"progressToken":T, "progress":P, "total":TOTAL,
 * "message":M} with the token of the request's _meta.progressToken, echoed
 * as received (string or integer). total <= 0 and a NULL message are left
 * out. False, sending nothing, when the request carries no progress token,
 * when a number is not finite, or when nothing can be sent (cancelled, the
 * client gone). The spec wants progress to increase with each call. */
bool mcp_progress(mcp_call *call, double progress, double total, const char *message);

/* Streamable HTTP: end the connection carrying this request's SSE stream now,
 * while the request goes on; the client reconnects (GET with Last-Event-ID)
 * and receives what follows, the result included (SEP-1699 polling). For a
 * long call, this frees the connection. A no-op over stdio and for requests
 * answered as application/json. */
void mcp_close_stream(mcp_call *call);

/* ---------------------------------------------------------------- requests to the client
 * The handler sends a request to the client and waits for its answer: its
 * worker thread is blocked meanwhile. Each fails (NULL or false) when the
 * session has no worker threads (--workers 0: the answer could never be
 * read), when the client did not declare the capability the method needs
 * (sampling, elicitation, roots), when the session's table of pending
 * requests is full, when the client answers with a JSON-RPC error, when no
 * answer comes within the timeout (60 s by default; the client is then sent
 * notifications/cancelled), when the call is cancelled, or when the session
 * ends. mcp_client_error() then says why. Results live in the call's arena. */

/* `method` with `params` (NULL: none): the client's `result`. */
const mcp_json *mcp_client_request(mcp_call *call, const char *method, const mcp_json *params);
/* Why the last request to the client of this call failed, e.g.
 * "sampling/createMessage: the client answered with error -1: ..." (NULL
 * when it succeeded). */
const char *mcp_client_error(const mcp_call *call);
/* sampling/createMessage {"messages":[{"role":"user","content":{"type":"text",
 * "text":PROMPT}}],"maxTokens":MAX_TOKENS}: *reply_text is the text of the
 * client's answer (its first text block). */
bool mcp_sample_text(mcp_call *call, const char *prompt, int max_tokens, const char **reply_text);
/* elicitation/create {"message":MESSAGE,"requestedSchema":SCHEMA} in form mode,
 * SCHEMA the JSON text of a flat object schema. *action is "accept",
 * "decline" or "cancel"; *content the submitted object on accept (else
 * NULL). Either out pointer may be NULL. True when the client answered
 * (whatever the action). */
bool mcp_elicit(mcp_call *call, const char *message, const char *requested_schema_json,
                const mcp_json **content, const char **action);

/* ---------------------------------------------------------------- resources, prompts, completions
 * Readers of resources, prompt handlers and completion handlers are called
 * like tool handlers (on a worker, with an mcp_call whose memory lives as long
 * as the request); what they append makes the result. mcp_fail() makes the
 * answer a JSON-RPC error (-32603) carrying its message; mcp_not_found()
 * answers "Resource not found" (-32002). */

/* resources/read: append one item to `contents`. A NULL `uri` is the URI
 * being read; a NULL `mime` the resource's declared mimeType (left out when
 * it has none). `base64` must be standard base64, as for mcp_content_image. */
mcp_status mcp_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text);
mcp_status mcp_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64);
/* The URI being read (resources/read), the prompt being got (prompts/get),
 * NULL otherwise. */
const char *mcp_call_uri(const mcp_call *call);
/* Answer resources/read with -32002 "Resource not found" (a template matched
 * the URI, but there is nothing behind it). Returns MCP_ERROR. */
mcp_status mcp_not_found(mcp_call *call);

/* Who speaks a prompt's message. */
typedef enum mcp_role { MCP_ROLE_USER = 0, MCP_ROLE_ASSISTANT } mcp_role;
/* prompts/get: every content block a prompt handler appends (mcp_content_text,
 * mcp_content_image, mcp_content_resource_text, ...) becomes one message, with
 * the role last set here (user until then). */
void mcp_prompt_role(mcp_call *call, mcp_role role);
/* prompts/get: the result's optional description (copied). */
mcp_status mcp_prompt_description(mcp_call *call, const char *description);

/* completion/complete: one more suggestion (copied). The first 100 are sent;
 * `total` counts them all and `hasMore` says when some were left out. */
mcp_status mcp_complete_value(mcp_call *call, const char *value);

/* notifications/resources/updated {"uri": URI} to every session that
 * subscribed to `uri` (resources/subscribe) and has not unsubscribed. Any
 * thread, any time; a no-op when nobody subscribed. */
void mcp_resource_updated(const char *uri);

/* ---------------------------------------------------------------- typed elicitation
 * For each entry of the IDL's `elicitations`, mcpidlc writes a form struct
 * and a typed call, e.g.
 *     bool NAME_elicit_user_info(mcp_call *call, const char *message,
 *                                NAME_user_info_form *out, mcp_elicit_action *action);
 * which sends elicitation/create with the form's schema and decodes the
 * user's answer into *out. */

typedef enum mcp_elicit_action {
    MCP_ELICIT_NONE = 0,   /* no answer: see mcp_client_error() */
    MCP_ELICIT_ACCEPT,
    MCP_ELICIT_DECLINE,
    MCP_ELICIT_CANCEL,
} mcp_elicit_action;

typedef struct mcp_elicitation {
    const char *name;
    const char *message;          /* the default message */
    const char *schema;           /* requestedSchema, JSON text */
    const mcp_type *type;         /* the form's record (decodes `content`) */
} mcp_elicitation;

/* Ask the client to fill `form` (message NULL: the form's default). True when
 * the user accepted and the answer fits the form: *out (zero-filled first,
 * form->type->size bytes) holds it, defaults filled in. False otherwise, and
 * *action says why: MCP_ELICIT_DECLINE or MCP_ELICIT_CANCEL (the user's
 * choice), MCP_ELICIT_NONE (no answer: an error, a timeout), or
 * MCP_ELICIT_ACCEPT with an answer that does not fit the form. In the last
 * two cases mcp_client_error() says what went wrong. `action` may be NULL. */
bool mcp_elicit_form(mcp_call *call, const mcp_elicitation *form, const char *message, void *out,
                     mcp_elicit_action *action);

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

/* A reader: `vars` holds the values of a template's variables, in the
 * template's order (NULL for a plain resource). */
typedef mcp_status (*mcp_read_fn)(mcp_call *call, const char *uri, const char *const *vars);
/* A prompt: `args` holds its arguments in declared order (NULL when absent). */
typedef mcp_status (*mcp_prompt_fn)(mcp_call *call, const char *const *args);
/* A completion: `value` is what the user typed so far; `context` the
 * request's context.arguments object (NULL when absent). */
typedef mcp_status (*mcp_complete_fn)(mcp_call *call, const char *value, const mcp_json *context);

typedef struct mcp_completer {
    const char *name;              /* the prompt argument or template variable */
    const char *const *values;     /* static suggestions, filtered by prefix; or */
    size_t nvalues;
    mcp_complete_fn handler;       /* a handler (NULL with static values) */
} mcp_completer;

typedef struct mcp_resource {
    const char *name;
    const char *uri;
    const char *mime_type;         /* NULL when absent */
    const char *list_entry;        /* this resource's entry of resources/list, compact JSON */
    const char *text;              /* static content: text, */
    const char *blob;              /* or base64; */
    mcp_read_fn read;              /* else a reader */
} mcp_resource;

typedef struct mcp_resource_template {
    const char *name;
    const char *uri_template;      /* RFC 6570 level 1 */
    const char *mime_type;
    const char *list_entry;        /* the entry of resources/templates/list */
    size_t nvars;
    mcp_read_fn read;
    const mcp_completer *complete;
    size_t ncomplete;
} mcp_resource_template;

typedef struct mcp_prompt_arg {
    const char *name;
    bool required;
} mcp_prompt_arg;

typedef struct mcp_prompt {
    const char *name;
    const char *list_entry;        /* the entry of prompts/list */
    const mcp_prompt_arg *args;
    size_t nargs;
    mcp_prompt_fn get;
    const mcp_completer *complete;
    size_t ncomplete;
} mcp_prompt;

typedef struct mcp_server {
    int abi;                       /* MCPIDL_ABI of the generated code */
    const char *name;
    const char *version;
    const char *title;             /* NULL when absent */
    const char *instructions;      /* NULL when absent */
    const mcp_tool *tools;
    size_t ntools;
    const mcp_resource *resources;
    size_t nresources;
    const mcp_resource_template *templates;
    size_t ntemplates;
    const mcp_prompt *prompts;
    size_t nprompts;
} mcp_server;

/* ---------------------------------------------------------------- running */

/* Serve `server` over stdio until the client closes its end or SIGTERM/SIGINT
 * arrives (in-flight calls are answered first). Options: --workers N,
 * --max-message-bytes N, --max-depth N, --max-concurrent N, --page-size N,
 * --log-level LEVEL, --help, --version (docs/c-api.md). Returns the exit
 * status for main(). */
int mcp_main(const mcp_server *server, int argc, char **argv);

#endif
