/* mcpidlc.h: the mcpidl compiler as a library.
 *
 * mcpidlc compiles an MCP server description (NAME.mcp.yaml) into JSON
 * Schema and C. The `mcpidlc` command is a command line over these calls,
 * and a build tool or an editor can make the same ones:
 *
 *     mcpidlc_options o = {.on_diagnostic = show, .diagnostic_ctx = stderr};
 *     mcpidlc_context *cx = mcpidlc_new(&o);
 *     if (cx && mcpidlc_compile_file(cx, "weather.mcp.yaml") == MCPIDLC_OK)
 *         st = mcpidlc_emit(cx, MCPIDLC_C_HEADER, NULL, write_out, out);
 *     mcpidlc_free(cx);
 *
 * A context holds its options and the last source it compiled, with
 * everything built from it; every output is made from that source. Errors
 * are values: each call returns a status, and mcpidlc_message() says more
 * about the last one that failed. Diagnostics of the source (its errors,
 * warnings and notes) reach the caller through a callback, in the order of
 * their places, when the source has been compiled. A context is used by one
 * thread at a time; contexts are independent.
 *
 * Link with libmcpidlc (pkg-config has no module for it; CMake:
 * mcpidl::compiler). It exports only the functions declared here.
 */
#ifndef MCPIDLC_H
#define MCPIDLC_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MCPIDLC_API __attribute__((visibility("default")))
#define MCPIDLC_NODISCARD __attribute__((warn_unused_result))
#else
#define MCPIDLC_API
#define MCPIDLC_NODISCARD
#endif

/* The outcome of a call. */
typedef enum mcpidlc_status {
    MCPIDLC_OK = 0,
    MCPIDLC_INVALID, /* the source has errors: the diagnostics say which */
    MCPIDLC_EREAD,   /* the source could not be read: mcpidlc_message() says why */
    MCPIDLC_EWRITE,  /* the writer callback returned false */
    MCPIDLC_ENOMEM,  /* out of memory */
    MCPIDLC_EUSAGE,  /* a call that cannot be made: an output before a source compiled
                        * without errors, an unknown output kind or tool, an output
                        * schema of a tool that publishes none; mcpidlc_message() says which */
} mcpidlc_status;

/* A short English description of a status ("the source has errors", ...). */
MCPIDLC_API const char *mcpidlc_status_string(mcpidlc_status status);

typedef enum mcpidlc_severity { MCPIDLC_NOTE, MCPIDLC_WARNING, MCPIDLC_ERROR } mcpidlc_severity;

/* One diagnostic, valid during the callback only. */
typedef struct mcpidlc_diagnostic {
    mcpidlc_severity severity;
    const char *file;      /* the source's name as given ("<stdin>" for standard input) */
    unsigned line, column; /* 1-based, the column in characters; 0 and 0 for the whole file */
    const char *message;   /* without the place and the severity; may hold any character */
    /* The diagnostic as the command line prints it, GCC style:
     *     FILE:LINE:COLUMN: SEVERITY: MESSAGE      (MESSAGE on one line, control
     *                                              characters escaped)
     * then, unless options.no_source_lines, the source line and a caret under the
     * column; every line ends with '\n'. */
    const char *text;
    size_t text_len;
} mcpidlc_diagnostic;

typedef void (*mcpidlc_diagnostic_fn)(void *ctx, const mcpidlc_diagnostic *d);

typedef struct mcpidlc_options {
    bool warnings_as_errors;             /* -Werror */
    bool no_source_lines;                /* -fno-diagnostics-show-caret */
    mcpidlc_diagnostic_fn on_diagnostic; /* NULL: the diagnostics are dropped */
    void *diagnostic_ctx;                /* its first argument */
    /* How the files a source imports are read (their paths made from the
     * source's name, e.g. "git:HEAD:common.mcp.yaml" for a buffer named
     * "git:HEAD:shop.mcp.yaml"); NULL: from the file system. Returns the text
     * (malloc'd, freed by the caller) and its length in *len, or NULL and a
     * reason (a string that stays valid) in *error. */
    char *(*read_import)(void *ctx, const char *path, size_t *len, const char **error);
    void *read_import_ctx; /* its first argument */
    /* The C outputs (MCPIDLC_C_HEADER, _SOURCE, _MOCK) will not be asked for:
     * the model of the generated C, which a compilation builds to check its
     * names, is released once they are checked (megabytes for a large
     * contract). A C output asked for anyway is still written: the model is
     * built again. */
    bool no_c_outputs;
} mcpidlc_options;

typedef struct mcpidlc_context mcpidlc_context;

/* A new context with a copy of *options (NULL: all defaults). NULL when out
 * of memory. */
MCPIDLC_API mcpidlc_context *mcpidlc_new(const mcpidlc_options *options);
/* Free the context and everything built in it (NULL: nothing). */
MCPIDLC_API void mcpidlc_free(mcpidlc_context *cx);

/* Compile the file at `path` ("-": standard input, named "<stdin>" in
 * diagnostics): read it (at most 16 MiB), load the YAML, check it and build
 * what the outputs are made from. The diagnostics go to the callback before
 * the call returns. MCPIDLC_OK when there was no error (warnings allowed,
 * unless warnings_as_errors), MCPIDLC_INVALID when there were, MCPIDLC_EREAD
 * when the file could not be read. The source replaces the context's last
 * one, whatever the outcome. */
