/* resources.c: resources/list, resources/templates/list, resources/read
 * (running a reader and writing its contents), resources/subscribe and
 * unsubscribe, and notifications/resources/updated to the subscribers. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "internal/options.h"
#include "internal/uritemplate.h"
#include "mcpidl/jsonw.h"

/* ---------------------------------------------------------------- what readers call */

const char *mcp_call_uri(const mcp_call *call) { return call ? call->uri : NULL; }

/* One item of `contents`, kept as a resource block. */
static mcp_status contents_item(mcp_call *call, mcp_block_kind kind, const char *uri, const char *mime,
                                const char *payload)
{
    if (call->nblocks == call->cap_blocks) {
        size_t cap = call->cap_blocks ? call->cap_blocks * 2 : 4;
        mcp_text_block *b = mcp_arena_realloc(call->arena, call->blocks, call->cap_blocks * sizeof *b, cap * sizeof *b);
        if (!b)
            return mcp_fail(call, "out of memory");
        call->blocks = b;
        call->cap_blocks = cap;
    }
    if (!uri)
        uri = call->uri;
    if (!mime)
        mime = call->default_mime;
    if (!uri || !*uri)
        return mcp_fail(call, "resource contents need a URI");
    mcp_text_block blk = {.kind = kind};
    blk.uri = mcp_arena_strdup(call->arena, uri);
    blk.mime = mime ? mcp_arena_strdup(call->arena, mime) : NULL;
    const char *p = mcp_arena_strdup(call->arena, payload);
    if (!blk.uri || (mime && !blk.mime) || !p)
        return mcp_fail(call, "out of memory");
    if (kind == MCP_BLOCK_RESOURCE_TEXT) {
        blk.text = p;
        blk.len = strlen(p);
    } else {
        blk.data = p;
    }
    call->blocks[call->nblocks++] = blk;
    return MCP_OK;
}

mcp_status mcp_resource_text(mcp_call *call, const char *uri, const char *mime, const char *text)
{
    return contents_item(call, MCP_BLOCK_RESOURCE_TEXT, uri, mime, text ? text : "");
}

mcp_status mcp_resource_blob(mcp_call *call, const char *uri, const char *mime, const char *base64)
{
    if (!base64 || !mcp_base64_valid(base64))
        return mcp_fail(call, "resource contents: the blob is not base64");
    return contents_item(call, MCP_BLOCK_RESOURCE_BLOB, uri, mime, base64);
}

mcp_status mcp_not_found(mcp_call *call)
{
    call->not_found = true;
    return MCP_ERROR;
}

/* ---------------------------------------------------------------- resources/read */

static void contents_json(mcp_buf *out, const mcp_text_block *blocks, size_t n)
{
    mcp_buf_puts(out, "{\"contents\":[");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const mcp_text_block *b = &blocks[i];
        if (b->kind != MCP_BLOCK_RESOURCE_TEXT && b->kind != MCP_BLOCK_RESOURCE_BLOB)
            continue; /* only mcp_resource_text/blob make contents */
        if (!first)
            mcp_buf_putc(out, ',');
        first = false;
        mcp_buf_puts(out, "{\"uri\":");
        mcp_handler_string(out, b->uri, strlen(b->uri));
        if (b->mime) {
            mcp_buf_puts(out, ",\"mimeType\":");
            mcp_handler_string(out, b->mime, strlen(b->mime));
        }
        if (b->kind == MCP_BLOCK_RESOURCE_TEXT) {
            mcp_buf_puts(out, ",\"text\":");
            mcp_handler_string(out, b->text, b->len);
        } else {
            mcp_buf_puts(out, ",\"blob\":");
            mcp_json_string(out, b->data, strlen(b->data));
        }
        mcp_buf_putc(out, '}');
    }
    mcp_buf_puts(out, "]}");
}

