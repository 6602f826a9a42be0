/* lists.c: the state the methods share across a runtime's sessions: the
 * four list methods' pages, rendered at start and again when a program
 * enables or disables an item, and the tools sorted by name; and tools/list,
 * resources/list, resources/templates/list, prompts/list. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"

typedef struct page {
    mcp_buf text;    /* {"tools":[...],"nextCursor":"..."} */
    char cursor[24]; /* the cursor that selects this page ("" for the first) */
} page;

/* One rendering of a list's pages. A request holds a reference while it
 * answers from it (under the state's `mu`), so that a new rendering can
 * replace it at any time. */
struct mcp_listing {
    page *pages;
    size_t npages;
    size_t refs; /* under mcp_methods_state.mu */
};

typedef struct tool_ref {
    const char *name;
    size_t len;
    const mcp_tool *tool;
} tool_ref;

struct mcp_methods_state {
    const mcp_server *srv;
    size_t page_size;
    pthread_mutex_t mu;     /* lists[] and the listings' refs */
    pthread_mutex_t change; /* one change of what is enabled at a time */
    mcp_listing *lists[4];  /* MCP_LIST_*: the current rendering of each */
    atomic_bool *off[4];    /* MCP_LIST_*: per item of the table, disabled */
    atomic_bool *quick;     /* per tool of the table: runs on the reading thread */
    tool_ref *tools;        /* sorted by name */
    size_t ntools;
    mcp_subs *subs;
    mcp_listeners *listeners;
    mcp_tool_invoker invoke;
    mcp_tasks *tasks;
};

