/* codec.h (internal): the table-driven codec (codec/codec.c). */
#ifndef MCPIDL_INTERNAL_CODEC_H
#define MCPIDL_INTERNAL_CODEC_H

#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"
#include "mcpidl/report.h"
#include "mcpidl/types.h"

/* Decode JSON `v` as type `t` into `out` (t->size bytes, zeroed by the
 * caller), allocating in `a`; every error goes to `rep`. Returns true when no
 * error was added. */
bool mcp_decode(const mcp_type *t, const mcp_json *v, void *out, mcp_arena *a, mcp_report *rep);
/* A C value of type `t` as a JSON value in `a` (the handler's output on its way
 * to validation; a NaN float stays a NaN, for the validator to report). NULL
 * when the value cannot be represented (a NULL string or an unset union):
 * `why` then says what, with the path in `rep`'s current location. */
mcp_json *mcp_to_json(const mcp_type *t, const void *value, mcp_arena *a, const char **why);
/* mcp_to_json, a fault of the C value reported in rep at its location (the
 * location stack starts where rep's stands: push "result" first for a
 * wrapped return). NULL with rep->oom set when memory ran out. */
mcp_json *mcp_to_json_report(const mcp_type *t, const void *value, mcp_arena *a, mcp_report *rep);
/* The compact JSON text of the C value `value` of type `t`, appended to out,
 * when it is the text mcp_json_write(mcp_to_json(...), -1) writes and
 * validating it as `t` (mcp_decode) succeeds and encodes to the same text:
 * the plain kinds only, no fault (codec.c says which). False, with nothing
 * appended, otherwise (out->oom set when memory ran out): the caller then
 * takes the general path, which reports what is wrong. */
bool mcp_write_plain(const mcp_type *t, const void *value, mcp_buf *out);

#endif
