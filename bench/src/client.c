/* client.c: the load client of the server benchmark.
 *
 * Starts a server as a child process with pipes for its standard input and
 * output, speaks newline-delimited JSON-RPC to it (the MCP stdio transport),
 * and measures one of:
 *
 *   seq    N tools/call requests, each sent when the previous answer is in
 *   pipe   N tools/call requests with up to W in flight (a sliding window)
 *   start  cold start: from fork() to the initialize answer, K times
 *
 * Every answer is checked: the first one semantically (json-c parses it:
 * structuredContent is London's WeatherData, content[0] is its text, no
 * error), every later one byte for byte against the first, but for its id;
 * in pipe mode each id must be one in flight, and answered once.
 *
 * CPU placement: the client pins itself to --client-cpu and the server (all
 * its threads) to --server-cpus before exec. The server's CPU time is read
 * from /proc/PID/stat before the timed phase and from wait4()'s rusage after
 * the server exits; peak RSS is rusage's ru_maxrss.
 *
 * Output: one line of JSON with the figures (see main()).
 *
 * usage: client --mode seq|pipe|start [--calls N] [--warmup N] [--window W]
 *               [--reps K] [--client-cpu C] [--server-cpus LIST] -- SERVER ARGS...
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json.h>
#include <poll.h>
#include <stdarg.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 60000

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("client: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "0", "1", "0-1", "0,1" */
static void parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            die("bad CPU list");
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b; c++)
            CPU_SET((int)c, set);
        s = *end == ',' ? end + 1 : end;
    }
}

/* ---------------------------------------------------------------- the server process */

typedef struct server {
    pid_t pid;
    int to, from; /* its stdin (we write), its stdout (we read) */
    char *buf;    /* what we read, not yet consumed: buf[start..end) */
    size_t start, end, cap;
} server;

