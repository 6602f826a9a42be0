/* c_names.h (internal to the C back end): the C model of a server, and what
 * the three C outputs share.
 *
 * c_names_new walks the IR once and decides every C entity the generated
 * files hold, with its name: the C types a handler fills (the mapping of
 * lib/include/mcpidl/types.h: a struct per model, record, tool's arguments
 * and elicitation form, an enum per enum and Literal, a struct per
 * composite: list, set, dict, tuple, Optional, union) and the descriptors the
 * runtime's codec reads. The writers (c_header.c: NAME.mcp.h, c_tables.c:
 * NAME.mcp.c, c_mock.c: NAME.mock.c) read the model and write text.
 *
 * Every name comes from the declaration it belongs to, never from a counter
 * or from the other names of the file (docs/c-api.md, "Names"), so that
 * adding a declaration never renames another's: a type T is PREFIX_T, a
 * composite is named after its structure (list[str]: PREFIX_str_list), a
 * Literal after the field it is written in (the checker names it:
 * ir_type.c_name), a descriptor after the type it describes (PREFIX_T_desc),
 * or after the field whose constraints it holds (PREFIX_T_field_field_desc).
 * Two declarations that still get the same name are an error that names
 * both: c_names_new checks every file-scope name the generated files define.
 */
#ifndef MCPIDL_COMPILER_C_NAMES_H
#define MCPIDL_COMPILER_C_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "ir.h"
#include "mcpidl/buf.h"

/* The ABI of the generated code (MCPIDL_ABI in mcpidl.h). */
#define C_GENERATED_ABI 4

/* The shapes of the generated names: printf formats of the prefix and the C
 * names of declarations (a tool's, a resource's, ...), or of a C name. The
 * writers and the check of collisions spell every name through these. */
#define C_NAME_HANDLER "%s_%s"                             /* prefix, tool */
#define C_NAME_ARGS "%s_%s_args"                           /* prefix, tool */
#define C_NAME_THUNK "%s_%s_thunk"                         /* prefix, tool (static) */
#define C_NAME_READER "%s_read_%s"                         /* prefix, resource or template */
#define C_NAME_READER_THUNK "%s_read_%s_thunk"             /* (static) */
#define C_NAME_READER_COMPLETERS "%s_read_%s_completers"   /* a template's completions (static) */
#define C_NAME_VARS "%s_%s_vars"                           /* prefix, template */
#define C_NAME_PROMPT "%s_prompt_%s"                       /* prefix, prompt */
#define C_NAME_PROMPT_THUNK "%s_prompt_%s_thunk"           /* (static) */
#define C_NAME_PROMPT_ARGS "%s_%s_prompt_args"             /* the struct of a prompt's arguments */
#define C_NAME_PROMPT_ARGUMENTS "%s_prompt_%s_arguments"   /* their table (static) */
#define C_NAME_PROMPT_COMPLETERS "%s_prompt_%s_completers" /* (static) */
#define C_NAME_COMPLETE "%s_complete_%s_%s"                /* prefix, prompt or template, argument */
#define C_NAME_COMPLETE_VALUES "%s_complete_%s_%s_values"  /* static completions (static) */
#define C_NAME_FORM "%s_%s_form"                           /* prefix, elicitation */
#define C_NAME_ELICITATION "%s_%s_elicitation"             /* prefix, elicitation */
#define C_NAME_ELICIT "%s_elicit_%s"                       /* prefix, elicitation */
#define C_NAME_SERVER "%s_server"                          /* prefix */
#define C_NAME_TABLE "%s_%s"                               /* prefix, tools/resources/templates/prompts (static) */
#define C_NAME_DESC "%s_desc"                              /* a type's C name: its descriptor */
#define C_NAME_FROM_JSON "%s_from_json"                    /* a named type's C name */
#define C_NAME_TO_JSON "%s_to_json"
#define C_NAME_INIT_ZERO "%s_init_zero" /* a struct's C name */
#define C_NAME_INIT_DEFAULT "%s_init_default"
#define C_NAME_COUNT "%s_COUNT" /* an enum's C name */
#define C_NAME_ENUM_NAME "%s_name"

