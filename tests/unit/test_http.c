/* test_http.c: the Streamable HTTP transport (lib/transport/http.c) over real
 * sockets on 127.0.0.1, with a hand-made server table and stub tools (like
 * test_server.c: the runtime's tools/call runs stub_invoke, through the
 * invoker seam of test_runtime.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "internal/methods.h"
#include "internal/http.h"
#include "internal/http_route.h"
#include "test_runtime.h"
#include "check_run.h"

/* ---------------------------------------------------------------- stub codec */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* "slow" handlers meet at a barrier: each waits until `barrier` of them are
 * running at once. Calls served one at a time would never meet; the hang
 * guard (a generous 30 s) then lets them go and records that it fired. */
static atomic_int arrived;
static atomic_int barrier = 1;
static atomic_bool guard_fired;

static bool stub_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    (void)arguments;
    if (strcmp(call->tool->name, "slow") == 0) {
        atomic_fetch_add(&arrived, 1);
        int waited = 0;
        while (atomic_load(&arrived) < atomic_load(&barrier)) {
            if (++waited > 30000) {
                atomic_store(&guard_fired, true);
                break;
            }
            sleep_ms(1);
        }
    }
    if (strcmp(call->tool->name, "chatty") == 0)
        for (int i = 1; i <= 3; i++)
            mcp_log_message(call, MCP_LEVEL_WARNING, NULL, "chatty log %d", i);
    if (strcmp(call->tool->name, "whoami") == 0) {
        /* What the request's context says: its client's capabilities and log level. */
        const mcp_reqctx *ctx = mcp_job_ctx(call->job);
        mcp_buf_printf(out,
                       "{\"content\":[{\"type\":\"text\",\"text\":\"caps=%u log=%d caller=%s\"}],\"isError\":false}",
                       ctx->client_caps, ctx->log_min, ctx->caller ? "someone" : "none");
        return true;
    }
    mcp_buf_printf(out, "{\"content\":[{\"type\":\"text\",\"text\":\"%s done\"}],\"isError\":false}", call->tool->name);
    return true;
}

static const mcp_tool TOOLS[] = {
    {.name = "echo", .list_entry = "{\"name\":\"echo\"}"},
    {.name = "slow", .list_entry = "{\"name\":\"slow\"}"},
    {.name = "chatty", .list_entry = "{\"name\":\"chatty\"}"},
    {.name = "whoami", .list_entry = "{\"name\":\"whoami\"}"},
};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "httpsrv",
    .version = "1.0",
    .tools = TOOLS,
    .ntools = 4,
};

/* ---------------------------------------------------------------- a tiny client */

static mcp_runtime *rt;
static mcp_http *srv;
static unsigned port;

/* A runtime and its HTTP server on a port the system picks. */
static void start_server(mcp_options *o)
{
    o->http = "127.0.0.1:0";
    rt = test_runtime_new(&SERVER, o);
    ck_assert_ptr_nonnull(rt);
    srv = mcp_http_start(rt);
    ck_assert_ptr_nonnull(srv);
    port = mcp_http_port(srv);
}

static void stop_server(void)
{
    mcp_http_stop(srv);
    srv = NULL;
    mcp_runtime_free(rt);
    rt = NULL;
}

static void setup(void)
{
    signal(SIGPIPE, SIG_IGN);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 4;
    start_server(&set);
    ck_assert_uint_gt(port, 0);
}

static void teardown(void) { stop_server(); }

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Send a request (Connection: close); `headers` are extra lines, each ending in \r\n. */
static int send_req(const char *method, const char *host, const char *headers, const char *body)
{
    int fd = dial();
    char req[8192];
    char hostbuf[64];
    if (!host) {
        snprintf(hostbuf, sizeof hostbuf, "127.0.0.1:%u", port);
        host = hostbuf;
    }
    int n = snprintf(req, sizeof req,
                     "%s /mcp HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s"
                     "Content-Length: %zu\r\n\r\n%s",
                     method, host, headers ? headers : "", body ? strlen(body) : 0, body ? body : "");
    ck_assert_int_eq(write(fd, req, (size_t)n), n);
    return fd;
}

