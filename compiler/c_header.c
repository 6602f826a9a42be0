/* c_header.c: NAME.mcp.h, the C types of the IDL, the handler prototypes and
 * the server table's declaration (emit_c.h).
 *
 * C needs a struct complete before another holds it by value: each struct is
 * written after the ones it holds (a depth-first walk), enums before all of
 * them, and the items of dicts last.
 */
#include <assert.h>
#include <string.h>

#include "c_names.h"
#include "emit_c.h"
#include "emit_schema.h"

typedef struct hwriter {
    c_names *n;
    mcp_buf *h;
    bool *emitted, *visiting; /* per c_struct.index */
} hwriter;

static void emit_enum(hwriter *w, const c_struct *s)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    const ir_def *def = s->def;
    const mcp_json *const *values = def ? def->values : s->t->values;
    size_t count = def ? def->nvalues : s->t->nvalues;
    assert(s->consts);
    if (def)
        mcp_buf_printf(h, "/* %s (enum)%s%s */\n", def->name, def->description ? ": " : "",
                       def->description ? c_comment(n, def->description) : "");
    else
        mcp_buf_printf(h, "/* %s */\n", c_comment(n, c_type_text(n, s->t, C_HOLD_VALUE, false)));
    mcp_buf_printf(h, "typedef enum %s {\n", s->name);
    mcp_buf b;
    mcp_buf_init(&b);
    for (size_t i = 0; i < count; i++) {
        mcp_buf_clear(&b);
        c_literal_key(&b, values[i]);
        mcp_buf_printf(h, "    %s, /* %s */\n", s->consts[i], b.data ? c_comment(n, b.data) : "");
    }
    mcp_buf_free(&b);
    mcp_buf_printf(h, "} %s;\n#define " C_NAME_COUNT " %zu\n\n", s->name, s->name, count);
}

static void emit_struct(hwriter *w, const c_struct *s);

/* Emit first every struct that `t`, held by value, needs complete. */
static void need_complete(hwriter *w, const ir_type *t, c_hold h)
{
    c_names *n = w->n;
    if (t->kind == IR_NAMED) {
        if (h == C_HOLD_INDIRECT && c_is_object_def(t))
            return;
        assert(n->structs[t->def->index]->def == t->def); /* the named types come first, in order */
        emit_struct(w, n->structs[t->def->index]);
        return;
    }
    if (t->kind == IR_UNION && c_is_optional(t) && c_is_object_def(t->items[0]))
        return; /* a pointer */
    if (t->kind == IR_LIST || t->kind == IR_SET || t->kind == IR_DICT || t->kind == IR_TUPLE || t->kind == IR_UNION ||
        t->kind == IR_LITERAL) {
        const c_struct *s = c_struct_of(n, t, h);
        if (s)
            emit_struct(w, s);
    }
}

static void emit_fields(hwriter *w, const ir_field *fields, size_t nfields, bool record)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    if (nfields == 0)
        mcp_buf_puts(h, "    char unused_; /* no fields */\n");
    for (size_t i = 0; i < nfields; i++) {
        const ir_field *f = &fields[i];
        mcp_buf_puts(h, "    ");
        c_member(h, c_type_of(n, f->type, C_HOLD_VALUE), f->c_name);
        mcp_buf_putc(h, ';');
        bool json_name_differs = strcmp(f->c_name, f->name) != 0;
        const char *desc = f->description ? c_comment(n, f->description) : NULL;
        const char *fmt = f->type->kind == IR_FORMAT ? ir_format_name(f->type->format) : NULL;
        if (desc || f->default_value || json_name_differs || fmt) {
            mcp_buf_puts(h, " /*");
            if (fmt) /* the text of a string-format type: mcpidl/formats.h */
                mcp_buf_printf(h, " %s text%s", fmt, desc || f->default_value || json_name_differs ? ";" : "");
            if (json_name_differs) {
                mcp_buf_printf(h, " \"%s\"", c_comment(n, f->name));
                if (desc || f->default_value)
                    mcp_buf_putc(h, ':');
            }
            if (desc)
                mcp_buf_printf(h, " %s", desc);
            if (f->default_value) {
                mcp_buf d;
                mcp_buf_init(&d);
                c_json(n, &d, schema_value(n->a, f->default_value));
                mcp_buf_printf(h, desc ? " (default %s)" : " default %s", d.data ? c_comment(n, d.data) : "");
                mcp_buf_free(&d);
            }
            mcp_buf_puts(h, " */");
        }
        mcp_buf_putc(h, '\n');
        if (record && !f->required)
            mcp_buf_printf(h, "    bool has_%s; /* false: \"%s\" is absent */\n", f->c_name, c_comment(n, f->name));
    }
}