static int tool_ref_cmp(const void *x, const void *y)
{
    const tool_ref *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static void listing_free(mcp_listing *l)
{
    if (!l)
        return;
    for (size_t p = 0; l->pages && p < l->npages; p++)
        mcp_buf_free(&l->pages[p].text);
    free(l->pages);
    free(l);
}

/* A list method's pages: each page's whole result text,
 * {"KEY":[entries...],"nextCursor":"N"}, N the index of the next page's first
 * entry. Entries are `stride` bytes apart, a `const char *` at `offset`
 * (NULL entries, and those `off` marks, are skipped). */
static bool render_pages(mcp_listing *l, const char *key, const void *items, size_t n_items, size_t stride,
                         size_t offset, size_t per, const atomic_bool *off)
{
#define ENTRY(i) (atomic_load(&off[i]) ? NULL : *(const char *const *)((const char *)items + (i)*stride + offset))
    size_t n = 0;
    for (size_t i = 0; i < n_items; i++)
        n += ENTRY(i) != NULL;
    l->npages = n == 0 ? 1 : (n + per - 1) / per;
    l->pages = calloc(l->npages, sizeof *l->pages);
    if (!l->pages)
        return false;
    size_t t = 0, k = 0;
    for (size_t p = 0; p < l->npages; p++) {
        mcp_buf *out = &l->pages[p].text;
        mcp_buf_init(out);
        if (p > 0)
            snprintf(l->pages[p].cursor, sizeof l->pages[p].cursor, "%zu", k);
        mcp_buf_printf(out, "{\"%s\":[", key);
        for (size_t in_page = 0; in_page < per && t < n_items; t++) {
            const char *entry = ENTRY(t);
            if (!entry)
                continue;
            if (in_page++)
                mcp_buf_putc(out, ',');
            mcp_buf_puts(out, entry);
            k++;
        }
        mcp_buf_putc(out, ']');
        if (p + 1 < l->npages)
            mcp_buf_printf(out, ",\"nextCursor\":\"%zu\"", k);
        mcp_buf_putc(out, '}');
        if (out->oom)
            return false;
    }
    return true;
#undef ENTRY
}

/* A new rendering of list `which` (MCP_LIST_*) as the flags now say; NULL
 * when out of memory. */
static mcp_listing *render_list(const mcp_methods_state *st, int which)
{
    const mcp_server *srv = st->srv;
    mcp_listing *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->refs = 1;
    bool ok = false;
    switch (which) {
    case MCP_LIST_TOOLS:
        ok = render_pages(l, "tools", srv->tools, srv->ntools, sizeof *srv->tools, offsetof(mcp_tool, list_entry),
                          st->page_size, st->off[which]);
        break;
    case MCP_LIST_RESOURCES:
        ok = render_pages(l, "resources", srv->resources, srv->nresources, sizeof *srv->resources,
                          offsetof(mcp_resource, list_entry), st->page_size, st->off[which]);
        break;
    case MCP_LIST_TEMPLATES:
        ok = render_pages(l, "resourceTemplates", srv->templates, srv->ntemplates, sizeof *srv->templates,
                          offsetof(mcp_resource_template, list_entry), st->page_size, st->off[which]);
        break;
    case MCP_LIST_PROMPTS:
        ok = render_pages(l, "prompts", srv->prompts, srv->nprompts, sizeof *srv->prompts,
                          offsetof(mcp_prompt, list_entry), st->page_size, st->off[which]);
        break;
    default:
        break;
    }
    if (!ok) {
        listing_free(l);
        return NULL;
    }
    return l;
}

static size_t count_of(const mcp_server *srv, int which)
{
    return which == MCP_LIST_TOOLS       ? srv->ntools
           : which == MCP_LIST_RESOURCES ? srv->nresources
           : which == MCP_LIST_TEMPLATES ? srv->ntemplates
                                         : srv->nprompts;
}

static mcp_listing *listing_take(mcp_methods_state *st, int which)
{
    pthread_mutex_lock(&st->mu);
    mcp_listing *l = st->lists[which];
    l->refs++;
    pthread_mutex_unlock(&st->mu);
    return l;
}

static void listing_drop(mcp_methods_state *st, mcp_listing *l)
{
    pthread_mutex_lock(&st->mu);
    bool last = --l->refs == 0;
    pthread_mutex_unlock(&st->mu);
    if (last)
        listing_free(l);
}

/* The name of item i of list `which`. */
static const char *item_name(const mcp_server *srv, int which, size_t i)
{
    return which == MCP_LIST_TOOLS       ? srv->tools[i].name
           : which == MCP_LIST_RESOURCES ? srv->resources[i].name
           : which == MCP_LIST_TEMPLATES ? srv->templates[i].name
                                         : srv->prompts[i].name;
}

int mcp_methods_enable(mcp_methods_state *st, mcp_list_kind kind, const char *name, bool on)
{
    /* A kind of list change covers one list, or resources and templates. */
    int lists[2] = {-1, -1};
    switch (kind) {
    case MCP_LIST_KIND_TOOLS:
        lists[0] = MCP_LIST_TOOLS;
        break;
    case MCP_LIST_KIND_PROMPTS:
        lists[0] = MCP_LIST_PROMPTS;
        break;
    case MCP_LIST_KIND_RESOURCES:
        lists[0] = MCP_LIST_RESOURCES;
        lists[1] = MCP_LIST_TEMPLATES;
        break;
    default:
        return MCP_ENABLE_UNKNOWN;
    }
    pthread_mutex_lock(&st->change);
    bool found = false, changed[2] = {false, false};
    for (int k = 0; k < 2 && lists[k] >= 0; k++) {
        int w = lists[k];
        for (size_t i = 0; i < count_of(st->srv, w); i++) {
            const char *n = item_name(st->srv, w, i);
            if (!n || strcmp(n, name) != 0)
                continue;
            found = true;
            if (atomic_exchange(&st->off[w][i], !on) != !on)
                changed[k] = true;
        }
    }
    mcp_listing *fresh[2] = {NULL, NULL};
    bool oom = false;
    for (int k = 0; k < 2; k++)
        if (changed[k] && !(fresh[k] = render_list(st, lists[k])))
            oom = true;
    if (oom) {
        /* Nothing changes: the flags go back as they were. */
        for (int k = 0; k < 2; k++) {
            listing_free(fresh[k]);
            if (!changed[k])
                continue;
            for (size_t i = 0; i < count_of(st->srv, lists[k]); i++) {
                const char *n = item_name(st->srv, lists[k], i);
                if (n && strcmp(n, name) == 0)
                    atomic_store(&st->off[lists[k]][i], on);
            }
        }
        pthread_mutex_unlock(&st->change);
        return MCP_ENABLE_OOM;
    }
    for (int k = 0; k < 2; k++)
        if (fresh[k]) {
            pthread_mutex_lock(&st->mu);
            mcp_listing *old = st->lists[lists[k]];
            st->lists[lists[k]] = fresh[k];
            pthread_mutex_unlock(&st->mu);
            listing_drop(st, old);
        }
    pthread_mutex_unlock(&st->change);
    return !found ? MCP_ENABLE_UNKNOWN : changed[0] || changed[1] ? MCP_ENABLE_CHANGED : MCP_ENABLE_SAME;
}

bool mcp_item_off(const mcp_methods_state *st, int which, size_t i) { return atomic_load(&st->off[which][i]); }

bool mcp_methods_tool_inline(mcp_methods_state *st, const char *name, bool on)
{
    bool found = false;
    for (size_t i = 0; i < st->srv->ntools; i++) {
        const mcp_tool *t = &st->srv->tools[i];
        if (t->name && strcmp(t->name, name) == 0 && t->task == MCP_TASK_NONE) {
            atomic_store(&st->quick[i], on);
            found = true;
        }
    }
    return found;
}

bool mcp_tool_runs_inline(const mcp_methods_state *st, const mcp_tool *tool)
{
    return st->quick && atomic_load(&st->quick[tool - st->srv->tools]);
}

bool mcp_methods_enabled(const mcp_methods_state *st, mcp_list_kind kind, const char *name)
{
    int lists[2] = {kind == MCP_LIST_KIND_TOOLS     ? MCP_LIST_TOOLS
                    : kind == MCP_LIST_KIND_PROMPTS ? MCP_LIST_PROMPTS
                                                    : MCP_LIST_RESOURCES,
                    kind == MCP_LIST_KIND_RESOURCES ? MCP_LIST_TEMPLATES : -1};
    for (int k = 0; k < 2 && lists[k] >= 0; k++)
        for (size_t i = 0; i < count_of(st->srv, lists[k]); i++) {
            const char *n = item_name(st->srv, lists[k], i);
            if (n && strcmp(n, name) == 0 && !mcp_item_off(st, lists[k], i))
                return true;
        }
    return false;
}

const mcp_server *mcp_methods_server(const mcp_methods_state *st) { return st->srv; }

mcp_methods_state *mcp_methods_state_new(const mcp_server *srv, const mcp_options *opt)
{
    mcp_methods_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->srv = srv;
    st->page_size = opt->page_size;
    pthread_mutex_init(&st->mu, NULL);
    pthread_mutex_init(&st->change, NULL);
    bool ok = true;
    for (int w = 0; ok && w < 4; w++) {
        size_t n = count_of(srv, w);
        st->off[w] = malloc((n ? n : 1) * sizeof *st->off[w]);
        ok = st->off[w] != NULL;
        for (size_t i = 0; ok && i < n; i++)
            atomic_init(&st->off[w][i], false);
        ok = ok && (st->lists[w] = render_list(st, w)) != NULL;
    }
    if (ok && srv->ntools > 0) {
        st->tools = calloc(srv->ntools, sizeof *st->tools);
        st->quick = malloc(srv->ntools * sizeof *st->quick);
        ok = st->tools != NULL && st->quick != NULL;
        for (size_t i = 0; ok && i < srv->ntools; i++)
            atomic_init(&st->quick[i], srv->tools[i].run_inline && srv->tools[i].task == MCP_TASK_NONE);
        for (size_t i = 0; ok && i < srv->ntools; i++)
            if (srv->tools[i].name) {
                const char *name = srv->tools[i].name;
                st->tools[st->ntools++] = (tool_ref){name, strlen(name), &srv->tools[i]};
            }
        if (ok)
            qsort(st->tools, st->ntools, sizeof *st->tools, tool_ref_cmp);
    }
    st->invoke = mcp_tool_invoke;
    if (ok) {
        st->subs = mcp_subs_new();
        st->listeners = mcp_listeners_new();
        st->tasks = mcp_tasks_new(st, opt);
        ok = st->subs != NULL && st->listeners != NULL && st->tasks != NULL;
    }
    if (!ok) {
        mcp_methods_state_free(st);
        return NULL;
    }
    return st;
}

void mcp_methods_state_free(mcp_methods_state *st)
{
    if (!st)
        return;
    mcp_tasks_free(st->tasks); /* first: its runs use the rest */
    for (int w = 0; w < 4; w++) {
        listing_free(st->lists[w]);
        free(st->off[w]);
    }
    free(st->quick);
    pthread_mutex_destroy(&st->mu);
    pthread_mutex_destroy(&st->change);
    free(st->tools);
    mcp_subs_free(st->subs);
    mcp_listeners_free(st->listeners);
    free(st);
}

mcp_subs *mcp_methods_subs(const mcp_methods_state *st) { return st->subs; }

mcp_listeners *mcp_methods_listeners(const mcp_methods_state *st) { return st->listeners; }

mcp_tasks *mcp_methods_tasks(const mcp_methods_state *st) { return st->tasks; }

void mcp_methods_set_invoker(mcp_methods_state *st, mcp_tool_invoker f) { st->invoke = f ? f : mcp_tool_invoke; }

mcp_tool_invoker mcp_methods_invoker(const mcp_methods_state *st) { return st->invoke; }

const mcp_methods_state *mcp_req_methods(const mcp_req *r) { return mcp_req_env(r)->mstate; }

void mcp_methods_session_gone(void *st, mcp_session *s)
{
    mcp_subs_session_gone(((mcp_methods_state *)st)->subs, s);
    mcp_listeners_session_gone(((mcp_methods_state *)st)->listeners, s);
}

void mcp_methods_resource_updated(mcp_methods_state *st, const char *uri)
{
    mcp_subs_updated(st->subs, uri);
    mcp_listeners_updated(st->listeners, uri);
}

const mcp_tool *mcp_find_tool(const mcp_methods_state *st, const char *name, size_t len)
{
    size_t lo = 0, hi = st->ntools;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tool_ref *t = &st->tools[mid];
        size_t m = t->len < len ? t->len : len;
        int c = memcmp(t->name, name, m);
        if (c == 0)
            c = t->len < len ? -1 : t->len > len ? 1 : 0;
        if (c == 0)
            return mcp_item_off(st, MCP_LIST_TOOLS, (size_t)(t->tool - st->srv->tools)) ? NULL : t->tool;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The page a cursor selects: the cursors are the decimal indexes of each
 * page's first entry, exactly as issued. */
static const page *find_page(const mcp_listing *l, const mcp_json *cursor)
{
    for (size_t i = 1; i < l->npages; i++)
        if (mcp_json_str_is(cursor, l->pages[i].cursor))
            return &l->pages[i];
    return NULL;
}

void mcp_list_answer(mcp_req *r, int which)
{
    const mcp_json *cursor = mcp_json_get(mcp_req_params(r), "cursor");
    if (cursor && cursor->kind != MCP_JNULL && cursor->kind != MCP_JSTRING) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: cursor must be a string");
        return;
    }
    /* The state is the runtime's: only the listings' references change. */
    mcp_methods_state *st = (mcp_methods_state *)mcp_req_methods(r);
    mcp_listing *l = listing_take(st, which);
    const page *p = &l->pages[0];
    if (cursor && cursor->kind != MCP_JNULL)
        p = find_page(l, cursor);
    if (p)
        mcp_req_result(r, p->text.data, p->text.len);
    else
        mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, cursor->s, cursor->len, "Invalid params: invalid cursor: ");
    listing_drop(st, l);
}

