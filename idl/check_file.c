/* check_file.c: the checks of the whole file, run once every type and tool is
 * read (and also after errors, over what did resolve):
 *   - types that can never be finite: a value would need another of itself
 *     through required fields;
 *   - models and records that hold themselves by value, which a C struct cannot;
 *   - the types on a reference cycle, marked for the back ends;
 *   - C names that collide: two members of a struct, two tools, a tool's
 *     generated names and a type's, a type and the server table.
 * Each is linear or n log n in the size of the file, iterative (no recursion
 * on the depth of references).
 */
#include <string.h>

#include "check_int.h"

/* ---------------------------------------------------------------- finite types */

static bool type_finite(const ir_type *t, const bool *finite)
{
    switch (t->kind) {
    case IR_TUPLE:
        for (size_t i = 0; i < t->nitems; i++)
            if (!type_finite(t->items[i], finite))
                return false;
        return true;
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (type_finite(t->items[i], finite))
                return true;
        return false;
    case IR_NAMED:
        return finite[t->def->index];
    default:
        return true; /* scalars, and containers that may be empty */
    }
}

/* The first named type that keeps `t` from being finite (type_finite is false). */
static const ir_def *infinite_part(const ir_type *t, const bool *finite)
{
    switch (t->kind) {
    case IR_TUPLE:
    case IR_UNION:
        for (size_t i = 0; i < t->nitems; i++)
            if (!type_finite(t->items[i], finite))
                return infinite_part(t->items[i], finite);
        return NULL;
    case IR_NAMED:
        return finite[t->def->index] ? NULL : t->def;
    default:
        return NULL;
    }
}

/* A type that can never be finite: a model that requires itself with no list,
 * Optional or dict in between, or requires such a type. The finite types are
 * found from the bottom up with a work list: a type is looked at again only when
 * a type its required fields refer to turns out finite, and a cursor remembers
 * how many of its fields are known to be finite, so that no input (a chain of
 * 100,000 types in any order) makes this quadratic. */
void ck_check_finite(checker *c)
{
    size_t n = c->srv->ndefs;
    if (!n)
        return;
    bool *finite = mcp_arena_alloc(c->a, n * sizeof *finite);
    size_t *cursor = mcp_arena_alloc(c->a, n * sizeof *cursor);
    ir_refs *refs = mcp_arena_alloc(c->a, n * sizeof *refs);
    size_t *rev_start = mcp_arena_alloc(c->a, (n + 1) * sizeof *rev_start);
    if (!finite || !cursor || !refs || !rev_start)
        return;
    size_t nrefs = 0;
    for (size_t i = 0; i < n; i++) {
        const ir_def *def = c->srv->defs[i];
        for (size_t j = 0; j < def->nfields; j++)
            if (def->fields[j].required && !ir_append_refs(c->a, def->fields[j].type, &refs[i]))
                return; /* out of memory: no verdict, as above */
        nrefs += refs[i].n;
    }
    /* Who refers to whom, reversed: rev[rev_start[j] .. rev_start[j + 1]) refer to j. */
    size_t *rev = mcp_arena_alloc(c->a, (nrefs ? nrefs : 1) * sizeof *rev);
    size_t *queue = mcp_arena_alloc(c->a, (n + nrefs) * sizeof *queue);
    if (!rev || !queue)
        return;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < refs[i].n; k++)
            rev_start[refs[i].items[k] + 1]++;
    for (size_t j = 0; j < n; j++)
        rev_start[j + 1] += rev_start[j];
    size_t *fill = cursor; /* borrowed, zeroed again below */
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < refs[i].n; k++) {
            size_t j = refs[i].items[k];
            rev[rev_start[j] + fill[j]++] = i;
        }
    memset(cursor, 0, n * sizeof *cursor);

    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        queue[tail++] = i;
    while (head < tail) {
        size_t i = queue[head++];
        if (finite[i])
            continue;
        const ir_def *def = c->srv->defs[i];
        while (cursor[i] < def->nfields &&
               (!def->fields[cursor[i]].required || type_finite(def->fields[cursor[i]].type, finite)))
            cursor[i]++;
        if (cursor[i] < def->nfields)
            continue;
        finite[i] = true;
        for (size_t k = rev_start[i]; k < rev_start[i + 1]; k++)
            if (!finite[rev[k]] && tail < n + nrefs)
                queue[tail++] = rev[k];
    }

    /* Each type that is not finite waits for one other (next); those on a loop of
     * waiting are the cause, the others wait for a type that is never finite. */
    size_t *next = queue;                      /* reused */
    uint8_t *state = mcp_arena_alloc(c->a, n); /* 0 unseen, 1 on the current walk, 2 done, 3 on a loop */
    if (!state)
        return;
    for (size_t i = 0; i < n; i++) {
        next[i] = i;
        if (!finite[i]) {
            const ir_field *f = &c->srv->defs[i]->fields[cursor[i]];
            const ir_def *d = infinite_part(f->type, finite);
            next[i] = d ? d->index : i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (finite[i] || state[i])
            continue;
        size_t v = i;
        while (!finite[v] && state[v] == 0) {
            state[v] = 1;
            v = next[v];
        }
        if (!finite[v] && state[v] == 1) /* a new loop through v */
            for (size_t w = v; state[w] != 3; w = next[w])
                state[w] = 3;
        for (size_t w = i; !finite[w] && state[w] == 1; w = next[w])
            state[w] = 2;
    }
    c->never_finite_at = mcp_arena_alloc(c->a, n * sizeof *c->never_finite_at);
    for (size_t i = 0; i < n; i++) {
        if (finite[i])
            continue;
        const ir_def *def = c->srv->defs[i];
        const ir_field *f = &def->fields[cursor[i]];
        const ir_def *d = c->srv->defs[next[i]];
        if (c->never_finite_at)
            c->never_finite_at[i] = f;
        if (d == def)
            ERR(c, f->loc,
                "type '%s' can never be finite: its required field '%s' needs another '%s'; make the field "
                "Optional, a list or a dict",
                def->name, f->name, def->name);
        else if (state[i] == 3)
            ERR(c, f->loc,
                "type '%s' can never be finite: its required field '%s' needs type '%s', which needs another '%s' "
                "(through required fields); make the field Optional, a list or a dict",
                def->name, f->name, d->name, def->name);
        else
            ERR(c, f->loc,
                "type '%s' can never be finite: its required field '%s' needs type '%s', which can never be finite",
                def->name, f->name, d->name);
    }
}

