/* main.c: mcp_main, the command line of every generated server: argv to
 * options, signals to mcp_runtime_stop, and a runtime served over stdio or
 * the transport the options ask for. Nothing else: everything it does is
 * the runtime API's (mcpidl/runtime.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcpidl/generated.h"
#include "mcpidl/mcpidl.h"

static const char *prog_name(char **argv)
{
    const char *p = argv && argv[0] && argv[0][0] ? argv[0] : "server";
    const char *slash = strrchr(p, '/');
    return slash && slash[1] ? slash + 1 : p;
}

/* --http's value has the form HOST:PORT (the transport resolves HOST). */
static bool host_port_ok(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon || !colon[1] || strlen(colon + 1) > 5)
        return false;
    unsigned long port = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        port = port * 10 + (unsigned long)(*p - '0');
    }
    return port <= 65535;
}

static void usage(FILE *f, const char *prog, const mcp_server *srv, const mcp_options *def)
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
            "  --inline-tool NAME     run this tool's handler on the reading thread, not\n"
            "                         on a worker: for handlers that take microseconds and\n"
            "                         never wait (they cannot ask the client); repeatable\n"
            "  --no-inline-tool NAME  hand this tool's calls to the workers although its\n"
            "                         IDL marks it `inline: true`; repeatable\n"
            "  --max-message-bytes N  the longest message accepted (default %zu)\n"
            "  --max-depth N          JSON nesting limit of a message (default %d)\n"
            "  --max-string-bytes N   the longest JSON string in a message, in bytes after\n"
            "                         unescaping (default: --max-message-bytes)\n"
            "  --max-array-items N    the most elements in one JSON array (default %zu)\n"
            "  --max-values N         the most JSON values in one message (default %zu)\n"
            "  --max-concurrent N     a session's requests running at once (default %d);\n"
            "                         more wait in its queue\n"
            "  --max-queued N         a session's requests waiting beyond that (default %d);\n"
            "                         past it, stdio stops reading and HTTP answers 503\n"
            "  --max-queued-bytes N   the parsed messages of all waiting requests, in bytes\n"
            "                         (default %zu)\n"
            "  --page-size N          entries per page of tools/list, resources/list,\n"
            "                         resources/templates/list, prompts/list (default %zu)\n"
            "  --client-timeout MS    how long a handler waits for the client's answer to\n"
            "                         sampling or elicitation (default %d)\n"
            "  --max-pending N        requests to the client waiting at once (default %d)\n"
            "  --max-subscriptions N  resources a session may subscribe to (default %d)\n"
            "  --max-waiting N        handlers waiting for a client's answer at once, in\n"
            "                         all sessions (default %d)\n"
            "  --log-level LEVEL      quiet, error, warn, info or debug (default warn)\n"
            "  --state-key-file FILE  the key (at least 32 bytes) that seals the requestState\n"
            "                         of 2026-07-28 multi round-trip requests; replicas\n"
            "                         behind one proxy share it (default: a random key)\n"
            "  --state-ttl SECONDS    how long a requestState stays valid (default %d)\n"
            "  --max-tasks N          tasks (2026-07-28 tasks extension) held at once\n"
            "                         (default %d)\n"
            "  --task-ttl SECONDS     how long a task and its result are kept (default %d)\n"
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
            "  --http-header-bytes N  with --http, each connection's buffer for a request's\n"
            "                         line and headers, which bounds their size\n"
            "                         (default %zu)\n"
            "  --node-id NAME         with --http, start 2025-11-25 session ids with NAME-,\n"
            "                         so that a proxy routes a session to this replica\n"
            "  --tls-cert FILE        with --http, serve HTTPS with this PEM certificate\n"
            "                         chain (TLS 1.2 and 1.3; SIGHUP loads it again)\n"
            "  --tls-key FILE         the PEM private key of --tls-cert\n"
            "  --auth-issuer URL      with --http, take OAuth bearer tokens from this\n"
            "                         authorization server (docs/auth.md)\n"
            "  --auth-resource URL    this server's canonical URI: the audience tokens must\n"
            "                         name (e.g. https://mcp.example.com/mcp)\n"
            "  --auth-jwks FILE|URL   the keys that sign JWT access tokens (a JWKS document)\n"
            "  --auth-introspect URL  check opaque tokens by RFC 7662 introspection, with\n"
            "  --auth-client-id ID    this server's client id and\n"
            "  --auth-client-secret-file FILE  its secret\n"
            "  --auth-required-scope SCOPE  a scope every request needs; repeatable\n"
            "  --auth-leeway SECONDS  clock skew allowed for exp, nbf, iat (default %d)\n"
            "  --auth-jwks-refresh SECONDS  the least time between two fetches of the keys,\n"
            "                         done when a token names an unknown key (default %d)\n"
            "  --auth-algorithms LIST signature algorithms taken (default\n"
            "                         RS256,PS256,ES256,EdDSA)\n"
            "  --no-auth              with --http, serve a non-loopback address without\n"
            "                         authorization (anyone who reaches it may call tools)\n"
            "  --version              print the version and exit\n"
            "  --help                 print this help and exit\n",
            prog, srv->name ? srv->name : "?", srv->version ? srv->version : "?", MCPIDL_VERSION, def->workers,
            def->max_message, def->max_depth, def->max_array, def->max_values, def->max_concurrent, def->max_queued,
            def->max_queued_bytes, def->page_size, def->client_timeout_ms, def->max_pending, def->max_subscriptions,
            def->max_waiting, def->state_ttl, def->max_tasks, def->task_ttl, def->max_sessions, def->session_idle,
            def->replay_bytes, def->http_timeout, def->max_inflight, def->http_header_bytes, def->auth_leeway,
            def->auth_jwks_refresh);
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


