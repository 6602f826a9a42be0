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
#include "internal/session.h"

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
#include <unistd.h>

#include "internal/call.h"
#include "mcpidl/jsonw.h"
#include "mcpidl/uritemplate.h"
#include "internal/pool.h"

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
    s->client_timeout_ms = MCP_DEFAULT_CLIENT_TIMEOUT_MS;
    s->max_pending = MCP_DEFAULT_MAX_PENDING;
    s->max_string = 0;
    s->max_array = MCP_DEFAULT_MAX_ARRAY;
    s->max_values = MCP_DEFAULT_MAX_VALUES;
    s->max_subscriptions = MCP_DEFAULT_MAX_SUBSCRIPTIONS;
    s->max_waiting = MCP_DEFAULT_MAX_WAITING;
}

mcp_json_limits mcp_settings_json_limits(const mcp_settings *set)
{
    mcp_json_limits l = {.max_depth = set->max_depth, .max_string = set->max_string,
                         .max_array = set->max_array, .max_values = set->max_values};
    if (l.max_depth <= 0)
        l.max_depth = MCP_JSON_DEFAULT_MAX_DEPTH;
    if (l.max_depth > MCP_JSON_DEPTH_CAP)
        l.max_depth = MCP_JSON_DEPTH_CAP;
    if (l.max_string == 0 || l.max_string > set->max_message)
        l.max_string = set->max_message;
    return l;
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
    void *rctx;  /* the transport's reply context of the whole batch */
    bool expect; /* some element gets an answer: the batch gets a final call */
} batch;

/* What a job runs: a tool, or a handler of the other methods. */
typedef enum job_kind { JOB_TOOL, JOB_READ, JOB_PROMPT, JOB_COMPLETE } job_kind;

typedef struct job {
    mcp_task task;           /* first: the pool's link (run_job casts back) */
    struct job *prev, *next; /* the in-flight list */
    mcp_session *s;
    slot *sl;    /* the job's own: the handler's arena, the answer's text */
    batch *b;    /* NULL, or the batch the request came in */
    job_kind kind;
    const mcp_tool *tool;
    const mcp_json *args, *meta;
    /* JOB_READ: the resource or the template (and its variables' values);
     * JOB_PROMPT: the prompt and its arguments; JOB_COMPLETE: the completer
     * (NULL: nothing to suggest), the value typed and the context. */
    const mcp_resource *resource;
    const mcp_resource_template *tmpl;
    const mcp_prompt *prompt;
    const mcp_completer *completer;
    const char *const *strs;
    const char *uri;
    const char *value;
    const mcp_json *context;
    rpc_id id;
    void *rctx; /* the transport's reply context */
    atomic_bool cancelled;
} job;

/* A request to the client a handler waits for (mcp_client_request). */
typedef enum { P_WAIT, P_RESULT, P_ERROR } pend_state;

typedef struct pending {
    bool used;
    int64_t id;          /* the request's id (the session's own counter) */
    job *j;              /* the job whose handler waits */
    pend_state state;
    char *text;          /* P_RESULT: the result as JSON text; P_ERROR: the message (malloc) */
    size_t len;
    pthread_cond_t cv;   /* signalled under mu when state changes or the wait must end */
} pending;

typedef struct tool_ref {
    const char *name;
    size_t len;
    const mcp_tool *tool;
} tool_ref;

typedef struct page {
    mcp_buf text;       /* {"tools":[...],"nextCursor":"..."} */
    char cursor[24];    /* the cursor that selects this page ("" for the first) */
} page;

/* One of the list methods (tools, resources, resource templates, prompts),
 * rendered once into pages. */
typedef struct listing {
    page *pages;
    size_t npages;
} listing;

/* A URI a client subscribed to (resources/subscribe). */
typedef struct sub {
    struct sub *next;
    char uri[];
} sub;

struct mcp_session {
    const mcp_server *server;
    mcp_settings set;
    mcp_json_limits limits;
    mcp_sink_fn sink;
    void *sink_ctx;
    atomic_bool broken;
    bool own_pool; /* the pool is the session's, shut down with it */

    /* The reading thread's. */
    bool initialized;
    const char *version; /* negotiated; NULL before initialize */
    void *rctx;          /* the reply context of the message being handled */
    slot *cur;           /* a slot ready for the next message */
    mcp_buf reply;       /* an answer being written */
    mcp_buf msg;         /* an error message being written */
    tool_ref *tools;     /* sorted by name */
    size_t ntools;
    listing lists[4];    /* tools, resources, templates, prompts */

    /* Shared, under mu. */
    pthread_mutex_t mu;
    pthread_cond_t idle; /* active dropped to 0 */
    job *inflight;
    int active;     /* jobs not yet finished (drain waits for 0) */
    int admitted;   /* jobs not yet answered: the concurrency limit counts these, so a client
                     * that sends its next request on reading an answer is never refused */
    slot *free_slots;

    mcp_pool *pool; /* NULL: handlers run on the reading thread */
    mcp_pool_queue *queue; /* the session's turn in the pool */

    /* notifications/message: the least severe mcp_level sent (logging/setLevel). */
    atomic_int log_min;
    /* What the client declared in initialize (written by the reading thread
     * before any tools/call, read by workers). */
    bool client_sampling, client_elicitation, client_roots;

    /* Requests to the client, under mu: the table (max_pending entries,
     * allocated on first use), the next id, whether the session is ending. */
    pending *pend;
    int64_t next_req_id;
    bool closing;

    /* resources/subscribe, under the registry's lock (mcp_resource_updated
     * may come from any thread); `registered` says whether the session is
     * on the registry's list. */
    sub *subs;
    int nsubs;
    struct mcp_session *reg_next;
    bool registered;
};

enum { LIST_TOOLS, LIST_RESOURCES, LIST_TEMPLATES, LIST_PROMPTS };

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

/* Under mu: every handler waiting for the client looks again. */
static void pending_wake_all(mcp_session *s)
{
    for (int i = 0; s->pend && i < s->set.max_pending; i++)
        if (s->pend[i].used)
            pthread_cond_broadcast(&s->pend[i].cv);
}

