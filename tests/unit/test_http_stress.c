/* test_http_stress.c: concurrent POST, GET, resumption and DELETE on shared
 * sessions, driven in process through the core of the Streamable HTTP
 * transport (http_route.h: no sockets), with worker threads, a small replay
 * buffer and handlers that log, wait for a client that never answers, and
 * get cancelled. Meant for the sanitizer build, where a use-after-free, a
 * leak or a race on a stream shows as a report; the plain build checks the
 * properties below.
 *
 * Each of THREADS threads runs OPS random operations on the session it
 * currently uses (one of SESSIONS slots, shared by all threads): a call
 * (SSE or JSON answer, one of the tools), a notification, a cancellation, a
 * GET of the standalone stream, a GET with a Last-Event-ID naming a random
 * stream and event (often a JSON stream, or one past the end), or a DELETE
 * (after which the slot gets a new session). SSE answers are read without
 * blocking, each for a bounded number of polls, and often abandoned
 * midway, as a client that goes away.
 *
 * Properties: every status is one the transport may give to that request;
 * a JSON answer to a call is a response with the call's id (its result or
 * an error); an SSE answer's events are well formed and rise; at the end,
 * with every session deleted, the server holds none.
 *
 * usage: test_http_stress [--seed N] [--ops N]   (the seed is printed)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "internal/methods.h"
#include "internal/http_route.h"
#include "test_runtime.h"

enum { THREADS = 4, SESSIONS = 2, DEFAULT_OPS = 400, MAX_POLLS = 200 };

static atomic_int failures;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "test_http_stress:%d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            atomic_fetch_add(&failures, 1); \
        } \
    } while (0)

/* ---------------------------------------------------------------- the tools */

static bool stub_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    (void)arguments;
    const char *name = call->tool->name;
    if (strcmp(name, "chatty") == 0) {
        /* Enough bytes to pass the small replay buffer. */
        for (int i = 0; i < 6; i++)
            mcp_log_message(call, MCP_LEVEL_WARNING, NULL, "chatty %d %0700d", i, 0);
    } else if (strcmp(name, "ask") == 0) {
        /* The client never answers: this waits out the client timeout,
         * unless the call is cancelled or its session ends first. */
        mcp_client_request(call, "sampling/createMessage", NULL);
    } else if (strcmp(name, "until_cancelled") == 0) {
        for (int i = 0; i < 200 && !(call->cancelled && atomic_load(call->cancelled)); i++) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    mcp_buf_printf(out, "{\"content\":[{\"type\":\"text\",\"text\":\"%s done\"}],\"isError\":false}", name);
    return true;
}

static const mcp_tool TOOLS[] = {
    {.name = "ask", .list_entry = "{\"name\":\"ask\"}"},
    {.name = "chatty", .list_entry = "{\"name\":\"chatty\"}"},
    {.name = "echo", .list_entry = "{\"name\":\"echo\"}"},
    {.name = "until_cancelled", .list_entry = "{\"name\":\"until_cancelled\"}"},
};
static const char *const TOOL_NAMES[] = {"ask", "chatty", "echo", "until_cancelled"};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "stress",
    .version = "1.0",
    .tools = TOOLS,
    .ntools = 4,
};

/* ---------------------------------------------------------------- requests */

typedef struct hdr {
    const char *name, *value;
} hdr;

typedef struct request {
    hdr h[8];
    int n;
} request;

static const char *req_header(void *conn, const char *name)
{
    const request *r = conn;
    for (int i = 0; i < r->n; i++)
        if (strcasecmp(r->h[i].name, name) == 0)
            return r->h[i].value;
    return NULL;
}

static void add(request *r, const char *name, const char *value) { r->h[r->n++] = (hdr){name, value}; }

static mcp_http *server;

/* Read an SSE answer without blocking, at most MAX_POLLS empty polls (or
 * stop early: a client going away); check its events. */
