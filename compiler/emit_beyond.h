/* emit_beyond.h: the JSON the runtime publishes for resources, resource
 * templates and prompts (their list entries), and the requestedSchema of
 * each elicitation form. The C back end embeds them as string constants. */
#ifndef MCPIDL_COMPILER_EMIT_BEYOND_H
#define MCPIDL_COMPILER_EMIT_BEYOND_H

#include "ir.h"
#include "emit_schema.h"

/* {"name","title","uri","description","mimeType","icons","_meta"} (absent
 * members left out). */
mcp_json *beyond_resource_entry(mcp_arena *a, const ir_resource *r);
/* {"name","title","uriTemplate","description","mimeType","icons","_meta"}. */
mcp_json *beyond_template_entry(mcp_arena *a, const ir_template *t);
/* {"name","title","description","arguments":[{"name","title","description","required"}],
 * "icons","_meta"}. */
mcp_json *beyond_prompt_entry(mcp_arena *a, const ir_prompt *p);
/* {"type":"object","properties":{...},"required":[...]}: MCP's restricted
 * form schema (elicitation/create's requestedSchema). */
mcp_json *beyond_form_schema(mcp_arena *a, const ir_elicitation *e);

#endif
