/* rpc.h (internal): the session core, as the methods and the runtime see it.
 *
 * The session (rpc/session.c) owns JSON-RPC: framing, ids, the lifecycle,
 * slots and their arenas, batches, jobs on the worker pool, cancellation,
 * requests to the client and their answers. It knows no MCP method: it looks
 * each request's method up in the method table its environment gives, and
 * calls the method's start on the reading thread and, when start hands the
 * request to a worker, the method's run there. Methods answer through the
 * request and job functions below; nothing in rpc/ calls into methods/ but
 * through the table.
 *
 * Threads. start runs on the reading thread (one at a time per session);
 * run on a worker (or inline with no workers); the job functions are for the
 * run's thread only, but mcp_session_notify (any thread).
 */
#ifndef MCPIDL_INTERNAL_RPC_H
#define MCPIDL_INTERNAL_RPC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/log.h"
#include "internal/pool.h"
#include "mcpidl/buf.h"
#include "mcpidl/generated.h"
#include "mcpidl/mcpidl.h"
#include "mcpidl/runtime.h"
#include "mcpidl/transport.h"

/* JSON-RPC and MCP error codes. */
enum {
    MCP_RPC_PARSE_ERROR = -32700,
    MCP_RPC_INVALID_REQUEST = -32600,
    MCP_RPC_METHOD_NOT_FOUND = -32601,
    MCP_RPC_INVALID_PARAMS = -32602,
    MCP_RPC_INTERNAL_ERROR = -32603,
    MCP_RPC_SERVER_BUSY = -32000, /* "Service Unavailable: ...": a bound of the server's */
    MCP_RPC_RESOURCE_NOT_FOUND = -32002,
    /* an authenticated caller without a scope the request needs (HTTP
     * answers 403 before the session sees it) */
    MCP_RPC_FORBIDDEN = -32003,
};

/* ---------------------------------------------------------------- protocol versions */

/* The revisions served over the 2025 lifecycle (initialize), oldest first;
 * the last is the latest. The one table: the session negotiates from it and
 * the HTTP transport checks MCP-Protocol-Version against it. */
extern const char *const mcp_versions[];
extern const size_t mcp_nversions;
#define MCP_LATEST_VERSION (mcp_versions[mcp_nversions - 1])
/* The modern revisions (per-request _meta, no initialize), newest first. */
extern const char *const mcp_modern_versions[];
extern const size_t mcp_nmodern_versions;
/* The entry of mcp_modern_versions equal to name[0..len) (NULL: none). */
const char *mcp_modern_version_find(const char *name, size_t len);
/* Every revision served, newest first, as a JSON array ("supported" of
 * UnsupportedProtocolVersionError, "supportedVersions" of server/discover). */
extern const char mcp_supported_versions_json[];

/* The _meta keys of the modern revisions. */
#define MCP_META_PROTOCOL_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CLIENT_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT_INFO "io.modelcontextprotocol/clientInfo"
#define MCP_META_LOG_LEVEL "io.modelcontextprotocol/logLevel"
#define MCP_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"
#define MCP_META_SUBSCRIPTION_ID "io.modelcontextprotocol/subscriptionId"

/* The errors of the modern revisions. */
enum {
    MCP_RPC_HEADER_MISMATCH = -32020,
    MCP_RPC_MISSING_CAPABILITY = -32021,
    MCP_RPC_UNSUPPORTED_VERSION = -32022,
};
/* The one revision whose JSON-RPC allows batches. */
#define MCP_BATCH_VERSION "2025-03-26"
/* The entry of mcp_versions equal to name[0..len) (NULL: none). */
const char *mcp_version_find(const char *name, size_t len);

/* ---------------------------------------------------------------- what a request carries */

/* What the client declared it can do (initialize's capabilities). */
enum {
    MCP_CLIENT_SAMPLING = 1 << 0,
    MCP_CLIENT_ELICITATION = 1 << 1,
    MCP_CLIENT_ROOTS = 1 << 2,
    MCP_CLIENT_TASKS = 1 << 3, /* the tasks extension (modern: clientCapabilities.extensions) */
};

/* The tasks extension's name (capabilities.extensions, clientCapabilities). */
#define MCP_TASKS_EXTENSION "io.modelcontextprotocol/tasks"

/* The context of one request, whichever way it came: what a 2025 session
 * learnt in initialize and logging/setLevel, copied when the request starts.
 * Methods and handlers read it; never the session. */
typedef struct mcp_reqctx {
    const char *version;      /* the revision in force */
    unsigned client_caps;     /* MCP_CLIENT_* */
    int log_min;              /* the least severe mcp_level sent (notifications/message);
                             MCP_LOG_NONE: none (a modern request without a logLevel) */
    bool modern;              /* a modern request: stateless, results carry resultType */
    const mcp_caller *caller; /* who sent it (an authenticating transport), or NULL */
} mcp_reqctx;

/* log_min when no log message may be sent. */
#define MCP_LOG_NONE 8

/* ---------------------------------------------------------------- the method table */

typedef struct mcp_req mcp_req; /* a request on the reading thread */
typedef struct mcp_job mcp_job; /* a request on a worker */