/* ---------------------------------------------------------------- cycles */

/* A model or record whose fields hold itself by value, directly or through
 * other types' fields (`next: {type: Node, default: ...}`). pydantic accepts
 * it, using a default as written; here defaults are filled in at every level
 * (and a C struct cannot contain itself), so every value would hold another
 * without end. Optional[...], lists, dicts, unions and tuples may end the
 * recursion, so only plain named-type fields count. Iterative depth-first
 * search. */
void ck_check_by_value_cycles(checker *c)
{
    size_t n = c->srv->ndefs;
    if (!n)
        return;
    unsigned char *state = mcp_arena_alloc(c->a, n); /* 0 new, 1 on the path, 2 done */
    size_t *stack = mcp_arena_alloc(c->a, n * sizeof *stack);
    size_t *next = mcp_arena_alloc(c->a, n * sizeof *next);
    if (!state || !stack || !next)
        return;
    for (size_t root = 0; root < n; root++) {
        if (state[root])
            continue;
        size_t sp = 0;
        stack[sp++] = root;
        state[root] = 1;
        while (sp) {
            const ir_def *d = c->srv->defs[stack[sp - 1]];
            size_t *k = &next[d->index];
            if (*k < d->nfields) {
                const ir_field *f = &d->fields[(*k)++];
                if (f->type->kind != IR_NAMED || f->type->def->kind == IR_DEF_ENUM)
                    continue;
                size_t w = f->type->def->index;
                if (state[w] == 1) {
                    /* Not again for the field already said to be never finite. */
                    if (c->never_finite_at && c->never_finite_at[d->index] == f)
                        continue;
                    const char *held = f->type->def->name;
                    if (w == d->index)
                        ERR(c, f->loc,
                            "'%s' holds a '%s' inside a '%s' by value: with defaults filled in, every '%s' would "
                            "hold another without end; make the field Optional[%s] with default null (or a list)",
                            f->name, held, d->name, d->name, held);
                    else
                        ERR(c, f->loc,
                            "'%s' holds a '%s' inside a '%s' by value, and a '%s' holds a '%s' in turn: with "
                            "defaults filled in, every '%s' would hold another without end; make the field "
                            "Optional[%s] with default null (or a list)",
                            f->name, held, d->name, held, d->name, d->name, held);
                } else if (state[w] == 0) {
                    state[w] = 1;
                    stack[sp++] = w;
                }
                continue;
            }
            state[stack[--sp]] = 2;
        }
    }
}

/* Mark the types that lie on a reference cycle: a component of several types,
 * or a type that refers to itself. */
