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
 * One connection (mcp_stdio_conn) is the session and its input state; a
 * program's own event loop may feed it (mcp_runtime_stdio_open). The serving
 * loop of mcp_runtime_serve_stdio reads with a plain blocking read(2), one
 * system call per read and none to wait: a small thread (the waker) waits on
 * the runtime's stop descriptor instead, and on a stop makes that read return
 * (see "waking the reader"). Where it cannot, the loop polls the input and
 * the stop descriptor before each read.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
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
    bool would_block;        /* the last read found nothing (a non-blocking input) */
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

/* One read from fd (the input, or the serving loop's copy of it) and its
 * lines served. False when serving is over. */
static bool conn_read(mcp_stdio_conn *c, int fd)
{
    if (mcp_session_broken(c->s))
        return false;
    ssize_t r = read(fd, c->buf + c->end, c->cap - c->end);
    c->would_block = r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    if (r < 0) {
        if (errno == EINTR || c->would_block)
            return true;
        mcp_runtime_log(c->rt, MCP_LOG_ERROR, "cannot read the input: %s", strerror(errno));
        c->failed = true;
        return false;
    }
    if (r == 0) {
        /* End of input: a last line without its newline is a message too.
         * Not after a stop: the waker ends the serving loop's reads so. */
        if (!c->skipping && c->end > c->start && !mcp_runtime_stopping(c->rt))
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

bool mcp_stdio_conn_ready(mcp_stdio_conn *c) { return conn_read(c, c->in_fd); }

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

/* ---------------------------------------------------------------- waking the reader
 *
 * The serving loop blocks in read(2) on its own copy of the input (a dup:
 * the same open file, so no flag of a descriptor shared with the parent, a
 * terminal say, changes). A stop must end that read, whenever it comes:
 *
 *   - the waker thread sleeps in poll(2) on the stop descriptor (and on a
 *     pipe that says the loop is done); on a stop it first puts, with
 *     dup2(2), an input that is at its end (a pipe without a writer) in
 *     place of the loop's copy, then sends WAKE_SIGNAL to the reading thread;
 *   - a read not yet begun reads that end at once (returns 0);
 *   - a read already blocked keeps the old input, and the signal, whose
 *     handler is installed without SA_RESTART, ends it with EINTR.
 *
 * Either way the loop sees mcp_runtime_stopping() and leaves: no stop is lost
 * between the loop's test and its read. The signal is SIGURG, ignored by
 * default and unused by programs that do not ask for out-of-band socket
 * data; the empty handler is installed once, and only when the process had
 * none: when the program handles SIGURG itself, the loop polls instead. */

#define WAKE_SIGNAL SIGURG

static void on_wake(int sig) { (void)sig; } /* there only to interrupt read(2) */

/* True when WAKE_SIGNAL ends our blocked reads: its handler is ours,
 * installed now if the process had none. */
static bool wake_signal_ours(void)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    struct sigaction cur;
    bool ours = false;
    if (sigaction(WAKE_SIGNAL, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO)) {
        if (cur.sa_handler == on_wake) {
            ours = true;
        } else if (cur.sa_handler == SIG_DFL) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_wake; /* no SA_RESTART: a blocked read returns EINTR */
            sigemptyset(&sa.sa_mask);
            ours = sigaction(WAKE_SIGNAL, &sa, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&mu);
    return ours;
}

typedef struct waker {
    const mcp_runtime *rt;
    pthread_t reader, thread;
    int read_fd;      /* the serving loop's copy of the input */
    int ended_fd;     /* a pipe's read end without a writer: always at its end */
    int done[2];      /* written when the loop is done: the waker's own end */
    sigset_t signals; /* the reading thread's signal mask before serving */
} waker;

static void *waker_main(void *arg)
{
    waker *w = arg;
    struct pollfd p[2] = {{.fd = mcp_runtime_stop_fd(w->rt), .events = POLLIN}, {.fd = w->done[0], .events = POLLIN}};
    while (poll(p, 2, -1) < 0 && errno == EINTR) {
    }
    if (p[0].revents && !p[1].revents) {
        /* The reading thread is still in the loop (it writes done before it
         * leaves, and joins this thread before closing read_fd). */
        dup2(w->ended_fd, w->read_fd);
        pthread_kill(w->reader, WAKE_SIGNAL);
    }
    return NULL;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void waker_close(waker *w)
{
    close_fd(&w->read_fd);
    close_fd(&w->ended_fd);
    close_fd(&w->done[0]);
    close_fd(&w->done[1]);
}

static bool cloexec_pipe(int p[2])
{
    if (pipe(p) != 0)
        return false;
    if (fcntl(p[0], F_SETFD, FD_CLOEXEC) == 0 && fcntl(p[1], F_SETFD, FD_CLOEXEC) == 0)
        return true;
    close(p[0]);
    close(p[1]);
    p[0] = p[1] = -1;
    return false;
}

/* Start the waker for the calling thread's reads of in_fd; false (nothing
 * started) when the loop must poll instead. */
static bool waker_start(waker *w, const mcp_runtime *rt, int in_fd)
{
    *w = (waker){.rt = rt, .reader = pthread_self(), .read_fd = -1, .ended_fd = -1, .done = {-1, -1}};
    if (!wake_signal_ours())
        return false;
    int ended[2];
    if (!cloexec_pipe(ended))
        return false;
    close(ended[1]);
    w->ended_fd = ended[0];
    w->read_fd = fcntl(in_fd, F_DUPFD_CLOEXEC, 0);
    if (w->read_fd < 0 || !cloexec_pipe(w->done)) {
        waker_close(w);
        return false;
    }
    /* The waker takes no signal of the program's; the reader takes ours
     * (the program may have blocked it in the thread that serves). */
    sigset_t all, wake;
    sigfillset(&all);
    sigemptyset(&wake);
    sigaddset(&wake, WAKE_SIGNAL);
    pthread_attr_t attr;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setstacksize(&attr, (size_t)64 << 10);
        pthread_sigmask(SIG_BLOCK, &all, &w->signals);
        started = pthread_create(&w->thread, &attr, waker_main, w) == 0;
        pthread_sigmask(SIG_SETMASK, &w->signals, NULL);
        pthread_attr_destroy(&attr);
    }
    if (!started) {
        waker_close(w);
        return false;
    }
    pthread_sigmask(SIG_UNBLOCK, &wake, NULL);
    return true;
}

static void waker_stop(waker *w)
{
    if (write(w->done[1], "", 1) < 0) {
        /* cannot fail: an empty pipe of our own */
    }
    pthread_join(w->thread, NULL);
    pthread_sigmask(SIG_SETMASK, &w->signals, NULL);
    waker_close(w);
}

/* ---------------------------------------------------------------- serving */

/* Wait until fd is readable or the runtime stops; false when poll fails. */
static bool wait_input(mcp_stdio_conn *c, int fd)
{
    struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = mcp_runtime_stop_fd(c->rt), .events = POLLIN}};
    while (poll(p, 2, -1) < 0) {
        if (errno != EINTR) {
            mcp_runtime_log(c->rt, MCP_LOG_ERROR, "poll: %s", strerror(errno));
            return false;
        }
    }
    return true;
}

