/* test_json_scan.c: the strict JSON scanner and validator. */
#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/json_scan.h"
#include "check_run.h"

/* Passing assertions cost a system call each in check's fork mode; the loops
 * below make millions, so they only call into check on failure. */
#define REQUIRE(cond, ...) \
    do { \
        if (!(cond)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* An exact-size heap copy, so that AddressSanitizer sees any read past len. */
static char *exact_copy(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    if (n)
        memcpy(p, s, n);
    return p;
}

/* The token stream of a text, one word per token:
 * { } [ ] k<raw> s<raw> i<int> b<digits> d<%.17g> T F N, then E or !<err>@<offset>. */
static char dump_buf[8192];
static size_t dump_len;
static void out(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void out(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(dump_buf + dump_len, sizeof dump_buf - dump_len, fmt, ap);
    va_end(ap);
    if (k > 0)
        dump_len += (size_t)k < sizeof dump_buf - dump_len ? (size_t)k : sizeof dump_buf - 1 - dump_len;
}

static const char *dump(const char *text, size_t n, const mcp_json_limits *lim)
{
    char *t = exact_copy(text, n);
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, t, n, lim);
    dump_len = 0;
    dump_buf[0] = 0;
#define OUT out
    for (size_t guard = 0; guard <= n + 2; guard++) {
        mcp_json_tok tok = mcp_json_next(&sc);
        if (dump_len)
            OUT(" ");
        switch (tok) {
        case MCP_JSON_OBJ_BEGIN:
            OUT("{");
            break;
        case MCP_JSON_OBJ_END:
            OUT("}");
            break;
        case MCP_JSON_ARR_BEGIN:
            OUT("[");
            break;
        case MCP_JSON_ARR_END:
            OUT("]");
            break;
        case MCP_JSON_KEY:
            OUT("k%.*s", (int)sc.tok.len, sc.tok.text);
            break;
        case MCP_JSON_STRING:
            OUT("s%.*s", (int)sc.tok.len, sc.tok.text);
            break;
        case MCP_JSON_INT:
            OUT("i%" PRId64, sc.tok.i);
            break;
        case MCP_JSON_BIGINT:
            OUT("b%.*s", (int)sc.tok.len, sc.tok.text);
            break;
        case MCP_JSON_FLOAT:
            OUT("d%.17g", sc.tok.d);
            break;
        case MCP_JSON_TRUE:
            OUT("T");
            break;
        case MCP_JSON_FALSE:
            OUT("F");
            break;
        case MCP_JSON_NULL:
            OUT("N");
            break;
        case MCP_JSON_END:
            OUT("E");
            goto done;
        case MCP_JSON_ERROR:
            OUT("!%d@%zu", (int)sc.err, sc.err_offset);
            goto done;
        }
    }
    OUT("(no end)");
done:
#undef OUT
    free(t);
    return dump_buf;
}

/* ---- the table ---------------------------------------------------------- */

/* Text (n = 0: strlen), then the expected: for valid text its token dump
 * (without the final " E"), else the error and its offset. */
typedef struct {
    const char *text;
    size_t n;
    const char *tokens;
    mcp_json_err err;
    size_t at;
} scase;

#define OK(t, toks) \
    { \
        t, 0, toks, MCP_JSON_OK, 0 \
    }
#define OKN(t, n, toks) \
    { \
        t, n, toks, MCP_JSON_OK, 0 \
    }
#define BAD(t, e, off) \
    { \
        t, 0, NULL, MCP_JSON_E_##e, off \
    }
#define BADN(t, n, e, off) \
    { \
        t, n, NULL, MCP_JSON_E_##e, off \
    }

static const scase cases[] = {
    /* scalars */
    OK("0", "i0"), OK("-0", "i0"), OK("7", "i7"), OK("123", "i123"), OK("-123", "i-123"),
    OK("9223372036854775807", "i9223372036854775807"), OK("9223372036854775808", "b9223372036854775808"),
    OK("-9223372036854775808", "i-9223372036854775808"), OK("-9223372036854775809", "b-9223372036854775809"),
    OK("18446744073709551615", "b18446744073709551615"), OK("18446744073709551616", "b18446744073709551616"),
    OK("99999999999999999999999", "b99999999999999999999999"), OK("1.5", "d1.5"), OK("-0.0", "d-0"),
    OK("0.1", "d0.10000000000000001"), OK("1e5", "d100000"), OK("1E5", "d100000"), OK("1e+5", "d100000"),
    OK("1e-5", "d1.0000000000000001e-05"), OK("-1.25E-2", "d-0.012500000000000001"),
    OK("123.456e-7", "d1.2345599999999999e-05"), OK("1.5e300", "d1.5000000000000001e+300"),
    OK("1.7976931348623157e308", "d1.7976931348623157e+308"), OK("1e-400", "d0"), OK("-1e-400", "d-0"),
    OK("4.9e-324", "d4.9406564584124654e-324"), OK("0e0", "d0"),
    OK("0.000000000000000000000000000000000000001", "d9.9999999999999993e-40"), OK("true", "T"), OK("false", "F"),
    OK("null", "N"),
    /* strings */
    OK("\"\"", "s"), OK("\"abc\"", "sabc"), OK("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "s\\\"\\\\\\/\\b\\f\\n\\r\\t"),
    OK("\"\\u00e9\\u00E9\"", "s\\u00e9\\u00E9"), OK("\"\\uD83D\\uDE00\"", "s\\uD83D\\uDE00"),
    OK("\"\\udbff\\udfff\"", "s\\udbff\\udfff"), OK("\"\\u0000\"", "s\\u0000"), OK("\"\xc3\xa9\"", "s\xc3\xa9"),
    OK("\"\xe2\x82\xac\"", "s\xe2\x82\xac"), OK("\"\xf0\x9f\x98\x80\"", "s\xf0\x9f\x98\x80"),
    OK("\"\xf4\x8f\xbf\xbf\"", "s\xf4\x8f\xbf\xbf"), /* U+10FFFF */
    OK("\"\xef\xbf\xbf\"", "s\xef\xbf\xbf"),         /* U+FFFF */
    OK("\"\xed\x9f\xbf\"", "s\xed\x9f\xbf"),         /* U+D7FF */
    OK("\"\xee\x80\x80\"", "s\xee\x80\x80"),         /* U+E000 */
    OK("\"\xc2\x80\"", "s\xc2\x80"),                 /* U+0080 */
    OK("\"\xe0\xa0\x80\"", "s\xe0\xa0\x80"),         /* U+0800 */
    OK("\"\xf0\x90\x80\x80\"", "s\xf0\x90\x80\x80"), /* U+10000 */
    OK("\"\x7f\"", "s\x7f"), OK("\"'\"", "s'"),
    /* containers and whitespace */
    OK("[]", "[ ]"), OK("{}", "{ }"), OK("[1,2,3]", "[ i1 i2 i3 ]"), OK("{\"a\":1}", "{ ka i1 }"),
    OK("{\"\":0}", "{ k i0 }"), OK(" \t\r\n[ 1 , \"x\" ,\n{ } ]\r\n ", "[ i1 sx { } ]"),
    OK("{ \"a\" : { \"b\" : [ true , false , null ] } , \"c\" : [ ] }", "{ ka { kb [ T F N ] } kc [ ] }"),
    OK("[[[]],[{}]]", "[ [ [ ] ] [ { } ] ]"), OK("{\"a\":1,\"\\u0062\":2}", "{ ka i1 k\\u0062 i2 }"),
    OK("[1.0,-2,3e2]", "[ d1 i-2 d300 ]"),

    /* empty */
    BAD("", EOF, 0), BAD("   ", EOF, 3),
    /* numbers */
    BAD("01", NUMBER, 1), BAD("-01", NUMBER, 2), BAD("00", NUMBER, 1), BAD("[01]", NUMBER, 2), BAD("+1", VALUE, 0),
    BAD(".5", VALUE, 0), BAD("1.", EOF, 2), BAD("[1.]", NUMBER, 3), BAD("1.x", NUMBER, 2), BAD("1.e5", NUMBER, 2),
    BAD("1e", EOF, 2), BAD("1e+", EOF, 3), BAD("[1e]", NUMBER, 3), BAD("1ex", NUMBER, 2), BAD("1e+-1", NUMBER, 3),
    BAD("-", EOF, 1), BAD("-a", NUMBER, 1), BAD("--1", NUMBER, 1), BAD("- 1", NUMBER, 1), BAD("0x10", TRAILING, 1),
    BAD("1 2", TRAILING, 2), BAD("NaN", VALUE, 0), BAD("Infinity", VALUE, 0), BAD("-Infinity", NUMBER, 1),
    BAD("nan", LITERAL, 0), BAD("1e400", NUMBER_RANGE, 0), BAD("-1e400", NUMBER_RANGE, 0),
    BAD("[1e309]", NUMBER_RANGE, 1), BAD("1.8e308", NUMBER_RANGE, 0), BAD("1e99999999999999999999", NUMBER_RANGE, 0),
    /* literals */
    BAD("tru", EOF, 3), BAD("trUe", LITERAL, 0), BAD("True", VALUE, 0), BAD("nul", EOF, 3), BAD("truex", TRAILING, 4),
    BAD("nulll", TRAILING, 4), BAD("[fals]", LITERAL, 1), BAD("undefined", VALUE, 0),
    /* comments */
    BAD("// c\n1", VALUE, 0), BAD("/* c */ 1", VALUE, 0), BAD("[1/*x*/]", COMMA, 2), BAD("1 // x", TRAILING, 2),
    BAD("# x\n1", VALUE, 0),
    /* commas */
    BAD("[1,]", TRAILING_COMMA, 3), BAD("[1, ]", TRAILING_COMMA, 4), BAD("{\"a\":1,}", TRAILING_COMMA, 7),
    BAD("[,]", VALUE, 1), BAD("[,1]", VALUE, 1), BAD("[1,,2]", VALUE, 3), BAD("{,}", KEY, 1),
    BAD("{\"a\":1,,\"b\":2}", KEY, 7),
    /* quotes */
    BAD("'a'", VALUE, 0), BAD("{'a':1}", KEY, 1), BAD("[\"a']", EOF, 5), BAD("{a:1}", KEY, 1),
    /* whitespace */
    BAD("\f1", VALUE, 0), BAD("\v1", VALUE, 0), BAD("[1,\xc2\xa0 2]", VALUE, 3),
    BAD("\xef\xbb\xbf"
        "1",
        VALUE, 0),
    BADN("1\0", 2, TRAILING, 1), BADN("\0", 1, VALUE, 0),
    /* after the value */
    BAD("{}{}", TRAILING, 2), BAD("[]]", TRAILING, 2), BAD("1,2", TRAILING, 1), BAD("\"a\" \"b\"", TRAILING, 4),
    /* structure */
    BAD("[", EOF, 1), BAD("[1", EOF, 2), BAD("[1,", EOF, 3), BAD("{", EOF, 1), BAD("{\"a\"", EOF, 4),
    BAD("{\"a\":", EOF, 5), BAD("{\"a\":1", EOF, 6), BAD("{\"a\" 1}", COLON, 5), BAD("{\"a\"=1}", COLON, 4),
    BAD("{\"a\":1 \"b\":2}", COMMA, 7), BAD("[1 2]", COMMA, 3), BAD("[1}", COMMA, 2), BAD("{\"a\":1]", COMMA, 6),
    BAD("{1:2}", KEY, 1), BAD("{\"a\"::1}", VALUE, 5), BAD("{\"a\":}", VALUE, 5), BAD("]", VALUE, 0),
    BAD("}", VALUE, 0), BAD(":", VALUE, 0), BAD("[\"a\":1]", COMMA, 4),
    /* strings */
    BAD("\"abc", EOF, 4), BAD("\"a\nb\"", CONTROL, 2), BAD("\"\t\"", CONTROL, 1), BAD("\"\x1f\"", CONTROL, 1),
    BADN("\"a\0\"", 4, CONTROL, 2), BAD("\"\\x41\"", ESCAPE, 1), BAD("\"\\a\"", ESCAPE, 1), BAD("\"\\'\"", ESCAPE, 1),
    BAD("\"\\U0041\"", ESCAPE, 1), BAD("\"\\u12\"", ESCAPE, 1), BAD("\"\\uZZZZ\"", ESCAPE, 1), BAD("\"\\u12", EOF, 5),
    BAD("\"\\", EOF, 2),
    /* surrogate escapes */
    BAD("\"\\uD800\"", SURROGATE, 1), BAD("\"\\uDC00\"", SURROGATE, 1), BAD("\"\\uDFFF\\uD800\"", SURROGATE, 1),
    BAD("\"x\\uD800\\u0041\"", SURROGATE, 2), BAD("\"\\uD800x\"", SURROGATE, 1),
    BAD("\"\\uD800\\uD800\"", SURROGATE, 1), BAD("\"\\uD800\\n\"", SURROGATE, 1), BAD("\"\\uD800\\uDC0G\"", ESCAPE, 7),
    BAD("\"\\uD800", EOF, 7), BAD("\"\\uD800\\", EOF, 8), BAD("\"\\uD800\\uDC", EOF, 11),
    /* UTF-8 */
    BAD("\"\xc0\x80\"", UTF8, 1),                                           /* overlong NUL */
    BAD("\"\xc1\xbf\"", UTF8, 1),                                           /* overlong 2-byte */
    BAD("\"\xe0\x80\x80\"", UTF8, 1),                                       /* overlong 3-byte */
    BAD("\"\xe0\x9f\xbf\"", UTF8, 1), BAD("\"\xf0\x80\x80\x80\"", UTF8, 1), /* overlong 4-byte */
    BAD("\"\xf0\x8f\xbf\xbf\"", UTF8, 1), BAD("\"\xed\xa0\x80\"", UTF8, 1), /* U+D800 */
    BAD("\"\xed\xbf\xbf\"", UTF8, 1),                                       /* U+DFFF */
    BAD("\"\xf4\x90\x80\x80\"", UTF8, 1),                                   /* U+110000 */
    BAD("\"\xf5\x80\x80\x80\"", UTF8, 1), BAD("\"\xf8\x88\x80\x80\x80\"", UTF8, 1), BAD("\"\xff\"", UTF8, 1),
    BAD("\"\xfe\"", UTF8, 1), BAD("\"\x80\"", UTF8, 1),  /* lone continuation */
    BAD("\"a\xbf\"", UTF8, 2), BAD("\"\xc3\"", UTF8, 1), /* cut short by the quote */
    BAD("\"\xe2\x82\"", UTF8, 1),
    BAD("\"\xe2\x82"
        "a\"",
        UTF8, 1),
    BAD("\"\xf0\x9f\x98\"", UTF8, 1), BAD("\"\xc3", EOF, 2),  /* cut short by the end */
    BAD("\"\xf0\x9f\x98", EOF, 4), BAD("\xc3\xa9", VALUE, 0), /* outside a string */
};

START_TEST(table)
{
    size_t ncases = sizeof cases / sizeof cases[0];
    ck_assert_uint_ge(ncases, 80);
    for (size_t i = 0; i < ncases; i++) {
        const scase *c = &cases[i];
        size_t n = c->n ? c->n : strlen(c->text);
        const char *got = dump(c->text, n, NULL);
        char want[1024];
        if (c->tokens)
            snprintf(want, sizeof want, "%s E", c->tokens);
        else
            snprintf(want, sizeof want, "!%d@%zu", (int)c->err, c->at);
        /* For errors only the last word matters; the tokens before it vary. */
        const char *tail = c->tokens ? got : strrchr(got, ' ') ? strrchr(got, ' ') + 1 : got;
        ck_assert_msg(strcmp(tail, want) == 0, "case %zu %s: got '%s' want '%s' (%s)", i, c->text, got, want,
                      c->tokens ? "" : mcp_json_error_str(c->err));
        /* The validator agrees. */
        char *t = exact_copy(c->text, n);
        size_t at = 12345;
        mcp_json_err e = mcp_json_validate(t, n, NULL, &at);
        free(t);
        ck_assert_msg(e == c->err && at == c->at, "case %zu %s: validate gives %d@%zu", i, c->text, (int)e, at);
    }
}
END_TEST

START_TEST(error_strings)
{
    for (int e = MCP_JSON_OK; e <= MCP_JSON_E_ARRAY_LIMIT; e++) {
        const char *s = mcp_json_error_str((mcp_json_err)e);
        ck_assert_ptr_nonnull(s);
        ck_assert_str_ne(s, "unknown error");
        for (int f = MCP_JSON_OK; f < e; f++)
            ck_assert_str_ne(s, mcp_json_error_str((mcp_json_err)f));
    }
    ck_assert_str_eq(mcp_json_error_str(MCP_JSON_E_EOF), "unexpected end of input");
    ck_assert_str_eq(mcp_json_error_str((mcp_json_err)999), "unknown error");
}
END_TEST

/* ---- token details ------------------------------------------------------ */

START_TEST(token_fields)
{
    const char *text = " {\"k\\n\": [12, -3.5e1, \"a\\u00e9\\ud83d\\ude00\\u0000\", 123456789012345678901]}";
    size_t n = strlen(text);
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, n, NULL);
    ck_assert_int_eq(sc.depth, 0);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_OBJ_BEGIN);
    ck_assert_uint_eq(sc.tok.offset, 1);
    ck_assert_int_eq(sc.depth, 1);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_KEY);
    ck_assert_uint_eq(sc.tok.offset, 2);
    ck_assert_uint_eq(sc.tok.len, 3);
    ck_assert_int_eq(memcmp(sc.tok.text, "k\\n", 3), 0);
    ck_assert(sc.tok.has_escapes);
    ck_assert(!sc.tok.has_nul);
    ck_assert_uint_eq(sc.tok.unescaped_len, 2);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ARR_BEGIN);
    ck_assert_uint_eq(sc.tok.offset, 9);
    ck_assert_int_eq(sc.depth, 2);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_INT);
    ck_assert_int_eq(sc.tok.i, 12);
    ck_assert_uint_eq(sc.tok.offset, 10);
    ck_assert_uint_eq(sc.tok.len, 2);
    ck_assert_int_eq(memcmp(sc.tok.text, "12", 2), 0);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_FLOAT);
    ck_assert(sc.tok.d == -35.0);
    ck_assert_uint_eq(sc.tok.offset, 14);
    ck_assert_uint_eq(sc.tok.len, 6);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_STRING);
    ck_assert(sc.tok.has_escapes);
    ck_assert(sc.tok.has_nul);
    /* a, é (2), 😀 (4), NUL (1) */
    ck_assert_uint_eq(sc.tok.unescaped_len, 8);
    char out[64];
    ck_assert_uint_le(sc.tok.len, sizeof out);
    size_t u = mcp_json_unescape(sc.tok.text, sc.tok.len, out);
    ck_assert_uint_eq(u, 8);
    ck_assert_int_eq(memcmp(out, "a\xc3\xa9\xf0\x9f\x98\x80\0", 8), 0);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_BIGINT);
    ck_assert_uint_eq(sc.tok.len, 21);
    ck_assert_int_eq(memcmp(sc.tok.text, "123456789012345678901", 21), 0);

    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ARR_END);
    ck_assert_int_eq(sc.depth, 1);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_OBJ_END);
    ck_assert_uint_eq(sc.tok.offset, n - 1);
    ck_assert_int_eq(sc.depth, 0);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_END);
    ck_assert_int_eq(sc.err, MCP_JSON_OK);
    /* END stays. */
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_END);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_END);
}
END_TEST