/* A struct holding fields: a model or record, a tool's arguments, a form. */
static void emit_object(hwriter *w, const c_struct *s)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    if (s->def) {
        const ir_def *d = s->def;
        mcp_buf_printf(h, "/* %s (%s)%s%s */\n", d->name, d->kind == IR_DEF_MODEL ? "model" : "record",
                       d->description ? ": " : "", d->description ? c_comment(n, d->description) : "");
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(w, d->fields, d->nfields, d->kind == IR_DEF_RECORD);
    } else if (s->form_of) {
        mcp_buf_printf(h,
                       "/* The answer to elicitation '%s' (has_NAME false: the user left NAME out;\n"
                       " * its default, if any, is filled in). */\n",
                       c_comment(n, s->form_of->name));
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(w, s->form_of->fields, s->form_of->nfields, true);
    } else {
        mcp_buf_printf(h, "/* The arguments of tool '%s'. */\n", c_comment(n, s->args_of->name));
        mcp_buf_printf(h, "struct %s {\n", s->name);
        emit_fields(w, s->args_of->params, s->args_of->nparams, false);
    }
    mcp_buf_puts(h, "};\n\n");
}

/* A list, set, dict, tuple, Optional or union. */
static void emit_composite(hwriter *w, const c_struct *s)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    const ir_type *t = s->t;
    mcp_buf_printf(h, "/* %s */\n", c_comment(n, c_type_text(n, t, s->h, false)));
    switch (t->kind) {
    case IR_LIST:
    case IR_SET: {
        mcp_buf_printf(h, "struct %s {\n    size_t len;\n    ", s->name);
        const char *et = c_type_of(n, t->elem, C_HOLD_VALUE);
        c_member(h, c_fmt(n, "%s%s*", et, et[strlen(et) - 1] == '*' ? "" : " "), "items");
        mcp_buf_puts(h, ";\n};\n\n");
        break;
    }
    case IR_DICT:
        /* The items (which hold values whole) are defined after every other
         * struct: see emit_dict_items. */
        mcp_buf_printf(h, "struct %s {\n    size_t len;\n    %s_item *items; /* {key, value} */\n};\n\n", s->name,
                       s->name);
        break;
    case IR_TUPLE:
        mcp_buf_printf(h, "struct %s {\n", s->name);
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_puts(h, "    ");
            c_member(h, c_type_of(n, t->items[i], C_HOLD_INDIRECT), c_fmt(n, "item%zu", i));
            mcp_buf_puts(h, ";\n");
        }
        mcp_buf_puts(h, "};\n\n");
        break;
    case IR_UNION:
        if (c_is_optional(t)) {
            mcp_buf_printf(h, "struct %s {\n    bool has; /* false: null */\n    ", s->name);
            c_member(h, c_type_of(n, t->items[0], C_HOLD_INDIRECT), "value");
            mcp_buf_puts(h, ";\n};\n\n");
            break;
        }
        mcp_buf_printf(h, "enum {\n");
        for (size_t i = 0; i < t->nitems; i++)
            mcp_buf_printf(h, "    %s_%s = %zu,\n", s->name, s->arms[i], i + 1);
        mcp_buf_printf(h, "};\nstruct %s {\n    uint32_t which; /* %s_...; 0: unset */\n    union {\n", s->name,
                       s->name);
        for (size_t i = 0; i < t->nitems; i++) {
            mcp_buf_puts(h, "        ");
            c_member(h, c_type_of(n, t->items[i], C_HOLD_INDIRECT), s->arms[i]);
            mcp_buf_puts(h, ";\n");
        }
        mcp_buf_puts(h, "    } as;\n};\n\n");
        break;
    default:
        break;
    }
}

