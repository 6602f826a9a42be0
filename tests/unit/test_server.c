/* test_server.c: the protocol layer: rpc/session.c (JSON-RPC 2.0, the
 * lifecycle, dispatch, cancellation), rpc/pool.c, transport/stdio.c and
 * main/main.c.
 *
 * The codec is not under test here: the sessions' tools/call runs
 * stub_invoke (the runtime's invoker seam, test_runtime.h), with stub tools
 * (echo, block, oom, slow). mcp_main, in a child, runs the tools' handlers
 * through the codec: their arguments are `any`, and they answer as the stub
 * does. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal/methods.h"
#include "internal/pool.h"
#include "test_runtime.h"
#include "check_run.h"

/* ---------------------------------------------------------------- stub codec */

static atomic_int invocations;
static atomic_bool release_blocked;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static pthread_t invoked_on; /* the thread of the last invocation */

static bool stub_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    atomic_fetch_add(&invocations, 1);
    invoked_on = pthread_self();
    const char *name = call->tool->name;
    if (strcmp(name, "oom") == 0)
        return false;
    if (strcmp(name, "block") == 0) {
        /* Until the request is cancelled (or the test lets it go). */
        while (!atomic_load(call->cancelled) && !atomic_load(&release_blocked))
            sleep_ms(1);
    }
    if (strcmp(name, "slow") == 0)
        sleep_ms(20);
    if (strcmp(name, "printer") == 0) {
        printf("stray output\n");
        fflush(stdout);
    }
    /* The arena is the request's: use it, as a handler would. */
    char *text = mcp_arena_printf(call->arena, "%s args=%zu meta=%s", name, arguments ? arguments->n : (size_t)0,
                                  call->meta ? "yes" : "no");
    if (!text)
        return false;
    mcp_buf_printf(out, "{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}],\"isError\":false}", text);
    return true;
}

/* The same through the codec, for mcp_main: a handler of `returns:
 * content`, its arguments taken as `any`. */
static mcp_status stub_handler(mcp_call *call, const void *args, void *out)
{
    (void)out;
    const mcp_json *arguments = *(const mcp_json *const *)args;
    const char *name = mcp_call_tool(call);
    if (strcmp(name, "slow") == 0)
        sleep_ms(20);
    if (strcmp(name, "printer") == 0) {
        printf("stray output\n");
        fflush(stdout);
    }
    return mcp_content_text(call, mcp_sprintf(call, "%s args=%zu meta=%s", name, arguments ? arguments->n : (size_t)0,
                                              mcp_call_meta(call) ? "yes" : "no"));
}

static const mcp_type ANY_ARGS = {
    .kind = MCP_T_ANY, .size = sizeof(void *), .align = sizeof(void *), .tag = "Arguments"};

/* ---------------------------------------------------------------- servers */

#define STUB_TOOL(n) \
    { \
        .name = n, .list_entry = "{\"name\":\"" n "\"}", .args = &ANY_ARGS, .handler = stub_handler \
    }
static const mcp_tool TOOLS[] = {STUB_TOOL("echo"), STUB_TOOL("block"), STUB_TOOL("oom"), STUB_TOOL("slow")};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "testsrv",
    .version = "1.2.3",
    .title = "Test Server",
    .instructions = "Use \"echo\".",
    .tools = TOOLS,
    .ntools = sizeof TOOLS / sizeof *TOOLS,
};

static const mcp_server EMPTY_SERVER = {
    .abi = MCPIDL_ABI,
    .name = "empty",
    .version = "0",
    .tools = NULL,
    .ntools = 0,
};

#define MANY 250
static mcp_tool many_tools[MANY];
static char many_names[MANY][8];
static char many_entries[MANY][32];
static mcp_server many_server;

static void make_many(void)
{
    for (int i = 0; i < MANY; i++) {
        /* Not in name order, so the lookup has to sort them. */
        int k = (i * 37) % MANY;
        snprintf(many_names[i], sizeof many_names[i], "t%03d", k);
        snprintf(many_entries[i], sizeof many_entries[i], "{\"name\":\"t%03d\"}", k);
        many_tools[i] = (mcp_tool){.name = many_names[i], .list_entry = many_entries[i]};
    }
    many_server = (mcp_server){.abi = MCPIDL_ABI, .name = "many", .version = "1", .tools = many_tools, .ntools = MANY};
}

/* ---------------------------------------------------------------- capturing answers */

typedef struct capture {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char **lines;
    size_t n, cap;
    bool fail; /* the sink reports the peer gone */
} capture;

static capture cap;

static bool cap_sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    capture *c = ctx;
    (void)reply_ctx;
    (void) final;
    if (n == 0) /* a request answered no more */
        return true;
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += parts[i].n;
    char *line = malloc(len + 1);
    if (!line)
        ck_abort_msg("out of memory");
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(line + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    line[len] = 0;
    if (memchr(line, '\n', len)) /* one message, one line */
        ck_abort_msg("an answer with a newline: %s", line);
    pthread_mutex_lock(&c->mu);
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->lines = realloc(c->lines, c->cap * sizeof *c->lines);
    }
    c->lines[c->n++] = line;
    bool ok = !c->fail;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static void cap_reset(void)
{
    pthread_mutex_lock(&cap.mu);
    for (size_t i = 0; i < cap.n; i++)
        free(cap.lines[i]);
    cap.n = 0;
    cap.fail = false;
    pthread_mutex_unlock(&cap.mu);
}

static size_t cap_count(void)
{
    pthread_mutex_lock(&cap.mu);
    size_t n = cap.n;
    pthread_mutex_unlock(&cap.mu);
    return n;
}

static const char *cap_line(size_t i)
{
    pthread_mutex_lock(&cap.mu);
    const char *l = i < cap.n ? cap.lines[i] : NULL;
    pthread_mutex_unlock(&cap.mu);
    return l;
}

/* Is there an answer equal to s (and how many)? */
static int cap_find(const char *s)
{
    int k = 0;
    pthread_mutex_lock(&cap.mu);
    for (size_t i = 0; i < cap.n; i++)
        k += strcmp(cap.lines[i], s) == 0;
    pthread_mutex_unlock(&cap.mu);
    return k;
}

static void setup(void)
{
    pthread_mutex_init(&cap.mu, NULL);
    pthread_cond_init(&cap.cv, NULL);
    cap.lines = NULL;
    cap.n = cap.cap = 0;
    cap.fail = false;
    atomic_store(&invocations, 0);
    atomic_store(&release_blocked, false);
    make_many();
    signal(SIGPIPE, SIG_IGN);
}

static void teardown(void)
{
    cap_reset();
    free(cap.lines);
    cap.lines = NULL;
    cap.cap = 0;
}

static mcp_session *open_with(const mcp_server *srv, int workers, int max_concurrent, size_t max_message)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = workers;
    if (max_concurrent)
        set.max_concurrent = max_concurrent;
    if (max_message)
        set.max_message = max_message;
    mcp_session *s = test_session_new(srv, &set, cap_sink, &cap);
    ck_assert_ptr_nonnull(s);
    return s;
}

static void feed(mcp_session *s, const char *line) { mcp_session_message(s, line, strlen(line), NULL); }

/* Send a line handled on the reading thread; expect exactly `want` as the
 * answer, or no answer when want is NULL. */
static void expect(mcp_session *s, const char *line, const char *want)
{
    size_t before = cap_count();
    feed(s, line);
    if (!want) {
        ck_assert_msg(cap_count() == before, "unexpected answer to %s: %s", line, cap_line(before));
        return;
    }
    ck_assert_msg(cap_count() == before + 1, "no single answer to %s", line);
    ck_assert_str_eq(cap_line(before), want);
}

#define INIT_2025_11 \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define INIT_2025_03 \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-03-26\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define RESULT_INIT(v) \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"" v "\",\"capabilities\":" \
    "{\"logging\":{},\"tools\":{\"listChanged\":false}},\"serverInfo\":{\"name\":" \
    "\"testsrv\",\"title\":" \
    "\"Test Server\",\"version\":\"1.2.3\"},\"instructions\":\"Use \\\"echo\\\".\"}}"

static void initialize(mcp_session *s, const char *init)
{
    size_t before = cap_count();
    feed(s, init);
    ck_assert_uint_eq(cap_count(), before + 1);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    ck_assert_uint_eq(cap_count(), before + 1);
}

/* ---------------------------------------------------------------- the answers table */

#define REQ(rest) "{\"jsonrpc\":\"2.0\"," rest "}"
#define ERR(id, code, msg) "{\"jsonrpc\":\"2.0\"," id "\"error\":{\"code\":" #code ",\"message\":\"" msg "\"}}"
#define NOID ""
#define ID(x) "\"id\":" #x ","
#define OK(id, result) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"result\":" result "}"

enum { FRESH, READY, READY_0326 };

