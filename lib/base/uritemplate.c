/* uritemplate.c: RFC 6570 level 1 templates. */
#include "internal/uritemplate.h"

#include <string.h>

static bool is_varchar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_unreserved(char c) { return is_varchar(c) || c == '-' || c == '.' || c == '~'; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

bool mcp_uri_template_check(const char *tmpl, size_t *nvars, const char **err, size_t *err_off)
{
    size_t n = 0;
    bool prev_expr = false;
    for (size_t i = 0; tmpl[i];) {
        if (tmpl[i] == '}') {
            *err = "'}' without a matching '{'";
            *err_off = i;
            return false;
        }
        if (tmpl[i] != '{') {
            prev_expr = false;
            i++;
            continue;
        }
        size_t start = i++;
        if (prev_expr) {
            *err = "two expressions side by side: put literal text between them";
            *err_off = start;
            return false;
        }
        if (tmpl[i] && strchr("+#./;?&=,!@|", tmpl[i])) {
            *err = "only level 1 templates are supported: '{name}', without an operator";
            *err_off = i;
            return false;
        }
        size_t k = i;
        while (is_varchar(tmpl[k]))
            k++;
        if (k == i || tmpl[k] != '}') {
            *err = tmpl[k] == ','                     ? "only one variable per expression is supported"
                   : tmpl[k] == ':' || tmpl[k] == '*' ? "modifiers (':N', '*') are not supported"
                   : k == i                           ? "an expression needs a variable name: '{name}'"
                                                      : "a variable name is letters, digits and '_', closed by '}'";
            *err_off = k;
            return false;
        }
        n++;
        prev_expr = true;
        i = k + 1;
    }
    *nvars = n;
    return true;
}

const char *mcp_uri_template_var(const char *tmpl, size_t index, mcp_arena *a)
{
    size_t n = 0;
    for (const char *p = strchr(tmpl, '{'); p; p = strchr(p + 1, '{')) {
        if (n++ == index)
            return mcp_arena_strndup(a, p + 1, strcspn(p + 1, "}"));
    }
    return NULL;
}

bool mcp_uri_template_match(const char *tmpl, const char *uri, mcp_arena *a, const char **values, size_t nvars)
{
    size_t var = 0;
    const char *t = tmpl, *u = uri;
    while (*t) {
        if (*t != '{') {
            if (*t != *u)
                return false;
            t++, u++;
            continue;
        }
        t = strchr(t, '}') + 1;
        /* The value runs over unreserved characters and escapes; the literal
         * text after the expression (never another expression) cannot start
         * with one of those unless it is the same character, so take the
         * longest run that leaves the rest matchable: stop at the first
         * character of the next literal when it cannot be part of a value. */
        const char *start = u;
        while (*u && (is_unreserved(*u) || (*u == '%' && hexval(u[1]) >= 0 && hexval(u[2]) >= 0))) {
            if (*t && *u == *t && !(*u == '%'))
                break; /* the next literal begins here */
            u += *u == '%' ? 3 : 1;
        }
        if (u == start)
            return false;
        if (var < nvars) {
            size_t len = (size_t)(u - start);
            char *v = mcp_arena_alloc(a, len + 1);
            if (!v)
                return false;
            size_t k = 0;
            for (const char *p = start; p < u;) {
                if (*p == '%') {
                    v[k++] = (char)(hexval(p[1]) * 16 + hexval(p[2]));
                    p += 3;
                } else {
                    v[k++] = *p++;
                }
            }
            v[k] = 0;
            values[var] = v;
        }
        var++;
    }
    return *u == 0 && var == nvars;
}
