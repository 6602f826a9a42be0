/* ir.h: the resolved, checked representation of one .mcp.yaml file.
 *
 * The checker (check*.c) builds it from the YAML tree; it is the only input of
 * the back ends (JSON Schema, C, mocks), which never see a YAML node: values
 * written in the IDL (defaults, Literal and enum values) are JSON values of
 * the runtime's own tree (mcpidl/json.h). Everything lives in one arena. Every
 * node keeps the location it came from, so a back end can still point at the
 * source.
 */
#ifndef MCPIDL_IDL_IR_H
#define MCPIDL_IDL_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"
#include "mcpidl/types.h"

typedef struct ir_def ir_def;
typedef struct ir_type ir_type;

typedef enum ir_kind {
    IR_INT,
    IR_FLOAT,
    IR_STR,
    IR_BOOL,
    IR_BYTES,
    IR_NONE,
    IR_ANY,
    IR_LIST,    /* list[T], and tuple[T, ...] (variadic set) */
    IR_SET,     /* set[T] */
    IR_TUPLE,   /* tuple[A, B, ...] of fixed length: items */
    IR_DICT,    /* dict[str, T] / dict[int, T] (int_keys) */
    IR_UNION,   /* arms, flattened, de-duplicated, None last; Optional[T] is T | None */
    IR_LITERAL, /* values */
    IR_NAMED,   /* a type from `types:` */
    IR_CONTENT, /* `content`: only as a tool's return */
    IR_FORMAT,  /* a string-format type: datetime, date, time, timedelta, uuid, url, decimal (format) */
} ir_kind;

/* A number as written in the IDL: an integer stays an integer. */
typedef struct ir_number {
    bool is_int;
    union {
        int64_t i; /* is_int */
        double f;  /* !is_int */
    };
} ir_number;

static inline double ir_number_value(ir_number n) { return n.is_int ? (double)n.i : n.f; }

typedef struct ir_constraints { /* the flags together, before the values */
    bool has_minimum, has_maximum, has_exclusive_minimum, has_exclusive_maximum, has_multiple_of;
    bool has_min_length, has_max_length, has_min_items, has_max_items;
    ir_number minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
    int64_t min_length, max_length, min_items, max_items;
    const char *pattern; /* NULL when absent */
    const char *format;  /* NULL when absent */
} ir_constraints;

struct ir_type { /* the small members first, so that they share words */
    ir_kind kind;
    idl_loc loc;         /* where the expression (or this part of it) was written */
    bool tuple_variadic; /* LIST written as tuple[T, ...] */
    bool int_keys;       /* DICT: dict[int, T] */
    mcp_format format;   /* FORMAT */
    ir_type *elem;       /* LIST, SET: items; DICT: values */
    ir_type **items;     /* TUPLE: items; UNION: arms */
    size_t nitems;
    const mcp_json **values; /* LITERAL: the constant values (strings, integers, booleans, null) */
    size_t nvalues;
    const char *c_name; /* LITERAL: the name of its C enum (prefix_Owner_field, or c_type) */
    ir_def *def;        /* NAMED */
    /* On INT/FLOAT/STR/BYTES/LIST/SET. Never NULL: a type without any (most
     * types) points to ir_no_constraints, shared; one is allocated for a type
     * when its first constraint is written. */
    const ir_constraints *c;
};

/* The constraints of a type that has none (all flags false, no pattern). */
extern const ir_constraints ir_no_constraints;

/* The IDL name of a string-format type ("datetime"), and the JSON Schema
 * `format` it publishes ("date-time"; NULL for decimal). */
const char *ir_format_name(mcp_format f);
const char *ir_format_schema(mcp_format f);

/* Append t as the IDL spells it (`Optional[list[str]]`, `Literal['a', True]`); nesting past
 * 20 levels is written `...`. */
void ir_type_write(mcp_buf *b, const ir_type *t);

