/* http.c: Streamable HTTP (MCP 2025-11-25 transports) on libmicrohttpd.
 *
 * Threads. libmicrohttpd serves every connection from a pool of threads (one
 * per CPU, epoll). A request that waits (a JSON answer to come, an SSE
 * stream to be fed) holds no thread: its connection is parked (suspended)
 * on its stream, and woken (resumed) when the stream has something for it;
 * a ticker thread wakes the streams due for a keep-alive comment and notices
 * 2026-07-28 clients gone while they wait. Driven without the glue (tests),
 * the core blocks the calling thread instead. Calls into one mcp_session are
 * serialised by the session's msg_mu (the session has one "reading thread"
 * at a time); tool handlers run on one worker pool shared by every session.
 *
 * Streams. Every POST carrying a request gets a stream, the reply context
 * the session passes back to the sink with each message for it. An SSE
 * stream keeps its events (bounded: --replay-bytes, default 1 MiB) so that a
 * client can resume after Last-Event-ID "N-K" (stream N, events after K);
 * stream 0 is the session's standalone stream (GET), which receives the
 * messages that belong to no request. A JSON stream waits for its final
 * message and is answered with it. Stream state is guarded by the session's
 * mu; each stream has a condition variable a blocked reader waits on, and
 * the one parked connection to wake.
 *
 * Lifetimes. A session (hsession) is referenced by the table and by each
 * connection using it; ending it (DELETE, idle expiry, stop) takes it out of
 * the table, closes its streams and frees its mcp_session (which answers or
 * drops the requests in flight); the memory goes with the last reference.
 *
 * Layers (http_route.h). The core, everything up to "libmicrohttpd glue"
 * below, takes a request as an http_req and answers with an http_resp; it
 * never calls libmicrohttpd, so that a test can drive it in process. The
 * glue reads requests off connections and writes the answers back.
 */
#define _GNU_SOURCE
#include "internal/http.h"
#include "mcpidl/generated.h"
#include "internal/http_route.h"
#include "internal/auth.h"
#include "internal/tls.h"
#include "internal/httplibs.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mcpidl/arena.h"
#include "mcpidl/json.h"
#include "mcpidl/jsonw.h"

#define KEEPALIVE_SECONDS 15
/* Keep-alive comments sent per tick at most (TICKS_PER_SECOND ticks a
 * second): streams opened together fall due together, and thousands of
 * wake-ups at once would hold the HTTP threads for milliseconds; the rest go
 * out at the next ticks, late by a fraction of a second. 2,560 a second
 * serve 38,400 idle streams at one comment each 15 s. */
#define KEEPALIVE_BATCH 256
#define TICKS_PER_SECOND 10
/* An SSE answer to a POST waits this long (give or take the ticker's second)
 * for its first message before its headers and priming event go out. */
#define SSE_HOLD_SECONDS 1
/* A finished SSE stream up to this size goes out as one body (one write);
 * a larger one is read as it comes, never copied whole besides its events. */
#define SSE_WHOLE_MAX ((size_t)256 << 10)
#define MAX_KEPT_STREAMS 32 /* finished streams kept per session for resumption */
#define SESSION_ID_BYTES 16
/* An id: the node's name (--node-id, at most 32 bytes), '-', 32 hex digits. */
#define SESSION_ID_MAX (32 + 1 + 2 * SESSION_ID_BYTES)
#define SESSION_BUCKETS 4096 /* the index of sessions by id */
/* Stateless sessions kept for the next 2026-07-28 requests (h->spare): as
 * many as the requests a busy server has in flight, about 10 KB each. */
#define SPARE_SESSIONS 256


/* ---------------------------------------------------------------- types */

typedef struct event {
    struct event *next;
    uint64_t seq;
    size_t len;
    int refs;    /* the stream's list, and a reader in the middle of sending it */
    char text[]; /* "id: N-K\ndata: JSON\n\n" */
} event;

typedef struct hsession hsession;

/* What a POST body is, as far as HTTP cares: a request (answered 200, as
 * JSON or SSE), a batch (which the session accepts or refuses), or something
 * else the session will answer with an error carrying no id (answered 400,
 * as the transport section of the specification says: a body that is not a
 * request, notification or response is a bad request). Notifications and
 * responses count as requests here: the session takes them and they are
 * answered 202. */
typedef enum { BODY_REQUEST, BODY_BATCH, BODY_BAD } body_kind;

/* What a request's glue lets the core do with its connection (http_req). */
typedef struct hooks {
    void (*waiting)(const mcp_http *h, void *conn, bool on);
    bool (*gone)(void *conn);
    void (*park)(void *conn);
    void (*wake)(void *conn);
    void *conn;
} hooks;

/* The connection parked on a stream (park glue): woken by stream_wake, or
 * by http_core_tick from the park queue it is on. Under h->park_mu. */
typedef struct parked {
    const void *owner; /* the http_sse or http_pending parked */
    void (*wake)(void *conn);
    void *conn;
    bool (*gone)(void *conn); /* a 2026-07-28 wait: asked by http_core_tick */
    bool *gone_seen;          /* set when gone() says so */
    time_t due;               /* an SSE reader: a keep-alive is due then (monotonic) */
    bool *ping;               /* set when it is due */
    int queue;                /* the park queue it is on (PARK_*; PARK_NONE, 0, for none) */
    struct stream *qprev, *qnext;
} parked;

/* The park queues the ticker looks at (h->park): parked connections with
 * something due at a time, each queue in the order of that time (the same
 * delay for all its entries: a FIFO is sorted), and those whose client may
 * go away, looked at every tick. A connection parked with nothing due is on
 * none: the ticker never steps through idle streams. */
enum { PARK_NONE, PARK_KEEPALIVE, PARK_HOLD, PARK_GONE, PARK_QUEUES };
typedef struct park_queue {
    struct stream *head, *tail;
} park_queue;

typedef struct stream {
    struct stream *next; /* the session's list (streams or kept) */
    struct stream *prev; /* on kept: the newer neighbour */
    hsession *hs;
    uint64_t num; /* 0: the standalone stream */
    bool json;    /* answered as application/json */
    bool bare;    /* 2026-07-28: events without ids (nothing to resume), no priming event */
    bool final;   /* the session is done with it (its final call came) */
    bool closed;  /* no more events: final, or the session ended */
    event *head, *tail;
    size_t bytes;
    uint64_t next_seq; /* the next event's number (from 1) */
    uint64_t sent_seq; /* events before this one reached a reader */
    uint64_t gen;      /* a reader whose generation differs was superseded */
    uint64_t cut;      /* mcp_close_stream: the POST's own reader ends before event `cut`
                          * (0: never); a resumed reader goes on */
    int readers;       /* connections using it (an SSE reader, a JSON waiter) */
    char *body;        /* JSON mode: the answer */
    size_t body_len;
    char *req_id;     /* JSON mode: the request's id as JSON text (NULL: none, a batch) */
    uint64_t missed;  /* events a slow reader lost to the replay bound */
    auth_caller *who; /* the request's caller, kept until the stream goes (auth.h) */
    pthread_cond_t cv;
    parked park; /* park.wake == NULL: nobody parked */
} stream;

struct hsession {
    hsession *next, *prev; /* the table */
    hsession *hnext;       /* the table's index by id (a 2025 session); on h->spare, the next */
    mcp_http *h;
    char id[SESSION_ID_MAX + 1]; /* "" for a stateless session: never found by id */
    bool stateless;              /* one 2026-07-28 request's: ends with it */
    int refs;                    /* under h->mu: the table's and one per connection */
    time_t last_used;            /* under h->mu */
    bool in_table;               /* under h->mu */
    bool drained;                /* under h->mu: mcp_http_stop has waited for its calls */
    bool reusable;               /* stateless: its request answered, s ready for another */

    pthread_mutex_t msg_mu; /* serialises calls into s */
    mcp_session *s;         /* NULL once ended */

    pthread_mutex_t mu; /* the streams */
    bool dead;
    stream *streams; /* in use: the standalone stream, POST streams, resumed ones */
    /* Finished SSE streams nobody reads, kept for resumption (streams_gc),
     * newest first, apart from `streams` so that neither a request nor the
     * per-second walk steps through them. */
    stream *kept, *kept_tail;
    int nkept;
    size_t kept_bytes; /* their events' bytes, all of them */
    stream *standalone;
    uint64_t next_stream;
    char *owner;         /* with auth: who started it ("iss sub"); only they may use it */
    hsession *reap_next; /* under h->tick_mu: on h->reap */
};

struct mcp_http {
    mcp_runtime *rt;
    const mcp_options *opt;
    struct MHD_Daemon *d;
    unsigned port;
    const char *path;
    const char *const *allow;
    size_t nallow;
    int max_sessions, idle_seconds;
    size_t replay_bytes;
    int timeout_seconds;
    size_t max_inflight; /* request bodies held at once, all connections */
    atomic_bool stopping;
    atomic_bool draining; /* stopping soon: no new sessions, in-flight calls finish */

    pthread_mutex_t mu;
    hsession *sessions;
    hsession *index[SESSION_BUCKETS]; /* the 2025 sessions by id */
    int nsessions;                    /* 2025 sessions in the table */
    int nstateless;                   /* 2026-07-28 requests in flight, each with its session */
    /* Stateless sessions between two requests, ready for the next (out of
     * the table): a 2026-07-28 request costs no session's creation. */
    hsession *spare;
    int nspare;
    unsigned long reused; /* requests served by a spare session (http_core_reused) */
    /* The tools whose parameters ride in Mcp-Param-* headers. */
    const mcp_tool **header_tools;
    size_t nheader_tools;
    size_t inflight; /* under mu: bytes of request bodies held (max_inflight) */

    /* Serialises the parse of POSTs without a session (initialize), as each
     * session's msg_mu does for its own: one message tree at a time. */
    pthread_mutex_t new_mu;

    http_auth *auth; /* NULL: no authorization (auth.h) */
    http_tls *tls;   /* NULL: plain HTTP (tls.h) */

    /* The streams' park states, and the queues of those due at a time
     * (taken under a session's mu, never the other way round). */
    pthread_mutex_t park_mu;
    park_queue park[PARK_QUEUES]; /* [PARK_NONE] unused */

    /* The glue's ticker thread (http_core_tick TICKS_PER_SECOND times a second). */
    pthread_t ticker;
    pthread_mutex_t tick_mu;
    pthread_cond_t tick_cv; /* on CLOCK_MONOTONIC */
    bool tick_stop;
    bool reaper;    /* under tick_mu: the ticker ends the sessions on `reap` */
    hsession *reap; /* under tick_mu: 2026-07-28 sessions to end, referenced */
};

struct http_sse {
    hsession *hs;
    stream *st;
    uint64_t gen;
    bool own; /* the POST's reader (not a resumption): `cut` applies */
    uint64_t next_seq;
    event *cur; /* the event being sent, referenced (NULL between events) */
    size_t off; /* bytes of cur sent */
    char pre[96];
    size_t pre_len, pre_off;
    hooks hk;  /* the request's */
    bool ping; /* parked: a keep-alive comment is due */
    /* The glue (mhd_sse_read): the most a read has written into the buffer
     * since its pages were last given back, and whether they ever were. */
    size_t wrote;
    bool released;
};

/* What a parked answer waits for (wait_over). */
typedef enum {
    WAIT_END,   /* a JSON answer: the stream's end */
    WAIT_FIRST, /* a 2026-07-28 request with SSE: its first message */
    WAIT_SSE,   /* a 2025-11-25 SSE answer: its first message, or SSE_HOLD_SECONDS */
} wait_for;

/* An answer not there yet, its connection parked (http_route.h). */
struct http_pending {
    hsession *hs;
    stream *st;
    body_kind kind;
    wait_for wait;
    bool gone; /* http_core_tick: the client went away */
    bool due;  /* http_core_tick: WAIT_SSE held long enough, the stream starts */
    bool has_sid;
    char sid[SESSION_ID_MAX + 1];
    hooks hk;
};

/* ---------------------------------------------------------------- small helpers */

static void *xcalloc(size_t n, size_t sz) { return calloc(n, sz); }

static hooks hooks_of(const http_req *rq)
{
    return (hooks){.waiting = rq->waiting, .gone = rq->gone, .park = rq->park, .wake = rq->wake, .conn = rq->conn};
}

static time_t mono_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

static void wait_secs(pthread_cond_t *cv, pthread_mutex_t *mu, int secs)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += secs;
    pthread_cond_timedwait(cv, mu, &ts);
}

static bool header_has(const char *v, const char *token)
{
    if (!v)
        return false;
    size_t n = strlen(token);
    for (const char *p = v; *p; p++)
        if (strncasecmp(p, token, n) == 0)
            return true;
    return false;
}

/* A JSON-RPC error body, without an id (none is known). */
void http_resp_error(http_resp *out, unsigned status, int code, const char *message)
{
    http_resp_free(out);
    *out = (http_resp){0};
    char text[512];
    int n = snprintf(text, sizeof text, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":%d,\"message\":\"%s\"}}", code,
                     message);
    if (n < 0 || (size_t)n >= sizeof text)
        n = 0;
    out->body = malloc((size_t)n + 1);
    if (!out->body)
        return; /* status 0: the connection is closed */
    memcpy(out->body, text, (size_t)n + 1);
    out->len = (size_t)n;
    out->status = status;
    out->content_type = "application/json";
    out->allow = status == 405;
}

static void resp_empty(http_resp *out, unsigned status, const char *sid)
{
    *out = (http_resp){.status = status};
    if (sid)
        snprintf(out->session_id, sizeof out->session_id, "%s", sid);
}

void http_resp_free(http_resp *r)
{
    free(r->body);
    r->body = NULL;
    if (r->sse)
        http_sse_free(r->sse);
    r->sse = NULL;
    free(r->www_authenticate);
    r->www_authenticate = NULL;
    if (r->pending)
        http_pending_free(r->pending);
    r->pending = NULL;
}

/* ---------------------------------------------------------------- host and origin */

static bool host_allowed(const mcp_http *h, const char *name, size_t n)
{
    static const char *const LOCAL[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(LOCAL[i]) == n && strncasecmp(name, LOCAL[i], n) == 0)
            return true;
    for (size_t i = 0; i < h->nallow; i++)
        if (strlen(h->allow[i]) == n && strncasecmp(name, h->allow[i], n) == 0)
            return true;
    return http_auth_host_ok(h->auth, name, n);
}

/* "name", "name:port", "[v6]", "[v6]:port": the length of the name part
 * (brackets included), or 0 when malformed. */
static size_t host_name_len(const char *v)
{
    size_t n;
    if (v[0] == '[') {
        const char *e = strchr(v, ']');
        if (!e)
            return 0;
        n = (size_t)(e - v) + 1;
    } else {
        n = strcspn(v, ":");
    }
    if (v[n] == ':') {
        if (!v[n + 1])
            return 0;
        for (const char *p = v + n + 1; *p; p++)
            if (*p < '0' || *p > '9')
                return 0;
    } else if (v[n]) {
        return 0;
    }
    return n;
}

