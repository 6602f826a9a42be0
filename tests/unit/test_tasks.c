/* test_tasks.c: the tasks extension of 2026-07-28 (methods/tasks.c): task
 * creation by mcp_task_start, tasks/get, tasks/update, tasks/cancel, and
 * their errors: the extension not declared, unknown and missing task ids,
 * inputResponses of the wrong kind, the limit on live tasks, the time a
 * task is kept; and 2025-11-25's experimental tasks (params.task, tasks/get,
 * tasks/result held until the end, tasks/list by pages, tasks/cancel).
 *
 * The tools' handlers run through the codec; their arguments are `any`. */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "check_run.h"
#include "internal/methods.h"

static atomic_bool release_job;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* job: a task; works until released or cancelled. */
static mcp_status job_handler(mcp_call *call, const void *args, void *out)
{
    (void)args;
    (void)out;
    if (mcp_task_start(call))
        return MCP_OK;
    while (!atomic_load(&release_job) && !mcp_call_cancelled(call))
        sleep_ms(2);
    if (mcp_call_cancelled(call))
        return mcp_fail(call, "cancelled");
    return mcp_content_text(call, mcp_in_task(call) ? "done in a task" : "done at once");
}

/* ask: a task that asks two questions at once. */
static mcp_status ask_handler(mcp_call *call, const void *args, void *out)
{
    (void)args;
    (void)out;
    if (mcp_task_start(call))
        return MCP_OK;
    const mcp_json *a = NULL, *b = NULL;
    const char *act = NULL;
    static const char SCHEMA[] = "{\"type\":\"object\",\"properties\":{\"v\":{\"type\":\"string\"}}}";
    mcp_input_key(call, "a");
    bool got_a = mcp_elicit(call, "a?", SCHEMA, &a, &act);
    mcp_input_key(call, "b");
    bool got_b = mcp_elicit(call, "b?", SCHEMA, &b, &act);
    if (!got_a || !got_b)
        return mcp_input_pending(call)
                   ? MCP_ERROR
                   : mcp_fail(call, "%s", mcp_client_error(call) ? mcp_client_error(call) : "no answer");
    const mcp_json *va = mcp_json_get(a, "v"), *vb = mcp_json_get(b, "v");
    return mcp_content_text(call, mcp_sprintf(call, "%s+%s", va ? va->s : "?", vb ? vb->s : "?"));
}

/* boom: a task that fails with a JSON-RPC error. */
static mcp_status boom_handler(mcp_call *call, const void *args, void *out)
{
    (void)args;
    (void)out;
    if (mcp_task_start(call))
        return MCP_OK;
    return mcp_fail_protocol(call, -32000, "boom");
}

/* plain: never a task (no `task:`), though it asks. */
static mcp_status plain_handler(mcp_call *call, const void *args, void *out)
{
    (void)args;
    (void)out;
    return mcp_content_text(call, mcp_task_start(call) ? "became a task" : "plain");
}

/* now: may be a task, but answers at once. */
static mcp_status now_handler(mcp_call *call, const void *args, void *out)
{
    (void)args;
    (void)out;
    return mcp_content_text(call, "at once");
}

static const mcp_type ANY_ARGS = {
    .kind = MCP_T_ANY, .size = sizeof(void *), .align = sizeof(void *), .tag = "Arguments"};

#define TOOL(n, h, t) \
    { \
        .name = n, .list_entry = "{\"name\":\"" n "\"}", .args = &ANY_ARGS, .handler = h, .task = t \
    }
static const mcp_tool TOOLS[] = {
    TOOL("ask", ask_handler, MCP_TASK_OPTIONAL), TOOL("boom", boom_handler, MCP_TASK_OPTIONAL),
    TOOL("job", job_handler, MCP_TASK_OPTIONAL), TOOL("must", job_handler, MCP_TASK_REQUIRED),
    TOOL("now", now_handler, MCP_TASK_OPTIONAL), TOOL("plain", plain_handler, MCP_TASK_NONE),
};
static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "tasksrv",
    .version = "1",
    .tools = TOOLS,
    .ntools = sizeof TOOLS / sizeof *TOOLS,
};