static int read_invoke(mcp_call *call, const mcp_resource *r, const mcp_resource_template *t, const char *const *vars,
                       mcp_buf *out, const char **msg)
{
    call->default_mime = r ? r->mime_type : t ? t->mime_type : NULL;
    mcp_status st = MCP_OK;
    if (r && (r->text || r->blob)) {
        st = r->text ? mcp_resource_text(call, NULL, NULL, r->text) : mcp_resource_blob(call, NULL, NULL, r->blob);
    } else {
        mcp_read_fn read = r ? r->read : t ? t->read : NULL;
        st = read ? read(call, call->uri, vars) : mcp_fail(call, "no reader");
    }
    if (call->not_found) {
        *msg = "Resource not found";
        return -32002;
    }
    if (st != MCP_OK)
        return mcp_handler_error(call, "reading the resource", msg);
    contents_json(out, call->blocks, call->nblocks);
    return 0;
}

/* What serves `uri`: a resource with exactly that URI (*r), or the first
 * template that matches it (*t, with its variables' values in *vars, in
 * `a`); false when nothing does, or out of memory (*oom). */
static bool find_served(const mcp_methods_state *st, const mcp_server *srv, const char *uri, mcp_arena *a,
                        const mcp_resource **r, const mcp_resource_template **t, const char ***vars, bool *oom)
{
    *r = NULL;
    *t = NULL;
    *vars = NULL;
    *oom = false;
    for (size_t i = 0; i < srv->nresources; i++)
        if (srv->resources[i].uri && strcmp(srv->resources[i].uri, uri) == 0 &&
            !mcp_item_off(st, MCP_LIST_RESOURCES, i)) {
            *r = &srv->resources[i];
            return true;
        }
    /* The values of the first template that matches, in one array for all. */
    size_t most = 1;
    for (size_t i = 0; i < srv->ntemplates; i++)
        most = srv->templates[i].nvars > most ? srv->templates[i].nvars : most;
    const char **v = srv->ntemplates ? mcp_arena_alloc(a, most * sizeof *v) : NULL;
    if (srv->ntemplates && !v) {
        *oom = true;
        return false;
    }
    for (size_t i = 0; i < srv->ntemplates; i++) {
        const mcp_resource_template *tp = &srv->templates[i];
        if (!mcp_item_off(st, MCP_LIST_TEMPLATES, i) &&
            mcp_uri_template_match(tp->uri_template, uri, a, v, tp->nvars)) {
            *t = tp;
            *vars = v;
            return true;
        }
    }
    return false;
}

bool mcp_uri_served(const mcp_methods_state *st, const char *uri, mcp_arena *a, bool *oom)
{
    const mcp_resource *r;
    const mcp_resource_template *t;
    const char **vars;
    return find_served(st, mcp_methods_server(st), uri, a, &r, &t, &vars, oom);
}

/* -32002 Resource not found, with the URI as its data. */
static void reply_not_found(mcp_req *r, const mcp_json *uri)
{
    mcp_buf data;
    mcp_buf_init(&data);
    mcp_buf_puts(&data, "{\"uri\":");
    mcp_json_string(&data, uri->s, uri->len);
    mcp_buf_putc(&data, '}');
    if (data.oom)
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        mcp_req_error_data(r, mcp_req_ctx(r)->modern ? MCP_RPC_INVALID_PARAMS : MCP_RPC_RESOURCE_NOT_FOUND,
                           "Resource not found", data.data, data.len);
    mcp_buf_free(&data);
}

typedef struct read_data {
    const mcp_resource *resource;
    const mcp_resource_template *tmpl;
    const char *const *vars;
    const char *uri;
} read_data;

static void read_start(mcp_req *r)
{
    const mcp_json *uri = mcp_need_string(r, mcp_req_params(r), "uri");
    if (!uri)
        return;
    read_data *d = mcp_arena_alloc(mcp_req_arena(r), sizeof *d);
    const char **vars = NULL;
    bool oom = !d;
    if (d && find_served(mcp_req_methods(r), mcp_req_env(r)->server, uri->s, mcp_req_arena(r), &d->resource, &d->tmpl,
                         &vars, &oom)) {
        d->vars = vars;
        d->uri = uri->s;
        mcp_req_run(r, d);
    } else if (oom) {
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    } else {
        reply_not_found(r, uri);
    }
}