static bool host_ok(const mcp_http *h, const char *v)
{
    if (!v || !*v)
        return false;
    size_t n = host_name_len(v);
    return n > 0 && host_allowed(h, v, n);
}

static bool origin_ok(const mcp_http *h, const char *v)
{
    const char *rest;
    if (strncasecmp(v, "http://", 7) == 0)
        rest = v + 7;
    else if (strncasecmp(v, "https://", 8) == 0)
        rest = v + 8;
    else
        return false;
    char hostport[300];
    size_t len = strcspn(rest, "/");
    if (len == 0 || len >= sizeof hostport || (rest[len] && strcmp(rest + len, "/") != 0))
        return false;
    memcpy(hostport, rest, len);
    hostport[len] = 0;
    return host_ok(h, hostport);
}

/* ---------------------------------------------------------------- streams */

/* Under hs->mu: a stream of hs, not yet on its list (stream_link). */
static stream *stream_new(hsession *hs, bool json)
{
    stream *st = xcalloc(1, sizeof *st);
    if (!st)
        return NULL;
    st->hs = hs;
    st->num = hs->next_stream++;
    st->json = json;
    st->next_seq = 1;
    st->sent_seq = 1;
    pthread_cond_init(&st->cv, NULL);
    return st;
}

/* Under hs->mu: on the session's list, where GET finds it to resume, the
 * session's end closes it, and streams_gc frees it. */
static void stream_link(hsession *hs, stream *st)
{
    st->next = hs->streams;
    hs->streams = st;
}

/* Under h->park_mu: st off its park queue, its park state cleared. */
static void park_clear(mcp_http *h, stream *st)
{
    parked *pk = &st->park;
    if (pk->queue != PARK_NONE) {
        park_queue *q = &h->park[pk->queue];
        if (pk->qprev)
            pk->qprev->park.qnext = pk->qnext;
        else
            q->head = pk->qnext;
        if (pk->qnext)
            pk->qnext->park.qprev = pk->qprev;
        else
            q->tail = pk->qprev;
    }
    *pk = (parked){.queue = PARK_NONE};
}

/* Under h->park_mu: the connection parked on st woken, once. */
static void park_wake(mcp_http *h, stream *st)
{
    parked pk = st->park;
    park_clear(h, st);
    if (pk.wake)
        pk.wake(pk.conn);
}

/* Under hs->mu: whoever waits on st looks again (a blocked thread, or the
 * connection parked on it, woken once). */
static void stream_wake(stream *st)
{
    mcp_http *h = st->hs->h;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_lock(&h->park_mu);
    park_wake(h, st);
    pthread_mutex_unlock(&h->park_mu);
}

/* Under hs->mu: park the connection of hk on st (a connection parked there
 * before is woken first: it looks again). */
static void stream_park(stream *st, const void *owner, const hooks *hk, bool *gone_seen, bool *ping, int ping_secs)
{
    mcp_http *h = st->hs->h;
    pthread_mutex_lock(&h->park_mu);
    if (st->park.wake && st->park.owner != owner)
        park_wake(h, st);
    park_clear(h, st);
    int queue = gone_seen && hk->gone                   ? PARK_GONE
                : ping && ping_secs == SSE_HOLD_SECONDS ? PARK_HOLD
                : ping                                  ? PARK_KEEPALIVE
                                                        : PARK_NONE;
    st->park = (parked){.owner = owner,
                        .wake = hk->wake,
                        .conn = hk->conn,
                        .gone = gone_seen ? hk->gone : NULL,
                        .gone_seen = gone_seen,
                        .due = ping ? mono_secs() + ping_secs : 0,
                        .ping = ping,
                        .queue = queue};
    if (queue != PARK_NONE) { /* at the tail: its time is the latest of the queue's */
        park_queue *q = &h->park[queue];
        st->park.qprev = q->tail;
        if (q->tail)
            q->tail->park.qnext = st;
        else
            q->head = st;
        q->tail = st;
    }
    pthread_mutex_unlock(&h->park_mu);
    hk->park(hk->conn);
}

/* Under hs->mu: owner no longer waits on st. */
static void stream_unpark(stream *st, const void *owner)
{
    mcp_http *h = st->hs->h;
    pthread_mutex_lock(&h->park_mu);
    if (st->park.wake && st->park.owner == owner)
        park_clear(h, st);
    pthread_mutex_unlock(&h->park_mu);
}

static void event_unref(event *e)
{
    if (--e->refs == 0)
        free(e);
}

/* Nobody uses st any more (no reader, no waiter, the session is done with it). */
static void stream_free(stream *st)
{
    assert(st->readers == 0);
    assert(st->park.queue == PARK_NONE); /* a parked connection is a reader */
    for (event *e = st->head, *next; e; e = next) {
        next = e->next;
        event_unref(e);
    }
    free(st->body);
    free(st->req_id);
    auth_caller_unref(st->who);
    pthread_cond_destroy(&st->cv);
    free(st);
}

/* Under hs->mu: a finished SSE stream onto the kept list, in its place by
 * number (usually the front). */
static void kept_insert(hsession *hs, stream *st)
{
    stream *after = NULL, *at = hs->kept; /* newest first: by number, from the newest */
    while (at && at->num > st->num) {
        after = at;
        at = at->next;
    }
    st->prev = after;
    st->next = at;
    if (after)
        after->next = st;
    else
        hs->kept = st;
    if (at)
        at->prev = st;
    else
        hs->kept_tail = st;
    hs->nkept++;
    hs->kept_bytes += st->bytes;
}

static void kept_unlink(hsession *hs, stream *st)
{
    if (st->prev)
        st->prev->next = st->next;
    else
        hs->kept = st->next;
    if (st->next)
        st->next->prev = st->prev;
    else
        hs->kept_tail = st->prev;
    st->next = st->prev = NULL;
    hs->nkept--;
    hs->kept_bytes -= st->bytes;
}

/* Under hs->mu: the finished streams nobody uses leave the session's list:
 * a JSON stream (nothing to resume) is freed, an SSE stream kept for
 * resumption, and the kept beyond the bound freed, oldest first: a session
 * keeps the newest MAX_KEPT_STREAMS, the newest whatever its size, the
 * others while their events add up to at most MAX_KEPT_STREAMS x
 * replay_bytes. */
static void streams_gc(hsession *hs)
{
    for (stream **pp = &hs->streams; *pp;) {
        stream *st = *pp;
        if (st != hs->standalone && st->final && st->readers == 0) {
            *pp = st->next;
            if (st->json)
                stream_free(st);
            else
                kept_insert(hs, st);
            continue;
        }
        pp = &st->next;
    }
    /* The oldest go first; the newest stays whatever its size. */
    size_t budget = (size_t)MAX_KEPT_STREAMS * hs->h->replay_bytes;
    while (hs->kept_tail != hs->kept && (hs->nkept > MAX_KEPT_STREAMS || hs->kept_bytes - hs->kept->bytes > budget)) {
        stream *old = hs->kept_tail;
        kept_unlink(hs, old);
        stream_free(old);
    }
}

/* Under hs->mu: the SSE stream numbered num, in use or kept (then back in
 * use: a reader is about to take it); NULL when there is none. */
static stream *stream_find(hsession *hs, uint64_t num)
{
    for (stream *st = hs->streams; st; st = st->next)
        if (st->num == num && !st->json)
            return st;
    for (stream *st = hs->kept; st; st = st->next)
        if (st->num == num) {
            kept_unlink(hs, st);
            stream_link(hs, st);
            return st;
        }
    return NULL;
}

/* Free every stream of hs, in use or kept. */
static void streams_free(hsession *hs)
{
    for (stream *lists[2] = {hs->streams, hs->kept}, **l = lists; l < lists + 2; l++)
        for (stream *st = *l, *next; st; st = next) {
            next = st->next;
            stream_free(st);
        }
    hs->streams = hs->kept = hs->kept_tail = NULL;
    hs->nkept = 0;
    hs->kept_bytes = 0;
}

/* Under hs->mu: drop the oldest events beyond replay_bytes, keeping the
 * newest (a stream's answer is never dropped before it is sent). A reader
 * that has not sent them yet skips them: a client that reads slower than
 * the server writes loses the oldest events, never the server its memory. A
 * reader in the middle of an event keeps it alive (its reference). */
static void stream_trim(stream *st)
{
    while (st->bytes > st->hs->h->replay_bytes && st->head != st->tail) {
        event *e = st->head;
        st->head = e->next;
        st->bytes -= e->len;
        event_unref(e);
    }
}

/* Under hs->mu. */
static void stream_append(stream *st, const mcp_out_part *parts, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += parts[i].n;
    char idbuf[64];
    int idn = st->bare ? snprintf(idbuf, sizeof idbuf, "data: ")
                       : snprintf(idbuf, sizeof idbuf, "id: %llu-%llu\ndata: ", (unsigned long long)st->num,
                                  (unsigned long long)st->next_seq);
    size_t total = (size_t)idn + len + 2;
    event *e = malloc(sizeof *e + total);
    if (!e) {
        mcp_runtime_log(st->hs->h->rt, MCP_LOG_ERROR, "http: out of memory: an event is lost");
        return;
    }
    e->next = NULL;
    e->seq = st->next_seq++;
    e->len = total;
    e->refs = 1;
    memcpy(e->text, idbuf, (size_t)idn);
    size_t at = (size_t)idn;
    for (size_t i = 0; i < n; i++) {
        memcpy(e->text + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    memcpy(e->text + at, "\n\n", 2);
    if (st->tail)
        st->tail->next = e;
    else
        st->head = e;
    st->tail = e;
    st->bytes += total;
    stream_trim(st);
}

static char *join_parts(const mcp_out_part *parts, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += parts[i].n;
    char *b = malloc(total + 1);
    if (!b)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(b + at, parts[i].p, parts[i].n);
        at += parts[i].n;
    }
    b[total] = 0;
    *len = total;
    return b;
}

/* The session's sink: each message to the stream of its request. */
static bool http_sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    hsession *hs = ctx;
    stream *st = reply_ctx;
    pthread_mutex_lock(&hs->mu);
    if (!st) {
        if (n > 0 && hs->standalone && !hs->standalone->closed)
            stream_append(hs->standalone, parts, n);
        if (hs->standalone)
            stream_wake(hs->standalone);
    } else if (st->json) {
        if (final) {
            if (n > 0 && !st->body) {
                st->body = join_parts(parts, n, &st->body_len);
                if (!st->body)
                    mcp_runtime_log(hs->h->rt, MCP_LOG_ERROR, "http: out of memory: an answer is lost");
            }
            st->final = st->closed = true;
            stream_wake(st);
            streams_gc(hs);
        } else if (n > 0 && hs->standalone && !hs->standalone->closed) {
            /* A JSON answer carries one message: the others go to the GET stream. */
            stream_append(hs->standalone, parts, n);
            stream_wake(hs->standalone);
        }
    } else if (n == 0 && !final) {
        /* mcp_close_stream: the POST's reader ends its response before the
         * events that follow, which wait for the client to resume with
         * Last-Event-ID. Marked by position, not by ending the reader now:
         * the handler may get here before the POST's reader is attached. */
        if (!st->cut)
            st->cut = st->next_seq;
        stream_wake(st);
    } else {
        if (n > 0 && !st->closed)
            stream_append(st, parts, n);
        if (final)
            st->final = st->closed = true;
        stream_wake(st);
        if (final)
            streams_gc(hs);
    }
    pthread_mutex_unlock(&hs->mu);
    return true;
}

/* ---------------------------------------------------------------- sessions */

/* A session id: --node-id's prefix (so that a proxy routes the session
 * back to this replica), then 128 random bits in hex. */
static bool random_id(const char *node, char *out)
{
    if (node) {
        size_t n = strlen(node);
        memcpy(out, node, n);
        out[n] = '-';
        out += n + 1;
    }
    unsigned char raw[SESSION_ID_BYTES];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        got += (size_t)r;
    }
    static const char HEX[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = HEX[raw[i] >> 4];
        out[2 * i + 1] = HEX[raw[i] & 15];
    }
    out[2 * sizeof raw] = 0;
    return true;
}

static void hsession_drop(hsession *hs, bool used);
static void hsession_unref(hsession *hs) { hsession_drop(hs, true); }

/* The index bucket of a session id (FNV-1a). */
static size_t session_bucket(const char *id)
{
    uint32_t x = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++)
        x = (x ^ *p) * 16777619u;
    return x % SESSION_BUCKETS;
}

/* End a session: take it out of the table (when there), close its streams,
 * free its mcp_session, or with `keep` (a stateless one whose request was
 * answered) keep that for the next request when it can be reused. Any
 * thread holding a reference; not under h->mu. */
static void session_close(hsession *hs, bool keep)
{
    mcp_http *h = hs->h;
    pthread_mutex_lock(&h->mu);
    bool was = hs->in_table;
    if (was) {
        if (hs->prev)
            hs->prev->next = hs->next;
        else
            h->sessions = hs->next;
        if (hs->next)
            hs->next->prev = hs->prev;
        hs->next = hs->prev = NULL;
        if (!hs->stateless)
            for (hsession **pp = &h->index[session_bucket(hs->id)]; *pp; pp = &(*pp)->hnext)
                if (*pp == hs) {
                    *pp = hs->hnext;
                    break;
                }
        hs->in_table = false;
        if (hs->stateless)
            h->nstateless--;
        else
            h->nsessions--;
    }
    pthread_mutex_unlock(&h->mu);

    pthread_mutex_lock(&hs->msg_mu);
    pthread_mutex_lock(&hs->mu);
    hs->dead = true;
    for (stream *st = hs->streams; st; st = st->next) {
        st->closed = true;
        stream_wake(st);
    }
    pthread_mutex_unlock(&hs->mu);
    if (keep && hs->s && !atomic_load(&h->draining) && mcp_session_reuse(hs->s)) {
        hs->reusable = true;
    } else if (hs->s) {
        mcp_session *s = hs->s;
        hs->s = NULL;
        mcp_session_close(s);
        mcp_session_free(s); /* the final calls of what was in flight come here */
    }
    pthread_mutex_unlock(&hs->msg_mu);
    if (was)
        hsession_unref(hs);
}

static void hsession_end(hsession *hs) { session_close(hs, false); }

/* The last reference to a stateless session whose request was answered
 * (hsession_finish) is gone: its streams go, the session and its
 * mcp_session wait on h->spare for the next 2026-07-28 request. False when
 * the spare list is full or the server stops (the caller frees it). */
static bool hsession_keep(hsession *hs)
{
    mcp_http *h = hs->h;
    streams_free(hs);
    hs->next_stream = 1;
    hs->dead = false;
    hs->drained = false;
    hs->reusable = false;
    free(hs->owner);
    hs->owner = NULL;
    pthread_mutex_lock(&h->mu);
    bool keep = h->nspare < SPARE_SESSIONS && h->nspare < h->max_sessions && !atomic_load(&h->draining);
    if (keep) {
        hs->hnext = h->spare;
        h->spare = hs;
        h->nspare++;
    }
    pthread_mutex_unlock(&h->mu);
    return keep;
}

