/* mcpidlc.c: the compiler as a library (include/mcpidlc/mcpidlc.h): the
 * front end and the back ends behind one context. */
#define _XOPEN_SOURCE 700 /* realpath */

#include "mcpidlc/mcpidlc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_names.h"
#include "diff.h"
#include "emit_c.h"
#include "emit_markdown.h"
#include "emit_schema.h"
#include "emit_serverjson.h"
#include "ir.h"
#include "node.h"

enum { MAX_INPUT = 16 << 20 }; /* an IDL is kilobytes; the loader needs ~130 bytes per node */

struct mcpidlc_context {
    mcpidlc_options opt;
    mcp_arena arena; /* everything of the last source */
    bool has_source;
    const char *stem;        /* NAME */
    const char *source_name; /* the file's name without directories, for the comment on top of the C */
    const char *file;        /* the name diagnostics give it */
    const char *src;         /* its text, kept for the source lines of mcpidlc_diff */
    size_t src_len;
    const idl_node *root; /* its YAML tree, when it loaded */
    idl_diags files;      /* the files diagnostics point into: this one and those it imports */
    const char **deps;    /* the paths of the files it imports, directly or not */
    size_t ndeps;
    size_t errors, warnings;
    ir_server *srv;          /* NULL unless the source compiled without errors */
    schema_emitter *schemas; /* built on first use */
    c_names *names;          /* the model of the C outputs, in c_arena; NULL once released (no_c_outputs) */
    mcp_arena c_arena;
    char message[600];
};

const char *mcpidlc_version(void) { return MCPIDL_VERSION_STRING; }

const char *mcpidlc_status_string(mcpidlc_status status)
{
    switch (status) {
    case MCPIDLC_OK:
        return "success";
    case MCPIDLC_INVALID:
        return "the source has errors";
    case MCPIDLC_EREAD:
        return "the source cannot be read";
    case MCPIDLC_EWRITE:
        return "the output cannot be written";
    case MCPIDLC_ENOMEM:
        return "out of memory";
    case MCPIDLC_EUSAGE:
        return "a call that cannot be made";
    }
    return "unknown status";
}

static mcpidlc_status fail(mcpidlc_context *cx, mcpidlc_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static mcpidlc_status fail(mcpidlc_context *cx, mcpidlc_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cx->message, sizeof cx->message, fmt, ap);
    va_end(ap);
    return st;
}

mcpidlc_context *mcpidlc_new(const mcpidlc_options *options)
{
    mcpidlc_context *cx = calloc(1, sizeof *cx);
    if (!cx)
        return NULL;
    if (options)
        cx->opt = *options;
    mcp_arena_init(&cx->arena);
    mcp_arena_init(&cx->c_arena);
    return cx;
}

void mcpidlc_free(mcpidlc_context *cx)
{
    if (!cx)
        return;
    mcp_arena_free(&cx->arena);
    mcp_arena_free(&cx->c_arena);
    free(cx);
}

/* Forget the last source. */
static void reset(mcpidlc_context *cx)
{
    mcp_arena_free(&cx->arena);
    mcp_arena_init(&cx->arena);
    mcp_arena_free(&cx->c_arena);
    cx->has_source = false;
    cx->stem = cx->source_name = NULL;
    cx->file = cx->src = NULL;
    cx->src_len = 0;
    cx->root = NULL;
    memset(&cx->files, 0, sizeof cx->files);
    cx->deps = NULL;
    cx->ndeps = 0;
    cx->errors = cx->warnings = 0;
    cx->srv = NULL;
    cx->schemas = NULL;
    cx->names = NULL;
    cx->message[0] = 0;
}

typedef struct diag_sink {
    mcpidlc_context *cx;
    const char *file;       /* the file of every diagnostic, or NULL: */
    const idl_diags *files; /* the files by number */
} diag_sink;

static void pass_on(void *ctx, const idl_diag *g, const char *text, size_t len)
{
    const diag_sink *sink = ctx;
    static const mcpidlc_severity SEVERITY[] =
        {[IDL_NOTE] = MCPIDLC_NOTE, [IDL_WARNING] = MCPIDLC_WARNING, [IDL_ERROR] = MCPIDLC_ERROR};
    mcpidlc_diagnostic d = {.severity = SEVERITY[g->severity],
                            .file = sink->file ? sink->file : idl_diags_file(sink->files, g->loc.file, NULL, NULL),
                            .line = g->loc.line,
                            .column = g->loc.col,
                            .message = g->message,
                            .text = text,
                            .text_len = len};
    sink->cx->opt.on_diagnostic(sink->cx->opt.diagnostic_ctx, &d);
}

