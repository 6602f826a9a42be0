/* ir_refs.c: the named types a type expression refers to. */
#include "ir.h"

static bool append(mcp_arena *a, ir_refs *r, size_t index)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        size_t *items = mcp_arena_realloc(a, r->items, r->cap * sizeof *items, cap * sizeof *items);
        if (!items)
            return false;
        r->items = items;
        r->cap = cap;
    }
    r->items[r->n++] = index;
    return true;
}

bool ir_append_refs(mcp_arena *a, const ir_type *t, ir_refs *r)
{
    switch (t->kind) {
    case IR_LIST:
    case IR_SET:
    case IR_DICT:
        return ir_append_refs(a, t->elem, r);
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (!ir_append_refs(a, t->items[i], r))
                return false;
        return true;
    case IR_NAMED:
        return append(a, r, t->def->index);
    default:
        return true;
    }
}

/* Tarjan's algorithm with explicit stacks: a chain of thousands of types needs
 * no deep C stack. */
bool ir_graph_build(mcp_arena *a, const ir_server *srv, ir_graph *g)
{
    size_t n = srv->ndefs;
    g->ncomp = 0;
    g->edges = mcp_arena_alloc(a, (n ? n : 1) * sizeof *g->edges);
    g->comp = mcp_arena_alloc(a, (n ? n : 1) * sizeof *g->comp);
    size_t *index = mcp_arena_alloc(a, (n ? n : 1) * sizeof *index); /* 0: unvisited, else order + 1 */
    size_t *low = mcp_arena_alloc(a, (n ? n : 1) * sizeof *low);
    bool *on_stack = mcp_arena_alloc(a, (n ? n : 1) * sizeof *on_stack);
    size_t *stack = mcp_arena_alloc(a, (n ? n : 1) * sizeof *stack);
    size_t *call = mcp_arena_alloc(a, (n ? n : 1) * sizeof *call); /* the depth-first path */
    size_t *next_edge = mcp_arena_alloc(a, (n ? n : 1) * sizeof *next_edge);
    if (!g->edges || !g->comp || !index || !low || !on_stack || !stack || !call || !next_edge)
        return false;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < srv->defs[i]->nfields; j++)
            if (!ir_append_refs(a, srv->defs[i]->fields[j].type, &g->edges[i]))
                return false;
    size_t counter = 0, sp = 0;
    for (size_t root = 0; root < n; root++) {
        if (index[root])
            continue;
        size_t depth = 0;
        call[depth++] = root;
        index[root] = low[root] = ++counter;
        stack[sp++] = root;
        on_stack[root] = true;
        while (depth) {
            size_t v = call[depth - 1];
            if (next_edge[v] < g->edges[v].n) {
                size_t w = g->edges[v].items[next_edge[v]++];
                if (!index[w]) {
                    index[w] = low[w] = ++counter;
                    stack[sp++] = w;
                    on_stack[w] = true;
                    call[depth++] = w;
                } else if (on_stack[w] && index[w] < low[v]) {
                    low[v] = index[w];
                }
                continue;
            }
            depth--;
            if (depth && low[v] < low[call[depth - 1]])
                low[call[depth - 1]] = low[v];
            if (low[v] != index[v])
                continue;
            size_t w;
            do {
                w = stack[--sp];
                on_stack[w] = false;
                g->comp[w] = g->ncomp;
            } while (w != v);
            g->ncomp++;
        }
    }
    return true;
}
