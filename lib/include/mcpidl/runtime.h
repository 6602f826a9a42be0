/* runtime.h: a server at run time, as an object: options, serving, stopping.
 *
 *     mcp_options opt;
 *     mcp_options_default(&opt);
 *     opt.workers = 4;                                  // or, as on the command line:
 *     mcp_options_set(&opt, "--max-concurrent", "16", NULL);
 *     mcp_runtime *rt = mcp_runtime_new(&weather_server, &opt);
 *     int rc = mcp_runtime_serve_stdio(rt, 0, 1);       // until the input ends or mcp_runtime_stop
 *     mcp_runtime_free(rt);
 *
 * Everything a server holds lives in its runtime: the worker pool, the log
 * level, the subscriptions to resources, the pre-rendered lists. A process
 * may run several runtimes, for the same server table or others, each on its
 * own transports. mcp_main() is this, with the options taken from argv.
 *
 * A program with an event loop of its own serves stdio without a thread of
 * its own: mcp_runtime_stdio_open() gives a descriptor to watch for reading,
 * and mcp_stdio_conn_ready() reads what is there and serves it.
 */
#ifndef MCPIDL_RUNTIME_H
#define MCPIDL_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "mcpidl/api.h"

MCPIDL_BEGIN_DECLS

typedef struct mcp_server mcp_server;

#define MCP_MAX_ALLOW_HOSTS 64
#define MCP_MAX_AUTH_SCOPES 32
typedef struct mcp_runtime mcp_runtime;

/* How much the runtime writes to standard error: "mcpidl: ..." lines. */
typedef enum mcp_log_level {
    MCP_LOG_QUIET = 0,
    MCP_LOG_ERROR,
    MCP_LOG_WARN,
    MCP_LOG_INFO,
    MCP_LOG_DEBUG,
} mcp_log_level;

/* Every option of mcp_main, as fields (docs/c-api.md lists them with their
 * command-line names). mcp_options_default() fills the defaults; a field left
 * at 0 (or NULL) means its default too, unless its comment says otherwise. */
typedef struct mcp_options {
    int workers;             /* handler threads; 0: handlers run on the reading thread
                                (mcp_options_default: one per CPU) */
    size_t max_message;      /* --max-message-bytes: the longest message */
    int max_depth;           /* --max-depth: JSON nesting */
    size_t max_string;       /* --max-string-bytes: the longest JSON string (0: max_message) */
    size_t max_array;        /* --max-array-items: elements in one array (0: no limit) */
    size_t max_values;       /* --max-values: values in one message (0: no limit) */
    int max_concurrent;      /* --max-concurrent: a session's requests running at once;
                                more wait in its queue (max_queued) */
    size_t page_size;        /* --page-size: entries per page of the list methods */
    int client_timeout_ms;   /* --client-timeout: a handler's wait for the client */
    int max_pending;         /* --max-pending: requests to the client per session */
    int max_subscriptions;   /* --max-subscriptions: resources one session subscribes to */
    int max_waiting;         /* --max-waiting: handlers waiting for clients, server-wide */
    mcp_log_level log_level; /* --log-level (mcp_options_default: MCP_LOG_WARN) */
    /* Streamable HTTP (mcp_runtime_serve_http, in libmcpidl-http). */
    const char *http;      /* --http HOST:PORT (NULL: serve stdio) */
    const char *http_path; /* the endpoint (NULL: /mcp) */
    /* --allow-host (repeatable): Host names accepted besides localhost,
     * 127.0.0.1 and [::1]; the strings are not copied. */
    const char *allow_hosts[MCP_MAX_ALLOW_HOSTS];
    size_t nallow;
    int max_sessions;    /* --max-sessions */
    int session_idle;    /* --session-idle, seconds */
    size_t replay_bytes; /* --replay-bytes: events kept per stream */
    int http_timeout;    /* --http-timeout, seconds without progress */
    size_t max_inflight; /* --max-inflight-bytes: request bodies held at once */
    /* 2026-07-28 (multi round-trip requests). */
    const char *state_key_file; /* --state-key-file: the key that seals requestState (at
                                   least 32 bytes; replicas share it); NULL: a random key
                                   per process */
    int state_ttl;              /* --state-ttl, seconds a requestState stays valid */
    /* --node-id: the prefix of this replica's session ids (2025-11-25 over
     * HTTP), so that a proxy routes a session back to it; NULL: none. */
    const char *node_id;
    /* Tasks (the io.modelcontextprotocol/tasks extension of 2026-07-28). */
    int max_tasks; /* --max-tasks: tasks the runtime holds at once */
    int task_ttl;  /* --task-ttl: seconds a task is kept after its creation */
    /* OAuth 2.1 resource server (docs/auth.md), in libmcpidl-http. Any of
     * auth_issuer, auth_resource, auth_jwks or auth_introspect set turns it
     * on; it then needs the issuer, the resource, and keys (auth_jwks) or
     * introspection (auth_introspect with the client's id and secret). */
    const char *auth_issuer;             /* --auth-issuer URL: the `iss` tokens must carry */
    const char *auth_resource;           /* --auth-resource URL: this endpoint's canonical URI (`aud`) */
    const char *auth_jwks;               /* --auth-jwks FILE-OR-URL: the keys that sign tokens */
    const char *auth_introspect;         /* --auth-introspect URL: RFC 7662 introspection */
    const char *auth_client_id;          /* --auth-client-id: this server's id at introspection */
    const char *auth_client_secret_file; /* --auth-client-secret-file FILE */
    int auth_leeway;                     /* --auth-leeway SECONDS for exp, nbf, iat (mcp_options_default:
                                    30; 0 is none) */
    int auth_jwks_refresh;               /* --auth-jwks-refresh SECONDS: the least time between two
                                    fetches of the key set (default 60) */
    unsigned auth_algs;                  /* --auth-algorithms LIST: the signature algorithms taken, a
                                    set of bits (1 RS256, 2 PS256, 4 ES256, 8 EdDSA); 0: all */
    /* --auth-required-scope (repeatable): scopes every request needs, beside
     * those the IDL gives items; the strings are not copied. */
    const char *auth_required_scopes[MCP_MAX_AUTH_SCOPES];
    size_t nrequired_scopes;
    bool no_auth;         /* --no-auth: serve a non-loopback address without auth */
    const char *tls_cert; /* --tls-cert FILE: PEM certificate chain: serve HTTPS */
    const char *tls_key;  /* --tls-key FILE: PEM private key of the certificate */
    /* The queue of requests waiting for a turn (docs/security.md). */
    int max_queued;           /* --max-queued: a session's requests waiting beyond max_concurrent */
    size_t max_queued_bytes;  /* --max-queued-bytes: the parsed messages of every waiting request,
                                all sessions together */
    size_t http_header_bytes; /* --http-header-bytes: libmicrohttpd's buffer per connection,
                                 which bounds a request's line and headers (32 KiB) */
} mcp_options;