/* Read until the peer closes (or `until` appears), leaving fd open; returns
 * malloc'd text. */
static char *read_all_keep(int fd, const char *until)
{
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    for (;;) {
        if (len + 1 >= cap)
            b = realloc(b, cap *= 2);
        ssize_t r = read(fd, b + len, cap - len - 1);
        if (r <= 0)
            break;
        len += (size_t)r;
        b[len] = 0;
        if (until && strstr(b, until))
            break;
    }
    b[len] = 0;
    return b;
}

static char *read_all(int fd, const char *until)
{
    char *b = read_all_keep(fd, until);
    close(fd);
    return b;
}

static char *req(const char *method, const char *host, const char *headers, const char *body)
{
    return read_all(send_req(method, host, headers, body), NULL);
}

static int status_of(const char *resp)
{
    int st = 0;
    sscanf(resp, "HTTP/1.1 %d", &st);
    return st;
}

#define JSON_HDRS "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
#define INIT \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* Initialize; the session id into sid. */
static void open_session(char *sid)
{
    char *r = req("POST", NULL, JSON_HDRS, INIT);
    ck_assert_int_eq(status_of(r), 200);
    const char *h = strcasestr(r, "Mcp-Session-Id: ");
    ck_assert_ptr_nonnull(h);
    size_t n = strcspn(h + 16, "\r\n");
    ck_assert_uint_eq(n, 32);
    memcpy(sid, h + 16, n);
    sid[n] = 0;
    for (size_t i = 0; i < n; i++)
        ck_assert(sid[i] > 0x20 && sid[i] < 0x7f);
    ck_assert_ptr_nonnull(strstr(r, "\"protocolVersion\":\"2025-11-25\""));
    free(r);
}

static char *with_session(const char *sid, const char *more)
{
    static char h[1024];
    snprintf(h, sizeof h, JSON_HDRS "Mcp-Session-Id: %s\r\n%s", sid, more ? more : "");
    return h;
}

#define CALL(id, tool) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"" tool "\"}}"

/* A 2026-07-28 tools/call of `tool` (no session), its client's capabilities
 * `caps` and `more` members of _meta (each with a leading comma). */
static char *modern_call(const char *tool, const char *caps, const char *more)
{
    char body[1024], hdrs[512];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\",\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
             "\"io.modelcontextprotocol/clientCapabilities\":%s%s}}}",
             tool, caps, more);
    snprintf(hdrs, sizeof hdrs,
             JSON_HDRS "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: %s\r\n", tool);
    return req("POST", NULL, hdrs, body);
}

/* ---------------------------------------------------------------- tests */

START_TEST(host_and_origin)
{
    char *r = req("POST", "evil.example.com", JSON_HDRS, INIT);
    ck_assert_int_eq(status_of(r), 403);
    ck_assert_ptr_nonnull(strstr(r, "\"error\""));
    free(r);
    char host[64];
    snprintf(host, sizeof host, "localhost:%u", port);
    r = req("POST", host, JSON_HDRS "Origin: http://evil.example.com\r\n", INIT);
    ck_assert_int_eq(status_of(r), 403);
    free(r);
    r = req("POST", host, JSON_HDRS "Origin: http://localhost:1234\r\n", INIT);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    r = req("POST", "[::1]", JSON_HDRS, INIT);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
}
END_TEST

