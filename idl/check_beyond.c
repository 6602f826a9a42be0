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
#include <string.h>

#include "check_int.h"
#include "mcpidl/uritemplate.h"

static const char *const RESOURCE_KEYS[] = {"uri", "title", "description", "mimeType", "text", "blob", "c_name"};
static const char *const TEMPLATE_KEYS[] = {"uriTemplate", "title", "description", "mimeType", "complete",
                                            "c_name"};
static const char *const PROMPT_KEYS[] = {"description", "title", "arguments", "complete", "c_name"};
static const char *const ARG_KEYS[] = {"description", "title", "required"};
static const char *const ELICIT_KEYS[] = {"message", "fields", "c_name"};
static const char *const FORM_KEYS[] = {"type", "values", "multiple", "enum_names", "description", "title",
                                        "default", "required", "format", "minLength", "maxLength", "minimum",
                                        "maximum", "c_name"};

/* ---------------------------------------------------------------- small helpers */

static const char *optional_string(checker *c, const idl_node *body, const char *key)
{
    const idl_node *v = idl_map_get(body, key);
    if (!v || v->kind == IDL_NODE_NULL)
        return NULL;
    char what[64];
    snprintf(what, sizeof what, "'%s'", key);
    return ck_string(c, v, what);
}

/* The C name of an item: an explicit `c_name`, or its name made an identifier. */
static const char *c_name_of(checker *c, const idl_node *body, const char *name)
{
    const idl_node *v = body ? idl_map_get(body, "c_name") : NULL;
    if (v && ck_string(c, v, "'c_name'")) {
        if (!idl_is_c_identifier(v->str) || idl_is_c_keyword(v->str))
            ERR(c, v->loc, "'c_name' must be a C identifier that is not a keyword, not '%s'", v->str);
        return v->str;
    }
    return idl_c_ident(c->a, name);
}

/* A section's mapping of NAME: body, or NULL (after an error when it is not one). */
static const idl_node *section(checker *c, const idl_node *root, const char *key, const char *what)
{
    const idl_node *m = idl_map_get(root, key);
    if (!m || m->kind == IDL_NODE_NULL)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'%s' must be a mapping of NAME: %s, not %s", key, what, idl_node_kind_name(m));
        return NULL;
    }
    return m;
}

/* The body of one item: a mapping (after an error when it is not one). */
static bool body_ok(checker *c, const idl_pair *p, const char *kind, const char *keys_hint)
{
    if (p->value->kind == IDL_NODE_MAP)
        return true;
    ERR(c, p->value->kind == IDL_NODE_NULL ? p->key->loc : p->value->loc, "%s '%s' must be a mapping (%s), not %s",
        kind, p->key->str, keys_hint, idl_node_kind_name(p->value));
    return false;
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

/* A URI must at least have a scheme (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"). */
static bool has_scheme(const char *s)
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

/* Standard base64 (RFC 4648 section 4, padded): the offset of the first bad
 * byte, or (size_t)-1 when it is valid. */
static size_t base64_bad_at(const char *s, size_t n)
{
    if (n % 4 != 0)
        return n;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '+' ||
                  ch == '/';
        if (!ok && ch == '=')
            ok = i >= n - 2 && (i == n - 1 || s[n - 1] == '=');
        if (!ok)
            return i;
    }
    return (size_t)-1;
}

/* ---------------------------------------------------------------- completions */

/* `complete:` of a prompt or template: NAME: [values...] | handler, where each
 * NAME is one of names[0..n). */