/* The options that take a value, and those that need --http. */
static const char *const VALUED[] = {
    "--workers",
    "--inline-tool",
    "--no-inline-tool",
    "--max-message-bytes",
    "--max-depth",
    "--max-string-bytes",
    "--max-array-items",
    "--max-values",
    "--max-concurrent",
    "--max-queued",
    "--max-queued-bytes",
    "--page-size",
    "--client-timeout",
    "--max-pending",
    "--max-subscriptions",
    "--max-waiting",
    "--log-level",
    "--http",
    "--allow-host",
    "--max-sessions",
    "--session-idle",
    "--replay-bytes",
    "--http-timeout",
    "--max-inflight-bytes",
    "--http-header-bytes",
    "--state-key-file",
    "--state-ttl",
    "--node-id",
    "--max-tasks",
    "--task-ttl",
    "--tls-cert",
    "--tls-key",
    "--auth-issuer",
    "--auth-resource",
    "--auth-jwks",
    "--auth-introspect",
    "--auth-client-id",
    "--auth-client-secret-file",
    "--auth-required-scope",
    "--auth-leeway",
    "--auth-jwks-refresh",
    "--auth-algorithms",
};
static const char *const HTTP_ONLY[] = {
    "--allow-host",
    "--max-sessions",
    "--session-idle",
    "--replay-bytes",
    "--http-timeout",
    "--max-inflight-bytes",
    "--http-header-bytes",
    "--node-id",
    "--tls-cert",
    "--tls-key",
    "--auth-issuer",
    "--auth-resource",
    "--auth-jwks",
    "--auth-introspect",
    "--auth-client-id",
    "--auth-client-secret-file",
    "--auth-required-scope",
    "--auth-leeway",
    "--auth-jwks-refresh",
    "--auth-algorithms",
    "--no-auth",
};

static bool listed(const char *const *list, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && strncmp(name, list[i], len) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- signals
 * The runtime mcp_main serves, for its signal handler: the one piece of
 * process-wide state, and it belongs to the process's main. */

static mcp_runtime *signalled;

static void on_stop_signal(int sig)
{
    if (signalled)
        mcp_runtime_stop(signalled);
    /* A second signal kills as usual, should draining hang. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

static void on_reload_signal(int sig)
{
    (void)sig;
    if (signalled)
        mcp_runtime_reload(signalled);
}

/* SIGHUP loads the transport's files again (HTTP: TLS certificate, keys). */
static bool install_reload_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_reload_signal;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGHUP, &sa, NULL) == 0;
}

