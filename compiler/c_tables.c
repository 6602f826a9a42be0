/* c_tables.c: NAME.mcp.c, the tables the runtime serves (emit_c.h): the type
 * descriptors its codec reads, the handler thunks, the tools table with its
 * pre-rendered tools/list entries, the tables of resources, templates and
 * prompts, the elicitation forms, and the server table.
 */
#include <assert.h>
#include <string.h>

#include "c_names.h"
#include "emit_beyond.h"
#include "emit_c.h"
#include "emit_schema.h"

typedef struct twriter {
    c_names *n;
    mcp_buf *c;
} twriter;

/* ------------------------------------------------------------------ descriptors */

static void tag_of(c_names *n, mcp_buf *b, const ir_type *t)
{
    static const char *const SCALAR[] = {
        [IR_INT] = "int",     [IR_FLOAT] = "float", [IR_STR] = "str", [IR_BOOL] = "bool",
        [IR_BYTES] = "bytes", [IR_NONE] = "none",   [IR_ANY] = "any"};
    switch (t->kind) {
    case IR_LIST:
        mcp_buf_puts(b, t->tuple_variadic ? "tuple[" : "list[");
        tag_of(n, b, t->elem);
        mcp_buf_puts(b, t->tuple_variadic ? ", ...]" : "]");
        return;
    case IR_SET:
        mcp_buf_puts(b, "set[");
        tag_of(n, b, t->elem);
        mcp_buf_putc(b, ']');
        return;
    case IR_DICT:
        mcp_buf_puts(b, t->int_keys ? "dict[int," : "dict[str,");
        tag_of(n, b, t->elem);
        mcp_buf_putc(b, ']');
        return;
    case IR_TUPLE:
        mcp_buf_puts(b, "tuple[");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            tag_of(n, b, t->items[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_UNION:
        if (c_is_optional(t)) {
            mcp_buf_puts(b, "nullable[");
            tag_of(n, b, t->items[0]);
            mcp_buf_putc(b, ']');
            return;
        }
        mcp_buf_puts(b, "union[");
        for (size_t i = 0; i < t->nitems; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            tag_of(n, b, t->items[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_LITERAL:
        mcp_buf_puts(b, "literal[");
        for (size_t i = 0; i < t->nvalues; i++) {
            if (i)
                mcp_buf_putc(b, ',');
            c_literal_key(b, t->values[i]);
        }
        mcp_buf_putc(b, ']');
        return;
    case IR_NAMED:
        mcp_buf_puts(b, t->def->name);
        return;
    case IR_CONTENT:
        return;
    case IR_FORMAT:
        /* pydantic's names; AnyUrl's validator is a wrap function */
        mcp_buf_puts(b, t->format == MCP_FMT_URL ? "function-wrap[wrap_val()]" : ir_format_name(t->format));
        return;
    default:
        mcp_buf_puts(b, SCALAR[t->kind]);
    }
}

static const char *tag_string(c_names *n, const ir_type *t)
{
    mcp_buf b;
    mcp_buf_init(&b);
    tag_of(n, &b, t);
    mcp_buf s;
    mcp_buf_init(&s);
    c_string(&s, b.data ? b.data : "", b.len);
    const char *r = mcp_arena_strndup(n->a, s.data ? s.data : "\"\"", s.len);
    mcp_buf_free(&b);
    mcp_buf_free(&s);
    return r ? r : "\"\"";
}

static void bound(mcp_buf *b, const char *field, ir_number n)
{
    if (n.is_int)
        mcp_buf_printf(b, "    .%s = {true, %lldLL, 0},\n", field, (long long)n.i);
    else
        mcp_buf_printf(b, "    .%s = {false, 0, %.17g},\n", field, n.f);
}

/* A bool member of an IR struct, and the C flag it sets. */
typedef struct flag_name {
    size_t off;
    const char *flag;
} flag_name;

/* `lead` and "A | B" of the flags whose bools are true in obj; whether any is. */
static bool put_flags(mcp_buf *b, const void *obj, const flag_name *flags, size_t n, const char *lead)
{
    bool any = false;
    for (size_t i = 0; i < n; i++)
        if (*(const bool *)((const char *)obj + flags[i].off)) {
            mcp_buf_printf(b, "%s%s", any ? " | " : lead, flags[i].flag);
            any = true;
        }
    return any;
}

/* Write the constraints of t (if any) and return the initializer of `.c`. */
static const char *constraints(twriter *w, const char *dname, const ir_constraints *c)
{
    c_names *n = w->n;
    if (!(c->has_minimum || c->has_maximum || c->has_exclusive_minimum || c->has_exclusive_maximum ||
          c->has_multiple_of || c->has_min_length || c->has_max_length || c->has_min_items || c->has_max_items ||
          c->pattern))
        return NULL;
    mcp_buf *b = w->c;
    if (c->pattern) {
        mcp_buf_printf(b, "static mcp_pattern %s_pattern = {", dname);
        c_string(b, c->pattern, strlen(c->pattern));
        mcp_buf_puts(b, ", NULL};\n");
    }
    mcp_buf_printf(b, "static const mcp_constraints %s_c = {\n    .flags = ", dname);
    static const flag_name FLAGS[] = {
        {offsetof(ir_constraints, has_minimum), "MCP_C_MINIMUM"},
        {offsetof(ir_constraints, has_maximum), "MCP_C_MAXIMUM"},
        {offsetof(ir_constraints, has_exclusive_minimum), "MCP_C_EXCLUSIVE_MINIMUM"},
        {offsetof(ir_constraints, has_exclusive_maximum), "MCP_C_EXCLUSIVE_MAXIMUM"},
        {offsetof(ir_constraints, has_multiple_of), "MCP_C_MULTIPLE_OF"},
        {offsetof(ir_constraints, has_min_length), "MCP_C_MIN_LENGTH"},
        {offsetof(ir_constraints, has_max_length), "MCP_C_MAX_LENGTH"},
        {offsetof(ir_constraints, has_min_items), "MCP_C_MIN_ITEMS"},
        {offsetof(ir_constraints, has_max_items), "MCP_C_MAX_ITEMS"},
    };
    mcp_buf_puts(b, put_flags(b, c, FLAGS, sizeof FLAGS / sizeof *FLAGS, "") ? ",\n" : "0,\n");
    if (c->has_minimum)
        bound(b, "minimum", c->minimum);
    if (c->has_maximum)
        bound(b, "maximum", c->maximum);
    if (c->has_exclusive_minimum)
        bound(b, "exclusive_minimum", c->exclusive_minimum);
    if (c->has_exclusive_maximum)
        bound(b, "exclusive_maximum", c->exclusive_maximum);
    if (c->has_multiple_of)
        bound(b, "multiple_of", c->multiple_of);
    if (c->has_min_length)
        mcp_buf_printf(b, "    .min_length = %lld,\n", (long long)c->min_length);
    if (c->has_max_length)
        mcp_buf_printf(b, "    .max_length = %lld,\n", (long long)c->max_length);
    if (c->has_min_items)
        mcp_buf_printf(b, "    .min_items = %lld,\n", (long long)c->min_items);
    if (c->has_max_items)
        mcp_buf_printf(b, "    .max_items = %lld,\n", (long long)c->max_items);
    if (c->pattern)
        mcp_buf_printf(b, "    .pattern = &%s_pattern,\n", dname);
    mcp_buf_puts(b, "};\n");
    return c_fmt(n, "&%s_c", dname);
}

static void literal_values(twriter *w, const char *dname, const mcp_json *const *vals, size_t nvals)
{
    mcp_buf *b = w->c;
    mcp_buf_printf(b, "static const mcp_literal %s_values[] = {\n", dname);
    for (size_t i = 0; i < nvals; i++) {
        const mcp_json *v = vals[i];
        switch (v->kind) {
        case MCP_JSTRING:
            mcp_buf_puts(b, "    {MCP_JSTRING, ");
            c_string(b, v->s, v->len);
            mcp_buf_printf(b, ", %zu, 0},\n", v->len);
            break;
        case MCP_JINT:
            mcp_buf_printf(b, "    {MCP_JINT, NULL, 0, %lldLL},\n", (long long)v->i);
            break;
        case MCP_JBOOL:
            mcp_buf_printf(b, "    {MCP_JBOOL, NULL, 0, %d},\n", v->b ? 1 : 0);
            break;
        default:
            mcp_buf_puts(b, "    {MCP_JNULL, NULL, 0, 0},\n");
        }
    }
    mcp_buf_puts(b, "};\n");
}

/* The descriptor of an object: a model or record, a tool's arguments, a form. */
static void object_body(twriter *w, const c_desc *d)
{
    mcp_buf *b = w->c;
    assert(d->field_descs && d->ctype && d->title);
    if (d->nfields) {
        mcp_buf_printf(b, "static const mcp_field %s_fields[] = {\n", d->name);
        for (size_t i = 0; i < d->nfields; i++) {
            const ir_field *f = &d->fields[i];
            mcp_buf_puts(b, "    {");
            c_string(b, f->name, strlen(f->name));
            mcp_buf_printf(b, ", %zu, &%s, offsetof(%s, %s), ", strlen(f->name), d->field_descs[i], d->ctype,
                           f->c_name);
            if (d->record && !f->required)
                mcp_buf_printf(b, "offsetof(%s, has_%s), ", d->ctype, f->c_name);
            else
                mcp_buf_puts(b, "-1, ");
            mcp_buf_puts(b, f->required ? "true, " : "false, ");
            if (f->default_value) {
                mcp_buf dj;
                mcp_buf_init(&dj);
                c_json(w->n, &dj, schema_value(w->n->a, f->default_value));
                c_string(b, dj.data ? dj.data : "null", dj.len);
                mcp_buf_free(&dj);
            } else {
                mcp_buf_puts(b, "NULL");
            }
            mcp_buf_puts(b, "},\n");
        }
        mcp_buf_puts(b, "};\n");
    }
    mcp_buf_printf(b, "%sconst mcp_type %s = {\n    .kind = MCP_T_OBJECT,\n", d->exported ? "" : "static ", d->name);
    mcp_buf_printf(b, "    .size = sizeof(%s),\n    .align = _Alignof(%s),\n    .tag = ", d->ctype, d->ctype);
    c_string(b, d->title, strlen(d->title));
    mcp_buf_puts(b, ",\n");
    if (d->nfields)
        mcp_buf_printf(b, "    .fields = %s_fields,\n    .nfields = %zu,\n", d->name, d->nfields);
    if (d->forbid)
        mcp_buf_puts(b, "    .extra_forbid = true,\n");
    if (d->record)
        mcp_buf_puts(b, "    .is_record = true,\n");
    mcp_buf_puts(b, "};\n\n");
}

/* A model or record held by pointer (nullable inside Optional[...]). */
static void ptr_body(twriter *w, const c_desc *d)
{
    const ir_type *t = d->t;
    const ir_type *target = t->kind == IR_NAMED ? t : t->items[0];
    mcp_buf *b = w->c;
    mcp_buf_printf(b, "static const mcp_type %s = {\n    .kind = MCP_T_PTR,\n", d->name);
    mcp_buf_printf(b, "    .size = sizeof(void *),\n    .align = _Alignof(void *),\n    .tag = %s,\n",
                   tag_string(w->n, target));
    mcp_buf_printf(b, "    .elem = &%s,\n%s};\n\n", d->elem, t->kind == IR_NAMED ? "" : "    .nullable = true,\n");
}

static void desc_body(twriter *w, const c_desc *d)
{
    if (d->object) {
        object_body(w, d);
        return;
    }
    if (d->ptr) {
        ptr_body(w, d);
        return;
    }
    c_names *n = w->n;
    mcp_buf *b = w->c;
    const ir_type *t = d->t;
    const char *ct = d->ctype;
    assert(t && d->ctype && (!d->items || t->nitems));
    const char *cinit = constraints(w, d->name, t->c);
    if (t->kind == IR_LITERAL)
        literal_values(w, d->name, t->values, t->nvalues);
    if (t->kind == IR_NAMED)
        literal_values(w, d->name, t->def->values, t->def->nvalues);
    if (d->items) {
        mcp_buf_printf(b, "static const mcp_type *const %s_items[] = {", d->name);
        for (size_t i = 0; i < t->nitems; i++)
            mcp_buf_printf(b, "%s&%s", i ? ", " : "", d->items[i]);
        mcp_buf_puts(b, "};\n");
        if (t->kind == IR_TUPLE) {
            mcp_buf_printf(b, "static const uint32_t %s_offsets[] = {", d->name);
            for (size_t i = 0; i < t->nitems; i++)
                mcp_buf_printf(b, "%soffsetof(%s, item%zu)", i ? ", " : "", ct, i);
            mcp_buf_puts(b, "};\n");
        } else {
            mcp_buf_printf(b, "static const uint32_t %s_offsets[] = {offsetof(%s, as)};\n", d->name, ct);
        }
    }

    static const char *const KIND[] = {
        [IR_INT] = "MCP_T_INT",         [IR_FLOAT] = "MCP_T_FLOAT", [IR_STR] = "MCP_T_STR",
        [IR_BOOL] = "MCP_T_BOOL",       [IR_BYTES] = "MCP_T_BYTES", [IR_NONE] = "MCP_T_NONE",
        [IR_ANY] = "MCP_T_ANY",         [IR_LIST] = "MCP_T_LIST",   [IR_SET] = "MCP_T_SET",
        [IR_TUPLE] = "MCP_T_TUPLE",     [IR_DICT] = "MCP_T_DICT",   [IR_UNION] = "MCP_T_UNION",
        [IR_LITERAL] = "MCP_T_LITERAL", [IR_NAMED] = "MCP_T_ENUM",  [IR_CONTENT] = "MCP_T_NONE",
        [IR_FORMAT] = "MCP_T_FORMAT",
    };
    mcp_buf_printf(b, "%sconst mcp_type %s = {\n    .kind = %s,\n", d->exported ? "" : "static ", d->name,
                   c_is_optional(t) ? "MCP_T_OPTIONAL" : KIND[t->kind]);
    mcp_buf_printf(b, "    .size = sizeof(%s),\n    .align = _Alignof(%s),\n    .tag = %s,\n", ct, ct,
                   tag_string(n, t));
    if (cinit)
        mcp_buf_printf(b, "    .c = %s,\n", cinit);
    if (d->elem)
        mcp_buf_printf(b, "    .elem = &%s,\n", d->elem);
    if (t->kind == IR_DICT) {
        mcp_buf_printf(b, "    .elem_offset = offsetof(%s_item, value),\n    .item_size = sizeof(%s_item),\n", ct, ct);
        if (t->int_keys)
            mcp_buf_puts(b, "    .int_keys = true,\n");
    }
    if (c_is_optional(t))
        mcp_buf_printf(b, "    .elem_offset = offsetof(%s, value),\n", ct);
    if (t->kind == IR_LIST && t->tuple_variadic)
        mcp_buf_puts(b, "    .variadic = true,\n");
    if (d->items)
        mcp_buf_printf(b, "    .items = %s_items,\n    .offsets = %s_offsets,\n    .nitems = %zu,\n", d->name, d->name,
                       t->nitems);
    if (t->kind == IR_LITERAL)
        mcp_buf_printf(b, "    .values = %s_values,\n    .nvalues = %zu,\n", d->name, t->nvalues);
    if (t->kind == IR_NAMED)
        mcp_buf_printf(b, "    .values = %s_values,\n    .nvalues = %zu,\n", d->name, t->def->nvalues);
    if (t->kind == IR_FORMAT) {
        static const char *const FMT[] = {
            [MCP_FMT_DATETIME] = "MCP_FMT_DATETIME",   [MCP_FMT_DATE] = "MCP_FMT_DATE", [MCP_FMT_TIME] = "MCP_FMT_TIME",
            [MCP_FMT_TIMEDELTA] = "MCP_FMT_TIMEDELTA", [MCP_FMT_UUID] = "MCP_FMT_UUID", [MCP_FMT_URL] = "MCP_FMT_URL",
            [MCP_FMT_DECIMAL] = "MCP_FMT_DECIMAL"};
        mcp_buf_printf(b, "    .format = %s,\n", FMT[t->format]);
    }
    mcp_buf_puts(b, "};\n\n");
}

/* ------------------------------------------------------------------ tools */

static const char *output_kind(const ir_tool *t)
{
    switch (t->output) {
    case IR_OUTPUT_OBJECT:
        return "MCP_OUTPUT_OBJECT";
    case IR_OUTPUT_DICT:
        return "MCP_OUTPUT_DICT";
    case IR_OUTPUT_WRAPPED:
        return "MCP_OUTPUT_WRAPPED";
    default:
        return "MCP_OUTPUT_NONE";
    }
}

static const char *output_title(c_names *n, const ir_tool *t)
{
    switch (t->output) {
    case IR_OUTPUT_OBJECT:
        return t->returns->def->name;
    case IR_OUTPUT_DICT:
        return c_fmt(n, "%sDictOutput", t->name);
    default:
        return c_fmt(n, "%sOutput", t->name);
    }
}

/* `(const char *const[]){"a", "b", NULL}`: the scopes an item names, a
 * compound literal (static, at file scope), ended by NULL. */
static const char *scopes_literal(c_names *n, const ir_scopes *sc)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "(const char *const[]){");
    for (size_t i = 0; i < sc->n; i++) {
        c_string(&b, sc->items[i], strlen(sc->items[i]));
        mcp_buf_puts(&b, ", ");
    }
    mcp_buf_puts(&b, "NULL}");
    const char *r = b.oom ? NULL : mcp_arena_strndup(n->a, b.data, b.len);
    mcp_buf_free(&b);
    if (!r)
        n->oom = true;
    return r ? r : "NULL";
}

/* The members of an item's table entry that its `scopes:` and `cache:` give,
 * each on its own line at `indent`. An item that names its scopes, even
 * none (`scopes: []`), has a non-NULL list; one that names none, NULL (the
 * server's). */
static void scopes_member(twriter *w, const ir_scopes *sc, const char *indent)
{
    if (sc->set)
        mcp_buf_printf(w->c, "%s.scopes = %s,\n%s.nscopes = %zu,\n", indent, scopes_literal(w->n, sc), indent, sc->n);
}

static const char *cache_literal(c_names *n, const ir_cache *k)
{
    return c_fmt(n, "{.set = true, %s.ttl_ms = %lldLL}", k->private_scope ? ".private_scope = true, " : "",
                 (long long)k->ttl_ms);
}

static void cache_member(twriter *w, const ir_cache *k, const char *indent)
{
    if (k->set)
        mcp_buf_printf(w->c, "%s.cache = %s,\n", indent, cache_literal(w->n, k));
}

/* A tool's parameters mirrored in headers (`header:`): each a property of the
 * arguments' top level, so its path is its name. */
static void headers_member(twriter *w, const ir_tool *t)
{
    static const char *const KIND[] = {[IR_HEADER_STRING] = "MCP_HEADER_STRING",
                                       [IR_HEADER_INTEGER] = "MCP_HEADER_INTEGER",
                                       [IR_HEADER_BOOLEAN] = "MCP_HEADER_BOOLEAN"};
    mcp_buf *c = w->c;
    size_t count = 0;
    for (size_t i = 0; i < t->nparams; i++)
        count += t->params[i].header != NULL;
    if (!count)
        return;
    mcp_buf_puts(c, "        .headers = (const mcp_header_param[]){\n");
    for (size_t i = 0; i < t->nparams; i++) {
        const ir_field *f = &t->params[i];
        if (!f->header)
            continue;
        mcp_buf_puts(c, "            {.name = ");
        c_string(c, f->header, strlen(f->header));
        mcp_buf_puts(c, ", .path = (const char *const[]){");
        c_string(c, f->name, strlen(f->name));
        mcp_buf_printf(c, "}, .depth = 1, .kind = %s},\n", KIND[f->header_kind]);
    }
    mcp_buf_printf(c, "        },\n        .nheaders = %zu,\n", count);
}

static bool tools_table(twriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *c = w->c;
    schema_emitter *se = schema_emitter_new(n->a, srv);
    if (!se)
        return false;
    mcp_buf_printf(c, "static const mcp_tool " C_NAME_TABLE "[] = {\n", n->prefix, "tools");
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        mcp_buf entry;
        mcp_buf_init(&entry);
        mcp_json *v = schema_tool_entry(se, t);
        if (!v || !schema_write(se, &entry, v, -1, 0))
            n->oom = true;
        mcp_buf_puts(c, "    {\n        .name = ");
        c_string(c, t->name, strlen(t->name));
        mcp_buf_puts(c, ",\n        .list_entry = ");
        c_string_long(c, entry.data ? entry.data : "{}", entry.len, "            ");
        mcp_buf_free(&entry);
        mcp_buf_printf(c, ",\n        .args = &%s,\n", n->args_desc[i]);
        if (n->result_desc[i])
            mcp_buf_printf(c, "        .result = &%s,\n", n->result_desc[i]);
        mcp_buf_printf(c, "        .output = %s,\n        .structured = %s,\n", output_kind(t),
                       t->output != IR_OUTPUT_NONE ? "true" : "false");
        if (t->run_inline)
            mcp_buf_puts(c, "        .run_inline = true,\n");
        mcp_buf_puts(c, "        .output_title = ");
        const char *title = output_title(n, t);
        c_string(c, title, strlen(title));
        mcp_buf_printf(c, ",\n        .handler = " C_NAME_THUNK ",\n", n->prefix, t->c_name);
        if (t->task != IR_TASK_FORBIDDEN)
            mcp_buf_printf(c, "        .task = %s,\n",
                           t->task == IR_TASK_REQUIRED ? "MCP_TASK_REQUIRED" : "MCP_TASK_OPTIONAL");
        headers_member(w, t);
        scopes_member(w, &t->scopes, "        ");
        mcp_buf_puts(c, "    },\n");
        c_flush(n, c);
    }
    mcp_buf_puts(c, "};\n\n");
    return true;
}

/* ------------------------------------------------------------------ resources, prompts, forms */

/* The completions of a prompt's arguments or a template's variables, as the
 * table `table`: static lists first, handlers by name. */
static void completers(twriter *w, const char *table, const char *owner_c, const ir_completion *k, size_t nk)
{
    c_names *n = w->n;
    mcp_buf *c = w->c;
    const char **values = mcp_arena_alloc(n->a, (nk ? nk : 1) * sizeof *values);
    if (!values) {
        n->oom = true;
        return;
    }
    for (size_t i = 0; i < nk; i++) {
        values[i] = NULL;
        if (k[i].handler || !k[i].nvalues)
            continue;
        values[i] = c_fmt(n, C_NAME_COMPLETE_VALUES, n->prefix, owner_c, k[i].c_name);
        mcp_buf_printf(c, "static const char *const %s[] = {", values[i]);
        for (size_t j = 0; j < k[i].nvalues; j++) {
            if (j)
                mcp_buf_puts(c, ", ");
            c_string(c, k[i].values[j], strlen(k[i].values[j]));
        }
        mcp_buf_puts(c, "};\n");
    }
    mcp_buf_printf(c, "static const mcp_completer %s[] = {\n", table);
    for (size_t i = 0; i < nk; i++) {
        mcp_buf_puts(c, "    {");
        c_string(c, k[i].name, strlen(k[i].name));
        if (k[i].handler)
            mcp_buf_printf(c, ", NULL, 0, " C_NAME_COMPLETE "},\n", n->prefix, owner_c, k[i].c_name);
        else if (values[i])
            mcp_buf_printf(c, ", %s, %zu, NULL},\n", values[i], k[i].nvalues);
        else
            mcp_buf_puts(c, ", NULL, 0, NULL},\n");
    }
    mcp_buf_puts(c, "};\n\n");
}

static void list_entry(twriter *w, mcp_json *v)
{
    mcp_buf e;
    mcp_buf_init(&e);
    c_json(w->n, &e, v);
    c_string_long(w->c, e.data ? e.data : "{}", e.len, "            ");
    if (e.oom)
        w->n->oom = true;
    mcp_buf_free(&e);
}

static void opt_member(twriter *w, const char *member_name, const char *s)
{
    if (!s)
        return;
    mcp_buf_printf(w->c, "        .%s = ", member_name);
    c_string_long(w->c, s, strlen(s), "            ");
    mcp_buf_puts(w->c, ",\n");
}

/* "name[0], name[1], ...": the strings a thunk hands on, one per variable or
 * argument. */
static void indexed(mcp_buf *c, const char *name, size_t count)
{
    for (size_t j = 0; j < count; j++)
        mcp_buf_printf(c, "%s%s[%zu]", j ? ", " : "", name, j);
}

static void resources(twriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *c = w->c;
    const char *p = n->prefix;
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        if (c_resource_has_reader(r))
            mcp_buf_printf(c,
                           "static mcp_status " C_NAME_READER_THUNK "(mcp_call *call, const char *uri, "
                           "const char *const *vars)\n{\n    (void)vars;\n    return " C_NAME_READER
                           "(call, uri);\n}\n\n",
                           p, r->c_name, p, r->c_name);
    }
    if (!srv->nresources)
        return;
    mcp_buf_printf(c, "static const mcp_resource " C_NAME_TABLE "[] = {\n", p, "resources");
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *r = &srv->resources[i];
        mcp_buf_puts(c, "    {\n");
        opt_member(w, "name", r->name);
        opt_member(w, "uri", r->uri);
        opt_member(w, "mime_type", r->mime_type);
        mcp_buf_puts(c, "        .list_entry = ");
        list_entry(w, beyond_resource_entry(n->a, r));
        mcp_buf_puts(c, ",\n");
        opt_member(w, "text", r->text);
        opt_member(w, "blob", r->blob);
        if (c_resource_has_reader(r))
            mcp_buf_printf(c, "        .read = " C_NAME_READER_THUNK ",\n", p, r->c_name);
        cache_member(w, &r->cache, "        ");
        scopes_member(w, &r->scopes, "        ");
        mcp_buf_puts(c, "    },\n");
    }
    mcp_buf_puts(c, "};\n\n");
}