/* Read and serve until the input ends or a stop: blocking reads, the waker
 * ends the last one. An input the parent made non-blocking is waited for
 * with poll when a read finds nothing. The exit status. */
static int serve_reading(mcp_stdio_conn *c, int read_fd)
{
    while (!mcp_runtime_stopping(c->rt)) {
        if (!conn_read(c, read_fd))
            return c->failed ? 1 : 0;
        if (c->would_block && !wait_input(c, read_fd))
            return 1;
    }
    return 0;
}

/* The same, without the waker: poll the input and the stop descriptor
 * before each read. */
static int serve_polling(mcp_stdio_conn *c)
{
    while (!mcp_runtime_stopping(c->rt)) {
        if (!wait_input(c, c->in_fd))
            return 1;
        if (!mcp_runtime_stopping(c->rt) && !conn_read(c, c->in_fd))
            return c->failed ? 1 : 0;
    }
    return 0;
}

int mcp_runtime_serve_stdio(mcp_runtime *rt, int in_fd, int out_fd)
{
    mcp_stdio_conn *c = mcp_runtime_stdio_open(rt, in_fd, out_fd);
    if (!c)
        return 1;
    waker w;
    int rc;
    if (waker_start(&w, rt, in_fd)) {
        rc = serve_reading(c, w.read_fd);
        waker_stop(&w);
    } else {
        rc = serve_polling(c);
    }
    if (mcp_runtime_stopping(rt))
        mcp_runtime_log(rt, MCP_LOG_INFO, "stopping: answering the requests in flight");
    mcp_stdio_conn_close(c);
    return rc;
}
