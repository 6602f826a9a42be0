/* main.c: the mcpidlc command line over the compiler's library (mcpidlc.h):
 * parses options, compiles the input, writes each output to its file.
 * Nothing else lives here. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "init.h"
#include "mcpidl/buf.h"
#include "mcpidlc/mcpidlc.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2 };

static const char USAGE[] =
    "usage: mcpidlc [OPTIONS] FILE.mcp.yaml\n"
    "       mcpidlc --init NAME\n"
    "       mcpidlc diff [--allow KIND]... OLD NEW\n"
    "\n"
    "Compile an MCP server description (.mcp.yaml) into JSON Schema and C.\n"
    "\n"
    "Start a project:\n"
    "  --init NAME          write NAME/NAME.mcp.yaml, NAME/NAME.c (handlers that compile)\n"
    "                       and NAME/CMakeLists.txt (find_package(mcpidl)): a server to\n"
    "                       build with cmake -S NAME -B NAME/build && cmake --build NAME/build\n"
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
    "                         markdown  DIR/NAME.md: a reference page of the tools,\n"
    "                                 types, resources and prompts\n"
    "                         server-json  DIR/NAME.server.json: the server.json of\n"
    "                                 the MCP Registry (see the 'registry' section)\n"
    "  -o, --output DIR     the directory for --emit (default: the current directory;\n"
    "                       created when missing)\n"
    "  --check              report diagnostics only\n"
    "  --depfile FILE       with --emit: also write FILE, the dependencies of the files\n"
    "                       written (the input and every file it imports) as a Makefile\n"
    "                       rule, for build tools\n"
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
    "Exit status: 0 success, 1 errors in the input, 2 bad usage.\n"
    "'mcpidlc diff --help' describes the comparison of two versions of a contract.\n";

static const char DIFF_USAGE[] =
    "usage: mcpidlc diff [OPTIONS] OLD NEW\n"
    "\n"
    "Compare two versions of a contract and report each change, at its place in NEW:\n"
    "an error when it breaks clients of OLD, a warning when it breaks servers of OLD,\n"
    "a note when it is compatible. OLD and NEW are files, '-' (standard input, for one\n"
    "of them), or git:REV:PATH (PATH as of revision REV, as 'git show REV:PATH' reads it).\n"
    "\n"
    "Options:\n"
    "  --allow KIND         accept the changes of one kind on purpose (repeatable);\n"
    "                       KIND is one of removed, added, required, input-removed,\n"
    "                       input-narrowed, input-values, input-widened,\n"
    "                       output-removed, output-optional, output-widened,\n"
    "                       output-values, output-narrowed, default-changed\n"
    "  -Werror              changes that break servers are errors too\n"
    "  -fno-diagnostics-show-caret\n"
    "                       print diagnostics without the source line and caret\n"
    "  -h, --help           show this help and exit\n"
    "\n"
    "Exit status: 0 nothing breaks, 1 something breaks, 2 bad usage or an input that\n"
    "cannot be read or has errors.\n";

typedef struct options {
    const char *input;
    const char *init; /* --init NAME */
    const char *out_dir;
    bool print_tools;
    bool emit_schema;
    bool emit_c;
    bool emit_mock;
    bool emit_markdown;
    bool emit_server_json;
    bool check_only;
    bool werror;
    bool show_caret;
    const char *depfile; /* --depfile FILE */
    mcp_buf *written;    /* the paths written, each escaped for a Makefile rule and followed by a space */
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
        else if (strcmp(k, "markdown") == 0)
            o->emit_markdown = true;
        else if (strcmp(k, "server-json") == 0)
            o->emit_server_json = true;
        else
            return usage_error("unknown --emit kind '%s' (known: c, mock, schema, markdown, server-json)", k);
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
            printf("mcpidlc %s\n", mcpidlc_version());
            exit(0);
        } else if (strcmp(a, "--init") == 0) {
            if (++i == argc)
                return usage_error("%s needs a project name", a);
            o->init = argv[i];
        } else if (strncmp(a, "--init=", 7) == 0) {
            o->init = a + 7;
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
        } else if (strcmp(a, "--depfile") == 0) {
            if (++i == argc)
                return usage_error("%s needs a file name", a);
            o->depfile = argv[i];
        } else if (strncmp(a, "--depfile=", 10) == 0) {
            o->depfile = a + 10;
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
    if (o->init && (o->input || o->print_tools || o->emit_schema || o->emit_c || o->emit_markdown ||
                    o->emit_server_json || o->check_only))
        return usage_error("%s", "--init takes no input file and no other output");
    if (o->init)
        return 0;
    if (!o->input)
        return usage_error("%s", "no input file");
    if (o->check_only && (o->print_tools || o->emit_schema || o->emit_c || o->emit_markdown || o->emit_server_json))
        return usage_error("%s", "--check cannot be combined with --print-tools or --emit");
    if (o->depfile && !(o->emit_schema || o->emit_c || o->emit_markdown || o->emit_server_json))
        return usage_error("%s", "--depfile needs --emit: it names the files --emit writes");
    if (o->depfile && !o->depfile[0])
        return usage_error("%s", "--depfile needs a file name");
    return 0;
}

