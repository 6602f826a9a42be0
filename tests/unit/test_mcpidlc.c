/* test_mcpidlc.c: the compiler as a library (mcpidlc.h), through the shared
 * libmcpidlc alone: sources from buffers and files, diagnostics through the
 * callback, every output through a writer, and every status a call can
 * return. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "mcpidlc/mcpidlc.h"

static const char WEATHER[] = "mcpidl: 1\n"
                              "server: {name: weather, version: \"1.0.0\"}\n"
                              "types:\n"
                              "  Reading:\n"
                              "    fields:\n"
                              "      celsius: float\n"
                              "tools:\n"
                              "  get_reading:\n"
                              "    description: The reading.\n"
                              "    params:\n"
                              "      city: str\n"
                              "    returns: Reading\n"
                              "  report:\n"
                              "    description: A report.\n"
                              "    returns: content\n";

/* The diagnostics a source gave, each as its fields and its text. */
typedef struct seen {
    int n;
    mcpidlc_diagnostic first;
    char first_text[512], first_message[256], first_file[64];
    char all[4096];
} seen;

static void collect(void *ctx, const mcpidlc_diagnostic *d)
{
    seen *s = ctx;
    if (s->n++ == 0) {
        s->first = *d;
        snprintf(s->first_text, sizeof s->first_text, "%.*s", (int)d->text_len, d->text);
        snprintf(s->first_message, sizeof s->first_message, "%s", d->message);
        snprintf(s->first_file, sizeof s->first_file, "%s", d->file);
    }
    size_t used = strlen(s->all);
    snprintf(s->all + used, sizeof s->all - used, "%.*s", (int)d->text_len, d->text);
}

/* A writer into a fixed buffer; `fail` makes it refuse. */
typedef struct sink {
    char data[1 << 16];
    size_t len;
    bool fail;
} sink;

static bool into(void *ctx, const char *data, size_t len)
{
    sink *s = ctx;
    if (s->fail || s->len + len >= sizeof s->data)
        return false;
    memcpy(s->data + s->len, data, len);
    s->len += len;
    s->data[s->len] = 0;
    return true;
}

static mcpidlc_status emit(mcpidlc_context *cx, mcpidlc_output kind, const char *tool, sink *s)
{
    memset(s, 0, sizeof *s);
    return mcpidlc_emit(cx, kind, tool, into, s);
}

START_TEST(compile_and_emit)
{
    mcpidlc_context *cx = mcpidlc_new(NULL);
    ck_assert_ptr_nonnull(cx);
    ck_assert_ptr_null(mcpidlc_stem(cx));
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "dir/weather.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    ck_assert_str_eq(mcpidlc_stem(cx), "weather");
    ck_assert_uint_eq(mcpidlc_error_count(cx), 0);
    ck_assert_uint_eq(mcpidlc_tool_count(cx), 2);
    ck_assert_str_eq(mcpidlc_tool_name(cx, 0), "get_reading");
    ck_assert_str_eq(mcpidlc_tool_name(cx, 1), "report");
    ck_assert_ptr_null(mcpidlc_tool_name(cx, 2));
    ck_assert(mcpidlc_tool_has_output_schema(cx, 0));
    ck_assert(!mcpidlc_tool_has_output_schema(cx, 1));

    static sink s;
    ck_assert_int_eq(emit(cx, MCPIDLC_INPUT_SCHEMA, "get_reading", &s), MCPIDLC_OK);
    ck_assert_str_eq(s.data, "{\n"
                             "  \"properties\": {\n"
                             "    \"city\": {\n"
                             "      \"title\": \"City\",\n"
                             "      \"type\": \"string\"\n"
                             "    }\n"
                             "  },\n"
                             "  \"required\": [\n"
                             "    \"city\"\n"
                             "  ],\n"
                             "  \"title\": \"get_readingArguments\",\n"
                             "  \"type\": \"object\"\n"
                             "}\n");
    ck_assert_int_eq(emit(cx, MCPIDLC_OUTPUT_SCHEMA, "get_reading", &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"title\": \"Reading\""));
    ck_assert_int_eq(emit(cx, MCPIDLC_TOOLS_JSON, NULL, &s), MCPIDLC_OK);
    ck_assert(s.data[0] == '[' && s.data[s.len - 1] == '\n');
    ck_assert_ptr_nonnull(strstr(s.data, "\"name\": \"report\""));

    /* The C outputs, named after the stem, agreeing with each other. */
    ck_assert_int_eq(emit(cx, MCPIDLC_C_HEADER, NULL, &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "from weather.mcp.yaml;"));
    ck_assert_ptr_nonnull(strstr(s.data, "#ifndef WEATHER_MCP_H"));
    ck_assert_ptr_nonnull(strstr(s.data, "extern const mcp_server weather_server;"));
    char *header = strdup(s.data);
    ck_assert_int_eq(emit(cx, MCPIDLC_C_SOURCE, NULL, &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "#include \"weather.mcp.h\""));
    ck_assert_ptr_nonnull(strstr(s.data, "const mcp_server weather_server = {"));
    ck_assert_int_eq(emit(cx, MCPIDLC_C_MOCK, NULL, &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "mcp_mock_main(&weather_server"));
    ck_assert_int_eq(emit(cx, MCPIDLC_C_HEADER, NULL, &s), MCPIDLC_OK);
    ck_assert_str_eq(s.data, header);
    free(header);
    mcpidlc_free(cx);
}
END_TEST

