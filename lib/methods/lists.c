/* lists.c: the state the methods share across a runtime's sessions: the
 * four list methods' pages, rendered once, and the tools sorted by name;
 * and tools/list, resources/list, resources/templates/list, prompts/list. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"

typedef struct page {
    mcp_buf text;    /* {"tools":[...],"nextCursor":"..."} */
    char cursor[24]; /* the cursor that selects this page ("" for the first) */
} page;

struct mcp_listing {
    page *pages;
    size_t npages;
};

typedef struct tool_ref {
    const char *name;
    size_t len;
    const mcp_tool *tool;
} tool_ref;

struct mcp_methods_state {
    mcp_listing lists[4]; /* MCP_LIST_* */
    tool_ref *tools;      /* sorted by name */
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

/* A list method's pages: each page's whole result text,
 * {"KEY":[entries...],"nextCursor":"N"}, N the index of the next page's first
 * entry. Entries are `stride` bytes apart, a `const char *` at `offset`
 * (NULL entries are skipped). */
static bool render_list(mcp_listing *l, const char *key, const void *items, size_t n_items, size_t stride,
                        size_t offset, size_t per)
{
#define ENTRY(i) (*(const char *const *)((const char *)items + (i)*stride + offset))
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

mcp_methods_state *mcp_methods_state_new(const mcp_server *srv, const mcp_options *opt)
{
    mcp_methods_state *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    size_t per = opt->page_size;
    bool ok = render_list(&st->lists[MCP_LIST_TOOLS], "tools", srv->tools, srv->ntools, sizeof *srv->tools,
                          offsetof(mcp_tool, list_entry), per) &&
              render_list(&st->lists[MCP_LIST_RESOURCES], "resources", srv->resources, srv->nresources,
                          sizeof *srv->resources, offsetof(mcp_resource, list_entry), per) &&
              render_list(&st->lists[MCP_LIST_TEMPLATES], "resourceTemplates", srv->templates, srv->ntemplates,
                          sizeof *srv->templates, offsetof(mcp_resource_template, list_entry), per) &&
              render_list(&st->lists[MCP_LIST_PROMPTS], "prompts", srv->prompts, srv->nprompts, sizeof *srv->prompts,
                          offsetof(mcp_prompt, list_entry), per);
    if (ok && srv->ntools > 0) {
        st->tools = calloc(srv->ntools, sizeof *st->tools);
        ok = st->tools != NULL;
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
    for (size_t l = 0; l < sizeof st->lists / sizeof *st->lists; l++) {
        for (size_t p = 0; st->lists[l].pages && p < st->lists[l].npages; p++)
            mcp_buf_free(&st->lists[l].pages[p].text);
        free(st->lists[l].pages);
    }
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
            return t->tool;
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
    const mcp_listing *l = &mcp_req_methods(r)->lists[which];
    const mcp_json *cursor = mcp_json_get(mcp_req_params(r), "cursor");
    const page *p = &l->pages[0];
    if (cursor && cursor->kind != MCP_JNULL) {
        if (cursor->kind != MCP_JSTRING) {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: cursor must be a string");
            return;
        }
        p = find_page(l, cursor);
        if (!p) {
            mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, cursor->s, cursor->len, "Invalid params: invalid cursor: ");
            return;
        }
    }
    mcp_req_result(r, p->text.data, p->text.len);
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
