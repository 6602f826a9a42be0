/* options.c: mcp_options, their defaults, their ranges, and their names on
 * the command line (mcp_main and mcp_options_set share them). */
#define _GNU_SOURCE
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "internal/options.h"
#include "internal/rpc.h"

/* The CPUs this process may run on (taskset, a container's cpuset), not
 * those the machine has: a worker per CPU the process cannot use only
 * competes with the others for the ones it can. */
static long cpus_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

void mcp_options_default(mcp_options *o)
{
    long cpus = cpus_available();
    if (cpus < 1)
        cpus = 1;
    if (cpus > MCP_MAX_WORKERS)
        cpus = MCP_MAX_WORKERS;
    *o = (mcp_options){
        .workers = (int)cpus,
        .max_message = MCP_DEFAULT_MAX_MESSAGE,
        .max_depth = MCP_JSON_DEFAULT_MAX_DEPTH,
        .max_string = 0,
        .max_array = MCP_DEFAULT_MAX_ARRAY,
        .max_values = MCP_DEFAULT_MAX_VALUES,
        .max_concurrent = MCP_DEFAULT_MAX_CONCURRENT,
        .max_queued = MCP_DEFAULT_MAX_QUEUED,
        .max_queued_bytes = MCP_DEFAULT_MAX_QUEUED_BYTES,
        .page_size = MCP_DEFAULT_PAGE_SIZE,
        .client_timeout_ms = MCP_DEFAULT_CLIENT_TIMEOUT_MS,
        .max_pending = MCP_DEFAULT_MAX_PENDING,
        .max_subscriptions = MCP_DEFAULT_MAX_SUBSCRIPTIONS,
        .max_waiting = MCP_DEFAULT_MAX_WAITING,
        .log_level = MCP_LOG_WARN,
        .max_sessions = MCP_HTTP_DEFAULT_MAX_SESSIONS,
        .session_idle = MCP_HTTP_DEFAULT_IDLE_SECONDS,
        .replay_bytes = MCP_HTTP_DEFAULT_REPLAY_BYTES,
        .http_timeout = MCP_HTTP_DEFAULT_TIMEOUT_SECONDS,
        .max_inflight = MCP_HTTP_DEFAULT_MAX_INFLIGHT,
        .http_header_bytes = MCP_HTTP_DEFAULT_HEADER_BYTES,
        .state_ttl = MCP_DEFAULT_STATE_TTL,
        .max_tasks = MCP_DEFAULT_MAX_TASKS,
        .task_ttl = MCP_DEFAULT_TASK_TTL,
        .auth_leeway = MCP_AUTH_DEFAULT_LEEWAY,
        .auth_jwks_refresh = MCP_AUTH_DEFAULT_JWKS_REFRESH,
    };
}

mcp_json_limits mcp_options_json_limits(const mcp_options *o)
{
    mcp_json_limits l = {.max_depth = o->max_depth,
                         .max_string = o->max_string,
                         .max_array = o->max_array,
                         .max_values = o->max_values};
    if (l.max_depth <= 0)
        l.max_depth = MCP_JSON_DEFAULT_MAX_DEPTH;
    if (l.max_depth > MCP_JSON_DEPTH_CAP)
        l.max_depth = MCP_JSON_DEPTH_CAP;
    if (l.max_string == 0 || l.max_string > o->max_message)
        l.max_string = o->max_message;
    return l;
}

