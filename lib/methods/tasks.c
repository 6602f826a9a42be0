/* tasks.c: the tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks):
 * tools/call answered with a task, and tasks/get, tasks/update, tasks/cancel;
 * and the experimental tasks of 2025-11-25 (a tools/call with params.task in a
 * session of that revision): tasks/get, tasks/result, tasks/list, tasks/cancel.
 *
 * A task is created when the handler of a call that may become one
 * (tools.c) calls mcp_task_start: the call is answered with the task
 * (CreateTaskResult), already in the store, so that a tasks/get right after
 * finds it. The handler then runs again on a thread of its own (a run), with
 * the arguments of the call and the answers the client gave so far; its
 * requests to the client are served from those answers (mrtr.c), and one
 * without an answer parks the task as input_required, its requests in
 * inputRequests. tasks/update records the answers to keys outstanding (others
 * are ignored); once none is outstanding the handler runs again. The run's
 * end is the task's status: completed with the CallToolResult (an isError
 * result included), failed with the JSON-RPC error of mcp_fail_protocol, or
 * cancelled (tasks/cancel sets it at once; the run, told through its
 * cancellation flag, is discarded when it ends).
 *
 * The store is the runtime's, in memory: at most opt->max_tasks tasks at
 * once, each kept opt->task_ttl seconds after its creation (then removed,
 * its run cancelled). A task belongs to the authenticated caller that
 * created it, when there is one: to anyone else its id is unknown. Task ids
 * are 128 random bits, after --node-id and '-' when set. Replicas do not
 * share tasks: a task's requests must reach the replica that created it
 * (over HTTP they carry Mcp-Name: <taskId>, and the id names the node).
 *
 * A 2025-11-25 task (legacy) is kept in the same store, unknown to modern
 * requests and they to it: it shows as that revision's Task (ttl,
 * pollInterval, statusMessage), an isError result fails it, its runs cannot
 * ask the client (mrtr.c: the answers its tools/call got are all they see),
 * and a tasks/result for it is held (mcp_req_hold, no worker kept) until it
 * ends, then answered with the task's outcome (finish_waiters).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"

/* Suggested polling interval (pollIntervalMs). */
#define POLL_INTERVAL_MS 500

typedef enum { T_WORKING, T_INPUT_REQUIRED, T_COMPLETED, T_FAILED, T_CANCELLED } task_status;

static const char *const STATUS_NAMES[] = {"working", "input_required", "completed", "failed", "cancelled"};

typedef struct task {
    struct task *next;
    struct mcp_tasks *store;
    char id[72]; /* [NODE-]32 hex digits */
    const mcp_tool *tool;
    char *args;    /* the arguments object as JSON text (NULL: none) */
    char *subject; /* the caller's, or NULL */
    unsigned caps; /* the client capabilities of the creating request */
    task_status status;
    mcp_buf answers; /* "KEY":ANSWER,... recorded so far */
    mcp_buf pending; /* input_required: "KEY":{"method":..},... outstanding */
    mcp_buf outcome; /* completed: the result object; failed: the error object */
    long long created_ms, updated_ms, expires_ms;
    atomic_bool cancel; /* the run's cancellation flag */
    bool running;       /* a run is going */
    /* The experimental tasks of 2025-11-25 (a tools/call with params.task
     * in a session of that revision). */
    bool legacy;
    unsigned long long session; /* legacy: the serial of the session that created it */
    bool is_error;              /* legacy, failed: outcome is the tool's isError result */
    long long ttl_ms;           /* legacy: the task's ttl (the one asked for, at most the store's) */
    struct waiter *waiters;     /* legacy: the tasks/result requests held until the end */
} task;

/* A tasks/result kept open until its task ends. */
typedef struct waiter {
    struct waiter *next;
    struct mcp_tasks *store;
    task *t;
    mcp_held *h;
    bool orphan; /* off its task's list, its end under way on another thread (waiter_end frees it) */
} waiter;

struct mcp_tasks {
    pthread_mutex_t mu;
    pthread_cond_t idle; /* a run ended */
    const mcp_methods_state *st;
    task *list;
    size_t n, max;
    long long ttl_ms;
    size_t running;
    size_t page;   /* tasks/list: tasks per page */
    char node[40]; /* --node-id and '-', or empty */
};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ISO 8601 in UTC, with milliseconds. */
static void put_time(mcp_buf *b, long long ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char text[40];
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    mcp_buf_printf(b, "\"%s.%03dZ\"", text, (int)(ms % 1000));
}

