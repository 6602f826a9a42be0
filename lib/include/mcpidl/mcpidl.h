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

#include "mcpidl/api.h"
#include "mcpidl/arena.h"
#include "mcpidl/codec.h"
#include "mcpidl/formats.h"
#include "mcpidl/json.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"
#include "mcpidl/types.h"

/* The ABI generated code is written for; NAME.mcp.h checks it with #error. */
#define MCPIDL_ABI 4
#define MCPIDL_VERSION "0.1.0"

MCPIDL_BEGIN_DECLS



/* Memory that lives as long as the request, zero-filled. NULL only when out of
 * memory: check it, and fail the call (mcp_fail) when it happens. */
MCPIDL_API void *mcp_alloc(mcp_call *call, size_t n);
MCPIDL_API char *mcp_strdup(mcp_call *call, const char *s);
MCPIDL_API char *mcp_sprintf(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);
/* The request's arena, for building mcp_json values (`any` fields). */
MCPIDL_API mcp_arena *mcp_call_arena(mcp_call *call);

/* Fail the call: the client receives an isError result whose text is
 * "Error executing tool NAME: MESSAGE". Returns MCP_ERROR, so a handler can
 * `return mcp_fail(call, "no reading for %s", city);`. */
MCPIDL_API mcp_status mcp_fail(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);

/* Return raw JSON instead of filling the output (data from upstream, say).
 * The runtime validates it against the declared return type: on success,
 * `content` is rendered from the raw value and `structuredContent` from the
 * validated one (defaults filled, unknown keys dropped, field order); on
 * failure the client receives the validation report as an isError result.
 * Text that is not JSON is a failure too. Returns MCP_OK. */
MCPIDL_API mcp_status mcp_return_json_text(mcp_call *call, const char *json);
MCPIDL_API mcp_status mcp_return_json_textn(mcp_call *call, const char *json, size_t len);
MCPIDL_API mcp_status mcp_return_json(mcp_call *call, const mcp_json *value);
struct json_object;
MCPIDL_API mcp_status mcp_return_jsonc(mcp_call *call, const struct json_object *value);

/* For tools declared `returns: content`: append a text block (the text is copied). */
MCPIDL_API mcp_status mcp_content_text(mcp_call *call, const char *text);

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
MCPIDL_API mcp_status mcp_content_image(mcp_call *call, const char *mime, const char *base64);
MCPIDL_API mcp_status mcp_content_audio(mcp_call *call, const char *mime, const char *base64);
MCPIDL_API mcp_status mcp_content_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text);
MCPIDL_API mcp_status mcp_content_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64);
MCPIDL_API mcp_status mcp_content_resource_link(mcp_call *call, const char *uri, const char *name, const char *mime,
                                                const char *description);

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
MCPIDL_API void mcp_log_message(mcp_call *call, mcp_level level, const char *logger, const char *fmt, ...)
    MCP_PRINTF(4, 5);
/* The same with any JSON value as "data" (NULL: null). */
MCPIDL_API void mcp_log_json(mcp_call *call, mcp_level level, const char *logger, const mcp_json *data);
/* Whether a message at `level` would be sent now (to skip building it). */
MCPIDL_API bool mcp_log_enabled(const mcp_call *call, mcp_level level);

/* notifications/progress {"progressToken":T, "progress":P, "total":TOTAL,
 * "message":M} with the token of the request's _meta.progressToken, echoed
 * as received (string or integer). total <= 0 and a NULL message are left
 * out. False, sending nothing, when the request carries no progress token,
 * when a number is not finite, or when nothing can be sent (cancelled, the
 * client gone). The spec wants progress to increase with each call. */
MCPIDL_API bool mcp_progress(mcp_call *call, double progress, double total, const char *message);

/* Streamable HTTP: end the connection carrying this request's SSE stream now,
 * while the request goes on; the client reconnects (GET with Last-Event-ID)
 * and receives what follows, the result included (SEP-1699 polling). For a
 * long call, this frees the connection. A no-op over stdio and for requests
 * answered as application/json. */