static const struct row {
    int phase;
    const char *in;
    const char *out; /* NULL: no answer */
} ROWS[] = {
    /* Lifecycle. */
    {FRESH, REQ("\"id\":1,\"method\":\"ping\""), OK(1, "{}")},
    {FRESH, REQ("\"id\":1,\"method\":\"tools/list\""),
     ERR(ID(1), -32600, "Invalid Request: the server is not initialized (send initialize first)")},
    {FRESH, REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"),
     ERR(ID(1), -32600, "Invalid Request: the server is not initialized (send initialize first)")},
    {FRESH, REQ("\"id\":1,\"method\":\"no/such\""),
     ERR(ID(1), -32600, "Invalid Request: the server is not initialized (send initialize first)")},
    {FRESH, REQ("\"method\":\"notifications/initialized\""), NULL},
    {FRESH, REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}"), NULL},
    {FRESH, INIT_2025_11, RESULT_INIT("2025-11-25")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\"}"),
     RESULT_INIT("2024-11-05")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}"),
     RESULT_INIT("2025-06-18")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-03-26\"}"),
     RESULT_INIT("2025-03-26")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}"),
     RESULT_INIT("2025-11-25")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":20251125}"),
     RESULT_INIT("2025-11-25")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\""), RESULT_INIT("2025-11-25")},
    {FRESH, REQ("\"id\":0,\"method\":\"initialize\",\"params\":[\"2025-11-25\"]"),
     ERR(ID(0), -32602, "Invalid params: params must be an object")},
    {READY, INIT_2025_11, ERR(ID(0), -32600, "Invalid Request: the server is already initialized")},
    {READY, REQ("\"id\":1,\"method\":\"ping\""), OK(1, "{}")},
    {READY, REQ("\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"k\":1}}"), OK(1, "{}")},
    {READY, REQ("\"id\":\"x\",\"method\":\"ping\",\"result\":1"), OK("x", "{}")},

    /* -32700: not JSON. */
    {READY, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
     ERR(NOID, -32700, "Parse error: unexpected end of input at byte 39")},
    {READY, REQ("\"id\":1,\"method\":\"ping\",\"params\":{\"x\":NaN}"),
     ERR(NOID, -32700, "Parse error: expected a value at byte 54")},
    {READY, "{'jsonrpc':'2.0','id':1,'method':'ping'}",
     ERR(NOID, -32700, "Parse error: expected a string key at byte 1")},
    {READY, REQ("\"id\":1,\"method\":\"ping\","), ERR(NOID, -32700, "Parse error: trailing comma at byte 40")},
    {READY, REQ("\"id\":1,\"method\":\"p\xff\""), ERR(NOID, -32700, "Parse error: invalid UTF-8 at byte 35")},
    {READY, REQ("\"id\":1,\"id\":2,\"method\":\"ping\""), ERR(NOID, -32700, "Parse error: duplicate key at byte 24")},
    {READY, "ping", ERR(NOID, -32700, "Parse error: expected a value at byte 0")},
    {READY, REQ("\"id\":1,\"method\":\"ping\"} {"),
     ERR(NOID, -32700, "Parse error: unexpected text after the value at byte 41")},

    /* -32600: not a request. */
    {READY, "42", ERR(NOID, -32600, "Invalid Request: a message must be a JSON object")},
    {READY, "\"ping\"", ERR(NOID, -32600, "Invalid Request: a message must be a JSON object")},
    {READY, "null", ERR(NOID, -32600, "Invalid Request: a message must be a JSON object")},
    {READY, "[" REQ("\"id\":1,\"method\":\"ping\"") "]",
     ERR(NOID, -32600, "Invalid Request: batches are only allowed with protocol version 2025-03-26")},
    {FRESH, "[" REQ("\"id\":1,\"method\":\"ping\"") "]",
     ERR(NOID, -32600, "Invalid Request: batches are only allowed with protocol version 2025-03-26")},
    {READY, "{}", ERR(NOID, -32600, "Invalid Request: jsonrpc must be \\\"2.0\\\"")},
    {READY, "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}",
     ERR(ID(3), -32600, "Invalid Request: jsonrpc must be \\\"2.0\\\"")},
    {READY, "{\"id\":3,\"method\":\"ping\"}", ERR(ID(3), -32600, "Invalid Request: jsonrpc must be \\\"2.0\\\"")},
    {READY, "{\"jsonrpc\":2.0,\"id\":3,\"method\":\"ping\"}",
     ERR(ID(3), -32600, "Invalid Request: jsonrpc must be \\\"2.0\\\"")},
    {READY, "{\"method\":\"notifications/initialized\"}",
     ERR(NOID, -32600, "Invalid Request: jsonrpc must be \\\"2.0\\\"")},
    {READY, REQ("\"id\":4"), ERR(ID(4), -32600, "Invalid Request: missing method")},
    {READY, REQ("\"id\":4,\"method\":5"), ERR(ID(4), -32600, "Invalid Request: method must be a string")},
    {READY, REQ("\"method\":[\"ping\"]"), ERR(NOID, -32600, "Invalid Request: method must be a string")},
    {READY, REQ("\"id\":null,\"method\":\"ping\""), ERR(NOID, -32600, "Invalid Request: id must not be null")},
    {READY, REQ("\"id\":1.5,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":1.0,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":1e3,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":{},\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":[1],\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":true,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id must be a string or an integer")},
    {READY, REQ("\"id\":9223372036854775808,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id is beyond the range of a 64-bit integer")},
    {READY, REQ("\"id\":-9223372036854775809,\"method\":\"ping\""),
     ERR(NOID, -32600, "Invalid Request: id is beyond the range of a 64-bit integer")},

    /* -32601. */
    {READY, REQ("\"id\":5,\"method\":\"resources/list\""), ERR(ID(5), -32601, "Method not found: resources/list")},
    {READY, REQ("\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}"), OK(5, "{}")},
    {READY, REQ("\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"emergency\"}"), OK(5, "{}")},
    {READY, REQ("\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"verbose\"}"),
     ERR(ID(5), -32602,
         "Invalid params: level must be one of debug, info, notice, warning, error, "
         "critical, alert, emergency")},
    {READY, REQ("\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":3}"),
     ERR(ID(5), -32602,
         "Invalid params: level must be one of debug, info, notice, warning, error, "
         "critical, alert, emergency")},
    {READY, REQ("\"id\":5,\"method\":\"logging/setLevel\""),
     ERR(ID(5), -32602,
         "Invalid params: level must be one of debug, info, notice, warning, error, "
         "critical, alert, emergency")},
    {FRESH, REQ("\"id\":5,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}"),
     ERR(ID(5), -32600, "Invalid Request: the server is not initialized (send initialize first)")},
    {READY, REQ("\"id\":5,\"method\":\"a\\\"b\\u0000\\u00e9\""),
     ERR(ID(5), -32601, "Method not found: a\\\"b\\u0000\xc3\xa9")},
    {READY, REQ("\"id\":5,\"method\":\"Ping\""), ERR(ID(5), -32601, "Method not found: Ping")},

    /* -32602. */
    {READY, REQ("\"id\":6,\"method\":\"ping\",\"params\":[]"),
     ERR(ID(6), -32602, "Invalid params: params must be an object")},
    {READY, REQ("\"id\":6,\"method\":\"tools/list\",\"params\":\"x\""),
     ERR(ID(6), -32602, "Invalid params: params must be an object")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":null"),
     ERR(ID(6), -32602, "Invalid params: params must be an object")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\""), ERR(ID(6), -32602, "Invalid params: missing tool name")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"arguments\":{}}"),
     ERR(ID(6), -32602, "Invalid params: missing tool name")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":7}"),
     ERR(ID(6), -32602, "Invalid params: name must be a string")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}"),
     ERR(ID(6), -32602, "Unknown tool: nope")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\\u0000\"}"),
     ERR(ID(6), -32602, "Unknown tool: echo\\u0000")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"ech\"}"),
     ERR(ID(6), -32602, "Unknown tool: ech")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[]}"),
     ERR(ID(6), -32602, "Invalid params: arguments must be an object")},
    {READY, REQ("\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":\"{}\"}"),
     ERR(ID(6), -32602, "Invalid params: arguments must be an object")},
    {READY, REQ("\"id\":6,\"method\":\"tools/list\",\"params\":{\"cursor\":\"zzz\"}"),
     ERR(ID(6), -32602, "Invalid params: invalid cursor: zzz")},
    {READY, REQ("\"id\":6,\"method\":\"tools/list\",\"params\":{\"cursor\":0}"),
     ERR(ID(6), -32602, "Invalid params: cursor must be a string")},

    /* Results. */
    {READY, REQ("\"id\":7,\"method\":\"tools/list\""),
     OK(7, "{\"tools\":[{\"name\":\"echo\"},{\"name\":\"block\"},{\"name\":\"oom\"},"
           "{\"name\":\"slow\"}]}")},
    {READY, REQ("\"id\":7,\"method\":\"tools/list\",\"params\":{\"cursor\":null}"),
     OK(7, "{\"tools\":[{\"name\":\"echo\"},{\"name\":\"block\"},{\"name\":\"oom\"},"
           "{\"name\":\"slow\"}]}")},
    {READY, REQ("\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"),
     OK(8, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=0 meta=no\"}],\"isError\":false}")},
    {READY,
     REQ("\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":1,"
         "\"b\":[2]},\"_meta\":{\"progressToken\":8}}"),
     OK(8, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=2 meta=yes\"}],\"isError\":false}")},
    {READY, REQ("\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":null}"),
     OK(8, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=0 meta=no\"}],\"isError\":false}")},

    /* -32603. */
    {READY, REQ("\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"oom\"}"),
     ERR(ID(9), -32603, "Internal error: out of memory")},

    /* No answer. */
    {READY, REQ("\"method\":\"ping\""), NULL},
    {READY, REQ("\"method\":\"notifications/whatever\",\"params\":[1]"), NULL},
    {READY, REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}"), NULL},
    {READY, REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":null}"), NULL},
    {READY, REQ("\"method\":\"notifications/cancelled\""), NULL},
    {READY, REQ("\"id\":9,\"result\":{}"), NULL},
    {READY, REQ("\"id\":9,\"error\":{\"code\":-1,\"message\":\"no\"}"), NULL},
    {READY, REQ("\"error\":{\"code\":-32700,\"message\":\"Parse error\"}"), NULL},
    {READY, "", NULL},
    {READY, "   \t ", NULL},
    {READY, "\r", NULL},

    /* Batches under 2025-03-26. */
    {READY_0326, "[]", ERR(NOID, -32600, "Invalid Request: empty batch")},
    {READY_0326, "[" REQ("\"method\":\"notifications/initialized\"") "," REQ("\"id\":1,\"result\":{}") "]", NULL},
    {READY_0326,
     "[1," REQ("\"id\":\"a\",\"method\":\"ping\"") "," REQ("\"method\":\"x\"") "," REQ(
         "\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}") "]",
     "[" ERR(NOID, -32600, "Invalid Request: a message must be a JSON object") "," OK("a", "{}") "," OK(
         2, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=0 "
            "meta=no\"}],\"isError\":false}") "]"},
    {READY_0326, "[[" REQ("\"id\":1,\"method\":\"ping\"") "]]",
     "[" ERR(NOID, -32600, "Invalid Request: a message must be a JSON object") "]"},
    {READY_0326, "[" INIT_2025_03 "]",
     "[" ERR(ID(0), -32600, "Invalid Request: the server is already initialized") "]"},
};

#define NROWS ((int)(sizeof ROWS / sizeof *ROWS))