static bool terminal(task_status s) { return s == T_COMPLETED || s == T_FAILED || s == T_CANCELLED; }

static void finish_waiters(task *t, bool gone);

static void task_free(task *t)
{
    finish_waiters(t, true);
    mcp_buf_free(&t->answers);
    mcp_buf_free(&t->pending);
    mcp_buf_free(&t->outcome);
    free(t->args);
    free(t->subject);
    free(t);
}

mcp_tasks *mcp_tasks_new(const mcp_methods_state *st, const mcp_options *opt)
{
    mcp_tasks *ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    pthread_mutex_init(&ts->mu, NULL);
    pthread_cond_init(&ts->idle, NULL);
    ts->st = st;
    ts->max = opt->max_tasks > 0 ? (size_t)opt->max_tasks : 1;
    ts->ttl_ms = (long long)(opt->task_ttl > 0 ? opt->task_ttl : 1) * 1000;
    ts->page = opt->page_size > 0 ? opt->page_size : 50;
    if (opt->node_id && strlen(opt->node_id) < sizeof ts->node - 1)
        snprintf(ts->node, sizeof ts->node, "%s-", opt->node_id);
    return ts;
}

void mcp_tasks_free(mcp_tasks *ts)
{
    if (!ts)
        return;
    pthread_mutex_lock(&ts->mu);
    for (task *t = ts->list; t; t = t->next)
        atomic_store(&t->cancel, true);
    while (ts->running > 0)
        pthread_cond_wait(&ts->idle, &ts->mu);
    pthread_mutex_unlock(&ts->mu);
    for (task *t = ts->list, *next; t; t = next) {
        next = t->next;
        task_free(t);
    }
    pthread_cond_destroy(&ts->idle);
    pthread_mutex_destroy(&ts->mu);
    free(ts);
}

/* Drop the tasks past their time (lock held); a running one is cancelled
 * and goes once its run has ended. */
static void sweep(mcp_tasks *ts, long long now)
{
    for (task **p = &ts->list; *p;) {
        task *t = *p;
        if (now >= t->expires_ms) {
            atomic_store(&t->cancel, true);
            if (!t->running) {
                *p = t->next;
                ts->n--;
                task_free(t);
                continue;
            }
        }
        p = &t->next;
    }
}

/* Whether t is the caller's: its subject's, and for a 2025-11-25 task
 * (session: not 0) its session's. */
static bool owns(const task *t, const char *subject, unsigned long long session)
{
    if (t->legacy != (session != 0) || (t->legacy && t->session != session))
        return false;
    return t->subject ? subject && strcmp(subject, t->subject) == 0 : subject == NULL;
}

/* The task of id, when it is the caller's (lock held; session: that of a
 * 2025-11-25 request, 0 for a modern one); NULL: unknown. */
static task *find(mcp_tasks *ts, const mcp_json *id, const char *subject, unsigned long long session)
{
    sweep(ts, now_ms());
    for (task *t = ts->list; t; t = t->next)
        if (mcp_json_str_is(id, t->id) && now_ms() < t->expires_ms)
            return owns(t, subject, session) ? t : NULL;
    return NULL;
}

/* ---------------------------------------------------------------- runs */

static void *run_thread(void *arg);

/* Start a run of t (lock held): false when no thread could start. */
static bool start_run(mcp_tasks *ts, task *t)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    t->running = true;
    ts->running++;
    bool ok = pthread_create(&th, &attr, run_thread, t) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) {
        t->running = false;
        ts->running--;
    }
    return ok;
}

static void set_error(task *t, int code, const char *message)
{
    mcp_buf_clear(&t->outcome);
    mcp_buf_printf(&t->outcome, "{\"code\":%d,\"message\":", code);
    mcp_handler_string(&t->outcome, message, strlen(message));
    mcp_buf_putc(&t->outcome, '}');
    t->status = T_FAILED;
}