/* Drop a reference; `used`: a connection's (the session is idle from the
 * end of its last connection on), not the ticker's. */
static void hsession_drop(hsession *hs, bool used)
{
    mcp_http *h = hs->h;
    pthread_mutex_lock(&h->mu);
    bool last = --hs->refs == 0;
    if (used)
        hs->last_used = time(NULL);
    pthread_mutex_unlock(&h->mu);
    if (!last)
        return;
    if (hs->reusable && hsession_keep(hs))
        return;
    if (hs->s) { /* never in the table, or kept for reuse */
        mcp_session_free(hs->s);
        hs->s = NULL;
    }
    streams_free(hs);
    pthread_mutex_destroy(&hs->mu);
    pthread_mutex_destroy(&hs->msg_mu);
    free(hs->owner);
    free(hs);
}

/* The session with this id, referenced; NULL when unknown. */
/* End a 2026-07-28 request's session whose client went away, and drop the
 * caller's reference. Ending it waits for its handler to see the
 * cancellation: with a reaper (the glue's ticker thread) that wait is the
 * ticker's, not that of the thread serving connections. */
static void hsession_end_soon(hsession *hs)
{
    mcp_http *h = hs->h;
    pthread_mutex_lock(&h->tick_mu);
    if (h->reaper) {
        hs->reap_next = h->reap;
        h->reap = hs;
        pthread_cond_signal(&h->tick_cv);
        pthread_mutex_unlock(&h->tick_mu);
        return;
    }
    pthread_mutex_unlock(&h->tick_mu);
    hsession_end(hs);
    hsession_unref(hs);
}

/* The ticker: end the sessions handed over by hsession_end_soon. */
static void hsession_reap(mcp_http *h)
{
    pthread_mutex_lock(&h->tick_mu);
    hsession *list = h->reap;
    h->reap = NULL;
    pthread_mutex_unlock(&h->tick_mu);
    while (list) {
        hsession *hs = list;
        list = hs->reap_next;
        hsession_end(hs);
        hsession_unref(hs);
    }
}

static hsession *hsession_find(mcp_http *h, const char *id)
{
    pthread_mutex_lock(&h->mu);
    hsession *hs = h->index[session_bucket(id)];
    while (hs && strcmp(hs->id, id) != 0)
        hs = hs->hnext;
    if (hs) {
        hs->refs++;
        hs->last_used = time(NULL);
    }
    pthread_mutex_unlock(&h->mu);
    return hs;
}

void mcp_http_sweep(mcp_http *h)
{
    time_t now = time(NULL);
    for (;;) {
        hsession *victim = NULL;
        pthread_mutex_lock(&h->mu);
        for (hsession *hs = h->sessions; hs; hs = hs->next)
            if (!hs->stateless && hs->refs == 1 && now - hs->last_used >= h->idle_seconds) {
                victim = hs;
                victim->refs++;
                break;
            }
        pthread_mutex_unlock(&h->mu);
        if (!victim)
            return;
        mcp_runtime_log(h->rt, MCP_LOG_INFO, "http: session %.8s... expired", victim->id);
        hsession_end(victim);
        hsession_unref(victim);
    }
}

/* Under h->mu: hs in the table (counted), referenced by it and the caller. */
static void table_add(mcp_http *h, hsession *hs)
{
    hs->refs = 2;
    hs->in_table = true;
    hs->last_used = time(NULL);
    hs->next = h->sessions;
    hs->prev = NULL;
    if (h->sessions)
        h->sessions->prev = hs;
    h->sessions = hs;
    if (!hs->stateless) {
        size_t b = session_bucket(hs->id);
        hs->hnext = h->index[b];
        h->index[b] = hs;
        h->nsessions++;
    } else {
        h->nstateless++;
    }
}

/* A new session, in the table, referenced for the caller; NULL when the
 * table is full (*full set) or out of memory. A stateless one serves one
 * 2026-07-28 request and ends with it; it is in the table (so that stopping
 * finds it) without an id, and counted apart (max_sessions of each kind). */
static hsession *hsession_new(mcp_http *h, bool stateless, bool *full)
{
    *full = false;
    if (!stateless) /* expired 2025 sessions make no room for 2026-07-28 requests */
        mcp_http_sweep(h);
    hsession *hs = xcalloc(1, sizeof *hs);
    if (!hs)
        return NULL;
    hs->h = h;
    hs->next_stream = 1;
    pthread_mutex_init(&hs->mu, NULL);
    pthread_mutex_init(&hs->msg_mu, NULL);
    hs->refs = 1;
    if (!stateless && !random_id(h->opt->node_id, hs->id))
        goto fail;
    if (!stateless) { /* a 2026-07-28 request has no GET stream: what belongs to no request is dropped */
        hs->standalone = xcalloc(1, sizeof *hs->standalone);
        if (!hs->standalone)
            goto fail;
        stream *sa = hs->standalone;
        sa->hs = hs;
        sa->num = 0;
        sa->next_seq = sa->sent_seq = 1;
        pthread_cond_init(&sa->cv, NULL);
        hs->streams = sa;
    }
    hs->s = mcp_session_new(h->rt, http_sink, hs);
    if (!hs->s)
        goto fail;
    hs->stateless = stateless;
    if (stateless)
        mcp_session_set_stateless(hs->s);
    /* Connections must not wait on one another: past the queue's bounds a
     * request is refused (503), not waited for. */
    mcp_session_refuse_when_full(hs->s);
    pthread_mutex_lock(&h->mu);
    int *count = stateless ? &h->nstateless : &h->nsessions;
    if (*count >= h->max_sessions) {
        pthread_mutex_unlock(&h->mu);
        *full = true;
        goto fail;
    }
    table_add(h, hs);
    pthread_mutex_unlock(&h->mu);
    return hs;
fail:
    hsession_unref(hs);
    return NULL;
}

/* A session for one 2026-07-28 request: a spare one when there is one
 * (hsession_keep), else new; NULL as hsession_new. */
static hsession *hsession_stateless(mcp_http *h, bool *full)
{
    pthread_mutex_lock(&h->mu);
    hsession *hs = NULL;
    *full = h->nstateless >= h->max_sessions;
    if (!*full && h->spare) {
        hs = h->spare;
        h->spare = hs->hnext;
        h->nspare--;
        h->reused++;
        hs->hnext = NULL;
        table_add(h, hs);
    }
    pthread_mutex_unlock(&h->mu);
    return hs || *full ? hs : hsession_new(h, true, full);
}

/* A 2026-07-28 request's session, its request answered (and its client
 * still there): ended as hsession_end does, but its mcp_session, ready for
 * another request, is kept with it for the next (hsession_keep, once the
 * last reference goes); and the caller's reference dropped. */
static void hsession_finish(hsession *hs)
{
    session_close(hs, true);
    hsession_unref(hs);
}

/* ---------------------------------------------------------------- SSE readers */

/* Under hs->mu: the reader is done with the event it was sending. */
static void reader_drop_event(http_sse *r)
{
    if (r->cur)
        event_unref(r->cur);
    r->cur = NULL;
    r->off = 0;
}

/* Under hs->mu: up to max bytes of r's next event (or the rest of the one it
 * is in), or 0 when the stream holds nothing more for r. */
static size_t reader_copy(http_sse *r, stream *st, char *buf, size_t max)
{
    event *e = r->cur;
    if (!e) {
        e = st->head;
        while (e && e->seq < r->next_seq)
            e = e->next;
        if (!e)
            return 0;
        if (e->seq > r->next_seq) { /* dropped by the replay bound: lost to this reader */
            st->missed += e->seq - r->next_seq;
            mcp_runtime_log(r->hs->h->rt, MCP_LOG_INFO, "http: stream %llu: a slow reader missed %llu event(s)",
                            (unsigned long long)st->num, (unsigned long long)(e->seq - r->next_seq));
            r->next_seq = e->seq;
        }
        r->cur = e;
        r->off = 0;
        e->refs++;
    }
    size_t n = e->len - r->off;
    if (n > max)
        n = max;
    memcpy(buf, e->text + r->off, n);
    r->off += n;
    if (r->off == e->len) {
        r->next_seq = e->seq + 1;
        reader_drop_event(r);
        if (r->next_seq > st->sent_seq)
            st->sent_seq = r->next_seq;
    }
    return n;
}

ssize_t http_sse_read(http_sse *r, char *buf, size_t max, bool wait)
{
    /* As much as there is, up to max: the priming event and the events the
     * stream holds go out together (one chunk, one write). */
    size_t got = 0;
    if (r->pre_off < r->pre_len) {
        got = r->pre_len - r->pre_off;
        if (got > max)
            got = max;
        memcpy(buf, r->pre + r->pre_off, got);
        r->pre_off += got;
        if (r->pre_off < r->pre_len)
            return (ssize_t)got;
    }
    hsession *hs = r->hs;
    stream *st = r->st;
    mcp_http *h = hs->h;
    static const char PING[] = ": keep-alive\n\n";
    if (r->hk.waiting)
        r->hk.waiting(h, r->hk.conn, true);
    ssize_t ret = HTTP_SSE_END;
    pthread_mutex_lock(&hs->mu);
    for (;;) {
        if (st->gen != r->gen)
            break; /* superseded by a newer reader */
        /* mcp_close_stream ends the POST's own response between events. */
        if (!r->cur && r->own && st->cut && r->next_seq >= st->cut)
            break;
        if (max == got) {
            ret = (ssize_t)got;
            break;
        }
        size_t n = reader_copy(r, st, buf + got, max - got);
        if (n > 0) {
            got += n;
            r->ping = false;
            continue;
        }
        if (got > 0) {
            ret = (ssize_t)got;
            break;
        }
        /* Stopping, a reader still delivers what its stream holds. */
        if (st->closed || atomic_load(&h->stopping))
            break;
        if (!wait && r->ping) { /* parked for KEEPALIVE_SECONDS with nothing to send */
            r->ping = false;
            ret = 0;
            if (max >= sizeof PING - 1) {
                memcpy(buf, PING, sizeof PING - 1);
                ret = (ssize_t)(sizeof PING - 1);
            }
            break;
        }
        if (!wait) {
            if (r->hk.park)
                stream_park(st, r, &r->hk, NULL, &r->ping, KEEPALIVE_SECONDS);
            ret = HTTP_SSE_AGAIN;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += KEEPALIVE_SECONDS;
        if (pthread_cond_timedwait(&st->cv, &hs->mu, &ts) == ETIMEDOUT) {
            /* A comment now and then: finds out whether the client is still there. */
            ret = 0;
            if (max >= sizeof PING - 1) {
                memcpy(buf, PING, sizeof PING - 1);
                ret = (ssize_t)(sizeof PING - 1);
            }
            break;
        }
    }
    pthread_mutex_unlock(&hs->mu);
    if (r->hk.waiting)
        r->hk.waiting(h, r->hk.conn, false);
    if (ret == HTTP_SSE_END && got > 0)
        ret = (ssize_t)got; /* what was copied goes first; the end comes next time */
    return ret;
}

void http_sse_free(http_sse *r)
{
    hsession *hs = r->hs;
    pthread_mutex_lock(&hs->mu);
    reader_drop_event(r);
    stream_unpark(r->st, r);
    assert(r->st->readers > 0);
    r->st->readers--;
    streams_gc(hs);
    pthread_mutex_unlock(&hs->mu);
    /* A 2026-07-28 request ends with its stream: closed before its answer,
     * it is cancelled (the handler's call sees it, nothing more is sent). */
    if (hs->stateless)
        hsession_end_soon(hs);
    else
        hsession_unref(hs);
    free(r);
}

/* Answer with stream st as SSE from event `from` on; the reader takes over
 * the caller's reference to hs and st's reader count. */
static void answer_sse(const hooks *hk, http_resp *out, hsession *hs, stream *st, uint64_t from, const char *sid,
                       bool own)
{
    http_sse *r = xcalloc(1, sizeof *r);
    if (!r) {
        pthread_mutex_lock(&hs->mu);
        st->readers--;
        pthread_mutex_unlock(&hs->mu);
        hsession_unref(hs);
        http_resp_error(out, 500, -32603, "Internal error: out of memory");
        return;
    }
    r->hs = hs;
    r->st = st;
    r->own = own;
    r->hk = *hk;
    pthread_mutex_lock(&hs->mu);
    r->gen = ++st->gen; /* a reader still on it stops */
    stream_wake(st);
    pthread_mutex_unlock(&hs->mu);
    r->next_seq = from;
    /* The priming event (SEP-1699): where a resumption starts. A bare
     * stream cannot be resumed: none. */
    int n = st->bare ? 0
                     : snprintf(r->pre, sizeof r->pre, "id: %llu-%llu\nretry: 500\ndata: \n\n",
                                (unsigned long long)st->num, (unsigned long long)(from - 1));
    r->pre_len = n > 0 ? (size_t)n : 0;
    resp_empty(out, 200, sid);
    out->content_type = "text/event-stream";
    out->sse = r;
}

/* ---------------------------------------------------------------- the methods */

/* What a POST body is (body_kind, above) and what it needs. */
typedef struct body_info {
    body_kind kind;
    bool initialize; /* an initialize request a new session takes */
    bool modern;     /* a 2026-07-28 request: served statelessly */
    char *id;        /* a request's id as JSON text (malloc'd; NULL: none) */
    bool forbidden;  /* auth: the caller lacks a scope it needs */
    char *forbid;    /* auth, forbidden: the scopes it needs (malloc'd; NULL: out of memory) */
    char *mismatch;  /* modern: why its headers do not match its body (malloc'd; -32020) */
    bool busy;       /* a request its session's queue has no room for (503) */
    char busy_why[128];
    mcp_message *msg; /* the parsed body, for the session (NULL: out of memory) */
} body_info;

/* ---------------------------------------------------------------- 2026-07-28 request headers
 * MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* mirror the body
 * for intermediaries; the server checks that they say what the body says
 * (a proxy may have routed on them). Values may carry the Base64 sentinel
 * =?base64?...?=, decoded before the comparison. */

#define MCP_HEADER_PROTOCOL_VERSION "MCP-Protocol-Version"
#define META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"

static bool json_is(const mcp_json *v, const char *lit)
{
    size_t n = strlen(lit);
    return v && v->kind == MCP_JSTRING && v->len == n && memcmp(v->s, lit, n) == 0;
}

static bool is_modern_version(const char *v) { return v && strcmp(v, "2026-07-28") == 0; }

/* Standard Base64 with its padding, strictly (no stray bits, no other
 * characters); into a. */
static bool b64_decode(mcp_arena *a, const char *t, size_t n, char **out, size_t *len)
{
    if (n % 4 != 0)
        return false;
    char *o = mcp_arena_alloc(a, n / 4 * 3 + 1);
    if (!o)
        return false;
    size_t w = 0;
    for (size_t i = 0; i < n; i += 4) {
        unsigned v = 0;
        int pad = 0;
        for (size_t k = 0; k < 4; k++) {
            char ch = t[i + k];
            int d = ch >= 'A' && ch <= 'Z'   ? ch - 'A'
                    : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
                    : ch >= '0' && ch <= '9' ? ch - '0' + 52
                    : ch == '+'              ? 62
                    : ch == '/'              ? 63
                                             : -1;
            if (ch == '=' && i + 4 == n && k >= 2 && (k == 3 || t[i + 3] == '=')) {
                pad++;
                d = 0;
            } else if (d < 0 || pad) {
                return false;
            }
            v = v << 6 | (unsigned)d;
        }
        /* the bits padding leaves must be zero */
        if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
            return false;
        o[w++] = (char)(v >> 16);
        if (pad < 2)
            o[w++] = (char)(v >> 8 & 0xff);
        if (pad < 1)
            o[w++] = (char)(v & 0xff);
    }
    o[w] = 0;
    *out = o;
    *len = w;
    return true;
}

/* What a header carries: OWS trimmed, the sentinel decoded; a plain value
 * must be visible ASCII, spaces and tabs. NULL when it is not valid. */
static const char *header_text(mcp_arena *a, const char *v, size_t *len)
{
    const char *p = v, *e = v + strlen(v);
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    size_t n = (size_t)(e - p);
    static const char PRE[] = "=?base64?", SUF[] = "?=";
    if (n >= sizeof PRE - 1 + sizeof SUF - 1 && memcmp(p, PRE, sizeof PRE - 1) == 0 &&
        memcmp(e - (sizeof SUF - 1), SUF, sizeof SUF - 1) == 0) {
        char *out;
        if (!b64_decode(a, p + sizeof PRE - 1, n - (sizeof PRE - 1) - (sizeof SUF - 1), &out, len))
            return NULL;
        return out;
    }
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= 0x20 && p[i] <= 0x7e) || p[i] == '\t'))
            return NULL;
    *len = n;
    return p;
}

