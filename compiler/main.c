/* main.c: the mcpidlc command line. Parses options, runs the front end, hands
 * the IR to the emitters, writes files. Nothing else lives here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emit_c.h"
#include "emit_schema.h"
#include "ir.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };
enum { MAX_INPUT = 16 << 20 }; /* an IDL is kilobytes; the loader needs ~130 bytes per node */

static const char USAGE[] =
    "usage: mcpidlc [OPTIONS] FILE.mcp.yaml\n"
    "\n"
    "Compile an MCP server description (.mcp.yaml) into JSON Schema and C.\n"
    "\n"
    "Output:\n"
    "  --print-tools        write the JSON array that tools/list returns to standard output\n"
    "  --emit=KIND[,KIND]   write generated files; KIND is one of:\n"
    "                         c       DIR/NAME.mcp.h and DIR/NAME.mcp.c: C types, handler\n"
    "                                 prototypes, validators and the server table\n"
    "                         mock    DIR/NAME.mock.c: handlers answering with canned JSON\n"
    "                                 read at run time, and a main() (implies c)\n"
    "                         schema  DIR/NAME.tools.json, and for each tool\n"
    "                                 DIR/NAME.TOOL.input.schema.json and\n"
    "                                 DIR/NAME.TOOL.output.schema.json\n"
    "  -o, --output DIR     the directory for --emit (default: the current directory;\n"
    "                       created when missing)\n"
    "  --check              report diagnostics only\n"
    "\n"
    "Diagnostics:\n"
    "  -Werror              treat warnings as errors\n"
    "  -fno-diagnostics-show-caret\n"
    "                       print diagnostics without the source line and caret\n"
    "\n"
    "  -h, --help           show this help and exit\n"
    "  --version            show the version and exit\n"
    "\n"
    "FILE may be '-' for standard input. NAME is FILE's name without '.mcp.yaml'.\n"
    "Exit status: 0 success, 1 errors in the input, 2 bad usage.\n";

typedef struct options {
    const char *input;
    const char *out_dir;
    bool print_tools;
    bool emit_schema;
    bool emit_c;
    bool emit_mock;
    bool check_only;
    bool werror;
    bool show_caret;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    fputs("mcpidlc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'mcpidlc --help' for more information.\n", stderr);
    return EXIT_USAGE;
}

static int parse_emit(options *o, const char *list)
{
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return usage_error("--emit list too long: '%s'", list);
    strcpy(buf, list);
    for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        if (strcmp(k, "schema") == 0)
            o->emit_schema = true;
        else if (strcmp(k, "c") == 0)
            o->emit_c = true;
        else if (strcmp(k, "mock") == 0)
            o->emit_c = o->emit_mock = true;
        else
            return usage_error("unknown --emit kind '%s' (known: c, mock, schema)", k);
    }
    return 0;
}

static int parse_args(options *o, int argc, char **argv)
{
    *o = (options){.out_dir = ".", .show_caret = true};
    bool no_more_options = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (no_more_options || a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->input)
                return usage_error("more than one input file ('%s')", a);
            o->input = a;
        } else if (strcmp(a, "--") == 0) {
            no_more_options = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("mcpidlc %s\n", MCPIDL_VERSION_STRING);
            exit(0);
        } else if (strcmp(a, "--print-tools") == 0) {
            o->print_tools = true;
        } else if (strcmp(a, "--check") == 0) {
            o->check_only = true;
        } else if (strcmp(a, "-Werror") == 0) {
            o->werror = true;
        } else if (strcmp(a, "-fno-diagnostics-show-caret") == 0) {
            o->show_caret = false;
        } else if (strncmp(a, "--emit=", 7) == 0) {
            int rc = parse_emit(o, a + 7);
            if (rc)
                return rc;
        } else if (strcmp(a, "--emit") == 0) {
            if (++i == argc)
                return usage_error("%s needs a value", a);
            int rc = parse_emit(o, argv[i]);
            if (rc)
                return rc;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++i == argc)
                return usage_error("%s needs a directory", a);
            o->out_dir = argv[i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            o->out_dir = a + 9;
        } else if (strncmp(a, "-o", 2) == 0) {
            o->out_dir = a + 2;
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (!o->input)
        return usage_error("%s", "no input file");
    if (o->check_only && (o->print_tools || o->emit_schema || o->emit_c))
        return usage_error("%s", "--check cannot be combined with --print-tools or --emit");
    return 0;
}

static char *read_input(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mcpidlc: error: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    mcp_buf b;
    mcp_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > MAX_INPUT) {
            fprintf(stderr, "mcpidlc: error: '%s' is larger than %d MiB\n", path, MAX_INPUT >> 20);
            mcp_buf_free(&b);
            if (f != stdin)
                fclose(f);
            return NULL;
        }
        mcp_buf_put(&b, chunk, n);
    }
    bool failed = ferror(f);
    if (f != stdin)
        fclose(f);
    if (failed) {
        fprintf(stderr, "mcpidlc: error: cannot read '%s'\n", path);
        mcp_buf_free(&b);
        return NULL;
    }
    char *data = mcp_buf_take(&b, len);
    if (!data)
        fprintf(stderr, "mcpidlc: error: out of memory reading '%s'\n", path);
    return data;
}

/* NAME: the input's file name without directories and without ".mcp.yaml"
 * (or ".yaml", ".yml"). */
