/* emit_markdown.h: the Markdown reference page of a server (mcpidlc --emit=markdown). */
#ifndef MCPIDLC_EMIT_MARKDOWN_H
#define MCPIDLC_EMIT_MARKDOWN_H

#include <stdbool.h>

#include "ir.h"
#include "mcpidl/buf.h"

/* Append the page of `srv`, compiled from `source_name`, to b. False when out
 * of memory. */
bool emit_markdown(const ir_server *srv, const char *source_name, mcp_buf *b);

#endif
