/* test_beyond.c: resources, resource templates, prompts, completions and
 * typed elicitation, as the runtime serves them. The whole library with a
 * hand-written server table (readers, prompt handlers and completers written
 * here); the elicitation form is generated from beyond/beyond.mcp.yaml. The
 * test plays the client through the session's sink and mcp_session_message().
 *
 * With an argument, every message the server sent is also written to that
 * file, one per line, for a check against the specification's JSON Schema. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "beyond.mcp.h"
#include "internal/options.h"
#include "test_runtime.h"

#include "capture.h"
#include "check_run.h"

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

#define REQ(id, method, params) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"" method "\",\"params\":" params "}"
#define RESULT(id, result) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"result\":" result "}"
#define FAILURE(id, code, message) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"error\":{\"code\":" #code ",\"message\":\"" message "\"}}"

/* ---------------------------------------------------------------- resources
 * Handlers run on worker threads, where check's assertions cannot fail a
 * test: what they check becomes part of their answer. */

static mcp_status read_dynamic(mcp_call *call, const char *uri, const char *const *vars)
{
    if (vars || strcmp(uri, mcp_call_uri(call)) != 0)
        return mcp_fail(call, "a plain resource's reader got variables, or not its URI");
    /* The URI and mimeType of the resource, then an item of its own. */
    if (mcp_resource_text(call, NULL, NULL, mcp_sprintf(call, "read %s", uri)) != MCP_OK)
        return MCP_ERROR;
    return mcp_resource_blob(call, "test://dynamic/part", "application/octet-stream", "AAEC");
}

static mcp_status read_failing(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)uri, (void)vars;
    return mcp_fail(call, "the disk is on %s", "fire");
}

static mcp_status read_missing(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)uri, (void)vars;
    return mcp_not_found(call);
}

static mcp_status read_bad_blob(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)uri, (void)vars;
    return mcp_resource_blob(call, NULL, NULL, "not base64!");
}

/* file:///{folder}/{name}: the variables, percent-decoded; folder "gone" is not there. */
static mcp_status read_file(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)uri;
    if (strcmp(vars[0], "gone") == 0)
        return mcp_not_found(call);
    return mcp_resource_text(call, NULL, NULL, mcp_sprintf(call, "folder=%s name=%s", vars[0], vars[1]));
}

static mcp_status read_note(mcp_call *call, const char *uri, const char *const *vars)
{
    (void)uri;
    return mcp_resource_text(call, NULL, NULL, mcp_sprintf(call, "note %s", vars[0]));
}

#define ENTRY(name, uri, more) "{\"name\":\"" name "\",\"uri\":\"" uri "\"" more "}"
static const mcp_resource RESOURCES[] = {
    {.name = "static_text",
     .uri = "test://static-text",
     .mime_type = "text/plain",
     .list_entry = ENTRY("static_text", "test://static-text", ",\"mimeType\":\"text/plain\""),
     .text = "Hello, \"world\"\n\xc3\xa9"},
    {.name = "static_blob",
     .uri = "test://static-blob",
     .mime_type = "image/png",
     .list_entry = ENTRY("static_blob", "test://static-blob", ",\"mimeType\":\"image/png\""),
     .blob = "iVBORw0KGgo="},
    {.name = "dynamic",
     .uri = "test://dynamic",
     .mime_type = "text/plain",
     .list_entry = ENTRY("dynamic", "test://dynamic", ",\"mimeType\":\"text/plain\""),
     .read = read_dynamic},
    {.name = "failing",
     .uri = "test://failing",
     .list_entry = ENTRY("failing", "test://failing", ""),
     .read = read_failing},
    {.name = "missing",
     .uri = "test://missing",
     .list_entry = ENTRY("missing", "test://missing", ""),
     .read = read_missing},
    {.name = "bad_blob",
     .uri = "test://bad-blob",
     .list_entry = ENTRY("bad_blob", "test://bad-blob", ""),
     .read = read_bad_blob},
};
#define NRESOURCES (sizeof RESOURCES / sizeof *RESOURCES)

/* ---------------------------------------------------------------- completions */

/* 150 folders, dir000 to dir149: more than the 100 one answer carries. */
static const char *folder_values[150];
static char folder_text[150][8];

static void make_folders(void)
{
    for (size_t i = 0; i < 150; i++) {
        snprintf(folder_text[i], sizeof folder_text[i], "dir%03zu", i);
        folder_values[i] = folder_text[i];
    }
}

/* The name of a file: suggestions that depend on the folder already chosen
 * (context.arguments.folder), 120 of them for "many". */
static mcp_status complete_name(mcp_call *call, const char *value, const mcp_json *context)
{
    const mcp_json *folder = mcp_json_get(context, "folder");
    if (folder && folder->kind == MCP_JSTRING && strcmp(folder->s, "many") == 0) {
        for (int i = 0; i < 120; i++)
            mcp_complete_value(call, mcp_sprintf(call, "%s%d", value, i));
        return MCP_OK;
    }
    if (folder && folder->kind == MCP_JSTRING && strcmp(folder->s, "broken") == 0)
        return mcp_fail(call, "no listing of %s", folder->s);
    mcp_complete_value(call, mcp_sprintf(call, "%s.txt", value));
    return mcp_complete_value(call, folder && folder->kind == MCP_JSTRING ? folder->s : "(no folder)");
}

static const mcp_completer FILE_COMPLETE[] = {
    {.name = "folder", .values = folder_values, .nvalues = 150},
    {.name = "name", .handler = complete_name},
};

static const mcp_resource_template TEMPLATES[] = {
    {.name = "file",
     .uri_template = "file:///{folder}/{name}",
     .mime_type = "text/plain",
     .list_entry = "{\"name\":\"file\",\"uriTemplate\":\"file:///{folder}/{name}\",\"mimeType\":\"text/plain\"}",
     .nvars = 2,
     .read = read_file,
     .complete = FILE_COMPLETE,
     .ncomplete = 2},
    {.name = "note",
     .uri_template = "note://{id}",
     .list_entry = "{\"name\":\"note\",\"uriTemplate\":\"note://{id}\"}",
     .nvars = 1,
     .read = read_note},
};