/* Whether the CallToolResult in b says isError: true. */
static bool result_is_error(const mcp_buf *b, mcp_arena *a)
{
    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *v = b->data ? mcp_json_parse(a, b->data, b->len, NULL, &err, NULL) : NULL;
    const mcp_json *e = mcp_json_get(v, "isError");
    return e && e->kind == MCP_JBOOL && e->b;
}

static void *run_thread(void *arg)
{
    task *t = arg;
    mcp_tasks *ts = t->store;
    mcp_arena a;
    mcp_arena_init(&a);

    pthread_mutex_lock(&ts->mu);
    char *answers = mcp_arena_printf(&a, "{%.*s}", (int)t->answers.len, t->answers.data ? t->answers.data : "");
    pthread_mutex_unlock(&ts->mu);

    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *args = t->args ? mcp_json_parse(&a, t->args, strlen(t->args), NULL, &err, NULL) : NULL;
    const mcp_json *earlier = answers ? mcp_json_parse(&a, answers, strlen(answers), NULL, &err, NULL) : NULL;
    mcp_call call;
    mcp_call_init(&call, &a, t->tool, NULL, &t->cancel);
    call.task_mode = MCP_CALL_TASK_RUN;
    call.task_caps = t->caps;
    mcp_buf out, asked;
    mcp_buf_init(&out);
    mcp_buf_init(&asked);
    bool ok = answers && earlier && (args || !t->args) && mcp_mrtr_begin_task(&call, earlier);
    if (t->legacy)
        mcp_mrtr_no_asking(&call);
    if (ok)
        ok = mcp_methods_invoker(ts->st)(&call, args, &out) && !out.oom;
    size_t nasked = mcp_mrtr_peek(&call, &asked, NULL);
    mcp_mrtr_release(&call);
    if (asked.oom)
        ok = false;

    pthread_mutex_lock(&ts->mu);
    if (!terminal(t->status)) {
        if (atomic_load(&t->cancel)) {
            t->status = T_CANCELLED;
        } else if (!ok) {
            set_error(t, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        } else if (nasked > 0) {
            mcp_buf_free(&t->pending);
            t->pending = asked;
            mcp_buf_init(&asked);
            t->status = T_INPUT_REQUIRED;
        } else if (call.rpc_code) {
            set_error(t, call.rpc_code, call.fail_message ? call.fail_message : "Internal error");
        } else {
            mcp_buf_free(&t->outcome);
            t->outcome = out;
            mcp_buf_init(&out);
            t->status = T_COMPLETED;
            if (t->legacy && result_is_error(&t->outcome, &a)) {
                /* 2025-11-25: a tool's isError result fails its task. */
                t->status = T_FAILED;
                t->is_error = true;
            }
        }
        t->updated_ms = now_ms();
        finish_waiters(t, false);
    }
    t->running = false;
    ts->running--;
    pthread_cond_broadcast(&ts->idle);
    pthread_mutex_unlock(&ts->mu);

    mcp_buf_free(&out);
    mcp_buf_free(&asked);
    mcp_arena_free(&a);
    return NULL;
}

/* ---------------------------------------------------------------- the task object */

/* The Task's members (lock held), and with `detailed` what its status
 * inlines (inputRequests, result, error): tasks/get's DetailedTask. */
static void put_task(mcp_buf *b, const mcp_tasks *ts, const task *t, bool detailed)
{
    if (t->legacy) {
        /* 2025-11-25's Task. */
        mcp_buf_printf(b, "{\"taskId\":\"%s\",\"status\":\"%s\"", t->id, STATUS_NAMES[t->status]);
        if (t->status == T_FAILED) {
            mcp_buf_puts(b, ",\"statusMessage\":");
            if (t->is_error)
                mcp_json_cstring(b, "The tool's result is an error (isError); tasks/result returns it");
            else
                mcp_json_cstring(b, "The request failed; tasks/result returns its error");
        } else if (t->status == T_CANCELLED) {
            mcp_buf_puts(b, ",\"statusMessage\":\"The task was cancelled\"");
        }
        mcp_buf_puts(b, ",\"createdAt\":");
        put_time(b, t->created_ms);
        mcp_buf_puts(b, ",\"lastUpdatedAt\":");
        put_time(b, t->updated_ms);
        mcp_buf_printf(b, ",\"ttl\":%lld,\"pollInterval\":%d}", t->ttl_ms, POLL_INTERVAL_MS);
        return;
    }
    mcp_buf_printf(b, "{\"taskId\":\"%s\",\"status\":\"%s\",\"createdAt\":", t->id, STATUS_NAMES[t->status]);
    put_time(b, t->created_ms);
    mcp_buf_puts(b, ",\"lastUpdatedAt\":");
    put_time(b, t->updated_ms);
    mcp_buf_printf(b, ",\"ttlMs\":%lld,\"pollIntervalMs\":%d", ts->ttl_ms, POLL_INTERVAL_MS);
    if (detailed) {
        if (t->status == T_INPUT_REQUIRED) {
            mcp_buf_puts(b, ",\"inputRequests\":{");
            mcp_buf_put(b, t->pending.data ? t->pending.data : "", t->pending.len);
            mcp_buf_putc(b, '}');
        } else if (t->status == T_COMPLETED || t->status == T_FAILED) {
            mcp_buf_puts(b, t->status == T_COMPLETED ? ",\"result\":" : ",\"error\":");
            mcp_buf_put(b, t->outcome.data ? t->outcome.data : "{}", t->outcome.data ? t->outcome.len : 2);
        }
    }
    mcp_buf_putc(b, '}');
}

static void random_id(char out[72], const char *node)
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < sizeof r) { /* no entropy source: still unique, not unguessable */
        static atomic_ullong seq;
        unsigned long long v = atomic_fetch_add(&seq, 1) ^ (unsigned long long)now_ms();
        memcpy(r, &v, sizeof v);
    }
    static const char H[] = "0123456789abcdef";
    size_t at = strlen(node);
    memcpy(out, node, at);
    for (size_t i = 0; i < sizeof r; i++) {
        out[at + 2 * i] = H[r[i] >> 4];
        out[at + 2 * i + 1] = H[r[i] & 15];
    }
    out[at + 32] = 0;
}