MCPIDL_API void mcp_options_default(mcp_options *o);
/* One option by its command-line name ("--workers") and value text (NULL
 * for a flag), checked as mcp_main checks it. False when the name is unknown
 * or the value out of range; *why (may be NULL) then says which. An option
 * that takes no value (--help, --version) is not an option here. The strings
 * of --http and --allow-host are kept, not copied; --allow-host adds a name
 * each time (at most MCP_MAX_ALLOW_HOSTS). */
MCPIDL_API MCP_NODISCARD bool mcp_options_set(mcp_options *o, const char *name, const char *value, const char **why);
/* "quiet", "error", "warn", "info", "debug": false for another name. */
MCPIDL_API MCP_NODISCARD bool mcp_log_level_parse(const char *name, mcp_log_level *out);

/* A runtime for `server` (which must outlive it) with the options (copied;
 * NULL: the defaults). NULL when out of memory or when threads cannot start;
 * the reason is logged. */
MCPIDL_API MCP_NODISCARD mcp_runtime *mcp_runtime_new(const mcp_server *server, const mcp_options *opt);
/* Stop serving (as mcp_runtime_stop), release everything. NULL is a no-op. */
MCPIDL_API void mcp_runtime_free(mcp_runtime *rt);
/* The options in force (the defaults filled in), and the server table. */
MCPIDL_API const mcp_options *mcp_runtime_options(const mcp_runtime *rt);
MCPIDL_API const mcp_server *mcp_runtime_server(const mcp_runtime *rt);

/* Serve one session over newline-delimited JSON on in_fd and out_fd until
 * the input ends, the peer closes out_fd, or mcp_runtime_stop(). Requests in
 * flight are answered first. 0, or 1 when the session cannot start or the
 * input fails. It waits in read(2) on a dup of in_fd, and a stop ends that
 * read with SIGURG: an empty handler is installed for it unless the process
 * has one (then it polls before each read instead); docs/c-api.md. */
MCPIDL_API int mcp_runtime_serve_stdio(mcp_runtime *rt, int in_fd, int out_fd);
/* Make the serve functions return (after answering what is in flight).
 * Async-signal-safe: a signal handler may call it. */
MCPIDL_API void mcp_runtime_stop(mcp_runtime *rt);
/* Ask the serving transport to load its files again (HTTP: the TLS
 * certificate and key, the JWKS file): what SIGHUP does in mcp_main.
 * Async-signal-safe. The transport watches mcp_runtime_reload_fd() and
 * calls mcp_runtime_reload_taken() when it wakes. */
MCPIDL_API void mcp_runtime_reload(mcp_runtime *rt);
MCPIDL_API int mcp_runtime_reload_fd(const mcp_runtime *rt);
/* Whether a reload was asked for since the last call (and empty the
 * descriptor). */
