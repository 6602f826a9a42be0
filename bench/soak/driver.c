/* driver.c: the soak test's client (bench/soak/run.sh).
 *
 *   soak-driver stdio CALLS SERVER [ARGS...]
 *   soak-driver http CALLS SERVER [ARGS...]
 *
 * Starts SERVER (the soak server: one tool, add(a, b, tag) -> {sum, tag}) and
 * sends it CALLS tools/call, each with its own arguments, then checks that
 * every request got exactly one answer, with its id and its own result:
 * structuredContent byte for byte {"sum":A+B,"tag":"tID"}.
 *
 * stdio: one writer and one reader on the server's pipes, a sliding window of
 * requests in flight (SOAK_WINDOW, default 64: the session's limit).
 * http: SOAK_CONNS connections (default 32), each with its own session and
 * keep-alive, one request at a time, answers as application/json.
 *
 * The server's VmRSS is read from /proc/PID/status after the warm-up
 * (SOAK_WARMUP calls, default 10,000), then every tenth of the calls and at
 * the end, with VmHWM. The figures go to standard output as one JSON line;
 * progress goes to standard error. Exit status 0 when every answer was
 * there and right.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES 64
#define HANG_GUARD_MS 60000 /* no answer for this long: stop and count the rest missing */

/* ---------------------------------------------------------------- shared state */

static uint64_t ncalls;
static uint64_t warmup;
static pid_t server_pid;
static _Atomic uint8_t *seen; /* per id (1..ncalls): answers received */
static atomic_uint_fast64_t answered, wrong, duplicated, reconnects;

typedef struct sample {
    uint64_t calls;
    long rss_kib;
} sample;
static sample samples[MAX_SAMPLES];
static int nsamples;
static long hwm_kib;
static double t_warm, t_end;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* VmRSS and VmHWM of the server, in KiB (-1 when unreadable). */
static void read_status(long *rss, long *hwm)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)server_pid);
    *rss = *hwm = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0)
            *rss = strtol(line + 6, NULL, 10);
        else if (strncmp(line, "VmHWM:", 6) == 0)
            *hwm = strtol(line + 6, NULL, 10);
    }
    fclose(f);
}

static uint64_t next_sample_at(uint64_t done)
{
    uint64_t every = ncalls / 10 ? ncalls / 10 : 1;
    if (done < warmup)
        return warmup;
    uint64_t k = done / every + 1;
    return k * every < ncalls ? k * every : ncalls;
}

/* Called with the number of answers so far whenever it reaches a sample point. */
static void take_sample(uint64_t done)
{
    if (nsamples >= MAX_SAMPLES)
        return;
    long rss, hwm;
    read_status(&rss, &hwm);
    if (hwm > hwm_kib)
        hwm_kib = hwm;
    samples[nsamples++] = (sample){done, rss};
    if (done == warmup || nsamples == 1)
        t_warm = now_s();
    fprintf(stderr, "soak: %" PRIu64 " answers, server RSS %ld KiB\n", done, rss);
}

/* The request for id i, into b (room for 256 bytes); its length. */
static int request(char *b, uint64_t i)
{
    return snprintf(b, 256,
                    "{\"jsonrpc\":\"2.0\",\"id\":%" PRIu64 ",\"method\":\"tools/call\",\"params\":"
                    "{\"name\":\"add\",\"arguments\":{\"a\":%" PRIu64 ",\"b\":%" PRIu64 ",\"tag\":\"t%" PRIu64 "\"}}}",
                    i, i, (i * 7919) % 100003, i);
}

/* Judge one answer (text[0..n), one JSON-RPC message). */
static void check_answer(const char *text, size_t n)
{
    char buf[512];
    if (n >= sizeof buf) {
        atomic_fetch_add(&wrong, 1);
        return;
    }
    memcpy(buf, text, n);
    buf[n] = 0;
    const char *p = strstr(buf, "\"id\":");
    char *end;
    uint64_t id = p ? strtoull(p + 5, &end, 10) : 0;
    if (id < 1 || id > ncalls) {
        atomic_fetch_add(&wrong, 1);
        fprintf(stderr, "soak: an answer with no id of ours: %s\n", buf);
        return;
    }
    if (atomic_fetch_add(&seen[id], 1) > 0) {
        atomic_fetch_add(&duplicated, 1);
        return;
    }
    char want[128];
    snprintf(want, sizeof want, "\"structuredContent\":{\"sum\":%" PRIu64 ",\"tag\":\"t%" PRIu64 "\"}",
             id + (id * 7919) % 100003, id);
    if (!strstr(buf, want) || !strstr(buf, "\"isError\":false")) {
        if (atomic_fetch_add(&wrong, 1) < 5)
            fprintf(stderr, "soak: wrong answer for %" PRIu64 ": %s\n", id, buf);
    }
    atomic_fetch_add(&answered, 1);
}

