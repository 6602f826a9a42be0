/* json_scan.c: the strict RFC 8259 tokenizer. */
#include "internal/utf8.h"
#include "internal/json_scan.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mcp_json_error_str(mcp_json_err err)
{
    switch (err) {
    case MCP_JSON_OK:
        return "no error";
    case MCP_JSON_E_EOF:
        return "unexpected end of input";
    case MCP_JSON_E_VALUE:
        return "expected a value";
    case MCP_JSON_E_LITERAL:
        return "invalid literal";
    case MCP_JSON_E_KEY:
        return "expected a string key";
    case MCP_JSON_E_COLON:
        return "expected ':' after the key";
    case MCP_JSON_E_COMMA:
        return "expected ',' or the closing bracket";
    case MCP_JSON_E_TRAILING_COMMA:
        return "trailing comma";
    case MCP_JSON_E_NUMBER:
        return "invalid number";
    case MCP_JSON_E_NUMBER_RANGE:
        return "number out of range";
    case MCP_JSON_E_CONTROL:
        return "unescaped control character in a string";
    case MCP_JSON_E_ESCAPE:
        return "invalid escape sequence";
    case MCP_JSON_E_SURROGATE:
        return "unpaired surrogate escape";
    case MCP_JSON_E_UTF8:
        return "invalid UTF-8";
    case MCP_JSON_E_DEPTH:
        return "nesting too deep";
    case MCP_JSON_E_TRAILING:
        return "unexpected text after the value";
    case MCP_JSON_E_DUPLICATE_KEY:
        return "duplicate key";
    case MCP_JSON_E_NOMEM:
        return "out of memory";
    case MCP_JSON_E_STRING_LIMIT:
        return "string too long";
    case MCP_JSON_E_ARRAY_LIMIT:
        return "too many array elements";
    case MCP_JSON_E_VALUE_LIMIT:
        return "too many values";
    }
    return "unknown error";
}

/* What the scanner expects next. */
enum {
    ST_VALUE,     /* the top-level value */
    ST_ARR_FIRST, /* a value or ']' */
    ST_OBJ_FIRST, /* a key or '}' */
    ST_COLON,     /* ':' and a value */
    ST_AFTER,     /* ',' or the closing bracket; the end at depth 0 */
    ST_DONE,
    ST_ERROR,
};

void mcp_json_scan_init(mcp_json_scanner *sc, const char *text, size_t len, const mcp_json_limits *lim)
{
    /* items[] is large (32 KiB) and written before it is read. */
    memset(sc, 0, offsetof(mcp_json_scanner, items));
    sc->text = text ? text : "";
    sc->len = text ? len : 0;
    int max = lim ? lim->max_depth : 0;
    if (max <= 0)
        max = MCP_JSON_DEFAULT_MAX_DEPTH;
    if (max > MCP_JSON_DEPTH_CAP)
        max = MCP_JSON_DEPTH_CAP;
    sc->max_depth = max;
    sc->max_string = lim && lim->max_string ? lim->max_string : SIZE_MAX;
    sc->max_array = lim && lim->max_array ? lim->max_array : SIZE_MAX;
    sc->max_values = lim && lim->max_values ? lim->max_values : SIZE_MAX;
    sc->state = ST_VALUE;
}

static mcp_json_tok fail(mcp_json_scanner *sc, mcp_json_err err, size_t at)
{
    sc->err = err;
    sc->err_offset = at;
    sc->state = ST_ERROR;
    sc->tok.kind = MCP_JSON_ERROR;
    return MCP_JSON_ERROR;
}

static mcp_json_tok emit(mcp_json_scanner *sc, mcp_json_tok kind)
{
    sc->tok.kind = kind;
    return kind;
}

static void skip_ws(mcp_json_scanner *sc)
{
    const char *t = sc->text;
    size_t p = sc->pos, n = sc->len;
    while (p < n && (t[p] == ' ' || t[p] == '\n' || t[p] == '\r' || t[p] == '\t'))
        p++;
    sc->pos = p;
}

static bool in_array(const mcp_json_scanner *sc)
{
    int d = sc->depth - 1;
    return (sc->is_array[d / 64] >> (d % 64)) & 1;
}

/* ---- containers --------------------------------------------------------- */

