/* check_beyond.c: the parts of a .mcp.yaml file beyond tools and types.
 *
 *   resources            name: {uri, title, description, mimeType, text | blob}
 *   resource_templates   name: {uriTemplate, title, description, mimeType, complete}
 *   prompts              name: {description, title, arguments, complete}
 *   elicitations         name: {message, fields}
 *
 * Each becomes IR for the C back end. An elicitation's fields are checked
 * against the restricted schema MCP allows for elicitation/create (flat;
 * strings, numbers, integers, booleans, enums and arrays of enum values), and
 * become a record the runtime decodes the user's answer into.
 */
#include <math.h>
#include <string.h>

#include "check_int.h"
#include "mcpidl/buf.h"
#include "internal/uritemplate.h"
#include "internal/utf8.h"

static const char *const RESOURCE_KEYS[] = {"uri",    "title", "description", "mimeType", "text", "blob",
                                            "c_name", "cache", "scopes",      "icons",    "_meta"};
static const char *const TEMPLATE_KEYS[] = {"uriTemplate", "title", "description", "mimeType", "complete",
                                            "c_name",      "cache", "scopes",      "icons",    "_meta"};
static const char *const PROMPT_KEYS[] = {"description", "title",  "arguments", "complete",
                                          "c_name",      "scopes", "icons",     "_meta"};
static const char *const ARG_KEYS[] = {"description", "title", "required", "c_name"};
static const char *const ELICIT_KEYS[] = {"message", "fields", "c_name"};
static const char *const FORM_KEYS[] = {"type",      "values",  "multiple", "enum_names", "description",
                                        "title",     "default", "required", "format",     "minLength",
                                        "maxLength", "minimum", "maximum",  "c_name",     "c_type"};

/* ---------------------------------------------------------------- small helpers */

static const char *optional_string(checker *c, const idl_node *body, const char *key)
{
    const idl_node *v = idl_map_get(body, key);
    if (!v || v->kind == IDL_NODE_NULL)
        return NULL;
    char what[64];
    idl_snprintf(what, sizeof what, "'%s'", key);
    return ck_string(c, v, what);
}

/* What a node is, for "..., not X": "a string 'abc'", "an integer '3'", or just
 * "a mapping", "a sequence", "null" (whose text says nothing more). */
static const char *node_desc(checker *c, const idl_node *n)
{
    if (n->kind == IDL_NODE_MAP || n->kind == IDL_NODE_SEQ || n->kind == IDL_NODE_NULL)
        return idl_node_kind_name(n);
    const char *s = idl_fmt(c->a, "%s '%s'", idl_node_kind_name(n), n->str);
    return s ? s : idl_node_kind_name(n);
}

/* A boolean value, or false after an error. */
static bool read_bool(checker *c, const idl_node *v, const char *key, bool *out)
{
    if (v->kind != IDL_NODE_BOOL) {
        ERR(c, v->loc, "'%s' must be true or false, not %s", key, node_desc(c, v));
        return false;
    }
    *out = v->v.b;
    return true;
}

static bool name_ok(checker *c, const idl_node *key, const char *kind)
{
    if (key->len == 0) {
        ERR(c, key->loc, "a %s name cannot be empty", kind);
        return false;
    }
    if (memchr(key->str, 0, key->len)) {
        ERR(c, key->loc, "a %s name cannot contain a NUL character", kind);
        return false;
    }
    return true;
}

/* Standard base64 (RFC 4648 section 4, padded): the offset of the first byte
 * that cannot be there, n when every byte can but the length is not a
 * multiple of 4, or (size_t)-1 when it is valid. Bytes come first: a stray
 * character is what a user must be shown, and it makes the length wrong too. */
static size_t base64_bad_at(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '+' ||
                  ch == '/';
        /* '=' only as the last one or two characters of a complete group. */
        if (!ok && ch == '=')
            ok = n % 4 == 0 && i + 2 >= n && (i + 1 == n || s[n - 1] == '=');
        if (!ok)
            return i;
    }
    return n % 4 == 0 ? (size_t)-1 : n;
}

/* The character at s (n bytes left) as a message shows it: 'x', a whole UTF-8
 * sequence, or a word for what would not print. */
static const char *char_desc(checker *c, const char *s, size_t n)
{
    unsigned char b = (unsigned char)s[0];
    if (b == '\n' || b == '\r')
        return "a line break";
    if (b < 0x20 || b == 0x7f)
        return "a control character";
    size_t len = mcp_utf8_seq((const unsigned char *)s, n, NULL, NULL);
    if (len == 0)
        len = 1;
    const char *d = idl_fmt(c->a, "'%.*s'", (int)len, s);
    return d ? d : "this character";
}

/* ---------------------------------------------------------------- completions */

/* `complete:` of a prompt or template: NAME: [values...] | handler, where each
 * NAME is one of names[0..n). */