START_TEST(answers_table)
{
    const struct row *r = &ROWS[_i];
    /* Handlers inline, so every answer is there when mcp_session_message returns. */
    mcp_session *s = open_with(&SERVER, 0, 0, 0);
    if (r->phase == READY)
        initialize(s, INIT_2025_11);
    else if (r->phase == READY_0326)
        initialize(s, INIT_2025_03);
    cap_reset();
    expect(s, r->in, r->out);
    test_session_free(s);
}
END_TEST

/* The same rows through the worker pool: the same answers. */
START_TEST(answers_table_workers)
{
    mcp_session *s = open_with(&SERVER, 2, 0, 0);
    initialize(s, INIT_2025_11);
    for (int i = 0; i < NROWS; i++) {
        if (ROWS[i].phase != READY || strstr(ROWS[i].in, "\"initialize\""))
            continue;
        cap_reset();
        feed(s, ROWS[i].in);
        mcp_session_drain(s);
        if (!ROWS[i].out) {
            ck_assert_uint_eq(cap_count(), 0);
        } else {
            ck_assert_msg(cap_count() == 1, "row %d: %zu answers", i, cap_count());
            ck_assert_str_eq(cap_line(0), ROWS[i].out);
        }
    }
    test_session_free(s);
}
END_TEST

START_TEST(depth_limit)
{
    mcp_session *s = open_with(&SERVER, 0, 0, 0);
    initialize(s, INIT_2025_11);
    char deep[512];
    size_t n = 0;
    n += (size_t)sprintf(deep + n, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":");
    for (int i = 0; i < 130; i++)
        deep[n++] = '[';
    for (int i = 0; i < 130; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n++] = '}';
    deep[n] = 0;
    expect(s, deep, ERR(NOID, -32600, "Invalid Request: nesting deeper than 128 levels"));
    /* 127 levels inside the two objects: fine. */
    n = (size_t)sprintf(deep, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":");
    for (int i = 0; i < 126; i++)
        deep[n++] = '[';
    for (int i = 0; i < 126; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    deep[n++] = '}';
    deep[n] = 0;
    expect(s, deep, OK(1, "{}"));
    test_session_free(s);
}
END_TEST

START_TEST(too_large)
{
    mcp_session *s = open_with(&SERVER, 0, 0, 64);
    initialize(s, REQ("\"id\":0,\"method\":\"initialize\""));
    char line[128];
    int n = snprintf(line, sizeof line, REQ("\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"%s\"}"),
                     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    ck_assert_int_gt(n, 64);
    expect(s, line, ERR(NOID, -32600, "Invalid Request: message too large (limit 64 bytes)"));
    /* Exactly the limit is fine, a CR after it too. */
    char ok[80];
    n = snprintf(ok, sizeof ok, REQ("\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"%*s\"}"), 6, "");
    ck_assert_int_eq(n, 64);
    expect(s, ok, OK(1, "{}"));
    strcat(ok, "\r");
    expect(s, ok, OK(1, "{}"));
    test_session_free(s);
}
END_TEST

START_TEST(empty_server)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    mcp_session *s = test_session_new(&EMPTY_SERVER, &set, cap_sink, &cap);
    ck_assert_ptr_nonnull(s);
    /* No tools: no tools capability, no title, no instructions. */
    expect(s, REQ("\"id\":0,\"method\":\"initialize\""),
           OK(0, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"logging\":{}},\"serverInfo\":{"
                 "\"name\":\"empty\",\"version\":\"0\"}}"));
    expect(s, REQ("\"id\":1,\"method\":\"tools/list\""), OK(1, "{\"tools\":[]}"));
    expect(s, REQ("\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"),
           ERR(ID(2), -32602, "Unknown tool: echo"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- ids */

START_TEST(id_echo)
{
    mcp_session *s = open_with(&SERVER, 0, 0, 0);
    initialize(s, INIT_2025_11);
    expect(s, REQ("\"id\":\"a\\\"b\\\\c\\n\\u00e9\\u0000\\/\",\"method\":\"ping\""),
           "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\\\\c\\n\xc3\xa9\\u0000/\",\"result\":{}}");
    expect(s, REQ("\"id\":\"\",\"method\":\"ping\""), OK("", "{}"));
    expect(s, REQ("\"id\":9223372036854775807,\"method\":\"ping\""), OK(9223372036854775807, "{}"));
    expect(s, REQ("\"id\":-9223372036854775808,\"method\":\"ping\""), OK(-9223372036854775808, "{}"));
    expect(s, REQ("\"id\":-5,\"method\":\"ping\""), OK(-5, "{}"));
    expect(s, REQ("\"id\":0,\"method\":\"ping\""), OK(0, "{}"));
    expect(s, REQ("\"id\":-0,\"method\":\"ping\""), OK(0, "{}"));
    expect(s, REQ("\"id\":\"1\",\"method\":\"ping\""), OK("1", "{}"));
    /* The id of an error is echoed the same way. */
    expect(s, REQ("\"id\":\"\\ud83d\\ude00\",\"method\":\"nope\""),
           ERR("\"id\":\"\xf0\x9f\x98\x80\",", -32601, "Method not found: nope"));
    /* And through a worker. */
    test_session_free(s);
    s = open_with(&SERVER, 1, 0, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    feed(s, REQ("\"id\":\"q\\tz\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"));
    feed(s, REQ("\"id\":-9223372036854775808,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"));
    mcp_session_drain(s);
    ck_assert_int_eq(cap_find("{\"jsonrpc\":\"2.0\",\"id\":\"q\\tz\",\"result\":{\"content\":[{"
                              "\"type\":\"text\",\"text\":\"echo args=0 meta=no\"}],\"isError\":false}}"),
                     1);
    ck_assert_int_eq(cap_find(OK(-9223372036854775808, "{\"content\":[{\"type\":\"text\",\"text\":\"echo "
                                                       "args=0 meta=no\"}],\"isError\":false}")),
                     1);
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- batches */

START_TEST(batch_by_version)
{
    const char *batch = "[" REQ("\"id\":1,\"method\":\"ping\"") "," REQ("\"id\":2,\"method\":\"ping\"") "]";
    mcp_session *s = open_with(&SERVER, 2, 0, 0);
    initialize(s, REQ("\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}"));
    expect(s, batch, ERR(NOID, -32600, "Invalid Request: batches are only allowed with protocol version 2025-03-26"));
    test_session_free(s);

    s = open_with(&SERVER, 2, 0, 0);
    initialize(s, INIT_2025_03);
    expect(s, batch, "[" OK(1, "{}") "," OK(2, "{}") "]");
    /* Tool calls in a batch run on the workers; one array comes back when all are done. */
    cap_reset();
    feed(s,
         "[" REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}") "," REQ(
             "\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}") "," REQ("\"method\":\"notifications/"
                                                                                          "initialized\"") "]");
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 1);
    const char *a = cap_line(0);
    const char *r1 = OK(1, "{\"content\":[{\"type\":\"text\",\"text\":\"slow args=0 meta=no\"}],\"isError\":false}");
    const char *r2 = OK(2, "{\"content\":[{\"type\":\"text\",\"text\":\"slow args=0 meta=no\"}],\"isError\":false}");
    char want1[512], want2[512];
    snprintf(want1, sizeof want1, "[%s,%s]", r1, r2);
    snprintf(want2, sizeof want2, "[%s,%s]", r2, r1);
    ck_assert_msg(strcmp(a, want1) == 0 || strcmp(a, want2) == 0, "batch answer: %s", a);
    /* A cancelled request in a batch is left out; nothing at all if none is left. */
    cap_reset();
    feed(s, "[" REQ("\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"block\"}") "]");
    feed(s, REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}"));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 0);
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- tools/list pagination */

START_TEST(pagination)
{
    mcp_session *s = open_with(&many_server, 0, 0, 0);
    initialize(s, REQ("\"id\":0,\"method\":\"initialize\""));
    cap_reset();
    const char *cursors[] = {NULL, "100", "200"};
    size_t seen = 0;
    for (int p = 0; p < 3; p++) {
        char req[160];
        if (cursors[p])
            snprintf(req, sizeof req, REQ("\"id\":%d,\"method\":\"tools/list\",\"params\":{\"cursor\":\"%s\"}"), p,
                     cursors[p]);
        else
            snprintf(req, sizeof req, REQ("\"id\":%d,\"method\":\"tools/list\""), p);
        feed(s, req);
        ck_assert_uint_eq(cap_count(), (size_t)p + 1);
        const char *a = cap_line((size_t)p);
        /* The entries, in table order, spliced in verbatim. */
        char want[8192];
        size_t n = (size_t)snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"tools\":[", p);
        size_t first = seen, last = seen + 100 < MANY ? seen + 100 : MANY;
        for (size_t t = first; t < last; t++)
            n += (size_t)snprintf(want + n, sizeof want - n, "%s%s", t > first ? "," : "", many_entries[t]);
        n += (size_t)snprintf(want + n, sizeof want - n, "]");
        if (last < MANY)
            n += (size_t)snprintf(want + n, sizeof want - n, ",\"nextCursor\":\"%zu\"", last);
        snprintf(want + n, sizeof want - n, "}}");
        ck_assert_str_eq(a, want);
        seen = last;
    }
    ck_assert_uint_eq(seen, MANY);
    /* Only the cursors issued. */
    const char *bad[] = {"0", "50", "300", "250", "0100", "+100", "100 ", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char req[160], want[200];
        snprintf(req, sizeof req, REQ("\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"%s\"}"), bad[i]);
        snprintf(want, sizeof want, ERR(ID(1), -32602, "Invalid params: invalid cursor: %s"), bad[i]);
        expect(s, req, want);
    }
    /* Every tool can be called by name (they are not in name order). */
    for (int k = 0; k < MANY; k += 7) {
        char req[160], want[300];
        snprintf(req, sizeof req, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"t%03d\"}"), k, k);
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"t%03d args=0 meta=no\"}],\"isError\":false}}",
                 k, k);
        expect(s, req, want);
    }
    expect(s, REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t250\"}"),
           ERR(ID(1), -32602, "Unknown tool: t250"));
    expect(s, REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t00\"}"),
           ERR(ID(1), -32602, "Unknown tool: t00"));
    test_session_free(s);
}
END_TEST