static char *mismatch(const char *fmt, ...) MCP_PRINTF(1, 2);
static char *mismatch(const char *fmt, ...)
{
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return strdup(text);
}

/* The tool named name[0..n) among those with header parameters; NULL for a
 * disabled one too, whose call is answered as an unknown tool's. */
static const mcp_tool *header_tool(const mcp_http *h, const char *name, size_t n)
{
    for (size_t i = 0; i < h->nheader_tools; i++)
        if (strlen(h->header_tools[i]->name) == n && memcmp(h->header_tools[i]->name, name, n) == 0)
            return mcp_runtime_tool_enabled(h->rt, h->header_tools[i]->name) ? h->header_tools[i] : NULL;
    return NULL;
}

/* One Mcp-Param-NAME header against the argument it mirrors. */
static char *check_param(const http_req *rq, mcp_arena *a, const mcp_header_param *hp, const mcp_json *args)
{
    const mcp_json *v = args;
    for (size_t i = 0; v && i < hp->depth; i++)
        v = mcp_json_get(v, hp->path[i]);
    char name[160];
    snprintf(name, sizeof name, "Mcp-Param-%s", hp->name);
    const char *raw = rq->header(rq->conn, name);
    if (!v || v->kind == MCP_JNULL)
        return NULL; /* no value: no header expected */
    if (!raw)
        return mismatch("Header mismatch: %s is required (the argument is in the body)", name);
    size_t n = 0;
    const char *t = header_text(a, raw, &n);
    if (!t)
        return mismatch("Header mismatch: %s holds invalid characters or invalid Base64", name);
    bool same = false;
    switch (hp->kind) {
    case MCP_HEADER_STRING:
        same = v->kind == MCP_JSTRING && v->len == n && memcmp(v->s, t, n) == 0;
        break;
    case MCP_HEADER_INTEGER: {
        /* decimal digits with an optional minus sign, compared by value:
         * an argument 42 or 42.0 matches "42", not "042.0", "0x2a" or " 42" */
        char buf[24];
        bool digits = n > 0 && n < sizeof buf;
        for (size_t i = 0; digits && i < n; i++)
            digits = (t[i] >= '0' && t[i] <= '9') || (i == 0 && t[i] == '-' && n > 1);
        if (digits && (v->kind == MCP_JINT || v->kind == MCP_JFLOAT)) {
            memcpy(buf, t, n);
            buf[n] = 0;
            errno = 0;
            long long x = strtoll(buf, NULL, 10);
            if (errno == 0)
                same = v->kind == MCP_JINT ? x == v->i : (double)x == v->d;
        }
        break;
    }
    case MCP_HEADER_BOOLEAN:
        same = v->kind == MCP_JBOOL && n == (v->b ? 4u : 5u) && memcmp(t, v->b ? "true" : "false", n) == 0;
        break;
    }
    return same ? NULL : mismatch("Header mismatch: %s does not match the argument in the body", name);
}

/* Why a 2026-07-28 request's headers do not say what its body says, or
 * NULL. What the body lacks or holds wrongly is the session's to answer
 * (-32602): only the headers are judged here. */
static char *check_headers(const mcp_http *h, const http_req *rq, mcp_arena *a, const mcp_json *m)
{
    const mcp_json *method = mcp_json_get(m, "method"), *params = mcp_json_get(m, "params");
    const mcp_json *pv = mcp_json_get(mcp_json_get(params, "_meta"), META_PROTOCOL_VERSION);
    const char *hv = rq->header(rq->conn, MCP_HEADER_PROTOCOL_VERSION);
    if (pv && pv->kind == MCP_JSTRING) {
        if (!hv)
            return mismatch("Header mismatch: the MCP-Protocol-Version header is required");
        if (strlen(hv) != pv->len || memcmp(hv, pv->s, pv->len) != 0)
            return mismatch("Header mismatch: MCP-Protocol-Version header value does not match the body's "
                            "_meta protocol version");
    }
    const char *hm = rq->header(rq->conn, "Mcp-Method");
    if (!hm)
        return mismatch("Header mismatch: the Mcp-Method header is required");
    if (strlen(hm) != method->len || memcmp(hm, method->s, method->len) != 0)
        return mismatch("Header mismatch: Mcp-Method header value does not match the body's method");
    const char *key = NULL;
    if (json_is(method, "tools/call") || json_is(method, "prompts/get"))
        key = "name";
    else if (json_is(method, "resources/read"))
        key = "uri";
    else if (json_is(method, "tasks/get") || json_is(method, "tasks/update") || json_is(method, "tasks/cancel"))
        key = "taskId";
    const mcp_json *name = key ? mcp_json_get(params, key) : NULL;
    if (name && name->kind == MCP_JSTRING) {
        const char *hn = rq->header(rq->conn, "Mcp-Name");
        if (!hn)
            return mismatch("Header mismatch: the Mcp-Name header is required for %s", method->s);
        size_t n = 0;
        const char *t = header_text(a, hn, &n);
        if (!t)
            return mismatch("Header mismatch: Mcp-Name holds invalid characters or invalid Base64");
        if (n != name->len || memcmp(t, name->s, n) != 0)
            return mismatch("Header mismatch: Mcp-Name header value does not match the body's params.%s", key);
        if (key[0] == 'n' && json_is(method, "tools/call")) {
            const mcp_tool *tool = header_tool(h, name->s, name->len);
            const mcp_json *args = mcp_json_get(params, "arguments");
            for (size_t i = 0; tool && i < tool->nheaders; i++) {
                char *why = check_param(rq, a, &tool->headers[i], args);
                if (why)
                    return why;
            }
        }
    }
    return NULL;
}

/* The caller serialises calls (a session's msg_mu, or h->new_mu), so that
 * one parse tree at a time exists per session: the memory a message costs
 * is counted once against the session's bound, not once per connection.
 * A request is modern when its MCP-Protocol-Version header names a modern
 * revision, or its _meta names a protocol version (whatever the header
 * says: a mismatch is the request's error). */
static body_info classify(const mcp_http *h, const http_req *rq, const char *body, size_t len, mcp_session *s)
{
    /* The session's own rules (and limits): what it would refuse starts no
     * session, so a session is never left uninitialized. The tree goes on
     * to the session (mcp_session_message_parsed): parsed once. */
    body_info bi = {.kind = BODY_REQUEST, .msg = mcp_message_parse(h->rt, body, len)};
    const mcp_json *m = mcp_message_json(bi.msg);
    mcp_msg_kind mk = mcp_message_kind(m, &bi.initialize);
    bi.kind = mk == MCP_MSG_BATCH ? BODY_BATCH : mk == MCP_MSG_INVALID ? BODY_BAD : BODY_REQUEST;
    const mcp_json *id = mk == MCP_MSG_REQUEST ? mcp_json_get(m, "id") : NULL;
    if (id) {
        mcp_buf t;
        mcp_buf_init(&t);
        mcp_json_write(&t, id, -1);
        size_t n;
        bi.id = t.oom ? (mcp_buf_free(&t), NULL) : mcp_buf_take(&t, &n);
    }
    if (h->auth && m) /* the IDL's scopes of what it names (auth.h) */
        bi.forbidden = http_auth_missing(h->auth, m, rq->who, &bi.forbid);
    bi.modern = is_modern_version(rq->header(rq->conn, MCP_HEADER_PROTOCOL_VERSION));
    if (mk == MCP_MSG_REQUEST && s && !bi.modern)
        bi.busy = mcp_session_queue_full(s, m, bi.busy_why, sizeof bi.busy_why);
    if (mk == MCP_MSG_REQUEST) {
        const mcp_json *meta = mcp_json_get(mcp_json_get(m, "params"), "_meta");
        if (mcp_json_get(meta, META_PROTOCOL_VERSION))
            bi.modern = true;
        if (bi.modern) {
            mcp_arena a;
            mcp_arena_init(&a);
            bi.mismatch = check_headers(h, rq, &a, m);
            mcp_arena_free(&a);
        }
    }
    return bi;
}

/* What classify left that the request did not hand over (its kind and
 * flags stay). */
static void body_info_free(body_info *bi)
{
    free(bi->id);
    free(bi->mismatch);
    free(bi->forbid);
    mcp_message_free(bi->msg);
    bi->id = bi->mismatch = bi->forbid = NULL;
    bi->msg = NULL;
}

/* The message to the session: its tree when classify has one, else its
 * text (out of memory: the session answers that as it would). */
static bool hand_over(mcp_session *s, body_info *bi, const http_req *rq, const char *text, stream *st)
{
    mcp_message *msg = bi->msg;
    bi->msg = NULL;
    if (msg)
        return mcp_session_message_parsed(s, msg, st, auth_caller_view(rq->who));
    return mcp_session_message_from(s, text, rq->len, st, auth_caller_view(rq->who));
}

/* A JSON-RPC error answer for a request whose id is `id` (JSON text; NULL:
 * none known). */
static void resp_error_id(http_resp *out, unsigned status, const char *id, int code, const char *message,
                          const char *sid)
{
    if (!id) {
        http_resp_error(out, status, code, message);
    } else {
        http_resp_free(out);
        *out = (http_resp){0};
        mcp_buf t;
        mcp_buf_init(&t);
        mcp_buf_printf(&t, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":", id, code);
        mcp_json_string(&t, message, strlen(message));
        mcp_buf_puts(&t, "}}");
        if (t.oom) {
            mcp_buf_free(&t);
            return; /* status 0: the connection is closed */
        }
        out->body = mcp_buf_take(&t, &out->len);
        out->status = status;
        out->content_type = "application/json";
    }
    if (sid)
        snprintf(out->session_id, sizeof out->session_id, "%s", sid);
}

/* The body is no longer needed (the session parsed what it keeps). */
static void body_done(const http_req *rq)
{
    if (rq->body_done)
        rq->body_done(rq->body_ctx);
}

/* The session for a POST: found by its id, or new for an initialize. NULL
 * after the error answer. */
