/* buf.h: a growing byte buffer, the target of every JSON writer.
 *
 * Errors are sticky: after an allocation failure every later write is a no-op
 * and buf->oom stays set, so a writer checks once at the end.
 */
#ifndef MCPIDL_BUF_H
#define MCPIDL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mcp_buf {
    char *data;      /* always NUL-terminated when cap > 0 */
    size_t len;
    size_t cap;
    bool oom;
} mcp_buf;

void mcp_buf_init(mcp_buf *b);
void mcp_buf_free(mcp_buf *b);
/* Keep the memory, drop the contents. */
static inline void mcp_buf_clear(mcp_buf *b) { b->len = 0; b->oom = false; if (b->cap) b->data[0] = 0; }
/* Make room for n more bytes; false (and oom set) on failure. */
bool mcp_buf_reserve(mcp_buf *b, size_t n);
void mcp_buf_put(mcp_buf *b, const void *p, size_t n);
void mcp_buf_puts(mcp_buf *b, const char *s);
void mcp_buf_putc(mcp_buf *b, char c);
void mcp_buf_printf(mcp_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Take ownership of the data (NUL-terminated; NULL on oom); the buffer is left empty. */
char *mcp_buf_take(mcp_buf *b, size_t *len);

#endif