static int create(mcp_tasks *ts, const mcp_tool *tool, const mcp_json *arguments, const char *answers, size_t len,
                  unsigned client_caps, const char *subject, const mcp_task25 *legacy, mcp_buf *out, const char **msg)
{
    task *t = calloc(1, sizeof *t);
    if (!t) {
        *msg = "Internal error: out of memory";
        return MCP_RPC_INTERNAL_ERROR;
    }
    t->store = ts;
    t->tool = tool;
    t->caps = client_caps;
    mcp_buf_init(&t->answers);
    mcp_buf_init(&t->pending);
    mcp_buf_init(&t->outcome);
    mcp_buf_put(&t->answers, answers, len);
    bool oom = t->answers.oom;
    if (arguments) {
        mcp_buf a;
        mcp_buf_init(&a);
        mcp_json_write(&a, arguments, -1);
        t->args = a.oom ? NULL : strdup(a.data ? a.data : "{}");
        oom |= !t->args;
        mcp_buf_free(&a);
    }
    if (subject) {
        t->subject = strdup(subject);
        oom |= !t->subject;
    }
    if (oom) {
        task_free(t);
        *msg = "Internal error: out of memory";
        return MCP_RPC_INTERNAL_ERROR;
    }
    random_id(t->id, ts->node);
    t->status = T_WORKING;
    t->ttl_ms = ts->ttl_ms;
    if (legacy) {
        t->legacy = true;
        t->session = legacy->session;
        if (legacy->ttl_ms > 0 && legacy->ttl_ms < ts->ttl_ms)
            t->ttl_ms = legacy->ttl_ms;
        if (legacy->done) {
            /* The handler answered at once: the task is born ended. */
            if (legacy->rpc_code) {
                set_error(t, legacy->rpc_code, legacy->rpc_message ? legacy->rpc_message : "Internal error");
            } else {
                mcp_buf_put(&t->outcome, legacy->done->data ? legacy->done->data : "{}",
                            legacy->done->data ? legacy->done->len : 2);
                mcp_arena a;
                mcp_arena_init(&a);
                t->status = T_COMPLETED;
                if (result_is_error(&t->outcome, &a)) {
                    t->status = T_FAILED;
                    t->is_error = true;
                }
                mcp_arena_free(&a);
            }
            if (t->outcome.oom) {
                task_free(t);
                *msg = "Internal error: out of memory";
                return MCP_RPC_INTERNAL_ERROR;
            }
        }
    }

    pthread_mutex_lock(&ts->mu);
    long long now = now_ms();
    t->created_ms = t->updated_ms = now;
    t->expires_ms = now + t->ttl_ms;
    sweep(ts, now);
    if (ts->n >= ts->max) {
        pthread_mutex_unlock(&ts->mu);
        task_free(t);
        *msg = "Internal error: the server holds as many tasks as it may (--max-tasks); try again later";
        return MCP_RPC_INTERNAL_ERROR;
    }
    if (!terminal(t->status) && !start_run(ts, t)) {
        pthread_mutex_unlock(&ts->mu);
        task_free(t);
        *msg = "Internal error: no thread for the task";
        return MCP_RPC_INTERNAL_ERROR;
    }
    t->next = ts->list;
    ts->list = t;
    ts->n++;
    if (legacy)
        mcp_buf_puts(out, "{\"task\":");
    put_task(out, ts, t, false);
    if (legacy)
        mcp_buf_putc(out, '}');
    pthread_mutex_unlock(&ts->mu);
    if (out->oom) {
        *msg = "Internal error: out of memory";
        return MCP_RPC_INTERNAL_ERROR;
    }
    return legacy ? 0 : MCP_RUN_TASK;
}

