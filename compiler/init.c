/* init.c: mcpidlc --init NAME: a starter project in the folder NAME: an IDL
 * file with a model and two tools, handlers that compile, and a CMake project
 * that finds an installed mcpidl. Nothing is overwritten: a folder that
 * exists and is not empty is refused. */
#include "init.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mcpidl/buf.h"

/* NAME is a folder, a file name stem, a server name and, with '-' as '_', a
 * C prefix: a letter, then letters, digits, '_' or '-'. */
static bool name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || !isalpha((unsigned char)name[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
            return false;
    return true;
}

static bool dir_empty_or_missing(const char *path, bool *exists)
{
    DIR *d = opendir(path);
    *exists = d != NULL;
    if (!d)
        return errno == ENOENT;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* TEMPLATE with @NAME@ and @PREFIX@ replaced. */
static bool expand(mcp_buf *b, const char *t, const char *name, const char *prefix, const char *version)
{
    while (*t) {
        if (strncmp(t, "@NAME@", 6) == 0) {
            mcp_buf_puts(b, name);
            t += 6;
        } else if (strncmp(t, "@PREFIX@", 8) == 0) {
            mcp_buf_puts(b, prefix);
            t += 8;
        } else if (strncmp(t, "@VERSION@", 9) == 0) {
            mcp_buf_puts(b, version);
            t += 9;
        } else {
            mcp_buf_putc(b, *t++);
        }
    }
    return !b->oom;
}

static const char IDL[] = "# @NAME@.mcp.yaml: the tools of the @NAME@ server and the types they take and return.\n"
                          "# Edit it, build again: mcpidl_generate() compiles it with the server.\n"
                          "mcpidl: 1\n"
                          "server:\n"
                          "  name: @NAME@\n"
                          "  version: \"0.1.0\"\n"
                          "  c_prefix: @PREFIX@\n"
                          "  instructions: A starter server made by mcpidlc --init.\n"
                          "\n"
                          "types:\n"
                          "  Greeting:\n"
                          "    description: A greeting, and how many characters it has.\n"
                          "    fields:\n"
                          "      text: str\n"
                          "      length: {type: int, minimum: 0}\n"
                          "\n"
                          "tools:\n"
                          "  greet:\n"
                          "    description: Greets someone by name.\n"
                          "    params:\n"
                          "      name: {type: str, minLength: 1, description: Who to greet.}\n"
                          "    returns: Greeting\n"
                          "  add:\n"
                          "    description: Adds two integers.\n"
                          "    params:\n"
                          "      a: int\n"
                          "      b: int\n"
                          "    returns: int\n";

static const char C_SOURCE[] =
    "/* @NAME@.c: the handlers of @NAME@.mcp.yaml's tools, one function each.\n"
    " * The arguments arrive validated; what a handler returns is validated\n"
    " * against the published output schema before it is sent. Memory comes from\n"
    " * the request's arena (mcp_sprintf, mcp_alloc): nothing to free. */\n"
    "#include <string.h>\n"
    "\n"
    "#include \"@NAME@.mcp.h\"\n"
    "\n"
    "mcp_status @PREFIX@_greet(mcp_call *call, const @PREFIX@_greet_args *in, @PREFIX@_Greeting *out)\n"
    "{\n"
    "    out->text = mcp_sprintf(call, \"Hello, %s!\", in->name);\n"
    "    out->length = (int64_t)strlen(out->text);\n"
    "    return MCP_OK;\n"
    "}\n"
    "\n"
    "mcp_status @PREFIX@_add(mcp_call *call, const @PREFIX@_add_args *in, int64_t *out)\n"
    "{\n"
    "    if ((in->b > 0 && in->a > INT64_MAX - in->b) || (in->b < 0 && in->a < INT64_MIN - in->b))\n"
    "        return mcp_fail(call, \"the sum does not fit in 64 bits\");\n"
    "    *out = in->a + in->b;\n"
    "    return MCP_OK;\n"
    "}\n"
    "\n"
    "/* stdio by default; --http HOST:PORT when linked with mcpidl::http; --help. */\n"
    "int main(int argc, char **argv) { return mcp_main(&@PREFIX@_server, argc, argv); }\n";

static const char CMAKE[] = "# The @NAME@ server, built against an installed mcpidl:\n"
                            "#   cmake -S @NAME@ -B @NAME@/build && cmake --build @NAME@/build\n"
                            "# (-DCMAKE_PREFIX_PATH=PREFIX when mcpidl is installed where CMake does not look).\n"
                            "cmake_minimum_required(VERSION 3.20)\n"
                            "project(@NAME@ LANGUAGES C)\n"
                            "\n"
                            "set(CMAKE_C_STANDARD 11)\n"
                            "set(CMAKE_C_STANDARD_REQUIRED ON)\n"
                            "\n"
                            "find_package(mcpidl @VERSION@ CONFIG REQUIRED)\n"
                            "\n"
                            "add_executable(@NAME@-server @NAME@.c)\n"
                            "# Compiles @NAME@.mcp.yaml at build time (again whenever it changes), and writes the\n"
                            "# JSON Schemas clients will see into build/schemas for review.\n"
                            "mcpidl_generate(TARGET @NAME@-server IDL @NAME@.mcp.yaml\n"
                            "                SCHEMA_DIR ${CMAKE_CURRENT_BINARY_DIR}/schemas)\n"
                            "# Streamable HTTP (--http HOST:PORT), when the installation has it.\n"
                            "if(TARGET mcpidl::http)\n"
                            "  target_link_libraries(@NAME@-server PRIVATE mcpidl::http)\n"
                            "endif()\n";

static bool write_expanded(const char *dir, const char *file, const char *t, const char *name, const char *prefix,
                           const char *version, FILE *err)
{
    mcp_buf path, text;
    mcp_buf_init(&path);
    mcp_buf_init(&text);
    mcp_buf_printf(&path, "%s/%s", dir, file);
    bool ok = !path.oom && expand(&text, t, name, prefix, version);
    FILE *f = ok ? fopen(path.data, "wx") : NULL;
    if (ok && !f) {
        fprintf(err, "mcpidlc: error: cannot create %s: %s\n", path.data, strerror(errno));
        ok = false;
    } else if (!ok) {
        fprintf(err, "mcpidlc: error: out of memory\n");
    }
    if (f) {
        ok = fwrite(text.data, 1, text.len, f) == text.len;
        if (fclose(f) != 0 || !ok) {
            fprintf(err, "mcpidlc: error: cannot write %s\n", path.data);
            ok = false;
        }
    }
    mcp_buf_free(&path);
    mcp_buf_free(&text);
    return ok;
}

int mcpidlc_init(const char *name, const char *version, FILE *out, FILE *err)
{
    if (!name_ok(name)) {
        fprintf(err,
                "mcpidlc: error: --init: '%s' is not a project name (a letter, then letters, digits, '_' "
                "or '-'; at most 64)\n",
                name);
        return 2;
    }
    bool exists;
    if (!dir_empty_or_missing(name, &exists)) {
        fprintf(err, "mcpidlc: error: --init: '%s' exists and is not an empty folder; nothing was written\n", name);
        return 1;
    }
    if (!exists && mkdir(name, 0777) != 0) {
        fprintf(err, "mcpidlc: error: cannot create the folder %s: %s\n", name, strerror(errno));
        return 1;
    }
    char prefix[65];
    size_t n = strlen(name);
    for (size_t i = 0; i <= n; i++)
        prefix[i] = name[i] == '-' ? '_' : (char)tolower((unsigned char)name[i]);
    /* find_package asks for this major.minor: the generated code's ABI. */
    char major_minor[32];
    snprintf(major_minor, sizeof major_minor, "%s", version);
    char *dot = strchr(major_minor, '.');
    if (dot && (dot = strchr(dot + 1, '.')))
        *dot = 0;
    mcp_buf f;
    mcp_buf_init(&f);
    mcp_buf_printf(&f, "%s.mcp.yaml", name);
    mcp_buf c;
    mcp_buf_init(&c);
    mcp_buf_printf(&c, "%s.c", name);
    bool ok = !f.oom && !c.oom && write_expanded(name, f.data, IDL, name, prefix, major_minor, err) &&
              write_expanded(name, c.data, C_SOURCE, name, prefix, major_minor, err) &&
              write_expanded(name, "CMakeLists.txt", CMAKE, name, prefix, major_minor, err);
    if (ok)
        fprintf(out,
                "mcpidlc: wrote %s/%s, %s/%s and %s/CMakeLists.txt\n"
                "Build and try it:\n"
                "  cmake -S %s -B %s/build && cmake --build %s/build\n"
                "  %s/build/%s-server --help\n",
                name, f.data, name, c.data, name, name, name, name, name, name);
    mcp_buf_free(&f);
    mcp_buf_free(&c);
    return ok ? 0 : 1;
}