MCPIDL_API bool mcp_runtime_reload_taken(mcp_runtime *rt);
/* A descriptor that becomes readable once mcp_runtime_stop() was called. */
MCPIDL_API int mcp_runtime_stop_fd(const mcp_runtime *rt);
MCPIDL_API bool mcp_runtime_stopping(const mcp_runtime *rt);

/* notifications/resources/updated {"uri": URI} to every session of this
 * runtime that subscribed to `uri` (resources/subscribe), and to every
 * subscription listening to it (subscriptions/listen). Any thread, any time. */
MCPIDL_API void mcp_runtime_resource_updated(mcp_runtime *rt, const char *uri);

/* The lists whose changes the server announces (IDL server `list_changed:`). */
typedef enum mcp_list_kind { MCP_LIST_KIND_TOOLS, MCP_LIST_KIND_PROMPTS, MCP_LIST_KIND_RESOURCES } mcp_list_kind;
/* notifications/tools/list_changed (or prompts', resources') to every 2025
 * session and every subscription that listens for it; nothing when the
 * server does not announce changes of that list. Any thread, any time. */
MCPIDL_API void mcp_runtime_list_changed(mcp_runtime *rt, mcp_list_kind which);

/* Offer or withdraw a tool while serving. Every tool starts enabled; a
 * disabled one is left out of tools/list, and a tools/call of it is
 * answered as that of an unknown tool (-32602 "Unknown tool: NAME"); calls
 * already running finish. When the state changes, the list is rendered
 * again and notifications/tools/list_changed goes out as
 * mcp_runtime_list_changed() sends it (to nobody unless the server
 * announces tool list changes: IDL server `list_changed: [tools]`). False
 * when the server has no tool of that name, or out of memory (nothing
 * changes then). Any thread, any time, handlers included
 * (mcp_call_runtime()); the state is this runtime's only. */
MCPIDL_API bool mcp_runtime_tool_enable(mcp_runtime *rt, const char *name, bool enabled);
/* The same for the resources and resource templates named `name`: left out
 * of resources/list and resources/templates/list, their URIs not found by
 * resources/read, resources/subscribe and subscriptions/listen, a template's
 * variables not completed; notifications/resources/list_changed. */
MCPIDL_API bool mcp_runtime_resource_enable(mcp_runtime *rt, const char *name, bool enabled);
/* The same for a prompt: prompts/list, prompts/get and the completion of its
 * arguments answer as for an unknown prompt; notifications/prompts/list_changed. */
MCPIDL_API bool mcp_runtime_prompt_enable(mcp_runtime *rt, const char *name, bool enabled);
/* Run the tool `name`'s handler on the thread that read its call instead
 * of handing it to a worker: for a handler that returns in microseconds and
 * never waits (no I/O, no lock held long, no request to the client). It
 * saves the hand-off, two thread wake-ups per call; over HTTP the answer
 * goes out without the connection being suspended and resumed. While it
 * runs, the calls read after it wait, so a slow handler marked so stalls
 * its session (stdio) or a share of the connections (HTTP): leave such
 * handlers to the workers. A request to the client (sampling, elicitation,
 * roots) from such a handler fails at once (it could never be answered:
 * the answer would be read by the thread that waits for it). False when the
 * server has no tool of that name, or the tool may run as a task (IDL
 * `task:`), which always goes to the workers. With --workers 0 every
 * handler runs so. Any thread, any time. */
MCPIDL_API bool mcp_runtime_tool_inline(mcp_runtime *rt, const char *name, bool on);
/* Whether the server has a tool (a resource or resource template; a
 * prompt) of that name that is enabled. */
MCPIDL_API bool mcp_runtime_tool_enabled(const mcp_runtime *rt, const char *name);
MCPIDL_API bool mcp_runtime_resource_enabled(const mcp_runtime *rt, const char *name);
MCPIDL_API bool mcp_runtime_prompt_enabled(const mcp_runtime *rt, const char *name);

/* ---------------------------------------------------------------- embedding
 * A stdio session driven by the caller's event loop. */
typedef struct mcp_stdio_conn mcp_stdio_conn;

/* A session on in_fd (made non-blocking) and out_fd; NULL when out of memory. */
MCPIDL_API MCP_NODISCARD mcp_stdio_conn *mcp_runtime_stdio_open(mcp_runtime *rt, int in_fd, int out_fd);
/* The descriptor to watch for reading (in_fd). */
MCPIDL_API int mcp_stdio_conn_fd(const mcp_stdio_conn *c);
/* Read what in_fd holds and serve every whole message in it; never blocks on
 * input. Handlers run on the runtime's workers (or here, with workers 0).
 * True while the session goes on; false once the input ended or the peer is
 * gone: then call mcp_stdio_conn_close(). */
MCPIDL_API MCP_NODISCARD bool mcp_stdio_conn_ready(mcp_stdio_conn *c);
/* Answer what is in flight, end the session, release it. NULL is a no-op. */
MCPIDL_API void mcp_stdio_conn_close(mcp_stdio_conn *c);

MCPIDL_END_DECLS

#endif