static void mark_broken(mcp_session *s)
{
    if (atomic_exchange(&s->broken, true))
        return;
    mcp_log(MCP_LOG_INFO, "the client is gone: dropping the requests in flight");
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
static void render_error_data(mcp_buf *out, const rpc_id *id, int code, const char *msg, size_t len,
                              const char *data, size_t data_len)
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

/* Reading thread: a result whose text is result[0..n). */
static void reply_result(mcp_session *s, batch *b, const rpc_id *id, const char *result, size_t n)
{
    mcp_buf_clear(&s->reply);
    render_head(&s->reply, id);
    if (s->reply.oom) {
        send_oom(s, b, s->rctx, id);
        return;
    }
    mcp_out_part parts[3] = {{s->reply.data, s->reply.len}, {result, n}, {"}", 1}};
    emit(s, b, s->rctx, parts, 3);
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
        send_oom(s, b, s->rctx, id);
        return;
    }
    mcp_out_part part = {s->reply.data, s->reply.len};
    emit(s, b, s->rctx, &part, 1);
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

static void run_job(mcp_task *t)
{
    job *j = (job *)t; /* the task is j's first member */
    mcp_session *s = j->s;
    slot *sl = j->sl;
    batch *b = j->b;
    mcp_out_part parts[3];
    size_t nparts = 0;
    bool ran = !atomic_load(&j->cancelled) && !atomic_load(&s->broken);

    if (ran) {
        mcp_call call;
        mcp_call_init(&call, &sl->arena, j->tool, j->meta, &j->cancelled);
        call.job = j;
        call.uri = j->uri;
        mcp_buf_clear(&sl->result);
        mcp_buf_clear(&sl->head);
        int code = 0;
        const char *why = NULL;
        bool ok = true;
        switch (j->kind) {
        case JOB_TOOL:
            ok = mcp_tool_invoke(&call, j->args, &sl->result);
            break;
        case JOB_READ:
            code = mcp_read_invoke(&call, j->resource, j->tmpl, j->strs, &sl->result, &why);
            break;
        case JOB_PROMPT:
            code = mcp_prompt_invoke(&call, j->prompt, j->strs, &sl->result, &why);
            break;
        case JOB_COMPLETE:
            code = mcp_complete_invoke(&call, j->completer, j->value, j->context, &sl->result, &why);
            break;
        }
        ok = ok && !sl->result.oom;
        if (ok && code != 0) {
            /* The handler's error: a JSON-RPC error answer (for a missing
             * resource, with the URI as its data). */
            mcp_buf data;
            mcp_buf_init(&data);
            if (code == -32002 && j->uri) {
                mcp_buf_puts(&data, "{\"uri\":");
                put_cstr(&data, j->uri);
                mcp_buf_putc(&data, '}');
            }
            const char *msg = why ? why : "Internal error";
            render_error_data(&sl->head, &j->id, code, msg, strlen(msg), data.len ? data.data : NULL, data.len);
            mcp_buf_free(&data);
            if (!sl->head.oom) {
                parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
                nparts = 1;
            }
        } else if (ok) {
            render_head(&sl->head, &j->id);
            ok = !sl->head.oom;
        }
        if (ok && code == 0) {
            parts[0] = (mcp_out_part){sl->head.data, sl->head.len};
            parts[1] = (mcp_out_part){sl->result.data ? sl->result.data : "{}",
                                      sl->result.data ? sl->result.len : 2};
            parts[2] = (mcp_out_part){"}", 1};
            nparts = 3;
        } else if (nparts == 0) { /* out of memory (a handler's error answer is ready) */
            mcp_log(MCP_LOG_ERROR, "%s: out of memory", j->tool ? j->tool->name : "a request");
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
    s->admitted--;
    bool cancelled = atomic_load(&j->cancelled);
    pthread_mutex_unlock(&s->mu);

    if (ran && !cancelled) {
        if (nparts > 0)
            emit(s, b, j->rctx, parts, nparts);
        else
            send_oom(s, b, j->rctx, &j->id);
    } else {
        mcp_log(MCP_LOG_DEBUG, "%s: cancelled, no answer", j->tool ? j->tool->name : "a request");
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
}

/* Start a job described by `tmpl` (its kind and target). For a lone message,
 * the job takes over `sl` (returns true); in a batch it gets a slot of its
 * own and `sl` stays with the batch (whose arena holds what the job reads). */
static bool start_job(mcp_session *s, slot *sl, batch *b, const rpc_id *id, const job *tmpl)
{
    slot *js = b ? slot_get(s) : sl;
    job *j = js ? mcp_arena_alloc(&js->arena, sizeof *j) : NULL;
    if (!j) {
        if (b && js)
            slot_put(s, js);
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return false;
    }
    *j = *tmpl;
    j->prev = j->next = NULL;
    j->s = s;
    j->sl = js;
    j->b = b;
    j->id = *id;
    j->rctx = s->rctx;
    atomic_init(&j->cancelled, false);

    pthread_mutex_lock(&s->mu);
    if (s->pool && s->admitted >= s->set.max_concurrent) {
        pthread_mutex_unlock(&s->mu);
        if (b)
            slot_put(s, js);
        reply_error(s, b, id, RPC_INTERNAL_ERROR,
                    "Internal error: too many concurrent requests (limit %d)",
                    s->set.max_concurrent);
        return false;
    }
    s->active++;
    s->admitted++;
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

    j->task.run = run_job;
    if (!s->pool) {
        run_job(&j->task);
        return !b;
    }
    if (!mcp_pool_submit(s->queue, &j->task)) {
        /* The pool is shutting down (the session's last moments). */
        pthread_mutex_lock(&s->mu);
        inflight_remove(s, j);
        s->admitted--;
        if (--s->active == 0)
            pthread_cond_broadcast(&s->idle);
        pthread_mutex_unlock(&s->mu);
        rpc_id keep = *id;
        if (b) {
            slot_put(s, js);
            batch_unref(s, b);
        }
        reply_error(s, b, &keep, RPC_INTERNAL_ERROR, "Internal error: the server is stopping");
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
    if (found)
        pending_wake_all(s);
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
    const mcp_json *caps = mcp_json_get(params, "capabilities");
    s->client_sampling = mcp_json_get(caps, "sampling") != NULL;
    s->client_elicitation = mcp_json_get(caps, "elicitation") != NULL;
    s->client_roots = mcp_json_get(caps, "roots") != NULL;
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
    /* logging: the runtime serves logging/setLevel (and handlers may log). */
    mcp_buf_puts(r, ",\"capabilities\":{\"logging\":{}");
    if (srv->ntools > 0)
        mcp_buf_puts(r, ",\"tools\":{\"listChanged\":false}");
    if (srv->nresources > 0 || srv->ntemplates > 0)
        mcp_buf_puts(r, ",\"resources\":{\"subscribe\":true,\"listChanged\":false}");
    if (srv->nprompts > 0)
        mcp_buf_puts(r, ",\"prompts\":{\"listChanged\":false}");
    if (srv->nprompts > 0 || srv->ntemplates > 0)
        mcp_buf_puts(r, ",\"completions\":{}");
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
        send_oom(s, b, s->rctx, id);
        return;
    }
    s->initialized = true;
    s->version = version;
    reply_result(s, b, id, r->data, r->len);
}

/* The page a cursor selects: the cursors are the decimal indexes of each
 * page's first tool, exactly as issued. */
static const page *find_page(const listing *l, const mcp_json *cursor)
{
    for (size_t i = 1; i < l->npages; i++)
        if (str_is(cursor, l->pages[i].cursor))
            return &l->pages[i];
    return NULL;
}

static void do_list(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params, const listing *l)
{
    const mcp_json *cursor = mcp_json_get(params, "cursor");
    const page *p = &l->pages[0];
    if (cursor && cursor->kind != MCP_JNULL) {
        if (cursor->kind != MCP_JSTRING) {
            reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: cursor must be a string");
            return;
        }
        p = find_page(l, cursor);
        if (!p) {
            reply_error_named(s, b, id, RPC_INVALID_PARAMS, cursor->s, cursor->len,
                              "Invalid params: invalid cursor: ");
            return;
        }
    }
    reply_result(s, b, id, p->text.data, p->text.len);
}

/* params.arguments of tools/call and prompts/get: an object, or NULL when
 * absent or null (none, as the Python SDK takes it). False after the -32602
 * answer. */
static bool arguments_of(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params,
                         const mcp_json **out)
{
    const mcp_json *args = mcp_json_get(params, "arguments");
    if (args && args->kind == MCP_JNULL)
        args = NULL;
    if (args && args->kind != MCP_JOBJECT) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: arguments must be an object");
        return false;
    }
    *out = args;
    return true;
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
    const mcp_json *args;
    if (!arguments_of(s, b, id, params, &args))
        return false;
    const mcp_json *meta = mcp_json_get(params, "_meta");
    if (meta && meta->kind != MCP_JOBJECT)
        meta = NULL;
    return start_job(s, sl, b, id, &(job){.kind = JOB_TOOL, .tool = tool, .args = args, .meta = meta});
}

/* MCP's log levels, least severe first (mcp_level's order). */
static const char *const LEVELS[] = {"debug",    "info",  "notice", "warning",
                                     "error", "critical", "alert",  "emergency"};
#define NLEVELS ((int)(sizeof LEVELS / sizeof *LEVELS))

static void do_set_level(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *level = mcp_json_get(params, "level");
    for (int i = 0; i < NLEVELS; i++)
        if (str_is(level, LEVELS[i])) {
            atomic_store(&s->log_min, i);
            reply_result(s, b, id, "{}", 2);
            return;
        }
    reply_error(s, b, id, RPC_INVALID_PARAMS,
                "Invalid params: level must be one of debug, info, notice, warning, error, "
                "critical, alert, emergency");
}

/* ---------------------------------------------------------------- resources, prompts, completions */

/* A required string member of params; after the -32602 answer, NULL. */
static const mcp_json *need_string(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *params,
                                   const char *key)
{
    const mcp_json *v = mcp_json_get(params, key);
    if (!v) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: missing %s", key);
        return NULL;
    }
    if (v->kind != MCP_JSTRING) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: %s must be a string", key);
        return NULL;
    }
    if (v->has_nul) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: %s must not contain NUL", key);
        return NULL;
    }
    return v;
}

