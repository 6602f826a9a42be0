/* emit_markdown.c: a reference page of a server, in Markdown, from the IR:
 * every tool with its parameters (types in the IDL's spelling, constraints,
 * defaults, headers), its result and how it is published, its scopes and
 * task support; the named types; resources, templates and prompts. For
 * publishing beside the schemas; the schemas stay the contract. */
#include "emit_markdown.h"

#include <string.h>

#include "mcpidl/json.h"

/* Text for a table cell or a line: '|' escaped, line breaks made spaces. */
static void put_text(mcp_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            mcp_buf_puts(b, "\\|");
        else if (*s == '\n' || *s == '\r')
            mcp_buf_putc(b, ' ');
        else
            mcp_buf_putc(b, *s);
    }
}

/* Code in backquotes (a code span of two when the text holds one). */
static void put_code(mcp_buf *b, const char *s)
{
    bool tick = strchr(s, '`') != NULL;
    mcp_buf_puts(b, tick ? "`` " : "`");
    put_text(b, s);
    mcp_buf_puts(b, tick ? " ``" : "`");
}

static void put_json_code(mcp_buf *b, const mcp_json *v)
{
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_json_write(&t, v, -1);
    if (t.oom)
        b->oom = true;
    else
        put_code(b, t.data ? t.data : "");
    mcp_buf_free(&t);
}

static void put_number(mcp_buf *b, ir_number n)
{
    if (n.is_int)
        mcp_buf_printf(b, "%lld", (long long)n.i);
    else
        mcp_buf_printf(b, "%.17g", n.f);
}

/* The constraints of a type, as words: "≥ 1, ≤ 14". */
static void put_constraints(mcp_buf *b, const ir_constraints *c)
{
    size_t mark = b->len;
#define SEP() \
    do { \
        if (b->len > mark) \
            mcp_buf_puts(b, ", "); \
    } while (0)
    if (c->has_minimum) {
        SEP();
        mcp_buf_puts(b, "≥ ");
        put_number(b, c->minimum);
    }
    if (c->has_exclusive_minimum) {
        SEP();
        mcp_buf_puts(b, "> ");
        put_number(b, c->exclusive_minimum);
    }
    if (c->has_maximum) {
        SEP();
        mcp_buf_puts(b, "≤ ");
        put_number(b, c->maximum);
    }
    if (c->has_exclusive_maximum) {
        SEP();
        mcp_buf_puts(b, "< ");
        put_number(b, c->exclusive_maximum);
    }
    if (c->has_multiple_of) {
        SEP();
        mcp_buf_puts(b, "a multiple of ");
        put_number(b, c->multiple_of);
    }
    if (c->has_min_length) {
        SEP();
        mcp_buf_printf(b, "at least %lld characters", (long long)c->min_length);
    }
    if (c->has_max_length) {
        SEP();
        mcp_buf_printf(b, "at most %lld characters", (long long)c->max_length);
    }
    if (c->has_min_items) {
        SEP();
        mcp_buf_printf(b, "at least %lld items", (long long)c->min_items);
    }
    if (c->has_max_items) {
        SEP();
        mcp_buf_printf(b, "at most %lld items", (long long)c->max_items);
    }
    if (c->pattern) {
        SEP();
        mcp_buf_puts(b, "matches ");
        put_code(b, c->pattern);
    }
#undef SEP
}

/* A cell: the type in code, then its constraints (of the type itself, or of
 * an Optional's arm). */
static void put_type_cell(mcp_buf *b, const ir_type *t)
{
    mcp_buf ty;
    mcp_buf_init(&ty);
    ir_type_write(&ty, t);
    put_code(b, ty.data ? ty.data : "");
    if (ty.oom)
        b->oom = true;
    mcp_buf_free(&ty);
    const ir_type *c = t->kind == IR_UNION && t->nitems == 2 && t->items[1]->kind == IR_NONE ? t->items[0] : t;
    mcp_buf words;
    mcp_buf_init(&words);
    put_constraints(&words, c->c);
    if (words.len) {
        mcp_buf_puts(b, " (");
        mcp_buf_put(b, words.data, words.len);
        mcp_buf_putc(b, ')');
    }
    if (words.oom)
        b->oom = true;
    mcp_buf_free(&words);
}

static void put_fields(mcp_buf *b, const ir_field *fs, size_t n, const char *what, bool params)
{
    mcp_buf_printf(b, "| %s | type | required | default | description |\n|---|---|---|---|---|\n", what);
    for (size_t i = 0; i < n; i++) {
        const ir_field *f = &fs[i];
        mcp_buf_puts(b, "| ");
        put_code(b, f->name);
        mcp_buf_puts(b, " | ");
        put_type_cell(b, f->type);
        mcp_buf_puts(b, f->required ? " | yes | " : " | no | ");
        if (f->default_value)
            put_json_code(b, f->default_value);
        mcp_buf_puts(b, " | ");
        put_text(b, f->description);
        if (params && f->header) {
            mcp_buf_puts(b, f->description ? " Also sent as the header " : "Also sent as the header ");
            mcp_buf_puts(b, "`Mcp-Param-");
            put_text(b, f->header);
            mcp_buf_puts(b, "`.");
        }
        mcp_buf_puts(b, " |\n");
    }
}

