/* session.c: one MCP session: JSON-RPC 2.0, the lifecycle, dispatch through
 * the method table, in-flight requests, their cancellation, and requests to
 * the client.
 *
 * Threads. The reading thread calls mcp_session_message(); it owns the
 * session's lifecycle state (initialized, the negotiated version, what the
 * client declared) and runs each method's start. A method that hands its
 * request to a worker makes it a job: the slot holding the message (its
 * arena and buffers) moves to the job, which a worker runs. Shared between
 * threads, under `mu`: the in-flight list, the count of active jobs and of
 * those running, the queue of jobs waiting for a turn, the free list of
 * slots, the table of requests to the client. The sink serialises writes
 * itself.
 *
 * Admission. At most max_concurrent of a session's jobs are handed to the
 * workers at once; later ones wait in the session's queue, in order, and
 * each job that ends hands its turn to the first of them. The queue holds
 * at most max_queued jobs, and all sessions' queues together at most
 * max_queued_bytes of parsed messages (env->queued_bytes). Past either
 * bound, the reading thread waits for room (backpressure: stdio stops
 * reading), or, for a session told to refuse (HTTP, whose connections must
 * not wait on one another), the request is answered -32000 at once. A
 * cancelled job leaves the queue at once and never runs.
 *
 * Exactly one answer or none. A job answers unless its `cancelled` flag is
 * set when it leaves the in-flight list; notifications/cancelled sets the
 * flag only while the job is on the list. Both happen under `mu`, so either
 * the cancellation is seen and nothing is sent, or it comes too late, finds
 * nothing, and the answer is sent: never both, never twice.
 *
 * Memory. Each message is parsed into the arena of a slot; slots are recycled
 * through a free list (the arena reset, the buffers cleared, not freed), so a
 * steady stream of requests allocates nothing.
 */
#include "internal/rpc.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcpidl/jsonw.h"

/* Arenas and buffers that grew beyond this for one request are released
 * rather than kept, so one huge message does not pin its memory forever. */
#define RETAIN_BYTES ((size_t)1 << 20)
/* Slots kept for reuse, by all the sessions of a runtime together: enough for
 * a steady stream; a burst's extra slots (a queue of a thousand requests) are
 * released as they come back. */
#define KEEP_SLOTS 64

/* ---------------------------------------------------------------- types */

typedef enum { ID_NONE, ID_INT, ID_STR } id_kind;

typedef struct rpc_id {
    id_kind kind;
    int64_t i;
    const char *s; /* unescaped; may hold NULs */
    size_t len;
} rpc_id;

typedef struct slot {
    struct slot *next;
    mcp_arena arena;
    mcp_buf result; /* a job's result; a batch's answer */
    mcp_buf head;   /* the text around it */
} slot;

typedef struct batch {
    slot *sl; /* holds the parsed array; sl->result collects the answers */
    pthread_mutex_t mu;
    int refs; /* the reading thread's, and one per job still running */
    size_t nanswers;
    void *rctx;  /* the transport's reply context of the whole batch */
    bool expect; /* some element gets an answer: the batch gets a final call */
} batch;

/* The caching hints of a result (2026-07-28: on discover, the lists and
 * resources/read). */
typedef struct cache_hint {
    bool set; /* given by the method (else the table's flags decide) */
    long long ttl_ms;
    bool private_scope;
} cache_hint;

struct mcp_job {
    mcp_task task;               /* first: the pool's link (run_job casts back) */
    struct mcp_job *prev, *next; /* the in-flight list */
    mcp_session *s;
    slot *sl; /* the job's own: the handler's arena, the answer's text */
    batch *b; /* NULL, or the batch the request came in */
    const mcp_method *m;
    void *data; /* what the method's start handed over */
    const mcp_json *params, *meta;
    mcp_reqctx ctx;
    cache_hint cache; /* mcp_job_set_cache */
    rpc_id id;
    void *rctx; /* the transport's reply context */
    atomic_bool cancelled;
    /* Under the session's mu: waiting in its queue (not yet handed to the
     * workers), the next one there, and the bytes it counts while it waits. */
    bool waiting;
    bool turn; /* handed to the workers: counted in running */
    bool here; /* run on the reading thread (mcp_req_run_here): cannot ask the client */
    struct mcp_job *wnext;
    size_t qbytes;
};

struct mcp_req {
    mcp_session *s;
    slot *sl;
    batch *b;
    const mcp_method *m;
    rpc_id id;
    const mcp_json *params, *meta;
    mcp_reqctx ctx;
    bool taken; /* a job took over sl */
};

/* A request kept open without an answer (mcp_req_hold): a subscription. */
struct mcp_held {
    struct mcp_held *prev, *next; /* the session's list, under mu */
    mcp_session *s;
    rpc_id id;     /* its string (s) is id_text's copy */
    char *id_json; /* the id as JSON text */
    void *rctx;
    void (*on_end)(mcp_held *h, void *arg);
    void *arg;
};

/* A request to the client a handler waits for (mcp_job_ask). */
typedef enum { P_WAIT, P_RESULT, P_ERROR } pend_state;

typedef struct pending {
    bool used;
    int64_t id; /* the request's id (the session's own counter) */
    mcp_job *j; /* the job whose handler waits */
    pend_state state;
    char *text; /* P_RESULT: the result as JSON text; P_ERROR: the message (malloc) */
    size_t len;
    pthread_cond_t cv; /* signalled under mu when state changes or the wait must end */
} pending;

typedef mcp_job job;

struct mcp_session {
    const mcp_env *env;
    const mcp_options *set; /* &env->opt */
    mcp_sink_fn sink;
    void *sink_ctx;
    atomic_bool broken;
    mcp_pool *own_pool; /* the session's own workers (stdio), shut down with it */

    /* The reading thread's. */
    bool stateless; /* every request is modern (an HTTP request of a modern revision) */
    bool initialized;
    mcp_reqctx ctx;           /* what requests of this session carry */
    void *rctx;               /* the reply context of the message being handled */
    const mcp_caller *caller; /* who sent it */
    mcp_buf reply;            /* an answer being written */
    mcp_buf msg;              /* an error message being written */

    /* Shared, under mu. */
    pthread_mutex_t mu;
    pthread_cond_t idle; /* active dropped to 0 */
    job *inflight;
    int active;               /* jobs not yet finished (drain waits for 0) */
    int running;              /* jobs handed to the workers: at most max_concurrent */
    job *qhead, *qtail;       /* jobs waiting for a turn, first come first served */
    int nqueued;              /* at most max_queued */
    pthread_cond_t room;      /* a job ended or left the queue */
    bool refuse_when_full;    /* past the queue's bounds, refuse rather than wait */
    unsigned long room_waits; /* times the reading thread waited for room */

    mcp_pool *pool;        /* NULL: handlers run on the reading thread */
    mcp_pool_queue *queue; /* the session's turn in the pool */

    /* logging/setLevel (read when a request starts). */
    atomic_int log_min;

    /* Requests to the client, under mu: the table (max_pending entries,
     * allocated on first use), the next id, whether the session is ending. */
    pending *pend;
    int64_t next_req_id;
    bool closing;

    /* Requests kept open (subscriptions), under mu. */
    mcp_held *held;
    int nheld;

    unsigned long long serial; /* unique in the process (mcp_session_serial) */
};

static const mcp_logger *LOG(const mcp_session *s) { return s->env->log; }

/* The writer's names (jsonw.h), in one place. */
static void put_str(mcp_buf *b, const char *s, size_t n) { mcp_json_string(b, s, n); }
static void put_int(mcp_buf *b, int64_t v) { mcp_json_int(b, v); }

static bool str_is(const mcp_json *v, const char *lit)
{
    size_t n = strlen(lit);
    return v && v->kind == MCP_JSTRING && v->len == n && memcmp(v->s, lit, n) == 0;
}

/* ---------------------------------------------------------------- versions */

const char *const mcp_versions[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
const size_t mcp_nversions = sizeof mcp_versions / sizeof *mcp_versions;
const char *const mcp_modern_versions[] = {"2026-07-28"};
const size_t mcp_nmodern_versions = sizeof mcp_modern_versions / sizeof *mcp_modern_versions;
const char mcp_supported_versions_json[] =
    "[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\",\"2024-11-05\"]";

const char *mcp_modern_version_find(const char *name, size_t len)
{
    for (size_t i = 0; i < mcp_nmodern_versions; i++)
        if (strlen(mcp_modern_versions[i]) == len && memcmp(mcp_modern_versions[i], name, len) == 0)
            return mcp_modern_versions[i];
    return NULL;
}

bool mcp_protocol_version_known(const char *version)
{
    return version && (mcp_version_find(version, strlen(version)) != NULL ||
                       mcp_modern_version_find(version, strlen(version)) != NULL);
}

const char *mcp_version_find(const char *name, size_t len)
{
    for (size_t i = 0; i < mcp_nversions; i++)
        if (strlen(mcp_versions[i]) == len && memcmp(mcp_versions[i], name, len) == 0)
            return mcp_versions[i];
    return NULL;
}

/* ---------------------------------------------------------------- slots */

static slot *slot_new(void)
{
    slot *sl = calloc(1, sizeof *sl);
    if (!sl)
        return NULL;
    mcp_arena_init(&sl->arena);
    mcp_buf_init(&sl->result);
    mcp_buf_init(&sl->head);
    return sl;
}

static void slot_destroy(slot *sl)
{
    mcp_arena_free(&sl->arena);
    mcp_buf_free(&sl->result);
    mcp_buf_free(&sl->head);
    free(sl);
}

static void buf_recycle(mcp_buf *b)
{
    if (b->cap > RETAIN_BYTES || b->oom)
        mcp_buf_free(b);
    else
        mcp_buf_clear(b);
}

static void slot_recycle(slot *sl)
{
    if (sl->arena.used > RETAIN_BYTES)
        mcp_arena_free(&sl->arena);
    else
        mcp_arena_reset(&sl->arena);
    buf_recycle(&sl->result);
    buf_recycle(&sl->head);
}

/* Slots kept between messages for all the sessions of an env: a session
 * holds none while it waits (ten thousand idle HTTP sessions would otherwise
 * keep ten thousand arenas), and whichever session has a message next takes
 * a warm one. */
struct mcp_slot_cache {
    pthread_mutex_t mu;
    slot *head;
    int n; /* at most KEEP_SLOTS */
};

mcp_slot_cache *mcp_slot_cache_new(void)
{
    mcp_slot_cache *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->mu, NULL);
    return c;
}