static ir_completion *parse_complete(checker *c, const idl_node *m, const char *const *names,
                                     const char *const *c_names, size_t n, const char *owner, const char *what_names,
                                     size_t *count)
{
    *count = 0;
    if (!m || m->kind == IDL_NODE_NULL)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'complete' of %s must be a mapping of %s: [values...] or handler, not %s", owner, what_names,
            idl_node_kind_name(m));
        return NULL;
    }
    ir_completion *out = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        bool known = false;
        const char *c_name = NULL;
        for (size_t j = 0; j < n && !known; j++)
            if ((known = strcmp(names[j], p->key->str) == 0))
                c_name = c_names[j];
        if (!known) {
            const char *near = idl_did_you_mean(p->key->str, names, n);
            if (n == 0)
                ERR(c, p->key->loc, "'complete' of %s names '%s', but it has no %s", owner, p->key->str, what_names);
            else if (near)
                ERR(c, p->key->loc, "'complete' of %s names '%s', which is not one of its %s; did you mean '%s'?",
                    owner, p->key->str, what_names, near);
            else
                ERR(c, p->key->loc, "'complete' of %s names '%s', which is not one of its %s", owner, p->key->str,
                    what_names);
            continue;
        }
        ir_completion *k = &out[*count];
        memset(k, 0, sizeof *k);
        k->name = p->key->str;
        k->c_name = c_name;
        k->loc = p->key->loc;
        const idl_node *v = p->value;
        if (ck_str_eq(v, "handler")) {
            k->handler = true;
        } else if (v->kind == IDL_NODE_SEQ) {
            k->values = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *k->values);
            if (!k->values)
                return NULL;
            for (size_t j = 0; j < v->n; j++) {
                const char *s = ck_string(c, v->items[j], "a completion value");
                if (s)
                    k->values[k->nvalues++] = s;
            }
        } else {
            ERR(c, v->loc, "the completion of '%s' must be a list of values or 'handler', not %s", k->name,
                node_desc(c, v));
            continue;
        }
        (*count)++;
    }
    return out;
}

/* ---------------------------------------------------------------- resources */

static void parse_resource(checker *c, ir_resource *r, const idl_pair *p)
{
    memset(r, 0, sizeof *r);
    r->name = p->key->str;
    r->loc = p->key->loc;
    name_ok(c, p->key, "resource");
    const idl_node *body = p->value;
    static const key_hint HINTS[] = {
        {"uriTemplate", "a resource with a 'uriTemplate' belongs in resource_templates; a resource has a fixed 'uri'"},
        {"complete", "'complete' applies to resource templates and prompts; a resource has no variables"},
    };
    ck_keysf(c, body, RESOURCE_KEYS, COUNT(RESOURCE_KEYS), HINTS, COUNT(HINTS), "resource '%s'", r->name);
    r->c_name = ck_c_name(c, body, r->name);
    const idl_node *uri = idl_map_get(body, "uri");
    if (!uri) {
        if (!idl_map_get(body, "uriTemplate")) /* else the hint above said it */
            ERR(c, p->key->loc, "resource '%s' has no 'uri' (its address, like test://name)", r->name);
    } else if (ck_string(c, uri, "'uri'")) {
        if (!ck_has_scheme(uri->str))
            ERR(c, uri->loc,
                "'uri' of resource '%s' must be an absolute URI with a scheme (like test://name), not '%s'", r->name,
                uri->str);
        else if (strchr(uri->str, '{'))
            ERR(c, uri->loc,
                "'uri' of resource '%s' contains '{': a URI with variables belongs in "
                "resource_templates (as uriTemplate)",
                r->name);
        r->uri = uri->str;
    }
    r->title = optional_string(c, body, "title");
    r->description = ck_description_of(c, body);
    r->mime_type = optional_string(c, body, "mimeType");
    const idl_node *text = idl_map_get(body, "text"), *blob = idl_map_get(body, "blob");
    if (text && blob)
        ERR(c, ck_map_key(body, "blob")->loc, "resource '%s' has both 'text' and 'blob': give one", r->name);
    if (text)
        r->text = ck_string(c, text, "'text'");
    if (blob && !text && ck_string(c, blob, "'blob'")) {
        size_t bad = base64_bad_at(blob->str, blob->len);
        if (bad < blob->len)
            ERR(c, ck_loc_in_scalar(c, blob, bad),
                "'blob' of resource '%s' must be standard base64 (RFC 4648: A-Z a-z 0-9 + /, padded with '=', no "
                "line breaks), not %s here",
                r->name, char_desc(c, blob->str + bad, blob->len - bad));
        else if (bad == blob->len)
            ERR(c, blob->loc,
                "'blob' of resource '%s' has %zu characters: base64 comes in groups of 4 (pad the last with '=')",
                r->name, blob->len);
        r->blob = blob->str;
    }
    char what[300];
    idl_snprintf(what, sizeof what, "resource '%s'", r->name);
    ck_cache_of(c, body, what, true, &r->cache);
    ck_scopes_of(c, body, what, &r->scopes);
    ck_display_of(c, body, what, &r->display);
}

static void parse_resources(checker *c, const idl_node *root)
{
    const idl_node *m = ck_section(c, root, "resources", "resource");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->resources = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->resources);
    if (!s->resources)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (!ck_body_ok(c, p, "resource", "uri, description, mimeType, text or blob"))
            continue;
        ir_resource *r = &s->resources[s->nresources];
        parse_resource(c, r, p);
        for (size_t j = 0; j < s->nresources && r->uri; j++)
            if (s->resources[j].uri && strcmp(s->resources[j].uri, r->uri) == 0) {
                ERR(c, idl_map_get(p->value, "uri")->loc, "resource '%s' has the same uri as resource '%s' (line %u)",
                    r->name, s->resources[j].name, s->resources[j].loc.line);
                break;
            }
        s->nresources++;
    }
}

/* ---------------------------------------------------------------- resource templates */

