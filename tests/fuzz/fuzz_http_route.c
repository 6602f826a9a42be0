/* fuzz_http_route: a sequence of HTTP requests, answered in process by the
 * core of the Streamable HTTP transport (lib/transport/http.c through
 * http_route.h: no socket, no libmicrohttpd, no thread), serving the weather
 * example with the handlers of weather_handlers.c.
 *
 * The input is up to MAX_REQUESTS requests separated by lines "%%", each
 *
 *     METHOD URL [anything]
 *     Name: value
 *     ...
 *                                  (a blank line)
 *     body
 *
 * with "\n" or "\r\n" line ends. "@SID@" anywhere in a request stands for
 * the id of the newest session the input opened (initialize answered with an
 * Mcp-Session-Id); when it has opened none, the target opens one first
 * (initialize, notifications/initialized). A body longer than max_message,
 * or a Content-Length header above it, is dropped as the libmicrohttpd glue
 * drops it. The server has no workers: every handler runs inside
 * http_route(), so the whole exchange is deterministic (the session ids
 * aside, which are random and only ever compared).
 *
 * Properties of every answer:
 *  - its status is one the transport may give to that method (403, 404, 405
 *    to anything; 200, 202, 400, 404, 406, 413, 415, 503 to a POST; 200,
 *    400, 404, 406 to a GET; 200, 400, 404 to a DELETE); never 500;
 *  - an error status comes with a JSON-RPC error as application/json, with
 *    an integer code and a message, and no id unless the session gave the
 *    error (400 to a POST), and then never a null one; 405 comes with Allow;
 *  - 202 has no body; a DELETE's 200 has none; a GET's 200 is an SSE stream;
 *    a POST's 200 is a JSON-RPC response with an id (an array for a batch),
 *    or an SSE stream whose last event is one;
 *  - an SSE stream is well formed: "id: N-K" events of one stream N, K
 *    rising, each data line a JSON-RPC 2.0 object after the priming event; a
 *    POST's stream is complete when http_route() returns (no workers); a
 *    GET of the standalone stream is never complete while the session lives;
 *  - a new Mcp-Session-Id comes only with a 200 to a POST that carried none,
 *    answered with an initialize result, is 32 hex digits, and is new; the server's session count is always the
 *    number of sessions opened and not deleted; a deleted session's id gets
 *    no 2xx any more.
 * Every session left is deleted at the end (200 each), and the count must
 * come back to 0.
 *
 * FUZZ_HTTP_TRACE=1 in the environment prints each request's first line and
 * its answer on stderr (to see what a seed or a reproducer does).
 */
#define _GNU_SOURCE
#include <string.h>
#include <strings.h>

#include "fuzz_util.h"
#include "internal/http_route.h"
#include "mcpidl/arena.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"

extern const mcp_server weather_server;

enum {
    MAX_REQUESTS = 16,
    MAX_HEADERS = 16,
    MAX_SESSIONS = 4, /* so that "too many sessions" is reached */
    MAX_MESSAGE = 4096,
    MAX_SSE = 1 << 20, /* bytes read from one SSE answer */
    ID_LEN = 32,
};

static mcp_http *server;
static bool trace;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0; /* handlers inside http_route() */
    set.max_message = MAX_MESSAGE;
    set.log_level = MCP_LOG_QUIET;
    set.max_sessions = MAX_SESSIONS;
    set.allow_hosts[set.nallow++] = "mcp.example";
    trace = getenv("FUZZ_HTTP_TRACE") != NULL;
    mcp_runtime *rt = mcp_runtime_new(&weather_server, &set); /* lives as long as the process */
    FUZZ_CHECK(rt != NULL);
    server = http_core_new(rt);
    FUZZ_CHECK(server != NULL);
    return 0;
}

/* ---------------------------------------------------------------- requests */

typedef struct header {
    char *name, *value;
} header;

typedef struct request {
    char *method, *url;
    header headers[MAX_HEADERS];
    size_t nheaders;
    char *body; /* exactly len bytes, no terminator (as a buffer the glue might hand over) */
    size_t len;
} request;

