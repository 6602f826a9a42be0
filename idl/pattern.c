/* pattern.c: the supported subset of regular expressions for `pattern`.
 *
 * JSON Schema says `pattern` is ECMA-262; the runtime runs it with PCRE2. The
 * two agree on a large common subset, which docs/idl.md lists. This file
 * rejects, with a message and an offset, every construct outside it (PCRE-only
 * syntax such as possessive quantifiers, atomic groups and inline flags), then
 * lets PCRE2 compile the pattern with the options the runtime uses, so a
 * pattern that passes here also compiles there.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include "fmt.h"
#include "ir.h"

/* The options the runtime compiles patterns with (kept in one place). */
#define IDL_PCRE2_OPTIONS (PCRE2_UTF | PCRE2_ALT_BSUX | PCRE2_DOLLAR_ENDONLY)

static const char UNSUPPORTED_ESCAPE[] = "unsupported escape";

static bool is_hex(const char *p, size_t len, size_t i)
{
    return i < len && p[i] && strchr("0123456789abcdefABCDEF", p[i]);
}

static const char *check_escape(const char *p, size_t len, size_t i, bool in_class, size_t *adv)
{
    /* p[i] == '\\' */
    if (i + 1 >= len)
        return "a pattern cannot end with '\\'";
    unsigned char c = (unsigned char)p[i + 1];
    *adv = 2;
    switch (c) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
    case 's':
    case 'S':
    case 't':
    case 'n':
    case 'r':
    case 'f':
    case 'v':
    case '0':
        return NULL;
    case 'b':
        return NULL; /* word boundary; backspace inside a class */
    case 'B':
        return in_class ? "'\\B' is not allowed inside a character class" : NULL;
    case 'x':
        if (is_hex(p, len, i + 2) && is_hex(p, len, i + 3)) {
            *adv = 4;
            return NULL;
        }
        if (i + 2 < len && p[i + 2] == '{')
            return "PCRE's long hex escape '\\x{...}' is not supported; write '\\uHHHH'";
        return "'\\x' must be followed by two hexadecimal digits";
    case 'u':
        for (size_t k = 2; k < 6; k++)
            if (!is_hex(p, len, i + k))
                return "'\\u' must be followed by four hexadecimal digits";
        *adv = 6;
        return NULL;
    case 'k':
        if (in_class)
            return "'\\k' is not allowed inside a character class";
        if (i + 2 < len && p[i + 2] == '<') {
            size_t k = i + 3;
            while (k < len && p[k] != '>')
                k++;
            if (k < len && k > i + 3) {
                *adv = k + 1 - i;
                return NULL;
            }
        }
        return "'\\k' must be followed by a group name in angle brackets";
    }
    if (c >= '1' && c <= '9')
        return in_class ? "a backreference is not allowed inside a character class" : NULL;
    /* PCRE-only escapes, named as docs/idl.md names them. */
    switch (c) {
    case 'A':
        return "the PCRE anchor '\\A' is not supported; write '^'";
    case 'Z':
        return "the PCRE anchor '\\Z' is not supported; write '$'";
    case 'z':
        return "the PCRE anchor '\\z' is not supported; write '$'";
    case 'G':
        return "the PCRE anchor '\\G' is not supported";
    case 'p':
        return "Unicode properties '\\p{...}' are not supported";
    case 'P':
        return "Unicode properties '\\P{...}' are not supported";
    case 'K':
        return "the match reset '\\K' is not supported";
    case 'Q':
    case 'E':
        return "quoting with '\\Q...\\E' is not supported; escape each metacharacter";
    case 'h':
    case 'H':
    case 'R':
    case 'X':
        break; /* named by the generic message */
    }
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
        return UNSUPPORTED_ESCAPE;
    /* ECMA-262 in Unicode mode (as Ajv compiles patterns) escapes only syntax
     * characters ('-' too, inside a class); '\-' or '\!' elsewhere is an error there. */
    if (strchr("^$\\.*+?()[]{}|/", c) || (in_class && c == '-'))
        return NULL;
    return in_class ? "only syntax characters and '-' may be escaped inside a class (ECMA-262 Unicode mode)"
                    : "only syntax characters ^ $ \\ . * + ? ( ) [ ] { } | / may be escaped (ECMA-262 Unicode "
                      "mode); write the character itself";
}