/* The arena a job started from this message will own (a lone message's slot;
 * a batch's own slot while the batch runs). */
static mcp_arena *msg_arena(slot *sl) { return &sl->arena; }

/* What serves `uri`: a resource with exactly that URI (*r), or the first
 * template that matches it (*t, with its variables' values in *vars, in
 * `a`); false when nothing does, or out of memory (*oom). */
static bool find_served(const mcp_server *srv, const char *uri, mcp_arena *a,
                        const mcp_resource **r, const mcp_resource_template **t, const char ***vars,
                        bool *oom)
{
    *r = NULL;
    *t = NULL;
    *vars = NULL;
    *oom = false;
    for (size_t i = 0; i < srv->nresources; i++)
        if (srv->resources[i].uri && strcmp(srv->resources[i].uri, uri) == 0) {
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
        if (mcp_uri_template_match(tp->uri_template, uri, a, v, tp->nvars)) {
            *t = tp;
            *vars = v;
            return true;
        }
    }
    return false;
}

/* -32002 Resource not found, with the URI as its data. */
static void reply_not_found(mcp_session *s, batch *b, const rpc_id *id, const mcp_json *uri)
{
    mcp_buf_clear(&s->msg);
    mcp_buf_puts(&s->msg, "{\"uri\":");
    put_str(&s->msg, uri->s, uri->len);
    mcp_buf_putc(&s->msg, '}');
    mcp_buf_clear(&s->reply);
    static const char NF[] = "Resource not found";
    render_error_data(&s->reply, id, -32002, NF, sizeof NF - 1, s->msg.data, s->msg.len);
    if (s->msg.oom || s->reply.oom) {
        send_oom(s, b, s->rctx, id);
        return;
    }
    mcp_out_part part = {s->reply.data, s->reply.len};
    emit(s, b, s->rctx, &part, 1);
}

/* Returns true when a job took over `sl`. */
static bool do_resources_read(mcp_session *s, slot *sl, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *uri = need_string(s, b, id, params, "uri");
    if (!uri)
        return false;
    const mcp_resource *r;
    const mcp_resource_template *t;
    const char **vars;
    bool oom;
    if (find_served(s->server, uri->s, msg_arena(sl), &r, &t, &vars, &oom))
        return start_job(s, sl, b, id,
                         &(job){.kind = JOB_READ, .resource = r, .tmpl = t, .strs = vars, .uri = uri->s});
    if (oom)
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        reply_not_found(s, b, id, uri);
    return false;
}

static void put_handler_str(mcp_buf *b, const char *s, size_t n);

/* Sessions with subscriptions, for mcp_resource_updated(). */
static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static mcp_session *registry;

static void registry_remove(mcp_session *s)
{
    pthread_mutex_lock(&registry_mu);
    if (s->registered)
        for (mcp_session **p = &registry; *p; p = &(*p)->reg_next)
            if (*p == s) {
                *p = s->reg_next;
                break;
            }
    s->registered = false;
    for (sub *u = s->subs, *next; u; u = next) {
        next = u->next;
        free(u);
    }
    s->subs = NULL;
    s->nsubs = 0;
    pthread_mutex_unlock(&registry_mu);
}

/* resources/subscribe and unsubscribe. A session subscribes only to URIs
 * the server serves (a resource's, or one a template matches), each at most
 * MCP_MAX_SUBSCRIBE_URI bytes, at most settings.max_subscriptions of them:
 * what a client can make the server keep is bounded. Unsubscribing from
 * what is not subscribed is not an error. */
static void do_subscribe(mcp_session *s, slot *sl, batch *b, const rpc_id *id, const mcp_json *params,
                         bool on)
{
    const mcp_json *uri = need_string(s, b, id, params, "uri");
    if (!uri)
        return;
    if (on) {
        if (uri->len > MCP_MAX_SUBSCRIBE_URI) {
            reply_error(s, b, id, RPC_INVALID_PARAMS,
                        "Invalid params: uri longer than %d bytes cannot be subscribed to",
                        MCP_MAX_SUBSCRIBE_URI);
            return;
        }
        const mcp_resource *r;
        const mcp_resource_template *t;
        const char **vars;
        bool oom;
        if (!find_served(s->server, uri->s, msg_arena(sl), &r, &t, &vars, &oom)) {
            if (oom)
                reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
            else
                reply_not_found(s, b, id, uri);
            return;
        }
    }
    enum { DONE, FULL, NOMEM } outcome = DONE;
    pthread_mutex_lock(&registry_mu);
    sub **p = &s->subs;
    while (*p && strcmp((*p)->uri, uri->s) != 0)
        p = &(*p)->next;
    if (on && !*p && s->nsubs >= s->set.max_subscriptions) {
        outcome = FULL;
    } else if (on && !*p) {
        sub *u = malloc(sizeof *u + uri->len + 1);
        if (u) {
            memcpy(u->uri, uri->s, uri->len + 1);
            u->next = s->subs;
            s->subs = u;
            s->nsubs++;
            if (!s->registered) {
                s->reg_next = registry;
                registry = s;
                s->registered = true;
            }
        } else {
            outcome = NOMEM;
        }
    } else if (!on && *p) {
        sub *u = *p;
        *p = u->next;
        s->nsubs--;
        free(u);
    }
    pthread_mutex_unlock(&registry_mu);
    if (outcome == FULL)
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: too many subscriptions (limit %d)",
                    s->set.max_subscriptions);
    else if (outcome == NOMEM)
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        reply_result(s, b, id, "{}", 2);
}