static void read_sse(http_sse *sse, unsigned *rnd, bool abandon)
{
    char buf[1024];
    mcp_buf text;
    mcp_buf_init(&text);
    int polls = 0;
    size_t stop_at = abandon ? (size_t)(rand_r(rnd) % 4000) : SIZE_MAX;
    for (;;) {
        ssize_t n = http_sse_read(sse, buf, sizeof buf, false);
        if (n == HTTP_SSE_END)
            break;
        if (n == HTTP_SSE_AGAIN || n == 0) {
            if (++polls > MAX_POLLS)
                break;
            struct timespec ts = {0, 200000L};
            nanosleep(&ts, NULL);
            continue;
        }
        mcp_buf_put(&text, buf, (size_t)n);
        if (text.len >= stop_at)
            break;
    }
    /* Whole events only count: "id: N-K" with K rising within one stream. */
    unsigned long long last_num = 0, last_seq = 0;
    bool first = true;
    for (const char *p = text.data; p && (p = strstr(p, "id: ")) != NULL; p += 4) {
        unsigned long long num, seq;
        if (sscanf(p, "id: %llu-%llu", &num, &seq) != 2)
            continue;
        if (!first && num == last_num)
            CHECK(seq > last_seq, "event ids do not rise: %llu-%llu after %llu-%llu", num, seq, last_num, last_seq);
        first = false;
        last_num = num;
        last_seq = seq;
    }
    mcp_buf_free(&text);
}

typedef struct slot_sid {
    pthread_mutex_t mu;
    char sid[80];
} slot_sid;

static slot_sid slots[SESSIONS];

/* A new initialized session: its id in out (empty when the server refused). */
static void open_session(char *out)
{
    out[0] = 0;
    request r = {0};
    add(&r, "Host", "localhost");
    add(&r, "Accept", "application/json");
    add(&r, "Content-Type", "application/json");
    static const char INIT[] =
        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        "\"2025-11-25\",\"capabilities\":{\"sampling\":{}},\"clientInfo\":{\"name\":\"s\",\"version\":\"1\"}}}";
    http_req rq =
        {.method = "POST", .url = "/mcp", .header = req_header, .conn = &r, .body = INIT, .len = sizeof INIT - 1};
    http_resp a;
    http_route(server, &rq, &a);
    CHECK(a.status == 200, "initialize: %u", a.status);
    if (a.status == 200)
        snprintf(out, 80, "%s", a.session_id);
    http_resp_free(&a);
    if (!out[0])
        return;
    request n = {0};
    add(&n, "Host", "localhost");
    add(&n, "Accept", "application/json, text/event-stream");
    add(&n, "Content-Type", "application/json");
    add(&n, "Mcp-Session-Id", out);
    static const char INITIALIZED[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
    rq = (http_req){.method = "POST",
                    .url = "/mcp",
                    .header = req_header,
                    .conn = &n,
                    .body = INITIALIZED,
                    .len = sizeof INITIALIZED - 1};
    http_route(server, &rq, &a);
    CHECK(a.status == 202 || a.status == 404, "initialized: %u", a.status);
    http_resp_free(&a);
}

static bool status_in(unsigned s, const unsigned *ok, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s == ok[i])
            return true;
    return false;
}

typedef struct worker_arg {
    unsigned seed;
    int ops;
    int id;
} worker_arg;

static atomic_int next_id = 1;