static int read_run(mcp_job *j, void *data, mcp_buf *out, const char **msg, mcp_buf *err_data)
{
    const read_data *d = data;
    mcp_call call;
    mcp_call_for_job(&call, j);
    call.uri = d->uri;
    int code = mcp_mrtr_begin(&call, j, "resources/read", msg);
    if (code == 0)
        code = read_invoke(&call, d->resource, d->tmpl, d->vars, out, msg);
    if (code == MCP_RPC_RESOURCE_NOT_FOUND) {
        /* 2026-07-28 says -32602 where 2025-11-25 said -32002. */
        if (mcp_job_ctx(j)->modern)
            code = MCP_RPC_INVALID_PARAMS;
        mcp_buf_puts(err_data, "{\"uri\":");
        mcp_json_cstring(err_data, d->uri);
        mcp_buf_putc(err_data, '}');
    }
    code = mcp_mrtr_end(&call, mcp_job_env(j), code, code != 0, out, msg, err_data);
    if (code == 0 && d->resource && d->resource->cache.set)
        mcp_job_set_cache(j, d->resource->cache.ttl_ms, d->resource->cache.private_scope);
    return code;
}

/* ---------------------------------------------------------------- subscriptions */

typedef struct sub {
    struct sub *next;
    char uri[];
} sub;

/* A session's subscriptions. */
typedef struct sub_session {
    struct sub_session *next;
    mcp_session *s;
    sub *subs;
    int n;
} sub_session;

/* Every subscription of a runtime's sessions, under mu: updates come from
 * any thread, and are sent under the lock, which keeps each session on the
 * list alive (a session leaves it before it is freed). */
struct mcp_subs {
    pthread_mutex_t mu;
    sub_session *sessions;
};

mcp_subs *mcp_subs_new(void)
{
    mcp_subs *subs = calloc(1, sizeof *subs);
    if (subs)
        pthread_mutex_init(&subs->mu, NULL);
    return subs;
}

static void free_subs(sub *u)
{
    for (sub *next; u; u = next) {
        next = u->next;
        free(u);
    }
}

void mcp_subs_free(mcp_subs *subs)
{
    if (!subs)
        return;
    for (sub_session *ss = subs->sessions, *next; ss; ss = next) {
        next = ss->next;
        free_subs(ss->subs);
        free(ss);
    }
    pthread_mutex_destroy(&subs->mu);
    free(subs);
}

void mcp_subs_session_gone(mcp_subs *subs, mcp_session *s)
{
    pthread_mutex_lock(&subs->mu);
    for (sub_session **pp = &subs->sessions; *pp; pp = &(*pp)->next)
        if ((*pp)->s == s) {
            sub_session *ss = *pp;
            *pp = ss->next;
            free_subs(ss->subs);
            free(ss);
            break;
        }
    pthread_mutex_unlock(&subs->mu);
}

void mcp_subs_updated(mcp_subs *subs, const char *uri)
{
    if (!uri)
        return;
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":");
    mcp_handler_string(&m, uri, strlen(uri));
    mcp_buf_puts(&m, "}}");
    if (!m.oom) {
        pthread_mutex_lock(&subs->mu);
        for (sub_session *ss = subs->sessions; ss; ss = ss->next)
            for (const sub *u = ss->subs; u; u = u->next)
                if (strcmp(u->uri, uri) == 0) {
                    /* (Subscribed means initialized: resources/subscribe needs it.) */
                    mcp_session_notify(ss->s, m.data, m.len);
                    break;
                }
        pthread_mutex_unlock(&subs->mu);
    }
    mcp_buf_free(&m);
}

/* resources/subscribe and unsubscribe. A session subscribes only to URIs
 * the server serves (a resource's, or one a template matches), each at most
 * MCP_MAX_SUBSCRIBE_URI bytes, at most max_subscriptions of them: what a
 * client can make the server keep is bounded. Unsubscribing from what is not
 * subscribed is not an error. */