enum {
    MCP_METHOD_EARLY = 1 << 0,       /* served before initialize (ping, initialize) */
    MCP_METHOD_INITIALIZE = 1 << 1,  /* initialize itself (only once) */
    MCP_METHOD_LEGACY_ONLY = 1 << 2, /* removed by the modern revisions (ping, ...) */
    MCP_METHOD_MODERN_ONLY = 1 << 3, /* new in the modern revisions (server/discover, ...) */
    MCP_METHOD_CACHEABLE = 1 << 4,   /* modern results carry ttlMs and cacheScope */
    MCP_METHOD_PRIVATE = 1 << 5,     /* with CACHEABLE: cacheScope "private", ttlMs 0 */
    MCP_METHOD_FULL_INFO = 1 << 6,   /* a modern result's _meta has env->meta_full (server/discover) */
};

/* A run's return for an InputRequiredResult (MRTR): out holds its members
 * ("inputRequests", "requestState"), as an object without resultType. */
#define MCP_RUN_INPUT_REQUIRED 1
/* A run's return for a CreateTaskResult (the tasks extension): out holds the
 * task's members, as an object without resultType. */
#define MCP_RUN_TASK 2

typedef struct mcp_method {
    const char *name;
    unsigned flags;
    /* Whether the server serves it (the capability it announces); NULL: always. */
    bool (*served)(const mcp_server *srv);
    /* Reading thread: check the params and answer (mcp_req_result,
     * mcp_req_error), or hand the request to a worker (mcp_req_run). */
    void (*start)(mcp_req *r);
    /* Worker: serve what start handed over (data). Write the result object
     * to out and return 0; or return a JSON-RPC error code with its message
     * in *msg (in the job's arena; NULL: "Internal error") and, when it has
     * data, its JSON text in err_data. Out of memory: out->oom. */
    int (*run)(mcp_job *j, void *data, mcp_buf *out, const char **msg, mcp_buf *err_data);
} mcp_method;

typedef struct mcp_method_table {
    const mcp_method *const *methods;
    size_t n;
} mcp_method_table;

/* ---------------------------------------------------------------- the environment */

/* What a runtime gives each of its sessions (it outlives them). */
typedef struct mcp_env {
    const mcp_server *server;
    mcp_options opt;        /* every field set (the defaults filled in) */
    mcp_json_limits limits; /* what messages are parsed with */
    const mcp_logger *log;
    mcp_pool *pool; /* shared by the sessions; NULL: each session with workers
                              * starts a pool of its own (stdio) */
    const mcp_method_table *methods;
    void *mstate; /* the methods' shared state (lists, subscriptions) */
    /* The session is ending: drop what the methods keep for it. */
    void (*session_gone)(void *mstate, mcp_session *s);
    mcp_runtime *rt; /* for mcp_call_runtime */
    /* Modern results: the serverInfo of their _meta (JSON text), and the
     * caching hints of cacheable ones (ttlMs, cacheScope "public" or
     * "private"; resources/read has its own). */
    const char *server_info;
    /* The members of the _meta of MCP_METHOD_FULL_INFO results: the whole
     * serverInfo (icons, description, websiteUrl) and the server's _meta. */
    const char *meta_full;
    long long cache_ttl_ms;
    const char *cache_scope;
    /* The key that seals what clients carry for the server (requestState). */
    const struct mcp_seal_key *state_key;
    /* The bytes of parsed messages waiting in every session's queue
     * (bounded by opt.max_queued_bytes). */
    atomic_size_t *queued_bytes;
    /* Slots (a message's arena and buffers) kept for the sessions between
     * their messages. */
    struct mcp_slot_cache *slots;
} mcp_env;

/* ttlMs of cacheable modern results when the IDL sets none: five minutes,
 * what the reference servers use for lists that change rarely. */
#define MCP_DEFAULT_TTL_MS 300000

/* The options with every default filled in, and the values in their ranges. */
void mcp_options_complete(mcp_options *o);
mcp_json_limits mcp_options_json_limits(const mcp_options *o);

mcp_session *mcp_session_create(const mcp_env *env, mcp_sink_fn sink, void *sink_ctx);

/* The slots shared by an env's sessions (mcp_env.slots). */
typedef struct mcp_slot_cache mcp_slot_cache;
mcp_slot_cache *mcp_slot_cache_new(void);
void mcp_slot_cache_free(mcp_slot_cache *c);
const mcp_env *mcp_session_env(const mcp_session *s);
/* mcp_message_parse of the runtime whose env this is. */
mcp_message *mcp_env_message_parse(const mcp_env *env, const char *text, size_t len);

/* A message that belongs to no request (notifications/resources/updated),
 * to the session's peer; any thread. False when it is gone. */
bool mcp_session_notify(mcp_session *s, const char *text, size_t len);

/* ---------------------------------------------------------------- requests (reading thread) */

mcp_session *mcp_req_session(const mcp_req *r);
/* A number no other session of the process has had (from 1). */
unsigned long long mcp_session_serial(const mcp_session *s);
/* How many times the reading thread waited for room in the session's queue
 * (for tests). */
