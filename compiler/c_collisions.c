/* c_collisions.c: every name the generated files define at file scope, each
 * with the declaration (or the structure) it comes from; two origins that
 * share a name are an error at one of them, with a note at the other
 * (c_names.h, c_check_names). */
#include <stdlib.h>
#include <string.h>

#include "c_names.h"

/* Where a group of names comes from: a declaration, or a structure the
 * file uses. Its description for messages is made only when one is needed. */
typedef enum c_origin_kind {
    ORIGIN_SERVER,
    ORIGIN_TYPE,      /* of: ir_def */
    ORIGIN_TOOL,      /* ir_tool */
    ORIGIN_RESOURCE,  /* ir_resource */
    ORIGIN_TEMPLATE,  /* ir_template */
    ORIGIN_PROMPT,    /* ir_prompt */
    ORIGIN_FORM,      /* ir_elicitation */
    ORIGIN_LITERAL,   /* c_struct */
    ORIGIN_COMPOSITE, /* c_struct */
    ORIGIN_DESC,      /* c_desc: of a scalar, of a model by pointer */
    ORIGIN_FIELD,     /* c_desc: holds the constraints of a field */
} c_origin_kind;

typedef struct c_origin {
    c_origin_kind kind;
    const void *of;
    idl_loc loc;
} c_origin;

static const c_origin *origin(c_names *n, c_origin_kind kind, const void *of, idl_loc loc)
{
    c_origin *o = mcp_arena_alloc(n->a, sizeof *o);
    if (!o) {
        n->oom = true;
        return NULL;
    }
    *o = (c_origin){kind, of, loc};
    return o;
}

/* The origin as a message names it ("type 'Reading'"); *hint says how to give
 * it another name, or is NULL. */
static const char *describe(c_names *n, const c_origin *o, const char **hint)
{
    const c_struct *s = o->of;
    const c_desc *d = o->of;
    *hint = "give it a 'c_name'";
    switch (o->kind) {
    case ORIGIN_SERVER:
        *hint = NULL;
        return "the server table";
    case ORIGIN_TYPE:
        *hint = "rename the type";
        return c_fmt(n, "type '%s'", ((const ir_def *)o->of)->name);
    case ORIGIN_TOOL:
        *hint = "give the tool a 'c_name'";
        return c_fmt(n, "tool '%s'", ((const ir_tool *)o->of)->name);
    case ORIGIN_RESOURCE:
        return c_fmt(n, "resource '%s'", ((const ir_resource *)o->of)->name);
    case ORIGIN_TEMPLATE:
        return c_fmt(n, "resource template '%s'", ((const ir_template *)o->of)->name);
    case ORIGIN_PROMPT:
        return c_fmt(n, "prompt '%s'", ((const ir_prompt *)o->of)->name);
    case ORIGIN_FORM:
        return c_fmt(n, "elicitation '%s'", ((const ir_elicitation *)o->of)->name);
    case ORIGIN_LITERAL:
        *hint = "name it with a 'c_type'";
        return c_fmt(n, "the %s", c_type_text(n, s->t, s->h, false));
    case ORIGIN_COMPOSITE:
        *hint = NULL;
        return c_fmt(n, "the C type of %s", c_type_text(n, s->t, s->h, false));
    case ORIGIN_DESC:
        *hint = NULL;
        return c_fmt(n, "the descriptor of %s", c_type_text(n, d->t, d->h, false));
    case ORIGIN_FIELD:
        *hint = "give the field a 'c_name'";
        return d->what;
    }
    return "";
}

/* The names seen so far, each with its origin, and the pairs of origins that
 * share one (each pair once). */
typedef struct c_registry {
    c_table *names;
    const c_origin **pairs; /* flat: two per collision */
    const char **shared;    /* the name of each */
    size_t npairs;
} c_registry;

