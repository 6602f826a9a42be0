/* test_features.c: what handlers send the client while serving a request:
 * log messages (logging/setLevel), progress, requests to the client
 * (sampling, elicitation, any method) and the content blocks of `returns:
 * content` tools. The whole library (the real codec and invoke.c) with
 * hand-written tools; the test plays the client through the session's sink
 * and mcp_session_message().
 *
 * With an argument, every message the server sent is also written to that
 * file, one per line, for tests/spec/validate.py to check against the
 * specification's JSON Schema. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal/methods.h"
#include "test_runtime.h"

#include "capture.h"
#include "check_run.h"

/* The messages of a call, the last its final answer. */
static void expect_lines(size_t n, const char *const want[])
{
    ck_assert_uint_eq(cap_wait(n), n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(cap_at(i)->text, want[i]);
        ck_assert_msg(cap_at(i)->final == (i + 1 == n), "message %zu: final is %d", i, cap_at(i)->final);
    }
}

/* ---------------------------------------------------------------- tools */

static mcp_status h_log(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    mcp_log_message(call, MCP_LEVEL_DEBUG, NULL, "debug %d", 1);
    mcp_log_message(call, MCP_LEVEL_INFO, "lg", "Tool execution started");
    mcp_log_message(call, MCP_LEVEL_WARNING, NULL, "bad \xff byte");
    mcp_log_message(call, MCP_LEVEL_ERROR, "lg", "quote \" and\nline");
    return mcp_content_text(call, "done");
}

static mcp_status h_logjson(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    mcp_json *o = mcp_json_new_object(mcp_call_arena(call));
    if (!mcp_json_set(mcp_call_arena(call), o, "n", mcp_json_new_int(mcp_call_arena(call), 7)))
        return mcp_fail(call, "out of memory");
    mcp_log_json(call, MCP_LEVEL_NOTICE, "j", o);
    mcp_log_json(call, MCP_LEVEL_EMERGENCY, NULL, NULL);
    return mcp_content_text(call, mcp_log_enabled(call, MCP_LEVEL_DEBUG) ? "debug on" : "debug off");
}

static mcp_status h_progress(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    bool a = mcp_progress(call, 0, 100, NULL);
    bool b = mcp_progress(call, 50, 100, "half");
    bool c = mcp_progress(call, 100.5, 0, NULL);
    return mcp_content_text(call, mcp_sprintf(call, "%d%d%d", a, b, c));
}

static mcp_status h_sample(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    const char *reply = NULL;
    if (!mcp_sample_text(call, "Test prompt for sampling", 100, &reply))
        return mcp_fail(call, "%s", mcp_client_error(call));
    return mcp_content_text(call, mcp_sprintf(call, "LLM response: %s", reply));
}

#define SCHEMA \
    "{\"type\":\"object\",\"properties\":{\"username\":{\"type\":\"string\",\"description\":" \
    "\"User's response\"}},\"required\":[\"username\"]}"

static mcp_status h_elicit(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    const mcp_json *content = NULL;
    const char *action = NULL;
    if (!mcp_elicit(call, "Please provide your information", SCHEMA, &content, &action))
        return mcp_fail(call, "%s", mcp_client_error(call));
    const mcp_json *u = mcp_json_get(content, "username");
    return mcp_content_text(
        call, mcp_sprintf(call, "action=%s username=%s", action, u && u->kind == MCP_JSTRING ? u->s : "-"));
}

static mcp_status h_ping(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    const mcp_json *r = mcp_client_request(call, "ping", NULL);
    if (!r)
        return mcp_fail(call, "%s", mcp_client_error(call));
    return mcp_content_text(call, mcp_sprintf(call, "pong %zu", r->n));
}