static char *read_all(mcpidlc_context *cx, FILE *f, const char *path, size_t *len, mcpidlc_status *st);

/* The reader of imported files (idl_reader): the text in the arena, the real
 * path as the file's identity. */
static const char *read_import(void *ctx, mcp_arena *a, const char *path, size_t *len, const char **id,
                               const char **error)
{
    mcpidlc_context *cx = ctx;
    if (cx->opt.read_import) {
        char *data = cx->opt.read_import(cx->opt.read_import_ctx, path, len, error);
        if (!data) {
            if (!*error)
                *error = "cannot be read";
            return NULL;
        }
        char *text = *len <= MAX_INPUT ? mcp_arena_alloc(a, *len + 1) : NULL;
        if (text) {
            memcpy(text, data, *len);
            text[*len] = 0;
        } else {
            *error = *len > MAX_INPUT ? "larger than 16 MiB" : "out of memory";
        }
        free(data);
        *id = text ? path : NULL; /* the name is the identity: there is no file to resolve */
        return text;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        *error = mcp_arena_strdup(a, strerror(errno));
        return NULL;
    }
    mcpidlc_status st;
    char *data = read_all(cx, f, path, len, &st);
    fclose(f);
    if (!data) {
        *error = st == MCPIDLC_ENOMEM ? "out of memory" : mcp_arena_strdup(a, cx->message);
        cx->message[0] = 0;
        return NULL;
    }
    char *text = mcp_arena_alloc(a, *len + 1);
    if (text) {
        memcpy(text, data, *len);
        text[*len] = 0;
    }
    free(data);
    char *real = realpath(path, NULL);
    *id = real ? mcp_arena_strdup(a, real) : NULL;
    free(real);
    if (!text)
        *error = "out of memory";
    return text;
}

/* What the imports of a source named `shown` are relative to: its directory
 * (up to its last '/'); for a name without one, up to its last ':', so that
 * the imports of git:REV:PATH are git:REV:... of the same revision; "" for
 * standard input (the current directory). */
static const char *import_dir(mcp_arena *a, const char *shown)
{
    if (strcmp(shown, "<stdin>") == 0)
        return "";
    const char *end = strrchr(shown, '/');
    if (!end)
        end = strrchr(shown, ':');
    return end ? mcp_arena_strndup(a, shown, (size_t)(end - shown) + 1) : "";
}

/* Compile src[0..len), named `shown` in diagnostics, `base` the file's name;
 * `file_id` identifies the file (its real path; NULL for standard input or a
 * buffer). */
static mcpidlc_status compile(mcpidlc_context *cx, const char *shown, const char *base, const char *stem,
                              const char *src, size_t len, const char *file_id)
{
    mcp_arena *a = &cx->arena;
    const char *file = mcp_arena_strdup(a, shown);
    cx->source_name = mcp_arena_strdup(a, base);
    cx->stem = stem ? mcp_arena_strdup(a, stem) : idl_file_stem(a, base);
    char *copy = mcp_arena_alloc(a, len + 1);
    if (!file || !cx->source_name || !cx->stem || !copy)
        return fail(cx, MCPIDLC_ENOMEM, "out of memory compiling '%s'", shown);
    memcpy(copy, src, len);
    copy[len] = 0;
    cx->has_source = true;
    cx->file = file;
    cx->src = copy;
    cx->src_len = len;
    idl_diags diags;
    idl_diags_init(&diags, a, file, copy, len);
    idl_options opts = {.warnings_as_errors = cx->opt.warnings_as_errors};
    idl_node *root = idl_load_yaml(a, &diags, copy, len, NULL);
    /* The files it imports, relative to it (to the current directory for standard input). */
    idl_reader reader = {read_import, cx};
    idl_unit *units = NULL;
    size_t nunits = 0;
    if (!idl_load_imports(a, &diags, root, file, import_dir(a, shown), file_id, &reader, NULL, &units, &nunits))
        return fail(cx, MCPIDLC_ENOMEM, "out of memory compiling '%s'", shown);
    units[0].path = file;
    units[0].stem = cx->stem;
    ir_server *srv = root ? idl_check_units(a, &diags, units, nunits, &opts) : NULL;
    cx->root = root;
    cx->files = diags;
    cx->deps = nunits > 1 ? mcp_arena_alloc(a, (nunits - 1) * sizeof *cx->deps) : NULL;
    for (size_t i = 1; cx->deps && i < nunits; i++)
        cx->deps[cx->ndeps++] = units[i].path;
    /* The names of the generated C, whose collisions are errors of the source.
     * The model is kept for the C outputs unless none will be asked for. */
    bool nomem = false;
    if (srv && !diags.errors)
        nomem = !(cx->names = c_names_new(&cx->c_arena, srv, &diags, NULL));
    if (cx->opt.no_c_outputs) {
        mcp_arena_free(&cx->c_arena);
        cx->names = NULL;
    }
    cx->errors = diags.errors;
    cx->warnings = diags.warnings;
    if (cx->opt.on_diagnostic) {
        diag_sink sink = {cx, NULL, &diags};
        if (!idl_diags_render(&diags, !cx->opt.no_source_lines, pass_on, &sink))
            return fail(cx, MCPIDLC_ENOMEM, "out of memory reporting the diagnostics of '%s'", shown);
    }
    if (nomem)
        return fail(cx, MCPIDLC_ENOMEM, "out of memory compiling '%s'", shown);
    if (!srv || diags.errors)
        return MCPIDLC_INVALID;
    cx->srv = srv;
    return MCPIDLC_OK;
}