static void name_add(c_names *n, c_registry *r, const c_origin *o, const char *name)
{
    if (!o || !name || n->oom)
        return;
    const c_origin *first = c_table_get_or_put(n, r->names, name, (void *)o);
    if (!first || first == o)
        return;
    for (size_t k = 0; k < r->npairs; k++)
        if ((r->pairs[2 * k] == first && r->pairs[2 * k + 1] == o) ||
            (r->pairs[2 * k] == o && r->pairs[2 * k + 1] == first))
            return;
    const c_origin **pairs = mcp_arena_realloc(n->a, r->pairs, 2 * r->npairs * sizeof *pairs,
                                               2 * (r->npairs + 1) * sizeof *pairs);
    const char **shared = mcp_arena_realloc(n->a, r->shared, r->npairs * sizeof *shared,
                                            (r->npairs + 1) * sizeof *shared);
    if (!pairs || !shared) {
        n->oom = true;
        return;
    }
    r->pairs = pairs;
    r->shared = shared;
    r->pairs[2 * r->npairs] = first;
    r->pairs[2 * r->npairs + 1] = o;
    r->shared[r->npairs++] = name;
}

/* The names a descriptor defines: itself and its parts. */
static void desc_names(c_names *n, c_registry *r, const c_origin *o, const c_desc *d)
{
    if (!d)
        return;
    name_add(n, r, o, d->name);
    const ir_type *t = d->t;
    if (d->object && d->nfields)
        name_add(n, r, o, c_fmt(n, "%s_fields", d->name));
    if (d->object || d->ptr)
        return;
    if (t->kind == IR_LITERAL || t->kind == IR_NAMED)
        name_add(n, r, o, c_fmt(n, "%s_values", d->name));
    if (d->items) {
        name_add(n, r, o, c_fmt(n, "%s_items", d->name));
        name_add(n, r, o, c_fmt(n, "%s_offsets", d->name));
    }
    if (c_has_constraints(t->c))
        name_add(n, r, o, c_fmt(n, "%s_c", d->name));
    if (t->c->pattern)
        name_add(n, r, o, c_fmt(n, "%s_pattern", d->name));
}

/* The names of an enum (named or Literal): the type, its constants, its
 * count and its name function. */
static void enum_names(c_names *n, c_registry *r, const c_origin *o, const c_struct *s, size_t count)
{
    name_add(n, r, o, s->name);
    for (size_t i = 0; s->consts && i < count; i++)
        name_add(n, r, o, s->consts[i]);
    name_add(n, r, o, c_fmt(n, C_NAME_COUNT, s->name));
    name_add(n, r, o, c_fmt(n, C_NAME_ENUM_NAME, s->name));
}

static void completion_names(c_names *n, c_registry *r, const c_origin *o, const char *owner, const ir_completion *k,
                             size_t nk)
{
    for (size_t i = 0; i < nk; i++) {
        if (k[i].handler)
            name_add(n, r, o, c_fmt(n, C_NAME_COMPLETE, n->prefix, owner, k[i].c_name));
        else if (k[i].nvalues)
            name_add(n, r, o, c_fmt(n, C_NAME_COMPLETE_VALUES, n->prefix, owner, k[i].c_name));
    }
}

/* Every name the generated files define at file scope, each with where it
 * comes from. */