void mcp_slot_cache_free(mcp_slot_cache *c)
{
    if (!c)
        return;
    for (slot *sl = c->head, *next; sl; sl = next) {
        next = sl->next;
        slot_destroy(sl);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

static slot *cache_take(mcp_slot_cache *c)
{
    pthread_mutex_lock(&c->mu);
    slot *sl = c->head;
    if (sl) {
        c->head = sl->next;
        c->n--;
    }
    pthread_mutex_unlock(&c->mu);
    if (!sl)
        return slot_new();
    sl->next = NULL;
    return sl;
}

/* sl is recycled already. */
static void cache_give(mcp_slot_cache *c, slot *sl)
{
    pthread_mutex_lock(&c->mu);
    bool keep = c->n < KEEP_SLOTS;
    if (keep) {
        sl->next = c->head;
        c->head = sl;
        c->n++;
    }
    pthread_mutex_unlock(&c->mu);
    if (!keep)
        slot_destroy(sl);
}

static slot *slot_get(mcp_session *s) { return cache_take(s->env->slots); }

static void slot_put(mcp_session *s, slot *sl)
{
    slot_recycle(sl);
    cache_give(s->env->slots, sl);
}


/* ---------------------------------------------------------------- writing answers */

/* Under mu: every handler waiting for the client looks again. */
static void pending_wake_all(mcp_session *s)
{
    for (int i = 0; s->pend && i < s->set->max_pending; i++)
        if (s->pend[i].used)
            pthread_cond_broadcast(&s->pend[i].cv);
}

static void mark_broken(mcp_session *s)
{
    if (atomic_exchange(&s->broken, true))
        return;
    mcp_log(LOG(s), MCP_LOG_INFO, "the client is gone: dropping the requests in flight");
    /* Handlers that look may stop early; nothing they produce can be sent. */
    pthread_mutex_lock(&s->mu);
    for (job *j = s->inflight; j; j = j->next)
        atomic_store(&j->cancelled, true);
    pending_wake_all(s);
    pthread_mutex_unlock(&s->mu);
}

/* Once the peer is gone, nothing more is sent, but every final call still
 * reaches the transport (with no parts), so that it can let go of rctx. */
static void sink_send(mcp_session *s, void *rctx, const mcp_out_part *parts, size_t n, bool final)
{
    if (atomic_load(&s->broken)) {
        if (final)
            s->sink(s->sink_ctx, rctx, NULL, 0, true);
        return;
    }
    if (!s->sink(s->sink_ctx, rctx, parts, n, final))
        mark_broken(s);
}

static void emit(mcp_session *s, batch *b, void *rctx, const mcp_out_part *parts, size_t n);

/* An answer that needs no memory: -32603 with the id when it is an integer;
 * to the client, or into the batch. */
static void send_oom(mcp_session *s, batch *b, void *rctx, const rpc_id *id)
{
    char text[160];
    int n;
    if (id && id->kind == ID_INT)
        n = snprintf(text, sizeof text,
                     "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"error\":{\"code\":-32603,"
                     "\"message\":\"Internal error: out of memory\"}}",
                     (long long)id->i);
    else
        n = snprintf(text, sizeof text,
                     "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32603,"
                     "\"message\":\"Internal error: out of memory\"}}");
    mcp_out_part part = {text, (size_t)n};
    emit(s, b, rctx, &part, 1);
}

static void batch_add(batch *b, const mcp_out_part *parts, size_t n)
{
    pthread_mutex_lock(&b->mu);
    mcp_buf *out = &b->sl->result;
    mcp_buf_putc(out, b->nanswers ? ',' : '[');
    for (size_t i = 0; i < n; i++)
        mcp_buf_put(out, parts[i].p, parts[i].n);
    b->nanswers++;
    pthread_mutex_unlock(&b->mu);
}

/* Send one whole answer, to the client or into its batch. */
static void emit(mcp_session *s, batch *b, void *rctx, const mcp_out_part *parts, size_t n)
{
    if (b)
        batch_add(b, parts, n);
    else
        sink_send(s, rctx, parts, n, true);
}

static void batch_unref(mcp_session *s, batch *b)
{
    pthread_mutex_lock(&b->mu);
    assert(b->refs > 0);
    bool last = --b->refs == 0;
    pthread_mutex_unlock(&b->mu);
    if (!last)
        return;
    slot *sl = b->sl;
    size_t nanswers = b->nanswers;
    void *rctx = b->rctx;
    bool expect = b->expect;
    pthread_mutex_destroy(&b->mu); /* b lives in sl's arena */
    if (nanswers > 0) {
        /* A batch of notifications only gets no answer at all. */
        mcp_buf_putc(&sl->result, ']');
        if (sl->result.oom) {
            send_oom(s, NULL, rctx, NULL);
        } else {
            mcp_out_part part = {sl->result.data, sl->result.len};
            sink_send(s, rctx, &part, 1, true);
        }
    } else if (expect) {
        /* Every request of it was cancelled: no answer, but a final call. */
        sink_send(s, rctx, NULL, 0, true);
    }
    slot_put(s, sl);
}

static void put_id(mcp_buf *out, const rpc_id *id)
{
    if (id->kind == ID_INT)
        put_int(out, id->i);
    else
        put_str(out, id->s, id->len);
}

/* {"jsonrpc":"2.0","id":ID,"result": */
static void render_head(mcp_buf *out, const rpc_id *id)
{
    mcp_buf_puts(out, "{\"jsonrpc\":\"2.0\",\"id\":");
    put_id(out, id);
    mcp_buf_puts(out, ",\"result\":");
}

/* A whole error answer with `data` (JSON text, NULL: none); the id is left
 * out when unknown (NULL or ID_NONE). */
static void render_error_data(mcp_buf *out, const rpc_id *id, int code, const char *msg, size_t len, const char *data,
                              size_t data_len)
{
    mcp_buf_puts(out, "{\"jsonrpc\":\"2.0\",");
    if (id && id->kind != ID_NONE) {
        mcp_buf_puts(out, "\"id\":");
        put_id(out, id);
        mcp_buf_putc(out, ',');
    }
    mcp_buf_printf(out, "\"error\":{\"code\":%d,\"message\":", code);
    put_str(out, msg, len);
    if (data) {
        mcp_buf_puts(out, ",\"data\":");
        mcp_buf_put(out, data, data_len);
    }
    mcp_buf_puts(out, "}}");
}

/* A whole error answer; the id is left out when unknown (NULL or ID_NONE). */
static void render_error(mcp_buf *out, const rpc_id *id, int code, const char *msg, size_t len)
{
    mcp_buf_puts(out, "{\"jsonrpc\":\"2.0\",");
    if (id && id->kind != ID_NONE) {
        mcp_buf_puts(out, "\"id\":");
        put_id(out, id);
        mcp_buf_putc(out, ',');
    }
    mcp_buf_printf(out, "\"error\":{\"code\":%d,\"message\":", code);
    put_str(out, msg, len);
    mcp_buf_puts(out, "}}");
}


/* A modern result's own members, after the head: "{"resultType":...,
 * "_meta":{serverInfo},["ttlMs":..,"cacheScope":..]" then "," or "}" as the
 * method's result text (an object) has members or none. Returns how many
 * bytes of that text the caller still sends after it (without its '{').
 * A retry of a multi round-trip request (params with inputResponses or
 * requestState) is never cacheable. */
static size_t put_modern_result(mcp_buf *out, const mcp_env *env, const mcp_method *m, int code, const cache_hint *hint,
                                const mcp_json *params, const char *result, size_t n)
{
    /* input_required and task results are never cacheable. */
    bool input_required = code != 0;
    mcp_buf_puts(out, code == MCP_RUN_INPUT_REQUIRED ? "{\"resultType\":\"input_required\""
                      : code == MCP_RUN_TASK         ? "{\"resultType\":\"task\""
                                                     : "{\"resultType\":\"complete\"");
    if ((m->flags & MCP_METHOD_FULL_INFO) && env->meta_full) {
        mcp_buf_puts(out, ",\"_meta\":{");
        mcp_buf_puts(out, env->meta_full);
    } else {
        mcp_buf_puts(out, ",\"_meta\":{\"" MCP_META_SERVER_INFO "\":");
        mcp_buf_puts(out, env->server_info);
    }
    mcp_buf_putc(out, '}');
    if (!input_required && (m->flags & MCP_METHOD_CACHEABLE)) {
        bool retry = mcp_json_get(params, "inputResponses") || mcp_json_get(params, "requestState");
        long long ttl = env->cache_ttl_ms;
        bool priv = strcmp(env->cache_scope, "private") == 0;
        if (hint && hint->set) {
            ttl = hint->ttl_ms;
            priv = hint->private_scope;
        } else if (m->flags & MCP_METHOD_PRIVATE) {
            ttl = 0;
            priv = true;
        }
        if (retry) {
            ttl = 0;
            priv = true;
        }
        mcp_buf_printf(out, ",\"ttlMs\":%lld,\"cacheScope\":\"%s\"", ttl, priv ? "private" : "public");
    }
    /* result is an object: "{}" has nothing more to say. */
    size_t i = 1;
    while (i < n && (result[i] == ' ' || result[i] == '\n'))
        i++;
    if (n < 2 || result[i] == '}') {
        mcp_buf_putc(out, '}');
        return 0;
    }
    mcp_buf_putc(out, ',');
    return n - 1;
}

/* Reading thread: a result whose text is result[0..n); a modern request's
 * carries resultType and the server's identity. */
static void reply_result_ctx(mcp_session *s, batch *b, const rpc_id *id, const mcp_reqctx *ctx, const mcp_method *m,
                             const mcp_json *params, const char *result, size_t n)
{
    mcp_buf_clear(&s->reply);
    render_head(&s->reply, id);
    size_t rest = n;
    if (ctx && ctx->modern) {
        rest = put_modern_result(&s->reply, s->env, m, 0, NULL, params, result, n);
        result += n - rest;
    }
    if (s->reply.oom) {
        send_oom(s, b, s->rctx, id);
        return;
    }
    mcp_out_part parts[3] = {{s->reply.data, s->reply.len}, {result, rest}, {"}", 1}};
    emit(s, b, s->rctx, parts, 3);
}

/* Reading thread: an error; the message is formatted, then, when `name` is
 * not NULL, followed by name[0..name_len) (text from the client). */
static void reply_error_va(mcp_session *s, batch *b, const rpc_id *id, int code, const char *name, size_t name_len,
                           const char *fmt, va_list ap)
{
    char text[256];
    int n = vsnprintf(text, sizeof text, fmt, ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof text)
        n = sizeof text - 1;
    mcp_buf_clear(&s->msg);
    mcp_buf_put(&s->msg, text, (size_t)n);
    if (name)
        mcp_buf_put(&s->msg, name, name_len);
    mcp_buf_clear(&s->reply);
    if (!s->msg.oom)
        render_error(&s->reply, id, code, s->msg.data, s->msg.len);
    if (s->msg.oom || s->reply.oom) {
        send_oom(s, b, s->rctx, id);
        return;
    }
    mcp_out_part part = {s->reply.data, s->reply.len};
    emit(s, b, s->rctx, &part, 1);
}

static void reply_error(mcp_session *s, batch *b, const rpc_id *id, int code, const char *fmt, ...) MCP_PRINTF(5, 6);
static void reply_error(mcp_session *s, batch *b, const rpc_id *id, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reply_error_va(s, b, id, code, NULL, 0, fmt, ap);
    va_end(ap);
}

static void reply_error_named(mcp_session *s, batch *b, const rpc_id *id, int code, const char *name, size_t name_len,
                              const char *fmt, ...) MCP_PRINTF(7, 8);
static void reply_error_named(mcp_session *s, batch *b, const rpc_id *id, int code, const char *name, size_t name_len,
                              const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reply_error_va(s, b, id, code, name, name_len, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- the request API */

mcp_session *mcp_req_session(const mcp_req *r) { return r->s; }
unsigned long long mcp_session_serial(const mcp_session *s) { return s->serial; }
const mcp_env *mcp_req_env(const mcp_req *r) { return r->s->env; }
const mcp_json *mcp_req_params(const mcp_req *r) { return r->params; }
const mcp_json *mcp_req_meta(const mcp_req *r) { return r->meta; }
mcp_arena *mcp_req_arena(mcp_req *r) { return &r->sl->arena; }

void mcp_req_result(mcp_req *r, const char *json, size_t len)
{
    reply_result_ctx(r->s, r->b, &r->id, &r->ctx, r->m, r->params, json, len);
}

const mcp_reqctx *mcp_req_ctx(const mcp_req *r) { return &r->ctx; }

const mcp_method *mcp_req_method(const mcp_req *r) { return r->m; }

void mcp_req_error(mcp_req *r, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reply_error_va(r->s, r->b, &r->id, code, NULL, 0, fmt, ap);
    va_end(ap);
}

void mcp_req_error_named(mcp_req *r, int code, const char *name, size_t name_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    reply_error_va(r->s, r->b, &r->id, code, name, name_len, fmt, ap);
    va_end(ap);
}

void mcp_req_error_data(mcp_req *r, int code, const char *msg, const char *data, size_t data_len)
{
    mcp_session *s = r->s;
    mcp_buf_clear(&s->reply);
    render_error_data(&s->reply, &r->id, code, msg, strlen(msg), data, data_len);
    if (s->reply.oom) {
        send_oom(s, r->b, s->rctx, &r->id);
        return;
    }
    mcp_out_part part = {s->reply.data, s->reply.len};
    emit(s, r->b, s->rctx, &part, 1);
}

void mcp_session_begin(mcp_session *s, const char *version, unsigned client_caps)
{
    s->initialized = true;
    s->ctx.version = version;
    s->ctx.client_caps = client_caps;
}

void mcp_session_set_log_min(mcp_session *s, int level) { atomic_store(&s->log_min, level); }

/* ---------------------------------------------------------------- jobs */

static void inflight_remove(mcp_session *s, job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else
        s->inflight = j->next;
    if (j->next)
        j->next->prev = j->prev;
    j->prev = j->next = NULL;
}

/* The answer of a run: parts[0..*nparts) (in the job's slot). */
static size_t run_answer(job *j, mcp_out_part parts[3])
{
    slot *sl = j->sl;
    mcp_buf_clear(&sl->result);
    mcp_buf_clear(&sl->head);
    const char *msg = NULL;
    mcp_buf data;
    mcp_buf_init(&data);
    int code = j->m->run(j, j->data, &sl->result, &msg, &data);
    size_t nparts = 0;
    if (!sl->result.oom && !data.oom) {
        if (code != 0 && code != MCP_RUN_INPUT_REQUIRED && code != MCP_RUN_TASK) {
            if (!msg)
                msg = "Internal error";
            render_error_data(&sl->head, &j->id, code, msg, strlen(msg), data.len ? data.data : NULL, data.len);
            if (!sl->head.oom) {
                parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
                nparts = 1;
            }
        } else {
            render_head(&sl->head, &j->id);
            const char *text = sl->result.data ? sl->result.data : "{}";
            size_t len = sl->result.data ? sl->result.len : 2, rest = len;
            if (j->ctx.modern)
                rest = put_modern_result(&sl->head, j->s->env, j->m, code, &j->cache, j->params, text, len);
            if (!sl->head.oom) {
                parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
                parts[1] = (mcp_out_part){text + (len - rest), rest};
                parts[2] = (mcp_out_part){"}", 1};
                nparts = 3;
            }
        }
    }
    mcp_buf_free(&data);
    if (nparts == 0) { /* out of memory */
        mcp_log(LOG(j->s), MCP_LOG_ERROR, "%s: out of memory", j->m->name);
        mcp_buf_free(&sl->head);
        static const char OOM[] = "Internal error: out of memory";
        render_error(&sl->head, &j->id, MCP_RPC_INTERNAL_ERROR, OOM, sizeof OOM - 1);
        if (!sl->head.oom) {
            parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
            nparts = 1;
        }
    }
    return nparts;
}

/* ---------------------------------------------------------------- the queue */

/* Take n bytes of the server's queue budget; false when they do not fit. */
static bool queue_bytes_take(mcp_session *s, size_t n)
{
    atomic_size_t *q = s->env->queued_bytes;
    size_t max = s->set->max_queued_bytes, cur = atomic_load(q);
    do {
        if (cur > max || n > max - cur)
            return false;
    } while (!atomic_compare_exchange_weak(q, &cur, cur + n));
    return true;
}

/* Under mu: take w off the queue (prev: the job before it, NULL when first). */
static void queue_unlink(mcp_session *s, job *w, job *prev)
{
    if (prev)
        prev->wnext = w->wnext;
    else
        s->qhead = w->wnext;
    if (s->qtail == w)
        s->qtail = prev;
    w->wnext = NULL;
    w->waiting = false;
    s->nqueued--;
    atomic_fetch_sub(s->env->queued_bytes, w->qbytes);
    pthread_cond_broadcast(&s->room);
}

/* Under mu: the first waiting job, given a turn when the session has room
 * for it (NULL: none). */
static job *queue_next(mcp_session *s)
{
    job *w = s->qhead;
    if (!w || s->running >= s->set->max_concurrent)
        return NULL;
    queue_unlink(s, w, NULL);
    w->turn = true;
    s->running++;
    return w;
}

/* Under mu: whether a request that needs `need` bytes while it waits can be
 * admitted now: it runs at once, or there is room in the queue (then the
 * bytes are taken). */
static bool queue_room(mcp_session *s, size_t need, bool *now)
{
    *now = s->running < s->set->max_concurrent;
    if (*now)
        return true;
    return s->nqueued < s->set->max_queued && queue_bytes_take(s, need);
}

/* ---------------------------------------------------------------- running jobs */

/* Run j, send its answer, release it; return the job of the session's queue
 * that takes its turn (NULL: none). */
static job *run_one(job *j)
{
    mcp_session *s = j->s;
    slot *sl = j->sl;
    batch *b = j->b;
    mcp_out_part parts[3];
    size_t nparts = 0;
    bool ran = !atomic_load(&j->cancelled) && !atomic_load(&s->broken);
    if (ran)
        nparts = run_answer(j, parts);

    /* The one decision: answer unless cancelled by now. The turn passes on
     * before the answer is written, so that the next job starts meanwhile. */
    pthread_mutex_lock(&s->mu);
    assert(s->active > 0 && !j->waiting);
    inflight_remove(s, j);
    bool cancelled = atomic_load(&j->cancelled);
    job *next = NULL;
    if (j->turn) { /* (not when it was dropped from the queue) */
        assert(s->running > 0);
        s->running--;
        next = queue_next(s);
        pthread_cond_broadcast(&s->room);
    }
    pthread_mutex_unlock(&s->mu);

    if (ran && !cancelled) {
        if (nparts > 0)
            emit(s, b, j->rctx, parts, nparts);
        else
            send_oom(s, b, j->rctx, &j->id);
    } else {
        mcp_log(LOG(s), MCP_LOG_DEBUG, "%s: cancelled, no answer", j->m->name);
        if (!b) /* the transport may close what it holds for the request */
            sink_send(s, j->rctx, NULL, 0, true);
    }
    /* j lives in sl's arena: nothing of j is used from here on. */
    slot_put(s, sl);
    if (b)
        batch_unref(s, b);

    pthread_mutex_lock(&s->mu);
    if (--s->active == 0)
        pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->mu);
    return next;
}

/* Hand j to the workers; when the pool is stopping (the session's last
 * moments), run it here, and the jobs that follow it in turn. */
static void start_job(mcp_session *s, job *j)
{
    while (j && !mcp_pool_submit(s->queue, &j->task))
        j = run_one(j);
}

static void run_job(mcp_task *t)
{
    job *j = (job *)t; /* the task is j's first member */
    mcp_session *s = j->s;
    start_job(s, run_one(j));
}

void mcp_session_refuse_when_full(mcp_session *s) { s->refuse_when_full = true; }

unsigned long mcp_session_room_waits(mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->room_waits;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static const mcp_method *find_method(const mcp_session *s, const mcp_json *name, bool modern);

/* Under mu: the error of a request past the queue's bounds. */
static void queue_full_message(const mcp_session *s, char *why, size_t cap)
{
    if (s->nqueued >= s->set->max_queued)
        snprintf(why, cap, "Service Unavailable: too many requests queued (limit %d)", s->set->max_queued);
    else
        snprintf(why, cap, "Service Unavailable: too many request bytes queued (limit %zu bytes)",
                 s->set->max_queued_bytes);
}

bool mcp_session_queue_full(mcp_session *s, const mcp_json *m, char *why, size_t cap)
{
    if (!s->pool || !m || m->kind != MCP_JOBJECT)
        return false;
    const mcp_method *method = find_method(s, mcp_json_get(m, "method"), s->stateless);
    if (!method || !method->run)
        return false;
    pthread_mutex_lock(&s->mu);
    bool full = s->running >= s->set->max_concurrent &&
                (s->nqueued >= s->set->max_queued || atomic_load(s->env->queued_bytes) >= s->set->max_queued_bytes);
    if (full && cap)
        queue_full_message(s, why, cap);
    pthread_mutex_unlock(&s->mu);
    return full;
}

static void req_run(mcp_req *r, void *data, bool here);

void mcp_req_run(mcp_req *r, void *data) { req_run(r, data, false); }

void mcp_req_run_here(mcp_req *r, void *data) { req_run(r, data, true); }

static void req_run(mcp_req *r, void *data, bool here)
{
    mcp_session *s = r->s;
    batch *b = r->b;
    assert(r->m->run && !r->taken);
    /* A lone message's job takes over its slot; in a batch it gets a slot of
     * its own and the batch keeps the one holding what the job reads. */
    slot *js = b ? slot_get(s) : r->sl;
    job *j = js ? mcp_arena_alloc(&js->arena, sizeof *j) : NULL;
    if (!j) {
        if (b && js)
            slot_put(s, js);
        reply_error(s, b, &r->id, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    memset(j, 0, sizeof *j);
    j->s = s;
    j->sl = js;
    j->b = b;
    j->m = r->m;
    j->data = data;
    j->params = r->params && r->params->kind == MCP_JOBJECT ? r->params : NULL;
    j->meta = r->meta;
    j->id = r->id;
    j->rctx = s->rctx;
    j->ctx = r->ctx;
    j->task.run = run_job;
    j->here = here || !s->pool;
    atomic_init(&j->cancelled, false);

    /* What it holds while it waits: its message's tree (a batch's whole
     * tree, for each of its requests: an overcount, never an undercount). */
    size_t need = sizeof(slot) + r->sl->arena.used + (b ? js->arena.used : 0);
    bool now = true;
    pthread_mutex_lock(&s->mu);
    if (!j->here) {
        bool told = false;
        while (!queue_room(s, need, &now)) {
            if (s->refuse_when_full) {
                char why[128];
                queue_full_message(s, why, sizeof why);
                pthread_mutex_unlock(&s->mu);
                if (b)
                    slot_put(s, js);
                reply_error(s, b, &r->id, MCP_RPC_SERVER_BUSY, "%s", why);
                return;
            }
            if (!told) {
                mcp_log(LOG(s), MCP_LOG_DEBUG, "the queue is full (%d requests): reading waits for room", s->nqueued);
                s->room_waits++;
                told = true;
            }
            pthread_cond_wait(&s->room, &s->mu);
        }
    }
    s->active++;
    j->next = s->inflight;
    if (s->inflight)
        s->inflight->prev = j;
    s->inflight = j;
    if (!j->here && now) { /* (without workers it runs on this thread, now) */
        j->turn = true;
        s->running++;
    } else if (!j->here) {
        j->waiting = true;
        j->qbytes = need;
        s->nqueued++;
        mcp_log(LOG(s), MCP_LOG_DEBUG, "%s: waits for a turn (%d queued)", j->m->name, s->nqueued);
        if (s->qtail)
            s->qtail->wnext = j;
        else
            s->qhead = j;
        s->qtail = j;
    }
    pthread_mutex_unlock(&s->mu);
    if (b) {
        pthread_mutex_lock(&b->mu);
        b->refs++;
        pthread_mutex_unlock(&b->mu);
    }
    r->taken = !b;

    if (j->here)
        run_one(j);
    else if (now)
        start_job(s, j);
}

/* ---------------------------------------------------------------- requests kept open */

mcp_held *mcp_req_hold(mcp_req *r, void (*on_end)(mcp_held *h, void *arg), void *arg, const char **why)
{
    mcp_session *s = r->s;
    *why = NULL;
    if (r->b) {
        *why = "a request that stays open cannot be part of a batch";
        return NULL;
    }
    pthread_mutex_lock(&s->mu);
    int open = s->nheld;
    pthread_mutex_unlock(&s->mu);
    if (open >= s->set->max_subscriptions) {
        *why = "too many subscriptions open (limit: --max-subscriptions)";
        return NULL;
    }
    mcp_held *h = calloc(1, sizeof *h);
    mcp_buf t;
    mcp_buf_init(&t);
    put_id(&t, &r->id);
    if (!h || t.oom) {
        free(h);
        mcp_buf_free(&t);
        return NULL;
    }
    size_t n;
    h->id_json = mcp_buf_take(&t, &n);
    h->s = s;
    h->id = r->id;
    if (r->id.kind == ID_STR) {
        char *copy = malloc(r->id.len + 1);
        if (!copy) {
            free(h->id_json);
            free(h);
            return NULL;
        }
        memcpy(copy, r->id.s, r->id.len);
        copy[r->id.len] = 0;
        h->id.s = copy;
    }
    h->rctx = s->rctx;
    h->on_end = on_end;
    h->arg = arg;
    pthread_mutex_lock(&s->mu);
    h->next = s->held;
    if (s->held)
        s->held->prev = h;
    s->held = h;
    s->nheld++;
    pthread_mutex_unlock(&s->mu);
    return h;
}

const char *mcp_held_id(const mcp_held *h) { return h->id_json; }

bool mcp_held_send(mcp_held *h, const char *text, size_t len)
{
    if (atomic_load(&h->s->broken))
        return false;
    mcp_out_part part = {text, len};
    sink_send(h->s, h->rctx, &part, 1, false);
    return !atomic_load(&h->s->broken);
}

static void held_unlink(mcp_session *s, mcp_held *h)
{
    s->nheld--;
    if (h->prev)
        h->prev->next = h->next;
    else
        s->held = h->next;
    if (h->next)
        h->next->prev = h->prev;
    h->prev = h->next = NULL;
}

/* End h, taken off the list: its owner lets go, then the transport gets the
 * request's final call: the graceful result (a subscription the server
 * ends), or nothing (cancelled, the client gone). */
static void held_end(mcp_session *s, mcp_held *h, bool graceful)
{
    if (h->on_end)
        h->on_end(h, h->arg);
    if (graceful && !atomic_load(&s->broken)) {
        mcp_buf t;
        mcp_buf_init(&t);
        mcp_buf_printf(
            &t,
            "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"" MCP_META_SERVER_INFO
            "\":%s,\"" MCP_META_SUBSCRIPTION_ID "\":%s}}}",
            h->id_json, s->env->server_info ? s->env->server_info : "{}", h->id_json);
        mcp_out_part part = {t.data, t.len};
        sink_send(s, h->rctx, t.oom ? NULL : &part, t.oom ? 0 : 1, true);
        mcp_buf_free(&t);
    } else {
        sink_send(s, h->rctx, NULL, 0, true);
    }
    if (h->id.kind == ID_STR)
        free((char *)h->id.s);
    free(h->id_json);
    free(h);
}

bool mcp_held_finish(mcp_held *h, const char *text, size_t len)
{
    mcp_session *s = h->s;
    pthread_mutex_lock(&s->mu);
    mcp_held *at = s->held;
    while (at && at != h)
        at = at->next;
    if (at)
        held_unlink(s, h);
    pthread_mutex_unlock(&s->mu);
    if (!at)
        return false; /* ending already, on another thread (its on_end waits for the owner) */
    mcp_out_part part = {text, len};
    bool send = text && !atomic_load(&s->broken);
    sink_send(s, h->rctx, send ? &part : NULL, send ? 1 : 0, true);
    if (h->id.kind == ID_STR)
        free((char *)h->id.s);
    free(h->id_json);
    free(h);
    return true;
}

/* notifications/cancelled naming a request kept open: it ends, unanswered. */
static int cancel_held(mcp_session *s, const rpc_id *id)
{
    int found = 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        mcp_held *h = s->held;
        while (h && !(h->id.kind == id->kind &&
                      (id->kind == ID_INT ? h->id.i == id->i
                                          : h->id.len == id->len && memcmp(h->id.s, id->s, id->len) == 0)))
            h = h->next;
        if (h)
            held_unlink(s, h);
        pthread_mutex_unlock(&s->mu);
        if (!h)
            return found;
        held_end(s, h, false);
        found++;
    }
}

void mcp_session_end_subscriptions(mcp_session *s)
{
    for (;;) {
        pthread_mutex_lock(&s->mu);
        mcp_held *h = s->held;
        if (h)
            held_unlink(s, h);
        pthread_mutex_unlock(&s->mu);
        if (!h)
            return;
        held_end(s, h, true);
    }
}

static void cancel(mcp_session *s, const mcp_json *rid)
{
    rpc_id id = {ID_NONE, 0, NULL, 0};
    if (rid && rid->kind == MCP_JINT)
        id = (rpc_id){ID_INT, rid->i, NULL, 0};
    else if (rid && rid->kind == MCP_JSTRING)
        id = (rpc_id){ID_STR, 0, rid->s, rid->len};
    else
        return;
    int found = 0;
    job *dropped = NULL;
    pthread_mutex_lock(&s->mu);
    /* Ids of requests in flight should be unique; if a client reuses one,
     * every request carrying it is cancelled. */
    for (job *j = s->inflight; j; j = j->next) {
        if (j->id.kind != id.kind)
            continue;
        if (id.kind == ID_INT ? j->id.i == id.i : j->id.len == id.len && memcmp(j->id.s, id.s, id.len) == 0) {
            atomic_store(&j->cancelled, true);
            found++;
            if (j->waiting) { /* it leaves the queue now, and never runs */
                job *prev = NULL;
                for (job *w = s->qhead; w != j; w = w->wnext)
                    prev = w;
                queue_unlink(s, j, prev);
                j->wnext = dropped;
                dropped = j;
            }
        }
    }
    if (found)
        pending_wake_all(s);
    pthread_mutex_unlock(&s->mu);
    while (dropped) {
        job *j = dropped;
        dropped = j->wnext;
        run_one(j); /* no answer: only its release */
    }
    found += cancel_held(s, &id);
    mcp_log(LOG(s), MCP_LOG_DEBUG, "notifications/cancelled: %d request(s) cancelled", found);
}


/* ---------------------------------------------------------------- the job API */

const mcp_env *mcp_job_env(const mcp_job *j) { return j->s->env; }
const mcp_reqctx *mcp_job_ctx(const mcp_job *j) { return &j->ctx; }
mcp_arena *mcp_job_arena(mcp_job *j) { return &j->sl->arena; }
const mcp_json *mcp_job_meta(const mcp_job *j) { return j->meta; }
const mcp_json *mcp_job_params(const mcp_job *j) { return j->params; }

void mcp_job_set_cache(mcp_job *j, long long ttl_ms, bool private_scope)
{
    j->cache = (cache_hint){true, ttl_ms, private_scope};
}
const atomic_bool *mcp_job_cancelled(const mcp_job *j) { return &j->cancelled; }

bool mcp_job_can_ask(const mcp_job *j) { return j->s->pool != NULL; }

bool mcp_job_live(const mcp_job *j) { return j && !atomic_load(&j->cancelled) && !atomic_load(&j->s->broken); }

bool mcp_job_send(mcp_job *j, const char *text, size_t len)
{
    if (!mcp_job_live(j))
        return false;
    mcp_out_part part = {text, len};
    sink_send(j->s, j->rctx, &part, 1, false);
    return !atomic_load(&j->s->broken);
}

void mcp_job_close_stream(mcp_job *j)
{
    if (mcp_job_live(j))
        sink_send(j->s, j->rctx, NULL, 0, false);
}

bool mcp_session_notify(mcp_session *s, const char *text, size_t len)
{
    if (atomic_load(&s->broken))
        return false;
    mcp_out_part part = {text, len};
    sink_send(s, NULL, &part, 1, false);
    return !atomic_load(&s->broken);
}

/* ---------------------------------------------------------------- requests to the client */

/* notifications/cancelled for a request of ours that is given up. */
static void cancel_client_request(job *j, int64_t id, const char *reason)
{
    if (atomic_load(&j->s->broken))
        return;
    char text[256];
    int n = snprintf(text, sizeof text,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                     "{\"requestId\":%lld,\"reason\":\"%s\"}}",
                     (long long)id, reason);
    mcp_out_part part = {text, (size_t)n};
    sink_send(j->s, j->rctx, &part, 1, false);
}

static int ask_fail(char **why, const char *fmt, ...) MCP_PRINTF(2, 3);
static int ask_fail(char **why, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    *why = strdup(text);
    return -1;
}

int mcp_job_ask(mcp_job *j, const char *method, const char *params, size_t params_len, char **result,
                size_t *result_len, char **why)
{
    *result = *why = NULL;
    *result_len = 0;
    mcp_session *s = j->s;
    if (!s->pool)
        return ask_fail(why,
                        "%s: requests to the client need worker threads (with --workers 0 "
                        "the handler runs on the thread that would read the answer)",
                        method);
    if (j->here)
        return ask_fail(why,
                        "%s: requests to the client need worker threads (the tool runs inline, "
                        "mcp_runtime_tool_inline: on the thread that would read the answer)",
                        method);
    if (!mcp_job_live(j))
        return ask_fail(why, "%s: the call was cancelled", method);

    /* A slot in the table, and an id. */
    pthread_mutex_lock(&s->mu);
    if (!s->pend && !s->closing) {
        s->pend = calloc((size_t)s->set->max_pending, sizeof *s->pend);
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        for (int i = 0; s->pend && i < s->set->max_pending; i++)
            pthread_cond_init(&s->pend[i].cv, &attr);
        pthread_condattr_destroy(&attr);
    }
    pending *p = NULL;
    for (int i = 0; s->pend && !s->closing && i < s->set->max_pending && !p; i++)
        if (!s->pend[i].used)
            p = &s->pend[i];
    if (p) {
        p->used = true;
        p->id = ++s->next_req_id;
        p->j = j;
        p->state = P_WAIT;
        p->text = NULL;
        p->len = 0;
    }
    bool closing = s->closing, nomem = !s->pend;
    int64_t id = p ? p->id : 0;
    pthread_mutex_unlock(&s->mu);
    if (!p) {
        if (closing)
            return ask_fail(why, "%s: the session is closing", method);
        if (nomem)
            return ask_fail(why, "%s: out of memory", method);
        return ask_fail(why, "%s: too many requests to the client pending (limit %d)", method, s->set->max_pending);
    }
    /* The wait ahead must not hold a worker that other requests need: the
     * pool runs another thread meanwhile, up to max_waiting waits at once. */
    if (!mcp_pool_block_begin(s->pool)) {
        pthread_mutex_lock(&s->mu);
        p->used = false;
        p->j = NULL;
        pthread_mutex_unlock(&s->mu);
        return ask_fail(why, "%s: too many handlers waiting for clients (limit %d)", method,
                        mcp_pool_max_blocked(s->pool));
    }

    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_printf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":", (long long)id);
    put_str(&m, method, strlen(method));
    if (params) {
        mcp_buf_puts(&m, ",\"params\":");
        mcp_buf_put(&m, params, params_len);
    }
    mcp_buf_putc(&m, '}');
    bool oom = m.oom;
    bool sent = !oom && mcp_job_send(j, m.data, m.len);
    mcp_buf_free(&m);

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += s->set->client_timeout_ms / 1000;
    deadline.tv_nsec += (long)(s->set->client_timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    while (sent && p->state == P_WAIT && !atomic_load(&j->cancelled) && !atomic_load(&s->broken) && !s->closing) {
        if (pthread_cond_timedwait(&p->cv, &s->mu, &deadline) == ETIMEDOUT)
            break;
    }
    pend_state st = p->state;
    char *text = p->text;
    size_t len = p->len;
    bool cancelled = atomic_load(&j->cancelled), broken = atomic_load(&s->broken);
    closing = s->closing;
    p->used = false;
    p->j = NULL;
    p->text = NULL;
    pthread_mutex_unlock(&s->mu);
    mcp_pool_block_end(s->pool);

    if (st == P_RESULT) {
        *result = text;
        *result_len = len;
        return 0;
    }
    int rc;
    if (st == P_ERROR)
        rc = ask_fail(why, "%s: %s", method, text);
    else if (!sent)
        rc = ask_fail(why, "%s: %s", method,
                      oom      ? "out of memory"
                      : broken ? "the client is gone"
                               : "the call was cancelled");
    else if (broken)
        rc = ask_fail(why, "%s: the client is gone", method);
    else if (cancelled) {
        cancel_client_request(j, id, "the tool call was cancelled");
        rc = ask_fail(why, "%s: the call was cancelled", method);
    } else if (closing) {
        rc = ask_fail(why, "%s: the session is closing", method);
    } else {
        cancel_client_request(j, id, "timed out");
        rc = ask_fail(why, "%s: no answer from the client within %d ms", method, s->set->client_timeout_ms);
    }
    free(text);
    return rc;
}

/* ---------------------------------------------------------------- notifications */

/* The text of a response from the client, to the handler waiting for it
 * (reading thread). Responses nobody waits for (late, after a timeout, or
 * unknown ids) are dropped. */
static void client_response(mcp_session *s, const mcp_json *m)
{
    const mcp_json *idv = mcp_json_get(m, "id");
    if (!idv || idv->kind != MCP_JINT || !s->pend) {
        mcp_log(LOG(s), MCP_LOG_DEBUG, "ignored a response from the client (no request of ours)");
        return;
    }
    const mcp_json *res = mcp_json_get(m, "result");
    mcp_buf t;
    mcp_buf_init(&t);
    pend_state st = P_RESULT;
    if (res) {
        mcp_json_write(&t, res, -1);
    } else {
        st = P_ERROR;
        const mcp_json *err = mcp_json_get(m, "error");
        const mcp_json *code = mcp_json_get(err, "code"), *msg = mcp_json_get(err, "message");
        mcp_buf_puts(&t, "the client answered with error ");
        if (code && code->kind == MCP_JINT)
            mcp_buf_printf(&t, "%lld", (long long)code->i);
        else
            mcp_buf_puts(&t, "(no code)");
        if (msg && msg->kind == MCP_JSTRING) {
            mcp_buf_puts(&t, ": ");
            mcp_buf_put(&t, msg->s, msg->len);
        }
    }
    if (t.oom) {
        mcp_buf_free(&t);
        mcp_buf_init(&t);
        st = P_ERROR;
        mcp_buf_puts(&t, "out of memory");
    }
    size_t len = 0;
    char *text = mcp_buf_take(&t, &len);
    bool taken = false;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->set->max_pending; i++) {
        pending *p = &s->pend[i];
        if (p->used && p->id == idv->i && p->state == P_WAIT) {
            p->state = text ? st : P_ERROR;
            p->text = text;
            p->len = len;
            taken = true;
            pthread_cond_broadcast(&p->cv);
            break;
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (!taken) {
        free(text);
        mcp_log(LOG(s), MCP_LOG_DEBUG, "ignored a response from the client to request %lld (not pending)",
                (long long)idv->i);
    }
}


static void notification(mcp_session *s, const mcp_json *method, const mcp_json *params)
{
    if (str_is(method, "notifications/cancelled")) {
        cancel(s, mcp_json_get(params, "requestId"));
    } else if (str_is(method, "notifications/initialized")) {
        mcp_log(LOG(s), MCP_LOG_DEBUG, "notifications/initialized");
    } else {
        /* Unknown notifications are ignored, as JSON-RPC says. */
        mcp_log(LOG(s), MCP_LOG_DEBUG, "ignored notification %s", method->s);
    }
}

/* ---------------------------------------------------------------- dispatch */

/* The method of the table named `name` (a JSON string), whatever its
 * revisions, or NULL: str_is for each, a table's name measured only when
 * it matches. */
static const mcp_method *method_named(const mcp_session *s, const mcp_json *name)
{
    if (!name || name->kind != MCP_JSTRING)
        return NULL;
    const mcp_method_table *t = s->env->methods;
    const char *ns = name->s; /* in locals: the names' bytes may alias *name */
    size_t nl = name->len;
    if (!nl)
        return NULL; /* no method is named "" */
    for (size_t i = 0; i < t->n; i++) {
        const char *a = t->methods[i]->name;
        /* strncmp reads neither string past a difference or a NUL; equal
         * there, a is the name when it is nl bytes long (a NUL of the name's
         * within them makes a shorter) */
        if (a[0] == ns[0] && strncmp(a, ns, nl) == 0 && strlen(a) == nl)
            return t->methods[i];
    }
    return NULL;
}

/* Method m (method_named's), when the session serves it: in the revisions
 * asked for (modern or not), and on this server. */
static const mcp_method *served_method(const mcp_session *s, const mcp_method *m, bool modern)
{
    unsigned other = modern ? MCP_METHOD_LEGACY_ONLY : MCP_METHOD_MODERN_ONLY;
    return m && !(m->flags & other) && (!m->served || m->served(s->env->server)) ? m : NULL;
}

static const mcp_method *find_method(const mcp_session *s, const mcp_json *name, bool modern)
{
    return served_method(s, method_named(s, name), modern);
}

/* MCP's log levels, least severe first (mcp_level's order). */
static const char *const LOG_LEVELS[] = {"debug", "info",     "notice", "warning",
                                         "error", "critical", "alert",  "emergency"};

/* A modern request: what its _meta says (version, client capabilities, log
 * level), checked, then the method of the modern table. Nothing of the
 * session is read: the request carries all it needs. */
static bool dispatch_modern(mcp_session *s, mcp_req *r, const mcp_json *method, const mcp_json *pv)
{
    batch *b = r->b;
    if (!r->meta || !pv) {
        reply_error(s, b, &r->id, MCP_RPC_INVALID_PARAMS,
                    r->meta ? "Invalid params: missing _meta." MCP_META_PROTOCOL_VERSION
                            : "Invalid params: missing _meta (a request of protocol version "
                              "2026-07-28 carries its version and client capabilities there)");
        return false;
    }
    if (pv->kind != MCP_JSTRING || pv->has_nul) {
        reply_error(s, b, &r->id, MCP_RPC_INVALID_PARAMS,
                    "Invalid params: _meta." MCP_META_PROTOCOL_VERSION " must be a string");
        return false;
    }
    const char *version = mcp_modern_version_find(pv->s, pv->len);
    if (!version) {
        mcp_buf data;
        mcp_buf_init(&data);
        mcp_buf_puts(&data, "{\"supported\":");
        mcp_buf_puts(&data, mcp_supported_versions_json);
        mcp_buf_puts(&data, ",\"requested\":");
        put_str(&data, pv->s, pv->len);
        mcp_buf_putc(&data, '}');
        mcp_req_error_data(r, MCP_RPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data.data, data.len);
        mcp_buf_free(&data);
        return false;
    }
    const mcp_json *caps = mcp_json_get(r->meta, MCP_META_CLIENT_CAPABILITIES);
    if (!caps || caps->kind != MCP_JOBJECT) {
        reply_error(s, b, &r->id, MCP_RPC_INVALID_PARAMS,
                    caps ? "Invalid params: _meta." MCP_META_CLIENT_CAPABILITIES " must be an object"
                         : "Invalid params: missing _meta." MCP_META_CLIENT_CAPABILITIES);
        return false;
    }
    const mcp_json *info = mcp_json_get(r->meta, MCP_META_CLIENT_INFO);
    if (info && info->kind != MCP_JOBJECT) {
        reply_error(s, b, &r->id, MCP_RPC_INVALID_PARAMS,
                    "Invalid params: _meta." MCP_META_CLIENT_INFO " must be an object");
        return false;
    }
    r->ctx = (mcp_reqctx){.version = version, .modern = true, .log_min = MCP_LOG_NONE, .caller = s->caller};
    r->ctx.client_caps = (mcp_json_get(caps, "sampling") ? MCP_CLIENT_SAMPLING : 0) |
                         (mcp_json_get(caps, "elicitation") ? MCP_CLIENT_ELICITATION : 0) |
                         (mcp_json_get(caps, "roots") ? MCP_CLIENT_ROOTS : 0) |
                         (mcp_json_get(mcp_json_get(caps, "extensions"), MCP_TASKS_EXTENSION) ? MCP_CLIENT_TASKS : 0);
    const mcp_json *level = mcp_json_get(r->meta, MCP_META_LOG_LEVEL);
    if (level) {
        int found = -1;
        for (int i = 0; i < (int)(sizeof LOG_LEVELS / sizeof *LOG_LEVELS); i++)
            if (str_is(level, LOG_LEVELS[i]))
                found = i;
        if (found < 0) {
            reply_error(s, b, &r->id, MCP_RPC_INVALID_PARAMS,
                        "Invalid params: _meta." MCP_META_LOG_LEVEL
                        " must be one of debug, info, notice, warning, error, critical, alert, "
                        "emergency");
            return false;
        }
        r->ctx.log_min = found;
    }
    r->m = find_method(s, method, true);
    if (!r->m) {
        reply_error_named(s, b, &r->id, MCP_RPC_METHOD_NOT_FOUND, method->s, method->len, "Method not found: ");
        return false;
    }
    assert(r->m->start);
    r->m->start(r);
    return r->taken;
}


/* A message object's JSON-RPC envelope, as dispatch() reads it: a response
 * from the client; or its id, method and params, or why it is not a request
 * or notification (the -32600 message, and whether the answer can carry the
 * id). The one place these rules live: the HTTP transport asks the same
 * question (mcp_message_kind) before a session exists. */
typedef struct envelope {
    bool response;
    rpc_id id;
    const mcp_json *method, *params;
    const char *error; /* NULL: a request (id) or notification (no id) */
    bool error_with_id;
} envelope;

/* Whether member k is the key `name` (n bytes). */
static inline bool key_eq(const mcp_json_member *k, const char *name, size_t n)
{
    return k->key_len == n && memcmp(k->key, name, n) == 0;
}

static void read_envelope(const mcp_json *m, envelope *e)
{
    *e = (envelope){.id = {ID_NONE, 0, NULL, 0}};
    /* The members the envelope reads, in one pass (mcp_json_get for each,
     * as the keys of an object are unique: json.h). */
    const mcp_json *idv = NULL, *jsonrpc = NULL;
    bool result_or_error = false;
    if (m && m->kind == MCP_JOBJECT)
        for (size_t i = 0; i < m->n; i++) {
            const mcp_json_member *k = &m->members[i];
            switch (k->key_len) {
            case 2:
                if (key_eq(k, "id", 2))
                    idv = k->value;
                break;
            case 5:
                result_or_error |= key_eq(k, "error", 5);
                break;
            case 6:
                if (key_eq(k, "method", 6))
                    e->method = k->value;
                else if (key_eq(k, "params", 6))
                    e->params = k->value;
                else
                    result_or_error |= key_eq(k, "result", 6);
                break;
            case 7:
                if (key_eq(k, "jsonrpc", 7))
                    jsonrpc = k->value;
                break;
            default:
                break;
            }
        }
    if (!e->method && result_or_error) {
        e->response = true;
        return;
    }
    if (idv) {
        switch (idv->kind) {
        case MCP_JINT:
            e->id = (rpc_id){ID_INT, idv->i, NULL, 0};
            break;
        case MCP_JSTRING:
            e->id = (rpc_id){ID_STR, 0, idv->s, idv->len};
            break;
        case MCP_JNULL:
            e->error = "Invalid Request: id must not be null";
            return;
        case MCP_JBIGINT:
            e->error = "Invalid Request: id is beyond the range of a 64-bit integer";
            return;
        default:
            e->error = "Invalid Request: id must be a string or an integer";
            return;
        }
    }
    e->error_with_id = true;
    if (!str_is(jsonrpc, "2.0"))
        e->error = "Invalid Request: jsonrpc must be \"2.0\"";
    else if (!e->method)
        e->error = "Invalid Request: missing method";
    else if (e->method->kind != MCP_JSTRING)
        e->error = "Invalid Request: method must be a string";
}

/* Whether dispatch() answers a message object of envelope e: all but
 * notifications and client responses (mcp_message_kind's rules). */
static bool envelope_answered(const envelope *e) { return !e->response && (e->error || e->id.kind != ID_NONE); }

/* Whether dispatch() answers m: all but notifications and client responses. */
static bool gets_answer(const mcp_json *m)
{
    if (m->kind != MCP_JOBJECT)
        return true; /* an Invalid Request */
    envelope e;
    read_envelope(m, &e);
    return envelope_answered(&e);
}

mcp_msg_kind mcp_message_kind(const mcp_json *m, bool *initialize)
{
    *initialize = false;
    if (!m)
        return MCP_MSG_INVALID;
    if (m->kind == MCP_JARRAY)
        return MCP_MSG_BATCH;
    if (m->kind != MCP_JOBJECT)
        return MCP_MSG_INVALID;
    envelope e;
    read_envelope(m, &e);
    if (e.response)
        return MCP_MSG_RESPONSE;
    if (e.error)
        return MCP_MSG_INVALID;
    if (e.id.kind == ID_NONE)
        return MCP_MSG_NOTIFICATION;
    /* initialize, as a new session takes it (dispatch's checks before
     * do_initialize: params, when present, an object). */
    *initialize = str_is(e.method, "initialize") && (!e.params || e.params->kind == MCP_JOBJECT);
    return MCP_MSG_REQUEST;
}


/* The first scope request m needs (the server table's, the IDL's `scopes:`:
 * mcp_message_scopes) that the authenticated caller does not hold; NULL when
 * it holds them all. A transport that authorizes its callers refuses such a
 * request before the session sees it (HTTP: 403 insufficient_scope); this
 * is the runtime's own check, so that no handler runs without its scopes
 * whatever the transport. */
static const char *scope_missing(const mcp_session *s, const mcp_json *m)
{
    const char *some[16];
    const char **need = some;
    size_t n = mcp_message_scopes(s->env->server, m, need, sizeof some / sizeof *some);
    if (n > sizeof some / sizeof *some) {
        need = malloc(n * sizeof *need);
        if (!need)
            return "(out of memory: not checked)";
        n = mcp_message_scopes(s->env->server, m, need, n);
    }
    const char *missing = NULL;
    for (size_t i = 0; i < n && !missing; i++) {
        bool held = false;
        for (size_t k = 0; k < s->caller->nscopes && !held; k++)
            held = s->caller->scopes[k] && strcmp(s->caller->scopes[k], need[i]) == 0;
        if (!held)
            missing = need[i];
    }
    if (need != some)
        free(need);
    return missing;
}


/* One message object of envelope e (a lone one, or an element of a batch).
 * Returns true when a job took over `sl` (lone messages only). */
static bool dispatch_object(mcp_session *s, slot *sl, batch *b, const mcp_json *m, const envelope *e)
{
    if (e->response) {
        /* A response from the client: to the handler waiting for it. */
        client_response(s, m);
        return false;
    }
    if (e->error) {
        reply_error(s, b, e->error_with_id ? &e->id : NULL, MCP_RPC_INVALID_REQUEST, "%s", e->error);
        return false;
    }
    if (e->id.kind == ID_NONE) {
        notification(s, e->method, e->params);
        return false;
    }
    const char *missing = s->caller ? scope_missing(s, m) : NULL;
    if (missing) {
        reply_error(s, b, &e->id, MCP_RPC_FORBIDDEN, "Forbidden: the caller's token lacks the scope %s", missing);
        return false;
    }

    mcp_req r = {.s = s, .sl = sl, .b = b, .id = e->id, .params = e->params};
    if (e->params && e->params->kind == MCP_JOBJECT) {
        r.meta = mcp_json_get(e->params, "_meta");
        if (r.meta && r.meta->kind != MCP_JOBJECT)
            r.meta = NULL;
    }
    /* A request that names its protocol version in _meta is modern: served
     * statelessly, whatever the session has seen; so is every request of a
     * stateless session, and every request for a method only the modern
     * revisions have (server/discover): without _meta, those are malformed. */
    const mcp_json *pv = mcp_json_get(r.meta, MCP_META_PROTOCOL_VERSION);
    const mcp_method *named = method_named(s, e->method); /* looked up once for both questions */
    if (pv || s->stateless || (named && (named->flags & MCP_METHOD_MODERN_ONLY)))
        return dispatch_modern(s, &r, e->method, pv);

    r.m = served_method(s, named, false);
    r.ctx = s->ctx;
    r.ctx.log_min = atomic_load(&s->log_min);
    r.ctx.caller = s->caller;
    bool early = r.m && (r.m->flags & MCP_METHOD_EARLY);
    if (!s->initialized && !early) {
        reply_error(s, b, &r.id, MCP_RPC_INVALID_REQUEST,
                    "Invalid Request: the server is not initialized (send initialize first)");
        return false;
    }
    if (s->initialized && r.m && (r.m->flags & MCP_METHOD_INITIALIZE)) {
        reply_error(s, b, &r.id, MCP_RPC_INVALID_REQUEST, "Invalid Request: the server is already initialized");
        return false;
    }
    if (!r.m) {
        reply_error_named(s, b, &r.id, MCP_RPC_METHOD_NOT_FOUND, e->method->s, e->method->len, "Method not found: ");
        return false;
    }
    if (r.params && r.params->kind != MCP_JOBJECT) {
        reply_error(s, b, &r.id, MCP_RPC_INVALID_PARAMS, "Invalid params: params must be an object");
        return false;
    }
    assert(r.m->start);
    r.m->start(&r);
    return r.taken;
}

/* One message, of any JSON kind: dispatch_object for an object. */
static bool dispatch(mcp_session *s, slot *sl, batch *b, const mcp_json *m)
{
    if (m->kind != MCP_JOBJECT) {
        reply_error(s, b, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: a message must be a JSON object");
        return false;
    }
    envelope e;
    read_envelope(m, &e);
    return dispatch_object(s, sl, b, m, &e);
}

/* A batch (2025-03-26): each element handled as a message, the answers sent
 * together in one array once the last is in. Takes over `sl`. */
static bool run_batch(mcp_session *s, slot *sl, const mcp_json *arr)
{
    batch *b = mcp_arena_alloc(&sl->arena, sizeof *b);
    if (!b) {
        send_oom(s, NULL, s->rctx, NULL);
        slot_put(s, sl);
        return true;
    }
    b->sl = sl;
    b->refs = 1;
    b->nanswers = 0;
    b->rctx = s->rctx;
    b->expect = false;
    for (size_t i = 0; i < arr->n; i++)
        b->expect = b->expect || gets_answer(arr->items[i]);
    bool expect = b->expect;
    pthread_mutex_init(&b->mu, NULL);
    mcp_buf_clear(&sl->result);
    for (size_t i = 0; i < arr->n && !atomic_load(&s->broken); i++)
        dispatch(s, sl, b, arr->items[i]);
    batch_unref(s, b);
    return expect;
}


/* ---------------------------------------------------------------- the entry points */

static bool is_blank(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')
            return false;
    return true;
}

void mcp_session_too_large(mcp_session *s, void *reply_ctx)
{
    s->rctx = reply_ctx;
    reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: message too large (limit %zu bytes)",
                s->set->max_message);
}

bool mcp_session_message(mcp_session *s, const char *text, size_t len, void *reply_ctx)
{
    return mcp_session_message_from(s, text, len, reply_ctx, NULL);
}

/* A message's text as a session reads it: a final '\r' is not part of it;
 * blank text is not a message. */
static size_t message_len(const char *text, size_t len) { return len > 0 && text[len - 1] == '\r' ? len - 1 : len; }

/* The message in sl (m its tree, or NULL with err at byte off): answered,
 * dispatched, and sl recycled unless a job took it. */
static bool message_in_slot(mcp_session *s, slot *sl, const mcp_json *m, mcp_json_err err, size_t off)
{
    bool taken = false, answered = true;
    if (!m) {
        if (err == MCP_JSON_E_NOMEM)
            reply_error(s, NULL, NULL, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        else if (err == MCP_JSON_E_DEPTH)
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: nesting deeper than %d levels",
                        s->env->limits.max_depth);
        else if (err == MCP_JSON_E_STRING_LIMIT)
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST,
                        "Invalid Request: string longer than %zu bytes at byte %zu", s->env->limits.max_string, off);
        else if (err == MCP_JSON_E_ARRAY_LIMIT)
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST,
                        "Invalid Request: array longer than %zu items at byte %zu", s->env->limits.max_array, off);
        else if (err == MCP_JSON_E_VALUE_LIMIT)
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST,
                        "Invalid Request: more than %zu values in one message at byte %zu", s->env->limits.max_values,
                        off);
        else if (err == MCP_JSON_E_NUMBER_RANGE || err == MCP_JSON_E_SURROGATE)
            /* RFC 8259's grammar allows both (1e400, "\ud800"); it is the
             * server that refuses them: not a parse error. */
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: %s at byte %zu",
                        mcp_json_error_str(err), off);
        else
            reply_error(s, NULL, NULL, MCP_RPC_PARSE_ERROR, "Parse error: %s at byte %zu", mcp_json_error_str(err),
                        off);
    } else if (m->kind == MCP_JARRAY) {
        if (!s->ctx.version || strcmp(s->ctx.version, MCP_BATCH_VERSION) != 0) {
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST,
                        "Invalid Request: batches are only allowed with protocol version " MCP_BATCH_VERSION);
        } else if (m->n == 0) {
            reply_error(s, NULL, NULL, MCP_RPC_INVALID_REQUEST, "Invalid Request: empty batch");
        } else {
            answered = run_batch(s, sl, m);
            taken = true;
        }
    } else if (m->kind == MCP_JOBJECT) {
        envelope e; /* read once: for the answer's count and for dispatch */
        read_envelope(m, &e);
        answered = envelope_answered(&e);
        taken = dispatch_object(s, sl, NULL, m, &e);
    } else {
        taken = dispatch(s, sl, NULL, m);
    }
    if (!taken)
        slot_put(s, sl);
    /* Between messages the session holds nothing but itself. */
    mcp_buf_free(&s->reply);
    mcp_buf_free(&s->msg);
    return answered;
}

bool mcp_session_message_from(mcp_session *s, const char *text, size_t len, void *reply_ctx, const mcp_caller *caller)
{
    s->rctx = reply_ctx;
    s->caller = caller;
    len = message_len(text, len);
    /* Blank lines are not messages: clients may send a newline too many
     * (a keep-alive, a trailing "\n\n"), and answering those with parse
     * errors would only confuse them. */
    if (is_blank(text, len))
        return false;
    if (len > s->set->max_message) {
        mcp_session_too_large(s, reply_ctx);
        return true;
    }
    slot *sl = slot_get(s);
    if (!sl) {
        send_oom(s, NULL, reply_ctx, NULL);
        return true;
    }
    /* Every node of the DOM lives in the slot's arena (mcp_json_parse copies
     * strings and number literals): a job may take it to a worker while the
     * transport reuses its buffer. */
    mcp_json_err err = MCP_JSON_E_NOMEM;
    size_t off = 0;
    mcp_json *m = mcp_json_parse(&sl->arena, text, len, &s->env->limits, &err, &off);
    return message_in_slot(s, sl, m, err, off);
}

/* ---------------------------------------------------------------- messages parsed first */

struct mcp_message {
    const mcp_env *env;
    slot *sl; /* holds the tree, and this */
    mcp_json *m;
    mcp_json_err err;
    size_t off;
    size_t len; /* the text's, as mcp_session_message_from counts it */
    bool blank;
};

mcp_message *mcp_env_message_parse(const mcp_env *env, const char *text, size_t len)
{
    slot *sl = cache_take(env->slots);
    mcp_message *msg = sl ? mcp_arena_alloc(&sl->arena, sizeof *msg) : NULL;
    if (!msg) {
        if (sl) {
            slot_recycle(sl);
            cache_give(env->slots, sl);
        }
        return NULL;
    }
    len = message_len(text, len);
    *msg = (mcp_message){.env = env, .sl = sl, .err = MCP_JSON_E_NOMEM, .len = len, .blank = is_blank(text, len)};
    /* What the session would parse: blank text and text past max_message
     * never are. */
    if (!msg->blank && len <= env->opt.max_message)
        msg->m = mcp_json_parse(&sl->arena, text, len, &env->limits, &msg->err, &msg->off);
    return msg;
}

const mcp_json *mcp_message_json(const mcp_message *msg) { return msg ? msg->m : NULL; }

void mcp_message_free(mcp_message *msg)
{
    if (!msg)
        return;
    slot *sl = msg->sl;
    const mcp_env *env = msg->env;
    slot_recycle(sl);
    cache_give(env->slots, sl);
}

bool mcp_session_message_parsed(mcp_session *s, mcp_message *msg, void *reply_ctx, const mcp_caller *caller)
{
    s->rctx = reply_ctx;
    s->caller = caller;
    if (msg->blank) {
        mcp_message_free(msg);
        return false;
    }
    if (msg->len > s->set->max_message) {
        mcp_message_free(msg);
        mcp_session_too_large(s, reply_ctx);
        return true;
    }
    return message_in_slot(s, msg->sl, msg->m, msg->err, msg->off);
}

void mcp_session_close(mcp_session *s) { mark_broken(s); }

bool mcp_session_broken(mcp_session *s) { return atomic_load(&s->broken); }

void mcp_session_drain(mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->active > 0)
        pthread_cond_wait(&s->idle, &s->mu);
    pthread_mutex_unlock(&s->mu);
}


