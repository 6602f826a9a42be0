/* http.h (internal): the Streamable HTTP transport (libmcpidl-http).
 *
 * One endpoint (default /mcp) on libmicrohttpd, one thread per connection:
 * POST carries client messages (a request is answered as an SSE stream, or as
 * application/json when the client accepts only JSON; notifications and
 * responses get 202), GET opens the session's standalone SSE stream (or
 * resumes a stream after Last-Event-ID), DELETE ends the session. Each
 * session (Mcp-Session-Id, issued on initialize) is an mcp_session; handlers
 * of every session run on one shared worker pool. Host and Origin are checked
 * before anything else (DNS rebinding).
 */
#ifndef MCPIDL_LIB_HTTP_H
#define MCPIDL_LIB_HTTP_H

#include <stddef.h>

#include "internal/session.h"

#define MCP_HTTP_DEFAULT_PATH "/mcp"
#define MCP_HTTP_DEFAULT_MAX_SESSIONS 1024
#define MCP_HTTP_DEFAULT_IDLE_SECONDS (30 * 60)
#define MCP_HTTP_DEFAULT_REPLAY_BYTES ((size_t)1 << 20) /* bytes of events kept per stream */
/* How long a connection may make no progress: a client sending its request
 * or reading the answer. Time spent waiting for a handler does not count. */
#define MCP_HTTP_DEFAULT_TIMEOUT_SECONDS 30
/* Bytes of request bodies held at once, over every connection: a body is
 * held from its first byte until the session has parsed it. */
#define MCP_HTTP_DEFAULT_MAX_INFLIGHT ((size_t)64 << 20)
/* The error a JSON-mode POST gets when its request was cancelled (the
 * client asked for no answer, but an HTTP request needs one). */
#define MCP_HTTP_CANCELLED_CODE (-32800)

typedef struct mcp_http_options {
    const char *host_port;          /* "HOST:PORT", "[::1]:PORT"; port 0 picks one */
    const char *path;               /* NULL: MCP_HTTP_DEFAULT_PATH */
    const char *const *allow_hosts; /* Host names accepted besides localhost, 127.0.0.1, [::1] */
    size_t nallow;
    int max_sessions;               /* 0: the default; beyond it, initialize gets 503 */
    int idle_seconds;               /* 0: the default; a session unused this long ends */
    size_t replay_bytes;            /* 0: the default; events kept per stream for Last-Event-ID */
    int timeout_seconds;            /* 0: the default; see MCP_HTTP_DEFAULT_TIMEOUT_SECONDS */
    size_t max_inflight;            /* 0: the default; see MCP_HTTP_DEFAULT_MAX_INFLIGHT */
} mcp_http_options;

typedef struct mcp_http mcp_http;

/* Listen and serve in background threads. NULL (after logging why) when the
 * address is bad or cannot be bound, or when out of memory. */
mcp_http *mcp_http_start(const mcp_server *server, const mcp_settings *settings,
                         const mcp_http_options *opt);
/* The port listened on (the one picked, for port 0). */
unsigned mcp_http_port(const mcp_http *h);
/* End the sessions that have been idle too long. */
void mcp_http_sweep(mcp_http *h);
/* Stop listening, close every stream, end every session (answering or
 * dropping what is in flight), release everything. NULL is a no-op. */
void mcp_http_stop(mcp_http *h);

/* mcp_main's hook (--http and the HTTP options): serve until SIGINT or
 * SIGTERM. Returns the exit status. */
int mcp_http_serve(const mcp_server *server, const mcp_settings *settings,
                   const mcp_http_options *opt);

#endif