static mcp_status h_content(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    mcp_content_text(call, "Multiple content types test:");
    mcp_content_image(call, "image/png", "iVBORw0KGgo=");
    mcp_content_audio(call, "audio/wav", "UklGRg==");
    mcp_content_resource_text(call, "test://embedded-resource", "text/plain", "This is an embedded resource content.");
    mcp_content_resource_text(call, "test://no-mime", NULL, "t");
    mcp_content_resource_blob(call, "test://blob", "application/octet-stream", "AAEC");
    mcp_content_resource_link(call, "file:///a.txt", "a.txt", NULL, NULL);
    return mcp_content_resource_link(call, "file:///b.md", "b", "text/markdown", "the \"b\" file");
}

static mcp_status h_bad_base64(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    mcp_content_text(call, "x");
    return mcp_content_image(call, "image/png", "not base64!");
}

static const mcp_type T_ARGS = {.kind = MCP_T_OBJECT, .size = 1, .align = 1, .tag = "tArguments"};

#define TOOL(n, h) \
    { \
        .name = n, .list_entry = "{\"name\":\"" n "\"}", .args = &T_ARGS, .handler = h \
    }
static const mcp_tool TOOLS[] = {
    TOOL("log", h_log),         TOOL("logjson", h_logjson),       TOOL("progress", h_progress),
    TOOL("sample", h_sample),   TOOL("elicit", h_elicit),         TOOL("ping", h_ping),
    TOOL("content", h_content), TOOL("bad_base64", h_bad_base64),
};
static const mcp_server SERVER = {
    .abi = MCPIDL_ABI, .name = "feat", .version = "1", .tools = TOOLS, .ntools = sizeof TOOLS / sizeof *TOOLS};

/* ---------------------------------------------------------------- sessions */

#define INIT(caps) \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":" caps ",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"
#define ALL_CAPS "{\"sampling\":{},\"elicitation\":{}}"

static void feed(mcp_session *s, const char *text, void *rctx) { mcp_session_message(s, text, strlen(text), rctx); }

static mcp_session *open_session(int workers, const char *init, int timeout_ms, int max_pending)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = workers;
    set.client_timeout_ms = timeout_ms;
    set.max_pending = max_pending;
    mcp_session *s = test_session_new(&SERVER, &set, sink, NULL);
    ck_assert_ptr_nonnull(s);
    feed(s, init, NULL);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_ptr_nonnull(strstr(cap_at(0)->text, "\"capabilities\":{\"logging\":{},\"tools\":"));
    cap_reset();
    return s;
}

static void call_tool(mcp_session *s, int id, const char *name, const char *meta, void *rctx)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
             "\"arguments\":{}%s%s}}",
             id, name, meta ? ",\"_meta\":" : "", meta ? meta : "");
    feed(s, text, rctx);
}

static void setup(void) { cap_reset(); }
static void teardown(void) { cap_reset(); }

/* The id of the server's request in message i (an integer). */
static long long request_id(size_t i)
{
    const char *t = cap_at(i)->text, *p = strstr(t, "\"id\":");
    ck_assert_ptr_nonnull(p);
    return strtoll(p + 5, NULL, 10);
}

/* ---------------------------------------------------------------- logging */

START_TEST(set_level_and_filter)
{
    mcp_session *s = open_session(2, INIT("{}"), 0, 0);
    /* The default level is info. */
    call_tool(s, 1, "log", NULL, NULL);
    mcp_session_drain(s);
    static const char *const DEFAULT[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
        "\"logger\":\"lg\",\"data\":\"Tool execution started\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":"
        "\"warning\",\"data\":\"bad \xef\xbf\xbd byte\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"error\","
        "\"logger\":\"lg\",\"data\":\"quote \\\" and\\nline\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
        "\"done\"}],\"isError\":false}}",
    };
    expect_lines(4, DEFAULT);
    cap_reset();

    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\",\"params\":{\"level\":"
         "\"debug\"}}",
         NULL);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}");
    cap_reset();
    call_tool(s, 3, "log", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(5), 5);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{"
                                      "\"level\":\"debug\",\"data\":\"debug 1\"}}");
    ck_assert_ptr_nonnull(strstr(cap_at(4)->text, "\"id\":3,\"result\""));
    cap_reset();

    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\",\"params\":{\"level\":"
         "\"error\"}}",
         NULL);
    cap_reset();
    call_tool(s, 5, "log", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(0)->text, "\"level\":\"error\""));
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"id\":5,\"result\""));
    cap_reset();

    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\",\"params\":{\"level\":"
         "\"fatal\"}}",
         NULL);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32602,\"message\":\"Invalid "
                                      "params: level must be one of debug, info, notice, warning, error, critical, "
                                      "alert, emergency\"}}");
    test_session_free(s);
}
END_TEST