void mcp_resource_updated(const char *uri)
{
    if (!uri)
        return;
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":");
    put_handler_str(&m, uri, strlen(uri));
    mcp_buf_puts(&m, "}}");
    if (m.oom) {
        mcp_buf_free(&m);
        return;
    }
    mcp_out_part part = {m.data, m.len};
    /* Sending under the lock keeps every session on the list alive (a session
     * leaves it before it is freed); the sinks serialise their own writes. */
    pthread_mutex_lock(&registry_mu);
    for (mcp_session *s = registry; s; s = s->reg_next)
        for (const sub *u = s->subs; u; u = u->next)
            if (strcmp(u->uri, uri) == 0) {
                /* (Subscribed means initialized: resources/subscribe needs it.) */
                if (!atomic_load(&s->broken))
                    sink_send(s, NULL, &part, 1, false);
                break;
            }
    pthread_mutex_unlock(&registry_mu);
    mcp_buf_free(&m);
}

static const mcp_prompt *find_prompt(const mcp_server *srv, const char *name, size_t len)
{
    for (size_t i = 0; i < srv->nprompts; i++)
        if (srv->prompts[i].name && strlen(srv->prompts[i].name) == len &&
            memcmp(srv->prompts[i].name, name, len) == 0)
            return &srv->prompts[i];
    return NULL;
}

static bool do_prompts_get(mcp_session *s, slot *sl, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *name = need_string(s, b, id, params, "name");
    if (!name)
        return false;
    const mcp_prompt *p = find_prompt(s->server, name->s, name->len);
    if (!p) {
        reply_error_named(s, b, id, RPC_INVALID_PARAMS, name->s, name->len, "Invalid params: unknown prompt: ");
        return false;
    }
    const mcp_json *args;
    if (!arguments_of(s, b, id, params, &args))
        return false;
    const char **vals = mcp_arena_alloc(msg_arena(sl), (p->nargs ? p->nargs : 1) * sizeof *vals);
    if (!vals) {
        reply_error(s, b, id, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return false;
    }
    for (size_t i = 0; i < p->nargs; i++) {
        const mcp_json *v = mcp_json_get(args, p->args[i].name);
        if (v && v->kind == MCP_JNULL)
            v = NULL;
        if (v && (v->kind != MCP_JSTRING || v->has_nul)) {
            reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: argument '%s' of prompt '%s' must be a string",
                        p->args[i].name, p->name);
            return false;
        }
        if (!v && p->args[i].required) {
            reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: missing required argument '%s' of prompt '%s'",
                        p->args[i].name, p->name);
            return false;
        }
        vals[i] = v ? v->s : NULL;
    }
    return start_job(s, sl, b, id, &(job){.kind = JOB_PROMPT, .prompt = p, .strs = vals, .uri = p->name});
}

static const mcp_completer *find_completer(const mcp_completer *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

static bool do_complete(mcp_session *s, slot *sl, batch *b, const rpc_id *id, const mcp_json *params)
{
    const mcp_json *ref = mcp_json_get(params, "ref");
    const mcp_json *arg = mcp_json_get(params, "argument");
    if (!ref || ref->kind != MCP_JOBJECT) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: ref must be an object");
        return false;
    }
    if (!arg || arg->kind != MCP_JOBJECT) {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: argument must be an object");
        return false;
    }
    const mcp_json *aname = need_string(s, b, id, arg, "name");
    if (!aname)
        return false;
    const mcp_json *value = need_string(s, b, id, arg, "value");
    if (!value)
        return false;
    const mcp_json *type = mcp_json_get(ref, "type");
    const mcp_server *srv = s->server;
    const mcp_completer *k = NULL;
    bool known_arg = false;
    if (str_is(type, "ref/prompt")) {
        const mcp_json *name = need_string(s, b, id, ref, "name");
        if (!name)
            return false;
        const mcp_prompt *p = find_prompt(srv, name->s, name->len);
        if (!p) {
            reply_error_named(s, b, id, RPC_INVALID_PARAMS, name->s, name->len, "Invalid params: unknown prompt: ");
            return false;
        }
        for (size_t i = 0; i < p->nargs; i++)
            known_arg = known_arg || strcmp(p->args[i].name, aname->s) == 0;
        k = find_completer(p->complete, p->ncomplete, aname->s);
    } else if (str_is(type, "ref/resource")) {
        const mcp_json *uri = need_string(s, b, id, ref, "uri");
        if (!uri)
            return false;
        const mcp_resource_template *t = NULL;
        for (size_t i = 0; i < srv->ntemplates && !t; i++)
            if (strcmp(srv->templates[i].uri_template, uri->s) == 0)
                t = &srv->templates[i];
        if (!t) {
            reply_error_named(s, b, id, RPC_INVALID_PARAMS, uri->s, uri->len,
                              "Invalid params: no resource template ");
            return false;
        }
        for (size_t i = 0; i < t->nvars; i++) {
            const char *v = mcp_uri_template_var(t->uri_template, i, msg_arena(sl));
            known_arg = known_arg || (v && strcmp(v, aname->s) == 0);
        }
        k = find_completer(t->complete, t->ncomplete, aname->s);
    } else {
        reply_error(s, b, id, RPC_INVALID_PARAMS, "Invalid params: ref.type must be \"ref/prompt\" or \"ref/resource\"");
        return false;
    }
    if (!known_arg) {
        reply_error_named(s, b, id, RPC_INVALID_PARAMS, aname->s, aname->len, "Invalid params: unknown argument: ");
        return false;
    }
    const mcp_json *ctx = mcp_json_get(mcp_json_get(params, "context"), "arguments");
    if (ctx && ctx->kind != MCP_JOBJECT)
        ctx = NULL;
    return start_job(s, sl, b, id, &(job){.kind = JOB_COMPLETE, .completer = k, .value = value->s, .context = ctx});
}

/* The text of a response from the client, to the handler waiting for it
 * (reading thread). Responses nobody waits for (late, after a timeout, or
 * unknown ids) are dropped. */