typedef enum ir_def_kind { IR_DEF_MODEL, IR_DEF_RECORD, IR_DEF_ENUM } ir_def_kind;

/* OAuth scopes a caller needs (`scopes:`): `set` when the key was written
 * (an empty list then says that none is needed). */
typedef struct ir_scopes {
    bool set;
    const char **items;
    size_t n;
} ir_scopes;

/* Caching hints of 2026-07-28 results (`cache:`). */
typedef struct ir_cache {
    bool set;
    bool private_scope; /* cacheScope "private", else "public" */
    int64_t ttl_ms;     /* >= 0 */
} ir_cache;

/* An icon a client may show beside a tool, resource, template, prompt or the
 * server (MCP's Icon, from `icons:`). */
typedef struct ir_icon {
    const char *src;       /* a URI: https:, http:, data: ... */
    const char *mime_type; /* NULL when absent */
    const char **sizes;    /* "48x48", "any"; NULL when absent */
    size_t nsizes;
    const char *theme; /* "light", "dark", or NULL */
    idl_loc loc;
} ir_icon;

/* What every listed thing may carry for clients to show or keep: `icons:`
 * and `_meta:` (an object of the IDL's values, keys checked against MCP's
 * rules; NULL when absent). */
typedef struct ir_display {
    ir_icon *icons;
    size_t nicons;
    bool has_icons; /* `icons:` was written (an empty list is published as []) */
    const mcp_json *meta;
} ir_display;

/* The JSON type of a value mirrored in a header. */
typedef enum ir_header_kind { IR_HEADER_STRING, IR_HEADER_INTEGER, IR_HEADER_BOOLEAN } ir_header_kind;

typedef struct ir_field {
    const char *name;   /* the JSON property name */
    const char *c_name; /* the C member name */
    const char *title;  /* derived from the name, or explicit */
    bool explicit_title;
    const char *description; /* trimmed; NULL when absent */
    ir_type *type;
    const mcp_json *default_value; /* NULL when none; a float default is finite */
    bool required;                 /* must be present in the input */
    const char *header;            /* a tool parameter's `header:` (Mcp-Param-NAME), or NULL */
    ir_header_kind header_kind;
    idl_loc header_loc;           /* where its value was written */
    const mcp_json *schema_extra; /* `schema_extra:`, an object merged into the property's schema, or NULL */
    idl_loc loc;                  /* the field's key */
} ir_field;

struct ir_def {
    const char *name;
    const char *c_name; /* prefix_Name */
    ir_def_kind kind;
    const char *description;
    bool extra_forbid;
    ir_field *fields; /* model, record */
    size_t nfields;
    const mcp_json **values; /* enum: all strings or all integers */
    size_t nvalues;
    bool int_enum;
    bool on_cycle;                /* reaches itself through its fields */
    const mcp_json *schema_extra; /* model, record: an object merged into its schema, or NULL */
    idl_loc loc;
    size_t index; /* position in ir_server.defs */
};

typedef enum ir_structured { IR_STRUCTURED_AUTO, IR_STRUCTURED_TRUE, IR_STRUCTURED_FALSE } ir_structured;

typedef enum ir_output {
    IR_OUTPUT_NONE,    /* no outputSchema: structured_output false, or content */
    IR_OUTPUT_OBJECT,  /* a model or record, published as is */
    IR_OUTPUT_DICT,    /* dict[str, T], published as <tool>DictOutput */
    IR_OUTPUT_WRAPPED, /* everything else: {"result": ...} as <tool>Output */
} ir_output;

/* Whether a tool runs as a task (`task:`; MCP's execution.taskSupport). */
typedef enum ir_task { IR_TASK_FORBIDDEN, IR_TASK_OPTIONAL, IR_TASK_REQUIRED } ir_task;

typedef struct ir_annotations {
    const char *title;
    int read_only_hint, destructive_hint, idempotent_hint, open_world_hint; /* -1 absent, 0, 1 */
} ir_annotations;

