/* log.h (internal): the lines a runtime writes to standard error.
 *
 * Each runtime has its logger (its level): nothing in the library logs
 * through process-wide state. A line is written with one write(2), so lines
 * of several threads never mix. */
#ifndef MCPIDL_INTERNAL_LOG_H
#define MCPIDL_INTERNAL_LOG_H

#include <stdatomic.h>

#include "mcpidl/runtime.h"

typedef struct mcp_logger {
    atomic_int level; /* mcp_log_level */
} mcp_logger;

void mcp_logger_init(mcp_logger *lg, mcp_log_level level);
/* "mcpidl: " and the message, when lg's level admits `level` (a NULL lg
 * admits errors and warnings: the default level). */
void mcp_log(const mcp_logger *lg, mcp_log_level level, const char *fmt, ...) MCP_PRINTF(3, 4);
bool mcp_log_on(const mcp_logger *lg, mcp_log_level level);

#endif