/* A file being written whole: to a temporary name first, renamed over the
 * target at the end, so a failed run never leaves a half-written file. */
typedef struct out_file {
    const char *path;
    mcp_buf tmp; /* the temporary name */
    FILE *f;
} out_file;

static bool out_open(out_file *o, const char *path)
{
    o->path = path;
    mcp_buf_init(&o->tmp);
    mcp_buf_printf(&o->tmp, "%s.tmp%ld", path, (long)getpid());
    o->f = o->tmp.oom ? NULL : fopen(o->tmp.data, "wb");
    if (!o->f) {
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", path, strerror(errno));
        mcp_buf_free(&o->tmp);
    }
    return o->f != NULL;
}

/* A writer of mcpidlc_emit: the pieces of an output, into the file. */
static bool out_write(void *ctx, const char *data, size_t len)
{
    out_file *o = ctx;
    return fwrite(data, 1, len, o->f) == len;
}

/* Close the file, and rename it over its target when `ok`; else remove it. */
static bool out_close(out_file *o, bool ok)
{
    bool closed = fclose(o->f) == 0;
    if (ok && !closed)
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", o->path, strerror(errno));
    ok = ok && closed;
    if (ok && rename(o->tmp.data, o->path) != 0) {
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", o->path, strerror(errno));
        ok = false;
    }
    if (!ok)
        remove(o->tmp.data);
    mcp_buf_free(&o->tmp);
    return ok;
}

/* Write a file whole. */
static bool write_file(const char *path, const char *data, size_t len)
{
    out_file o;
    if (!out_open(&o, path))
        return false;
    bool ok = fwrite(data, 1, len, o.f) == len;
    if (!ok)
        fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", path, strerror(errno));
    return out_close(&o, ok);
}

/* A path in a Makefile rule: a space, '#' or '\\' before them is escaped with a
 * backslash, '$' doubled. */
static void put_make_path(mcp_buf *b, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == '\t') {
            for (const char *q = p; q > path && q[-1] == '\\'; q--)
                mcp_buf_putc(b, '\\');
            mcp_buf_putc(b, '\\');
        } else if (*p == '$') {
            mcp_buf_putc(b, '$');
        }
        mcp_buf_putc(b, *p);
    }
}

/* The dependency file: the files written depend on the input and on every file it imports. */
static bool write_depfile(mcpidlc_context *cx, const options *o)
{
    mcp_buf rule;
    mcp_buf_init(&rule);
    mcp_buf_put(&rule, o->written->data, o->written->len - 1); /* without the last space */
    mcp_buf_puts(&rule, ": ");
    put_make_path(&rule, o->input);
    for (size_t i = 0; i < mcpidlc_import_count(cx); i++) {
        mcp_buf_puts(&rule, " \\\n  ");
        put_make_path(&rule, mcpidlc_import(cx, i));
    }
    mcp_buf_putc(&rule, '\n');
    bool ok = !rule.oom && write_file(o->depfile, rule.data, rule.len);
    if (rule.oom)
        fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_status_string(MCPIDLC_ENOMEM));
    mcp_buf_free(&rule);
    return ok;
}

