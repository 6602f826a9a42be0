/* codec.h: JSON text to and from the C values of generated types.
 *
 * Each named type T of an IDL gets PREFIX_T_from_json and PREFIX_T_to_json,
 * which call these with the type's descriptor: a handler can turn JSON from
 * elsewhere (an upstream service, a file) into the generated struct with the
 * validation a tool's arguments get, and the same report when it does not
 * fit; and turn a struct into the JSON a tool's structuredContent carries.
 * What they allocate lives in the arena they are given (a handler passes
 * mcp_call_arena(call)).
 */
#ifndef MCPIDL_CODEC_H
#define MCPIDL_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/api.h"
#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "mcpidl/types.h"

MCPIDL_BEGIN_DECLS

/* Decode the JSON text text[0..len) as a value of type t into *out (t->size
 * bytes, cleared first), checking every rule of t's schema (a model's
 * defaults are filled in, as in a tool's arguments); strings and lists of
 * the value live in `a`. True when it fits. Otherwise false, and *error
 * (unless error is NULL) is the report in `a`, as pydantic prints a
 * ValidationError titled after t ("1 validation error for Shirt\nsize\n
 * Input should be 'S', 'M' or 'L' [type=literal_error, ...]"); text that is
 * not JSON (RFC 8259, strictly) gives one error of type json_invalid that
 * says what and where. */
MCPIDL_API MCP_NODISCARD bool mcp_value_from_json(const mcp_type *t, const char *text, size_t len, void *out,
                                                  mcp_arena *a, const char **error);

/* Append the value *value of type t to `out` as JSON text, compact, as a
 * tool's structuredContent is written, after checking it as a tool's output
 * is checked; scratch space comes from `a`. True when it fits its schema.
 * Otherwise false, `out` as it was, and *error (unless NULL) the report in
 * `a` (a NaN float: finite_number; a string out of its constraints, ...), or
 * what cannot be written at all (a NULL string, a union with no arm set). */
MCPIDL_API MCP_NODISCARD bool mcp_value_to_json(const mcp_type *t, const void *value, mcp_buf *out, mcp_arena *a,
                                                const char **error);

MCPIDL_END_DECLS

#endif
