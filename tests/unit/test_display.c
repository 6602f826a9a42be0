/* test_display.c: what a server publishes for clients to show (title,
 * icons, annotations, _meta on tools, resources, templates, prompts; the
 * whole serverInfo), and lists a program changes while serving
 * (mcp_runtime_tool_enable, mcp_runtime_resource_enable,
 * mcp_runtime_prompt_enable). The server is generated from
 * display/display.mcp.yaml; the test plays the client through the public
 * transport API (mcp_session_message and the session's sink).
 *
 * With an argument, every 2025-11-25 message the server sent is also written
 * to that file, one per line, for a check against the specification's JSON
 * Schema; with a second, the 2026-07-28 ones to that file. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "display.mcp.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

#include "capture.h"
#include "check_run.h"

/* ---------------------------------------------------------------- the handlers */

mcp_status display_greet(mcp_call *call, const display_greet_args *in, const char **out)
{
    *out = mcp_sprintf(call, "Hello, %s!", in->name);
    return *out ? MCP_OK : MCP_ERROR;
}

/* A handler may change the lists too: through its call's runtime. */
mcp_status display_toggle(mcp_call *call, const display_toggle_args *in, bool *out)
{
    *out = mcp_runtime_tool_enable(mcp_call_runtime(call), "greet", in->enabled);
    return MCP_OK;
}

mcp_status display_read_item(mcp_call *call, const char *uri, const display_item_vars *vars)
{
    (void)uri;
    return mcp_resource_text(call, NULL, NULL, mcp_sprintf(call, "item %s", vars->id));
}

mcp_status display_prompt_hello(mcp_call *call) { return mcp_content_text(call, "Hello."); }

/* ---------------------------------------------------------------- the client */

#define REQ(id, method, params) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":" params "}"
#define RESULT(id, result) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"result\":" result "}"
#define NOTE(kind) "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/" kind "/list_changed\"}"
/* The _meta of a 2026-07-28 request. */
#define MODERN_META \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static mcp_runtime *rt;

static void feed(mcp_session *s, const char *text) { mcp_session_message(s, text, strlen(text), NULL); }

/* Send one request and return the one answer (valid until the next cap_reset). */
static const char *ask(mcp_session *s, const char *request)
{
    cap_reset();
    feed(s, request);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(1), 1);
    return cap_at(0)->text;
}

/* A runtime with one worker (handlers off the reading thread, as in a
 * server) and an initialized 2025-11-25 session on it. */
static mcp_session *open_session(size_t page_size)
{
    mcp_options opt;
    mcp_options_default(&opt);
    opt.workers = 1;
    opt.log_level = MCP_LOG_QUIET;
    if (page_size)
        opt.page_size = page_size;
    rt = mcp_runtime_new(&display_server, &opt);
    ck_assert_ptr_nonnull(rt);
    mcp_session *s = mcp_session_new(rt, sink, NULL);
    ck_assert_ptr_nonnull(s);
    cap_reset();
    feed(s, REQ(0, "initialize",
                "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":"
                "\"1\"}}"));
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    ck_assert_uint_eq(cap_wait(1), 1);
    return s;
}

static void close_session(mcp_session *s)
{
    mcp_session_free(s);
    mcp_runtime_free(rt);
    rt = NULL;
}

/* Exactly one message arrived since the last cap_reset: `text`. */
static void expect_one(const char *text)
{
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, text);
}

static void setup(void) { cap_reset(); }
static void teardown(void) { cap_reset(); }

/* ---------------------------------------------------------------- what is published */

#define SERVER_INFO \
    "{\"name\":\"display\",\"title\":\"Display\",\"version\":\"1.0.0\",\"description\":\"Shows what clients may " \
    "show.\",\"icons\":[{\"src\":\"https://example.com/display.png\",\"mimeType\":\"image/png\",\"sizes\":[\"48x48\"," \
    "\"96x96\"],\"theme\":\"light\"}],\"websiteUrl\":\"https://example.com/display\"}"

#define GREET_ENTRY_TAIL \
    "\"annotations\":{\"title\":\"Greet\",\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true," \
    "\"openWorldHint\":false},\"icons\":[{\"src\":\"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=\",\"mimeType\":" \
    "\"image/svg+xml\",\"sizes\":[\"any\"],\"theme\":\"dark\"}],\"_meta\":{\"com.example/ui\":{\"color\":\"blue\"," \
    "\"order\":[2,1]},\"plain\":true}}"