static bool install_signals(mcp_runtime *rt)
{
    signalled = rt;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPIPE, &sa, NULL) != 0)
        return false;
    sa.sa_handler = on_stop_signal;
    return sigaction(SIGINT, &sa, NULL) == 0 && sigaction(SIGTERM, &sa, NULL) == 0;
}

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

/* --inline-tool and --no-inline-tool, repeatable, in order: the tools
 * mcp_runtime_tool_inline marks or unmarks. */
#define MAX_INLINE_TOOLS 64
typedef struct inline_tools {
    const char *names[MAX_INLINE_TOOLS];
    bool on[MAX_INLINE_TOOLS];
    size_t n;
} inline_tools;

/* --inline-tool's value: a tool of the server that never runs as a task;
 * NULL, or why not. */
static const char *inline_tool_problem(const mcp_server *server, const char *name)
{
    for (size_t i = 0; i < server->ntools; i++)
        if (server->tools[i].name && strcmp(server->tools[i].name, name) == 0)
            return server->tools[i].task == MCP_TASK_NONE
                       ? NULL
                       : "the tool may run as a task (IDL task:), which a worker runs";
    return "the server has no tool of that name";
}

/* Parse argv into *o (and *inl): 0 to serve, else the exit status (after
 * --help, --version or a mistake). */
static int parse_args(const mcp_server *server, int argc, char **argv, mcp_options *o, inline_tools *inl)
{
    const char *prog = prog_name(argv);
    mcp_options def;
    mcp_options_default(&def);
    *o = def;
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
        bool flag = (name_len == 6 && strncmp(arg, "--help", 6) == 0) ||
                    (name_len == 2 && strncmp(arg, "-h", 2) == 0) ||
                    (name_len == 9 && strncmp(arg, "--version", 9) == 0);
        if (name_len == 9 && strncmp(arg, "--no-auth", 9) == 0) {
            if (arg[name_len] == '=') {
                cli_error("--no-auth takes no value");
                usage(stderr, prog, server, &def);
                return 2;
            }
            o->no_auth = true;
            http_only = "--no-auth";
            continue;
        }
        bool valued = listed(VALUED, sizeof VALUED / sizeof *VALUED, arg, name_len);
        if (!flag && !valued) {
            if (arg[0] == '-')
                cli_error("unknown option '%s'", arg);
            else
                cli_error("unexpected argument '%s'", arg);
            usage(stderr, prog, server, &def);
            return 2;
        }
        if (flag) {
            if (arg[name_len] == '=') {
                cli_error("%.*s takes no value", (int)name_len, arg);
                usage(stderr, prog, server, &def);
                return 2;
            }
            if (arg[2] == 'v') {
                printf("%s %s (mcpidl %s)\n", server->name ? server->name : "?",
                       server->version ? server->version : "?", MCPIDL_VERSION);
            } else {
                usage(stdout, prog, server, &def);
            }
            return -1;
        }
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)name_len, arg);
        const char *value = NULL;
        if (arg[name_len] == '=')
            value = arg + name_len + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else {
            cli_error("%s needs a value", name);
            usage(stderr, prog, server, &def);
            return 2;
        }
        if (strcmp(name, "--inline-tool") == 0 || strcmp(name, "--no-inline-tool") == 0) {
            bool on = name[2] == 'i';
            const char *problem = inline_tool_problem(server, value);
            if (!on && problem && strncmp(problem, "the tool may", 12) == 0)
                problem = NULL; /* a task tool runs on a worker already */
            if (problem || inl->n == MAX_INLINE_TOOLS) {
                cli_error("%s: '%s': %s", name, value, problem ? problem : "at most 64 tools");
                return 2;
            }
            inl->on[inl->n] = on;
            inl->names[inl->n++] = value;
            continue;
        }
        const char *why;
        if (!mcp_options_set(o, name, value, &why)) {
            if (strcmp(name, "--allow-host") == 0)
                cli_error("--allow-host: at most %d names", MCP_MAX_ALLOW_HOSTS);
            else if (strcmp(name, "--log-level") == 0)
                cli_error("--log-level: '%s' is not quiet, error, warn, info or debug", value);
            else if (strcmp(why, "not a number in range") == 0)
                cli_error("%s: '%s' is not a number in range", name, value);
            else
                cli_error("%s: %s", name, why);
            if (strcmp(name, "--allow-host") != 0)
                usage(stderr, prog, server, &def);
            return 2;
        }
        for (size_t k = 0; k < sizeof HTTP_ONLY / sizeof *HTTP_ONLY; k++)
            if (strcmp(HTTP_ONLY[k], name) == 0)
                http_only = HTTP_ONLY[k];
    }
    if (http_only && !o->http) {
        cli_error("%s needs --http", http_only);
        usage(stderr, prog, server, &def);
        return 2;
    }
    if (o->http && !host_port_ok(o->http)) {
        cli_error("--http: '%s' is not HOST:PORT (a port from 0 to 65535 after the last ':')", o->http);
        usage(stderr, prog, server, &def);
        return 2;
    }
    if (o->no_auth && (o->auth_issuer || o->auth_resource || o->auth_jwks || o->auth_introspect || o->auth_client_id ||
                       o->auth_client_secret_file || o->nrequired_scopes)) {
        cli_error("--no-auth contradicts the --auth-* options: give one or the other");
        return 2;
    }
    return 0;
}

