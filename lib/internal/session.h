/* server.h (internal): one MCP session over a message transport.
 *
 * The transport (stdio.c; later HTTP) cuts its input into messages and hands
 * each to mcp_session_message() on one reading thread. The session judges the
 * message (JSON-RPC 2.0, the MCP lifecycle), answers cheap requests there and
 * then, and hands tools/call to the worker pool. Every answer goes to the
 * transport's sink as one whole message, in completion order; a message gets
 * zero or one answer (DESIGN.md, "Protocol answers").
 */
#ifndef MCPIDL_LIB_SERVER_H
#define MCPIDL_LIB_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/mcpidl.h"

/* ---------------------------------------------------------------- settings */

#define MCP_DEFAULT_MAX_MESSAGE (8u << 20) /* bytes in one message */
#define MCP_DEFAULT_MAX_CONCURRENT 64      /* tools/call in flight per session */
#define MCP_DEFAULT_PAGE_SIZE 100          /* entries per page of each list method */
#define MCP_MAX_WORKERS 1024
#define MCP_DEFAULT_CLIENT_TIMEOUT_MS 60000 /* a handler's request to the client */
#define MCP_DEFAULT_MAX_PENDING 64          /* requests to the client pending per session */
/* A string may be as long as the message (0 in max_string): base64 blobs in
 * arguments and in the client's sampling answers are legitimate, and a string
 * costs its own length in memory. An array element costs a node (~90 bytes)
 * for as little as 2 bytes of text: arrays are where a message multiplies. */
#define MCP_DEFAULT_MAX_ARRAY 100000        /* elements in one JSON array */
/* Values in one message: a parsed value costs about 100 bytes, so this
 * bounds a message's tree at about 25 MB, whatever its text. */
#define MCP_DEFAULT_MAX_VALUES 250000
/* resources/subscribe: URIs one session may subscribe to, each at most
 * MCP_MAX_SUBSCRIBE_URI bytes (so a session's subscriptions cost at most
 * about 1 MiB at the default). */
#define MCP_DEFAULT_MAX_SUBSCRIPTIONS 256
#define MCP_MAX_SUBSCRIBE_URI 4096
/* Handlers waiting for a client's answer at once, in all sessions of a
 * server: each waits on a thread of its own, so that workers stay free. */
#define MCP_DEFAULT_MAX_WAITING 256

typedef struct mcp_settings {
    int workers;             /* worker threads; 0: handlers run on the reading thread */
    size_t max_message;      /* longest message accepted, in bytes (CR LF excluded) */
    int max_depth;           /* JSON nesting limit (mcp_json_limits.max_depth) */
    int max_concurrent;      /* requests in flight before -32603 */
    size_t page_size;        /* entries per page of each list method */
    int client_timeout_ms;   /* how long a handler waits for the client's answer
                                (mcp_client_request); <= 0: the default */
    int max_pending;         /* requests to the client pending at once; <= 0: the default */
    size_t max_string;       /* longest JSON string, unescaped bytes; 0: max_message */
    size_t max_array;        /* most elements in one JSON array; 0: no limit */
    size_t max_values;       /* most JSON values in one message; 0: no limit */
    int max_subscriptions;   /* resources/subscribe URIs per session; <= 0: the default */
    int max_waiting;         /* handlers waiting for clients at once, server-wide (the
                                worker pool's max_blocked); <= 0: the default */
} mcp_settings;

/* The defaults: one worker per online CPU, the limits above, depth 128,
 * strings as long as the message. */
void mcp_settings_default(mcp_settings *s);
/* The JSON limits a session parses messages with, from its settings (the
 * depth within its bounds, the string limit at most the message size). */
mcp_json_limits mcp_settings_json_limits(const mcp_settings *s);

/* ---------------------------------------------------------------- logging */

typedef enum mcp_log_level {
    MCP_LOG_QUIET = 0,
    MCP_LOG_ERROR,
    MCP_LOG_WARN,
    MCP_LOG_INFO,
    MCP_LOG_DEBUG,
} mcp_log_level;

/* Messages at `level` and below go to standard error as "mcpidl: ...";
 * default MCP_LOG_WARN. */
void mcp_log_set_level(mcp_log_level level);
mcp_log_level mcp_log_get_level(void);
/* "error", "warn", "info", "debug", "quiet": false for another name. */
bool mcp_log_parse_level(const char *name, mcp_log_level *out);
void mcp_log(mcp_log_level level, const char *fmt, ...) MCP_PRINTF(2, 3);

/* ---------------------------------------------------------------- the session */

/* One piece of an outgoing message. */
typedef struct mcp_out_part {
    const char *p;
    size_t n;
} mcp_out_part;

