/* utf8.h (internal): UTF-8 (RFC 3629), the one decoder of the library.
 *
 * Valid means: no overlong forms, no surrogates (U+D800 to U+DFFF), nothing
 * beyond U+10FFFF. The sequence function is inline: the JSON scanner calls it
 * for every non-ASCII byte of its input. */
#ifndef MCPIDL_INTERNAL_UTF8_H
#define MCPIDL_INTERNAL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sequence at p[0..n) (n >= 1): its length (1 to 4) when valid, with
 * its code point in *cp (cp may be NULL); 0 when p[0] starts no valid
 * sequence; and, when `partial` is not NULL, *partial set when the bytes end
 * inside a sequence valid so far (0 returned). */
static inline size_t mcp_utf8_seq(const unsigned char *p, size_t n, uint32_t *cp, bool *partial)
{
    unsigned c = p[0];
    if (partial)
        *partial = false;
    if (c < 0x80) {
        if (cp)
            *cp = c;
        return 1;
    }
    size_t k;
    unsigned lo = 0x80, hi = 0xbf;
    uint32_t v;
    if (c >= 0xc2 && c <= 0xdf) {
        k = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        v = c & 0x0f;
        if (c == 0xe0)
            lo = 0xa0; /* overlong */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        v = c & 0x07;
        if (c == 0xf0)
            lo = 0x90; /* overlong */
        else if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else {
        return 0;
    }
    for (size_t i = 1; i < k; i++) {
        if (i >= n) {
            if (partial)
                *partial = true;
            return 0;
        }
        unsigned b = p[i];
        if (i == 1 ? (b < lo || b > hi) : (b & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (b & 0x3f);
    }
    if (cp)
        *cp = v;
    return k;
}

/* Whether s[0..n) is all valid UTF-8 (ASCII runs eight bytes at a time). */
bool mcp_utf8_valid(const char *s, size_t n);
/* The length of the longest valid prefix of s[0..n) (n when all is). */
size_t mcp_utf8_prefix(const char *s, size_t n);
/* The code points of valid text s[0..n) (its bytes that start a character). */
size_t mcp_utf8_chars(const char *s, size_t n);
/* cp (at most U+10FFFF, not a surrogate) as UTF-8 into out: its length. */
size_t mcp_utf8_encode(uint32_t cp, char out[4]);

#endif
