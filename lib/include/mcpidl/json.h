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

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "mcpidl/json_scan.h"

typedef enum mcp_json_kind {
    MCP_JNULL,
    MCP_JBOOL,
    MCP_JINT,      /* fits int64: i */
    MCP_JBIGINT,   /* an integer beyond int64: s, len hold its digits as written */
    MCP_JFLOAT,    /* d (finite when parsed from text; a json-c value may carry NaN) */
    MCP_JSTRING,   /* s, len: unescaped UTF-8, NUL-terminated; has_nul when it holds U+0000 */
    MCP_JARRAY,    /* items[0..n) */
    MCP_JOBJECT,   /* members[0..n), in document order, keys unique */
} mcp_json_kind;

typedef struct mcp_json mcp_json;

typedef struct mcp_json_member {
    const char *key;   /* unescaped, NUL-terminated */
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
mcp_json *mcp_json_parse(mcp_arena *a, const char *text, size_t len, const mcp_json_limits *lim,
                         mcp_json_err *err, size_t *err_offset);

/* The value of `key` in an object, or NULL (also when v is not an object).
 * A linear search. */
const mcp_json *mcp_json_get(const mcp_json *v, const char *key);
/* The same for key[0..len), which may hold NUL bytes. */
const mcp_json *mcp_json_getn(const mcp_json *v, const char *key, size_t len);

/* Constructors (NULL when out of memory). Strings are copied into the arena.
 * (The writer's functions of jsonw.h are mcp_json_int, mcp_json_string, ...:
 * these build values.) */
mcp_json *mcp_json_new_null(mcp_arena *a);
mcp_json *mcp_json_new_bool(mcp_arena *a, bool b);
mcp_json *mcp_json_new_int(mcp_arena *a, int64_t i);
mcp_json *mcp_json_new_float(mcp_arena *a, double d);
mcp_json *mcp_json_new_string(mcp_arena *a, const char *s, size_t len);
mcp_json *mcp_json_new_array(mcp_arena *a);
mcp_json *mcp_json_new_object(mcp_arena *a);
/* Appends item (amortised O(1): the room doubles). False when out of memory,
 * when array is not an array or item is NULL. */
bool mcp_json_append(mcp_arena *a, mcp_json *array, mcp_json *item);
/* Sets key (replacing an existing one in place, else appending; the key is
 * copied into the arena). A linear search for the key: O(n) per call. False
 * when out of memory, when object is not an object or value is NULL. */
bool mcp_json_set(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value);
/* The same for key[0..len), which may hold NUL bytes. */
bool mcp_json_setn(mcp_arena *a, mcp_json *object, const char *key, size_t len, mcp_json *value);
/* Sets key in an object whose members are sorted by key, in code point order
 * (UTF-8 byte order, a prefix first), keeping them so: a binary search, then
 * the key (copied into the arena) inserted in its place or its value
 * replaced. mcp_json_write then writes the keys sorted, as Python's
 * json.dumps(sort_keys=True) does. Build such an object with this function
 * only. False when out of memory, when object is not an object or value or
 * key is NULL. */
bool mcp_json_set_sorted(mcp_arena *a, mcp_json *object, const char *key, mcp_json *value);
/* A shallow copy of v: a new node whose array of items or members is a copy
 * (so that appending to or setting in one leaves the other alone), sharing
 * the values they point to and the strings. NULL when out of memory or v is
 * NULL. */
mcp_json *mcp_json_copy(mcp_arena *a, const mcp_json *v);

/* Equality as JSON values: numbers by value, exactly (1 == 1.0, and a
 * BIGINT equals the integral float of the same value; NaN equals nothing),
 * true is not 1, object member order ignored. Without recursion; objects of
 * more than 16 members are matched by sorting. NULL equals only NULL. False
 * also when the heap is exhausted on the work stack. */
bool mcp_json_equal(const mcp_json *x, const mcp_json *y);
/* Equality as Python's == sees the parsed values: mcp_json_equal, except
 * that a boolean equals the number it stands for (true == 1, false == 0.0),
 * as in pydantic's comparisons of schemas. */
bool mcp_json_equal_py(const mcp_json *x, const mcp_json *y);

/* Write v as JSON text the way pydantic-core does: indent < 0 compact
 * ({"a":1,"b":[1,2]}), else pretty with `indent` spaces per level and ": "
 * after keys, as Python's json.dumps(indent=N): "{\n  \"a\": 1\n}", empty
 * containers "{}" and "[]", no trailing newline (the text of a content block).
 * Strings per mcp_json_string, integers exactly, BIGINT digits as held, floats
 * per mcp_json_double; a non-finite float is written as null and makes the
 * function return false. Without recursion (false, b->oom set, when the heap
 * cannot hold the stack of open containers). */
bool mcp_json_write(mcp_buf *b, const mcp_json *v, int indent);

/* Python's repr() of the value as the MCP Python SDK would hold it ({'a': 1},
 * [1, 'x'], 'text', None, True, 16.2, 1e-07), for validation reports.
 * Strings as Python's str.__repr__: single quotes unless the text holds a '
 * and no "; \\, the quote, \t \n \r escaped; other controls and DEL as \xNN;
 * non-ASCII raw when Python deems it printable, else \xNN, \uNNNN or
 * \UNNNNNNNN, lowercase. The table of non-printable code points is Python
 * 3.11's (Unicode 14.0) without the unassigned ones, which stay raw (the
 * approximation: Python escapes them, but which they are depends on its
 * Unicode version), except those unassigned in every version so far:
 * noncharacters, planes 4 to 13, the gaps of plane 14 (see pyrepr.c). A byte
 * of invalid UTF-8 (only in hand-built values) shows as Python's
 * surrogateescape would: \udcNN. Without recursion. */
void mcp_json_py_repr(mcp_buf *b, const mcp_json *v);
/* The repr as a pydantic error report shows it (input_value=...): whole when
 * it is at most 50 bytes of UTF-8, else its first 25 bytes and last 24 (each
 * cut moved off a multi-byte character, the head's down and the tail's up)
 * around "...", as pydantic-core's write_truncated_to_limited_bytes. The work
 * is bounded whatever the size of v: only the head and the tail of the repr
 * are produced (but a string's quote choice scans the whole string). */
void mcp_json_py_repr_short(mcp_buf *b, const mcp_json *v);
/* Python's type name of the value: dict, list, str, int (also BIGINT), float,
 * bool, NoneType. */
const char *mcp_json_py_type(const mcp_json *v);
/* Python's repr() of a float (shortest digits; exponent form below 1e-4 and
 * from 1e16 on, with at least two exponent digits: 1e-05, 1e+16; ".0" when
 * integral in plain form: 17.0; nan, inf, -inf, -0.0). */
void mcp_py_float_repr(mcp_buf *b, double d);

struct json_object;
/* A json-c value as an mcp_json (deep copy into the arena). NULL when out of
 * memory or when the json-c value holds something JSON cannot: a string or key
 * that is not valid UTF-8, an object with a repeated key, a cycle (never for
 * values json-c parsed). A NULL json_object is null; json-c's doubles stay
 * MCP_JFLOAT (NaN and infinities included), its int64 values MCP_JINT, uint64
 * values beyond int64 MCP_JBIGINT; objects keep json-c's member order; strings
 * keep embedded NULs. Without recursion, however deep the value. */
mcp_json *mcp_json_from_jsonc(mcp_arena *a, const struct json_object *v);

#endif
