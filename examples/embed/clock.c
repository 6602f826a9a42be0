/* clock.c: a program with an event loop of its own, serving MCP over stdio
 * from it (docs/c-api.md, "Embedding a server in an event loop").
 *
 * The loop polls two descriptors: a timer that ticks ten times a second (the
 * program's own work), and the MCP connection's input. When the input is
 * readable, mcp_stdio_conn_ready() reads what is there and serves it; the
 * tool's handler runs on the runtime's workers and reads the clock. */
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clock.mcp.h"

static atomic_llong ticks;

mcp_status clock_ticks(mcp_call *call, const clock_ticks_args *in, int64_t *out)
{
    (void)call, (void)in;
    *out = atomic_load(&ticks);
    return MCP_OK;
}

int main(void)
{
    mcp_options opt;
    mcp_options_default(&opt);
    opt.workers = 1;
    mcp_runtime *rt = mcp_runtime_new(&clock_server, &opt);
    if (!rt)
        return 1;
    mcp_stdio_conn *conn = mcp_runtime_stdio_open(rt, STDIN_FILENO, STDOUT_FILENO);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    struct itimerspec every = {.it_interval = {0, 100000000L}, .it_value = {0, 100000000L}};
    if (!conn || timer < 0 || timerfd_settime(timer, 0, &every, NULL) != 0) {
        mcp_stdio_conn_close(conn);
        mcp_runtime_free(rt);
        return 1;
    }
    struct pollfd fds[2] = {{.fd = timer, .events = POLLIN}, {.fd = mcp_stdio_conn_fd(conn), .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0)
            continue; /* a signal */
        if (fds[0].revents) {
            uint64_t n;
            if (read(timer, &n, sizeof n) == (ssize_t)sizeof n)
                atomic_fetch_add(&ticks, (long long)n);
        }
        if (fds[1].revents && !mcp_stdio_conn_ready(conn))
            break; /* the input ended (or the client is gone) */
    }
    mcp_stdio_conn_close(conn); /* answers what is in flight first */
    close(timer);
    mcp_runtime_free(rt);
    return 0;
}
