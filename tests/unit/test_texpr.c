/* test_texpr.c: the type-expression lexer (texpr_lex.re) and parser (texpr_parse.c). */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "texpr.h"
#include "check_run.h"

/* A string literal with its length, embedded NUL bytes included. */
#define S(lit) lit, sizeof(lit) - 1

/* An assertion for hot loops: check's ck_assert records every passing check
 * (a write per call), too slow for the robustness tests' millions of checks. */
#define REQUIRE(cond) \
    do { \
        if (!(cond)) \
            ck_abort_msg("%s:%d: %s", __FILE__, __LINE__, #cond); \
    } while (0)

/* ---- helpers ------------------------------------------------------------- */

/* The canonical form of a tree: `list[dict[str, int]]`, `Literal['a', 1, True]`,
 * `(a | b) | c`. Strings are single-quoted with escapes for quotes, backslashes
 * and control bytes; an overflowed integer is followed by '!'. */
static void show(mcp_buf *b, const texpr *t)
{
    if (t->parenthesized)
        mcp_buf_putc(b, '(');
    switch (t->kind) {
    case TEXPR_NAME:
        mcp_buf_puts(b, t->name);
        break;
    case TEXPR_GENERIC:
    case TEXPR_LITERAL:
    case TEXPR_UNION:
        if (t->kind != TEXPR_UNION) {
            mcp_buf_puts(b, t->name);
            mcp_buf_putc(b, '[');
        }
        for (size_t i = 0; i < t->nargs; i++) {
            if (i)
                mcp_buf_puts(b, t->kind == TEXPR_UNION ? " | " : ", ");
            show(b, t->args[i]);
        }
        if (t->kind != TEXPR_UNION)
            mcp_buf_putc(b, ']');
        break;
    case TEXPR_STRING:
        mcp_buf_putc(b, '\'');
        for (size_t i = 0; i < t->len; i++) {
            unsigned char c = (unsigned char)t->str[i];
            switch (c) {
            case '\\':
                mcp_buf_puts(b, "\\\\");
                break;
            case '\'':
                mcp_buf_puts(b, "\\'");
                break;
            case '\n':
                mcp_buf_puts(b, "\\n");
                break;
            case '\t':
                mcp_buf_puts(b, "\\t");
                break;
            case '\r':
                mcp_buf_puts(b, "\\r");
                break;
            default:
                if (c < 0x20 || c == 0x7F)
                    mcp_buf_printf(b, "\\x%02x", c);
                else
                    mcp_buf_putc(b, (char)c);
            }
        }
        mcp_buf_putc(b, '\'');
        break;
    case TEXPR_INT:
        mcp_buf_printf(b, "%" PRId64 "%s", t->ival, t->overflow ? "!" : "");
        break;
    case TEXPR_ELLIPSIS:
        mcp_buf_puts(b, "...");
        break;
    }
    if (t->parenthesized)
        mcp_buf_putc(b, ')');
}

/* The tree with extents: kind@off-end(args), kinds N G U L S I E; a
 * parenthesized node is marked with 'p'. */
static void show_ext(mcp_buf *b, const texpr *t)
{
    static const char kinds[] = "NGULSIE";
    mcp_buf_printf(b, "%c%s@%zu-%zu", kinds[t->kind], t->parenthesized ? "p" : "", t->off, t->end);
    if (t->kind == TEXPR_GENERIC || t->kind == TEXPR_LITERAL || t->kind == TEXPR_UNION) {
        mcp_buf_putc(b, '(');
        for (size_t i = 0; i < t->nargs; i++) {
            if (i)
                mcp_buf_putc(b, ' ');
            show_ext(b, t->args[i]);
        }
        mcp_buf_putc(b, ')');
    }
}

typedef struct result {
    bool ok;
    char text[4096]; /* canonical form, or the error message */
    size_t off;      /* error offset */
} result;

static result parse(const char *src, size_t len, size_t max_depth, bool extents)
{
    result r = {0};
    mcp_arena a;
    mcp_arena_init(&a);
    texpr_error err;
    texpr *t = texpr_parse(&a, src, len, max_depth, &err);
    if (t) {
        mcp_buf b;
        mcp_buf_init(&b);
        if (extents)
            show_ext(&b, t);
        else
            show(&b, t);
        ck_assert(!b.oom);
        r.ok = true;
        snprintf(r.text, sizeof r.text, "%s", b.data);
        mcp_buf_free(&b);
    } else {
        r.ok = false;
        r.off = err.off;
        snprintf(r.text, sizeof r.text, "%s", err.message);
    }
    mcp_arena_free(&a);
    return r;
}

/* ---- lexer --------------------------------------------------------------- */

/* All tokens of src as "NAME:list LBRACKET ... END@9"; an error as
 * "ERROR@off:message". Stops after END (checking that END repeats). */
static void lex_all(const char *src, size_t len, char *out, size_t n)
{
    static const char *names[] = {"END", "ERROR", "NAME", "INT", "STRING", "[", "]", "(", ")", ",", "|", "..."};
    texpr_lexer lx;
    texpr_lex_init(&lx, src, len);
    size_t used = 0;
    out[0] = '\0';
    for (int guard = 0; guard < 1000; guard++) {
        texpr_tok t = texpr_lex_next(&lx);
        ck_assert_uint_le(lx.tok_off, lx.tok_end);
        ck_assert_uint_le(lx.tok_end, len);
        const char *sep = used ? " " : "";
        int w;
        switch (t) {
        case TOK_END:
            w = snprintf(out + used, n - used, "%sEND@%zu", sep, lx.tok_off);
            ck_assert_uint_eq(lx.tok_off, len);
            ck_assert_int_eq(texpr_lex_next(&lx), TOK_END);
            return;
        case TOK_ERROR:
            w = snprintf(out + used, n - used, "%sERROR@%zu:%s", sep, lx.tok_off, lx.error);
            break;
        case TOK_NAME:
        case TOK_INT:
        case TOK_STRING:
            w = snprintf(out + used, n - used, "%s%s:%.*s", sep, names[t], (int)(lx.tok_end - lx.tok_off),
                         src + lx.tok_off);
            break;
        default:
            w = snprintf(out + used, n - used, "%s%s", sep, names[t]);
            break;
        }
        ck_assert(w > 0 && (size_t)w < n - used);
        used += (size_t)w;
    }
    ck_abort_msg("the lexer does not reach the end");
}

static const struct lex_case {
    const char *src;
    size_t len;
    const char *want;
} lex_cases[] = {
    {S(""), "END@0"},
    {S(" \t\r\n "), "END@5"},
    {S("list[int]"), "NAME:list [ NAME:int ] END@9"},
    {S("dict[ str ,float ]"), "NAME:dict [ NAME:str , NAME:float ] END@18"},
    {S("a|b|None"), "NAME:a | NAME:b | NAME:None END@8"},
    {S("(A)"), "( NAME:A ) END@3"},
    {S("tuple[int,...]"), "NAME:tuple [ NAME:int , ... ] END@14"},
    {S("a...b"), "NAME:a ... NAME:b END@5"},
    {S("...."), "... ERROR@3:unexpected character '.' END@4"},
    {S(".."), "ERROR@0:unexpected character '.' ERROR@1:unexpected character '.' END@2"},
    {S("_x9 X_1 __"), "NAME:_x9 NAME:X_1 NAME:__ END@10"},
    {S("9x"), "INT:9 NAME:x END@2"},
    {S("-12abc +0 007"), "INT:-12 NAME:abc INT:+0 INT:007 END@13"},
    {S("- 1"), "ERROR@0:unexpected character '-' INT:1 END@3"},
    {S("-"), "ERROR@0:unexpected character '-' END@1"},
    {S("99999999999999999999999"), "INT:99999999999999999999999 END@23"},
    {S("'a' \"b\""), "STRING:'a' STRING:\"b\" END@7"},
    {S("'it\\'s' \"q\\\"\""), "STRING:'it\\'s' STRING:\"q\\\"\" END@13"},
    {S("'say \"hi\"' \"it's\""), "STRING:'say \"hi\"' STRING:\"it's\" END@17"},
    {S("''"), "STRING:'' END@2"},
    {S("'\\\\' '\\n\\t\\r\\0' '\\x41\\u00e9'"), "STRING:'\\\\' STRING:'\\n\\t\\r\\0' STRING:'\\x41\\u00e9' END@28"},
    {S("'\xc3\xa9t\xc3\xa9' '\xf0\x9f\x98\x80'"), "STRING:'\xc3\xa9t\xc3\xa9' STRING:'\xf0\x9f\x98\x80' END@14"},
    {S("'tab\there'"), "STRING:'tab\there' END@10"},
    {S("'abc"), "ERROR@0:unterminated string END@4"},
    {S("x 'abc"), "NAME:x ERROR@2:unterminated string END@6"},
    {S("'abc\""), "ERROR@0:unterminated string END@5"},
    {S("'ab\\'"), "ERROR@0:unterminated string END@5"},
    {S("'ab\\"), "ERROR@0:unterminated string END@4"},
    {S("'a\nb'"), "ERROR@0:unterminated string END@5"},
    {S("'a\rb'"), "ERROR@0:unterminated string END@5"},
    {S("'a\\qb'"), "ERROR@2:unknown escape '\\q' END@6"},
    {S("'a\\\x01'"), "ERROR@2:unknown escape: '\\' followed by byte 0x01 END@5"},
    {S("'\\x4'"), "ERROR@1:'\\x' must be followed by two hex digits END@5"},
    {S("'\\xg0'"), "ERROR@1:'\\x' must be followed by two hex digits END@6"},
    {S("'\\u12'"), "ERROR@1:'\\u' must be followed by four hex digits END@6"},
    {S("'\\ud800'"), "ERROR@1:'\\ud800' is a surrogate, not a character END@8"},
    {S("'\\uDFFF'"), "ERROR@1:'\\uDFFF' is a surrogate, not a character END@8"},
    {S("'\\012'"), "ERROR@1:octal escapes are not supported; write '\\xHH' END@6"},
    {S("'\\U0001F600'"), "ERROR@1:unknown escape '\\U' END@12"},
    {S("'a\x01'"), "ERROR@2:control character 0x01 in a string; write it as an escape END@4"},
    {S("'a\0b'"), "ERROR@2:control character 0x00 in a string; write it as an escape END@5"},
    {S("'\xc3'"), "ERROR@1:invalid UTF-8 byte 0xC3 in a string END@3"},
    {S("'\xed\xa0\x80'"), "ERROR@1:invalid UTF-8 byte 0xED in a string END@5"},
    {S("'\xc0\xaf'"), "ERROR@1:invalid UTF-8 byte 0xC0 in a string END@4"},
    {S("'\xf4\x90\x80\x80'"), "ERROR@1:invalid UTF-8 byte 0xF4 in a string END@6"},
    {S("'\xe2\x82'"), "ERROR@1:invalid UTF-8 byte 0xE2 in a string END@4"},
    {S("x\0y"), "NAME:x ERROR@1:unexpected byte 0x00 NAME:y END@3"},
    {S("\0"), "ERROR@0:unexpected byte 0x00 END@1"},
    {S("a@b"), "NAME:a ERROR@1:unexpected character '@' NAME:b END@3"},
    {S("\\"), "ERROR@0:unexpected character '\\' END@1"},
    {S("\xc3\xa9"), "ERROR@0:unexpected byte 0xC3 ERROR@1:unexpected byte 0xA9 END@2"},
    {S("\x7f\x01\f\v"), "ERROR@0:unexpected byte 0x7F ERROR@1:unexpected byte 0x01 "
                        "ERROR@2:unexpected byte 0x0C ERROR@3:unexpected byte 0x0B END@4"},
    {S("{}"), "ERROR@0:unexpected character '{' ERROR@1:unexpected character '}' END@2"},
};

START_TEST(lex_tokens)
{
    const struct lex_case *c = &lex_cases[_i];
    char got[1024];
    lex_all(c->src, c->len, got, sizeof got);
    ck_assert_msg(strcmp(got, c->want) == 0, "case %d: got [%s], want [%s]", _i, got, c->want);
}
END_TEST

/* The lexer never reads past len: a buffer whose last byte would continue a token. */
START_TEST(lex_bounds)
{
    char *buf = malloc(4);
    memcpy(buf, "ab[c", 4);
    char got[256];
    lex_all(buf, 2, got, sizeof got); /* "ab", not "ab[c" */
    ck_assert_str_eq(got, "NAME:ab END@2");
    memcpy(buf, "'ab'", 4);
    lex_all(buf, 3, got, sizeof got);
    ck_assert_str_eq(got, "ERROR@0:unterminated string END@3");
    memcpy(buf, "...", 3);
    lex_all(buf, 2, got, sizeof got);
    ck_assert_str_eq(got, "ERROR@0:unexpected character '.' ERROR@1:unexpected character '.' END@2");
    free(buf);
    lex_all(NULL, 0, got, sizeof got);
    ck_assert_str_eq(got, "END@0");
}
END_TEST

START_TEST(lex_string_values)
{
    static const struct {
        const char *src;
        size_t len;
        const char *want;
        size_t wlen;
    } cases[] = {
        {S("''"), S("")},
        {S("'abc'"), S("abc")},
        {S("\"a'b\""), S("a'b")},
        {S("'a\\'b\\\"c\\\\d'"), S("a'b\"c\\d")},
        {S("'\\n\\t\\r\\0x'"), S("\n\t\r\0x")},
        {S("'\\x41\\x7e\\x00'"), S("A~\0")},
        {S("'\\xe9\\xE9\\xff'"), S("\xc3\xa9\xc3\xa9\xc3\xbf")},
        {S("'\\u0041\\u00e9\\u20AC\\uffff\\u0000'"), S("A\xc3\xa9\xe2\x82\xac\xef\xbf\xbf\0")},
        {S("'\xc3\xa9\xf0\x9f\x98\x80\t'"), S("\xc3\xa9\xf0\x9f\x98\x80\t")},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        texpr_lexer lx;
        texpr_lex_init(&lx, cases[i].src, cases[i].len);
        ck_assert_int_eq(texpr_lex_next(&lx), TOK_STRING);
        ck_assert_uint_eq(lx.tok_off, 0);
        ck_assert_uint_eq(lx.tok_end, cases[i].len);
        char out[64];
        memset(out, 'Z', sizeof out);
        size_t n = texpr_lex_string(&lx, out);
        ck_assert_msg(n == cases[i].wlen && memcmp(out, cases[i].want, n) == 0, "case %zu", i);
        ck_assert_uint_le(n, lx.tok_end - lx.tok_off);
        ck_assert_int_eq(texpr_lex_next(&lx), TOK_END);
    }
    /* Not a string token. */
    texpr_lexer lx;
    texpr_lex_init(&lx, "abc", 3);
    ck_assert_int_eq(texpr_lex_next(&lx), TOK_NAME);
    char out[8];
    ck_assert_uint_eq(texpr_lex_string(&lx, out), 0);
}
END_TEST

/* Every single byte alone, and after a backslash in a string. */
START_TEST(lex_every_byte)
{
    for (int c = 0; c < 256; c++) {
        char src[1] = {(char)c};
        texpr_lexer lx;
        texpr_lex_init(&lx, src, 1);
        texpr_tok t = texpr_lex_next(&lx);
        texpr_tok want;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            want = TOK_END;
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
            want = TOK_NAME;
        else if (c >= '0' && c <= '9')
            want = TOK_INT;
        else if (c == '[')
            want = TOK_LBRACKET;
        else if (c == ']')
            want = TOK_RBRACKET;
        else if (c == '(')
            want = TOK_LPAREN;
        else if (c == ')')
            want = TOK_RPAREN;
        else if (c == ',')
            want = TOK_COMMA;
        else if (c == '|')
            want = TOK_PIPE;
        else
            want = TOK_ERROR; /* quotes: unterminated strings */
        ck_assert_msg(t == want, "byte 0x%02X: token %d, want %d", (unsigned)c, (int)t, (int)want);
        if (t == TOK_ERROR) {
            ck_assert_uint_eq(lx.tok_off, 0);
            ck_assert(lx.error[0] != '\0');
        }
        ck_assert_int_eq(texpr_lex_next(&lx), TOK_END);

        /* '\c' */
        char esc[4] = {'\'', '\\', (char)c, '\''};
        texpr_lex_init(&lx, esc, 4);
        t = texpr_lex_next(&lx);
        bool known = c == '\\' || c == '\'' || c == '"' || c == 'n' || c == 't' || c == 'r' || c == '0';
        if (known) {
            ck_assert_msg(t == TOK_STRING, "escape 0x%02X", (unsigned)c);
        } else {
            ck_assert_msg(t == TOK_ERROR, "escape 0x%02X accepted", (unsigned)c);
            ck_assert_uint_eq(lx.tok_off, 1);
        }
    }
}
END_TEST

/* Whether s[0..n) is valid UTF-8 (surrogates and overlongs excluded). */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], need, min, cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC0 && c < 0xE0) {
            need = 1, min = 0x80, cp = c & 0x1F;
        } else if (c >= 0xE0 && c < 0xF0) {
            need = 2, min = 0x800, cp = c & 0x0F;
        } else if (c >= 0xF0 && c < 0xF8) {
            need = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i <= need)
            return false;
        for (unsigned k = 1; k <= need; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += need + 1;
    }
    return true;
}

