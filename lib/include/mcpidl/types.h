/* types.h: the type descriptors that generated code hands to the runtime.
 *
 * mcpidlc writes, for every type of an IDL, a C type (for the handler to
 * fill) and a const mcp_type describing its layout and its schema. One
 * table-driven codec in libmcpidl reads these descriptors to decode JSON into
 * C values (validating every rule of the published schema and collecting a
 * pydantic-style report) and to encode C values as JSON. User code never
 * needs this header; generated code includes it.
 *
 * C representations, by kind:
 *   INT int64_t    FLOAT double    STR const char * (UTF-8, no NUL)    BOOL bool
 *   BYTES mcp_bytes    NONE mcp_none    ANY const mcp_json * (NULL: null)
 *   LIST, SET        struct { size_t len; T *items; }
 *   DICT             struct { size_t len; struct { K key; V value; } *items; }, K const char * or int64_t
 *   TUPLE (fixed)    struct { T0 item0; T1 item1; ... }
 *   OPTIONAL         struct { bool has; T value; }    (has == false: null)
 *   PTR              const T * : a model or record inside Optional[...] (NULL: null,
 *                    `nullable`) or as a union arm; this also lets a type refer to itself
 *   UNION            struct { uint32_t which; union { ... } as; }   (which: 1 + arm index; 0 unset)
 *   LITERAL, ENUM    a C enum (int): the index of the value
 *   FORMAT           const char *: the value's canonical text (mcpidl/formats.h)
 *   OBJECT           a struct with one member per field; a record's optional key
 *                    also gets `bool has_NAME`
 */
#ifndef MCPIDL_TYPES_H
#define MCPIDL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/api.h"
#include "mcpidl/json.h"

MCPIDL_BEGIN_DECLS

/* What a handler returns. */
typedef enum mcp_status {
    MCP_OK = 0,    /* the handler filled its output (or returned raw JSON) */
    MCP_ERROR = 1, /* the handler failed: see mcp_fail() */
} mcp_status;

/* One request being served (a tool call, a resource read, ...). Valid
 * during the handler call only. */
typedef struct mcp_call mcp_call;

typedef struct mcp_bytes {
    size_t len;
    const char *data;
} mcp_bytes;

typedef struct mcp_none {
    char unused;
} mcp_none;

typedef enum mcp_tkind {
    MCP_T_INT,
    MCP_T_FLOAT,
    MCP_T_STR,
    MCP_T_BOOL,
    MCP_T_BYTES,
    MCP_T_NONE,
    MCP_T_ANY,
    MCP_T_LIST,
    MCP_T_SET,
    MCP_T_TUPLE,
    MCP_T_DICT,
    MCP_T_OPTIONAL,
    MCP_T_PTR,
    MCP_T_UNION,
    MCP_T_LITERAL,
    MCP_T_ENUM,
    MCP_T_OBJECT,
    MCP_T_FORMAT, /* a string-format type (mcp_format): const char *, canonical text */
} mcp_tkind;

/* The string-format types (mcpidl/formats.h). */
typedef enum mcp_format {
    MCP_FMT_NONE,
    MCP_FMT_DATETIME,
    MCP_FMT_DATE,
    MCP_FMT_TIME,
    MCP_FMT_TIMEDELTA,
    MCP_FMT_UUID,
    MCP_FMT_URL,
    MCP_FMT_DECIMAL,
} mcp_format;

/* A compiled `pattern`: the text, and a slot the runtime fills on first use. */
typedef struct mcp_pattern {
    const char *source;
    /* pcre2_code *, set once by the runtime with atomic operations (a plain
     * pointer here, so that C++ can read the header). */
    void *compiled;
} mcp_pattern;

/* A number bound as written in the IDL (integers exact). */
typedef struct mcp_bound {
    bool is_int;
    int64_t i;
    double d;
} mcp_bound;

enum {
    MCP_C_MINIMUM = 1 << 0,
    MCP_C_MAXIMUM = 1 << 1,
    MCP_C_EXCLUSIVE_MINIMUM = 1 << 2,
    MCP_C_EXCLUSIVE_MAXIMUM = 1 << 3,
    MCP_C_MULTIPLE_OF = 1 << 4,
    MCP_C_MIN_LENGTH = 1 << 5,
    MCP_C_MAX_LENGTH = 1 << 6,
    MCP_C_MIN_ITEMS = 1 << 7,
    MCP_C_MAX_ITEMS = 1 << 8,
};

typedef struct mcp_constraints {
    unsigned flags;
    mcp_bound minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
    int64_t min_length, max_length, min_items, max_items;
    mcp_pattern *pattern; /* NULL when none */
} mcp_constraints;

/* One constant of a Literal or an enum. */
typedef struct mcp_literal {
    mcp_json_kind kind; /* MCP_JSTRING, MCP_JINT, MCP_JBOOL or MCP_JNULL */
    const char *s;      /* MCP_JSTRING */
    size_t len;
    int64_t i; /* MCP_JINT; MCP_JBOOL: 0 or 1 */
} mcp_literal;

typedef struct mcp_type mcp_type;

typedef struct mcp_field {
    const char *name; /* the JSON property name */
    size_t name_len;
    const mcp_type *type;
    uint32_t offset;    /* of the member */
    int32_t has_offset; /* a record's optional key: offset of `bool has_NAME`; else -1 */
    bool required;
    const char *default_json; /* a model field's default, as JSON text; NULL when none */
} mcp_field;

struct mcp_type {
    mcp_tkind kind;
    uint32_t size;  /* sizeof the C representation */
    uint32_t align; /* _Alignof the C representation */
    /* How pydantic names this type in a union error's location (`str`,
     * `list[int]`, the model's name). For an OBJECT: the title of its reports. */
    const char *tag;
    const mcp_constraints *c; /* NULL when none */
    /* LIST, SET, DICT (values), OPTIONAL, PTR: the element type. */
    const mcp_type *elem;
    uint32_t elem_offset; /* DICT: offset of the value in an item; OPTIONAL: of `value` */
    uint32_t item_size;   /* DICT: sizeof an item (key and value) */
    bool int_keys;        /* DICT: dict[int, T] */
    bool variadic;        /* LIST: written tuple[T, ...] (reported as a tuple) */
    bool nullable;        /* PTR: NULL stands for null */
    /* TUPLE: items and their offsets; UNION: arms (offset: of `as`). */
    const mcp_type *const *items;
    const uint32_t *offsets;
    uint32_t nitems;
    /* LITERAL, ENUM */
    const mcp_literal *values;
    uint32_t nvalues;
    /* OBJECT */
    const mcp_field *fields;
    uint32_t nfields;
    bool extra_forbid;
    bool is_record; /* reports `dict_type` rather than `model_type` */
    /* FORMAT */
    mcp_format format;
};

MCPIDL_END_DECLS

#endif