START_TEST(string_without_escapes)
{
    const char *text = "\"plain \xc3\xa9 text\"";
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, strlen(text), NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_STRING);
    ck_assert(!sc.tok.has_escapes);
    ck_assert(!sc.tok.has_nul);
    ck_assert_uint_eq(sc.tok.len, strlen(text) - 2);
    ck_assert_uint_eq(sc.tok.unescaped_len, sc.tok.len);
}
END_TEST

START_TEST(error_is_sticky)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, "[1,]", 4, NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ARR_BEGIN);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_INT);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ERROR);
    ck_assert_int_eq(sc.err, MCP_JSON_E_TRAILING_COMMA);
    ck_assert_uint_eq(sc.err_offset, 3);
    ck_assert_int_eq(sc.tok.kind, MCP_JSON_ERROR);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ERROR);
    ck_assert_int_eq(sc.err, MCP_JSON_E_TRAILING_COMMA);
    ck_assert_uint_eq(sc.err_offset, 3);
}
END_TEST

START_TEST(null_text)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, NULL, 0, NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ERROR);
    ck_assert_int_eq(sc.err, MCP_JSON_E_EOF);
    size_t at = 99;
    ck_assert_int_eq(mcp_json_validate(NULL, 0, NULL, &at), MCP_JSON_E_EOF);
    ck_assert_uint_eq(at, 0);
    ck_assert_int_eq(mcp_json_validate("1", 1, NULL, NULL), MCP_JSON_OK);
    at = 99;
    ck_assert_int_eq(mcp_json_validate("{}", 2, NULL, &at), MCP_JSON_OK);
    ck_assert_uint_eq(at, 0);
}
END_TEST