/* ---------------------------------------------------------------- prompts */

/* greet(name, greeting?): a user message, the assistant's answer, then the
 * user again with an image. */
static mcp_status prompt_greet(mcp_call *call, const char *const *args)
{
    if (strcmp(mcp_call_uri(call), "greet") != 0)
        return mcp_fail(call, "mcp_call_uri is not the prompt's name");
    mcp_prompt_description(call, mcp_sprintf(call, "A greeting for %s", args[0]));
    mcp_content_text(call, mcp_sprintf(call, "Greet %s", args[0]));
    mcp_prompt_role(call, MCP_ROLE_ASSISTANT);
    mcp_content_text(call, mcp_sprintf(call, "%s, %s!", args[1] ? args[1] : "Hello", args[0]));
    mcp_prompt_role(call, MCP_ROLE_USER);
    return mcp_content_image(call, "image/png", "iVBORw0KGgo=");
}

static mcp_status prompt_plain(mcp_call *call, const char *const *args)
{
    (void)args;
    return mcp_content_resource_text(call, "test://static-text", "text/plain", "embedded");
}

static mcp_status prompt_failing(mcp_call *call, const char *const *args)
{
    (void)args;
    return mcp_fail(call, "no words");
}

static const mcp_prompt_arg GREET_ARGS[] = {{"name", true}, {"greeting", false}};
static const char *const GREETINGS[] = {"hello", "hey", "hi", "howdy", "good day"};
static const mcp_completer GREET_COMPLETE[] = {
    {.name = "greeting", .values = GREETINGS, .nvalues = 5},
};

static const mcp_prompt PROMPTS[] = {
    {.name = "greet",
     .list_entry = "{\"name\":\"greet\",\"description\":\"Greet someone.\",\"arguments\":[{\"name\":\"name\","
                   "\"required\":true},{\"name\":\"greeting\"}]}",
     .args = GREET_ARGS,
     .nargs = 2,
     .get = prompt_greet,
     .complete = GREET_COMPLETE,
     .ncomplete = 1},
    {.name = "plain", .list_entry = "{\"name\":\"plain\",\"description\":\"No arguments.\"}", .get = prompt_plain},
    {.name = "failing", .list_entry = "{\"name\":\"failing\",\"description\":\"Fails.\"}", .get = prompt_failing},
};

/* ---------------------------------------------------------------- the elicitation tool */

/* Asks for the generated form (with the message in the arguments, if any) and
 * reports what came back, decoded. */
static mcp_status tool_form(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    const mcp_json *meta = mcp_call_meta(call);
    const mcp_json *m = mcp_json_get(meta, "message");
    beyond_profile_form form;
    memset(&form, 0x55, sizeof form); /* the call must zero what it does not fill */
    mcp_elicit_action action = MCP_ELICIT_ACCEPT;
    bool ok = beyond_elicit_profile(call, m && m->kind == MCP_JSTRING ? m->s : NULL, &form, &action);
    static const char *const ACTION[] = {"none", "accept", "decline", "cancel"};
    if (!ok)
        return mcp_content_text(call, mcp_sprintf(call, "false %s: %s", ACTION[action],
                                                  mcp_client_error(call) ? mcp_client_error(call) : "-"));
    char tags[64] = "";
    static const char *const COLOR[] = {"red", "green", "blue"};
    for (size_t i = 0; i < form.tags.len; i++)
        snprintf(tags + strlen(tags), sizeof tags - strlen(tags), "%s%s", i ? "," : "", COLOR[form.tags.items[i]]);
    return mcp_content_text(
        call, mcp_sprintf(call,
                          "true %s: name=%s age=%lld/%d score=%g/%d subscribe=%d/%d plan=%s/%d tags=%s/%d "
                          "email=%s/%d",
                          ACTION[action], form.name, (long long)form.age, form.has_age, form.score, form.has_score,
                          form.subscribe, form.has_subscribe, beyond_profile_form_plan_name(form.plan), form.has_plan,
                          tags, form.has_tags, form.email ? form.email : "(null)", form.has_email));
}

static mcp_status tool_notify(mcp_call *call, const void *args, void *out)
{
    (void)args, (void)out;
    mcp_resource_updated(call, "test://dynamic");
    return mcp_content_text(call, "notified");
}

static const mcp_type NO_ARGS = {.kind = MCP_T_OBJECT, .size = 1, .align = 1, .tag = "tArguments"};
static const mcp_tool TOOLS[] = {
    {.name = "form", .list_entry = "{\"name\":\"form\"}", .args = &NO_ARGS, .handler = tool_form},
    {.name = "notify", .list_entry = "{\"name\":\"notify\"}", .args = &NO_ARGS, .handler = tool_notify},
};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "beyond",
    .version = "1",
    .tools = TOOLS,
    .ntools = 2,
    .resources = RESOURCES,
    .nresources = NRESOURCES,
    .templates = TEMPLATES,
    .ntemplates = 2,
    .prompts = PROMPTS,
    .nprompts = 3,
};

/* ---------------------------------------------------------------- sessions */

#define INIT(caps) \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":" caps ",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* A session of `srv` (the sink context `tag` marks its messages), initialized;
 * *capabilities (when not NULL) receives the capabilities it announced. */