/* no_c_outputs: the names of the C are still checked (a collision is an
 * error as without it), and a C output asked for anyway is the same as a
 * default context's. */
START_TEST(no_c_outputs)
{
    static seen got;
    memset(&got, 0, sizeof got);
    mcpidlc_options o = {.on_diagnostic = collect, .diagnostic_ctx = &got, .no_c_outputs = true};
    mcpidlc_context *cx = mcpidlc_new(&o);
    static const char CLASH[] = "mcpidl: 1\n"
                                "server: {name: w, version: \"1\"}\n"
                                "types:\n"
                                "  str_list:\n"
                                "    fields:\n"
                                "      items: list[str]\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "w.mcp.yaml", CLASH, sizeof CLASH - 1), MCPIDLC_INVALID);
    ck_assert_uint_eq(mcpidlc_error_count(cx), 1);
    ck_assert_str_eq(got.first_message,
                     "type 'str_list' and the C type of list[str] have the same C name 'w_str_list'; rename the type");

    static sink s;
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "dir/weather.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    ck_assert_int_eq(emit(cx, MCPIDLC_TOOLS_JSON, NULL, &s), MCPIDLC_OK);
    mcpidlc_output kinds[] = {MCPIDLC_C_HEADER, MCPIDLC_C_SOURCE, MCPIDLC_C_MOCK};
    mcpidlc_context *plain = mcpidlc_new(NULL);
    ck_assert_int_eq(mcpidlc_compile_buffer(plain, "dir/weather.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        ck_assert_int_eq(emit(plain, kinds[i], NULL, &s), MCPIDLC_OK);
        char *want = strdup(s.data);
        ck_assert_int_eq(emit(cx, kinds[i], NULL, &s), MCPIDLC_OK);
        ck_assert_str_eq(s.data, want);
        free(want);
    }
    mcpidlc_free(plain);
    mcpidlc_free(cx);
}
END_TEST

/* server.json: refused, with each missing part named, for a source that
 * lacks them (WEATHER: no reverse-DNS name, no description); written, with
 * the package's version taken from the server, once they are given. */
START_TEST(server_json)
{
    mcpidlc_context *cx = mcpidlc_new(NULL);
    ck_assert_ptr_nonnull(cx);
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "weather.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    static sink s;
    ck_assert_int_eq(emit(cx, MCPIDLC_SERVER_JSON, NULL, &s), MCPIDLC_INVALID);
    ck_assert_uint_eq(s.len, 0);
    ck_assert_ptr_nonnull(strstr(mcpidlc_message(cx), "cannot write server.json: the server's name 'weather' is not"));
    ck_assert_ptr_nonnull(strstr(mcpidlc_message(cx), "server.json needs a description"));

    static const char PUBLISHED[] = "mcpidl: 1\n"
                                    "server: {name: weather, version: \"1.2.0\", title: Weather}\n"
                                    "registry:\n"
                                    "  name: com.example/weather\n"
                                    "  description: The weather.\n"
                                    "  packages: [{registryType: pypi, identifier: example-weather}]\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "weather.mcp.yaml", PUBLISHED, sizeof PUBLISHED - 1), MCPIDLC_OK);
    ck_assert_int_eq(emit(cx, MCPIDLC_SERVER_JSON, NULL, &s), MCPIDLC_OK);
    ck_assert_str_eq(s.data, "{\n"
                             "  \"$schema\": "
                             "\"https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json\",\n"
                             "  \"name\": \"com.example/weather\",\n"
                             "  \"title\": \"Weather\",\n"
                             "  \"description\": \"The weather.\",\n"
                             "  \"version\": \"1.2.0\",\n"
                             "  \"packages\": [\n"
                             "    {\n"
                             "      \"registryType\": \"pypi\",\n"
                             "      \"identifier\": \"example-weather\",\n"
                             "      \"version\": \"1.2.0\",\n"
                             "      \"transport\": {\n"
                             "        \"type\": \"stdio\"\n"
                             "      }\n"
                             "    }\n"
                             "  ]\n"
                             "}\n");
    mcpidlc_free(cx);
}
END_TEST

START_TEST(usage_errors)
{
    mcpidlc_context *cx = mcpidlc_new(NULL);
    static sink s;
    /* Nothing compiled yet. */
    ck_assert_int_eq(emit(cx, MCPIDLC_TOOLS_JSON, NULL, &s), MCPIDLC_EUSAGE);
    ck_assert_str_eq(mcpidlc_message(cx), "no source compiled yet");
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "weather.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    ck_assert_int_eq(emit(cx, MCPIDLC_INPUT_SCHEMA, "nope", &s), MCPIDLC_EUSAGE);
    ck_assert_str_eq(mcpidlc_message(cx), "no tool named 'nope'");
    ck_assert_int_eq(emit(cx, MCPIDLC_INPUT_SCHEMA, NULL, &s), MCPIDLC_EUSAGE);
    ck_assert_int_eq(emit(cx, MCPIDLC_OUTPUT_SCHEMA, "report", &s), MCPIDLC_EUSAGE);
    ck_assert_str_eq(mcpidlc_message(cx), "tool 'report' publishes no outputSchema");
    ck_assert_int_eq(emit(cx, (mcpidlc_output)99, NULL, &s), MCPIDLC_EUSAGE);
    ck_assert_int_eq(mcpidlc_emit(cx, MCPIDLC_TOOLS_JSON, NULL, NULL, NULL), MCPIDLC_EUSAGE);
    /* A writer that refuses. */
    memset(&s, 0, sizeof s);
    s.fail = true;
    ck_assert_int_eq(mcpidlc_emit(cx, MCPIDLC_C_SOURCE, NULL, into, &s), MCPIDLC_EWRITE);
    /* After a source with errors, no outputs. */
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "bad.mcp.yaml", "mcpidl: 1\n", 10), MCPIDLC_INVALID);
    ck_assert_uint_eq(mcpidlc_tool_count(cx), 0);
    ck_assert_int_eq(emit(cx, MCPIDLC_C_HEADER, NULL, &s), MCPIDLC_EUSAGE);
    ck_assert_str_eq(mcpidlc_message(cx), "the source has errors: it has no outputs");
    for (int st = MCPIDLC_OK; st <= MCPIDLC_EUSAGE; st++)
        ck_assert(strlen(mcpidlc_status_string((mcpidlc_status)st)) > 0);
    ck_assert_str_eq(mcpidlc_status_string(MCPIDLC_INVALID), "the source has errors");
    mcpidlc_free(cx);
    mcpidlc_free(NULL);
}
END_TEST

