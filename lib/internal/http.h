/* http.h (internal): the Streamable HTTP transport (libmcpidl-http).
 *
 * One endpoint (default /mcp) on libmicrohttpd (a pool of epoll threads; a
 * connection waiting for its session is suspended and holds none):
 * POST carries client messages (a request is answered as an SSE stream, or as
 * application/json when the client accepts only JSON; notifications and
 * responses get 202), GET opens the session's standalone SSE stream (or
 * resumes a stream after Last-Event-ID), DELETE ends the session. Each
 * session (Mcp-Session-Id, issued on initialize) is an mcp_session of the
 * runtime; handlers of every session run on the runtime's worker pool. Host
 * and Origin are checked before anything else (DNS rebinding). The transport
 * uses the public transport API only (mcpidl/transport.h).
 */
#ifndef MCPIDL_INTERNAL_HTTP_H
#define MCPIDL_INTERNAL_HTTP_H

#include <stddef.h>

#include "mcpidl/http.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

/* The error a JSON-mode POST gets when its request was cancelled (the
 * client asked for no answer, but an HTTP request needs one). */
#define MCP_HTTP_CANCELLED_CODE (-32800)
/* "Service Unavailable: ...": a bound of the server's (503). */
#define MCP_HTTP_BUSY_CODE (-32000)

typedef struct mcp_http mcp_http;

/* Listen on the runtime's options' http address and serve in background
 * threads. NULL (after logging why) when the address is bad or cannot be
 * bound, or when out of memory. */
mcp_http *mcp_http_start(mcp_runtime *rt);
/* The port listened on (the one picked, for port 0). */
unsigned mcp_http_port(const mcp_http *h);
/* Load the TLS certificate and key and the JWKS file again (SIGHUP); what
 * cannot be loaded is logged, and what is in use kept. */
void mcp_http_reload(mcp_http *h);
/* End the sessions that have been idle too long. */
void mcp_http_sweep(mcp_http *h);
/* Stop listening, close every stream, end every session (answering or
 * dropping what is in flight), release everything. NULL is a no-op. */
void mcp_http_stop(mcp_http *h);

#endif
