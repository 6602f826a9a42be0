/* arena.h (internal): the arena's block, and allocation without zero-filling
 * with its common case inline, for the JSON parser, which writes every byte
 * of what it allocates and allocates per value. */
#ifndef MCPIDL_INTERNAL_ARENA_H
#define MCPIDL_INTERNAL_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "mcpidl/arena.h"

struct mcp_arena_block {
    mcp_arena_block *next;
    size_t size; /* usable bytes in data */
    size_t used;
    max_align_t data[];
};

/* Aligned for any object, as malloc's memory is: _Alignof, not sizeof (32 on
 * x86-64, which rounded a 10-byte string up to 32 bytes). */
#define MCP_ARENA_ALIGN (_Alignof(max_align_t))

/* mcp_arena_alloc without the zero-fill: the caller writes all n bytes. */
void *mcp_arena_alloc_raw(mcp_arena *a, size_t n);

/* mcp_arena_alloc_raw, with the bump of the current block inline. */
static inline void *mcp_arena_take(mcp_arena *a, size_t n)
{
    mcp_arena_block *b = a->head;
    if (b && n && n <= SIZE_MAX - MCP_ARENA_ALIGN) {
        size_t need = (n + MCP_ARENA_ALIGN - 1) & ~(MCP_ARENA_ALIGN - 1);
        if (b->size - b->used >= need) {
            void *p = (char *)b->data + b->used;
            b->used += need;
            a->used += need;
            return p;
        }
    }
    return mcp_arena_alloc_raw(a, n);
}

#endif