static void put_scopes(mcp_buf *b, const ir_scopes *own, const ir_scopes *dflt)
{
    const ir_scopes *s = own->set ? own : dflt;
    if (!s->set)
        return;
    mcp_buf_puts(b, "**Scopes**: ");
    if (!s->n)
        mcp_buf_puts(b, "none needed");
    for (size_t i = 0; i < s->n; i++) {
        if (i)
            mcp_buf_puts(b, ", ");
        put_code(b, s->items[i]);
    }
    mcp_buf_puts(b, own->set ? "\n\n" : " (the server's)\n\n");
}

static void put_hint(mcp_buf *b, bool *first, const char *name, int v)
{
    if (v < 0)
        return;
    mcp_buf_puts(b, *first ? "**Annotations**: " : ", ");
    *first = false;
    mcp_buf_printf(b, "`%s: %s`", name, v ? "true" : "false");
}

static void put_tool(mcp_buf *b, const ir_server *srv, const ir_tool *t)
{
    mcp_buf_puts(b, "### ");
    put_code(b, t->name);
    mcp_buf_puts(b, "\n\n");
    if (t->title) {
        mcp_buf_putc(b, '*');
        put_text(b, t->title);
        mcp_buf_puts(b, "*\n\n");
    }
    if (t->description) {
        put_text(b, t->description);
        mcp_buf_puts(b, "\n\n");
    }
    if (t->nparams) {
        put_fields(b, t->params, t->nparams, "parameter", true);
        mcp_buf_puts(b, t->extra_forbid ? "\nOther arguments are refused.\n\n" : "\n");
    } else {
        mcp_buf_puts(b, "No parameters.\n\n");
    }
    mcp_buf_puts(b, "**Result**: ");
    if (!t->returns || t->returns->kind == IR_CONTENT) {
        mcp_buf_puts(b, "content blocks the handler builds (no output schema).\n\n");
    } else {
        put_type_cell(b, t->returns);
        switch (t->output) {
        case IR_OUTPUT_NONE:
            mcp_buf_puts(b, ", as text content only (no output schema).\n\n");
            break;
        case IR_OUTPUT_OBJECT:
            mcp_buf_puts(b, ": `structuredContent` is the object.\n\n");
            break;
        case IR_OUTPUT_DICT:
            mcp_buf_puts(b, ": `structuredContent` is the dictionary.\n\n");
            break;
        case IR_OUTPUT_WRAPPED:
            mcp_buf_puts(b, ": `structuredContent` is `{\"result\": ...}`.\n\n");
            break;
        }
    }
    put_scopes(b, &t->scopes, &srv->scopes);
    if (t->task != IR_TASK_FORBIDDEN)
        mcp_buf_puts(b, t->task == IR_TASK_REQUIRED ? "**Task**: runs only as a task.\n\n"
                                                    : "**Task**: may run as a task.\n\n");
    if (t->has_annotations) {
        bool first = true;
        put_hint(b, &first, "readOnlyHint", t->annotations.read_only_hint);
        put_hint(b, &first, "destructiveHint", t->annotations.destructive_hint);
        put_hint(b, &first, "idempotentHint", t->annotations.idempotent_hint);
        put_hint(b, &first, "openWorldHint", t->annotations.open_world_hint);
        if (!first)
            mcp_buf_puts(b, "\n\n");
    }
}

static const char *def_kind(const ir_def *d)
{
    switch (d->kind) {
    case IR_DEF_MODEL:
        return "model";
    case IR_DEF_RECORD:
        return "record";
    case IR_DEF_ENUM:
        return "enum";
    }
    return "type";
}

static void put_def(mcp_buf *b, const ir_def *d)
{
    mcp_buf_puts(b, "### ");
    put_code(b, d->name);
    mcp_buf_printf(b, " (%s)\n\n", def_kind(d));
    if (d->description) {
        put_text(b, d->description);
        mcp_buf_puts(b, "\n\n");
    }
    if (d->kind == IR_DEF_ENUM) {
        mcp_buf_puts(b, "Values: ");
        for (size_t i = 0; i < d->nvalues; i++) {
            if (i)
                mcp_buf_puts(b, ", ");
            put_json_code(b, d->values[i]);
        }
        mcp_buf_puts(b, ".\n\n");
        return;
    }
    if (!d->nfields) {
        mcp_buf_puts(b, "No fields.\n\n");
        return;
    }
    put_fields(b, d->fields, d->nfields, "field", false);
    mcp_buf_puts(b, d->extra_forbid ? "\nOther keys are refused.\n\n" : "\n");
}