/* Output `kind` (of `tool`) into DIR/NAME.SUFFIX. */
static bool emit_file(mcpidlc_context *cx, const options *o, mcpidlc_output kind, const char *tool, const char *suffix)
{
    mcp_buf path;
    mcp_buf_init(&path);
    mcp_buf_printf(&path, "%s/%s.%s", o->out_dir, mcpidlc_stem(cx), suffix);
    if (path.oom) {
        fprintf(stderr, "mcpidlc: error: out of memory\n");
        return false;
    }
    out_file f;
    bool ok = out_open(&f, path.data);
    if (ok) {
        mcpidlc_status st = mcpidlc_emit(cx, kind, tool, out_write, &f);
        ok = st == MCPIDLC_OK;
        if (st == MCPIDLC_EWRITE)
            fprintf(stderr, "mcpidlc: error: cannot write '%s': %s\n", path.data, strerror(errno));
        else if (!ok) /* out of memory */
            fprintf(stderr, "mcpidlc: error: %s\n", *mcpidlc_message(cx) ? mcpidlc_message(cx) : "out of memory");
        ok = out_close(&f, ok);
    }
    if (ok && o->written) {
        put_make_path(o->written, path.data);
        mcp_buf_putc(o->written, ' ');
    }
    mcp_buf_free(&path);
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

static bool emit_schemas(mcpidlc_context *cx, const options *o)
{
    if (!emit_file(cx, o, MCPIDLC_TOOLS_JSON, NULL, "tools.json"))
        return false;
    for (size_t i = 0; i < mcpidlc_tool_count(cx); i++) {
        const char *tool = mcpidlc_tool_name(cx, i);
        char suffix[300];
        snprintf(suffix, sizeof suffix, "%s.input.schema.json", tool);
        if (!emit_file(cx, o, MCPIDLC_INPUT_SCHEMA, tool, suffix))
            return false;
        snprintf(suffix, sizeof suffix, "%s.output.schema.json", tool);
        if (mcpidlc_tool_has_output_schema(cx, i) && !emit_file(cx, o, MCPIDLC_OUTPUT_SCHEMA, tool, suffix))
            return false;
    }
    return true;
}

static bool emit_c_files(mcpidlc_context *cx, const options *o)
{
    return emit_file(cx, o, MCPIDLC_C_HEADER, NULL, "mcp.h") && emit_file(cx, o, MCPIDLC_C_SOURCE, NULL, "mcp.c") &&
           (!o->emit_mock || emit_file(cx, o, MCPIDLC_C_MOCK, NULL, "mock.c"));
}

static bool print_to_stdout(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    return fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0;
}

static void print_diagnostic(void *ctx, const mcpidlc_diagnostic *d) { fwrite(d->text, 1, d->text_len, ctx); }

/* ---------------------------------------------------------------- diff */

enum { DIFF_BREAKS = 1, DIFF_ERROR = 2, MAX_ALLOW = 64 };

static int diff_usage_error(const char *fmt, const char *arg)
{
    fputs("mcpidlc diff: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'mcpidlc diff --help' for more information.\n", stderr);
    return DIFF_ERROR;
}

/* The blob REV:PATH of the git repository around the current directory, by
 * `git show` (no shell between); NULL with a message when it cannot be read. */
static char *git_show(const char *spec, const char *rev_path, size_t *len)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "mcpidlc: error: cannot read '%s': %s\n", spec, strerror(errno));
        return NULL;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mcpidlc: error: cannot read '%s': %s\n", spec, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return NULL;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(127);
        close(fds[1]);
        execlp("git", "git", "--no-pager", "show", "--no-textconv", rev_path, (char *)NULL);
        fprintf(stderr, "mcpidlc: error: cannot run git: %s\n", strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    mcp_buf b;
    mcp_buf_init(&b);
    char chunk[65536];
    ssize_t n;
    bool too_big = false;
    while ((n = read(fds[0], chunk, sizeof chunk)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (b.len + (size_t)n > (16u << 20))
            too_big = true; /* read on, so that git is not left blocked */
        else
            mcp_buf_put(&b, chunk, (size_t)n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || too_big || b.oom) {
        if (too_big)
            fprintf(stderr, "mcpidlc: error: '%s' is larger than 16 MiB\n", spec);
        else if (b.oom)
            fprintf(stderr, "mcpidlc: error: out of memory reading '%s'\n", spec);
        else
            fprintf(stderr, "mcpidlc: error: cannot read '%s': git show failed\n", spec);
        mcp_buf_free(&b);
        return NULL;
    }
    char *data = mcp_buf_take(&b, len);
    if (!data) {
        data = malloc(1);
        *len = 0;
    }
    return data;
}

/* The reader of the files a version imports: git:REV:PATH from git, like the
 * version, others from the file system. */
static char *read_version_file(void *ctx, const char *path, size_t *len, const char **error)
{
    (void)ctx;
    if (strncmp(path, "git:", 4) == 0) {
        char *text = git_show(path, path + 4, len);
        if (!text)
            *error = "git show failed";
        return text;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        *error = strerror(errno);
        return NULL;
    }
    mcp_buf b;
    mcp_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len <= (16u << 20))
        mcp_buf_put(&b, chunk, n);
    bool failed = ferror(f) != 0;
    fclose(f);
    char *data = failed ? NULL : mcp_buf_take(&b, len);
    if (!data) {
        *error = failed ? "read error" : "out of memory";
        mcp_buf_free(&b);
    }
    return data;
}

/* Compile one version: a file, '-', or git:REV:PATH. */
static int diff_load(mcpidlc_context *cx, const char *spec)
{
    mcpidlc_status st;
    if (strncmp(spec, "git:", 4) == 0) {
        const char *rev_path = spec + 4, *colon = strchr(rev_path, ':');
        if (!colon || colon == rev_path || !colon[1] || rev_path[0] == '-')
            return diff_usage_error("'%s' is not git:REV:PATH", spec);
        size_t len = 0;
        char *text = git_show(spec, rev_path, &len);
        if (!text)
            return DIFF_ERROR;
        st = mcpidlc_compile_buffer(cx, spec, text, len);
        free(text);
    } else {
        st = mcpidlc_compile_file(cx, spec);
    }
    if (st == MCPIDLC_OK)
        return 0;
    if (st == MCPIDLC_INVALID)
        fprintf(stderr, "mcpidlc: error: '%s' has errors; it cannot be compared\n",
                strcmp(spec, "-") == 0 ? "<stdin>" : spec);
    else
        fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_message(cx));
    return DIFF_ERROR;
}