int mcp_task_create(mcp_tasks *ts, const mcp_tool *tool, const mcp_json *arguments, const char *answers, size_t len,
                    unsigned client_caps, const char *subject, mcp_buf *out, const char **msg)
{
    return create(ts, tool, arguments, answers, len, client_caps, subject, NULL, out, msg);
}

int mcp_task_create25(mcp_tasks *ts, const mcp_tool *tool, const mcp_json *arguments, unsigned client_caps,
                      const char *subject, const mcp_task25 *how, mcp_buf *out, const char **msg)
{
    return create(ts, tool, arguments, how->answers ? how->answers : "", how->answers ? strlen(how->answers) : 0,
                  client_caps, subject, how, out, msg);
}

/* ---------------------------------------------------------------- the handler's side */

bool mcp_task_start(mcp_call *call)
{
    if (!call || call->task_mode != MCP_CALL_TASK_MAY)
        return false;
    call->task_start = true;
    return true;
}

bool mcp_in_task(const mcp_call *call) { return call && call->task_mode == MCP_CALL_TASK_RUN; }

/* ---------------------------------------------------------------- the methods */

/* A session of a revision before 2025-11-25 has no tasks: false after the
 * error answer. */
static bool has_tasks(mcp_req *r)
{
    const mcp_reqctx *ctx = mcp_req_ctx(r);
    if (ctx->modern || mcp_version_has_tasks25(ctx->version))
        return true;
    const char *name = mcp_req_method(r)->name;
    mcp_req_error_named(r, MCP_RPC_METHOD_NOT_FOUND, name, strlen(name), "Method not found: ");
    return false;
}

/* The request's task (its params.taskId), the store locked; NULL after the
 * error answer (the lock then released). */
static task *task_of(mcp_req *r, mcp_tasks **store)
{
    const mcp_reqctx *ctx = mcp_req_ctx(r);
    if (!has_tasks(r))
        return NULL;
    if (ctx->modern && !(ctx->client_caps & MCP_CLIENT_TASKS)) {
        static const char DATA[] = "{\"requiredCapabilities\":{\"extensions\":{\"" MCP_TASKS_EXTENSION "\":{}}}}";
        mcp_req_error_data(r, MCP_RPC_MISSING_CAPABILITY,
                           "Missing required client capability: extension " MCP_TASKS_EXTENSION, DATA, sizeof DATA - 1);
        return NULL;
    }
    const mcp_json *id = mcp_need_string(r, mcp_req_params(r), "taskId");
    if (!id)
        return NULL;
    mcp_tasks *ts = mcp_methods_tasks(mcp_req_methods(r));
    pthread_mutex_lock(&ts->mu);
    task *t = find(ts, id, mcp_caller_subject(ctx->caller), ctx->modern ? 0 : mcp_session_serial(mcp_req_session(r)));
    if (!t) {
        pthread_mutex_unlock(&ts->mu);
        mcp_req_error_named(r, MCP_RPC_INVALID_PARAMS, id->s, id->len, "Invalid params: unknown task: ");
        return NULL;
    }
    *store = ts;
    return t;
}