START_TEST(sessions)
{
    char sid[80];
    open_session(sid);
    char *r = req("POST", NULL, JSON_HDRS, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    ck_assert_int_eq(status_of(r), 400);
    free(r);
    r = req("POST", NULL, with_session("0123456789abcdef0123456789abcdef", NULL),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    ck_assert_int_eq(status_of(r), 404);
    free(r);
    r = req("POST", NULL, with_session(sid, NULL), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    ck_assert_int_eq(status_of(r), 202);
    ck_assert_ptr_nonnull(strstr(r, "Content-Length: 0\r\n"));
    ck_assert_str_eq(strstr(r, "\r\n\r\n"), "\r\n\r\n");
    free(r);
    /* An initialize the session would refuse starts no session: no id, 400. */
    static const char *const REFUSED[] = {
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\\u0000\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"initialize\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":[]}",
    };
    for (size_t i = 0; i < sizeof REFUSED / sizeof *REFUSED; i++) {
        r = req("POST", NULL, JSON_HDRS, REFUSED[i]);
        ck_assert_msg(status_of(r) == 400, "%s: %s", REFUSED[i], r);
        ck_assert_msg(strcasestr(r, "\r\nMcp-Session-Id:") == NULL, "%s: %s", REFUSED[i], r);
        free(r);
    }
    /* A second initialize without a session makes a new one. */
    char sid2[64];
    open_session(sid2);
    ck_assert_str_ne(sid, sid2);
    /* DELETE ends it. */
    r = req("DELETE", NULL, with_session(sid, NULL), NULL);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    r = req("POST", NULL, with_session(sid, NULL), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    ck_assert_int_eq(status_of(r), 404);
    free(r);
}
END_TEST

START_TEST(call_sse_and_json)
{
    char sid[80];
    open_session(sid);
    char *r = req("POST", NULL, with_session(sid, NULL), CALL(7, "echo"));
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "Content-Type: text/event-stream"));
    /* The priming event first (chunked: find it after the headers). */
    char *prime = strstr(r, "id: ");
    ck_assert_ptr_nonnull(prime);
    ck_assert(strncmp(strchr(prime, '\n'), "\nretry: 500\ndata: \n\n", 20) == 0);
    char *res = strstr(r, "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":");
    ck_assert_ptr_nonnull(res);
    ck_assert(res > prime);
    ck_assert_ptr_nonnull(strstr(res, "echo done"));
    free(r);

    r = req("POST", NULL, "Content-Type: application/json\r\nAccept: application/json\r\nMcp-Session-Id: x\r\n",
            CALL(8, "echo"));
    ck_assert_int_eq(status_of(r), 404);
    free(r);
    char h[512];
    snprintf(h, sizeof h,
             "Content-Type: application/json\r\nAccept: application/json\r\n"
             "Mcp-Session-Id: %s\r\n",
             sid);
    r = req("POST", NULL, h, CALL(8, "echo"));
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "Content-Type: application/json"));
    ck_assert_ptr_nonnull(strstr(r, "\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"content\""));
    free(r);
}
END_TEST

/* A quick handler's SSE answer comes whole: one body with its length, the
 * priming event then the answer, the bytes a chunked stream would carry. A
 * slow handler's stream starts without waiting for it: its priming event
 * arrives (chunked) while the handler still runs, and the answer follows. */
START_TEST(sse_whole_or_streamed)
{
    char sid[80];
    open_session(sid);
    char *r = req("POST", NULL, with_session(sid, NULL), CALL(21, "echo"));
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "Content-Type: text/event-stream"));
    ck_assert_ptr_nonnull(strcasestr(r, "Content-Length: "));
    ck_assert_ptr_null(strcasestr(r, "Transfer-Encoding: chunked"));
    const char *body = strstr(r, "\r\n\r\n") + 4;
    unsigned long long num = 0;
    ck_assert_int_eq(sscanf(body, "id: %llu-0\n", &num), 1);
    char want[256];
    snprintf(want, sizeof want,
             "id: %llu-0\nretry: 500\ndata: \n\nid: %llu-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":21,\"result\":{", num,
             num);
    ck_assert_msg(strncmp(body, want, strlen(want)) == 0, "body: %s", body);
    ck_assert(strcmp(body + strlen(body) - 3, "}\n\n") == 0);
    free(r);

    /* Notifications, then the answer: every event, in order. */
    r = req("POST", NULL, with_session(sid, NULL), CALL(22, "chatty"));
    ck_assert_int_eq(status_of(r), 200);
    const char *at = r;
    for (int i = 1; i <= 3; i++) {
        snprintf(want, sizeof want, "chatty log %d", i);
        at = strstr(at, want);
        ck_assert_msg(at != NULL, "log %d missing or out of order: %s", i, r);
    }
    ck_assert_ptr_nonnull(strstr(at, "\"id\":22,\"result\""));
    free(r);

    /* A handler that waits to be released: the stream starts without it. */
    atomic_store(&arrived, 0);
    atomic_store(&guard_fired, false);
    atomic_store(&barrier, 2);
    int fd = send_req("POST", NULL, with_session(sid, NULL), CALL(23, "slow"));
    r = read_all_keep(fd, "retry: 500\ndata: \n\n");
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strcasestr(r, "Transfer-Encoding: chunked"));
    ck_assert_msg(atomic_load(&arrived) == 1 && !atomic_load(&guard_fired), "the handler is no longer running");
    ck_assert_ptr_null(strstr(r, "\"id\":23"));
    free(r);
    atomic_store(&barrier, 1);
    r = read_all(fd, NULL);
    ck_assert_ptr_nonnull(strstr(r, "\"id\":23,\"result\""));
    free(r);
}
END_TEST