START_TEST(skip_values)
{
    const char *text = "{\"drop\":{\"a\":[1,{\"b\":[]}],\"c\":\"x\"},\"keep\":7,\"s\":\"y\"}";
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, text, strlen(text), NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_OBJ_BEGIN);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_KEY);
    mcp_json_tok t = mcp_json_next(&sc);
    ck_assert_int_eq(t, MCP_JSON_OBJ_BEGIN);
    ck_assert_int_eq(mcp_json_skip(&sc, t), MCP_JSON_OBJ_END);
    ck_assert_int_eq(sc.depth, 1);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_KEY);
    ck_assert_int_eq(memcmp(sc.tok.text, "keep", 4), 0);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_INT);
    ck_assert_int_eq(sc.tok.i, 7);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_KEY);
    t = mcp_json_next(&sc);
    ck_assert_int_eq(mcp_json_skip(&sc, t), MCP_JSON_STRING); /* a scalar: itself */
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_OBJ_END);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_END);

    /* An error inside the skipped value. */
    mcp_json_scan_init(&sc, "[[1,2,}]", 8, NULL);
    t = mcp_json_next(&sc);
    ck_assert_int_eq(mcp_json_skip(&sc, t), MCP_JSON_ERROR);
    ck_assert_int_eq(sc.err, MCP_JSON_E_VALUE);
    ck_assert_uint_eq(sc.err_offset, 6);
}
END_TEST