/* ---------------------------------------------------------------- 2025-11-25: tasks/result, tasks/list */

static void answer_buf(mcp_req *r, mcp_buf *b);

/* What tasks/result answers for t (terminal; lock held) to the request of
 * id (JSON text): the tool's CallToolResult, or the JSON-RPC error its
 * request would have had, with the related-task _meta. */
static void put_final(mcp_buf *b, const task *t, const char *id)
{
    mcp_buf_printf(b, "{\"jsonrpc\":\"2.0\",\"id\":%s,", id);
    if (t->status == T_COMPLETED || (t->status == T_FAILED && t->is_error)) {
        mcp_buf_printf(b, "\"result\":{\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"%s\"}}",
                       t->id);
        /* The result's members after its '{' (it has no _meta of its own). */
        const char *text = t->outcome.data ? t->outcome.data : "{}";
        size_t len = t->outcome.data ? t->outcome.len : 2;
        if (len > 2)
            mcp_buf_putc(b, ',');
        if (len > 2)
            mcp_buf_put(b, text + 1, len - 1);
        else
            mcp_buf_putc(b, '}');
    } else if (t->status == T_FAILED) {
        mcp_buf_puts(b, "\"error\":");
        mcp_buf_put(b, t->outcome.data ? t->outcome.data : "{}", t->outcome.data ? t->outcome.len : 2);
    } else {
        mcp_buf_printf(b, "\"error\":{\"code\":%d,\"message\":\"Request cancelled: the task was cancelled\"}",
                       MCP_RPC_INTERNAL_ERROR);
    }
    mcp_buf_putc(b, '}');
}

/* Answer the tasks/result requests waiting for t (lock held): its final
 * answer once terminal, or (gone) an error as the task is removed. */
static void finish_waiters(task *t, bool gone)
{
    if (!gone && !terminal(t->status))
        return;
    while (t->waiters) {
        waiter *w = t->waiters;
        t->waiters = w->next;
        mcp_buf b;
        mcp_buf_init(&b);
        if (gone && !terminal(t->status))
            mcp_buf_printf(&b,
                           "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":\"Failed to retrieve "
                           "task: the task has expired\"}}",
                           mcp_held_id(w->h), MCP_RPC_INVALID_PARAMS);
        else
            put_final(&b, t, mcp_held_id(w->h));
        if (mcp_held_finish(w->h, b.oom ? NULL : b.data, b.oom ? 0 : b.len))
            free(w);
        else
            w->orphan = true; /* its waiter_end waits for the lock */
        mcp_buf_free(&b);
    }
}

/* A held tasks/result ends without its answer (cancelled, the session gone). */
static void waiter_end(mcp_held *h, void *arg)
{
    (void)h;
    waiter *w = arg;
    mcp_tasks *ts = w->store;
    pthread_mutex_lock(&ts->mu);
    if (!w->orphan)
        for (waiter **p = &w->t->waiters; *p; p = &(*p)->next)
            if (*p == w) {
                *p = w->next;
                break;
            }
    free(w);
    pthread_mutex_unlock(&ts->mu);
}

static void tasks_result_start(mcp_req *r)
{
    mcp_tasks *ts = NULL;
    task *t = task_of(r, &ts);
    if (!t)
        return;
    if (terminal(t->status)) {
        mcp_buf b;
        mcp_buf_init(&b);
        put_final(&b, t, "0");
        pthread_mutex_unlock(&ts->mu);
        if (b.oom) {
            mcp_buf_free(&b);
            mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
            return;
        }
        /* The final message's result, or its error. */
        mcp_arena *a = mcp_req_arena(r);
        mcp_json_err err = MCP_JSON_OK;
        const mcp_json *msg = mcp_json_parse(a, b.data, b.len, NULL, &err, NULL);
        const mcp_json *res = mcp_json_get(msg, "result"), *e = mcp_json_get(msg, "error");
        if (res) {
            mcp_buf out;
            mcp_buf_init(&out);
            mcp_json_write(&out, res, -1);
            answer_buf(r, &out);
        } else {
            const mcp_json *code = mcp_json_get(e, "code"), *m = mcp_json_get(e, "message");
            mcp_req_error(r, code && code->kind == MCP_JINT ? (int)code->i : MCP_RPC_INTERNAL_ERROR, "%s",
                          m && m->kind == MCP_JSTRING ? m->s : "Internal error");
        }
        mcp_buf_free(&b);
        return;
    }
    /* Held until the task ends, no worker kept. */
    waiter *w = calloc(1, sizeof *w);
    const char *why = NULL;
    if (w) {
        w->t = t;
        w->store = ts;
        w->h = mcp_req_hold(r, waiter_end, w, &why);
    }
    if (!w || !w->h) {
        pthread_mutex_unlock(&ts->mu);
        free(w);
        if (why)
            mcp_req_error(r, MCP_RPC_INVALID_REQUEST, "Invalid Request: %s", why);
        else
            mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        return;
    }
    w->next = t->waiters;
    t->waiters = w;
    pthread_mutex_unlock(&ts->mu);
}

