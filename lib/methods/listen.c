/* listen.c: who hears about changes. subscriptions/listen (2026-07-28): a
 * request kept open whose stream carries the notifications the client opted
 * in to, each tagged with the subscription's id; and, for list changes, the
 * 2025 sessions that initialized (their standalone stream).
 *
 * Locking. Notifications come from any thread (a handler, the runtime's
 * API). The registry's mutex is held while they are sent, and a
 * subscription leaves the registry (on_end, from the session) under the same
 * mutex before its handle goes: a sender never meets a freed handle. The
 * same holds for the 2025 sessions, which leave before they are freed
 * (session_gone).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "internal/options.h"
#include "mcpidl/jsonw.h"

enum {
    HEAR_TOOLS = 1 << 0,
    HEAR_PROMPTS = 1 << 1,
    HEAR_RESOURCES = 1 << 2,
};

typedef struct listener {
    struct listener *next;
    mcp_listeners *owner;
    mcp_held *h;
    unsigned hears; /* HEAR_* */
    char **uris;    /* resourceSubscriptions honoured */
    size_t nuris;
} listener;

typedef struct legacy {
    struct legacy *next;
    mcp_session *s;
} legacy;

struct mcp_listeners {
    pthread_mutex_t mu;
    listener *list;
    legacy *sessions;
};

mcp_listeners *mcp_listeners_new(void)
{
    mcp_listeners *l = calloc(1, sizeof *l);
    if (l)
        pthread_mutex_init(&l->mu, NULL);
    return l;
}

static void listener_free(listener *x)
{
    for (size_t i = 0; i < x->nuris; i++)
        free(x->uris[i]);
    free(x->uris);
    free(x);
}

void mcp_listeners_free(mcp_listeners *l)
{
    if (!l)
        return;
    /* Every session ended before the runtime: nothing is left but memory. */
    for (listener *x = l->list, *next; x; x = next) {
        next = x->next;
        listener_free(x);
    }
    for (legacy *g = l->sessions, *next; g; g = next) {
        next = g->next;
        free(g);
    }
    pthread_mutex_destroy(&l->mu);
    free(l);
}

void mcp_listeners_add_session(mcp_listeners *l, mcp_session *s)
{
    legacy *g = malloc(sizeof *g);
    if (!g)
        return; /* the session simply hears no list changes */
    g->s = s;
    pthread_mutex_lock(&l->mu);
    g->next = l->sessions;
    l->sessions = g;
    pthread_mutex_unlock(&l->mu);
}

void mcp_listeners_session_gone(mcp_listeners *l, mcp_session *s)
{
    pthread_mutex_lock(&l->mu);
    for (legacy **pp = &l->sessions; *pp;) {
        if ((*pp)->s == s) {
            legacy *g = *pp;
            *pp = g->next;
            free(g);
        } else {
            pp = &(*pp)->next;
        }
    }
    pthread_mutex_unlock(&l->mu);
}

/* A notification of `method` with params {_meta:{subscriptionId}} plus
 * `more` (members text, or NULL), to one subscription. */
static void send_tagged(listener *x, const char *method, const char *more)
{
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_printf(&m,
                   "{\"jsonrpc\":\"2.0\",\"method\":\"%s\",\"params\":{\"_meta\":{\"" MCP_META_SUBSCRIPTION_ID "\":%s}",
                   method, mcp_held_id(x->h));
    if (more) {
        mcp_buf_putc(&m, ',');
        mcp_buf_puts(&m, more);
    }
    mcp_buf_puts(&m, "}}");
    if (!m.oom)
        mcp_held_send(x->h, m.data, m.len);
    mcp_buf_free(&m);
}

void mcp_listeners_updated(mcp_listeners *l, const char *uri)
{
    if (!uri)
        return;
    mcp_buf more;
    mcp_buf_init(&more);
    mcp_buf_puts(&more, "\"uri\":");
    mcp_handler_string(&more, uri, strlen(uri));
    if (more.oom) {
        mcp_buf_free(&more);
        return;
    }
    pthread_mutex_lock(&l->mu);
    for (listener *x = l->list; x; x = x->next)
        for (size_t i = 0; i < x->nuris; i++)
            if (strcmp(x->uris[i], uri) == 0) {
                send_tagged(x, "notifications/resources/updated", more.data);
                break;
            }
    pthread_mutex_unlock(&l->mu);
    mcp_buf_free(&more);
}