START_TEST(page_size_setting)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    set.page_size = 3;
    mcp_session *s = test_session_new(&SERVER, &set, cap_sink, &cap);
    initialize(s, INIT_2025_11);
    expect(s, REQ("\"id\":1,\"method\":\"tools/list\""),
           OK(1, "{\"tools\":[{\"name\":\"echo\"},{\"name\":\"block\"},{\"name\":\"oom\"}],"
                 "\"nextCursor\":\"3\"}"));
    expect(s, REQ("\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"3\"}"),
           OK(1, "{\"tools\":[{\"name\":\"slow\"}]}"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- cancellation */

#define BLOCK_CALL(id) REQ("\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"block\"}")
#define CANCEL(id) REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" #id ",\"reason\":\"t\"}")

START_TEST(cancel_running)
{
    mcp_session *s = open_with(&SERVER, 2, 0, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    int before = atomic_load(&invocations);
    feed(s, BLOCK_CALL(7));
    while (atomic_load(&invocations) == before) /* until the handler runs */
        sleep_ms(1);
    /* The reading thread is free while the handler runs. */
    expect(s, REQ("\"id\":8,\"method\":\"ping\""), OK(8, "{}"));
    expect(s, REQ("\"id\":9,\"method\":\"tools/list\""),
           OK(9, "{\"tools\":[{\"name\":\"echo\"},{\"name\":\"block\"},{\"name\":\"oom\"},"
                 "{\"name\":\"slow\"}]}"));
    /* A string "7" is another id. */
    expect(s, CANCEL("7"), NULL);
    /* Messages are handled in order: once this ping is answered, the string
     * "7" has been seen, and it cancelled nothing (the handler still runs). */
    expect(s, REQ("\"id\":10,\"method\":\"ping\""), OK(10, "{}"));
    ck_assert_uint_eq(cap_count(), 3);
    expect(s, CANCEL(7), NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 3); /* nothing for 7 */
    ck_assert_int_eq(atomic_load(&invocations), 1);
    /* String ids are cancelled too. */
    feed(s, BLOCK_CALL("job-1")); /* queued or running: either way, no answer */
    feed(s, CANCEL("job-1"));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 3);
    test_session_free(s);
}
END_TEST

/* A tool marked inline runs on the thread that read its call, answered
 * before mcp_session_message returns; unmarked, on a worker. Only tools the
 * server has, and that never run as tasks, can be marked. */
/* Call echo as request `id` (the answers so far: `answered`): whether it ran
 * on this thread (then it was answered before mcp_session_message returned). */
static bool echo_ran_here(mcp_session *s, int id, size_t answered)
{
    char req[128];
    snprintf(req, sizeof req, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"), id);
    feed(s, req);
    size_t at_return = cap_count();
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), answered + 1);
    ck_assert_ptr_nonnull(strstr(cap_line(answered), "echo args=0"));
    bool here = pthread_equal(invoked_on, pthread_self());
    if (here)
        ck_assert_uint_eq(at_return, answered + 1);
    return here;
}

START_TEST(inline_tool_runs_here)
{
    mcp_session *s = open_with(&SERVER, 2, 0, 0);
    initialize(s, INIT_2025_11);
    mcp_runtime *rt = test_runtime_of(s);
    ck_assert(mcp_runtime_tool_inline(rt, "echo", true));
    ck_assert(!mcp_runtime_tool_inline(rt, "nope", true));
    cap_reset();
    ck_assert(echo_ran_here(s, 1, 0));
    ck_assert(mcp_runtime_tool_inline(rt, "echo", false));
    ck_assert(!echo_ran_here(s, 2, 1));
    test_session_free(s);

    /* Marked in the table (IDL `inline: true`): inline from the start, unless
     * unmarked; a task tool's mark is not taken. */
    static mcp_tool marked[2] = {STUB_TOOL("echo"), STUB_TOOL("block")};
    marked[0].run_inline = true;
    marked[1].run_inline = true;
    marked[1].task = MCP_TASK_OPTIONAL;
    mcp_server srv = SERVER;
    srv.tools = marked;
    srv.ntools = 2;
    s = open_with(&srv, 2, 0, 0);
    initialize(s, INIT_2025_11);
    rt = test_runtime_of(s);
    cap_reset();
    ck_assert(echo_ran_here(s, 1, 0));
    ck_assert(!mcp_runtime_tool_inline(rt, "block", true));
    ck_assert(mcp_runtime_tool_inline(rt, "echo", false));
    ck_assert(!echo_ran_here(s, 2, 1));
    test_session_free(s);
}
END_TEST

/* A client that keeps exactly the limit in flight, sending its next request
 * as soon as it reads an answer, is never refused: a request counts against
 * the limit until it is answered, not until its worker is done. */
START_TEST(window_at_the_limit)
{
    mcp_session *s = open_with(&SERVER, 2, 4, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    char line[160];
    int sent = 0;
    for (; sent < 4; sent++) {
        snprintf(line, sizeof line, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"),
                 100 + sent);
        feed(s, line);
    }
    while (sent < 400) {
        while (cap_count() < (size_t)(sent - 3)) /* an answer arrived: one slot is free */
            sleep_ms(0);
        snprintf(line, sizeof line, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"),
                 100 + sent);
        feed(s, line);
        sent++;
    }
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 400);
    for (size_t i = 0; i < 400; i++)
        ck_assert_msg(strstr(cap_line(i), "too many concurrent requests") == NULL, "%s", cap_line(i));
    test_session_free(s);
}
END_TEST

START_TEST(cancel_queued)
{
    /* One worker, busy: the next call waits in the queue, is cancelled
     * there, and its handler never runs. */
    mcp_session *s = open_with(&SERVER, 1, 0, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    feed(s, BLOCK_CALL(1));
    while (atomic_load(&invocations) == 0) /* the worker is in the handler */
        sleep_ms(1);
    feed(s, REQ("\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"));
    feed(s, CANCEL(2));
    feed(s, CANCEL(1));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 0);
    ck_assert_int_eq(atomic_load(&invocations), 1);
    /* A late cancellation (the answer already sent) changes nothing. */
    feed(s, REQ("\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"));
    mcp_session_drain(s);
    feed(s, CANCEL(3));
    ck_assert_uint_eq(cap_count(), 1);
    test_session_free(s);
}
END_TEST

/* Cancellations racing completions: every id gets at most one answer, and
 * every id not cancelled exactly one. */
START_TEST(cancel_race)
{
    mcp_session *s = open_with(&SERVER, 4, 64, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    enum { N = 2000 };
    static unsigned char cancelled[N];
    memset(cancelled, 0, sizeof cancelled);
    unsigned seed = 12345;
    size_t fed = 0;
    for (int i = 0; i < N; i++) {
        char line[160];
        snprintf(line, sizeof line, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}"), i);
        size_t before = cap_count();
        feed(s, line);
        /* A refusal (too many in flight) is an answer too; keep under the limit. */
        (void)before;
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 2 == 0) {
            int victim = i - (int)((seed >> 20) % 4);
            if (victim >= 0) {
                snprintf(line, sizeof line, CANCEL(% d), victim);
                feed(s, line);
                cancelled[victim] = 1;
            }
        }
        if (++fed % 32 == 0)
            mcp_session_drain(s);
    }
    mcp_session_drain(s);
    /* Count answers per id. */
    static int answers[N];
    memset(answers, 0, sizeof answers);
    for (size_t k = 0; k < cap_count(); k++) {
        const char *l = cap_line(k);
        int id = -1;
        ck_assert_int_eq(sscanf(l, "{\"jsonrpc\":\"2.0\",\"id\":%d,", &id), 1);
        ck_assert(id >= 0 && id < N);
        ck_assert_msg(strstr(l, "\"result\"") != NULL, "not a result: %s", l);
        answers[id]++;
    }
    int dropped = 0;
    for (int i = 0; i < N; i++) {
        ck_assert_int_le(answers[i], 1);
        if (!cancelled[i])
            ck_assert_int_eq(answers[i], 1);
        dropped += answers[i] == 0;
    }
    (void)dropped;
    test_session_free(s);
}
END_TEST

static mcp_session *open_queue(int workers, int max_concurrent, int max_queued, size_t max_queued_bytes)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = workers;
    set.max_concurrent = max_concurrent;
    set.max_queued = max_queued;
    if (max_queued_bytes)
        set.max_queued_bytes = max_queued_bytes;
    mcp_session *s = test_session_new(&SERVER, &set, cap_sink, &cap);
    ck_assert_ptr_nonnull(s);
    return s;
}

#define ECHO_CALL(id) REQ("\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}")

/* Whether the queue has no room for another call (parsed as the transport would). */
static bool queue_full(mcp_session *s, char *why, size_t cap)
{
    mcp_arena a;
    mcp_arena_init(&a);
    const char *line = ECHO_CALL(99);
    const mcp_json *m = mcp_json_parse(&a, line, strlen(line), NULL, NULL, NULL);
    bool full = mcp_session_queue_full(s, m, why, cap);
    mcp_arena_free(&a);
    return full;
}

/* Past --max-concurrent, requests wait for a turn instead of being refused;
 * ping and cancellation are answered meanwhile; a cancelled request that
 * waits never runs. */
START_TEST(queue_instead_of_refusing)
{
    mcp_session *s = open_queue(1, 2, 8, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    feed(s, BLOCK_CALL(1));
    feed(s, BLOCK_CALL(2));
    feed(s, BLOCK_CALL(3)); /* waits: the limit of 2 runs */
    feed(s, ECHO_CALL(4));
    ck_assert_uint_eq(cap_count(), 0);
    expect(s, REQ("\"id\":5,\"method\":\"ping\""), OK(5, "{}"));
    expect(s, CANCEL(3), NULL); /* leaves the queue at once */
    ck_assert(!queue_full(s, NULL, 0));
    atomic_store(&release_blocked, true);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 4); /* the pong, 1, 2 and 4; nothing for 3 */
    ck_assert_int_eq(cap_find(OK(4, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=0 meta=no\"}],"
                                    "\"isError\":false}")),
                     1);
    for (size_t i = 0; i < cap_count(); i++) {
        ck_assert_msg(strstr(cap_line(i), "\"id\":3,") == NULL, "an answer for the cancelled request: %s", cap_line(i));
        ck_assert_msg(strstr(cap_line(i), "error") == NULL, "%s", cap_line(i));
    }
    /* block 1, block 2, echo 4: the cancelled block 3 never ran. */
    ck_assert_int_eq(atomic_load(&invocations), 3);
    test_session_free(s);
}
END_TEST