#define READ_ME \
    "{\"name\":\"readme\",\"title\":\"Read me\",\"uri\":\"test://readme\",\"mimeType\":\"text/plain\",\"icons\":[{" \
    "\"src\":\"https://example.com/readme.png\"}],\"_meta\":{\"com.example/kind\":\"doc\"}}"
#define ITEM \
    "{\"name\":\"item\",\"title\":\"Item\",\"uriTemplate\":\"test://items/{id}\",\"icons\":[],\"_meta\":{" \
    "\"com.example/kind\":\"item\"}}"
#define HELLO \
    "{\"name\":\"hello\",\"title\":\"Hello\",\"description\":\"Says hello.\",\"icons\":[{\"src\":" \
    "\"https://example.com/hello.png\",\"sizes\":[\"16x16\"]}],\"_meta\":{\"com.example/kind\":\"prompt\"}}"

START_TEST(initialize_server_info)
{
    mcp_session *s = open_session(0);
    const char *init = cap_at(0)->text;
    ck_assert_str_eq(init, RESULT(0, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"logging\":{},"
                                     "\"tools\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,"
                                     "\"listChanged\":true},\"prompts\":{\"listChanged\":true},\"completions\":{}},"
                                     "\"serverInfo\":" SERVER_INFO ",\"_meta\":{\"com.example/build\":42}}"));
    close_session(s);
}
END_TEST

START_TEST(lists_carry_display)
{
    mcp_session *s = open_session(0);
    const char *tools = ask(s, REQ(1, "tools/list", "{}"));
    ck_assert_ptr_nonnull(
        strstr(tools, "{\"name\":\"greet\",\"title\":\"Greeter\",\"description\":\"Greets someone.\""));
    ck_assert_ptr_nonnull(strstr(tools, GREET_ENTRY_TAIL ",{\"name\":\"toggle\""));
    ck_assert_str_eq(ask(s, REQ(2, "resources/list", "{}")), RESULT(2, "{\"resources\":[" READ_ME "]}"));
    ck_assert_str_eq(ask(s, REQ(3, "resources/templates/list", "{}")), RESULT(3, "{\"resourceTemplates\":[" ITEM "]}"));
    ck_assert_str_eq(ask(s, REQ(4, "prompts/list", "{}")), RESULT(4, "{\"prompts\":[" HELLO "]}"));
    close_session(s);
}
END_TEST

/* 2026-07-28: server/discover's _meta has the whole serverInfo and the
 * server's _meta; other results the short serverInfo. */
/* The second argument of main: where 2026-07-28 messages go, for the
 * 2026-07-28 schema's check (NULL: nowhere). */
static const char *modern_path;

START_TEST(discover_server_info)
{
    mcp_session *s = open_session(0);
    const char *saved = capture_path;
    capture_path = modern_path;
    const char *d = ask(s, REQ(1, "server/discover", "{" MODERN_META "}"));
    ck_assert_ptr_nonnull(
        strstr(d, "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":" SERVER_INFO ",\"com.example/build\":42}"));
    const char *p = ask(s, REQ(2, "prompts/list", "{" MODERN_META "}"));
    ck_assert_ptr_nonnull(strstr(p, "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"display\","
                                    "\"title\":\"Display\",\"version\":\"1.0.0\"}}"));
    capture_path = saved;
    close_session(s);
}
END_TEST

/* ---------------------------------------------------------------- enabling and disabling */

static bool lists_tool(const char *list, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "{\"name\":\"%s\"", name);
    return strstr(list, key) != NULL;
}

START_TEST(tool_enable)
{
    mcp_session *s = open_session(0);
    const char *unknown = ask(s, REQ(9, "tools/call", "{\"name\":\"nope\",\"arguments\":{}}"));
    ck_assert_str_eq(unknown, "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32602,\"message\":\"Unknown tool: "
                              "nope\"}}");

    ck_assert(mcp_runtime_tool_enabled(rt, "greet"));
    cap_reset();
    ck_assert(mcp_runtime_tool_enable(rt, "greet", false));
    expect_one(NOTE("tools"));
    ck_assert(!mcp_runtime_tool_enabled(rt, "greet"));
    ck_assert(mcp_runtime_tool_enabled(rt, "toggle"));
    ck_assert(!mcp_runtime_tool_enabled(rt, "nope"));
    const char *list = ask(s, REQ(1, "tools/list", "{}"));
    ck_assert(!lists_tool(list, "greet"));
    ck_assert(lists_tool(list, "toggle"));
    ck_assert_str_eq(ask(s, REQ(2, "tools/call", "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"Unknown tool: greet\"}}");

    /* No change, no notification. */
    cap_reset();
    ck_assert(mcp_runtime_tool_enable(rt, "greet", false));
    ck_assert_uint_eq(cap_wait(0), 0);
    ck_assert(!mcp_runtime_tool_enable(rt, "nope", true));
    ck_assert_uint_eq(cap_wait(0), 0);

    cap_reset();
    ck_assert(mcp_runtime_tool_enable(rt, "greet", true));
    expect_one(NOTE("tools"));
    ck_assert(lists_tool(ask(s, REQ(3, "tools/list", "{}")), "greet"));
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(4, "tools/call", "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}")),
                                 "\"structuredContent\":{\"result\":\"Hello, Ada!\"}"));
    close_session(s);
}
END_TEST

