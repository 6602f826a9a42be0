/* main.c: mcp_main, the command line of every generated server. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/http.h"
#include "internal/session.h"

/* Defined by libmcpidl-http when the server links it (--http); NULL otherwise,
 * so that the core library does not depend on libmicrohttpd. */
extern int mcp_http_serve(const mcp_server *server, const mcp_settings *settings,
                          const mcp_http_options *opt) __attribute__((weak));

#define MAX_ALLOW_HOSTS 64

static const char *prog_name(char **argv)
{
    const char *p = argv && argv[0] && argv[0][0] ? argv[0] : "server";
    const char *slash = strrchr(p, '/');
    return slash && slash[1] ? slash + 1 : p;
}

static void usage(FILE *f, const char *prog, const mcp_server *srv, const mcp_settings *def)
{
    fprintf(f,
            "usage: %s [options]\n"
            "\n"
            "%s %s, an MCP server built with mcpidl %s. It speaks MCP over standard\n"
            "input and output (JSON-RPC messages, one per line) until the input ends;\n"
            "logs go to standard error.\n"
            "\n"
            "options:\n"
            "  --workers N            threads running tool handlers (default: one per\n"
            "                         CPU, here %d); 0 runs them on the reading thread\n"
            "  --max-message-bytes N  the longest message accepted (default %zu)\n"
            "  --max-depth N          JSON nesting limit of a message (default %d)\n"
            "  --max-string-bytes N   the longest JSON string in a message, in bytes after\n"
            "                         unescaping (default: --max-message-bytes)\n"
            "  --max-array-items N    the most elements in one JSON array (default %zu)\n"
            "  --max-values N         the most JSON values in one message (default %zu)\n"
            "  --max-concurrent N     requests in flight at once (default %d)\n"
            "  --page-size N          entries per page of tools/list, resources/list,\n"
            "                         resources/templates/list, prompts/list (default %zu)\n"
            "  --client-timeout MS    how long a handler waits for the client's answer to\n"
            "                         sampling or elicitation (default %d)\n"
            "  --max-pending N        requests to the client waiting at once (default %d)\n"
            "  --max-subscriptions N  resources a session may subscribe to (default %d)\n"
            "  --max-waiting N        handlers waiting for a client's answer at once, in\n"
            "                         all sessions (default %d)\n"
            "  --log-level LEVEL      quiet, error, warn, info or debug (default warn)\n"
            "  --http HOST:PORT       serve Streamable HTTP at http://HOST:PORT/mcp instead\n"
            "                         of stdio (needs the server linked with mcpidl-http)\n"
            "  --allow-host NAME      with --http, accept this Host name too (besides\n"
            "                         localhost, 127.0.0.1 and [::1]); repeatable\n"
            "  --max-sessions N       with --http, sessions at once (default %d)\n"
            "  --session-idle SECONDS with --http, end a session unused this long\n"
            "                         (default %d)\n"
            "  --replay-bytes N       with --http, bytes of events each stream keeps for\n"
            "                         Last-Event-ID (default %zu)\n"
            "  --http-timeout SECONDS with --http, close a connection that makes no\n"
            "                         progress this long (default %d)\n"
            "  --max-inflight-bytes N with --http, bytes of request bodies held at once,\n"
            "                         all connections together (default %zu)\n"
            "  --version              print the version and exit\n"
            "  --help                 print this help and exit\n",
            prog, srv->name ? srv->name : "?", srv->version ? srv->version : "?",
            MCPIDL_VERSION, def->workers, def->max_message, def->max_depth, def->max_array, def->max_values,
            def->max_concurrent, def->page_size, def->client_timeout_ms, def->max_pending,
            def->max_subscriptions, def->max_waiting,
            MCP_HTTP_DEFAULT_MAX_SESSIONS, MCP_HTTP_DEFAULT_IDLE_SECONDS,
            MCP_HTTP_DEFAULT_REPLAY_BYTES, MCP_HTTP_DEFAULT_TIMEOUT_SECONDS,
            MCP_HTTP_DEFAULT_MAX_INFLIGHT);
}

