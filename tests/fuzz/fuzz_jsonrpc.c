/* fuzz_jsonrpc: raw bytes as the standard input of a whole server.
 *
 * The input is the byte stream mcp_runtime_serve_stdio() reads (lib/transport/stdio.c cuts the
 * lines, lib/rpc/session.c judges each message), served by the weather example
 * with the handlers of weather_handlers.c; handlers run on the reading thread
 * (workers 0), so a run is deterministic. Input and output are memory files.
 *
 * Properties: the server returns 0; every line it writes is one strict JSON
 * object with "jsonrpc": "2.0" that is a response (exactly one of result,
 * with an id, and error) or a message to the client (a method).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "mcpidl/json.h"
#include "mcpidl/runtime.h"

extern const mcp_server weather_server;

enum { MAX_MESSAGE = 4096 }; /* small, so that the fuzzer reaches "too large" */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static int memory_file(const char *name, const uint8_t *data, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        FUZZ_CHECK(w > 0);
        done += (size_t)w;
    }
    FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0);
    return fd;
}

/* FUZZ_CHECK, with the offending message shown first. */
#define CHECK_MESSAGE(cond) \
    do { \
        if (!(cond)) \
            fprintf(stderr, "bad output message: %.*s\n", (int)(len < 2000 ? len : 2000), line); \
        FUZZ_CHECK(cond); \
    } while (0)

static void check_message(const char *line, size_t len)
{
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_json_err err;
    size_t off;
    mcp_json *m = mcp_json_parse(&a, line, len, NULL, &err, &off);
    if (!m)
        fprintf(stderr, "output is not JSON (%s at %zu)\n", mcp_json_error_str(err), off);
    CHECK_MESSAGE(m != NULL);
    CHECK_MESSAGE(m->kind == MCP_JOBJECT);
    const mcp_json *v = mcp_json_get(m, "jsonrpc");
    CHECK_MESSAGE(v && v->kind == MCP_JSTRING && strcmp(v->s, "2.0") == 0);
    const mcp_json *result = mcp_json_get(m, "result"), *error = mcp_json_get(m, "error");
    const mcp_json *method = mcp_json_get(m, "method");
    if (method) {
        CHECK_MESSAGE(method->kind == MCP_JSTRING && !result && !error);
    } else {
        /* MCP 2025-11-25: an error response may have no id (a parse error); a result has one. */
        CHECK_MESSAGE((result != NULL) != (error != NULL));
        CHECK_MESSAGE(!result || mcp_json_get(m, "id") != NULL);
        if (error) {
            const mcp_json *code = mcp_json_get(error, "code"), *msg = mcp_json_get(error, "message");
            CHECK_MESSAGE(code && code->kind == MCP_JINT);
            CHECK_MESSAGE(msg && msg->kind == MCP_JSTRING);
        }
    }
    mcp_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int in = memory_file("fuzz-in", data, size);
    int out = memory_file("fuzz-out", NULL, 0);
    mcp_options set;
    mcp_options_default(&set);
    set.workers = 0;
    set.max_message = MAX_MESSAGE;
    set.page_size = 3; /* tools/list pages: the weather server has 7 tools */
    set.log_level = MCP_LOG_QUIET;
    mcp_runtime *rt = mcp_runtime_new(&weather_server, &set);
    FUZZ_CHECK(rt != NULL);
    FUZZ_CHECK(mcp_runtime_serve_stdio(rt, in, out) == 0);
    mcp_runtime_free(rt);
    close(in);

    off_t len = lseek(out, 0, SEEK_END);
    FUZZ_CHECK(len >= 0);
    char *text = malloc((size_t)len + 1);
    FUZZ_CHECK(text != NULL);
    FUZZ_CHECK(pread(out, text, (size_t)len, 0) == (ssize_t)len);
    close(out);
    FUZZ_CHECK(len == 0 || text[len - 1] == '\n');
    for (char *p = text, *end = text + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        check_message(p, (size_t)(nl - p));
        p = nl + 1;
    }
    free(text);
    return 0;
}