/* ---------------------------------------------------------------- life */

/* Sessions are numbered from 1 in the order they start (or start again:
 * mcp_session_reuse). */
static atomic_ullong serials;

mcp_session *mcp_session_create(const mcp_env *env, mcp_sink_fn sink, void *sink_ctx)
{
    mcp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->serial = atomic_fetch_add(&serials, 1) + 1;
    s->env = env;
    s->set = &env->opt;
    s->sink = sink;
    s->sink_ctx = sink_ctx;
    atomic_init(&s->broken, false);
    atomic_init(&s->log_min, MCP_LEVEL_INFO);
    mcp_buf_init(&s->reply);
    mcp_buf_init(&s->msg);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->idle, NULL);
    pthread_cond_init(&s->room, NULL);
    bool ok = true;
    if (env->pool) {
        s->pool = env->pool;
    } else if (s->set->workers > 0) {
        s->pool = s->own_pool = mcp_pool_new(s->set->workers, s->set->max_waiting);
        ok = s->pool != NULL;
    }
    if (ok && s->pool) {
        s->queue = mcp_pool_queue_new(s->pool);
        ok = s->queue != NULL;
    }
    if (!ok) {
        mcp_session_free(s);
        return NULL;
    }
    return s;
}

const mcp_env *mcp_session_env(const mcp_session *s) { return s->env; }