static void templates(twriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *c = w->c;
    const char *p = n->prefix;
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_printf(c,
                       "static mcp_status " C_NAME_READER_THUNK "(mcp_call *call, const char *uri, "
                       "const char *const *vars)\n{\n    " C_NAME_VARS " v = {",
                       p, t->c_name, p, t->c_name);
        indexed(c, "vars", t->nvars);
        mcp_buf_printf(c, "};\n    return " C_NAME_READER "(call, uri, &v);\n}\n\n", p, t->c_name);
        if (t->ncomplete)
            completers(w, c_fmt(n, C_NAME_READER_COMPLETERS, p, t->c_name), t->c_name, t->complete, t->ncomplete);
    }
    if (!srv->ntemplates)
        return;
    mcp_buf_printf(c, "static const mcp_resource_template " C_NAME_TABLE "[] = {\n", p, "templates");
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        mcp_buf_puts(c, "    {\n");
        opt_member(w, "name", t->name);
        opt_member(w, "uri_template", t->uri_template);
        opt_member(w, "mime_type", t->mime_type);
        mcp_buf_puts(c, "        .list_entry = ");
        list_entry(w, beyond_template_entry(n->a, t));
        mcp_buf_printf(c, ",\n        .nvars = %zu,\n        .read = " C_NAME_READER_THUNK ",\n", t->nvars, p,
                       t->c_name);
        if (t->ncomplete)
            mcp_buf_printf(c, "        .complete = " C_NAME_READER_COMPLETERS ",\n        .ncomplete = %zu,\n", p,
                           t->c_name, t->ncomplete);
        cache_member(w, &t->cache, "        ");
        scopes_member(w, &t->scopes, "        ");
        mcp_buf_puts(c, "    },\n");
    }
    mcp_buf_puts(c, "};\n\n");
}

