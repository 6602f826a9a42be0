/* runtime.h (internal): what the library's tests reach inside a runtime. */
#ifndef MCPIDL_INTERNAL_RUNTIME_H
#define MCPIDL_INTERNAL_RUNTIME_H

#include "internal/methods.h"
#include "mcpidl/runtime.h"

/* The methods' shared state (to put a test's tool invoker in). */
mcp_methods_state *mcp_runtime_methods(mcp_runtime *rt);

#endif