START_TEST(diagnostics)
{
    static seen got;
    memset(&got, 0, sizeof got);
    mcpidlc_options o = {.on_diagnostic = collect, .diagnostic_ctx = &got};
    mcpidlc_context *cx = mcpidlc_new(&o);
    static const char BAD[] = "mcpidl: 1\n"
                              "server: {name: w, version: \"1\"}\n"
                              "tools:\n"
                              "  t:\n"
                              "    description: d\n"
                              "    returns: flot\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "w.mcp.yaml", BAD, sizeof BAD - 1), MCPIDLC_INVALID);
    ck_assert_int_eq(got.n, 1);
    ck_assert_uint_eq(mcpidlc_error_count(cx), 1);
    ck_assert_int_eq(got.first.severity, MCPIDLC_ERROR);
    ck_assert_str_eq(got.first_file, "w.mcp.yaml");
    ck_assert_uint_eq(got.first.line, 6);
    ck_assert_uint_eq(got.first.column, 14);
    ck_assert_str_eq(got.first_message, "unknown type 'flot'; did you mean 'float'?");
    ck_assert_str_eq(got.first_text, "w.mcp.yaml:6:14: error: unknown type 'flot'; did you mean 'float'?\n"
                                     "    6 |     returns: flot\n"
                                     "      |              ^\n");
    mcpidlc_free(cx);

    /* A warning, without source lines; then the same as an error. */
    static const char WARN[] = "mcpidl: 1\nserver: {name: w, version: \"1\"}\ntools:\n  t:\n    returns: int\n";
    memset(&got, 0, sizeof got);
    o.no_source_lines = true;
    cx = mcpidlc_new(&o);
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "w.mcp.yaml", WARN, sizeof WARN - 1), MCPIDLC_OK);
    ck_assert_int_eq(got.n, 1);
    ck_assert_int_eq(got.first.severity, MCPIDLC_WARNING);
    ck_assert_uint_eq(mcpidlc_warning_count(cx), 1);
    ck_assert_str_eq(got.first_text, "w.mcp.yaml:4:3: warning: tool 't' has no description; clients show it to the "
                                     "model to choose tools\n");
    mcpidlc_free(cx);
    memset(&got, 0, sizeof got);
    o.warnings_as_errors = true;
    cx = mcpidlc_new(&o);
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "w.mcp.yaml", WARN, sizeof WARN - 1), MCPIDLC_INVALID);
    ck_assert_int_eq(got.first.severity, MCPIDLC_ERROR);
    mcpidlc_free(cx);
}
END_TEST