void mcp_listeners_list_changed(mcp_listeners *l, const mcp_server *srv, mcp_list_kind which)
{
    unsigned hear, flag;
    const char *method;
    switch (which) {
    case MCP_LIST_KIND_TOOLS:
        hear = HEAR_TOOLS, flag = MCP_SERVER_TOOLS_CHANGE, method = "notifications/tools/list_changed";
        break;
    case MCP_LIST_KIND_PROMPTS:
        hear = HEAR_PROMPTS, flag = MCP_SERVER_PROMPTS_CHANGE, method = "notifications/prompts/list_changed";
        break;
    case MCP_LIST_KIND_RESOURCES:
        hear = HEAR_RESOURCES, flag = MCP_SERVER_RESOURCES_CHANGE, method = "notifications/resources/list_changed";
        break;
    default:
        return;
    }
    /* Only what the server announced (capabilities' listChanged). */
    if (!(srv->flags & flag))
        return;
    char plain[128];
    size_t n = (size_t)snprintf(plain, sizeof plain, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\"}", method);
    pthread_mutex_lock(&l->mu);
    for (listener *x = l->list; x; x = x->next)
        if (x->hears & hear)
            send_tagged(x, method, NULL);
    for (legacy *g = l->sessions; g; g = g->next)
        mcp_session_notify(g->s, plain, n);
    pthread_mutex_unlock(&l->mu);
}

/* ---------------------------------------------------------------- subscriptions/listen */

/* The session ends the subscription (cancelled, gone, stopping). */
static void listener_end(mcp_held *h, void *arg)
{
    (void)h;
    listener *x = arg;
    mcp_listeners *l = x->owner;
    pthread_mutex_lock(&l->mu);
    for (listener **pp = &l->list; *pp; pp = &(*pp)->next)
        if (*pp == x) {
            *pp = x->next;
            break;
        }
    pthread_mutex_unlock(&l->mu);
    listener_free(x);
}

static bool flag_on(mcp_req *r, const mcp_json *filter, const char *key, bool *bad)
{
    const mcp_json *v = mcp_json_get(filter, key);
    if (v && v->kind != MCP_JBOOL) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: notifications.%s must be a boolean", key);
        *bad = true;
        return false;
    }
    return v && v->b;
}