/* ---- unescaping --------------------------------------------------------- */

START_TEST(unescape)
{
    static const struct {
        const char *raw;
        const char *out;
        size_t n;
    } u[] = {
        {"", "", 0},
        {"abc", "abc", 3},
        {"\\\"\\\\\\/\\b\\f\\n\\r\\t", "\"\\/\b\f\n\r\t", 8},
        {"\\u0041\\u00e9\\u20AC", "A\xc3\xa9\xe2\x82\xac", 6},
        {"\\u007f\\u0080\\u07ff\\u0800\\uffff", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf", 11},
        {"\\ud83d\\ude00!", "\xf0\x9f\x98\x80!", 5},
        {"\\uDBFF\\uDFFF", "\xf4\x8f\xbf\xbf", 4},
        {"x\\u0000y", "x\0y", 3},
        {"\xc3\xa9\\n", "\xc3\xa9\n", 3},
        /* Not accepted by the scanner; still bounded. */
        {"\\ud800", "\xef\xbf\xbd", 3},
        {"\\ud800\\u0041",
         "\xef\xbf\xbd"
         "A",
         4},
        {"\\q", "\\q", 2},
        {"\\u12", "\\u12", 4},
        {"\\", "\\", 1},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        size_t n = strlen(u[i].raw);
        char *raw = exact_copy(u[i].raw, n);
        char *out = malloc(n ? n : 1);
        size_t got = mcp_json_unescape(raw, n, out);
        ck_assert_msg(got == u[i].n && memcmp(out, u[i].out, got) == 0, "case %zu (%s): %zu bytes", i, u[i].raw, got);
        free(raw);
        free(out);
    }
}
END_TEST

/* ---- depth -------------------------------------------------------------- */

static char *nested(int depth, char open, char close, size_t *n)
{
    char *s = malloc((size_t)depth * 2 + 1);
    for (int i = 0; i < depth; i++) {
        s[i] = open;
        s[depth * 2 - 1 - i] = close;
    }
    *n = (size_t)depth * 2;
    return s;
}

/* {"a":{"a":...1...}} */
static char *nested_objects(int depth, size_t *n)
{
    char *o = malloc((size_t)depth * 6 + 8);
    size_t k = 0;
    for (int i = 0; i < depth; i++) {
        memcpy(o + k, "{\"a\":", 5);
        k += 5;
    }
    o[k++] = '1';
    for (int i = 0; i < depth; i++)
        o[k++] = '}';
    *n = k;
    return o;
}

START_TEST(depth_limit)
{
    size_t n, at;
    /* The default, 128: arrays. */
    char *s = nested(128, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_OK);
    free(s);
    s = nested(129, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_E_DEPTH);
    ck_assert_uint_eq(at, 128);
    free(s);
    /* Objects: {"a":{"a":...}} */
    for (int depth = 127; depth <= 129; depth++) {
        size_t k;
        char *o = nested_objects(depth, &k);
        mcp_json_err e = mcp_json_validate(o, k, NULL, &at);
        if (depth <= 128) {
            ck_assert_int_eq(e, MCP_JSON_OK);
        } else {
            ck_assert_int_eq(e, MCP_JSON_E_DEPTH);
            ck_assert_uint_eq(at, 128 * 5);
        }
        free(o);
    }
    /* String and array lengths: tokens up to the limit, then the error. */
    mcp_json_limits sl = {.max_string = 3, .max_array = 2};
    char want[64];
    ck_assert_str_eq(dump("[\"abc\",[1,2]]", 13, &sl), "[ sabc [ i1 i2 ] ] E");
    snprintf(want, sizeof want, "[ !%d@1", (int)MCP_JSON_E_STRING_LIMIT);
    ck_assert_str_eq(dump("[\"abcd\"]", 8, &sl), want);
    snprintf(want, sizeof want, "{ !%d@1", (int)MCP_JSON_E_STRING_LIMIT);
    ck_assert_str_eq(dump("{\"abcd\":1}", 10, &sl), want);
    ck_assert_str_eq(dump("[[1,2],[3]]", 11, &sl), "[ [ i1 i2 ] [ i3 ] ] E");
    snprintf(want, sizeof want, "[ [ i1 i2 ] [ i3 ] !%d@11", (int)MCP_JSON_E_ARRAY_LIMIT);
    ck_assert_str_eq(dump("[[1,2],[3],4]", 13, &sl), want);
    snprintf(want, sizeof want, "!%d@0", (int)MCP_JSON_E_STRING_LIMIT);
    ck_assert_str_eq(dump("\"abcd\"", 6, &sl), want);
    ck_assert_int_eq(mcp_json_validate("[\"a\",\"b\",\"c\"]", 13, &sl, &at), MCP_JSON_E_ARRAY_LIMIT);
    ck_assert_uint_eq(at, 9);
    ck_assert_int_eq(mcp_json_validate("{\"k\":\"\\u20ac\"}", 14, &sl, &at), MCP_JSON_OK);
    ck_assert_int_eq(mcp_json_validate("{\"k\":\"\\u20ac!\"}", 15, &sl, &at), MCP_JSON_E_STRING_LIMIT);
    ck_assert_uint_eq(at, 5);
    /* Other limits, mixed containers. */
    mcp_json_limits lim = {.max_depth = 3};
    ck_assert_int_eq(mcp_json_validate("[{\"a\":[1]}]", 11, &lim, &at), MCP_JSON_OK);
    ck_assert_int_eq(mcp_json_validate("[{\"a\":[[1]]}]", 13, &lim, &at), MCP_JSON_E_DEPTH);
    ck_assert_uint_eq(at, 7);
    ck_assert_int_eq(mcp_json_validate("[[[]],[[]],[[]]]", 16, &lim, &at), MCP_JSON_OK);
    lim.max_depth = 1;
    ck_assert_int_eq(mcp_json_validate("[1]", 3, &lim, &at), MCP_JSON_OK);
    ck_assert_int_eq(mcp_json_validate("[[1]]", 5, &lim, &at), MCP_JSON_E_DEPTH);
    ck_assert_int_eq(mcp_json_validate("7", 1, &lim, &at), MCP_JSON_OK);
    /* <= 0: the default. */
    lim.max_depth = 0;
    s = nested(128, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_OK);
    free(s);
    s = nested(129, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_E_DEPTH);
    free(s);
    /* Above the cap: the cap. */
    lim.max_depth = MCP_JSON_DEPTH_CAP * 2;
    s = nested(MCP_JSON_DEPTH_CAP, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_OK);
    free(s);
    s = nested(MCP_JSON_DEPTH_CAP + 1, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_E_DEPTH);
    ck_assert_uint_eq(at, MCP_JSON_DEPTH_CAP);
    free(s);
    /* Deep objects at the cap: the validator's per-object stack grows. */
    s = nested_objects(MCP_JSON_DEPTH_CAP, &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_OK);
    free(s);
    s = nested_objects(MCP_JSON_DEPTH_CAP + 1, &n);
    ck_assert_int_eq(mcp_json_validate(s, n, &lim, &at), MCP_JSON_E_DEPTH);
    ck_assert_uint_eq(at, MCP_JSON_DEPTH_CAP * 5);
    free(s);
    /* A million open brackets: the depth error, quickly. */
    s = nested(1000000, '[', ']', &n);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_E_DEPTH);
    ck_assert_uint_eq(at, 128);
    free(s);
}
END_TEST

