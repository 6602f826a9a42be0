/* diff.c: the changes between two versions of a contract (diff.h).
 *
 * One walk over both IRs side by side. Every change found is judged by two
 * facts about the values at its place: whether NEW lost some that OLD allowed,
 * and whether it gained some that OLD did not. Where those values flow (into
 * the server: input; out of it: output) turns them into "breaks clients" and
 * "breaks servers", and gives the change its kind. Where a direct comparison
 * cannot say (two different types), a subset test on the types decides.
 */
#include "diff_int.h"
#include "fmt.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const KIND_NAMES[NKINDS] = {
    "removed",       "added",           "required",        "input-removed",   "input-narrowed",
    "input-values",  "input-widened",   "output-removed",  "output-optional", "output-widened",
    "output-values", "output-narrowed", "default-changed", "description",     "type-renamed",
};

bool diff_kind_known(const char *k)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (strcmp(KIND_NAMES[i], k) == 0)
            return true;
    return false;
}

const char *diff_kind_list(void)
{
    return "removed, added, required, input-removed, input-narrowed, input-values, input-widened, output-removed, "
           "output-optional, output-widened, output-values, output-narrowed, default-changed, description, "
           "type-renamed";
}

/* ---------------------------------------------------------------- reporting */

static bool allowed(const differ *d, kind k)
{
    for (size_t i = 0; i < d->opt->nallow; i++)
        if (strcmp(d->opt->allow[i], KIND_NAMES[k]) == 0)
            return true;
    return false;
}

static void push(differ *d, entry e)
{
    if (d->oom)
        return;
    if (d->len == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        entry *items = mcp_arena_realloc(d->a, d->items, d->cap * sizeof *items, cap * sizeof *items);
        if (!items) {
            d->oom = true;
            return;
        }
        d->items = items;
        d->cap = cap;
    }
    e.seq = d->len;
    d->items[d->len++] = e;
}