/* The offset of the '{' of expression i of a valid template. */
static size_t expression_at(const char *tmpl, size_t i)
{
    size_t at = 0;
    for (const char *p = tmpl; *p; p++)
        if (*p == '{' && at++ == i)
            return (size_t)(p - tmpl);
    return 0;
}

static void parse_template(checker *c, ir_template *t, const idl_pair *p)
{
    memset(t, 0, sizeof *t);
    t->name = p->key->str;
    t->loc = p->key->loc;
    name_ok(c, p->key, "resource template");
    const idl_node *body = p->value;
    char what[300];
    idl_snprintf(what, sizeof what, "resource template '%s'", t->name);
    static const key_hint HINTS[] = {
        {"uri", "a resource template has a 'uriTemplate' (like \"test://items/{id}\"), not a 'uri'"},
        {"text", "a resource template has no static content: its reader makes the contents"},
        {"blob", "a resource template has no static content: its reader makes the contents"},
    };
    ck_keys(c, body, TEMPLATE_KEYS, COUNT(TEMPLATE_KEYS), HINTS, COUNT(HINTS), what);
    t->c_name = ck_c_name(c, body, t->name);
    const idl_node *ut = idl_map_get(body, "uriTemplate");
    if (!ut && idl_map_get(body, "uri")) {
        /* the hint above said it */
    } else if (!ut) {
        ERR(c, p->key->loc, "resource template '%s' has no 'uriTemplate' (like \"test://items/{id}\")", t->name);
    } else if (ck_string(c, ut, "'uriTemplate'")) {
        size_t nvars = 0, off = 0;
        const char *err = NULL;
        if (!mcp_uri_template_check(ut->str, &nvars, &err, &off)) {
            ERR(c, ck_loc_in_scalar(c, ut, off), "invalid uriTemplate of resource template '%s': %s", t->name, err);
        } else if (!ck_has_scheme(ut->str)) {
            ERR(c, ut->loc, "'uriTemplate' of resource template '%s' must start with a scheme (like test://), not '%s'",
                t->name, ut->str);
        } else if (nvars == 0) {
            ERR(c, ut->loc,
                "'uriTemplate' of resource template '%s' has no {variable}: a fixed URI belongs in resources", t->name);
        } else {
            t->uri_template = ut->str;
            t->nvars = nvars;
            t->vars = mcp_arena_alloc(c->a, nvars * sizeof *t->vars);
            t->var_c_names = mcp_arena_alloc(c->a, nvars * sizeof *t->var_c_names);
            if (!t->vars || !t->var_c_names)
                return;
            for (size_t i = 0; i < nvars; i++) {
                t->vars[i] = mcp_uri_template_var(ut->str, i, c->a);
                t->var_c_names[i] = idl_c_ident(c->a, t->vars[i]);
                for (size_t j = 0; j < i; j++)
                    if (t->vars[i] && t->vars[j] && strcmp(t->vars[i], t->vars[j]) == 0) {
                        ERR(c, ck_loc_in_scalar(c, ut, expression_at(ut->str, i) + 1),
                            "variable '%s' appears twice in the uriTemplate of resource template '%s'", t->vars[i],
                            t->name);
                        break;
                    }
            }
        }
    }
    t->title = optional_string(c, body, "title");
    t->description = ck_description_of(c, body);
    t->mime_type = optional_string(c, body, "mimeType");
    ck_cache_of(c, body, what, true, &t->cache);
    ck_scopes_of(c, body, what, &t->scopes);
    ck_display_of(c, body, what, &t->display);
    if (t->uri_template)
        t->complete = parse_complete(c, idl_map_get(body, "complete"), t->vars, t->var_c_names, t->nvars, what,
                                     "uriTemplate variables", &t->ncomplete);
}

static void parse_templates(checker *c, const idl_node *root)
{
    const idl_node *m = ck_section(c, root, "resource_templates", "resource template");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->templates = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->templates);
    if (!s->templates)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (ck_body_ok(c, p, "resource template", "uriTemplate, description, mimeType, complete"))
            parse_template(c, &s->templates[s->ntemplates++], p);
    }
}

/* ---------------------------------------------------------------- prompts */