static mcp_json_tok open_container(mcp_json_scanner *sc, bool array)
{
    if (sc->depth >= sc->max_depth)
        return fail(sc, MCP_JSON_E_DEPTH, sc->pos);
    int d = sc->depth++;
    sc->items[d] = 0;
    uint64_t bit = (uint64_t)1 << (d % 64);
    if (array)
        sc->is_array[d / 64] |= bit;
    else
        sc->is_array[d / 64] &= ~bit;
    sc->pos++;
    sc->state = array ? ST_ARR_FIRST : ST_OBJ_FIRST;
    return emit(sc, array ? MCP_JSON_ARR_BEGIN : MCP_JSON_OBJ_BEGIN);
}

static mcp_json_tok close_container(mcp_json_scanner *sc)
{
    bool array = in_array(sc);
    sc->depth--;
    sc->pos++;
    sc->state = ST_AFTER;
    return emit(sc, array ? MCP_JSON_ARR_END : MCP_JSON_OBJ_END);
}

/* ---- literals ----------------------------------------------------------- */

static mcp_json_tok literal(mcp_json_scanner *sc, const char *word, size_t n, mcp_json_tok kind)
{
    size_t start = sc->pos;
    for (size_t i = 0; i < n; i++) {
        if (start + i >= sc->len)
            return fail(sc, MCP_JSON_E_EOF, sc->len);
        if (sc->text[start + i] != word[i])
            return fail(sc, MCP_JSON_E_LITERAL, start);
    }
    sc->pos = start + n;
    sc->state = ST_AFTER;
    return emit(sc, kind);
}

/* ---- numbers ------------------------------------------------------------ */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The value of a float literal p[0..n) that has passed the grammar, without
 * the locale's decimal point: the digits go to strtod as "DIGITSeEXP". At most
 * KEEP significant digits are kept, then one '1' when any dropped digit is
 * nonzero: every midpoint between two doubles has fewer than 770 significant
 * digits, so the rounding comes out the same. */
enum { KEEP = 780 };

static double float_value(const char *p, size_t n)
{
    char buf[KEEP + 40];
    size_t k = 0, i = 0;
    bool neg = false, sticky = false;
    long long exp10 = 0; /* value = DIGITS * 10^exp10 */
    if (p[i] == '-') {
        neg = true;
        i++;
    }
    bool frac = false;
    for (; i < n && (is_digit(p[i]) || p[i] == '.'); i++) {
        if (p[i] == '.') {
            frac = true;
            continue;
        }
        if (frac)
            exp10--;
        if (k == 0 && p[i] == '0')
            continue; /* leading zero */
        if (k < KEEP) {
            buf[k++] = p[i];
        } else {
            exp10++; /* dropped: one more power of ten */
            if (p[i] != '0')
                sticky = true;
        }
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        bool eneg = false;
        if (p[i] == '+' || p[i] == '-')
            eneg = p[i++] == '-';
        long long e = 0;
        for (; i < n; i++)
            if (e < 1000000000)
                e = e * 10 + (p[i] - '0');
        exp10 += eneg ? -e : e;
    }
    if (k == 0)
        return neg ? -0.0 : 0.0;
    if (sticky) {
        buf[k++] = '1';
        exp10--;
    }
    /* With at most KEEP + 1 digits, beyond these the result is 0 or inf anyway. */
    if (exp10 > 100000)
        exp10 = 100000;
    if (exp10 < -100000)
        exp10 = -100000;
    snprintf(buf + k, sizeof buf - k, "e%lld", exp10);
    double v = strtod(buf, NULL);
    return neg ? -v : v;
}

