/* defs_order.c: pydantic's core schemas, replayed to learn when each definition
 * is generated (see defs_order.h).
 *
 * A core schema is reduced to what decides the order: the definitions, each a
 * body holding, per field, the named types the field refers to (in pydantic's
 * order: items, values, arms), each a node that is either a reference to a
 * definition or the definition itself, inlined there.
 *
 * Building a schema for a root (pydantic's GenerateSchema) in a fresh "world":
 * a named type already defined in the world, or being built, is a reference; a
 * complete model brings its own cleaned schema, whose definitions join the world
 * (unpack_definitions); an enum is built anew at each use, a reference when it is
 * a field's whole type and inlined otherwise; any other type is built afresh,
 * joins the world and is referred to.
 *
 * Cleaning it (gather_schemas_for_cleaning): walking from the root, depth first,
 * every reference met is counted, and the definition behind its first one is
 * walked; a definition referred to once is inlined at that reference, the others
 * are kept, in the order first met.
 *
 * Generating JSON: the kept definitions in that order, then the root; an inlined
 * definition is generated where it stands, unless already generated, and counts
 * as generated once its fields are written. A field's sibling is dropped when the
 * field's type was generated before the field was written.
 *
 * A model is complete when every type it reaches (itself included) comes no later
 * in the file: pydantic builds it where it is defined. Its cleaned schema is built
 * once, in file order, and its bodies are frozen with the references of their
 * inlined parts listed (a tree of lists, empty parts left out), so that walking
 * a complete model again costs its references, not its size. Cleaning a schema
 * may inline a reference that lies in a complete model's shared schema (pydantic
 * mutates it in place), which a walk notices as it meets the reference.
 *
 * The cost follows pydantic's own: a complete model's schema holds every type it
 * keeps, so a chain of n models each of which refers to itself and to the one
 * before costs about n * n / 2 steps (and pointers). The replay runs only for a
 * file with a candidate sibling.
 */
#include "defs_order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ROOT UINT32_MAX

typedef struct body body;
typedef struct seq seq;

typedef struct node {
    uint32_t def;
    body *inlined; /* the definition, inlined here; NULL: a reference to it */
} node;

typedef struct node_list {
    node **v;
    size_t n, cap;
} node_list;

/* The references met walking a frozen body's inlined parts, in order. */
typedef struct seq_item {
    node *ref;      /* a reference, or */
    const seq *sub; /* the references of an inlined part */
} seq_item;

struct seq {
    seq_item *v;
    size_t n;
};

struct body {
    uint32_t def;       /* ROOT: the root object's fields */
    const ir_field *ir; /* the fields */
    node_list *fields;
    size_t nfields;
    uint8_t state;   /* 0 fresh, 1 being frozen, 2 frozen */
    const seq *refs; /* frozen: NULL when there are none */
};

typedef struct cache {
    node *root;
    body **kept;
    size_t nkept;
} cache;

/* What one schema's generation decided: per def with candidate fields (sorted),
 * and for the root object's fields, whether each field's type came first. */
typedef struct snapshot {
    uint32_t *defs;
    bool **before;
    size_t n;
    bool *root_before;
} snapshot;

typedef struct tool_replay {
    snapshot in, out;
} tool_replay;

/* A step of an iterative walk: through a body's fields and their nodes, or
 * through a list of references. */
typedef struct step {
    body *b;
    const seq *s;
    size_t i, j;
} step;

struct defs_order {
    mcp_arena *a;
    const ir_server *srv;
    size_t n;
    bool needed;
    bool oom;
    ir_refs **refs;     /* per def and field */
    ir_refs *root_refs; /* per field of the root being replayed */
    const ir_field *root_fields;
    size_t nroot;
    bool *complete;
    cache *caches;

    uint32_t world; /* stamps the per-world arrays */
    body **wdef;
    uint32_t *wdef_stamp;
    uint32_t *stack_stamp;
    uint32_t *seen_stamp;
    node **first;
    bool *many;
    uint32_t *order;
    size_t norder;
    body **fresh;
    size_t nfresh, cap_fresh;
    body **kept;
    size_t nkept, cap_kept;

    uint32_t gen; /* stamps a generation */
    uint32_t *gen_stamp;
    uint8_t *gen_state; /* 1 being generated, 2 generated */
    bool **before;      /* per def and field, of the current generation */
    uint32_t *before_stamp;
    bool *root_before;
    uint32_t *touched; /* the defs with candidates generated, in this generation */
    size_t ntouched;
    tool_replay *tools;

