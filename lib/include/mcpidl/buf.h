/* buf.h: a growing byte buffer, the target of every JSON writer.
 *
 * Errors are sticky: after an allocation failure every later write is a no-op
 * and buf->oom stays set, so a writer checks once at the end.
 */
#ifndef MCPIDL_BUF_H
#define MCPIDL_BUF_H

#include "mcpidl/api.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

MCPIDL_BEGIN_DECLS

typedef struct mcp_buf {
    char *data; /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
    bool oom;
} mcp_buf;

MCPIDL_API void mcp_buf_init(mcp_buf *b);
MCPIDL_API void mcp_buf_free(mcp_buf *b);
/* Keep the memory, drop the contents. */
static inline void mcp_buf_clear(mcp_buf *b)
{
    b->len = 0;
    b->oom = false;
    if (b->cap)
        b->data[0] = 0;
}
/* Make room for n more bytes; false (and oom set) on failure. */
MCPIDL_API MCP_NODISCARD bool mcp_buf_reserve(mcp_buf *b, size_t n);
MCPIDL_API void mcp_buf_put(mcp_buf *b, const void *p, size_t n);
MCPIDL_API void mcp_buf_puts(mcp_buf *b, const char *s);
MCPIDL_API void mcp_buf_putc(mcp_buf *b, char c);
MCPIDL_API void mcp_buf_printf(mcp_buf *b, const char *fmt, ...) MCP_PRINTF(2, 3);
/* Take ownership of the data (NUL-terminated; NULL on oom); the buffer is left empty. */
MCPIDL_API char *mcp_buf_take(mcp_buf *b, size_t *len);

MCPIDL_END_DECLS

#endif