static hsession *post_session(mcp_http *h, http_resp *out, const char *sid, const body_info *bi, char *new_id)
{
    if (sid) {
        hsession *hs = hsession_find(h, sid);
        if (!hs)
            http_resp_error(out, 404, -32001, "Session not found");
        return hs;
    }
    if (!bi->initialize) {
        http_resp_error(out, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    bool full;
    hsession *hs = hsession_new(h, false, &full);
    if (!hs && full) {
        char msg[128];
        snprintf(msg, sizeof msg, "Service Unavailable: too many sessions (limit %d)", h->max_sessions);
        http_resp_error(out, 503, -32000, msg);
        return NULL;
    }
    if (!hs) {
        http_resp_error(out, 503, -32603, "Internal error: cannot start a session");
        return NULL;
    }
    memcpy(new_id, hs->id, sizeof hs->id);
    mcp_runtime_log(h->rt, MCP_LOG_INFO, "http: new session %.8s...", hs->id);
    return hs;
}

/* JSON mode: the answer of st, once it is there. A request whose answer will
 * never come (cancelled, or its session ended, or the server stopping) gets
 * an error with its id, never an empty 202: that is for notifications and
 * responses alone. */
/* The HTTP status of a 2026-07-28 answer: 404 for a method not found, 400
 * for what the request got wrong (its params, its _meta, its version, a
 * capability it lacks), 200 otherwise. */
static unsigned modern_status(const char *body, size_t len)
{
    if (!memmem(body, len, "\"error\":{", 9))
        return 200;
    mcp_arena a;
    mcp_arena_init(&a);
    const mcp_json *m = mcp_json_parse(&a, body, len, NULL, NULL, NULL);
    const mcp_json *code = mcp_json_get(mcp_json_get(m, "error"), "code");
    unsigned status = 200;
    if (code && code->kind == MCP_JINT) {
        switch (code->i) {
        case -32601:
            status = 404;
            break;
        case -32700:
        case -32600:
        case -32602:
        case -32020:
        case -32021:
        case -32022:
            status = 400;
            break;
        case -32003: /* a scope missing: the runtime's own check (auth.h does it first) */
            status = 403;
            break;
        default:
            break;
        }
    }
    mcp_arena_free(&a);
    return status;
}

/* Under hs->mu, waiting on st: whether the client closed its connection (a
 * 2026-07-28 request is then cancelled). Checked at each tick while the
 * answer is awaited: the connection's thread has nothing else to notice it. */
static bool client_gone(const hooks *hk) { return hk->gone && hk->gone(hk->conn); }

/* Under hs->mu: whether the wait for st is over (wait_for). */
static bool wait_over(const mcp_http *h, const stream *st, wait_for wait)
{
    return st->closed || atomic_load(&h->stopping) || (wait != WAIT_END && (st->head || st->cut));
}

/* Park the connection on st until wait_over (park glue): *out gets the
 * pending answer. False when the wait is over already, or out of memory
 * (the caller waits as without park). */
static bool park_answer(mcp_http *h, http_resp *out, hsession *hs, stream *st, body_kind kind, wait_for wait,
                        const char *new_sid, const hooks *hk)
{
    http_pending *p = xcalloc(1, sizeof *p);
    if (!p)
        return false;
    *p = (http_pending){.hs = hs, .st = st, .kind = kind, .wait = wait, .hk = *hk};
    if (new_sid) {
        p->has_sid = true;
        snprintf(p->sid, sizeof p->sid, "%s", new_sid);
    }
    pthread_mutex_lock(&hs->mu);
    bool over = wait_over(h, st, wait);
    if (!over)
        stream_park(st, p, hk, hs->stateless ? &p->gone : NULL, wait == WAIT_SSE ? &p->due : NULL, SSE_HOLD_SECONDS);
    pthread_mutex_unlock(&hs->mu);
    if (over) {
        free(p);
        return false;
    }
    *out = (http_resp){.pending = p};
    return true;
}

/* Block until the wait for st is over (or, stateless, the client is gone). */
static bool wait_blocking(mcp_http *h, const hooks *hk, hsession *hs, stream *st, wait_for wait)
{
    if (hk->waiting)
        hk->waiting(h, hk->conn, true);
    bool gone = false, stateless = hs->stateless;
    pthread_mutex_lock(&hs->mu);
    while (!wait_over(h, st, wait) && !gone) {
        wait_secs(&st->cv, &hs->mu, stateless ? 1 : KEEPALIVE_SECONDS);
        gone = stateless && !wait_over(h, st, wait) && client_gone(hk);
    }
    pthread_mutex_unlock(&hs->mu);
    if (hk->waiting)
        hk->waiting(h, hk->conn, false);
    return gone;
}

/* JSON mode: the answer of st, now that the wait is over. A request whose
 * answer will never come (cancelled, or its session ended, or the server
 * stopping) gets an error with its id, never an empty 202: that is for
 * notifications and responses alone. A stateless session (2026-07-28) ends
 * with its answer, and the answer's status follows the error it may carry.
 * `gone`: the client went away (no answer: status 0). */
static void json_done(mcp_http *h, http_resp *out, hsession *hs, stream *st, body_kind kind, const char *new_sid,
                      bool gone)
{
    bool stateless = hs->stateless; /* hs may be gone when it is needed */
    pthread_mutex_lock(&hs->mu);
    gone = gone && !st->closed;
    char *body = st->body, *id = st->req_id;
    size_t body_len = st->body_len;
    st->body = NULL;
    st->req_id = NULL;
    bool dead = hs->dead;
    st->readers--;
    streams_gc(hs);
    pthread_mutex_unlock(&hs->mu);
    if (stateless && gone)
        hsession_end_soon(hs);
    else if (stateless)
        hsession_finish(hs);
    else
        hsession_unref(hs);
    if (gone) {
        free(body);
        free(id);
        *out = (http_resp){0}; /* status 0: nobody to answer */
        return;
    }
    if (!body) {
        if (dead)
            resp_error_id(out, 404, id, -32001, "Session not found", new_sid);
        else if (atomic_load(&h->stopping))
            resp_error_id(out, 503, id, -32000, "Service Unavailable: the server is stopping", new_sid);
        else
            resp_error_id(out, 200, id, MCP_HTTP_CANCELLED_CODE, "Request cancelled", new_sid);
        free(id);
        return;
    }
    free(id);
    /* A batch the session took is answered with an array; one it refused
     * (2025-06-18 and later), like any bad body, with an error. */
    bool bad = kind == BODY_BAD || (kind == BODY_BATCH && body_len > 0 && body[0] != '[');
    unsigned status = stateless ? modern_status(body, body_len) : bad ? 400 : 200;
    if (stateless && kind == BODY_BAD && status == 200)
        status = 400;
    /* The session refused the request for its full queue (the check before
     * it found room, which the other sessions' queues took meanwhile). */
    static const char BUSY[] = "\"error\":{\"code\":-32000,\"message\":\"Service Unavailable: too many request";
    bool busy = kind == BODY_REQUEST && memmem(body, body_len, BUSY, sizeof BUSY - 1) != NULL;
    if (busy)
        status = 503;
    resp_empty(out, status, new_sid);
    if (busy)
        out->retry_after = 1;
    out->content_type = "application/json";
    out->body = body;
    out->len = body_len;
}

/* JSON mode: the answer of st (see json_done), parked or waited for. */
static void answer_json(mcp_http *h, const http_req *rq, http_resp *out, hsession *hs, stream *st, body_kind kind,
                        const char *new_sid)
{
    hooks hk = hooks_of(rq);
    if (hk.park && park_answer(h, out, hs, st, kind, WAIT_END, new_sid, &hk))
        return;
    bool gone = wait_blocking(h, &hk, hs, st, WAIT_END);
    json_done(h, out, hs, st, kind, new_sid, gone);
}

/* Under hs->mu: the whole of a finished stream as one SSE body (its priming
 * event, unless bare, then every event), the events counted as sent; NULL
 * when it is not all there (not final, events dropped by the replay bound,
 * mcp_close_stream's cut), larger than SSE_WHOLE_MAX, or out of memory: then
 * it is read as it comes. */
static char *take_whole(stream *st, size_t *len)
{
    if (!st->final || !st->head || st->head->seq != 1 || st->cut)
        return NULL;
    char pre[96];
    int n = st->bare ? 0 : snprintf(pre, sizeof pre, "id: %llu-0\nretry: 500\ndata: \n\n", (unsigned long long)st->num);
    size_t total = (size_t)n;
    for (const event *e = st->head; e; e = e->next)
        total += e->len;
    if (total > SSE_WHOLE_MAX)
        return NULL;
    char *b = malloc(total + 1);
    if (!b)
        return NULL;
    memcpy(b, pre, (size_t)n);
    size_t at = (size_t)n;
    for (const event *e = st->head; e; e = e->next) {
        memcpy(b + at, e->text, e->len);
        at += e->len;
    }
    b[total] = 0;
    st->sent_seq = st->next_seq;
    *len = total;
    return b;
}

/* A 2025-11-25 SSE answer to a POST, once its wait is over (WAIT_SSE): a
 * stream that has ended by then goes out whole, with its length, in one
 * write; one still going (a notification came first, or the handler is
 * slow) is sent as it comes, its priming event first. */
static void sse_done(http_resp *out, hsession *hs, stream *st, const char *sid, const hooks *hk)
{
    pthread_mutex_lock(&hs->mu);
    size_t len = 0;
    char *whole = take_whole(st, &len);
    if (whole) {
        st->readers--;
        streams_gc(hs);
    }
    pthread_mutex_unlock(&hs->mu);
    if (!whole) {
        answer_sse(hk, out, hs, st, 1, sid, true);
        return;
    }
    hsession_unref(hs);
    resp_empty(out, 200, sid);
    out->content_type = "text/event-stream";
    out->body = whole;
    out->len = len;
}

/* A 2026-07-28 request with SSE accepted, its first message there (or the
 * end, or the client gone): an answer that comes alone goes out as JSON
 * with the status its error calls for; one that notifications precede, as
 * SSE. */
static void first_done(mcp_http *h, http_resp *out, hsession *hs, stream *st, bool gone, const hooks *hk)
{
    (void)h;
    pthread_mutex_lock(&hs->mu);
    gone = gone && !st->head && !st->closed;
    char *alone = NULL;
    size_t alone_len = 0;
    static const char DATA[] = "data: ";
    if (!gone && st->final && st->head && st->head == st->tail && st->head->len >= sizeof DATA - 1 + 2) {
        /* "data: JSON\n\n" */
        alone_len = st->head->len - (sizeof DATA - 1) - 2;
        alone = malloc(alone_len + 1);
        if (alone) {
            memcpy(alone, st->head->text + sizeof DATA - 1, alone_len);
            alone[alone_len] = 0;
        }
    }
    size_t whole_len = 0;
    char *whole = alone || gone ? NULL : take_whole(st, &whole_len);
    bool only = alone != NULL || gone || whole;
    if (only) {
        st->readers--;
        streams_gc(hs);
    }
    pthread_mutex_unlock(&hs->mu);
    if (!only) {
        answer_sse(hk, out, hs, st, 1, NULL, true);
        return;
    }
    if (whole) { /* notifications, then the answer: all there, in one body */
        hsession_finish(hs);
        resp_empty(out, 200, NULL);
        out->content_type = "text/event-stream";
        out->body = whole;
        out->len = whole_len;
        return;
    }
    if (gone) {
        hsession_end_soon(hs);
        *out = (http_resp){0};
        return;
    }
    hsession_finish(hs);
    resp_empty(out, modern_status(alone, alone_len), NULL);
    out->content_type = "application/json";
    out->body = alone;
    out->len = alone_len;
}

bool http_pending_take(mcp_http *h, http_pending *p, http_resp *out)
{
    hsession *hs = p->hs;
    stream *st = p->st;
    pthread_mutex_lock(&hs->mu);
    bool over = p->gone || p->due || wait_over(h, st, p->wait);
    if (!over)
        stream_park(st, p, &p->hk, hs->stateless ? &p->gone : NULL, p->wait == WAIT_SSE ? &p->due : NULL,
                    SSE_HOLD_SECONDS);
    pthread_mutex_unlock(&hs->mu);
    if (!over)
        return false;
    *out = (http_resp){0};
    if (p->wait == WAIT_FIRST)
        first_done(h, out, hs, st, p->gone, &p->hk);
    else if (p->wait == WAIT_SSE)
        sse_done(out, hs, st, p->has_sid ? p->sid : NULL, &p->hk);
    else
        json_done(h, out, hs, st, p->kind, p->has_sid ? p->sid : NULL, p->gone);
    free(p);
    return true;
}

void http_pending_free(http_pending *p)
{
    hsession *hs = p->hs;
    pthread_mutex_lock(&hs->mu);
    stream_unpark(p->st, p);
    pthread_mutex_unlock(&hs->mu);
    http_resp out = {0};
    if (p->wait == WAIT_FIRST)
        first_done(hs->h, &out, hs, p->st, true, &p->hk);
    else if (p->wait == WAIT_SSE) {
        pthread_mutex_lock(&hs->mu); /* nobody will read it: as a reader that ends */
        p->st->readers--;
        streams_gc(hs);
        pthread_mutex_unlock(&hs->mu);
        hsession_unref(hs);
    } else
        json_done(hs->h, &out, hs, p->st, p->kind, NULL, true);
    http_resp_free(&out);
    free(p);
}

/* The park queues: the connections whose time has come, and those whose
 * client went away, woken. A parked connection holds its stream and its
 * session (its reader's reference), and is woken under park_mu only once,
 * so an entry found here is alive until woken: no session's lock is needed.
 * The flags set here (*ping, *gone_seen) are read by the connection once
 * resumed, after the wake. */
void http_core_tick(mcp_http *h)
{
    time_t now = mono_secs();
    pthread_mutex_lock(&h->park_mu);
    for (int k = PARK_KEEPALIVE, batch = KEEPALIVE_BATCH; k <= PARK_HOLD; k++)
        while (h->park[k].head && now >= h->park[k].head->park.due && (k != PARK_KEEPALIVE || batch-- > 0)) {
            stream *st = h->park[k].head;
            *st->park.ping = true;
            park_wake(h, st);
        }
    for (stream *st = h->park[PARK_GONE].head, *next; st; st = next) {
        parked *pk = &st->park;
        next = pk->qnext;
        bool due = false;
        if (pk->ping && now >= pk->due) {
            *pk->ping = true;
            due = true;
        }
        if (pk->gone(pk->conn)) {
            *pk->gone_seen = true;
            due = true;
        }
        if (due)
            park_wake(h, st);
    }
    pthread_mutex_unlock(&h->park_mu);
}

/* A 2026-07-28 request: served by a session of its own, which ends with it
 * (no session id, no resumption, no GET stream). Its headers must say what
 * its body says. With SSE accepted, the answer waits for the stream's first
 * message: an answer that comes alone goes out as JSON with the status its
 * error calls for (400, 404); one that notifications precede, as SSE. A
 * stream the client closes before the answer cancels the request. */
static void do_post_modern(mcp_http *h, const http_req *rq, http_resp *out, body_info *bi, bool sse)
{
    const char *text = rq->body ? rq->body : "";
    if (bi->mismatch) {
        body_done(rq);
        resp_error_id(out, 400, bi->id, -32020, bi->mismatch, NULL);
        return;
    }
    if (bi->forbidden) { /* auth: a scope the request needs is missing (auth.h) */
        body_done(rq);
        http_auth_forbid(h->auth, out, bi->forbid);
        return;
    }
    bool full;
    hsession *hs = hsession_stateless(h, &full);
    if (!hs) {
        body_done(rq);
        char msg[128];
        snprintf(msg, sizeof msg, "Service Unavailable: too many requests in flight (limit %d)", h->max_sessions);
        resp_error_id(out, 503, bi->id, -32000, full ? msg : "Service Unavailable: out of memory", NULL);
        if (full)
            out->retry_after = 1;
        return;
    }
    if (bi->kind != BODY_REQUEST)
        sse = false;
    pthread_mutex_lock(&hs->msg_mu);
    pthread_mutex_lock(&hs->mu);
    stream *st = stream_new(hs, !sse);
    pthread_mutex_unlock(&hs->mu);
    bool answered = false;
    if (st) {
        st->bare = true;
        st->readers = 1; /* this connection's */
        if (!sse) {
            st->req_id = bi->id;
            bi->id = NULL;
        }
        st->who = auth_caller_ref(rq->who); /* alive until the stream's last use */
        answered = hand_over(hs->s, bi, rq, text, st);
        pthread_mutex_lock(&hs->mu);
        if (answered)
            stream_link(hs, st);
        pthread_mutex_unlock(&hs->mu);
    }
    pthread_mutex_unlock(&hs->msg_mu);
    body_done(rq);
    if (!answered) {
        if (st) {
            st->readers = 0;
            stream_free(st);
        }
        hsession_finish(hs);
        if (!st)
            resp_error_id(out, 500, bi->id, -32603, "Internal error: out of memory", NULL);
        else if (bi->kind == BODY_BAD)
            http_resp_error(out, 400, -32700, "Parse error: unexpected end of input at byte 0");
        else
            resp_empty(out, 202, NULL); /* a notification: nothing to answer */
        return;
    }
    if (!sse) {
        answer_json(h, rq, out, hs, st, bi->kind, NULL);
        return;
    }
    /* The first message decides between JSON and SSE. */
    hooks hk = hooks_of(rq);
    if (hk.park && park_answer(h, out, hs, st, BODY_REQUEST, WAIT_FIRST, NULL, &hk))
        return;
    bool gone = wait_blocking(h, &hk, hs, st, WAIT_FIRST);
    first_done(h, out, hs, st, gone, &hk);
}

static void do_post(mcp_http *h, const http_req *rq, http_resp *out, const char *sid)
{
    const char *accept = rq->header(rq->conn, "Accept");
    bool sse = header_has(accept, "text/event-stream");
    const char *text = rq->body ? rq->body : "";
    const char *pv = rq->header(rq->conn, MCP_HEADER_PROTOCOL_VERSION);
    /* A 2026-07-28 request has no session: an Mcp-Session-Id is ignored. */
    if (is_modern_version(pv))
        sid = NULL;

    /* Parse, start the stream and hand the message to the session under one
     * lock: the session's own (msg_mu), or for a new session new_mu. */
    body_info bi;
    hsession *hs = NULL;
    char new_id[sizeof hs->id];
    const char *new_sid = NULL;
    if (sid) {
        hs = post_session(h, out, sid, NULL, new_id);
        if (!hs) {
            body_done(rq);
            return;
        }
        pthread_mutex_lock(&hs->msg_mu);
        bi = classify(h, rq, text, rq->len, hs->s);
        if (bi.modern) {
            pthread_mutex_unlock(&hs->msg_mu);
            hsession_unref(hs);
            do_post_modern(h, rq, out, &bi, sse);
            body_info_free(&bi);
            return;
        }
    } else if (is_modern_version(pv)) {
        /* Modern by its header: it starts no session another could find,
         * so its parse waits for nobody (new_mu). Its tree lives until its
         * stateless session has it, on this thread: one per thread at most. */
        bi = classify(h, rq, text, rq->len, NULL);
        do_post_modern(h, rq, out, &bi, sse);
        body_info_free(&bi);
        return;
    } else {
        pthread_mutex_lock(&h->new_mu);
        bi = classify(h, rq, text, rq->len, NULL);
        if (bi.modern) {
            pthread_mutex_unlock(&h->new_mu);
            do_post_modern(h, rq, out, &bi, sse);
            body_info_free(&bi);
            return;
        }
        hs = pv && !mcp_protocol_version_known(pv) ? NULL : post_session(h, out, NULL, &bi, new_id);
        pthread_mutex_unlock(&h->new_mu);
        if (!hs) {
            if (pv && !mcp_protocol_version_known(pv))
                resp_error_id(out, 400, bi.id, -32000, "Bad Request: unsupported MCP-Protocol-Version", NULL);
            body_info_free(&bi);
            body_done(rq);
            return;
        }
        new_sid = new_id;
        if (h->auth && !(hs->owner = strdup(auth_caller_owner(rq->who))))
            mcp_runtime_log(h->rt, MCP_LOG_ERROR, "http: out of memory: a session has no owner");
        pthread_mutex_lock(&hs->msg_mu);
    }
    if (pv && !mcp_protocol_version_known(pv)) {
        /* A 2025 request naming a revision nobody serves. */
        pthread_mutex_unlock(&hs->msg_mu);
        hsession_unref(hs);
        resp_error_id(out, 400, bi.id, -32000, "Bad Request: unsupported MCP-Protocol-Version", NULL);
        body_info_free(&bi);
        body_done(rq);
        return;
    }

    /* Auth: a caller without a scope the request needs gets 403 before the
     * session sees the request (a new session is only made by initialize,
     * which needs no item's scopes). */
    if (bi.forbidden) {
        pthread_mutex_unlock(&hs->msg_mu);
        hsession_unref(hs);
        http_auth_forbid(h->auth, out, bi.forbid);
        body_info_free(&bi);
        body_done(rq);
        return;
    }

    /* A request its session's queue has no room for: 503, and the client
     * tries again later (the session stays as it is). */
    if (bi.busy) {
        pthread_mutex_unlock(&hs->msg_mu);
        hsession_unref(hs);
        resp_error_id(out, 503, bi.id, MCP_HTTP_BUSY_CODE, bi.busy_why, NULL);
        out->retry_after = 1;
        body_info_free(&bi);
        body_done(rq);
        return;
    }

    /* A body that is not a request is answered with the session's error,
     * as JSON, with status 400. */
    if (bi.kind != BODY_REQUEST)
        sse = false;
    pthread_mutex_lock(&hs->mu);
    stream *st = hs->dead || !hs->s ? NULL : stream_new(hs, !sse);
    bool dead = hs->dead || !hs->s;
    pthread_mutex_unlock(&hs->mu);
    bool answered = false;
    if (st) {
        st->readers = 1; /* this connection's */
        if (!sse) {
            st->req_id = bi.id;
            bi.id = NULL;
        }
        st->who = auth_caller_ref(rq->who); /* alive until the stream's last use */
        answered = hand_over(hs->s, &bi, rq, text, st);
        pthread_mutex_lock(&hs->mu);
        if (answered)
            stream_link(hs, st);
        pthread_mutex_unlock(&hs->mu);
    }
    pthread_mutex_unlock(&hs->msg_mu);
    body_info_free(&bi);
    body_done(rq);

    if (!answered) {
        /* The session never saw st (or there is none): nobody else has it. */
        if (st) {
            st->readers = 0;
            stream_free(st);
        }
        hsession_unref(hs);
        if (dead)
            http_resp_error(out, 404, -32001, "Session not found");
        else if (!st)
            http_resp_error(out, 500, -32603, "Internal error: out of memory");
        else if (bi.kind == BODY_BAD) /* a blank body: nothing the session answers */
            http_resp_error(out, 400, -32700, "Parse error: unexpected end of input at byte 0");
        else
            resp_empty(out, 202, new_sid);
        return;
    }
    if (sse) {
        /* Parked until the first message (or a second or so): a quick
         * handler's answer then goes out whole, in one write (sse_done).
         * Without parking (a core driven in process), the stream starts now. */
        hooks hk = hooks_of(rq);
        if (hk.park && park_answer(h, out, hs, st, BODY_REQUEST, WAIT_SSE, new_sid, &hk))
            return;
        if (hk.park)
            sse_done(out, hs, st, new_sid, &hk);
        else
            answer_sse(&hk, out, hs, st, 1, new_sid, true);
    } else
        answer_json(h, rq, out, hs, st, bi.kind, new_sid);
}

/* "N-K" */
static bool parse_event_id(const char *v, uint64_t *num, uint64_t *seq)
{
    char *end;
    errno = 0;
    unsigned long long a = strtoull(v, &end, 10);
    if (end == v || *end != '-' || errno)
        return false;
    const char *p = end + 1;
    unsigned long long b = strtoull(p, &end, 10);
    if (end == p || *end || errno)
        return false;
    *num = a;
    *seq = b;
    return true;
}


/* The session a GET or DELETE names (with a reference), or NULL after the
 * answer: 400 without Mcp-Session-Id, 404 for an unknown one. */
static hsession *session_of(mcp_http *h, http_resp *out, const char *sid)
{
    if (!sid) {
        http_resp_error(out, 400, -32000, "Bad Request: Mcp-Session-Id header is required");
        return NULL;
    }
    hsession *hs = hsession_find(h, sid);
    if (!hs)
        http_resp_error(out, 404, -32001, "Session not found");
    return hs;
}

static void do_get(mcp_http *h, const http_req *rq, http_resp *out, const char *sid)
{
    const char *accept = rq->header(rq->conn, "Accept");
    if (!header_has(accept, "text/event-stream") && !header_has(accept, "*/*")) {
        http_resp_error(out, 406, -32000, "Not Acceptable: accept text/event-stream");
        return;
    }
    hsession *hs = session_of(h, out, sid);
    if (!hs)
        return;
    const char *last = rq->header(rq->conn, "Last-Event-ID");
    uint64_t num = 0, seq = 0;
    bool resume = last != NULL;
    if (resume && !parse_event_id(last, &num, &seq)) {
        hsession_unref(hs);
        http_resp_error(out, 400, -32000, "Bad Request: invalid Last-Event-ID");
        return;
    }
    pthread_mutex_lock(&hs->mu);
    stream *st = NULL;
    if (!hs->dead) {
        if (!resume)
            st = hs->standalone;
        else /* an SSE stream: a JSON answer has no events to resume */
            st = stream_find(hs, num);
    }
    /* Resume after an event the stream has issued: a later one would wait
     * for events that never come, and pin what the stream holds. */
    bool past = st && resume && seq >= st->next_seq;
    uint64_t from = 0;
    if (st && !past) {
        st->readers++;
        from = resume ? seq + 1 : st->sent_seq;
    }
    bool dead = hs->dead;
    pthread_mutex_unlock(&hs->mu);
    if (!st || past) {
        hsession_unref(hs);
        if (dead)
            http_resp_error(out, 404, -32001, "Session not found");
        else if (past)
            http_resp_error(out, 400, -32000, "Bad Request: Last-Event-ID names no event of this stream");
        else
            http_resp_error(out, 400, -32000, "Bad Request: Last-Event-ID names no stream of this session");
        return;
    }
    hooks hk = hooks_of(rq);
    answer_sse(&hk, out, hs, st, from, NULL, false);
}

static void do_delete(mcp_http *h, http_resp *out, const char *sid)
{
    hsession *hs = session_of(h, out, sid);
    if (!hs)
        return;
    mcp_runtime_log(h->rt, MCP_LOG_INFO, "http: session %.8s... deleted", hs->id);
    hsession_end(hs);
    hsession_unref(hs);
    resp_empty(out, 200, NULL);
}

bool http_route_head(mcp_http *h, const http_req *rq, http_resp *out)
{
    *out = (http_resp){0};
    /* DNS rebinding protection comes first. */
    if (!host_ok(h, rq->header(rq->conn, "Host"))) {
        http_resp_error(out, 403, -32000, "Forbidden: invalid Host header");
        return false;
    }
    const char *origin = rq->header(rq->conn, "Origin");
    if (origin && !origin_ok(h, origin)) {
        http_resp_error(out, 403, -32000, "Forbidden: invalid Origin header");
        return false;
    }
    if (strcmp(rq->url, h->path) != 0) {
        if (!h->auth || !http_auth_metadata(h->auth, rq, out)) /* RFC 9728's document */
            http_resp_error(out, 404, -32000, "Not Found");
        return false;
    }
    bool post = strcmp(rq->method, "POST") == 0, get = strcmp(rq->method, "GET") == 0,
         del = strcmp(rq->method, "DELETE") == 0;
    if (!post && !get && !del) {
        http_resp_error(out, 405, -32000, "Method Not Allowed");
        return false;
    }
    if (h->auth && !http_auth_precheck(h->auth, rq, out)) /* no token: no body kept */
        return false;
    const char *pv = rq->header(rq->conn, MCP_HEADER_PROTOCOL_VERSION);
    if (pv && is_modern_version(pv) && !post) {
        /* 2026-07-28 has no GET stream and no sessions to delete. */
        http_resp_error(out, 405, -32000, "Method Not Allowed: a 2026-07-28 client only POSTs");
        out->allow_post_only = true;
        return false;
    }
    /* An unknown version on a POST is judged with its body: a 2026-07-28
     * request naming it in _meta too is answered -32022 with the versions
     * served (do_post). */
    if (pv && !post && !mcp_protocol_version_known(pv)) {
        http_resp_error(out, 400, -32000, "Bad Request: unsupported MCP-Protocol-Version");
        return false;
    }
    const char *sid = rq->header(rq->conn, "Mcp-Session-Id");
    if (atomic_load(&h->stopping) || (atomic_load(&h->draining) && !sid)) {
        http_resp_error(out, 503, -32000, "Service Unavailable");
        return false;
    }
    if (post) {
        if (rq->too_large) {
            char msg[128];
            snprintf(msg, sizeof msg, "Invalid Request: message too large (limit %zu bytes)", h->opt->max_message);
            http_resp_error(out, 413, -32600, msg);
            return false;
        }
        const char *accept = rq->header(rq->conn, "Accept");
        bool sse = header_has(accept, "text/event-stream");
        bool json = !accept || header_has(accept, "application/json") || header_has(accept, "*/*");
        if (!sse && !json) {
            http_resp_error(out, 406, -32000, "Not Acceptable: accept application/json or text/event-stream");
            return false;
        }
        const char *ctype = rq->header(rq->conn, "Content-Type");
        if (!ctype || strncasecmp(ctype, "application/json", 16) != 0) {
            http_resp_error(out, 415, -32000, "Unsupported Media Type: send application/json");
            return false;
        }
        if (rq->over_budget) {
            char msg[160];
            snprintf(msg, sizeof msg, "Service Unavailable: too many request bytes in flight (limit %zu bytes)",
                     h->max_inflight);
            http_resp_error(out, 503, -32000, msg);
            out->retry_after = 1;
            return false;
        }
    }
    return true;
}

/* With auth, a session serves only the caller who started it: anyone else
 * is told it does not exist. */
static bool session_owned_by(mcp_http *h, const char *sid, const auth_caller *who)
{
    pthread_mutex_lock(&h->mu);
    hsession *hs = h->sessions;
    while (hs && strcmp(hs->id, sid) != 0)
        hs = hs->next;
    bool ok = !hs || !hs->owner || strcmp(hs->owner, auth_caller_owner(who)) == 0;
    pthread_mutex_unlock(&h->mu);
    return ok;
}

void http_route(mcp_http *h, const http_req *rq, http_resp *out)
{
    if (!http_route_head(h, rq, out)) {
        body_done(rq);
        return;
    }
    const char *sid = rq->header(rq->conn, "Mcp-Session-Id");
    http_req authed = *rq;
    if (h->auth) { /* the bearer token, before anything reaches a session */
        if (!http_auth_check(h->auth, rq, out, &authed.who)) {
            body_done(rq);
            return;
        }
        if (sid && !session_owned_by(h, sid, authed.who)) {
            auth_caller_unref(authed.who);
            body_done(rq);
            http_resp_error(out, 404, -32001, "Session not found");
            return;
        }
        rq = &authed;
    }
    if (strcmp(rq->method, "POST") == 0)
        do_post(h, rq, out, sid);
    else if (strcmp(rq->method, "GET") == 0)
        do_get(h, rq, out, sid);
    else
        do_delete(h, out, sid);
    auth_caller_unref(authed.who);
}

/* ---------------------------------------------------------------- the core's life */

static void http_free(mcp_http *h)
{
    http_auth_free(h->auth);
    http_tls_free(h->tls);
    free(h->header_tools);
    pthread_mutex_destroy(&h->new_mu);
    pthread_mutex_destroy(&h->mu);
    pthread_mutex_destroy(&h->tick_mu);
    pthread_mutex_destroy(&h->park_mu);
    pthread_cond_destroy(&h->tick_cv);
    free(h);
}

mcp_http *http_core_new(mcp_runtime *rt)
{
    mcp_http *h = xcalloc(1, sizeof *h);
    if (!h) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start: out of memory");
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    pthread_mutex_init(&h->new_mu, NULL);
    pthread_mutex_init(&h->tick_mu, NULL);
    pthread_mutex_init(&h->park_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->tick_cv, &ca);
    pthread_condattr_destroy(&ca);
    h->rt = rt;
    h->opt = mcp_runtime_options(rt);
    h->max_sessions = h->opt->max_sessions;
    h->idle_seconds = h->opt->session_idle;
    h->replay_bytes = h->opt->replay_bytes;
    h->timeout_seconds = h->opt->http_timeout;
    h->max_inflight = h->opt->max_inflight;
    h->path = h->opt->http_path;
    h->allow = h->opt->allow_hosts;
    h->nallow = h->opt->nallow;
    atomic_init(&h->stopping, false);
    atomic_init(&h->draining, false);
    const mcp_server *srv = mcp_runtime_server(rt);
    for (size_t i = 0; i < srv->ntools; i++)
        h->nheader_tools += srv->tools[i].nheaders > 0;
    if (h->nheader_tools) {
        h->header_tools = calloc(h->nheader_tools, sizeof *h->header_tools);
        if (!h->header_tools) {
            mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start: out of memory");
            http_free(h);
            return NULL;
        }
        size_t k = 0;
        for (size_t i = 0; i < srv->ntools; i++)
            if (srv->tools[i].nheaders > 0)
                h->header_tools[k++] = &srv->tools[i];
    }
    if (http_auth_wanted(h->opt)) {
        char why[2048]; /* a path, and the loader's sentence naming a file twice */
        h->auth = http_auth_new(rt, why, sizeof why);
        if (!h->auth) {
            mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start: authorization: %s", why);
            http_free(h);
            return NULL;
        }
    }
    return h;
}

void http_core_free(mcp_http *h)
{
    for (;;) {
        pthread_mutex_lock(&h->mu);
        hsession *hs = h->sessions;
        if (hs)
            hs->refs++;
        pthread_mutex_unlock(&h->mu);
        if (!hs)
            break;
        hsession_end(hs);
        hsession_unref(hs);
    }
    while (h->spare) {
        hsession *hs = h->spare;
        h->spare = hs->hnext;
        h->nspare--;
        hs->refs = 1;
        hsession_unref(hs);
    }
    http_free(h);
}

int http_core_sessions(mcp_http *h)
{
    pthread_mutex_lock(&h->mu);
    int n = h->nsessions;
    pthread_mutex_unlock(&h->mu);
    return n;
}

unsigned long http_core_reused(mcp_http *h)
{
    pthread_mutex_lock(&h->mu);
    unsigned long n = h->reused;
    pthread_mutex_unlock(&h->mu);
    return n;
}

/* Stopping, first: every request in flight is answered (into its stream),
 * while clients may still read and answer the server's own requests; then
 * every reader and waiter is woken, to see `stopping` and end. */
static void http_core_quiesce(mcp_http *h)
{
    atomic_store(&h->draining, true);
    for (;;) {
        pthread_mutex_lock(&h->mu);
        hsession *hs = h->sessions;
        while (hs && hs->drained)
            hs = hs->next;
        if (hs) {
            hs->drained = true;
            hs->refs++;
        }
        pthread_mutex_unlock(&h->mu);
        if (!hs)
            break;
        pthread_mutex_lock(&hs->msg_mu);
        if (hs->s) {
            mcp_session_drain(hs->s);
            /* Subscriptions end with their graceful answer. */
            mcp_session_end_subscriptions(hs->s);
        }
        pthread_mutex_unlock(&hs->msg_mu);
        hsession_unref(hs);
    }
    atomic_store(&h->stopping, true);
    pthread_mutex_lock(&h->mu);
    for (hsession *hs = h->sessions; hs; hs = hs->next) {
        pthread_mutex_lock(&hs->mu);
        for (stream *st = hs->streams; st; st = st->next)
            stream_wake(st);
        pthread_mutex_unlock(&hs->mu);
    }
    pthread_mutex_unlock(&h->mu);
}

/* Whether some SSE reader is still on its connection (sending what its
 * stream holds, then ending its response). */
static bool readers_busy(mcp_http *h)
{
    bool busy = false;
    pthread_mutex_lock(&h->mu);
    for (hsession *hs = h->sessions; hs && !busy; hs = hs->next) {
        pthread_mutex_lock(&hs->mu);
        for (stream *st = hs->streams; st && !busy; st = st->next)
            busy = !st->json && st->readers > 0;
        pthread_mutex_unlock(&hs->mu);
    }
    pthread_mutex_unlock(&h->mu);
    return busy;
}

/* ================================================================ libmicrohttpd glue */

typedef struct conn {
    mcp_http *h;
    char *body;
    size_t len, cap;
    size_t reserved; /* bytes of h->inflight this connection holds for its body */
    bool too_large, over_budget;
    bool chunked;          /* HTTP/1.1: an SSE answer goes out in chunks */
    bool refused;          /* refused for its headers: the body is read and dropped, then */
    http_resp *refusal;    /* this answer goes out (NULL: out of memory, the connection closes) */
    http_pending *pending; /* suspended until its answer is there */
} conn;

static const char *mhd_header(void *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static const char *mhd_query(void *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

/* The connection timeout measures the client: how long it takes to send its
 * request and to read the answer. A connection waiting for a handler (a JSON
 * answer, the next SSE event) is suspended (mhd_park), and libmicrohttpd
 * runs no timeout on a suspended connection: it restarts its clock when the
 * connection is resumed. */

/* Whether the peer closed its end (or the connection broke): the request's
 * body is read by now, so anything more to read is a close. */
static bool mhd_gone(void *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci)
        return false;
    struct pollfd p = {.fd = ci->connect_fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Parking is suspending: the connection leaves the daemon's event loop (it
 * holds no thread, and no timeout runs) until the core wakes it, from
 * whatever thread, by resuming it; libmicrohttpd then calls the access
 * handler again (a JSON answer) or the SSE stream's reader. */
static void mhd_park(void *c) { MHD_suspend_connection(c); }
static void mhd_wake(void *c) { MHD_resume_connection(c); }

/* libmicrohttpd gives a chunked response's reader the connection's own
 * write buffer: the response's block (allocated, and zeroed, with each
 * response) serves only an HTTP/1.0 client, without chunks. So an HTTP/1.1
 * stream's block is a byte (the least libmicrohttpd takes), an HTTP/1.0
 * one's small: an idle stream should cost little. */
#define SSE_BLOCK 256
#define SSE_BLOCK_CHUNKED 1

/* An idle stream's buffer, given back to the kernel. libmicrohttpd 0.9.75
 * reads a request into the first half of the connection's memory pool
 * (--http-header-bytes) and, when the answer starts, zeroes what the request
 * left unused (MHD_pool_reallocate): about half the pool becomes resident,
 * 16 KiB of the default 32 KiB, whatever the request's size. Then it hands a
 * chunked response's reader the rest of the pool as its buffer, from just
 * after the request: [buf, buf + max) covers those zeroed pages, and what a
 * reader leaves there is never looked at. So when a stream has nothing to
 * send and parks, the whole pages inside that buffer are dropped
 * (MADV_DONTNEED: they read as zeros again, and cost nothing until written);
 * an idle stream keeps the buffer's first page (its next event goes there)
 * and the pool's last (the request's header entries). Done once, and again
 * only after a read wrote past the first page. */
static void sse_release(http_sse *r, char *buf, size_t max)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    uintptr_t from = ((uintptr_t)buf + page - 1) & ~(uintptr_t)(page - 1);
    uintptr_t to = ((uintptr_t)buf + max) & ~(uintptr_t)(page - 1);
    if (r->released && r->wrote <= from - (uintptr_t)buf)
        return;
    r->released = true;
    r->wrote = 0;
    if (to > from)
        (void)madvise((void *)from, to - from, MADV_DONTNEED);
}

/* Nothing to send yet: the reader parked the connection, and 0 tells
 * libmicrohttpd to ask again once it is resumed. */
static ssize_t mhd_sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    http_sse *r = cls;
    ssize_t n = http_sse_read(r, buf, max, false);
    if (n == HTTP_SSE_AGAIN) {
        sse_release(r, buf, max);
        return 0;
    }
    if (n > 0 && (size_t)n > r->wrote)
        r->wrote = (size_t)n;
    return n == HTTP_SSE_END ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void mhd_sse_free(void *cls) { http_sse_free(cls); }

/* Queue the core's answer on c (taking its body or its SSE stream); with
 * `close`, the connection ends after it (the request's body, if any, was not
 * read, or its framing cannot be trusted). `chunked`: the request is
 * HTTP/1.1, so an SSE answer goes out in chunks. */
static enum MHD_Result mhd_answer(struct MHD_Connection *c, http_resp *a, bool close, bool chunked)
{
    struct MHD_Response *r = NULL;
    if (a->sse) {
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, chunked ? SSE_BLOCK_CHUNKED : SSE_BLOCK, mhd_sse_read,
                                              a->sse, mhd_sse_free);
        if (r)
            a->sse = NULL;
        else
            http_resp_error(a, 500, -32603, "Internal error: out of memory");
    }
    if (!r && a->status == 0)
        return MHD_NO;
    if (!r && a->body) {
        r = MHD_create_response_from_buffer(a->len, a->body, MHD_RESPMEM_MUST_FREE);
        if (r)
            a->body = NULL;
    } else if (!r) {
        r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (!r)
        return MHD_NO;
    if (a->content_type)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->content_type);
    if (a->content_type && strcmp(a->content_type, "text/event-stream") == 0) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
        /* A proxy (nginx) must pass each event on as it comes. */
        MHD_add_response_header(r, "X-Accel-Buffering", "no");
    }
    if (a->session_id[0])
        MHD_add_response_header(r, "Mcp-Session-Id", a->session_id);
    if (a->www_authenticate)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, a->www_authenticate);
    if (a->allow || a->allow_post_only)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, a->allow_post_only ? "POST" : "GET, POST, DELETE");
    if (a->retry_after) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", a->retry_after);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    if (close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, a->status, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---------------------------------------------------------------- framing
 * libmicrohttpd 0.9.75 accepts requests whose framing RFC 9112 forbids,
 * and frames them its own way: a second Content-Length is ignored (the rest
 * of the body becomes a request of its own), "Content-Length :" is not
 * Content-Length (the body becomes a request: smuggling), a header value
 * with a NUL is cut at it ("localhost\0.attacker.example"), and an unknown
 * transfer coding is waited on until the timeout. So the raw header lines
 * are checked here, before anything else, and a request that fails gets 400
 * (501 for a transfer coding other than chunked) and a closed connection. */