/* A session told to refuse (HTTP): past the queue's bound in requests, the
 * next request gets -32000 at once, and mcp_session_queue_full said so
 * before; requests answered on the reading thread are not affected. */
START_TEST(queue_refuses_past_its_bound)
{
    mcp_session *s = open_queue(1, 1, 2, 0);
    mcp_session_refuse_when_full(s);
    initialize(s, INIT_2025_11);
    cap_reset();
    feed(s, BLOCK_CALL(1));
    feed(s, ECHO_CALL(2));
    ck_assert(!queue_full(s, NULL, 0));
    feed(s, ECHO_CALL(3));
    char why[128] = "";
    ck_assert(queue_full(s, why, sizeof why));
    ck_assert_str_eq(why, "Service Unavailable: too many requests queued (limit 2)");
    expect(s, ECHO_CALL(4), ERR(ID(4), -32000, "Service Unavailable: too many requests queued (limit 2)"));
    expect(s, REQ("\"id\":5,\"method\":\"ping\""), OK(5, "{}"));
    atomic_store(&release_blocked, true);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 5); /* the refusal, the pong, 1, 2, 3 */
    ck_assert(!queue_full(s, NULL, 0));
    feed(s, ECHO_CALL(6)); /* after the load: served */
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 6);
    ck_assert_ptr_nonnull(strstr(cap_line(5), "\"id\":6,\"result\""));
    test_session_free(s);
}
END_TEST

/* The bound in bytes: a request whose message does not fit beside those
 * waiting is refused with the byte limit. */
START_TEST(queue_bytes_bound)
{
    mcp_session *s = open_queue(1, 1, 64, 6000);
    mcp_session_refuse_when_full(s);
    initialize(s, INIT_2025_11);
    cap_reset();
    feed(s, BLOCK_CALL(1));
    feed(s, ECHO_CALL(2)); /* a small message: a slot and about a kilobyte of tree */
    char big[8192];
    snprintf(big, sizeof big,
             REQ("\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"s\":\"%0*d\"}}"),
             6000, 0);
    expect(s, big, ERR(ID(3), -32000, "Service Unavailable: too many request bytes queued (limit 6000 bytes)"));
    atomic_store(&release_blocked, true);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 3);
    feed(s, big); /* nothing waits now: it runs */
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 4);
    ck_assert_ptr_nonnull(strstr(cap_line(3), "\"id\":3,\"result\""));
    test_session_free(s);
}
END_TEST

/* The default (stdio): past the queue's bound, the reading thread waits
 * for room instead of answering with errors; every request is answered. */
typedef struct queue_feed {
    mcp_session *s;
    int n;
    atomic_bool done;
} queue_feed;

static void *feed_call_stream(void *arg)
{
    queue_feed *f = arg;
    feed(f->s, BLOCK_CALL(1));
    for (int i = 0; i < f->n; i++) {
        char line[160];
        snprintf(line, sizeof line, ECHO_CALL(% d), 100 + i);
        feed(f->s, line);
    }
    atomic_store(&f->done, true);
    return NULL;
}

START_TEST(queue_backpressure)
{
    mcp_session *s = open_queue(1, 1, 4, 0);
    initialize(s, INIT_2025_11);
    cap_reset();
    queue_feed f = {.s = s, .n = 50};
    atomic_init(&f.done, false);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, feed_call_stream, &f), 0);
    /* The handler of 1 blocks, four calls wait, the fifth waits for room:
     * the reading thread is held there, and nothing is answered. */
    while (mcp_session_room_waits(s) == 0)
        sleep_ms(1);
    ck_assert(!atomic_load(&f.done));
    ck_assert_uint_eq(cap_count(), 0);
    atomic_store(&release_blocked, true);
    pthread_join(t, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_count(), 51);
    for (size_t i = 0; i < cap_count(); i++)
        ck_assert_msg(strstr(cap_line(i), "\"result\"") != NULL, "%s", cap_line(i));
    ck_assert_int_eq(atomic_load(&invocations), 51);
    test_session_free(s);
}
END_TEST

