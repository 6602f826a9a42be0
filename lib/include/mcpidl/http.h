/* http.h: the Streamable HTTP transport, in libmcpidl-http (CMake:
 * mcpidl::http; pkg-config: mcpidl-http). A program that links it and is
 * compiled with MCPIDL_HTTP defined (both come with the library's CMake
 * target and pkg-config file) gets --http in mcp_main(); a program that
 * runs its own runtime calls mcp_runtime_serve_http().
 */
#ifndef MCPIDL_HTTP_H
#define MCPIDL_HTTP_H

#include "mcpidl/api.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

MCPIDL_BEGIN_DECLS

/* Serve the runtime's options' `http` address (HOST:PORT) until
 * mcp_runtime_stop(): the exit status for main() (1 when it cannot listen). */
MCPIDL_API int mcp_runtime_serve_http(mcp_runtime *rt);

/* The transport for mcp_main_with(). */
MCPIDL_API extern const mcp_transport mcp_http_transport;

MCPIDL_END_DECLS

#endif