static void parse_prompt(checker *c, ir_prompt *pr, const idl_pair *p)
{
    memset(pr, 0, sizeof *pr);
    pr->name = p->key->str;
    pr->loc = p->key->loc;
    name_ok(c, p->key, "prompt");
    const idl_node *body = p->value;
    char what[300];
    idl_snprintf(what, sizeof what, "prompt '%s'", pr->name);
    ck_keys(c, body, PROMPT_KEYS, COUNT(PROMPT_KEYS), NULL, 0, what);
    pr->c_name = ck_c_name(c, body, pr->name);
    const idl_node *desc = idl_map_get(body, "description");
    if (desc)
        pr->description = ck_description(c, desc, "'description'");
    if (!pr->description || !pr->description[0])
        ERR(c, desc ? desc->loc : p->key->loc, "prompt '%s' has %s description: clients list prompts by it; write one",
            pr->name, desc ? "an empty" : "no");
    pr->title = optional_string(c, body, "title");
    ck_scopes_of(c, body, what, &pr->scopes);
    ck_display_of(c, body, what, &pr->display);
    const idl_node *args = idl_map_get(body, "arguments");
    const char **names = NULL;
    if (args && args->kind != IDL_NODE_NULL) {
        if (args->kind != IDL_NODE_MAP) {
            ERR(c, args->loc, "'arguments' of prompt '%s' must be a mapping of NAME: {description, required}, not %s",
                pr->name, idl_node_kind_name(args));
        } else {
            pr->args = mcp_arena_alloc(c->a, (args->n ? args->n : 1) * sizeof *pr->args);
            names = mcp_arena_alloc(c->a, (args->n ? args->n : 1) * sizeof *names);
            if (!pr->args || !names)
                return;
            for (size_t i = 0; i < args->n; i++) {
                const idl_pair *ap = &args->pairs[i];
                ir_prompt_arg *a = &pr->args[pr->nargs];
                memset(a, 0, sizeof *a);
                a->name = ap->key->str;
                a->loc = ap->key->loc;
                if (!name_ok(c, ap->key, "prompt argument"))
                    continue;
                const idl_node *spec = ap->value;
                a->c_name = ck_c_name(c, spec->kind == IDL_NODE_MAP ? spec : NULL, a->name);
                if (spec->kind == IDL_NODE_MAP) {
                    static const key_hint HINTS[] = {
                        {"type", "prompt arguments are strings: an argument takes no 'type'"},
                        {"default", "a prompt argument has no 'default': an absent one reaches the handler as NULL"},
                    };
                    ck_keysf(c, spec, ARG_KEYS, COUNT(ARG_KEYS), HINTS, COUNT(HINTS), "argument '%s' of prompt '%s'",
                             a->name, pr->name);
                    a->description = ck_description_of(c, spec);
                    a->title = optional_string(c, spec, "title");
                    const idl_node *req = idl_map_get(spec, "required");
                    if (req)
                        read_bool(c, req, "required", &a->required);
                } else if (spec->kind != IDL_NODE_NULL) {
                    ERR(c, spec->loc,
                        "argument '%s' of prompt '%s' must be a mapping {description, required} (prompt arguments "
                        "are strings), not %s",
                        a->name, pr->name, idl_node_kind_name(spec));
                    continue;
                }
                for (size_t j = 0; j < pr->nargs; j++)
                    if (strcmp(pr->args[j].c_name, a->c_name) == 0)
                        ERR(c, a->loc,
                            "arguments '%s' and '%s' of prompt '%s' have the same C name '%s'; give one a 'c_name'",
                            pr->args[j].name, a->name, pr->name, a->c_name);
                names[pr->nargs++] = a->name;
            }
        }
    }
    const char **c_names = mcp_arena_alloc(c->a, (pr->nargs ? pr->nargs : 1) * sizeof *c_names);
    if (!c_names)
        return;
    for (size_t i = 0; i < pr->nargs; i++)
        c_names[i] = pr->args[i].c_name;
    pr->complete = parse_complete(c, idl_map_get(body, "complete"), names, c_names, pr->nargs, what, "arguments",
                                  &pr->ncomplete);
}

static void parse_prompts(checker *c, const idl_node *root)
{
    const idl_node *m = ck_section(c, root, "prompts", "prompt");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->prompts = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->prompts);
    if (!s->prompts)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (ck_body_ok(c, p, "prompt", "description, arguments, complete"))
            parse_prompt(c, &s->prompts[s->nprompts++], p);
    }
}

/* ---------------------------------------------------------------- elicitations */

static const char *const FORMATS[] = {"email", "uri", "date", "date-time"};

static bool read_count(checker *c, const idl_node *v, const char *key, int64_t *out)
{
    if (v->kind != IDL_NODE_INT || v->overflow || v->v.i < 0) {
        ERR(c, v->loc, "'%s' must be a non-negative integer, not %s", key, node_desc(c, v));
        return false;
    }
    *out = v->v.i;
    return true;
}

static bool read_number(checker *c, const idl_node *v, const char *key, bool integer, ir_number *out)
{
    if (v->kind == IDL_NODE_INT && !v->overflow) {
        *out = (ir_number){.is_int = true, .i = v->v.i};
        return true;
    }
    if (v->kind == IDL_NODE_FLOAT && !integer && isfinite(v->v.f)) {
        *out = (ir_number){.f = v->v.f};
        return true;
    }
    ERR(c, v->loc, "'%s' must be %s, not %s", key, integer ? "a 64-bit integer" : "a finite number", node_desc(c, v));
    return false;
}

/* The enum values of a form field: a list (untitled) or a mapping value: title. */
static bool parse_values(checker *c, ir_form_field *ff, const idl_node *v, const char *fname)
{
    if (v->kind == IDL_NODE_SEQ) {
        ff->nvalues = v->n;
        ff->values = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *ff->values);
        if (!ff->values)
            return false;
        for (size_t i = 0; i < v->n; i++)
            if (!(ff->values[i] = ck_string(c, v->items[i], "an enum value")))
                return false;
    } else if (v->kind == IDL_NODE_MAP) {
        ff->nvalues = v->n;
        ff->values = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *ff->values);
        ff->titles = mcp_arena_alloc(c->a, (v->n ? v->n : 1) * sizeof *ff->titles);
        if (!ff->values || !ff->titles)
            return false;
        for (size_t i = 0; i < v->n; i++) {
            ff->values[i] = v->pairs[i].key->str;
            if (!(ff->titles[i] = ck_string(c, v->pairs[i].value, "the title of an enum value")))
                return false;
        }
    } else {
        ERR(c, v->loc, "'values' of field '%s' must be a list of strings, or a mapping of value: title, not %s", fname,
            idl_node_kind_name(v));
        return false;
    }
    if (ff->nvalues == 0) {
        ERR(c, v->loc, "'values' of field '%s' is empty: nothing could be chosen", fname);
        return false;
    }
    for (size_t i = 1; i < ff->nvalues; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(ff->values[i], ff->values[j]) == 0) {
                ERR(c, v->kind == IDL_NODE_SEQ ? v->items[i]->loc : v->pairs[i].key->loc,
                    "enum value '%s' of field '%s' appears twice", ff->values[i], fname);
                return false;
            }
    return true;
}

