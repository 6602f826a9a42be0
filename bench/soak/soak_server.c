/* soak_server.c: the soak test's server (soak.mcp.yaml), over stdio or --http. */
#include "soak.mcp.h"

mcp_status soak_add(mcp_call *call, const soak_add_args *in, soak_Sum *out)
{
    (void)call;
    *out = (soak_Sum){.sum = in->a + in->b, .tag = in->tag};
    return MCP_OK;
}

int main(int argc, char **argv) { return mcp_main(&soak_server, argc, argv); }
