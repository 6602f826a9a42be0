/* emit_c.h: the C back end.
 *
 * Three outputs of one model of the server's C (c_names.h): NAME.mcp.h (the
 * C types of the IDL, the handler prototypes, the server table's
 * declaration), NAME.mcp.c (the type descriptors the runtime's codec reads,
 * the handler thunks, the tools table with its pre-rendered tools/list
 * entries, the server table) and NAME.mock.c (handlers that answer with
 * canned JSON). Each appends to `out`; false when out of memory.
 */
#ifndef MCPIDL_COMPILER_EMIT_C_H
#define MCPIDL_COMPILER_EMIT_C_H

#include "c_names.h"
#include "ir.h"
#include "mcpidl/buf.h"

/* `stem` is NAME; `source_name` the IDL file's name as given (for the comment
 * on top). */
IDL_NODISCARD bool emit_c_header(c_names *n, const char *stem, const char *source_name, mcp_buf *out);
IDL_NODISCARD bool emit_c_source(c_names *n, const char *stem, const char *source_name, mcp_buf *out);
IDL_NODISCARD bool emit_c_mock(c_names *n, const char *stem, const char *source_name, mcp_buf *out);

#endif