static bool is_value(const ir_form_field *ff, const char *s)
{
    for (size_t i = 0; i < ff->nvalues; i++)
        if (strcmp(ff->values[i], s) == 0)
            return true;
    return false;
}

/* The values of an enum field, for messages: "'a', 'b' or 'c'" (the first
 * few, then "..."). */
static const char *values_text(checker *c, const ir_form_field *ff)
{
    enum { SHOWN = 8 };
    mcp_buf b;
    mcp_buf_init(&b);
    for (size_t i = 0; i < ff->nvalues && i < SHOWN; i++) {
        if (i)
            mcp_buf_puts(&b, i + 1 == ff->nvalues ? " or " : ", ");
        mcp_buf_printf(&b, "'%s'", ff->values[i]);
    }
    if (ff->nvalues > SHOWN)
        mcp_buf_puts(&b, ", ...");
    const char *s = b.oom || !b.data ? "its values" : mcp_arena_strndup(c->a, b.data, b.len);
    mcp_buf_free(&b);
    return s ? s : "its values";
}

/* A default against its field (spec: the field's mapping, for the places
 * and texts of its constraints). */
static void check_form_default(checker *c, const ir_field *f, const ir_form_field *ff, const idl_node *spec,
                               const idl_node *d)
{
    const ir_constraints *k = f->type->c;
    switch (ff->kind) {
    case IR_FORM_STRING:
        if (d->kind != IDL_NODE_STR) {
            ERR(c, d->loc, "the default of '%s' must be a string, not %s", f->name, node_desc(c, d));
            return;
        }
        if (k->has_min_length || k->has_max_length) {
            size_t chars = 0;
            for (size_t i = 0; i < d->len; i++)
                chars += ((unsigned char)d->str[i] & 0xC0) != 0x80;
            if (k->has_min_length && (int64_t)chars < k->min_length)
                ERR(c, d->loc, "the default of '%s' is %zu character%s long, shorter than its minLength %lld", f->name,
                    chars, chars == 1 ? "" : "s", (long long)k->min_length);
            else if (k->has_max_length && (int64_t)chars > k->max_length)
                ERR(c, d->loc, "the default of '%s' is %zu character%s long, longer than its maxLength %lld", f->name,
                    chars, chars == 1 ? "" : "s", (long long)k->max_length);
        }
        return;
    case IR_FORM_INTEGER:
    case IR_FORM_NUMBER: {
        bool ok = (d->kind == IDL_NODE_INT && !d->overflow) ||
                  (ff->kind == IR_FORM_NUMBER && d->kind == IDL_NODE_FLOAT && isfinite(d->v.f));
        if (!ok) {
            ERR(c, d->loc, "the default of '%s' must be %s, not %s", f->name,
                ff->kind == IR_FORM_INTEGER ? "a 64-bit integer" : "a finite number", node_desc(c, d));
            return;
        }
        double x = d->kind == IDL_NODE_INT ? (double)d->v.i : d->v.f;
        if (k->has_minimum && x < ir_number_value(k->minimum))
            ERR(c, d->loc, "the default %s of '%s' is less than its minimum %s", d->str, f->name,
                ck_scalar_text(idl_map_get(spec, "minimum")));
        else if (k->has_maximum && x > ir_number_value(k->maximum))
            ERR(c, d->loc, "the default %s of '%s' is greater than its maximum %s", d->str, f->name,
                ck_scalar_text(idl_map_get(spec, "maximum")));
        return;
    }
    case IR_FORM_BOOLEAN:
        if (d->kind != IDL_NODE_BOOL)
            ERR(c, d->loc, "the default of '%s' must be true or false, not %s", f->name, node_desc(c, d));
        return;
    case IR_FORM_ENUM:
        if (d->kind != IDL_NODE_STR || !is_value(ff, d->str))
            ERR(c, d->loc, "the default of '%s' must be one of its values (%s), not %s", f->name, values_text(c, ff),
                node_desc(c, d));
        return;
    case IR_FORM_ENUM_LIST:
        if (d->kind != IDL_NODE_SEQ) {
            ERR(c, d->loc, "the default of '%s' (multiple: true) must be a list of its values, not %s", f->name,
                node_desc(c, d));
            return;
        }
        for (size_t i = 0; i < d->n; i++) {
            const idl_node *item = d->items[i];
            if (item->kind != IDL_NODE_STR || !is_value(ff, item->str))
                ERR(c, item->loc, "the default of '%s' may hold only its values (%s), not %s", f->name,
                    values_text(c, ff), node_desc(c, item));
        }
        return;
    }
}