static void emit_struct(hwriter *w, const c_struct *s)
{
    if (s->imported || w->emitted[s->index] || w->visiting[s->index])
        return; /* an imported file's header defines its types */
    w->visiting[s->index] = true;
    if (s->is_enum) {
        w->emitted[s->index] = true;
        emit_enum(w, s);
        return;
    }
    /* what must be complete first */
    if (s->def) {
        for (size_t i = 0; i < s->def->nfields; i++)
            need_complete(w, s->def->fields[i].type, C_HOLD_VALUE);
    } else if (s->args_of) {
        for (size_t i = 0; i < s->args_of->nparams; i++)
            need_complete(w, s->args_of->params[i].type, C_HOLD_VALUE);
    } else if (s->form_of) {
        for (size_t i = 0; i < s->form_of->nfields; i++)
            need_complete(w, s->form_of->fields[i].type, C_HOLD_VALUE);
    } else if (s->t->kind == IR_TUPLE || s->t->kind == IR_UNION) {
        for (size_t i = 0; i < s->t->nitems; i++)
            need_complete(w, s->t->items[i], C_HOLD_INDIRECT);
    }
    w->emitted[s->index] = true;
    if (s->def || s->form_of || s->args_of)
        emit_object(w, s);
    else
        emit_composite(w, s);
}

/* The items of every dict, last: an item holds its value whole, and a value
 * may be a struct that (through a pointer) refers back to the dict. */
static void emit_dict_items(hwriter *w)
{
    c_names *n = w->n;
    for (size_t i = 0; i < n->nstructs; i++) {
        const c_struct *s = n->structs[i];
        if (!s->t || s->t->kind != IR_DICT || s->def || s->args_of || s->form_of)
            continue;
        mcp_buf_printf(w->h, "/* an item of %s */\nstruct %s_item {\n    %s;\n    ", s->name, s->name,
                       s->t->int_keys ? "int64_t key" : "const char *key");
        c_member(w->h, c_type_of(n, s->t->elem, C_HOLD_VALUE), "value");
        mcp_buf_puts(w->h, ";\n};\n\n");
    }
}

/* PREFIX_T_init_zero and PREFIX_T_init_default of every struct of fields. */
static void initializers(hwriter *w)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    bool any = false;
    for (size_t i = 0; i < n->nstructs; i++) {
        const c_struct *s = n->structs[i];
        const ir_def *def = s->def;
        const ir_field *fields = def          ? def->fields
                                 : s->args_of ? s->args_of->params
                                 : s->form_of ? s->form_of->fields
                                              : NULL;
        size_t count = def ? def->nfields : s->args_of ? s->args_of->nparams : s->form_of ? s->form_of->nfields : 0;
        if ((def && def->kind == IR_DEF_ENUM) || (!def && !s->args_of && !s->form_of) || s->imported)
            continue;
        bool record = (def && def->kind == IR_DEF_RECORD) || s->form_of;
        if (!any)
            mcp_buf_puts(h, "/* Initializers: every member zero (_init_zero: a list empty, a string NULL,\n"
                            " * an enum its first value), or its default from the IDL (_init_default).\n"
                            " * A list or dict default is a compound literal: C only. */\n");
        any = true;
        for (int k = 0; k < 2; k++) {
            mcp_buf_printf(h, "#define %s_%s ", s->name, k ? "init_default" : "init_zero");
            c_init_fields(n, h, fields, count, record, k);
            mcp_buf_putc(h, '\n');
        }
    }
    if (any)
        mcp_buf_putc(h, '\n');
}

