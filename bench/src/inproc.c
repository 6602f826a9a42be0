/* inproc.c: the weather server's tools/call in one process, without pipes.
 *
 * A session (lib/server.h) with its handlers on the calling thread and a
 * sink that keeps the last answer; the same request, N times. Then the parts
 * of that cost: parsing the request (mcp_json_parse) and the tool call alone
 * (mcp_tool_invoke: arguments decoded, the handler, the result validated and
 * written). Every figure is a median of 7 timed rounds, in ns per call.
 * Output: one line of JSON. usage: bench-inproc [N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal/methods.h"
#include "mcpidl/transport.h"

/* The example's handlers, as they are. */
#define main weather_example_main
#include "weather.c"
#undef main

static char last[4096];
static size_t last_len;

static bool sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    (void)ctx, (void)reply_ctx, (void) final;
    last_len = 0;
    for (size_t i = 0; i < n; i++) {
        if (last_len + parts[i].n < sizeof last)
            memcpy(last + last_len, parts[i].p, parts[i].n);
        last_len += parts[i].n;
    }
    return true;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define ROUNDS 7

static const char INIT[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                           "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"b\",\"version\":\"1\"}}}";
static const char INITIALIZED[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
static const char CALL[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":"
                           "\"get_weather\",\"arguments\":{\"city\":\"London\"}}}";
static const char ANSWER[] =
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\n  "
    "\\\"temperature\\\": 16.2,\\n  \\\"humidity\\\": 0.83,\\n  \\\"conditions\\\": \\\"Overcast\\\"\\n}\"}],"
    "\"structuredContent\":{\"temperature\":16.2,\"humidity\":0.83,\"conditions\":\"Overcast\"},\"isError\":false}}";

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    mcp_runtime *rt = mcp_runtime_new(&weather_server, &set);
    mcp_session *s = rt ? mcp_session_new(rt, sink, NULL) : NULL;
    if (!s)
        return 1;
    mcp_session_message(s, INIT, sizeof INIT - 1, NULL);
    mcp_session_message(s, INITIALIZED, sizeof INITIALIZED - 1, NULL);

    /* The whole message. */
    double total[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++)
            mcp_session_message(s, CALL, sizeof CALL - 1, NULL);
        total[r] = (now_ns() - t0) / (double)n;
        if (last_len != sizeof ANSWER - 1 || memcmp(last, ANSWER, last_len) != 0) {
            fprintf(stderr, "bench-inproc: wrong answer: %.*s\n", (int)last_len, last);
            return 1;
        }
    }
    mcp_session_free(s);
    mcp_runtime_free(rt);

    /* Parsing the request alone. */
    mcp_arena a;
    mcp_arena_init(&a);
    double parse[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            mcp_arena_reset(&a);
            if (!mcp_json_parse(&a, CALL, sizeof CALL - 1, NULL, NULL, NULL))
                return 1;
        }
        parse[r] = (now_ns() - t0) / (double)n;
    }

    /* The tool call alone. */
    const mcp_tool *tool = NULL;
    for (size_t i = 0; i < weather_server.ntools; i++)
        if (strcmp(weather_server.tools[i].name, "get_weather") == 0)
            tool = &weather_server.tools[i];
    mcp_buf out;
    mcp_buf_init(&out);
    double invoke[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) {
            mcp_arena_reset(&a);
            mcp_json *args = mcp_json_parse(&a, "{\"city\":\"London\"}", 17, NULL, NULL, NULL);
            mcp_call call;
            mcp_call_init(&call, &a, tool, NULL, NULL);
            mcp_buf_clear(&out);
            if (!mcp_tool_invoke(&call, args, &out))
                return 1;
        }
        invoke[r] = (now_ns() - t0) / (double)n;
    }
    mcp_buf_free(&out);
    mcp_arena_free(&a);
    qsort(total, ROUNDS, sizeof *total, cmp_d);
    qsort(parse, ROUNDS, sizeof *parse, cmp_d);
    qsort(invoke, ROUNDS, sizeof *invoke, cmp_d);
    printf("{\"message_ns\":%.1f,\"message_min_ns\":%.1f,\"message_max_ns\":%.1f,"
           "\"parse_request_ns\":%.1f,\"invoke_ns\":%.1f}\n",
           total[ROUNDS / 2], total[0], total[ROUNDS - 1], parse[ROUNDS / 2], invoke[ROUNDS / 2]);
    return 0;
}