/* Two versions compared: each change through the newer context's callback,
 * the old one's place in a note naming the old file; the count of breaking
 * changes; --allow; and the calls that cannot be made. */
START_TEST(diff)
{
    static seen got;
    memset(&got, 0, sizeof got);
    mcpidlc_options o = {.no_source_lines = true, .on_diagnostic = collect, .diagnostic_ctx = &got};
    mcpidlc_context *old = mcpidlc_new(&o), *now = mcpidlc_new(&o);
    static const char NEW[] = "mcpidl: 1\n"
                              "server: {name: weather, version: \"1.0.0\"}\n"
                              "types:\n"
                              "  Reading:\n"
                              "    fields:\n"
                              "      celsius: float\n"
                              "tools:\n"
                              "  get_reading:\n"
                              "    description: The reading.\n"
                              "    params:\n"
                              "      city: str\n"
                              "      country: str\n"
                              "    returns: Reading\n";
    size_t breaking = 99;
    ck_assert_int_eq(mcpidlc_diff(now, old, NULL, 0, &breaking), MCPIDLC_EUSAGE); /* nothing compiled */
    ck_assert_uint_eq(breaking, 0);
    ck_assert_int_eq(mcpidlc_compile_buffer(old, "old.mcp.yaml", WEATHER, sizeof WEATHER - 1), MCPIDLC_OK);
    ck_assert_int_eq(mcpidlc_compile_buffer(now, "new.mcp.yaml", NEW, sizeof NEW - 1), MCPIDLC_OK);
    ck_assert_int_eq(got.n, 0);
    ck_assert_int_eq(mcpidlc_diff(now, old, NULL, 0, &breaking), MCPIDLC_OK);
    ck_assert_uint_eq(breaking, 2);
    ck_assert_int_eq(got.n, 3);
    ck_assert_int_eq(got.first.severity, MCPIDLC_ERROR);
    ck_assert_str_eq(got.first_file, "new.mcp.yaml");
    ck_assert_uint_eq(got.first.line, 7);
    ck_assert_str_eq(got.all, "new.mcp.yaml:7:1: error: tool 'report': removed; breaks clients [removed]\n"
                              "old.mcp.yaml:13:3: note: 'report' was defined here\n"
                              "new.mcp.yaml:12:7: error: parameter 'country' of tool 'get_reading': added, required; "
                              "breaks clients [required]\n");
    /* Accepted on purpose: notes, and nothing breaks. */
    const char *allow[] = {"removed", "required"};
    memset(&got, 0, sizeof got);
    ck_assert_int_eq(mcpidlc_diff(now, old, allow, 2, &breaking), MCPIDLC_OK);
    ck_assert_uint_eq(breaking, 0);
    ck_assert_int_eq(got.first.severity, MCPIDLC_NOTE);
    ck_assert_ptr_nonnull(strstr(got.all, "breaks clients (allowed) [required]"));
    /* A version against itself: nothing. */
    memset(&got, 0, sizeof got);
    ck_assert_int_eq(mcpidlc_diff(now, now, NULL, 0, NULL), MCPIDLC_OK);
    ck_assert_int_eq(got.n, 0);
    /* An unknown kind; a version with errors. */
    const char *bad[] = {"everything"};
    ck_assert_int_eq(mcpidlc_diff(now, old, bad, 1, &breaking), MCPIDLC_EUSAGE);
    ck_assert_ptr_nonnull(strstr(mcpidlc_message(now), "unknown kind of change 'everything'"));
    static const char BROKEN[] = "mcpidl: 1\nserver: {name: w, version: \"1\"}\ntools: 3\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(old, "old.mcp.yaml", BROKEN, sizeof BROKEN - 1), MCPIDLC_INVALID);
    ck_assert_int_eq(mcpidlc_diff(now, old, NULL, 0, &breaking), MCPIDLC_EUSAGE);
    mcpidlc_free(old);
    mcpidlc_free(now);
}
END_TEST

