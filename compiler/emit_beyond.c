/* emit_beyond.c: list entries of resources, templates and prompts, and the
 * schemas of elicitation forms. Members appear in a fixed order (identity,
 * then what a client shows, then details), absent ones left out. */
#include "emit_beyond.h"

/* Set key to string s, unless s is NULL: in the order of the calls in a
 * listed entry, sorted in a form's schema. */
static void set_str(mcp_arena *a, mcp_json *o, const char *key, const char *s)
{
    if (s)
        mcp_json_set(a, o, key, sj_str(a, s));
}

static void put_str(mcp_arena *a, mcp_json *o, const char *key, const char *s)
{
    if (s)
        mcp_json_set_sorted(a, o, key, sj_str(a, s));
}

/* The members every listed thing has, in reading order; `uri_key` names its
 * address ("uri" or "uriTemplate"). */
static mcp_json *listed(mcp_arena *a, const char *name, const char *title, const char *uri_key, const char *uri,
                    const char *description, const char *mime)
{
    mcp_json *o = mcp_json_new_object(a);
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

mcp_json *beyond_resource_entry(mcp_arena *a, const ir_resource *r)
{
    return listed(a, r->name, r->title, "uri", r->uri, r->description, r->mime_type);
}

mcp_json *beyond_template_entry(mcp_arena *a, const ir_template *t)
{
    return listed(a, t->name, t->title, "uriTemplate", t->uri_template, t->description, t->mime_type);
}

mcp_json *beyond_prompt_entry(mcp_arena *a, const ir_prompt *p)
{
    mcp_json *o = listed(a, p->name, p->title, NULL, NULL, p->description, NULL);
    if (!o)
        return NULL;
    if (p->nargs) {
        mcp_json *args = mcp_json_new_array(a);
        for (size_t i = 0; i < p->nargs; i++) {
            const ir_prompt_arg *g = &p->args[i];
            mcp_json *e = listed(a, g->name, g->title, NULL, NULL, g->description, NULL);
            if (g->required)
                mcp_json_set(a, e, "required", mcp_json_new_bool(a, true));
            mcp_json_append(a, args, e);
        }
        mcp_json_set(a, o, "arguments", args);
    }
    return o;
}

static mcp_json *number(mcp_arena *a, ir_number n) { return n.is_int ? mcp_json_new_int(a, n.i) : mcp_json_new_float(a, n.f); }

static mcp_json *strings(mcp_arena *a, const char *const *v, size_t n)
{
    mcp_json *arr = mcp_json_new_array(a);
    for (size_t i = 0; i < n; i++)
        mcp_json_append(a, arr, sj_str(a, v[i]));
    return arr;
}

/* [{"const": value, "title": title}, ...] */
static mcp_json *titled(mcp_arena *a, const ir_form_field *ff)
{
    mcp_json *arr = mcp_json_new_array(a);
    for (size_t i = 0; i < ff->nvalues; i++) {
        mcp_json *e = mcp_json_new_object(a);
        mcp_json_set_sorted(a, e, "const", sj_str(a, ff->values[i]));
        mcp_json_set_sorted(a, e, "title", sj_str(a, ff->titles[i]));
        mcp_json_append(a, arr, e);
    }
    return arr;
}

static mcp_json *form_property(mcp_arena *a, const ir_field *f, const ir_form_field *ff)
{
    static const char *const TYPE[] = {
        [IR_FORM_STRING] = "string", [IR_FORM_INTEGER] = "integer", [IR_FORM_NUMBER] = "number",
        [IR_FORM_BOOLEAN] = "boolean", [IR_FORM_ENUM] = "string", [IR_FORM_ENUM_LIST] = "array",
    };
    mcp_json *o = mcp_json_new_object(a);
    if (!o)
        return NULL;
    mcp_json_set_sorted(a, o, "type", sj_str(a, TYPE[ff->kind]));
    if (f->explicit_title)
        put_str(a, o, "title", f->title);
    put_str(a, o, "description", f->description);
    const ir_constraints *k = &f->type->c;
    switch (ff->kind) {
    case IR_FORM_STRING:
        if (k->has_min_length)
            mcp_json_set_sorted(a, o, "minLength", mcp_json_new_int(a, k->min_length));
        if (k->has_max_length)
            mcp_json_set_sorted(a, o, "maxLength", mcp_json_new_int(a, k->max_length));
        put_str(a, o, "format", k->format);
        break;
    case IR_FORM_INTEGER:
    case IR_FORM_NUMBER:
        if (k->has_minimum)
            mcp_json_set_sorted(a, o, "minimum", number(a, k->minimum));
        if (k->has_maximum)
            mcp_json_set_sorted(a, o, "maximum", number(a, k->maximum));
        break;
    case IR_FORM_BOOLEAN:
        break;
    case IR_FORM_ENUM:
        if (ff->titles) {
            mcp_json_set_sorted(a, o, "oneOf", titled(a, ff));
        } else {
            mcp_json_set_sorted(a, o, "enum", strings(a, ff->values, ff->nvalues));
            if (ff->enum_names)
                mcp_json_set_sorted(a, o, "enumNames", strings(a, ff->enum_names, ff->nvalues));
        }
        break;
    case IR_FORM_ENUM_LIST: {
        mcp_json *items = mcp_json_new_object(a);
        if (ff->titles) {
            mcp_json_set_sorted(a, items, "anyOf", titled(a, ff));
        } else {
            mcp_json_set_sorted(a, items, "type", sj_str(a, "string"));
            mcp_json_set_sorted(a, items, "enum", strings(a, ff->values, ff->nvalues));
        }
        mcp_json_set_sorted(a, o, "items", items);
        break;
    }
    }
    if (f->default_value)
        mcp_json_set_sorted(a, o, "default", schema_value(a, f->default_value));
    return o;
}

mcp_json *beyond_form_schema(mcp_arena *a, const ir_elicitation *e)
{
    mcp_json *o = mcp_json_new_object(a), *props = mcp_json_new_object(a), *req = mcp_json_new_array(a);
    if (!o || !props || !req)
        return NULL;
    size_t nreq = 0;
    for (size_t i = 0; i < e->nfields; i++) { /* clients lay the form out in this order */
        mcp_json_set(a, props, e->fields[i].name, form_property(a, &e->fields[i], &e->form[i]));
        if (e->fields[i].required) {
            mcp_json_append(a, req, sj_str(a, e->fields[i].name));
            nreq++;
        }
    }
    mcp_json_set_sorted(a, o, "type", sj_str(a, "object"));
    mcp_json_set_sorted(a, o, "properties", props);
    if (nreq)
        mcp_json_set_sorted(a, o, "required", req);
    return o;
}