static mcp_json_tok number(mcp_json_scanner *sc)
{
    const char *t = sc->text;
    size_t n = sc->len, p = sc->pos, start = p;
    bool neg = false, big = false, is_float = false;
    uint64_t mag = 0;
    if (t[p] == '-') {
        neg = true;
        if (++p == n)
            return fail(sc, MCP_JSON_E_EOF, n);
    }
    if (t[p] == '0') {
        p++;
        if (p < n && is_digit(t[p]))
            return fail(sc, MCP_JSON_E_NUMBER, p); /* leading zero */
    } else if (is_digit(t[p])) {
        for (; p < n && is_digit(t[p]); p++) {
            unsigned d = (unsigned)(t[p] - '0');
            if (mag > (UINT64_MAX - d) / 10)
                big = true;
            else
                mag = mag * 10 + d;
        }
    } else {
        return fail(sc, MCP_JSON_E_NUMBER, p);
    }
    if (p < n && t[p] == '.') {
        is_float = true;
        if (++p == n)
            return fail(sc, MCP_JSON_E_EOF, n);
        if (!is_digit(t[p]))
            return fail(sc, MCP_JSON_E_NUMBER, p);
        while (p < n && is_digit(t[p]))
            p++;
    }
    if (p < n && (t[p] == 'e' || t[p] == 'E')) {
        is_float = true;
        if (++p < n && (t[p] == '+' || t[p] == '-'))
            p++;
        if (p == n)
            return fail(sc, MCP_JSON_E_EOF, n);
        if (!is_digit(t[p]))
            return fail(sc, MCP_JSON_E_NUMBER, p);
        while (p < n && is_digit(t[p]))
            p++;
    }
    sc->tok.text = t + start;
    sc->tok.len = p - start;
    sc->pos = p;
    sc->state = ST_AFTER;
    if (is_float) {
        double d = float_value(t + start, p - start);
        if (!isfinite(d))
            return fail(sc, MCP_JSON_E_NUMBER_RANGE, start);
        sc->tok.d = d;
        return emit(sc, MCP_JSON_FLOAT);
    }
    if (!big && !neg && mag <= (uint64_t)INT64_MAX) {
        sc->tok.i = (int64_t)mag;
        return emit(sc, MCP_JSON_INT);
    }
    if (!big && neg && mag <= (uint64_t)INT64_MAX + 1) {
        sc->tok.i = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
        return emit(sc, MCP_JSON_INT);
    }
    return emit(sc, MCP_JSON_BIGINT);
}

/* ---- strings ------------------------------------------------------------ */

/* Bytes that need no look: printable ASCII other than '"' and '\\'. */
static const bool plain_byte[256] = {
#define R8(x) x, x, x, x, x, x, x, x
    /* 0x00-0x1f: control */
    R8(0),
    R8(0),
    R8(0),
    R8(0),
    /* 0x20-0x3f: '"' is 0x22 */
    1,
    1,
    0,
    1,
    1,
    1,
    1,
    1,
    R8(1),
    R8(1),
    R8(1),
    /* 0x40-0x5f: '\\' is 0x5c */
    R8(1),
    R8(1),
    R8(1),
    1,
    1,
    1,
    1,
    0,
    1,
    1,
    1,
    /* 0x60-0x7f */
    R8(1),
    R8(1),
    R8(1),
    R8(1),
/* 0x80-0xff: UTF-8, checked on its own */
#undef R8
};

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p (avail bytes there): the value; -1 when a digit is
 * not hex; -2 when the text ends first. */