static void client_response(mcp_session *s, const mcp_json *m)
{
    const mcp_json *idv = mcp_json_get(m, "id");
    if (!idv || idv->kind != MCP_JINT || !s->pend) {
        mcp_log(MCP_LOG_DEBUG, "ignored a response from the client (no request of ours)");
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
    for (int i = 0; i < s->set.max_pending; i++) {
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
        mcp_log(MCP_LOG_DEBUG, "ignored a response from the client to request %lld (not pending)",
                (long long)idv->i);
    }
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

typedef enum {
    M_UNKNOWN,
    M_INITIALIZE,
    M_PING,
    M_TOOLS_LIST,
    M_TOOLS_CALL,
    M_SET_LEVEL,
    M_RESOURCES_LIST,
    M_TEMPLATES_LIST,
    M_RESOURCES_READ,
    M_SUBSCRIBE,
    M_UNSUBSCRIBE,
    M_PROMPTS_LIST,
    M_PROMPTS_GET,
    M_COMPLETE,
} method_kind;

/* The methods a server serves beyond tools, each only when the IDL declares
 * what it needs (the capability announced in initialize). */
static method_kind beyond_method(const mcp_server *srv, const mcp_json *method)
{
    static const struct { const char *name; method_kind m; int needs; } M[] = {
        {"resources/list", M_RESOURCES_LIST, 1},  {"resources/templates/list", M_TEMPLATES_LIST, 1},
        {"resources/read", M_RESOURCES_READ, 1},  {"resources/subscribe", M_SUBSCRIBE, 1},
        {"resources/unsubscribe", M_UNSUBSCRIBE, 1}, {"prompts/list", M_PROMPTS_LIST, 2},
        {"prompts/get", M_PROMPTS_GET, 2},        {"completion/complete", M_COMPLETE, 3},
    };
    bool have[4] = {false, srv->nresources > 0 || srv->ntemplates > 0, srv->nprompts > 0,
                    srv->nprompts > 0 || srv->ntemplates > 0};
    for (size_t i = 0; i < sizeof M / sizeof *M; i++)
        if (str_is(method, M[i].name))
            return have[M[i].needs] ? M[i].m : M_UNKNOWN;
    return M_UNKNOWN;
}

static method_kind method_of(const mcp_session *s, const mcp_json *method)
{
    if (str_is(method, "tools/call"))
        return M_TOOLS_CALL;
    if (str_is(method, "ping"))
        return M_PING;
    if (str_is(method, "tools/list"))
        return M_TOOLS_LIST;
    if (str_is(method, "initialize"))
        return M_INITIALIZE;
    if (str_is(method, "logging/setLevel"))
        return M_SET_LEVEL;
    return beyond_method(s->server, method);
}

/* Whether dispatch() answers m: all but notifications and client responses
 * (dispatch's own order of checks). */
static bool gets_answer(const mcp_json *m)
{
    bool initialize;
    mcp_msg_kind k = mcp_message_kind(m, &initialize);
    return k != MCP_MSG_NOTIFICATION && k != MCP_MSG_RESPONSE;
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
    const char *error;  /* NULL: a request (id) or notification (no id) */
    bool error_with_id;
} envelope;

static void read_envelope(const mcp_json *m, envelope *e)
{
    *e = (envelope){.id = {ID_NONE, 0, NULL, 0}};
    e->method = mcp_json_get(m, "method");
    e->params = mcp_json_get(m, "params");
    if (!e->method && (mcp_json_get(m, "result") || mcp_json_get(m, "error"))) {
        e->response = true;
        return;
    }
    const mcp_json *idv = mcp_json_get(m, "id");
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
    if (!str_is(mcp_json_get(m, "jsonrpc"), "2.0"))
        e->error = "Invalid Request: jsonrpc must be \"2.0\"";
    else if (!e->method)
        e->error = "Invalid Request: missing method";
    else if (e->method->kind != MCP_JSTRING)
        e->error = "Invalid Request: method must be a string";
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

/* One message (a lone one, or an element of a batch). Returns true when a job
 * took over `sl` (lone messages only). */
static bool dispatch(mcp_session *s, slot *sl, batch *b, const mcp_json *m)
{
    if (m->kind != MCP_JOBJECT) {
        reply_error(s, b, NULL, RPC_INVALID_REQUEST,
                    "Invalid Request: a message must be a JSON object");
        return false;
    }
    envelope e;
    read_envelope(m, &e);
    if (e.response) {
        /* A response from the client: to the handler waiting for it. */
        client_response(s, m);
        return false;
    }
    if (e.error) {
        reply_error(s, b, e.error_with_id ? &e.id : NULL, RPC_INVALID_REQUEST, "%s", e.error);
        return false;
    }
    rpc_id id = e.id;
    const mcp_json *method = e.method, *params = e.params;
    if (id.kind == ID_NONE) {
        notification(s, method, params);
        return false;
    }

    method_kind mk = method_of(s, method);
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
        do_list(s, b, &id, params, &s->lists[LIST_TOOLS]);
        return false;
    case M_RESOURCES_LIST:
        do_list(s, b, &id, params, &s->lists[LIST_RESOURCES]);
        return false;
    case M_TEMPLATES_LIST:
        do_list(s, b, &id, params, &s->lists[LIST_TEMPLATES]);
        return false;
    case M_PROMPTS_LIST:
        do_list(s, b, &id, params, &s->lists[LIST_PROMPTS]);
        return false;
    case M_RESOURCES_READ:
        return do_resources_read(s, sl, b, &id, params);
    case M_SUBSCRIBE:
    case M_UNSUBSCRIBE:
        do_subscribe(s, sl, b, &id, params, mk == M_SUBSCRIBE);
        return false;
    case M_PROMPTS_GET:
        return do_prompts_get(s, sl, b, &id, params);
    case M_COMPLETE:
        return do_complete(s, sl, b, &id, params);
    case M_TOOLS_CALL:
        return do_tools_call(s, sl, b, &id, params);
    case M_SET_LEVEL:
        do_set_level(s, b, &id, params);
        return false;
    case M_UNKNOWN:
        break;
    }
    return false;
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
    reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                "Invalid Request: message too large (limit %zu bytes)", s->set.max_message);
}

bool mcp_session_message(mcp_session *s, const char *text, size_t len, void *reply_ctx)
{
    s->rctx = reply_ctx;
    if (len > 0 && text[len - 1] == '\r')
        len--;
    /* Blank lines are not messages: clients may send a newline too many
     * (a keep-alive, a trailing "\n\n"), and answering those with parse
     * errors would only confuse them. */
    if (is_blank(text, len))
        return false;
    if (len > s->set.max_message) {
        mcp_session_too_large(s, reply_ctx);
        return true;
    }
    slot *sl = s->cur ? s->cur : slot_get(s);
    s->cur = NULL;
    if (!sl) {
        send_oom(s, NULL, reply_ctx, NULL);
        return true;
    }
    /* Every node of the DOM lives in the slot's arena (mcp_json_parse copies
     * strings and number literals): a job may take it to a worker while the
     * transport reuses its buffer. */
    mcp_json_err err = MCP_JSON_E_NOMEM;
    size_t off = 0;
    mcp_json *m = mcp_json_parse(&sl->arena, text, len, &s->limits, &err, &off);
    bool taken = false, answered = true;
    if (!m) {
        if (err == MCP_JSON_E_NOMEM)
            reply_error(s, NULL, NULL, RPC_INTERNAL_ERROR, "Internal error: out of memory");
        else if (err == MCP_JSON_E_DEPTH)
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: nesting deeper than %d levels", s->limits.max_depth);
        else if (err == MCP_JSON_E_STRING_LIMIT)
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: string longer than %zu bytes at byte %zu",
                        s->limits.max_string, off);
        else if (err == MCP_JSON_E_ARRAY_LIMIT)
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: array longer than %zu items at byte %zu",
                        s->limits.max_array, off);
        else if (err == MCP_JSON_E_VALUE_LIMIT)
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST,
                        "Invalid Request: more than %zu values in one message at byte %zu",
                        s->limits.max_values, off);
        else if (err == MCP_JSON_E_NUMBER_RANGE || err == MCP_JSON_E_SURROGATE)
            /* RFC 8259's grammar allows both (1e400, "\ud800"); it is the
             * server that refuses them: not a parse error. */
            reply_error(s, NULL, NULL, RPC_INVALID_REQUEST, "Invalid Request: %s at byte %zu",
                        mcp_json_error_str(err), off);
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
            answered = run_batch(s, sl, m);
            taken = true;
        }
    } else {
        answered = gets_answer(m);
        taken = dispatch(s, sl, NULL, m);
    }
    if (!taken) {
        slot_recycle(sl);
        s->cur = sl;
    }
    /* An answer that echoed a huge name does not keep its memory. */
    buf_recycle(&s->reply);
    buf_recycle(&s->msg);
    return answered;
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

