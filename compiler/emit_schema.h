/* emit_schema.h: the JSON Schema back end.
 *
 * Builds the schemas clients see in tools/list (inputSchema, outputSchema) from
 * the IR, with pydantic's layout: titles, $defs hoisted to the root, $ref
 * siblings, defaults, and sorted keys (IDL.md, "How a property's schema is
 * written"). The schema of each named type is built once and shared.
 */
#ifndef MCPIDL_COMPILER_EMIT_SCHEMA_H
#define MCPIDL_COMPILER_EMIT_SCHEMA_H

#include <string.h>

#include "ir.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"

/* The JSON tree of a schema is the runtime's (mcpidl/json.h). Its objects
 * keep their keys sorted as pydantic writes them (mcp_json_set_sorted),
 * except the few that keep the order they are built in (mcp_json_set): the
 * "properties" of a schema, default values, the entries of tools/list. */

/* Building a value that fails as a whole: a step that fails (out of memory)
 * is remembered in `oom`, and the value is given up at the end.
 *
 * The keys and strings of what is built this way are not copied: a schema
 * borrows them from the IR or from string literals, which live as long as it
 * does (the IR's arena is the schema's, or outlives it). */
typedef struct sj {
    mcp_arena *a;
    bool oom;
} sj;

/* key: v in an object whose keys are kept sorted (mcp_json_set_sorted's
 * order: a key already there has its value replaced). */
void sj_put(sj *b, mcp_json *o, const char *key, mcp_json *v);

/* key: v in an object whose keys keep the order they are set in (a key
 * already there has its value replaced, in its place). */
void sj_add(sj *b, mcp_json *o, const char *key, mcp_json *v);

static inline void sj_push(sj *b, mcp_json *array, mcp_json *v)
{
    if (!mcp_json_append(b->a, array, v))
        b->oom = true;
}

/* A string value for s (borrowed, see above), or NULL for NULL. */
mcp_json *sj_str(mcp_arena *a, const char *s);

/* A value of the IDL (a default, a Literal's value) as a schema writes it:
 * the value keeps its order, and so do the objects under a key 'properties'
 * or 'default' in it; every other object inside is sorted (pydantic's
 * GenerateJsonSchema.sort). A copy in `a`; NULL for NULL or without memory. */
mcp_json *schema_value(mcp_arena *a, const mcp_json *v);

typedef struct schema_emitter schema_emitter;

IDL_NODISCARD schema_emitter *schema_emitter_new(mcp_arena *a, const ir_server *srv);
/* Build the schemas that follow in `scratch` (NULL: in e's arena again), which
 * the caller may reset once they are written: what e keeps for every schema
 * (the schemas of named types, their text) stays in e's arena. */
void schema_scratch(schema_emitter *e, mcp_arena *scratch);
/* The inputSchema of a tool (<tool>Arguments). */
mcp_json *schema_input(schema_emitter *e, const ir_tool *t);
/* The outputSchema of a tool, or NULL when it publishes none. */
mcp_json *schema_output(schema_emitter *e, const ir_tool *t);
/* One entry of tools/list: name, title, description, inputSchema, outputSchema,
 * annotations, execution, icons, _meta, in that order, absent keys omitted. */
mcp_json *schema_tool_entry(schema_emitter *e, const ir_tool *t);
/* The icons of d (MCP's Icon: src, mimeType, sizes, theme) as an array,
 * NULL when there are none to publish. */
mcp_json *schema_icons(sj *b, const ir_display *d);
/* "icons" and "_meta" of d, at the end of a list entry (or of serverInfo:
 * icons only), each when it has one. */
void schema_display(sj *b, mcp_json *o, const ir_display *d, bool with_meta);
/* The whole tools/list array. */
mcp_json *schema_tools_list(schema_emitter *e);
/* A schema (or an entry of tools/list) built by e, written as mcp_json_write
 * writes it (indent < 0: compact) inside `depth` containers; the schema of a
 * named type that many schemas share is formatted once. False for what
 * mcp_json_write refuses, or without memory. */
bool schema_write(schema_emitter *e, mcp_buf *b, const mcp_json *v, int indent, size_t depth);

#endif
