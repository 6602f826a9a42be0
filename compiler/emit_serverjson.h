/* emit_serverjson.h: the MCP Registry's server.json of a server (mcpidlc
 * --emit=server-json). */
#ifndef MCPIDLC_EMIT_SERVERJSON_H
#define MCPIDLC_EMIT_SERVERJSON_H

#include "ir.h"
#include "mcpidl/arena.h"
#include "mcpidl/json.h"

/* The schema server.json documents name in "$schema". */
#define SERVER_JSON_SCHEMA "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"

/* The server.json document of srv, in arena a; NULL when out of memory.
 * Call only when ir_registry_complete(srv) holds. */
mcp_json *emit_server_json(mcp_arena *a, const ir_server *srv);

#endif