/* Where answers go: the concatenation of parts[0..n) is one whole JSON-RPC
 * message (no newline; the transport frames it). `reply_ctx` is the value the
 * transport passed to mcp_session_message() with the request being served
 * (NULL for stdio, and for messages that belong to no request). `final` marks
 * the last call for that reply_ctx: the answer itself, or, for a request that
 * is answered no more (cancelled, or the peer is gone), a call with n == 0, so
 * that the transport can close whatever it holds open for it. Messages sent
 * while serving a request (n > 0, !final) come before its final call; a call
 * with n == 0 and !final asks the transport to end the connection carrying
 * the request's stream while keeping the stream for resumption (HTTP; others
 * ignore it: mcp_close_stream). Called
 * from the reading thread and from workers: the sink serialises writes
 * itself. Returns false when the peer is gone (the session then stops doing
 * work); a transport with many peers returns true and drops what it cannot
 * deliver. */
typedef bool (*mcp_sink_fn)(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n,
                            bool final);

typedef struct mcp_session mcp_session;

/* NULL when out of memory or when the worker threads cannot start. The
 * server table and the settings are read once; `server` must outlive the
 * session. */
mcp_session *mcp_session_new(const mcp_server *server, const mcp_settings *settings,
                             mcp_sink_fn sink, void *sink_ctx);

struct mcp_pool;
/* The same, with handlers run on `pool` (shared by many sessions, which must
 * all be freed before it is shut down) rather than on workers of its own;
 * NULL runs them on the reading thread. */
mcp_session *mcp_session_new_pooled(const mcp_server *server, const mcp_settings *settings,
                                    struct mcp_pool *pool, mcp_sink_fn sink, void *sink_ctx);
/* One message: the text of one line, without its '\n' (a final '\r' is
 * ignored). Blank lines (only spaces, tabs, CRs) are ignored. A message
 * longer than settings.max_message is answered as too large. Reading thread
 * only (a transport with several readers serialises its calls).
 *
 * Everything sent for this message goes to the sink with `reply_ctx`.
 * Returns true when the message gets exactly one final sink call (now or
 * later: a request, a batch holding one, or a message answered with an
 * error); false when it gets none (a notification, a response from the
 * client, a batch of those, a blank line): the sink then never sees
 * `reply_ctx`. */
bool mcp_session_message(mcp_session *s, const char *text, size_t len, void *reply_ctx);
/* The transport dropped a message longer than settings.max_message without
 * buffering it: answer -32600, no id, final, on reply_ctx. */
void mcp_session_too_large(mcp_session *s, void *reply_ctx);
/* The peer is gone for good: cancel every request in flight (their final
 * calls come with no parts) and send nothing more. */
void mcp_session_close(mcp_session *s);
/* True once the sink reported the peer gone. */
bool mcp_session_broken(mcp_session *s);
/* Wait until every request in flight is answered (or dropped as cancelled). */
void mcp_session_drain(mcp_session *s);
/* Drain, stop the workers, release everything. NULL is a no-op. */
void mcp_session_free(mcp_session *s);

/* What a parsed message is to a session: a request (*initialize when it is
 * an initialize request a new session takes), a notification, a response from
 * the client, a batch (which the session takes or refuses by the protocol
 * version), or invalid (the session answers it with an error carrying no id,
 * or the id of a request it will not read). NULL is invalid. The same rules
 * as mcp_session_message's. */
typedef enum mcp_msg_kind {
    MCP_MSG_REQUEST,
    MCP_MSG_NOTIFICATION,
    MCP_MSG_RESPONSE,
    MCP_MSG_BATCH,
    MCP_MSG_INVALID,
} mcp_msg_kind;

mcp_msg_kind mcp_message_kind(const mcp_json *m, bool *initialize);

/* ---------------------------------------------------------------- stdio */

/* Serve one session over newline-delimited JSON: messages from in_fd, answers
 * to out_fd. Returns at end of input, when out_fd is closed by the peer, or
 * after mcp_stdio_install_signals()' signals; in-flight requests are answered
 * first. Returns 0, or 1 when the session cannot start or input fails. */
int mcp_stdio_serve(const mcp_server *server, const mcp_settings *settings, int in_fd,
                    int out_fd);
/* Ignore SIGPIPE; make SIGINT and SIGTERM stop mcp_stdio_serve like end of
 * input (a second one kills the process as usual). False when the handlers
 * cannot be installed. */
bool mcp_stdio_install_signals(void);
/* After mcp_stdio_install_signals(): a descriptor that becomes readable when
 * SIGINT or SIGTERM arrives (-1 before), and whether one has. */
int mcp_stop_fd(void);
bool mcp_stop_requested(void);

#endif
