/* emit_schema.h: the JSON Schema back end.
 *
 * Builds the schemas clients see in tools/list (inputSchema, outputSchema) from
 * the IR, with pydantic's layout: titles, $defs hoisted to the root, $ref
 * siblings, defaults, and sorted keys (IDL.md, "How a property's schema is
 * written"). The schema of each named type is built once and shared.
 */
#ifndef MCPIDL_COMPILER_EMIT_SCHEMA_H
#define MCPIDL_COMPILER_EMIT_SCHEMA_H

#include "ir.h"
#include "jtree.h"

typedef struct schema_emitter schema_emitter;

schema_emitter *schema_emitter_new(mcp_arena *a, const ir_server *srv);
/* The inputSchema of a tool (<tool>Arguments). */
jval *schema_input(schema_emitter *e, const ir_tool *t);
/* The outputSchema of a tool, or NULL when it publishes none. */
jval *schema_output(schema_emitter *e, const ir_tool *t);
/* One entry of tools/list: name, title, description, inputSchema, outputSchema,
 * annotations, in that order, absent keys omitted. */
jval *schema_tool_entry(schema_emitter *e, const ir_tool *t);
/* The whole tools/list array. */
jval *schema_tools_list(schema_emitter *e);

#endif