mcpidlc_status mcpidlc_compile_buffer(mcpidlc_context *cx, const char *name, const char *text, size_t len)
{
    reset(cx);
    const char *slash = strrchr(name, '/');
    return compile(cx, name, slash ? slash + 1 : name, NULL, text, len, NULL);
}

/* The whole of f, in a heap buffer; NULL (and the message set) when it cannot
 * be read, or is larger than MAX_INPUT. */
static char *read_all(mcpidlc_context *cx, FILE *f, const char *path, size_t *len, mcpidlc_status *st)
{
    mcp_buf b;
    mcp_buf_init(&b);
    char chunk[65536];
    size_t n;
    *st = MCPIDLC_EREAD;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > MAX_INPUT) {
            fail(cx, MCPIDLC_EREAD, "'%s' is larger than %d MiB", path, MAX_INPUT >> 20);
            mcp_buf_free(&b);
            return NULL;
        }
        mcp_buf_put(&b, chunk, n);
    }
    if (ferror(f)) {
        fail(cx, MCPIDLC_EREAD, "cannot read '%s'", path);
        mcp_buf_free(&b);
        return NULL;
    }
    char *data = mcp_buf_take(&b, len);
    if (!data) {
        *st = fail(cx, MCPIDLC_ENOMEM, "out of memory reading '%s'", path);
        return NULL;
    }
    *st = MCPIDLC_OK;
    return data;
}

mcpidlc_status mcpidlc_compile_file(mcpidlc_context *cx, const char *path)
{
    reset(cx);
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return fail(cx, MCPIDLC_EREAD, "cannot open '%s': %s", path, strerror(errno));
    size_t len = 0;
    mcpidlc_status st;
    char *src = read_all(cx, f, path, &len, &st);
    if (!is_stdin)
        fclose(f);
    if (!src)
        return st;
    const char *slash = strrchr(path, '/');
    char *real = is_stdin ? NULL : realpath(path, NULL);
    st = compile(cx, is_stdin ? "<stdin>" : path, slash ? slash + 1 : path, is_stdin ? "stdin" : NULL, src, len,
                 is_stdin ? NULL
                 : real   ? real
                          : path);
    free(real);
    free(src);
    return st;
}

size_t mcpidlc_error_count(const mcpidlc_context *cx) { return cx->errors; }
size_t mcpidlc_import_count(const mcpidlc_context *cx) { return cx->ndeps; }
const char *mcpidlc_import(const mcpidlc_context *cx, size_t i) { return i < cx->ndeps ? cx->deps[i] : NULL; }
size_t mcpidlc_warning_count(const mcpidlc_context *cx) { return cx->warnings; }
const char *mcpidlc_message(const mcpidlc_context *cx) { return cx->message; }
const char *mcpidlc_stem(const mcpidlc_context *cx) { return cx->has_source ? cx->stem : NULL; }
size_t mcpidlc_tool_count(const mcpidlc_context *cx) { return cx->srv ? cx->srv->ntools : 0; }

const char *mcpidlc_tool_name(const mcpidlc_context *cx, size_t i)
{
    return cx->srv && i < cx->srv->ntools ? cx->srv->tools[i].name : NULL;
}

bool mcpidlc_tool_has_output_schema(const mcpidlc_context *cx, size_t i)
{
    return cx->srv && i < cx->srv->ntools && cx->srv->tools[i].returns && cx->srv->tools[i].output != IR_OUTPUT_NONE;
}

/* ---------------------------------------------------------------- outputs */