/* ---------------------------------------------------------------- requests and answers */

#define META_EXT \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"extensions\":{\"" \
    "io.modelcontextprotocol/tasks\":{}}}}"
#define META_NOEXT \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static mcp_session *sess;
static mcp_arena arena;
static int next_id;

static mcp_session *open_session(int max_tasks, int task_ttl)
{
    mcp_options o;
    mcp_options_default(&o);
    o.workers = 2;
    if (max_tasks)
        o.max_tasks = max_tasks;
    if (task_ttl)
        o.task_ttl = task_ttl;
    mcp_session *s = test_session_new(&SERVER, &o, sink, NULL);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Send method with params (the members after "{", without _meta) and
 * meta; the answer, parsed. */
static const mcp_json *call_with(const char *method, const char *params, const char *meta)
{
    int id = ++next_id;
    char *text = mcp_arena_printf(&arena, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s%s%s}}", id,
                                  method, params, *params ? "," : "", meta);
    size_t before = cap_wait(0);
    mcp_session_message(sess, text, strlen(text), NULL);
    /* Answers come in order of the requests here: one at a time. */
    ck_assert_uint_ge(cap_wait(before + 1), before + 1);
    const line *l = cap_at(before);
    mcp_json_err err = MCP_JSON_OK;
    const mcp_json *v = mcp_json_parse(&arena, l->text, strlen(l->text), NULL, &err, NULL);
    ck_assert_msg(v != NULL, "not JSON: %s", l->text);
    const mcp_json *got = mcp_json_get(v, "id");
    ck_assert_msg(got && got->kind == MCP_JINT && got->i == id, "answer to another request: %s", l->text);
    return v;
}

static const mcp_json *call_ext(const char *method, const char *params) { return call_with(method, params, META_EXT); }

static void expect_error(const mcp_json *answer, int code, const char *in_message)
{
    const mcp_json *e = mcp_json_get(answer, "error");
    ck_assert_msg(e != NULL, "no error");
    const mcp_json *c = mcp_json_get(e, "code"), *m = mcp_json_get(e, "message");
    ck_assert_int_eq((int)c->i, code);
    if (in_message)
        ck_assert_msg(strstr(m->s, in_message) != NULL, "message: %s", m->s);
}

static const mcp_json *result_of(const mcp_json *answer)
{
    const mcp_json *r = mcp_json_get(answer, "result");
    ck_assert_msg(r != NULL, "no result");
    return r;
}

static const char *str_of(const mcp_json *obj, const char *key)
{
    const mcp_json *v = mcp_json_get(obj, key);
    return v && v->kind == MCP_JSTRING ? v->s : NULL;
}

/* A task of tool: its id. */
static const char *create(const char *tool)
{
    const mcp_json *r = result_of(call_ext("tools/call", mcp_arena_printf(&arena, "\"name\":\"%s\"", tool)));
    ck_assert_str_eq(str_of(r, "resultType"), "task");
    ck_assert_str_eq(str_of(r, "status"), "working");
    ck_assert_ptr_null(mcp_json_get(r, "result"));
    ck_assert_ptr_null(mcp_json_get(r, "requestState"));
    const mcp_json *ttl = mcp_json_get(r, "ttlMs");
    ck_assert(ttl && ttl->kind == MCP_JINT && ttl->i > 0);
    return str_of(r, "taskId");
}

