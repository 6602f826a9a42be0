/* The handlers of reports.mcp.yaml: each returns a value its output type does not allow. */
#include <math.h>

#include "reports.mcp.h"

mcp_status reports_shelve(mcp_call *call, const reports_shelve_args *in, reports_Book *out)
{
    (void)call;
    out->author.name = in->fault == reports_shelve_args_fault_author ? NULL : "Ada";
    if (in->fault != reports_shelve_args_fault_pages) {
        out->pages.which = reports_int_or_str_int_;
        out->pages.as.int_ = 100;
    }
    return MCP_OK;
}

mcp_status reports_bound(mcp_call *call, const reports_bound_args *in, int64_t *out)
{
    (void)call, (void)in;
    *out = -1;
    return MCP_OK;
}

mcp_status reports_nan(mcp_call *call, const reports_nan_args *in, double *out)
{
    (void)call, (void)in;
    *out = NAN;
    return MCP_OK;
}

int main(int argc, char **argv) { return mcp_main(&reports_server, argc, argv); }