START_TEST(protocol_version_header)
{
    char sid[80];
    open_session(sid);
    char *r = req("POST", NULL, with_session(sid, "MCP-Protocol-Version: 2025-03-26\r\n"),
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "\"result\":{}"));
    free(r);
    r = req("POST", NULL, with_session(sid, "MCP-Protocol-Version: 1999-01-01\r\n"),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
    ck_assert_int_eq(status_of(r), 400);
    free(r);
}
END_TEST

START_TEST(get_stream_and_resume)
{
    char sid[80];
    open_session(sid);
    char h[512];
    snprintf(h, sizeof h, "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n", sid);
    /* The standalone stream stays open: read its priming event, then hang up. */
    char *r = read_all(send_req("GET", NULL, h, NULL), "retry: 500\ndata: \n\n");
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "Content-Type: text/event-stream"));
    ck_assert_ptr_nonnull(strstr(r, "id: 0-0\nretry: 500\n"));
    free(r);

    /* A call's stream, then its events again after the priming event's id. */
    r = req("POST", NULL, with_session(sid, NULL), CALL(9, "echo"));
    char *prime = strstr(r, "id: ");
    ck_assert_ptr_nonnull(prime);
    unsigned long long num = 0, seq = 9;
    ck_assert_int_eq(sscanf(prime, "id: %llu-%llu", &num, &seq), 2);
    ck_assert_uint_eq(seq, 0);
    free(r);
    snprintf(h, sizeof h,
             "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
             "Last-Event-ID: %llu-0\r\n",
             sid, num);
    r = req("GET", NULL, h, NULL);
    ck_assert_int_eq(status_of(r), 200);
    char want[64];
    snprintf(want, sizeof want, "id: %llu-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,", num);
    ck_assert_msg(strstr(r, want) != NULL, "no replay in %s", r);
    free(r);
}
END_TEST

/* A session keeps the newest 32 finished SSE streams for resumption, oldest
 * dropped first; one resumed goes back among the kept when its reader is
 * done, and can be resumed again. */
static unsigned long long call_stream(const char *sid, int id)
{
    char body[128];
    snprintf(body, sizeof body, CALL(% d, "echo"), id);
    char *r = req("POST", NULL, with_session(sid, NULL), body);
    const char *prime = strstr(r, "id: ");
    ck_assert_ptr_nonnull(prime);
    unsigned long long num = 0, seq = 9;
    ck_assert_int_eq(sscanf(prime, "id: %llu-%llu", &num, &seq), 2);
    free(r);
    return num;
}

static int resume_status(const char *sid, unsigned long long num, int id)
{
    char h[512];
    snprintf(h, sizeof h, "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\nLast-Event-ID: %llu-0\r\n", sid, num);
    char *r = req("GET", NULL, h, NULL);
    int status = status_of(r);
    if (status == 200) {
        char want[64];
        snprintf(want, sizeof want, "id: %llu-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,", num, id);
        ck_assert_msg(strstr(r, want) != NULL, "no replay of %d in %s", id, r);
    } else {
        ck_assert_ptr_nonnull(strstr(r, "Last-Event-ID names no stream of this session"));
    }
    free(r);
    return status;
}