/* A handler disables a tool: the notification comes before its answer. */
START_TEST(tool_enable_from_handler)
{
    mcp_session *s = open_session(0);
    cap_reset();
    feed(s, REQ(1, "tools/call", "{\"name\":\"toggle\",\"arguments\":{\"enabled\":false}}"));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(0)->text, NOTE("tools"));
    ck_assert_ptr_nonnull(strstr(cap_at(1)->text, "\"structuredContent\":{\"result\":true}"));
    ck_assert(!lists_tool(ask(s, REQ(2, "tools/list", "{}")), "greet"));
    cap_reset();
    feed(s, REQ(3, "tools/call", "{\"name\":\"toggle\",\"arguments\":{\"enabled\":true}}"));
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(0)->text, NOTE("tools"));
    ck_assert(lists_tool(ask(s, REQ(4, "tools/list", "{}")), "greet"));
    close_session(s);
}
END_TEST

START_TEST(resource_enable)
{
    mcp_session *s = open_session(0);
    static const char NOT_FOUND[] = "{\"jsonrpc\":\"2.0\",\"id\":%d,\"error\":{\"code\":-32002,\"message\":\"Resource "
                                    "not found\",\"data\":{\"uri\":\"%s\"}}}";
    char want[256];

    cap_reset();
    ck_assert(mcp_runtime_resource_enable(rt, "readme", false));
    expect_one(NOTE("resources"));
    ck_assert_str_eq(ask(s, REQ(1, "resources/list", "{}")), RESULT(1, "{\"resources\":[]}"));
    snprintf(want, sizeof want, NOT_FOUND, 2, "test://readme");
    ck_assert_str_eq(ask(s, REQ(2, "resources/read", "{\"uri\":\"test://readme\"}")), want);
    snprintf(want, sizeof want, NOT_FOUND, 3, "test://readme");
    ck_assert_str_eq(ask(s, REQ(3, "resources/subscribe", "{\"uri\":\"test://readme\"}")), want);

    ck_assert(!mcp_runtime_resource_enabled(rt, "readme"));
    ck_assert(mcp_runtime_resource_enabled(rt, "item"));
    cap_reset();
    ck_assert(mcp_runtime_resource_enable(rt, "item", false));
    expect_one(NOTE("resources"));
    ck_assert(!mcp_runtime_resource_enabled(rt, "item"));
    ck_assert_str_eq(ask(s, REQ(4, "resources/templates/list", "{}")), RESULT(4, "{\"resourceTemplates\":[]}"));
    snprintf(want, sizeof want, NOT_FOUND, 5, "test://items/a");
    ck_assert_str_eq(ask(s, REQ(5, "resources/read", "{\"uri\":\"test://items/a\"}")), want);
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(6, "completion/complete",
                                            "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"test://items/{id}\"},"
                                            "\"argument\":{\"name\":\"id\",\"value\":\"a\"}}")),
                                 "\"code\":-32602"));

    cap_reset();
    ck_assert(mcp_runtime_resource_enable(rt, "readme", true));
    ck_assert(mcp_runtime_resource_enable(rt, "item", true));
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_str_eq(cap_at(0)->text, NOTE("resources"));
    ck_assert_str_eq(cap_at(1)->text, NOTE("resources"));
    ck_assert_str_eq(ask(s, REQ(7, "resources/list", "{}")), RESULT(7, "{\"resources\":[" READ_ME "]}"));
    ck_assert_str_eq(ask(s, REQ(8, "resources/templates/list", "{}")), RESULT(8, "{\"resourceTemplates\":[" ITEM "]}"));
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(9, "resources/read", "{\"uri\":\"test://items/a\"}")), "item a"));
    ck_assert(!mcp_runtime_resource_enable(rt, "hello", false)); /* a prompt, not a resource */
    close_session(s);
}
END_TEST