    step *steps;
    size_t nsteps, cap_steps;
};

/* ---------------------------------------------------------------- memory */

static bool grow(defs_order *o, void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 8;
    void *np = mcp_arena_realloc(o->a, *p, *cap * elem, nc * elem);
    if (!np) {
        o->oom = true;
        return false;
    }
    *p = np;
    *cap = nc;
    return true;
}

static void *alloc(defs_order *o, size_t n)
{
    void *p = mcp_arena_alloc(o->a, n ? n : 1);
    if (!p)
        o->oom = true;
    return p;
}

static node *new_node(defs_order *o, uint32_t def, body *inlined)
{
    node *nd = alloc(o, sizeof *nd);
    if (nd) {
        nd->def = def;
        nd->inlined = inlined;
    }
    return nd;
}

static body *new_body(defs_order *o, uint32_t def, size_t nfields)
{
    body *b = alloc(o, sizeof *b);
    if (!b)
        return NULL;
    b->def = def;
    b->ir = def == ROOT ? o->root_fields : o->srv->defs[def]->fields;
    b->nfields = nfields;
    b->fields = alloc(o, nfields * sizeof *b->fields);
    return b->fields ? b : NULL;
}

static void add_node(defs_order *o, node_list *l, node *nd)
{
    if (nd && grow(o, (void **)&l->v, &l->cap, l->n, sizeof *l->v))
        l->v[l->n++] = nd;
}

static bool push_step(defs_order *o, body *b, const seq *s)
{
    if (!grow(o, (void **)&o->steps, &o->cap_steps, o->nsteps, sizeof *o->steps))
        return false;
    o->steps[o->nsteps++] = (step){b, s, 0, 0};
    return true;
}

/* ---------------------------------------------------------------- the IR */

static const ir_def *def_at(const defs_order *o, uint32_t d) { return o->srv->defs[d]; }

static size_t nfields_of(const defs_order *o, uint32_t d) { return d == ROOT ? o->nroot : def_at(o, d)->nfields; }

static const ir_refs *refs_of(const defs_order *o, uint32_t d, size_t i)
{
    return d == ROOT ? &o->root_refs[i] : &o->refs[d][i];
}

/* The named types t refers to, in the order pydantic walks them. */
static void collect_refs(defs_order *o, const ir_type *t, ir_refs *out)
{
    if (!ir_append_refs(o->a, t, out))
        o->oom = true;
}

bool defs_order_extra_sibling(const ir_field *f, size_t k)
{
    if (!f->type || f->type->kind != IR_NAMED || !f->schema_extra || !f->type->def->schema_extra)
        return false;
    const mcp_json_member *m = &f->schema_extra->members[k];
    const mcp_json *own = mcp_json_get(f->type->def->schema_extra, m->key);
    return own && mcp_json_equal_py(own, m->value);
}

bool defs_order_is_candidate(const ir_field *f)
{
    if (!f->type || f->type->kind != IR_NAMED)
        return false;
    const ir_def *d = f->type->def;
    if ((f->explicit_title && strcmp(f->title, d->name) == 0) ||
        (f->description && d->description && strcmp(f->description, d->description) == 0))
        return true;
    for (size_t k = 0; f->schema_extra && k < f->schema_extra->n; k++)
        if (defs_order_extra_sibling(f, k))
            return true;
    return false;
}

static bool any_candidate(const ir_field *fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (defs_order_is_candidate(&fields[i]))
            return true;
    return false;
}

static bool server_needs_replay(const ir_server *srv)
{
    for (size_t i = 0; i < srv->ndefs; i++)
        if (any_candidate(srv->defs[i]->fields, srv->defs[i]->nfields))
            return true;
    for (size_t i = 0; i < srv->ntools; i++)
        if (any_candidate(srv->tools[i].params, srv->tools[i].nparams) ||
            (srv->tools[i].output == IR_OUTPUT_WRAPPED && any_candidate(&srv->tools[i].result, 1)))
            return true;
    return false;
}

/* ---------------------------------------------------------------- complete models */

/* complete[d]: d is a model and no type it reaches comes later in the file. The
 * latest type each strongly connected component reaches, the components taken
 * in the order they complete (those reached first). */