unsigned long mcp_session_room_waits(mcp_session *s);
const mcp_env *mcp_req_env(const mcp_req *r);
/* params: an object, or NULL when absent. */
const mcp_json *mcp_req_params(const mcp_req *r);
/* params._meta when an object, else NULL. */
const mcp_json *mcp_req_meta(const mcp_req *r);
/* What the request carries (version, client capabilities, log level). */
const mcp_reqctx *mcp_req_ctx(const mcp_req *r);
/* The request's method, as the table names it. */
const mcp_method *mcp_req_method(const mcp_req *r);
/* Memory that lives until the request is answered (its job's, once run). */
mcp_arena *mcp_req_arena(mcp_req *r);

/* The answer: a result object as JSON text. */
void mcp_req_result(mcp_req *r, const char *json, size_t len);
/* An error: the printf-formatted message, then (when name is not NULL)
 * name[0..name_len), text from the client. */
void mcp_req_error(mcp_req *r, int code, const char *fmt, ...) MCP_PRINTF(3, 4);
void mcp_req_error_named(mcp_req *r, int code, const char *name, size_t name_len, const char *fmt, ...)
    MCP_PRINTF(5, 6);
/* An error with data (JSON text; NULL: none). */
void mcp_req_error_data(mcp_req *r, int code, const char *msg, const char *data, size_t data_len);
/* Hand the request to a worker: the method's run gets `data` (in the
 * request's arena). Answers the request itself when it cannot (the
 * concurrency limit, out of memory). */
void mcp_req_run(mcp_req *r, void *data);
/* Run it now, on this thread, whatever the workers (a handler marked
 * inline: quick, and never asking the client, which it then cannot). */
void mcp_req_run_here(mcp_req *r, void *data);

/* Keep the request open without answering it (subscriptions/listen): what
 * it sends goes out with mcp_held_send; it ends with the client's
 * cancellation (notifications/cancelled naming it), unanswered, or with the
 * session, gracefully (mcp_session_end_subscriptions, or the session freed
 * while the client is there). on_end is called once, before the handle goes,
 * on the thread that ends it: the owner must stop using h before it
 * returns. NULL when out of memory, or with *why when the session holds
 * max_subscriptions requests open already (or the request is in a batch). */
typedef struct mcp_held mcp_held;
mcp_held *mcp_req_hold(mcp_req *r, void (*on_end)(mcp_held *h, void *arg), void *arg, const char **why);
/* The request's id as JSON text. */
const char *mcp_held_id(const mcp_held *h);
/* One whole message on the request's stream. False once the client is gone. */
bool mcp_held_send(mcp_held *h, const char *text, size_t len);

/* End h with its answer (a whole message, the request's last; NULL: none),
 * on_end not called: its owner ends it (under the lock its on_end takes, so
 * that h is still there when the client's cancellation ends it at the same
 * time). False when it was ending already: h is then the other thread's. */
bool mcp_held_finish(mcp_held *h, const char *text, size_t len);

/* initialize: the session is initialized with this revision and what the
 * client declared. */
void mcp_session_begin(mcp_session *s, const char *version, unsigned client_caps);
/* logging/setLevel: requests from now on carry this log_min. */
void mcp_session_set_log_min(mcp_session *s, int level);

/* ---------------------------------------------------------------- jobs (the run's thread) */

const mcp_env *mcp_job_env(const mcp_job *j);
const mcp_reqctx *mcp_job_ctx(const mcp_job *j);
mcp_arena *mcp_job_arena(mcp_job *j);
/* params._meta (an object) or NULL. */
const mcp_json *mcp_job_meta(const mcp_job *j);
/* params (an object) or NULL. */
const mcp_json *mcp_job_params(const mcp_job *j);
/* The caching hints of the job's modern result, when the method's default
 * (the runtime's, or private and 0 for MCP_METHOD_PRIVATE) is not it. */
void mcp_job_set_cache(mcp_job *j, long long ttl_ms, bool private_scope);
/* Set once the request is cancelled or the peer is gone. */
const atomic_bool *mcp_job_cancelled(const mcp_job *j);
/* Whether the job may still send: not cancelled, the peer not gone. */
bool mcp_job_live(const mcp_job *j);
/* One whole message for the peer, before the answer, on the request's
 * stream. False when it cannot be sent (cancelled, gone). */
bool mcp_job_send(mcp_job *j, const char *text, size_t len);
/* Streamable HTTP: end the connection carrying the request's stream now. */
void mcp_job_close_stream(mcp_job *j);

/* Whether the job can wait for the client (it runs on a worker). */
bool mcp_job_can_ask(const mcp_job *j);
/* A request to the client (method, params as JSON text or NULL) and its
 * answer, waited for (up to the client timeout). Returns 0 with the result's
 * JSON text in *result (malloc'd, its length in *len); or -1 with why in
 * *why (malloc'd): the client's error, a timeout (the client is then sent
 * notifications/cancelled), cancellation, the session's end, the limits. */
int mcp_job_ask(mcp_job *j, const char *method, const char *params, size_t params_len, char **result, size_t *len,
                char **why);

#endif
