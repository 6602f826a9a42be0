/* fmt.c: printf for names and messages (fmt.h). */
#include "fmt.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal/arena.h"

typedef struct out {
    char *dst;
    size_t size; /* of dst, the final NUL included */
    size_t n;    /* the length of the text so far (what would be written) */
} out;

static void put(out *o, const char *s, size_t len)
{
    if (o->n < o->size) {
        size_t room = o->size - 1 - o->n;
        memcpy(o->dst + o->n, s, len < room ? len : room);
    }
    o->n += len;
}

/* The decimal digits of v, with a '-' before them when `minus`. */
static void put_number(out *o, uintmax_t v, int minus)
{
    char digits[24];
    char *p = digits + sizeof digits;
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    if (minus)
        *--p = '-';
    put(o, p, (size_t)(digits + sizeof digits - p));
}

/* fmt written into o: 1, or 0 at a conversion this does not write (the
 * caller then hands the whole format to vsnprintf). */
static int format(out *o, const char *fmt, va_list ap)
{
    for (const char *p = fmt;;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(o, p, strlen(p));
            return 1;
        }
        put(o, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == 's') {
            const char *s = va_arg(ap, const char *);
            if (!s)
                return 0; /* the C library's "(null)" */
            put(o, s, strlen(s));
            p++;
        } else if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
            int prec = va_arg(ap, int);
            const char *s = va_arg(ap, const char *);
            if (prec < 0 || !s)
                return 0;
            const char *end = memchr(s, 0, (size_t)prec);
            put(o, s, end ? (size_t)(end - s) : (size_t)prec);
            p += 3;
        } else if (*p == 'c') {
            char ch = (char)va_arg(ap, int);
            put(o, &ch, 1);
            p++;
        } else if (*p == 'd') {
            int v = va_arg(ap, int);
            put_number(o, v < 0 ? (uintmax_t)0 - (uintmax_t)(intmax_t)v : (uintmax_t)v, v < 0);
            p++;
        } else if (*p == 'u') {
            put_number(o, va_arg(ap, unsigned), 0);
            p++;
        } else if (p[0] == 'z' && p[1] == 'u') {
            put_number(o, va_arg(ap, size_t), 0);
            p += 2;
        } else if (*p == '%') {
            put(o, "%", 1);
            p++;
        } else {
            return 0;
        }
    }
}

int idl_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    out o = {dst, size, 0};
    int done = format(&o, fmt, aq);
    va_end(aq);
    if (!done || o.n > INT32_MAX)
        return vsnprintf(dst, size, fmt, ap);
    if (size)
        dst[o.n < size ? o.n : size - 1] = 0;
    return (int)o.n;
}

int idl_snprintf(char *dst, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = idl_vsnprintf(dst, size, fmt, ap);
    va_end(ap);
    return n;
}

char *idl_vfmt(mcp_arena *a, const char *fmt, va_list ap)
{
    char small[256];
    va_list aq;
    va_copy(aq, ap);
    int n = idl_vsnprintf(small, sizeof small, fmt, aq);
    va_end(aq);
    char *p = n < 0 ? NULL : mcp_arena_take(a, (size_t)n + 1);
    if (p && (size_t)n < sizeof small)
        memcpy(p, small, (size_t)n + 1);
    else if (p)
        idl_vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *idl_fmt(mcp_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = idl_vfmt(a, fmt, ap);
    va_end(ap);
    return p;
}