static ir_completion *parse_complete(checker *c, const idl_node *m, const char *const *names, size_t n,
                                     const char *owner, const char *what_names, size_t *count)
{
    *count = 0;
    if (!m || m->kind == IDL_NODE_NULL)
        return NULL;
    if (m->kind != IDL_NODE_MAP) {
        ERR(c, m->loc, "'complete' of %s must be a mapping of %s: [values...] or handler, not %s", owner,
            what_names, idl_node_kind_name(m));
        return NULL;
    }
    ir_completion *out = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        bool known = false;
        for (size_t j = 0; j < n && !known; j++)
            known = strcmp(names[j], p->key->str) == 0;
        if (!known) {
            const char *near = idl_did_you_mean(p->key->str, names, n);
            if (near)
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
            ERR(c, v->loc, "the completion of '%s' must be a list of values or 'handler', not %s '%s'", k->name,
                idl_node_kind_name(v), ck_scalar_text(v));
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
    char what[300];
    snprintf(what, sizeof what, "resource '%s'", r->name);
    ck_keys(c, body, RESOURCE_KEYS, COUNT(RESOURCE_KEYS), NULL, 0, what);
    r->c_name = c_name_of(c, body, r->name);
    const idl_node *uri = idl_map_get(body, "uri");
    if (!uri)
        ERR(c, p->key->loc, "resource '%s' has no 'uri'", r->name);
    else if (ck_string(c, uri, "'uri'")) {
        if (!has_scheme(uri->str))
            ERR(c, uri->loc, "'uri' of resource '%s' must be an absolute URI with a scheme (like test://name), not '%s'",
                r->name, uri->str);
        else if (strchr(uri->str, '{'))
            ERR(c, uri->loc, "'uri' of resource '%s' contains '{': a URI with variables belongs in "
                             "resource_templates (as uriTemplate)", r->name);
        r->uri = uri->str;
    }
    r->title = optional_string(c, body, "title");
    const idl_node *desc = idl_map_get(body, "description");
    if (desc)
        r->description = ck_description(c, desc, "'description'");
    r->mime_type = optional_string(c, body, "mimeType");
    const idl_node *text = idl_map_get(body, "text"), *blob = idl_map_get(body, "blob");
    if (text && blob)
        ERR(c, ck_map_key(body, "blob")->loc, "resource '%s' has both 'text' and 'blob': give one", r->name);
    if (text)
        r->text = ck_string(c, text, "'text'");
    if (blob && !text && ck_string(c, blob, "'blob'")) {
        size_t bad = base64_bad_at(blob->str, blob->len);
        if (bad != (size_t)-1)
            ERR(c, bad < blob->len ? ck_loc_in_scalar(c, blob, bad) : blob->loc,
                "'blob' of resource '%s' must be standard base64 (RFC 4648: A-Z a-z 0-9 + /, padded with '=' "
                "to a multiple of 4, no line breaks)", r->name);
        r->blob = blob->str;
    }
}

static void parse_resources(checker *c, const idl_node *root)
{
    const idl_node *m = section(c, root, "resources", "resource");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->resources = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->resources);
    if (!s->resources)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (!body_ok(c, p, "resource", "uri, description, mimeType, text or blob"))
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

static void parse_template(checker *c, ir_template *t, const idl_pair *p)
{
    memset(t, 0, sizeof *t);
    t->name = p->key->str;
    t->loc = p->key->loc;
    name_ok(c, p->key, "resource template");
    const idl_node *body = p->value;
    char what[300];
    snprintf(what, sizeof what, "resource template '%s'", t->name);
    ck_keys(c, body, TEMPLATE_KEYS, COUNT(TEMPLATE_KEYS), NULL, 0, what);
    t->c_name = c_name_of(c, body, t->name);
    const idl_node *ut = idl_map_get(body, "uriTemplate");
    if (!ut) {
        ERR(c, p->key->loc, "resource template '%s' has no 'uriTemplate' (like \"test://items/{id}\")", t->name);
    } else if (ck_string(c, ut, "'uriTemplate'")) {
        size_t nvars = 0, off = 0;
        const char *err = NULL;
        if (!mcp_uri_template_check(ut->str, &nvars, &err, &off)) {
            ERR(c, ck_loc_in_scalar(c, ut, off), "invalid uriTemplate: %s", err);
        } else if (!has_scheme(ut->str)) {
            ERR(c, ut->loc, "'uriTemplate' of '%s' must start with a scheme (like test://), not '%s'", t->name,
                ut->str);
        } else if (nvars == 0) {
            ERR(c, ut->loc, "'uriTemplate' of '%s' has no {variable}: a fixed URI belongs in resources", t->name);
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
                    if (t->vars[i] && t->vars[j] && strcmp(t->vars[i], t->vars[j]) == 0)
                        ERR(c, ut->loc, "variable '%s' appears twice in the uriTemplate of '%s'", t->vars[i],
                            t->name);
            }
        }
    }
    t->title = optional_string(c, body, "title");
    const idl_node *desc = idl_map_get(body, "description");
    if (desc)
        t->description = ck_description(c, desc, "'description'");
    t->mime_type = optional_string(c, body, "mimeType");
    if (t->uri_template)
        t->complete = parse_complete(c, idl_map_get(body, "complete"), t->vars, t->nvars, what, "uriTemplate variables",
                                     &t->ncomplete);
}