/* One field of a form. */
static bool parse_form_field(checker *c, const idl_pair *p, const char *owner, const char *c_owner, ir_field *f,
                             ir_form_field *ff)
{
    memset(f, 0, sizeof *f);
    memset(ff, 0, sizeof *ff);
    f->name = p->key->str;
    f->loc = p->key->loc;
    if (!name_ok(c, p->key, "field"))
        return false;
    const idl_node *spec = p->value;
    if (spec->kind != IDL_NODE_MAP) {
        ERR(c, spec->kind == IDL_NODE_NULL ? p->key->loc : spec->loc,
            "field '%s' of %s must be a mapping ({type: str}, or {values: [...]}), not %s", f->name, owner,
            idl_node_kind_name(spec));
        return false;
    }
    char what[700];
    idl_snprintf(what, sizeof what, "field '%s' of %s", f->name, owner);
    ck_keys(c, spec, FORM_KEYS, COUNT(FORM_KEYS), NULL, 0, what);
    const idl_node *type = idl_map_get(spec, "type"), *values = idl_map_get(spec, "values");
    const idl_node *multiple = idl_map_get(spec, "multiple");
    if (type && values) {
        ERR(c, ck_map_key(spec, "values")->loc,
            "field '%s' of %s has both 'type' and 'values': an enum field is a string; drop 'type'", f->name, owner);
        return false;
    }
    if (values) {
        bool multi = false;
        if (multiple)
            read_bool(c, multiple, "multiple", &multi);
        ff->kind = multi ? IR_FORM_ENUM_LIST : IR_FORM_ENUM;
        if (!parse_values(c, ff, values, f->name))
            return false;
        /* The C type: a Literal of the values (a list of them when multiple). */
        ir_type *lit = ck_new_type(c, IR_LITERAL, values->loc);
        if (!lit)
            return false;
        lit->nvalues = ff->nvalues;
        lit->values = mcp_arena_alloc(c->a, ff->nvalues * sizeof *lit->values);
        if (!lit->values)
            return false;
        for (size_t i = 0; i < ff->nvalues; i++)
            if (!(lit->values[i] = mcp_json_new_string(c->a, ff->values[i], strlen(ff->values[i]))))
                return false;
        if (multi) {
            f->type = ck_new_type(c, IR_LIST, values->loc);
            if (!f->type)
                return false;
            f->type->elem = lit;
        } else {
            f->type = lit;
        }
        const idl_node *names = idl_map_get(spec, "enum_names");
        if (names) {
            if (multi || ff->titles) {
                ERR(c, ck_map_key(spec, "enum_names")->loc,
                    "'enum_names' (the legacy titles) applies to a single-choice enum whose values are a list; "
                    "%s",
                    multi ? "a multiple-choice field takes titles as values: {value: title}"
                          : "this field already has titles");
            } else if (names->kind != IDL_NODE_SEQ || names->n != ff->nvalues) {
                ERR(c, names->loc, "'enum_names' must be a list of %zu strings, one per value", ff->nvalues);
            } else {
                ff->enum_names = mcp_arena_alloc(c->a, names->n * sizeof *ff->enum_names);
                if (!ff->enum_names)
                    return false;
                for (size_t i = 0; i < names->n; i++)
                    ff->enum_names[i] = ck_string(c, names->items[i], "an enum name");
            }
        }
    } else if (type) {
        if (multiple)
            ERR(c, ck_map_key(spec, "multiple")->loc,
                "'multiple' does not apply to field '%s' (it applies to enum fields, with 'values')", f->name);
        ir_kind k;
        if (ck_str_eq(type, "str")) {
            ff->kind = IR_FORM_STRING;
            k = IR_STR;
        } else if (ck_str_eq(type, "int")) {
            ff->kind = IR_FORM_INTEGER;
            k = IR_INT;
        } else if (ck_str_eq(type, "float")) {
            ff->kind = IR_FORM_NUMBER;
            k = IR_FLOAT;
        } else if (ck_str_eq(type, "bool")) {
            ff->kind = IR_FORM_BOOLEAN;
            k = IR_BOOL;
        } else {
            ERR(c, type->loc,
                "the type of elicitation field '%s' must be str, int, float or bool (forms are flat), not '%s'; "
                "for a choice, write 'values: [...]'",
                f->name, ck_scalar_text(type));
            return false;
        }
        f->type = ck_new_type(c, k, type->loc);
        if (!f->type)
            return false;
    } else {
        ERR(c, p->key->loc, "field '%s' of %s has neither 'type' (str, int, float, bool) nor 'values' (an enum)",
            f->name, owner);
        return false;
    }

    /* Constraints, each where MCP's restricted schema allows it. */
    ir_constraints *k = ck_own_constraints(c, f->type);
    if (!k)
        return false;
    static const struct {
        const char *key;
        ir_form_kind kind1, kind2;
    } WHERE[] = {
        {"minLength", IR_FORM_STRING, IR_FORM_STRING}, {"maxLength", IR_FORM_STRING, IR_FORM_STRING},
        {"format", IR_FORM_STRING, IR_FORM_STRING},    {"minimum", IR_FORM_INTEGER, IR_FORM_NUMBER},
        {"maximum", IR_FORM_INTEGER, IR_FORM_NUMBER},
    };
    for (size_t i = 0; i < COUNT(WHERE); i++) {
        const idl_node *v = idl_map_get(spec, WHERE[i].key);
        if (!v)
            continue;
        if (ff->kind != WHERE[i].kind1 && ff->kind != WHERE[i].kind2) {
            ERR(c, ck_map_key(spec, WHERE[i].key)->loc, "'%s' does not apply to field '%s' (it applies to %s fields)",
                WHERE[i].key, f->name, WHERE[i].kind1 == IR_FORM_STRING ? "str" : "int and float");
            continue;
        }
        if (strcmp(WHERE[i].key, "minLength") == 0)
            k->has_min_length = read_count(c, v, "minLength", &k->min_length);
        else if (strcmp(WHERE[i].key, "maxLength") == 0)
            k->has_max_length = read_count(c, v, "maxLength", &k->max_length);
        else if (strcmp(WHERE[i].key, "minimum") == 0)
            k->has_minimum = read_number(c, v, "minimum", ff->kind == IR_FORM_INTEGER, &k->minimum);
        else if (strcmp(WHERE[i].key, "maximum") == 0)
            k->has_maximum = read_number(c, v, "maximum", ff->kind == IR_FORM_INTEGER, &k->maximum);
        else if (ck_string(c, v, "'format'")) {
            bool known = false;
            for (size_t j = 0; j < COUNT(FORMATS) && !known; j++)
                known = strcmp(v->str, FORMATS[j]) == 0;
            if (known)
                k->format = v->str;
            else
                ERR(c, v->loc, "'format' of an elicitation field must be email, uri, date or date-time, not '%s'",
                    v->str);
        }
    }
    if (k->has_min_length && k->has_max_length && k->min_length > k->max_length)
        ERR(c, idl_map_get(spec, "maxLength")->loc, "minLength is greater than maxLength: no value can satisfy both");
    if (k->has_minimum && k->has_maximum && ir_number_value(k->minimum) > ir_number_value(k->maximum))
        ERR(c, idl_map_get(spec, "maximum")->loc, "minimum is greater than maximum: no value can satisfy both");

    f->description = ck_description_of(c, spec);
    ck_field_title(c, spec, f);
    f->c_name = ck_c_name(c, spec, f->name);
    if (ck_literals_to_name(f->type, spec)) {
        char what[400];
        idl_snprintf(what, sizeof what, "the type of field '%s' of %s", f->name, owner);
        ck_name_literals(c, f->type, spec, idl_fmt(c->a, "%s_%s", c_owner, f->c_name), what);
    }
    f->required = true;
    const idl_node *req = idl_map_get(spec, "required");
    if (req)
        read_bool(c, req, "required", &f->required);
    const idl_node *d = idl_map_get(spec, "default");
    if (d && d->kind != IDL_NODE_NULL) {
        check_form_default(c, f, ff, spec, d);
        f->default_value = ck_value(c, d);
    }
    return true;
}