static const char *request_header(void *conn, const char *name)
{
    const request *r = conn;
    for (size_t i = 0; i < r->nheaders; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

static char *copy(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    FUZZ_CHECK(s != NULL);
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* text[0..n) with each "@SID@" replaced by sid (when there is one). */
static mcp_buf substitute(const char *text, size_t n, const char *sid)
{
    mcp_buf b;
    mcp_buf_init(&b);
    FUZZ_CHECK(mcp_buf_reserve(&b, n + 1));
    for (size_t i = 0; i < n;) {
        if (sid && n - i >= 5 && memcmp(text + i, "@SID@", 5) == 0) {
            mcp_buf_puts(&b, sid);
            i += 5;
        } else {
            mcp_buf_putc(&b, text[i++]);
        }
    }
    FUZZ_CHECK(!b.oom);
    return b;
}

/* The line at *p (before end), without its "\n" or "\r\n"; *p moves past it. */
static const char *next_line(const char **p, const char *end, size_t *len)
{
    const char *start = *p;
    const char *nl = memchr(start, '\n', (size_t)(end - start));
    const char *stop = nl ? nl : end;
    *p = nl ? nl + 1 : end;
    *len = (size_t)(stop - start);
    if (*len > 0 && start[*len - 1] == '\r')
        (*len)--;
    return start;
}

/* Parse one request of text[0..n) (its "@SID@" already replaced). */
static void parse_request(const char *text, size_t n, request *r)
{
    memset(r, 0, sizeof *r);
    const char *p = text, *end = text + n;
    size_t len;
    const char *line = next_line(&p, end, &len);
    const char *sp = memchr(line, ' ', len);
    size_t mlen = sp ? (size_t)(sp - line) : len;
    r->method = copy(line, mlen);
    const char *u = sp ? sp + 1 : line + len;
    const char *uend = memchr(u, ' ', (size_t)(line + len - u));
    r->url = copy(u, (size_t)((uend ? uend : line + len) - u));
    while (p < end) {
        line = next_line(&p, end, &len);
        if (len == 0)
            break;
        const char *colon = memchr(line, ':', len);
        if (!colon || r->nheaders == MAX_HEADERS)
            continue;
        const char *v = colon + 1;
        while (v < line + len && (*v == ' ' || *v == '\t'))
            v++;
        header *h = &r->headers[r->nheaders++];
        h->name = copy(line, (size_t)(colon - line));
        h->value = copy(v, (size_t)(line + len - v));
    }
    r->len = (size_t)(end - p);
    if (r->len > 0) {
        r->body = malloc(r->len);
        FUZZ_CHECK(r->body != NULL);
        memcpy(r->body, p, r->len);
    }
}

static void request_free(request *r)
{
    free(r->method);
    free(r->url);
    for (size_t i = 0; i < r->nheaders; i++) {
        free(r->headers[i].name);
        free(r->headers[i].value);
    }
    free(r->body);
}

/* ---------------------------------------------------------------- the sessions this input knows */

typedef struct sessions {
    char live[MAX_SESSIONS + 1][ID_LEN + 1];
    int nlive;
    char dead[MAX_REQUESTS + MAX_SESSIONS][ID_LEN + 1];
    int ndead;
    char newest[ID_LEN + 1]; /* "@SID@" */
} sessions;

static int find_live(const sessions *ss, const char *id)
{
    for (int i = 0; i < ss->nlive; i++)
        if (strcmp(ss->live[i], id) == 0)
            return i;
    return -1;
}

static bool is_dead(const sessions *ss, const char *id)
{
    for (int i = 0; i < ss->ndead; i++)
        if (strcmp(ss->dead[i], id) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- checking answers */

static mcp_json *parse_json(mcp_arena *a, const char *text, size_t len)
{
    mcp_json_limits lim = {.max_depth = MCP_JSON_DEPTH_CAP};
    return mcp_json_parse(a, text, len, &lim, NULL, NULL);
}

static bool is_jsonrpc(const mcp_json *m)
{
    const mcp_json *v = mcp_json_get(m, "jsonrpc");
    return m && m->kind == MCP_JOBJECT && v && v->kind == MCP_JSTRING && strcmp(v->s, "2.0") == 0;
}

/* A response: an id (never null) and a result or an error. */
static bool is_response(const mcp_json *m)
{
    const mcp_json *id = mcp_json_get(m, "id");
    return is_jsonrpc(m) && id && (id->kind == MCP_JINT || id->kind == MCP_JSTRING) &&
           (mcp_json_get(m, "result") != NULL) != (mcp_json_get(m, "error") != NULL);
}

/* The answer to an initialize that succeeded. */
static bool is_init_result(const mcp_json *m)
{
    const mcp_json *r = mcp_json_get(m, "result");
    const mcp_json *v = mcp_json_get(r, "protocolVersion");
    return is_response(m) && r && r->kind == MCP_JOBJECT && v && v->kind == MCP_JSTRING;
}

static void check_error_body(const http_resp *a, bool id_allowed)
{
    FUZZ_CHECK(a->content_type && strcmp(a->content_type, "application/json") == 0);
    FUZZ_CHECK(a->sse == NULL && a->body != NULL);
    mcp_arena ar;
    mcp_arena_init(&ar);
    mcp_json *m = parse_json(&ar, a->body, a->len);
    FUZZ_CHECK(is_jsonrpc(m));
    const mcp_json *e = mcp_json_get(m, "error");
    FUZZ_CHECK(e && e->kind == MCP_JOBJECT);
    const mcp_json *code = mcp_json_get(e, "code"), *msg = mcp_json_get(e, "message");
    FUZZ_CHECK(code && code->kind == MCP_JINT && msg && msg->kind == MCP_JSTRING);
    FUZZ_CHECK(!mcp_json_get(m, "result"));
    const mcp_json *id = mcp_json_get(m, "id");
    FUZZ_CHECK(!id || (id_allowed && (id->kind == MCP_JINT || id->kind == MCP_JSTRING)));
    mcp_arena_free(&ar);
}

/* A POST's JSON answer: a response, or the array of a batch's. True when
 * it is an initialize result. */
static bool check_json_answer(const http_resp *a)
{
    FUZZ_CHECK(a->content_type && strcmp(a->content_type, "application/json") == 0);
    mcp_arena ar;
    mcp_arena_init(&ar);
    mcp_json *m = parse_json(&ar, a->body ? a->body : "", a->len);
    FUZZ_CHECK(m != NULL);
    if (m->kind == MCP_JARRAY) {
        FUZZ_CHECK(m->n > 0);
        for (size_t i = 0; i < m->n; i++)
            FUZZ_CHECK(is_response(m->items[i]));
    } else {
        FUZZ_CHECK(is_response(m));
    }
    bool init = is_init_result(m);
    mcp_arena_free(&ar);
    return init;
}

/* "id: N-K" at the start of an event: N and K. */
static bool event_id(const char *ev, size_t len, unsigned long long *n, unsigned long long *k)
{
    char line[64];
    const char *nl = memchr(ev, '\n', len);
    if (!nl || (size_t)(nl - ev) >= sizeof line)
        return false;
    memcpy(line, ev, (size_t)(nl - ev));
    line[nl - ev] = 0;
    int used = 0;
    return sscanf(line, "id: %llu-%llu%n", n, k, &used) == 2 && line[used] == 0;
}

/* Read an SSE answer as far as it goes without waiting, and check it; true
 * when it is complete. *last_response: its last event was a response;
 * *last_init: an initialize result. */
static bool check_sse(http_sse *r, bool *last_response, bool *last_init)
{
    mcp_buf text;
    mcp_buf_init(&text);
    char chunk[4096];
    ssize_t n = 0; /* (the loop runs at least once) */
    while (text.len < MAX_SSE && (n = http_sse_read(r, chunk, sizeof chunk, false)) > 0)
        mcp_buf_put(&text, chunk, (size_t)n);
    FUZZ_CHECK(!text.oom);
    bool complete = text.len < MAX_SSE && n == HTTP_SSE_END;
    FUZZ_CHECK(text.len >= MAX_SSE || n == HTTP_SSE_END || n == HTTP_SSE_AGAIN);

    /* Events end with a blank line; the first one primes (no data). */
    unsigned long long stream = 0, prev = 0;
    bool bare = false;
    *last_response = *last_init = false;
    size_t at = 0, count = 0;
    while (at < text.len) {
        const char *ev = text.data + at;
        const char *stop = memmem(ev, text.len - at, "\n\n", 2);
        if (!stop) {
            FUZZ_CHECK(!complete); /* a complete stream ends on an event's end */
            break;
        }
        size_t len = (size_t)(stop - ev) + 2;
        at += len;
        if (len >= 2 && ev[0] == ':') /* a comment (keep-alive) */
            continue;
        /* A 2026-07-28 stream is bare: "data:" events, no ids, no priming. */
        if (count == 0)
            bare = len >= 6 && memcmp(ev, "data: ", 6) == 0;
        const char *data;
        if (bare) {
            FUZZ_CHECK(len >= 6 && memcmp(ev, "data: ", 6) == 0);
            data = ev + 6;
            count++;
        } else {
            unsigned long long sn, k;
            FUZZ_CHECK(event_id(ev, len, &sn, &k));
            data = memmem(ev, len, "\ndata: ", 7);
            FUZZ_CHECK(data != NULL);
            data += 7;
            size_t plen = (size_t)(stop - data);
            if (count++ == 0) {
                FUZZ_CHECK(memmem(ev, len, "\nretry: ", 8) != NULL && plen == 0);
                stream = sn;
                prev = k;
                continue;
            }
            FUZZ_CHECK(sn == stream && k > prev);
            prev = k;
        }
        size_t dlen = (size_t)(stop - data);
        mcp_arena ar;
        mcp_arena_init(&ar);
        mcp_json *m = parse_json(&ar, data, dlen);
        FUZZ_CHECK(is_jsonrpc(m));
        *last_response = is_response(m);
        *last_init = is_init_result(m);
        mcp_arena_free(&ar);
    }
    FUZZ_CHECK(count > 0 || text.len >= MAX_SSE);
    mcp_buf_free(&text);
    return complete;
}

static bool status_allowed(const char *method, unsigned status)
{
    switch (status) {
    case 403:
    case 404:
    case 405:
        return true;
    case 200:
    case 400:
        return !strcmp(method, "POST") || !strcmp(method, "GET") || !strcmp(method, "DELETE");
    case 406:
        return !strcmp(method, "POST") || !strcmp(method, "GET");
    case 202:
    case 413:
    case 415:
    case 503:
        return !strcmp(method, "POST");
    default:
        return false;
    }
}

/* One request through the core, its answer checked and the sessions updated. */
static void exchange(const request *rq, sessions *ss)
{
    bool too_large = rq->len > MAX_MESSAGE;
    const char *cl = request_header((void *)rq, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > MAX_MESSAGE)
        too_large = true;
    http_req req = {.method = rq->method,
                    .url = rq->url,
                    .header = request_header,
                    .conn = (void *)rq,
                    .body = too_large ? NULL : rq->body,
                    .len = too_large ? 0 : rq->len,
                    .too_large = too_large};
    FUZZ_CHECK(http_core_sessions(server) == ss->nlive);
    http_resp a;
    http_route(server, &req, &a);

    if (trace)
        fprintf(stderr, "  %s %s -> %u %s%s %.*s\n", rq->method, rq->url, a.status,
                a.content_type ? a.content_type : "-", a.session_id[0] ? " (new session)" : "",
                (int)(a.len < 200 ? a.len : 200), a.body ? a.body : "");
    const char *m = rq->method;
    bool post = !strcmp(m, "POST"), get = !strcmp(m, "GET"), del = !strcmp(m, "DELETE");
    const char *sid = request_header((void *)rq, "Mcp-Session-Id");
    FUZZ_CHECK(status_allowed(m, a.status));
    if (!request_header((void *)rq, "Host"))
        FUZZ_CHECK(a.status == 403);
    if (strcmp(rq->url, "/mcp") != 0)
        FUZZ_CHECK(a.status == 403 || a.status == 404);
    /* A 2026-07-28 request (its header, or its body's _meta, names a
     * protocol version) has no session: an Mcp-Session-Id is ignored, and its
     * errors carry its id with 400, 404 or 503. */
    const char *pv = request_header((void *)rq, "MCP-Protocol-Version");
    bool modern = (pv && strcmp(pv, "2026-07-28") == 0) ||
                  (rq->body && memmem(rq->body, rq->len, "io.modelcontextprotocol/protocolVersion", 39));
    if (sid && is_dead(ss, sid) && find_live(ss, sid) < 0 && !modern)
        FUZZ_CHECK(a.status >= 400);

    if (a.status >= 400) {
        check_error_body(&a, post && (a.status == 400 || (modern && (a.status == 404 || a.status == 503))));
        FUZZ_CHECK((a.allow || a.allow_post_only) == (a.status == 405));
    } else {
        FUZZ_CHECK(!a.allow && !a.allow_post_only);
    }
    if (a.status == 202)
        FUZZ_CHECK(a.body == NULL && a.len == 0 && !a.sse && !a.content_type);
    if (a.status == 200 && del)
        FUZZ_CHECK(a.body == NULL && !a.sse && !a.content_type);
    if (a.status == 200 && get)
        FUZZ_CHECK(a.sse != NULL);
    bool initialized = false; /* the answer is an initialize result */
    if (a.sse) {
        FUZZ_CHECK(a.status == 200 && (post || get) && a.body == NULL);
        FUZZ_CHECK(a.content_type && strcmp(a.content_type, "text/event-stream") == 0);
        bool last_response;
        bool complete = check_sse(a.sse, &last_response, &initialized);
        if (post)
            FUZZ_CHECK(complete && last_response);
        const char *resume = request_header((void *)rq, "Last-Event-ID");
        if (get && !resume && sid && find_live(ss, sid) >= 0)
            FUZZ_CHECK(!complete); /* the standalone stream lives as long as its session */
    } else if (a.status == 200 && post) {
        initialized = check_json_answer(&a);
    }

    /* Sessions: a new one only from a POST without one that initialized
     * it, and the count follows. */
    if (a.session_id[0]) {
        FUZZ_CHECK(post && !sid && a.status == 200 && initialized);
        FUZZ_CHECK(strlen(a.session_id) == ID_LEN && strspn(a.session_id, "0123456789abcdef") == ID_LEN);
        FUZZ_CHECK(find_live(ss, a.session_id) < 0 && !is_dead(ss, a.session_id));
        FUZZ_CHECK(ss->nlive < MAX_SESSIONS);
        memcpy(ss->live[ss->nlive++], a.session_id, ID_LEN + 1);
        memcpy(ss->newest, a.session_id, ID_LEN + 1);
    }
    if (del && a.status == 200) {
        int i = sid ? find_live(ss, sid) : -1;
        FUZZ_CHECK(i >= 0);
        if (ss->ndead < (int)(sizeof ss->dead / sizeof ss->dead[0]))
            memcpy(ss->dead[ss->ndead++], sid, ID_LEN + 1);
        memmove(ss->live[i], ss->live[i + 1], (size_t)(ss->nlive - i - 1) * sizeof ss->live[0]);
        ss->nlive--;
    }
    FUZZ_CHECK(http_core_sessions(server) == ss->nlive);
    http_resp_free(&a);
}

/* A request the target makes itself (opening or deleting a session). */
static void exchange_text(const char *text, sessions *ss)
{
    mcp_buf b = substitute(text, strlen(text), ss->newest[0] ? ss->newest : NULL);
    request rq;
    parse_request(b.data, b.len, &rq);
    exchange(&rq, ss);
    request_free(&rq);
    mcp_buf_free(&b);
}

static void open_session(sessions *ss)
{
    exchange_text("POST /mcp\nHost: localhost\nAccept: application/json\n"
                  "Content-Type: application/json\n\n"
                  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                  "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  "\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}",
                  ss);
    if (ss->newest[0])
        exchange_text("POST /mcp\nHost: localhost\nContent-Type: application/json\n"
                      "Mcp-Session-Id: @SID@\n\n"
                      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                      ss);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sessions ss = {0};
    const char *p = (const char *)data, *end = p + size;
    for (int i = 0; i < MAX_REQUESTS && p < end; i++) {
        const char *sep = memmem(p, (size_t)(end - p), "\n%%\n", 4);
        const char *stop = sep ? sep + 1 : end; /* the request keeps its last line end */
        if (!ss.newest[0] && memmem(p, (size_t)(stop - p), "@SID@", 5))
            open_session(&ss);
        mcp_buf text = substitute(p, (size_t)(stop - p), ss.newest[0] ? ss.newest : NULL);
        request rq;
        parse_request(text.data ? text.data : "", text.len, &rq);
        exchange(&rq, &ss);
        request_free(&rq);
        mcp_buf_free(&text);
        p = sep ? sep + 4 : end;
    }
    /* Leave the server as it was: every session deleted. */
    while (ss.nlive > 0) {
        char req[128];
        snprintf(req, sizeof req, "DELETE /mcp\nHost: localhost\nMcp-Session-Id: %s\n\n", ss.live[0]);
        int live = ss.nlive;
        exchange_text(req, &ss);
        FUZZ_CHECK(ss.nlive == live - 1);
    }
    FUZZ_CHECK(http_core_sessions(server) == 0);
    return 0;
}
