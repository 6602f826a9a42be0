/* runtime.c: the runtime object: a server table, its options, and all it
 * holds while serving (the logger, the worker pool, the methods' shared
 * state, the stop pipe). No process-wide state: each runtime is whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal/methods.h"
#include "internal/rpc.h"
#include "internal/runtime.h"
#include "internal/seal.h"

struct mcp_runtime {
    mcp_env env;
    mcp_buf server_info; /* env.server_info's text */
    mcp_buf meta_full;   /* env.meta_full's */
    mcp_seal_key state_key;
    mcp_logger log;
    mcp_methods_state *mstate;
    mcp_pool *pool;
    int stop_pipe[2];
    atomic_bool stopping;
    int reload_pipe[2];
    atomic_bool reload;
    atomic_size_t queued_bytes; /* env.queued_bytes */
};

static bool set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fd_fl = fcntl(fd, F_GETFD);
    return fl >= 0 && fd_fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0 &&
           fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC) == 0;
}

/* env.meta_full: the whole serverInfo, then the members of the server's
 * own _meta (an object's text). False when out of memory. */
static bool write_meta_full(mcp_buf *b, const mcp_server *srv)
{
    mcp_buf_puts(b, "\"" MCP_META_SERVER_INFO "\":");
    mcp_server_info_write(b, srv, true);
    const char *open = srv->meta ? strchr(srv->meta, '{') : NULL;
    const char *close = srv->meta ? strrchr(srv->meta, '}') : NULL;
    if (open && close && close > open) {
        const char *in = open + 1;
        while (in < close && (*in == ' ' || *in == '\n' || *in == '\t' || *in == '\r'))
            in++;
        if (in < close) {
            mcp_buf_putc(b, ',');
            mcp_buf_put(b, in, (size_t)(close - in));
        }
    }
    return !b->oom;
}

/* The key of requestState: the file's, or a random one. */
static bool load_state_key(mcp_runtime *rt, char *why, size_t cap)
{
    rt->env.state_key = &rt->state_key;
    const char *path = rt->env.opt.state_key_file;
    if (!path) {
        if (mcp_seal_key_random(&rt->state_key))
            return true;
        snprintf(why, cap, "no random bytes for the state key");
        return false;
    }
    const char *file_why = NULL;
    if (mcp_seal_key_file(&rt->state_key, path, &file_why))
        return true;
    snprintf(why, cap, "--state-key-file %s: %s", path, file_why);
    return false;
}

mcp_runtime *mcp_runtime_new(const mcp_server *server, const mcp_options *opt)
{
    mcp_runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return NULL;
    rt->stop_pipe[0] = rt->stop_pipe[1] = -1;
    rt->reload_pipe[0] = rt->reload_pipe[1] = -1;
    atomic_init(&rt->stopping, false);
    atomic_init(&rt->reload, false);
    if (opt)
        rt->env.opt = *opt;
    else
        mcp_options_default(&rt->env.opt);
    mcp_options_complete(&rt->env.opt);
    mcp_logger_init(&rt->log, rt->env.opt.log_level);
    rt->env.server = server;
    rt->env.limits = mcp_options_json_limits(&rt->env.opt);
    rt->env.log = &rt->log;
    rt->env.methods = &mcp_methods;
    rt->env.session_gone = mcp_methods_session_gone;
    rt->env.rt = rt;
    atomic_init(&rt->queued_bytes, 0);
    rt->env.queued_bytes = &rt->queued_bytes;
    /* Modern results: who answers, and how long lists may be kept. */
    mcp_buf_init(&rt->server_info);
    mcp_buf_init(&rt->meta_full);
    rt->env.cache_ttl_ms = MCP_DEFAULT_TTL_MS;
    rt->env.cache_scope = "public";
    const char *why = NULL;
    char key_why[512];
    if (!server || server->abi != MCPIDL_ABI) {
        why = "the server table was generated for another version of libmcpidl (regenerate it)";
    } else if (pipe(rt->stop_pipe) != 0 || !set_flags(rt->stop_pipe[0]) || !set_flags(rt->stop_pipe[1]) ||
               pipe(rt->reload_pipe) != 0 || !set_flags(rt->reload_pipe[0]) || !set_flags(rt->reload_pipe[1])) {
        why = strerror(errno);
    } else if (!load_state_key(rt, key_why, sizeof key_why)) {
        why = key_why;
    } else if (mcp_server_info_write(&rt->server_info, server, false),
               rt->server_info.oom || !write_meta_full(&rt->meta_full, server) ||
                   !(rt->mstate = mcp_methods_state_new(server, &rt->env.opt))) {
        why = "out of memory";
    } else if (!(rt->env.slots = mcp_slot_cache_new())) {
        why = "out of memory";
    } else if (rt->env.opt.workers > 0 && !(rt->pool = mcp_pool_new(rt->env.opt.workers, rt->env.opt.max_waiting))) {
        why = "cannot start the worker threads";
    }
    if (why) {
        mcp_log(&rt->log, MCP_LOG_ERROR, "cannot start: %s", why);
        mcp_runtime_free(rt);
        return NULL;
    }
    rt->env.server_info = rt->server_info.data;
    rt->env.meta_full = rt->meta_full.data;
    if (server->cache.set) {
        rt->env.cache_ttl_ms = server->cache.ttl_ms;
        rt->env.cache_scope = server->cache.private_scope ? "private" : "public";
    }
    rt->env.mstate = rt->mstate;
    rt->env.pool = rt->pool;
    return rt;
}