static char *stem_of(mcp_arena *a, const char *path)
{
    if (strcmp(path, "-") == 0)
        return mcp_arena_strdup(a, "stdin");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    static const char *const SUFFIXES[] = {".mcp.yaml", ".mcp.yml", ".yaml", ".yml"};
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof *SUFFIXES; i++) {
        size_t k = strlen(SUFFIXES[i]);
        if (n > k && strcmp(base + n - k, SUFFIXES[i]) == 0) {
            n -= k;
            break;
        }
    }
    return mcp_arena_strndup(a, base, n);
}

/* Write a file whole: to a temporary name first, then renamed over the target,
 * so a failed run never leaves a half-written file. */
static bool write_file(mcp_arena *a, const char *path, const char *data, size_t len)
{
    char *tmp = mcp_arena_printf(a, "%s.tmp%ld", path, (long)getpid());
    FILE *f = tmp ? fopen(tmp, "wb") : NULL;
    if (!f) {
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", path, strerror(errno));
        return false;
    }
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", path, strerror(errno));
        remove(tmp);
    }
    return ok;
}

static bool write_json(mcp_arena *a, const char *path, const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_json_write(&b, v, 2);
    mcp_buf_putc(&b, '\n');
    bool ok = !b.oom && write_file(a, path, b.data, b.len);
    mcp_buf_free(&b);
    return ok;
}

static bool make_out_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mcpidlc: error: cannot create '%s': %s\n", dir, strerror(errno));
        return false;
    }
    return true;
}

static bool emit_c_files(mcp_arena *a, const options *o, const ir_server *srv, const char *stem)
{
    const char *base = strrchr(o->input, '/');
    const char *source_name = base ? base + 1 : o->input;
    c_names *n = c_names_new(a, srv);
    mcp_buf header, source, mock;
    mcp_buf_init(&header);
    mcp_buf_init(&source);
    mcp_buf_init(&mock);
    bool ok = n && emit_c_header(n, stem, source_name, &header) && emit_c_source(n, stem, source_name, &source) &&
              (!o->emit_mock || emit_c_mock(n, stem, source_name, &mock));
    if (!ok)
        fprintf(stderr, "mcpidlc: error: out of memory generating C\n");
    ok = ok && write_file(a, mcp_arena_printf(a, "%s/%s.mcp.h", o->out_dir, stem), header.data, header.len);
    ok = ok && write_file(a, mcp_arena_printf(a, "%s/%s.mcp.c", o->out_dir, stem), source.data, source.len);
    if (o->emit_mock)
        ok = ok && write_file(a, mcp_arena_printf(a, "%s/%s.mock.c", o->out_dir, stem), mock.data, mock.len);
    mcp_buf_free(&header);
    mcp_buf_free(&source);
    mcp_buf_free(&mock);
    return ok;
}

static bool emit_schemas(mcp_arena *a, const options *o, const ir_server *srv, const char *stem)
{
    schema_emitter *e = schema_emitter_new(a, srv);
    if (!e)
        return false;
    if (!write_json(a, mcp_arena_printf(a, "%s/%s.tools.json", o->out_dir, stem), schema_tools_list(e)))
        return false;
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        if (!write_json(a, mcp_arena_printf(a, "%s/%s.%s.input.schema.json", o->out_dir, stem, t->name),
                        schema_input(e, t)))
            return false;
        mcp_json *out = schema_output(e, t);
        if (out && !write_json(a, mcp_arena_printf(a, "%s/%s.%s.output.schema.json", o->out_dir, stem, t->name), out))
            return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_args(&o, argc, argv);
    if (rc)
        return rc;
    size_t len;
    char *src = read_input(o.input, &len);
    if (!src)
        return EXIT_INPUT;

    mcp_arena arena;
    mcp_arena_init(&arena);
    idl_diags diags;
    const char *shown_path = strcmp(o.input, "-") == 0 ? "<stdin>" : o.input;
    idl_diags_init(&diags, &arena, shown_path, src, len);
    idl_options opts = {.warnings_as_errors = o.werror};
    ir_server *srv = idl_compile(&arena, &diags, src, len, &opts);
    idl_diags_print(&diags, stderr, o.show_caret);

    int status = srv && diags.errors == 0 ? 0 : EXIT_INPUT;
    if (status == 0 && o.print_tools) {
        schema_emitter *e = schema_emitter_new(&arena, srv);
        mcp_buf b;
        mcp_buf_init(&b);
        if (e)
            mcp_json_write(&b, schema_tools_list(e), 2);
        mcp_buf_putc(&b, '\n');
        if (!e || b.oom || fwrite(b.data, 1, b.len, stdout) != b.len || fflush(stdout) != 0) {
            fprintf(stderr, "mcpidlc: error: cannot write the tools to standard output\n");
            status = EXIT_INPUT;
        }
        mcp_buf_free(&b);
    }
    if (status == 0 && (o.emit_schema || o.emit_c) && !make_out_dir(o.out_dir))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_schema && !emit_schemas(&arena, &o, srv, stem_of(&arena, o.input)))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_c && !emit_c_files(&arena, &o, srv, stem_of(&arena, o.input)))
        status = EXIT_INPUT;
    mcp_arena_free(&arena);
    free(src);
    return status;
}