void mcp_options_complete(mcp_options *o)
{
    if (o->workers < 0)
        o->workers = 0;
    if (o->workers > MCP_MAX_WORKERS)
        o->workers = MCP_MAX_WORKERS;
    if (o->max_message == 0)
        o->max_message = MCP_DEFAULT_MAX_MESSAGE;
    if (o->max_concurrent < 1)
        o->max_concurrent = o->max_concurrent == 0 ? MCP_DEFAULT_MAX_CONCURRENT : 1;
    if (o->max_queued < 1)
        o->max_queued = o->max_queued == 0 ? MCP_DEFAULT_MAX_QUEUED : 1;
    if (o->max_queued_bytes == 0)
        o->max_queued_bytes = MCP_DEFAULT_MAX_QUEUED_BYTES;
    if (o->page_size < 1)
        o->page_size = MCP_DEFAULT_PAGE_SIZE;
    mcp_json_limits l = mcp_options_json_limits(o);
    o->max_depth = l.max_depth;
    o->max_string = l.max_string;
    if (o->client_timeout_ms <= 0)
        o->client_timeout_ms = MCP_DEFAULT_CLIENT_TIMEOUT_MS;
    if (o->max_pending <= 0)
        o->max_pending = MCP_DEFAULT_MAX_PENDING;
    if (o->max_subscriptions <= 0)
        o->max_subscriptions = MCP_DEFAULT_MAX_SUBSCRIPTIONS;
    if (o->max_waiting <= 0)
        o->max_waiting = MCP_DEFAULT_MAX_WAITING;
    if (!o->http_path)
        o->http_path = MCP_HTTP_DEFAULT_PATH;
    if (o->max_sessions <= 0)
        o->max_sessions = MCP_HTTP_DEFAULT_MAX_SESSIONS;
    if (o->session_idle <= 0)
        o->session_idle = MCP_HTTP_DEFAULT_IDLE_SECONDS;
    if (o->replay_bytes == 0)
        o->replay_bytes = MCP_HTTP_DEFAULT_REPLAY_BYTES;
    if (o->http_timeout <= 0)
        o->http_timeout = MCP_HTTP_DEFAULT_TIMEOUT_SECONDS;
    if (o->max_inflight == 0)
        o->max_inflight = MCP_HTTP_DEFAULT_MAX_INFLIGHT;
    if (o->http_header_bytes == 0)
        o->http_header_bytes = MCP_HTTP_DEFAULT_HEADER_BYTES;
    else if (o->http_header_bytes < MCP_HTTP_MIN_HEADER_BYTES)
        o->http_header_bytes = MCP_HTTP_MIN_HEADER_BYTES;
    if (o->state_ttl <= 0)
        o->state_ttl = MCP_DEFAULT_STATE_TTL;
    if (o->max_tasks <= 0)
        o->max_tasks = MCP_DEFAULT_MAX_TASKS;
    if (o->task_ttl <= 0)
        o->task_ttl = MCP_DEFAULT_TASK_TTL;
    if (o->auth_leeway < 0)
        o->auth_leeway = 0;
    if (o->auth_jwks_refresh <= 0)
        o->auth_jwks_refresh = MCP_AUTH_DEFAULT_JWKS_REFRESH;
}