/* ---------------------------------------------------------------- helpers of the methods */

bool mcp_json_str_is(const mcp_json *v, const char *lit)
{
    size_t n = strlen(lit);
    return v && v->kind == MCP_JSTRING && v->len == n && memcmp(v->s, lit, n) == 0;
}

const mcp_json *mcp_need_string(mcp_req *r, const mcp_json *params, const char *key)
{
    const mcp_json *v = mcp_json_get(params, key);
    if (!v) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: missing %s", key);
        return NULL;
    }
    if (v->kind != MCP_JSTRING) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: %s must be a string", key);
        return NULL;
    }
    if (v->has_nul) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: %s must not contain NUL", key);
        return NULL;
    }
    return v;
}

bool mcp_arguments_of(mcp_req *r, const mcp_json **out)
{
    const mcp_json *args = mcp_json_get(mcp_req_params(r), "arguments");
    if (args && args->kind == MCP_JNULL)
        args = NULL;
    if (args && args->kind != MCP_JOBJECT) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: arguments must be an object");
        return false;
    }
    *out = args;
    return true;
}

/* ---------------------------------------------------------------- the table */

static const mcp_method *const TABLE[] = {
    &mcp_method_initialize,     &mcp_method_discover,     &mcp_method_ping,           &mcp_method_tools_list,
    &mcp_method_tools_call,     &mcp_method_set_level,    &mcp_method_resources_list, &mcp_method_templates_list,
    &mcp_method_resources_read, &mcp_method_subscribe,    &mcp_method_unsubscribe,    &mcp_method_prompts_list,
    &mcp_method_prompts_get,    &mcp_method_complete,     &mcp_method_listen,         &mcp_method_tasks_get,
    &mcp_method_tasks_update,   &mcp_method_tasks_cancel, &mcp_method_tasks_result,   &mcp_method_tasks_list,
};

const mcp_method_table mcp_methods = {TABLE, sizeof TABLE / sizeof *TABLE};