typedef struct ir_tool {
    const char *name;
    const char *c_name; /* the handler's base name (without the server prefix) */
    const char *title;
    const char *description; /* trimmed; NULL when absent or empty */
    ir_field *params;
    size_t nparams;
    bool extra_forbid;
    ir_type *returns;
    ir_field result; /* the `result` property of a wrapped output (title, description, constraints on returns) */
    ir_structured structured;
    ir_output output;
    bool has_annotations;
    ir_annotations annotations;
    ir_task task;
    bool run_inline;              /* `inline: true`: the handler runs on the thread that read its call */
    const mcp_json *schema_extra; /* an object merged into the root of its inputSchema, or NULL */
    ir_scopes scopes;
    ir_display display; /* icons, _meta */
    idl_loc loc;
} ir_tool;

/* ---- beyond tools: resources, templates, prompts, completions, elicitations */

/* How one prompt argument or template variable is completed. */
typedef struct ir_completion {
    const char *name;   /* the argument or variable */
    const char *c_name; /* its C name (a handler is named after it) */
    bool handler;       /* a generated prototype; else the static `values` */
    const char **values;
    size_t nvalues;
    idl_loc loc;
} ir_completion;

typedef struct ir_resource {
    const char *name;
    const char *c_name;
    const char *uri;
    const char *title, *description, *mime_type; /* NULL when absent */
    const char *text;                            /* static content (text), or NULL */
    const char *blob;                            /* static content (base64), or NULL; neither: a handler reads it */
    ir_cache cache;
    ir_scopes scopes;
    ir_display display;
    idl_loc loc;
} ir_resource;

typedef struct ir_template {
    const char *name;
    const char *c_name;
    const char *uri_template;
    const char *title, *description, *mime_type;
    const char **vars; /* the template's variables, in order */
    const char **var_c_names;
    size_t nvars;
    ir_completion *complete;
    size_t ncomplete;
    ir_cache cache;
    ir_scopes scopes;
    ir_display display;
    idl_loc loc;
} ir_template;

typedef struct ir_prompt_arg {
    const char *name;
    const char *c_name;
    const char *title, *description;
    bool required;
    idl_loc loc;
} ir_prompt_arg;

typedef struct ir_prompt {
    const char *name;
    const char *c_name;
    const char *title, *description;
    ir_prompt_arg *args;
    size_t nargs;
    ir_completion *complete;
    size_t ncomplete;
    ir_scopes scopes;
    ir_display display;
    idl_loc loc;
} ir_prompt;

/* One field of an elicitation form: MCP's restricted, flat schema. */
typedef enum ir_form_kind {
    IR_FORM_STRING,
    IR_FORM_INTEGER,
    IR_FORM_NUMBER,
    IR_FORM_BOOLEAN,
    IR_FORM_ENUM,      /* a string out of `values` */
    IR_FORM_ENUM_LIST, /* an array of strings out of `values` (multiple: true) */
} ir_form_kind;

typedef struct ir_form_field {
    ir_form_kind kind;
    const char **values;     /* ENUM, ENUM_LIST */
    const char **titles;     /* per value, when titled (value: title); else NULL */
    const char **enum_names; /* the legacy `enumNames`, or NULL */
    size_t nvalues;
} ir_form_field;

typedef struct ir_elicitation {
    const char *name;
    const char *c_name;
    const char *message; /* the default message */
    ir_field *fields;    /* as a record: the C struct and its decoder */
    ir_form_field *form; /* per field: how it is published */
    size_t nfields;
    idl_loc loc;
} ir_elicitation;

/* The `registry:` section: what the MCP Registry's server.json takes beyond
 * the server's name, title and version (mcpidlc --emit=server-json). The
 * lists and the repository are JSON values checked against the registry's
 * schema, their keys in the order server.json writes them, defaults filled in
 * (a package's version, its stdio transport). */