MCPIDLC_API MCPIDLC_NODISCARD mcpidlc_status mcpidlc_compile_file(mcpidlc_context *cx, const char *path);
/* The same for text[0..len) (which the call does not keep), named `name` in
 * diagnostics and outputs. */
MCPIDLC_API MCPIDLC_NODISCARD mcpidlc_status mcpidlc_compile_buffer(mcpidlc_context *cx, const char *name,
                                                                    const char *text, size_t len);

/* The counts of the last source's errors and warnings. */
MCPIDLC_API size_t mcpidlc_error_count(const mcpidlc_context *cx);
MCPIDLC_API size_t mcpidlc_warning_count(const mcpidlc_context *cx);
/* What the last call that failed with MCPIDLC_EREAD, MCPIDLC_EUSAGE or
 * MCPIDLC_ENOMEM ran into, in English ("cannot open 'x.mcp.yaml': No such
 * file or directory"); "" when none did. Valid until the next call. */
MCPIDLC_API const char *mcpidlc_message(const mcpidlc_context *cx);

/* NAME, the source's name without directories and without ".mcp.yaml" (or
 * ".mcp.yml", ".yaml", ".yml"); "stdin" for standard input. The generated C
 * is named after it (NAME.mcp.h), and includes it. NULL before a source. */
MCPIDLC_API const char *mcpidlc_stem(const mcpidlc_context *cx);
/* The files the last source imports (`imports:`), directly or not, each once,
 * by their paths relative to the source's as diagnostics name them (the
 * prerequisites of its outputs, with the source itself); valid until the next
 * call that compiles. 0 and NULL when there is none, or before a source. */
MCPIDLC_API size_t mcpidlc_import_count(const mcpidlc_context *cx);
MCPIDLC_API const char *mcpidlc_import(const mcpidlc_context *cx, size_t i);
/* The tools of the last source compiled without errors, in file order (0 and
 * NULL otherwise). */
MCPIDLC_API size_t mcpidlc_tool_count(const mcpidlc_context *cx);
MCPIDLC_API const char *mcpidlc_tool_name(const mcpidlc_context *cx, size_t i);
/* Whether tool i publishes an outputSchema. */
MCPIDLC_API bool mcpidlc_tool_has_output_schema(const mcpidlc_context *cx, size_t i);

typedef enum mcpidlc_output {
    MCPIDLC_TOOLS_JSON,    /* the array tools/list returns, indented by 2, with a final newline */
    MCPIDLC_INPUT_SCHEMA,  /* the inputSchema of a tool, the same way */
    MCPIDLC_OUTPUT_SCHEMA, /* the outputSchema of a tool, the same way */
    MCPIDLC_C_HEADER,      /* NAME.mcp.h: the C types, the handler prototypes, the server */
    MCPIDLC_C_SOURCE,      /* NAME.mcp.c: the descriptors and tables the runtime serves */
    MCPIDLC_C_MOCK,        /* NAME.mock.c: handlers answering with canned JSON, and a main() */
    MCPIDLC_MARKDOWN,      /* NAME.md: a reference page of the tools, types, resources and prompts */
    MCPIDLC_SERVER_JSON,   /* NAME.server.json: the MCP Registry's server.json (MCPIDLC_INVALID, with
                            * the reason in mcpidlc_message, when the source lacks what it needs) */
} mcpidlc_output;

/* Receives an output in one or more consecutive pieces; false stops it. */
typedef bool (*mcpidlc_write_fn)(void *ctx, const char *data, size_t len);

/* Write one output of the last source, which must have compiled without
 * errors, through `write`. `tool` names the tool of MCPIDLC_INPUT_SCHEMA and
 * MCPIDLC_OUTPUT_SCHEMA (NULL for the others). The outputs of one source
 * agree with each other however many are asked for, in any order. */
MCPIDLC_API MCPIDLC_NODISCARD mcpidlc_status mcpidlc_emit(mcpidlc_context *cx, mcpidlc_output kind, const char *tool,
                                                          mcpidlc_write_fn write, void *ctx);

/* Compare two versions of a contract, each compiled without errors in its own
 * context: `old`, and `now` (the new one). Each change is a diagnostic handed
 * to now's callback, at its place in the new source (a removal at the place
 * that held it, followed by a note at its place in the old source, whose
 * `file` then names the old one), with now's options: an error when it
 * breaks clients of the old contract, a warning when it breaks servers of the
 * old contract only (an error with warnings_as_errors), a note when it is
 * compatible. Each message ends with the kind of the change in brackets
 * ("[required]"); changes of the kinds in allow[0..nallow) are accepted on
 * purpose: they are not errors. docs/cli.md lists the rules and the kinds.
 * *breaking (may be NULL) is set to the number of errors. MCPIDLC_EUSAGE for
 * a version that did not compile or an unknown kind. */
MCPIDLC_API MCPIDLC_NODISCARD mcpidlc_status mcpidlc_diff(mcpidlc_context *now, const mcpidlc_context *old,
                                                          const char *const *allow, size_t nallow, size_t *breaking);

/* The version of the compiler ("0.1.0"). */
MCPIDLC_API const char *mcpidlc_version(void);

#ifdef __cplusplus
}
#endif

#endif
