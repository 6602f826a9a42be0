/* json.h: JSON values in an arena.
 *
 * The runtime's own JSON value: what a request parses into (after the strict
 * scanner has judged every byte), what `any` fields hold, and what a handler
 * may return raw. Every node lives in the arena it was parsed into; nothing is
 * freed on its own. json-c values can be converted in (mcp_json_from_jsonc),
 * for handlers that already use json-c.
 */
#ifndef MCPIDL_JSON_H
#define MCPIDL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/api.h"
#include "mcpidl/arena.h"
#include "mcpidl/buf.h"

MCPIDL_BEGIN_DECLS

/* Error codes; mcp_json_error_str() gives the message. */
typedef enum mcp_json_err {
    MCP_JSON_OK = 0,
    MCP_JSON_E_EOF,            /* the text ends inside a value */
    MCP_JSON_E_VALUE,          /* a value was expected (also NaN, 'x', +1, .5) */
    MCP_JSON_E_LITERAL,        /* a misspelt true, false or null */
    MCP_JSON_E_KEY,            /* a string key was expected */
    MCP_JSON_E_COLON,          /* ':' was expected after a key */
    MCP_JSON_E_COMMA,          /* ',' or the closing bracket was expected */
    MCP_JSON_E_TRAILING_COMMA, /* a ',' right before ']' or '}' */
    MCP_JSON_E_NUMBER,         /* a malformed number: 01, 1., 1e, -x */
    MCP_JSON_E_NUMBER_RANGE,   /* a float literal beyond the range of double */
    MCP_JSON_E_CONTROL,        /* a raw control character (< 0x20) in a string */
    MCP_JSON_E_ESCAPE,         /* an invalid escape sequence */
    MCP_JSON_E_SURROGATE,      /* a \u escape of a lone surrogate */
    MCP_JSON_E_UTF8,           /* invalid UTF-8 in a string */
    MCP_JSON_E_DEPTH,          /* nesting deeper than the limit */
    MCP_JSON_E_TRAILING,       /* more text after the value */
    MCP_JSON_E_DUPLICATE_KEY,  /* mcp_json_validate only: a key repeated in one object */
    MCP_JSON_E_NOMEM,          /* mcp_json_validate only */
    MCP_JSON_E_STRING_LIMIT,   /* a string or key longer than max_string (unescaped bytes) */
    MCP_JSON_E_ARRAY_LIMIT,    /* an array of more than max_array elements */
    MCP_JSON_E_VALUE_LIMIT,    /* more than max_values values in the text */
} mcp_json_err;

/* "unexpected end of input", ...; never NULL. */
MCPIDL_API const char *mcp_json_error_str(mcp_json_err err);

#define MCP_JSON_DEFAULT_MAX_DEPTH 128
#define MCP_JSON_DEPTH_CAP 4096

typedef struct mcp_json_limits {
    /* The most containers open at once: 1 allows "[1]" but not "[[1]]"; a
     * scalar alone has depth 0. <= 0 means MCP_JSON_DEFAULT_MAX_DEPTH; values
     * above MCP_JSON_DEPTH_CAP are taken as the cap. */
    int max_depth;
    /* The longest string or object key, in bytes after unescaping ("\u00e9"
     * counts 2, as its UTF-8 does). 0: no limit but the text's length. The
     * error's offset is the string's opening quote. */
    size_t max_string;
    /* The most elements in one array. 0: no limit. The error's offset is the
     * first element beyond the limit. */
    size_t max_array;
    /* The most values in the whole text, containers and object members'
     * values included: what bounds the memory of a parsed tree (a value is
     * a node of about 100 bytes, for as little as 2 bytes of text). 0: no
     * limit. The error's offset is the first value beyond the limit. */
    size_t max_values;
} mcp_json_limits;

/* Judge a whole text: everything the scanner checks, plus duplicate keys in
 * any object (keys compared after unescaping). Returns MCP_JSON_OK or the
 * first error in text order, its offset in *err_offset (may be NULL); for a
 * duplicate, the offset of the repeated key's opening quote. Takes time
 * O(n log n) in the number of keys, and memory O(keys of the open objects). */
MCPIDL_API mcp_json_err mcp_json_validate(const char *text, size_t len, const mcp_json_limits *lim, size_t *err_offset);

typedef enum mcp_json_kind {
    MCP_JNULL,
    MCP_JBOOL,
    MCP_JINT,    /* fits int64: i */
    MCP_JBIGINT, /* an integer beyond int64: s, len hold its digits as written */
    MCP_JFLOAT,  /* d (finite when parsed from text; a json-c value may carry NaN) */
    MCP_JSTRING, /* s, len: unescaped UTF-8, NUL-terminated; has_nul when it holds U+0000 */
    MCP_JARRAY,  /* items[0..n) */
    MCP_JOBJECT, /* members[0..n), in document order, keys unique */
} mcp_json_kind;

typedef struct mcp_json mcp_json;

typedef struct mcp_json_member {
    const char *key; /* unescaped, NUL-terminated */
    size_t key_len;
    mcp_json *value;
} mcp_json_member;

struct mcp_json {
    mcp_json_kind kind;
    bool b;
    bool has_nul;
    int64_t i;
    double d;
    const char *s;
    size_t len;
    size_t n;
    mcp_json **items;
    mcp_json_member *members;
    /* Arrays and objects: the room in items / members, for mcp_json_append and
     * mcp_json_set (a value below n counts as n: a container built by hand
     * with an exact-size array grows on the first append). */
    size_t cap;
};