static const ir_tool *find_tool(const mcpidlc_context *cx, const char *name)
{
    for (size_t i = 0; name && i < cx->srv->ntools; i++)
        if (strcmp(cx->srv->tools[i].name, name) == 0)
            return &cx->srv->tools[i];
    return NULL;
}

/* A JSON output: indented by 2, with a final newline. */
static bool put_json(mcp_buf *b, const mcp_json *v)
{
    bool ok = v && mcp_json_write(b, v, 2);
    mcp_buf_putc(b, '\n');
    return ok;
}

/* The same for a schema that e built. */
static bool put_schema(schema_emitter *e, mcp_buf *b, const mcp_json *v)
{
    bool ok = v && schema_write(e, b, v, 2, 0);
    mcp_buf_putc(b, '\n');
    return ok;
}

enum { OUT_PIECE = 64 << 10 };

/* tools/list, as put_json writes the array: its entries built and written one
 * by one, and handed to `write` whenever OUT_PIECE bytes are waiting (for a
 * large contract it is megabytes, which need not be held at once). */
static mcpidlc_status tools_json(mcpidlc_context *cx, mcp_buf *b, mcpidlc_write_fn write, void *ctx)
{
    const ir_server *srv = cx->srv;
    if (!srv->ntools) {
        mcp_buf_puts(b, "[]\n");
        return MCPIDLC_OK;
    }
    /* Each entry is built in a scratch arena, emptied once it is written. */
    mcp_arena scratch;
    mcp_arena_init(&scratch);
    mcpidlc_status st = MCPIDLC_OK;
    mcp_buf_putc(b, '[');
    for (size_t i = 0; i < srv->ntools && st == MCPIDLC_OK; i++) {
        mcp_buf_puts(b, i ? ",\n  " : "\n  ");
        schema_scratch(cx->schemas, &scratch);
        mcp_json *entry = schema_tool_entry(cx->schemas, &srv->tools[i]);
        if (!entry || !schema_write(cx->schemas, b, entry, 2, 1))
            st = fail(cx, MCPIDLC_ENOMEM, "out of memory writing the tools");
        else if (b->len >= OUT_PIECE && !b->oom && !write(ctx, b->data, b->len))
            st = MCPIDLC_EWRITE;
        else if (b->len >= OUT_PIECE && !b->oom)
            mcp_buf_clear(b);
        schema_scratch(cx->schemas, NULL);
        mcp_arena_reset(&scratch);
    }
    mcp_arena_free(&scratch);
    if (st == MCPIDLC_OK)
        mcp_buf_puts(b, "\n]\n");
    return st;
}

/* Build output `kind` into b (tools/list: handing its first pieces to `write`). */
static mcpidlc_status build(mcpidlc_context *cx, mcpidlc_output kind, const char *tool, mcp_buf *b,
                            mcpidlc_write_fn write, void *ctx)
{
    mcp_arena *a = &cx->arena;
    switch (kind) {
    case MCPIDLC_TOOLS_JSON:
    case MCPIDLC_INPUT_SCHEMA:
    case MCPIDLC_OUTPUT_SCHEMA: {
        if (!cx->schemas && !(cx->schemas = schema_emitter_new(a, cx->srv)))
            return fail(cx, MCPIDLC_ENOMEM, "out of memory building the schemas");
        if (kind == MCPIDLC_TOOLS_JSON)
            return tools_json(cx, b, write, ctx);
        const ir_tool *t = find_tool(cx, tool);
        if (!t)
            return fail(cx, MCPIDLC_EUSAGE, "no tool named '%s'", tool ? tool : "(null)");
        mcp_json *s = kind == MCPIDLC_INPUT_SCHEMA ? schema_input(cx->schemas, t) : schema_output(cx->schemas, t);
        if (!s && kind == MCPIDLC_OUTPUT_SCHEMA && t->output == IR_OUTPUT_NONE)
            return fail(cx, MCPIDLC_EUSAGE, "tool '%s' publishes no outputSchema", t->name);
        return put_schema(cx->schemas, b, s) ? MCPIDLC_OK : fail(cx, MCPIDLC_ENOMEM, "out of memory writing a schema");
    }
    case MCPIDLC_C_HEADER:
    case MCPIDLC_C_SOURCE:
    case MCPIDLC_C_MOCK: {
        /* Built with the IR, which exists here, unless it was released
         * (no_c_outputs): then built again; its names were checked. */
        if (!cx->names && !(cx->names = c_names_new(&cx->c_arena, cx->srv, NULL, NULL)))
            return fail(cx, MCPIDLC_ENOMEM, "out of memory generating C");
        bool (*emit)(c_names *, const char *, const char *, mcp_buf *) = kind == MCPIDLC_C_HEADER   ? emit_c_header
                                                                         : kind == MCPIDLC_C_SOURCE ? emit_c_source
                                                                                                    : emit_c_mock;
        cx->names->piece = write; /* the output's first pieces go out as it is written */
        cx->names->piece_ctx = ctx;
        cx->names->unwritten = false;
        bool ok = emit(cx->names, cx->stem, cx->source_name, b);
        cx->names->piece = NULL;
        if (cx->names->unwritten)
            return MCPIDLC_EWRITE;
        return ok ? MCPIDLC_OK : fail(cx, MCPIDLC_ENOMEM, "out of memory generating C");
    }
    case MCPIDLC_MARKDOWN:
        return emit_markdown(cx->srv, cx->source_name, b) ? MCPIDLC_OK
                                                          : fail(cx, MCPIDLC_ENOMEM, "out of memory writing Markdown");
    case MCPIDLC_SERVER_JSON: {
        char why[1024];
        if (!ir_registry_complete(cx->srv, why, sizeof why))
            return fail(cx, MCPIDLC_INVALID, "cannot write server.json: %s", why);
        return put_json(b, emit_server_json(a, cx->srv))
                   ? MCPIDLC_OK
                   : fail(cx, MCPIDLC_ENOMEM, "out of memory writing server.json");
    }
    }
    return fail(cx, MCPIDLC_EUSAGE, "unknown output kind %d", (int)kind);
}