void mcp_session_set_stateless(mcp_session *s) { s->stateless = true; }

/* Under mu: whether a handler waits for an answer of the client. */
static bool asking(const mcp_session *s)
{
    for (int i = 0; s->pend && i < s->set->max_pending; i++)
        if (s->pend[i].used)
            return true;
    return false;
}

bool mcp_session_reuse(mcp_session *s)
{
    if (!s->stateless || s->own_pool || atomic_load(&s->broken))
        return false;
    /* The answers are out; what is left is the jobs' own bookkeeping. */
    mcp_session_drain(s);
    pthread_mutex_lock(&s->mu);
    bool clean = !s->held && !s->inflight && !s->qhead && s->active == 0 && !asking(s) && !s->closing;
    if (clean) {
        s->room_waits = 0;
        s->next_req_id = 0;
    }
    pthread_mutex_unlock(&s->mu);
    if (!clean)
        return false;
    /* What the runtime keeps by session goes, as for a session freed: the
     * next peer is another one. */
    if (s->env->session_gone)
        s->env->session_gone(s->env->mstate, s);
    s->serial = atomic_fetch_add(&serials, 1) + 1;
    s->initialized = false;
    s->ctx = (mcp_reqctx){0};
    s->rctx = NULL;
    s->caller = NULL;
    atomic_store(&s->log_min, MCP_LEVEL_INFO);
    return true;
}

void mcp_session_free(mcp_session *s)
{
    if (!s)
        return;
    /* Subscriptions end: gracefully when the client is still there. */
    mcp_session_end_subscriptions(s);
    if (s->env->session_gone) /* no more notifications for it */
        s->env->session_gone(s->env->mstate, s);
    /* No more input: a handler waiting for the client would wait in vain. */
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    pending_wake_all(s);
    pthread_mutex_unlock(&s->mu);
    mcp_session_drain(s);
    mcp_pool_queue_free(s->queue);
    mcp_pool_shutdown(s->own_pool);
    for (int i = 0; s->pend && i < s->set->max_pending; i++)
        pthread_cond_destroy(&s->pend[i].cv);
    free(s->pend);
    mcp_buf_free(&s->reply);
    mcp_buf_free(&s->msg);
    pthread_cond_destroy(&s->room);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
