/* check_display.c: what clients show or keep beside the things a server
 * lists: `icons` (MCP's Icon: src, mimeType, sizes, theme) and `_meta` (an
 * object whose keys follow MCP's rules) on tools, resources, resource
 * templates, prompts and the server; and the server's `description` and
 * `websiteUrl` (MCP's Implementation).
 */
#include <string.h>

#include "check_int.h"

static const char *const ICON_KEYS[] = {"src", "mimeType", "sizes", "theme"};

bool ck_has_scheme(const char *s)
{
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; s[i]; i++) {
        char ch = s[i];
        if (ch == ':')
            return true;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '+' ||
              ch == '-' || ch == '.'))
            return false;
    }
    return false;
}

static bool is_alpha(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }
static bool is_alnum(char ch) { return is_alpha(ch) || is_digit(ch); }

/* The offset of the first byte of s[0..n) that a URI cannot hold as written
 * (a space, a control character, '"', '<', '>', '\', '^', '`', '{', '|',
 * '}'), or n. */
static size_t uri_bad_at(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char b = (unsigned char)s[i];
        if (b <= ' ' || b == 0x7f || strchr("\"<>\\^`{|}", b))
            return i;
    }
    return n;
}

/* An absolute URI (a scheme, nothing a URI cannot hold); `key` and `what`
 * name it. NULL after an error. */
static const char *absolute_uri(checker *c, const idl_node *v, const char *key, const char *what, const char *like)
{
    if (!ck_string(c, v, idl_fmt(c->a, "'%s' of %s", key, what)))
        return NULL;
    if (!ck_has_scheme(v->str)) {
        ERR(c, v->loc, "'%s' of %s must be an absolute URI with a scheme (like %s), not '%s'", key, what, like, v->str);
        return NULL;
    }
    size_t bad = uri_bad_at(v->str, v->len);
    if (bad < v->len) {
        unsigned char b = (unsigned char)v->str[bad];
        ERR(c, ck_loc_in_scalar(c, v, bad), "'%s' of %s cannot hold %s: percent-encode it in a URI", key, what,
            b == ' '  ? "a space"
            : b < ' ' ? "a control character"
                      : idl_fmt(c->a, "'%c'", b));
        return NULL;
    }
    return v->str;
}

/* A MIME type as RFC 6838 names one: type "/" subtype, each a restricted
 * name (letters, digits, ! # $ & - ^ _ . +), parameters allowed after ';'. */
static bool is_mime_type(const char *s)
{
    static const char EXTRA[] = "!#$&-^_.+";
    size_t i = 0;
    while (s[i] && (is_alnum(s[i]) || strchr(EXTRA, s[i])))
        i++;
    if (i == 0 || s[i] != '/')
        return false;
    size_t j = ++i;
    while (s[i] && (is_alnum(s[i]) || strchr(EXTRA, s[i])))
        i++;
    return i > j && (s[i] == 0 || s[i] == ';');
}

/* "any", or WxH in pixels: two positive decimal numbers without leading
 * zeros around an 'x'. */
static bool is_icon_size(const char *s)
{
    if (strcmp(s, "any") == 0)
        return true;
    for (int part = 0; part < 2; part++) {
        if (!(s[0] >= '1' && s[0] <= '9'))
            return false;
        size_t i = 1;
        while (is_digit(s[i]))
            i++;
        if (i > 6)
            return false;
        s += i;
        if (part == 0) {
            if (*s != 'x')
                return false;
            s++;
        }
    }
    return *s == 0;
}