static int diff_main(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL}, *allow[MAX_ALLOW];
    size_t nfiles = 0, nallow = 0;
    bool werror = false, show_caret = true, no_more_options = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *kind = NULL;
        if (no_more_options || a[0] != '-' || strcmp(a, "-") == 0) {
            if (nfiles == 2)
                return diff_usage_error("more than two inputs ('%s')", a);
            files[nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            no_more_options = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(DIFF_USAGE, stdout);
            return 0;
        } else if (strcmp(a, "-Werror") == 0) {
            werror = true;
        } else if (strcmp(a, "-fno-diagnostics-show-caret") == 0) {
            show_caret = false;
        } else if (strcmp(a, "--allow") == 0) {
            if (++i == argc)
                return diff_usage_error("%s needs a kind of change", a);
            kind = argv[i];
        } else if (strncmp(a, "--allow=", 8) == 0) {
            kind = a + 8;
        } else {
            return diff_usage_error("unknown option '%s'", a);
        }
        if (kind) {
            if (nallow == MAX_ALLOW)
                return diff_usage_error("%s", "too many --allow");
            allow[nallow++] = kind;
        }
    }
    if (nfiles < 2)
        return diff_usage_error("%s", nfiles ? "no NEW version to compare with" : "no versions to compare");
    if (strcmp(files[0], "-") == 0 && strcmp(files[1], "-") == 0)
        return diff_usage_error("%s", "only one version can be read from standard input");
    mcpidlc_options opts = {.warnings_as_errors = werror,
                            .no_source_lines = !show_caret,
                            .on_diagnostic = print_diagnostic,
                            .diagnostic_ctx = stderr,
                            .no_c_outputs = true};
    /* A version from git imports the files of the same revision. */
    mcpidlc_options from_git = opts;
    from_git.read_import = read_version_file;
    mcpidlc_context *old = mcpidlc_new(strncmp(files[0], "git:", 4) == 0 ? &from_git : &opts);
    mcpidlc_context *now = mcpidlc_new(strncmp(files[1], "git:", 4) == 0 ? &from_git : &opts);
    int status = DIFF_ERROR;
    if (!old || !now) {
        fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_status_string(MCPIDLC_ENOMEM));
    } else {
        /* Both are loaded, so that the errors of both are shown. */
        int rc_old = diff_load(old, files[0]), rc_new = diff_load(now, files[1]);
        if (rc_old == 0 && rc_new == 0) {
            size_t breaking = 0;
            mcpidlc_status st = mcpidlc_diff(now, old, allow, nallow, &breaking);
            if (st == MCPIDLC_EUSAGE)
                status = diff_usage_error("%s", mcpidlc_message(now));
            else if (st != MCPIDLC_OK)
                fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_message(now));
            else
                status = breaking ? DIFF_BREAKS : 0;
        }
    }
    mcpidlc_free(old);
    mcpidlc_free(now);
    return status;
}