START_TEST(kept_streams_bound)
{
    char sid[80];
    open_session(sid);
    unsigned long long nums[40];
    for (int i = 0; i < 40; i++)
        nums[i] = call_stream(sid, 100 + i);
    ck_assert_int_eq(resume_status(sid, nums[39], 139), 200);
    ck_assert_int_eq(resume_status(sid, nums[39], 139), 200); /* kept again after its reader */
    ck_assert_int_eq(resume_status(sid, nums[8], 108), 200);  /* the oldest of the newest 32 */
    ck_assert_int_eq(resume_status(sid, nums[7], 107), 400);  /* dropped */
    ck_assert_int_eq(resume_status(sid, nums[0], 100), 400);
    /* Resumed, a stream keeps its place by age: the next call drops it first. */
    ck_assert_int_eq(resume_status(sid, nums[8], 108), 200);
    call_stream(sid, 140);
    ck_assert_int_eq(resume_status(sid, nums[8], 108), 400);
    ck_assert_int_eq(resume_status(sid, nums[9], 109), 200);
}
END_TEST

typedef struct post_arg {
    const char *hdrs;
    int id;
    char *resp;
} post_arg;

static void *post_slow(void *p)
{
    post_arg *a = p;
    char body[256];
    snprintf(body, sizeof body, CALL(% d, "slow"), a->id);
    a->resp = req("POST", NULL, a->hdrs, body);
    return NULL;
}

START_TEST(concurrent_posts)
{
    char sid[80];
    open_session(sid);
    pthread_t t[3];
    post_arg a[3];
    atomic_store(&arrived, 0);
    atomic_store(&guard_fired, false);
    atomic_store(&barrier, 3); /* the three calls must all be running at once */
    static char hdrs[1024];    /* with_session's buffer is shared: copy it before the threads */
    snprintf(hdrs, sizeof hdrs, "%s", with_session(sid, NULL));
    for (int i = 0; i < 3; i++)
        a[i] = (post_arg){hdrs, 100 + i, NULL};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, post_slow, &a[i]), 0);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    atomic_store(&barrier, 1);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(status_of(a[i].resp), 200);
        char want[64];
        snprintf(want, sizeof want, "\"id\":%d,\"result\"", 100 + i);
        ck_assert_ptr_nonnull(strstr(a[i].resp, want));
        free(a[i].resp);
    }
    ck_assert_msg(!atomic_load(&guard_fired), "the 3 calls never ran at the same time: not concurrent");
}
END_TEST

START_TEST(client_disconnects)
{
    char sid[80];
    open_session(sid);
    /* Hang up after the priming event, while the handler still runs. */
    char *r = read_all(send_req("POST", NULL, with_session(sid, NULL), CALL(11, "slow")), "retry: 500\ndata: \n\n");
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    /* Hang up before anything is read. */
    close(send_req("POST", NULL, with_session(sid, NULL), CALL(12, "slow")));
    r = req("POST", NULL, with_session(sid, NULL), CALL(13, "echo"));
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "echo done"));
    free(r);
}
END_TEST