void mcp_runtime_free(mcp_runtime *rt)
{
    if (!rt)
        return;
    mcp_runtime_stop(rt);
    mcp_pool_shutdown(rt->pool);
    mcp_slot_cache_free(rt->env.slots);
    mcp_methods_state_free(rt->mstate);
    mcp_buf_free(&rt->server_info);
    mcp_buf_free(&rt->meta_full);
    memset(&rt->state_key, 0, sizeof rt->state_key);
    for (int i = 0; i < 2; i++) {
        if (rt->stop_pipe[i] >= 0)
            close(rt->stop_pipe[i]);
        if (rt->reload_pipe[i] >= 0)
            close(rt->reload_pipe[i]);
    }
    free(rt);
}

const mcp_options *mcp_runtime_options(const mcp_runtime *rt) { return &rt->env.opt; }

const mcp_server *mcp_runtime_server(const mcp_runtime *rt) { return rt->env.server; }

void mcp_runtime_stop(mcp_runtime *rt)
{
    int saved = errno; /* a signal handler may call this */
    atomic_store(&rt->stopping, true);
    if (rt->stop_pipe[1] >= 0 && write(rt->stop_pipe[1], "", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

int mcp_runtime_stop_fd(const mcp_runtime *rt) { return rt->stop_pipe[0]; }

void mcp_runtime_reload(mcp_runtime *rt)
{
    int saved = errno; /* a signal handler may call this */
    atomic_store(&rt->reload, true);
    if (rt->reload_pipe[1] >= 0 && write(rt->reload_pipe[1], "", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

int mcp_runtime_reload_fd(const mcp_runtime *rt) { return rt->reload_pipe[0]; }

bool mcp_runtime_reload_taken(mcp_runtime *rt)
{
    char drain[64];
    while (read(rt->reload_pipe[0], drain, sizeof drain) > 0) {
    }
    return atomic_exchange(&rt->reload, false);
}

bool mcp_runtime_stopping(const mcp_runtime *rt) { return atomic_load(&rt->stopping); }

void mcp_runtime_resource_updated(mcp_runtime *rt, const char *uri) { mcp_methods_resource_updated(rt->mstate, uri); }

void mcp_runtime_list_changed(mcp_runtime *rt, mcp_list_kind which)
{
    mcp_listeners_list_changed(mcp_methods_listeners(rt->mstate), rt->env.server, which);
}

static bool enable(mcp_runtime *rt, mcp_list_kind kind, const char *name, bool enabled)
{
    if (!rt || !name)
        return false;
    int r = mcp_methods_enable(rt->mstate, kind, name, enabled);
    /* The lists already say it when the notification goes. */
    if (r == MCP_ENABLE_CHANGED)
        mcp_runtime_list_changed(rt, kind);
    return r >= 0;
}

bool mcp_runtime_tool_enable(mcp_runtime *rt, const char *name, bool enabled)
{
    return enable(rt, MCP_LIST_KIND_TOOLS, name, enabled);
}

bool mcp_runtime_resource_enable(mcp_runtime *rt, const char *name, bool enabled)
{
    return enable(rt, MCP_LIST_KIND_RESOURCES, name, enabled);
}

bool mcp_runtime_prompt_enable(mcp_runtime *rt, const char *name, bool enabled)
{
    return enable(rt, MCP_LIST_KIND_PROMPTS, name, enabled);
}

bool mcp_runtime_tool_inline(mcp_runtime *rt, const char *name, bool on)
{
    return rt && name && mcp_methods_tool_inline(rt->mstate, name, on);
}

bool mcp_runtime_tool_enabled(const mcp_runtime *rt, const char *name)
{
    return rt && name && mcp_methods_enabled(rt->mstate, MCP_LIST_KIND_TOOLS, name);
}

bool mcp_runtime_resource_enabled(const mcp_runtime *rt, const char *name)
{
    return rt && name && mcp_methods_enabled(rt->mstate, MCP_LIST_KIND_RESOURCES, name);
}

bool mcp_runtime_prompt_enabled(const mcp_runtime *rt, const char *name)
{
    return rt && name && mcp_methods_enabled(rt->mstate, MCP_LIST_KIND_PROMPTS, name);
}

mcp_session *mcp_session_new(mcp_runtime *rt, mcp_sink_fn sink, void *sink_ctx)
{
    return mcp_session_create(&rt->env, sink, sink_ctx);
}

mcp_json_limits mcp_runtime_json_limits(const mcp_runtime *rt) { return rt->env.limits; }

mcp_message *mcp_message_parse(mcp_runtime *rt, const char *text, size_t len)
{
    return mcp_env_message_parse(&rt->env, text, len);
}

void mcp_runtime_log(const mcp_runtime *rt, mcp_log_level level, const char *fmt, ...)
{
    if (!mcp_log_on(&rt->log, level))
        return;
    char text[960];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    mcp_log(&rt->log, level, "%s", text);
}

mcp_methods_state *mcp_runtime_methods(mcp_runtime *rt) { return rt->mstate; }
