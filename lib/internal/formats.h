/* formats.h (internal): checking the string-format types for the codec
 * (codec/formats.c). */
#ifndef MCPIDL_INTERNAL_FORMATS_H
#define MCPIDL_INTERNAL_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/arena.h"
#include "mcpidl/formats.h"
#include "mcpidl/json.h"
#include "mcpidl/report.h"
#include "mcpidl/types.h"

typedef struct mcp_format_error {
    mcp_verr_kind kind;
    char message[240]; /* pydantic's full message ("Input should be a valid datetime, ...") */
} mcp_format_error;

/* Check v against format f (MCP_FMT_*). True with *canon the canonical text
 * (in the arena; NULL only when out of memory, with *oom set); false with *e
 * filled, pydantic's error type and message where pydantic rejects the value,
 * a message in pydantic's style where only the stricter rule does. */
bool mcp_format_check(mcp_format f, const mcp_json *v, mcp_arena *a, const char **canon, bool *oom,
                      mcp_format_error *e);

/* The same for a string s[0..n) (may hold NUL bytes), without a canonical
 * form: for tests and fuzzing. */
bool mcp_format_check_text(mcp_format f, const char *s, size_t n, mcp_format_error *e);

#endif