static void tasks_list_start(mcp_req *r)
{
    const mcp_reqctx *ctx = mcp_req_ctx(r);
    if (!has_tasks(r))
        return;
    const mcp_json *cursor = mcp_json_get(mcp_req_params(r), "cursor");
    if (cursor && cursor->kind != MCP_JSTRING) {
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: cursor must be a string");
        return;
    }
    const char *subject = mcp_caller_subject(ctx->caller);
    unsigned long long session = mcp_session_serial(mcp_req_session(r));
    mcp_tasks *ts = mcp_methods_tasks(mcp_req_methods(r));
    mcp_buf b;
    mcp_buf_init(&b);
    mcp_buf_puts(&b, "{\"tasks\":[");
    pthread_mutex_lock(&ts->mu);
    sweep(ts, now_ms());
    task *t = ts->list;
    if (cursor) {
        /* The cursor is the id of the page's last task: the next page
         * starts after it. */
        t = find(ts, cursor, subject, session);
        if (!t) {
            pthread_mutex_unlock(&ts->mu);
            mcp_buf_free(&b);
            mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: unknown cursor");
            return;
        }
        t = t->next;
    }
    size_t n = 0;
    const task *last = NULL;
    for (; t; t = t->next) {
        if (!owns(t, subject, session))
            continue;
        if (n == ts->page)
            break;
        if (n++)
            mcp_buf_putc(&b, ',');
        put_task(&b, ts, t, false);
        last = t;
    }
    mcp_buf_putc(&b, ']');
    if (t && last)
        mcp_buf_printf(&b, ",\"nextCursor\":\"%s\"", last->id);
    mcp_buf_putc(&b, '}');
    pthread_mutex_unlock(&ts->mu);
    answer_buf(r, &b);
}

