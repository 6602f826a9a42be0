/* emit_beyond.c: list entries of resources, templates and prompts, and the
 * schemas of elicitation forms. Members appear in a fixed order (identity,
 * then what a client shows, then details), absent ones left out. */
#include "emit_beyond.h"

/* An object whose members keep the order they are set in. */
static jval *ordered(mcp_arena *a)
{
    jval *o = j_obj(a);
    if (o)
        o->keep_order = true;
    return o;
}

static void set_str(mcp_arena *a, jval *o, const char *key, const char *s)
{
    if (s)
        j_set(a, o, key, j_str(a, s));
}

/* The members every listed thing has, in reading order; `uri_key` names its
 * address ("uri" or "uriTemplate"). */
static jval *listed(mcp_arena *a, const char *name, const char *title, const char *uri_key, const char *uri,
                    const char *description, const char *mime)
{
    jval *o = ordered(a);
    if (!o)
        return NULL;
    set_str(a, o, "name", name);
    set_str(a, o, "title", title);
    if (uri_key)
        set_str(a, o, uri_key, uri);
    set_str(a, o, "description", description);
    set_str(a, o, "mimeType", mime);
    return o;
}

jval *beyond_resource_entry(mcp_arena *a, const ir_resource *r)
{
    return listed(a, r->name, r->title, "uri", r->uri, r->description, r->mime_type);
}

jval *beyond_template_entry(mcp_arena *a, const ir_template *t)
{
    return listed(a, t->name, t->title, "uriTemplate", t->uri_template, t->description, t->mime_type);
}

jval *beyond_prompt_entry(mcp_arena *a, const ir_prompt *p)
{
    jval *o = listed(a, p->name, p->title, NULL, NULL, p->description, NULL);
    if (!o)
        return NULL;
    if (p->nargs) {
        jval *args = j_arr(a);
        for (size_t i = 0; i < p->nargs; i++) {
            const ir_prompt_arg *g = &p->args[i];
            jval *e = listed(a, g->name, g->title, NULL, NULL, g->description, NULL);
            if (g->required)
                j_set(a, e, "required", j_bool(a, true));
            j_push(a, args, e);
        }
        j_set(a, o, "arguments", args);
    }
    return o;
}

static jval *number(mcp_arena *a, ir_number n) { return n.is_int ? j_int(a, n.i) : j_float(a, n.f); }

static jval *strings(mcp_arena *a, const char *const *v, size_t n)
{
    jval *arr = j_arr(a);
    for (size_t i = 0; i < n; i++)
        j_push(a, arr, j_str(a, v[i]));
    return arr;
}

/* [{"const": value, "title": title}, ...] */
static jval *titled(mcp_arena *a, const ir_form_field *ff)
{
    jval *arr = j_arr(a);
    for (size_t i = 0; i < ff->nvalues; i++) {
        jval *e = j_obj(a);
        j_set(a, e, "const", j_str(a, ff->values[i]));
        j_set(a, e, "title", j_str(a, ff->titles[i]));
        j_push(a, arr, e);
    }
    return arr;
}

static jval *form_property(mcp_arena *a, const ir_field *f, const ir_form_field *ff)
{
    static const char *const TYPE[] = {
        [IR_FORM_STRING] = "string", [IR_FORM_INTEGER] = "integer", [IR_FORM_NUMBER] = "number",
        [IR_FORM_BOOLEAN] = "boolean", [IR_FORM_ENUM] = "string", [IR_FORM_ENUM_LIST] = "array",
    };
    jval *o = j_obj(a);
    if (!o)
        return NULL;
    j_set(a, o, "type", j_str(a, TYPE[ff->kind]));
    if (f->explicit_title)
        set_str(a, o, "title", f->title);
    set_str(a, o, "description", f->description);
    const ir_constraints *k = &f->type->c;
    switch (ff->kind) {
    case IR_FORM_STRING:
        if (k->has_min_length)
            j_set(a, o, "minLength", j_int(a, k->min_length));
        if (k->has_max_length)
            j_set(a, o, "maxLength", j_int(a, k->max_length));
        set_str(a, o, "format", k->format);
        break;
    case IR_FORM_INTEGER:
    case IR_FORM_NUMBER:
        if (k->has_minimum)
            j_set(a, o, "minimum", number(a, k->minimum));
        if (k->has_maximum)
            j_set(a, o, "maximum", number(a, k->maximum));
        break;
    case IR_FORM_BOOLEAN:
        break;
    case IR_FORM_ENUM:
        if (ff->titles) {
            j_set(a, o, "oneOf", titled(a, ff));
        } else {
            j_set(a, o, "enum", strings(a, ff->values, ff->nvalues));
            if (ff->enum_names)
                j_set(a, o, "enumNames", strings(a, ff->enum_names, ff->nvalues));
        }
        break;
    case IR_FORM_ENUM_LIST: {
        jval *items = j_obj(a);
        if (ff->titles) {
            j_set(a, items, "anyOf", titled(a, ff));
        } else {
            j_set(a, items, "type", j_str(a, "string"));
            j_set(a, items, "enum", strings(a, ff->values, ff->nvalues));
        }
        j_set(a, o, "items", items);
        break;
    }
    }
    if (f->default_value)
        j_set(a, o, "default", j_from_node(a, f->default_value));
    return o;
}

jval *beyond_form_schema(mcp_arena *a, const ir_elicitation *e)
{
    jval *o = j_obj(a), *props = j_obj(a), *req = j_arr(a);
    if (!o || !props || !req)
        return NULL;
    props->keep_order = true; /* clients lay the form out in this order */
    size_t nreq = 0;
    for (size_t i = 0; i < e->nfields; i++) {
        j_set(a, props, e->fields[i].name, form_property(a, &e->fields[i], &e->form[i]));
        if (e->fields[i].required) {
            j_push(a, req, j_str(a, e->fields[i].name));
            nreq++;
        }
    }
    j_set(a, o, "type", j_str(a, "object"));
    j_set(a, o, "properties", props);
    if (nreq)
        j_set(a, o, "required", req);
    return o;
}