/* How a use of a type is held in C. Models and records inside Optional[...],
 * unions and tuples are held by pointer (which also lets a type refer to
 * itself). */
typedef enum c_hold { C_HOLD_VALUE, C_HOLD_INDIRECT } c_hold;

/* A C type the header declares: an object (model, record, a tool's
 * arguments, an elicitation's form), a composite (list, set, dict, Optional,
 * tuple, union) or an enum (enum, Literal). */
typedef struct c_struct {
    const char *key;  /* structural key, without constraints */
    const char *name; /* the C name */
    const ir_type *t; /* representative (NULL for types, arguments and forms) */
    c_hold h;
    const ir_def *def;             /* model, record, enum */
    const ir_tool *args_of;        /* a tool's arguments */
    const ir_elicitation *form_of; /* an elicitation's form */
    bool is_enum;                  /* an enum or a Literal */
    const char **consts;           /* an enum's or a Literal's constants, per value */
    const char **arms;             /* a union's members, per arm */
    bool imported;                 /* a type of an imported file: its header defines it */
    size_t index;                  /* in c_names.structs */
} c_struct;

/* A descriptor the source defines. Its parts are descriptors defined before
 * it (c_names.bodies). */
typedef struct c_desc {
    const char *key;
    const char *name;
    const ir_type *t; /* NULL for arguments and forms */
    c_hold h;
    const char *ctype; /* the C type it describes */
    /* Objects (a model, a record, a tool's arguments, a form). */
    const char *title;
    const ir_field *fields;
    size_t nfields;
    const char **field_descs; /* per field */
    bool object, forbid, record;
    /* A model or record held by pointer: `elem` is the target's descriptor. */
    bool ptr;
    const char *elem;   /* LIST, SET, DICT, OPTIONAL, PTR */
    const char **items; /* TUPLE, UNION */
    /* A named type's (by value): declared in the header, for its JSON
     * functions; the others are static. */
    bool exported;
    bool imported; /* a named type's of an imported file: defined by that file's NAME.mcp.c */
    /* One that holds the constraints of a field: the field, for messages. */
    bool site;
    const char *what;
    idl_loc loc;
} c_desc;

typedef struct c_table c_table; /* a hash table of names (c_names.c) */

typedef struct c_names {
    mcp_arena *a;
    const ir_server *srv;
    const char *prefix;
    c_struct **structs; /* in the order they were met; the named types first, as srv->defs */
    size_t nstructs, cap_structs;
    c_desc **descs; /* in the order they were met: declared in this order */
    size_t ndescs, cap_descs;
    c_desc **bodies; /* the same, in the order they are defined */
    size_t nbodies, cap_bodies;
    const char **def_desc;    /* per named type: its descriptor (by value, exported) */
    const char **args_desc;   /* per tool */
    const char **result_desc; /* per tool; NULL for content */
    const char **form_desc;   /* per elicitation */
    c_table *struct_keys, *desc_keys;
    mcp_buf scratch; /* for keys, while the model is built */
    bool building;
    bool oom;
    /* Where an output being written goes in pieces (c_flush); NULL: it is
     * kept whole in its buffer. `unwritten` when a piece could not be. */
    bool (*piece)(void *ctx, const char *data, size_t len);
    void *piece_ctx;
    bool unwritten;
} c_names;

/* Whether a named type is defined in another file than the one compiled
 * (imports): its C lives in that file's NAME.mcp.h and NAME.mcp.c. */
static inline bool c_def_imported(const ir_def *def) { return def->loc.file != 0; }

/* The model of srv's generated C, in arena a. Collisions of names are errors
 * added to d (each with a note at the other place); `collisions` counts them.
 * NULL without memory. */
IDL_NODISCARD c_names *c_names_new(mcp_arena *a, const ir_server *srv, idl_diags *d, size_t *collisions);

/* A table of names for about `expected` entries, in n's arena (NULL without
 * memory); get gives the value of a key or NULL; put adds a key that is not
 * there yet (false without memory). */