static mcp_session *open_session_as(const char *init, const mcp_server *srv, size_t page_size, void *tag,
                                    char **capabilities)
{
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 2;
    if (page_size)
        set.page_size = page_size;
    mcp_session *s = test_session_new(srv, &set, sink, tag);
    ck_assert_ptr_nonnull(s);
    cap_reset();
    feed(s, init);
    feed(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    ck_assert_uint_eq(cap_wait(1), 1);
    const char *t = cap_at(0)->text, *c = strstr(t, "\"capabilities\":"), *e = strstr(t, ",\"serverInfo\"");
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_nonnull(e);
    if (capabilities) {
        c += strlen("\"capabilities\":");
        size_t n = (size_t)(e - c);
        *capabilities = malloc(n + 1);
        ck_assert_ptr_nonnull(*capabilities);
        memcpy(*capabilities, c, n);
        (*capabilities)[n] = 0;
    }
    cap_reset();
    return s;
}

/* A client that can answer elicitation/create. */
static mcp_session *open_session(const mcp_server *srv, size_t page_size, void *tag, char **capabilities)
{
    return open_session_as(INIT("{\"elicitation\":{}}"), srv, page_size, tag, capabilities);
}

static void setup(void) { cap_reset(); }
static void teardown(void) { cap_reset(); }

/* ---------------------------------------------------------------- lists */

START_TEST(lists)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    ck_assert_str_eq(
        ask(s, REQ(1, "resources/list", "{}")),
        RESULT(
            1,
            "{\"resources\":[" ENTRY("static_text", "test://static-text", ",\"mimeType\":\"text/plain\"") "," ENTRY(
                "static_blob", "test://static-blob",
                ",\"mimeType\":\"image/png\"") "," ENTRY("dynamic", "test://dynamic",
                                                         ",\"mimeType\":\"text/plain\"") "," ENTRY("failing",
                                                                                                   "test://failing",
                                                                                                   "") "," ENTRY("missi"
                                                                                                                 "ng",
                                                                                                                 "test:"
                                                                                                                 "//"
                                                                                                                 "missi"
                                                                                                                 "ng",
                                                                                                                 "") "," ENTRY("bad_blob",
                                                                                                                               "test://bad-blob",
                                                                                                                               "") "]}"));
    ck_assert_str_eq(ask(s, REQ(2, "resources/templates/list", "{}")),
                     RESULT(2, "{\"resourceTemplates\":[{\"name\":\"file\",\"uriTemplate\":\"file:///{folder}/"
                               "{name}\",\"mimeType\":\"text/plain\"},{\"name\":\"note\",\"uriTemplate\":"
                               "\"note://{id}\"}]}"));
    ck_assert_str_eq(ask(s, REQ(3, "prompts/list", "{}")),
                     RESULT(3,
                            "{\"prompts\":[{\"name\":\"greet\",\"description\":\"Greet someone.\",\"arguments\":["
                            "{\"name\":\"name\",\"required\":true},{\"name\":\"greeting\"}]},{\"name\":\"plain\","
                            "\"description\":\"No arguments.\"},{\"name\":\"failing\",\"description\":\"Fails.\"}]}"));
    test_session_free(s);
}
END_TEST