bool emit_markdown(const ir_server *srv, const char *source_name, mcp_buf *b)
{
    if (srv->library) {
        /* A file of types for servers to import. */
        mcp_buf_puts(b, "# ");
        put_text(b, source_name);
        mcp_buf_puts(b, "\n\n<!-- Written by mcpidlc --emit=markdown from ");
        put_text(b, source_name);
        mcp_buf_puts(b, ": edit that file, not this one. -->\n\nTypes for MCP servers to import.\n\n");
        if (srv->ndefs)
            mcp_buf_puts(b, "## Types\n\n");
        for (size_t i = 0; i < srv->ndefs; i++)
            put_def(b, srv->defs[i]);
        return !b->oom;
    }
    mcp_buf_puts(b, "# ");
    put_text(b, srv->title ? srv->title : srv->name);
    mcp_buf_printf(b, " %s\n\n", srv->version);
    mcp_buf_puts(b, "<!-- Written by mcpidlc --emit=markdown from ");
    put_text(b, source_name);
    mcp_buf_puts(b, ": edit that file, not this one. -->\n\n");
    if (srv->instructions) {
        put_text(b, srv->instructions);
        mcp_buf_puts(b, "\n\n");
    }
    mcp_buf_puts(b, "MCP server ");
    put_code(b, srv->name);
    mcp_buf_puts(b, ". Arguments are validated before a tool runs and results after; a failure comes back as "
                    "a result with `isError: true` and a validation report.\n\n");
    if (srv->ntools) {
        mcp_buf_puts(b, "## Tools\n\n| tool | description |\n|---|---|\n");
        for (size_t i = 0; i < srv->ntools; i++) {
            mcp_buf_puts(b, "| ");
            put_code(b, srv->tools[i].name);
            mcp_buf_puts(b, " | ");
            put_text(b, srv->tools[i].description);
            mcp_buf_puts(b, " |\n");
        }
        mcp_buf_putc(b, '\n');
        for (size_t i = 0; i < srv->ntools; i++)
            put_tool(b, srv, &srv->tools[i]);
    }
    if (srv->ndefs) {
        mcp_buf_puts(b, "## Types\n\n");
        for (size_t i = 0; i < srv->ndefs; i++)
            put_def(b, srv->defs[i]);
    }
    if (srv->nresources) {
        mcp_buf_puts(b, "## Resources\n\n| resource | URI | MIME type | description |\n|---|---|---|---|\n");
        for (size_t i = 0; i < srv->nresources; i++) {
            const ir_resource *r = &srv->resources[i];
            mcp_buf_puts(b, "| ");
            put_code(b, r->name);
            mcp_buf_puts(b, " | ");
            put_code(b, r->uri);
            mcp_buf_puts(b, " | ");
            if (r->mime_type)
                put_code(b, r->mime_type);
            mcp_buf_puts(b, " | ");
            put_text(b, r->description);
            mcp_buf_puts(b, " |\n");
        }
        mcp_buf_putc(b, '\n');
    }
    if (srv->ntemplates) {
        mcp_buf_puts(b, "## Resource templates\n\n| template | URI template | MIME type | description |\n"
                        "|---|---|---|---|\n");
        for (size_t i = 0; i < srv->ntemplates; i++) {
            const ir_template *t = &srv->templates[i];
            mcp_buf_puts(b, "| ");
            put_code(b, t->name);
            mcp_buf_puts(b, " | ");
            put_code(b, t->uri_template);
            mcp_buf_puts(b, " | ");
            if (t->mime_type)
                put_code(b, t->mime_type);
            mcp_buf_puts(b, " | ");
            put_text(b, t->description);
            mcp_buf_puts(b, " |\n");
        }
        mcp_buf_putc(b, '\n');
    }
    if (srv->nprompts) {
        mcp_buf_puts(b, "## Prompts\n\n");
        for (size_t i = 0; i < srv->nprompts; i++) {
            const ir_prompt *p = &srv->prompts[i];
            mcp_buf_puts(b, "### ");
            put_code(b, p->name);
            mcp_buf_puts(b, "\n\n");
            if (p->description) {
                put_text(b, p->description);
                mcp_buf_puts(b, "\n\n");
            }
            if (!p->nargs) {
                mcp_buf_puts(b, "No arguments.\n\n");
                continue;
            }
            mcp_buf_puts(b, "| argument | required | description |\n|---|---|---|\n");
            for (size_t k = 0; k < p->nargs; k++) {
                mcp_buf_puts(b, "| ");
                put_code(b, p->args[k].name);
                mcp_buf_puts(b, p->args[k].required ? " | yes | " : " | no | ");
                put_text(b, p->args[k].description);
                mcp_buf_puts(b, " |\n");
            }
            mcp_buf_putc(b, '\n');
        }
    }
    /* one final newline */
    while (b->len > 1 && b->data[b->len - 1] == '\n' && b->data[b->len - 2] == '\n')
        b->data[--b->len] = 0;
    return !b->oom;
}