typedef struct ir_registry {
    bool present;               /* the file has a `registry:` mapping */
    idl_loc loc;                /* the key `registry` */
    const char *name;           /* reverse-DNS OWNER/NAME, or NULL (the server's name then) */
    const char *description;    /* NULL when absent */
    const char *website_url;    /* NULL when absent */
    const mcp_json *repository; /* an object, or NULL */
    const mcp_json *icons;      /* arrays, or NULL */
    const mcp_json *packages;
    const mcp_json *remotes;
} ir_registry;

/* A file of the compilation: the one compiled (files[0]) or one it imports. A
 * type lies in the file of its place (ir_def.loc.file). */
typedef struct ir_file {
    const char *path;     /* as diagnostics name it */
    const char *stem;     /* NAME: the file's name without .mcp.yaml; its generated files are NAME.mcp.h, ... */
    const char *c_prefix; /* the prefix of its C names */
    size_t *imports;      /* the files it imports itself, in the order written */
    size_t nimports;
} ir_file;

typedef struct ir_server {
    bool library;   /* a file of types only, without 'server': no tools, no server table */
    ir_file *files; /* files[0]: this one; then the files it imports, directly or not */
    size_t nfiles;
    const char *name;
    const char *version;
    const char *title;
    const char *description; /* serverInfo.description, trimmed; NULL when absent */
    const char *website_url; /* serverInfo.websiteUrl; NULL when absent */
    ir_display display;      /* serverInfo.icons; _meta of initialize and server/discover */
    const char *instructions;
    const char *c_prefix;
    const char *schema_dialect;
    ir_cache cache;   /* the hints of discover and the lists */
    ir_scopes scopes; /* the scopes of the items that name none */
    bool list_changed_tools, list_changed_prompts, list_changed_resources;
    ir_def **defs; /* in file order */
    size_t ndefs;
    ir_tool *tools; /* in file order */
    size_t ntools;
    ir_resource *resources; /* each in file order */
    size_t nresources;
    ir_template *templates;
    size_t ntemplates;
    ir_prompt *prompts;
    size_t nprompts;
    ir_elicitation *elicitations;
    size_t nelicitations;
    ir_registry registry;
} ir_server;

/* Whether server.json can be written for srv; if not, why (its name is not
 * reverse-DNS and no registry name is given, it has no description, ...) in
 * msg[0..cap): one sentence per problem. */
bool ir_registry_complete(const ir_server *srv, char *msg, size_t cap);
/* The name and the description server.json publishes (NULL when missing). */
const char *ir_registry_name(const ir_server *srv);
const char *ir_registry_description(const ir_server *srv);
/* Whether s is a registry name: ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters. */
bool ir_registry_name_ok(const char *s);
/* The number of characters (code points) of UTF-8 text s. */
size_t ir_utf8_length(const char *s);

typedef struct idl_options {
    bool warnings_as_errors;
} idl_options;

struct idl_node;
struct idl_load_limits;

/* One file of a compilation, loaded (idl_load_imports). */
typedef struct idl_unit {
    const char *path;            /* as diagnostics name it */
    const char *stem;            /* NAME */
    const struct idl_node *root; /* NULL when it did not load */
    uint32_t file;               /* its number in the diagnostics; the unit's index */
    size_t *imports;             /* the units it imports, in the order written */
    idl_loc *import_locs;        /* where each is written */
    size_t nimports;
} idl_unit;

/* How imported files are read: `read` returns the text of `path` in arena a
 * (*len bytes), and in *id what identifies the file (two paths of one file
 * give equal ids; NULL when unknown); NULL when it cannot be read, *error
 * saying why. */
typedef struct idl_reader {
    const char *(*read)(void *ctx, mcp_arena *a, const char *path, size_t *len, const char **id, const char **error);
    void *ctx;
} idl_reader;