/* Command-line mistakes are reported whatever the log level. */
static void cli_error(const char *fmt, ...) MCP_PRINTF(1, 2);
static void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mcpidl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A decimal number in [lo, hi], the whole text. */
static bool parse_num(const char *t, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!t || !*t)
        return false;
    uint64_t v = 0;
    for (const char *p = t; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

typedef enum { OPT_WORKERS, OPT_MAX_MESSAGE, OPT_MAX_DEPTH, OPT_MAX_STRING, OPT_MAX_ARRAY, OPT_MAX_VALUES,
               OPT_MAX_CONCURRENT, OPT_PAGE_SIZE, OPT_CLIENT_TIMEOUT, OPT_MAX_PENDING, OPT_MAX_SUBSCRIPTIONS, OPT_MAX_WAITING,
               OPT_LOG_LEVEL,
               OPT_HTTP, OPT_ALLOW_HOST, OPT_MAX_SESSIONS, OPT_SESSION_IDLE, OPT_REPLAY_BYTES,
               OPT_HTTP_TIMEOUT, OPT_MAX_INFLIGHT, OPT_HELP, OPT_VERSION } opt_id;

static const struct {
    const char *name;
    opt_id id;
    bool has_value;
} OPTIONS[] = {
    {"--workers", OPT_WORKERS, true},
    {"--max-message-bytes", OPT_MAX_MESSAGE, true},
    {"--max-depth", OPT_MAX_DEPTH, true},
    {"--max-string-bytes", OPT_MAX_STRING, true},
    {"--max-array-items", OPT_MAX_ARRAY, true},
    {"--max-values", OPT_MAX_VALUES, true},
    {"--max-concurrent", OPT_MAX_CONCURRENT, true},
    {"--page-size", OPT_PAGE_SIZE, true},
    {"--client-timeout", OPT_CLIENT_TIMEOUT, true},
    {"--max-pending", OPT_MAX_PENDING, true},
    {"--max-subscriptions", OPT_MAX_SUBSCRIPTIONS, true},
    {"--max-waiting", OPT_MAX_WAITING, true},
    {"--log-level", OPT_LOG_LEVEL, true},
    {"--http", OPT_HTTP, true},
    {"--allow-host", OPT_ALLOW_HOST, true},
    {"--max-sessions", OPT_MAX_SESSIONS, true},
    {"--session-idle", OPT_SESSION_IDLE, true},
    {"--replay-bytes", OPT_REPLAY_BYTES, true},
    {"--http-timeout", OPT_HTTP_TIMEOUT, true},
    {"--max-inflight-bytes", OPT_MAX_INFLIGHT, true},
    {"--help", OPT_HELP, false},
    {"-h", OPT_HELP, false},
    {"--version", OPT_VERSION, false},
};

/* Keep the protocol's input and output to ourselves: handlers that print to
 * standard output (or read standard input) would corrupt the stream. While
 * serving, standard output is a copy of standard error and standard input is
 * /dev/null; the session gets private copies of the real ones. Returns false
 * (and changes nothing) when the descriptors cannot be set up. */
typedef struct saved_stdio {
    int in, out; /* the protocol's descriptors (private copies) */
} saved_stdio;

static bool take_stdio(saved_stdio *sv)
{
    sv->in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    sv->out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    int null = open("/dev/null", O_RDONLY);
    fflush(stdout);
    if (sv->in >= 0 && sv->out >= 0 && null >= 0 && dup2(null, STDIN_FILENO) >= 0) {
        if (dup2(STDERR_FILENO, STDOUT_FILENO) >= 0) {
            if (null != STDIN_FILENO)
                close(null);
            return true;
        }
        dup2(sv->in, STDIN_FILENO);
    }
    if (null >= 0 && null != STDIN_FILENO)
        close(null);
    if (sv->in >= 0)
        close(sv->in);
    if (sv->out >= 0)
        close(sv->out);
    sv->in = STDIN_FILENO;
    sv->out = STDOUT_FILENO;
    return false;
}

/* Put standard input and output back as they were. */
static void give_back_stdio(saved_stdio *sv)
{
    if (sv->in == STDIN_FILENO)
        return;
    fflush(stdout);
    dup2(sv->in, STDIN_FILENO);
    dup2(sv->out, STDOUT_FILENO);
    close(sv->in);
    close(sv->out);
}

int mcp_main(const mcp_server *server, int argc, char **argv)
{
    if (!server) {
        mcp_log(MCP_LOG_ERROR, "mcp_main: no server table");
        return 1;
    }
    if (server->abi != MCPIDL_ABI) {
        mcp_log(MCP_LOG_ERROR,
                "%s was generated for libmcpidl ABI %d, but this libmcpidl %s has ABI %d: "
                "run mcpidlc again",
                server->name ? server->name : "the server", server->abi, MCPIDL_VERSION,
                MCPIDL_ABI);
        return 1;
    }
    const char *prog = prog_name(argv);
    mcp_settings set, def;
    mcp_settings_default(&def);
    set = def;
    const char *http = NULL;
    const char *allow[MAX_ALLOW_HOSTS];
    size_t nallow = 0;
    mcp_http_options hopt = {0};
    const char *http_only = NULL; /* the last option that needs --http */

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            if (i + 1 < argc) {
                cli_error("unexpected argument '%s'", argv[i + 1]);
                usage(stderr, prog, server, &def);
                return 2;
            }
            break;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq && strncmp(arg, "--", 2) == 0 ? (size_t)(eq - arg) : strlen(arg);
        int o = -1;
        for (size_t k = 0; k < sizeof OPTIONS / sizeof *OPTIONS; k++)
            if (strlen(OPTIONS[k].name) == name_len && strncmp(arg, OPTIONS[k].name, name_len) == 0)
                o = (int)k;
        if (o < 0) {
            if (arg[0] == '-')
                cli_error("unknown option '%s'", arg);
            else
                cli_error("unexpected argument '%s'", arg);
            usage(stderr, prog, server, &def);
            return 2;
        }
        const char *value = NULL;
        if (OPTIONS[o].has_value) {
            if (arg[name_len] == '=')
                value = arg + name_len + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else {
                cli_error("%s needs a value", OPTIONS[o].name);
                usage(stderr, prog, server, &def);
                return 2;
            }
        } else if (arg[name_len] == '=') {
            cli_error("%s takes no value", OPTIONS[o].name);
            usage(stderr, prog, server, &def);
            return 2;
        }
        uint64_t v = 0;
        switch (OPTIONS[o].id) {
        case OPT_HELP:
            usage(stdout, prog, server, &def);
            return 0;
        case OPT_VERSION:
            printf("%s %s (mcpidl %s)\n", server->name ? server->name : "?",
                   server->version ? server->version : "?", MCPIDL_VERSION);
            return 0;
        case OPT_WORKERS:
            if (!parse_num(value, 0, MCP_MAX_WORKERS, &v))
                goto bad_number;
            set.workers = (int)v;
            break;
        case OPT_MAX_MESSAGE:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            set.max_message = (size_t)v;
            break;
        case OPT_MAX_DEPTH:
            if (!parse_num(value, 1, MCP_JSON_DEPTH_CAP, &v))
                goto bad_number;
            set.max_depth = (int)v;
            break;
        case OPT_MAX_STRING:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            set.max_string = (size_t)v;
            break;
        case OPT_MAX_ARRAY:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            set.max_array = (size_t)v;
            break;
        case OPT_MAX_VALUES:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            set.max_values = (size_t)v;
            break;
        case OPT_MAX_CONCURRENT:
            if (!parse_num(value, 1, 1 << 20, &v))
                goto bad_number;
            set.max_concurrent = (int)v;
            break;
        case OPT_PAGE_SIZE:
            if (!parse_num(value, 1, 1 << 20, &v))
                goto bad_number;
            set.page_size = (size_t)v;
            break;
        case OPT_CLIENT_TIMEOUT:
            if (!parse_num(value, 1, 24 * 3600 * 1000, &v))
                goto bad_number;
            set.client_timeout_ms = (int)v;
            break;
        case OPT_MAX_PENDING:
            if (!parse_num(value, 1, 1 << 16, &v))
                goto bad_number;
            set.max_pending = (int)v;
            break;
        case OPT_MAX_SUBSCRIPTIONS:
            if (!parse_num(value, 1, 1 << 20, &v))
                goto bad_number;
            set.max_subscriptions = (int)v;
            break;
        case OPT_MAX_WAITING:
            if (!parse_num(value, 1, 1 << 16, &v))
                goto bad_number;
            set.max_waiting = (int)v;
            break;
        case OPT_HTTP:
            http = value;
            break;
        case OPT_ALLOW_HOST:
            if (nallow == MAX_ALLOW_HOSTS) {
                cli_error("--allow-host: at most %d names", MAX_ALLOW_HOSTS);
                return 2;
            }
            allow[nallow++] = value;
            http_only = OPTIONS[o].name;
            break;
        case OPT_MAX_SESSIONS:
            if (!parse_num(value, 1, 1 << 20, &v))
                goto bad_number;
            hopt.max_sessions = (int)v;
            http_only = OPTIONS[o].name;
            break;
        case OPT_SESSION_IDLE:
            if (!parse_num(value, 1, 7 * 24 * 3600, &v))
                goto bad_number;
            hopt.idle_seconds = (int)v;
            http_only = OPTIONS[o].name;
            break;
        case OPT_REPLAY_BYTES:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            hopt.replay_bytes = (size_t)v;
            http_only = OPTIONS[o].name;
            break;
        case OPT_HTTP_TIMEOUT:
            if (!parse_num(value, 1, 24 * 3600, &v))
                goto bad_number;
            hopt.timeout_seconds = (int)v;
            http_only = OPTIONS[o].name;
            break;
        case OPT_MAX_INFLIGHT:
            if (!parse_num(value, 1, SIZE_MAX / 4, &v))
                goto bad_number;
            hopt.max_inflight = (size_t)v;
            http_only = OPTIONS[o].name;
            break;
        case OPT_LOG_LEVEL: {
            mcp_log_level level;
            if (!mcp_log_parse_level(value, &level)) {
                cli_error("--log-level: '%s' is not quiet, error, warn, info or debug",
                        value);
                usage(stderr, prog, server, &def);
                return 2;
            }
            mcp_log_set_level(level);
            break;
        }
        }
        continue;
    bad_number:
        cli_error("%s: '%s' is not a number in range", OPTIONS[o].name, value);
        usage(stderr, prog, server, &def);
        return 2;
    }

    if (http_only && !http) {
        cli_error("%s needs --http", http_only);
        return 2;
    }
    if (http && !mcp_http_serve) {
        cli_error("this server was built without HTTP support (link mcpidl-http)");
        return 2;
    }
    if (!mcp_stdio_install_signals())
        mcp_log(MCP_LOG_WARN, "cannot install signal handlers: %s", strerror(errno));
    if (http) {
        mcp_log(MCP_LOG_INFO, "%s %s: %zu tool(s), %d worker(s), over HTTP",
                server->name ? server->name : "?", server->version ? server->version : "?",
                server->ntools, set.workers);
        hopt.host_port = http;
        hopt.allow_hosts = allow;
        hopt.nallow = nallow;
        return mcp_http_serve(server, &set, &hopt);
    }
    saved_stdio sv;
    if (!take_stdio(&sv))
        mcp_log(MCP_LOG_WARN, "cannot set standard output aside: handlers must not print to it");
    mcp_log(MCP_LOG_INFO, "%s %s: %zu tool(s), %d worker(s), over stdio",
            server->name ? server->name : "?", server->version ? server->version : "?",
            server->ntools, set.workers);
    int rc = mcp_stdio_serve(server, &set, sv.in, sv.out);
    give_back_stdio(&sv);
    return rc;
}