int mcp_main_with(const mcp_server *server, int argc, char **argv, const mcp_transport *const *transports)
{
    if (!server) {
        cli_error("mcp_main: no server table");
        return 1;
    }
    if (server->abi != MCPIDL_ABI) {
        cli_error("%s was generated for libmcpidl ABI %d, but this libmcpidl %s has ABI %d: "
                  "run mcpidlc again",
                  server->name ? server->name : "the server", server->abi, MCPIDL_VERSION, MCPIDL_ABI);
        return 1;
    }
    mcp_options opt;
    inline_tools inl = {.n = 0};
    int rc = parse_args(server, argc, argv, &opt, &inl);
    if (rc != 0)
        return rc < 0 ? 0 : rc;
    const mcp_transport *chosen = NULL;
    for (size_t i = 0; transports && transports[i] && !chosen; i++)
        if (transports[i]->wanted(&opt))
            chosen = transports[i];
    if (opt.http && !chosen) {
        cli_error("this server was built without HTTP support: link mcpidl-http (CMake: "
                  "mcpidl::http; pkg-config: mcpidl-http)");
        return 2;
    }
    mcp_runtime *rt = mcp_runtime_new(server, &opt);
    if (!rt)
        return 1;
    for (size_t i = 0; i < inl.n; i++)
        if (!mcp_runtime_tool_inline(rt, inl.names[i], inl.on[i]) && inl.on[i]) /* checked above */
            mcp_runtime_log(rt, MCP_LOG_WARN, "--inline-tool %s: not taken", inl.names[i]);
    if (!install_signals(rt) || (chosen && !install_reload_signal()))
        mcp_runtime_log(rt, MCP_LOG_WARN, "cannot install signal handlers: %s", strerror(errno));
    if (chosen) {
        mcp_runtime_log(rt, MCP_LOG_INFO, "%s %s: %zu tool(s), %d worker(s), over %s",
                        server->name ? server->name : "?", server->version ? server->version : "?", server->ntools,
                        opt.workers, chosen->name);
        rc = chosen->serve(rt);
    } else {
        saved_stdio sv;
        if (!take_stdio(&sv))
            mcp_runtime_log(rt, MCP_LOG_WARN, "cannot set standard output aside: handlers must not print to it");
        mcp_runtime_log(rt, MCP_LOG_INFO, "%s %s: %zu tool(s), %d worker(s), over stdio",
                        server->name ? server->name : "?", server->version ? server->version : "?", server->ntools,
                        opt.workers);
        rc = mcp_runtime_serve_stdio(rt, sv.in, sv.out);
        give_back_stdio(&sv);
    }
    signalled = NULL;
    mcp_runtime_free(rt);
    return rc;
}
