/* server.c: one MCP session: JSON-RPC 2.0, the lifecycle, dispatch, in-flight
 * requests and their cancellation.
 *
 * Threads. The reading thread calls mcp_session_message(); it owns the
 * session's lifecycle state (phase, negotiated version) and answers
 * everything but tools/call itself. A tools/call becomes a job: the slot
 * holding the message (its arena and buffers) moves to the job, which a worker
 * runs. Shared between threads, under `mu`: the in-flight list, the number of
 * active jobs, and the free list of slots. The sink serialises writes itself.
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
#include "server.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "mcpidl/jsonw.h"
#include "pool.h"

/* ---------------------------------------------------------------- logging */

static atomic_int log_level = MCP_LOG_WARN;

void mcp_log_set_level(mcp_log_level level) { atomic_store(&log_level, (int)level); }

mcp_log_level mcp_log_get_level(void) { return (mcp_log_level)atomic_load(&log_level); }

bool mcp_log_parse_level(const char *name, mcp_log_level *out)
{
    static const struct { const char *name; mcp_log_level level; } NAMES[] = {
        {"quiet", MCP_LOG_QUIET}, {"error", MCP_LOG_ERROR}, {"warn", MCP_LOG_WARN},
        {"warning", MCP_LOG_WARN}, {"info", MCP_LOG_INFO}, {"debug", MCP_LOG_DEBUG},
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
        if (strcmp(name, NAMES[i].name) == 0) {
            *out = NAMES[i].level;
            return true;
        }
    return false;
}

void mcp_log(mcp_log_level level, const char *fmt, ...)
{
    if (level == MCP_LOG_QUIET || (int)level > atomic_load(&log_level))
        return;
    /* One write(2) per line, so lines from several threads do not interleave. */
    char line[1024];
    size_t n = sizeof "mcpidl: " - 1;
    memcpy(line, "mcpidl: ", n);
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    if (w < 0)
        w = 0;
    n += (size_t)w < sizeof line - n - 1 ? (size_t)w : sizeof line - n - 2;
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, n) < 0) {
        /* nowhere left to report it */
    }
}

/* ---------------------------------------------------------------- settings */

void mcp_settings_default(mcp_settings *s)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1)
        cpus = 1;
    if (cpus > MCP_MAX_WORKERS)
        cpus = MCP_MAX_WORKERS;
    s->workers = (int)cpus;
    s->max_message = MCP_DEFAULT_MAX_MESSAGE;
    s->max_depth = MCP_JSON_DEFAULT_MAX_DEPTH;
    s->max_concurrent = MCP_DEFAULT_MAX_CONCURRENT;
    s->page_size = MCP_DEFAULT_PAGE_SIZE;
}

/* ---------------------------------------------------------------- JSON-RPC codes */

enum {
    RPC_PARSE_ERROR = -32700,
    RPC_INVALID_REQUEST = -32600,
    RPC_METHOD_NOT_FOUND = -32601,
    RPC_INVALID_PARAMS = -32602,
    RPC_INTERNAL_ERROR = -32603,
};

/* The protocol versions served, oldest first; the last is the latest. */
static const char *const VERSIONS[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
#define NVERSIONS (sizeof VERSIONS / sizeof *VERSIONS)
#define LATEST_VERSION (VERSIONS[NVERSIONS - 1])
/* The one version whose JSON-RPC allows batches. */
#define BATCH_VERSION "2025-03-26"

/* Arenas and buffers that grew beyond this for one request are released
 * rather than kept, so one huge message does not pin its memory forever. */
#define RETAIN_BYTES ((size_t)1 << 20)

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
    mcp_buf result; /* a tool's result; a batch's answer */
    mcp_buf head;   /* the text around it */
} slot;

typedef struct batch {
    slot *sl; /* holds the parsed array; sl->result collects the answers */
    pthread_mutex_t mu;
    int refs; /* the reading thread's, and one per job still running */
    size_t nanswers;
} batch;

