/* c_names.h (internal to the C back end): the C model of a server, and what
 * the three C outputs share.
 *
 * c_names_new walks the IR once and decides every C entity the generated
 * files hold, with its name: the C types a handler fills (the mapping of
 * lib/include/mcpidl/types.h: a struct per model, record, tool's arguments
 * and elicitation form, an enum per enum and Literal, a struct per
 * composite: list, set, dict, tuple, Optional, union) and the descriptors the
 * runtime's codec reads (one per distinct type with its constraints). Both
 * are found by structural keys, so each is written once however often it is
 * used. The writers (c_header.c: NAME.mcp.h, c_tables.c: NAME.mcp.c,
 * c_mock.c: NAME.mock.c) read the model and write text; they decide no name.
 */
#ifndef MCPIDL_COMPILER_C_NAMES_H
#define MCPIDL_COMPILER_C_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"
#include "mcpidl/buf.h"

/* The ABI of the generated code (MCPIDL_ABI in mcpidl.h). */
#define C_GENERATED_ABI 2

/* How a use of a type is held in C. Models and records inside Optional[...],
 * unions and tuples are held by pointer (which also lets a type refer to
 * itself). */
typedef enum c_hold { C_HOLD_VALUE, C_HOLD_INDIRECT } c_hold;

/* A C type the header declares: an object (model, record, a tool's
 * arguments, an elicitation's form), a composite (list, set, dict, Optional,
 * tuple, union) or an enum (enum, Literal). */
typedef struct c_struct {
    const char *key;               /* structural key, without constraints */
    const char *name;              /* the C name */
    const ir_type *t;              /* representative (NULL for arguments and forms) */
    c_hold h;
    const ir_def *def;             /* model, record, enum */
    const ir_tool *args_of;        /* a tool's arguments */
    const ir_elicitation *form_of; /* an elicitation's form */
    bool is_enum;                  /* an enum or a Literal */
    size_t index;                  /* in c_names.structs */
} c_struct;

/* A descriptor the source defines. Its parts are descriptors defined before
 * it (c_names.bodies). */
typedef struct c_desc {
    const char *key;
    const char *name;
    const ir_type *t;              /* NULL for arguments and forms */
    c_hold h;
    const char *ctype;             /* the C type it describes */
    /* Objects (a model, a record, a tool's arguments, a form). */
    const char *title;
    const ir_field *fields;
    size_t nfields;
    const char **field_descs;      /* per field */
    bool object, forbid, record;
    /* A model or record held by pointer: `elem` is the target's descriptor. */
    bool ptr;
    const char *elem;              /* LIST, SET, DICT, OPTIONAL, PTR */
    const char **items;            /* TUPLE, UNION */
} c_desc;

typedef struct c_names {
    mcp_arena *a;
    const ir_server *srv;
    const char *prefix;
    c_struct **structs;            /* in the order they were met */
    size_t nstructs, cap_structs;
    c_desc **descs;                /* in the order they were met: declared in this order */
    size_t ndescs, cap_descs;
    c_desc **bodies;               /* the same, in the order they are defined */
    size_t nbodies, cap_bodies;
    const char **args_desc;        /* per tool */
    const char **result_desc;      /* per tool; NULL for content */
    const char **form_desc;        /* per elicitation */
    size_t nlits;
    bool oom;
} c_names;

/* The model of srv's generated C, in arena a; NULL without memory. */
c_names *c_names_new(mcp_arena *a, const ir_server *srv);

/* The C spelling of a use of t ("int64_t", "const char *", "weather_str_list"). */
const char *c_type_of(c_names *n, const ir_type *t, c_hold h);
/* The registered type with this key, or NULL. */
c_struct *c_struct_find(const c_names *n, const char *key);
/* The structural key of a use of t: with `full`, constraints and spelling
 * (tuple[T, ...]) count (a descriptor's key); without, a C type's. */
const char *c_key_of(c_names *n, const ir_type *t, c_hold h, bool full);
/* The member name of arm `index` of union u. */
const char *c_arm_member(c_names *n, const ir_type *u, size_t index);
/* The name of constant i of an enum or Literal named `type_name`. */
const char *c_literal_const(c_names *n, const char *type_name, const mcp_json *const *values, size_t i);
/* A value of a Literal as the key and comments show it: 'a', 1, True, None. */
void c_literal_key(mcp_buf *b, const mcp_json *v);

bool c_is_object_def(const ir_type *t);
bool c_is_optional(const ir_type *t);

/* ---- text (c_text.c) */

/* printf into the arena; "" (and n->oom set) without memory. */
char *c_fmt(c_names *n, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* A C string literal (UTF-8 kept raw; '?' escaped after '?' against trigraphs). */
void c_string(mcp_buf *b, const char *s, size_t len);
/* A long C string literal, split into pieces of at most ~100 bytes per line. */
void c_string_long(mcp_buf *b, const char *s, size_t len, const char *indent);
/* A comment-safe copy of a text's first line (at most 120 bytes); never NULL. */
const char *c_comment(c_names *n, const char *s);
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