MCPIDL_API void mcp_close_stream(mcp_call *call);

/* ---------------------------------------------------------------- requests to the client
 * The handler sends a request to the client and waits for its answer: its
 * worker thread is blocked meanwhile. Each fails (NULL or false) when the
 * session has no worker threads (--workers 0: the answer could never be
 * read), when the client did not declare the capability the method needs
 * (sampling, elicitation, roots), when the session's table of pending
 * requests is full, when the client answers with a JSON-RPC error, when no
 * answer comes within the timeout (60 s by default; the client is then sent
 * notifications/cancelled), when the call is cancelled, or when the session
 * ends. mcp_client_error() then says why. Results live in the call's arena.
 *
 * In a request of protocol 2026-07-28 nothing waits: the server cannot send
 * requests of its own, so the client is asked in the answer (multi
 * round-trip requests). A request whose answer the client has not given yet
 * fails at once, mcp_input_pending() turns true, and the handler may ask for
 * more (each becomes one of the round's inputRequests) or return: whatever
 * it returns is set aside, and the client gets an InputRequiredResult. The
 * client then sends the request again with the answers, and the handler
 * runs again from the start: this time each request returns its answer.
 * So code before a request to the client runs once per round: it must not
 * do what may not be done twice (charge a card, send a mail) before the
 * last request. The answers of earlier rounds travel with the client in
 * requestState, sealed with HMAC-SHA256 under the server's key
 * (--state-key-file) and bound to this request and a deadline. A request
 * for a capability the client did not declare fails at once; a handler
 * that fails after one is answered -32021 (MissingRequiredClientCapability)
 * naming the capability. */

/* Name the next request to the client (its key in inputRequests; the
 * text is copied). Unnamed requests are "input_1", "input_2", ... in the
 * order the handler makes them. Names matter to clients that match the
 * requests of a round by key; within a run each must be unique (a repeat
 * gets "_2" appended). A no-op in 2025-11-25 requests. */
MCPIDL_API void mcp_input_key(mcp_call *call, const char *key);
/* True once a request of this run waits for the client's next round (in
 * 2026-07-28): what the handler returns is then not sent. */
MCPIDL_API bool mcp_input_pending(const mcp_call *call);
/* Whether the client declared a capability for this request: "sampling",
 * "elicitation" or "roots". */
MCPIDL_API bool mcp_client_supports(const mcp_call *call, const char *capability);
/* MCP_OK when the client declared `capability`; else MCP_ERROR, with the
 * call failed (mcp_fail) saying so: a handler that returns it is answered
 * -32021 MissingRequiredClientCapability in 2026-07-28, an error result
 * in 2025-11-25. */
MCPIDL_API mcp_status mcp_require_client(mcp_call *call, const char *capability);

/* Tasks (2026-07-28's io.modelcontextprotocol/tasks extension). A tool whose
 * IDL says `task: optional` or `task: required`, called by a client that
 * declares the extension in the request's clientCapabilities.extensions, may
 * become a task: the client gets a CreateTaskResult at once and polls
 * tasks/get for the result while the handler runs on a thread of the
 * runtime's own. The handler decides where: mcp_task_start returns true when
 * the call has just become a task, and the handler must then return (MCP_OK)
 * at once; the runtime calls it again, as the task, with the same arguments
 * and the answers the client gave so far, and there mcp_task_start returns
 * false. It returns false too when the call cannot become a task (no `task:`,
 * a client without the extension, a 2025-11-25 request without params.task):
 * the handler goes on and answers as any call. Code before it runs twice, as code before a
 * request to the client does on a retry; requests to the client before it
 * are multi round-trip requests of the tools/call itself; those after it, in
 * the task, park the task as input_required until the client answers them
 * with tasks/update (the handler then runs again, the answers recorded). A
 * `task: required` tool called by a client without the extension is refused
 * with -32021 before its handler runs.
 * In a 2025-11-25 session, a tools/call with params.task (that revision's
 * experimental tasks) may become a task the same way, the client then
 * polling tasks/get and tasks/result; there the requests to the client
 * before mcp_task_start are real ones, their answers kept for the task's
 * run, and the task itself cannot ask the client (such a request fails). */