static void collect_names(c_names *n, c_registry *r)
{
    const ir_server *srv = n->srv;
    const char *p = n->prefix;
    const c_origin *server = origin(n, ORIGIN_SERVER, NULL, (idl_loc){0, 0, 0});
    if (!srv->library)
        name_add(n, r, server, c_fmt(n, C_NAME_SERVER, p));
    static const char *const TABLES[] = {"tools", "resources", "templates", "prompts"};
    const size_t counts[] = {srv->ntools, srv->nresources, srv->ntemplates, srv->nprompts};
    for (size_t i = 0; i < 4; i++)
        if (counts[i])
            name_add(n, r, server, c_fmt(n, C_NAME_TABLE, p, TABLES[i]));
    /* Every C type: a named type's names, a composite's, a Literal's. A
     * structure's descriptor comes from the same place as its C type. */
    const c_origin **of_struct = mcp_arena_alloc(n->a, (n->nstructs ? n->nstructs : 1) * sizeof *of_struct);
    if (!of_struct) {
        n->oom = true;
        return;
    }
    for (size_t i = 0; i < n->nstructs; i++) {
        const c_struct *s = n->structs[i];
        of_struct[i] = NULL;
        if (s->def) {
            const c_origin *o = origin(n, ORIGIN_TYPE, s->def, s->def->loc);
            if (s->def->kind == IR_DEF_ENUM) {
                enum_names(n, r, o, s, s->def->nvalues);
            } else {
                name_add(n, r, o, s->name);
                name_add(n, r, o, c_fmt(n, C_NAME_INIT_ZERO, s->name));
                name_add(n, r, o, c_fmt(n, C_NAME_INIT_DEFAULT, s->name));
            }
            name_add(n, r, o, c_fmt(n, C_NAME_FROM_JSON, s->name));
            name_add(n, r, o, c_fmt(n, C_NAME_TO_JSON, s->name));
            of_struct[i] = o;
        } else if (s->t && s->t->kind == IR_LITERAL) {
            const c_origin *o = origin(n, ORIGIN_LITERAL, s, s->t->loc);
            enum_names(n, r, o, s, s->t->nvalues);
            of_struct[i] = o;
        } else if (s->t) {
            const c_origin *o = origin(n, ORIGIN_COMPOSITE, s, s->t->loc);
            name_add(n, r, o, s->name);
            if (s->t->kind == IR_DICT)
                name_add(n, r, o, c_fmt(n, "%s_item", s->name));
            for (size_t j = 0; s->arms && j < s->t->nitems; j++)
                name_add(n, r, o, c_fmt(n, "%s_%s", s->name, s->arms[j]));
            of_struct[i] = o;
        }
    }
    /* Descriptors: a named type's and a tool's come with them below. */
    for (size_t i = 0; i < n->ndescs; i++) {
        const c_desc *d = n->descs[i];
        if (!d->t || (d->t->kind == IR_NAMED && !d->ptr))
            continue;
        const c_struct *s = d->site || d->ptr ? NULL : c_struct_of(n, d->t, d->h);
        const c_origin *o = d->what                    ? origin(n, ORIGIN_FIELD, d, d->loc)
                            : s && of_struct[s->index] ? of_struct[s->index]
                                                       : origin(n, ORIGIN_DESC, d, d->t->loc);
        desc_names(n, r, o, d);
    }
    for (size_t i = 0; i < srv->ndefs; i++) /* the named types are the first structs */
        desc_names(n, r, of_struct[i], c_table_get(n->desc_keys, srv->defs[i]->name));
    for (size_t i = 0; i < srv->ntools; i++) {
        const ir_tool *t = &srv->tools[i];
        const c_origin *o = origin(n, ORIGIN_TOOL, t, t->loc);
        const char *args = c_fmt(n, C_NAME_ARGS, p, t->c_name);
        name_add(n, r, o, c_fmt(n, C_NAME_HANDLER, p, t->c_name));
        name_add(n, r, o, args);
        name_add(n, r, o, c_fmt(n, C_NAME_INIT_ZERO, args));
        name_add(n, r, o, c_fmt(n, C_NAME_INIT_DEFAULT, args));
        name_add(n, r, o, c_fmt(n, C_NAME_THUNK, p, t->c_name));
        desc_names(n, r, o, c_table_get(n->desc_keys, c_fmt(n, "args:%s", t->name)));
    }
    for (size_t i = 0; i < srv->nresources; i++) {
        const ir_resource *res = &srv->resources[i];
        if (!c_resource_has_reader(res))
            continue;
        const c_origin *o = origin(n, ORIGIN_RESOURCE, res, res->loc);
        name_add(n, r, o, c_fmt(n, C_NAME_READER, p, res->c_name));
        name_add(n, r, o, c_fmt(n, C_NAME_READER_THUNK, p, res->c_name));
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const ir_template *t = &srv->templates[i];
        const c_origin *o = origin(n, ORIGIN_TEMPLATE, t, t->loc);
        name_add(n, r, o, c_fmt(n, C_NAME_VARS, p, t->c_name));
        name_add(n, r, o, c_fmt(n, C_NAME_READER, p, t->c_name));
        name_add(n, r, o, c_fmt(n, C_NAME_READER_THUNK, p, t->c_name));
        if (t->ncomplete)
            name_add(n, r, o, c_fmt(n, C_NAME_READER_COMPLETERS, p, t->c_name));
        completion_names(n, r, o, t->c_name, t->complete, t->ncomplete);
    }
    for (size_t i = 0; i < srv->nprompts; i++) {
        const ir_prompt *pr = &srv->prompts[i];
        const c_origin *o = origin(n, ORIGIN_PROMPT, pr, pr->loc);
        name_add(n, r, o, c_fmt(n, C_NAME_PROMPT, p, pr->c_name));
        name_add(n, r, o, c_fmt(n, C_NAME_PROMPT_THUNK, p, pr->c_name));
        if (pr->nargs) {
            name_add(n, r, o, c_fmt(n, C_NAME_PROMPT_ARGS, p, pr->c_name));
            name_add(n, r, o, c_fmt(n, C_NAME_PROMPT_ARGUMENTS, p, pr->c_name));
        }
        if (pr->ncomplete)
            name_add(n, r, o, c_fmt(n, C_NAME_PROMPT_COMPLETERS, p, pr->c_name));
        completion_names(n, r, o, pr->c_name, pr->complete, pr->ncomplete);
    }
    for (size_t i = 0; i < srv->nelicitations; i++) {
        const ir_elicitation *e = &srv->elicitations[i];
        const c_origin *o = origin(n, ORIGIN_FORM, e, e->loc);
        const char *form = c_fmt(n, C_NAME_FORM, p, e->c_name);
        name_add(n, r, o, form);
        name_add(n, r, o, c_fmt(n, C_NAME_INIT_ZERO, form));
        name_add(n, r, o, c_fmt(n, C_NAME_INIT_DEFAULT, form));
        name_add(n, r, o, c_fmt(n, C_NAME_ELICITATION, p, e->c_name));
        name_add(n, r, o, c_fmt(n, C_NAME_ELICIT, p, e->c_name));
        desc_names(n, r, o, c_table_get(n->desc_keys, c_fmt(n, "form:%s", e->name)));
    }
}