typedef struct job {
    struct job *prev, *next; /* the in-flight list */
    mcp_session *s;
    slot *sl;    /* the job's own: the handler's arena, the answer's text */
    batch *b;    /* NULL, or the batch the request came in */
    const mcp_tool *tool;
    const mcp_json *args, *meta;
    rpc_id id;
    atomic_bool cancelled;
} job;

typedef struct tool_ref {
    const char *name;
    size_t len;
    const mcp_tool *tool;
} tool_ref;

typedef struct page {
    mcp_buf text;       /* {"tools":[...],"nextCursor":"..."} */
    char cursor[24];    /* the cursor that selects this page ("" for the first) */
} page;

struct mcp_session {
    const mcp_server *server;
    mcp_settings set;
    mcp_json_limits limits;
    mcp_sink_fn sink;
    void *sink_ctx;
    atomic_bool broken;

    /* The reading thread's. */
    bool initialized;
    const char *version; /* negotiated; NULL before initialize */
    slot *cur;           /* a slot ready for the next message */
    mcp_buf reply;       /* an answer being written */
    mcp_buf msg;         /* an error message being written */
    tool_ref *tools;     /* sorted by name */
    size_t ntools;
    page *pages;
    size_t npages;

    /* Shared, under mu. */
    pthread_mutex_t mu;
    pthread_cond_t idle; /* active dropped to 0 */
    job *inflight;
    int active;
    slot *free_slots;

    mcp_pool *pool; /* NULL: handlers run on the reading thread */
};

/* The writer's names (jsonw.h), in one place. */
static void put_str(mcp_buf *b, const char *s, size_t n) { mcp_json_string(b, s, n); }
static void put_cstr(mcp_buf *b, const char *s) { mcp_json_string(b, s, strlen(s)); }
static void put_int(mcp_buf *b, int64_t v) { mcp_json_int(b, v); }