const char *idl_pattern_check(mcp_arena *a, const char *p, size_t len, size_t *offset)
{
    bool in_class = false;
    bool after_quantifier = false; /* the previous token was a complete quantifier */
    bool can_quantify = false;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)p[i];
        *offset = i;
        if (c == 0)
            return "a pattern cannot contain a NUL character";
        if (c == '\\') {
            size_t adv = 1;
            const char *msg = check_escape(p, len, i, in_class, &adv);
            if (msg) {
                if (msg == UNSUPPORTED_ESCAPE)
                    return idl_fmt(a, "unsupported escape '\\%c' (not in the ECMA-262 subset mcpidl supports)",
                                   p[i + 1]);
                return msg;
            }
            i += adv;
            after_quantifier = false;
            can_quantify = true;
            continue;
        }
        if (in_class) {
            if (c == '[' && i + 1 < len && (p[i + 1] == ':' || p[i + 1] == '=' || p[i + 1] == '.')) {
                /* [[:alpha:]] and friends: PCRE2 only. */
                size_t k = i + 2;
                while (k < len && ((p[k] | 0x20) >= 'a' && (p[k] | 0x20) <= 'z'))
                    k++;
                if (k + 1 < len && p[k] == p[i + 1] && p[k + 1] == ']')
                    return "POSIX character classes such as '[:alpha:]' are not supported";
            }
            if (c == ']')
                in_class = false;
            i++;
            continue;
        }
        switch (c) {
        case '[':
            in_class = true;
            i++;
            if (i < len && p[i] == '^')
                i++;
            if (i < len && p[i] == ']')
                i++; /* PCRE2 takes a leading ']' literally; ECMA-262 reads [] as empty */
            after_quantifier = false;
            can_quantify = true;
            continue;
        case '(':
            if (i + 1 < len && p[i + 1] == '?') {
                char n = i + 2 < len ? p[i + 2] : 0;
                char n2 = i + 3 < len ? p[i + 3] : 0;
                if (n == ':' || n == '=' || n == '!') {
                    i += 3;
                } else if (n == '<' && (n2 == '=' || n2 == '!')) {
                    i += 4;
                } else if (n == '<') {
                    i += 3; /* a named group; PCRE2 checks the name */
                } else if (n == '>') {
                    return "atomic groups '(?>...)' are not supported";
                } else if (n == '#') {
                    return "comments '(?#...)' are not supported";
                } else if (n == '(') {
                    return "conditional groups '(?(...)...)' are not supported";
                } else if (n == 'P') {
                    return "Python-style groups '(?P...)' are not supported; write '(?<name>...)'";
                } else if (n == 'R' || (n >= '0' && n <= '9') || n == '+' || n == '&') {
                    return "recursion and subroutine calls are not supported";
                } else if (n == '|') {
                    return "branch reset groups '(?|...)' are not supported";
                } else {
                    /* (?i), (?m-s), (?i:...): name the flags as written */
                    size_t k = i + 2;
                    while (k < len && k < i + 12 && p[k] != ')' && p[k] != ':')
                        k++;
                    size_t shown = k < len && (p[k] == ')' || p[k] == ':') ? k + 1 - i : k - i;
                    bool icase = memchr(p + i + 2, 'i', k - i - 2) != NULL;
                    return idl_fmt(a, "inline flags '%.*s' are not supported in 'pattern'%s", (int)shown, p + i,
                                   icase ? "; use a character class such as [Aa]" : ": a pattern has no flags");
                }
            } else if (i + 1 < len && p[i + 1] == '*') {
                return "PCRE2 verbs such as '(*UTF)' are not supported";
            } else {
                i++;
            }
            after_quantifier = false;
            can_quantify = false;
            continue;
        case '*':
        case '+':
        case '?':
            if (after_quantifier) {
                if (c == '?') { /* lazy */
                    after_quantifier = false;
                    can_quantify = false;
                    i++;
                    continue;
                }
                return "possessive quantifiers such as 'a*+' are not supported";
            }
            if (!can_quantify)
                return idl_fmt(a, "nothing to repeat before '%c'", c);
            after_quantifier = true;
            i++;
            continue;
        case '{': {
            /* {n}, {n,}, {n,m} is a quantifier; anything else is a literal '{'. */
            size_t k = i + 1;
            size_t digits = 0;
            while (k < len && p[k] >= '0' && p[k] <= '9')
                k++, digits++;
            bool quant = false;
            if (digits && k < len && p[k] == '}')
                quant = true;
            else if (digits && k < len && p[k] == ',') {
                k++;
                while (k < len && p[k] >= '0' && p[k] <= '9')
                    k++;
                quant = k < len && p[k] == '}';
            }
            if (quant) {
                if (after_quantifier)
                    return "a quantifier cannot follow another quantifier";
                if (!can_quantify)
                    return "nothing to repeat before '{'";
                after_quantifier = true;
                i = k + 1;
                continue;
            }
            return "a literal '{' must be escaped as '\\{' (ECMA-262 Unicode mode)";
        }
        case '}':
            return "a literal '}' must be escaped as '\\}' (ECMA-262 Unicode mode)";
        case ']':
            return "a literal ']' must be escaped as '\\]' (ECMA-262 Unicode mode)";
        default:
            break;
        }
        after_quantifier = false;
        can_quantify = c != '|' && c != '^' && c != '$';
        i++;
    }
    if (in_class) {
        *offset = len;
        return "missing ']' to close a character class";
    }

    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)p, len, IDL_PCRE2_OPTIONS, &errcode, &erroff, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        *offset = erroff > len ? len : erroff;
        return idl_fmt(a, "invalid pattern: %s", (const char *)msg);
    }
    pcre2_code_free(code);
    return NULL;
}

int idl_pattern_matches(const char *p, size_t plen, const char *subject, size_t slen)
{
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)p, plen, IDL_PCRE2_OPTIONS, &errcode, &erroff, NULL);
    if (!code)
        return -1;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    int rc = md ? pcre2_match(code, (PCRE2_SPTR)subject, slen, 0, 0, md, NULL) : -1;
    pcre2_match_data_free(md);
    pcre2_code_free(code);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}