typedef struct framing {
    int host, content_length, transfer_encoding, authorization;
    const char *te;
    bool bad_name, nul, bad_length, bad_line;
    const char *prev_end; /* where the previous header's value ends */
} framing;

/* libmicrohttpd 0.9.75 keeps header lines in its read buffer, each line's
 * end (CR LF, or a bare LF) overwritten with NULs, and cuts a value at its
 * first NUL with strlen: the bytes between the end of one value and the next
 * key must then be the one or two NULs of a line end. Anything else is the
 * rest of a value after a NUL, or a folded line (obs-fold, which RFC 9112
 * lets a server refuse). Other versions copy or check differently: there the
 * check is left to libmicrohttpd. */
#if MHD_VERSION == 0x00097500
#define CHECK_LINE_ENDS 1
#else
#define CHECK_LINE_ENDS 0
#endif

static bool line_end_ok(const char *end, const char *next)
{
    if (next <= end || next - end > 2)
        return false;
    for (const char *p = end; p < next; p++)
        if (*p)
            return false;
    return true;
}

static bool name_is(const char *key, size_t n, const char *name)
{
    return strlen(name) == n && strncasecmp(key, name, n) == 0;
}

static enum MHD_Result frame_header(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                    const char *value, size_t value_size)
{
    (void)kind;
    framing *f = cls;
    if (CHECK_LINE_ENDS && f->prev_end && !line_end_ok(f->prev_end, key))
        f->bad_line = true;
    f->prev_end = value ? value + value_size : NULL;
    for (size_t i = 0; i < key_size; i++)
        f->bad_name = f->bad_name || key[i] == ' ' || key[i] == '\t' || key[i] == 0;
    if (value && memchr(value, 0, value_size))
        f->nul = true;
    if (name_is(key, key_size, "Host")) {
        f->host++;
    } else if (name_is(key, key_size, "Content-Length")) {
        f->content_length++;
        bool digits = value && value_size > 0;
        for (size_t i = 0; digits && i < value_size; i++)
            digits = value[i] >= '0' && value[i] <= '9';
        f->bad_length = f->bad_length || !digits;
    } else if (name_is(key, key_size, "Transfer-Encoding")) {
        f->transfer_encoding++;
        f->te = value;
    } else if (name_is(key, key_size, "Authorization")) {
        f->authorization++;
    }
    return MHD_YES;
}

