/* fx.c: the handlers of fx.mcp.yaml, for formats.test.mjs: each answers with
 * what it was given (the runtime has already checked it and made it
 * canonical), except bad_datetime, whose answer the runtime must refuse. */
#include "fx.mcp.h"

mcp_status fx_echo_params(mcp_call *call, const fx_echo_params_args *in, fx_Stamp *out)
{
    (void)call;
    *out = (fx_Stamp){.when = in->when,
                      .day = in->day,
                      .at = in->at,
                      .length = in->length,
                      .id = in->id,
                      .link = in->link,
                      .price = in->price};
    return MCP_OK;
}

mcp_status fx_echo_stamp(mcp_call *call, const fx_echo_stamp_args *in, fx_Stamp *out)
{
    (void)call;
    *out = in->stamp;
    return MCP_OK;
}

mcp_status fx_echo_lists(mcp_call *call, const fx_echo_lists_args *in, fx_Lists *out)
{
    (void)call;
    *out = in->lists;
    return MCP_OK;
}

mcp_status fx_echo_maybes(mcp_call *call, const fx_echo_maybes_args *in, fx_Maybes *out)
{
    (void)call;
    *out = (fx_Maybes){.when = in->when,
                       .day = in->day,
                       .at = in->at,
                       .length = in->length,
                       .id = in->id,
                       .link = in->link,
                       .price = in->price};
    return MCP_OK;
}

#define RET(NAME) \
    mcp_status fx_ret_##NAME(mcp_call *call, const fx_ret_##NAME##_args *in, const char **out) \
    { \
        (void)call; \
        *out = in->v; \
        return MCP_OK; \
    }

RET(datetime)
RET(date)
RET(time)
RET(timedelta)
RET(uuid)
RET(url)
RET(decimal)

mcp_status fx_bad_datetime(mcp_call *call, const fx_bad_datetime_args *in, const char **out)
{
    (void)call;
    (void)in;
    *out = "yesterday";
    return MCP_OK;
}

int main(int argc, char **argv) { return mcp_main(&fx_server, argc, argv); }