static const mcp_json *get(const char *id)
{
    return result_of(call_ext("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
}

/* tasks/get until the status is `want` (up to 5 s). */
static const mcp_json *wait_status(const char *id, const char *want)
{
    const mcp_json *r = NULL;
    for (int i = 0; i < 500; i++) {
        r = get(id);
        if (strcmp(str_of(r, "status"), want) == 0)
            return r;
        sleep_ms(10);
    }
    ck_abort_msg("task %s never %s (it is %s)", id, want, str_of(r, "status"));
    return NULL;
}

static void setup(void)
{
    mcp_arena_init(&arena);
    atomic_store(&release_job, false);
    next_id = 0;
    sess = NULL;
}

static void teardown(void)
{
    atomic_store(&release_job, true);
    test_session_free(sess);
    cap_reset();
    mcp_arena_free(&arena);
}

/* ---------------------------------------------------------------- the tests */

START_TEST(without_the_extension)
{
    sess = open_session(0, 0);
    static const char *const METHODS[] = {"tasks/get", "tasks/update", "tasks/cancel"};
    for (size_t i = 0; i < 3; i++) {
        const mcp_json *a = call_with(METHODS[i], "\"taskId\":\"x\",\"inputResponses\":{}", META_NOEXT);
        expect_error(a, -32021, "io.modelcontextprotocol/tasks");
        const mcp_json *data = mcp_json_get(mcp_json_get(a, "error"), "data");
        ck_assert_ptr_nonnull(mcp_json_get(mcp_json_get(mcp_json_get(data, "requiredCapabilities"), "extensions"),
                                           "io.modelcontextprotocol/tasks"));
    }
    /* A task: required tool is refused before its handler runs. */
    expect_error(call_with("tools/call", "\"name\":\"must\"", META_NOEXT), -32021, "only as a task");
    /* A task: optional one runs at once. */
    atomic_store(&release_job, true);
    const mcp_json *r = result_of(call_with("tools/call", "\"name\":\"job\"", META_NOEXT));
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_ptr_null(mcp_json_get(r, "taskId"));
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "done at once");
}
END_TEST

START_TEST(task_ids)
{
    sess = open_session(0, 0);
    expect_error(call_ext("tasks/get", "\"taskId\":\"no-such-task\""), -32602, "unknown task: no-such-task");
    expect_error(call_ext("tasks/cancel", "\"taskId\":\"no-such-task\""), -32602, "unknown task");
    expect_error(call_ext("tasks/update", "\"taskId\":\"no-such-task\",\"inputResponses\":{}"), -32602, "unknown task");
    expect_error(call_ext("tasks/get", ""), -32602, "taskId");
    expect_error(call_ext("tasks/get", "\"taskId\":7"), -32602, "taskId");
    /* Removed by the extension. */
    expect_error(call_ext("tasks/result", "\"taskId\":\"x\""), -32601, NULL);
    expect_error(call_ext("tasks/list", ""), -32601, NULL);
}
END_TEST

START_TEST(lifecycle)
{
    sess = open_session(0, 0);
    const char *id = create("job");
    const mcp_json *r = get(id); /* at once: the task exists */
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_str_eq(str_of(r, "taskId"), id);
    ck_assert_str_eq(str_of(r, "status"), "working");
    ck_assert_ptr_null(mcp_json_get(r, "result"));
    atomic_store(&release_job, true);
    r = wait_status(id, "completed");
    ck_assert_str_eq(str_of(mcp_json_get(mcp_json_get(r, "result"), "content")->items[0], "text"), "done in a task");
    /* Cancelling a finished task: the same ack, the status unchanged. */
    r = result_of(call_ext("tasks/cancel", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_ptr_null(mcp_json_get(r, "status"));
    ck_assert_str_eq(str_of(get(id), "status"), "completed");
    /* A tool without `task:` never becomes one. */
    r = result_of(call_ext("tools/call", "\"name\":\"plain\""));
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "plain");
}
END_TEST

START_TEST(cancel_working)
{
    sess = open_session(0, 0);
    const char *id = create("job");
    const mcp_json *r = result_of(call_ext("tasks/cancel", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_str_eq(str_of(get(id), "status"), "cancelled");
    ck_assert_ptr_null(mcp_json_get(get(id), "result"));
}
END_TEST

START_TEST(failed)
{
    sess = open_session(0, 0);
    const char *id = create("boom");
    const mcp_json *r = wait_status(id, "failed");
    ck_assert_ptr_null(mcp_json_get(r, "result"));
    const mcp_json *e = mcp_json_get(r, "error");
    ck_assert_int_eq((int)mcp_json_get(e, "code")->i, -32000);
    ck_assert_str_eq(str_of(e, "message"), "boom");
}
END_TEST

START_TEST(input_required)
{
    sess = open_session(0, 0);
    const char *id = create("ask");
    const mcp_json *r = wait_status(id, "input_required");
    const mcp_json *reqs = mcp_json_get(r, "inputRequests");
    ck_assert_uint_eq(reqs->n, 2);
    ck_assert_str_eq(str_of(mcp_json_get(reqs, "a"), "method"), "elicitation/create");
    const char *tid = mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id);
    /* Answers must be an object. */
    expect_error(call_ext("tasks/update", mcp_arena_printf(&arena, "%s,\"inputResponses\":[]", tid)), -32602,
                 "inputResponses");
    expect_error(call_ext("tasks/update", tid), -32602, "inputResponses");
    /* An unknown key is ignored; one answer of two keeps the task waiting for the other. */
    r = result_of(call_ext("tasks/update",
                           mcp_arena_printf(&arena, "%s,\"inputResponses\":{\"zz\":{\"action\":\"accept\"}}", tid)));
    ck_assert_str_eq(str_of(r, "resultType"), "complete");
    ck_assert_uint_eq(mcp_json_get(get(id), "inputRequests")->n, 2);
    /* So is an answer that is no elicitation result (no action). */
    result_of(call_ext("tasks/update", mcp_arena_printf(&arena, "%s,\"inputResponses\":{\"a\":{\"v\":\"x\"}}", tid)));
    ck_assert_uint_eq(mcp_json_get(get(id), "inputRequests")->n, 2);
    result_of(
        call_ext("tasks/update",
                 mcp_arena_printf(
                     &arena, "%s,\"inputResponses\":{\"a\":{\"action\":\"accept\",\"content\":{\"v\":\"x\"}}}", tid)));
    r = get(id);
    ck_assert_str_eq(str_of(r, "status"), "input_required");
    reqs = mcp_json_get(r, "inputRequests");
    ck_assert_uint_eq(reqs->n, 1);
    ck_assert_ptr_nonnull(mcp_json_get(reqs, "b"));
    result_of(
        call_ext("tasks/update",
                 mcp_arena_printf(
                     &arena, "%s,\"inputResponses\":{\"b\":{\"action\":\"accept\",\"content\":{\"v\":\"y\"}}}", tid)));
    r = wait_status(id, "completed");
    ck_assert_str_eq(str_of(mcp_json_get(mcp_json_get(r, "result"), "content")->items[0], "text"), "x+y");
}
END_TEST

START_TEST(max_tasks)
{
    sess = open_session(1, 0);
    create("job");
    expect_error(call_ext("tools/call", "\"name\":\"job\""), -32603, "--max-tasks");
}
END_TEST

START_TEST(task_ttl)
{
    sess = open_session(0, 1);
    atomic_store(&release_job, true);
    const char *id = create("job");
    wait_status(id, "completed");
    sleep_ms(1100);
    expect_error(call_ext("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)), -32602, "unknown task");
    /* The room it held is free again. */
    create("job");
}
END_TEST

/* ---------------------------------------------------------------- 2025-11-25's experimental tasks */

#define META25 "\"_meta\":{}"

/* A session initialized with 2025-11-25: its initialize answer. */
static const mcp_json *open_legacy(size_t page_size)
{
    mcp_options o;
    mcp_options_default(&o);
    o.workers = 2;
    if (page_size)
        o.page_size = page_size;
    sess = test_session_new(&SERVER, &o, sink, NULL);
    ck_assert_ptr_nonnull(sess);
    const mcp_json *init = call_with("initialize",
                                     "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}",
                                     META25);
    static const char INITIALIZED[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    mcp_session_message(sess, INITIALIZED, strlen(INITIALIZED), NULL);
    return init;
}

static const mcp_json *call25(const char *method, const char *params) { return call_with(method, params, META25); }

/* A 2025 task of tool (params.task with the members given): its Task. */
static const mcp_json *create25(const char *tool, const char *task)
{
    const mcp_json *r = result_of(
        call25("tools/call", mcp_arena_printf(&arena, "\"name\":\"%s\",\"task\":{%s}", tool, task)));
    ck_assert_ptr_null(mcp_json_get(r, "resultType"));
    const mcp_json *t = mcp_json_get(r, "task");
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(str_of(t, "taskId"));
    ck_assert_ptr_nonnull(str_of(t, "createdAt"));
    ck_assert_ptr_nonnull(str_of(t, "lastUpdatedAt"));
    ck_assert_ptr_nonnull(mcp_json_get(t, "pollInterval"));
    return t;
}

static const mcp_json *get25(const char *id)
{
    return result_of(call25("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
}

/* Send a request without waiting for its answer; its id. */
static int send25(const char *method, const char *params)
{
    int id = ++next_id;
    char *text = mcp_arena_printf(&arena, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"%s\",\"params\":{%s}}", id,
                                  method, params);
    mcp_session_message(sess, text, strlen(text), NULL);
    return id;
}

/* The answer to request id among the lines captured from `from` on (up to 5 s). */
static const mcp_json *answer_to(int id, size_t from)
{
    for (int tries = 0; tries < 500; tries++) {
        size_t n = cap_wait(0);
        for (size_t i = from; i < n; i++) {
            const line *l = cap_at(i);
            mcp_json_err err = MCP_JSON_OK;
            const mcp_json *v = mcp_json_parse(&arena, l->text, strlen(l->text), NULL, &err, NULL);
            const mcp_json *got = mcp_json_get(v, "id");
            if (got && got->kind == MCP_JINT && got->i == id)
                return v;
        }
        sleep_ms(10);
    }
    ck_abort_msg("no answer to request %d", id);
    return NULL;
}

START_TEST(legacy_requests)
{
    const mcp_json *init = result_of(open_legacy(0));
    /* The capability: tasks/list, tasks/cancel and task-augmented tools/call. */
    const mcp_json *tasks = mcp_json_get(mcp_json_get(init, "capabilities"), "tasks");
    ck_assert_ptr_nonnull(mcp_json_get(tasks, "list"));
    ck_assert_ptr_nonnull(mcp_json_get(tasks, "cancel"));
    ck_assert_ptr_nonnull(mcp_json_get(mcp_json_get(mcp_json_get(tasks, "requests"), "tools"), "call"));
    ck_assert_ptr_null(mcp_json_get(mcp_json_get(init, "capabilities"), "extensions"));
    /* Without params.task, a task: optional tool answers at once. */
    atomic_store(&release_job, true);
    const mcp_json *r = result_of(call25("tools/call", "\"name\":\"job\""));
    ck_assert_ptr_null(mcp_json_get(r, "task"));
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "done at once");
    expect_error(call25("tasks/get", "\"taskId\":\"x\""), -32602, "unknown task: x");
    expect_error(call25("tasks/result", "\"taskId\":\"x\""), -32602, "unknown task: x");
    expect_error(call25("tasks/cancel", "\"taskId\":\"x\""), -32602, "unknown task: x");
    expect_error(call25("tasks/get", ""), -32602, "taskId");
    /* tasks/update is the extension's. */
    expect_error(call25("tasks/update", "\"taskId\":\"x\",\"inputResponses\":{}"), -32602, "protocolVersion");
}
END_TEST

START_TEST(legacy_errors)
{
    open_legacy(0);
    /* task: required without params.task, params.task on a tool without `task:`: -32601. */
    expect_error(call25("tools/call", "\"name\":\"must\""), -32601, "task augmentation required");
    expect_error(call25("tools/call", "\"name\":\"plain\",\"task\":{}"), -32601, "forbidden");
    expect_error(call25("tools/call", "\"name\":\"job\",\"task\":7"), -32602, "task must be an object");
    expect_error(call25("tools/call", "\"name\":\"job\",\"task\":{\"ttl\":\"soon\"}"), -32602, "task.ttl");
    expect_error(call25("tasks/list", "\"cursor\":\"no-such-task\""), -32602, "cursor");
    /* A JSON-RPC error of the handler: the task fails; tasks/result returns the error. */
    const char *id = str_of(create25("boom", ""), "taskId");
    const mcp_json *a = call25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id));
    expect_error(a, -32000, "boom");
    const mcp_json *t = get25(id);
    ck_assert_str_eq(str_of(t, "status"), "failed");
    ck_assert_ptr_nonnull(str_of(t, "statusMessage"));
    /* Cancelling an ended task is refused. */
    expect_error(call25("tasks/cancel", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)), -32602,
                 "terminal status 'failed'");
    /* A task's handler cannot ask the client in 2025-11-25: the request fails at once. */
    id = str_of(create25("ask", ""), "taskId");
    const mcp_json *r = result_of(call25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
    ck_assert(mcp_json_get(r, "isError")->b);
    const char *text = str_of(mcp_json_get(r, "content")->items[0], "text");
    ck_assert_msg(strstr(text, "no requests to the client") != NULL, "text: %s", text);
    ck_assert_str_eq(str_of(get25(id), "status"), "failed");
    /* A task of the extension (2026-07-28) is unknown to 2025 requests, and the other way round. */
    const char *modern = create("job");
    expect_error(call25("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", modern)), -32602, "unknown task");
    expect_error(call_ext("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)), -32602, "unknown task");
}
END_TEST

START_TEST(legacy_lifecycle)
{
    open_legacy(0);
    const mcp_json *t = create25("job", "\"ttl\":60000");
    const char *id = str_of(t, "taskId");
    ck_assert_str_eq(str_of(t, "status"), "working");
    ck_assert_int_eq((int)mcp_json_get(t, "ttl")->i, 60000);
    t = get25(id);
    ck_assert_str_eq(str_of(t, "status"), "working");
    ck_assert_ptr_null(mcp_json_get(t, "result"));
    /* tasks/result waits for the end (held: the session goes on meanwhile). */
    size_t before = cap_wait(0);
    int rid = send25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id));
    const mcp_json *list = result_of(call25("tasks/list", ""));
    ck_assert_uint_eq(mcp_json_get(list, "tasks")->n, 1);
    ck_assert_str_eq(str_of(mcp_json_get(list, "tasks")->items[0], "taskId"), id);
    ck_assert_ptr_null(mcp_json_get(list, "nextCursor"));
    atomic_store(&release_job, true);
    const mcp_json *r = result_of(answer_to(rid, before));
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "done in a task");
    ck_assert_str_eq(str_of(mcp_json_get(mcp_json_get(r, "_meta"), "io.modelcontextprotocol/related-task"), "taskId"),
                     id);
    ck_assert_str_eq(str_of(get25(id), "status"), "completed");
    /* Once ended, tasks/result answers at once, as often as asked. */
    r = result_of(call25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)));
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "done in a task");
    /* A handler that answers without mcp_task_start: the task is born completed. */
    t = create25("now", "");
    ck_assert_str_eq(str_of(t, "status"), "completed");
    r = result_of(call25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", str_of(t, "taskId"))));
    ck_assert_str_eq(str_of(mcp_json_get(r, "content")->items[0], "text"), "at once");
}
END_TEST

START_TEST(legacy_cancel)
{
    open_legacy(0);
    const char *id = str_of(create25("job", ""), "taskId");
    size_t before = cap_wait(0);
    int rid = send25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id));
    int cid = send25("tasks/cancel", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id));
    const mcp_json *t = result_of(answer_to(cid, before));
    ck_assert_str_eq(str_of(t, "status"), "cancelled");
    /* The waiting tasks/result ends with an error. */
    const mcp_json *a = answer_to(rid, before);
    ck_assert_ptr_nonnull(mcp_json_get(a, "error"));
    ck_assert_str_eq(str_of(get25(id), "status"), "cancelled");
    /* The client's cancellation of a waiting tasks/result ends it unanswered; the task goes on. */
    id = str_of(create25("job", ""), "taskId");
    before = cap_wait(0);
    rid = send25("tasks/result", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id));
    char *note = mcp_arena_printf(
        &arena, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%d}}", rid);
    mcp_session_message(sess, note, strlen(note), NULL);
    ck_assert_str_eq(str_of(get25(id), "status"), "working");
    atomic_store(&release_job, true);
    for (int i = 0; i < 500 && strcmp(str_of(get25(id), "status"), "completed") != 0; i++)
        sleep_ms(10);
    ck_assert_str_eq(str_of(get25(id), "status"), "completed");
}
END_TEST