static void parse_templates(checker *c, const idl_node *root)
{
    const idl_node *m = section(c, root, "resource_templates", "resource template");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->templates = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->templates);
    if (!s->templates)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (body_ok(c, p, "resource template", "uriTemplate, description, mimeType, complete"))
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
    snprintf(what, sizeof what, "prompt '%s'", pr->name);
    ck_keys(c, body, PROMPT_KEYS, COUNT(PROMPT_KEYS), NULL, 0, what);
    pr->c_name = c_name_of(c, body, pr->name);
    const idl_node *desc = idl_map_get(body, "description");
    if (desc)
        pr->description = ck_description(c, desc, "'description'");
    if (!pr->description || !pr->description[0])
        ERR(c, desc ? desc->loc : p->key->loc,
            "prompt '%s' has %s description: clients list prompts by it; write one", pr->name,
            desc ? "an empty" : "no");
    pr->title = optional_string(c, body, "title");
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
                a->c_name = idl_c_ident(c->a, a->name);
                const idl_node *spec = ap->value;
                if (spec->kind == IDL_NODE_MAP) {
                    char awhat[300];
                    snprintf(awhat, sizeof awhat, "argument '%s' of prompt '%s'", a->name, pr->name);
                    ck_keys(c, spec, ARG_KEYS, COUNT(ARG_KEYS), NULL, 0, awhat);
                    const idl_node *d = idl_map_get(spec, "description");
                    if (d)
                        a->description = ck_description(c, d, "'description'");
                    a->title = optional_string(c, spec, "title");
                    const idl_node *req = idl_map_get(spec, "required");
                    if (req) {
                        if (req->kind != IDL_NODE_BOOL)
                            ERR(c, req->loc, "'required' must be true or false");
                        else
                            a->required = req->v.b;
                    }
                } else if (spec->kind != IDL_NODE_NULL) {
                    ERR(c, spec->loc,
                        "argument '%s' of prompt '%s' must be a mapping {description, required} (prompt arguments "
                        "are strings), not %s",
                        a->name, pr->name, idl_node_kind_name(spec));
                    continue;
                }
                for (size_t j = 0; j < pr->nargs; j++)
                    if (strcmp(pr->args[j].c_name, a->c_name) == 0)
                        ERR(c, a->loc, "arguments '%s' and '%s' of prompt '%s' have the same C name '%s'",
                            pr->args[j].name, a->name, pr->name, a->c_name);
                names[pr->nargs++] = a->name;
            }
        }
    }
    pr->complete = parse_complete(c, idl_map_get(body, "complete"), names, pr->nargs, what, "arguments",
                                  &pr->ncomplete);
}

static void parse_prompts(checker *c, const idl_node *root)
{
    const idl_node *m = section(c, root, "prompts", "prompt");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->prompts = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->prompts);
    if (!s->prompts)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (body_ok(c, p, "prompt", "description, arguments, complete"))
            parse_prompt(c, &s->prompts[s->nprompts++], p);
    }
}

/* ---------------------------------------------------------------- elicitations */

static const char *const FORMATS[] = {"email", "uri", "date", "date-time"};

static ir_type *new_type(checker *c, ir_kind kind, idl_loc loc)
{
    ir_type *t = mcp_arena_alloc(c->a, sizeof *t);
    if (t) {
        memset(t, 0, sizeof *t);
        t->kind = kind;
        t->loc = loc;
    }
    return t;
}

static bool read_count(checker *c, const idl_node *v, const char *key, int64_t *out)
{
    if (v->kind != IDL_NODE_INT || v->v.i < 0) {
        ERR(c, v->loc, "'%s' must be a non-negative integer, not '%s'", key, ck_scalar_text(v));
        return false;
    }
    *out = v->v.i;
    return true;
}

