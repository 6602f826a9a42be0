/* mock.h: mock handlers, for a working server from an IDL alone.
 *
 * `mcpidlc --emit=mock` writes NAME.mock.c: every handler calls
 * mcp_mock_respond(), and main() calls mcp_mock_main(), which reads the canned
 * responses named by `--mock FILE` (or the environment variable MCPIDL_MOCK)
 * before serving. FILE holds JSON in one of two forms:
 *
 *   a map, tool -> responses served in turn (the last one repeats):
 *     {"get_weather": [{"returns": {"temperature": 16.2, ...}},
 *                      {"raise": "upstream timed out"}]}
 *
 *   a list of calls, as in a golden case's calls.json:
 *     [{"tool": "get_weather", "arguments": {...}, "returns": {...}}, ...]
 *   A request whose params._meta["mcpidl/call"] is an index gets that entry;
 *   otherwise the entries of its tool are served in turn.
 *
 * "returns" is the raw JSON the handler hands back (validated like any raw
 * return); "raise" makes the call fail with that message. For a tool declared
 * `returns: content`, "returns" is a string or a list of strings: text blocks.
 */
#ifndef MCPIDL_MOCK_H
#define MCPIDL_MOCK_H

#include "mcpidl/mcpidl.h"

MCPIDL_BEGIN_DECLS

MCPIDL_API mcp_status mcp_mock_respond(mcp_call *call);
MCPIDL_API int mcp_mock_main(const mcp_server *server, int argc, char **argv);

MCPIDL_END_DECLS

#endif