mcpidlc_status mcpidlc_emit(mcpidlc_context *cx, mcpidlc_output kind, const char *tool, mcpidlc_write_fn write,
                            void *ctx)
{
    cx->message[0] = 0;
    if (!cx->srv)
        return fail(cx, MCPIDLC_EUSAGE,
                    cx->has_source ? "the source has errors: it has no outputs" : "no source compiled yet");
    if (!write)
        return fail(cx, MCPIDLC_EUSAGE, "no writer given");
    mcp_buf b;
    mcp_buf_init(&b);
    mcpidlc_status st = build(cx, kind, tool, &b, write, ctx);
    if (st == MCPIDLC_OK && b.oom)
        st = fail(cx, MCPIDLC_ENOMEM, "out of memory writing an output");
    if (st == MCPIDLC_OK && !write(ctx, b.data ? b.data : "", b.len))
        st = MCPIDLC_EWRITE;
    mcp_buf_free(&b);
    return st;
}

/* ---------------------------------------------------------------- diff */

typedef struct diff_sink {
    mcpidlc_context *cx;
} diff_sink;

static void pass_diff(void *ctx, const char *file, const idl_diag *g, const char *text, size_t len)
{
    diag_sink sink = {((diff_sink *)ctx)->cx, file, NULL};
    pass_on(&sink, g, text, len);
}

mcpidlc_status mcpidlc_diff(mcpidlc_context *now, const mcpidlc_context *old, const char *const *allow, size_t nallow,
                            size_t *breaking)
{
    now->message[0] = 0;
    if (breaking)
        *breaking = 0;
    if (!old || !old->srv || !now->srv)
        return fail(now, MCPIDLC_EUSAGE, "both versions must have compiled without errors");
    for (size_t i = 0; i < nallow; i++)
        if (!allow[i] || !diff_kind_known(allow[i]))
            return fail(now, MCPIDLC_EUSAGE, "unknown kind of change '%s' (known: %s)", allow[i] ? allow[i] : "(null)",
                        diff_kind_list());
    diff_source o = {old->file, old->src, old->src_len, old->srv, old->root, &old->files};
    diff_source n = {now->file, now->src, now->src_len, now->srv, now->root, &now->files};
    diff_sink sink = {now};
    diff_options opts = {.allow = allow,
                         .nallow = nallow,
                         .werror = now->opt.warnings_as_errors,
                         .show_source = !now->opt.no_source_lines,
                         .emit = now->opt.on_diagnostic ? pass_diff : NULL,
                         .ctx = &sink};
    /* The comparison's text lives in a scratch arena of its own. */
    mcp_arena scratch;
    mcp_arena_init(&scratch);
    size_t errors = 0;
    bool ok = contract_diff(&scratch, &o, &n, &opts, &errors);
    mcp_arena_free(&scratch);
    if (!ok)
        return fail(now, MCPIDLC_ENOMEM, "out of memory comparing '%s' with '%s'", old->file, now->file);
    if (breaking)
        *breaking = errors;
    return MCPIDLC_OK;
}
