/* catalogue.c: the handlers of catalogue.mcp.yaml, the server that run.py
 * (the bad-input catalogue) and faults.py (concurrency and faults) drive.
 *
 * Handlers that wait (wait_cancel, block, slow_progress) pause with nanosleep
 * between looks at their condition: that is the handler's business. The tests
 * never sleep: they wait for the lines these handlers write to standard error
 * ("catalogue: block waiting", "catalogue: wait_cancel cancelled"), or for
 * answers. Every wait here also has a bound (max_ms), so that a test that
 * fails cannot leave a server running forever. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalogue.mcp.h"

#define POLL_NS (2 * 1000 * 1000L) /* how often a waiting handler looks again */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ns(long ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000L, .tv_nsec = ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0) {
        /* interrupted by a signal: sleep the rest */
    }
}

/* One line on standard error, in one write, so that lines of several
 * threads do not mix. The tests wait for these. */
static void say(const char *fmt, ...) MCP_PRINTF(1, 2);
static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (write(STDERR_FILENO, line, (size_t)n) < 0) {
        /* nobody to tell */
    }
}

static const char *const COLORS[] = {"red", "green", "blue"};

mcp_status catalogue_echo(mcp_call *call, const catalogue_echo_args *in, const char **out)
{
    /* A handler that prints to standard output: mcp_main points it at
     * standard error, so the protocol stream stays clean (faults.py checks). */
    printf("catalogue: echo called\n");
    fflush(stdout);

    char ids[128] = "", counts[256] = "";
    size_t at = 0;
    for (size_t i = 0; i < in->ids.len && at < sizeof ids; i++)
        at += (size_t)snprintf(ids + at, sizeof ids - at, "%s%lld", i ? "," : "", (long long)in->ids.items[i]);
    at = 0;
    for (size_t i = 0; i < in->counts.len && at < sizeof counts; i++)
        at += (size_t)snprintf(counts + at, sizeof counts - at, "%s%s:%lld", i ? "," : "", in->counts.items[i].key,
                               (long long)in->counts.items[i].value);
    char limit[32] = "null";
    if (in->limit.has)
        snprintf(limit, sizeof limit, "%lld", (long long)in->limit.value);
    *out = mcp_sprintf(call,
                       "n=%lld x=%g s=%s b=%s ids=[%s] counts={%s} color=%s limit=%s "
                       "point=(%g,%g) tag=%s",
                       (long long)in->n, in->x, in->s, in->b ? "true" : "false", ids, counts, COLORS[in->color], limit,
                       in->point.x, in->point.y, in->tag);
    return *out ? MCP_OK : mcp_fail(call, "out of memory");
}

mcp_status catalogue_route(mcp_call *call, const catalogue_route_args *in, const char **out)
{
    *out = mcp_sprintf(call, "region=%s shard=%lld urgent=%s", in->region, (long long)in->shard,
                       in->urgent ? "true" : "false");
    return MCP_OK;
}

mcp_status catalogue_fail(mcp_call *call, const catalogue_fail_args *in, const char **out)
{
    (void)out;
    return mcp_fail(call, "%s", in->message);
}

mcp_status catalogue_raise_error(mcp_call *call, const catalogue_raise_error_args *in, int64_t *out)
{
    (void)call, (void)in;
    *out = -1; /* the output schema says minimum 0: the runtime reports it */
    return MCP_OK;
}

mcp_status catalogue_wait_cancel(mcp_call *call, const catalogue_wait_cancel_args *in, const char **out)
{
    say("catalogue: wait_cancel waiting\n");
    int64_t end = now_ms() + in->max_ms;
    while (!mcp_call_cancelled(call)) {
        if (now_ms() >= end) {
            say("catalogue: wait_cancel not cancelled\n");
            *out = "not cancelled";
            return MCP_OK;
        }
        pause_ns(POLL_NS);
    }
    say("catalogue: wait_cancel cancelled\n");
    *out = "cancelled"; /* never sent: a cancelled request gets no answer */
    return MCP_OK;
}

mcp_status catalogue_block(mcp_call *call, const catalogue_block_args *in, const char **out)
{
    say("catalogue: block waiting for %s\n", in->path);
    int64_t end = now_ms() + in->max_ms;
    for (;;) {
        if (access(in->path, F_OK) == 0) {
            *out = "released";
            return MCP_OK;
        }
        if (mcp_call_cancelled(call)) {
            say("catalogue: block cancelled\n");
            *out = "cancelled";
            return MCP_OK;
        }
        if (now_ms() >= end) {
            *out = "timed out";
            return MCP_OK;
        }
        pause_ns(POLL_NS);
    }
}

mcp_status catalogue_slow_progress(mcp_call *call, const catalogue_slow_progress_args *in, int64_t *out)
{
    int64_t done = 0;
    for (int64_t i = 1; i <= in->steps && !mcp_call_cancelled(call); i++) {
        mcp_progress(call, (double)i, (double)in->steps, NULL);
        done = i;
        if (in->pause_ms > 0 && i < in->steps)
            pause_ns((long)in->pause_ms * 1000000L);
    }
    if (done < in->steps)
        say("catalogue: slow_progress stopped\n");
    *out = done;
    return MCP_OK;
}

mcp_status catalogue_sample(mcp_call *call, const catalogue_sample_args *in, const char **out)
{
    say("catalogue: sample asking\n");
    if (!mcp_sample_text(call, in->prompt, 16, out))
        return mcp_fail(call, "%s", mcp_client_error(call));
    return MCP_OK;
}

/* bytes 'x' characters in the call's arena. */
static char *xs(mcp_call *call, int64_t bytes)
{
    char *t = mcp_alloc(call, (size_t)bytes + 1);
    if (t) {
        memset(t, 'x', (size_t)bytes);
        t[bytes] = 0;
    }
    return t;
}

mcp_status catalogue_big(mcp_call *call, const catalogue_big_args *in, const char **out)
{
    *out = xs(call, in->bytes);
    return *out ? MCP_OK : mcp_fail(call, "out of memory");
}

mcp_status catalogue_log_big(mcp_call *call, const catalogue_log_big_args *in, const char **out)
{
    const char *t = xs(call, in->bytes);
    if (!t)
        return mcp_fail(call, "out of memory");
    mcp_log_message(call, MCP_LEVEL_WARNING, "catalogue", "%s", t);
    *out = "logged";
    return MCP_OK;
}

mcp_status catalogue_strings(mcp_call *call, const catalogue_strings_args *in, int64_t *out)
{
    (void)call;
    *out = (int64_t)in->items.len;
    return MCP_OK;
}

mcp_status catalogue_job(mcp_call *call, const catalogue_job_args *in, const char **out)
{
    if (mcp_task_start(call))
        return MCP_OK;
    for (int64_t waited = 0; waited < in->ms && !mcp_call_cancelled(call); waited += 10) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    *out = mcp_in_task(call) ? "done in a task" : "done at once";
    return MCP_OK;
}

mcp_status catalogue_read_note(mcp_call *call, const char *uri, const catalogue_note_vars *vars)
{
    (void)vars;
    return mcp_resource_text(call, NULL, NULL, uri);
}

int main(int argc, char **argv) { return mcp_main(&catalogue_server, argc, argv); }
