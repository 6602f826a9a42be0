/* stdio.c: the stdio transport: newline-delimited JSON-RPC messages, on the
 * transport API (mcpidl/transport.h) alone.
 *
 * Input is read with read(2) into one buffer that grows up to the message
 * limit; lines are cut with memchr and handed to the session. A line longer
 * than the limit is answered as too large as soon as it is known to be, and
 * its bytes are dropped up to the next newline without being kept. Output is
 * written with writev(2), one whole message and its newline at a time under a
 * mutex, so nothing but protocol messages reaches the output. The answers
 * the reading thread itself writes while it handles the lines of one read
 * (--workers 0 answers everything there) are gathered and written together
 * once those lines are done, before the next read: a client that pipelines
 * its requests costs one write per read, not one per answer. A worker writes
 * at once, after whatever the reading thread gathered (under the same mutex),
 * so answers never overtake what was written before them.
 *
 * One connection (mcp_stdio_conn) is the session and its input state; the
 * serving loop waits on the input and the runtime's stop descriptor and
 * feeds the connection, as a program's own event loop may
 * (mcp_runtime_stdio_open).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

#define FIRST_BUFFER ((size_t)64 << 10)

/* ---------------------------------------------------------------- output */

typedef struct stdio_out {
    pthread_mutex_t mu;
    const mcp_runtime *rt;
    int fd;
    bool broken;
    mcp_buf gathered; /* under mu: the reading thread's answers, not yet written */
} stdio_out;

/* On the reading thread, while it handles one read's lines: the output its
 * answers are gathered for (per thread, so workers never see it). */
static _Thread_local stdio_out *gathering;

/* Past this, gathered answers are written at once. */
#define GATHER_MAX ((size_t)64 << 10)

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

/* Under o->mu: write the iovecs whole (false once the output is broken). */
static bool write_all(stdio_out *o, struct iovec *v, size_t niov)
{
    while (!o->broken && niov > 0) {
        ssize_t w = writev(o->fd, v, (int)niov);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_fd(o->fd, POLLOUT))
                continue;
            if (errno != EPIPE)
                mcp_runtime_log(o->rt, MCP_LOG_ERROR, "cannot write the output: %s", strerror(errno));
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
    return !o->broken;
}

/* Under o->mu: write what the reading thread gathered. */
static bool write_gathered(stdio_out *o)
{
    if (o->gathered.len == 0)
        return !o->broken;
    struct iovec v = {o->gathered.data, o->gathered.len};
    bool ok = write_all(o, &v, 1);
    if (o->gathered.cap > 2 * GATHER_MAX) { /* not kept after a burst */
        mcp_buf_free(&o->gathered);
        mcp_buf_init(&o->gathered);
    }
    mcp_buf_clear(&o->gathered);
    return ok;
}

static bool flush_gathered(stdio_out *o)
{
    pthread_mutex_lock(&o->mu);
    bool ok = write_gathered(o);
    pthread_mutex_unlock(&o->mu);
    return ok;
}

static bool stdio_sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    stdio_out *o = ctx;
    (void)reply_ctx;
    (void) final;
    if (n == 0) /* a request answered no more: nothing to write */
        return !o->broken;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += parts[i].n;
    if (gathering == o && total < GATHER_MAX) { /* a large answer is written as it is, in order */
        pthread_mutex_lock(&o->mu);
        size_t before = o->gathered.len;
        for (size_t i = 0; i < n; i++)
            mcp_buf_put(&o->gathered, parts[i].p, parts[i].n);
        mcp_buf_putc(&o->gathered, '\n');
        bool ok = !o->broken;
        if (!o->gathered.oom) {
            if (o->gathered.len >= GATHER_MAX)
                ok = write_gathered(o);
            pthread_mutex_unlock(&o->mu);
            return ok;
        }
        /* No memory to gather: what was gathered before goes first, then this. */
        o->gathered.len = before;
        ok = write_gathered(o);
        mcp_buf_free(&o->gathered);
        mcp_buf_init(&o->gathered);
        pthread_mutex_unlock(&o->mu);
        if (!ok)
            return false;
    }
    struct iovec iov[8];
    size_t niov = 0;
    for (size_t i = 0; i < n && niov < 7; i++)
        if (parts[i].n > 0)
            iov[niov++] = (struct iovec){(void *)parts[i].p, parts[i].n};
    iov[niov++] = (struct iovec){"\n", 1};

    pthread_mutex_lock(&o->mu);
    bool ok = write_gathered(o) && write_all(o, iov, niov);
    pthread_mutex_unlock(&o->mu);
    return ok;
}

/* ---------------------------------------------------------------- a connection */

struct mcp_stdio_conn {
    mcp_runtime *rt;
    mcp_session *s;
    stdio_out out;
    int in_fd;
    char *buf;
    size_t cap, max_cap, limit;
    size_t start, end, scan; /* line start, data end, newline search from */
    bool skipping;           /* inside a line too large, dropping bytes */
    bool failed;             /* reading failed (not the end of input) */
};

