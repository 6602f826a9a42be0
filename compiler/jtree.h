/* jtree.h: a small JSON value tree for building schemas, written with
 * pydantic's key order.
 *
 * Objects keep their members in insertion order; the writer sorts an object's
 * keys by code point unless the object is marked keep_order (the "properties"
 * of a schema and default values, as pydantic's GenerateJsonSchema.sort does).
 * Everything lives in an arena.
 */
#ifndef MCPIDL_COMPILER_JTREE_H
#define MCPIDL_COMPILER_JTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "node.h"

typedef enum jkind { J_NULL, J_BOOL, J_INT, J_FLOAT, J_STR, J_ARR, J_OBJ } jkind;

typedef struct jval jval;
typedef struct jmember {
    const char *key;
    jval *val;
} jmember;

struct jval {
    jkind kind;
    bool keep_order;      /* J_OBJ: write members in insertion order */
    bool b;
    int64_t i;
    double f;
    const char *s;        /* J_STR */
    size_t len;
    jval **items;         /* J_ARR */
    jmember *members;     /* J_OBJ */
    size_t n, cap;
};

jval *j_null(mcp_arena *a);
jval *j_bool(mcp_arena *a, bool b);
jval *j_int(mcp_arena *a, int64_t i);
jval *j_float(mcp_arena *a, double f);
jval *j_str(mcp_arena *a, const char *s);
jval *j_strn(mcp_arena *a, const char *s, size_t len);
jval *j_arr(mcp_arena *a);
jval *j_obj(mcp_arena *a);
/* Append (arrays) or set (objects; replaces an existing key in place). False on OOM. */
bool j_push(mcp_arena *a, jval *arr, jval *v);
bool j_set(mcp_arena *a, jval *obj, const char *key, jval *v);
jval *j_get(const jval *obj, const char *key);
/* A shallow copy of an object (members array copied, values shared). */
jval *j_copy_obj(mcp_arena *a, const jval *obj);
/* A YAML value as JSON; objects are marked keep_order following pydantic's rule
 * for default values (an object whose key, through arrays, is 'properties' or
 * 'default' keeps its order; the value itself keeps its order). */
jval *j_from_node(mcp_arena *a, const idl_node *n);
/* Equality of JSON values (1 equals 1.0); j_equal_py as Python's == sees the
 * parsed values, where also true equals 1 and false 0. */
bool j_equal(const jval *x, const jval *y);
bool j_equal_py(const jval *x, const jval *y);

/* Write JSON text: indent < 0 compact ("," and ":" with no spaces), else pretty
 * with `indent` spaces per level, ": " after keys, as Python's json.dumps. */
void j_write(mcp_buf *b, const jval *v, int indent);

#endif