/* The threads of this process (the server runs in it). */
static int threads_now(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    int n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

/* Send n slow calls (ids from id0) at once and read their answers. */
static void slow_calls(const char *sid, int n, int id0)
{
    int fds[8];
    ck_assert_int_le(n, 8);
    for (int i = 0; i < n; i++) {
        char body[160];
        snprintf(body, sizeof body, CALL(% d, "slow"), id0 + i);
        fds[i] = send_req("POST", NULL, with_session(sid, NULL), body);
    }
    for (int i = 0; i < n; i++) {
        char *r = read_all(fds[i], NULL);
        ck_assert_int_eq(status_of(r), 200);
        free(r);
    }
}

/* Requests waiting for their handlers (JSON answers and SSE streams alike)
 * hold no thread of the server: their connections are suspended, and each
 * gets its answer once the handlers go on. */
START_TEST(waiting_requests_hold_no_thread)
{
    enum { NJSON = 24, NSSE = 8 };
    char sid[80];
    open_session(sid);
    /* The pool starts its workers as calls need them: four calls that must
     * run at once start all four first. */
    atomic_store(&arrived, 0);
    atomic_store(&barrier, 4);
    slow_calls(sid, 4, 290);
    int before = threads_now();
    atomic_store(&arrived, 0);
    atomic_store(&guard_fired, false);
    atomic_store(&barrier, 1000); /* the running calls wait until released */
    int fds[NJSON + NSSE];
    for (int i = 0; i < NJSON + NSSE; i++) {
        char hdrs[256], body[160];
        snprintf(hdrs, sizeof hdrs, "Content-Type: application/json\r\nAccept: %s\r\nMcp-Session-Id: %s\r\n",
                 i < NJSON ? "application/json" : "application/json, text/event-stream", sid);
        snprintf(body, sizeof body,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}", 300 + i);
        fds[i] = send_req("POST", NULL, hdrs, body);
    }
    for (int waited = 0; atomic_load(&arrived) < 4 && waited < 5000; waited += 10)
        sleep_ms(10); /* the 4 workers busy, the other calls queued */
    sleep_ms(100);
    int during = threads_now();
    ck_assert_msg(during <= before + 2, "threads: %d before, %d with %d requests waiting", before, during,
                  NJSON + NSSE);
    atomic_store(&barrier, 1);
    for (int i = 0; i < NJSON + NSSE; i++) {
        char *r = read_all(fds[i], NULL);
        ck_assert_int_eq(status_of(r), 200);
        char want[64];
        snprintf(want, sizeof want, "\"id\":%d,\"result\"", 300 + i);
        ck_assert_msg(strstr(r, want) != NULL, "request %d: %s", i, r);
        ck_assert_ptr_nonnull(strstr(r, i < NJSON ? "Content-Type: application/json" : "text/event-stream"));
        free(r);
    }
}
END_TEST

/* ---------------------------------------------------------------- limits */

/* A server of its own, with small limits. */
static void start_limited(int timeout_seconds)
{
    signal(SIGPIPE, SIG_IGN);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 4;
    set.max_message = 4096;
    set.max_array = 3;
    set.max_string = 100;
    set.max_sessions = 2;
    set.session_idle = 1;
    set.replay_bytes = 1;
    set.http_timeout = timeout_seconds;
    start_server(&set);
}

/* A connection that sends half a request line and then nothing: the server
 * must close it after the connection timeout (read sees the end; the hang
 * guard of dial(), 10 s, fails the test otherwise). When it returns, more than
 * the timeout has passed since the call. */
static void wait_idle_connection_closed(void)
{
    int fd = dial();
    ck_assert_int_eq(write(fd, "POST /mcp HTTP/1.1\r\nHo", 23), 23);
    char b[256];
    ssize_t r = read(fd, b, sizeof b);
    ck_assert_msg(r >= 0, "the idle connection was not closed: %s", strerror(errno));
    close(fd);
}

/* A body of exactly n bytes: `json` padded with spaces (whitespace after the
 * value is valid JSON). */
static char *padded(const char *json, size_t n)
{
    size_t len = strlen(json);
    ck_assert_uint_le(len, n);
    char *b = malloc(n + 1);
    memcpy(b, json, len);
    memset(b + len, ' ', n - len);
    b[n] = 0;
    return b;
}

START_TEST(limits_body_and_json)
{
    start_limited(0);
    /* The body limit: one byte over gets 413, exactly at it passes. */
    char *big = padded(INIT, 4097);
    char *r = req("POST", NULL, JSON_HDRS, big);
    ck_assert_int_eq(status_of(r), 413);
    ck_assert_ptr_nonnull(strstr(r, "{\"code\":-32600,\"message\":\"Invalid Request: message too "
                                    "large (limit 4096 bytes)\"}"));
    free(r);
    free(big);
    char *at = padded(INIT, 4096);
    r = req("POST", NULL, JSON_HDRS, at);
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_ptr_nonnull(strstr(r, "\"protocolVersion\""));
    free(r);
    free(at);

    /* Array and string limits, enforced by the session's parser: -32600, and
     * the session goes on. */
    char sid[80];
    open_session(sid);
    r = req("POST", NULL, with_session(sid, NULL),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
            "{\"name\":\"echo\",\"arguments\":{\"a\":[1,2,3,4]}}}");
    ck_assert_int_eq(status_of(r), 400); /* not a request the server can read */
    ck_assert_msg(strstr(r, "\"error\":{\"code\":-32600,\"message\":\"Invalid Request: array "
                            "longer than 3 items at byte 94\"}"),
                  "%s", r);
    free(r);
    r = req("POST", NULL, with_session(sid, NULL),
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
            "{\"name\":\"echo\",\"arguments\":{\"a\":[1,2,3]}}}");
    ck_assert_ptr_nonnull(strstr(r, "\"id\":2,\"result\""));
    free(r);
    char body[512];
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"echo\",\"arguments\":{\"s\":\"%0101d\"}}}",
             0);
    r = req("POST", NULL, with_session(sid, NULL), body);
    ck_assert_msg(strstr(r, "\"message\":\"Invalid Request: string longer than 100 bytes at "
                            "byte 87\"}"),
                  "%s", r);
    free(r);
    snprintf(body, sizeof body,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"echo\",\"arguments\":{\"s\":\"%0100d\"}}}",
             0);
    r = req("POST", NULL, with_session(sid, NULL), body);
    ck_assert_ptr_nonnull(strstr(r, "\"id\":4,\"result\""));
    free(r);
    stop_server();
}
END_TEST