static bool mark_complete(defs_order *o)
{
    size_t n = o->n;
    ir_graph g;
    size_t *latest = alloc(o, n * sizeof *latest); /* per component */
    size_t *start = alloc(o, (n + 1) * sizeof *start), *by_comp = alloc(o, n * sizeof *by_comp);
    if (!latest || !start || !by_comp || !ir_graph_build(o->a, o->srv, &g))
        return false;
    for (size_t d = 0; d < n; d++)
        start[g.comp[d] + 1]++;
    for (size_t k = 0; k < g.ncomp; k++)
        start[k + 1] += start[k];
    for (size_t d = 0; d < n; d++)
        by_comp[start[g.comp[d]] + latest[g.comp[d]]++] = d; /* latest: a fill count, reset below */
    for (size_t k = 0; k < g.ncomp; k++) {
        latest[k] = 0;
        for (size_t m = start[k]; m < start[k + 1]; m++) {
            size_t d = by_comp[m];
            latest[k] = d > latest[k] ? d : latest[k];
            for (size_t e = 0; e < g.edges[d].n; e++) {
                size_t w = g.edges[d].items[e];
                if (g.comp[w] != k && latest[g.comp[w]] > latest[k])
                    latest[k] = latest[g.comp[w]];
            }
        }
    }
    for (size_t d = 0; d < n; d++)
        o->complete[d] = def_at(o, d)->kind == IR_DEF_MODEL && latest[g.comp[d]] <= d;
    return true;
}

/* ---------------------------------------------------------------- building */

static void new_world(defs_order *o)
{
    o->world++;
    o->nfresh = 0;
    o->nkept = 0;
    o->norder = 0;
}

static body *wdef(const defs_order *o, uint32_t d) { return o->wdef_stamp[d] == o->world ? o->wdef[d] : NULL; }

static void set_wdef(defs_order *o, uint32_t d, body *b)
{
    o->wdef[d] = b;
    o->wdef_stamp[d] = o->world;
}

/* The node for a use of named type r in a field (`whole`: the field's whole
 * type), or NULL when r must be built afresh. */
static node *use_of(defs_order *o, uint32_t r, bool whole)
{
    if (def_at(o, r)->kind == IR_DEF_ENUM) {
        body *b = new_body(o, r, 0);
        if (!whole)
            return new_node(o, r, b);
        if (b)
            set_wdef(o, r, b);
        return new_node(o, r, NULL);
    }
    if (wdef(o, r) || o->stack_stamp[r] == o->world)
        return new_node(o, r, NULL);
    if (!o->complete[r])
        return NULL;
    const cache *c = &o->caches[r];
    for (size_t k = 0; k < c->nkept; k++)
        set_wdef(o, c->kept[k]->def, c->kept[k]);
    if (!c->root->inlined)
        return c->root;
    set_wdef(o, r, c->root->inlined);
    return new_node(o, r, NULL);
}

/* Build the body of d (ROOT: the root's fields) afresh in the current world,
 * and what it needs; depth first with an explicit stack. */
