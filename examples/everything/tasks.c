/* tasks.c: the everything server's tools of the tasks extension
 * (io.modelcontextprotocol/tasks, 2026-07-28), those the conformance suite's
 * tasks scenarios call. A tool whose IDL says `task:` becomes a task where
 * its handler calls mcp_task_start; the handler then returns at once and
 * runs again as the task. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "everything.mcp.h"

/* Sleep ms milliseconds, in steps, until the call is cancelled: false then. */
static bool work_for(mcp_call *call, long ms)
{
    for (long done = 0; done < ms; done += 50) {
        if (mcp_call_cancelled(call))
            return false;
        long step = ms - done < 50 ? ms - done : 50;
        struct timespec ts = {0, step * 1000000L};
        nanosleep(&ts, NULL);
    }
    return !mcp_call_cancelled(call);
}

/* Why the handler has no answer yet: the client is asked first (a round of
 * the tools/call, or the task's input_required), or a failure. */
static mcp_status not_answered(mcp_call *call)
{
    if (mcp_input_pending(call))
        return MCP_ERROR; /* not sent: the client answers first */
    return mcp_fail(call, "%s", mcp_client_error(call) ? mcp_client_error(call) : "the user did not answer");
}

/* An elicitation of one field under `key`: the accepted form, or NULL. */
static const mcp_json *ask(mcp_call *call, const char *key, const char *message, const char *field, const char *type)
{
    char schema[200];
    snprintf(schema, sizeof schema,
             "{\"type\":\"object\",\"properties\":{\"%s\":{\"type\":\"%s\"}},\"required\":[\"%s\"]}", field, type,
             field);
    const mcp_json *content = NULL;
    const char *action = NULL;
    mcp_input_key(call, key);
    if (!mcp_elicit(call, message, schema, &content, &action))
        return NULL;
    return content ? content : mcp_json_new_object(mcp_call_arena(call));
}

mcp_status everything_greet(mcp_call *call, const everything_greet_args *in)
{
    return mcp_content_text(call, mcp_sprintf(call, "Hello, %s!", in->name));
}

mcp_status everything_slow_compute(mcp_call *call, const everything_slow_compute_args *in)
{
    /* A call of no length answers at once, task or not. */
    if (in->seconds > 0 && mcp_task_start(call))
        return MCP_OK;
    if (!work_for(call, (long)(in->seconds * 1000)))
        return mcp_fail(call, "cancelled");
    return mcp_content_text(
        call, mcp_sprintf(call, "%s%scomputed in %g s", in->label, in->label[0] ? ": " : "", in->seconds));
}

mcp_status everything_failing_job(mcp_call *call, const everything_failing_job_args *in)
{
    (void)in;
    if (mcp_task_start(call))
        return MCP_OK;
    work_for(call, 1000);
    return mcp_fail(call, "the job failed after a second of work");
}

mcp_status everything_protocol_error_job(mcp_call *call, const everything_protocol_error_job_args *in)
{
    (void)in;
    if (mcp_task_start(call))
        return MCP_OK;
    return mcp_fail_protocol(call, -32603, "Internal error: the job crashed");
}

mcp_status everything_confirm_delete(mcp_call *call, const everything_confirm_delete_args *in)
{
    if (mcp_task_start(call))
        return MCP_OK;
    const mcp_json *form = ask(call, "confirm_delete", mcp_sprintf(call, "Delete %s?", in->filename), "confirm",
                               "boolean");
    if (!form)
        return not_answered(call);
    const mcp_json *ok = mcp_json_get(form, "confirm");
    bool yes = ok && ok->kind == MCP_JBOOL && ok->b;
    return mcp_content_text(call, mcp_sprintf(call, yes ? "Deleted %s" : "Kept %s", in->filename));
}

mcp_status everything_multi_input(mcp_call *call, const everything_multi_input_args *in)
{
    (void)in;
    if (mcp_task_start(call))
        return MCP_OK;
    /* Both questions in one round: the client may answer them one at a time. */
    const mcp_json *name = ask(call, "name", "What is your name?", "name", "string");
    const mcp_json *confirm = ask(call, "confirm", "Shall I go on?", "confirm", "boolean");
    if (!name || !confirm)
        return not_answered(call);
    const mcp_json *n = mcp_json_get(name, "name"), *c = mcp_json_get(confirm, "confirm");
    return mcp_content_text(call,
                            mcp_sprintf(call, "name: %s, confirmed: %s", n && n->kind == MCP_JSTRING ? n->s : "(none)",
                                        c && c->kind == MCP_JBOOL && c->b ? "yes" : "no"));
}

mcp_status everything_test_tool_with_task(mcp_call *call, const everything_test_tool_with_task_args *in)
{
    (void)in;
    /* Asked in the tools/call itself (a multi round-trip request), before the task. */
    const mcp_json *form = ask(call, "user_name", "What is your name?", "name", "string");
    if (!form)
        return not_answered(call);
    if (mcp_task_start(call))
        return MCP_OK;
    const mcp_json *name = mcp_json_get(form, "name");
    if (!work_for(call, 300))
        return mcp_fail(call, "cancelled");
    return mcp_content_text(call,
                            mcp_sprintf(call, "Hello, %s!", name && name->kind == MCP_JSTRING ? name->s : "stranger"));
}
