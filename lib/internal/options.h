/* options.h (internal): the defaults and the ranges of mcp_options. */
#ifndef MCPIDL_INTERNAL_OPTIONS_H
#define MCPIDL_INTERNAL_OPTIONS_H

#include "mcpidl/runtime.h"

#define MCP_DEFAULT_MAX_MESSAGE (8u << 20) /* bytes in one message */
#define MCP_DEFAULT_MAX_CONCURRENT 64      /* a session's requests running at once */
/* Requests past max_concurrent wait in their session's queue: at most this
 * many per session, and at most MCP_DEFAULT_MAX_QUEUED_BYTES of parsed
 * messages in all queues together (a small tools/call takes 1 to 2 KB, so
 * the byte bound is what holds under large messages). */
#define MCP_DEFAULT_MAX_QUEUED 1024
#define MCP_DEFAULT_MAX_QUEUED_BYTES ((size_t)64 << 20)
#define MCP_DEFAULT_PAGE_SIZE 100 /* entries per page of each list method */
#define MCP_MAX_WORKERS 1024
#define MCP_DEFAULT_CLIENT_TIMEOUT_MS 60000 /* a handler's request to the client */
#define MCP_DEFAULT_MAX_PENDING 64          /* requests to the client pending per session */
/* A string may be as long as the message (0 in max_string): base64 blobs in
 * arguments and in the client's sampling answers are legitimate, and a string
 * costs its own length in memory. An array element costs a node (~90 bytes)
 * for as little as 2 bytes of text: arrays are where a message multiplies. */
#define MCP_DEFAULT_MAX_ARRAY 100000 /* elements in one JSON array */
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
/* How long a requestState stays valid: a round may wait for a person. */
#define MCP_DEFAULT_STATE_TTL 900
/* Tasks (the tasks extension): live at once, and seconds each is kept. */
#define MCP_DEFAULT_MAX_TASKS 256
#define MCP_DEFAULT_TASK_TTL 3600

#define MCP_HTTP_DEFAULT_PATH "/mcp"
#define MCP_AUTH_DEFAULT_LEEWAY 30       /* seconds of clock skew for exp, nbf, iat */
#define MCP_AUTH_DEFAULT_JWKS_REFRESH 60 /* seconds between two fetches of the key set */
#define MCP_HTTP_DEFAULT_MAX_SESSIONS 1024
#define MCP_HTTP_DEFAULT_IDLE_SECONDS (30 * 60)
#define MCP_HTTP_DEFAULT_REPLAY_BYTES ((size_t)1 << 20) /* bytes of events kept per stream */
/* How long a connection may make no progress: a client sending its request
 * or reading the answer. Time spent waiting for a handler does not count. */
#define MCP_HTTP_DEFAULT_TIMEOUT_SECONDS 30
/* Bytes of request bodies held at once, over every connection: a body is
 * held from its first byte until the session has parsed it. */
#define MCP_HTTP_DEFAULT_MAX_INFLIGHT ((size_t)64 << 20)
/* libmicrohttpd's buffer per connection, which holds a request's line and
 * headers (libmicrohttpd's own default). About half of it becomes resident
 * for every open stream (docs/http.md), so a server holding many idle
 * streams may choose a smaller one. */
#define MCP_HTTP_DEFAULT_HEADER_BYTES ((size_t)32 << 10)
#define MCP_HTTP_MIN_HEADER_BYTES ((size_t)4 << 10)


#endif