/* The members of a form's struct: one per field, and has_NAME for each
 * optional one; no two may share a name. Forms are small: pairs will do. */
static void check_form_members(checker *c, const ir_elicitation *e)
{
    for (size_t i = 0; i < e->nfields; i++) {
        const ir_field *f = &e->fields[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(e->fields[j].c_name, f->c_name) == 0) {
                ERR(c, f->loc,
                    "fields '%s' and '%s' of elicitation '%s' have the same C name '%s'; give one a 'c_name'",
                    e->fields[j].name, f->name, e->name, f->c_name);
                break;
            }
    }
    for (size_t i = 0; i < e->nfields; i++) {
        if (e->fields[i].required)
            continue;
        const char *flag = idl_fmt(c->a, "has_%s", e->fields[i].c_name);
        for (size_t j = 0; flag && j < e->nfields; j++)
            if (strcmp(e->fields[j].c_name, flag) == 0)
                ERR(c, e->fields[j].loc,
                    "field '%s' of elicitation '%s' has the C name '%s', which is the presence flag of the optional "
                    "field '%s'; give it a 'c_name'",
                    e->fields[j].name, e->name, flag, e->fields[i].name);
    }
}

static void parse_elicitation(checker *c, ir_elicitation *e, const idl_pair *p)
{
    memset(e, 0, sizeof *e);
    e->name = p->key->str;
    e->loc = p->key->loc;
    name_ok(c, p->key, "elicitation");
    const idl_node *body = p->value;
    char what[300];
    idl_snprintf(what, sizeof what, "elicitation '%s'", e->name);
    ck_keys(c, body, ELICIT_KEYS, COUNT(ELICIT_KEYS), NULL, 0, what);
    e->c_name = ck_c_name(c, body, e->name);
    const idl_node *msg = idl_map_get(body, "message");
    if (!msg)
        ERR(c, p->key->loc, "elicitation '%s' has no 'message' (what the user is asked; a call may override it)",
            e->name);
    else if (ck_string(c, msg, "'message'"))
        e->message = msg->str;
    const idl_node *fields = idl_map_get(body, "fields");
    if (!fields || fields->kind == IDL_NODE_NULL) {
        ERR(c, p->key->loc, "elicitation '%s' has no 'fields' (the form the user fills)", e->name);
        return;
    }
    if (fields->kind != IDL_NODE_MAP) {
        ERR(c, fields->loc, "'fields' of elicitation '%s' must be a mapping of NAME: field, not %s", e->name,
            idl_node_kind_name(fields));
        return;
    }
    e->fields = mcp_arena_alloc(c->a, (fields->n ? fields->n : 1) * sizeof *e->fields);
    e->form = mcp_arena_alloc(c->a, (fields->n ? fields->n : 1) * sizeof *e->form);
    const char *c_owner = idl_fmt(c->a, "%s_form", e->c_name);
    if (!e->fields || !e->form || !c_owner)
        return;
    for (size_t i = 0; i < fields->n; i++) {
        if (!parse_form_field(c, &fields->pairs[i], what, c_owner, &e->fields[e->nfields], &e->form[e->nfields]))
            continue;
        e->nfields++;
    }
    check_form_members(c, e);
}