/* Lex src to the end: progress, bounds, and every string decodes to UTF-8. */
static void lex_fuzz(const char *src, size_t len)
{
    texpr_lexer lx;
    texpr_lex_init(&lx, src, len);
    size_t last = 0;
    for (size_t steps = 0;; steps++) {
        REQUIRE(steps <= len + 1);
        texpr_tok t = texpr_lex_next(&lx);
        REQUIRE(lx.tok_off <= lx.tok_end);
        REQUIRE(lx.tok_end <= len);
        if (t == TOK_END)
            break;
        REQUIRE(lx.pos > last); /* always progresses */
        last = lx.pos;
        if (t == TOK_ERROR) {
            REQUIRE(lx.error[0] != '\0');
            REQUIRE(lx.tok_off < len);
        }
        if (t == TOK_STRING) {
            size_t room = lx.tok_end - lx.tok_off;
            char *out = malloc(room);
            size_t n = texpr_lex_string(&lx, out);
            REQUIRE(n <= room - 2);
            REQUIRE(valid_utf8((const unsigned char *)out, n));
            free(out);
        }
    }
}

/* ---- parser: accepted expressions ---------------------------------------- */

static const struct ok_case {
    const char *src;
    size_t len;
    const char *want;
} ok_cases[] = {
    /* Every form in IDL.md's table. */
    {S("int"), "int"},
    {S("float"), "float"},
    {S("str"), "str"},
    {S("bool"), "bool"},
    {S("bytes"), "bytes"},
    {S("None"), "None"},
    {S("any"), "any"},
    {S("Any"), "Any"},
    {S("content"), "content"},
    {S("list[int]"), "list[int]"},
    {S("List[int]"), "List[int]"},
    {S("set[str]"), "set[str]"},
    {S("tuple[int, str, float]"), "tuple[int, str, float]"},
    {S("tuple[int, ...]"), "tuple[int, ...]"},
    {S("Tuple[int,...]"), "Tuple[int, ...]"},
    {S("dict[str, float]"), "dict[str, float]"},
    {S("dict[int, WeatherData]"), "dict[int, WeatherData]"},
    {S("Optional[str]"), "Optional[str]"},
    {S("str | None"), "str | None"},
    {S("Union[int, str]"), "Union[int, str]"},
    {S("int | str"), "int | str"},
    {S("Literal['a', 'b']"), "Literal['a', 'b']"},
    {S("Literal[1, 2]"), "Literal[1, 2]"},
    {S("Literal[True]"), "Literal[True]"},
    {S("WeatherData"), "WeatherData"},
    /* Nesting. */
    {S("list[WeatherData]"), "list[WeatherData]"},
    {S("list[dict[str, int]]"), "list[dict[str, int]]"},
    {S("dict[str, list[tuple[int, ...]] | None]"), "dict[str, list[tuple[int, ...]] | None]"},
    {S("Optional[Union[list[int], dict[str, set[float]]]]"), "Optional[Union[list[int], dict[str, set[float]]]]"},
    {S("list[int | None]"), "list[int | None]"},
    {S("tuple[int | str, ...]"), "tuple[int | str, ...]"},
    {S("list[Literal['x'] | None]"), "list[Literal['x'] | None]"},
    {S("Foo[Bar[Baz[Qux]]]"), "Foo[Bar[Baz[Qux]]]"},
    /* The parser does not judge arities or positions of '...'. */
    {S("tuple[..., int]"), "tuple[..., int]"},
    {S("list[...]"), "list[...]"},
    {S("dict[str]"), "dict[str]"},
    {S("int[str]"), "int[str]"},
    {S("Optional[int, str]"), "Optional[int, str]"},
    /* Unions and parentheses, kept as written. */
    {S("a | b | c"), "a | b | c"},
    {S("A | (B | C)"), "A | (B | C)"},
    {S("(a | b) | c"), "(a | b) | c"},
    {S("(a | b)"), "(a | b)"},
    {S("(int)"), "(int)"},
    {S("((int))"), "(int)"},
    {S("list[(int)]"), "list[(int)]"},
    {S("(list[int]) | (None)"), "(list[int]) | (None)"},
    {S("Literal['a'] | Literal['b'] | None"), "Literal['a'] | Literal['b'] | None"},
    {S("Literal['a', \"b\", 1, True] | None"), "Literal['a', 'b', 1, True] | None"},
    /* Whitespace and newlines anywhere. */
    {S("  list [ \t int\n ]  "), "list[int]"},
    {S("\n\ndict\n[\nstr\n,\nint\n]\n"), "dict[str, int]"},
    {S("a\r\n|\r\nb"), "a | b"},
    {S("( a|b )|c"), "(a | b) | c"},
    {S("tuple[int , ... ]"), "tuple[int, ...]"},
    {S("Literal [ 'a' ,\t1 ]"), "Literal['a', 1]"},
    /* Literal values of every kind. */
    {S("Literal[None]"), "Literal[None]"},
    {S("Literal[True, False, None]"), "Literal[True, False, None]"},
    {S("Literal['a', 1, True]"), "Literal['a', 1, True]"},
    {S("Literal[\"double\"]"), "Literal['double']"},
    {S("Literal['']"), "Literal['']"},
    {S("Literal[0, -5, +7, 007, -0]"), "Literal[0, -5, 7, 7, 0]"},
    {S("Literal[9223372036854775807, -9223372036854775808]"), "Literal[9223372036854775807, -9223372036854775808]"},
    {S("Literal[9223372036854775808]"), "Literal[9223372036854775807!]"},
    {S("Literal[-9223372036854775809]"), "Literal[-9223372036854775808!]"},
    {S("Literal[123456789012345678901234567890]"), "Literal[9223372036854775807!]"},
    {S("Literal['it\\'s', \"say \\\"hi\\\"\", \"it's\", 'say \"hi\"']"),
     "Literal['it\\'s', 'say \"hi\"', 'it\\'s', 'say \"hi\"']"},
    {S("Literal['a\\\\b', '\\n\\t\\r']"), "Literal['a\\\\b', '\\n\\t\\r']"},
    {S("Literal['\\0', '\\x41\\x00', '\\u0042']"), "Literal['\\x00', 'A\\x00', 'B']"},
    {S("Literal['\\xe9', '\\u00E9', '\xc3\xa9']"), "Literal['\xc3\xa9', '\xc3\xa9', '\xc3\xa9']"},
    {S("Literal['\\u20ac', '\xf0\x9f\x98\x80']"), "Literal['\xe2\x82\xac', '\xf0\x9f\x98\x80']"},
    {S("Literal['tab\there']"), "Literal['tab\\there']"},
    {S("Literal['[', ']', '|', ',', '(', '...']"), "Literal['[', ']', '|', ',', '(', '...']"},
    /* 'Literal' is special only when followed by '['; True/None are plain names elsewhere. */
    {S("Literal"), "Literal"},
    {S("list[True]"), "list[True]"},
    {S("Optional[None]"), "Optional[None]"},
};