/* An enum's (or a Literal's) values as text. */
static void enum_name_function(hwriter *w, const c_struct *s)
{
    const mcp_json *const *values = s->def ? s->def->values : s->t->values;
    size_t count = s->def ? s->def->nvalues : s->t->nvalues;
    mcp_buf *h = w->h;
    mcp_buf_printf(
        h, "static inline const char *" C_NAME_ENUM_NAME "(%s value)\n{\n    static const char *const NAMES[] = {",
        s->name, s->name);
    for (size_t i = 0; i < count; i++) {
        const mcp_json *v = values[i];
        mcp_buf_puts(h, i ? ", " : "");
        if (v->kind == MCP_JSTRING)
            c_string(h, v->s, v->len);
        else if (v->kind == MCP_JINT)
            mcp_buf_printf(h, "\"%lld\"", (long long)v->i);
        else if (v->kind == MCP_JBOOL)
            mcp_buf_puts(h, v->b ? "\"true\"" : "\"false\"");
        else
            mcp_buf_puts(h, "\"null\"");
    }
    mcp_buf_puts(h, "};\n    return (size_t)value < sizeof NAMES / sizeof *NAMES ? NAMES[value] : NULL;\n}\n\n");
}

/* The named types' functions, to and from JSON text, over their descriptors;
 * an enum's (and a Literal's) values as text. Inline: a file pays only for
 * what it calls. */
static void codecs(hwriter *w)
{
    c_names *n = w->n;
    mcp_buf *h = w->h;
    size_t local = 0;
    for (size_t i = 0; i < n->srv->ndefs; i++)
        local += !n->structs[i]->imported;
    if (local)
        mcp_buf_puts(h, "/* Each type from and to JSON text (mcpidl/codec.h): from_json checks the text\n"
                        " * against the type's schema and fills *out (in `arena`), or says why in *error\n"
                        " * (pydantic's report); to_json appends a value to `out`, checked as a tool's\n"
                        " * output is. */\n");
    for (size_t i = 0; i < n->srv->ndefs; i++) {
        if (n->structs[i]->imported)
            continue;
        const char *t = n->structs[i]->name, *desc = n->def_desc[i];
        mcp_buf_printf(h, "extern const mcp_type %s;\n", desc);
        mcp_buf_printf(h,
                       "MCP_NODISCARD static inline bool " C_NAME_FROM_JSON "(const char *json, size_t len, %s *out,\n"
                       "    mcp_arena *arena, const char **error)\n{\n"
                       "    return mcp_value_from_json(&%s, json, len, out, arena, error);\n}\n",
                       t, t, desc);
        mcp_buf_printf(h,
                       "MCP_NODISCARD static inline bool " C_NAME_TO_JSON "(const %s *value, mcp_buf *out,\n"
                       "    mcp_arena *arena, const char **error)\n{\n"
                       "    return mcp_value_to_json(&%s, value, out, arena, error);\n}\n\n",
                       t, t, desc);
    }
    bool any = false;
    for (size_t i = 0; i < n->nstructs; i++) {
        const c_struct *s = n->structs[i];
        if (!s->is_enum || s->imported)
            continue;
        if (!any)
            mcp_buf_puts(h, "/* Each value of an enum as text: 'red' as \"red\", 1 as \"1\", True as \"true\",\n"
                            " * None as \"null\"; NULL for a number that is no value. */\n");
        any = true;
        enum_name_function(w, s);
    }
}