/* ---------------------------------------------------------------- the server */

static pid_t spawn(char **argv, int *to, int *from, int *err)
{
    int in[2], out[2], er[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(er, O_CLOEXEC)) {
        perror("soak: pipe");
        exit(1);
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("soak: fork");
        exit(1);
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(er[1], 2);
        execv(argv[0], argv);
        perror("soak: exec");
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(er[1]);
    *to = in[1];
    *from = out[0];
    *err = er[0];
    return pid;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            perror("soak: write");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Copies the server's standard error to ours (so that it never blocks on it). */
static void *drain_stderr(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char b[4096];
    ssize_t r;
    while ((r = read(fd, b, sizeof b)) > 0)
        write_all(2, b, (size_t)r);
    return NULL;
}

#define INIT_BODY \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"soak\",\"version\":\"1\"}}}"
#define INITIALIZED_BODY "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

/* ---------------------------------------------------------------- stdio */

static pthread_mutex_t win_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t win_cv = PTHREAD_COND_INITIALIZER;
static uint64_t win_done; /* answers, under win_mu, for the writer's window */

typedef struct reader_arg {
    int fd;
} reader_arg;

static void *stdio_reader(void *p)
{
    reader_arg *ra = p;
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    uint64_t got = 0, sample_at = next_sample_at(0);
    bool first = true; /* the answer to initialize */
    while (got < ncalls) {
        struct pollfd pf = {.fd = ra->fd, .events = POLLIN};
        int pr = poll(&pf, 1, HANG_GUARD_MS);
        if (pr == 0) {
            fprintf(stderr, "soak: no answer for %d s: stopping\n", HANG_GUARD_MS / 1000);
            break;
        }
        ssize_t r = read(ra->fd, b + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        size_t start = 0;
        for (;;) {
            char *nl = memchr(b + start, '\n', len - start);
            if (!nl)
                break;
            size_t n = (size_t)(nl - (b + start));
            if (first)
                first = false;
            else {
                check_answer(b + start, n);
                got++;
                if (got == sample_at) {
                    take_sample(got);
                    sample_at = next_sample_at(got);
                }
            }
            start += n + 1;
        }
        memmove(b, b + start, len - start);
        len -= start;
        pthread_mutex_lock(&win_mu);
        win_done = got;
        pthread_cond_signal(&win_cv);
        pthread_mutex_unlock(&win_mu);
    }
    pthread_mutex_lock(&win_mu);
    win_done = UINT64_MAX; /* stop the writer */
    pthread_cond_signal(&win_cv);
    pthread_mutex_unlock(&win_mu);
    free(b);
    return NULL;
}

static int run_stdio(char **server_argv)
{
    uint64_t window = getenv("SOAK_WINDOW") ? strtoull(getenv("SOAK_WINDOW"), NULL, 10) : 64;
    int to, from, err;
    server_pid = spawn(server_argv, &to, &from, &err);
    pthread_t te, tr;
    pthread_create(&te, NULL, drain_stderr, (void *)(intptr_t)err);
    write_all(to, INIT_BODY "\n" INITIALIZED_BODY "\n", strlen(INIT_BODY INITIALIZED_BODY) + 2);
    reader_arg ra = {from};
    pthread_create(&tr, NULL, stdio_reader, &ra);
    double t0 = now_s();
    char *batch = malloc(window * 256);
    uint64_t sent = 0;
    while (sent < ncalls) {
        pthread_mutex_lock(&win_mu);
        while (win_done != UINT64_MAX && sent - win_done >= window)
            pthread_cond_wait(&win_cv, &win_mu);
        uint64_t done = win_done;
        pthread_mutex_unlock(&win_mu);
        if (done == UINT64_MAX)
            break;
        size_t len = 0;
        uint64_t room = window - (sent - done);
        for (uint64_t k = 0; k < room && sent < ncalls; k++) {
            len += (size_t)request(batch + len, ++sent);
            batch[len++] = '\n';
        }
        write_all(to, batch, len);
    }
    pthread_join(tr, NULL);
    t_end = now_s();
    long rss, hwm;
    read_status(&rss, &hwm);
    if (hwm > hwm_kib)
        hwm_kib = hwm;
    close(to); /* end of input: the server drains and exits */
    int st = 0;
    waitpid(server_pid, &st, 0);
    pthread_join(te, NULL);
    free(batch);
    close(from);
    (void)t0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---------------------------------------------------------------- http */

static unsigned http_port;
static int nconns;
static atomic_int conns_running;

typedef struct hconn {
    int fd;
    char sid[64];
    char *buf;
    size_t cap, len; /* bytes read and not yet used */
} hconn;

static bool hc_connect(hconn *c)
{
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)http_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0)
        return false;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {HANG_GUARD_MS / 1000, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    c->len = 0;
    return true;
}

/* One POST; the status, the body (in c->buf, NUL-terminated) and its length.
 * -1 when the connection failed. */
static int hc_post(hconn *c, const char *body, size_t blen, const char **out, size_t *out_len)
{
    char head[512];
    int hn = snprintf(head, sizeof head,
                      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: application/json\r\n"
                      "Accept: application/json\r\n%s%s%sContent-Length: %zu\r\n\r\n",
                      http_port, c->sid[0] ? "Mcp-Session-Id: " : "", c->sid, c->sid[0] ? "\r\n" : "", blen);
    struct iovec iov[2] = {{head, (size_t)hn}, {(void *)body, blen}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
    ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
    if (w != hn + (ssize_t)blen)
        return -1;
    /* Headers, then Content-Length bytes. */
    char *eoh = NULL;
    for (;;) {
        c->buf[c->len] = 0;
        if ((eoh = strstr(c->buf, "\r\n\r\n")))
            break;
        if (c->len + 1 >= c->cap)
            return -1;
        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
        if (r <= 0)
            return -1;
        c->len += (size_t)r;
    }
    int status = 0;
    sscanf(c->buf, "HTTP/1.1 %d", &status);
    const char *cl = strcasestr(c->buf, "\r\nContent-Length:");
    size_t clen = cl && cl < eoh ? strtoull(cl + 17, NULL, 10) : 0;
    const char *sid = strcasestr(c->buf, "\r\nMcp-Session-Id: ");
    if (sid && sid < eoh && !c->sid[0]) {
        size_t n = strcspn(sid + 18, "\r\n");
        if (n < sizeof c->sid) {
            memcpy(c->sid, sid + 18, n);
            c->sid[n] = 0;
        }
    }
    size_t hlen = (size_t)(eoh + 4 - c->buf);
    while (c->len < hlen + clen) {
        if (hlen + clen + 1 > c->cap)
            return -1;
        ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len - 1);
        if (r <= 0)
            return -1;
        c->len += (size_t)r;
    }
    /* The body moves to the front; nothing follows it (one request at a time). */
    memmove(c->buf, c->buf + hlen, clen);
    c->buf[clen] = 0;
    c->len = 0;
    *out = c->buf;
    *out_len = clen;
    return status;
}

static bool hc_session(hconn *c)
{
    const char *body;
    size_t n;
    c->sid[0] = 0;
    if (!hc_connect(c) || hc_post(c, INIT_BODY, strlen(INIT_BODY), &body, &n) != 200 || !c->sid[0])
        return false;
    return hc_post(c, INITIALIZED_BODY, strlen(INITIALIZED_BODY), &body, &n) == 202;
}

static void *http_conn(void *arg)
{
    int t = (int)(intptr_t)arg;
    hconn c = {.cap = 1 << 16};
    c.buf = malloc(c.cap);
    if (!hc_session(&c)) {
        fprintf(stderr, "soak: connection %d: no session\n", t);
        free(c.buf);
        atomic_fetch_sub(&conns_running, 1);
        return NULL;
    }
    char req[256];
    for (uint64_t id = (uint64_t)t + 1; id <= ncalls; id += (uint64_t)nconns) {
        int n = request(req, id);
        const char *body;
        size_t blen;
        int st = hc_post(&c, req, (size_t)n, &body, &blen);
        if (st < 0) {
            /* The connection closed under us: once more on a new one (same session). */
            atomic_fetch_add(&reconnects, 1);
            close(c.fd);
            if (!hc_connect(&c) || (st = hc_post(&c, req, (size_t)n, &body, &blen)) < 0) {
                fprintf(stderr, "soak: connection %d failed at id %" PRIu64 "\n", t, id);
                break;
            }
        }
        if (st != 200) {
            atomic_fetch_add(&wrong, 1);
            fprintf(stderr, "soak: status %d for id %" PRIu64 ": %s\n", st, id, body);
            continue;
        }
        check_answer(body, blen);
    }
    close(c.fd);
    free(c.buf);
    atomic_fetch_sub(&conns_running, 1);
    return NULL;
}

static int run_http(char **server_argv)
{
    nconns = getenv("SOAK_CONNS") ? atoi(getenv("SOAK_CONNS")) : 32;
    int to, from, err;
    server_pid = spawn(server_argv, &to, &from, &err);
    /* "... listening on http://127.0.0.1:PORT/mcp" on its standard error. */
    char line[1024];
    size_t len = 0;
    while (!http_port) {
        ssize_t r = read(err, line + len, sizeof line - 1 - len);
        if (r <= 0) {
            fprintf(stderr, "soak: the server did not start\n");
            return 1;
        }
        len += (size_t)r;
        line[len] = 0;
        const char *p = strstr(line, "listening on http://127.0.0.1:");
        if (p && strchr(p, '\n'))
            http_port = (unsigned)atoi(p + 30);
    }
    pthread_t te;
    pthread_create(&te, NULL, drain_stderr, (void *)(intptr_t)err);
    pthread_t *th = calloc((size_t)nconns, sizeof *th);
    atomic_store(&conns_running, nconns);
    for (int t = 0; t < nconns; t++)
        pthread_create(&th[t], NULL, http_conn, (void *)(intptr_t)t);
    /* Samples as the answers pass each point. */
    uint64_t sample_at = next_sample_at(0);
    for (;;) {
        uint64_t done = atomic_load(&answered) + atomic_load(&wrong);
        while (done >= sample_at && nsamples < MAX_SAMPLES) {
            take_sample(sample_at);
            if (sample_at == ncalls)
                break;
            sample_at = next_sample_at(sample_at);
        }
        if (done >= ncalls || atomic_load(&conns_running) == 0)
            break; /* all answered, or every connection gave up */
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    for (int t = 0; t < nconns; t++)
        pthread_join(th[t], NULL);
    t_end = now_s();
    long rss, hwm;
    read_status(&rss, &hwm);
    if (hwm > hwm_kib)
        hwm_kib = hwm;
    kill(server_pid, SIGTERM);
    int st = 0;
    waitpid(server_pid, &st, 0);
    close(to);
    close(from);
    pthread_join(te, NULL);
    free(th);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "stdio") != 0 && strcmp(argv[1], "http") != 0)) {
        fprintf(stderr, "usage: soak-driver stdio|http CALLS SERVER [ARGS...]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    bool http = strcmp(argv[1], "http") == 0;
    ncalls = strtoull(argv[2], NULL, 10);
    warmup = getenv("SOAK_WARMUP") ? strtoull(getenv("SOAK_WARMUP"), NULL, 10) : 10000;
    if (warmup >= ncalls)
        warmup = ncalls / 10 ? ncalls / 10 : 1;
    seen = calloc(ncalls + 1, 1);
    t_warm = t_end = now_s(); /* until the warm-up sample */
    /* The server's argv: SERVER ARGS... and, for http, --http 127.0.0.1:0. */
    char **sargv = calloc((size_t)argc + 3, sizeof *sargv);
    int k = 0;
    for (int i = 3; i < argc; i++)
        sargv[k++] = argv[i];
    if (http) {
        sargv[k++] = "--http";
        sargv[k++] = "127.0.0.1:0";
    }
    int server_status = http ? run_http(sargv) : run_stdio(sargv);

    uint64_t distinct = 0;
    for (uint64_t i = 1; i <= ncalls; i++)
        distinct += seen[i] > 0;
    uint64_t missing = ncalls - distinct;
    double secs = t_end - t_warm;
    uint64_t timed = ncalls > warmup ? ncalls - warmup : ncalls;
    printf("{\"mode\":\"%s\",\"calls\":%" PRIu64 ",\"conns\":%d,\"seconds\":%.2f,"
           "\"calls_per_s\":%.0f,\"answered\":%" PRIu64 ",\"missing\":%" PRIu64 ",\"duplicated\":%" PRIu64
           ",\"wrong\":%" PRIu64 ",\"reconnects\":%" PRIu64 ",\"server_exit\":%d,\"hwm_kib\":%ld,\"rss_kib\":[",
           http ? "http" : "stdio", ncalls, http ? nconns : 1, secs, secs > 0 ? timed / secs : 0,
           (uint64_t)atomic_load(&answered), missing, (uint64_t)atomic_load(&duplicated), (uint64_t)atomic_load(&wrong),
           (uint64_t)atomic_load(&reconnects), server_status, hwm_kib);
    for (int i = 0; i < nsamples; i++)
        printf("%s[%" PRIu64 ",%ld]", i ? "," : "", samples[i].calls, samples[i].rss_kib);
    printf("]}\n");
    bool ok = missing == 0 && atomic_load(&duplicated) == 0 && atomic_load(&wrong) == 0 && server_status == 0;
    free(sargv);
    free((void *)seen);
    return ok ? 0 : 1;
}