START_TEST(parse_ok)
{
    const struct ok_case *c = &ok_cases[_i];
    result r = parse(c->src, c->len, 0, false);
    ck_assert_msg(r.ok, "case %d [%.*s]: error at %zu: %s", _i, (int)c->len, c->src, r.off, r.text);
    ck_assert_msg(strcmp(r.text, c->want) == 0, "case %d: got [%s], want [%s]", _i, r.text, c->want);
    /* The canonical form reads back as itself. */
    result again = parse(r.text, strlen(r.text), 0, false);
    ck_assert_msg(again.ok && strcmp(again.text, r.text) == 0 ? 1 : strchr(r.text, '!') != NULL,
                  "case %d: [%s] reads back as [%s]", _i, r.text, again.text);
}
END_TEST

/* ---- parser: extents ------------------------------------------------------ */

static const struct ok_case ext_cases[] = {
    {S("int"), "N@0-3"},
    {S("  int  "), "N@2-5"},
    {S("list[int]"), "G@0-9(N@5-8)"},
    {S("list [ int ] "), "G@0-12(N@7-10)"},
    {S("dict[str, list[int]]"), "G@0-20(N@5-8 G@10-19(N@15-18))"},
    {S("tuple[int, ...]"), "G@0-15(N@6-9 E@11-14)"},
    {S("a | b | c"), "U@0-9(N@0-1 N@4-5 N@8-9)"},
    {S("(int)"), "Np@1-4"},
    {S("( ( int ) )"), "Np@4-7"},
    {S("(a) | b"), "U@0-7(Np@1-2 N@6-7)"},
    {S("a | (b)"), "U@0-7(N@0-1 Np@5-6)"},
    {S("A | (B | C)"), "U@0-11(N@0-1 Up@5-10(N@5-6 N@9-10))"},
    {S("(a | b) | c"), "U@0-11(Up@1-6(N@1-2 N@5-6) N@10-11)"},
    {S("Literal['a', -12, True]"), "L@0-23(S@8-11 I@13-16 N@18-22)"},
    {S("Literal[\"x\\ny\"]"), "L@0-15(S@8-14)"},
    {S("Optional[ list[int] ]\n"), "G@0-21(G@10-19(N@15-18))"},
    {S("str|None"), "U@0-8(N@0-3 N@4-8)"},
};

