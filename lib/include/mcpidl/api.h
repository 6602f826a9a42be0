/* api.h: what every public header of mcpidl shares: the export macro, the
 * C++ guards, attributes. No declarations of its own.
 *
 * libmcpidl is built with -fvisibility=hidden: a function is part of the
 * library's ABI only when a public header declares it with MCPIDL_API (and
 * the linker version script lists the mcp_ names). Everything else stays
 * inside the library, whatever its linkage.
 */
#ifndef MCPIDL_API_H
#define MCPIDL_API_H

#if defined(__GNUC__)
#define MCPIDL_API __attribute__((visibility("default")))
#define MCP_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* A result the caller must look at (a failure to handle). */
#define MCP_NODISCARD __attribute__((warn_unused_result))
#else
#define MCPIDL_API
#define MCP_PRINTF(f, a)
#define MCP_NODISCARD
#endif

#ifdef __cplusplus
#define MCPIDL_BEGIN_DECLS extern "C" {
#define MCPIDL_END_DECLS }
#else
#define MCPIDL_BEGIN_DECLS
#define MCPIDL_END_DECLS
#endif

#endif