mcp_stdio_conn *mcp_runtime_stdio_open(mcp_runtime *rt, int in_fd, int out_fd)
{
    mcp_stdio_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->rt = rt;
    c->in_fd = in_fd;
    c->out = (stdio_out){.rt = rt, .fd = out_fd};
    mcp_buf_init(&c->out.gathered);
    pthread_mutex_init(&c->out.mu, NULL);
    c->limit = mcp_runtime_options(rt)->max_message;
    if (c->limit > SIZE_MAX / 2)
        c->limit = SIZE_MAX / 2;
    /* A partial line longer than limit + 1 (room for the CR) is too large:
     * the buffer never needs to hold more than limit + 2 bytes. */
    c->max_cap = c->limit + 2;
    c->cap = FIRST_BUFFER < c->max_cap ? FIRST_BUFFER : c->max_cap;
    c->buf = malloc(c->cap);
    c->s = c->buf ? mcp_session_new(rt, stdio_sink, &c->out) : NULL;
    if (!c->s) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "cannot start the session: out of memory or no threads");
        mcp_stdio_conn_close(c);
        return NULL;
    }
    return c;
}

int mcp_stdio_conn_fd(const mcp_stdio_conn *c) { return c->in_fd; }

/* Every whole line in the buffer to the session; then make room for more.
 * False when the session is gone. */
static bool serve_lines(mcp_stdio_conn *c)
{
    for (;;) {
        char *nl = memchr(c->buf + c->scan, '\n', c->end - c->scan);
        if (!nl) {
            c->scan = c->end;
            break;
        }
        size_t at = (size_t)(nl - c->buf);
        if (c->skipping)
            c->skipping = false;
        else
            mcp_session_message(c->s, c->buf + c->start, at - c->start, NULL);
        c->start = c->scan = at + 1;
        if (mcp_runtime_stopping(c->rt) || mcp_session_broken(c->s))
            return false;
    }
    if (c->skipping) {
        c->start = c->end = c->scan = 0;
    } else if (c->end - c->start > c->limit + 1) {
        mcp_session_too_large(c->s, NULL);
        c->skipping = true;
        c->start = c->end = c->scan = 0;
    }
    if (c->start == c->end) {
        c->start = c->end = c->scan = 0;
    } else if (c->end == c->cap) {
        if (c->start > 0) {
            memmove(c->buf, c->buf + c->start, c->end - c->start);
            c->end -= c->start;
            c->scan -= c->start;
            c->start = 0;
        } else {
            size_t ncap = c->cap > c->max_cap / 2 ? c->max_cap : c->cap * 2;
            char *nb = realloc(c->buf, ncap);
            if (!nb) {
                mcp_runtime_log(c->rt, MCP_LOG_ERROR, "out of memory reading a message");
                mcp_session_too_large(c->s, NULL);
                c->skipping = true;
                c->start = c->end = c->scan = 0;
            } else {
                c->buf = nb;
                c->cap = ncap;
            }
        }
    }
    return true;
}

bool mcp_stdio_conn_ready(mcp_stdio_conn *c)
{
    if (mcp_session_broken(c->s))
        return false;
    ssize_t r = read(c->in_fd, c->buf + c->end, c->cap - c->end);
    if (r < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
            return true;
        mcp_runtime_log(c->rt, MCP_LOG_ERROR, "cannot read the input: %s", strerror(errno));
        c->failed = true;
        return false;
    }
    if (r == 0) {
        /* End of input: a last line without its newline is a message too. */
        if (!c->skipping && c->end > c->start)
            mcp_session_message(c->s, c->buf + c->start, c->end - c->start, NULL);
        return false;
    }
    c->end += (size_t)r;
    gathering = &c->out;
    bool more = serve_lines(c);
    gathering = NULL;
    if (!flush_gathered(&c->out))
        more = false;
    return more && !mcp_session_broken(c->s);
}

void mcp_stdio_conn_close(mcp_stdio_conn *c)
{
    if (!c)
        return;
    mcp_session_free(c->s); /* drains: every request in flight is answered first */
    mcp_buf_free(&c->out.gathered);
    free(c->buf);
    pthread_mutex_destroy(&c->out.mu);
    free(c);
}

/* ---------------------------------------------------------------- serving */

int mcp_runtime_serve_stdio(mcp_runtime *rt, int in_fd, int out_fd)
{
    mcp_stdio_conn *c = mcp_runtime_stdio_open(rt, in_fd, out_fd);
    if (!c)
        return 1;
    int stop_fd = mcp_runtime_stop_fd(rt);
    int rc = 0;
    while (!mcp_runtime_stopping(rt)) {
        struct pollfd p[2] = {{.fd = in_fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
        int r = poll(p, 2, -1);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            mcp_runtime_log(rt, MCP_LOG_ERROR, "poll: %s", strerror(errno));
            rc = 1;
            break;
        }
        if (p[1].revents)
            break;
        if (!mcp_stdio_conn_ready(c)) {
            rc = c->failed ? 1 : 0;
            break;
        }
    }
    if (mcp_runtime_stopping(rt))
        mcp_runtime_log(rt, MCP_LOG_INFO, "stopping: answering the requests in flight");
    mcp_stdio_conn_close(c);
    return rc;
}