static void spawn(server *s, char **argv, const cpu_set_t *cpus)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
        die("pipe: %s", strerror(errno));
    /* Big pipes, as large as the system allows: fewer wake-ups for both sides. */
    fcntl(in[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(out[1], F_SETPIPE_SZ, 1 << 20);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        if (cpus)
            sched_setaffinity(0, sizeof *cpus, cpus);
        dup2(in[0], 0);
        dup2(out[1], 1);
        execvp(argv[0], argv);
        fprintf(stderr, "client: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s->pid = pid;
    s->to = in[1];
    s->from = out[0];
    s->cap = 1 << 20;
    s->buf = malloc(s->cap);
    s->start = s->end = 0;
    if (!s->buf)
        die("out of memory");
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("write to the server: %s", strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Read more of the server's output; false at end of output. */
static bool fill(server *s, int timeout_ms)
{
    if (s->start == s->end)
        s->start = s->end = 0;
    if (s->end == s->cap) {
        if (s->start > 0) {
            memmove(s->buf, s->buf + s->start, s->end - s->start);
            s->end -= s->start;
            s->start = 0;
        } else {
            s->cap *= 2;
            if (!(s->buf = realloc(s->buf, s->cap)))
                die("out of memory");
        }
    }
    if (timeout_ms >= 0) {
        struct pollfd p = {.fd = s->from, .events = POLLIN};
        int r;
        while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
            ;
        if (r == 0)
            die("no answer from the server in %d ms", timeout_ms);
    }
    for (;;) {
        ssize_t r = read(s->from, s->buf + s->end, s->cap - s->end);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die("read from the server: %s", strerror(errno));
        if (r == 0)
            return false;
        s->end += (size_t)r;
        return true;
    }
}

/* The next whole line (without its newline), or NULL when none is buffered. */
static char *next_line(server *s, size_t *len)
{
    char *p = s->buf + s->start;
    char *nl = memchr(p, '\n', s->end - s->start);
    if (!nl)
        return NULL;
    *len = (size_t)(nl - p);
    s->start += *len + 1;
    return p;
}

static char *read_line(server *s, size_t *len)
{
    char *l;
    while (!(l = next_line(s, len)))
        if (!fill(s, TIMEOUT_MS))
            die("the server closed its output");
    return l;
}

/* Close its input and wait: its rusage. */
static struct rusage finish(server *s)
{
    close(s->to);
    /* Drain its output so that it never blocks on a full pipe while exiting. */
    while (fill(s, TIMEOUT_MS))
        s->start = s->end;
    close(s->from);
    int status;
    struct rusage ru;
    if (wait4(s->pid, &status, 0, &ru) < 0)
        die("wait4: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "client: warning: the server exited with status %d (signal %d)\n",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    free(s->buf);
    return ru;
}

/* utime + stime of a live process, in seconds (clock ticks). */
static double proc_cpu_s(pid_t pid)
{
    char path[64], text[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot read %s", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *p = strrchr(text, ')'); /* after the command name, which may hold spaces */
    if (!p)
        die("bad %s", path);
    unsigned long utime = 0, stime = 0;
    /* fields after ')': state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        die("bad %s", path);
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static double rusage_cpu_s(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec * 1e-6 + (double)ru->ru_stime.tv_sec +
           ru->ru_stime.tv_usec * 1e-6;
}

/* ---------------------------------------------------------------- messages */

static const char INITIALIZE[] =
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"mcpidl-bench\",\"version\":\"1.0.0\"}}}\n";
static const char INITIALIZED[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/* A tools/call of get_weather for London, with id `id`, into out; its length. */
static size_t call_text(char *out, uint64_t id)
{
    return (size_t)sprintf(out,
                           "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{\"name\":"
                           "\"get_weather\",\"arguments\":{\"city\":\"London\"}}}\n",
                           (unsigned long long)id);
}

/* Where the id's digits are in an answer: [*a, *b). */
static bool find_id(const char *l, size_t n, size_t *a, size_t *b, uint64_t *id)
{
    static const char KEY[] = "\"id\":";
    const char *p = memmem(l, n, KEY, sizeof KEY - 1);
    if (!p)
        return false;
    size_t i = (size_t)(p - l) + sizeof KEY - 1;
    size_t j = i;
    uint64_t v = 0;
    while (j < n && l[j] >= '0' && l[j] <= '9')
        v = v * 10 + (uint64_t)(l[j++] - '0');
    if (j == i)
        return false;
    *a = i;
    *b = j;
    *id = v;
    return true;
}

static json_object *path(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool is_london(json_object *w)
{
    json_object *t = path(w, "temperature"), *h = path(w, "humidity"), *c = path(w, "conditions");
    return w && json_object_is_type(w, json_type_object) && json_object_object_length(w) == 3 && t && h && c &&
           json_object_get_double(t) == 16.2 && json_object_get_double(h) == 0.83 &&
           json_object_is_type(c, json_type_string) && strcmp(json_object_get_string(c), "Overcast") == 0;
}

/* The first answer, judged as a client would: parse it whole. */
static void check_semantics(const char *l, size_t n, uint64_t want_id)
{
    json_tokener *tok = json_tokener_new();
    json_object *o = json_tokener_parse_ex(tok, l, (int)n);
    if (!o || json_tokener_get_error(tok) != json_tokener_success)
        die("the first answer is not JSON: %.*s", (int)n, l);
    json_tokener_free(tok);
    json_object *r = path(o, "result"), *id = path(o, "id"), *jr = path(o, "jsonrpc");
    json_object *content = path(r, "content"), *sc = path(r, "structuredContent"), *err = path(r, "isError");
    bool ok = r && id && (uint64_t)json_object_get_int64(id) == want_id && jr &&
              strcmp(json_object_get_string(jr), "2.0") == 0 && is_london(sc) &&
              (!err || !json_object_get_boolean(err)) && content && json_object_is_type(content, json_type_array) &&
              json_object_array_length(content) == 1;
    if (ok) {
        json_object *block = json_object_array_get_idx(content, 0);
        json_object *type = path(block, "type"), *text = path(block, "text");
        ok = type && strcmp(json_object_get_string(type), "text") == 0 && text;
        if (ok) {
            json_object *inner = json_tokener_parse(json_object_get_string(text));
            ok = is_london(inner);
            json_object_put(inner);
        }
    }
    if (!ok)
        die("the first answer is not London's weather: %.*s", (int)n, l);
    json_object_put(o);
}

/* The first answer with its id cut out: every later answer must match. */
typedef struct tmpl {
    char *pre, *post;
    size_t npre, npost;
} tmpl;

static void learn(tmpl *t, const char *l, size_t n, uint64_t want_id)
{
    size_t a, b;
    uint64_t id;
    if (!find_id(l, n, &a, &b, &id) || id != want_id)
        die("the first answer has no id %llu: %.*s", (unsigned long long)want_id, (int)n, l);
    check_semantics(l, n, want_id);
    t->npre = a;
    t->npost = n - b;
    t->pre = malloc(a + 1);
    t->post = malloc(n - b + 1);
    memcpy(t->pre, l, a);
    memcpy(t->post, l + b, n - b);
}

/* The id of an answer that matches the template; dies otherwise. */
static uint64_t check(const tmpl *t, const char *l, size_t n)
{
    size_t a, b;
    uint64_t id;
    if (!find_id(l, n, &a, &b, &id) || a != t->npre || n - b != t->npost || memcmp(l, t->pre, a) != 0 ||
        memcmp(l + b, t->post, t->npost) != 0)
        die("an answer differs from the first: %.*s", (int)(n < 2000 ? n : 2000), l);
    return id;
}

/* ---------------------------------------------------------------- the handshake */

static void handshake(server *s)
{
    write_all(s->to, INITIALIZE, sizeof INITIALIZE - 1);
    size_t n;
    char *l = read_line(s, &n);
    if (!memmem(l, n, "\"protocolVersion\"", 17) || !memmem(l, n, "\"result\"", 8))
        die("bad initialize answer: %.*s", (int)n, l);
    write_all(s->to, INITIALIZED, sizeof INITIALIZED - 1);
}

/* ---------------------------------------------------------------- the modes */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    double seconds;
    uint64_t *lat; /* ns, one per call */
    size_t nlat;
} result;

/* Sequential calls with ids first..first+n-1; every answer checked. */
static void run_seq(server *s, tmpl *t, uint64_t first, size_t n, uint64_t *lat)
{
    char req[256];
    for (size_t i = 0; i < n; i++) {
        uint64_t id = first + i;
        size_t len = call_text(req, id);
        uint64_t t0 = now_ns();
        write_all(s->to, req, len);
        size_t ln;
        char *l = read_line(s, &ln);
        uint64_t t1 = now_ns();
        if (!t->pre)
            learn(t, l, ln, id);
        else if (check(t, l, ln) != id)
            die("answer to %llu came for another id", (unsigned long long)id);
        if (lat)
            lat[i] = t1 - t0;
    }
}

/* n calls, at most `window` in flight. */
static void run_pipe(server *s, tmpl *t, uint64_t first, size_t n, size_t window, uint64_t *lat)
{
    uint64_t *sent = calloc(n, sizeof *sent); /* send time; 0 once answered */
    char *out = malloc(window * 256);
    size_t next = 0, done = 0;
    while (done < n) {
        /* Fill the window, in one write. */
        size_t inflight = next - done, olen = 0;
        uint64_t ts = now_ns();
        while (next < n && inflight < window) {
            olen += call_text(out + olen, first + next);
            sent[next++] = ts;
            inflight++;
        }
        if (olen)
            write_all(s->to, out, olen);
        /* Take every answer there is (at least one). */
        size_t got = 0;
        for (;;) {
            size_t ln;
            char *l = next_line(s, &ln);
            if (!l) {
                if (got)
                    break;
                if (!fill(s, TIMEOUT_MS))
                    die("the server closed its output");
                continue;
            }
            uint64_t t1 = now_ns();
            uint64_t id;
            if (!t->pre) {
                size_t a, b;
                if (!find_id(l, ln, &a, &b, &id))
                    die("an answer without an id: %.*s", (int)ln, l);
                learn(t, l, ln, id);
            } else {
                id = check(t, l, ln);
            }
            if (id < first || id - first >= next || !sent[id - first])
                die("an answer to id %llu, which is not in flight", (unsigned long long)id);
            if (lat)
                lat[id - first] = t1 - sent[id - first];
            sent[id - first] = 0;
            done++;
            got++;
        }
    }
    free(out);
    free(sent);
}

int main(int argc, char **argv)
{
    const char *mode = "seq";
    size_t calls = 200000, warmup = 20000, window = 64, reps = 10;
    const char *client_cpu = NULL, *server_cpus = NULL;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (i + 1 >= argc)
            die("%s needs a value", a);
        const char *v = argv[++i];
        if (strcmp(a, "--mode") == 0)
            mode = v;
        else if (strcmp(a, "--calls") == 0)
            calls = strtoull(v, NULL, 10);
        else if (strcmp(a, "--warmup") == 0)
            warmup = strtoull(v, NULL, 10);
        else if (strcmp(a, "--window") == 0)
            window = strtoull(v, NULL, 10);
        else if (strcmp(a, "--reps") == 0)
            reps = strtoull(v, NULL, 10);
        else if (strcmp(a, "--client-cpu") == 0)
            client_cpu = v;
        else if (strcmp(a, "--server-cpus") == 0)
            server_cpus = v;
        else
            die("unknown option %s", a);
    }
    if (i >= argc)
        die("usage: client --mode seq|pipe|start [options] -- SERVER ARGS...");
    char **cmd = argv + i;
    signal(SIGPIPE, SIG_IGN);

    cpu_set_t ccpu, scpu;
    if (client_cpu) {
        parse_cpus(client_cpu, &ccpu);
        if (sched_setaffinity(0, sizeof ccpu, &ccpu))
            die("sched_setaffinity: %s", strerror(errno));
    }
    if (server_cpus)
        parse_cpus(server_cpus, &scpu);

    if (strcmp(mode, "start") == 0) {
        /* Cold start: fork to the initialize answer. One unmeasured run first
         * (the page cache), then `reps` measured ones. */
        double *t = calloc(reps + 1, sizeof *t);
        long maxrss = 0;
        for (size_t r = 0; r <= reps; r++) {
            server s;
            double t0 = now_s();
            spawn(&s, cmd, server_cpus ? &scpu : NULL);
            write_all(s.to, INITIALIZE, sizeof INITIALIZE - 1);
            size_t n;
            char *l = read_line(&s, &n);
            double t1 = now_s();
            if (!memmem(l, n, "\"protocolVersion\"", 17))
                die("bad initialize answer: %.*s", (int)n, l);
            struct rusage ru = finish(&s);
            if (ru.ru_maxrss > maxrss)
                maxrss = ru.ru_maxrss;
            t[r] = t1 - t0;
        }
        printf("{\"mode\":\"start\",\"reps\":%zu,\"start_ms\":[", reps);
        for (size_t r = 1; r <= reps; r++)
            printf("%s%.4f", r > 1 ? "," : "", t[r] * 1e3);
        printf("],\"idle_rss_kb\":%ld}\n", maxrss);
        return 0;
    }

    bool pipelined = strcmp(mode, "pipe") == 0;
    if (!pipelined && strcmp(mode, "seq") != 0)
        die("unknown mode %s", mode);
    server s;
    spawn(&s, cmd, server_cpus ? &scpu : NULL);
    handshake(&s);
    tmpl t = {0};
    /* Warm-up (the JIT of the TypeScript server needs it), same kind of traffic. */
    uint64_t id = 1;
    if (warmup) {
        if (pipelined)
            run_pipe(&s, &t, id, warmup, window, NULL);
        else
            run_seq(&s, &t, id, warmup, NULL);
        id += warmup;
    }
    uint64_t *lat = calloc(calls, sizeof *lat);
    double cpu0 = proc_cpu_s(s.pid);
    double t0 = now_s();
    if (pipelined)
        run_pipe(&s, &t, id, calls, window, lat);
    else
        run_seq(&s, &t, id, calls, lat);
    double t1 = now_s();
    struct rusage ru = finish(&s);
    double cpu = rusage_cpu_s(&ru) - cpu0;
    qsort(lat, calls, sizeof *lat, cmp_u64);
    double secs = t1 - t0;
    printf("{\"mode\":\"%s\",\"calls\":%zu,\"window\":%zu,\"seconds\":%.6f,\"calls_per_s\":%.1f,"
           "\"p50_us\":%.3f,\"p99_us\":%.3f,\"cpu_us_per_call\":%.4f,\"peak_rss_kb\":%ld,"
           "\"server_cpu_s\":%.4f,\"user_s\":%.4f,\"sys_s\":%.4f}\n",
           mode, calls, pipelined ? window : (size_t)1, secs, (double)calls / secs, lat[calls / 2] / 1e3,
           lat[(size_t)((double)calls * 0.99)] / 1e3, cpu / (double)calls * 1e6, ru.ru_maxrss, cpu,
           ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
    free(lat);
    return 0;
}
