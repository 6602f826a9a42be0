/* http_route.h (internal, not installed): the Streamable HTTP transport
 * without libmicrohttpd.
 *
 * http.c is two layers. The core decides everything a request gets: the
 * Host and Origin checks, method and path, the Accept, Content-Type and
 * MCP-Protocol-Version checks, the session (new, found, ended), the message
 * given to the session, and the answer: a status with headers and a body, or
 * an SSE stream to read from. The libmicrohttpd glue (the end of http.c)
 * turns a connection into an http_req, an http_resp into a response, and an
 * http_sse into the body of one; nothing else there decides anything.
 *
 * This header lets a program drive the core without sockets or threads:
 * the in-process fuzz target (tests/fuzz/fuzz_http_route.c). With
 * settings.workers == 0 a handler runs inside http_route(), so that a JSON
 * answer is there when it returns, and every SSE event of a POST's stream is
 * there to read without waiting.
 */
#ifndef MCPIDL_LIB_HTTP_ROUTE_H
#define MCPIDL_LIB_HTTP_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "internal/http.h"

/* Not exported from the shared library (everything is hidden but what a
 * public header marks MCPIDL_API): only the static one's users (the tests)
 * call these. */
#define HTTP_INTERNAL

/* One request, as far as the transport cares. */
typedef struct http_req {
    const char *method;
    const char *url;
    /* The value of request header `name` (names compared without case), or
     * NULL when it is absent. */
    const char *(*header)(void *conn, const char *name);
    void *conn;
    const char *body; /* NULL: no body */
    size_t len;
    bool too_large;   /* the body was longer than settings.max_message and was dropped */
    bool over_budget; /* the body did not fit in the bytes in flight (max_inflight): dropped */
    /* Optional: called with body_ctx once the core is done with body (the
     * session has parsed it), so that the glue can let it go before a long
     * answer. */
    void (*body_done)(void *body_ctx);
    void *body_ctx;
    /* Optional (NULL: nothing to do): called with true before the core waits
     * on the session for this connection (a JSON answer, the next SSE event),
     * with false after, when the core blocks (no park): the timeout of the
     * connection stops meanwhile. */
    void (*waiting)(const mcp_http *h, void *conn, bool on);
    /* Optional: the value of query parameter `name` (NULL when absent); with
     * authorization, a token in the query is refused. */
    const char *(*query)(void *conn, const char *name);
    /* Set by http_route once the bearer token is verified (internal/auth.h):
     * who calls, for the session and its handlers. */
    struct auth_caller *who;
    /* Optional (NULL: never): whether the client has closed the connection,
     * asked now and then while a 2026-07-28 answer is awaited (closing its
     * stream cancels the request). */
    bool (*gone)(void *conn);
    /* Optional (NULL: the core blocks the calling thread while it waits on
     * the session). Event-driven glue: instead of waiting, the core calls
     * park(conn) on the thread serving conn, under its own lock, and answers
     * with http_resp.pending (or, reading an SSE stream, HTTP_SSE_AGAIN);
     * later it calls wake(conn) once, from any thread, when what was awaited
     * came (an answer, an event, a keep-alive due, the end, the client gone:
     * http_core_tick); the glue then asks again (http_pending_take,
     * http_sse_read). wake must neither block nor call the core. */
    void (*park)(void *conn);
    void (*wake)(void *conn);
} http_req;

/* An SSE stream being read by one connection. */
typedef struct http_sse http_sse;
/* A JSON answer (or a 2026-07-28 first message) not there yet, parked. */
typedef struct http_pending http_pending;

typedef struct http_resp {
    unsigned status;          /* 0: no answer, close the connection (out of memory) */
    const char *content_type; /* NULL: none */
    char *body;               /* malloc'd; NULL: empty */
    size_t len;
    char session_id[80];    /* Mcp-Session-Id to send; "": none */
    bool allow;             /* send Allow: GET, POST, DELETE */
    bool allow_post_only;   /* send Allow: POST */
    unsigned retry_after;   /* send Retry-After: N (seconds; 0: none) */
    http_sse *sse;          /* status 200, text/event-stream: the body is read from this */
    char *www_authenticate; /* malloc'd WWW-Authenticate value (auth.h); NULL: none */
    http_pending *pending;  /* park: no answer yet; ask http_pending_take once woken */
} http_resp;

/* What http_sse_read returns besides a byte count. */
#define HTTP_SSE_END ((ssize_t)-1)   /* the response is complete */
#define HTTP_SSE_AGAIN ((ssize_t)-2) /* nothing yet (only when not waiting) */

/* Everything of mcp_http_start but the listening: NULL when out of memory
 * (logged). */
HTTP_INTERNAL mcp_http *http_core_new(mcp_runtime *rt);
/* End every session, release everything. No request may be in progress. */
HTTP_INTERNAL void http_core_free(mcp_http *h);
/* The sessions in the table. */
HTTP_INTERNAL int http_core_sessions(mcp_http *h);
/* 2026-07-28 requests served by a stateless session kept from an earlier one. */
HTTP_INTERNAL unsigned long http_core_reused(mcp_http *h);

/* The checks that need no body (Host and Origin, path, method, the protocol
 * version header, the body's size, Accept and Content-Type): false when *out
 * holds the answer. The glue runs them as soon as the headers are in, so
 * that a request refused for its headers costs no body in memory. */
HTTP_INTERNAL bool http_route_head(mcp_http *h, const http_req *rq, http_resp *out);
/* Decide the answer to rq (http_route_head's checks first): *out is filled
 * (and owned by the caller, to be released with http_resp_free). */
HTTP_INTERNAL void http_route(mcp_http *h, const http_req *rq, http_resp *out);
/* *out (zeros, or an answer, which is released) becomes an error answer: a
 * JSON-RPC error without an id. */
HTTP_INTERNAL void http_resp_error(http_resp *out, unsigned status, int code, const char *message);
/* Release the body, and the SSE stream when nobody took it. */
HTTP_INTERNAL void http_resp_free(http_resp *r);

/* A parked answer, once its connection is woken: true when *out holds the
 * answer (p is gone), false when it is not there yet (parked again, p kept).
 * On the thread serving the connection. */
HTTP_INTERNAL bool http_pending_take(mcp_http *h, http_pending *p, http_resp *out);
/* Give up a parked answer (its connection is gone). */
HTTP_INTERNAL void http_pending_free(http_pending *p);
/* Once a second, with parking glue: wakes the SSE readers due for a
 * keep-alive comment and the 2026-07-28 requests whose client went away. */
HTTP_INTERNAL void http_core_tick(mcp_http *h);

/* The next bytes of an SSE answer, at most max: a count > 0; 0, a keep-alive
 * that does not fit in max; HTTP_SSE_END; or, when !wait and the stream has
 * nothing to send yet, HTTP_SSE_AGAIN (with park, after parking the
 * connection: a keep-alive comment is sent when woken with nothing else). With
 * wait, blocks until there is something (sending a keep-alive comment now and
 * then). */
HTTP_INTERNAL ssize_t http_sse_read(http_sse *r, char *buf, size_t max, bool wait);
HTTP_INTERNAL void http_sse_free(http_sse *r);

#endif
