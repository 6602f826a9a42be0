/* fuzz_http: raw bytes as an HTTP connection to the Streamable HTTP transport
 * (lib/transport/http.c on libmicrohttpd), serving the weather example with the
 * handlers of weather_handlers.c.
 *
 * Everything in http.c is reached through libmicrohttpd, so the target starts
 * one server on 127.0.0.1 (an ephemeral port) in LLVMFuzzerInitialize and
 * sends each input over a new TCP connection, with "Connection: close" added
 * after its first line, then reads until the server closes or stays silent
 * for QUIET_MS (an SSE stream stays open). Where the input holds "@SID@", the
 * target first opens a session (initialize, notifications/initialized) and
 * puts its Mcp-Session-Id there, so that inputs reach the session's paths;
 * every session the exchange opened is deleted afterwards, so that the
 * session table does not fill up. Not deterministic (threads, a timeout), but
 * every input is answered on its own connection.
 *
 * Property: whatever the server sends starts with an HTTP/1.x status line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "internal/http.h"
#include "mcpidl/buf.h"

extern const mcp_server weather_server;

enum {
    QUIET_MS = 100,        /* silence that ends a reply which is not closed */
    SETUP_WAIT_MS = 10000, /* a hang guard for the target's own requests */
    MAX_REPLY = 1 << 20,
    MAX_SESSIONS = 16,
};

static mcp_http *server;
static unsigned port;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0; /* handlers on the connection's thread */
    set.max_message = 4096;
    set.log_level = MCP_LOG_QUIET;
    set.http = "127.0.0.1:0";
    set.max_sessions = MAX_SESSIONS;
    mcp_runtime *rt = mcp_runtime_new(&weather_server, &set); /* lives as long as the process */
    FUZZ_CHECK(rt != NULL);
    server = mcp_http_start(rt);
    FUZZ_CHECK(server != NULL);
    port = mcp_http_port(server);
    return 0;
}

/* Send req on a new connection; the reply, read until the server closes, or
 * until it is silent for quiet_ms. */
static mcp_buf exchange(const char *req, size_t len, int quiet_ms)
{
    mcp_buf reply;
    mcp_buf_init(&reply);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    FUZZ_CHECK(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    FUZZ_CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    for (size_t done = 0; done < len;) {
        ssize_t w = send(fd, req + done, len - done, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* the server answered early and closed: read what it said */
        done += (size_t)w;
    }
    char chunk[8192];
    while (reply.len < MAX_REPLY) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, quiet_ms) <= 0)
            break;
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r <= 0)
            break;
        mcp_buf_put(&reply, chunk, (size_t)r);
    }
    close(fd);
    FUZZ_CHECK(!reply.oom);
    return reply;
}

/* The value of every "Mcp-Session-Id:" header in text, in turn: *at moves on. */
static bool next_session_id(const mcp_buf *text, size_t *at, char *id, size_t cap)
{
    static const char NAME[] = "\r\nMcp-Session-Id:";
    const size_t n = sizeof NAME - 1;
    for (size_t i = *at; i + n <= text->len; i++) {
        if (strncasecmp(text->data + i, NAME, n) != 0)
            continue;
        size_t v = i + n;
        while (v < text->len && text->data[v] == ' ')
            v++;
        size_t e = v;
        while (e < text->len && text->data[e] != '\r' && e - v + 1 < cap)
            e++;
        memcpy(id, text->data + v, e - v);
        id[e - v] = 0;
        *at = e;
        return e > v;
    }
    return false;
}

static void post(const char *sid, const char *body, mcp_buf *reply)
{
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                     "Accept: application/json\r\nContent-Type: application/json\r\n"
                     "%s%s%sContent-Length: %zu\r\n\r\n%s",
                     sid ? "Mcp-Session-Id: " : "", sid ? sid : "", sid ? "\r\n" : "", strlen(body), body);
    FUZZ_CHECK(n > 0 && (size_t)n < sizeof req);
    *reply = exchange(req, (size_t)n, SETUP_WAIT_MS);
}

static bool open_session(char *id, size_t cap)
{
    mcp_buf reply;
    post(NULL,
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
         "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}",
         &reply);
    size_t at = 0;
    bool ok = next_session_id(&reply, &at, id, cap);
    /* Seen once in a long run under load, not reproduced since: initialize answered
     * with no session id and not "too many sessions". Shown rather than failed on, so
     * that what the server said is on record when it comes back; the input then runs
     * without a session. */
    if (!ok && !(reply.data && strstr(reply.data, "too many sessions")))
        fprintf(stderr, "fuzz_http: initialize gave no session (%zu bytes): %.*s\n", reply.len,
                (int)(reply.len < 2000 ? reply.len : 2000), reply.data ? reply.data : "");
    mcp_buf_free(&reply);
    if (ok) {
        post(id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &reply);
        mcp_buf_free(&reply);
    }
    return ok;
}

static void delete_session(const char *id)
{
    char req[256];
    int n = snprintf(req, sizeof req,
                     "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                     "Mcp-Session-Id: %s\r\n\r\n",
                     id);
    FUZZ_CHECK(n > 0 && (size_t)n < sizeof req);
    mcp_buf reply = exchange(req, (size_t)n, SETUP_WAIT_MS);
    mcp_buf_free(&reply);
}

/* The request as sent: "Connection: close" after the first line, each
 * "@SID@" replaced by sid (when there is one). */
static mcp_buf build_request(const uint8_t *data, size_t size, const char *sid)
{
    mcp_buf req;
    mcp_buf_init(&req);
    const char *p = (const char *)data, *end = p + size;
    const char *nl = memchr(p, '\n', size);
    for (bool added = false; p < end;) {
        if (!added && nl && p > nl) {
            mcp_buf_puts(&req, "Connection: close\r\n");
            added = true;
        }
        if (sid && end - p >= 5 && memcmp(p, "@SID@", 5) == 0) {
            mcp_buf_puts(&req, sid);
            p += 5;
        } else {
            mcp_buf_putc(&req, *p++);
        }
    }
    FUZZ_CHECK(!req.oom);
    return req;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char sid[128] = "";
    bool own = memmem(data, size, "@SID@", 5) && open_session(sid, sizeof sid);
    mcp_buf req = build_request(data, size, own ? sid : NULL);
    mcp_buf reply = exchange(req.data ? req.data : "", req.len, QUIET_MS);
    mcp_buf_free(&req);
    if (reply.len > 0)
        FUZZ_CHECK(reply.len >= 7 && memcmp(reply.data, "HTTP/1.", 7) == 0);

    /* Sessions the input opened itself, then ours. */
    char id[128];
    for (size_t at = 0; next_session_id(&reply, &at, id, sizeof id);)
        if (!own || strcmp(id, sid) != 0)
            delete_session(id);
    if (own)
        delete_session(sid);
    mcp_buf_free(&reply);
    return 0;
}