/* ---- duplicate keys ----------------------------------------------------- */

START_TEST(duplicates_small)
{
    static const struct {
        const char *text;
        mcp_json_err err;
        size_t at;
    } d[] = {
        {"{\"a\":1,\"a\":2}", MCP_JSON_E_DUPLICATE_KEY, 7},
        {"{\"a\":1,\"b\":2,\"a\":3}", MCP_JSON_E_DUPLICATE_KEY, 13},
        {"{\"a\":1,\"\\u0061\":2}", MCP_JSON_E_DUPLICATE_KEY, 7},
        {"{\"\\n\":1,\"\\u000a\":2}", MCP_JSON_E_DUPLICATE_KEY, 8},
        {"{\"\xc3\xa9\":1,\"\\u00e9\":2}", MCP_JSON_E_DUPLICATE_KEY, 8},
        {"{\"\\ud83d\\ude00\":1,\"\xf0\x9f\x98\x80\":2}", MCP_JSON_E_DUPLICATE_KEY, 18},
        {"{\"\":1,\"\":2}", MCP_JSON_E_DUPLICATE_KEY, 6},
        {"{\"a\":1,\"A\":2,\"a \":3,\"\\u0000\":4,\"\":5}", MCP_JSON_OK, 0},
        /* Same key in different objects is fine. */
        {"{\"a\":{\"a\":1},\"b\":{\"a\":2},\"c\":[{\"a\":3},{\"a\":4}]}", MCP_JSON_OK, 0},
        /* In an inner object. */
        {"[{\"x\":1},{\"y\":1,\"y\":2}]", MCP_JSON_E_DUPLICATE_KEY, 16},
        /* The first in text order: the outer one, found when the inner closes. */
        {"{\"a\":1,\"a\":2,\"b\":{\"c\":1,\"c\":2}}", MCP_JSON_E_DUPLICATE_KEY, 7},
        {"{\"x\":{\"c\":1,\"c\":2},\"x\":3}", MCP_JSON_E_DUPLICATE_KEY, 12},
        /* Outer keys around an inner object. */
        {"{\"a\":1,\"b\":{\"z\":0},\"a\":2}", MCP_JSON_E_DUPLICATE_KEY, 19},
        {"{\"\\u0061\":1,\"b\":{\"\\u007a\":0,\"z2\":1},\"a\":2}", MCP_JSON_E_DUPLICATE_KEY, 36},
        /* A duplicate before a syntax error wins, one after it does not. */
        {"{\"a\":1,\"a\":2,]", MCP_JSON_E_DUPLICATE_KEY, 7},
        {"{\"a\":1,\"b\":[1,}", MCP_JSON_E_VALUE, 14},
        {"{\"a\":[1,},\"a\":1}", MCP_JSON_E_VALUE, 8},
        /* In an enclosing open object at a syntax error. */
        {"{\"k\":1,\"k\":2,\"o\":{\"p\":tru", MCP_JSON_E_DUPLICATE_KEY, 7},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        size_t n = strlen(d[i].text);
        char *t = exact_copy(d[i].text, n);
        size_t at = 12345;
        mcp_json_err e = mcp_json_validate(t, n, NULL, &at);
        ck_assert_msg(e == d[i].err && at == d[i].at, "case %zu %s: %s@%zu", i, d[i].text, mcp_json_error_str(e), at);
        free(t);
    }
}
END_TEST