static void completer_prototypes(hwriter *w, const char *owner_c, const ir_completion *k, size_t nk, const char *what)
{
    for (size_t i = 0; i < nk; i++)
        if (k[i].handler)
            mcp_buf_printf(w->h,
                           "/* Completes %s '%s': mcp_complete_value() for each suggestion. */\n"
                           "mcp_status %s(mcp_call *call, const char *value, const mcp_json *context);\n",
                           what, c_comment(w->n, k[i].name), c_completer_name(w->n, owner_c, &k[i]));
}

/* Prototypes of readers, prompts, completions; the typed elicitation calls. */
static void beyond_header(hwriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *h = w->h;
    bool any_reader = false;
    for (size_t i = 0; i < srv->nresources; i++)
        any_reader = any_reader || c_resource_has_reader(&srv->resources[i]);
    if (any_reader || srv->ntemplates)
        mcp_buf_puts(h, "\n/* Readers: define one per resource without static content and one per\n"
                        " * template; each appends contents with mcp_resource_text/blob(). */\n");
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        if (!c_resource_has_reader(r))
            continue;
        mcp_buf_printf(h, "\n/* %s */\nmcp_status " C_NAME_READER "(mcp_call *call, const char *uri);\n",
                       c_comment(n, r->uri), n->prefix, r->c_name);
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_printf(h, "\n/* The variables of %s (percent-decoded). */\ntypedef struct " C_NAME_VARS " {\n",
                       c_comment(n, t->uri_template), n->prefix, t->c_name);
        for (size_t j = 0; j < t->nvars; j++)
            mcp_buf_printf(h, "    const char *%s;\n", t->var_c_names[j]);
        mcp_buf_printf(h, "} " C_NAME_VARS ";\n", n->prefix, t->c_name);
        c_template_prototype(n, h, t);
        mcp_buf_puts(h, ";\n");
        completer_prototypes(w, t->c_name, t->complete, t->ncomplete, "variable");
    }
    if (srv->nprompts)
        mcp_buf_puts(h, "\n/* Prompts: define one function per prompt; each content block it appends\n"
                        " * (mcp_content_text, ...) is one message, spoken by mcp_prompt_role()'s role. */\n");
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *p = &srv->prompts[i];
        mcp_buf_printf(h, "\n/* %s: %s */\n", c_comment(n, p->name), c_comment(n, p->description));
        if (p->nargs) {
            mcp_buf_printf(h, "typedef struct " C_NAME_PROMPT_ARGS " {\n", n->prefix, p->c_name);
            for (size_t j = 0; j < p->nargs; j++) {
                const ir_prompt_arg *a = &p->args[j];
                mcp_buf_printf(h, "    const char *%s; /* %s%s */\n", a->c_name,
                               strcmp(a->c_name, a->name) ? c_fmt(n, "\"%s\", ", c_comment(n, a->name)) : "",
                               a->required ? "required" : "NULL when absent");
            }
            mcp_buf_printf(h, "} " C_NAME_PROMPT_ARGS ";\n", n->prefix, p->c_name);
        }
        c_prompt_prototype(n, h, p);
        mcp_buf_puts(h, ";\n");
        completer_prototypes(w, p->c_name, p->complete, p->ncomplete, "argument");
    }
    if (srv->nelicitations)
        mcp_buf_puts(h, "\n/* Elicitations: ask the client's user to fill a form (mcp_elicit_form). True\n"
                        " * when the user accepted and the answer fits: *out holds it. */\n");
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        mcp_buf_printf(h, "extern const mcp_elicitation " C_NAME_ELICITATION ";\n", n->prefix, e->c_name);
        c_elicit_prototype(n, h, e);
        mcp_buf_puts(h, ";\n");
    }
}

/* The include guard: NAME_MCP_H, upper case, other characters '_'. */
static const char *include_guard(c_names *n, const char *stem)
{
    char *s = c_fmt(n, "%s_MCP_H", stem);
    for (char *p = s; *p; p++)
        *p = (*p >= 'a' && *p <= 'z')                                 ? (char)(*p - 'a' + 'A')
             : ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p
                                                                      : '_';
    if (s[0] >= '0' && s[0] <= '9')
        s = c_fmt(n, "MCP_%s", s);
    return s;
}

