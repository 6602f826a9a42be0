/* stdio.c: the stdio transport: newline-delimited JSON-RPC messages.
 *
 * Input is read with read(2) into one buffer that grows up to the message
 * limit; lines are cut with memchr and handed to the session. A line longer
 * than the limit is answered as too large as soon as it is known to be, and
 * its bytes are dropped up to the next newline without being kept. Output is
 * written with writev(2), one whole message and its newline at a time under a
 * mutex: nothing is buffered in user space, so nothing needs flushing, and
 * nothing but protocol messages reaches the output.
 */
#include "internal/session.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---------------------------------------------------------------- signals */

static volatile sig_atomic_t stop_requested;
static int stop_pipe[2] = {-1, -1};

static void on_stop_signal(int sig)
{
    int saved = errno;
    stop_requested = 1;
    if (stop_pipe[1] >= 0 && write(stop_pipe[1], "", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    /* A second signal kills as usual, should draining hang. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
}

static bool set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fd_fl = fcntl(fd, F_GETFD);
    return fl >= 0 && fd_fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) == 0;
}

bool mcp_stdio_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPIPE, &sa, NULL) != 0)
        return false;
    if (stop_pipe[0] < 0) {
        if (pipe(stop_pipe) != 0)
            return false;
        if (!set_flags(stop_pipe[0]) || !set_flags(stop_pipe[1])) {
            close(stop_pipe[0]);
            close(stop_pipe[1]);
            stop_pipe[0] = stop_pipe[1] = -1;
            return false;
        }
    }
    /* No SA_RESTART: a blocking call returns EINTR. */
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0;
}

int mcp_stop_fd(void) { return stop_pipe[0]; }

bool mcp_stop_requested(void) { return stop_requested != 0; }

/* ---------------------------------------------------------------- output */

typedef struct stdio_out {
    pthread_mutex_t mu;
    int fd;
    bool broken;
} stdio_out;

/* Wait until fd can take more (it may be non-blocking). */
static bool wait_fd(int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    for (;;) {
        int r = poll(&p, 1, -1);
        if (r > 0)
            return (p.revents & (POLLERR | POLLNVAL)) == 0 || (p.revents & events);
        if (r < 0 && errno != EINTR)
            return false;
    }
}

static bool stdio_sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n,
                       bool final)
{
    stdio_out *o = ctx;
    (void)reply_ctx;
    (void)final;
    if (n == 0) /* a request answered no more: nothing to write */
        return !o->broken;
    struct iovec iov[8];
    size_t niov = 0;
    for (size_t i = 0; i < n && niov < 7; i++)
        if (parts[i].n > 0)
            iov[niov++] = (struct iovec){(void *)parts[i].p, parts[i].n};
    iov[niov++] = (struct iovec){"\n", 1};

    pthread_mutex_lock(&o->mu);
    struct iovec *v = iov;
    while (!o->broken && niov > 0) {
        ssize_t w = writev(o->fd, v, (int)niov);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(o->fd, POLLOUT))
                continue;
            if (errno != EPIPE)
                mcp_log(MCP_LOG_ERROR, "cannot write the output: %s", strerror(errno));
            o->broken = true;
            break;
        }
        size_t done = (size_t)w;
        while (niov > 0 && done >= v->iov_len) {
            done -= v->iov_len;
            v++;
            niov--;
        }
        if (niov > 0) {
            v->iov_base = (char *)v->iov_base + done;
            v->iov_len -= done;
        }
    }
    bool ok = !o->broken;
    pthread_mutex_unlock(&o->mu);
    return ok;
}

/* ---------------------------------------------------------------- input */

#define FIRST_BUFFER ((size_t)64 << 10)

int mcp_stdio_serve(const mcp_server *server, const mcp_settings *settings, int in_fd,
                    int out_fd)
{
    stdio_out out = {.fd = out_fd, .broken = false};
    pthread_mutex_init(&out.mu, NULL);
    mcp_session *s = mcp_session_new(server, settings, stdio_sink, &out);
    if (!s) {
        mcp_log(MCP_LOG_ERROR, "cannot start the session: out of memory or no threads");
        pthread_mutex_destroy(&out.mu);
        return 1;
    }
    size_t limit = settings ? settings->max_message : MCP_DEFAULT_MAX_MESSAGE;
    if (limit > SIZE_MAX / 2)
        limit = SIZE_MAX / 2;
    /* A partial line longer than limit + 1 (room for the CR) is too large:
     * the buffer never needs to hold more than limit + 2 bytes. */
    size_t max_cap = limit + 2;
    size_t cap = FIRST_BUFFER < max_cap ? FIRST_BUFFER : max_cap;
    char *buf = malloc(cap);
    int rc = 0;
    if (!buf) {
        mcp_log(MCP_LOG_ERROR, "cannot allocate the input buffer");
        rc = 1;
    }
    size_t start = 0, end = 0, scan = 0; /* line start, data end, newline search from */
    bool skipping = false;               /* inside a line too large, dropping bytes */
    int sigfd = stop_pipe[0];

    while (buf && !stop_requested && !mcp_session_broken(s)) {
        /* Every whole line in the buffer. */
        for (;;) {
            char *nl = memchr(buf + scan, '\n', end - scan);
            if (!nl) {
                scan = end;
                break;
            }
            size_t at = (size_t)(nl - buf);
            if (skipping)
                skipping = false;
            else
                mcp_session_message(s, buf + start, at - start, NULL);
            start = scan = at + 1;
            if (stop_requested || mcp_session_broken(s))
                break;
        }
        if (stop_requested || mcp_session_broken(s))
            break;
        if (skipping) {
            start = end = scan = 0;
        } else if (end - start > limit + 1) {
            mcp_session_too_large(s, NULL);
            skipping = true;
            start = end = scan = 0;
        }
        if (start == end) {
            start = end = scan = 0;
        } else if (end == cap) {
            if (start > 0) {
                memmove(buf, buf + start, end - start);
                end -= start;
                scan -= start;
                start = 0;
            } else {
                size_t ncap = cap > max_cap / 2 ? max_cap : cap * 2;
                char *nb = realloc(buf, ncap);
                if (!nb) {
                    mcp_log(MCP_LOG_ERROR, "out of memory reading a message");
                    mcp_session_too_large(s, NULL);
                    skipping = true;
                    start = end = scan = 0;
                } else {
                    buf = nb;
                    cap = ncap;
                }
            }
        }

        if (sigfd >= 0) {
            struct pollfd p[2] = {{.fd = in_fd, .events = POLLIN}, {.fd = sigfd, .events = POLLIN}};
            int r = poll(p, 2, -1);
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                mcp_log(MCP_LOG_ERROR, "poll: %s", strerror(errno));
                rc = 1;
                break;
            }
            if (p[1].revents)
                break;
        }
        ssize_t r = read(in_fd, buf + end, cap - end);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_fd(in_fd, POLLIN))
                    continue;
            }
            mcp_log(MCP_LOG_ERROR, "cannot read the input: %s", strerror(errno));
            rc = 1;
            break;
        }
        if (r == 0) {
            /* End of input: a last line without its newline is a message too. */
            if (!skipping && end > start)
                mcp_session_message(s, buf + start, end - start, NULL);
            break;
        }
        end += (size_t)r;
    }
    if (stop_requested)
        mcp_log(MCP_LOG_INFO, "stopping on a signal: answering the requests in flight");
    free(buf);
    mcp_session_free(s); /* drains: every request in flight is answered first */
    pthread_mutex_destroy(&out.mu);
    return rc;
}
