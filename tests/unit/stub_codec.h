/* stub_codec.h: the protocol tests (test_server, test_http, test_limits)
 * link the protocol layer without the codec (invoke.c, beyond.c): each
 * defines its own mcp_tool_invoke; mcp_call_init is the library's, and the
 * methods beyond tools are stubs (tested with the whole library in
 * test_beyond). */
#ifndef MCPIDL_TESTS_STUB_CODEC_H
#define MCPIDL_TESTS_STUB_CODEC_H

#include <string.h>

#include "internal/call.h"

void mcp_call_init(mcp_call *call, mcp_arena *arena, const mcp_tool *tool, const mcp_json *meta,
                   const atomic_bool *cancelled)
{
    memset(call, 0, sizeof *call);
    call->arena = arena;
    call->tool = tool;
    call->meta = meta;
    call->cancelled = cancelled;
}

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
