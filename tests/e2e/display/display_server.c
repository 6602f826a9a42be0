/* display_server.c: the server of tests/e2e/display.test.mjs, from
 * tests/unit/display/display.mcp.yaml: icons and _meta on everything it
 * lists, and a tool (toggle) that withdraws or offers greet while serving. */
#include <mcpidl/mcpidl.h>

#include "display.mcp.h"

mcp_status display_greet(mcp_call *call, const display_greet_args *in, const char **out)
{
    *out = mcp_sprintf(call, "Hello, %s!", in->name);
    return *out ? MCP_OK : MCP_ERROR;
}

mcp_status display_toggle(mcp_call *call, const display_toggle_args *in, bool *out)
{
    *out = mcp_runtime_tool_enable(mcp_call_runtime(call), "greet", in->enabled);
    return MCP_OK;
}

mcp_status display_read_item(mcp_call *call, const char *uri, const display_item_vars *vars)
{
    (void)uri;
    return mcp_resource_text(call, NULL, NULL, mcp_sprintf(call, "item %s", vars->id));
}

mcp_status display_prompt_hello(mcp_call *call) { return mcp_content_text(call, "Hello."); }

int main(int argc, char **argv) { return mcp_main(&display_server, argc, argv); }