START_TEST(prompt_enable)
{
    mcp_session *s = open_session(0);
    cap_reset();
    ck_assert(mcp_runtime_prompt_enable(rt, "hello", false));
    expect_one(NOTE("prompts"));
    ck_assert(!mcp_runtime_prompt_enabled(rt, "hello"));
    ck_assert_str_eq(ask(s, REQ(1, "prompts/list", "{}")), RESULT(1, "{\"prompts\":[]}"));
    ck_assert_str_eq(ask(s, REQ(2, "prompts/get", "{\"name\":\"hello\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"Invalid params: unknown "
                     "prompt: hello\"}}");
    cap_reset();
    ck_assert(mcp_runtime_prompt_enable(rt, "hello", true));
    expect_one(NOTE("prompts"));
    ck_assert(mcp_runtime_prompt_enabled(rt, "hello"));
    ck_assert_str_eq(ask(s, REQ(3, "prompts/list", "{}")), RESULT(3, "{\"prompts\":[" HELLO "]}"));
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(4, "prompts/get", "{\"name\":\"hello\"}")), "Hello."));
    close_session(s);
}
END_TEST

/* Pages follow the change: with one entry a page, disabling the first tool
 * leaves one page. */
START_TEST(pages_follow)
{
    mcp_session *s = open_session(1);
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(1, "tools/list", "{}")), "\"nextCursor\":\"1\""));
    ck_assert(mcp_runtime_tool_enable(rt, "greet", false));
    const char *page = ask(s, REQ(2, "tools/list", "{}"));
    ck_assert(lists_tool(page, "toggle"));
    ck_assert_ptr_null(strstr(page, "nextCursor"));
    close_session(s);
}
END_TEST

/* A thread changes the tools while the reading thread lists them: every
 * answer is one of the two lists, whole (under the sanitizers: no use of a
 * rendering after it is freed). */
static void *flip(void *arg)
{
    (void)arg;
    for (int i = 0; i < 400; i++)
        if (!mcp_runtime_tool_enable(rt, "greet", i % 2 == 1))
            return "greet unknown";
    return NULL;
}

START_TEST(concurrent_changes)
{
    mcp_session *s = open_session(0);
    ck_assert(mcp_runtime_tool_enable(rt, "greet", true));
    char *with = strdup(ask(s, REQ(1, "tools/list", "{}")));
    ck_assert(mcp_runtime_tool_enable(rt, "greet", false));
    char *without = strdup(ask(s, REQ(1, "tools/list", "{}")));
    ck_assert_ptr_nonnull(with);
    ck_assert_ptr_nonnull(without);
    ck_assert_str_ne(with, without);
    const char *saved = capture_path; /* hundreds of the same two lists */
    capture_path = NULL;
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, flip, NULL), 0);
    for (int i = 0; i < 400; i++) {
        cap_reset();
        feed(s, REQ(1, "tools/list", "{}"));
        mcp_session_drain(s);
        /* the answer, and any notifications the flips sent */
        size_t n = cap_wait(1);
        bool answered = false;
        for (size_t k = 0; k < n; k++) {
            const char *t = cap_at(k)->text;
            if (strcmp(t, NOTE("tools")) == 0)
                continue;
            ck_assert_msg(strcmp(t, with) == 0 || strcmp(t, without) == 0, "a torn list: %s", t);
            answered = true;
        }
        ck_assert(answered);
    }
    void *why;
    ck_assert_int_eq(pthread_join(th, &why), 0);
    ck_assert_ptr_null(why);
    capture_path = saved;
    free(with);
    free(without);
    close_session(s);
}
END_TEST

int main(int argc, char **argv)
{
    capture_start(argc, argv);
    if (argc > 2) {
        modern_path = argv[2];
        FILE *f = fopen(modern_path, "w");
        if (f)
            fclose(f);
    }
    Suite *su = suite_create("display");
    TCase *tc = tcase_create("display");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, initialize_server_info);
    tcase_add_test(tc, lists_carry_display);
    tcase_add_test(tc, discover_server_info);
    tcase_add_test(tc, tool_enable);
    tcase_add_test(tc, tool_enable_from_handler);
    tcase_add_test(tc, resource_enable);
    tcase_add_test(tc, prompt_enable);
    tcase_add_test(tc, pages_follow);
    tcase_add_test(tc, concurrent_changes);
    suite_add_tcase(su, tc);
    int failed = check_run(su, false);
    cap_reset();
    free(cap.lines);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
