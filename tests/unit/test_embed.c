/* test_embed.c: serving stdio from the caller's event loop (the embedding API
 * of mcpidl/runtime.h): mcp_runtime_stdio_open, mcp_stdio_conn_fd,
 * mcp_stdio_conn_ready, mcp_stdio_conn_close. Messages arrive in pieces; an
 * answer is there when ready() returns (with no workers: the handler runs in
 * it); the end of input ends the connection; with workers, the answer comes
 * from a worker. */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_run.h"
#include "test_runtime.h"

static bool stub_invoke(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    (void)call, (void)arguments;
    mcp_buf_puts(out, "{\"content\":[{\"type\":\"text\",\"text\":\"stub\"}],\"isError\":false}");
    return true;
}

static const mcp_tool TOOLS[] = {{.name = "echo", .list_entry = "{\"name\":\"echo\"}"}};
static const mcp_server SERVER = {.abi = MCPIDL_ABI, .name = "embed", .version = "1", .tools = TOOLS, .ntools = 1};

#define INIT \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
#define CALL "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}\n"
#define CALL_ANSWER \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"stub\"}]," \
    "\"isError\":false}}\n"

static void put(int fd, const char *text) { ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text)); }

/* What fd holds now, without waiting (may be ""). */
static const char *drain(int fd)
{
    static char buf[8192];
    size_t n = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            break;
        ssize_t r = read(fd, buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    buf[n] = 0;
    return buf;
}

/* One line from fd, waiting for it (the hang guard: check's timeout). */
static const char *line_from(int fd)
{
    static char buf[8192];
    size_t n = 0;
    while (n < sizeof buf - 1) {
        ssize_t r = read(fd, buf + n, 1);
        ck_assert_int_eq(r, 1);
        if (buf[n++] == '\n')
            break;
    }
    buf[n] = 0;
    return buf;
}

static mcp_runtime *rt;
static mcp_stdio_conn *conn;
static int in[2], out[2]; /* in[1]: the test writes; out[0]: the test reads */

static void open_conn(int workers)
{
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, in), 0);
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, out), 0);
    mcp_options o;
    mcp_options_default(&o);
    o.workers = workers;
    rt = test_runtime_new(&SERVER, &o);
    ck_assert_ptr_nonnull(rt);
    conn = mcp_runtime_stdio_open(rt, in[0], out[1]);
    ck_assert_ptr_nonnull(conn);
    ck_assert_int_eq(mcp_stdio_conn_fd(conn), in[0]);
}

static void close_conn(void)
{
    mcp_stdio_conn_close(conn);
    mcp_runtime_free(rt);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
}

START_TEST(pieces_then_end_of_input)
{
    open_conn(0);
    /* Half a message: nothing to answer yet. */
    put(in[1], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":");
    ck_assert(mcp_stdio_conn_ready(conn));
    ck_assert_str_eq(drain(out[0]), "");
    /* The rest: answered by the time ready() returns. */
    put(in[1], "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
               "\"version\":\"1\"}}}\n");
    ck_assert(mcp_stdio_conn_ready(conn));
    ck_assert_ptr_nonnull(strstr(drain(out[0]), "\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\""));
    /* Two messages in one read, the handler run inside ready(). */
    put(in[1], "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n" CALL);
    ck_assert(mcp_stdio_conn_ready(conn));
    ck_assert_str_eq(drain(out[0]), CALL_ANSWER);
    /* A last line without its newline is a message too; then the end. */
    put(in[1], "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    shutdown(in[1], SHUT_WR);
    bool more = true;
    for (int i = 0; i < 2 && more; i++)
        more = mcp_stdio_conn_ready(conn);
    ck_assert(!more);
    ck_assert_str_eq(drain(out[0]), "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n");
    close_conn();
}
END_TEST

START_TEST(workers_answer_after_ready)
{
    open_conn(2);
    put(in[1], INIT "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n" CALL);
    ck_assert(mcp_stdio_conn_ready(conn));
    ck_assert_ptr_nonnull(strstr(line_from(out[0]), "\"id\":1,\"result\""));
    ck_assert_str_eq(line_from(out[0]), CALL_ANSWER); /* from a worker */
    close_conn();
}
END_TEST

/* A closed connection answers what is in flight first. */
START_TEST(close_answers_in_flight)
{
    open_conn(2);
    put(in[1], INIT "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n" CALL);
    ck_assert(mcp_stdio_conn_ready(conn));
    mcp_stdio_conn_close(conn);
    conn = NULL;
    ck_assert_ptr_nonnull(strstr(line_from(out[0]), "\"id\":1,\"result\""));
    ck_assert_str_eq(line_from(out[0]), CALL_ANSWER);
    mcp_runtime_free(rt);
    close(in[0]), close(in[1]), close(out[0]), close(out[1]);
}
END_TEST

int main(void)
{
    test_invoker = stub_invoke;
    Suite *s = suite_create("embed");
    TCase *t = tcase_create("embed");
    tcase_add_test(t, pieces_then_end_of_input);
    tcase_add_test(t, workers_answer_after_ready);
    tcase_add_test(t, close_answers_in_flight);
    suite_add_tcase(s, t);
    return check_run(s, true) ? 1 : 0;
}