START_TEST(pagination)
{
    mcp_session *s = open_session(&SERVER, 4, NULL, NULL);
    const char *page1 = ask(s, REQ(1, "resources/list", "{}"));
    ck_assert_ptr_nonnull(strstr(page1, "{\"resources\":[{\"name\":\"static_text\","));
    ck_assert_ptr_nonnull(strstr(page1, ENTRY("failing", "test://failing", "") "],\"nextCursor\":\"4\"}}"));
    ck_assert_ptr_null(strstr(page1, "missing"));
    ck_assert_str_eq(ask(s, REQ(2, "resources/list", "{\"cursor\":\"4\"}")),
                     RESULT(2, "{\"resources\":[" ENTRY("missing", "test://missing",
                                                        "") "," ENTRY("bad_blob", "test://bad-blob", "") "]}"));
    ck_assert_str_eq(ask(s, REQ(3, "resources/list", "{\"cursor\":\"5\"}")),
                     FAILURE(3, -32602, "Invalid params: invalid cursor: 5"));
    /* Fewer templates and prompts than a page: one page, no cursor. */
    ck_assert_ptr_null(strstr(ask(s, REQ(4, "resources/templates/list", "{}")), "nextCursor"));
    ck_assert_ptr_null(strstr(ask(s, REQ(5, "prompts/list", "{}")), "nextCursor"));
    test_session_free(s);

    s = open_session(&SERVER, 1, NULL, NULL);
    ck_assert_str_eq(ask(s, REQ(6, "prompts/list", "{\"cursor\":\"2\"}")),
                     RESULT(6, "{\"prompts\":[{\"name\":\"failing\",\"description\":\"Fails.\"}]}"));
    ck_assert_str_eq(ask(s, REQ(7, "resources/templates/list", "{}")),
                     RESULT(7, "{\"resourceTemplates\":[{\"name\":\"file\",\"uriTemplate\":\"file:///{folder}/"
                               "{name}\",\"mimeType\":\"text/plain\"}],\"nextCursor\":\"1\"}"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- resources/read */

START_TEST(read_each_kind)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    ck_assert_str_eq(ask(s, REQ(1, "resources/read", "{\"uri\":\"test://static-text\"}")),
                     RESULT(1, "{\"contents\":[{\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\","
                               "\"text\":\"Hello, \\\"world\\\"\\n\xc3\xa9\"}]}"));
    ck_assert_str_eq(ask(s, REQ(2, "resources/read", "{\"uri\":\"test://static-blob\"}")),
                     RESULT(2, "{\"contents\":[{\"uri\":\"test://static-blob\",\"mimeType\":\"image/png\","
                               "\"blob\":\"iVBORw0KGgo=\"}]}"));
    ck_assert_str_eq(ask(s, REQ(3, "resources/read", "{\"uri\":\"test://dynamic\"}")),
                     RESULT(3, "{\"contents\":[{\"uri\":\"test://dynamic\",\"mimeType\":\"text/plain\",\"text\":"
                               "\"read test://dynamic\"},{\"uri\":\"test://dynamic/part\",\"mimeType\":"
                               "\"application/octet-stream\",\"blob\":\"AAEC\"}]}"));
    /* A template: both variables, percent-decoded; the template's mimeType. */
    ck_assert_str_eq(ask(s, REQ(4, "resources/read", "{\"uri\":\"file:///my%20docs/a%2Fb.txt\"}")),
                     RESULT(4, "{\"contents\":[{\"uri\":\"file:///my%20docs/a%2Fb.txt\",\"mimeType\":\"text/plain\","
                               "\"text\":\"folder=my docs name=a/b.txt\"}]}"));
    /* A template without a mimeType: none is sent. */
    ck_assert_str_eq(ask(s, REQ(5, "resources/read", "{\"uri\":\"note://n1\"}")),
                     RESULT(5, "{\"contents\":[{\"uri\":\"note://n1\",\"text\":\"note n1\"}]}"));
    test_session_free(s);
}
END_TEST

START_TEST(read_errors)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    /* No resource, no template matches (a template's variable needs at least one character). */
    ck_assert_str_eq(ask(s, REQ(1, "resources/read", "{\"uri\":\"test://nothing\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"Resource not found\","
                     "\"data\":{\"uri\":\"test://nothing\"}}}");
    ck_assert_str_eq(ask(s, REQ(2, "resources/read", "{\"uri\":\"file:///only-a-folder/\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32002,\"message\":\"Resource not found\","
                     "\"data\":{\"uri\":\"file:///only-a-folder/\"}}}");
    /* The reader says so: of a resource, and of a template that matched. */
    ck_assert_str_eq(ask(s, REQ(3, "resources/read", "{\"uri\":\"test://missing\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32002,\"message\":\"Resource not found\","
                     "\"data\":{\"uri\":\"test://missing\"}}}");
    ck_assert_str_eq(ask(s, REQ(4, "resources/read", "{\"uri\":\"file:///gone/x\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32002,\"message\":\"Resource not found\","
                     "\"data\":{\"uri\":\"file:///gone/x\"}}}");
    /* A reader that fails: -32603 with its message. */
    ck_assert_str_eq(ask(s, REQ(5, "resources/read", "{\"uri\":\"test://failing\"}")),
                     FAILURE(5, -32603, "Internal error: reading the resource: the disk is on fire"));
    ck_assert_str_eq(ask(s, REQ(6, "resources/read", "{\"uri\":\"test://bad-blob\"}")),
                     FAILURE(6, -32603,
                             "Internal error: reading the resource: resource contents: the blob is not "
                             "base64"));
    /* Bad params. */
    ck_assert_str_eq(ask(s, REQ(7, "resources/read", "{}")), FAILURE(7, -32602, "Invalid params: missing uri"));
    ck_assert_str_eq(ask(s, REQ(8, "resources/read", "{\"uri\":7}")),
                     FAILURE(8, -32602, "Invalid params: uri must be a string"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- subscriptions */

static size_t count_from(void *session)
{
    size_t n = 0;
    for (size_t i = 0; cap_at(i); i++)
        n += cap_at(i)->session == session;
    return n;
}

#define UPDATED(uri) \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\",\"params\":{\"uri\":\"" uri "\"}}"

START_TEST(subscriptions)
{
    int tag_a, tag_b;
    mcp_options o;
    mcp_options_default(&o);
    o.workers = 2;
    o.log_level = MCP_LOG_QUIET;
    test_shared = test_runtime_new(&SERVER, &o); /* a and b: one runtime's subscriptions */
    ck_assert_ptr_nonnull(test_shared);
    mcp_session *a = open_session(&SERVER, 0, &tag_a, NULL);
    mcp_session *b = open_session(&SERVER, 0, &tag_b, NULL);
    ck_assert_str_eq(ask(a, REQ(1, "resources/subscribe", "{\"uri\":\"test://dynamic\"}")), RESULT(1, "{}"));
    /* Subscribing twice is one subscription; a URI a template matches may be
     * subscribed to, one the server does not serve may not (-32002, as
     * resources/read), so that what a client makes the server keep is bounded. */
    ck_assert_str_eq(ask(a, REQ(2, "resources/subscribe", "{\"uri\":\"test://dynamic\"}")), RESULT(2, "{}"));
    ck_assert_str_eq(ask(b, REQ(3, "resources/subscribe", "{\"uri\":\"note://elsewhere\"}")), RESULT(3, "{}"));
    ck_assert_str_eq(ask(b, REQ(3, "resources/subscribe", "{\"uri\":\"test://elsewhere\"}")),
                     "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32002,\"message\":\"Resource not found\","
                     "\"data\":{\"uri\":\"test://elsewhere\"}}}");
    ck_assert_str_eq(ask(b, REQ(4, "resources/subscribe", "{}")), FAILURE(4, -32602, "Invalid params: missing uri"));

    /* mcp_resource_updated sends at once (under its lock): only to a. */
    cap_reset();
    mcp_runtime_resource_updated(test_shared, "test://dynamic");
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_str_eq(cap_at(0)->text, UPDATED("test://dynamic"));
    ck_assert_ptr_eq(cap_at(0)->session, &tag_a);
    mcp_runtime_resource_updated(test_shared, "test://static-text");
    ck_assert_uint_eq(count_from(&tag_a) + count_from(&tag_b), 1);

    /* From a handler (on a worker of b): a hears it, b gets its answer. */
    cap_reset();
    feed(b, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"notify\"}}");
    mcp_session_drain(b);
    ck_assert_uint_eq(cap_wait(2), 2);
    ck_assert_uint_eq(count_from(&tag_a), 1);
    ck_assert_uint_eq(count_from(&tag_b), 1);
    for (size_t i = 0; i < 2; i++)
        if (cap_at(i)->session == &tag_a)
            ck_assert_str_eq(cap_at(i)->text, UPDATED("test://dynamic"));

    /* After unsubscribe (exactly {}), nothing; unsubscribing again is harmless. */
    ck_assert_str_eq(ask(a, REQ(6, "resources/unsubscribe", "{\"uri\":\"test://dynamic\"}")), RESULT(6, "{}"));
    ck_assert_str_eq(ask(a, REQ(7, "resources/unsubscribe", "{\"uri\":\"test://dynamic\"}")), RESULT(7, "{}"));
    cap_reset();
    mcp_runtime_resource_updated(test_shared, "test://dynamic");
    mcp_runtime_resource_updated(test_shared, "note://elsewhere");
    ck_assert_uint_eq(cap_wait(1), 1);
    ck_assert_ptr_eq(cap_at(0)->session, &tag_b);
    ck_assert_str_eq(cap_at(0)->text, UPDATED("note://elsewhere"));
    ck_assert_uint_eq(count_from(&tag_a), 0);

    /* A freed session hears nothing more (and is not touched). */
    test_session_free(b);
    cap_reset();
    mcp_runtime_resource_updated(test_shared, "note://elsewhere");
    mcp_runtime_resource_updated(test_shared, NULL);
    ck_assert_uint_eq(count_from(&tag_a) + count_from(&tag_b), 0);
    test_session_free(a);
    mcp_runtime_free(test_shared);
    test_shared = NULL;
}
END_TEST

/* A session subscribes to at most max_subscriptions URIs (default 256), each
 * at most MCP_MAX_SUBSCRIBE_URI bytes; past either, an error, and the
 * session goes on; unsubscribing makes room again. */
START_TEST(subscription_bounds)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    char req[160];
    for (int i = 0; i < MCP_DEFAULT_MAX_SUBSCRIPTIONS; i++) {
        snprintf(req, sizeof req, REQ(1, "resources/subscribe", "{\"uri\":\"note://%d\"}"), i);
        ck_assert_str_eq(ask(s, req), RESULT(1, "{}"));
    }
    ck_assert_str_eq(ask(s, REQ(2, "resources/subscribe", "{\"uri\":\"note://one-more\"}")),
                     FAILURE(2, -32603, "Internal error: too many subscriptions (limit 256)"));
    /* Again to one it holds: nothing new, fine. */
    ck_assert_str_eq(ask(s, REQ(3, "resources/subscribe", "{\"uri\":\"note://7\"}")), RESULT(3, "{}"));
    ck_assert_str_eq(ask(s, REQ(4, "resources/unsubscribe", "{\"uri\":\"note://7\"}")), RESULT(4, "{}"));
    ck_assert_str_eq(ask(s, REQ(5, "resources/subscribe", "{\"uri\":\"note://one-more\"}")), RESULT(5, "{}"));
    /* A URI one byte too long. */
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"note://");
    for (size_t i = strlen("note://"); i < MCP_MAX_SUBSCRIBE_URI + 1; i++)
        mcp_buf_putc(&m, 'x');
    mcp_buf_puts(&m, "\"}}");
    ck_assert_str_eq(ask(s, m.data), FAILURE(6, -32602,
                                             "Invalid params: uri longer than 4096 bytes cannot be "
                                             "subscribed to"));
    mcp_buf_free(&m);
    ck_assert_str_eq(ask(s, REQ(7, "ping", "{}")), RESULT(7, "{}"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- prompts/get */

START_TEST(prompts_get)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    ck_assert_str_eq(ask(s, REQ(1, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}")),
                     RESULT(1, "{\"description\":\"A greeting for Ada\",\"messages\":["
                               "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Greet Ada\"}},"
                               "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Hello, Ada!\"}},"
                               "{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"iVBORw0KGgo=\","
                               "\"mimeType\":\"image/png\"}}]}"));
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(2, "prompts/get",
                                            "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\","
                                            "\"greeting\":\"Hi\"}}")),
                                 "\"text\":\"Hi, Ada!\""));
    /* A null optional argument is an absent one. */
    ck_assert_ptr_nonnull(strstr(ask(s, REQ(3, "prompts/get",
                                            "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\","
                                            "\"greeting\":null}}")),
                                 "\"text\":\"Hello, Ada!\""));
    ck_assert_str_eq(ask(s, REQ(4, "prompts/get", "{\"name\":\"plain\"}")),
                     RESULT(4,
                            "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"resource\",\"resource\":{"
                            "\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\",\"text\":\"embedded\"}}}]}"));

    ck_assert_str_eq(ask(s, REQ(5, "prompts/get", "{\"name\":\"greet\"}")),
                     FAILURE(5, -32602, "Invalid params: missing required argument 'name' of prompt 'greet'"));
    ck_assert_str_eq(ask(s, REQ(6, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"greeting\":\"Hi\"}}")),
                     FAILURE(6, -32602, "Invalid params: missing required argument 'name' of prompt 'greet'"));
    ck_assert_str_eq(ask(s, REQ(7, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"name\":7}}")),
                     FAILURE(7, -32602, "Invalid params: argument 'name' of prompt 'greet' must be a string"));
    ck_assert_str_eq(ask(s, REQ(8, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"name\":\"a\\u0000b\"}}")),
                     FAILURE(8, -32602, "Invalid params: argument 'name' of prompt 'greet' must be a string"));
    ck_assert_str_eq(ask(s, REQ(9, "prompts/get", "{\"name\":\"greet\",\"arguments\":[\"Ada\"]}")),
                     FAILURE(9, -32602, "Invalid params: arguments must be an object"));
    ck_assert_str_eq(ask(s, REQ(10, "prompts/get", "{\"name\":\"nope\"}")),
                     FAILURE(10, -32602, "Invalid params: unknown prompt: nope"));
    ck_assert_str_eq(ask(s, REQ(11, "prompts/get", "{}")), FAILURE(11, -32602, "Invalid params: missing name"));
    ck_assert_str_eq(ask(s, REQ(12, "prompts/get", "{\"name\":\"failing\"}")),
                     FAILURE(12, -32603, "Internal error: getting the prompt: no words"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- completion/complete */

#define COMPLETE(id, ref, arg) REQ(id, "completion/complete", "{\"ref\":" ref ",\"argument\":" arg "}")
#define FILE_REF "{\"type\":\"ref/resource\",\"uri\":\"file:///{folder}/{name}\"}"
#define GREET_REF "{\"type\":\"ref/prompt\",\"name\":\"greet\"}"

START_TEST(completions)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    /* Static values of a prompt argument, filtered by prefix. */
    ck_assert_str_eq(ask(s, COMPLETE(1, GREET_REF, "{\"name\":\"greeting\",\"value\":\"h\"}")),
                     RESULT(1, "{\"completion\":{\"values\":[\"hello\",\"hey\",\"hi\",\"howdy\"],\"total\":4,"
                               "\"hasMore\":false}}"));
    ck_assert_str_eq(ask(s, COMPLETE(2, GREET_REF, "{\"name\":\"greeting\",\"value\":\"he\"}")),
                     RESULT(2, "{\"completion\":{\"values\":[\"hello\",\"hey\"],\"total\":2,\"hasMore\":false}}"));
    /* An argument of the prompt without completion: no suggestions. */
    ck_assert_str_eq(ask(s, COMPLETE(3, GREET_REF, "{\"name\":\"name\",\"value\":\"A\"}")),
                     RESULT(3, "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}"));

    /* 150 static values of a template variable: the first 100 are sent. */
    const char *t = ask(s, COMPLETE(4, FILE_REF, "{\"name\":\"folder\",\"value\":\"dir\"}"));
    ck_assert_ptr_nonnull(strstr(t, "{\"completion\":{\"values\":[\"dir000\",\"dir001\","));
    ck_assert_ptr_nonnull(strstr(t, "\"dir099\"],\"total\":150,\"hasMore\":true}}"));
    ck_assert_ptr_null(strstr(t, "dir100"));
    ck_assert_str_eq(ask(s, COMPLETE(5, FILE_REF, "{\"name\":\"folder\",\"value\":\"dir14\"}")),
                     RESULT(5, "{\"completion\":{\"values\":[\"dir140\",\"dir141\",\"dir142\",\"dir143\",\"dir144\","
                               "\"dir145\",\"dir146\",\"dir147\",\"dir148\",\"dir149\"],\"total\":10,"
                               "\"hasMore\":false}}"));
    ck_assert_str_eq(ask(s, COMPLETE(6, FILE_REF, "{\"name\":\"folder\",\"value\":\"x\"}")),
                     RESULT(6, "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}"));

    /* A handler, with the context's arguments; 120 values: 100 sent. */
    ck_assert_str_eq(ask(s, REQ(7, "completion/complete",
                                "{\"ref\":" FILE_REF ",\"argument\":{\"name\":\"name\","
                                "\"value\":\"rep\"},\"context\":{\"arguments\":{\"folder\":"
                                "\"docs\"}}}")),
                     RESULT(7, "{\"completion\":{\"values\":[\"rep.txt\",\"docs\"],\"total\":2,\"hasMore\":false}}"));
    ck_assert_str_eq(ask(s, COMPLETE(8, FILE_REF, "{\"name\":\"name\",\"value\":\"\"}")),
                     RESULT(8, "{\"completion\":{\"values\":[\".txt\",\"(no folder)\"],\"total\":2,"
                               "\"hasMore\":false}}"));
    t = ask(s, REQ(9, "completion/complete",
                   "{\"ref\":" FILE_REF ",\"argument\":{\"name\":\"name\",\"value\":\"f\"},"
                   "\"context\":{\"arguments\":{\"folder\":\"many\"}}}"));
    ck_assert_ptr_nonnull(strstr(t, "\"f98\",\"f99\"],\"total\":120,\"hasMore\":true}}"));
    ck_assert_str_eq(ask(s, REQ(10, "completion/complete",
                                "{\"ref\":" FILE_REF ",\"argument\":{\"name\":\"name\","
                                "\"value\":\"f\"},\"context\":{\"arguments\":{\"folder\":"
                                "\"broken\"}}}")),
                     FAILURE(10, -32603, "Internal error: completing: no listing of broken"));

    /* Errors: an unknown argument or variable, prompt, template, ref type. */
    ck_assert_str_eq(ask(s, COMPLETE(11, GREET_REF, "{\"name\":\"mood\",\"value\":\"\"}")),
                     FAILURE(11, -32602, "Invalid params: unknown argument: mood"));
    ck_assert_str_eq(ask(s, COMPLETE(12, FILE_REF, "{\"name\":\"size\",\"value\":\"\"}")),
                     FAILURE(12, -32602, "Invalid params: unknown argument: size"));
    ck_assert_str_eq(
        ask(s, COMPLETE(13, "{\"type\":\"ref/prompt\",\"name\":\"nope\"}", "{\"name\":\"a\",\"value\":\"\"}")),
        FAILURE(13, -32602, "Invalid params: unknown prompt: nope"));
    ck_assert_str_eq(ask(s, COMPLETE(14, "{\"type\":\"ref/resource\",\"uri\":\"file:///x/y\"}",
                                     "{\"name\":\"folder\",\"value\":\"\"}")),
                     FAILURE(14, -32602, "Invalid params: no resource template file:///x/y"));
    ck_assert_str_eq(
        ask(s, COMPLETE(15, "{\"type\":\"ref/tool\",\"name\":\"form\"}", "{\"name\":\"a\",\"value\":\"\"}")),
        FAILURE(15, -32602, "Invalid params: ref.type must be \\\"ref/prompt\\\" or \\\"ref/resource\\\""));
    ck_assert_str_eq(ask(s, REQ(16, "completion/complete", "{\"ref\":" GREET_REF "}")),
                     FAILURE(16, -32602, "Invalid params: argument must be an object"));
    ck_assert_str_eq(ask(s, COMPLETE(17, GREET_REF, "{\"name\":\"greeting\"}")),
                     FAILURE(17, -32602, "Invalid params: missing value"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- capabilities */

static const mcp_server TOOLS_ONLY = {.abi = MCPIDL_ABI, .name = "t", .version = "1", .tools = TOOLS, .ntools = 2};
static const mcp_server RESOURCES_ONLY = {
    .abi = MCPIDL_ABI, .name = "r", .version = "1", .resources = RESOURCES, .nresources = NRESOURCES};
static const mcp_server TEMPLATES_ONLY = {
    .abi = MCPIDL_ABI, .name = "t", .version = "1", .templates = TEMPLATES, .ntemplates = 2};
static const mcp_server PROMPTS_ONLY = {
    .abi = MCPIDL_ABI, .name = "p", .version = "1", .prompts = PROMPTS, .nprompts = 3};

START_TEST(capabilities)
{
    static const struct {
        const mcp_server *srv;
        const char *caps;
    } CASES[] = {
        {&SERVER, "{\"logging\":{},\"tools\":{\"listChanged\":false},\"resources\":{\"subscribe\":true,"
                  "\"listChanged\":false},\"prompts\":{\"listChanged\":false},\"completions\":{}}"},
        {&TOOLS_ONLY, "{\"logging\":{},\"tools\":{\"listChanged\":false}}"},
        {&RESOURCES_ONLY, "{\"logging\":{},\"resources\":{\"subscribe\":true,\"listChanged\":false}}"},
        {&TEMPLATES_ONLY, "{\"logging\":{},\"resources\":{\"subscribe\":true,\"listChanged\":false},"
                          "\"completions\":{}}"},
        {&PROMPTS_ONLY, "{\"logging\":{},\"prompts\":{\"listChanged\":false},\"completions\":{}}"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        char *caps = NULL;
        mcp_session *s = open_session(CASES[i].srv, 0, NULL, &caps);
        ck_assert_str_eq(caps, CASES[i].caps);
        free(caps);
        test_session_free(s);
    }
}
END_TEST

/* Each method is served exactly when the capability it belongs to is announced. */
START_TEST(methods_not_served)
{
    static const char *const RESOURCE_METHODS[] = {"resources/list", "resources/templates/list", "resources/read",
                                                   "resources/subscribe", "resources/unsubscribe"};
    static const char *const PROMPT_METHODS[] = {"prompts/list", "prompts/get"};
    char req[256], want[256];

    mcp_session *s = open_session(&TOOLS_ONLY, 0, NULL, NULL);
    for (size_t i = 0; i < 5; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"%s\",\"params\":{\"uri\":\"a:b\"}}", i,
                 RESOURCE_METHODS[i]);
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"error\":{\"code\":-32601,\"message\":"
                 "\"Method not found: %s\"}}",
                 i, RESOURCE_METHODS[i]);
        ck_assert_str_eq(ask(s, req), want);
    }
    for (size_t i = 0; i < 2; i++) {
        snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"method\":\"%s\",\"params\":{\"name\":\"g\"}}",
                 10 + i, PROMPT_METHODS[i]);
        snprintf(want, sizeof want,
                 "{\"jsonrpc\":\"2.0\",\"id\":%zu,\"error\":{\"code\":-32601,\"message\":"
                 "\"Method not found: %s\"}}",
                 10 + i, PROMPT_METHODS[i]);
        ck_assert_str_eq(ask(s, req), want);
    }
    ck_assert_str_eq(ask(s, COMPLETE(20, GREET_REF, "{\"name\":\"greeting\",\"value\":\"h\"}")),
                     FAILURE(20, -32601, "Method not found: completion/complete"));
    test_session_free(s);

    /* Resources without templates: no completions; no prompts. */
    s = open_session(&RESOURCES_ONLY, 0, NULL, NULL);
    ck_assert_str_eq(ask(s, COMPLETE(21, FILE_REF, "{\"name\":\"folder\",\"value\":\"\"}")),
                     FAILURE(21, -32601, "Method not found: completion/complete"));
    ck_assert_str_eq(ask(s, REQ(22, "prompts/list", "{}")), FAILURE(22, -32601, "Method not found: prompts/list"));
    ck_assert_str_eq(ask(s, REQ(23, "resources/templates/list", "{}")), RESULT(23, "{\"resourceTemplates\":[]}"));
    test_session_free(s);

    /* Prompts only: completion for prompts, no resources. */
    s = open_session(&PROMPTS_ONLY, 0, NULL, NULL);
    ck_assert_str_eq(ask(s, REQ(24, "resources/list", "{}")), FAILURE(24, -32601, "Method not found: resources/list"));
    ck_assert_str_eq(ask(s, COMPLETE(25, GREET_REF, "{\"name\":\"greeting\",\"value\":\"how\"}")),
                     RESULT(25, "{\"completion\":{\"values\":[\"howdy\"],\"total\":1,\"hasMore\":false}}"));
    ck_assert_str_eq(ask(s, COMPLETE(26, FILE_REF, "{\"name\":\"folder\",\"value\":\"\"}")),
                     FAILURE(26, -32602, "Invalid params: no resource template file:///{folder}/{name}"));
    test_session_free(s);
}
END_TEST

/* ---------------------------------------------------------------- typed elicitation */

/* Call the form tool (the message override in _meta), check the request it
 * sends, answer it with `response` (a result or error object) and return the
 * tool's text. */
static const char *form_round(mcp_session *s, const char *meta, const char *message, const char *response)
{
    cap_reset();
    char req[256];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"form\"%s%s}}",
             meta ? ",\"_meta\":" : "", meta ? meta : "");
    feed(s, req);
    ck_assert_uint_eq(cap_wait(1), 1);
    /* The server numbers its own requests. */
    const char *idp = strstr(cap_at(0)->text, "\"id\":");
    ck_assert_ptr_nonnull(idp);
    long long id = strtoll(idp + 5, NULL, 10);
    char want[2048];
    snprintf(want, sizeof want,
             "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"elicitation/create\",\"params\":{\"message\":\"%s\","
             "\"requestedSchema\":%s}}",
             id, message, beyond_profile_elicitation.schema);
    ck_assert_str_eq(cap_at(0)->text, want);
    char answer[512];
    snprintf(answer, sizeof answer, "{\"jsonrpc\":\"2.0\",\"id\":%lld,%s}", id, response);
    feed(s, answer);
    mcp_session_drain(s);
    ck_assert_uint_eq(cap_wait(2), 2);
    const char *t = cap_at(1)->text, *p = strstr(t, "\"text\":\"");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(strstr(t, "\"isError\":false"));
    return p + strlen("\"text\":\"");
}

/* The text of a tool's answer starts with `want` and ends there. */
#define ck_assert_text(t, want) ck_assert_str_eq(t, want "\"}],\"isError\":false}}")

START_TEST(elicit_form)
{
    /* The form the generated code publishes: fields in declaration order. */
    ck_assert_str_eq(beyond_profile_elicitation.schema,
                     "{\"properties\":{\"name\":{\"minLength\":1,\"title\":\"Name\",\"type\":\"string\"},\"age\":{"
                     "\"default\":30,\"maximum\":150,\"minimum\":0,\"type\":\"integer\"},\"score\":{\"default\":0.5,"
                     "\"type\":\"number\"},\"subscribe\":{\"default\":true,\"type\":\"boolean\"},\"plan\":{\"default\":"
                     "\"basic\",\"oneOf\":[{\"const\":\"basic\",\"title\":\"Basic plan\"},{\"const\":\"pro\",\"title\":"
                     "\"Pro plan\"}],\"type\":\"string\"},\"tags\":{\"items\":{\"enum\":[\"red\",\"green\",\"blue\"],"
                     "\"type\":\"string\"},\"type\":\"array\"},\"email\":{\"format\":\"email\",\"type\":\"string\"}},"
                     "\"required\":[\"name\"],\"type\":\"object\"}");
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);

    /* Accepted: the struct decoded, defaults filled in where the user left a field out. */
    ck_assert_text(form_round(s, NULL, "Tell us about yourself",
                              "\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"tags\":[\"blue\","
                              "\"red\"],\"plan\":\"pro\"}}"),
                   "true accept: name=Ada age=30/0 score=0.5/0 subscribe=1/0 plan=pro/1 tags=blue,red/1 "
                   "email=(null)/0");
    ck_assert_text(form_round(s, "{\"message\":\"Again?\"}", "Again?",
                              "\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Bo\",\"age\":41,\"score\":2,"
                              "\"subscribe\":false,\"email\":\"bo@example.com\"}}"),
                   "true accept: name=Bo age=41/1 score=2/1 subscribe=0/1 plan=basic/0 tags=/0 "
                   "email=bo@example.com/1");
    /* Declined, cancelled. */
    ck_assert_text(form_round(s, NULL, "Tell us about yourself", "\"result\":{\"action\":\"decline\"}"),
                   "false decline: -");
    ck_assert_text(form_round(s, NULL, "Tell us about yourself", "\"result\":{\"action\":\"cancel\"}"),
                   "false cancel: -");
    /* Accepted, but not what the form asks for: false, and the reason. */
    ck_assert_text(form_round(s, NULL, "Tell us about yourself",
                              "\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"\",\"age\":200}}"),
                   "false accept: elicitation/create: the answer does not fit the form 'profile': 2 validation "
                   "errors for profile\\nname\\n  String should have at least 1 character [type=string_too_short, "
                   "input_value='', input_type=str]\\nage\\n  Input should be less than or equal to 150 "
                   "[type=less_than_equal, input_value=200, input_type=int]");
    ck_assert_text(form_round(s, NULL, "Tell us about yourself",
                              "\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\",\"tags\":[\"pink\"]}}"),
                   "false accept: elicitation/create: the answer does not fit the form 'profile': 1 validation "
                   "error for profile\\ntags.0\\n  Input should be 'red', 'green' or 'blue' [type=literal_error, "
                   "input_value='pink', input_type=str]");
    /* Accepted without content: the required name is missing. */
    const char *t = form_round(s, NULL, "Tell us about yourself", "\"result\":{\"action\":\"accept\"}");
    ck_assert_ptr_nonnull(strstr(t, "false accept: elicitation/create: the answer does not fit the form 'profile': "
                                    "1 validation error for profile\\nname\\n  Field required [type=missing"));
    /* No answer at all: the client's error. */
    ck_assert_text(
        form_round(s, NULL, "Tell us about yourself", "\"error\":{\"code\":-1,\"message\":\"User rejected\"}"),
        "false none: elicitation/create: the client answered with error -1: User rejected");
    test_session_free(s);
}
END_TEST

/* The client did not declare elicitation: false, with the reason, and nothing sent. */
START_TEST(elicit_without_capability)
{
    mcp_session *s = open_session_as(INIT("{}"), &SERVER, 0, NULL, NULL);
    const char *t = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"form\"}}");
    ck_assert_str_eq(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"false "
                        "none: elicitation/create: the client did not declare the elicitation capability\"}],"
                        "\"isError\":false}}");
    test_session_free(s);
}
END_TEST

/* A tool marked inline runs on the reading thread, which would read the
 * client's answer: its request to the client fails at once, with the reason,
 * and nothing is sent. */
START_TEST(elicit_from_inline_tool)
{
    mcp_session *s = open_session(&SERVER, 0, NULL, NULL);
    ck_assert(mcp_runtime_tool_inline(test_runtime_of(s), "form", true));
    const char *t = ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"form\"}}");
    ck_assert_str_eq(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"false "
                        "none: elicitation/create: requests to the client need worker threads (the tool runs "
                        "inline, mcp_runtime_tool_inline: on the thread that would read the answer)\"}],"
                        "\"isError\":false}}");
    test_session_free(s);
}
END_TEST

int main(int argc, char **argv)
{
    capture_start(argc, argv);
    make_folders();
    test_quiet = true;
    Suite *su = suite_create("beyond");
    TCase *tc = tcase_create("beyond");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, lists);
    tcase_add_test(tc, pagination);
    tcase_add_test(tc, read_each_kind);
    tcase_add_test(tc, read_errors);
    tcase_add_test(tc, subscriptions);
    tcase_add_test(tc, subscription_bounds);
    tcase_add_test(tc, prompts_get);
    tcase_add_test(tc, completions);
    tcase_add_test(tc, capabilities);
    tcase_add_test(tc, methods_not_served);
    tcase_add_test(tc, elicit_form);
    tcase_add_test(tc, elicit_without_capability);
    tcase_add_test(tc, elicit_from_inline_tool);
    suite_add_tcase(su, tc);
    int failed = check_run(su, false);
    cap_reset();
    free(cap.lines);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