START_TEST(log_json)
{
    mcp_session *s = open_session(0, INIT("{}"), 0, 0);
    call_tool(s, 1, "logjson", NULL, (void *)0x1);
    static const char *const WANT[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":"
        "\"notice\",\"logger\":\"j\",\"data\":{\"n\":7}}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":"
        "\"emergency\",\"data\":null}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
        "\"debug off\"}],\"isError\":false}}",
    };
    expect_lines(3, WANT);
    /* Every message went with the request's reply context. */
    for (size_t i = 0; i < 3; i++)
        ck_assert_ptr_eq(cap_at(i)->rctx, (void *)0x1);
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- progress */

START_TEST(progress_tokens)
{
    mcp_session *s = open_session(2, INIT("{}"), 0, 0);
    call_tool(s, 7, "progress", "{\"progressToken\":7}", NULL);
    mcp_session_drain(s);
    static const char *const INT_TOKEN[] = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"
        "7,\"progress\":0,\"total\":100}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"
        "7,\"progress\":50,\"total\":100,\"message\":\"half\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":"
        "7,\"progress\":100.5}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"111\"}]"
        ",\"isError\":false}}",
    };
    expect_lines(4, INT_TOKEN);
    cap_reset();

    call_tool(s, 8, "progress", "{\"progressToken\":\"progress-test-1\"}", NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(4), 4);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
                                      "\"progressToken\":\"progress-test-1\",\"progress\":0,\"total\":100}}");
    ck_assert_ptr_nonnull(strstr(cap_at(3)->text, "\"id\":8,\"result\""));
    cap_reset();

    /* No token (or one of another type): nothing sent, false. */
    call_tool(s, 9, "progress", NULL, NULL);
    call_tool(s, 10, "progress", "{\"other\":1}", NULL);
    call_tool(s, 11, "progress", "{\"progressToken\":1.5}", NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(3), 3);
    for (size_t i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(strstr(cap_at(i)->text, "\"text\":\"000\""));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- requests to the client */

START_TEST(sampling)
{
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 0, 0);
    call_tool(s, 1, "sample", NULL, (void *)0x5);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\",\"params\":"
                                      "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
                                      "\"Test prompt for sampling\"}}],\"maxTokens\":100}}");
    ck_assert(!cap_at(0)->final);
    ck_assert_ptr_eq(cap_at(0)->rctx, (void *)0x5);
    /* The client answers on a message of its own (no reply context). */
    ck_assert(
        !mcp_session_message(s,
                             "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"role\":\"assistant\",\"content\":{\"type\":"
                             "\"text\",\"text\":\"This is a test response from the client\"},\"model\":\"test-model\","
                             "\"stopReason\":\"endTurn\"}}",
                             strlen("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"role\":\"assistant\",\"content\":{"
                                    "\"type\":\"text\",\"text\":\"This is a test response from the client\"},"
                                    "\"model\":\"test-model\",\"stopReason\":\"endTurn\"}}"),
                             NULL));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(1)->text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"LLM response: This is a test response from the client\"}],"
                                      "\"isError\":false}}");
    ck_assert(cap_at(1)->final);
    cap_reset();

    /* An array of blocks (2025-11-25): the first text one. */
    call_tool(s, 2, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    char resp[256];
    snprintf(resp, sizeof resp,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":"
             "[{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"},{\"type\":\"text\","
             "\"text\":\"two\"}],\"model\":\"m\"}}",
             request_id(0));
    feed(s, resp, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"text\":\"LLM response: two\""));
    cap_reset();

    /* A text holding U+0000 would reach the handler cut short as a C string:
     * the handler's request fails instead, as arguments with a NUL do. */
    call_tool(s, 3, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    snprintf(resp, sizeof resp,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"role\":\"assistant\",\"content\":"
             "{\"type\":\"text\",\"text\":\"cut\\u0000short\"},\"model\":\"m\"}}",
             request_id(0));
    feed(s, resp, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(1)->text, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"Error executing tool sample: sampling/createMessage: the client's "
                                      "text holds a NUL character\"}],\"isError\":true}}");
    test_session_free(s);
}
END_TEST