START_TEST(files)
{
    mcpidlc_context *cx = mcpidlc_new(NULL);
    ck_assert_int_eq(mcpidlc_compile_file(cx, "/nonexistent/dir/x.mcp.yaml"), MCPIDLC_EREAD);
    ck_assert_str_eq(mcpidlc_message(cx), "cannot open '/nonexistent/dir/x.mcp.yaml': No such file or directory");
    ck_assert_ptr_null(mcpidlc_stem(cx));

    char dir[] = "/tmp/test_mcpidlc_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/forecast.mcp.yml", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(WEATHER, 1, sizeof WEATHER - 1, f), sizeof WEATHER - 1);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(mcpidlc_compile_file(cx, path), MCPIDLC_OK);
    ck_assert_str_eq(mcpidlc_message(cx), "");
    ck_assert_str_eq(mcpidlc_stem(cx), "forecast");
    static sink s;
    ck_assert_int_eq(emit(cx, MCPIDLC_C_SOURCE, NULL, &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "from forecast.mcp.yml;"));
    ck_assert_ptr_nonnull(strstr(s.data, "#include \"forecast.mcp.h\""));
    unlink(path);
    rmdir(dir);
    /* A directory reads as nothing it can compile. */
    ck_assert_int_eq(mcpidlc_compile_file(cx, "/tmp"), MCPIDLC_EREAD);
    ck_assert_str_eq(mcpidlc_message(cx), "cannot read '/tmp'");
    ck_assert_str_eq(mcpidlc_version(), MCPIDL_VERSION_STRING);
    mcpidlc_free(cx);
}
END_TEST