static bool loc_before(idl_loc a, idl_loc b) { return a.line < b.line || (a.line == b.line && a.col < b.col); }

/* Report each pair of origins that share a name: the error where a rename
 * helps (the later of two such places), a note at the other. */
static void report_collisions(c_names *n, const c_registry *r, idl_diags *d)
{
    for (size_t k = 0; k < r->npairs; k++) {
        const c_origin *o[2] = {r->pairs[2 * k], r->pairs[2 * k + 1]};
        const char *hint[2], *what[2];
        what[0] = describe(n, o[0], &hint[0]);
        what[1] = describe(n, o[1], &hint[1]);
        /* e: where the error goes; the note goes to the other */
        int e = (!hint[0] && hint[1]) || (hint[0] && hint[1] && loc_before(o[0]->loc, o[1]->loc));
        if (hint[e])
            idl_error(d, o[e]->loc, "%s and %s have the same C name '%s'; %s", what[e], what[!e], r->shared[k],
                      hint[e]);
        else
            idl_error(d, o[e]->loc, "%s and %s have the same C name '%s'", what[e], what[!e], r->shared[k]);
        if (o[!e]->loc.line)
            idl_note(d, o[!e]->loc, "%s is here", what[!e]);
    }
}

size_t c_declarations(const ir_server *srv)
{
    return srv->ndefs + srv->ntools + srv->nelicitations + srv->nresources + srv->ntemplates + srv->nprompts;
}

bool c_check_names(c_names *n, idl_diags *d, size_t *collisions)
{
    /* The names, their origins and the messages are built in an arena of
     * their own, released once the collisions are reported (the diagnostics
     * copy their text): the outputs need none of them. */
    mcp_arena *model = n->a, names;
    mcp_arena_init(&names);
    n->a = &names;
    c_registry r = {.names = c_table_new(n, 12 * c_declarations(n->srv))};
    if (collisions)
        *collisions = 0;
    if (r.names) {
        collect_names(n, &r);
        if (d && !n->oom)
            report_collisions(n, &r, d);
        if (collisions)
            *collisions = r.npairs;
    }
    n->a = model;
    mcp_arena_free(&names);
    return r.names && !n->oom;
}
