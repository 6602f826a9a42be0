/* fuzz_state: the requestState of 2026-07-28 multi round-trip requests, as
 * a session decodes it (lib/base/seal.c, lib/methods/mrtr.c).
 *
 * The input's first byte chooses what the rest is:
 *  - even: a token as a client sends it (almost never one whose MAC
 *    verifies: the base64url framing, the split, the MAC check);
 *  - odd: a payload, which the target seals with the server's key, so that
 *    what follows a valid MAC is reached too (the payload's shape, its
 *    method and digest, its caller, its expiry, the answers it carries).
 * The token goes in a tools/call of the weather example, with inputResponses
 * taken from the second byte's choice; the tool's handler (the invoker seam)
 * asks the client twice (elicitation and sampling) and reports what it got.
 *
 * Properties: exactly one answer, with id 1: a result (complete or
 * input_required, with resultType) or an error with an integer code; an
 * input_required result carries a requestState that opens again (sent back
 * with the same request, it is not refused as tampered or foreign).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "internal/methods.h"
#include "internal/runtime.h"
#include "internal/seal.h"
#include "internal/utf8.h"
#include "mcpidl/buf.h"
#include "mcpidl/json.h"
#include "mcpidl/jsonw.h"
#include "mcpidl/transport.h"

extern const mcp_server weather_server;

static mcp_runtime *rt;
static mcp_seal_key key;

/* tools/call's stand-in: two requests to the client, whatever the tool. */
static bool asker(mcp_call *call, const mcp_json *arguments, mcp_buf *out)
{
    (void)arguments;
    const mcp_json *content = NULL;
    const char *action = NULL, *reply = NULL;
    mcp_input_key(call, "who");
    bool named = mcp_elicit(call, "Who?", "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}",
                            &content, &action);
    bool sampled = mcp_sample_text(call, "Say", 8, &reply);
    mcp_buf_puts(out, "{\"content\":[{\"type\":\"text\",\"text\":");
    mcp_json_cstring(out, named && sampled ? "both" : named ? "named" : sampled ? "sampled" : "none");
    mcp_buf_puts(out, "}],\"isError\":false}");
    return !out->oom;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* The server's key, in a file it reads (--state-key-file). */
    int fd = memfd_create("state-key", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    key.len = 32;
    for (size_t i = 0; i < key.len; i++)
        key.k[i] = (unsigned char)(i * 7 + 1);
    FUZZ_CHECK(write(fd, key.k, key.len) == (ssize_t)key.len);
    static char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    mcp_options opt;
    mcp_options_default(&opt);
    opt.workers = 0;
    opt.log_level = MCP_LOG_QUIET;
    opt.state_key_file = path;
    rt = mcp_runtime_new(&weather_server, &opt); /* lives as long as the process */
    FUZZ_CHECK(rt != NULL);
    mcp_methods_set_invoker(mcp_runtime_methods(rt), asker);
    return 0;
}

typedef struct answers {
    mcp_buf text;
    int count;
} answers;

static bool sink(void *ctx, void *reply_ctx, const mcp_out_part *parts, size_t n, bool final)
{
    (void)reply_ctx;
    answers *a = ctx;
    if (!final || n == 0)
        return true;
    a->count++;
    mcp_buf_clear(&a->text);
    for (size_t i = 0; i < n; i++)
        mcp_buf_put(&a->text, parts[i].p, parts[i].n);
    return true;
}

static const char REQUEST_HEAD[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{\"sampling\":{},\"elicitation\":{}}},"
    "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}";

/* The answer to the request carrying state (and answers chosen by `which`). */
static void play(const char *state, size_t state_len, unsigned which, answers *a)
{
    mcp_buf req;
    mcp_buf_init(&req);
    mcp_buf_puts(&req, REQUEST_HEAD);
    if (state) {
        mcp_buf_puts(&req, ",\"requestState\":");
        mcp_json_string(&req, state, state_len);
    }
    static const char *const RESPONSES[] = {
        NULL,
        "{\"who\":{\"action\":\"accept\",\"content\":{\"name\":\"x\"}}}",
        "{\"input_2\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"model\":\"m\"}}",
        "{\"who\":12,\"input_2\":null}",
    };
    const char *r = RESPONSES[which % 4];
    if (r) {
        mcp_buf_puts(&req, ",\"inputResponses\":");
        mcp_buf_puts(&req, r);
    }
    mcp_buf_puts(&req, "}}");
    FUZZ_CHECK(!req.oom);
    mcp_session *s = mcp_session_new(rt, sink, a);
    FUZZ_CHECK(s != NULL);
    mcp_session_message(s, req.data, req.len, NULL);
    mcp_session_free(s);
    mcp_buf_free(&req);
}

/* The answer's shape; the requestState of an input_required result (in a), or NULL. */
static const char *check_answer(const answers *an, mcp_arena *a, size_t *state_len)
{
    FUZZ_CHECK(an->count == 1);
    mcp_json *m = mcp_json_parse(a, an->text.data, an->text.len, NULL, NULL, NULL);
    FUZZ_CHECK(m && m->kind == MCP_JOBJECT);
    const mcp_json *id = mcp_json_get(m, "id");
    FUZZ_CHECK(id && id->kind == MCP_JINT && id->i == 1);
    const mcp_json *result = mcp_json_get(m, "result"), *error = mcp_json_get(m, "error");
    FUZZ_CHECK((result != NULL) != (error != NULL));
    if (error) {
        const mcp_json *code = mcp_json_get(error, "code");
        FUZZ_CHECK(code && code->kind == MCP_JINT);
        return NULL;
    }
    const mcp_json *type = mcp_json_get(result, "resultType");
    FUZZ_CHECK(type && type->kind == MCP_JSTRING);
    if (strcmp(type->s, "input_required") != 0) {
        FUZZ_CHECK(strcmp(type->s, "complete") == 0);
        return NULL;
    }
    const mcp_json *state = mcp_json_get(result, "requestState");
    FUZZ_CHECK(state && state->kind == MCP_JSTRING);
    *state_len = state->len;
    return state->s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned mode = data[0], which = data[1];
    const char *rest = (const char *)data + 2;
    size_t n = size - 2;
    mcp_buf token;
    mcp_buf_init(&token);
    if (mode & 1)
        mcp_seal(&token, &key, rest, n);
    else
        mcp_buf_put(&token, rest, n);
    FUZZ_CHECK(!token.oom);
    /* A client's JSON is UTF-8: a token that is not cannot be sent. */
    if (!mcp_utf8_valid(token.data ? token.data : "", token.len)) {
        mcp_buf_free(&token);
        return 0;
    }

    answers an = {.count = 0};
    mcp_buf_init(&an.text);
    play(token.data ? token.data : "", token.len, which, &an);
    mcp_arena a;
    mcp_arena_init(&a);
    size_t state_len = 0;
    const char *state = check_answer(&an, &a, &state_len);
    if (state) {
        /* The state the server gave opens again, on the same request. */
        answers again = {.count = 0};
        mcp_buf_init(&again.text);
        play(state, state_len, 0, &again);
        FUZZ_CHECK(again.count == 1);
        FUZZ_CHECK(!memmem(again.text.data, again.text.len, "\"error\"", 7));
        mcp_buf_free(&again.text);
    }
    mcp_arena_free(&a);
    mcp_buf_free(&an.text);
    mcp_buf_free(&token);
    return 0;
}