/* {"k0":0,"k1":1,...} with nkeys keys; when dup >= 0, one more key "k<dup>"
 * at the end; *dup_at its offset. */
static char *many_keys(int nkeys, int dup, size_t *n, size_t *dup_at)
{
    size_t cap = (size_t)nkeys * 24 + 64, k = 0;
    char *s = malloc(cap);
    s[k++] = '{';
    for (int i = 0; i < nkeys; i++)
        k += (size_t)snprintf(s + k, cap - k, "%s\"k%d\":%d", i ? "," : "", i, i);
    if (dup >= 0) {
        s[k++] = ',';
        *dup_at = k;
        k += (size_t)snprintf(s + k, cap - k, "\"k%d\":0", dup);
    }
    s[k++] = '}';
    *n = k;
    return s;
}

START_TEST(duplicates_many_keys)
{
    size_t n, at, dup_at = 0;
    char *s = many_keys(100000, -1, &n, &dup_at);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_OK);
    free(s);
    s = many_keys(100000, 4242, &n, &dup_at);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_E_DUPLICATE_KEY);
    ck_assert_uint_eq(at, dup_at);
    free(s);
    /* The duplicate of the first and of the last key. */
    s = many_keys(100000, 0, &n, &dup_at);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_E_DUPLICATE_KEY);
    ck_assert_uint_eq(at, dup_at);
    free(s);
    s = many_keys(100000, 99999, &n, &dup_at);
    ck_assert_int_eq(mcp_json_validate(s, n, NULL, &at), MCP_JSON_E_DUPLICATE_KEY);
    ck_assert_uint_eq(at, dup_at);
    free(s);
    /* 100,000 keys that are all the same: the second one is reported. */
    size_t cap = 100000 * 8 + 8, k = 0;
    s = malloc(cap);
    s[k++] = '{';
    for (int i = 0; i < 100000; i++) {
        memcpy(s + k, i ? ",\"aa\":1" : "\"aa\":1", i ? 7 : 6);
        k += i ? 7 : 6;
    }
    s[k++] = '}';
    ck_assert_int_eq(mcp_json_validate(s, k, NULL, &at), MCP_JSON_E_DUPLICATE_KEY);
    ck_assert_uint_eq(at, 8); /* {"aa":1,"aa" */
    free(s);
}
END_TEST

START_TEST(many_small_objects)
{
    /* 100,000 objects in an array, each with the same two keys. */
    size_t cap = 100000 * 16 + 8, k = 0, at;
    char *s = malloc(cap);
    s[k++] = '[';
    for (int i = 0; i < 100000; i++)
        k += (size_t)snprintf(s + k, cap - k, "%s{\"a\":%d,\"b\":1}", i ? "," : "", i % 10);
    s[k++] = ']';
    ck_assert_int_eq(mcp_json_validate(s, k, NULL, &at), MCP_JSON_OK);
    free(s);
}
END_TEST

/* ---- truncation and mutation -------------------------------------------- */

