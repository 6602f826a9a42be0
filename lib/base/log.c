/* log.c: lines on standard error, at a runtime's level. */
#include "internal/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void mcp_logger_init(mcp_logger *lg, mcp_log_level level) { atomic_init(&lg->level, (int)level); }

bool mcp_log_on(const mcp_logger *lg, mcp_log_level level)
{
    int at = lg ? atomic_load(&lg->level) : MCP_LOG_WARN;
    return level != MCP_LOG_QUIET && (int)level <= at;
}

void mcp_log(const mcp_logger *lg, mcp_log_level level, const char *fmt, ...)
{
    if (!mcp_log_on(lg, level))
        return;
    /* One write(2) per line, so lines from several threads do not interleave. */
    char line[1024];
    size_t n = sizeof "mcpidl: " - 1;
    memcpy(line, "mcpidl: ", n);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    if (w < 0)
        w = 0;
    n += (size_t)w < sizeof line - n - 1 ? (size_t)w : sizeof line - n - 2;
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, n) < 0) {
        /* nowhere left to report it */
    }
}
