/* check_registry.c: the `registry:` section, what the MCP Registry's
 * server.json takes beyond the server's name, title and version (mcpidlc
 * --emit=server-json), checked against the registry's schema (2025-09-29):
 * unknown keys, types, the reverse-DNS name, the description's 100
 * characters, package and transport kinds, URLs. The section becomes JSON
 * values in the IR, with defaults filled in (a package's version is the
 * server's, its transport stdio). Also what server.json derives from the rest
 * of the file, and why it cannot be written when something is missing.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check_int.h"

#define DESCRIPTION_MAX 100
#define TITLE_MAX 100
#define VERSION_MAX 255
#define ICON_SRC_MAX 255

/* ---------------------------------------------------------------- derived values */

size_t ir_utf8_length(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static bool is_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
}

bool ir_registry_name_ok(const char *s)
{
    size_t n = strlen(s);
    const char *slash = strchr(s, '/');
    if (n < 3 || n > 200 || !slash || slash == s || !slash[1])
        return false;
    for (const char *p = s; p < slash; p++)
        if (!is_alnum(*p) && *p != '.' && *p != '-')
            return false;
    for (const char *p = slash + 1; *p; p++)
        if (!is_alnum(*p) && *p != '.' && *p != '_' && *p != '-')
            return false;
    return true;
}

/* The server's instructions stand in for a description when they are one
 * line of 1 to 100 characters. */
static bool fits_description(const char *s)
{
    return s && s[0] && !strpbrk(s, "\r\n") && ir_utf8_length(s) <= DESCRIPTION_MAX;
}

const char *ir_registry_name(const ir_server *srv)
{
    if (srv->registry.name)
        return srv->registry.name;
    return srv->name && ir_registry_name_ok(srv->name) ? srv->name : NULL;
}

const char *ir_registry_description(const ir_server *srv)
{
    if (srv->registry.description)
        return srv->registry.description;
    if (fits_description(srv->description))
        return srv->description;
    return fits_description(srv->instructions) ? srv->instructions : NULL;
}

/* Why v cannot be a registry version (a range, 'latest', too long), or NULL. */
static const char *version_problem(const char *v)
{
    if (!v[0])
        return "is empty";
    if (strcmp(v, "latest") == 0)
        return "is 'latest', not a version";
    if (ir_utf8_length(v) > VERSION_MAX)
        return "is longer than 255 characters";
    if (strchr("^~<>=", v[0]) || strpbrk(v, " *|"))
        return "is a range; the registry takes one exact version";
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ".");
        if (n == 1 && (*p == 'x' || *p == 'X'))
            return "is a range; the registry takes one exact version";
        p += n;
        if (*p)
            p++;
    }
    return NULL;
}

typedef struct msgbuf {
    char *s;
    size_t cap, len;
} msgbuf;