/* Parse a whole text strictly (RFC 8259, duplicate keys rejected, nesting,
 * string and array lengths limited per lim). NULL on error: *err and *err_offset say what and where (either may
 * be NULL); the error is the one mcp_json_validate() gives for the text (a
 * repeated key is reported when it comes before a syntax error). Also NULL
 * with MCP_JSON_E_NOMEM when the arena or the heap is exhausted. On success
 * *err is MCP_JSON_OK and *err_offset 0.
 *
 * One pass over the scanner's tokens, without recursion: containers' members
 * gather on a scratch stack (on the C stack, then the heap) and move into an
 * exact-size arena array when the container closes. Time O(n) plus
 * O(k log k) per object of k > 16 keys; every node lives in the arena.
 * Strings and keys are unescaped, NUL-terminated copies; integers beyond
 * int64 are MCP_JBIGINT holding the literal as written. */
MCPIDL_API mcp_json *mcp_json_parse(mcp_arena *a, const char *text, size_t len, const mcp_json_limits *lim,
                                    mcp_json_err *err, size_t *err_offset);

/* The value of `key` in an object, or NULL (also when v is not an object).
 * A linear search. */
MCPIDL_API const mcp_json *mcp_json_get(const mcp_json *v, const char *key);
/* The same for key[0..len), which may hold NUL bytes. */
MCPIDL_API const mcp_json *mcp_json_getn(const mcp_json *v, const char *key, size_t len);

/* Constructors (NULL when out of memory). Strings are copied into the arena.
 * (The writer's functions of jsonw.h are mcp_json_int, mcp_json_string, ...:
 * these build values.) */
MCPIDL_API mcp_json *mcp_json_new_null(mcp_arena *a);
MCPIDL_API mcp_json *mcp_json_new_bool(mcp_arena *a, bool b);
MCPIDL_API mcp_json *mcp_json_new_int(mcp_arena *a, int64_t i);
MCPIDL_API mcp_json *mcp_json_new_float(mcp_arena *a, double d);
MCPIDL_API mcp_json *mcp_json_new_string(mcp_arena *a, const char *s, size_t len);
MCPIDL_API mcp_json *mcp_json_new_array(mcp_arena *a);
MCPIDL_API mcp_json *mcp_json_new_object(mcp_arena *a);
/* Appends item (amortised O(1): the room doubles). False when out of memory,
 * when array is not an array or item is NULL. */
MCPIDL_API MCP_NODISCARD bool mcp_json_append(mcp_arena *a, mcp_json *array, mcp_json *item);
/* Sets key (replacing an existing one in place, else appending; the key is
 * copied into the arena). A linear search for the key: O(n) per call. False
 * when out of memory, when object is not an object or value is NULL. */
MCPIDL_API MCP_NODISCARD bool mcp_json_set(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value);
/* The same for key[0..len), which may hold NUL bytes. */
MCPIDL_API MCP_NODISCARD bool mcp_json_setn(mcp_arena *a, mcp_json *object, const char *key, size_t len,
                                            mcp_json *value);
/* Sets key in an object whose members are sorted by key, in code point order
 * (UTF-8 byte order, a prefix first), keeping them so: a binary search, then
 * the key (copied into the arena) inserted in its place or its value
 * replaced. mcp_json_write then writes the keys sorted, as Python's
 * json.dumps(sort_keys=True) does. Build such an object with this function
 * only. False when out of memory, when object is not an object or value or
 * key is NULL. */
MCPIDL_API MCP_NODISCARD bool mcp_json_set_sorted(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value);
/* A shallow copy of v: a new node whose array of items or members is a copy
 * (so that appending to or setting in one leaves the other alone), sharing
 * the values they point to and the strings. NULL when out of memory or v is
 * NULL. */
MCPIDL_API mcp_json *mcp_json_copy(mcp_arena *a, const mcp_json *v);

/* Equality as JSON values: numbers by value, exactly (1 == 1.0, and a
 * BIGINT equals the integral float of the same value; NaN equals nothing),
 * true is not 1, object member order ignored. Without recursion; objects of
 * more than 16 members are matched by sorting. NULL equals only NULL. False
 * also when the heap is exhausted on the work stack. */
MCPIDL_API bool mcp_json_equal(const mcp_json *x, const mcp_json *y);
/* Equality as Python's == sees the parsed values: mcp_json_equal, except
 * that a boolean equals the number it stands for (true == 1, false == 0.0),
 * as in pydantic's comparisons of schemas. */
MCPIDL_API bool mcp_json_equal_py(const mcp_json *x, const mcp_json *y);

/* Write v as JSON text the way pydantic-core does: indent < 0 compact
 * ({"a":1,"b":[1,2]}), else pretty with `indent` spaces per level and ": "
 * after keys, as Python's json.dumps(indent=N): "{\n  \"a\": 1\n}", empty
 * containers "{}" and "[]", no trailing newline (the text of a content block).
 * Strings per mcp_json_string, integers exactly, BIGINT digits as held, floats
 * per mcp_json_double; a non-finite float is written as null and makes the
 * function return false. Without recursion (false, b->oom set, when the heap
 * cannot hold the stack of open containers). */
MCPIDL_API bool mcp_json_write(mcp_buf *b, const mcp_json *v, int indent);

struct json_object;
/* A json-c value as an mcp_json (deep copy into the arena). NULL when out of
 * memory or when the json-c value holds something JSON cannot: a string or key
 * that is not valid UTF-8, an object with a repeated key, a cycle (never for
 * values json-c parsed). A NULL json_object is null; json-c's doubles stay
 * MCP_JFLOAT (NaN and infinities included), its int64 values MCP_JINT, uint64
 * values beyond int64 MCP_JBIGINT; objects keep json-c's member order; strings
 * keep embedded NULs. Without recursion, however deep the value. */
MCPIDL_API mcp_json *mcp_json_from_jsonc(mcp_arena *a, const struct json_object *v);

MCPIDL_END_DECLS

#endif
