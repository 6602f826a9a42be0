/* arena.h: region allocation.
 *
 * Every allocation of a request, and every node of a compilation, lives in an
 * arena and is released with it at once. Nothing allocated from an arena is
 * freed on its own. Allocation failure returns NULL; it never aborts.
 */
#ifndef MCPIDL_ARENA_H
#define MCPIDL_ARENA_H

#include "mcpidl/api.h"
#include <stddef.h>

MCPIDL_BEGIN_DECLS

typedef struct mcp_arena_block mcp_arena_block;

typedef struct mcp_arena {
    mcp_arena_block *head; /* current block; older blocks follow ->next */
    size_t block_size;     /* size of the next ordinary block */
    size_t used;           /* bytes handed out since init or the last reset */
} mcp_arena;

/* Initialise an empty arena; the first allocation creates its first block. */
MCPIDL_API void mcp_arena_init(mcp_arena *a);
/* Release every block. The arena can be used again afterwards. */
MCPIDL_API void mcp_arena_free(mcp_arena *a);
/* Forget every allocation but keep the first block (the largest kept) for reuse:
 * an arena reset once per request allocates nothing in steady state. */
MCPIDL_API void mcp_arena_reset(mcp_arena *a);

/* n bytes aligned for any object; NULL when out of memory. Zero-filled. */
MCPIDL_API void *mcp_arena_alloc(mcp_arena *a, size_t n);
/* A copy of s[0..n) followed by a NUL. */
MCPIDL_API char *mcp_arena_strndup(mcp_arena *a, const char *s, size_t n);
MCPIDL_API char *mcp_arena_strdup(mcp_arena *a, const char *s);
/* printf into the arena. */
MCPIDL_API char *mcp_arena_printf(mcp_arena *a, const char *fmt, ...) MCP_PRINTF(2, 3);
/* Grow a previous allocation (copies; the old one stays in the arena). */
MCPIDL_API void *mcp_arena_realloc(mcp_arena *a, void *old, size_t old_n, size_t new_n);

MCPIDL_END_DECLS

#endif