static void one_op(unsigned *rnd)
{
    slot_sid *sl = &slots[rand_r(rnd) % SESSIONS];
    char sid[80];
    pthread_mutex_lock(&sl->mu);
    memcpy(sid, sl->sid, sizeof sid);
    pthread_mutex_unlock(&sl->mu);

    request r = {0};
    add(&r, "Host", "localhost");
    add(&r, "Mcp-Session-Id", sid);
    char body[512], last[64];
    http_req rq = {.url = "/mcp", .header = req_header, .conn = &r};
    int op = (int)(rand_r(rnd) % 100);
    bool json = false;
    int id = atomic_fetch_add(&next_id, 1);
    if (op < 45) { /* a call */
        json = rand_r(rnd) % 2;
        add(&r, "Accept", json ? "application/json" : "application/json, text/event-stream");
        add(&r, "Content-Type", "application/json");
        snprintf(body, sizeof body,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}", id,
                 TOOL_NAMES[rand_r(rnd) % 4]);
        rq.method = "POST";
    } else if (op < 55) { /* cancel a recent call (maybe in flight) */
        add(&r, "Accept", "application/json, text/event-stream");
        add(&r, "Content-Type", "application/json");
        snprintf(body, sizeof body,
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%d}}",
                 id - 1 - (int)(rand_r(rnd) % 8));
        rq.method = "POST";
    } else if (op < 65) { /* the standalone stream */
        add(&r, "Accept", "text/event-stream");
        rq.method = "GET";
        body[0] = 0;
    } else if (op < 95) { /* resume some stream after some event */
        add(&r, "Accept", "text/event-stream");
        unsigned long long seq = rand_r(rnd) % 5 ? (unsigned long long)(rand_r(rnd) % 6) : 18446744073709551614ull;
        snprintf(last, sizeof last, "%u-%llu", (unsigned)(rand_r(rnd) % 24), seq);
        add(&r, "Last-Event-ID", last);
        rq.method = "GET";
        body[0] = 0;
    } else { /* end the session; the slot gets a new one */
        rq.method = "DELETE";
        body[0] = 0;
    }
    rq.body = body;
    rq.len = strlen(body);
    http_resp a;
    http_route(server, &rq, &a);

    static const unsigned POST_OK[] = {200, 202, 400, 404};
    static const unsigned GET_OK[] = {200, 400, 404};
    static const unsigned DELETE_OK[] = {200, 404};
    if (strcmp(rq.method, "POST") == 0)
        CHECK(status_in(a.status, POST_OK, 4), "POST %s: status %u", body, a.status);
    else if (strcmp(rq.method, "GET") == 0)
        CHECK(status_in(a.status, GET_OK, 3), "GET: status %u", a.status);
    else
        CHECK(status_in(a.status, DELETE_OK, 2), "DELETE: status %u", a.status);
    if (json && a.status == 200) {
        char want[32];
        snprintf(want, sizeof want, "\"id\":%d,", id);
        CHECK(a.body && strstr(a.body, want), "a JSON answer without its id %d: %s", id, a.body ? a.body : "(none)");
    }
    if (a.sse) {
        http_sse *sse = a.sse;
        a.sse = NULL;
        read_sse(sse, rnd, rand_r(rnd) % 3 == 0);
        http_sse_free(sse);
    }
    http_resp_free(&a);
    if (strcmp(rq.method, "DELETE") == 0) {
        pthread_mutex_lock(&sl->mu);
        if (strcmp(sl->sid, sid) == 0)
            open_session(sl->sid);
        pthread_mutex_unlock(&sl->mu);
    }
}

static void *worker(void *arg)
{
    worker_arg *w = arg;
    unsigned rnd = w->seed;
    for (int i = 0; i < w->ops; i++)
        one_op(&rnd);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned seed = (unsigned)time(NULL);
    int ops = DEFAULT_OPS;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            seed = (unsigned)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--ops") == 0)
            ops = atoi(argv[i + 1]);
    }
    printf("test_http_stress: seed %u, %d threads x %d operations (replay: --seed %u)\n", seed, THREADS, ops, seed);
    fflush(stdout);
    test_quiet = true;
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 2;
    set.client_timeout_ms = 20;
    set.replay_bytes = 2048;
    set.max_sessions = 64;
    test_invoker = stub_invoke;
    mcp_runtime *rt = test_runtime_new(&SERVER, &set);
    server = rt ? http_core_new(rt) : NULL;
    if (!server)
        return 1;
    for (int i = 0; i < SESSIONS; i++) {
        pthread_mutex_init(&slots[i].mu, NULL);
        open_session(slots[i].sid);
    }
    pthread_t t[THREADS];
    worker_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (worker_arg){.seed = seed * 7919u + (unsigned)i, .ops = ops, .id = i};
        pthread_create(&t[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    /* Every session ends: DELETE each (200), then none is left. */
    for (int i = 0; i < SESSIONS; i++) {
        request r = {0};
        add(&r, "Host", "localhost");
        add(&r, "Mcp-Session-Id", slots[i].sid);
        http_req rq = {.method = "DELETE", .url = "/mcp", .header = req_header, .conn = &r};
        http_resp a;
        http_route(server, &rq, &a);
        CHECK(a.status == 200, "final DELETE: %u", a.status);
        http_resp_free(&a);
        pthread_mutex_destroy(&slots[i].mu);
    }
    CHECK(http_core_sessions(server) == 0, "%d session(s) left", http_core_sessions(server));
    http_core_free(server);
    mcp_runtime_free(rt);
    int f = atomic_load(&failures);
    printf("test_http_stress: %s (%d failure(s))\n", f ? "FAILED" : "ok", f);
    return f != 0;
}