bool emit_c_header(c_names *n, const char *stem, const char *source_name, mcp_buf *h)
{
    const ir_server *srv = n->srv;
    hwriter w = {.n = n, .h = h};
    w.emitted = mcp_arena_alloc(n->a, (n->nstructs ? n->nstructs : 1) * sizeof *w.emitted);
    w.visiting = mcp_arena_alloc(n->a, (n->nstructs ? n->nstructs : 1) * sizeof *w.visiting);
    if (!w.emitted || !w.visiting)
        return false;
    const char *guard = include_guard(n, stem);
    mcp_buf_printf(h,
                   "/* %s.mcp.h: generated by mcpidlc %s from %s; do not edit.\n"
                   " * The generated code is yours to use under any terms. */\n"
                   "#ifndef %s\n#define %s\n\n#include <mcpidl/mcpidl.h>\n\n",
                   stem, MCPIDL_VERSION_STRING, c_comment(n, source_name), guard, guard);
    /* The files it imports: their types are theirs, shared by every file that imports them. */
    const ir_file *self = srv->nfiles ? &srv->files[0] : NULL;
    for (size_t i = 0; self && i < self->nimports; i++)
        mcp_buf_printf(h, "#include \"%s.mcp.h\"\n%s", srv->files[self->imports[i]].stem,
                       i + 1 == self->nimports ? "\n" : "");
    mcp_buf_printf(h,
                   "#if MCPIDL_ABI != %d\n"
                   "#error \"%s.mcp.h was generated for libmcpidl ABI %d: run mcpidlc again\"\n#endif\n\n"
                   "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                   C_GENERATED_ABI, stem, C_GENERATED_ABI);
    bool any_struct = false;
    for (size_t i = 0; i < n->nstructs; i++) {
        const c_struct *s = n->structs[i];
        if (s->is_enum || s->imported)
            continue;
        mcp_buf_printf(h, "typedef struct %s %s;\n", s->name, s->name);
        if (s->t && s->t->kind == IR_DICT && !s->def && !s->args_of && !s->form_of)
            mcp_buf_printf(h, "typedef struct %s_item %s_item;\n", s->name, s->name);
        any_struct = true;
    }
    if (any_struct)
        mcp_buf_putc(h, '\n');
    /* Enums first: C cannot declare an enum ahead, and even a pointer to one
     * (a list of enum values) needs its name. */
    for (size_t i = 0; i < n->nstructs; i++)
        if (n->structs[i]->is_enum)
            emit_struct(&w, n->structs[i]);
    for (size_t i = 0; i < n->nstructs; i++) {
        emit_struct(&w, n->structs[i]);
        c_flush(n, h);
    }
    emit_dict_items(&w);
    initializers(&w);
    codecs(&w);

    if (srv->library) {
        mcp_buf_printf(h, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
        return !n->oom && !h->oom;
    }
    mcp_buf_puts(h, "/* Handlers: define one function per tool. Return MCP_OK after filling *out\n"
                    " * (or after mcp_return_json*), or mcp_fail(call, ...) to fail the call. */\n");
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const char *desc = t->description ? c_comment(n, t->description) : NULL;
        mcp_buf_printf(h, "\n/* %s%s%s */\n", t->name, desc ? ": " : "", desc ? desc : "");
        c_tool_prototype(n, h, t);
        mcp_buf_puts(h, ";\n");
    }
    beyond_header(&w);
    mcp_buf_printf(h,
                   "\n/* The server: pass its address to mcp_main(). */\nextern const mcp_server " C_NAME_SERVER ";\n",
                   n->prefix);
    mcp_buf_printf(h, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* %s */\n", guard);
    return !n->oom && !h->oom;
}