START_TEST(parse_extents)
{
    const struct ok_case *c = &ext_cases[_i];
    result r = parse(c->src, c->len, 0, true);
    ck_assert_msg(r.ok, "case %d: error at %zu: %s", _i, r.off, r.text);
    ck_assert_msg(strcmp(r.text, c->want) == 0, "case %d: got [%s], want [%s]", _i, r.text, c->want);
}
END_TEST

/* Values of nodes beyond their canonical form. */
START_TEST(parse_values)
{
    mcp_arena a;
    mcp_arena_init(&a);
    texpr_error err;
    const char src[] = "Literal['a\\0b', -42, 99999999999999999999, None] | Foo[int]";
    texpr *t = texpr_parse(&a, src, sizeof src - 1, 0, &err);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->kind, TEXPR_UNION);
    ck_assert_uint_eq(t->nargs, 2);
    texpr *lit = t->args[0];
    ck_assert_int_eq(lit->kind, TEXPR_LITERAL);
    ck_assert_str_eq(lit->name, "Literal");
    ck_assert_uint_eq(lit->nargs, 4);
    ck_assert_int_eq(lit->args[0]->kind, TEXPR_STRING);
    ck_assert_uint_eq(lit->args[0]->len, 3);
    ck_assert(memcmp(lit->args[0]->str, "a\0b", 4) == 0); /* NUL-terminated too */
    ck_assert_int_eq(lit->args[1]->kind, TEXPR_INT);
    ck_assert_int_eq(lit->args[1]->ival, -42);
    ck_assert(!lit->args[1]->overflow);
    ck_assert(lit->args[2]->overflow);
    ck_assert_int_eq(lit->args[2]->ival, INT64_MAX);
    ck_assert_int_eq(lit->args[3]->kind, TEXPR_NAME);
    ck_assert_str_eq(lit->args[3]->name, "None");
    texpr *g = t->args[1];
    ck_assert_int_eq(g->kind, TEXPR_GENERIC);
    ck_assert_str_eq(g->name, "Foo");
    ck_assert_uint_eq(g->nargs, 1);
    ck_assert_str_eq(g->args[0]->name, "int");
    ck_assert(!g->parenthesized && !t->parenthesized);
    /* err may be NULL; text may be NULL when len is 0. */
    ck_assert_ptr_null(texpr_parse(&a, "list[", 5, 0, NULL));
    ck_assert_ptr_null(texpr_parse(&a, NULL, 0, 0, &err));
    ck_assert_str_eq(err.message, "expected a type, found end of input");
    mcp_arena_free(&a);
}
END_TEST