c_table *c_table_new(c_names *n, size_t expected);
void *c_table_get(const c_table *t, const char *key);
bool c_table_put(c_names *n, c_table *t, const char *key, void *value);
/* The value of key; or NULL, key: value put (n->oom set without memory). */
void *c_table_get_or_put(c_names *n, c_table *t, const char *key, void *value);

/* How many declarations srv has (types, tools, forms, resources, ...). */
size_t c_declarations(const ir_server *srv);
/* Check every file-scope name of the generated files for collisions
 * (c_collisions.c): each pair of origins sharing a name is an error added to
 * d (which may be NULL), *collisions (when not NULL) their count. False
 * without memory. */
bool c_check_names(c_names *n, idl_diags *d, size_t *collisions);

/* The C spelling of a use of t ("int64_t", "const char *", "weather_str_list"). */
const char *c_type_of(c_names *n, const ir_type *t, c_hold h);
/* The registered type with this key, or NULL. */
c_struct *c_struct_find(const c_names *n, const char *key);
/* The struct of a use of t that the header defines (a composite or a Literal),
 * or NULL. */
c_struct *c_struct_of(c_names *n, const ir_type *t, c_hold h);
/* A type as the comments of the generated code show it: list[int],
 * opt[str], union[ptr[Node],int,None], Literal['a','b']; with `constraints`,
 * also its constraints ({mini=1;}). */
const char *c_type_text(c_names *n, const ir_type *t, c_hold h, bool constraints);
/* A value of a Literal as the comments show it: 'a', 1, True, None. */
void c_literal_key(mcp_buf *b, const mcp_json *v);

bool c_is_object_def(const ir_type *t);
/* Whether a descriptor checks more than its type's structure: a bound, a
 * length, a count, a pattern (a format is not checked). */
bool c_has_constraints(const ir_constraints *c);
bool c_is_optional(const ir_type *t);

/* ---- initializers (c_values.c) */

/* The initializer of a struct of fields (a model's, a record's, a tool's
 * arguments, a form's), in member order: with `defaults`, each member its
 * default from the IDL (a nested model its own _init_default), else zero (a
 * nested model its _init_zero); a record's presence flags false. */
void c_init_fields(c_names *n, mcp_buf *b, const ir_field *fields, size_t nfields, bool record, bool defaults);

/* ---- text (c_text.c) */

/* printf into the arena; "" (and n->oom set) without memory. */
char *c_fmt(c_names *n, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* A C string literal (UTF-8 kept raw; '?' escaped after '?' against trigraphs). */
void c_string(mcp_buf *b, const char *s, size_t len);
/* A long C string literal, split into pieces of at most ~100 bytes per line. */
void c_string_long(mcp_buf *b, const char *s, size_t len, const char *indent);
/* A comment-safe copy of a text's first line (at most 120 bytes); never NULL. */
const char *c_comment(c_names *n, const char *s);
/* Between two declarations of an output: hand what b holds to n->piece, once
 * it is large (NAME.mcp.c of a large contract is megabytes), and empty b. */
void c_flush(c_names *n, mcp_buf *b);
/* v as compact JSON text; n->oom set when v is NULL (it could not be built). */
void c_json(c_names *n, mcp_buf *b, const mcp_json *v);
/* "TYPE name" with the '*' next to the name. */
void c_member(mcp_buf *b, const char *type, const char *name);

/* Prototypes, as the header declares them and the source and the mock define
 * them (without the final ';'). */
void c_tool_prototype(c_names *n, mcp_buf *b, const ir_tool *t);
void c_prompt_prototype(c_names *n, mcp_buf *b, const ir_prompt *p);
void c_template_prototype(c_names *n, mcp_buf *b, const ir_template *t);
void c_elicit_prototype(c_names *n, mcp_buf *b, const ir_elicitation *e);
/* The C type of a tool's output (NULL for `content`). */
const char *c_out_type(c_names *n, const ir_tool *t);
/* The name of a completion handler. */
const char *c_completer_name(c_names *n, const char *owner_c, const ir_completion *k);
/* Whether a handler reads the resource (it has no static content). */
bool c_resource_has_reader(const ir_resource *r);

#endif