static const char *const documents[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"get_weather\","
    "\"arguments\":{\"city\":\"Z\\u00fcrich \xc3\xa9\xf0\x9f\x98\x80\",\"days\":[1,2,-3],"
    "\"t\":-16.25e-1,\"big\":123456789012345678901234,\"ok\":true,\"no\":false,\"n\":null,"
    "\"esc\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\ud83d\\ude00\",\"e\":{},\"a\":[]}}}",
    "[0, -0.5, 1E+2, \"\", [[]], {\"\": {\"a\": [null]}}]",
    " { \"a\" : [ 1 , 2 ] }\n",
    "\"just a string with \\u00e9 and \xe2\x82\xac\"",
};

START_TEST(every_prefix_fails)
{
    for (size_t d = 0; d < sizeof documents / sizeof documents[0]; d++) {
        const char *doc = documents[d];
        size_t n = strlen(doc);
        size_t at;
        /* The whole is valid, trailing whitespace aside. */
        ck_assert_int_eq(mcp_json_validate(doc, n, NULL, &at), MCP_JSON_OK);
        size_t end = n;
        while (end > 0 && strchr(" \n", doc[end - 1]))
            end--;
        for (size_t k = 0; k < end; k++) {
            char *t = exact_copy(doc, k);
            mcp_json_err e = mcp_json_validate(t, k, NULL, &at);
            REQUIRE(e != MCP_JSON_OK, "document %zu, prefix %zu accepted", d, k);
            REQUIRE(at <= k, "document %zu, prefix %zu: offset %zu", d, k, at);
            /* The scanner ends too, in an error. */
            mcp_json_scanner sc;
            mcp_json_scan_init(&sc, t, k, NULL);
            mcp_json_tok tok;
            size_t guard = 0;
            while ((tok = mcp_json_next(&sc)) != MCP_JSON_ERROR && tok != MCP_JSON_END)
                REQUIRE(++guard <= k + 1, "document %zu, prefix %zu: no end", d, k);
            REQUIRE(tok == MCP_JSON_ERROR, "document %zu, prefix %zu: END", d, k);
            free(t);
        }
    }
}
END_TEST

static uint64_t rng_state = 0x853c49e6748fea9bu;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* Scan t[0..n) to the end, checking what every token says about itself. */
static mcp_json_err scan_checked(const char *t, size_t n, size_t iter)
{
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, t, n, NULL);
    char *buf = malloc(n ? n : 1);
    for (size_t guard = 0;; guard++) {
        REQUIRE(guard <= n + 1, "mutation %zu: no end", iter);
        mcp_json_tok tok = mcp_json_next(&sc);
        REQUIRE(sc.depth >= 0 && sc.depth <= MCP_JSON_DEFAULT_MAX_DEPTH, "mutation %zu: depth", iter);
        if (tok == MCP_JSON_END) {
            free(buf);
            return MCP_JSON_OK;
        }
        if (tok == MCP_JSON_ERROR) {
            REQUIRE(sc.err != MCP_JSON_OK && sc.err_offset <= n, "mutation %zu: error", iter);
            free(buf);
            return sc.err;
        }
        REQUIRE(sc.tok.offset < n, "mutation %zu: offset", iter);
        if (sc.tok.text) {
            REQUIRE(sc.tok.text >= t && sc.tok.text + sc.tok.len <= t + n, "mutation %zu: text", iter);
        }
        if (tok == MCP_JSON_STRING || tok == MCP_JSON_KEY) {
            size_t u = mcp_json_unescape(sc.tok.text, sc.tok.len, buf);
            REQUIRE(u == sc.tok.unescaped_len, "mutation %zu: unescaped %zu vs %zu", iter, u, sc.tok.unescaped_len);
            REQUIRE(sc.tok.has_nul == (memchr(buf, 0, u) != NULL), "mutation %zu: has_nul", iter);
            REQUIRE(sc.tok.has_escapes == (memchr(sc.tok.text, '\\', sc.tok.len) != NULL), "mutation %zu: has_escapes",
                    iter);
            /* Decoded text is valid UTF-8 again: it scans as a string. */
            char *q = malloc(u + 2);
            bool clean = true;
            for (size_t i = 0; i < u; i++)
                if ((unsigned char)buf[i] < 0x20 || buf[i] == '"' || buf[i] == '\\')
                    clean = false;
            if (clean) {
                q[0] = '"';
                memcpy(q + 1, buf, u);
                q[u + 1] = '"';
                mcp_json_scanner s2;
                mcp_json_scan_init(&s2, q, u + 2, NULL);
                REQUIRE(mcp_json_next(&s2) == MCP_JSON_STRING, "mutation %zu: decoded", iter);
            }
            free(q);
        }
        if (tok == MCP_JSON_FLOAT)
            REQUIRE(isfinite(sc.tok.d), "mutation %zu: float", iter);
    }
}

START_TEST(random_mutations)
{
    static const char interesting[] = "{}[]\",:\\0123456789eE.+-tfnu \t\n/'";
    size_t accepted = 0;
    for (size_t iter = 0; iter < 20000; iter++) {
        const char *doc = documents[iter % (sizeof documents / sizeof documents[0])];
        size_t n = strlen(doc);
        char *m = malloc(n + 8); /* room for four inserts */
        memcpy(m, doc, n);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t pos = n ? rng() % n : 0;
            uint64_t r = rng();
            char c = (r & 1) ? interesting[(r >> 8) % (sizeof interesting - 1)] : (char)(unsigned char)(r >> 16);
            switch ((r >> 32) % 4) {
            case 0: /* replace */
            case 1:
                if (n)
                    m[pos] = c;
                break;
            case 2: /* insert */
                memmove(m + pos + 1, m + pos, n - pos);
                m[pos] = c;
                n++;
                break;
            case 3: /* delete, or cut short */
                if (n && (r >> 40) % 8 == 0) {
                    n = pos;
                } else if (n) {
                    memmove(m + pos, m + pos + 1, n - pos - 1);
                    n--;
                }
                break;
            }
        }
        char *t = exact_copy(m, n);
        free(m);
        size_t at = SIZE_MAX;
        mcp_json_err e = mcp_json_validate(t, n, NULL, &at);
        REQUIRE(e == MCP_JSON_OK ? at == 0 : at <= n, "mutation %zu: offset %zu of %zu", iter, at, n);
        /* The tokenizer agrees, duplicates aside. */
        mcp_json_err s = scan_checked(t, n, iter);
        REQUIRE(s == e || (e == MCP_JSON_E_DUPLICATE_KEY), "mutation %zu: scan %d, validate %d", iter, (int)s, (int)e);
        if (e == MCP_JSON_OK)
            accepted++;
        free(t);
    }
    /* Some mutations keep the text valid (a digit for a digit, ...). */
    ck_assert_uint_gt(accepted, 100);
    ck_assert_uint_lt(accepted, 20000);
}
END_TEST