/* The peer goes away: requests in flight are cancelled, nothing more is sent. */
START_TEST(broken_sink)
{
    mcp_session *s = open_with(&SERVER, 2, 0, 0);
    initialize(s, INIT_2025_11);
    feed(s, BLOCK_CALL(1));
    pthread_mutex_lock(&cap.mu);
    cap.fail = true;
    pthread_mutex_unlock(&cap.mu);
    size_t before = cap_count();
    feed(s, REQ("\"id\":2,\"method\":\"ping\""));
    ck_assert(mcp_session_broken(s));
    mcp_session_drain(s); /* the blocked handler sees its request cancelled */
    ck_assert_uint_eq(cap_count(), before + 1);
    feed(s, REQ("\"id\":3,\"method\":\"ping\""));
    ck_assert_uint_eq(cap_count(), before + 1);
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- the pool */

/* A task that records its number when it runs; `gate` tasks wait first. */
typedef struct test_task {
    mcp_task task; /* first */
    int n;
    mcp_pool *pool; /* block: the pool to block on */
    bool block;
} test_task;

static atomic_int pool_sum;
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;
static int order[64];
static int norder;
static atomic_bool gate;
static atomic_int gate_entered;
static atomic_int block_result; /* 0: not yet; 1: block_begin said yes; 2: no */

static void add_task(mcp_task *t) { atomic_fetch_add(&pool_sum, ((test_task *)t)->n); }

static void record_task(mcp_task *t)
{
    pthread_mutex_lock(&order_mu);
    if (norder < 64)
        order[norder++] = ((test_task *)t)->n;
    pthread_mutex_unlock(&order_mu);
}

static void gate_task(mcp_task *t)
{
    test_task *tt = (test_task *)t;
    bool blocked = false;
    if (tt->block) {
        blocked = mcp_pool_block_begin(tt->pool);
        atomic_store(&block_result, blocked ? 1 : 2);
    }
    atomic_fetch_add(&gate_entered, 1);
    while (!atomic_load(&gate))
        sleep_ms(1);
    if (blocked)
        mcp_pool_block_end(tt->pool);
}

START_TEST(pool_runs_everything)
{
    atomic_store(&pool_sum, 0);
    mcp_pool *p = mcp_pool_new(3, 4);
    ck_assert_ptr_nonnull(p);
    enum { NQ = 4, NT = 1000 };
    mcp_pool_queue *q[NQ];
    for (int i = 0; i < NQ; i++)
        ck_assert_ptr_nonnull(q[i] = mcp_pool_queue_new(p));
    static test_task tasks[NT];
    int expected = 0;
    for (int i = 0; i < NT; i++) {
        tasks[i] = (test_task){.task.run = add_task, .n = i + 1};
        ck_assert(mcp_pool_submit(q[i % NQ], &tasks[i].task)); /* never full */
        expected += i + 1;
    }
    mcp_pool_shutdown(p); /* runs what is queued */
    ck_assert_int_eq(atomic_load(&pool_sum), expected);
    for (int i = 0; i < NQ; i++)
        mcp_pool_queue_free(q[i]);
    ck_assert_ptr_null(mcp_pool_new(0, 4));
    ck_assert_ptr_null(mcp_pool_new(1, -1));
    mcp_pool_shutdown(NULL);
    mcp_pool_queue_free(NULL);
}
END_TEST

/* Queues take turns: with one worker, a queue holding five jobs does not
 * make another queue's job wait behind all five. */
START_TEST(pool_round_robin)
{
    atomic_store(&gate, false);
    atomic_store(&gate_entered, 0);
    norder = 0;
    mcp_pool *p = mcp_pool_new(1, 0);
    mcp_pool_queue *a = mcp_pool_queue_new(p), *b = mcp_pool_queue_new(p);
    test_task g = {.task.run = gate_task};
    ck_assert(mcp_pool_submit(a, &g.task));
    while (atomic_load(&gate_entered) == 0) /* until the worker holds it */
        sleep_ms(1);
    test_task t[6];
    for (int i = 0; i < 5; i++) {
        t[i] = (test_task){.task.run = record_task, .n = 1 + i};
        ck_assert(mcp_pool_submit(a, &t[i].task));
    }
    t[5] = (test_task){.task.run = record_task, .n = 100};
    ck_assert(mcp_pool_submit(b, &t[5].task));
    atomic_store(&gate, true);
    mcp_pool_shutdown(p);
    static const int want[] = {1, 100, 2, 3, 4, 5};
    ck_assert_int_eq(norder, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(order[i], want[i]);
    mcp_pool_queue_free(a);
    mcp_pool_queue_free(b);
}
END_TEST

/* A job waiting outside the pool does not hold the only worker: another
 * thread stands in for it; beyond max_blocked, block_begin says no. */
START_TEST(pool_block_stands_in)
{
    atomic_store(&gate, false);
    atomic_store(&gate_entered, 0);
    atomic_store(&block_result, 0);
    atomic_store(&pool_sum, 0);
    mcp_pool *p = mcp_pool_new(1, 1);
    mcp_pool_queue *a = mcp_pool_queue_new(p), *b = mcp_pool_queue_new(p);
    test_task g = {.task.run = gate_task, .pool = p, .block = true};
    ck_assert(mcp_pool_submit(a, &g.task));
    while (atomic_load(&gate_entered) == 0)
        sleep_ms(1);
    ck_assert_int_eq(atomic_load(&block_result), 1);
    /* The worker waits at the gate: this job runs on the stand-in. */
    test_task y = {.task.run = add_task, .n = 7};
    ck_assert(mcp_pool_submit(b, &y.task));
    while (atomic_load(&pool_sum) != 7)
        sleep_ms(1);
    /* A second wait is beyond max_blocked (1): refused, and it does not wait
     * on a stand-in either (it runs at the gate on the only free thread). */
    test_task g2 = {.task.run = gate_task, .pool = p, .block = true};
    atomic_store(&block_result, 0);
    ck_assert(mcp_pool_submit(b, &g2.task));
    while (atomic_load(&block_result) == 0)
        sleep_ms(1);
    ck_assert_int_eq(atomic_load(&block_result), 2);
    atomic_store(&gate, true);
    mcp_pool_shutdown(p); /* joins the stand-in too (ASan/valgrind: no leak) */
    mcp_pool_queue_free(a);
    mcp_pool_queue_free(b);
}
END_TEST

/* Workers are started as jobs need them: one with the pool, another for each
 * job no idle worker takes, never more than asked for. */
START_TEST(pool_grows_on_demand)
{
    atomic_store(&gate, false);
    atomic_store(&gate_entered, 0);
    mcp_pool *p = mcp_pool_new(3, 0);
    ck_assert_int_eq(mcp_pool_threads(p), 1);
    mcp_pool_queue *a = mcp_pool_queue_new(p);
    test_task g[5];
    for (int i = 0; i < 3; i++) {
        g[i] = (test_task){.task.run = gate_task};
        ck_assert(mcp_pool_submit(a, &g[i].task));
    }
    while (atomic_load(&gate_entered) < 3) /* three at the gate at once: three threads */
        sleep_ms(1);
    ck_assert_int_eq(mcp_pool_threads(p), 3);
    for (int i = 3; i < 5; i++) { /* these wait for a worker: no fourth thread */
        g[i] = (test_task){.task.run = gate_task};
        ck_assert(mcp_pool_submit(a, &g[i].task));
    }
    ck_assert_int_eq(mcp_pool_threads(p), 3);
    atomic_store(&gate, true);
    mcp_pool_shutdown(p);
    ck_assert_int_eq(atomic_load(&gate_entered), 5);
    mcp_pool_queue_free(a);
}
END_TEST

/* ---------------------------------------------------------------- stdio */

static char *tmp_with(const char *content, size_t len)
{
    char *path = strdup("/tmp/mcpidl-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t at = 0;
    while (at < len) {
        ssize_t w = write(fd, content + at, len - at);
        ck_assert_int_gt(w, 0);
        at += (size_t)w;
    }
    close(fd);
    return path;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    data[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return data;
}

/* Serve `input` (a file) to an output file; returns the output. */
static char *serve_text(const mcp_server *srv, const char *input, size_t len, int workers, size_t max_message, int *rc)
{
    char *in_path = tmp_with(input, len);
    char *out_path = tmp_with("", 0);
    int in = open(in_path, O_RDONLY);
    int out = open(out_path, O_WRONLY | O_TRUNC);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = workers;
    if (max_message)
        set.max_message = max_message;
    *rc = test_stdio_serve(srv, &set, in, out);
    close(in);
    close(out);
    char *text = slurp(out_path, NULL);
    unlink(in_path);
    unlink(out_path);
    free(in_path);
    free(out_path);
    return text;
}

#define NL "\n"

START_TEST(stdio_framing)
{
    const char *in = INIT_2025_11
        "\r\n"
        "\n"
        "   \r\n" REQ("\"method\":\"notifications/initialized\"") NL REQ(
            "\"id\":1,\"method\":\"ping\"") "\r\n"
                                            "nonsense" NL REQ("\"id\":2,\"method\":\"ping\""); /* no final newline */
    int rc = -1;
    char *out = serve_text(&SERVER, in, strlen(in), 0, 0, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(out, RESULT_INIT("2025-11-25") NL OK(1, "{}")
                              NL ERR(NOID, -32700, "Parse error: invalid literal at byte 0") NL OK(2, "{}") NL);
    free(out);
}
END_TEST

START_TEST(stdio_too_large)
{
    /* Lines beyond the limit are answered and skipped without being kept,
     * however they are cut into reads: one of 100 KB and one of 1 MB. */
    size_t limit = 1000;
    size_t big1 = 100000, big2 = 1 << 20;
    size_t cap_in = big1 + big2 + 4096;
    char *in = malloc(cap_in);
    size_t n = 0;
    n += (size_t)sprintf(in + n, "%s\n", REQ("\"id\":0,\"method\":\"initialize\""));
    memset(in + n, 'x', big1);
    n += big1;
    in[n++] = '\n';
    n += (size_t)sprintf(in + n, "%s\n", REQ("\"id\":1,\"method\":\"ping\""));
    n += (size_t)sprintf(in + n, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"p\":\"");
    memset(in + n, 'y', big2);
    n += big2;
    n += (size_t)sprintf(in + n, "\"}}\n");
    n += (size_t)sprintf(in + n, "%s\n", REQ("\"id\":3,\"method\":\"ping\""));
    /* A line of exactly the limit is served. */
    size_t pad = limit - strlen(REQ("\"id\":4,\"method\":\"ping\",\"params\":{\"p\":\"\"}"));
    n += (size_t)sprintf(in + n, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"p\":\"");
    memset(in + n, 'z', pad);
    n += pad;
    n += (size_t)sprintf(in + n, "\"}}\r\n");
    int rc = -1;
    char *out = serve_text(&SERVER, in, n, 2, limit, &rc);
    ck_assert_int_eq(rc, 0);
    const char *too = ERR(NOID, -32600, "Invalid Request: message too large (limit 1000 bytes)");
    char want[2048];
    snprintf(want, sizeof want, "%s\n%s\n%s\n%s\n%s\n%s\n",
             OK(0, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"logging\":{},\"tools\":"
                   "{\"listChanged\":false}},\"serverInfo\":{\"name\":\"testsrv\",\"title\":\"Test Server\","
                   "\"version\":\"1.2.3\"},\"instructions\":\"Use \\\"echo\\\".\"}"),
             too, OK(1, "{}"), too, OK(3, "{}"), OK(4, "{}"));
    ck_assert_str_eq(out, want);
    free(out);
    free(in);
}
END_TEST

/* End of input: the server stops reading, answers every call in flight,
 * and returns 0. */
START_TEST(stdio_eof_drains)
{
    char in[8192];
    size_t n = (size_t)sprintf(in, "%s\n", INIT_2025_11);
    for (int i = 1; i <= 20; i++)
        n += (size_t)sprintf(in + n, REQ("\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}") "\n", i);
    int rc = -1;
    char *out = serve_text(&SERVER, in, n, 4, 0, &rc);
    ck_assert_int_eq(rc, 0);
    for (int i = 1; i <= 20; i++) {
        char want[300];
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"slow args=0 meta=no\"}],\"isError\":false}}\n",
                 i);
        ck_assert_msg(strstr(out, want) != NULL, "no answer for %d", i);
    }
    size_t lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, 21);
    free(out);
}
END_TEST

/* Through a pipe, with a writer that closes its end while calls run. */
typedef struct pipe_feed {
    int fd;
    const char *text;
} pipe_feed;

static void *feeder(void *arg)
{
    pipe_feed *f = arg;
    size_t len = strlen(f->text);
    for (size_t at = 0; at < len;) {
        /* Dribble a few bytes at a time: partial lines. */
        size_t k = len - at < 7 ? len - at : 7;
        ssize_t w = write(f->fd, f->text + at, k);
        if (w <= 0)
            break;
        at += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

START_TEST(stdio_pipe_partial_lines)
{
    int inp[2], outp[2];
    ck_assert_int_eq(pipe(inp), 0);
    ck_assert_int_eq(pipe(outp), 0);
    pipe_feed f = {inp[1],
                   INIT_2025_11 "\n" REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}") "\n" REQ(
                       "\"id\":2,\"method\":\"ping\"") "\n"};
    pthread_t t;
    pthread_create(&t, NULL, feeder, &f);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 2;
    ck_assert_int_eq(test_stdio_serve(&SERVER, &set, inp[0], outp[1]), 0);
    pthread_join(t, NULL);
    close(inp[0]);
    close(outp[1]);
    char got[4096];
    size_t n = 0;
    ssize_t r;
    while ((r = read(outp[0], got + n, sizeof got - 1 - n)) > 0)
        n += (size_t)r;
    got[n] = 0;
    close(outp[0]);
    /* The slow call may finish before or after the ping. */
    const char *init = RESULT_INIT("2025-11-25") NL;
    const char *ping = OK(2, "{}") NL;
    const char *call = OK(1, "{\"content\":[{\"type\":\"text\",\"text\":\"slow args=0 "
                             "meta=no\"}],\"isError\":false}") NL;
    ck_assert_uint_eq(n, strlen(init) + strlen(ping) + strlen(call));
    ck_assert(strncmp(got, init, strlen(init)) == 0);
    ck_assert_ptr_nonnull(strstr(got, ping));
    ck_assert_ptr_nonnull(strstr(got, call));
}
END_TEST

/* The answers the reading thread writes for the lines of one read go out in
 * one write: the output is a SEQPACKET socket, where each write is a packet
 * of its own. 40 pings and the initialize written at once (under PIPE_BUF,
 * so one read takes them all) come back as one packet, byte for byte. */
START_TEST(stdio_one_write_per_read)
{
    int inp[2], outp[2];
    ck_assert_int_eq(pipe(inp), 0);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, outp), 0);
    char text[4096], want[4096];
    size_t tn = (size_t)snprintf(text, sizeof text, "%s\n", INIT_2025_11);
    size_t wn = (size_t)snprintf(want, sizeof want, "%s", RESULT_INIT("2025-11-25") NL);
    for (int i = 1; i <= 40; i++) {
        tn += (size_t)snprintf(text + tn, sizeof text - tn, REQ("\"id\":%d,\"method\":\"ping\"") "\n", i);
        wn += (size_t)snprintf(want + wn, sizeof want - wn, "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n", i);
    }
    ck_assert_uint_lt(tn, PIPE_BUF);
    ck_assert_int_eq(write(inp[1], text, tn), (ssize_t)tn);
    close(inp[1]);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    ck_assert_int_eq(test_stdio_serve(&SERVER, &set, inp[0], outp[1]), 0);
    close(inp[0]);
    close(outp[1]);
    char got[8192];
    ssize_t r = recv(outp[0], got, sizeof got, 0);
    ck_assert_int_eq(r, (ssize_t)wn);
    ck_assert(memcmp(got, want, wn) == 0);
    ck_assert_int_eq(recv(outp[0], got, sizeof got, 0), 0); /* nothing else: the end */
    close(outp[0]);
}
END_TEST

/* The output closed by the client: the server stops, without SIGPIPE. */
START_TEST(stdio_output_closed)
{
    int inp[2], outp[2];
    ck_assert_int_eq(pipe(inp), 0);
    ck_assert_int_eq(pipe(outp), 0);
    close(outp[0]);
    const char *text = INIT_2025_11 "\n";
    ck_assert_int_eq(write(inp[1], text, strlen(text)), (ssize_t)strlen(text));
    /* Input stays open: the server must notice the broken output itself. */
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 1;
    ck_assert_int_eq(test_stdio_serve(&SERVER, &set, inp[0], outp[1]), 0);
    close(inp[0]);
    close(inp[1]);
    close(outp[1]);
}
END_TEST

/* mcp_runtime_stop from another thread ends mcp_runtime_serve_stdio, whose
 * input stays open and silent: the serving thread is blocked in read(2), with
 * no poll to see the stop, and the runtime must wake it. */
typedef struct served {
    mcp_runtime *rt;
    int in, out, rc;
} served;

static void *serve_thread(void *arg)
{
    served *sv = arg;
    sv->rc = mcp_runtime_serve_stdio(sv->rt, sv->in, sv->out);
    return NULL;
}

/* How many threads of this process are blocked in the system call `nr`
 * (the kernel says so in /proc/self/task/TID/syscall); -1 when it cannot
 * tell. */
static int threads_in(long nr)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int found = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[300], line[128];
        snprintf(path, sizeof path, "/proc/self/task/%s/syscall", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(line, sizeof line, f)) {
            char *end;
            long at = strtol(line, &end, 10);
            found = (found < 0 ? 0 : found) + (end != line && at == nr);
        }
        fclose(f);
    }
    closedir(d);
    return found;
}