void ck_mark_cycles(checker *c)
{
    size_t n = c->srv->ndefs;
    ir_graph g;
    size_t *size = mcp_arena_alloc(c->a, (n ? n : 1) * sizeof *size);
    if (!n || !size || !ir_graph_build(c->a, c->srv, &g))
        return;
    for (size_t i = 0; i < n; i++)
        size[g.comp[i]]++;
    for (size_t i = 0; i < n; i++) {
        bool self = false;
        for (size_t k = 0; k < g.edges[i].n && !self; k++)
            self = g.edges[i].items[k] == i;
        if (self || size[g.comp[i]] > 1)
            c->srv->defs[i]->on_cycle = true;
    }
}

/* ---------------------------------------------------------------- C names */

/* Two members of one C struct may not share a name; nor may a member and the
 * presence flag generated for an optional record key (has_NAME). */
static void check_member_names(checker *c, const ir_field *fields, size_t n, bool record, const char *owner)
{
    if (n < 2)
        return;
    size_t m;
    ck_name_ix *v = ck_sorted_names(c, &fields[0].c_name, sizeof *fields, n, &m);
    if (!v)
        return;
    for (size_t g = 0, e; g < m; g = e) {
        e = ck_name_ix_run_end(v, m, g);
        for (size_t k = g + 1; k < e; k++)
            ERR(c, fields[v[k].ix].loc, "fields '%s' and '%s' of %s have the same C name '%s'; give one a 'c_name'",
                fields[v[g].ix].name, fields[v[k].ix].name, owner, v[k].name);
    }
    if (!record)
        return;
    for (size_t i = 0; i < n; i++) {
        if (fields[i].required || !fields[i].c_name)
            continue;
        const char *flag = idl_fmt(c->a, "has_%s", fields[i].c_name);
        if (!flag)
            return;
        for (size_t k = ck_name_ix_lower(v, m, flag); k < m && strcmp(v[k].name, flag) == 0; k++)
            ERR(c, fields[v[k].ix].loc,
                "field '%s' of %s has the C name '%s', which is the presence flag of the optional key '%s'; "
                "give it a 'c_name'",
                fields[v[k].ix].name, owner, flag, fields[i].name);
    }
}

void ck_check_c_names(checker *c)
{
    ir_server *s = c->srv;
    for (size_t i = 0; i < s->ndefs; i++) {
        const ir_def *def = s->defs[i];
        char what[300];
        idl_snprintf(what, sizeof what, "%s '%s'", ck_def_kind_word(def), def->name);
        check_member_names(c, def->fields, def->nfields, def->kind == IR_DEF_RECORD, what);
    }
    for (size_t i = 0; i < s->ntools; i++) {
        const ir_tool *t = &s->tools[i];
        char what[300];
        idl_snprintf(what, sizeof what, "tool '%s'", t->name);
        check_member_names(c, t->params, t->nparams, false, what);
        if (!t->c_name)
            continue;
        /* The tool's generated names must not be a type's. */
        const char *args = idl_fmt(c->a, "%s_args", t->c_name);
        const ir_def *clash[2] = {ck_find_def(c, t->c_name), args ? ck_find_def(c, args) : NULL};
        for (size_t j = 0; j < 2; j++)
            if (clash[j] && strcmp(s->files[clash[j]->loc.file].c_prefix, s->c_prefix) == 0)
                ERR(c, clash[j]->loc,
                    "type '%s' has the same C name as a name generated for tool '%s' (%s_%s); rename the type "
                    "or give the tool a 'c_name'",
                    clash[j]->name, t->name, s->c_prefix, clash[j]->name);
    }
    if (s->ntools > 1) {
        size_t m;
        ck_name_ix *v = ck_sorted_names(c, &s->tools[0].c_name, sizeof *s->tools, s->ntools, &m);
        for (size_t g = 0, e; v && g < m; g = e) {
            e = ck_name_ix_run_end(v, m, g);
            for (size_t k = g + 1; k < e; k++)
                ERR(c, s->tools[v[k].ix].loc, "tools '%s' and '%s' have the same C name '%s'; give one a 'c_name'",
                    s->tools[v[g].ix].name, s->tools[v[k].ix].name, v[k].name);
        }
    }
    const ir_def *server = ck_find_def(c, "server");
    if (server && !s->library && strcmp(s->files[server->loc.file].c_prefix, s->c_prefix) == 0)
        ERR(c, server->loc, "type 'server' has the same C name as the server table (%s_server); rename it",
            s->c_prefix);
}