/* The framing of c's request: true when it may be read; else *a holds the
 * answer (to be sent with the connection closed). */
static bool framing_ok(struct MHD_Connection *c, http_resp *a)
{
    framing f = {0};
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, frame_header, &f);
    /* The last header line: its end, then the empty line's. */
    if (CHECK_LINE_ENDS && f.prev_end && (f.prev_end[0] || f.prev_end[1]))
        f.bad_line = true;
    const char *why = NULL;
    unsigned status = 400;
    if (f.bad_name)
        why = "Bad Request: whitespace or NUL in a header field name";
    else if (f.nul || f.bad_line)
        why = "Bad Request: NUL in a header field value, or a folded header line";
    else if (f.host > 1)
        why = "Bad Request: more than one Host header";
    else if (f.authorization > 1) /* RFC 6750 section 3.1: one way of sending a token */
        why = "Bad Request: more than one Authorization header";
    else if (f.content_length > 1)
        why = "Bad Request: more than one Content-Length header";
    else if (f.bad_length)
        why = "Bad Request: invalid Content-Length";
    else if (f.content_length && f.transfer_encoding)
        why = "Bad Request: Content-Length with Transfer-Encoding";
    else if (f.transfer_encoding > 1 || (f.te && strcasecmp(f.te, "chunked") != 0)) {
        why = "Not Implemented: the only transfer coding served is chunked";
        status = 501;
    }
    if (!why)
        return true;
    *a = (http_resp){0};
    http_resp_error(a, status, -32000, why);
    return false;
}

/* ---------------------------------------------------------------- bodies in flight */

/* Hold `more` bytes of h->inflight for cn's body: false (nothing held) when
 * that would pass max_inflight. */
static bool inflight_take(conn *cn, size_t more)
{
    mcp_http *h = cn->h;
    pthread_mutex_lock(&h->mu);
    bool ok = more <= h->max_inflight - h->inflight;
    if (ok) {
        h->inflight += more;
        cn->reserved += more;
    }
    pthread_mutex_unlock(&h->mu);
    return ok;
}

/* Let go of cn's body and of the bytes it held. */
static void body_release(void *ctx)
{
    conn *cn = ctx;
    free(cn->body);
    cn->body = NULL;
    cn->len = cn->cap = 0;
    if (cn->reserved) {
        pthread_mutex_lock(&cn->h->mu);
        cn->h->inflight -= cn->reserved;
        pthread_mutex_unlock(&cn->h->mu);
        cn->reserved = 0;
    }
}

/* A piece of cn's body: appended, unless the body is too large or the bytes
 * in flight are at their bound (then the body is dropped, and the request is
 * answered with 413 or 503 when it ends). */