static int tool_ref_cmp(const void *x, const void *y)
{
    const tool_ref *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    if (c)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* A list method's pages, rendered once: each page's whole result text,
 * {"KEY":[entries...],"nextCursor":"N"}, N the index of the next page's first
 * entry. Entries are `stride` bytes apart, a `const char *` at `offset`
 * (NULL entries are skipped). */
static bool render_list(listing *l, const char *key, const void *items, size_t n_items, size_t stride,
                        size_t offset, size_t per)
{
#define ENTRY(i) (*(const char *const *)((const char *)items + (i) * stride + offset))
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

static bool render_pages(mcp_session *s)
{
    const mcp_server *srv = s->server;
    size_t per = s->set.page_size;
    return render_list(&s->lists[LIST_TOOLS], "tools", srv->tools, srv->ntools, sizeof *srv->tools,
                       offsetof(mcp_tool, list_entry), per) &&
           render_list(&s->lists[LIST_RESOURCES], "resources", srv->resources, srv->nresources,
                       sizeof *srv->resources, offsetof(mcp_resource, list_entry), per) &&
           render_list(&s->lists[LIST_TEMPLATES], "resourceTemplates", srv->templates, srv->ntemplates,
                       sizeof *srv->templates, offsetof(mcp_resource_template, list_entry), per) &&
           render_list(&s->lists[LIST_PROMPTS], "prompts", srv->prompts, srv->nprompts, sizeof *srv->prompts,
                       offsetof(mcp_prompt, list_entry), per);
}

static mcp_session *session_new(const mcp_server *server, const mcp_settings *settings,
                                bool own_pool, mcp_pool *pool, mcp_sink_fn sink, void *sink_ctx)
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
    s->limits = mcp_settings_json_limits(&s->set);
    s->set.max_depth = s->limits.max_depth;
    s->set.max_string = s->limits.max_string;
    if (s->set.client_timeout_ms <= 0)
        s->set.client_timeout_ms = MCP_DEFAULT_CLIENT_TIMEOUT_MS;
    if (s->set.max_pending <= 0)
        s->set.max_pending = MCP_DEFAULT_MAX_PENDING;
    if (s->set.max_subscriptions <= 0)
        s->set.max_subscriptions = MCP_DEFAULT_MAX_SUBSCRIPTIONS;
    if (s->set.max_waiting <= 0)
        s->set.max_waiting = MCP_DEFAULT_MAX_WAITING;
    atomic_init(&s->log_min, MCP_LEVEL_INFO);
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
    s->own_pool = own_pool;
    if (ok && own_pool && s->set.workers > 0) {
        s->pool = mcp_pool_new(s->set.workers, s->set.max_waiting);
        ok = s->pool != NULL;
    } else if (!own_pool) {
        s->pool = pool;
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

mcp_session *mcp_session_new(const mcp_server *server, const mcp_settings *settings,
                             mcp_sink_fn sink, void *sink_ctx)
{
    return session_new(server, settings, true, NULL, sink, sink_ctx);
}

mcp_session *mcp_session_new_pooled(const mcp_server *server, const mcp_settings *settings,
                                    mcp_pool *pool, mcp_sink_fn sink, void *sink_ctx)
{
    return session_new(server, settings, false, pool, sink, sink_ctx);
}

void mcp_session_free(mcp_session *s)
{
    if (!s)
        return;
    registry_remove(s); /* no more notifications/resources/updated */
    /* No more input: a handler waiting for the client would wait in vain. */
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    pending_wake_all(s);
    pthread_mutex_unlock(&s->mu);
    mcp_session_drain(s);
    mcp_pool_queue_free(s->queue);
    if (s->own_pool)
        mcp_pool_shutdown(s->pool);
    if (s->cur)
        slot_destroy(s->cur);
    for (slot *sl = s->free_slots, *next; sl; sl = next) {
        next = sl->next;
        slot_destroy(sl);
    }
    for (size_t l = 0; l < sizeof s->lists / sizeof *s->lists; l++) {
        for (size_t p = 0; s->lists[l].pages && p < s->lists[l].npages; p++)
            mcp_buf_free(&s->lists[l].pages[p].text);
        free(s->lists[l].pages);
    }
    free(s->tools);
    for (int i = 0; s->pend && i < s->set.max_pending; i++)
        pthread_cond_destroy(&s->pend[i].cv);
    free(s->pend);
    mcp_buf_free(&s->reply);
    mcp_buf_free(&s->msg);
    pthread_cond_destroy(&s->idle);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* ---------------------------------------------------------------- messages from handlers
 * A handler's notifications (log messages, progress) and requests to the
 * client go to the sink with its request's reply context, not final: before
 * the answer, on the request's own stream (HTTP: the POST's SSE stream). */

/* The length of the longest prefix of s[0..n) that is UTF-8 (RFC 3629: no
 * overlongs, surrogates, or code points beyond U+10FFFF): n when all is. */
static size_t utf8_prefix(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t k;
        unsigned lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            k = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            k = 2;
            if (c == 0xE0)
                lo = 0xA0;
            if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            k = 3;
            if (c == 0xF0)
                lo = 0x90;
            if (c == 0xF4)
                hi = 0x8F;
        } else {
            return i;
        }
        if (i + k >= n) /* cut short */
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t q = 2; q <= k; q++)
            if (s[i + q] < 0x80 || s[i + q] > 0xBF)
                return i;
        i += k + 1;
    }
    return n;
}

