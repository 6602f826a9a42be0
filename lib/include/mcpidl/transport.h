/* transport.h: the session, for transports.
 *
 * A transport (stdio, Streamable HTTP, a user's own: a socket, a message
 * queue) cuts its input into messages and hands each to
 * mcp_session_message() on one reading thread at a time; the session judges
 * the message (JSON-RPC 2.0, the MCP lifecycle), answers cheap requests at
 * once, hands the rest to the runtime's workers, and delivers every message
 * it sends through the transport's sink, whole, in completion order. A
 * message gets zero or one answer.
 *
 * mcpidl's own transports use nothing but this header and runtime.h.
 */
#ifndef MCPIDL_TRANSPORT_H
#define MCPIDL_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/api.h"
#include "mcpidl/json.h"
#include "mcpidl/runtime.h"

MCPIDL_BEGIN_DECLS

/* One piece of an outgoing message. */
typedef struct mcp_out_part {
    const char *p;
    size_t n;
} mcp_out_part;

/* Where answers go: the concatenation of parts[0..n) is one whole JSON-RPC
 * message (no newline: the transport frames it). `reply_ctx` is the value the
 * transport passed to mcp_session_message() with the request being served
 * (NULL for messages that belong to no request). `final` marks the last call
 * for that reply_ctx: the answer itself, or, for a request answered no more
 * (cancelled, or the peer gone), a call with n == 0, so that the transport
 * can let go of what it holds for it. Messages sent while serving a request
 * (n > 0, !final) come before its final call; n == 0 and !final asks the
 * transport to end the connection carrying the request's stream while
 * keeping the stream for resumption (mcp_close_stream; others ignore it).
 * Called from the reading thread and from workers: the sink serialises its
 * writes. Returns false when the peer is gone (the session then stops
 * working); a transport with many peers returns true and drops what it
 * cannot deliver. */
typedef bool (*mcp_sink_fn)(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final);

typedef struct mcp_session mcp_session;

/* Who sent a message, as a transport that authenticates its peer knows
 * (an OAuth bearer token's subject, scopes and claims). The transport owns
 * it and keeps it alive until the final sink call of the message's
 * reply_ctx (or, for a message without answer, until
 * mcp_session_message_from returns). Handlers read it through
 * mcp_call_caller(). */
typedef struct mcp_caller {
    const char *subject;       /* "sub"; NULL when the token has none */
    const char *const *scopes; /* the granted scopes */
    size_t nscopes;
    const mcp_json *claims; /* every claim (a JWT's payload, an introspection answer) */
    const char *token_id;   /* "jti" or NULL */
} mcp_caller;

/* A session of the runtime's server, with its options and workers. NULL when
 * out of memory (or when its own workers cannot start). */
MCPIDL_API MCP_NODISCARD mcp_session *mcp_session_new(mcp_runtime *rt, mcp_sink_fn sink, void *sink_ctx);
/* Make s a stateless session: each request is served under a modern
 * revision (2026-07-28: its version and client capabilities in its _meta,
 * a request without them is malformed), none under the initialize
 * handshake. For a transport whose peer said so before the body (an HTTP
 * request with MCP-Protocol-Version: 2026-07-28). Before the first message. */
MCPIDL_API void mcp_session_set_stateless(mcp_session *s);
/* Requests that run on workers wait in the session's queue once
 * max_concurrent of them run; past the queue's bounds (max_queued,
 * max_queued_bytes), mcp_session_message waits for room by default: the
 * transport stops reading, and its peer's writes block (backpressure, what a
 * pipe wants). A transport that must not wait (many connections on one
 * session) calls this before the first message: a request past the bounds
 * is then answered at once with -32000 "Service Unavailable: too many
 * requests queued (limit N)" (or "... request bytes queued ..."). */
MCPIDL_API void mcp_session_refuse_when_full(mcp_session *s);
/* Whether the request m (a parsed message) would find the queue past its
 * bounds now, with the message of the error it would get in why (cap
 * bytes): for a transport that answers "busy" its own way before handing
 * the message over (HTTP: 503 with Retry-After). False for what does not
 * wait (notifications, responses, requests answered on the reading thread).
 * Room only grows until the session's next message. */
MCPIDL_API bool mcp_session_queue_full(mcp_session *s, const mcp_json *m, char *why, size_t cap);
/* One message: its text without framing (a final '\r' is ignored; blank text
 * is not a message). A message longer than the runtime's max_message is
 * answered as too large. Everything sent for it goes to the sink with
 * reply_ctx. Returns true when the message gets exactly one final sink call
 * (now or later); false when it gets none (a notification, a response, a
 * blank line): the sink then never sees reply_ctx. One thread at a time. */
MCPIDL_API bool mcp_session_message(mcp_session *s, const char *text, size_t len, void *reply_ctx);
/* mcp_session_message for a message from an authenticated caller. */
MCPIDL_API bool mcp_session_message_from(mcp_session *s, const char *text, size_t len, void *reply_ctx,
                                         const mcp_caller *caller);