MCPIDL_API bool mcp_task_start(mcp_call *call);
/* Whether the call runs as a task. */
MCPIDL_API bool mcp_in_task(const mcp_call *call);
/* Fail the call with a JSON-RPC error (code, e.g. -32603) instead of an
 * isError result: the request's error, or a task's `failed` status with
 * the error. Returns MCP_ERROR. */
MCPIDL_API mcp_status mcp_fail_protocol(mcp_call *call, int code, const char *fmt, ...) MCP_PRINTF(3, 4);

/* `method` with `params` (NULL: none): the client's `result`. */
MCPIDL_API const mcp_json *mcp_client_request(mcp_call *call, const char *method, const mcp_json *params);
/* Why the last request to the client of this call failed, e.g.
 * "sampling/createMessage: the client answered with error -1: ..." (NULL
 * when it succeeded). */
MCPIDL_API const char *mcp_client_error(const mcp_call *call);
/* sampling/createMessage {"messages":[{"role":"user","content":{"type":"text",
 * "text":PROMPT}}],"maxTokens":MAX_TOKENS}: *reply_text is the text of the
 * client's answer (its first text block). */
MCPIDL_API bool mcp_sample_text(mcp_call *call, const char *prompt, int max_tokens, const char **reply_text);
/* elicitation/create {"message":MESSAGE,"requestedSchema":SCHEMA} in form mode,
 * SCHEMA the JSON text of a flat object schema. *action is "accept",
 * "decline" or "cancel"; *content the submitted object on accept (else
 * NULL). Either out pointer may be NULL. True when the client answered
 * (whatever the action). */
MCPIDL_API bool mcp_elicit(mcp_call *call, const char *message, const char *requested_schema_json,
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
MCPIDL_API mcp_status mcp_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text);
MCPIDL_API mcp_status mcp_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64);
/* The URI being read (resources/read), the prompt being got (prompts/get),
 * NULL otherwise. */
MCPIDL_API const char *mcp_call_uri(const mcp_call *call);
/* Answer resources/read with -32002 "Resource not found" (a template matched
 * the URI, but there is nothing behind it). Returns MCP_ERROR. */
MCPIDL_API mcp_status mcp_not_found(mcp_call *call);

/* Who speaks a prompt's message. */
typedef enum mcp_role { MCP_ROLE_USER = 0, MCP_ROLE_ASSISTANT } mcp_role;
/* prompts/get: every content block a prompt handler appends (mcp_content_text,
 * mcp_content_image, mcp_content_resource_text, ...) becomes one message, with
 * the role last set here (user until then). */
MCPIDL_API void mcp_prompt_role(mcp_call *call, mcp_role role);
/* prompts/get: the result's optional description (copied). */
MCPIDL_API mcp_status mcp_prompt_description(mcp_call *call, const char *description);

/* completion/complete: one more suggestion (copied). The first 100 are sent;
 * `total` counts them all and `hasMore` says when some were left out. */
MCPIDL_API mcp_status mcp_complete_value(mcp_call *call, const char *value);

/* notifications/resources/updated {"uri": URI} to every session of the
 * call's runtime that subscribed to `uri` (resources/subscribe) and has not
 * unsubscribed; a no-op when nobody did. From outside a handler (any thread,
 * any time): mcp_runtime_resource_updated(). */
MCPIDL_API void mcp_resource_updated(mcp_call *call, const char *uri);
/* The runtime serving the call. */
MCPIDL_API mcp_runtime *mcp_call_runtime(const mcp_call *call);
/* mcp_runtime_list_changed() for the call's runtime. */
MCPIDL_API void mcp_list_changed(mcp_call *call, mcp_list_kind which);

/* Who called, when the transport authenticated the request (an HTTP server
 * with --auth-*): NULL otherwise. */