static body *build(defs_order *o, uint32_t d)
{
    o->nsteps = 0;
    if (d != ROOT)
        o->stack_stamp[d] = o->world;
    if (!push_step(o, new_body(o, d, nfields_of(o, d)), NULL) || !o->steps[0].b)
        return NULL;
    while (o->nsteps && !o->oom) {
        step *s = &o->steps[o->nsteps - 1];
        body *b = s->b;
        if (s->i == b->nfields) {
            o->nsteps--;
            if (b->def != ROOT) {
                o->stack_stamp[b->def] = 0;
                set_wdef(o, b->def, b);
            }
            if (grow(o, (void **)&o->fresh, &o->cap_fresh, o->nfresh, sizeof *o->fresh))
                o->fresh[o->nfresh++] = b;
            if (!o->nsteps)
                return b;
            step *parent = &o->steps[o->nsteps - 1];
            add_node(o, &parent->b->fields[parent->i], new_node(o, b->def, NULL));
            continue;
        }
        const ir_refs *rl = refs_of(o, b->def, s->i);
        if (s->j == rl->n) {
            s->i++;
            s->j = 0;
            continue;
        }
        uint32_t r = (uint32_t)rl->items[s->j++];
        node *nd = use_of(o, r, b->ir[s->i].type->kind == IR_NAMED);
        if (nd) {
            add_node(o, &b->fields[s->i], nd);
        } else {
            o->stack_stamp[r] = o->world;
            push_step(o, new_body(o, r, nfields_of(o, r)), NULL);
            if (!o->steps[o->nsteps - 1].b)
                return NULL;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- cleaning */

static void walk_body(defs_order *o, body *b)
{
    if (b->state != 2)
        push_step(o, b, NULL);
    else if (b->refs)
        push_step(o, NULL, b->refs);
}

static void meet(defs_order *o, node *nd)
{
    if (nd->inlined) {
        walk_body(o, nd->inlined);
        return;
    }
    uint32_t r = nd->def;
    if (o->seen_stamp[r] == o->world) {
        o->many[r] = true;
        return;
    }
    o->seen_stamp[r] = o->world;
    o->first[r] = nd;
    o->many[r] = false;
    o->order[o->norder++] = r;
    body *b = wdef(o, r);
    if (b)
        walk_body(o, b);
}

/* Count the references from the root (a node, or the root object's body), then
 * inline the definitions met once and keep the others, in the order first met. */
static void clean(defs_order *o, node *root, body *root_body)
{
    o->nsteps = 0;
    if (root)
        meet(o, root);
    else
        walk_body(o, root_body);
    while (o->nsteps && !o->oom) {
        step *s = &o->steps[o->nsteps - 1];
        node *nd = NULL;
        if (s->s) {
            if (s->i == s->s->n) {
                o->nsteps--;
                continue;
            }
            const seq_item *it = &s->s->v[s->i++];
            if (it->sub) {
                push_step(o, NULL, it->sub);
                continue;
            }
            nd = it->ref;
        } else if (s->i == s->b->nfields) {
            o->nsteps--;
            continue;
        } else if (s->j == s->b->fields[s->i].n) {
            s->i++;
            s->j = 0;
            continue;
        } else {
            nd = s->b->fields[s->i].v[s->j++];
        }
        meet(o, nd);
    }
    for (size_t k = 0; k < o->norder; k++) {
        uint32_t r = o->order[k];
        if (!o->many[r])
            o->first[r]->inlined = wdef(o, r);
        else if (grow(o, (void **)&o->kept, &o->cap_kept, o->nkept, sizeof *o->kept))
            o->kept[o->nkept++] = wdef(o, r);
    }
}

/* A copy of the definitions the last cleaning kept (their count in *n). */
static body **kept_copy(defs_order *o, size_t *n)
{
    *n = o->nkept;
    body **v = alloc(o, o->nkept * sizeof *v);
    if (v && o->nkept)
        memcpy(v, o->kept, o->nkept * sizeof *v);
    return v;
}

/* The references of b's inlined parts (its inlined children frozen first). */
static const seq *refs_list(defs_order *o, const body *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nfields; i++)
        for (size_t j = 0; j < b->fields[i].n; j++) {
            const node *nd = b->fields[i].v[j];
            n += !nd->inlined || nd->inlined->refs;
        }
    if (!n)
        return NULL;
    seq *s = alloc(o, sizeof *s);
    seq_item *v = alloc(o, n * sizeof *v);
    if (!s || !v)
        return NULL;
    for (size_t i = 0; i < b->nfields; i++)
        for (size_t j = 0; j < b->fields[i].n; j++) {
            node *nd = b->fields[i].v[j];
            if (!nd->inlined)
                v[s->n++] = (seq_item){nd, NULL};
            else if (nd->inlined->refs)
                v[s->n++] = (seq_item){NULL, nd->inlined->refs};
        }
    s->v = v;
    if (s->n == 1 && v[0].sub)
        return v[0].sub; /* nothing of its own: its one part's list */
    return s;
}

/* Freeze the bodies built in this world, children first. */
static void freeze_world(defs_order *o)
{
    for (size_t f = 0; f < o->nfresh && !o->oom; f++) {
        if (o->fresh[f]->state)
            continue;
        o->nsteps = 0;
        o->fresh[f]->state = 1;
        push_step(o, o->fresh[f], NULL);
        while (o->nsteps && !o->oom) {
            step *s = &o->steps[o->nsteps - 1];
            body *b = s->b;
            if (s->i == b->nfields) {
                b->refs = refs_list(o, b);
                b->state = 2;
                o->nsteps--;
            } else if (s->j == b->fields[s->i].n) {
                s->i++;
                s->j = 0;
            } else {
                body *child = b->fields[s->i].v[s->j++]->inlined;
                if (child && !child->state) {
                    child->state = 1;
                    push_step(o, child, NULL);
                }
            }
        }
    }
}

/* Build and clean, in a fresh world, the core schema of named type d as a root
 * (pydantic's own for a model, or a TypeAdapter's); its root node. */
static node *build_def_world(defs_order *o, uint32_t d)
{
    new_world(o);
    build(o, d);
    node *root = new_node(o, d, NULL);
    if (root)
        clean(o, root, NULL);
    return root;
}

static bool build_caches(defs_order *o)
{
    for (uint32_t d = 0; d < o->n && !o->oom; d++) {
        if (!o->complete[d])
            continue;
        node *root = build_def_world(o, d);
        if (!root)
            break;
        freeze_world(o);
        cache *c = &o->caches[d];
        c->root = root;
        c->kept = kept_copy(o, &c->nkept);
    }
    return !o->oom;
}

/* ---------------------------------------------------------------- generating */

static uint8_t gen_state(const defs_order *o, uint32_t d)
{
    return d != ROOT && o->gen_stamp[d] == o->gen ? o->gen_state[d] : 0;
}

static void set_gen_state(defs_order *o, uint32_t d, uint8_t st)
{
    if (d == ROOT)
        return;
    o->gen_stamp[d] = o->gen;
    o->gen_state[d] = st;
}

/* Field i of b is written: for a candidate, whether its type was generated before. */
static void field_written(defs_order *o, const body *b, size_t i)
{
    const ir_field *f = &b->ir[i];
    if (!defs_order_is_candidate(f))
        return;
    bool before = gen_state(o, (uint32_t)f->type->def->index) == 2;
    if (b->def == ROOT) {
        o->root_before[i] = before;
        return;
    }
    if (o->before_stamp[b->def] != o->gen) {
        o->before[b->def] = alloc(o, b->nfields * sizeof **o->before);
        if (!o->before[b->def])
            return;
        o->before_stamp[b->def] = o->gen;
        o->touched[o->ntouched++] = b->def;
    }
    o->before[b->def][i] = before;
}

static void generate_body(defs_order *o, body *root)
{
    if (!root || gen_state(o, root->def))
        return;
    o->nsteps = 0;
    set_gen_state(o, root->def, 1);
    push_step(o, root, NULL);
    while (o->nsteps && !o->oom) {
        step *s = &o->steps[o->nsteps - 1];
        body *b = s->b;
        if (s->i == b->nfields) {
            set_gen_state(o, b->def, 2);
            o->nsteps--;
        } else if (s->j == b->fields[s->i].n) {
            field_written(o, b, s->i);
            s->i++;
            s->j = 0;
        } else {
            body *child = b->fields[s->i].v[s->j++]->inlined;
            if (child && !gen_state(o, child->def)) {
                set_gen_state(o, child->def, 1);
                push_step(o, child, NULL);
            }
        }
    }
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Generate a schema: the kept definitions, then the root (NULL: it is one of
 * them); what was decided goes into *snap. */
static void generate(defs_order *o, body *const *kept, size_t nkept, body *root, size_t nroot, snapshot *snap)
{
    o->gen++;
    o->ntouched = 0;
    o->root_before = alloc(o, nroot * sizeof *o->root_before);
    for (size_t k = 0; k < nkept; k++)
        generate_body(o, kept[k]);
    generate_body(o, root);
    snap->root_before = o->root_before;
    snap->n = o->ntouched;
    snap->defs = alloc(o, o->ntouched * sizeof *snap->defs);
    snap->before = alloc(o, o->ntouched * sizeof *snap->before);
    if (!snap->defs || !snap->before)
        return;
    memcpy(snap->defs, o->touched, o->ntouched * sizeof *snap->defs);
    qsort(snap->defs, snap->n, sizeof *snap->defs, cmp_u32);
    for (size_t k = 0; k < snap->n; k++)
        snap->before[k] = o->before[snap->defs[k]];
}

/* ---------------------------------------------------------------- the tools */

/* Build and clean the core schema of an object with these fields (the root of
 * a fresh world); *kept receives a copy of the definitions it keeps. */
static body *build_root(defs_order *o, const ir_field *fields, size_t n, body ***kept, size_t *nkept)
{
    o->root_fields = fields;
    o->nroot = n;
    o->root_refs = alloc(o, n * sizeof *o->root_refs);
    if (!o->root_refs)
        return NULL;
    for (size_t i = 0; i < n; i++)
        collect_refs(o, fields[i].type, &o->root_refs[i]);
    new_world(o);
    body *root = build(o, ROOT);
    if (!root)
        return NULL;
    clean(o, NULL, root);
    *kept = kept_copy(o, nkept);
    return root;
}

/* The output schema of a model or record returned as is: a complete model's
 * own schema, or one built for it (pydantic's TypeAdapter). */
static void replay_object_output(defs_order *o, const ir_def *def, snapshot *snap)
{
    uint32_t d = (uint32_t)def->index;
    if (o->complete[d]) {
        const cache *c = &o->caches[d];
        generate(o, c->kept, c->nkept, c->root->inlined, 0, snap);
        return;
    }
    node *root = build_def_world(o, d);
    if (root)
        generate(o, o->kept, o->nkept, root->inlined, 0, snap);
}

/* One tool, as the SDK registers it: the arguments model is built (and
 * cleaned), then the output model's schema generated, then the arguments'. */
static void replay_tool(defs_order *o, const ir_tool *t, tool_replay *r)
{
    body **args_kept = NULL, **out_kept = NULL;
    size_t nargs_kept = 0, nout_kept = 0;
    body *args = build_root(o, t->params, t->nparams, &args_kept, &nargs_kept);
    if (t->output == IR_OUTPUT_OBJECT) {
        replay_object_output(o, t->returns->def, &r->out);
    } else if (t->output != IR_OUTPUT_NONE) {
        body *out = build_root(o, &t->result, 1, &out_kept, &nout_kept);
        if (out)
            generate(o, out_kept, nout_kept, out, 1, &r->out);
    }
    if (args)
        generate(o, args_kept, nargs_kept, args, t->nparams, &r->in);
}

/* ---------------------------------------------------------------- the API */

defs_order *defs_order_new(mcp_arena *a, const ir_server *srv)
{
    defs_order *o = mcp_arena_alloc(a, sizeof *o);
    if (!o)
        return NULL;
    o->a = a;
    o->srv = srv;
    o->n = srv->ndefs;
    o->needed = server_needs_replay(srv);
    if (!o->needed)
        return o;
    size_t n = o->n;
    o->refs = alloc(o, n * sizeof *o->refs);
    o->complete = alloc(o, n * sizeof *o->complete);
    o->caches = alloc(o, n * sizeof *o->caches);
    o->wdef = alloc(o, n * sizeof *o->wdef);
    o->wdef_stamp = alloc(o, n * sizeof *o->wdef_stamp);
    o->stack_stamp = alloc(o, n * sizeof *o->stack_stamp);
    o->seen_stamp = alloc(o, n * sizeof *o->seen_stamp);
    o->first = alloc(o, n * sizeof *o->first);
    o->many = alloc(o, n * sizeof *o->many);
    o->order = alloc(o, n * sizeof *o->order);
    o->gen_stamp = alloc(o, n * sizeof *o->gen_stamp);
    o->gen_state = alloc(o, n * sizeof *o->gen_state);
    o->before = alloc(o, n * sizeof *o->before);
    o->before_stamp = alloc(o, n * sizeof *o->before_stamp);
    o->touched = alloc(o, n * sizeof *o->touched);
    o->tools = alloc(o, srv->ntools * sizeof *o->tools);
    if (o->oom)
        return NULL;
    for (size_t d = 0; d < n && !o->oom; d++) {
        const ir_def *def = srv->defs[d];
        o->refs[d] = alloc(o, def->nfields * sizeof **o->refs);
        for (size_t i = 0; o->refs[d] && i < def->nfields; i++)
            collect_refs(o, def->fields[i].type, &o->refs[d][i]);
    }
    if (o->oom || !mark_complete(o) || !build_caches(o))
        return NULL;
    for (size_t i = 0; i < srv->ntools && !o->oom; i++)
        replay_tool(o, &srv->tools[i], &o->tools[i]);
    return o->oom ? NULL : o;
}

static const bool *lookup(const snapshot *snap, uint32_t d)
{
    size_t lo = 0, hi = snap->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (snap->defs[mid] == d)
            return snap->before[mid];
        if (snap->defs[mid] < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool defs_order_generated_before(const defs_order *o, size_t tool, bool output, const ir_def *owner, size_t i)
{
    if (!o->needed || tool >= o->srv->ntools)
        return true;
    const snapshot *snap = output ? &o->tools[tool].out : &o->tools[tool].in;
    const bool *before = owner ? lookup(snap, (uint32_t)owner->index) : snap->root_before;
    return !before || before[i];
}