static void parse_icon(checker *c, const idl_node *m, const char *what, ir_icon *icon)
{
    memset(icon, 0, sizeof *icon);
    icon->loc = m->loc;
    ck_keysf(c, m, ICON_KEYS, COUNT(ICON_KEYS), NULL, 0, "an icon of %s", what);
    const char *iwhat = idl_fmt(c->a, "an icon of %s", what);
    if (!iwhat)
        return;
    const idl_node *src = idl_map_get(m, "src");
    if (!src) {
        ERR(c, m->loc, "an icon of %s has no 'src' (an https: URL, or a data: URI of the image)", what);
    } else if ((icon->src = absolute_uri(c, src, "src", iwhat, "https://example.com/icon.png")) &&
               strncmp(icon->src, "data:", 5) == 0 && !strchr(icon->src, ',')) {
        ERR(c, src->loc, "'src' of %s is a data: URI without ',': write data:MIME;base64,DATA (RFC 2397)", iwhat);
        icon->src = NULL;
    }
    const idl_node *v = idl_map_get(m, "mimeType");
    if (v && ck_string(c, v, idl_fmt(c->a, "'mimeType' of %s", iwhat))) {
        if (is_mime_type(v->str))
            icon->mime_type = v->str;
        else
            ERR(c, v->loc, "'mimeType' of %s must be a MIME type such as image/png or image/svg+xml, not '%s'", iwhat,
                v->str);
    }
    if ((v = idl_map_get(m, "sizes"))) {
        if (v->kind != IDL_NODE_SEQ) {
            ERR(c, v->loc, "'sizes' of %s must be a list of sizes such as [48x48, 96x96] or [any]", iwhat);
        } else {
            icon->sizes = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *icon->sizes);
            for (size_t i = 0; icon->sizes && i < v->n; i++) {
                const idl_node *z = v->items[i];
                if (z->kind == IDL_NODE_MAP || z->kind == IDL_NODE_SEQ || !ck_is_str(z) || !is_icon_size(z->str))
                    ERR(c, z->loc, "size '%s' of %s must be WxH in pixels (like 48x48) or 'any'", ck_scalar_text(z),
                        iwhat);
                else
                    icon->sizes[icon->nsizes++] = z->str;
            }
        }
    }
    if ((v = idl_map_get(m, "theme"))) {
        if (ck_str_eq(v, "light") || ck_str_eq(v, "dark"))
            icon->theme = v->str;
        else
            ERR(c, v->loc, "'theme' of %s must be light or dark, not '%s'", iwhat, ck_scalar_text(v));
    }
}

static void parse_icons(checker *c, const idl_node *v, const char *what, ir_display *out)
{
    if (v->kind == IDL_NODE_NULL)
        return;
    if (v->kind != IDL_NODE_SEQ) {
        ERR(c, v->loc, "'icons' of %s must be a list of icons, each {src, mimeType, sizes, theme}", what);
        return;
    }
    out->has_icons = true;
    out->icons = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *out->icons);
    if (!out->icons)
        return;
    for (size_t i = 0; i < v->n; i++) {
        const idl_node *m = v->items[i];
        if (m->kind != IDL_NODE_MAP) {
            ERR(c, m->loc, "an icon of %s must be a mapping {src, mimeType, sizes, theme}, not %s", what,
                m->kind == IDL_NODE_SEQ ? "a sequence" : idl_fmt(c->a, "'%s'", ck_scalar_text(m)));
            continue;
        }
        parse_icon(c, m, what, &out->icons[out->nicons++]);
    }
}

/* The offset of the first byte of a _meta key that breaks MCP's rules, or
 * len; *why says which rule. A key is [PREFIX/]NAME: PREFIX labels joined by
 * '.', each starting with a letter and ending with a letter or digit, with
 * letters, digits and '-' inside; NAME empty, or starting and ending with a
 * letter or digit, with letters, digits, '-', '_' and '.' inside. */