static void answer_buf(mcp_req *r, mcp_buf *b)
{
    if (b->oom)
        mcp_req_error(r, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
    else
        mcp_req_result(r, b->data, b->len);
    mcp_buf_free(b);
}

static void tasks_get_start(mcp_req *r)
{
    mcp_tasks *ts = NULL;
    task *t = task_of(r, &ts);
    if (!t)
        return;
    mcp_buf b;
    mcp_buf_init(&b);
    put_task(&b, ts, t, true);
    pthread_mutex_unlock(&ts->mu);
    answer_buf(r, &b);
}

/* The members of pending not answered by responses (an object): answers
 * go to t->answers; one that is not a result of its request's method (an
 * elicitation answer without an action) is ignored, its key outstanding
 * still. Lock held. */
static bool take_answers(task *t, const mcp_json *responses, mcp_arena *a)
{
    char *text = mcp_arena_printf(a, "{%.*s}", (int)t->pending.len, t->pending.data ? t->pending.data : "");
    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *pending = text ? mcp_json_parse(a, text, strlen(text), NULL, &err, NULL) : NULL;
    if (!pending || pending->kind != MCP_JOBJECT)
        return false;
    mcp_buf rest;
    mcp_buf_init(&rest);
    bool first = true;
    for (size_t i = 0; i < pending->n; i++) {
        const mcp_json_member *m = &pending->members[i];
        const mcp_json *answer = mcp_json_getn(responses, m->key, m->key_len);
        const mcp_json *method = mcp_json_get(m->value, "method");
        if (method && method->kind == MCP_JSTRING && mcp_mrtr_answer_fits(method->s, answer)) {
            if (t->answers.len)
                mcp_buf_putc(&t->answers, ',');
            mcp_json_string(&t->answers, m->key, m->key_len);
            mcp_buf_putc(&t->answers, ':');
            mcp_json_write(&t->answers, answer, -1);
            continue;
        }
        if (!first)
            mcp_buf_putc(&rest, ',');
        first = false;
        mcp_json_string(&rest, m->key, m->key_len);
        mcp_buf_putc(&rest, ':');
        mcp_json_write(&rest, m->value, -1);
    }
    bool ok = !rest.oom && !t->answers.oom;
    mcp_buf_free(&t->pending);
    t->pending = rest;
    return ok;
}

static void tasks_update_start(mcp_req *r)
{
    const mcp_json *responses = mcp_json_get(mcp_req_params(r), "inputResponses");
    mcp_tasks *ts = NULL;
    task *t = task_of(r, &ts);
    if (!t)
        return;
    if (!responses || responses->kind != MCP_JOBJECT) {
        pthread_mutex_unlock(&ts->mu);
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                      "Invalid params: inputResponses must be an object (the answers, by key)");
        return;
    }
    if (t->status == T_INPUT_REQUIRED) {
        if (!take_answers(t, responses, mcp_req_arena(r))) {
            set_error(t, MCP_RPC_INTERNAL_ERROR, "Internal error: out of memory");
        } else if (t->pending.len == 0) {
            /* All answered: the handler runs again. */
            t->status = T_WORKING;
            if (!start_run(ts, t))
                set_error(t, MCP_RPC_INTERNAL_ERROR, "Internal error: no thread for the task");
        }
        t->updated_ms = now_ms();
    }
    /* Answers for a task not waiting for any are ignored. */
    pthread_mutex_unlock(&ts->mu);
    mcp_req_result(r, "{}", 2);
}

static void tasks_cancel_start(mcp_req *r)
{
    mcp_tasks *ts = NULL;
    task *t = task_of(r, &ts);
    if (!t)
        return;
    if (t->legacy && terminal(t->status)) {
        /* 2025-11-25: refused for an ended task. */
        const char *status = STATUS_NAMES[t->status];
        pthread_mutex_unlock(&ts->mu);
        mcp_req_error(r, MCP_RPC_INVALID_PARAMS, "Invalid params: cannot cancel task: already in terminal status '%s'",
                      status);
        return;
    }
    if (!terminal(t->status)) {
        atomic_store(&t->cancel, true);
        t->status = T_CANCELLED;
        t->updated_ms = now_ms();
        mcp_buf_free(&t->pending);
        mcp_buf_init(&t->pending);
        finish_waiters(t, false);
    }
    if (t->legacy) {
        /* 2025-11-25: the task, cancelled. */
        mcp_buf b;
        mcp_buf_init(&b);
        put_task(&b, ts, t, false);
        pthread_mutex_unlock(&ts->mu);
        answer_buf(r, &b);
        return;
    }
    pthread_mutex_unlock(&ts->mu);
    mcp_req_result(r, "{}", 2);
}

/* tasks/get and tasks/cancel: both revisions (a 2025 request sees the
 * 2025 tasks, a modern one the extension's). */
const mcp_method mcp_method_tasks_get = {.name = "tasks/get", .served = mcp_server_has_tasks, .start = tasks_get_start};
const mcp_method mcp_method_tasks_update = {.name = "tasks/update",
                                            .flags = MCP_METHOD_MODERN_ONLY,
                                            .served = mcp_server_has_tasks,
                                            .start = tasks_update_start};
const mcp_method mcp_method_tasks_cancel = {
    .name = "tasks/cancel", .served = mcp_server_has_tasks, .start = tasks_cancel_start};
const mcp_method mcp_method_tasks_result = {.name = "tasks/result",
                                            .flags = MCP_METHOD_LEGACY_ONLY,
                                            .served = mcp_server_has_tasks,
                                            .start = tasks_result_start};
const mcp_method mcp_method_tasks_list = {
    .name = "tasks/list", .flags = MCP_METHOD_LEGACY_ONLY, .served = mcp_server_has_tasks, .start = tasks_list_start};