static void body_append(conn *cn, const char *data, size_t n)
{
    if (cn->refused || cn->too_large || cn->over_budget)
        return;
    if (n > cn->h->opt->max_message - cn->len) {
        cn->too_large = true;
        body_release(cn);
        return;
    }
    if (cn->len + n > cn->reserved && !inflight_take(cn, cn->len + n - cn->reserved)) {
        cn->over_budget = true;
        body_release(cn);
        return;
    }
    if (cn->len + n + 1 > cn->cap) {
        size_t cap = cn->cap ? cn->cap : 4096;
        while (cap < cn->len + n + 1)
            cap *= 2;
        char *b = realloc(cn->body, cap);
        if (!b) {
            cn->over_budget = true;
            body_release(cn);
            return;
        }
        cn->body = b;
        cn->cap = cap;
    }
    memcpy(cn->body + cn->len, data, n);
    cn->len += n;
    cn->body[cn->len] = 0;
}

/* The request's headers are in: its framing, and every check that needs no
 * body, now, so that a request refused for its headers costs no body in
 * memory. A request whose framing cannot be trusted is answered at once and
 * its connection closed; one refused for its headers has its body read and
 * dropped (the client gets its answer, the connection goes on), the answer
 * kept for the end. A body's declared length is held against max_inflight
 * at once. */
static enum MHD_Result on_headers(mcp_http *h, struct MHD_Connection *c, conn *cn, const char *url, const char *method)
{
    http_resp a;
    if (!framing_ok(c, &a)) {
        enum MHD_Result ret = mhd_answer(c, &a, true, cn->chunked);
        http_resp_free(&a);
        return ret;
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl) {
        unsigned long long n = strtoull(cl, NULL, 10);
        if (n > h->opt->max_message)
            cn->too_large = true;
        else if (!inflight_take(cn, (size_t)n))
            cn->over_budget = true;
    }
    http_req rq = {.method = method,
                   .url = url,
                   .header = mhd_header,
                   .conn = c,
                   .too_large = cn->too_large,
                   .over_budget = cn->over_budget,
                   .query = mhd_query};
    if (!http_route_head(h, &rq, &a)) {
        body_release(cn);
        cn->refused = true;
        cn->refusal = malloc(sizeof *cn->refusal);
        if (cn->refusal)
            *cn->refusal = a;
        else
            http_resp_free(&a);
        return MHD_YES;
    }
    http_resp_free(&a);
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
    mcp_http *h = cls;
    conn *cn = *con_cls;
    if (!cn) {
        cn = xcalloc(1, sizeof *cn);
        if (!cn)
            return MHD_NO;
        cn->h = h;
        cn->chunked = version && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
        *con_cls = cn;
        return on_headers(h, c, cn, url, method);
    }
    if (cn->pending) { /* resumed: the answer, or suspended again */
        http_resp a;
        if (!http_pending_take(h, cn->pending, &a))
            return MHD_YES;
        cn->pending = NULL;
        enum MHD_Result ret = mhd_answer(c, &a, false, cn->chunked);
        http_resp_free(&a);
        return ret;
    }
    if (*upload_size > 0) {
        body_append(cn, upload_data, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }

    if (cn->refused) {
        if (!cn->refusal)
            return MHD_NO;
        enum MHD_Result ret = mhd_answer(c, cn->refusal, false, cn->chunked);
        http_resp_free(cn->refusal);
        free(cn->refusal);
        cn->refusal = NULL;
        cn->refused = false;
        return ret;
    }
    http_req rq = {.method = method,
                   .url = url,
                   .header = mhd_header,
                   .conn = c,
                   .body = cn->body,
                   .len = cn->len,
                   .too_large = cn->too_large,
                   .over_budget = cn->over_budget,
                   .gone = mhd_gone,
                   .park = mhd_park,
                   .wake = mhd_wake,
                   .body_done = body_release,
                   .body_ctx = cn,
                   .query = mhd_query};
    http_resp a;
    http_route(h, &rq, &a);
    body_release(cn);
    if (a.pending) { /* suspended: back here when resumed */
        cn->pending = a.pending;
        return MHD_YES;
    }
    enum MHD_Result ret = mhd_answer(c, &a, false, cn->chunked);
    http_resp_free(&a);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    conn *cn = *con_cls;
    if (cn) {
        if (cn->pending)
            http_pending_free(cn->pending);
        body_release(cn);
        if (cn->refusal) {
            http_resp_free(cn->refusal);
            free(cn->refusal);
        }
        free(cn);
        *con_cls = NULL;
    }
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    const mcp_http *h = cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    size_t n = strlen(line);
    while (n > 0 && line[n - 1] == '\n')
        line[--n] = 0;
    mcp_runtime_log(h->rt, MCP_LOG_DEBUG, "http: %s", line);
}


/* ---------------------------------------------------------------- start and stop */

static bool parse_host_port(const char *hp, char *host, size_t host_cap, unsigned *port)
{
    const char *colon;
    if (hp[0] == '[') {
        const char *e = strchr(hp, ']');
        if (!e || e[1] != ':')
            return false;
        if ((size_t)(e - hp - 1) >= host_cap)
            return false;
        memcpy(host, hp + 1, (size_t)(e - hp - 1));
        host[e - hp - 1] = 0;
        colon = e + 1;
    } else {
        colon = strrchr(hp, ':');
        if (!colon || (size_t)(colon - hp) >= host_cap)
            return false;
        memcpy(host, hp, (size_t)(colon - hp));
        host[colon - hp] = 0;
    }
    char *end;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (end == colon + 1 || *end || errno || p > 65535)
        return false;
    *port = (unsigned)p;
    return true;
}

/* Whether every address of the list is a loopback one (127.0.0.0/8, ::1,
 * or IPv4-mapped 127.x): what a server may bind without authorization. */
static bool loopback_only(const struct addrinfo *ai)
{
    for (; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) {
            const struct sockaddr_in *a = (const struct sockaddr_in *)ai->ai_addr;
            if ((ntohl(a->sin_addr.s_addr) >> 24) != 127)
                return false;
        } else if (ai->ai_family == AF_INET6) {
            const struct in6_addr *a = &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
            bool v4_loop = IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
            if (!IN6_IS_ADDR_LOOPBACK(a) && !v4_loop)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

/* Connections at once: as many as the descriptor limit allows (raised to
 * its hard limit), less some for everything else the process opens (files,
 * the JWKS fetch, the listening socket, each pool thread's epoll and
 * inter-thread channel). Past it, libmicrohttpd closes a new connection at
 * once. */
static unsigned connection_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        struct rlimit want = {.rlim_cur = rl.rlim_max, .rlim_max = rl.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl.rlim_cur = rl.rlim_max;
    }
    rlim_t n = rl.rlim_cur == RLIM_INFINITY ? (rlim_t)1 << 20 : rl.rlim_cur;
    if (n > (rlim_t)1 << 20)
        n = (rlim_t)1 << 20;
    return n > 512 ? (unsigned)(n - 256) : (unsigned)(n / 2);
}

/* The time of the tick after the one at *t. */
static void tick_after(struct timespec *t)
{
    t->tv_nsec += 1000000000L / TICKS_PER_SECOND;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

/* TICKS_PER_SECOND times a second: keep-alive comments due on parked SSE
 * streams, and 2026-07-28 clients gone while their answer is awaited; and at
 * once, the sessions of those clients to end (hsession_end_soon). */
static void *ticker_main(void *arg)
{
    mcp_http *h = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    tick_after(&next);
    pthread_mutex_lock(&h->tick_mu);
    while (!h->tick_stop) {
        if (!h->reap)
            pthread_cond_timedwait(&h->tick_cv, &h->tick_mu, &next);
        if (h->tick_stop)
            break;
        pthread_mutex_unlock(&h->tick_mu);
        hsession_reap(h);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec >= next.tv_nsec)) {
            http_core_tick(h);
            next = now;
            tick_after(&next);
        }
        pthread_mutex_lock(&h->tick_mu);
    }
    pthread_mutex_unlock(&h->tick_mu);
    return NULL;
}

mcp_http *mcp_http_start(mcp_runtime *rt)
{
    const char *hp = mcp_runtime_options(rt)->http;
    char lwhy[600];
    if (!http_libs_load(lwhy, sizeof lwhy)) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start: %s", lwhy);
        return NULL;
    }
    char host[256];
    unsigned port;
    if (!hp || !parse_host_port(hp, host, sizeof host, &port)) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "--http: '%s' is not HOST:PORT", hp ? hp : "");
        return NULL;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
    struct addrinfo *ai = NULL;
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%u", port);
    int gai = getaddrinfo(host[0] ? host : NULL, portstr, &hints, &ai);
    if (gai != 0 || !ai) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "--http: cannot resolve '%s': %s", host, gai_strerror(gai));
        return NULL;
    }

    const mcp_options *o = mcp_runtime_options(rt);
    /* Anyone who can reach a non-loopback address could call every tool. */
    if (!http_auth_wanted(o) && !o->no_auth && !loopback_only(ai)) {
        mcp_runtime_log(rt, MCP_LOG_ERROR,
                        "--http %s: this address is reachable from other machines, and without "
                        "authorization anyone who reaches it can call every tool: configure "
                        "--auth-issuer, --auth-resource and --auth-jwks (docs/auth.md), or say "
                        "--no-auth to serve it open (behind a proxy that authenticates, say)",
                        hp);
        freeaddrinfo(ai);
        return NULL;
    }
    if ((o->tls_cert || o->tls_key) && !MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK)) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "--tls-cert: this libmicrohttpd has no TLS certificate callback");
        freeaddrinfo(ai);
        return NULL;
    }
    mcp_http *h = http_core_new(rt);
    if (!h) {
        freeaddrinfo(ai);
        return NULL;
    }
    if (o->tls_cert || o->tls_key) {
        char why[512];
        h->tls = http_tls_new(o->tls_cert, o->tls_key, why, sizeof why);
        if (!h->tls) {
            mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start: %s", why);
            freeaddrinfo(ai);
            http_core_free(h);
            return NULL;
        }
    }

    /* Event-driven: a pool of threads, one per CPU, each with its own epoll
     * set; a connection waiting for its session is suspended (it holds no
     * thread) until the core resumes it. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (h->tls)
        flags |= MHD_USE_TLS;
    /* Without TLS the two TLS options are given as no-ops (MHD_OPTION_ARRAY
     * with nothing in it), so that the call is one. */
    struct MHD_OptionItem tls_opts[] = {
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)http_tls_notify, h->tls},
        {MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)&http_tls_retrieve},
        {MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)HTTP_TLS_PRIORITIES},
        {MHD_OPTION_END, 0, NULL},
    };
    if (!h->tls)
        tls_opts[0].option = MHD_OPTION_END;
    unsigned limit = connection_limit();
    /* One thread per CPU the process may run on (sched_getaffinity: taskset,
     * a container's cpuset), not per CPU of the machine: more threads than
     * CPUs only take turns, and the turns are the latency's tail. */
    cpu_set_t cpuset;
    long cpus = sched_getaffinity(0, sizeof cpuset, &cpuset) == 0 ? CPU_COUNT(&cpuset) : sysconf(_SC_NPROCESSORS_ONLN);
    /* At least two: libmicrohttpd 0.9.75 with one thread (no pool) served 256
     * keep-alive connections at a few hundred requests/s instead of tens of
     * thousands (bench/http/load.py, server pinned to one CPU), and at times
     * none: every connection then held a whole request unread while its one
     * thread waited in epoll_wait for the connection timeout, our own threads
     * idle (nothing handed to them). Two threads on one CPU take turns, which
     * shows in the latency's tail at 16 connections and more. */
    unsigned pool = cpus > 2 ? (unsigned)(cpus < 64 ? cpus : 64) : 2;
    h->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
                            MHD_OPTION_SOCK_ADDR, ai->ai_addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)h->timeout_seconds, MHD_OPTION_CONNECTION_LIMIT,
                            limit, MHD_OPTION_THREAD_POOL_SIZE, pool, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                            h->opt->http_header_bytes, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!h->d) {
        mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot listen on %s", hp);
        http_core_free(h);
        return NULL;
    }
    mcp_runtime_log(rt, MCP_LOG_DEBUG, "http: %u thread(s), at most %u connections", pool, limit);
    h->reaper = true;
    if (pthread_create(&h->ticker, NULL, ticker_main, h) != 0) {
        h->reaper = false;
        mcp_runtime_log(rt, MCP_LOG_ERROR, "http: cannot start a thread");
        MHD_stop_daemon(h->d);
        http_core_free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    return h;
}

unsigned mcp_http_port(const mcp_http *h) { return h->port; }

void mcp_http_reload(mcp_http *h)
{
    if (h->tls) {
        char why[512];
        if (http_tls_reload(h->tls, why, sizeof why))
            mcp_runtime_log(h->rt, MCP_LOG_INFO, "http: reload: TLS certificate and key loaded again");
        else
            mcp_runtime_log(h->rt, MCP_LOG_ERROR, "http: reload: %s: keeping the certificate in use", why);
    }
    http_auth_reload(h->auth);
}

void mcp_http_stop(mcp_http *h)
{
    if (!h)
        return;
    http_core_quiesce(h);
    /* Give readers a moment to hand over what their streams hold (an answer
     * that came in while draining): stopping the daemon closes connections. */
    for (int waited_ms = 0; waited_ms < 5000 && readers_busy(h); waited_ms += 10) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&h->tick_mu);
    h->tick_stop = true;
    h->reaper = false; /* from now on, sessions end at once */
    pthread_cond_signal(&h->tick_cv);
    pthread_mutex_unlock(&h->tick_mu);
    pthread_join(h->ticker, NULL);
    hsession_reap(h);
    MHD_stop_daemon(h->d); /* joins the pool's threads */
    http_core_free(h);
}

int mcp_runtime_serve_http(mcp_runtime *rt)
{
    signal(SIGPIPE, SIG_IGN);
    mcp_http *h = mcp_http_start(rt);
    if (!h)
        return 1;
    char host[256];
    unsigned port;
    parse_host_port(h->opt->http, host, sizeof host, &port);
    bool v6 = strchr(host, ':') != NULL;
    const mcp_server *server = mcp_runtime_server(rt);
    fprintf(stderr, "mcpidl: %s %s listening on %s://%s%s%s:%u%s\n", server->name ? server->name : "?",
            server->version ? server->version : "?", h->tls ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "",
            mcp_http_port(h), h->path);
    fflush(stderr);
    int fd = mcp_runtime_stop_fd(rt);
    /* Sessions expire within a sweep interval of their idle time. */
    int sweep_secs = h->idle_seconds < 60 ? h->idle_seconds : 60;
    while (!mcp_runtime_stopping(rt)) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = mcp_runtime_reload_fd(rt), .events = POLLIN}};
        int r = poll(p, 2, sweep_secs * 1000);
        if (r > 0 && !p[0].revents && mcp_runtime_reload_taken(rt)) {
            mcp_http_reload(h);
            continue;
        }
        if (r > 0 || (r < 0 && errno != EINTR))
            break;
        mcp_http_sweep(h);
    }
    mcp_runtime_log(rt, MCP_LOG_INFO, "http: stopping");
    mcp_http_stop(h);
    return 0;
}

static bool http_wanted(const mcp_options *o) { return o->http != NULL; }

const mcp_transport mcp_http_transport = {.name = "http", .wanted = http_wanted, .serve = mcp_runtime_serve_http};