__attribute__((format(printf, 2, 3))) static void say(msgbuf *m, const char *fmt, ...)
{
    if (!m->cap || m->len + 1 >= m->cap)
        return;
    if (m->len)
        m->s[m->len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(m->s + m->len, m->cap - m->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        m->len = m->len + (size_t)k < m->cap ? m->len + (size_t)k : m->cap - 1;
}

bool ir_registry_complete(const ir_server *srv, char *msg, size_t cap)
{
    msgbuf m = {msg, cap, 0};
    if (cap)
        msg[0] = 0;
    bool ok = true;
    if (!ir_registry_name(srv)) {
        say(&m,
            "the server's name '%s' is not a registry name (reverse-DNS OWNER/NAME, like io.github.OWNER/%s): give "
            "one as 'registry: {name: ...}'.",
            srv->name ? srv->name : "", srv->name ? srv->name : "NAME");
        ok = false;
    }
    if (!ir_registry_description(srv)) {
        say(&m, "server.json needs a description of 1 to 100 characters: give one as 'registry: {description: ...}' "
                "(the server's 'instructions' stand in when they are one line of at most 100 characters).");
        ok = false;
    }
    if (srv->title && (!srv->title[0] || ir_utf8_length(srv->title) > TITLE_MAX)) {
        say(&m, "the server's 'title' must have 1 to 100 characters to be published in server.json.");
        ok = false;
    }
    const char *why = srv->version ? version_problem(srv->version) : "is missing";
    if (why) {
        say(&m, "the server's 'version' %s.", why);
        ok = false;
    }
    return ok;
}

/* ---------------------------------------------------------------- readers */

/* The name of a part in messages, into w[0..n), cut when too long. */
__attribute__((format(printf, 3, 4))) static void fmtw(char *w, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, n, fmt, ap);
    va_end(ap);
}

static mcp_json *jstr(checker *c, const char *s) { return mcp_json_new_string(c->a, s, strlen(s)); }

/* Set key in o (o and v may be NULL after running out of memory: nothing then). */
static void put(checker *c, mcp_json *o, const char *key, mcp_json *v)
{
    if (o && v && !mcp_json_set(c->a, o, key, v))
        return;
}

static void add(checker *c, mcp_json *arr, mcp_json *v)
{
    if (arr && v && !mcp_json_append(c->a, arr, v))
        return;
}

/* A string value, not empty when `nonempty`; NULL after an error. */
static const char *str_of(checker *c, const idl_node *n, bool nonempty, const char *what)
{
    const char *s = ck_string(c, n, what);
    if (s && nonempty && !s[0]) {
        ERR(c, n->loc, "%s cannot be empty", what);
        return NULL;
    }
    return s;
}

/* An http:// or https:// URL (only https:// when `https`): the scheme, then a
 * host, and no white space. */
static const char *url_of(checker *c, const idl_node *n, bool https, const char *what)
{
    const char *s = ck_string(c, n, what);
    if (!s)
        return NULL;
    size_t skip = strncmp(s, "https://", 8) == 0 ? 8 : !https && strncmp(s, "http://", 7) == 0 ? 7 : 0;
    bool ok = skip && s[skip] && s[skip] != '/';
    for (const char *p = s; ok && *p; p++)
        ok = (unsigned char)*p > ' ' && *p != 0x7f;
    if (!ok) {
        ERR(c, n->loc, "%s must be %s URL, not '%s'", what, https ? "an https://" : "an http:// or https://", s);
        return NULL;
    }
    return s;
}

/* One of choices[0..n): its index, or -1 after an error. */
static int choice_of(checker *c, const idl_node *n, const char *const *choices, size_t nchoices, const char *what)
{
    if (ck_is_str(n))
        for (size_t i = 0; i < nchoices; i++)
            if (strcmp(n->str, choices[i]) == 0)
                return (int)i;
    char list[200] = "";
    for (size_t i = 0, len = 0; i < nchoices && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? (i + 1 == nchoices ? " or " : ", ") : "",
                                choices[i]);
    ERR(c, n->loc, "%s must be %s, not %s '%s'", what, list, idl_node_kind_name(n), ck_scalar_text(n));
    return -1;
}

static mcp_json *bool_of(checker *c, const idl_node *n, const char *what)
{
    if (n->kind != IDL_NODE_BOOL) {
        ERR(c, n->loc, "%s must be true or false, not %s '%s'", what, idl_node_kind_name(n), ck_scalar_text(n));
        return NULL;
    }
    return mcp_json_new_bool(c->a, n->v.b);
}

/* A sequence, or NULL after an error. */
static const idl_node *seq_of(checker *c, const idl_node *n, const char *what)
{
    if (n->kind == IDL_NODE_SEQ)
        return n;
    ERR(c, n->loc, "%s must be a list, not %s", what, idl_node_kind_name(n));
    return NULL;
}

/* A mapping, or NULL after an error that says what it holds. */
static const idl_node *map_of(checker *c, const idl_node *n, const char *what, const char *keys)
{
    if (n->kind == IDL_NODE_MAP)
        return n;
    ERR(c, n->loc, "%s must be a mapping {%s}, not %s", what, keys, idl_node_kind_name(n));
    return NULL;
}

static mcp_json *string_list(checker *c, const idl_node *n, const char *what)
{
    if (!seq_of(c, n, what))
        return NULL;
    mcp_json *arr = mcp_json_new_array(c->a);
    for (size_t i = 0; i < n->n; i++) {
        char w[300];
        fmtw(w, sizeof w, "item %zu of %s", i + 1, what);
        const char *s = ck_string(c, n->items[i], w);
        if (s)
            add(c, arr, jstr(c, s));
    }
    return arr;
}

/* Read the keys of `map` that are plain strings (keys[0..n)), in that order,
 * into o. */
static void strings_into(checker *c, const idl_node *map, const char *const *keys, size_t n, const char *what,
                         mcp_json *o)
{
    for (size_t i = 0; i < n; i++) {
        const idl_node *v = idl_map_get(map, keys[i]);
        if (!v)
            continue;
        char w[300];
        fmtw(w, sizeof w, "'%s' of %s", keys[i], what);
        const char *s = ck_string(c, v, w);
        if (s)
            put(c, o, keys[i], jstr(c, s));
    }
}

/* ---------------------------------------------------------------- inputs: headers and environment variables */

static const char *const INPUT_KEYS[] = {"name",   "description", "value",      "default", "placeholder",
                                         "format", "choices",     "isRequired", "isSecret"};
static const char *const ARGUMENT_KEYS[] = {"type",    "name",       "valueHint",   "description",
                                            "value",   "default",    "placeholder", "format",
                                            "choices", "isRequired", "isSecret",    "isRepeated"};
static const char *const INPUT_FORMATS[] = {"string", "number", "boolean", "filepath"};
static const char *const ARGUMENT_TYPES[] = {"positional", "named"};

/* The keys every input has (the registry's Input): description, value,
 * default, placeholder, format, choices, isRequired, isSecret. */
static void input_fields(checker *c, const idl_node *n, const char *what, mcp_json *o)
{
    char w[300];
    const idl_node *v;
    strings_into(c, n, INPUT_KEYS + 1, 4, what, o);
    if ((v = idl_map_get(n, "format"))) {
        fmtw(w, sizeof w, "'format' of %s", what);
        int k = choice_of(c, v, INPUT_FORMATS, COUNT(INPUT_FORMATS), w);
        if (k >= 0)
            put(c, o, "format", jstr(c, INPUT_FORMATS[k]));
    }
    if ((v = idl_map_get(n, "choices"))) {
        fmtw(w, sizeof w, "'choices' of %s", what);
        put(c, o, "choices", string_list(c, v, w));
    }
    for (size_t i = 7; i < COUNT(INPUT_KEYS); i++)
        if ((v = idl_map_get(n, INPUT_KEYS[i]))) {
            fmtw(w, sizeof w, "'%s' of %s", INPUT_KEYS[i], what);
            put(c, o, INPUT_KEYS[i], bool_of(c, v, w));
        }
}

/* The 'name' of input n (required when `required`) into o. */
static void input_name(checker *c, const idl_node *n, bool required, const char *what, mcp_json *o)
{
    const idl_node *v = idl_map_get(n, "name");
    char w[300];
    if (!v && required)
        ERR(c, n->loc, "%s has no 'name'", what);
    else if (v) {
        fmtw(w, sizeof w, "'name' of %s", what);
        const char *s = str_of(c, v, true, w);
        if (s)
            put(c, o, "name", jstr(c, s));
    }
}

/* A header or an environment variable (the registry's KeyValueInput). */
static mcp_json *key_value_input(checker *c, const idl_node *n, const char *what)
{
    if (!map_of(c, n, what, "name, description, value, default, ..."))
        return NULL;
    ck_keys(c, n, INPUT_KEYS, COUNT(INPUT_KEYS), NULL, 0, what);
    mcp_json *o = mcp_json_new_object(c->a);
    input_name(c, n, true, what, o);
    input_fields(c, n, what, o);
    return o;
}

/* A command-line argument of a package or of its runtime (the registry's
 * Argument): positional (a valueHint or a value) or named (--flag). */
static mcp_json *argument_of(checker *c, const idl_node *n, const char *what)
{
    if (!map_of(c, n, what, "type: positional | named, name, valueHint, value, ..."))
        return NULL;
    ck_keys(c, n, ARGUMENT_KEYS, COUNT(ARGUMENT_KEYS), NULL, 0, what);
    mcp_json *o = mcp_json_new_object(c->a);
    char w[300];
    const idl_node *v = idl_map_get(n, "type");
    int k = -1;
    if (!v)
        ERR(c, n->loc, "%s has no 'type' (positional or named)", what);
    else {
        fmtw(w, sizeof w, "'type' of %s", what);
        if ((k = choice_of(c, v, ARGUMENT_TYPES, COUNT(ARGUMENT_TYPES), w)) >= 0)
            put(c, o, "type", jstr(c, ARGUMENT_TYPES[k]));
    }
    if (k == 0 && idl_map_get(n, "name"))
        ERR(c, ck_map_key(n, "name")->loc,
            "a positional argument has no 'name': it is a 'value' or a 'valueHint' (a named argument is --name)");
    else if (k == 1 && !idl_map_get(n, "name"))
        ERR(c, n->loc, "%s, a named argument, has no 'name' (the flag, like --port)", what);
    else
        input_name(c, n, false, what, o);
    if (k == 0 && !idl_map_get(n, "valueHint") && !idl_map_get(n, "value"))
        ERR(c, n->loc, "%s, a positional argument, has neither a 'valueHint' nor a 'value'", what);
    strings_into(c, n, ARGUMENT_KEYS + 2, 1, what, o);
    input_fields(c, n, what, o);
    if ((v = idl_map_get(n, "isRepeated"))) {
        fmtw(w, sizeof w, "'isRepeated' of %s", what);
        put(c, o, "isRepeated", bool_of(c, v, w));
    }
    return o;
}

/* The list `key` of `owner` (headers, environmentVariables, packageArguments,
 * ...), each item read by `read`; `item` names one ("header"). */
static mcp_json *inputs_of(checker *c, const idl_node *n, const char *key, const char *item, const char *owner,
                           mcp_json *(*read)(checker *c, const idl_node *n, const char *what))
{
    char w[300];
    fmtw(w, sizeof w, "'%s' of %s", key, owner);
    if (!seq_of(c, n, w))
        return NULL;
    mcp_json *arr = mcp_json_new_array(c->a);
    for (size_t i = 0; i < n->n; i++) {
        fmtw(w, sizeof w, "%s %zu of %s", item, i + 1, owner);
        add(c, arr, read(c, n->items[i], w));
    }
    return arr;
}

/* ---------------------------------------------------------------- transports */

static const char *const TRANSPORT_KEYS[] = {"type", "url", "headers"};
static const char *const TRANSPORT_TYPES[] = {"stdio", "streamable-http", "sse"};

/* A transport: a package's (stdio, streamable-http or sse; a string names the
 * type alone) or a remote (streamable-http or sse). */
static mcp_json *transport_of(checker *c, const idl_node *n, bool remote, const char *what)
{
    const char *const *types = remote ? TRANSPORT_TYPES + 1 : TRANSPORT_TYPES;
    size_t ntypes = remote ? 2 : 3;
    char w[300];
    mcp_json *o = mcp_json_new_object(c->a);
    if (!remote && ck_is_str(n)) {
        fmtw(w, sizeof w, "the type of %s", what);
        int k = choice_of(c, n, types, ntypes, w);
        if (k > 0)
            ERR(c, n->loc, "%s '%s' needs a 'url': write {type: %s, url: ...}", what, types[k], types[k]);
        if (k == 0)
            put(c, o, "type", jstr(c, "stdio"));
        return o;
    }
    if (!map_of(c, n, what, remote ? "type, url, headers" : "type, url, headers; or stdio"))
        return NULL;
    ck_keys(c, n, TRANSPORT_KEYS, COUNT(TRANSPORT_KEYS), NULL, 0, what);
    const idl_node *type = idl_map_get(n, "type");
    int k = -1;
    if (!type)
        ERR(c, n->loc, "%s has no 'type' (%s)", what,
            remote ? "streamable-http or sse" : "stdio, streamable-http or sse");
    else {
        fmtw(w, sizeof w, "'type' of %s", what);
        if ((k = choice_of(c, type, types, ntypes, w)) >= 0) {
            put(c, o, "type", jstr(c, types[k]));
            k += remote; /* an index of TRANSPORT_TYPES */
        }
    }
    bool http = remote || k > 0;
    const idl_node *url = idl_map_get(n, "url"), *headers = idl_map_get(n, "headers");
    if (k == 0 && (url || headers)) {
        ERR(c, ck_map_key(n, url ? "url" : "headers")->loc,
            "a stdio transport has no '%s': the client starts the package and talks over its standard input and "
            "output",
            url ? "url" : "headers");
    } else if (http && !url && k >= 0)
        ERR(c, n->loc, "%s has no 'url' (where the client reaches the server)", what);
    if (http && url) {
        fmtw(w, sizeof w, "'url' of %s", what);
        const char *s = url_of(c, url, false, w);
        if (s)
            put(c, o, "url", jstr(c, s));
    }
    if (http && headers) {
        put(c, o, "headers", inputs_of(c, headers, "headers", "header", what, key_value_input));
    }
    return o;
}

/* ---------------------------------------------------------------- packages */

static const char *const PACKAGE_KEYS[] = {"registryType",     "registryBaseUrl",     "identifier", "version",
                                           "fileSha256",       "runtimeHint",         "transport",  "runtimeArguments",
                                           "packageArguments", "environmentVariables"};
static const char *const REGISTRY_TYPES[] = {"npm", "pypi", "nuget", "oci", "mcpb"};
enum { RT_NPM, RT_PYPI, RT_NUGET, RT_OCI, RT_MCPB };

static bool is_sha256(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    return n == 64;
}

static mcp_json *package_of(checker *c, const idl_node *n, const char *what)
{
    if (!map_of(c, n, what, "registryType, identifier, version, transport, ..."))
        return NULL;
    ck_keys(c, n, PACKAGE_KEYS, COUNT(PACKAGE_KEYS), NULL, 0, what);
    mcp_json *o = mcp_json_new_object(c->a);
    char w[300];
    const idl_node *v = idl_map_get(n, "registryType");
    int rt = -1;
    if (!v)
        ERR(c, n->loc, "%s has no 'registryType' (npm, pypi, nuget, oci or mcpb)", what);
    else {
        fmtw(w, sizeof w, "'registryType' of %s", what);
        if ((rt = choice_of(c, v, REGISTRY_TYPES, COUNT(REGISTRY_TYPES), w)) >= 0)
            put(c, o, "registryType", jstr(c, REGISTRY_TYPES[rt]));
    }
    bool by_name = rt == RT_NPM || rt == RT_PYPI || rt == RT_NUGET;
    if ((v = idl_map_get(n, "registryBaseUrl"))) {
        fmtw(w, sizeof w, "'registryBaseUrl' of %s", what);
        if (rt >= 0 && !by_name)
            ERR(c, ck_map_key(n, "registryBaseUrl")->loc,
                "'registryBaseUrl' belongs to npm, pypi and nuget packages, not to a package of type %s",
                REGISTRY_TYPES[rt]);
        else {
            const char *s = url_of(c, v, false, w);
            if (s)
                put(c, o, "registryBaseUrl", jstr(c, s));
        }
    }
    if (!(v = idl_map_get(n, "identifier")))
        ERR(c, n->loc, "%s has no 'identifier' (%s)", what,
            rt == RT_OCI    ? "the image reference, with its tag or digest"
            : rt == RT_MCPB ? "the https:// URL of the file"
                            : "the package's name in its registry");
    else {
        fmtw(w, sizeof w, "'identifier' of %s", what);
        const char *s = rt == RT_MCPB ? url_of(c, v, true, w) : str_of(c, v, true, w);
        if (s)
            put(c, o, "identifier", jstr(c, s));
    }
    if ((v = idl_map_get(n, "version"))) {
        fmtw(w, sizeof w, "'version' of %s", what);
        if (rt >= 0 && !by_name)
            ERR(c, ck_map_key(n, "version")->loc, "'version' belongs to npm, pypi and nuget packages: %s",
                rt == RT_OCI ? "an oci image's version is its tag or digest, in 'identifier'"
                             : "an mcpb file is named by its URL, in 'identifier'");
        else if (v->kind == IDL_NODE_INT || v->kind == IDL_NODE_FLOAT)
            ERR(c, v->loc, "%s must be a string: YAML reads %s as a number; quote it: \"%s\"", w, v->str, v->str);
        else {
            const char *s = ck_string(c, v, w);
            const char *why = s ? version_problem(s) : NULL;
            if (why)
                ERR(c, v->loc, "%s %s", w, why);
            else if (s)
                put(c, o, "version", jstr(c, s));
        }
    } else if (by_name && c->srv->version)
        put(c, o, "version", jstr(c, c->srv->version));
    v = idl_map_get(n, "fileSha256");
    if (v && rt >= 0 && rt != RT_MCPB)
        ERR(c, ck_map_key(n, "fileSha256")->loc, "'fileSha256' belongs to mcpb packages, not to a package of type %s",
            REGISTRY_TYPES[rt]);
    else if (v) {
        fmtw(w, sizeof w, "'fileSha256' of %s", what);
        const char *s = ck_string(c, v, w);
        if (s && !is_sha256(s))
            ERR(c, v->loc, "%s must be the SHA-256 of the file in 64 lowercase hexadecimal digits, not '%s'", w, s);
        else if (s)
            put(c, o, "fileSha256", jstr(c, s));
    } else if (rt == RT_MCPB)
        ERR(c, n->loc, "%s has no 'fileSha256' (the SHA-256 of the file, which clients check)", what);
    strings_into(c, n, PACKAGE_KEYS + 5, 1, what, o);
    fmtw(w, sizeof w, "the transport of %s", what);
    if ((v = idl_map_get(n, "transport")))
        put(c, o, "transport", transport_of(c, v, false, w));
    else {
        mcp_json *t = mcp_json_new_object(c->a);
        put(c, t, "type", jstr(c, "stdio"));
        put(c, o, "transport", t);
    }
    if ((v = idl_map_get(n, "runtimeArguments")))
        put(c, o, "runtimeArguments", inputs_of(c, v, "runtimeArguments", "runtime argument", what, argument_of));
    if ((v = idl_map_get(n, "packageArguments")))
        put(c, o, "packageArguments", inputs_of(c, v, "packageArguments", "package argument", what, argument_of));
    if ((v = idl_map_get(n, "environmentVariables")))
        put(c, o, "environmentVariables",
            inputs_of(c, v, "environmentVariables", "environment variable", what, key_value_input));
    return o;
}

/* ---------------------------------------------------------------- icons, repository */

static const char *const ICON_KEYS[] = {"src", "mimeType", "sizes", "theme"};
static const char *const ICON_TYPES[] = {"image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp"};
static const char *const ICON_THEMES[] = {"light", "dark"};

static bool size_ok(const char *s)
{
    if (strcmp(s, "any") == 0)
        return true;
    size_t a = strspn(s, "0123456789");
    if (!a || s[a] != 'x')
        return false;
    size_t b = strspn(s + a + 1, "0123456789");
    return b && !s[a + 1 + b];
}

static mcp_json *icon_of(checker *c, const idl_node *n, const char *what)
{
    if (!map_of(c, n, what, "src, mimeType, sizes, theme"))
        return NULL;
    ck_keys(c, n, ICON_KEYS, COUNT(ICON_KEYS), NULL, 0, what);
    mcp_json *o = mcp_json_new_object(c->a);
    char w[300];
    const idl_node *v = idl_map_get(n, "src");
    if (!v)
        ERR(c, n->loc, "%s has no 'src' (the https:// URL of the image)", what);
    else {
        fmtw(w, sizeof w, "'src' of %s", what);
        const char *s = url_of(c, v, true, w);
        if (s && ir_utf8_length(s) > ICON_SRC_MAX)
            ERR(c, v->loc, "%s has %zu characters; server.json allows at most %d", w, ir_utf8_length(s), ICON_SRC_MAX);
        else if (s)
            put(c, o, "src", jstr(c, s));
    }
    if ((v = idl_map_get(n, "mimeType"))) {
        fmtw(w, sizeof w, "'mimeType' of %s", what);
        int k = choice_of(c, v, ICON_TYPES, COUNT(ICON_TYPES), w);
        if (k >= 0)
            put(c, o, "mimeType", jstr(c, ICON_TYPES[k]));
    }
    if ((v = idl_map_get(n, "sizes"))) {
        fmtw(w, sizeof w, "'sizes' of %s", what);
        mcp_json *sizes = string_list(c, v, w);
        for (size_t i = 0; sizes && i < v->n; i++)
            if (ck_is_str(v->items[i]) && !size_ok(v->items[i]->str))
                ERR(c, v->items[i]->loc, "a size of %s must be WIDTHxHEIGHT (48x48) or any, not '%s'", what,
                    v->items[i]->str);
        put(c, o, "sizes", sizes);
    }
    if ((v = idl_map_get(n, "theme"))) {
        fmtw(w, sizeof w, "'theme' of %s", what);
        int k = choice_of(c, v, ICON_THEMES, COUNT(ICON_THEMES), w);
        if (k >= 0)
            put(c, o, "theme", jstr(c, ICON_THEMES[k]));
    }
    return o;
}

static const char *const REPOSITORY_KEYS[] = {"url", "source", "id", "subfolder"};

static mcp_json *repository_of(checker *c, const idl_node *n)
{
    const char *what = "the registry's 'repository'";
    if (!map_of(c, n, what, "url, source, id, subfolder"))
        return NULL;
    ck_keys(c, n, REPOSITORY_KEYS, COUNT(REPOSITORY_KEYS), NULL, 0, what);
    mcp_json *o = mcp_json_new_object(c->a);
    const idl_node *v = idl_map_get(n, "url");
    if (!v)
        ERR(c, n->loc, "%s has no 'url' (where the source code is)", what);
    else {
        const char *s = url_of(c, v, false, "'url' of the registry's 'repository'");
        if (s)
            put(c, o, "url", jstr(c, s));
    }
    if (!(v = idl_map_get(n, "source")))
        ERR(c, n->loc, "%s has no 'source' (the hosting service: github, gitlab, ...)", what);
    else {
        const char *s = str_of(c, v, true, "'source' of the registry's 'repository'");
        if (s)
            put(c, o, "source", jstr(c, s));
    }
    strings_into(c, n, REPOSITORY_KEYS + 2, 1, what, o);
    if ((v = idl_map_get(n, "subfolder"))) {
        const char *s = str_of(c, v, true, "'subfolder' of the registry's 'repository'");
        bool clean = s && s[0] != '/' && !strstr(s, "//") && !strchr(s, '\\');
        for (const char *p = s; clean && *p;) {
            size_t k = strcspn(p, "/");
            clean = !(k == 2 && p[0] == '.' && p[1] == '.') && !(k == 1 && p[0] == '.');
            p += k;
            if (*p)
                p++;
        }
        if (s && !clean)
            ERR(c, v->loc,
                "'subfolder' of the registry's 'repository' must be a clean relative path (no leading '/', no '.' "
                "or '..'), not '%s'",
                s);
        else if (s)
            put(c, o, "subfolder", jstr(c, s));
    }
    return o;
}

/* ---------------------------------------------------------------- the section */

static const char *const REGISTRY_KEYS[] = {"name",  "description", "websiteUrl", "repository",
                                            "icons", "packages",    "remotes"};

typedef mcp_json *(*item_fn)(checker *c, const idl_node *n, const char *what);

static mcp_json *remote_of(checker *c, const idl_node *n, const char *what) { return transport_of(c, n, true, what); }

static const mcp_json *items_of(checker *c, const idl_node *n, const char *key, const char *item, item_fn read)
{
    char w[300];
    fmtw(w, sizeof w, "the registry's '%s'", key);
    if (!seq_of(c, n, w))
        return NULL;
    mcp_json *arr = mcp_json_new_array(c->a);
    for (size_t i = 0; i < n->n; i++) {
        fmtw(w, sizeof w, "%s %zu of the registry", item, i + 1);
        add(c, arr, read(c, n->items[i], w));
    }
    return arr;
}

void ck_registry(checker *c, const idl_node *root)
{
    ir_registry *r = &c->srv->registry;
    const idl_node *n = idl_map_get(root, "registry");
    if (!n || n->kind == IDL_NODE_NULL)
        return;
    r->loc = ck_map_key(root, "registry")->loc;
    if (!map_of(c, n, "'registry'", "name, description, websiteUrl, repository, icons, packages, remotes"))
        return;
    r->present = true;
    ck_keys(c, n, REGISTRY_KEYS, COUNT(REGISTRY_KEYS), NULL, 0, "'registry'");
    const idl_node *v;
    if ((v = idl_map_get(n, "name"))) {
        const char *s = ck_string(c, v, "the registry's 'name'");
        if (s && !ir_registry_name_ok(s))
            ERR(c, v->loc,
                "the registry's 'name' must be reverse-DNS OWNER/NAME (letters, digits, '.' and '-', a '/', then "
                "letters, digits, '.', '_' and '-'; 3 to 200 characters), like io.github.OWNER/NAME, not '%s'",
                s);
        else if (s)
            r->name = s;
    }
    if ((v = idl_map_get(n, "description"))) {
        const char *s = ck_description(c, v, "the registry's 'description'");
        size_t len = s ? ir_utf8_length(s) : 0;
        if (v->kind == IDL_NODE_NULL || (s && !len))
            ERR(c, v->loc, "the registry's 'description' cannot be empty");
        else if (len > DESCRIPTION_MAX)
            ERR(c, v->loc, "the registry's 'description' has %zu characters; server.json allows at most %d", len,
                DESCRIPTION_MAX);
        else if (s)
            r->description = s;
    }
    if ((v = idl_map_get(n, "websiteUrl")))
        r->website_url = url_of(c, v, false, "the registry's 'websiteUrl'");
    if ((v = idl_map_get(n, "repository")))
        r->repository = repository_of(c, v);
    if ((v = idl_map_get(n, "icons")))
        r->icons = items_of(c, v, "icons", "icon", icon_of);
    if ((v = idl_map_get(n, "packages")))
        r->packages = items_of(c, v, "packages", "package", package_of);
    if ((v = idl_map_get(n, "remotes")))
        r->remotes = items_of(c, v, "remotes", "remote", remote_of);

    /* What server.json takes from the server, when the file says it is published. */
    const ir_server *s = c->srv;
    if (!idl_map_get(n, "name") && s->name && s->name[0] && !ir_registry_name_ok(s->name))
        ERR(c, r->loc,
            "'registry' has no 'name', and the server's name '%s' is not a registry name (reverse-DNS OWNER/NAME, "
            "like io.github.OWNER/%s); add one",
            s->name, s->name);
    if (!idl_map_get(n, "description") && !fits_description(s->instructions))
        ERR(c, r->loc,
            "'registry' has no 'description' (1 to 100 characters, shown in the registry), and the server's "
            "'instructions' cannot stand in: they are absent, or not one line of at most 100 characters");
    const idl_node *server = idl_map_get(root, "server");
    const idl_node *title = server && server->kind == IDL_NODE_MAP ? idl_map_get(server, "title") : NULL;
    if (title && s->title && (!s->title[0] || ir_utf8_length(s->title) > TITLE_MAX))
        ERR(c, title->loc, "the server's 'title' has %zu characters; server.json allows 1 to %d",
            ir_utf8_length(s->title), TITLE_MAX);
    const idl_node *version = server && server->kind == IDL_NODE_MAP ? idl_map_get(server, "version") : NULL;
    const char *why = version && s->version ? version_problem(s->version) : NULL;
    if (why)
        ERR(c, version->loc, "the server's 'version' %s (server.json publishes it)", why);
}