/* Imported files, read through the context's reader: here from memory. */
static char *from_memory(void *ctx, const char *path, size_t *len, const char **error)
{
    (void)ctx;
    static const char COMMON[] = "mcpidl: 1\ntypes:\n  Place:\n    fields:\n      name: str\n";
    static const char BROKEN[] = "mcpidl: 1\ntypes:\n  Bad:\n    fields:\n      x: Strr\n";
    const char *text = strcmp(path, "v1/lib/common.mcp.yaml") == 0   ? COMMON
                       : strcmp(path, "v1/lib/broken.mcp.yaml") == 0 ? BROKEN
                                                                     : NULL;
    if (!text) {
        *error = "not in memory";
        return NULL;
    }
    *len = strlen(text);
    char *copy = malloc(*len + 1);
    if (copy)
        memcpy(copy, text, *len + 1);
    return copy;
}

START_TEST(imports)
{
    static seen d;
    memset(&d, 0, sizeof d);
    mcpidlc_options o = {.on_diagnostic = collect,
                         .diagnostic_ctx = &d,
                         .no_source_lines = true,
                         .read_import = from_memory};
    mcpidlc_context *cx = mcpidlc_new(&o);
    static const char SHOP[] = "mcpidl: 1\nimports: [lib/common.mcp.yaml]\n"
                               "server: {name: shop, version: \"1\"}\n"
                               "tools:\n  find:\n    description: Find.\n    returns: Place\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "v1/shop.mcp.yaml", SHOP, sizeof SHOP - 1), MCPIDLC_OK);
    ck_assert_int_eq(d.n, 0);
    ck_assert_uint_eq(mcpidlc_import_count(cx), 1);
    ck_assert_str_eq(mcpidlc_import(cx, 0), "v1/lib/common.mcp.yaml");
    ck_assert_ptr_null(mcpidlc_import(cx, 1));
    static sink s;
    ck_assert_int_eq(emit(cx, MCPIDLC_C_HEADER, NULL, &s), MCPIDLC_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "#include \"common.mcp.h\""));
    ck_assert_ptr_null(strstr(s.data, "struct common_Place {")); /* common.mcp.h defines it */
    ck_assert_ptr_nonnull(strstr(s.data, "common_Place *out);"));

    /* An error in an imported file names that file. */
    static const char BAD[] = "mcpidl: 1\nimports: [lib/broken.mcp.yaml, nowhere.mcp.yaml]\n"
                              "server: {name: shop, version: \"1\"}\n";
    ck_assert_int_eq(mcpidlc_compile_buffer(cx, "v1/shop.mcp.yaml", BAD, sizeof BAD - 1), MCPIDLC_INVALID);
    ck_assert_int_eq(d.n, 2);
    ck_assert_str_eq(d.all, "v1/shop.mcp.yaml:2:32: error: cannot read imported file 'v1/nowhere.mcp.yaml': "
                            "not in memory\n"
                            "v1/lib/broken.mcp.yaml:5:10: error: unknown type 'Strr'; did you mean 'str'?\n");
    ck_assert_str_eq(d.first_file, "v1/shop.mcp.yaml");
    mcpidlc_free(cx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mcpidlc");
    TCase *t = tcase_create("library");
    tcase_add_test(t, compile_and_emit);
    tcase_add_test(t, no_c_outputs);
    tcase_add_test(t, server_json);
    tcase_add_test(t, usage_errors);
    tcase_add_test(t, diagnostics);
    tcase_add_test(t, files);
    tcase_add_test(t, diff);
    tcase_add_test(t, imports);
    suite_add_tcase(s, t);
    return check_run(s, true) ? EXIT_FAILURE : EXIT_SUCCESS;
}