START_TEST(limits_replay_bytes)
{
    start_limited(0);
    char sid[80];
    open_session(sid);
    /* Three log events and the answer, with 1 byte to keep: a stream keeps
     * only its newest event, whoever reads it (the bound holds for readers
     * too: one that falls behind loses the oldest events), and the answer,
     * the newest, always reaches the POST's reader. */
    char *r = req("POST", NULL, with_session(sid, NULL), CALL(5, "chatty"));
    ck_assert_ptr_nonnull(strstr(r, "\"id\":5,\"result\""));
    unsigned long long num = 0, seq = 9;
    ck_assert_int_eq(sscanf(strstr(r, "id: "), "id: %llu-%llu", &num, &seq), 2);
    free(r);
    char h[512];
    snprintf(h, sizeof h,
             "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
             "Last-Event-ID: %llu-0\r\n",
             sid, num);
    r = req("GET", NULL, h, NULL);
    ck_assert_int_eq(status_of(r), 200);
    ck_assert_msg(strstr(r, "chatty log") == NULL, "replayed beyond the limit: %s", r);
    char want[64];
    snprintf(want, sizeof want, "id: %llu-4\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,", num);
    ck_assert_msg(strstr(r, want) != NULL, "no replay of the newest event in %s", r);
    free(r);
    stop_server();
}
END_TEST

typedef struct slow_post {
    char hdrs[1024];
    int id;
    char *resp;
} slow_post;

static void *post_slow_call(void *p)
{
    slow_post *a = p;
    char body[256];
    snprintf(body, sizeof body, CALL(% d, "slow"), a->id);
    a->resp = req("POST", NULL, a->hdrs, body);
    return NULL;
}

START_TEST(limits_sessions_and_timeout)
{
    start_limited(1);
    char sid[80], sid2[80], sid3[80];
    open_session(sid);
    open_session(sid2);
    /* The table is full: 503 with a JSON-RPC error naming the limit. */
    char *r = req("POST", NULL, JSON_HDRS, INIT);
    ck_assert_int_eq(status_of(r), 503);
    ck_assert_ptr_nonnull(strstr(r, "{\"code\":-32000,\"message\":\"Service Unavailable: too "
                                    "many sessions (limit 2)\"}"));
    free(r);
    /* Ending one makes room. */
    r = req("DELETE", NULL, with_session(sid2, NULL), NULL);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    open_session(sid3);

    /* Two calls whose handler waits (the barrier) longer than the connection
     * timeout, one answered as SSE, one as JSON: waiting for a handler is not
     * the client being slow, both answers arrive. */
    atomic_store(&arrived, 0);
    atomic_store(&guard_fired, false);
    atomic_store(&barrier, 3);
    slow_post a[2];
    snprintf(a[0].hdrs, sizeof a[0].hdrs, "%s", with_session(sid, NULL));
    snprintf(a[1].hdrs, sizeof a[1].hdrs,
             "Content-Type: application/json\r\nAccept: application/json\r\n"
             "Mcp-Session-Id: %s\r\n",
             sid);
    a[0].id = 21;
    a[1].id = 22;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, post_slow_call, &a[i]), 0);
    while (atomic_load(&arrived) < 2)
        sleep_ms(1); /* both handlers are running: their connections now wait */
    /* A slow client (half a request line, then nothing) is cut off; when it
     * is, the two waiting connections have been idle longer than the timeout. */
    wait_idle_connection_closed();
    atomic_store(&barrier, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ck_assert(!atomic_load(&guard_fired));
    for (int i = 0; i < 2; i++) {
        char want[64];
        snprintf(want, sizeof want, "\"id\":%d,\"result\"", a[i].id);
        ck_assert_msg(strstr(a[i].resp, want) != NULL, "call %d lost: %s", a[i].id, a[i].resp);
        free(a[i].resp);
    }

    /* Both sessions have now been unused for longer than idle_seconds (1 s,
     * less than the time the slow calls took after sid3's last use): a new
     * session reclaims an expired one rather than getting 503. */
    wait_idle_connection_closed();
    char sid4[64];
    open_session(sid4);
    r = req("POST", NULL, JSON_HDRS, INIT);
    ck_assert_int_eq(status_of(r), 200);
    free(r);
    stop_server();
}
END_TEST

