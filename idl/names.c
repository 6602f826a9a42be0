/* names.c: titles, C identifiers, "did you mean", description trimming. */
#include <string.h>

#include "internal/utf8.h"
#include "ir.h"

static bool is_ascii_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool is_ascii_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The length in bytes of the white space character (str.isspace()) that the
 * UTF-8 text s[0..n) starts with, or 0. */
static size_t white_space_at(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r') || (u[0] >= 0x1C && u[0] <= 0x1F))
        return 1;
    uint32_t cp;
    size_t w = mcp_utf8_seq(u, n, &cp, NULL);
    if (w == 2 && (cp == 0x85 || cp == 0xA0))
        return 2;
    bool white = w == 3 && (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
                            cp == 0x202F || cp == 0x205F || cp == 0x3000);
    return white ? 3 : 0;
}

/* The length of the white space character that s[0..n) ends with, or 0. */
static size_t white_space_before(const char *s, size_t n)
{
    for (size_t w = 1; w <= 3 && w <= n; w++)
        if (white_space_at(s + n - w, w) == w)
            return w;
    return 0;
}

char *idl_title_case(mcp_arena *a, const char *name)
{
    size_t n = strlen(name);
    char *t = mcp_arena_alloc(a, n + 1);
    if (!t)
        return NULL;
    /* str.title(): a cased character is upper-cased after an uncased one and
     * lower-cased after a cased one. Non-ASCII characters are copied unchanged;
     * white space among them is uncased, the others count as cased. */
    bool prev_cased = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (is_ascii_alpha(c)) {
            t[i] = (char)(prev_cased ? (c | 0x20) : (c & ~0x20));
            prev_cased = true;
        } else if (c >= 0x80) {
            size_t w = white_space_at(name + i, n - i);
            memcpy(t + i, name + i, w ? w : 1);
            i += w ? w - 1 : 0;
            prev_cased = !w;
        } else {
            t[i] = c == '_' ? ' ' : (char)c;
            prev_cased = false;
        }
    }
    /* strip(): white space at both ends, as str.isspace() sees it. */
    size_t s = 0, e = n;
    for (size_t w; s < e && (w = white_space_at(t + s, e - s)) > 0;)
        s += w;
    for (size_t w; e > s && (w = white_space_before(t + s, e - s)) > 0;)
        e -= w;
    memmove(t, t + s, e - s);
    t[e - s] = 0;
    return t;
}

static const char *const C_KEYWORDS[] = {
    "_Alignas",       "_Alignof",      "_Atomic",      "_BitInt",  "_Bool",      "_Complex",
    "_Decimal128",    "_Decimal32",    "_Decimal64",   "_Generic", "_Imaginary", "_Noreturn",
    "_Static_assert", "_Thread_local", "alignas",      "alignof",  "asm",        "auto",
    "bool",           "break",         "case",         "char",     "const",      "constexpr",
    "continue",       "default",       "do",           "double",   "else",       "enum",
    "extern",         "false",         "float",        "for",      "goto",       "if",
    "inline",         "int",           "long",         "nullptr",  "register",   "restrict",
    "return",         "short",         "signed",       "sizeof",   "static",     "static_assert",
    "struct",         "switch",        "thread_local", "true",     "typedef",    "typeof",
    "typeof_unqual",  "union",         "unsigned",     "void",     "volatile",   "while",
};

bool idl_is_c_keyword(const char *s)
{
    size_t lo = 0, hi = sizeof C_KEYWORDS / sizeof *C_KEYWORDS;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s, C_KEYWORDS[mid]);
        if (c == 0)
            return true;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

bool idl_is_c_identifier(const char *s)
{
    if (!is_ascii_alpha((unsigned char)s[0]) && s[0] != '_')
        return false;
    for (const char *p = s + 1; *p; p++)
        if (!is_ascii_alpha((unsigned char)*p) && !is_ascii_digit((unsigned char)*p) && *p != '_')
            return false;
    return true;
}

static bool is_reserved(const char *s) { return s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')); }

char *idl_c_ident(mcp_arena *a, const char *name)
{
    if (idl_is_c_identifier(name) && !idl_is_c_keyword(name) && !is_reserved(name))
        return mcp_arena_strdup(a, name);
    size_t n = strlen(name);
    char *t = mcp_arena_alloc(a, n + 4);
    if (!t)
        return NULL;
    /* Characters outside [A-Za-z0-9_] become '_' (one per non-ASCII character). */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 0x80 && (c & 0xC0) == 0x80)
            continue;
        t[k++] = (char)(is_ascii_alpha(c) || is_ascii_digit(c) || c == '_' ? c : '_');
    }
    t[k] = 0;
    /* An empty name, a leading digit, or a reserved result (__x, _X, and _ followed by
     * anything but a lower-case letter) gets the prefix "f_"; a keyword gets a '_'. */
    if (k == 0 || is_ascii_digit((unsigned char)t[0]) || is_reserved(t) ||
        (t[0] == '_' && !(t[1] >= 'a' && t[1] <= 'z'))) {
        memmove(t + 2, t, k + 1);
        t[0] = 'f';
        t[1] = '_';
        k += 2;
    }
    if (idl_is_c_keyword(t)) {
        t[k++] = '_';
        t[k] = 0;
    }
    return t;
}

/* Levenshtein distance (ASCII case-insensitive) when it is at most `limit`, else
 * limit + 1. A row whose every cell exceeds the limit ends the search, so a
 * dissimilar name costs a few rows: a suggestion among 100,000 type names is cheap. */
static size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > limit)
        return limit + 1;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        size_t row_min = row[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = ((a[i - 1] | 0x20) == (b[j - 1] | 0x20)) ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
            if (best < row_min)
                row_min = best;
        }
        if (row_min > limit)
            return limit + 1;
    }
    return row[lb] <= limit ? row[lb] : limit + 1;
}

const char *idl_did_you_mean(const char *name, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t len = strlen(name);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || strcmp(candidates[i], name) == 0)
            continue;
        size_t d = edit_distance(name, candidates[i], limit);
        if (d <= limit && d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    if (best || len < 4)
        return best;
    /* A known name that this one begins (readOnly -> readOnlyHint), when only one does. */
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || strlen(candidates[i]) <= len)
            continue;
        bool prefix = true;
        for (size_t k = 0; k < len && prefix; k++)
            prefix = (name[k] | 0x20) == (candidates[i][k] | 0x20);
        if (prefix) {
            if (best && strcmp(best, candidates[i]) != 0)
                return NULL; /* ambiguous: exclusive -> exclusiveMinimum or exclusiveMaximum */
            best = candidates[i];
        }
    }
    return best;
}

char *idl_trim_description(mcp_arena *a, const char *s, size_t len)
{
    size_t start = 0;
    /* Leading blank lines: lines of white space only. */
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\n')
            start = i + 1;
        else if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            break;
    }
    size_t end = len;
    while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\n' || s[end - 1] == '\r'))
        end--;
    return mcp_arena_strndup(a, s + start, end - start);
}