static void listen_start(mcp_req *r)
{
    const mcp_env *env = mcp_req_env(r);
    const mcp_server *srv = env->server;
    const mcp_json *filter = mcp_json_get(mcp_req_params(r), "notifications");
    if (!filter || filter->kind != MCP_JOBJECT) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                      filter ? "Invalid params: notifications must be an object"
                             : "Invalid params: missing notifications (the filter of what to listen to)");
        return;
    }
    bool bad = false;
    unsigned want = (flag_on(r, filter, "toolsListChanged", &bad) ? HEAR_TOOLS : 0);
    if (!bad)
        want |= flag_on(r, filter, "promptsListChanged", &bad) ? HEAR_PROMPTS : 0;
    if (!bad)
        want |= flag_on(r, filter, "resourcesListChanged", &bad) ? HEAR_RESOURCES : 0;
    if (bad)
        return;
    const mcp_json *uris = mcp_json_get(filter, "resourceSubscriptions");
    if (uris && uris->kind != MCP_JARRAY) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                      "Invalid params: notifications.resourceSubscriptions must be an array");
        return;
    }
    for (size_t i = 0; uris && i < uris->n; i++)
        if (uris->items[i]->kind != MCP_JSTRING || uris->items[i]->has_nul) {
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                          "Invalid params: notifications.resourceSubscriptions holds a value that is not a URI string");
            return;
        }
    if (uris && uris->n > (size_t)env->opt.max_subscriptions) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                      "Invalid params: more than %d resourceSubscriptions in one subscription",
                      env->opt.max_subscriptions);
        return;
    }

    /* What is honoured: the kinds the server announces changes of, the URIs it serves. */
    unsigned hears = want & (((srv->flags & MCP_SERVER_TOOLS_CHANGE) ? HEAR_TOOLS : 0) |
                             ((srv->flags & MCP_SERVER_PROMPTS_CHANGE) ? HEAR_PROMPTS : 0) |
                             ((srv->flags & MCP_SERVER_RESOURCES_CHANGE) ? HEAR_RESOURCES : 0));
    listener *x = calloc(1, sizeof *x);
    bool oom = !x;
    if (x && uris && uris->n) {
        x->uris = calloc(uris->n, sizeof *x->uris);
        oom = !x->uris;
        for (size_t i = 0; !oom && i < uris->n; i++) {
            const mcp_json *u = uris->items[i];
            if (u->len > MCP_MAX_SUBSCRIBE_URI || !mcp_uri_served(mcp_req_methods(r), u->s, mcp_req_arena(r), &oom))
                continue;
            bool dup = false;
            for (size_t k = 0; k < x->nuris && !dup; k++)
                dup = strcmp(x->uris[k], u->s) == 0;
            if (dup)
                continue;
            x->uris[x->nuris] = strdup(u->s);
            oom = !x->uris[x->nuris];
            x->nuris += !oom;
        }
    }
    /* The acknowledgment's filter. */
    mcp_buf ack;
    mcp_buf_init(&ack);
    mcp_buf_puts(&ack, "\"notifications\":{");
    bool first = true;
    static const struct {
        unsigned bit;
        const char *key;
    } KINDS[] = {{HEAR_TOOLS, "toolsListChanged"},
                 {HEAR_PROMPTS, "promptsListChanged"},
                 {HEAR_RESOURCES, "resourcesListChanged"}};
    for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS; i++)
        if (hears & KINDS[i].bit) {
            mcp_buf_printf(&ack, "%s\"%s\":true", first ? "" : ",", KINDS[i].key);
            first = false;
        }
    if (x && x->nuris) {
        mcp_buf_printf(&ack, "%s\"resourceSubscriptions\":[", first ? "" : ",");
        for (size_t i = 0; i < x->nuris; i++) {
            if (i)
                mcp_buf_putc(&ack, ',');
            mcp_json_cstring(&ack, x->uris[i]);
        }
        mcp_buf_putc(&ack, ']');
    }
    mcp_buf_putc(&ack, '}');
    /* Held, acknowledged and registered under the registry's lock: nothing
     * reaches the stream before the acknowledgment, and a session that ends
     * the subscription at once (another thread stopping it) waits for the
     * lock and finds it registered. */
    const char *why = NULL;
    mcp_listeners *l = mcp_methods_listeners(mcp_req_methods(r));
    pthread_mutex_lock(&l->mu);
    if (!oom && !ack.oom) {
        x->hears = hears;
        x->owner = l;
        x->h = mcp_req_hold(r, listener_end, x, &why);
    }
    if (x && x->h) {
        send_tagged(x, "notifications/subscriptions/acknowledged", ack.data);
        x->next = l->list;
        l->list = x;
    }
    pthread_mutex_unlock(&l->mu);
    mcp_buf_free(&ack);
    if (!x || !x->h) {
        if (x)
            listener_free(x);
        if (why)
            mcp_req_error(r, MCP_RPC_INVALID_REQUEST, "Invalid Request: %s", why);
        else
            mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    }
}

const mcp_method mcp_method_listen = {
    .name = "subscriptions/listen", .flags = MCP_METHOD_MODERN_ONLY, .start = listen_start};

/* ---------------------------------------------------------------- the handler's API */

void mcp_list_changed(mcp_call *call, mcp_list_kind which)
{
    if (call && call->job) {
        const mcp_env *env = mcp_job_env(call->job);
        mcp_listeners_list_changed(mcp_methods_listeners(env->mstate), env->server, which);
    }
}