/* A 2026-07-28 request is served by a stateless session kept from an
 * earlier request when there is one: nothing of the earlier request (its
 * log level, its client's capabilities) may reach the later one. */
START_TEST(stateless_reuse_forgets)
{
    unsigned long before = http_core_reused(srv);
    /* Rounds until a reuse is seen: the answering thread keeps the session
     * unless the ticker holds it at that moment (then it is kept a moment
     * later, after the next request made a session of its own). */
    for (int round = 0; round < 5 && http_core_reused(srv) < before + 2; round++) {
        char *r = modern_call("whoami", "{\"elicitation\":{},\"sampling\":{},\"roots\":{}}",
                              ",\"io.modelcontextprotocol/logLevel\":\"debug\"");
        ck_assert_int_eq(status_of(r), 200);
        ck_assert_ptr_nonnull(strstr(r, "caps=7 log=0 caller=none"));
        free(r);
        r = modern_call("whoami", "{}", "");
        ck_assert_int_eq(status_of(r), 200);
        ck_assert_ptr_nonnull(strstr(r, "caps=0 log=8 caller=none"));
        free(r);
        /* A log level asked for by one request: its logs come (SSE, before
         * the answer); the next request asked for none and gets none. */
        r = modern_call("chatty", "{}", ",\"io.modelcontextprotocol/logLevel\":\"debug\"");
        ck_assert_int_eq(status_of(r), 200);
        ck_assert_ptr_nonnull(strstr(r, "chatty log 3"));
        free(r);
        r = modern_call("chatty", "{}", "");
        ck_assert_int_eq(status_of(r), 200);
        ck_assert_ptr_null(strstr(r, "chatty log"));
        ck_assert_ptr_nonnull(strstr(r, "Content-Type: application/json"));
        ck_assert_ptr_nonnull(strstr(r, "chatty done"));
        free(r);
    }
    ck_assert_uint_ge(http_core_reused(srv), before + 2);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("http");
    TCase *tc = tcase_create("http");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, host_and_origin);
    tcase_add_test(tc, sessions);
    tcase_add_test(tc, call_sse_and_json);
    tcase_add_test(tc, sse_whole_or_streamed);
    tcase_add_test(tc, protocol_version_header);
    tcase_add_test(tc, get_stream_and_resume);
    tcase_add_test(tc, kept_streams_bound);
    tcase_add_test(tc, concurrent_posts);
    tcase_add_test(tc, client_disconnects);
    tcase_add_test(tc, waiting_requests_hold_no_thread);
    tcase_add_test(tc, stateless_reuse_forgets);
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("limits");
    tcase_add_test(lim, limits_body_and_json);
    tcase_add_test(lim, limits_replay_bytes);
    tcase_add_test(lim, limits_sessions_and_timeout);
    suite_add_tcase(s, lim);
    return s;
}

int main(void)
{
    test_invoker = stub_invoke;
    int failed = check_run(suite(), true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
