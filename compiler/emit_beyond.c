/* emit_beyond.c: list entries of resources, templates and prompts, and the
 * schemas of elicitation forms. Members appear in a fixed order (identity,
 * then what a client shows, then details), absent ones left out. */
#include "emit_beyond.h"

/* Set key to string s, unless s is NULL: in the order of the calls in a
 * listed entry, sorted in a form's schema. */
static void set_str(sj *b, mcp_json *o, const char *key, const char *s)
{
    if (s)
        sj_add(b, o, key, sj_str(b->a, s));
}

static void put_str(sj *b, mcp_json *o, const char *key, const char *s)
{
    if (s)
        sj_put(b, o, key, sj_str(b->a, s));
}

/* The members every listed thing has, in reading order; `uri_key` names its
 * address ("uri" or "uriTemplate"). */
static mcp_json *listed(sj *b, const char *name, const char *title, const char *uri_key, const char *uri,
                        const char *description, const char *mime)
{
    mcp_json *o = mcp_json_new_object(b->a);
    if (!o)
        return NULL;
    set_str(b, o, "name", name);
    set_str(b, o, "title", title);
    if (uri_key)
        set_str(b, o, uri_key, uri);
    set_str(b, o, "description", description);
    set_str(b, o, "mimeType", mime);
    return o;
}

mcp_json *beyond_resource_entry(mcp_arena *a, const ir_resource *r)
{
    sj b = {a, false};
    mcp_json *o = listed(&b, r->name, r->title, "uri", r->uri, r->description, r->mime_type);
    if (o)
        schema_display(&b, o, &r->display, true);
    return b.oom ? NULL : o;
}

mcp_json *beyond_template_entry(mcp_arena *a, const ir_template *t)
{
    sj b = {a, false};
    mcp_json *o = listed(&b, t->name, t->title, "uriTemplate", t->uri_template, t->description, t->mime_type);
    if (o)
        schema_display(&b, o, &t->display, true);
    return b.oom ? NULL : o;
}

mcp_json *beyond_prompt_entry(mcp_arena *a, const ir_prompt *p)
{
    sj b = {a, false};
    mcp_json *o = listed(&b, p->name, p->title, NULL, NULL, p->description, NULL);
    if (o && p->nargs) {
        mcp_json *args = mcp_json_new_array(a);
        for (size_t i = 0; i < p->nargs; i++) {
            const ir_prompt_arg *g = &p->args[i];
            mcp_json *e = listed(&b, g->name, g->title, NULL, NULL, g->description, NULL);
            if (g->required)
                sj_add(&b, e, "required", mcp_json_new_bool(a, true));
            sj_push(&b, args, e);
        }
        sj_add(&b, o, "arguments", args);
    }
    if (o)
        schema_display(&b, o, &p->display, true);
    return b.oom ? NULL : o;
}

static mcp_json *number(mcp_arena *a, ir_number n)
{
    return n.is_int ? mcp_json_new_int(a, n.i) : mcp_json_new_float(a, n.f);
}

static mcp_json *strings(sj *b, const char *const *v, size_t n)
{
    mcp_json *arr = mcp_json_new_array(b->a);
    for (size_t i = 0; i < n; i++)
        sj_push(b, arr, sj_str(b->a, v[i]));
    return arr;
}

/* [{"const": value, "title": title}, ...] */
static mcp_json *titled(sj *b, const ir_form_field *ff)
{
    mcp_json *arr = mcp_json_new_array(b->a);
    for (size_t i = 0; i < ff->nvalues; i++) {
        mcp_json *e = mcp_json_new_object(b->a);
        sj_put(b, e, "const", sj_str(b->a, ff->values[i]));
        sj_put(b, e, "title", sj_str(b->a, ff->titles[i]));
        sj_push(b, arr, e);
    }
    return arr;
}

static mcp_json *form_property(sj *b, const ir_field *f, const ir_form_field *ff)
{
    mcp_arena *a = b->a;
    static const char *const TYPE[] = {
        [IR_FORM_STRING] = "string",   [IR_FORM_INTEGER] = "integer", [IR_FORM_NUMBER] = "number",
        [IR_FORM_BOOLEAN] = "boolean", [IR_FORM_ENUM] = "string",     [IR_FORM_ENUM_LIST] = "array",
    };
    mcp_json *o = mcp_json_new_object(a);
    if (!o)
        return NULL;
    sj_put(b, o, "type", sj_str(a, TYPE[ff->kind]));
    if (f->explicit_title)
        put_str(b, o, "title", f->title);
    put_str(b, o, "description", f->description);
    const ir_constraints *k = f->type->c;
    switch (ff->kind) {
    case IR_FORM_STRING:
        if (k->has_min_length)
            sj_put(b, o, "minLength", mcp_json_new_int(a, k->min_length));
        if (k->has_max_length)
            sj_put(b, o, "maxLength", mcp_json_new_int(a, k->max_length));
        put_str(b, o, "format", k->format);
        break;
    case IR_FORM_INTEGER:
    case IR_FORM_NUMBER:
        if (k->has_minimum)
            sj_put(b, o, "minimum", number(a, k->minimum));
        if (k->has_maximum)
            sj_put(b, o, "maximum", number(a, k->maximum));
        break;
    case IR_FORM_BOOLEAN:
        break;
    case IR_FORM_ENUM:
        if (ff->titles) {
            sj_put(b, o, "oneOf", titled(b, ff));
        } else {
            sj_put(b, o, "enum", strings(b, ff->values, ff->nvalues));
            if (ff->enum_names)
                sj_put(b, o, "enumNames", strings(b, ff->enum_names, ff->nvalues));
        }
        break;
    case IR_FORM_ENUM_LIST: {
        mcp_json *items = mcp_json_new_object(a);
        if (ff->titles) {
            sj_put(b, items, "anyOf", titled(b, ff));
        } else {
            sj_put(b, items, "type", sj_str(a, "string"));
            sj_put(b, items, "enum", strings(b, ff->values, ff->nvalues));
        }
        sj_put(b, o, "items", items);
        break;
    }
    }
    if (f->default_value)
        sj_put(b, o, "default", schema_value(a, f->default_value));
    return o;
}

mcp_json *beyond_form_schema(mcp_arena *a, const ir_elicitation *e)
{
    sj b = {a, false};
    mcp_json *o = mcp_json_new_object(a), *props = mcp_json_new_object(a), *req = mcp_json_new_array(a);
    if (!o || !props || !req)
        return NULL;
    size_t nreq = 0;
    for (size_t i = 0; i < e->nfields; i++) { /* clients lay the form out in this order */
        sj_add(&b, props, e->fields[i].name, form_property(&b, &e->fields[i], &e->form[i]));
        if (e->fields[i].required) {
            sj_push(&b, req, sj_str(a, e->fields[i].name));
            nreq++;
        }
    }
    sj_put(&b, o, "type", sj_str(a, "object"));
    sj_put(&b, o, "properties", props);
    if (nreq)
        sj_put(&b, o, "required", req);
    return b.oom ? NULL : o;
}