START_TEST(legacy_list_pages)
{
    open_legacy(1);
    const char *a = str_of(create25("job", ""), "taskId");
    const char *b = str_of(create25("job", ""), "taskId");
    const mcp_json *p1 = result_of(call25("tasks/list", ""));
    ck_assert_uint_eq(mcp_json_get(p1, "tasks")->n, 1);
    const char *cursor = str_of(p1, "nextCursor");
    ck_assert_ptr_nonnull(cursor);
    const mcp_json *p2 = result_of(call25("tasks/list", mcp_arena_printf(&arena, "\"cursor\":\"%s\"", cursor)));
    ck_assert_uint_eq(mcp_json_get(p2, "tasks")->n, 1);
    ck_assert_ptr_null(mcp_json_get(p2, "nextCursor"));
    const char *first = str_of(mcp_json_get(p1, "tasks")->items[0], "taskId");
    const char *second = str_of(mcp_json_get(p2, "tasks")->items[0], "taskId");
    ck_assert((strcmp(first, a) == 0 && strcmp(second, b) == 0) || (strcmp(first, b) == 0 && strcmp(second, a) == 0));
}
END_TEST

START_TEST(legacy_ttl)
{
    open_legacy(0);
    /* The ttl asked for, at most the server's (--task-ttl: an hour here). */
    ck_assert_int_eq((int)mcp_json_get(create25("job", "\"ttl\":1000"), "ttl")->i, 1000);
    long long ttl = mcp_json_get(create25("job", "\"ttl\":999999999999"), "ttl")->i;
    ck_assert(ttl == 3600LL * 1000);
    atomic_store(&release_job, true);
    const char *id = str_of(create25("job", "\"ttl\":100"), "taskId");
    sleep_ms(300);
    expect_error(call25("tasks/get", mcp_arena_printf(&arena, "\"taskId\":\"%s\"", id)), -32602, "unknown task");
}
END_TEST

int main(int argc, char **argv)
{
    capture_start(argc, argv);
    test_quiet = true;
    Suite *su = suite_create("tasks");
    TCase *tc = tcase_create("tasks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, without_the_extension);
    tcase_add_test(tc, task_ids);
    tcase_add_test(tc, lifecycle);
    tcase_add_test(tc, cancel_working);
    tcase_add_test(tc, failed);
    tcase_add_test(tc, input_required);
    tcase_add_test(tc, max_tasks);
    tcase_add_test(tc, task_ttl);
    tcase_add_test(tc, legacy_requests);
    tcase_add_test(tc, legacy_errors);
    tcase_add_test(tc, legacy_lifecycle);
    tcase_add_test(tc, legacy_cancel);
    tcase_add_test(tc, legacy_list_pages);
    tcase_add_test(tc, legacy_ttl);
    suite_add_tcase(su, tc);
    int failed = check_run(su, false);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
