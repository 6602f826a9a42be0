/* emit_c.h: the C back end.
 *
 * Writes NAME.mcp.h (the C types of the IDL, the handler prototypes, the
 * server table's declaration) and NAME.mcp.c (the type descriptors the
 * runtime's codec reads, the handler thunks, the tools table with its
 * pre-rendered tools/list entries, the server table). And, for --emit=mock,
 * NAME.mock.c: handlers that answer with canned JSON.
 */
#ifndef MCPIDL_COMPILER_EMIT_C_H
#define MCPIDL_COMPILER_EMIT_C_H

#include "ir.h"
#include "mcpidl/buf.h"

typedef struct c_output {
    mcp_buf header;   /* NAME.mcp.h */
    mcp_buf source;   /* NAME.mcp.c */
    mcp_buf mock;     /* NAME.mock.c (when asked for) */
} c_output;

/* `stem` is NAME; `source_name` the IDL file's name as given (for the
 * comment on top). Returns false when out of memory. */
bool emit_c(mcp_arena *a, const ir_server *srv, const char *stem, const char *source_name, bool mock,
            c_output *out);

#endif