START_TEST(elicitation)
{
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 0, 0);
    call_tool(s, 1, "elicit", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"elicitation/create\",\"params\":{"
                     "\"message\":\"Please provide your information\",\"requestedSchema\":" SCHEMA "}}");
    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{"
         "\"username\":\"testuser\"}}}",
         NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"text\":\"action=accept username=testuser\""));
    cap_reset();

    call_tool(s, 2, "elicit", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_int_eq(request_id(0), 2);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"action\":\"decline\"}}", NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"text\":\"action=decline username=-\""));
    cap_reset();

    /* An answer without a valid action fails the call. */
    call_tool(s, 3, "elicit", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"action\":\"maybe\"}}", NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "the client's answer has no valid action"));
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"isError\":true"));
    test_session_free(s);
}
END_TEST

START_TEST(client_error_and_unknown_responses)
{
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 0, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    /* Responses to requests nobody waits for are ignored (no answer). */
    static const char LATE[] = "{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}";
    ck_assert(!mcp_session_message(s, LATE, sizeof LATE - 1, NULL));
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}", NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"User rejected "
         "sampling request\"}}",
         NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(1)->text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"Error executing tool sample: sampling/createMessage: the client "
                                      "answered with error -1: User rejected sampling request\"}],\"isError\":true}}");
    cap_reset();

    /* Any method, with the generic call. */
    call_tool(s, 2, "ping", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"text\":\"pong 0\""));
    test_session_free(s);
}
END_TEST

START_TEST(timeout)
{
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 100, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    mcp_session_drain(s);
    static const char *const WANT[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\",\"params\":{"
        "\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Test prompt "
        "for sampling\"}}],\"maxTokens\":100}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,"
        "\"reason\":\"timed out\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"
        "\"Error executing tool sample: sampling/createMessage: no answer from the client within "
        "100 ms\"}],\"isError\":true}}",
    };
    expect_lines(3, WANT);
    cap_reset();
    /* The late answer is dropped. */
    feed(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", NULL);
    ck_assert_uint_eq(cap_wait(0), 0);
    test_session_free(s);
}
END_TEST

START_TEST(cancelled_while_waiting)
{
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 0, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    feed(s,
         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
         "1}}",
         NULL);
    mcp_session_drain(s);
    /* The server's request is cancelled in turn; the call gets no answer, a final call. */
    ck_assert_uint_eq(cap_wait(3), 3);
    ck_assert_str_eq(cap_at(1)->text, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                                      "\"requestId\":1,\"reason\":\"the tool call was cancelled\"}}");
    ck_assert_str_eq(cap_at(2)->text, "");
    ck_assert(cap_at(2)->final);
    test_session_free(s);
}
END_TEST

START_TEST(session_closing)
{
    /* A client timeout of ten hours: only the session closing can end the wait
     * (a free that did not would hang until check's own timeout fails the test). */
    mcp_session *s = open_session(2, INIT(ALL_CAPS), 36000000, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    /* Freeing the session (end of input) ends the wait. */
    test_session_free(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "sampling/createMessage: the session is closing"));
}
END_TEST

START_TEST(pending_limit)
{
    mcp_session *s = open_session(4, INIT(ALL_CAPS), 0, 2);
    call_tool(s, 1, "sample", NULL, NULL);
    call_tool(s, 2, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(2), 2);
    call_tool(s, 3, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(3), 3);
    ck_assert_str_eq(cap_at(2)->text, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"Error executing tool sample: sampling/createMessage: too many "
                                      "requests to the client pending (limit 2)\"}],\"isError\":true}}");
    /* Answer both (ids 1 and 2, in either order of the calls). */
    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"role\":\"assistant\",\"content\":{"
         "\"type\":\"text\",\"text\":\"b\"},\"model\":\"m\"}}",
         NULL);
    feed(s,
         "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"role\":\"assistant\",\"content\":{"
         "\"type\":\"text\",\"text\":\"a\"},\"model\":\"m\"}}",
         NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(5), 5);
    test_session_free(s);
}
END_TEST

