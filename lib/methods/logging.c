/* logging.c: logging/setLevel, and the messages a handler sends before its
 * result: log messages (notifications/message), progress
 * (notifications/progress), and the end of its stream (mcp_close_stream). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/methods.h"
#include "mcpidl/jsonw.h"

/* MCP's log levels, least severe first (mcp_level's order). */
static const char *const LEVELS[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
#define NLEVELS ((int)(sizeof LEVELS / sizeof *LEVELS))

static void set_level_start(mcp_req *r)
{
    const mcp_json *params = mcp_req_params(r);
    const mcp_json *level = mcp_json_get(params, "level");
    for (int i = 0; i < NLEVELS; i++)
        if (mcp_json_str_is(level, LEVELS[i])) {
            mcp_session_set_log_min(mcp_req_session(r), i);
            mcp_req_result(r, "{}", 2);
            return;
        }
    mcp_req_error(r, MCP_RPC_INVALID_PARAMS,
                  "Invalid params: level must be one of debug, info, notice, warning, error, "
                  "critical, alert, emergency");
}

/* A number as an integer when it is one (progress 50, not 50.0). */
static void put_number(mcp_buf *b, double d)
{
    if (d > -9007199254740992.0 && d < 9007199254740992.0 && (double)(int64_t)d == d)
        mcp_json_int(b, (int64_t)d);
    else
        mcp_json_double(b, d);
}

static mcp_job *call_job(const mcp_call *call) { return call ? call->job : NULL; }

/* One whole message from the job's handler, not final. */
static bool job_send(mcp_job *j, const mcp_buf *msg) { return j && !msg->oom && mcp_job_send(j, msg->data, msg->len); }

bool mcp_log_enabled(const mcp_call *call, mcp_level level)
{
    mcp_job *j = call_job(call);
    return j && mcp_job_live(j) && (int)level >= MCP_LEVEL_DEBUG && (int)level < NLEVELS &&
           (int)level >= mcp_job_ctx(j)->log_min;
}

/* notifications/message with data[0..n) as the (already written) value. */
static void send_log(mcp_job *j, mcp_level level, const char *logger, const char *data, size_t n)
{
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{"
                     "\"level\":");
    mcp_json_cstring(&m, LEVELS[level]);
    if (logger) {
        mcp_buf_puts(&m, ",\"logger\":");
        mcp_handler_string(&m, logger, strlen(logger));
    }
    mcp_buf_puts(&m, ",\"data\":");
    mcp_buf_put(&m, data, n);
    mcp_buf_puts(&m, "}}");
    job_send(j, &m);
    mcp_buf_free(&m);
}

void mcp_log_message(mcp_call *call, mcp_level level, const char *logger, const char *fmt, ...)
{
    if (!mcp_log_enabled(call, level) || !fmt)
        return;
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text)
        vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (!text)
        return;
    mcp_buf d;
    mcp_buf_init(&d);
    mcp_handler_string(&d, text, (size_t)n);
    free(text);
    if (!d.oom)
        send_log(call_job(call), level, logger, d.data, d.len);
    mcp_buf_free(&d);
}

void mcp_log_json(mcp_call *call, mcp_level level, const char *logger, const mcp_json *data)
{
    if (!mcp_log_enabled(call, level))
        return;
    mcp_buf d;
    mcp_buf_init(&d);
    if (data)
        mcp_json_write(&d, data, -1); /* a non-finite float is written as null */
    else
        mcp_buf_puts(&d, "null");
    if (!d.oom)
        send_log(call_job(call), level, logger, d.data, d.len);
    mcp_buf_free(&d);
}

bool mcp_progress(mcp_call *call, double progress, double total, const char *message)
{
    mcp_job *j = call_job(call);
    const mcp_json *token = call ? mcp_json_get(call->meta, "progressToken") : NULL;
    if (!j || !mcp_job_live(j) || !token ||
        (token->kind != MCP_JINT && token->kind != MCP_JBIGINT && token->kind != MCP_JSTRING))
        return false;
    if (progress != progress || progress - progress != 0 || total != total || total - total != 0)
        return false; /* NaN or infinite */
    mcp_buf m;
    mcp_buf_init(&m);
    mcp_buf_puts(&m, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{"
                     "\"progressToken\":");
    mcp_json_write(&m, token, -1); /* as received: a string, or an integer's digits */
    mcp_buf_puts(&m, ",\"progress\":");
    put_number(&m, progress);
    if (total > 0) {
        mcp_buf_puts(&m, ",\"total\":");
        put_number(&m, total);
    }
    if (message) {
        mcp_buf_puts(&m, ",\"message\":");
        mcp_handler_string(&m, message, strlen(message));
    }
    mcp_buf_puts(&m, "}}");
    bool ok = job_send(j, &m);
    mcp_buf_free(&m);
    return ok;
}

void mcp_close_stream(mcp_call *call)
{
    mcp_job *j = call_job(call);
    if (j)
        mcp_job_close_stream(j);
}

const mcp_method mcp_method_set_level = {
    .name = "logging/setLevel", .flags = MCP_METHOD_LEGACY_ONLY, .start = set_level_start};