static bool read_number(checker *c, const idl_node *v, const char *key, bool integer, ir_number *out)
{
    if (v->kind == IDL_NODE_INT) {
        *out = (ir_number){.is_int = true, .i = v->v.i};
        return true;
    }
    if (v->kind == IDL_NODE_FLOAT && !integer) {
        *out = (ir_number){.f = v->v.f};
        return true;
    }
    ERR(c, v->loc, "'%s' must be %s, not '%s'", key, integer ? "an integer" : "a number", ck_scalar_text(v));
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
        ERR(c, v->loc, "'values' of field '%s' must be a list of strings, or a mapping of value: title, not %s",
            fname, idl_node_kind_name(v));
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

/* A default against its field. */
static void check_form_default(checker *c, const ir_field *f, const ir_form_field *ff, const idl_node *d)
{
    const ir_constraints *k = &f->type->c;
    switch (ff->kind) {
    case IR_FORM_STRING:
        if (d->kind != IDL_NODE_STR) {
            ERR(c, d->loc, "the default of '%s' must be a string, not %s '%s'", f->name, idl_node_kind_name(d),
                ck_scalar_text(d));
            return;
        }
        if (k->has_min_length || k->has_max_length) {
            size_t chars = 0;
            for (size_t i = 0; i < d->len; i++)
                chars += ((unsigned char)d->str[i] & 0xC0) != 0x80;
            if ((k->has_min_length && (int64_t)chars < k->min_length) ||
                (k->has_max_length && (int64_t)chars > k->max_length))
                ERR(c, d->loc, "the default of '%s' has %zu characters, outside its minLength/maxLength", f->name,
                    chars);
        }
        return;
    case IR_FORM_INTEGER:
    case IR_FORM_NUMBER: {
        bool ok = d->kind == IDL_NODE_INT || (ff->kind == IR_FORM_NUMBER && d->kind == IDL_NODE_FLOAT);
        if (!ok) {
            ERR(c, d->loc, "the default of '%s' must be %s, not %s '%s'", f->name,
                ff->kind == IR_FORM_INTEGER ? "an integer" : "a number", idl_node_kind_name(d), ck_scalar_text(d));
            return;
        }
        double x = d->kind == IDL_NODE_INT ? (double)d->v.i : d->v.f;
        if ((k->has_minimum && x < ir_number_value(k->minimum)) ||
            (k->has_maximum && x > ir_number_value(k->maximum)))
            ERR(c, d->loc, "the default of '%s' is outside its minimum/maximum", f->name);
        return;
    }
    case IR_FORM_BOOLEAN:
        if (d->kind != IDL_NODE_BOOL)
            ERR(c, d->loc, "the default of '%s' must be true or false, not %s '%s'", f->name, idl_node_kind_name(d),
                ck_scalar_text(d));
        return;
    case IR_FORM_ENUM:
        if (d->kind != IDL_NODE_STR || !is_value(ff, d->str))
            ERR(c, d->loc, "the default of '%s' must be one of its values, not '%s'", f->name, ck_scalar_text(d));
        return;
    case IR_FORM_ENUM_LIST:
        if (d->kind != IDL_NODE_SEQ) {
            ERR(c, d->loc, "the default of '%s' (multiple: true) must be a list of its values, not %s", f->name,
                idl_node_kind_name(d));
            return;
        }
        for (size_t i = 0; i < d->n; i++)
            if (d->items[i]->kind != IDL_NODE_STR || !is_value(ff, d->items[i]->str))
                ERR(c, d->items[i]->loc, "the default of '%s' must hold only its values, not '%s'", f->name,
                    ck_scalar_text(d->items[i]));
        return;
    }
}

/* One field of a form. */
static bool parse_form_field(checker *c, const idl_pair *p, const char *owner, ir_field *f, ir_form_field *ff)
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
    snprintf(what, sizeof what, "field '%s' of %s", f->name, owner);
    ck_keys(c, spec, FORM_KEYS, COUNT(FORM_KEYS), NULL, 0, what);
    const idl_node *type = idl_map_get(spec, "type"), *values = idl_map_get(spec, "values");
    const idl_node *multiple = idl_map_get(spec, "multiple");
    if (type && values) {
        ERR(c, ck_map_key(spec, "values")->loc, "field '%s' has both 'type' and 'values': an enum field is "
                                                "a string; drop 'type'", f->name);
        return false;
    }
    if (values) {
        bool multi = false;
        if (multiple) {
            if (multiple->kind != IDL_NODE_BOOL)
                ERR(c, multiple->loc, "'multiple' must be true or false");
            else
                multi = multiple->v.b;
        }
        ff->kind = multi ? IR_FORM_ENUM_LIST : IR_FORM_ENUM;
        if (!parse_values(c, ff, values, f->name))
            return false;
        /* The C type: a Literal of the values (a list of them when multiple). */
        ir_type *lit = new_type(c, IR_LITERAL, values->loc);
        if (!lit)
            return false;
        lit->nvalues = ff->nvalues;
        lit->values = mcp_arena_alloc(c->a, ff->nvalues * sizeof *lit->values);
        if (!lit->values)
            return false;
        for (size_t i = 0; i < ff->nvalues; i++)
            lit->values[i] = values->kind == IDL_NODE_SEQ ? values->items[i] : values->pairs[i].key;
        if (multi) {
            f->type = new_type(c, IR_LIST, values->loc);
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
                    "%s", multi ? "a multiple-choice field takes titles as values: {value: title}"
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
            ERR(c, ck_map_key(spec, "multiple")->loc, "'multiple' applies to enum fields (with 'values') only");
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
                "for a choice, write 'values: [...]'", f->name, ck_scalar_text(type));
            return false;
        }
        f->type = new_type(c, k, type->loc);
        if (!f->type)
            return false;
    } else {
        ERR(c, p->key->loc, "field '%s' of %s has neither 'type' (str, int, float, bool) nor 'values' (an enum)",
            f->name, owner);
        return false;
    }

    /* Constraints, each where MCP's restricted schema allows it. */
    ir_constraints *k = &f->type->c;
    static const struct { const char *key; ir_form_kind kind1, kind2; } WHERE[] = {
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

    const idl_node *desc = idl_map_get(spec, "description");
    if (desc)
        f->description = ck_description(c, desc, "'description'");
    const idl_node *title = idl_map_get(spec, "title");
    if (title && ck_string(c, title, "'title'")) {
        f->title = title->str;
        f->explicit_title = true;
    }
    f->c_name = c_name_of(c, spec, f->name);
    f->required = true;
    const idl_node *req = idl_map_get(spec, "required");
    if (req) {
        if (req->kind != IDL_NODE_BOOL)
            ERR(c, req->loc, "'required' must be true or false");
        else
            f->required = req->v.b;
    }
    const idl_node *d = idl_map_get(spec, "default");
    if (d && d->kind != IDL_NODE_NULL) {
        check_form_default(c, f, ff, d);
        f->default_value = d;
    }
    return true;
}

