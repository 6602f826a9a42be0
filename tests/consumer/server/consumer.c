/* consumer.c: the handlers of calc.mcp.yaml and greet.mcp.yaml, and a main() serving one of
 * them: calc, or greet when the first argument is "greet". */
#include <string.h>

#include "calc.mcp.h"
#include "greet.mcp.h"

mcp_status calc_add(mcp_call *call, const calc_add_args *in, calc_Sum *out)
{
    (void)call;
    *out = (calc_Sum){.total = in->a + in->b, .terms = 2};
    return MCP_OK;
}

mcp_status greet_hello(mcp_call *call, const greet_hello_args *in, const char **out)
{
    *out = mcp_sprintf(call, "Hello, %s!", in->name);
    return MCP_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "greet") == 0)
        return mcp_main(&greet_server, argc - 1, argv + 1);
    return mcp_main(&calc_server, argc, argv);
}
