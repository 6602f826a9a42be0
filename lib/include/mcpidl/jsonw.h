/* jsonw.h: the JSON text writer.
 *
 * mcpidl writes every JSON byte itself, in the form the MCP Python SDK
 * (pydantic-core) writes: strings UTF-8 and unescaped but for '"', '\\' and
 * control characters; floats in the shortest form that reads back.
 */
#ifndef MCPIDL_JSONW_H
#define MCPIDL_JSONW_H

#include "mcpidl/api.h"
#include "mcpidl/buf.h"

MCPIDL_BEGIN_DECLS

/* A JSON string literal, quotes included. s[0..n) is copied raw except:
 * '"' -> \", '\\' -> \\, \n \r \t \b \f, other bytes below 0x20 as \u00XX
 * (lowercase hex). DEL (0x7f) and non-ASCII stay raw. The writer does not
 * check UTF-8: the caller guarantees s is valid UTF-8 (input text has passed
 * the scanner, which validates it), or the output is not valid JSON. */
MCPIDL_API void mcp_json_string(mcp_buf *b, const char *s, size_t n);
static inline void mcp_json_cstring(mcp_buf *b, const char *s);
/* Turn the raw bytes b->data[start..b->len) into a JSON string literal in place
 * (quotes added, escapes as mcp_json_string writes them). */
MCPIDL_API void mcp_json_string_in_place(mcp_buf *b, size_t start);
/* An integer, exactly. */
MCPIDL_API void mcp_json_int(mcp_buf *b, int64_t v);
/* A finite double as pydantic-core writes it: plain decimal when
 * 1e-5 <= |x| < 1e16 (or x == 0), shortest round-trip digits, ".0" when integral
 * ("16.2", "17.0", "0.00001", "-0.0"); otherwise d[.ddd]e[+-]N ("1e-7", "1e+16",
 * "1.5e+300"). Returns false (writes nothing) for NaN or infinities. */
MCPIDL_API bool mcp_json_double(mcp_buf *b, double v);
/* The shortest decimal digits that read back as |v| (v finite, nonzero; when
 * several digit strings of that length do, the one closest to v): digits into
 * out (NUL-terminated, no dot, no sign, no trailing zeros), *exp10 such that
 * |v| == 0.DIGITS * 10^exp10 after reading back. Returns the number of digits
 * (1..17), or 0 (out and *exp10 untouched) for 0, NaN and infinities.
 * Exposed for tests. */
MCPIDL_API int mcp_double_shortest(double v, char out[32], int *exp10);

static inline void mcp_json_cstring(mcp_buf *b, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    mcp_json_string(b, s, n);
}

MCPIDL_END_DECLS

#endif