/* The compiler is a short run that builds megabytes in arenas and releases
 * some of them on the way (the model of the C outputs, once its names are
 * checked, when no C is written; the loader's and the reader's buffers). With
 * glibc's defaults, blocks of 128 KiB and more are mapped apart and unmapped
 * when freed, and the top of the heap is given back, so that what is built
 * next touches new pages (a page fault each, which costs more than the work
 * done in most pages): every block comes from the heap instead, and what is
 * freed stays there for reuse. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

int main(int argc, char **argv)
{
    keep_freed_memory();
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return diff_main(argc - 1, argv + 1);
    options o;
    int rc = parse_args(&o, argc, argv);
    if (rc)
        return rc;
    if (o.init)
        return mcpidlc_init(o.init, mcpidlc_version(), stdout, stderr);
    mcpidlc_options opts = {.warnings_as_errors = o.werror,
                            .no_source_lines = !o.show_caret,
                            .on_diagnostic = print_diagnostic,
                            .diagnostic_ctx = stderr,
                            .no_c_outputs = !o.emit_c};
    mcpidlc_context *cx = mcpidlc_new(&opts);
    if (!cx) {
        fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_status_string(MCPIDLC_ENOMEM));
        return EXIT_INPUT;
    }
    mcp_buf written;
    mcp_buf_init(&written);
    if (o.depfile)
        o.written = &written;
    mcpidlc_status st = mcpidlc_compile_file(cx, o.input);
    if (st == MCPIDLC_EREAD || st == MCPIDLC_ENOMEM)
        fprintf(stderr, "mcpidlc: error: %s\n", mcpidlc_message(cx));
    int status = st == MCPIDLC_OK ? 0 : EXIT_INPUT;
    if (status == 0 && o.print_tools &&
        mcpidlc_emit(cx, MCPIDLC_TOOLS_JSON, NULL, print_to_stdout, NULL) != MCPIDLC_OK) {
        fprintf(stderr, "mcpidlc: error: cannot write the tools to standard output\n");
        status = EXIT_INPUT;
    }
    if (status == 0 && (o.emit_schema || o.emit_c || o.emit_markdown || o.emit_server_json) && !make_out_dir(o.out_dir))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_c && !emit_c_files(cx, &o))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_schema && !emit_schemas(cx, &o))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_markdown && !emit_file(cx, &o, MCPIDLC_MARKDOWN, NULL, "md"))
        status = EXIT_INPUT;
    if (status == 0 && o.emit_server_json && !emit_file(cx, &o, MCPIDLC_SERVER_JSON, NULL, "server.json"))
        status = EXIT_INPUT;
    if (status == 0 && o.depfile && (written.oom || !write_depfile(cx, &o)))
        status = EXIT_INPUT;
    mcp_buf_free(&written);
    mcpidlc_free(cx);
    return status;
}