static bool str_is(const mcp_json *v, const char *lit)
{
    size_t n = strlen(lit);
    return v && v->kind == MCP_JSTRING && v->len == n && memcmp(v->s, lit, n) == 0;
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

static slot *slot_get(mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    slot *sl = s->free_slots;
    if (sl)
        s->free_slots = sl->next;
    pthread_mutex_unlock(&s->mu);
    if (!sl)
        sl = slot_new();
    else
        sl->next = NULL;
    return sl;
}

static void slot_put(mcp_session *s, slot *sl)
{
    slot_recycle(sl);
    pthread_mutex_lock(&s->mu);
    sl->next = s->free_slots;
    s->free_slots = sl;
    pthread_mutex_unlock(&s->mu);
}

/* ---------------------------------------------------------------- writing answers */

static void mark_broken(mcp_session *s)
{
    if (atomic_exchange(&s->broken, true))
        return;
    mcp_log(MCP_LOG_INFO, "the client is gone: dropping the requests in flight");
    /* Handlers that look may stop early; nothing they produce can be sent. */
    pthread_mutex_lock(&s->mu);
    for (job *j = s->inflight; j; j = j->next)
        atomic_store(&j->cancelled, true);
    pthread_mutex_unlock(&s->mu);
}

static void sink_send(mcp_session *s, const mcp_out_part *parts, size_t n)
{
    if (atomic_load(&s->broken))
        return;
    if (!s->sink(s->sink_ctx, parts, n))
        mark_broken(s);
}

/* An answer that needs no memory: -32603 with the id when it is an integer. */
static void send_oom(mcp_session *s, const rpc_id *id)
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
    sink_send(s, &part, 1);
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
static void emit(mcp_session *s, batch *b, const mcp_out_part *parts, size_t n)
{
    if (b)
        batch_add(b, parts, n);
    else
        sink_send(s, parts, n);
}

static void batch_unref(mcp_session *s, batch *b)
{
    pthread_mutex_lock(&b->mu);
    bool last = --b->refs == 0;
    pthread_mutex_unlock(&b->mu);
    if (!last)
        return;
    slot *sl = b->sl;
    size_t nanswers = b->nanswers;
    pthread_mutex_destroy(&b->mu); /* b lives in sl's arena */
    if (nanswers > 0) {
        /* A batch of notifications only gets no answer at all. */
        mcp_buf_putc(&sl->result, ']');
        if (sl->result.oom) {
            send_oom(s, NULL);
        } else {
            mcp_out_part part = {sl->result.data, sl->result.len};
            sink_send(s, &part, 1);
        }
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

/* Reading thread: a result whose text is result[0..n). */
static void reply_result(mcp_session *s, batch *b, const rpc_id *id, const char *result, size_t n)
{
    mcp_buf_clear(&s->reply);
    render_head(&s->reply, id);
    if (s->reply.oom) {
        send_oom(s, id);
        return;
    }
    mcp_out_part parts[3] = {{s->reply.data, s->reply.len}, {result, n}, {"}", 1}};
    emit(s, b, parts, 3);
}

/* Reading thread: an error; the message is printf-formatted, then, when
 * `name` is not NULL, followed by name[0..name_len) (text from the client). */
static void reply_error_named(mcp_session *s, batch *b, const rpc_id *id, int code,
                              const char *name, size_t name_len, const char *fmt, ...)
    MCP_PRINTF(7, 8);

static void reply_error_named(mcp_session *s, batch *b, const rpc_id *id, int code,
                              const char *name, size_t name_len, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
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
        send_oom(s, id);
        return;
    }
    mcp_out_part part = {s->reply.data, s->reply.len};
    emit(s, b, &part, 1);
}

#define reply_error(s, b, id, code, ...) reply_error_named(s, b, id, code, NULL, 0, __VA_ARGS__)

/* ---------------------------------------------------------------- jobs (tools/call) */

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

static void run_job(void *arg)
{
    job *j = arg;
    mcp_session *s = j->s;
    slot *sl = j->sl;
    batch *b = j->b;
    mcp_out_part parts[3];
    size_t nparts = 0;
    bool ran = !atomic_load(&j->cancelled) && !atomic_load(&s->broken);

    if (ran) {
        mcp_call call;
        mcp_call_init(&call, &sl->arena, j->tool, j->meta, &j->cancelled);
        mcp_buf_clear(&sl->result);
        mcp_buf_clear(&sl->head);
        bool ok = mcp_tool_invoke(&call, j->args, &sl->result) && !sl->result.oom;
        if (ok) {
            render_head(&sl->head, &j->id);
            ok = !sl->head.oom;
        }
        if (ok) {
            parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
            parts[1] = (mcp_out_part){sl->result.data ? sl->result.data : "{}",
                                      sl->result.data ? sl->result.len : 2};
            parts[2] = (mcp_out_part){"}", 1};
            nparts = 3;
        } else {
            mcp_log(MCP_LOG_ERROR, "tools/call %s: out of memory", j->tool->name);
            mcp_buf_free(&sl->head);
            static const char OOM[] = "Internal error: out of memory";
            render_error(&sl->head, &j->id, RPC_INTERNAL_ERROR, OOM, sizeof OOM - 1);
            if (!sl->head.oom) {
                parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
                nparts = 1;
            }
        }
    }

    /* The one decision: answer unless cancelled by now. */
    pthread_mutex_lock(&s->mu);
    inflight_remove(s, j);
    bool cancelled = atomic_load(&j->cancelled);
    pthread_mutex_unlock(&s->mu);

    if (ran && !cancelled) {
        if (nparts > 0)
            emit(s, b, parts, nparts);
        else if (!b)
            send_oom(s, &j->id);
        else
            mcp_log(MCP_LOG_ERROR, "out of memory: a batch answer is lost");
    } else {
        mcp_log(MCP_LOG_DEBUG, "tools/call %s: cancelled, no answer", j->tool->name);
    }
    /* j lives in sl's arena: nothing of j is used from here on. */
    slot_put(s, sl);
    if (b)
        batch_unref(s, b);

    pthread_mutex_lock(&s->mu);
    if (--s->active == 0)
        pthread_cond_broadcast(&s->idle);
    pthread_mutex_unlock(&s->mu);
}

/* Start a tools/call. For a lone message, the job takes over `sl` (returns
 * true); in a batch it gets a slot of its own and `sl` stays with the batch. */
static bool start_call(mcp_session *s, slot *sl, batch *b, const rpc_id *id,
                       const mcp_tool *tool, const mcp_json *args, const mcp_json *meta)
{
    slot *js = b ? slot_get(s) : sl;
    job *j = js ? mcp_arena_alloc(&js->arena, sizeof *j) : NULL;
    if (!j) {
        if (b && js)
            slot_put(s, js);
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return false;
    }
    j->s = s;
    j->sl = js;
    j->b = b;
    j->tool = tool;
    j->args = args;
    j->meta = meta;
    j->id = *id;
    atomic_init(&j->cancelled, false);

    pthread_mutex_lock(&s->mu);
    if (s->pool && s->active >= s->set.max_concurrent) {
        pthread_mutex_unlock(&s->mu);
        if (b)
            slot_put(s, js);
        reply_error(s, b, id, RPC_INTERNAL_ERROR,
                    "Internal error: too many concurrent requests (limit %d)",
                    s->set.max_concurrent);
        return false;
    }
    s->active++;
    j->next = s->inflight;
    if (s->inflight)
        s->inflight->prev = j;
    s->inflight = j;
    pthread_mutex_unlock(&s->mu);
    if (b) {
        pthread_mutex_lock(&b->mu);
        b->refs++;
        pthread_mutex_unlock(&b->mu);
    }

    if (!s->pool) {
        run_job(j);
        return !b;
    }
    if (!mcp_pool_submit(s->pool, run_job, j)) {
        /* Cannot happen while the queue holds max_concurrent jobs. */
        pthread_mutex_lock(&s->mu);
        inflight_remove(s, j);
        if (--s->active == 0)
            pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->mu);
        rpc_id keep = *id;
        if (b) {
            slot_put(s, js);
            batch_unref(s, b);
        }
        reply_error(s, b, &keep, RPC_INTERNAL_ERROR, "Internal error: the worker queue is full");
        return false;
    }
    return !b;
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
    pthread_mutex_lock(&s->mu);
    /* Ids of requests in flight should be unique; if a client reuses one,
     * every request carrying it is cancelled. */
    for (job *j = s->inflight; j; j = j->next) {
        if (j->id.kind != id.kind)
            continue;
        if (id.kind == ID_INT ? j->id.i == id.i
                              : j->id.len == id.len && memcmp(j->id.s, id.s, id.len) == 0) {
            atomic_store(&j->cancelled, true);
            found++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    mcp_log(MCP_LOG_DEBUG, "notifications/cancelled: %d request(s) cancelled", found);
}

/* ---------------------------------------------------------------- methods */

static const mcp_tool *find_tool(const mcp_session *s, const char *name, size_t len)
{
    size_t lo = 0, hi = s->ntools;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const tool_ref *t = &s->tools[mid];
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

static void do_initialize(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *pv = mcp_json_get(params, "protocolVersion");
    const char *version = LATEST_VERSION;
    for (size_t i = 0; i < NVERSIONS; i++)
        if (str_is(pv, VERSIONS[i]))
            version = VERSIONS[i];
    const mcp_json *info = mcp_json_get(params, "clientInfo");
    const mcp_json *cname = mcp_json_get(info, "name"), *cver = mcp_json_get(info, "version");
    mcp_log(MCP_LOG_INFO, "initialize from %s %s: protocol %s",
            cname && cname->kind == MCP_JSTRING ? cname->s : "(unnamed client)",
            cver && cver->kind == MCP_JSTRING ? cver->s : "", version);

    const mcp_server *srv = s->server;
    mcp_buf *r = &s->msg; /* free while the reply is built */
    mcp_buf_clear(r);
    mcp_buf_puts(r, "{\"protocolVersion\":");
    put_cstr(r, version);
    mcp_buf_puts(r, ",\"capabilities\":{");
    if (srv->ntools > 0)
        mcp_buf_puts(r, "\"tools\":{\"listChanged\":false}");
    mcp_buf_puts(r, "},\"serverInfo\":{\"name\":");
    put_cstr(r, srv->name ? srv->name : "");
    if (srv->title) {
        mcp_buf_puts(r, ",\"title\":");
        put_cstr(r, srv->title);
    }
    mcp_buf_puts(r, ",\"version\":");
    put_cstr(r, srv->version ? srv->version : "");
    mcp_buf_putc(r, '}');
    if (srv->instructions) {
        mcp_buf_puts(r, ",\"instructions\":");
        put_cstr(r, srv->instructions);
    }
    mcp_buf_putc(r, '}');
    if (r->oom) {
        send_oom(s, id);
        return;
    }
    s->initialized = true;
    s->version = version;
    reply_result(s, b, id, r->data, r->len);
}

/* The page a cursor selects: the cursors are the decimal indexes of each
 * page's first tool, exactly as issued. */
static const page *find_page(const mcp_session *s, const mcp_json *cursor)
{
    for (size_t i = 1; i < s->npages; i++)
        if (str_is(cursor, s->pages[i].cursor))
            return &s->pages[i];
    return NULL;
}

static void do_tools_list(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *cursor = mcp_json_get(params, "cursor");
    const page *p = &s->pages[0];
    if (cursor && cursor->kind != MCP_JNULL) {
        if (cursor->kind != MCP_JSTRING) {
            reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: cursor must be a string");
            return;
        }
        p = find_page(s, cursor);
        if (!p) {
            reply_error_named(s, b, id, RPC_INVALID_PARAMS, cursor->s, cursor->len,
                              "Invalid params: invalid cursor: ");
            return;
        }
    }
    reply_result(s, b, id, p->text.data, p->text.len);
}

/* Returns true when the job took over `sl`. */
static bool do_tools_call(mcp_session *s, slot *sl, batch *b, const rpc_id *id,
                          const mcp_json *params)
{
    const mcp_json *name = mcp_json_get(params, "name");
    if (!name) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: missing tool name");
        return false;
    }
    if (name->kind != MCP_JSTRING) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: name must be a string");
        return false;
    }
    const mcp_tool *tool = find_tool(s, name->s, name->len);
    if (!tool) {
        reply_error_named(s, b, id, RPC_INVALID_PARAMS, name->s, name->len, "Unknown tool: ");
        return false;
    }
    /* null arguments mean none, as the Python SDK takes them. */
    const mcp_json *args = mcp_json_get(params, "arguments");
    if (args && args->kind == MCP_JNULL)
        args = NULL;
    if (args && args->kind != MCP_JOBJECT) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: arguments must be an object");
        return false;
    }
    const mcp_json *meta = mcp_json_get(params, "_meta");
    if (meta && meta->kind != MCP_JOBJECT)
        meta = NULL;
    return start_call(s, sl, b, id, tool, args, meta);
}

static void notification(mcp_session *s, const mcp_json *method, const mcp_json *params)
{
    if (str_is(method, "notifications/cancelled")) {
        cancel(s, mcp_json_get(params, "requestId"));
    } else if (str_is(method, "notifications/initialized")) {
        mcp_log(MCP_LOG_DEBUG, "notifications/initialized");
    } else {
        /* Unknown notifications are ignored, as JSON-RPC says. */
        mcp_log(MCP_LOG_DEBUG, "ignored notification %s", method->s);
    }
}

typedef enum { M_UNKNOWN, M_INITIALIZE, M_PING, M_TOOLS_LIST, M_TOOLS_CALL } method_kind;

static method_kind method_of(const mcp_json *method)
{
    if (str_is(method, "tools/call"))
        return M_TOOLS_CALL;
    if (str_is(method, "ping"))
        return M_PING;
    if (str_is(method, "tools/list"))
        return M_TOOLS_LIST;
    if (str_is(method, "initialize"))
        return M_INITIALIZE;
    return M_UNKNOWN;
}

/* One message (a lone one, or an element of a batch). Returns true when a job
 * took over `sl` (lone messages only). */
static bool dispatch(mcp_session *s, slot *sl, batch *b, const mcp_json *m)
{
    if (m->kind != MCP_JOBJECT) {
        reply_error(s, b, NULL, RPC_INVALID_REQUEST,
                    "Invalid Request: a message must be a JSON object");
        return false;
    }
    const mcp_json *method = mcp_json_get(m, "method");
    const mcp_json *idv = mcp_json_get(m, "id");
    if (!method && (mcp_json_get(m, "result") || mcp_json_get(m, "error"))) {
        /* A response from the client: the server sends no requests yet. */
        mcp_log(MCP_LOG_DEBUG, "ignored a response from the client");
        return false;
    }

    rpc_id id = {ID_NONE, 0, NULL, 0};
    if (idv) {
        switch (idv->kind) {
        case MCP_JINT:
            id = (rpc_id){ID_INT, idv->i, NULL, 0};
            break;
        case MCP_JSTRING:
            id = (rpc_id){ID_STR, 0, idv->s, idv->len};
            break;
        case MCP_JNULL:
            reply_error(s, b, NULL, RPC_INVALID_REQUEST, "Invalid Request: id must not be null");
            return false;
        case MCP_JBIGINT:
            reply_error(s, b, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: id is beyond the range of a 64-bit integer");
            return false;
        default:
            reply_error(s, b, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: id must be a string or an integer");
            return false;
        }
    }
    if (!str_is(mcp_json_get(m, "jsonrpc"), "2.0")) {
        reply_error(s, b, &id, RPC_INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
        return false;
    }
    if (!method) {
        reply_error(s, b, &id, RPC_INVALID_REQUEST, "Invalid Request: missing method");
        return false;
    }
    if (method->kind != MCP_JSTRING) {
        reply_error(s, b, &id, RPC_INVALID_REQUEST, "Invalid Request: method must be a string");
        return false;
    }
    const mcp_json *params = mcp_json_get(m, "params");
    if (id.kind == ID_NONE) {
        notification(s, method, params);
        return false;
    }

    method_kind mk = method_of(method);
    if (!s->initialized && mk != M_INITIALIZE && mk != M_PING) {
        reply_error(s, b, &id, RPC_INVALID_REQUEST,
                    "Invalid Request: the server is not initialized (send initialize first)");
        return false;
    }
    if (s->initialized && mk == M_INITIALIZE) {
        reply_error(s, b, &id, RPC_INVALID_REQUEST,
                    "Invalid Request: the server is already initialized");
        return false;
    }
    if (mk == M_UNKNOWN) {
        reply_error_named(s, b, &id, RPC_METHOD_NOT_FOUND, method->s, method->len,
                          "Method not found: ");
        return false;
    }
    if (params && params->kind != MCP_JOBJECT) {
        reply_error(s, b, &id, RPC_INVALID_PARAMS, "Invalid params: params must be an object");
        return false;
    }
    switch (mk) {
    case M_PING:
        reply_result(s, b, &id, "{}", 2);
        return false;
    case M_INITIALIZE:
        do_initialize(s, b, &id, params);
        return false;
    case M_TOOLS_LIST:
        do_tools_list(s, b, &id, params);
        return false;
    case M_TOOLS_CALL:
        return do_tools_call(s, sl, b, &id, params);
    case M_UNKNOWN:
        break;
    }
    return false;
}

/* A batch (2025-03-26): each element handled as a message, the answers sent
 * together in one array once the last is in. Takes over `sl`. */
static void run_batch(mcp_session *s, slot *sl, const mcp_json *arr)
{
    batch *b = mcp_arena_alloc(&sl->arena, sizeof *b);
    if (!b) {
        send_oom(s, NULL);
        slot_put(s, sl);
        return;
    }
    b->sl = sl;
    b->refs = 1;
    b->nanswers = 0;
    pthread_mutex_init(&b->mu, NULL);
    mcp_buf_clear(&sl->result);
    for (size_t i = 0; i < arr->n && !atomic_load(&s->broken); i++)
        dispatch(s, sl, b, arr->items[i]);
    batch_unref(s, b);
}

/* ---------------------------------------------------------------- the entry points */

static bool is_blank(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r')
            return false;
    return true;
}

void mcp_session_too_large(mcp_session *s)
{
    reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                "Invalid Request: message too large (limit %zu bytes)", s->set.max_message);
}

void mcp_session_message(mcp_session *s, const char *text, size_t len)
{
    if (len > 0 && text[len - 1] == '\r')
        len--;
    /* Blank lines are not messages: clients may send a newline too many
     * (a keep-alive, a trailing "\n\n"), and answering those with parse
     * errors would only confuse them. */
    if (is_blank(text, len))
        return;
    if (len > s->set.max_message) {
        mcp_session_too_large(s);
        return;
    }
    slot *sl = s->cur ? s->cur : slot_get(s);
    s->cur = NULL;
    if (!sl) {
        send_oom(s, NULL);
        return;
    }
    /* Every node of the DOM lives in the slot's arena (mcp_json_parse copies
     * strings and number literals): a job may take it to a worker while the
     * transport reuses its buffer. */
    mcp_json_err err = MCP_JSON_E_NOMEM;
    size_t off = 0;
    mcp_json *m = mcp_json_parse(&sl->arena, text, len, &s->limits, &err, &off);
    bool taken = false;
    if (!m) {
        if (err == MCP_JSON_E_NOMEM)
            reply_error(s, NULL, NULL, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        else if (err == MCP_JSON_E_DEPTH)
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: nesting deeper than %d levels", s->limits.max_depth);
        else
            reply_error(s, NULL, NULL, RPC_PARSE_ERROR, "Parse error: %s at byte %zu",
                        mcp_json_error_str(err), off);
    } else if (m->kind == MCP_JARRAY) {
        if (!s->version || strcmp(s->version, BATCH_VERSION) != 0) {
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: batches are only allowed with protocol version "
                        BATCH_VERSION);
        } else if (m->n == 0) {
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST, "Invalid Request: empty batch");
        } else {
            run_batch(s, sl, m);
            taken = true;
        }
    } else {
        taken = dispatch(s, sl, NULL, m);
    }
    if (!taken) {
        slot_recycle(sl);
        s->cur = sl;
    }
    /* An answer that echoed a huge name does not keep its memory. */
    buf_recycle(&s->reply);
    buf_recycle(&s->msg);
}

bool mcp_session_broken(mcp_session *s) { return atomic_load(&s->broken); }

void mcp_session_drain(mcp_session *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->active > 0)
        pthread_cond_wait(&s->idle, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static int tool_ref_cmp(const void *x, const void *y)
{
    const tool_ref *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* tools/list, rendered once: each page's whole result text. */
static bool render_pages(mcp_session *s)
{
    const mcp_server *srv = s->server;
    size_t per = s->set.page_size;
    size_t n = 0; /* tools with an entry */
    for (size_t i = 0; i < srv->ntools; i++)
        n += srv->tools[i].list_entry != NULL;
    s->npages = n == 0 ? 1 : (n + per - 1) / per;
    s->pages = calloc(s->npages, sizeof *s->pages);
    if (!s->pages)
        return false;
    size_t t = 0, k = 0;
    for (size_t p = 0; p < s->npages; p++) {
        mcp_buf *out = &s->pages[p].text;
        mcp_buf_init(out);
        if (p > 0)
            snprintf(s->pages[p].cursor, sizeof s->pages[p].cursor, "%zu", k);
        mcp_buf_puts(out, "{\"tools\":[");
        for (size_t in_page = 0; in_page < per && t < srv->ntools; t++) {
            const char *entry = srv->tools[t].list_entry;
            if (!entry)
                continue;
            if (in_page++)
                mcp_buf_putc(out, ',');
            mcp_buf_puts(out, entry);
            k++;
        }
        mcp_buf_putc(out, ']');
        if (p + 1 < s->npages)
            mcp_buf_printf(out, ",\"nextCursor\":\"%zu\"", k);
        mcp_buf_putc(out, '}');
        if (out->oom)
            return false;
    }
    return true;
}

mcp_session *mcp_session_new(const mcp_server *server, const mcp_settings *settings,
                             mcp_sink_fn sink, void *sink_ctx)
{
    mcp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->server = server;
    if (settings)
        s->set = *settings;
    else
        mcp_settings_default(&s->set);
    if (s->set.workers < 0)
        s->set.workers = 0;
    if (s->set.workers > MCP_MAX_WORKERS)
        s->set.workers = MCP_MAX_WORKERS;
    if (s->set.max_concurrent < 1)
        s->set.max_concurrent = 1;
    if (s->set.page_size < 1)
        s->set.page_size = MCP_DEFAULT_PAGE_SIZE;
    if (s->set.max_depth <= 0)
        s->set.max_depth = MCP_JSON_DEFAULT_MAX_DEPTH;
    if (s->set.max_depth > MCP_JSON_DEPTH_CAP)
        s->set.max_depth = MCP_JSON_DEPTH_CAP;
    s->limits.max_depth = s->set.max_depth;
    s->sink = sink;
    s->sink_ctx = sink_ctx;
    atomic_init(&s->broken, false);
    mcp_buf_init(&s->reply);
    mcp_buf_init(&s->msg);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->idle, NULL);

    bool ok = true;
    if (server->ntools > 0) {
        s->tools = calloc(server->ntools, sizeof *s->tools);
        ok = s->tools != NULL;
        for (size_t i = 0; ok && i < server->ntools; i++)
            if (server->tools[i].name) {
                const char *name = server->tools[i].name;
                s->tools[s->ntools++] = (tool_ref){name, strlen(name), &server->tools[i]};
            }
        if (ok)
            qsort(s->tools, s->ntools, sizeof *s->tools, tool_ref_cmp);
    }
    ok = ok && render_pages(s);
    if (ok && s->set.workers > 0) {
        s->pool = mcp_pool_new(s->set.workers, (size_t)s->set.max_concurrent);
        ok = s->pool != NULL;
    }
    if (!ok) {
        mcp_session_free(s);
        return NULL;
    }
    return s;
}

void mcp_session_free(mcp_session *s)
{
    if (!s)
        return;
    mcp_session_drain(s);
    mcp_pool_shutdown(s->pool);
    if (s->cur)
        slot_destroy(s->cur);
    for (slot *sl = s->free_slots, *next; sl; sl = next) {
        next = sl->next;
        slot_destroy(sl);
    }
    for (size_t p = 0; s->pages && p < s->npages; p++)
        mcp_buf_free(&s->pages[p].text);
    free(s->pages);
    free(s->tools);
    mcp_buf_free(&s->reply);
    mcp_buf_free(&s->msg);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->mu);
    free(s);
}