/* A JSON string of a handler's text: bytes that are not UTF-8 become U+FFFD. */
static void put_handler_str(mcp_buf *b, const char *s, size_t n)
{
    size_t ok = utf8_prefix((const unsigned char *)s, n);
    if (ok == n) {
        put_str(b, s, n);
        return;
    }
    mcp_buf fixed;
    mcp_buf_init(&fixed);
    while (n > 0) {
        ok = utf8_prefix((const unsigned char *)s, n);
        mcp_buf_put(&fixed, s, ok);
        if (ok == n)
            break;
        mcp_buf_puts(&fixed, "\xef\xbf\xbd");
        s += ok + 1;
        n -= ok + 1;
    }
    put_str(b, fixed.data ? fixed.data : "", fixed.len);
    if (fixed.oom)
        b->oom = true;
    mcp_buf_free(&fixed);
}

/* A number as an integer when it is one (progress 50, not 50.0). */
static void put_number(mcp_buf *b, double d)
{
    if (d > -9007199254740992.0 && d < 9007199254740992.0 && (double)(int64_t)d == d)
        put_int(b, (int64_t)d);
    else
        mcp_json_double(b, d);
}

static job *call_job(const mcp_call *call) { return call ? (job *)call->job : NULL; }

/* Whether the job may still send: not cancelled, the client not gone. */
static bool job_live(const job *j)
{
    return j && !atomic_load(&j->cancelled) && !atomic_load(&j->s->broken);
}

/* One whole message from the job's handler, not final. */
static bool job_send(job *j, const mcp_buf *msg)
{
    if (!job_live(j) || msg->oom)
        return false;
    mcp_out_part part = {msg->data, msg->len};
    sink_send(j->s, j->rctx, &part, 1, false);
    return !atomic_load(&j->s->broken);
}

bool mcp_log_enabled(const mcp_call *call, mcp_level level)
{
    job *j = call_job(call);
    return job_live(j) && (int)level >= MCP_LEVEL_DEBUG && (int)level < NLEVELS &&
           (int)level >= atomic_load(&j->s->log_min);
}

/* notifications/message with data[0..n) as the (already written) value. */
static void send_log(job *j, mcp_level level, const char *logger, const char *data, size_t n)
{
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{"
                     "\"level\":");
    put_cstr(&m, LEVELS[level]);
    if (logger) {
        mcp_buf_puts(&m, ",\"logger\":");
        put_handler_str(&m, logger, strlen(logger));
    }
    mcp_buf_puts(&m, ",\"data\":");
    mcp_buf_put(&m, data, n);
    mcp_buf_puts(&m, "}}");
    job_send(j, &m);
    mcp_buf_free(&m);
}

void mcp_log_message(mcp_call *call, mcp_level level, const char *logger, const char *fmt, ...)
{
    if (!mcp_log_enabled(call, level) || !fmt)
        return;
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (!text)
        return;
    mcp_buf d;
    mcp_buf_init(&d);
    put_handler_str(&d, text, (size_t)n);
    free(text);
    if (!d.oom)
        send_log(call_job(call), level, logger, d.data, d.len);
    mcp_buf_free(&d);
}

void mcp_log_json(mcp_call *call, mcp_level level, const char *logger, const mcp_json *data)
{
    if (!mcp_log_enabled(call, level))
        return;
    mcp_buf d;
    mcp_buf_init(&d);
    if (data)
        mcp_json_write(&d, data, -1); /* a non-finite float is written as null */
    else
        mcp_buf_puts(&d, "null");
    if (!d.oom)
        send_log(call_job(call), level, logger, d.data, d.len);
    mcp_buf_free(&d);
}

bool mcp_progress(mcp_call *call, double progress, double total, const char *message)
{
    job *j = call_job(call);
    const mcp_json *token = call ? mcp_json_get(call->meta, "progressToken") : NULL;
    if (!job_live(j) || !token ||
        (token->kind != MCP_JINT && token->kind != MCP_JBIGINT && token->kind != MCP_JSTRING))
        return false;
    if (progress != progress || progress - progress != 0 || total != total || total - total != 0)
        return false; /* NaN or infinite */
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
                     "\"progressToken\":");
    mcp_json_write(&m, token, -1); /* as received: a string, or an integer's digits */
    mcp_buf_puts(&m, ",\"progress\":");
    put_number(&m, progress);
    if (total > 0) {
        mcp_buf_puts(&m, ",\"total\":");
        put_number(&m, total);
    }
    if (message) {
        mcp_buf_puts(&m, ",\"message\":");
        put_handler_str(&m, message, strlen(message));
    }
    mcp_buf_puts(&m, "}}");
    bool ok = job_send(j, &m);
    mcp_buf_free(&m);
    return ok;
}

void mcp_close_stream(mcp_call *call)
{
    job *j = call_job(call);
    if (job_live(j))
        sink_send(j->s, j->rctx, NULL, 0, false);
}

/* ---------------------------------------------------------------- requests to the client */

static const mcp_json *client_fail(mcp_call *call, const char *fmt, ...) MCP_PRINTF(2, 3);

static const mcp_json *client_fail(mcp_call *call, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    const char *msg = mcp_arena_strdup(call->arena, text);
    call->client_error = msg ? msg : "a request to the client failed (out of memory)";
    return NULL;
}

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

/* The capability `method` needs from the client, when it needs one. */
static const char *needed_capability(const mcp_session *s, const char *method, bool *declared)
{
    *declared = true;
    if (strcmp(method, "sampling/createMessage") == 0) {
        *declared = s->client_sampling;
        return "sampling";
    }
    if (strcmp(method, "elicitation/create") == 0) {
        *declared = s->client_elicitation;
        return "elicitation";
    }
    if (strcmp(method, "roots/list") == 0) {
        *declared = s->client_roots;
        return "roots";
    }
    return NULL;
}

/* A request whose params are JSON text (NULL: none); the result parsed into
 * the call's arena. */
