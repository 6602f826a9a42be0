/* test_limits.c: every limit of a message, through mcp_main's options over
 * stdio: the option reaches the session, one message beyond the limit gets
 * the exact JSON-RPC error, a message at the limit is served, and so is the
 * request right after the refused one.
 *
 * The server has one tool, "echo", whose handler reports the shape of its
 * arguments (taken as `any`).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal/methods.h"
#include "test_runtime.h"
#include "check_run.h"

/* ---------------------------------------------------------------- stub codec */

/* The text block says how many members the arguments have and the length of
 * the first one's value (a string's bytes, an array's elements): a handler of
 * `returns: content` whose arguments are `any`, run by mcp_main through the
 * codec. */
static mcp_status echo(mcp_call *call, const void *args, void *out)
{
    (void)out;
    const mcp_json *arguments = *(const mcp_json *const *)args;
    size_t n = arguments ? arguments->n : 0, len = 0;
    if (n > 0)
        len = arguments->members[0].value->kind == MCP_JSTRING ? arguments->members[0].value->len
                                                               : arguments->members[0].value->n;
    return mcp_content_text(call, mcp_sprintf(call, "args=%zu len=%zu", n, len));
}

static const mcp_type ANY_ARGS = {
    .kind = MCP_T_ANY, .size = sizeof(void *), .align = sizeof(void *), .tag = "echoArguments"};

static const mcp_tool TOOLS[] = {
    {.name = "echo", .list_entry = "{\"name\":\"echo\"}", .args = &ANY_ARGS, .handler = echo},
};

static const mcp_server SERVER = {
    .abi = MCPIDL_ABI,
    .name = "limits",
    .version = "1",
    .tools = TOOLS,
    .ntools = 1,
};

/* ---------------------------------------------------------------- running mcp_main */

typedef struct run {
    int status; /* exit status, or -1 when killed */
    char *out;  /* standard output */
    char *err;  /* standard error */
} run;

static char *slurp(FILE *f)
{
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(b);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = 0;
    return b;
}

/* mcp_main(argv) in a child, input on its standard input (read to the end). */
static run run_main(const char *const *args, const char *input)
{
    FILE *in = tmpfile(), *out = tmpfile(), *err = tmpfile();
    ck_assert(in && out && err);
    fputs(input, in);
    fflush(in);
    rewind(in);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fileno(in), STDIN_FILENO);
        dup2(fileno(out), STDOUT_FILENO);
        dup2(fileno(err), STDERR_FILENO);
        char *argv[32];
        int argc = 0;
        argv[argc++] = "limits-server";
        for (; args[argc - 1] && argc < 31; argc++)
            argv[argc] = (char *)args[argc - 1];
        argv[argc] = NULL;
        int rc = mcp_main(&SERVER, argc, argv);
        fflush(stdout); /* --help and --version print with stdio */
        _exit(rc);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    run r = {.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, .out = slurp(out), .err = slurp(err)};
    fclose(in);
    fclose(out);
    fclose(err);
    return r;
}

static void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

/* Line i (from 0) of text, into a static buffer; "" when there are fewer. */
static const char *line(const char *text, int i)
{
    static char b[1024];
    const char *p = text;
    for (; i > 0 && p; i--) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return "";
    size_t n = strcspn(p, "\n");
    if (n >= sizeof b)
        n = sizeof b - 1;
    memcpy(b, p, n);
    b[n] = 0;
    return b;
}

#define INIT \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":" \
    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n" \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
#define CALL(id, args) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"," \
    "\"arguments\":" args "}}\n"
#define RESULT(id, text) \
    "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" text \
    "\"}],\"isError\":false}}"
#define INVALID(msg) "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"" msg "\"}}"

/* Lines of output, in order (--workers 0: answers in the order received). */
static void expect_lines(const run *r, const char *const *want, int n)
{
    ck_assert_msg(r->status == 0, "exit %d: %s", r->status, r->err);
    for (int i = 0; i < n; i++)
        ck_assert_msg(strcmp(line(r->out, i), want[i]) == 0, "line %d: got %s\nwant %s", i, line(r->out, i), want[i]);
    ck_assert_str_eq(line(r->out, n), "");
}

/* ---------------------------------------------------------------- tests */