static void parse_elicitations(checker *c, const idl_node *root)
{
    const idl_node *m = ck_section(c, root, "elicitations", "elicitation");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->elicitations = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->elicitations);
    if (!s->elicitations)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (ck_body_ok(c, p, "elicitation", "message, fields"))
            parse_elicitation(c, &s->elicitations[s->nelicitations++], p);
    }
}

/* ---------------------------------------------------------------- generated names */

typedef struct gname {
    const char *name; /* the C name */
    const char *what; /* what it names: "the reader of resource 'notes'" */
    idl_loc loc;
} gname;

/* Every global name the generated code declares must be unique: a tool's
 * handler and a resource's reader, say, must not collide. */
static void check_generated_names(checker *c)
{
    const ir_server *s = c->srv;
    const char *px = s->c_prefix ? s->c_prefix : "server";
    size_t cap = 2 * s->ntools + s->ndefs + 2 * s->nresources + 2 * s->ntemplates + 2 * s->nprompts +
                 3 * s->nelicitations + 16;
    for (size_t i = 0; i < s->nprompts; i++)
        cap += s->prompts[i].ncomplete;
    for (size_t i = 0; i < s->ntemplates; i++)
        cap += s->templates[i].ncomplete;
    gname *v = mcp_arena_alloc(c->a, cap * sizeof *v);
    if (!v)
        return;
    size_t n = 0;
#define ADD(l, w, wname, ...) \
    (v[n++] = (gname){idl_fmt(c->a, __VA_ARGS__), idl_fmt(c->a, "%s '%s'", (w), (wname)), (l)})
    for (size_t i = 0; i < s->ntools; i++) {
        ADD(s->tools[i].loc, "the handler of tool", s->tools[i].name, "%s_%s", px, s->tools[i].c_name);
        ADD(s->tools[i].loc, "the arguments of tool", s->tools[i].name, "%s_%s_args", px, s->tools[i].c_name);
    }
    for (size_t i = 0; i < s->ndefs; i++)
        ADD(s->defs[i]->loc, "type", s->defs[i]->name, "%s", s->defs[i]->c_name);
    /* The tools' and types' names, v[0..nchecked), are compared among
     * themselves in check_file.c: here each later name is compared with all
     * before it. */
    size_t nchecked = n;
    for (size_t i = 0; i < s->nresources; i++)
        if (!s->resources[i].text && !s->resources[i].blob)
            ADD(s->resources[i].loc, "the reader of resource", s->resources[i].name, "%s_read_%s", px,
                s->resources[i].c_name);
    for (size_t i = 0; i < s->ntemplates; i++) {
        const ir_template *t = &s->templates[i];
        ADD(t->loc, "the reader of resource template", t->name, "%s_read_%s", px, t->c_name);
        ADD(t->loc, "the variables of resource template", t->name, "%s_%s_vars", px, t->c_name);
        for (size_t j = 0; j < t->ncomplete; j++)
            if (t->complete[j].handler)
                ADD(t->complete[j].loc, "the completion handler of variable", t->complete[j].name, "%s_complete_%s_%s",
                    px, t->c_name, t->complete[j].c_name);
    }
    for (size_t i = 0; i < s->nprompts; i++) {
        const ir_prompt *p = &s->prompts[i];
        ADD(p->loc, "the handler of prompt", p->name, "%s_prompt_%s", px, p->c_name);
        ADD(p->loc, "the arguments of prompt", p->name, "%s_%s_prompt_args", px, p->c_name);
        for (size_t j = 0; j < p->ncomplete; j++)
            if (p->complete[j].handler)
                ADD(p->complete[j].loc, "the completion handler of argument", p->complete[j].name, "%s_complete_%s_%s",
                    px, p->c_name, p->complete[j].c_name);
    }
    for (size_t i = 0; i < s->nelicitations; i++) {
        const ir_elicitation *e = &s->elicitations[i];
        ADD(e->loc, "the form of elicitation", e->name, "%s_%s_form", px, e->c_name);
        ADD(e->loc, "the descriptor of elicitation", e->name, "%s_%s_elicitation", px, e->c_name);
        ADD(e->loc, "the call of elicitation", e->name, "%s_elicit_%s", px, e->c_name);
    }
#undef ADD
    /* check_file.c keeps a type off the server table's name; a tool's handler
     * must stay off it too. */
    for (size_t i = 0; i < s->ntools; i++)
        if (strcmp(s->tools[i].c_name, "server") == 0)
            ERR(c, s->tools[i].loc,
                "the handler of tool '%s' and the server table would both be named '%s_server' "
                "in C; give the tool a 'c_name'",
                s->tools[i].name, px);
    for (size_t i = nchecked; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (v[i].name && v[j].name && v[i].what && v[j].what && strcmp(v[i].name, v[j].name) == 0) {
                ERR(c, v[i].loc, "%s and %s (line %u) would both be named '%s' in C; give one a 'c_name'", v[i].what,
                    v[j].what, v[j].loc.line, v[i].name);
                break;
            }
}

void ck_beyond(checker *c, const idl_node *root)
{
    parse_resources(c, root);
    parse_templates(c, root);
    parse_prompts(c, root);
    parse_elicitations(c, root);
    check_generated_names(c);
}