static void subscribe(mcp_req *r, bool on)
{
    const mcp_json *uri = mcp_need_string(r, mcp_req_params(r), "uri");
    if (!uri)
        return;
    const mcp_env *env = mcp_req_env(r);
    if (on) {
        if (uri->len > MCP_MAX_SUBSCRIBE_URI) {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: uri longer than %d bytes cannot be subscribed to",
                          MCP_MAX_SUBSCRIBE_URI);
            return;
        }
        const mcp_resource *res;
        const mcp_resource_template *t;
        const char **vars;
        bool oom;
        if (!find_served(mcp_req_methods(r), env->server, uri->s, mcp_req_arena(r), &res, &t, &vars, &oom)) {
            if (oom)
                mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
            else
                reply_not_found(r, uri);
            return;
        }
    }
    mcp_subs *subs = mcp_methods_subs(mcp_req_methods(r));
    mcp_session *s = mcp_req_session(r);
    enum { DONE, FULL, NOMEM } outcome = DONE;
    pthread_mutex_lock(&subs->mu);
    sub_session *ss = subs->sessions;
    while (ss && ss->s != s)
        ss = ss->next;
    if (!ss && on) {
        ss = calloc(1, sizeof *ss);
        if (ss) {
            ss->s = s;
            ss->next = subs->sessions;
            subs->sessions = ss;
        }
    }
    sub **p = ss ? &ss->subs : NULL;
    while (p && *p && strcmp((*p)->uri, uri->s) != 0)
        p = &(*p)->next;
    if (on && !ss) {
        outcome = NOMEM;
    } else if (on && !*p && ss->n >= env->opt.max_subscriptions) {
        outcome = FULL;
    } else if (on && !*p) {
        sub *u = malloc(sizeof *u + uri->len + 1);
        if (u) {
            memcpy(u->uri, uri->s, uri->len + 1);
            u->next = ss->subs;
            ss->subs = u;
            ss->n++;
        } else {
            outcome = NOMEM;
        }
    } else if (!on && p && *p) {
        sub *u = *p;
        *p = u->next;
        ss->n--;
        free(u);
    }
    pthread_mutex_unlock(&subs->mu);
    if (outcome == FULL)
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: too many subscriptions (limit %d)",
                      env->opt.max_subscriptions);
    else if (outcome == NOMEM)
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        mcp_req_result(r, "{}", 2);
}

static void subscribe_start(mcp_req *r) { subscribe(r, true); }
static void unsubscribe_start(mcp_req *r) { subscribe(r, false); }

void mcp_resource_updated(mcp_call *call, const char *uri)
{
    if (call && call->job)
        mcp_methods_resource_updated(mcp_job_env(call->job)->mstate, uri);
}

/* ---------------------------------------------------------------- the methods */

static void resources_list_start(mcp_req *r) { mcp_list_answer(r, MCP_LIST_RESOURCES); }
static void templates_list_start(mcp_req *r) { mcp_list_answer(r, MCP_LIST_TEMPLATES); }

static bool serves_resources(const mcp_server *srv) { return srv->nresources > 0 || srv->ntemplates > 0; }

const mcp_method mcp_method_resources_list = {
    .name = "resources/list", .flags = MCP_METHOD_CACHEABLE, .served = serves_resources, .start = resources_list_start};
const mcp_method mcp_method_templates_list = {.name = "resources/templates/list",
                                              .flags = MCP_METHOD_CACHEABLE,
                                              .served = serves_resources,
                                              .start = templates_list_start};
const mcp_method mcp_method_resources_read = {.name = "resources/read",
                                              .flags = MCP_METHOD_CACHEABLE | MCP_METHOD_PRIVATE,
                                              .served = serves_resources,
                                              .start = read_start,
                                              .run = read_run};
const mcp_method mcp_method_subscribe = {.name = "resources/subscribe",
                                         .flags = MCP_METHOD_LEGACY_ONLY,
                                         .served = serves_resources,
                                         .start = subscribe_start};
const mcp_method mcp_method_unsubscribe = {.name = "resources/unsubscribe",
                                           .flags = MCP_METHOD_LEGACY_ONLY,
                                           .served = serves_resources,
                                           .start = unsubscribe_start};