static void parse_elicitation(checker *c, ir_elicitation *e, const idl_pair *p)
{
    memset(e, 0, sizeof *e);
    e->name = p->key->str;
    e->loc = p->key->loc;
    name_ok(c, p->key, "elicitation");
    const idl_node *body = p->value;
    char what[300];
    snprintf(what, sizeof what, "elicitation '%s'", e->name);
    ck_keys(c, body, ELICIT_KEYS, COUNT(ELICIT_KEYS), NULL, 0, what);
    e->c_name = c_name_of(c, body, e->name);
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
    if (!e->fields || !e->form)
        return;
    for (size_t i = 0; i < fields->n; i++) {
        if (!parse_form_field(c, &fields->pairs[i], what, &e->fields[e->nfields], &e->form[e->nfields]))
            continue;
        const ir_field *f = &e->fields[e->nfields];
        for (size_t j = 0; j < e->nfields; j++)
            if (strcmp(e->fields[j].c_name, f->c_name) == 0)
                ERR(c, f->loc, "fields '%s' and '%s' of elicitation '%s' have the same C name '%s'",
                    e->fields[j].name, f->name, e->name, f->c_name);
        e->nfields++;
    }
}

static void parse_elicitations(checker *c, const idl_node *root)
{
    const idl_node *m = section(c, root, "elicitations", "elicitation");
    if (!m)
        return;
    ir_server *s = c->srv;
    s->elicitations = mcp_arena_alloc(c->a, (m->n ? m->n : 1) * sizeof *s->elicitations);
    if (!s->elicitations)
        return;
    for (size_t i = 0; i < m->n; i++) {
        const idl_pair *p = &m->pairs[i];
        if (body_ok(c, p, "elicitation", "message, fields"))
            parse_elicitation(c, &s->elicitations[s->nelicitations++], p);
    }
}