/* NAME of a file: its name without directories and without ".mcp.yaml" (or ".mcp.yml", ".yaml", ".yml"). */
const char *idl_file_stem(mcp_arena *a, const char *path);

/* The units of the file at `path` (its tree `root`, which may be NULL; `id`
 * as the reader gives ids, or NULL; `dir` what its imports are relative to,
 * "" or a prefix ending in '/'): units[0] is that file, then every file
 * it imports, directly or not, each once, in the order met (depth first).
 * Errors (an import that cannot be read, a cycle, an import that is not a
 * string) go to d. False only without memory. */
IDL_NODISCARD bool idl_load_imports(mcp_arena *a, idl_diags *d, const struct idl_node *root, const char *path,
                                    const char *dir, const char *id, const idl_reader *r,
                                    const struct idl_load_limits *limits, idl_unit **units, size_t *nunits);

/* Check units[0] with the types of the files it imports (units[1..n)): an
 * imported file holds types only (and its own imports); each file sees its own
 * types and those of the files it imports, directly or not. */
IDL_NODISCARD ir_server *idl_check_units(mcp_arena *arena, idl_diags *d, const idl_unit *units, size_t nunits,
                                         const idl_options *opts);

/* Check a loaded YAML tree (node.h) and build the IR. Returns NULL when any
 * error was reported (warnings do not count, unless opts->warnings_as_errors). */
IDL_NODISCARD ir_server *idl_check(mcp_arena *arena, idl_diags *d, const struct idl_node *root,
                                   const idl_options *opts);

/* Load and check a whole source text: the front end in one call. */
IDL_NODISCARD ir_server *idl_compile(mcp_arena *arena, idl_diags *d, const char *src, size_t len,
                                     const idl_options *opts);

/* The indices (ir_def.index) of named types, in a growing array of the arena. */
typedef struct ir_refs {
    size_t *items;
    size_t n, cap;
} ir_refs;

/* Append to r each named type t refers to, in order: items, values, union arms
 * and tuple items, depth first (ir_refs.c). False without memory. */
IDL_NODISCARD bool ir_append_refs(mcp_arena *a, const ir_type *t, ir_refs *r);

/* The graph of named types: an edge for each reference in a model's or
 * record's fields, and its strongly connected components, numbered as they
 * complete: a component reaches only components numbered lower (or itself). */
typedef struct ir_graph {
    ir_refs *edges; /* per def, in field order */
    size_t *comp;   /* per def */
    size_t ncomp;
} ir_graph;

/* Build it in the arena, iteratively; false without memory. */
IDL_NODISCARD bool ir_graph_build(mcp_arena *a, const ir_server *srv, ir_graph *g);

/* Helpers shared with the back ends (names.c). */
/* Python's name.title().replace("_", " ").strip() with ASCII case rules. */
char *idl_title_case(mcp_arena *a, const char *name);
/* The C identifier for a JSON name (valid identifiers pass unchanged unless they
 * are C keywords or reserved). */
char *idl_c_ident(mcp_arena *a, const char *name);
bool idl_is_c_identifier(const char *s);
bool idl_is_c_keyword(const char *s);
/* The closest of candidates[0..n) to `name` by edit distance, or NULL when none is close. */
const char *idl_did_you_mean(const char *name, const char *const *candidates, size_t n);
/* Trim a description: leading blank lines and trailing white space go. */
char *idl_trim_description(mcp_arena *a, const char *s, size_t len);

/* Pattern checking (pattern.c): NULL when `pattern` is in the supported subset
 * and compiles; else a message, and *offset the byte offset of the problem. */
IDL_NODISCARD const char *idl_pattern_check(mcp_arena *a, const char *pattern, size_t len, size_t *offset);
/* Whether `subject` matches `pattern` (an unanchored search, as JSON Schema says);
 * -1 when the pattern does not compile. */
IDL_NODISCARD int idl_pattern_matches(const char *pattern, size_t plen, const char *subject, size_t slen);

#endif
