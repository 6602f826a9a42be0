/* arena.c: a chain of blocks; allocation bumps a pointer. */
#include "internal/arena.h"

#include <stdarg.h>
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_FIRST_BLOCK = 4096, ARENA_MAX_BLOCK = 1 << 20 };
#define ARENA_ALIGN MCP_ARENA_ALIGN

void mcp_arena_init(mcp_arena *a)
{
    a->head = NULL;
    a->block_size = ARENA_FIRST_BLOCK;
    a->used = 0;
}

void mcp_arena_free(mcp_arena *a)
{
    mcp_arena_block *b = a->head;
    while (b) {
        mcp_arena_block *next = b->next;
        free(b);
        b = next;
    }
    mcp_arena_init(a);
}

void mcp_arena_reset(mcp_arena *a)
{
    /* Keep the largest block; free the rest. */
    mcp_arena_block *keep = NULL;
    for (mcp_arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        if (!keep || b->size > keep->size) {
            free(keep);
            keep = b;
        } else {
            free(b);
        }
    }
    if (keep) {
        keep->next = NULL;
        keep->used = 0;
    }
    a->head = keep;
    a->used = 0;
}

void *mcp_arena_alloc_raw(mcp_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t need = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
    mcp_arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        size_t size = a->block_size;
        while (size < need)
            size = size > SIZE_MAX / 2 ? need : size * 2;
        if (size > SIZE_MAX - sizeof(mcp_arena_block))
            return NULL;
        mcp_arena_block *nb = malloc(sizeof(mcp_arena_block) + size);
        if (!nb)
            return NULL;
        nb->size = size;
        nb->used = 0;
        /* A block bigger than the usual goes behind the current one, so the
         * current block's free space stays in use. */
        if (b && size > a->block_size && b->size - b->used >= ARENA_FIRST_BLOCK / 4) {
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            a->head = nb;
            if (a->block_size < ARENA_MAX_BLOCK)
                a->block_size *= 2;
        }
        b = nb;
    }
    void *p = (char *)b->data + b->used;
    /* malloc promises the alignment of max_align_t, not its size (16 and 32
     * bytes on x86-64): the blocks' data, and so p, are aligned to that. */
    assert(b->used + need <= b->size && ((uintptr_t)p & (_Alignof(max_align_t) - 1)) == 0);
    b->used += need;
    a->used += need;
    return p;
}

void *mcp_arena_alloc(mcp_arena *a, size_t n)
{
    void *p = mcp_arena_alloc_raw(a, n);
    if (p)
        memset(p, 0, n ? n : 1);
    return p;
}

char *mcp_arena_strndup(mcp_arena *a, const char *s, size_t n)
{
    char *p = mcp_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *mcp_arena_strdup(mcp_arena *a, const char *s) { return mcp_arena_strndup(a, s, strlen(s)); }

char *mcp_arena_printf(mcp_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = mcp_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void *mcp_arena_realloc(mcp_arena *a, void *old, size_t old_n, size_t new_n)
{
    if (new_n <= old_n && old)
        return old;
    void *p = mcp_arena_alloc(a, new_n);
    if (p && old && old_n)
        memcpy(p, old, old_n);
    return p;
}