START_TEST(string_limit)
{
    /* 32 bytes pass, 33 do not; escapes count as the bytes they decode to
     * (\u00e9 is 2), and keys are strings too. */
    const char *args[] = {"--workers", "0", "--max-string-bytes", "32", NULL};
    run r = run_main(args,
                     INIT CALL(1, "{\"s\":\"0123456789abcdef0123456789abcdef\"}")
                         CALL(2, "{\"s\":\"0123456789abcdef0123456789abcdefX\"}")
                             CALL(3, "{\"s\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                                     "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"}")
                                 CALL(4, "{\"s\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                                         "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9!\"}")
                                     CALL(5, "{\"0123456789abcdef0123456789abcdefX\":1}") CALL(6, "{\"s\":\"ok\"}"));
    const char *want[] = {
        line(r.out, 0), /* initialize */
        RESULT(1, "args=1 len=32"),
        INVALID("Invalid Request: string longer than 32 bytes at byte 87"),
        RESULT(3, "args=1 len=32"),
        INVALID("Invalid Request: string longer than 32 bytes at byte 87"),
        INVALID("Invalid Request: string longer than 32 bytes at byte 83"),
        RESULT(6, "args=1 len=2"),
    };
    ck_assert_ptr_nonnull(strstr(want[0], "\"id\":0,\"result\""));
    expect_lines(&r, want, 7);
    run_free(&r);
}
END_TEST

START_TEST(array_limit)
{
    const char *args[] = {"--workers=0", "--max-array-items=3", NULL};
    run r = run_main(args, INIT CALL(1, "{\"a\":[1,2,3]}") CALL(2, "{\"a\":[1,2,3,4]}")
                               CALL(3, "{\"a\":[[1,2,3],[4,5,6],[7,8,9]]}")
                                   CALL(4, "{\"a\":[[1,2,3],[4,5,6],[7,8,9],[]]}") CALL(5, "{\"a\":[]}"));
    const char *want[] = {
        line(r.out, 0),
        RESULT(1, "args=1 len=3"),
        INVALID("Invalid Request: array longer than 3 items at byte 94"),
        RESULT(3, "args=1 len=3"),
        INVALID("Invalid Request: array longer than 3 items at byte 112"),
        RESULT(5, "args=1 len=0"),
    };
    expect_lines(&r, want, 6);
    run_free(&r);
}
END_TEST

START_TEST(value_limit)
{
    /* The envelope of a call with {"a":[...]} holds 7 values (the message,
     * jsonrpc, id, method, params, name, arguments) before the array. */
    const char *args[] = {"--workers=0", "--max-values=12", NULL};
    run r = run_main(args, INIT CALL(1, "{\"a\":[1,2,3]}") CALL(2, "{\"a\":[[1],[2],[3]]}") CALL(3, "{\"a\":[]}"));
    const char *want[] = {
        line(r.out, 0),
        RESULT(1, "args=1 len=3"),
        INVALID("Invalid Request: more than 12 values in one message at byte 96"),
        RESULT(3, "args=1 len=0"),
    };
    expect_lines(&r, want, 4);
    run_free(&r);
}
END_TEST

START_TEST(array_limit_default)
{
    /* The default, 100,000 elements: at it and one beyond. */
    size_t n = 100000;
    size_t cap = 2 * (n + 1) + 1024;
    char *in = malloc(2 * cap);
    strcpy(in, INIT);
    for (int k = 0; k < 2; k++) {
        strcat(in, "{\"jsonrpc\":\"2.0\",\"id\":");
        strcat(in, k == 0 ? "1" : "2");
        strcat(in, ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":[");
        size_t at = strlen(in);
        size_t items = n + (size_t)k;
        for (size_t i = 0; i < items; i++) {
            in[at++] = '0';
            in[at++] = i + 1 < items ? ',' : ']';
        }
        in[at] = 0;
        strcat(in, "}}}\n");
    }
    strcat(in, CALL(3, "{}"));
    const char *args[] = {"--workers", "0", NULL};
    run r = run_main(args, in);
    const char *want[] = {
        line(r.out, 0),
        RESULT(1, "args=1 len=100000"),
        INVALID("Invalid Request: array longer than 100000 items at byte 200088"),
        RESULT(3, "args=0 len=0"),
    };
    expect_lines(&r, want, 4);
    run_free(&r);
    free(in);
}
END_TEST