typedef struct mcp_caller mcp_caller; /* mcpidl/transport.h */
MCPIDL_API const mcp_caller *mcp_call_caller(const mcp_call *call);
/* The caller's subject ("sub"), NULL when unknown or unauthenticated. */
MCPIDL_API const char *mcp_caller_subject(const mcp_caller *caller);
/* Whether the caller was granted `scope`. */
MCPIDL_API bool mcp_caller_has_scope(const mcp_caller *caller, const char *scope);
/* A claim of the caller's token by name (NULL when absent). */
MCPIDL_API const mcp_json *mcp_caller_claim(const mcp_caller *caller, const char *name);

/* ---------------------------------------------------------------- typed elicitation
 * For each entry of the IDL's `elicitations`, mcpidlc writes a form struct
 * and a typed call, e.g.
 *     bool NAME_elicit_user_info(mcp_call *call, const char *message,
 *                                NAME_user_info_form *out, mcp_elicit_action *action);
 * which sends elicitation/create with the form's schema and decodes the
 * user's answer into *out. */

typedef enum mcp_elicit_action {
    MCP_ELICIT_NONE = 0, /* no answer: see mcp_client_error() */
    MCP_ELICIT_ACCEPT,
    MCP_ELICIT_DECLINE,
    MCP_ELICIT_CANCEL,
} mcp_elicit_action;

typedef struct mcp_elicitation mcp_elicitation; /* generated: mcpidl/generated.h */

/* Ask the client to fill `form` (message NULL: the form's default). True when
 * the user accepted and the answer fits the form: *out (zero-filled first,
 * form->type->size bytes) holds it, defaults filled in. False otherwise, and
 * *action says why: MCP_ELICIT_DECLINE or MCP_ELICIT_CANCEL (the user's
 * choice), MCP_ELICIT_NONE (no answer: an error, a timeout), or
 * MCP_ELICIT_ACCEPT with an answer that does not fit the form. In the last
 * two cases mcp_client_error() says what went wrong. `action` may be NULL. */
MCPIDL_API bool mcp_elicit_form(mcp_call *call, const mcp_elicitation *form, const char *message, void *out,
                                mcp_elicit_action *action);

/* The name of the tool being called; the request's `_meta` (NULL when absent). */
MCPIDL_API const char *mcp_call_tool(const mcp_call *call);
MCPIDL_API const mcp_json *mcp_call_meta(const mcp_call *call);
/* True once the client has cancelled this request (notifications/cancelled):
 * a long handler may check it and return early; its result is not sent. */
MCPIDL_API bool mcp_call_cancelled(const mcp_call *call);

/* ---------------------------------------------------------------- running */

/* Serve `server` with the options of the command line (docs/c-api.md lists
 * them: --workers N, --max-message-bytes N, ..., --http HOST:PORT, --help,
 * --version) until the client closes its end of stdio, or SIGTERM/SIGINT
 * arrives (what is in flight is answered first). `transports` (NULL-ended;
 * NULL: none) are those besides stdio the options may ask for. Returns the
 * exit status for main(). */
MCPIDL_API int mcp_main_with(const mcp_server *server, int argc, char **argv, const mcp_transport *const *transports);

MCPIDL_END_DECLS

/* mcp_main(): mcp_main_with() and the transports the program is built with.
 * MCPIDL_HTTP is defined by what links libmcpidl-http (CMake's mcpidl::http,
 * pkg-config's mcpidl-http): the reference to mcp_http_transport is what
 * keeps that library in the program. */
#if defined(MCPIDL_HTTP)
#include "mcpidl/http.h"
static inline int mcp_main(const mcp_server *server, int argc, char **argv)
{
    static const mcp_transport *const transports[] = {&mcp_http_transport, NULL};
    return mcp_main_with(server, argc, argv, transports);
}
#else
static inline int mcp_main(const mcp_server *server, int argc, char **argv)
{
    return mcp_main_with(server, argc, argv, NULL);
}
#endif

#endif