bool mcp_log_level_parse(const char *name, mcp_log_level *out)
{
    static const struct {
        const char *name;
        mcp_log_level level;
    } NAMES[] = {
        {"quiet", MCP_LOG_QUIET},  {"error", MCP_LOG_ERROR}, {"warn", MCP_LOG_WARN},
        {"warning", MCP_LOG_WARN}, {"info", MCP_LOG_INFO},   {"debug", MCP_LOG_DEBUG},
    };
    for (size_t i = 0; name && i < sizeof NAMES / sizeof *NAMES; i++)
        if (strcmp(name, NAMES[i].name) == 0) {
            *out = NAMES[i].level;
            return true;
        }
    return false;
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

typedef enum { T_INT, T_SIZE } num_type;

/* The numeric options: name, where, range. */
static const struct {
    const char *name;
    size_t offset;
    num_type type;
    uint64_t lo, hi;
} NUMBERS[] = {
    {"--workers", offsetof(mcp_options, workers), T_INT, 0, MCP_MAX_WORKERS},
    {"--max-message-bytes", offsetof(mcp_options, max_message), T_SIZE, 1, SIZE_MAX / 4},
    {"--max-depth", offsetof(mcp_options, max_depth), T_INT, 1, MCP_JSON_DEPTH_CAP},
    {"--max-string-bytes", offsetof(mcp_options, max_string), T_SIZE, 1, SIZE_MAX / 4},
    {"--max-array-items", offsetof(mcp_options, max_array), T_SIZE, 1, SIZE_MAX / 4},
    {"--max-values", offsetof(mcp_options, max_values), T_SIZE, 1, SIZE_MAX / 4},
    {"--max-concurrent", offsetof(mcp_options, max_concurrent), T_INT, 1, 1 << 20},
    {"--max-queued", offsetof(mcp_options, max_queued), T_INT, 1, 1 << 20},
    {"--max-queued-bytes", offsetof(mcp_options, max_queued_bytes), T_SIZE, 1, SIZE_MAX / 4},
    {"--page-size", offsetof(mcp_options, page_size), T_SIZE, 1, 1 << 20},
    {"--client-timeout", offsetof(mcp_options, client_timeout_ms), T_INT, 1, UINT64_C(24) * 3600 * 1000},
    {"--max-pending", offsetof(mcp_options, max_pending), T_INT, 1, 1 << 16},
    {"--max-subscriptions", offsetof(mcp_options, max_subscriptions), T_INT, 1, 1 << 20},
    {"--max-waiting", offsetof(mcp_options, max_waiting), T_INT, 1, 1 << 16},
    {"--max-sessions", offsetof(mcp_options, max_sessions), T_INT, 1, 1 << 20},
    {"--session-idle", offsetof(mcp_options, session_idle), T_INT, 1, UINT64_C(7) * 24 * 3600},
    {"--replay-bytes", offsetof(mcp_options, replay_bytes), T_SIZE, 1, SIZE_MAX / 4},
    {"--http-timeout", offsetof(mcp_options, http_timeout), T_INT, 1, UINT64_C(24) * 3600},
    {"--max-inflight-bytes", offsetof(mcp_options, max_inflight), T_SIZE, 1, SIZE_MAX / 4},
    {"--http-header-bytes", offsetof(mcp_options, http_header_bytes), T_SIZE, MCP_HTTP_MIN_HEADER_BYTES, 1 << 20},
    {"--state-ttl", offsetof(mcp_options, state_ttl), T_INT, 1, UINT64_C(30) * 24 * 3600},
    {"--max-tasks", offsetof(mcp_options, max_tasks), T_INT, 1, 1 << 20},
    {"--task-ttl", offsetof(mcp_options, task_ttl), T_INT, 1, UINT64_C(30) * 24 * 3600},
    {"--auth-leeway", offsetof(mcp_options, auth_leeway), T_INT, 0, 600},
    {"--auth-jwks-refresh", offsetof(mcp_options, auth_jwks_refresh), T_INT, 1, UINT64_C(24) * 3600},
};

/* The options whose value is a string kept as given (a URL, a file name, an id). */
static const struct {
    const char *name;
    size_t offset;
    const char *why; /* when empty */
} STRINGS[] = {
    {"--state-key-file", offsetof(mcp_options, state_key_file), "needs a file name"},
    {"--auth-issuer", offsetof(mcp_options, auth_issuer), "needs a URL"},
    {"--auth-resource", offsetof(mcp_options, auth_resource), "needs a URL"},
    {"--auth-jwks", offsetof(mcp_options, auth_jwks), "needs a file name or a URL"},
    {"--auth-introspect", offsetof(mcp_options, auth_introspect), "needs a URL"},
    {"--auth-client-id", offsetof(mcp_options, auth_client_id), "needs a client id"},
    {"--auth-client-secret-file", offsetof(mcp_options, auth_client_secret_file), "needs a file name"},
    {"--tls-cert", offsetof(mcp_options, tls_cert), "needs a file name"},
    {"--tls-key", offsetof(mcp_options, tls_key), "needs a file name"},
};

/* "RS256,ES256": the set of jose algorithm bits, 0 when a name is unknown. */
static unsigned parse_algs(const char *v)
{
    static const char *const NAMES[] = {"RS256", "PS256", "ES256", "EdDSA"};
    unsigned set = 0;
    while (v && *v) {
        size_t n = strcspn(v, ",");
        unsigned bit = 0;
        for (unsigned i = 0; i < 4; i++)
            if (strlen(NAMES[i]) == n && strncmp(v, NAMES[i], n) == 0)
                bit = 1u << i;
        if (!bit)
            return 0;
        set |= bit;
        v += n;
        if (*v == ',')
            v++;
    }
    return set;
}

bool mcp_options_set(mcp_options *o, const char *name, const char *value, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    *why = NULL;
    if (!name) {
        *why = "no option name";
        return false;
    }
    for (size_t i = 0; i < sizeof NUMBERS / sizeof *NUMBERS; i++) {
        if (strcmp(name, NUMBERS[i].name) != 0)
            continue;
        uint64_t v;
        if (!parse_num(value, NUMBERS[i].lo, NUMBERS[i].hi, &v)) {
            *why = "not a number in range";
            return false;
        }
        char *at = (char *)o + NUMBERS[i].offset;
        if (NUMBERS[i].type == T_INT)
            *(int *)at = (int)v;
        else
            *(size_t *)at = (size_t)v;
        return true;
    }
    if (strcmp(name, "--log-level") == 0) {
        if (!mcp_log_level_parse(value, &o->log_level)) {
            *why = "not quiet, error, warn, info or debug";
            return false;
        }
        return true;
    }
    if (strcmp(name, "--http") == 0) {
        if (!value || !*value) {
            *why = "needs HOST:PORT";
            return false;
        }
        o->http = value;
        return true;
    }
    for (size_t i = 0; i < sizeof STRINGS / sizeof *STRINGS; i++) {
        if (strcmp(name, STRINGS[i].name) != 0)
            continue;
        if (!value || !*value) {
            *why = STRINGS[i].why;
            return false;
        }
        *(const char **)((char *)o + STRINGS[i].offset) = value;
        return true;
    }
    if (strcmp(name, "--auth-algorithms") == 0) {
        unsigned set = parse_algs(value);
        if (!set) {
            *why = "needs a comma-separated list of RS256, PS256, ES256, EdDSA";
            return false;
        }
        o->auth_algs = set;
        return true;
    }
    if (strcmp(name, "--auth-required-scope") == 0) {
        /* a scope-token of RFC 6749 section 3.3: visible ASCII but '"' and '\\' */
        bool ok = value && *value;
        for (const char *p = value; ok && *p; p++)
            ok = *p > 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
        if (!ok) {
            *why = "needs a scope: visible ASCII characters other than '\"' and '\\'";
            return false;
        }
        if (o->nrequired_scopes == MCP_MAX_AUTH_SCOPES) {
            *why = "too many scopes (at most 32)";
            return false;
        }
        o->auth_required_scopes[o->nrequired_scopes++] = value;
        return true;
    }
    if (strcmp(name, "--no-auth") == 0) {
        if (value) {
            *why = "takes no value";
            return false;
        }
        o->no_auth = true;
        return true;
    }
    if (strcmp(name, "--node-id") == 0) {
        /* visible ASCII that may start a session id, short enough to leave room */
        size_t n = value ? strlen(value) : 0;
        bool ok = n > 0 && n <= 32;
        for (size_t i = 0; ok && i < n; i++)
            ok = (value[i] >= '0' && value[i] <= '9') || (value[i] >= 'a' && value[i] <= 'z') ||
                 (value[i] >= 'A' && value[i] <= 'Z') || value[i] == '-' || value[i] == '_';
        if (!ok) {
            *why = "needs 1 to 32 letters, digits, '-' or '_'";
            return false;
        }
        o->node_id = value;
        return true;
    }
    if (strcmp(name, "--allow-host") == 0) {
        if (!value || !*value) {
            *why = "needs a host name";
            return false;
        }
        if (o->nallow == MCP_MAX_ALLOW_HOSTS) {
            *why = "too many names (at most 64)";
            return false;
        }
        o->allow_hosts[o->nallow++] = value;
        return true;
    }
    *why = "unknown option";
    return false;
}