/* Random bytes, not derived from JSON at all. */
START_TEST(random_bytes)
{
    for (size_t iter = 0; iter < 20000; iter++) {
        size_t n = rng() % 64;
        char *t = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rng();
            t[i] = (r & 3) ? "[]{}\":,0-1.e\\u \"a"[(r >> 8) % 17] : (char)(unsigned char)(r >> 16);
        }
        size_t at;
        mcp_json_err e = mcp_json_validate(t, n, NULL, &at);
        mcp_json_err s = scan_checked(t, n, iter);
        REQUIRE(s == e || e == MCP_JSON_E_DUPLICATE_KEY, "bytes %zu", iter);
        free(t);
    }
}
END_TEST

/* ---- floats ------------------------------------------------------------- */

START_TEST(float_values)
{
    /* Literal -> the double strtod gives for the same decimal. */
    static const char *const lits[] = {
        "0.1",
        "0.2",
        "0.30000000000000004",
        "1.7976931348623157e308",
        "2.2250738585072014e-308",
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "9007199254740993.0",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "1.00000000000000011102230246251565404236316680908203126",
        "123456789012345678901234567890.5",
        "-0.0000000000000000000000000000123e-5",
        "1e-320",
        "7.2057594037927933e16",
        "1E-0",
        "0.0e100000",
        "1e-99999999",
    };
    for (size_t i = 0; i < sizeof lits / sizeof lits[0]; i++) {
        size_t n = strlen(lits[i]);
        mcp_json_scanner sc;
        char *t = exact_copy(lits[i], n);
        mcp_json_scan_init(&sc, t, n, NULL);
        ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_FLOAT);
        double want = strtod(lits[i], NULL);
        ck_assert_msg(memcmp(&sc.tok.d, &want, sizeof want) == 0, "%s: %a, want %a", lits[i], sc.tok.d, want);
        free(t);
    }
}
END_TEST

START_TEST(float_long_literals)
{
    /* More digits than the scanner keeps, on each side of a rounding midpoint:
     * 1 + 2^-53 (exactly between 1 and the next double) with a tail. */
    const char *mid = "1.00000000000000011102230246251565404236316680908203125";
    for (int tail = 0; tail < 3; tail++) {
        size_t zeros = 2000;
        size_t n = strlen(mid) + zeros + 1;
        char *t = malloc(n + 1);
        memcpy(t, mid, strlen(mid));
        memset(t + strlen(mid), '0', zeros);
        t[n - 1] = tail == 0 ? '0' : '1';
        t[n] = 0;
        double want = strtod(t, NULL);
        mcp_json_scanner sc;
        mcp_json_scan_init(&sc, t, n, NULL);
        ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_FLOAT);
        ck_assert_msg(sc.tok.d == want, "tail %d: %a want %a", tail, sc.tok.d, want);
        ck_assert(tail == 0 ? sc.tok.d == 1.0 : sc.tok.d > 1.0);
        free(t);
    }
    /* Many leading zeros, then digits: 0.000...0001 with 5000 zeros. */
    size_t n = 2 + 5000 + 1;
    char *t = malloc(n + 1);
    memcpy(t, "0.", 2);
    memset(t + 2, '0', 5000);
    t[n - 1] = '1';
    t[n] = 0;
    mcp_json_scanner sc;
    mcp_json_scan_init(&sc, t, n, NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_FLOAT);
    ck_assert(sc.tok.d == 0.0);
    free(t);
    /* A 5000-digit integer part with a fraction: out of range. */
    t = malloc(5003);
    memset(t, '9', 5000);
    memcpy(t + 5000, ".5", 2);
    mcp_json_scan_init(&sc, t, 5002, NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_ERROR);
    ck_assert_int_eq(sc.err, MCP_JSON_E_NUMBER_RANGE);
    free(t);
    /* 300 digits and e-10: in range. */
    t = malloc(310);
    t[0] = '1';
    memset(t + 1, '0', 299);
    memcpy(t + 300, ".0e-10", 6);
    mcp_json_scan_init(&sc, t, 306, NULL);
    ck_assert_int_eq(mcp_json_next(&sc), MCP_JSON_FLOAT);
    ck_assert(sc.tok.d == 1e289);
    free(t);
}
END_TEST

static Suite *scan_suite(void)
{
    Suite *s = suite_create("json_scan");
    TCase *t = tcase_create("tokens");
    tcase_add_test(t, table);
    tcase_add_test(t, error_strings);
    tcase_add_test(t, token_fields);
    tcase_add_test(t, string_without_escapes);
    tcase_add_test(t, error_is_sticky);
    tcase_add_test(t, null_text);
    tcase_add_test(t, skip_values);
    tcase_add_test(t, unescape);
    tcase_add_test(t, float_values);
    tcase_add_test(t, float_long_literals);
    suite_add_tcase(s, t);
    TCase *v = tcase_create("validate");
    tcase_set_timeout(v, 120);
    tcase_add_test(v, depth_limit);
    tcase_add_test(v, duplicates_small);
    tcase_add_test(v, duplicates_many_keys);
    tcase_add_test(v, many_small_objects);
    tcase_add_test(v, every_prefix_fails);
    tcase_add_test(v, random_mutations);
    tcase_add_test(v, random_bytes);
    suite_add_tcase(s, v);
    return s;
}

int main(void)
{
    int failed = check_run(scan_suite(), true);
    return failed != 0;
}