static long hex4(const char *p, size_t avail)
{
    long v = 0;
    for (size_t i = 0; i < 4; i++) {
        if (i >= avail)
            return -2;
        int h = hex_val(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The length of the UTF-8 sequence at p (avail bytes, p[0] >= 0x80) when it
 * is valid; 0 when it is not; -1 when the text ends inside a sequence valid
 * so far. */
static inline int utf8_seq(const unsigned char *p, size_t avail)
{
    bool partial;
    size_t k = mcp_utf8_seq(p, avail, NULL, &partial);
    return partial ? -1 : (int)k;
}

static int utf8_len(long cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3; }

/* The escape at t[*p] (a '\\'): checked, *p past it, its decoded length
 * added to *ulen. MCP_JSON_OK, or the error and where (*at). */
static mcp_json_err escape(const unsigned char *t, size_t n, size_t *p, size_t *ulen, bool *nul, size_t *at)
{
    size_t q = *p;
    *at = q;
    if (q + 1 >= n) {
        *at = n;
        return MCP_JSON_E_EOF;
    }
    switch (t[q + 1]) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't':
        *ulen += 1;
        *p = q + 2;
        return MCP_JSON_OK;
    case 'u':
        break;
    default:
        return MCP_JSON_E_ESCAPE;
    }
    long cp = hex4((const char *)t + q + 2, n - q - 2);
    if (cp == -2)
        *at = n;
    if (cp < 0)
        return cp == -2 ? MCP_JSON_E_EOF : MCP_JSON_E_ESCAPE;
    q += 6;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return MCP_JSON_E_SURROGATE;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        /* Must be followed by the escape of a low surrogate. */
        if (q >= n || (q + 1 >= n && t[q] == '\\')) {
            *at = n;
            return MCP_JSON_E_EOF;
        }
        if (t[q] != '\\' || t[q + 1] != 'u')
            return MCP_JSON_E_SURROGATE;
        long lo = hex4((const char *)t + q + 2, n - q - 2);
        if (lo < 0) {
            *at = lo == -2 ? n : q;
            return lo == -2 ? MCP_JSON_E_EOF : MCP_JSON_E_ESCAPE;
        }
        if (lo < 0xdc00 || lo > 0xdfff)
            return MCP_JSON_E_SURROGATE;
        *ulen += 4;
        *p = q + 6;
        return MCP_JSON_OK;
    }
    if (cp == 0)
        *nul = true;
    *ulen += (size_t)utf8_len(cp);
    *p = q;
    return MCP_JSON_OK;
}

static mcp_json_tok string(mcp_json_scanner *sc, mcp_json_tok kind)
{
    const unsigned char *t = (const unsigned char *)sc->text;
    size_t n = sc->len, p = sc->pos + 1;
    size_t ulen = 0;
    bool esc = false, nul = false;
    for (;;) {
        size_t run = p;
        while (p < n && plain_byte[t[p]])
            p++;
        ulen += p - run;
        if (p >= n)
            return fail(sc, MCP_JSON_E_EOF, n);
        unsigned c = t[p];
        if (c == '"')
            break;
        if (c == '\\') {
            esc = true;
            size_t at;
            mcp_json_err err = escape(t, n, &p, &ulen, &nul, &at);
            if (err != MCP_JSON_OK)
                return fail(sc, err, at);
            continue;
        }
        if (c < 0x20)
            return fail(sc, MCP_JSON_E_CONTROL, p);
        int k = utf8_seq(t + p, n - p);
        if (k < 0)
            return fail(sc, MCP_JSON_E_EOF, n);
        if (k == 0)
            return fail(sc, MCP_JSON_E_UTF8, p);
        p += (size_t)k;
        ulen += (size_t)k;
    }
    if (ulen > sc->max_string)
        return fail(sc, MCP_JSON_E_STRING_LIMIT, sc->pos);
    sc->tok.text = sc->text + sc->pos + 1;
    sc->tok.len = p - sc->pos - 1;
    sc->tok.unescaped_len = ulen;
    sc->tok.has_escapes = esc;
    sc->tok.has_nul = nul;
    sc->pos = p + 1;
    sc->state = kind == MCP_JSON_KEY ? ST_COLON : ST_AFTER;
    return emit(sc, kind);
}

/* ---- the token loop ----------------------------------------------------- */

static mcp_json_tok value(mcp_json_scanner *sc)
{
    if (sc->pos >= sc->len)
        return fail(sc, MCP_JSON_E_EOF, sc->len);
    sc->tok.offset = sc->pos;
    /* An element of the array open here: counted before it is judged, so
     * that the limit is reported where the element beyond it starts. */
    if (sc->depth > 0 && in_array(sc) && ++sc->items[sc->depth - 1] > sc->max_array)
        return fail(sc, MCP_JSON_E_ARRAY_LIMIT, sc->pos);
    if (++sc->nvalues > sc->max_values)
        return fail(sc, MCP_JSON_E_VALUE_LIMIT, sc->pos);
    switch (sc->text[sc->pos]) {
    case '{':
        return open_container(sc, false);
    case '[':
        return open_container(sc, true);
    case '"':
        return string(sc, MCP_JSON_STRING);
    case 't':
        return literal(sc, "true", 4, MCP_JSON_TRUE);
    case 'f':
        return literal(sc, "false", 5, MCP_JSON_FALSE);
    case 'n':
        return literal(sc, "null", 4, MCP_JSON_NULL);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return number(sc);
    default:
        return fail(sc, MCP_JSON_E_VALUE, sc->pos);
    }
}

/* A key, at sc->pos after whitespace; what a '}' there means is the caller's. */
static mcp_json_tok key(mcp_json_scanner *sc, bool after_comma)
{
    if (sc->pos >= sc->len)
        return fail(sc, MCP_JSON_E_EOF, sc->len);
    char c = sc->text[sc->pos];
    if (c == '"') {
        sc->tok.offset = sc->pos;
        return string(sc, MCP_JSON_KEY);
    }
    if (c == '}' && after_comma)
        return fail(sc, MCP_JSON_E_TRAILING_COMMA, sc->pos);
    return fail(sc, MCP_JSON_E_KEY, sc->pos);
}

mcp_json_tok mcp_json_next(mcp_json_scanner *sc)
{
    if (sc->state == ST_ERROR)
        return MCP_JSON_ERROR;
    memset(&sc->tok, 0, sizeof sc->tok);
    skip_ws(sc);
    sc->tok.offset = sc->pos;
    switch (sc->state) {
    case ST_VALUE:
        return value(sc);
    case ST_ARR_FIRST:
        if (sc->pos < sc->len && sc->text[sc->pos] == ']')
            return close_container(sc);
        return value(sc);
    case ST_OBJ_FIRST:
        if (sc->pos < sc->len && sc->text[sc->pos] == '}')
            return close_container(sc);
        return key(sc, false);
    case ST_COLON:
        if (sc->pos >= sc->len)
            return fail(sc, MCP_JSON_E_EOF, sc->len);
        if (sc->text[sc->pos] != ':')
            return fail(sc, MCP_JSON_E_COLON, sc->pos);
        sc->pos++;
        skip_ws(sc);
        return value(sc);
    case ST_AFTER:
        if (sc->depth == 0) {
            if (sc->pos < sc->len)
                return fail(sc, MCP_JSON_E_TRAILING, sc->pos);
            sc->state = ST_DONE;
            return emit(sc, MCP_JSON_END);
        }
        if (sc->pos >= sc->len)
            return fail(sc, MCP_JSON_E_EOF, sc->len);
        char c = sc->text[sc->pos];
        bool array = in_array(sc);
        if (c == (array ? ']' : '}'))
            return close_container(sc);
        if (c != ',')
            return fail(sc, MCP_JSON_E_COMMA, sc->pos);
        sc->pos++;
        skip_ws(sc);
        if (!array)
            return key(sc, true);
        if (sc->pos < sc->len && sc->text[sc->pos] == ']')
            return fail(sc, MCP_JSON_E_TRAILING_COMMA, sc->pos);
        return value(sc);
    case ST_DONE:
    default:
        return emit(sc, MCP_JSON_END);
    }
}

mcp_json_tok mcp_json_skip(mcp_json_scanner *sc, mcp_json_tok t)
{
    if (t != MCP_JSON_OBJ_BEGIN && t != MCP_JSON_ARR_BEGIN)
        return t;
    int target = sc->depth - 1;
    for (;;) {
        t = mcp_json_next(sc);
        if (t == MCP_JSON_ERROR)
            return t;
        if ((t == MCP_JSON_OBJ_END || t == MCP_JSON_ARR_END) && sc->depth == target)
            return t;
    }
}

/* ---- unescaping --------------------------------------------------------- */

static size_t put_utf8(char *out, long cp) { return mcp_utf8_encode((uint32_t)cp, out); }

size_t mcp_json_unescape(const char *raw, size_t n, char *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        char c = raw[i];
        if (c != '\\' || i + 1 >= n) {
            out[o++] = c;
            i++;
            continue;
        }
        char e = raw[i + 1];
        char simple = 0;
        switch (e) {
        case '"':
            simple = '"';
            break;
        case '\\':
            simple = '\\';
            break;
        case '/':
            simple = '/';
            break;
        case 'b':
            simple = '\b';
            break;
        case 'f':
            simple = '\f';
            break;
        case 'n':
            simple = '\n';
            break;
        case 'r':
            simple = '\r';
            break;
        case 't':
            simple = '\t';
            break;
        default:
            break;
        }
        if (simple) {
            out[o++] = simple;
            i += 2;
            continue;
        }
        long cp = e == 'u' ? hex4(raw + i + 2, n - i - 2) : -1;
        if (cp < 0) {
            out[o++] = c; /* not an escape the scanner accepts: copy */
            i++;
            continue;
        }
        i += 6;
        if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < n && raw[i] == '\\' && raw[i + 1] == 'u') {
            long lo = hex4(raw + i + 2, n - i - 2);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 6;
            }
        }
        if (cp >= 0xd800 && cp <= 0xdfff)
            cp = 0xfffd; /* a lone surrogate, which the scanner rejects */
        o += put_utf8(out + o, cp);
    }
    return o;
}
