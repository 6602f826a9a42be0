/* buf.c: the growing buffer behind every writer. */
#include "mcpidl/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcp_buf_init(mcp_buf *b) { memset(b, 0, sizeof *b); }

void mcp_buf_free(mcp_buf *b)
{
    free(b->data);
    mcp_buf_init(b);
}

bool mcp_buf_reserve(mcp_buf *b, size_t n)
{
    if (b->oom)
        return false;
    if (b->cap && n < b->cap - b->len)
        return true;
    if (n > SIZE_MAX - b->len - 1) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + n + 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    if (!b->data)
        p[0] = 0;
    b->data = p;
    b->cap = cap;
    return true;
}

void mcp_buf_put(mcp_buf *b, const void *p, size_t n)
{
    if (!mcp_buf_reserve(b, n))
        return;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void mcp_buf_puts(mcp_buf *b, const char *s) { mcp_buf_put(b, s, strlen(s)); }

void mcp_buf_putc(mcp_buf *b, char c)
{
    if (!mcp_buf_reserve(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

void mcp_buf_printf(mcp_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    /* Formatted into the room there is; only text that does not fit is
     * formatted a second time, after the buffer grows. */
    size_t room = b->cap ? b->cap - b->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        if (room)
            b->data[b->len] = 0;
        return;
    }
    if ((size_t)n >= room) {
        if (!mcp_buf_reserve(b, (size_t)n)) {
            if (room)
                b->data[b->len] = 0;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

char *mcp_buf_take(mcp_buf *b, size_t *len)
{
    if (b->oom) {
        mcp_buf_free(b);
        if (len)
            *len = 0;
        return NULL;
    }
    if (!b->data && !mcp_buf_reserve(b, 0))
        return NULL;
    char *p = b->data;
    if (len)
        *len = b->len;
    mcp_buf_init(b);
    return p;
}