static void prompts(twriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *c = w->c;
    const char *p = n->prefix;
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *pr = &srv->prompts[i];
        mcp_buf_printf(c, "static mcp_status " C_NAME_PROMPT_THUNK "(mcp_call *call, const char *const *args)\n{\n", p,
                       pr->c_name);
        if (pr->nargs) {
            mcp_buf_printf(c, "    " C_NAME_PROMPT_ARGS " in = {", p, pr->c_name);
            indexed(c, "args", pr->nargs);
            mcp_buf_printf(c, "};\n    return " C_NAME_PROMPT "(call, &in);\n}\n\n", p, pr->c_name);
            mcp_buf_printf(c, "static const mcp_prompt_arg " C_NAME_PROMPT_ARGUMENTS "[] = {\n", p, pr->c_name);
            for (size_t j = 0; j < pr->nargs; j++) {
                mcp_buf_puts(c, "    {");
                c_string(c, pr->args[j].name, strlen(pr->args[j].name));
                mcp_buf_printf(c, ", %s},\n", pr->args[j].required ? "true" : "false");
            }
            mcp_buf_puts(c, "};\n\n");
        } else {
            mcp_buf_printf(c, "    (void)args;\n    return " C_NAME_PROMPT "(call);\n}\n\n", p, pr->c_name);
        }
        if (pr->ncomplete)
            completers(w, c_fmt(n, C_NAME_PROMPT_COMPLETERS, p, pr->c_name), pr->c_name, pr->complete, pr->ncomplete);
    }
    if (!srv->nprompts)
        return;
    mcp_buf_printf(c, "static const mcp_prompt " C_NAME_TABLE "[] = {\n", p, "prompts");
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *pr = &srv->prompts[i];
        mcp_buf_puts(c, "    {\n");
        opt_member(w, "name", pr->name);
        mcp_buf_puts(c, "        .list_entry = ");
        list_entry(w, beyond_prompt_entry(n->a, pr));
        mcp_buf_puts(c, ",\n");
        if (pr->nargs)
            mcp_buf_printf(c, "        .args = " C_NAME_PROMPT_ARGUMENTS ",\n        .nargs = %zu,\n", p, pr->c_name,
                           pr->nargs);
        mcp_buf_printf(c, "        .get = " C_NAME_PROMPT_THUNK ",\n", p, pr->c_name);
        if (pr->ncomplete)
            mcp_buf_printf(c, "        .complete = " C_NAME_PROMPT_COMPLETERS ",\n        .ncomplete = %zu,\n", p,
                           pr->c_name, pr->ncomplete);
        scopes_member(w, &pr->scopes, "        ");
        mcp_buf_puts(c, "    },\n");
    }
    mcp_buf_puts(c, "};\n\n");
}