/* The system call poll(2) makes (glibc makes ppoll where there is no poll). */
#ifdef SYS_poll
#define POLL_CALL SYS_poll
#else
#define POLL_CALL SYS_ppoll
#endif

/* Serve on a thread, one ping answered, stop once `count` threads are
 * blocked in the system call `wait_in` (when the kernel can tell; count 0:
 * at once), and return what serving returned. The input is non-blocking
 * when `nonblocking`. */
static int stop_while_waiting(long wait_in, int count, bool nonblocking)
{
    int inp[2], outp[2];
    ck_assert_int_eq(pipe(inp), 0);
    ck_assert_int_eq(pipe(outp), 0);
    if (nonblocking)
        ck_assert_int_eq(fcntl(inp[0], F_SETFL, fcntl(inp[0], F_GETFL) | O_NONBLOCK), 0);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    served sv = {test_runtime_new(&SERVER, &set), inp[0], outp[1], -1};
    ck_assert_ptr_nonnull(sv.rt);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, serve_thread, &sv), 0);
    const char *text = INIT_2025_11 NL REQ("\"id\":1,\"method\":\"ping\"") NL;
    ck_assert_int_eq(write(inp[1], text, strlen(text)), (ssize_t)strlen(text));
    char got[4096] = "";
    size_t n = 0;
    ssize_t r;
    while (!strstr(got, OK(1, "{}")) && (r = read(outp[0], got + n, sizeof got - 1 - n)) > 0) {
        n += (size_t)r;
        got[n] = 0;
    }
    ck_assert_ptr_nonnull(strstr(got, OK(1, "{}")));
    /* The answer is written before the next read (or poll): wait for it. */
    int in;
    while ((in = threads_in(wait_in)) >= 0 && in < count)
        sched_yield();
    mcp_runtime_stop(sv.rt);
    ck_assert_int_eq(pthread_join(t, NULL), 0); /* hangs (the test times out) without the wake-up */
    mcp_runtime_free(sv.rt);
    for (int i = 0; i < 2; i++)
        close(inp[i]), close(outp[i]);
    return sv.rc;
}