static size_t meta_key_bad_at(const char *k, size_t len, const char **why)
{
    const char *slash = memchr(k, '/', len);
    size_t name_at = 0;
    if (slash) {
        size_t plen = (size_t)(slash - k);
        size_t start = 0;
        for (size_t i = 0; i <= plen; i++) {
            if (i < plen && k[i] != '.') {
                if (!(is_alnum(k[i]) || k[i] == '-')) {
                    *why = "a label of the prefix holds letters, digits and '-'";
                    return i;
                }
                continue;
            }
            if (i == start) {
                *why = "a label of the prefix cannot be empty";
                return i;
            }
            if (!is_alpha(k[start])) {
                *why = "a label of the prefix starts with a letter";
                return start;
            }
            if (!is_alnum(k[i - 1])) {
                *why = "a label of the prefix ends with a letter or a digit";
                return i - 1;
            }
            start = i + 1;
        }
        name_at = plen + 1;
    }
    if (name_at == len) {
        if (!slash) {
            *why = "a key cannot be empty";
            return 0;
        }
        return len;
    }
    for (size_t i = name_at; i < len; i++)
        if (!(is_alnum(k[i]) || k[i] == '-' || k[i] == '_' || k[i] == '.')) {
            *why = k[i] == '/' ? "a key has one '/', after its prefix"
                               : "the name holds letters, digits, '-', '_' and '.'";
            return i;
        }
    if (!is_alnum(k[name_at])) {
        *why = "the name starts with a letter or a digit";
        return name_at;
    }
    if (!is_alnum(k[len - 1])) {
        *why = "the name ends with a letter or a digit";
        return len - 1;
    }
    return len;
}

/* Whether the prefix of key k (before its '/') is one MCP reserves: its
 * second label is 'modelcontextprotocol' or 'mcp'. */
static bool meta_prefix_reserved(const char *k)
{
    const char *slash = strchr(k, '/');
    const char *dot = memchr(k, '.', slash ? (size_t)(slash - k) : 0);
    if (!slash || !dot)
        return false;
    const char *second = dot + 1;
    const char *end = second;
    while (end < slash && *end != '.')
        end++;
    size_t n = (size_t)(end - second);
    return (n == 20 && memcmp(second, "modelcontextprotocol", 20) == 0) || (n == 3 && memcmp(second, "mcp", 3) == 0);
}

static const mcp_json *parse_meta(checker *c, const idl_node *m, const char *what)
{
    if (m->kind == IDL_NODE_NULL)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'_meta' of %s must be a mapping of keys (like com.example/key) to values", what);
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; i < m->n; i++) {
        const idl_node *k = m->pairs[i].key;
        const char *why = NULL;
        size_t bad = meta_key_bad_at(k->str, k->len, &why);
        if (bad < k->len || why) {
            ERR(c, k->len ? ck_loc_in_scalar(c, k, bad) : k->loc,
                "invalid '_meta' key '%s' of %s: %s (MCP's rule: [prefix/]name, like com.example/key)", k->str, what,
                why);
            ok = false;
        } else if (meta_prefix_reserved(k->str)) {
            ERR(c, k->loc,
                "'_meta' key '%s' of %s has a prefix MCP reserves (its second label is 'modelcontextprotocol' or "
                "'mcp'); use a prefix of your own, like com.example/",
                k->str, what);
            ok = false;
        }
        if (!ck_json_value_ok(c, m->pairs[i].value, "_meta", what))
            ok = false;
    }
    return ok ? ck_value(c, m) : NULL;
}

void ck_display_of(checker *c, const idl_node *body, const char *what, ir_display *out)
{
    memset(out, 0, sizeof *out);
    const idl_node *v = idl_map_get(body, "icons");
    if (v)
        parse_icons(c, v, what, out);
    if ((v = idl_map_get(body, "_meta")))
        out->meta = parse_meta(c, v, what);
}

void ck_server_display(checker *c, const idl_node *server)
{
    ir_server *s = c->srv;
    const idl_node *v = idl_map_get(server, "description");
    if (v)
        s->description = ck_description(c, v, "the server's 'description'");
    if (s->description && !s->description[0])
        s->description = NULL;
    if ((v = idl_map_get(server, "websiteUrl"))) {
        s->website_url = absolute_uri(c, v, "websiteUrl", "the server", "https://example.com");
        if (s->website_url && strncmp(s->website_url, "http://", 7) != 0 && strncmp(s->website_url, "https://", 8) != 0)
            ERR(c, v->loc, "'websiteUrl' of the server must be an http: or https: URL, not '%s'", s->website_url);
    }
    ck_display_of(c, server, "the server", &s->display);
}