static void elicitations(twriter *w)
{
    c_names *n = w->n;
    const ir_server *srv = n->srv;
    mcp_buf *c = w->c;
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        const char *object = c_fmt(n, C_NAME_ELICITATION, n->prefix, e->c_name);
        mcp_buf_printf(c, "const mcp_elicitation %s = {\n", object);
        opt_member(w, "name", e->name);
        opt_member(w, "message", e->message);
        mcp_buf sch;
        mcp_buf_init(&sch);
        c_json(n, &sch, beyond_form_schema(n->a, e));
        mcp_buf_puts(c, "        .schema = ");
        c_string_long(c, sch.data ? sch.data : "{}", sch.len, "            ");
        if (sch.oom)
            n->oom = true;
        mcp_buf_free(&sch);
        mcp_buf_printf(c, ",\n        .type = &%s,\n};\n\n", n->form_desc[i]);
        c_elicit_prototype(n, c, e);
        mcp_buf_printf(c, "\n{\n    return mcp_elicit_form(call, &%s, message, out, action);\n}\n\n", object);
    }
}

/* A member of the server table holding JSON text: ",\n    .NAME = "TEXT"". */
static void server_json_member(twriter *w, const char *member_name, const mcp_json *v)
{
    if (!v)
        return;
    mcp_buf text;
    mcp_buf_init(&text);
    c_json(w->n, &text, v);
    mcp_buf_printf(w->c, ",\n    .%s = ", member_name);
    c_string_long(w->c, text.data ? text.data : "{}", text.len, "        ");
    if (text.oom)
        w->n->oom = true;
    mcp_buf_free(&text);
}

