/* defs_order.h: when pydantic generates each definition of a schema.
 *
 * Beside a reference to a named type, a property may carry a title or a
 * description. pydantic drops such a sibling when it equals the referenced
 * definition's own, but only when that definition is already generated as the
 * property is written (GenerateJsonSchema.handle_ref_overrides); a definition
 * generated later keeps it. Which comes first follows from how pydantic builds
 * and cleans its core schemas, which this module replays on the IR for the
 * equivalent Python: the types defined in file order, so that a model whose
 * types are all defined by then is complete and reused as built, while the
 * others are built afresh where they are used; a definition referred to once is
 * inlined where it is used, the others are generated first, in the order they
 * were met. Building one schema can change another (pydantic shares the built
 * schemas of complete models and inlines references inside them in place), so
 * the whole server is replayed at once, as the SDK registers its tools. Every
 * pass is iterative (no recursion on the depth of references).
 */
#ifndef MCPIDL_COMPILER_DEFS_ORDER_H
#define MCPIDL_COMPILER_DEFS_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "ir.h"

typedef struct defs_order defs_order;

/* The replay for a server: the types defined in file order, then every tool
 * registered in file order as the SDK does it (the arguments model built, then
 * the output's schema generated, then the arguments' schema). NULL without
 * memory. */
IDL_NODISCARD defs_order *defs_order_new(mcp_arena *a, const ir_server *srv);
/* Whether the field's title or description, or a key of its schema_extra, is a
 * sibling that pydantic may keep or drop: its type is a named type, and the
 * sibling equals the type's own. */
bool defs_order_is_candidate(const ir_field *f);
/* Whether key k of the field's schema_extra is such a sibling: the same key
 * of the named type's schema_extra has a value equal to it (as Python
 * compares). */
bool defs_order_extra_sibling(const ir_field *f, size_t k);
/* Whether, in the input (output false) or output schema of tool number `tool`,
 * the type of candidate field `i` of `owner` (NULL: of the root object) was
 * generated before the field was written, so that the sibling is dropped. */
bool defs_order_generated_before(const defs_order *o, size_t tool, bool output, const ir_def *owner, size_t i);

#endif