START_TEST(capability_not_declared)
{
    mcp_session *s = open_session(2, INIT("{\"elicitation\":{}}"), 0, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"Error executing tool sample: sampling/createMessage: the client "
                                      "did not declare the sampling capability\"}],\"isError\":true}}");
    test_session_free(s);
    cap_reset();

    s = open_session(2, INIT("{\"sampling\":{}}"), 0, 0);
    call_tool(s, 1, "elicit", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_ptr_nonnull(strstr(cap_at(0)->text, "did not declare the elicitation capability"));
    test_session_free(s);
}
END_TEST

START_TEST(no_workers)
{
    mcp_session *s = open_session(0, INIT(ALL_CAPS), 0, 0);
    call_tool(s, 1, "sample", NULL, NULL);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_ptr_nonnull(strstr(cap_at(0)->text, "requests to the client need worker threads"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- content blocks */

START_TEST(content_blocks)
{
    mcp_session *s = open_session(1, INIT("{}"), 0, 0);
    call_tool(s, 1, "content", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text,
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":["
                     "{\"type\":\"text\",\"text\":\"Multiple content types test:\"},"
                     "{\"type\":\"image\",\"data\":\"iVBORw0KGgo=\",\"mimeType\":\"image/png\"},"
                     "{\"type\":\"audio\",\"data\":\"UklGRg==\",\"mimeType\":\"audio/wav\"},"
                     "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://embedded-resource\",\"mimeType\":"
                     "\"text/plain\",\"text\":\"This is an embedded resource content.\"}},"
                     "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://no-mime\",\"text\":\"t\"}},"
                     "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://blob\",\"mimeType\":"
                     "\"application/octet-stream\",\"blob\":\"AAEC\"}},"
                     "{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a.txt\"},"
                     "{\"type\":\"resource_link\",\"uri\":\"file:///b.md\",\"name\":\"b\",\"description\":"
                     "\"the \\\"b\\\" file\",\"mimeType\":\"text/markdown\"}"
                     "],\"isError\":false}}");
    cap_reset();
    call_tool(s, 2, "bad_base64", NULL, NULL);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"Error executing tool bad_base64: image content: the data is not "
                                      "base64\"}],\"isError\":true}}");
    test_session_free(s);
}
END_TEST

/* Outside a session (no job): everything is a harmless no-op or an error. */
START_TEST(outside_a_session)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_call call;
    mcp_call_init(&call, &a, &TOOLS[0], NULL, NULL);
    mcp_log_message(&call, MCP_LEVEL_ERROR, NULL, "x");
    ck_assert(!mcp_log_enabled(&call, MCP_LEVEL_EMERGENCY));
    ck_assert(!mcp_progress(&call, 1, 2, NULL));
    ck_assert_ptr_null(mcp_client_request(&call, "ping", NULL));
    ck_assert_ptr_nonnull(strstr(mcp_client_error(&call), "not served by a session"));
    const char *reply = "x";
    ck_assert(!mcp_sample_text(&call, "p", 10, &reply));
    ck_assert_ptr_null(reply);
    mcp_arena_free(&a);
}
END_TEST

/* ---------------------------------------------------------------- messages parsed first */

/* A message parsed with mcp_message_parse and handed over with
 * mcp_session_message_parsed gets what mcp_session_message gives its text,
 * byte for byte, whatever it is: requests, notifications, responses, blank
 * text, text that is not JSON, past a limit or too long. */
START_TEST(parsed_same_as_text)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    set.max_message = 4096;
    set.max_depth = 8;
    static char by_text, by_tree;
    mcp_session *a = test_session_new(&SERVER, &set, sink, &by_text);
    mcp_session *b = test_session_new(&SERVER, &set, sink, &by_tree);
    ck_assert(a && b);
    char big[5000];
    snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"_pad\":\"%4900d\"}}", 1);
    const char *msgs[] = {
        INIT("{}"),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"content\",\"arguments\":{}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r",
        "",
        "  \t\r",
        "{\"jsonrpc\":\"2.0\",\"id\":3,",
        "[]",
        "[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}]",
        "42",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"a\":[[[[[[[[1]]]]]]]]}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"n\":1e400}}",
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"s\":\"\\ud800\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}",
        big,
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"no/such\"}",
    };
    for (size_t i = 0; i < sizeof msgs / sizeof *msgs; i++) {
        size_t len = strlen(msgs[i]);
        bool got_text = mcp_session_message(a, msgs[i], len, NULL);
        mcp_message *msg = mcp_message_parse(test_runtime_of(b), msgs[i], len);
        ck_assert_ptr_nonnull(msg);
        bool tree = mcp_message_json(msg) != NULL;
        bool got_tree = mcp_session_message_parsed(b, msg, NULL, NULL);
        ck_assert_msg(got_text == got_tree, "message %zu: answered %d by its text, %d by its tree", i, got_text,
                      got_tree);
        /* The tree is there exactly when the text is a message within the limits. */
        bool valid = i < 4 || i == 7 || i == 8 || i == 9 || i == 13 || i == 15;
        ck_assert_msg(tree == valid, "message %zu: tree %d", i, tree);
    }
    mcp_session_drain(a);
    mcp_session_drain(b);
    /* Every answer twice, once from each session, in the same order. */
    size_t na = 0, nb = 0;
    const char *from_a[32], *from_b[32];
    for (size_t i = 0; cap_at(i); i++) {
        const line *l = cap_at(i);
        if (l->session == &by_text && na < 32)
            from_a[na++] = l->text;
        else if (l->session == &by_tree && nb < 32)
            from_b[nb++] = l->text;
    }
    ck_assert_uint_ge(na, 12);
    ck_assert_uint_eq(na, nb);
    for (size_t i = 0; i < na; i++)
        ck_assert_str_eq(from_a[i], from_b[i]);
    /* Nothing handed over: the message goes back. */
    mcp_message_free(mcp_message_parse(test_runtime_of(b), "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\"}", 40));
    mcp_message_free(NULL);
    test_session_free(a);
    test_session_free(b);
}
END_TEST

int main(int argc, char **argv)
{
    capture_start(argc, argv);
    test_quiet = true;
    Suite *su = suite_create("features");
    TCase *tc = tcase_create("features");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, set_level_and_filter);
    tcase_add_test(tc, log_json);
    tcase_add_test(tc, progress_tokens);
    tcase_add_test(tc, sampling);
    tcase_add_test(tc, elicitation);
    tcase_add_test(tc, client_error_and_unknown_responses);
    tcase_add_test(tc, timeout);
    tcase_add_test(tc, cancelled_while_waiting);
    tcase_add_test(tc, session_closing);
    tcase_add_test(tc, pending_limit);
    tcase_add_test(tc, capability_not_declared);
    tcase_add_test(tc, no_workers);
    tcase_add_test(tc, content_blocks);
    tcase_add_test(tc, outside_a_session);
    tcase_add_test(tc, parsed_same_as_text);
    suite_add_tcase(su, tc);
    int failed = check_run(su, false);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