static char *vformat(differ *d, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = n < 0 ? NULL : mcp_arena_alloc(d->a, (size_t)n + 1);
    if (!s) {
        d->oom = true;
        return NULL;
    }
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

/* A change at `loc` of NEW: "SUBJECT: WHAT; EFFECT [KIND]". `client` and
 * `server`: whether it breaks clients, servers. */
void dx_report(differ *d, idl_loc loc, kind k, bool client, bool server, const char *subject, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = vformat(d, fmt, ap);
    va_end(ap);
    if (!what)
        return;
    bool ok = (client || server) && allowed(d, k);
    const char *effect = client && server ? "breaks clients and servers"
                         : client         ? "breaks clients"
                         : server         ? "breaks servers"
                                          : "compatible";
    idl_severity sev = ok       ? IDL_NOTE
                       : client ? IDL_ERROR
                       : server ? (d->opt->werror ? IDL_ERROR : IDL_WARNING)
                                : IDL_NOTE;
    char *msg = idl_fmt(d->a, "%s: %s; %s%s [%s]", subject, what, effect, ok ? " (allowed)" : "", KIND_NAMES[k]);
    if (!msg) {
        d->oom = true;
        return;
    }
    if (sev == IDL_ERROR)
        d->errors++;
    push(d, (entry){.sev = sev, .loc = loc, .key = loc, .msg = msg});
}

/* A note after the last change, at `loc` of OLD (in_old) or NEW. */
void dx_note(differ *d, bool in_old, idl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(d, fmt, ap);
    va_end(ap);
    if (!msg || d->len == 0)
        return;
    push(d, (entry){.sev = IDL_NOTE, .in_old = in_old, .loc = loc, .key = d->items[d->len - 1].key, .msg = msg});
}

/* A change of the values at a place on side `s`: NEW lost some OLD allowed,
 * gained some it did not, or neither (compatible). */
void dx_judge(differ *d, idl_loc loc, side s, aspect asp, bool lost, bool gained, const char *subject, const char *fmt,
              ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = vformat(d, fmt, ap);
    va_end(ap);
    if (!what)
        return;
    bool client = s == IN ? lost : gained, server = s == IN ? gained : lost;
    kind k;
    if (s == IN)
        k = lost ? (asp == A_VALUES ? K_INPUT_VALUES : K_INPUT_NARROWED) : gained ? K_INPUT_WIDENED : K_DESCRIPTION;
    else
        k = gained ? (asp == A_VALUES ? K_OUTPUT_VALUES
                      : asp == A_NULL ? K_OUTPUT_OPTIONAL
                                      : K_OUTPUT_WIDENED)
            : lost ? K_OUTPUT_NARROWED
                   : K_DESCRIPTION;
    dx_report(d, loc, k, client, server, subject, "%s", what);
}

/* ---------------------------------------------------------------- text */

void dx_put_value(mcp_buf *b, const mcp_json *v)
{
    if (v && v->kind == MCP_JSTRING) {
        mcp_buf_putc(b, '\'');
        mcp_buf_put(b, v->s, v->len);
        mcp_buf_putc(b, '\'');
    } else if (v) {
        if (!mcp_json_write(b, v, -1))
            mcp_buf_puts(b, "?");
    }
}

const char *dx_value_text(differ *d, const mcp_json *v)
{
    mcp_buf b;
    mcp_buf_init(&b);
    dx_put_value(&b, v);
    const char *s = b.oom ? NULL : mcp_arena_strndup(d->a, b.data ? b.data : "", b.len);
    mcp_buf_free(&b);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

const char *dx_type_text(differ *d, const ir_type *t)
{
    mcp_buf b;
    mcp_buf_init(&b);
    ir_type_write(&b, t);
    const char *s = b.oom ? NULL : mcp_arena_strndup(d->a, b.data ? b.data : "", b.len);
    mcp_buf_free(&b);
    if (!s)
        d->oom = true;
    return s ? s : "";
}

bool dx_str_eq(const char *x, const char *y) { return (!x && !y) || (x && y && strcmp(x, y) == 0); }

idl_loc dx_loc_or(idl_loc a, idl_loc b) { return a.line ? a : b; }

/* ---------------------------------------------------------------- items */

/* The place of a top-level key of NEW (`tools:`), or none. */
static idl_loc section_loc(const differ *d, const char *key)
{
    const idl_node *r = d->n->root;
    if (r && r->kind == IDL_NODE_MAP)
        for (size_t i = 0; i < r->n; i++)
            if (strcmp(r->pairs[i].key->str, key) == 0)
                return r->pairs[i].key->loc;
    return (idl_loc){0, 0, 0};
}

static bool wrapped(const ir_tool *t) { return t->output == IR_OUTPUT_WRAPPED; }

static void cmp_output(differ *d, const ir_tool *o, const ir_tool *n, const char *subject)
{
    idl_loc at = dx_loc_or(n->result.loc, n->loc);
    if (o->output == IR_OUTPUT_NONE && n->output == IR_OUTPUT_NONE)
        return;
    if (n->output == IR_OUTPUT_NONE) {
        dx_report(d, at, K_OUTPUT_REMOVED, true, false, subject,
                  "no longer publishes an outputSchema; clients no longer receive structuredContent");
        return;
    }
    if (o->output == IR_OUTPUT_NONE) {
        dx_report(d, at, K_ADDED, false, true, subject,
                  "now publishes an outputSchema; a server of the old contract sends no structuredContent");
        return;
    }
    if (wrapped(o) != wrapped(n)) {
        dx_report(d, at, K_OUTPUT_WIDENED, true, true, subject, "output changed from %s to %s; structuredContent %s",
                  dx_type_text(d, o->returns), dx_type_text(d, n->returns),
                  wrapped(n) ? "is now wrapped in 'result'" : "is no longer wrapped in 'result'");
        return;
    }
    const char *what = wrapped(n) ? idl_fmt(d->a, "the result of tool '%s'", n->name)
                                  : idl_fmt(d->a, "the output of tool '%s'", n->name);
    if (!what) {
        d->oom = true;
        return;
    }
    if (wrapped(n) && !dx_str_eq(o->result.description, n->result.description))
        dx_report(d, at, K_DESCRIPTION, false, false, what, "description changed");
    d->field = n->result.loc;
    dx_cmp_type(d, what, OUT, o->returns, n->returns, at);
    d->field = (idl_loc){0, 0, 0};
}

static bool icons_equal(const ir_display *o, const ir_display *n)
{
    if (o->has_icons != n->has_icons || o->nicons != n->nicons)
        return false;
    for (size_t i = 0; i < o->nicons; i++) {
        const ir_icon *a = &o->icons[i], *b = &n->icons[i];
        if (!dx_str_eq(a->src, b->src) || !dx_str_eq(a->mime_type, b->mime_type) || !dx_str_eq(a->theme, b->theme) ||
            (a->sizes == NULL) != (b->sizes == NULL) || a->nsizes != b->nsizes)
            return false;
        for (size_t k = 0; k < a->nsizes; k++)
            if (strcmp(a->sizes[k], b->sizes[k]) != 0)
                return false;
    }
    return true;
}

/* Icons and _meta: what clients show or keep, never checked. */
static void cmp_display(differ *d, idl_loc at, const char *subject, const ir_display *o, const ir_display *n)
{
    if (!icons_equal(o, n))
        dx_report(d, at, K_DESCRIPTION, false, false, subject, "icons changed");
    if ((o->meta == NULL) != (n->meta == NULL) || (o->meta && !mcp_json_equal(o->meta, n->meta)))
        dx_report(d, at, K_DESCRIPTION, false, false, subject, "_meta changed");
}

static void cmp_tool(differ *d, const ir_tool *o, const ir_tool *n)
{
    const char *subject = idl_fmt(d->a, "tool '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (!dx_str_eq(o->description, n->description))
        dx_report(d, n->loc, K_DESCRIPTION, false, false, subject, "description changed");
    if (!dx_str_eq(o->title, n->title))
        dx_report(d, n->loc, K_DESCRIPTION, false, false, subject, "title changed");
    const ir_annotations *oa = &o->annotations, *na = &n->annotations;
    if (!dx_str_eq(oa->title, na->title) || oa->read_only_hint != na->read_only_hint ||
        oa->destructive_hint != na->destructive_hint || oa->idempotent_hint != na->idempotent_hint ||
        oa->open_world_hint != na->open_world_hint)
        dx_report(d, n->loc, K_DESCRIPTION, false, false, subject, "annotations changed (hints, not checked)");
    cmp_display(d, n->loc, subject, &o->display, &n->display);
    dx_cmp_fields(d, n->name, IN, NULL, NULL, o->params, o->nparams, n->params, n->nparams, o->extra_forbid,
                  n->extra_forbid, n->loc, "parameter");
    cmp_output(d, o, n, subject);
}

/* The item of a kind named `name` in `items` (an array of `size`-byte
 * structs whose first member is the name). */
static const void *find_named(const void *items, size_t n, size_t size, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        const void *it = (const char *)items + i * size;
        if (strcmp(*(const char *const *)it, name) == 0)
            return it;
    }
    return NULL;
}

typedef struct item_kind {
    const char *word;    /* "tool" */
    const char *section; /* "tools" */
    size_t size;
    size_t loc_offset; /* offsetof the idl_loc */
    const void *(*items)(const ir_server *s, size_t *n);
    bool (*similar)(differ *d, const void *o, const void *n); /* a rename? or NULL */
} item_kind;

#define ITEMS_FN(fname, member, count) \
    static const void *fname(const ir_server *s, size_t *n) \
    { \
        *n = s->count; \
        return s->member; \
    }
ITEMS_FN(tools_of, tools, ntools)
ITEMS_FN(resources_of, resources, nresources)
ITEMS_FN(templates_of, templates, ntemplates)
ITEMS_FN(prompts_of, prompts, nprompts)

static idl_loc loc_at(const void *item, size_t off)
{
    idl_loc l;
    memcpy(&l, (const char *)item + off, sizeof l);
    return l;
}

/* Removed and added items of one kind; each pair of the same name to `same`. */
static void cmp_items(differ *d, const item_kind *k, void (*same)(differ *, const void *, const void *))
{
    size_t on, nn;
    const void *ov = k->items(d->o->srv, &on), *nv = k->items(d->n->srv, &nn);
    for (size_t i = 0; i < on && !d->oom; i++) {
        const void *oi = (const char *)ov + i * k->size;
        const char *name = *(const char *const *)oi;
        const void *ni = find_named(nv, nn, k->size, name);
        if (ni) {
            same(d, oi, ni);
            continue;
        }
        const char *subject = idl_fmt(d->a, "%s '%s'", k->word, name);
        if (!subject) {
            d->oom = true;
            return;
        }
        dx_report(d, section_loc(d, k->section), K_REMOVED, true, false, subject, "removed");
        dx_note(d, true, loc_at(oi, k->loc_offset), "'%s' was defined here", name);
        for (size_t j = 0; k->similar && j < nn; j++) {
            const void *cand = (const char *)nv + j * k->size;
            const char *cname = *(const char *const *)cand;
            if (!find_named(ov, on, k->size, cname) && k->similar(d, oi, cand)) {
                dx_note(d, false, loc_at(cand, k->loc_offset),
                        "'%s' has the same parameters and result: if it is '%s' renamed, clients see a removal", cname,
                        name);
                break;
            }
        }
    }
    for (size_t i = 0; i < nn && !d->oom; i++) {
        const void *ni = (const char *)nv + i * k->size;
        const char *name = *(const char *const *)ni;
        if (find_named(ov, on, k->size, name))
            continue;
        const char *subject = idl_fmt(d->a, "%s '%s'", k->word, name);
        if (!subject) {
            d->oom = true;
            return;
        }
        dx_report(d, loc_at(ni, k->loc_offset), K_ADDED, false, true, subject,
                  "added; a server of the old contract lacks it");
    }
}

static void same_tool(differ *d, const void *o, const void *n) { cmp_tool(d, o, n); }

/* Whether two tools take the same parameters and give the same result. */
static bool similar_tool(differ *d, const void *ov, const void *nv)
{
    const ir_tool *o = ov, *n = nv;
    if (o->nparams != n->nparams || o->output != n->output || !o->returns || !n->returns ||
        strcmp(dx_type_text(d, o->returns), dx_type_text(d, n->returns)) != 0)
        return false;
    for (size_t i = 0; i < o->nparams; i++)
        if (strcmp(o->params[i].name, n->params[i].name) != 0 || o->params[i].required != n->params[i].required ||
            strcmp(dx_type_text(d, o->params[i].type), dx_type_text(d, n->params[i].type)) != 0)
            return false;
    return true;
}

static void cmp_text(differ *d, idl_loc at, const char *subject, const char *what, const char *o, const char *n)
{
    if (!dx_str_eq(o, n))
        dx_report(d, at, K_DESCRIPTION, false, false, subject, "%s changed", what);
}

static void same_resource(differ *d, const void *ov, const void *nv)
{
    const ir_resource *o = ov, *n = nv;
    const char *subject = idl_fmt(d->a, "resource '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (strcmp(o->uri, n->uri) != 0)
        dx_report(d, n->loc, K_REMOVED, true, false, subject, "uri changed from '%s' to '%s'", o->uri, n->uri);
    if (!dx_str_eq(o->mime_type, n->mime_type))
        dx_report(d, n->loc, K_OUTPUT_WIDENED, true, true, subject, "mimeType changed from %s to %s",
                  o->mime_type ? o->mime_type : "none", n->mime_type ? n->mime_type : "none");
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
    cmp_display(d, n->loc, subject, &o->display, &n->display);
}

static void same_template(differ *d, const void *ov, const void *nv)
{
    const ir_template *o = ov, *n = nv;
    const char *subject = idl_fmt(d->a, "resource template '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    if (strcmp(o->uri_template, n->uri_template) != 0)
        dx_report(d, n->loc, K_REMOVED, true, false, subject,
                  "uriTemplate changed from '%s' to '%s'; URIs clients build from the old one may no longer resolve",
                  o->uri_template, n->uri_template);
    if (!dx_str_eq(o->mime_type, n->mime_type))
        dx_report(d, n->loc, K_OUTPUT_WIDENED, true, true, subject, "mimeType changed from %s to %s",
                  o->mime_type ? o->mime_type : "none", n->mime_type ? n->mime_type : "none");
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
    cmp_display(d, n->loc, subject, &o->display, &n->display);
}

static void same_prompt(differ *d, const void *ov, const void *nv)
{
    const ir_prompt *o = ov, *n = nv;
    const char *subject = idl_fmt(d->a, "prompt '%s'", n->name);
    if (!subject) {
        d->oom = true;
        return;
    }
    cmp_text(d, n->loc, subject, "description", o->description, n->description);
    cmp_text(d, n->loc, subject, "title", o->title, n->title);
    cmp_display(d, n->loc, subject, &o->display, &n->display);
    for (size_t i = 0; i < o->nargs && !d->oom; i++) {
        const ir_prompt_arg *oa = &o->args[i], *na = NULL;
        for (size_t k = 0; k < n->nargs && !na; k++)
            if (strcmp(n->args[k].name, oa->name) == 0)
                na = &n->args[k];
        const char *sub_ = idl_fmt(d->a, "argument '%s' of prompt '%s'", oa->name, n->name);
        if (!sub_) {
            d->oom = true;
            return;
        }
        if (!na) {
            dx_report(d, n->loc, K_INPUT_REMOVED, true, false, sub_, "removed; a value clients send is ignored");
            dx_note(d, true, oa->loc, "'%s' was declared here", oa->name);
            continue;
        }
        if (oa->required != na->required) {
            if (na->required)
                dx_report(d, na->loc, K_REQUIRED, true, false, sub_, "now required");
            else
                dx_judge(d, na->loc, IN, A_TYPE, false, true, sub_, "now optional");
        }
        cmp_text(d, na->loc, sub_, "description", oa->description, na->description);
        cmp_text(d, na->loc, sub_, "title", oa->title, na->title);
    }
    for (size_t k = 0; k < n->nargs && !d->oom; k++) {
        const ir_prompt_arg *na = &n->args[k];
        bool found = false;
        for (size_t i = 0; i < o->nargs && !found; i++)
            found = strcmp(o->args[i].name, na->name) == 0;
        if (found)
            continue;
        const char *sub_ = idl_fmt(d->a, "argument '%s' of prompt '%s'", na->name, n->name);
        if (!sub_) {
            d->oom = true;
            return;
        }
        if (na->required)
            dx_report(d, na->loc, K_REQUIRED, true, false, sub_, "added, required");
        else
            dx_judge(d, na->loc, IN, A_TYPE, false, true, sub_, "added, optional");
    }
}

/* ---------------------------------------------------------------- output */

static int entry_cmp(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    if (a->key.file != b->key.file)
        return a->key.file < b->key.file ? -1 : 1;
    if (a->key.line != b->key.line)
        return a->key.line < b->key.line ? -1 : 1;
    if (a->key.col != b->key.col)
        return a->key.col < b->key.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct render_ctx {
    const differ *d;
    const idl_diags *files;
} render_ctx;

static void pass(void *ctx, const idl_diag *g, const char *text, size_t len)
{
    const render_ctx *r = ctx;
    r->d->opt->emit(r->d->opt->ctx, idl_diags_file(r->files, g->loc.file, NULL, NULL), g, text, len);
}

bool contract_diff(mcp_arena *a, const diff_source *old, const diff_source *now, const diff_options *o, size_t *errors)
{
    differ d = {.a = a, .o = old, .n = now, .opt = o};
    static const item_kind KINDS[] = {
        {"tool", "tools", sizeof(ir_tool), offsetof(ir_tool, loc), tools_of, similar_tool},
        {"resource", "resources", sizeof(ir_resource), offsetof(ir_resource, loc), resources_of, NULL},
        {"resource template", "resource_templates", sizeof(ir_template), offsetof(ir_template, loc), templates_of,
         NULL},
        {"prompt", "prompts", sizeof(ir_prompt), offsetof(ir_prompt, loc), prompts_of, NULL},
    };
    void (*const SAME[])(differ *, const void *, const void *) = {same_tool, same_resource, same_template, same_prompt};
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        cmp_items(&d, &KINDS[i], SAME[i]);
    if (d.oom)
        return false;
    if (d.len)
        qsort(d.items, d.len, sizeof *d.items, entry_cmp);
    for (size_t i = 0; i < d.len && o->emit; i++) {
        const entry *e = &d.items[i];
        const diff_source *src = e->in_old ? old : now;
        idl_diag g = {e->sev, e->loc, (char *)e->msg};
        idl_diags one;
        idl_diags_init(&one, a, src->file, src->src, src->len);
        if (src->files) {
            one.files = src->files->files;
            one.nfiles = one.cap_files = src->files->nfiles;
        }
        one.items = &g;
        one.len = one.cap = 1;
        render_ctx r = {&d, &one};
        if (!idl_diags_render(&one, o->show_source, pass, &r))
            return false;
    }
    *errors = d.errors;
    return true;
}
