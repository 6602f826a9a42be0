/* stub_beyond.h: the protocol tests (test_server, test_http) link the
 * protocol layer without the codec; the methods beyond tools (beyond.c) are
 * stubs here and are tested with the whole library elsewhere. */
#ifndef MCPIDL_TESTS_STUB_BEYOND_H
#define MCPIDL_TESTS_STUB_BEYOND_H

#include "call.h"

static int stub_beyond(const char **msg)
{
    *msg = "Internal error: not in this test";
    return -32603;
}

int mcp_read_invoke(mcp_call *call, const mcp_resource *r, const mcp_resource_template *t,
                    const char *const *vars, mcp_buf *out, const char **msg)
{
    (void)call, (void)r, (void)t, (void)vars, (void)out;
    return stub_beyond(msg);
}

int mcp_prompt_invoke(mcp_call *call, const mcp_prompt *p, const char *const *args, mcp_buf *out,
                      const char **msg)
{
    (void)call, (void)p, (void)args, (void)out;
    return stub_beyond(msg);
}

int mcp_complete_invoke(mcp_call *call, const mcp_completer *k, const char *value,
                        const mcp_json *context, mcp_buf *out, const char **msg)
{
    (void)call, (void)k, (void)value, (void)context, (void)out;
    return stub_beyond(msg);
}

#endif