START_TEST(depth_and_message_limits)
{
    /* The message itself is 3 deep at the arguments' value. Message size:
     * a line of exactly 200 bytes (spaces after the value are JSON
     * whitespace) passes, 201 do not. */
    char at_limit[256], over[256];
    const char *call = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"echo\",\"arguments\":{}}}";
    snprintf(at_limit, sizeof at_limit, "%-200s\n", call);
    snprintf(over, sizeof over, "%-201s\n", call);
    over[19] = '5'; /* id 5 */
    char in[2048];
    snprintf(in, sizeof in, "%s%s%s%s%s", INIT, CALL(1, "{\"a\":[[1]]}") CALL(2, "{\"a\":[[[1]]]}"), at_limit, over,
             CALL(6, "{\"a\":[1]}"));
    const char *args[] = {"--workers", "0", "--max-depth", "5", "--max-message-bytes", "200", NULL};
    run r = run_main(args, in);
    const char *want[] = {
        line(r.out, 0),
        RESULT(1, "args=1 len=1"),
        INVALID("Invalid Request: nesting deeper than 5 levels"),
        RESULT(4, "args=0 len=0"),
        INVALID("Invalid Request: message too large (limit 200 bytes)"),
        RESULT(6, "args=1 len=1"),
    };
    expect_lines(&r, want, 6);
    run_free(&r);
}
END_TEST

START_TEST(bad_values)
{
    const char *cases[][3] = {
        {"--max-string-bytes", "0", "--max-string-bytes: '0' is not a number in range"},
        {"--max-array-items", "x", "--max-array-items: 'x' is not a number in range"},
        {"--max-array-items", "-1", "--max-array-items: '-1' is not a number in range"},
        {"--max-sessions", "10", "--max-sessions needs --http"},
        {"--session-idle", "60", "--session-idle needs --http"},
        {"--replay-bytes", "4096", "--replay-bytes needs --http"},
        {"--http-timeout", "5", "--http-timeout needs --http"},
        {"--http-timeout", "0", "--http-timeout: '0' is not a number in range"},
        {"--http-header-bytes", "16384", "--http-header-bytes needs --http"},
        {"--http-header-bytes", "4095", "--http-header-bytes: '4095' is not a number in range"},
        {"--max-sessions", "0", "--max-sessions: '0' is not a number in range"},
        {"--http", "8000", "--http: '8000' is not HOST:PORT"},
        {"--http", "localhost:http", "--http: 'localhost:http' is not HOST:PORT"},
        {"--http", "127.0.0.1:65536", "--http: '127.0.0.1:65536' is not HOST:PORT"},
        {"--http", "127.0.0.1:", "--http: '127.0.0.1:' is not HOST:PORT"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *args[] = {cases[i][0], cases[i][1], NULL};
        run r = run_main(args, "");
        ck_assert_int_eq(r.status, 2);
        ck_assert_msg(strstr(r.err, cases[i][2]) != NULL, "%s %s: %s", cases[i][0], cases[i][1], r.err);
        ck_assert_str_eq(r.out, "");
        ck_assert_msg(strstr(r.err, "usage: ") != NULL, "%s %s: no usage: %s", cases[i][0], cases[i][1], r.err);
        run_free(&r);
    }
    /* --help names every limit with its default. */
    const char *help[] = {"--help", NULL};
    run r = run_main(help, "");
    ck_assert_int_eq(r.status, 0);
    const char *shown[] = {
        "--max-message-bytes N  the longest message accepted (default 8388608)",
        "--max-depth N          JSON nesting limit of a message (default 128)",
        "unescaping (default: --max-message-bytes)",
        "--max-array-items N    the most elements in one JSON array (default 100000)",
        "--max-values N         the most JSON values in one message (default 250000)",
        "--max-concurrent N     a session's requests running at once (default 64);",
        "--max-queued N         a session's requests waiting beyond that (default 1024);",
        "(default 67108864)",
        "--max-pending N        requests to the client waiting at once (default 64)",
        "--max-sessions N       with --http, sessions at once (default 1024)",
        "(default 1800)",
        "Last-Event-ID (default 1048576)",
        "progress this long (default 30)",
    };
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
        ck_assert_msg(strstr(r.out, shown[i]) != NULL, "--help lacks %s", shown[i]);
    run_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, string_limit);
    tcase_add_test(tc, array_limit);
    tcase_add_test(tc, value_limit);
    tcase_add_test(tc, array_limit_default);
    tcase_add_test(tc, depth_and_message_limits);
    tcase_add_test(tc, bad_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed = check_run(suite(), true);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