/* The rest of serverInfo (description, websiteUrl, icons) and the server's _meta. */
static void server_display(twriter *w)
{
    const ir_server *srv = w->n->srv;
    mcp_buf *c = w->c;
    if (srv->description) {
        mcp_buf_puts(c, ",\n    .description = ");
        c_string_long(c, srv->description, strlen(srv->description), "        ");
    }
    if (srv->website_url) {
        mcp_buf_puts(c, ",\n    .website_url = ");
        c_string(c, srv->website_url, strlen(srv->website_url));
    }
    sj b = {w->n->a, false};
    server_json_member(w, "icons", schema_icons(&b, &srv->display));
    server_json_member(w, "meta", srv->display.meta);
    if (b.oom)
        w->n->oom = true;
}

bool emit_c_source(c_names *n, const char *stem, const char *source_name, mcp_buf *c)
{
    const ir_server *srv = n->srv;
    twriter w = {.n = n, .c = c};
    mcp_buf_printf(c,
                   "/* %s.mcp.c: generated by mcpidlc %s from %s; do not edit.\n"
                   " * The generated code is yours to use under any terms. */\n"
                   "#include <stddef.h>\n\n#include <mcpidl/generated.h>\n\n#include \"%s.mcp.h\"\n\n",
                   stem, MCPIDL_VERSION_STRING, c_comment(n, source_name), stem);
    mcp_buf_puts(c, "/* Type descriptors, read by libmcpidl's codec. */\n");
    for (size_t i = 0; i < n->ndescs; i++) { /* the named types' are declared in the headers */
        const c_desc *d = n->descs[i];
        if (!d->exported && !d->imported)
            mcp_buf_printf(c, "static const mcp_type %s; /* %s */\n", d->name,
                           c_comment(n, d->t ? c_type_text(n, d->t, d->h, true) : d->key));
    }
    mcp_buf_putc(c, '\n');
    for (size_t i = 0; i < n->nbodies; i++) {
        desc_body(&w, n->bodies[i]);
        c_flush(n, c);
    }

    if (srv->library)
        return !n->oom && !c->oom; /* types only: no handlers, no server */
    mcp_buf_puts(c, "/* Thunks: the runtime calls handlers through these. */\n");
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const char *ot = c_out_type(n, t);
        mcp_buf_printf(c, "static mcp_status " C_NAME_THUNK "(mcp_call *call, const void *in, void *out)\n{\n",
                       n->prefix, t->c_name);
        if (ot)
            mcp_buf_printf(c, "    return " C_NAME_HANDLER "(call, in, out);\n}\n\n", n->prefix, t->c_name);
        else
            mcp_buf_printf(c, "    (void)out;\n    return " C_NAME_HANDLER "(call, in);\n}\n\n", n->prefix, t->c_name);
    }

    resources(&w);
    templates(&w);
    prompts(&w);
    elicitations(&w);
    if (srv->ntools && !tools_table(&w))
        return false;
    mcp_buf_printf(c, "const mcp_server " C_NAME_SERVER " = {\n    .abi = MCPIDL_ABI,\n    .name = ", n->prefix);
    c_string(c, srv->name, strlen(srv->name));
    mcp_buf_puts(c, ",\n    .version = ");
    c_string(c, srv->version, strlen(srv->version));
    if (srv->title) {
        mcp_buf_puts(c, ",\n    .title = ");
        c_string(c, srv->title, strlen(srv->title));
    }
    if (srv->instructions) {
        mcp_buf_puts(c, ",\n    .instructions = ");
        c_string_long(c, srv->instructions, strlen(srv->instructions), "        ");
    }
    if (srv->ntools)
        mcp_buf_printf(c, ",\n    .tools = %s_tools,\n    .ntools = %zu", n->prefix, srv->ntools);
    if (srv->nresources)
        mcp_buf_printf(c, ",\n    .resources = %s_resources,\n    .nresources = %zu", n->prefix, srv->nresources);
    if (srv->ntemplates)
        mcp_buf_printf(c, ",\n    .templates = %s_templates,\n    .ntemplates = %zu", n->prefix, srv->ntemplates);
    if (srv->nprompts)
        mcp_buf_printf(c, ",\n    .prompts = %s_prompts,\n    .nprompts = %zu", n->prefix, srv->nprompts);
    static const flag_name CHANGES[] = {
        {offsetof(ir_server, list_changed_tools), "MCP_SERVER_TOOLS_CHANGE"},
        {offsetof(ir_server, list_changed_prompts), "MCP_SERVER_PROMPTS_CHANGE"},
        {offsetof(ir_server, list_changed_resources), "MCP_SERVER_RESOURCES_CHANGE"},
    };
    put_flags(c, srv, CHANGES, sizeof CHANGES / sizeof *CHANGES, ",\n    .flags = ");
    if (srv->cache.set)
        mcp_buf_printf(c, ",\n    .cache = %s", cache_literal(n, &srv->cache));
    if (srv->scopes.n) /* the default of the items that name none: none is no default */
        mcp_buf_printf(c, ",\n    .scopes = %s,\n    .nscopes = %zu", scopes_literal(n, &srv->scopes), srv->scopes.n);
    server_display(&w);
    mcp_buf_puts(c, ",\n};\n");
    return !n->oom && !c->oom;
}