/* ---------------------------------------------------------------- generated names */

typedef struct gname {
    const char *name;
    const char *what;
    idl_loc loc;
    bool checked; /* a tool's or a type's: check.c compares those among themselves */
} gname;

/* Every global name the generated code declares must be unique: a tool's
 * handler and a resource's reader, say, must not collide. */
static void check_generated_names(checker *c)
{
    const ir_server *s = c->srv;
    const char *px = s->c_prefix ? s->c_prefix : "server";
    size_t cap = 2 * s->ntools + s->ndefs + 2 * s->nresources + 2 * s->ntemplates + 2 * s->nprompts +
                 2 * s->nelicitations + 16;
    for (size_t i = 0; i < s->nprompts; i++)
        cap += s->prompts[i].ncomplete;
    for (size_t i = 0; i < s->ntemplates; i++)
        cap += s->templates[i].ncomplete;
    gname *v = mcp_arena_alloc(c->a, cap * sizeof *v);
    if (!v)
        return;
    size_t n = 0;
#define ADD(w, l, ...) (v[n++] = (gname){mcp_arena_printf(c->a, __VA_ARGS__), (w), (l), false})
    for (size_t i = 0; i < s->ntools; i++) {
        ADD("the handler of tool", s->tools[i].loc, "%s_%s", px, s->tools[i].c_name);
        ADD("the arguments of tool", s->tools[i].loc, "%s_%s_args", px, s->tools[i].c_name);
    }
    for (size_t i = 0; i < s->ndefs; i++)
        ADD("type", s->defs[i]->loc, "%s", s->defs[i]->c_name);
    for (size_t i = 0; i < n; i++)
        v[i].checked = true;
    for (size_t i = 0; i < s->nresources; i++)
        if (!s->resources[i].text && !s->resources[i].blob)
            ADD("the reader of resource", s->resources[i].loc, "%s_read_%s", px, s->resources[i].c_name);
    for (size_t i = 0; i < s->ntemplates; i++) {
        const ir_template *t = &s->templates[i];
        ADD("the reader of resource template", t->loc, "%s_read_%s", px, t->c_name);
        ADD("the variables of resource template", t->loc, "%s_%s_vars", px, t->c_name);
        for (size_t j = 0; j < t->ncomplete; j++)
            if (t->complete[j].handler)
                ADD("a completion handler of resource template", t->complete[j].loc, "%s_complete_%s_%s", px,
                    t->c_name, idl_c_ident(c->a, t->complete[j].name));
    }
    for (size_t i = 0; i < s->nprompts; i++) {
        const ir_prompt *p = &s->prompts[i];
        ADD("the handler of prompt", p->loc, "%s_prompt_%s", px, p->c_name);
        ADD("the arguments of prompt", p->loc, "%s_%s_prompt_args", px, p->c_name);
        for (size_t j = 0; j < p->ncomplete; j++)
            if (p->complete[j].handler)
                ADD("a completion handler of prompt", p->complete[j].loc, "%s_complete_%s_%s", px, p->c_name,
                    idl_c_ident(c->a, p->complete[j].name));
    }
    for (size_t i = 0; i < s->nelicitations; i++) {
        ADD("the form of elicitation", s->elicitations[i].loc, "%s_%s_form", px, s->elicitations[i].c_name);
        ADD("the call of elicitation", s->elicitations[i].loc, "%s_elicit_%s", px, s->elicitations[i].c_name);
    }
#undef ADD
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (!(v[i].checked && v[j].checked) && v[i].name && v[j].name && strcmp(v[i].name, v[j].name) == 0) {
                ERR(c, v[i].loc, "%s here and %s at line %u would both be named '%s' in C; give one a 'c_name'",
                    v[i].what, v[j].what, v[j].loc.line, v[i].name);
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