/* ---- parser: errors ------------------------------------------------------- */

static const struct err_case {
    const char *src;
    size_t len;
    size_t off;
    const char *msg;
} err_cases[] = {
    /* Missing types. */
    {S(""), 0, "expected a type, found end of input"},
    {S(" \n "), 3, "expected a type, found end of input"},
    {S("list["), 5, "expected a type, found end of input"},
    {S("a | "), 4, "expected a type, found end of input"},
    {S("dict[str, "), 10, "expected a type, found end of input"},
    {S("("), 1, "expected a type, found end of input"},
    {S("a || b"), 3, "expected a type, found '|'"},
    {S("| a"), 0, "expected a type, found '|'"},
    {S("[int]"), 0, "expected a type, found '['"},
    {S("()"), 1, "expected a type, found ')'"},
    {S("list[, int]"), 5, "expected a type, found ','"},
    {S("list[int | ]"), 11, "expected a type, found ']'"},
    /* Empty brackets and trailing commas. */
    {S("list[]"), 5, "expected a type inside 'list[...]'"},
    {S("Optional[ ]"), 10, "expected a type inside 'Optional[...]'"},
    {S("tuple[int,]"), 10, "expected a type after ',' in 'tuple[...]'"},
    {S("dict[str, int, ]"), 15, "expected a type after ',' in 'dict[...]'"},
    /* Unclosed brackets and parentheses. */
    {S("list[int"), 8, "expected ']' to close 'list['"},
    {S("list[int "), 9, "expected ']' to close 'list['"},
    {S("list[int str]"), 9, "expected ']' to close 'list['"},
    {S("dict[str, list[int]"), 19, "expected ']' to close 'dict['"},
    {S("list[int)"), 8, "expected ']' to close 'list['"},
    {S("tuple[int, ... int]"), 15, "expected ']' to close 'tuple['"},
    {S("(int"), 4, "expected ')' to close '('"},
    {S("(int]"), 4, "expected ')' to close '('"},
    {S("(a | b c)"), 7, "expected ')' to close '('"},
    {S("AVeryLongTypeNameThatGoesOnAndOnAndOnAndOnForever[int"), 53,
     "expected ']' to close 'AVeryLongTypeNameThatGoesOnAndOnAndOnAnd...['"},
    /* Trailing garbage. */
    {S("int)"), 3, "unexpected ')'"},
    {S("list[int]]"), 9, "unexpected ']'"},
    {S("int x"), 4, "unexpected 'x' after the type"},
    {S("int,"), 3, "unexpected ',' after the type"},
    {S("list[int][str]"), 9, "unexpected '[' after the type"},
    {S("(a) (b)"), 4, "unexpected '(' after the type"},
    {S("int 'abc'"), 4, "unexpected ''abc'' after the type"},
    {S("int ..."), 4, "unexpected '...' after the type"},
    {S("a b_very_long_name_indeed_it_is"), 2, "unexpected 'b_very_long_name_ind...' after the type"},
    {S("Literal[1] extra"), 11, "unexpected 'extra' after the type"},
    /* Integers and strings are no types. */
    {S("1"), 0, "expected a type name, found '1'"},
    {S("-5"), 0, "expected a type name, found '-5'"},
    {S("list[1]"), 5, "expected a type name, found '1'"},
    {S("123456789012345678901234567890"), 0, "expected a type name, found '12345678901234567890...'"},
    {S("'str'"), 0, "expected a type name, found ''str''; write the name without quotes"},
    {S("list['WeatherData']"), 5, "expected a type name, found ''WeatherData''; write the name without quotes"},
    {S("list['a b']"), 5, "expected a type name, found ''a b''"},
    {S("a | \"x\""), 4, "expected a type name, found '\"x\"'; write the name without quotes"},
    {S("a | \"1x\""), 4, "expected a type name, found '\"1x\"'"},
    {S("'\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9'"), 0,
     "expected a type name, found ''\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...'"},
    /* '...' outside tuple arguments. */
    {S("..."), 0, "'...' is only allowed in tuple[T, ...]"},
    {S("int | ..."), 6, "'...' is only allowed in tuple[T, ...]"},
    {S("tuple[int, ... | None]"), 11, "'...' is only allowed in tuple[T, ...]"},
    {S("tuple[int | ...]"), 12, "'...' is only allowed in tuple[T, ...]"},
    {S("list[(...)]"), 6, "'...' is only allowed in tuple[T, ...]"},
    /* Literal. */
    {S("Literal[]"), 8, "expected a value inside 'Literal[...]'"},
    {S("Literal["), 8, "expected a value, found end of input"},
    {S("Literal[1,"), 10, "expected a value, found end of input"},
    {S("Literal[1,]"), 10, "expected a value after ',' in 'Literal[...]'"},
    {S("Literal['a'"), 11, "expected ']' to close 'Literal['"},
    {S("Literal['a' 'b']"), 12, "expected ']' to close 'Literal['"},
    {S("Literal['a' | 'b']"), 12, "expected ']' to close 'Literal['"},
    {S("Literal[int]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal['a', str]"), 13, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[true]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[...]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[(1)]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[[1]]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[Literal['a']]"), 8, "Literal values must be strings, integers, True, False or None"},
    {S("Literal[-]"), 8, "unexpected character '-'"},
    {S("Literal[1.5]"), 9, "unexpected character '.'"},
    {S("literal['a']"), 8, "expected a type name, found ''a''; write the name without quotes"},
    /* Lexical errors, reported where they are. */
    {S("Literal['abc"), 8, "unterminated string"},
    {S("Literal['abc]"), 8, "unterminated string"},
    {S("Literal[\"a', 'b']"), 8, "unterminated string"},
    {S("Literal['a\nb']"), 8, "unterminated string"},
    {S("Literal['a\\qb']"), 10, "unknown escape '\\q'"},
    {S("Literal['\\x4']"), 9, "'\\x' must be followed by two hex digits"},
    {S("Literal['\\u12']"), 9, "'\\u' must be followed by four hex digits"},
    {S("Literal['\\ud83d\\ude00']"), 9, "'\\ud83d' is a surrogate, not a character"},
    {S("Literal['\\01']"), 9, "octal escapes are not supported; write '\\xHH'"},
    {S("Literal['a\x01']"), 10, "control character 0x01 in a string; write it as an escape"},
    {S("Literal['a\0']"), 10, "control character 0x00 in a string; write it as an escape"},
    {S("Literal['\xc3']"), 9, "invalid UTF-8 byte 0xC3 in a string"},
    {S("Literal['\xed\xa0\x80']"), 9, "invalid UTF-8 byte 0xED in a string"},
    {S("list[@]"), 5, "unexpected character '@'"},
    {S("list[int@]"), 8, "unexpected character '@'"},
    {S("typing.List[int]"), 6, "unexpected character '.'"},
    {S("list[\xc3\xa9]"), 5, "unexpected byte 0xC3"},
    {S("\xef\xbb\xbfint"), 0, "unexpected byte 0xEF"},
    {S("int @"), 4, "unexpected character '@'"},
    {S("int | $"), 6, "unexpected character '$'"},
    {S("list[int\0]"), 8, "unexpected byte 0x00"},
    {S("int\0"), 3, "unexpected byte 0x00"},
    {S("\0int"), 0, "unexpected byte 0x00"},
    {S("a\x7f"), 1, "unexpected byte 0x7F"},
    {S("list[int, 'x"), 10, "unterminated string"},
};

START_TEST(parse_errors)
{
    const struct err_case *c = &err_cases[_i];
    result r = parse(c->src, c->len, 0, false);
    ck_assert_msg(!r.ok, "case %d [%.*s]: accepted as [%s]", _i, (int)c->len, c->src, r.text);
    ck_assert_msg(strcmp(r.text, c->msg) == 0 && r.off == c->off, "case %d [%.*s]: got %zu [%s], want %zu [%s]", _i,
                  (int)c->len, c->src, r.off, r.text, c->off, c->msg);
}
END_TEST

/* ---- parser: depth -------------------------------------------------------- */

/* open^n + "int" + close^n, where open is "list[" / "(" and close "]" / ")". */
static char *nested(size_t n, const char *open, const char *close, size_t *len)
{
    size_t lo = strlen(open), lc = strlen(close);
    char *s = malloc(n * (lo + lc) + 4);
    ck_assert_ptr_nonnull(s);
    size_t k = 0;
    for (size_t i = 0; i < n; i++, k += lo)
        memcpy(s + k, open, lo);
    memcpy(s + k, "int", 3);
    k += 3;
    for (size_t i = 0; i < n; i++, k += lc)
        memcpy(s + k, close, lc);
    s[k] = '\0';
    *len = k;
    return s;
}

START_TEST(depth_limit)
{
    size_t len;
    char *s;
    result r;

    s = nested(64, "list[", "]", &len);
    r = parse(s, len, 0, false);
    ck_assert_msg(r.ok, "%s", r.text);
    ck_assert_str_eq(r.text, s);
    free(s);

    s = nested(65, "list[", "]", &len);
    r = parse(s, len, 0, false);
    ck_assert(!r.ok);
    ck_assert_str_eq(r.text, "nesting too deep (more than 64 levels)");
    ck_assert_uint_eq(r.off, 64 * 5 + 4); /* the 65th '[' */
    free(s);

    s = nested(64, "(", ")", &len);
    r = parse(s, len, 0, false);
    ck_assert_msg(r.ok, "%s", r.text);
    ck_assert_str_eq(r.text, "(int)");
    free(s);

    s = nested(65, "(", ")", &len);
    r = parse(s, len, 0, false);
    ck_assert(!r.ok);
    ck_assert_str_eq(r.text, "nesting too deep (more than 64 levels)");
    ck_assert_uint_eq(r.off, 64);
    free(s);

    /* Brackets and parentheses count alike; Literal[ counts. */
    s = nested(32, "(list[", "])", &len);
    r = parse(s, len, 0, false);
    ck_assert_msg(r.ok, "%s", r.text);
    free(s);
    s = nested(32, "(list[", "])", &len);
    char *t = malloc(len + 32);
    snprintf(t, len + 32, "%.*s(int)%s", (int)(32 * 6), s, s + 32 * 6 + 3);
    r = parse(t, strlen(t), 0, false);
    ck_assert(!r.ok);
    ck_assert_str_eq(r.text, "nesting too deep (more than 64 levels)");
    ck_assert_uint_eq(r.off, 32 * 6);
    free(t);
    free(s);
    s = nested(63, "list[", "]", &len);
    t = malloc(len + 32);
    snprintf(t, len + 32, "%.*sLiteral[1]%s", 63 * 5, s, s + 63 * 5 + 3);
    r = parse(t, strlen(t), 0, false);
    ck_assert_msg(r.ok, "%s", r.text);
    free(t);
    t = malloc(len + 32);
    snprintf(t, len + 32, "%.*slist[Literal[1]]%s", 63 * 5, s, s + 63 * 5 + 3);
    r = parse(t, strlen(t), 0, false);
    ck_assert(!r.ok);
    ck_assert_uint_eq(r.off, 64 * 5 + 7);
    free(t);
    free(s);

    /* A custom limit; a huge request is capped. */
    r = parse(S("list[list[int]]"), 2, false);
    ck_assert(r.ok);
    r = parse(S("list[list[list[int]]]"), 2, false);
    ck_assert(!r.ok);
    ck_assert_str_eq(r.text, "nesting too deep (more than 2 levels)");
    ck_assert_uint_eq(r.off, 14);
    r = parse(S("(int)"), 1, false);
    ck_assert(r.ok);
    s = nested(300, "list[", "]", &len);
    r = parse(s, len, SIZE_MAX, false);
    ck_assert(!r.ok);
    ck_assert_str_eq(r.text, "nesting too deep (more than 256 levels)");
    ck_assert_uint_eq(r.off, 256 * 5 + 4);
    free(s);
}
END_TEST

/* 100,000 opening brackets fail at the 65th, without recursing further. */
START_TEST(depth_huge)
{
    const size_t n = 100000;
    static const char *opens[] = {"[", "list[", "(", "(list["};
    for (size_t k = 0; k < sizeof opens / sizeof opens[0]; k++) {
        size_t lo = strlen(opens[k]);
        char *s = malloc(n * lo);
        ck_assert_ptr_nonnull(s);
        for (size_t i = 0; i < n; i++)
            memcpy(s + i * lo, opens[k], lo);
        result r = parse(s, n * lo, 0, false);
        ck_assert(!r.ok);
        if (k == 0) {
            ck_assert_str_eq(r.text, "expected a type, found '['");
            ck_assert_uint_eq(r.off, 0);
        } else {
            ck_assert_str_eq(r.text, "nesting too deep (more than 64 levels)");
            ck_assert_uint_lt(r.off, 64 * lo + lo);
        }
        free(s);
    }
}
END_TEST

/* ---- robustness ----------------------------------------------------------- */

/* A small deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Structural invariants of a tree parsed from len bytes. */
static void check_tree(const texpr *t, size_t len, bool in_generic, int level)
{
    REQUIRE(t != NULL);
    REQUIRE(level < 200);
    REQUIRE(t->off <= t->end);
    REQUIRE(t->end <= len);
    switch (t->kind) {
    case TEXPR_NAME:
        REQUIRE(t->name != NULL);
        REQUIRE(strlen(t->name) == t->end - t->off);
        break;
    case TEXPR_GENERIC:
    case TEXPR_LITERAL:
        REQUIRE(t->name != NULL);
        REQUIRE(t->nargs >= 1);
        break;
    case TEXPR_UNION:
        REQUIRE(t->nargs >= 2);
        break;
    case TEXPR_STRING:
        REQUIRE(t->str != NULL);
        REQUIRE(t->len + 2 <= t->end - t->off);
        REQUIRE(t->str[t->len] == '\0');
        break;
    case TEXPR_INT:
        break;
    case TEXPR_ELLIPSIS:
        REQUIRE(in_generic);
        REQUIRE(t->end - t->off == 3);
        break;
    }
    for (size_t i = 0; i < t->nargs; i++) {
        const texpr *a = t->args[i];
        REQUIRE(a != NULL);
        if (t->kind == TEXPR_LITERAL)
            REQUIRE(a->kind == TEXPR_STRING || a->kind == TEXPR_INT || a->kind == TEXPR_NAME);
        else
            REQUIRE(a->kind != TEXPR_STRING && a->kind != TEXPR_INT);
        REQUIRE(a->off >= t->off);
        REQUIRE(a->end <= t->end);
        check_tree(a, len, t->kind == TEXPR_GENERIC, level + 1);
    }
}

/* Parse src; check the tree or the error; a tree must read back from its
 * canonical form. Returns whether it parsed. */
static bool fuzz_one(const char *src, size_t len)
{
    mcp_arena a;
    mcp_arena_init(&a);
    texpr_error err;
    memset(&err, 0x55, sizeof err);
    texpr *t = texpr_parse(&a, src, len, 0, &err);
    if (t) {
        check_tree(t, len, false, 0);
        mcp_buf b, b2;
        mcp_buf_init(&b);
        mcp_buf_init(&b2);
        show(&b, t);
        if (!strchr(b.data, '!')) {
            texpr *t2 = texpr_parse(&a, b.data, b.len, 0, &err);
            if (!t2)
                ck_abort_msg("[%s] does not read back: %s", b.data, err.message);
            show(&b2, t2);
            if (strcmp(b.data, b2.data) != 0)
                ck_abort_msg("[%s] reads back as [%s]", b.data, b2.data);
        }
        mcp_buf_free(&b);
        mcp_buf_free(&b2);
    } else {
        size_t n = strnlen(err.message, sizeof err.message);
        REQUIRE(n < sizeof err.message);
        REQUIRE(n > 0);
        REQUIRE(err.message[n - 1] != '.');
        REQUIRE(err.off <= len);
    }
    mcp_arena_free(&a);
    return t != NULL;
}

START_TEST(fuzz_random_bytes)
{
    rng_state = 0x9E3779B97F4A7C15ULL;
    char buf[96];
    for (int i = 0; i < 10000; i++) {
        size_t len = (size_t)(rng() % sizeof buf);
        /* Half the time, bytes from the interesting ASCII range only. */
        bool ascii = rng() & 1;
        for (size_t k = 0; k < len; k++)
            buf[k] = ascii ? (char)(0x20 + rng() % 0x60) : (char)(rng() & 0xFF);
        /* An exact-size heap copy, so ASan sees any read past len. */
        char *heap = malloc(len ? len : 1);
        memcpy(heap, buf, len);
        fuzz_one(heap, len);
        lex_fuzz(heap, len);
        free(heap);
    }
}
END_TEST

START_TEST(fuzz_token_soup)
{
    static const char *soup[] = {
        "list",
        "dict",
        "tuple",
        "Optional",
        "Union",
        "Literal",
        "None",
        "True",
        "int",
        "str",
        "[",
        "[",
        "]",
        "]",
        "(",
        ")",
        ",",
        ",",
        "|",
        "|",
        "...",
        " ",
        "\n",
        "\t",
        "'a'",
        "\"b\"",
        "'\\n'",
        "'\\u00e9'",
        "'\\xzz'",
        "'",
        "\"",
        "\\",
        "1",
        "-2",
        "+",
        "99999999999999999999",
        "@",
        "\xc3\xa9",
        "'\xc3\xa9'",
        ".",
        "..",
        "'\\xe9\\uFFFF\\u0800\\u07ff'",
        "\"\\0\\x7f\\\"\"",
        "'\\ud800'",
        "'\xf0\x9f\x98\x80'",
    };
    const size_t nsoup = sizeof soup / sizeof soup[0];
    rng_state = 0xC0FFEE1234567ULL;
    char buf[512];
    int parsed = 0;
    for (int i = 0; i < 10000; i++) {
        size_t ntok = (size_t)(rng() % 24), len = 0;
        for (size_t k = 0; k < ntok; k++) {
            const char *tok = soup[rng() % nsoup];
            size_t tl = strlen(tok);
            if (len + tl > sizeof buf)
                break;
            memcpy(buf + len, tok, tl);
            len += tl;
        }
        if (rng() % 16 == 0 && len) /* now and then an embedded NUL */
            buf[rng() % len] = '\0';
        char *heap = malloc(len ? len : 1);
        memcpy(heap, buf, len);
        parsed += fuzz_one(heap, len);
        lex_fuzz(heap, len);
        free(heap);
    }
    ck_assert_int_gt(parsed, 100); /* the soup does produce valid expressions */
}
END_TEST

/* Grammar-directed: random valid expressions parse, and read back. */
static void gen(mcp_buf *b, int depth)
{
    static const char *names[] = {"int", "str", "None", "WeatherData", "float"};
    int r = (int)(rng() % (depth > 6 ? 1 : 6));
    switch (r) {
    case 0:
        mcp_buf_puts(b, names[rng() % 5]);
        break;
    case 1:
        mcp_buf_puts(b, "list[");
        gen(b, depth + 1);
        mcp_buf_puts(b, "]");
        break;
    case 2:
        mcp_buf_puts(b, "dict[str,");
        gen(b, depth + 1);
        mcp_buf_puts(b, "]");
        break;
    case 3:
        gen(b, depth + 1);
        mcp_buf_puts(b, rng() & 1 ? " | " : "|");
        gen(b, depth + 1);
        break;
    case 4:
        mcp_buf_puts(b, "( ");
        gen(b, depth + 1);
        mcp_buf_puts(b, " )");
        break;
    default:
        mcp_buf_puts(b, "Literal['x\\'', 1, True]");
        break;
    }
}

START_TEST(fuzz_grammar)
{
    rng_state = 42;
    for (int i = 0; i < 2000; i++) {
        mcp_buf b;
        mcp_buf_init(&b);
        gen(&b, 0);
        if (!fuzz_one(b.data, b.len))
            ck_abort_msg("[%s] rejected", b.data);
        mcp_buf_free(&b);
    }
}
END_TEST

/* ---- suite ---------------------------------------------------------------- */

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static Suite *texpr_suite(void)
{
    Suite *s = suite_create("texpr");
    TCase *lex = tcase_create("lexer");
    tcase_add_loop_test(lex, lex_tokens, 0, N(lex_cases));
    tcase_add_test(lex, lex_bounds);
    tcase_add_test(lex, lex_string_values);
    tcase_add_test(lex, lex_every_byte);
    suite_add_tcase(s, lex);

    TCase *p = tcase_create("parser");
    tcase_add_loop_test(p, parse_ok, 0, N(ok_cases));
    tcase_add_loop_test(p, parse_extents, 0, N(ext_cases));
    tcase_add_test(p, parse_values);
    tcase_add_loop_test(p, parse_errors, 0, N(err_cases));
    tcase_add_test(p, depth_limit);
    tcase_add_test(p, depth_huge);
    suite_add_tcase(s, p);

    TCase *f = tcase_create("robustness");
    tcase_add_test(f, fuzz_random_bytes);
    tcase_add_test(f, fuzz_token_soup);
    tcase_add_test(f, fuzz_grammar);
    suite_add_tcase(s, f);
    return s;
}

int main(void)
{
    int failed = check_run(texpr_suite(), true);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