/* A message parsed before its session is known, for a transport that reads
 * the message before it hands it over (HTTP: its kind, its id, the protocol
 * version and the scopes it names decide where it goes and whether it goes
 * anywhere). mcp_message_parse parses text as mcp_session_message would,
 * with the runtime's limits, into memory of the runtime's own; NULL only
 * when out of memory. mcp_message_json is its tree: NULL when the text is
 * blank, longer than max_message or not JSON within the limits (the session
 * answers those as mcp_session_message does). mcp_session_message_parsed
 * is mcp_session_message_from for it, and takes it over: the answer is the
 * same, byte for byte, and the text is parsed once. A message not handed to
 * a session goes back with mcp_message_free. Any thread. */
typedef struct mcp_message mcp_message;
MCPIDL_API MCP_NODISCARD mcp_message *mcp_message_parse(mcp_runtime *rt, const char *text, size_t len);
MCPIDL_API const mcp_json *mcp_message_json(const mcp_message *msg);
MCPIDL_API void mcp_message_free(mcp_message *msg);
MCPIDL_API bool mcp_session_message_parsed(mcp_session *s, mcp_message *msg, void *reply_ctx, const mcp_caller *caller);
/* The transport dropped a message longer than max_message without keeping
 * it: answer -32600, no id, final, on reply_ctx. */
MCPIDL_API void mcp_session_too_large(mcp_session *s, void *reply_ctx);
/* The server is stopping: end the subscriptions (subscriptions/listen) the
 * session holds open, each answered with its graceful end. (mcp_session_free
 * does it too, while the peer is there.) */
MCPIDL_API void mcp_session_end_subscriptions(mcp_session *s);
/* The peer is gone for good: cancel every request in flight (their final
 * calls come with no parts) and send nothing more. */
MCPIDL_API void mcp_session_close(mcp_session *s);
/* True once the sink reported the peer gone. */
MCPIDL_API bool mcp_session_broken(mcp_session *s);
/* Wait until every request in flight is answered (or dropped as cancelled). */
MCPIDL_API void mcp_session_drain(mcp_session *s);
/* Drain, release everything. NULL is a no-op. */
MCPIDL_API void mcp_session_free(mcp_session *s);
/* A stateless session whose requests are all answered, made ready for
 * another peer's requests as if new (a transport that serves each request
 * with a session of its own keeps the session instead of freeing it): it
 * drains, leaves what the runtime knew of it, and forgets the reading
 * thread's state (the log level, what the client declared, the caller); its
 * memory (slots, buffers, locks) is kept. False, and nothing changed but the
 * drain, when it cannot be: the peer gone, a request still held open
 * (subscriptions/listen), a request to the client pending; then free it.
 * Called by its reading thread, with no message in progress. */
MCPIDL_API MCP_NODISCARD bool mcp_session_reuse(mcp_session *s);

/* What a parsed message is to a session: a request (*initialize when it is
 * an initialize request a new session takes), a notification, a response
 * from the client, a batch (which the session takes or refuses by the
 * protocol version), or invalid (answered with an error without id). NULL is
 * invalid. For a transport that must decide before it has a session. */
typedef enum mcp_msg_kind {
    MCP_MSG_REQUEST,
    MCP_MSG_NOTIFICATION,
    MCP_MSG_RESPONSE,
    MCP_MSG_BATCH,
    MCP_MSG_INVALID,
} mcp_msg_kind;

MCPIDL_API mcp_msg_kind mcp_message_kind(const mcp_json *m, bool *initialize);
/* The OAuth scopes message m needs, for a transport that authorizes its
 * callers before the session sees a message: those the server table gives
 * the tool (tools/call), the resource or the resource template its URI
 * matches (resources/read, resources/subscribe, resources/unsubscribe, and
 * each URI of a subscriptions/listen's resourceSubscriptions), the prompt
 * (prompts/get), or the prompt or template a completion/complete
 * refers to; the server's own scopes for an item that names none (the IDL's
 * `scopes:` keys); for a batch, those of each of its messages. Every other
 * message, and one naming no known item, needs none. The scopes go to
 * out[0..cap) without repeats (pointers into the table); the result is how
 * many there are: more than cap means call again with that much room. */
MCPIDL_API size_t mcp_message_scopes(const mcp_server *srv, const mcp_json *m, const char **out, size_t cap);
/* Whether `version` is a protocol revision the sessions serve (for
 * MCP-Protocol-Version). */
MCPIDL_API bool mcp_protocol_version_known(const char *version);
/* The JSON limits the runtime's sessions parse messages with. */
MCPIDL_API mcp_json_limits mcp_runtime_json_limits(const mcp_runtime *rt);
/* A line on standard error ("mcpidl: ..."), when the runtime's log level
 * admits `level`. */
MCPIDL_API void mcp_runtime_log(const mcp_runtime *rt, mcp_log_level level, const char *fmt, ...) MCP_PRINTF(3, 4);

/* A transport mcp_main can serve with: libmcpidl-http defines
 * mcp_http_transport (mcpidl/http.h). */
typedef struct mcp_transport {
    const char *name; /* "http" */
    /* Whether this transport serves the options (for HTTP: o->http set). */
    bool (*wanted)(const mcp_options *o);
    /* Serve until mcp_runtime_stop(); the exit status for main(). */
    int (*serve)(mcp_runtime *rt);
} mcp_transport;

MCPIDL_END_DECLS

#endif
