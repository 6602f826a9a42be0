/* fuzz_idl: the IDL front end (YAML loader, type expressions, checker), the
 * diagnostic printer, and, when the input compiles, the JSON Schema and C
 * back ends, all in memory.
 *
 * Properties: idl_compile gives an IR exactly when no error was reported;
 * every schema the back end writes is strict JSON (tools/list an array with
 * one entry per tool).
 */
#include <string.h>

#include "emit_c.h"
#include "emit_markdown.h"
#include "emit_schema.h"
#include "emit_serverjson.h"
#include "fuzz_util.h"
#include "ir.h"
#include "mcpidl/json.h"

static void print_diags(idl_diags *d, bool caret)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(idl_diags_print(d, f, caret));
    fclose(f);
    /* One "path:line:col: severity: message" line at least per recorded diagnostic. */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    FUZZ_CHECK(lines >= d->len);
    free(text);
}

/* v written as JSON parses strictly; returns the parsed value. */
static mcp_json *strict_json(mcp_arena *a, const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_json_write(&b, v, 2);
    FUZZ_CHECK(!b.oom);
    mcp_json_err err;
    size_t off;
    mcp_json *parsed = mcp_json_parse(a, b.data ? b.data : "", b.len, NULL, &err, &off);
    if (!parsed)
        fprintf(stderr, "a schema is not JSON (%s at byte %zu):\n%.*s\n", mcp_json_error_str(err), off,
                (int)(b.len < 2000 ? b.len : 2000), b.data);
    FUZZ_CHECK(parsed != NULL);
    mcp_buf_free(&b);
    return parsed;
}

static void emit(mcp_arena *a, const ir_server *srv)
{
    schema_emitter *e = schema_emitter_new(a, srv);
    FUZZ_CHECK(e != NULL);
    mcp_json *tools = strict_json(a, schema_tools_list(e));
    FUZZ_CHECK(tools->kind == MCP_JARRAY && tools->n == srv->ntools);
    for (size_t i = 0; i < srv->ntools; i++) {
        strict_json(a, schema_input(e, &srv->tools[i]));
        mcp_json *out = schema_output(e, &srv->tools[i]);
        if (out)
            strict_json(a, out);
    }

    c_names *n = c_names_new(a, srv, NULL, NULL);
    FUZZ_CHECK(n != NULL);
    mcp_buf h, c, m;
    mcp_buf_init(&h);
    mcp_buf_init(&c);
    mcp_buf_init(&m);
    FUZZ_CHECK(emit_c_header(n, "fuzz", "fuzz.mcp.yaml", &h));
    FUZZ_CHECK(emit_c_source(n, "fuzz", "fuzz.mcp.yaml", &c));
    FUZZ_CHECK(emit_c_mock(n, "fuzz", "fuzz.mcp.yaml", &m));
    FUZZ_CHECK(h.len > 0 && c.len > 0 && m.len > 0);
    mcp_buf_free(&h);
    mcp_buf_free(&c);
    mcp_buf_free(&m);
    /* The reference page: written for any valid IR, ending in one newline. */
    mcp_buf md;
    mcp_buf_init(&md);
    FUZZ_CHECK(emit_markdown(srv, "fuzz.mcp.yaml", &md));
    FUZZ_CHECK(md.len > 1 && md.data[md.len - 1] == '\n' && md.data[md.len - 2] != '\n');
    mcp_buf_free(&md);
    /* server.json: written whenever the IR has what it needs, and then with a
     * registry name and a description of at most 100 characters. */
    char why[512];
    if (ir_registry_complete(srv, why, sizeof why)) {
        mcp_json *doc = emit_server_json(a, srv);
        FUZZ_CHECK(doc && ir_registry_name_ok(mcp_json_get(doc, "name")->s));
        FUZZ_CHECK(ir_utf8_length(mcp_json_get(doc, "description")->s) <= 100);
        mcp_buf sj;
        mcp_buf_init(&sj);
        FUZZ_CHECK(mcp_json_write(&sj, doc, 2));
        mcp_buf_free(&sj);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data;
    mcp_arena a;
    mcp_arena_init(&a);
    idl_diags d;
    idl_diags_init(&d, &a, "fuzz.mcp.yaml", src, size);
    idl_options opts = {.warnings_as_errors = false};
    ir_server *srv = idl_compile(&a, &d, src, size, &opts);
    FUZZ_CHECK((srv != NULL) == (d.errors == 0));
    print_diags(&d, true);
    print_diags(&d, false);
    if (srv)
        emit(&a, srv);
    mcp_arena_free(&a);
    return 0;
}