START_TEST(stdio_stop_wakes_read)
{
    ck_assert_int_eq(stop_while_waiting(SYS_read, 1, false), 0);
    /* Serving took SIGURG for its wake-up: an empty handler, without
     * SA_RESTART so that it ends a blocked read. */
    struct sigaction sa;
    ck_assert_int_eq(sigaction(SIGURG, NULL, &sa), 0);
    ck_assert(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
    ck_assert(!(sa.sa_flags & SA_RESTART));
}
END_TEST

/* A stop at any moment of the serving loop is seen, also one that comes
 * between the loop's test and its read: many rounds, stopping as soon as
 * the answer is in. */
START_TEST(stdio_stop_any_moment)
{
    for (int i = 0; i < 200; i++)
        ck_assert_int_eq(stop_while_waiting(SYS_read, 0, false), 0);
}
END_TEST

/* An input its parent made non-blocking (the flag belongs to the open file,
 * which the parent shares) is waited for in poll(2) when a read finds
 * nothing, not read again and again: the serving thread blocks in poll, as
 * the waker does. */
START_TEST(stdio_nonblocking_input_waits) { ck_assert_int_eq(stop_while_waiting(POLL_CALL, 2, true), 0); }
END_TEST

/* A program that handles SIGURG itself keeps its handler, and serving
 * waits with poll(2) instead: the stop still ends it. */
static atomic_int program_urgs;
static void program_on_urg(int sig)
{
    (void)sig;
    atomic_fetch_add(&program_urgs, 1);
}

START_TEST(stdio_stop_program_owns_sigurg)
{
    struct sigaction mine, before, after;
    memset(&mine, 0, sizeof mine);
    mine.sa_handler = program_on_urg;
    mine.sa_flags = SA_RESTART; /* would make a blocked read go on after the signal */
    sigemptyset(&mine.sa_mask);
    ck_assert_int_eq(sigaction(SIGURG, &mine, &before), 0);
    ck_assert_int_eq(stop_while_waiting(POLL_CALL, 1, false), 0);
    ck_assert_int_eq(sigaction(SIGURG, &before, &after), 0);
    ck_assert(after.sa_handler == program_on_urg);
    ck_assert_int_eq(atomic_load(&program_urgs), 0);
}
END_TEST

/* ---------------------------------------------------------------- garbage */

static uint64_t rng_state;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

START_TEST(garbage_stream)
{
    static const char *const seeds[] = {
        INIT_2025_11,
        REQ("\"id\":1,\"method\":\"tools/"
            "call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":[1,2,{\"b\":null}]}}"),
        REQ("\"id\":\"s\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"100\"}"),
        "[" REQ("\"id\":1,\"method\":\"ping\"") "," REQ("\"method\":\"x\"") "]",
        REQ("\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}"),
        REQ("\"id\":1,\"result\":{}"),
    };
    const size_t nseeds = sizeof seeds / sizeof *seeds;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        rng_state = 0x9e3779b97f4a7c15ull * seed;
        size_t cap_in = 256 << 10, n = 0;
        char *in = malloc(cap_in);
        n += (size_t)sprintf(in, "%s\n", INIT_2025_03);
        int pings = 0;
        while (n < cap_in - 4096) {
            uint64_t r = rng() % 10;
            if (r < 3) {
                /* Random bytes, newlines included. */
                size_t len = rng() % 200;
                for (size_t i = 0; i < len; i++)
                    in[n++] = (char)(rng() % 8 == 0 ? '\n' : rng() & 0xff);
                in[n++] = '\n';
            } else if (r < 7) {
                /* A valid message, a few bytes mutated. */
                const char *m = seeds[rng() % nseeds];
                size_t len = strlen(m);
                memcpy(in + n, m, len);
                for (uint64_t k = rng() % 4; k > 0; k--)
                    in[n + rng() % len] = (char)(rng() & 0xff);
                for (size_t i = 0; i < len; i++)
                    if (in[n + i] == '\n')
                        in[n + i] = ' ';
                n += len;
                in[n++] = '\n';
            } else {
                /* An intact request that must get exactly one answer. */
                n += (size_t)sprintf(in + n, REQ("\"id\":\"g%d\",\"method\":\"%s\"") "\n", pings,
                                     pings % 2 ? "ping" : "tools/list");
                pings++;
            }
        }
        int rc = -1;
        char *out = serve_text(&many_server, in, n, 3, 4096, &rc);
        ck_assert_int_eq(rc, 0);
        /* Every answer is one line of valid JSON: an object with jsonrpc 2.0,
         * or a batch's array. */
        int *hits = calloc((size_t)pings, sizeof *hits);
        mcp_arena a;
        mcp_arena_init(&a);
        /* (Plain checks in the loop: each ck_assert costs a write.) */
        for (char *line = out, *nl; *line; line = nl + 1) {
            nl = strchr(line, '\n');
            if (!nl)
                ck_abort_msg("an answer without its newline");
            mcp_json_err err;
            mcp_json *v = mcp_json_parse(&a, line, (size_t)(nl - line), NULL, &err, NULL);
            if (!v || (v->kind != MCP_JOBJECT && v->kind != MCP_JARRAY))
                ck_abort_msg("invalid output line: %.*s", (int)(nl - line), line);
            if (v->kind == MCP_JOBJECT) {
                const mcp_json *j = mcp_json_get(v, "jsonrpc");
                if (!j || j->kind != MCP_JSTRING || strcmp(j->s, "2.0") != 0 ||
                    (mcp_json_get(v, "result") != NULL) == (mcp_json_get(v, "error") != NULL))
                    ck_abort_msg("not a response: %.*s", (int)(nl - line), line);
                const mcp_json *id = mcp_json_get(v, "id");
                int g;
                char tail;
                if (id && id->kind == MCP_JSTRING && sscanf(id->s, "g%d%c", &g, &tail) == 1 && g >= 0 && g < pings &&
                    mcp_json_get(v, "result"))
                    hits[g]++;
            }
            mcp_arena_reset(&a);
        }
        mcp_arena_free(&a);
        for (int g = 0; g < pings; g++)
            if (hits[g] != 1)
                ck_abort_msg("seed %d: request g%d answered %d times", (int)seed, g, hits[g]);
        free(hits);
        free(out);
        free(in);
    }
}
END_TEST

/* ---------------------------------------------------------------- mcp_main */

/* Run mcp_main in a child with stdin from a file; stdout and stderr captured. */
static int run_main(const mcp_server *srv, const char *const *args, const char *input, char **out, char **err)
{
    char *in_path = tmp_with(input ? input : "", input ? strlen(input) : 0);
    char *out_path = tmp_with("", 0), *err_path = tmp_with("", 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int i = open(in_path, O_RDONLY), o = open(out_path, O_WRONLY | O_TRUNC), e = open(err_path, O_WRONLY | O_TRUNC);
        dup2(i, 0);
        dup2(o, 1);
        dup2(e, 2);
        char *argv[16];
        int argc = 0;
        argv[argc++] = "srv";
        for (; args && args[argc - 1]; argc++)
            argv[argc] = (char *)args[argc - 1];
        argv[argc] = NULL;
        int rc = mcp_main(srv, argc, argv);
        fflush(stdout);
        _exit(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    *out = slurp(out_path, NULL);
    *err = slurp(err_path, NULL);
    unlink(in_path);
    unlink(out_path);
    unlink(err_path);
    free(in_path);
    free(out_path);
    free(err_path);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(main_options)
{
    char *out, *err;
    const char *version[] = {"--version", NULL};
    ck_assert_int_eq(run_main(&SERVER, version, NULL, &out, &err), 0);
    ck_assert_str_eq(out, "testsrv 1.2.3 (mcpidl " MCPIDL_VERSION ")\n");
    ck_assert_str_eq(err, "");
    free(out), free(err);

    const char *help[] = {"--help", NULL};
    ck_assert_int_eq(run_main(&SERVER, help, NULL, &out, &err), 0);
    ck_assert(strncmp(out, "usage: srv [options]\n", 21) == 0);
    ck_assert_ptr_nonnull(strstr(out, "--workers N"));
    ck_assert_str_eq(err, "");
    free(out), free(err);

    const char *bogus[] = {"--bogus", NULL};
    ck_assert_int_eq(run_main(&SERVER, bogus, NULL, &out, &err), 2);
    ck_assert_str_eq(out, "");
    ck_assert(strncmp(err, "mcpidl: unknown option '--bogus'\nusage: srv", 43) == 0);
    free(out), free(err);

    const char *bad_workers[] = {"--workers", "many", NULL};
    ck_assert_int_eq(run_main(&SERVER, bad_workers, NULL, &out, &err), 2);
    ck_assert_str_eq(out, "");
    free(out), free(err);

    const char *no_value[] = {"--workers", NULL};
    ck_assert_int_eq(run_main(&SERVER, no_value, NULL, &out, &err), 2);
    free(out), free(err);

    const char *positional[] = {"file.txt", NULL};
    ck_assert_int_eq(run_main(&SERVER, positional, NULL, &out, &err), 2);
    free(out), free(err);

    const char *bad_inline[] = {"--inline-tool", "nope", NULL};
    ck_assert_int_eq(run_main(&SERVER, bad_inline, NULL, &out, &err), 2);
    ck_assert_str_eq(err, "mcpidl: --inline-tool: 'nope': the server has no tool of that name\n");
    free(out), free(err);
    const char *bad_no_inline[] = {"--no-inline-tool", "nope", NULL};
    ck_assert_int_eq(run_main(&SERVER, bad_no_inline, NULL, &out, &err), 2);
    ck_assert_str_eq(err, "mcpidl: --no-inline-tool: 'nope': the server has no tool of that name\n");
    free(out), free(err);
    const char *both_inline[] = {"--inline-tool", "echo", "--no-inline-tool", "echo", NULL};
    ck_assert_int_eq(run_main(&SERVER, both_inline, NULL, &out, &err), 0);
    free(out), free(err);

    const char *bad_level[] = {"--log-level=loud", NULL};
    ck_assert_int_eq(run_main(&SERVER, bad_level, NULL, &out, &err), 2);
    free(out), free(err);

    mcp_server wrong = SERVER;
    wrong.abi = MCPIDL_ABI + 1;
    ck_assert_int_eq(run_main(&wrong, version, NULL, &out, &err), 1);
    ck_assert_str_eq(out, "");
    ck_assert_ptr_nonnull(strstr(err, "run mcpidlc again"));
    free(out), free(err);
}
END_TEST

START_TEST(main_serves)
{
    char *out, *err;
    const char *opts[] = {"--workers=2", "--max-message-bytes", "100000",      "--page-size=2", "--max-concurrent",
                          "8",           "--max-depth=16",      "--log-level", "quiet",         NULL};
    const char *input = INIT_2025_11 NL REQ("\"id\":1,\"method\":\"tools/list\"")
        NL REQ("\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}") NL;
    ck_assert_int_eq(run_main(&SERVER, opts, input, &out, &err), 0);
    ck_assert_str_eq(out, RESULT_INIT("2025-11-25") NL OK(1, "{\"tools\":[{\"name\":\"echo\"},{\"name\":\"block\"}],"
                                                             "\"nextCursor\":\"2\"}")
                              NL OK(2, "{\"content\":[{\"type\":\"text\",\"text\":\"echo args=0 "
                                       "meta=no\"}],\"isError\":false}") NL);
    ck_assert_str_eq(err, "");
    free(out), free(err);

    const char *zero[] = {"--workers", "0", NULL};
    ck_assert_int_eq(run_main(&SERVER, zero, INIT_2025_11 NL, &out, &err), 0);
    ck_assert_str_eq(out, RESULT_INIT("2025-11-25") NL);
    free(out), free(err);
}
END_TEST

/* A handler that prints to standard output cannot corrupt the protocol. */
static const mcp_tool PRINTER_TOOLS[] = {STUB_TOOL("printer")};

START_TEST(main_stdout_is_private)
{
    /* The stub prints nothing; print from the test itself once mcp_main has
     * taken the output: a tool named printer makes the stub do so. */
    mcp_server srv = SERVER;
    srv.tools = PRINTER_TOOLS;
    srv.ntools = 1;
    char *out, *err;
    const char *opts[] = {"--workers=1", NULL};
    const char *input = INIT_2025_11 NL REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"printer\"}") NL;
    ck_assert_int_eq(run_main(&srv, opts, input, &out, &err), 0);
    ck_assert_ptr_null(strstr(out, "stray"));
    ck_assert_ptr_nonnull(strstr(err, "stray output"));
    free(out), free(err);
}
END_TEST

/* SIGTERM stops reading; calls in flight are still answered; exit 0. */
START_TEST(main_sigterm_drains)
{
    int inp[2], outp[2];
    ck_assert_int_eq(pipe(inp), 0);
    ck_assert_int_eq(pipe(outp), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(inp[0], 0);
        dup2(outp[1], 1);
        close(inp[0]), close(inp[1]), close(outp[0]), close(outp[1]);
        char *argv[] = {"srv", "--workers=2", NULL};
        _exit(mcp_main(&SERVER, 2, argv));
    }
    close(inp[0]);
    close(outp[1]);
    /* Two slow calls, then a ping: once the ping is answered, the calls are
     * in flight (lines are dispatched in order). */
    const char *text = INIT_2025_11 NL REQ("\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}")
        NL REQ("\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}")
            NL REQ("\"id\":3,\"method\":\"ping\"") NL;
    ck_assert_int_eq(write(inp[1], text, strlen(text)), (ssize_t)strlen(text));
    char got[8192] = "";
    size_t n = 0;
    ssize_t r;
    while (!strstr(got, OK(3, "{}")) && (r = read(outp[0], got + n, sizeof got - 1 - n)) > 0) {
        n += (size_t)r;
        got[n] = 0;
    }
    kill(pid, SIGTERM);
    /* The input stays open: the signal alone ends the server. */
    while ((r = read(outp[0], got + n, sizeof got - 1 - n)) > 0)
        n += (size_t)r;
    got[n] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    ck_assert(strncmp(got, RESULT_INIT("2025-11-25") NL, strlen(RESULT_INIT("2025-11-25") NL)) == 0);
    for (int id = 1; id <= 2; id++) {
        char want[300];
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"slow args=0 meta=no\"}],\"isError\":false}}\n",
                 id);
        ck_assert_msg(strstr(got, want) != NULL, "no answer for %d: %s", id, got);
    }
    size_t lines = 0;
    for (const char *p = got; *p; p++)
        lines += *p == '\n';
    ck_assert_uint_eq(lines, 4);
    close(inp[1]);
    close(outp[0]);
}
END_TEST

static Suite *server_suite(void)
{
    Suite *s = suite_create("server");
    TCase *tc = tcase_create("answers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, answers_table, 0, NROWS);
    tcase_add_test(tc, answers_table_workers);
    tcase_add_test(tc, depth_limit);
    tcase_add_test(tc, too_large);
    tcase_add_test(tc, empty_server);
    tcase_add_test(tc, id_echo);
    tcase_add_test(tc, batch_by_version);
    tcase_add_test(tc, pagination);
    tcase_add_test(tc, page_size_setting);
    suite_add_tcase(s, tc);

    tc = tcase_create("concurrency");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, cancel_running);
    tcase_add_test(tc, inline_tool_runs_here);
    tcase_add_test(tc, cancel_queued);
    tcase_add_test(tc, window_at_the_limit);
    tcase_add_test(tc, cancel_race);
    tcase_add_test(tc, queue_instead_of_refusing);
    tcase_add_test(tc, queue_refuses_past_its_bound);
    tcase_add_test(tc, queue_bytes_bound);
    tcase_add_test(tc, queue_backpressure);
    tcase_add_test(tc, broken_sink);
    tcase_add_test(tc, pool_runs_everything);
    tcase_add_test(tc, pool_round_robin);
    tcase_add_test(tc, pool_block_stands_in);
    tcase_add_test(tc, pool_grows_on_demand);
    suite_add_tcase(s, tc);

    tc = tcase_create("stdio");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, stdio_framing);
    tcase_add_test(tc, stdio_too_large);
    tcase_add_test(tc, stdio_eof_drains);
    tcase_add_test(tc, stdio_pipe_partial_lines);
    tcase_add_test(tc, stdio_one_write_per_read);
    tcase_add_test(tc, stdio_output_closed);
    tcase_add_test(tc, stdio_stop_wakes_read);
    tcase_add_test(tc, stdio_stop_any_moment);
    tcase_add_test(tc, stdio_nonblocking_input_waits);
    tcase_add_test(tc, stdio_stop_program_owns_sigurg);
    tcase_add_test(tc, garbage_stream);
    suite_add_tcase(s, tc);

    tc = tcase_create("main");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, main_options);
    tcase_add_test(tc, main_serves);
    tcase_add_test(tc, main_stdout_is_private);
    tcase_add_test(tc, main_sigterm_drains);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    test_invoker = stub_invoke;
    int failed = check_run(server_suite(), true);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