static const mcp_json *client_request_text(mcp_call *call, const char *method, const char *params,
                                           size_t params_len)
{
    if (!call)
        return NULL;
    call->client_error = NULL;
    job *j = call_job(call);
    if (!j)
        return client_fail(call, "%s: no client to ask (the call is not served by a session)",
                           method);
    mcp_session *s = j->s;
    if (!s->pool)
        return client_fail(call,
                           "%s: requests to the client need worker threads (with --workers 0 "
                           "the handler runs on the thread that would read the answer)",
                           method);
    bool declared;
    const char *cap = needed_capability(s, method, &declared);
    if (!declared)
        return client_fail(call, "%s: the client did not declare the %s capability", method, cap);
    if (!job_live(j))
        return client_fail(call, "%s: the call was cancelled", method);

    /* A slot in the table, and an id. */
    pthread_mutex_lock(&s->mu);
    if (!s->pend && !s->closing) {
        s->pend = calloc((size_t)s->set.max_pending, sizeof *s->pend);
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        for (int i = 0; s->pend && i < s->set.max_pending; i++)
            pthread_cond_init(&s->pend[i].cv, &attr);
        pthread_condattr_destroy(&attr);
    }
    pending *p = NULL;
    for (int i = 0; s->pend && !s->closing && i < s->set.max_pending && !p; i++)
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
            return client_fail(call, "%s: the session is closing", method);
        if (nomem)
            return client_fail(call, "%s: out of memory", method);
        return client_fail(call, "%s: too many requests to the client pending (limit %d)", method,
                           s->set.max_pending);
    }

    /* The wait ahead must not hold a worker that other requests need: the
     * pool runs another thread meanwhile, up to max_waiting waits at once. */
    if (!mcp_pool_block_begin(s->pool)) {
        pthread_mutex_lock(&s->mu);
        p->used = false;
        p->j = NULL;
        pthread_mutex_unlock(&s->mu);
        return client_fail(call, "%s: too many handlers waiting for clients (limit %d)", method,
                           mcp_pool_max_blocked(s->pool));
    }
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_printf(&m, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":", (long long)id);
    put_cstr(&m, method);
    if (params) {
        mcp_buf_puts(&m, ",\"params\":");
        mcp_buf_put(&m, params, params_len);
    }
    mcp_buf_putc(&m, '}');
    bool sent = job_send(j, &m);
    bool oom = m.oom;
    mcp_buf_free(&m);

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += s->set.client_timeout_ms / 1000;
    deadline.tv_nsec += (long)(s->set.client_timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    bool timed_out = false;
    pthread_mutex_lock(&s->mu);
    while (sent && p->state == P_WAIT && !atomic_load(&j->cancelled) &&
           !atomic_load(&s->broken) && !s->closing) {
        if (pthread_cond_timedwait(&p->cv, &s->mu, &deadline) == ETIMEDOUT) {
            timed_out = p->state == P_WAIT;
            break;
        }
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

    const mcp_json *result = NULL;
    if (st == P_RESULT) {
        mcp_json_err err = MCP_JSON_OK;
        result = mcp_json_parse(call->arena, text, len, NULL, &err, NULL);
        if (!result)
            client_fail(call, "%s: out of memory", method);
    } else if (st == P_ERROR) {
        client_fail(call, "%s: %s", method, text);
    } else if (!sent) {
        client_fail(call, "%s: %s", method,
                    oom ? "out of memory" : broken ? "the client is gone" : "the call was cancelled");
    } else if (broken) {
        client_fail(call, "%s: the client is gone", method);
    } else if (cancelled) {
        cancel_client_request(j, id, "the tool call was cancelled");
        client_fail(call, "%s: the call was cancelled", method);
    } else if (closing) {
        client_fail(call, "%s: the session is closing", method);
    } else {
        (void)timed_out;
        cancel_client_request(j, id, "timed out");
        client_fail(call, "%s: no answer from the client within %d ms", method,
                    s->set.client_timeout_ms);
    }
    free(text);
    return result;
}

/* client_request_text with the params written in `t`, which it frees. */
static const mcp_json *client_request_buf(mcp_call *call, const char *method, mcp_buf *t)
{
    const mcp_json *r = t->oom ? client_fail(call, "%s: out of memory", method)
                               : client_request_text(call, method, t->data, t->len);
    mcp_buf_free(t);
    return r;
}

const mcp_json *mcp_client_request(mcp_call *call, const char *method, const mcp_json *params)
{
    if (!call || !method)
        return NULL;
    if (!params)
        return client_request_text(call, method, NULL, 0);
    mcp_buf t;
    mcp_buf_init(&t);
    bool finite = mcp_json_write(&t, params, -1);
    if (!finite) {
        mcp_buf_free(&t);
        return client_fail(call, "%s: the params hold a NaN or infinite float", method);
    }
    return client_request_buf(call, method, &t);
}

const char *mcp_client_error(const mcp_call *call) { return call ? call->client_error : NULL; }

bool mcp_sample_text(mcp_call *call, const char *prompt, int max_tokens, const char **reply_text)
{
    if (reply_text)
        *reply_text = NULL;
    if (!call)
        return false;
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_buf_puts(&t, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":");
    const char *pr = prompt ? prompt : "";
    put_handler_str(&t, pr, strlen(pr));
    mcp_buf_printf(&t, "}}],\"maxTokens\":%d}", max_tokens > 0 ? max_tokens : 1);
    const mcp_json *r = client_request_buf(call, "sampling/createMessage", &t);
    if (!r)
        return false;
    /* content: one block, or (2025-11-25) an array of them: the first text. */
    const mcp_json *content = mcp_json_get(r, "content");
    const mcp_json *text = NULL;
    if (content && content->kind == MCP_JARRAY) {
        for (size_t i = 0; i < content->n && !text; i++)
            if (str_is(mcp_json_get(content->items[i], "type"), "text"))
                text = mcp_json_get(content->items[i], "text");
    } else if (str_is(mcp_json_get(content, "type"), "text")) {
        text = mcp_json_get(content, "text");
    }
    if (!text || text->kind != MCP_JSTRING) {
        client_fail(call, "sampling/createMessage: the client's answer holds no text content");
        return false;
    }
    if (text->has_nul) {
        /* The handler gets a C string: a NUL would cut it short, silently
         * (arguments and forms refuse NUL for the same reason). */
        client_fail(call, "sampling/createMessage: the client's text holds a NUL character");
        return false;
    }
    if (reply_text)
        *reply_text = text->s;
    return true;
}

bool mcp_elicit(mcp_call *call, const char *message, const char *requested_schema_json,
                const mcp_json **content, const char **action)
{
    if (content)
        *content = NULL;
    if (action)
        *action = NULL;
    if (!call)
        return false;
    const char *schema_text = requested_schema_json ? requested_schema_json : "";
    mcp_json_err err = MCP_JSON_OK;
    size_t off = 0;
    mcp_json *schema =
        mcp_json_parse(call->arena, schema_text, strlen(schema_text), NULL, &err, &off);
    if (!schema || schema->kind != MCP_JOBJECT) {
        client_fail(call, "elicitation/create: the requested schema is not a JSON object%s%s",
                    schema ? "" : ": ", schema ? "" : mcp_json_error_str(err));
        return false;
    }
    mcp_buf t;
    mcp_buf_init(&t);
    mcp_buf_puts(&t, "{\"message\":");
    const char *msg = message ? message : "";
    put_handler_str(&t, msg, strlen(msg));
    /* The text as given: it parsed as an object (and is strict JSON), so
     * there is nothing to gain in writing the tree back. */
    mcp_buf_puts(&t, ",\"requestedSchema\":");
    mcp_buf_puts(&t, schema_text);
    mcp_buf_putc(&t, '}');
    const mcp_json *r = client_request_buf(call, "elicitation/create", &t);
    if (!r)
        return false;
    const mcp_json *act = mcp_json_get(r, "action");
    if (!(str_is(act, "accept") || str_is(act, "decline") || str_is(act, "cancel"))) {
        client_fail(call, "elicitation/create: the client's answer has no valid action");
        return false;
    }
    if (action)
        *action = act->s;
    const mcp_json *c = mcp_json_get(r, "content");
    if (content && str_is(act, "accept") && c && c->kind == MCP_JOBJECT)
        *content = c;
    return true;
}
