/* everything.c: the handlers of everything.mcp.yaml. Each tool, reader and
 * prompt does what the MCP conformance suite expects of the server of the
 * same names; together they show every part of libmcpidl's handler API. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "everything.mcp.h"

/* A 1x1 PNG and a short 8 kHz WAV. */
static const char PNG[] = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
static const char WAV[] = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---------------------------------------------------------------- content of every kind */

mcp_status everything_test_simple_text(mcp_call *call, const everything_test_simple_text_args *in)
{
    (void)in;
    return mcp_content_text(call, "This is a simple text response for testing.");
}

mcp_status everything_test_image_content(mcp_call *call, const everything_test_image_content_args *in)
{
    (void)in;
    return mcp_content_image(call, "image/png", PNG);
}

mcp_status everything_test_audio_content(mcp_call *call, const everything_test_audio_content_args *in)
{
    (void)in;
    return mcp_content_audio(call, "audio/wav", WAV);
}

mcp_status everything_test_embedded_resource(mcp_call *call, const everything_test_embedded_resource_args *in)
{
    (void)in;
    return mcp_content_resource_text(call, "test://embedded-resource", "text/plain",
                                     "This is an embedded resource content.");
}

mcp_status everything_test_multiple_content_types(mcp_call *call,
                                                  const everything_test_multiple_content_types_args *in)
{
    (void)in;
    if (mcp_content_text(call, "Multiple content types test:") != MCP_OK ||
        mcp_content_image(call, "image/png", PNG) != MCP_OK)
        return MCP_ERROR;
    return mcp_content_resource_text(call, "test://mixed-content-resource", "application/json",
                                     "{\"test\":\"data\",\"value\":123}");
}

/* ---------------------------------------------------------------- logging, progress, errors */

mcp_status everything_test_tool_with_logging(mcp_call *call, const everything_test_tool_with_logging_args *in)
{
    (void)in;
    mcp_log_message(call, MCP_LEVEL_INFO, NULL, "Tool execution started");
    pause_ms(50);
    mcp_log_message(call, MCP_LEVEL_INFO, NULL, "Tool processing data");
    pause_ms(50);
    mcp_log_message(call, MCP_LEVEL_INFO, NULL, "Tool execution completed");
    return mcp_content_text(call, "Tool with logging executed successfully");
}

mcp_status everything_test_error_handling(mcp_call *call, const everything_test_error_handling_args *in)
{
    (void)in;
    return mcp_fail(call, "This tool intentionally returns an error for testing");
}

mcp_status everything_test_tool_with_progress(mcp_call *call, const everything_test_tool_with_progress_args *in)
{
    (void)in;
    for (int step = 0; step <= 100; step += 50) {
        mcp_progress(call, step, 100, NULL);
        if (step < 100)
            pause_ms(50);
        if (mcp_call_cancelled(call))
            return mcp_fail(call, "cancelled");
    }
    return mcp_content_text(call, "Progress test completed");
}

/* ---------------------------------------------------------------- asking the client */

mcp_status everything_test_sampling(mcp_call *call, const everything_test_sampling_args *in)
{
    const char *reply = NULL;
    if (!mcp_sample_text(call, in->prompt, 100, &reply))
        return mcp_fail(call, "sampling failed: %s", mcp_client_error(call));
    return mcp_content_text(call, mcp_sprintf(call, "LLM response: %s", reply ? reply : ""));
}

static const char *action_name(mcp_elicit_action a)
{
    switch (a) {
    case MCP_ELICIT_ACCEPT: return "accept";
    case MCP_ELICIT_DECLINE: return "decline";
    case MCP_ELICIT_CANCEL: return "cancel";
    default: return "none";
    }
}

/* A form the user did not fill: declined or cancelled (the tool's text says
 * so), or no usable answer (no answer, or one that does not fit the form). */
static mcp_status not_accepted(mcp_call *call, mcp_elicit_action action)
{
    if (action == MCP_ELICIT_NONE || action == MCP_ELICIT_ACCEPT)
        return mcp_fail(call, "elicitation failed: %s", mcp_client_error(call));
    return mcp_content_text(call, mcp_sprintf(call, "User response: action=%s", action_name(action)));
}

mcp_status everything_test_elicitation(mcp_call *call, const everything_test_elicitation_args *in)
{
    everything_user_response_form form;
    mcp_elicit_action action;
    if (!everything_elicit_user_response(call, in->message, &form, &action))
        return not_accepted(call, action);
    return mcp_content_text(call, mcp_sprintf(call, "User response: action=accept, username=%s, email=%s",
                                              form.username, form.email));
}

static const char *const STATUS[] = {"active", "inactive", "pending"};

mcp_status everything_test_elicitation_sep1034_defaults(mcp_call *call,
                                                        const everything_test_elicitation_sep1034_defaults_args *in)
{
    (void)in;
    everything_sep1034_defaults_form f;
    mcp_elicit_action action;
    if (!everything_elicit_sep1034_defaults(call, NULL, &f, &action))
        return not_accepted(call, action);
    return mcp_content_text(call, mcp_sprintf(call,
                                              "User response: action=accept, name=%s, age=%lld, score=%g, "
                                              "status=%s, verified=%s",
                                              f.name, (long long)f.age, f.score, STATUS[f.status],
                                              f.verified ? "true" : "false"));
}

static const char *const OPTION[] = {"option1", "option2", "option3"};
static const char *const VALUE[] = {"value1", "value2", "value3"};
static const char *const OPT[] = {"opt1", "opt2", "opt3"};

mcp_status everything_test_elicitation_sep1330_enums(mcp_call *call,
                                                     const everything_test_elicitation_sep1330_enums_args *in)
{
    (void)in;
    everything_sep1330_enums_form f;
    mcp_elicit_action action;
    if (!everything_elicit_sep1330_enums(call, NULL, &f, &action))
        return not_accepted(call, action);
    char multi[64] = "";
    for (size_t i = 0; f.has_untitledMulti && i < f.untitledMulti.len; i++)
        snprintf(multi + strlen(multi), sizeof multi - strlen(multi), "%s%s", i ? "," : "",
                 OPTION[f.untitledMulti.items[i]]);
    char titled[64] = "";
    for (size_t i = 0; f.has_titledMulti && i < f.titledMulti.len; i++)
        snprintf(titled + strlen(titled), sizeof titled - strlen(titled), "%s%s", i ? "," : "",
                 VALUE[f.titledMulti.items[i]]);
    return mcp_content_text(call, mcp_sprintf(call,
                                              "User response: action=accept, untitledSingle=%s, titledSingle=%s, "
                                              "legacyEnum=%s, untitledMulti=[%s], titledMulti=[%s]",
                                              f.has_untitledSingle ? OPTION[f.untitledSingle] : "-",
                                              f.has_titledSingle ? VALUE[f.titledSingle] : "-",
                                              f.has_legacyEnum ? OPT[f.legacyEnum] : "-", multi, titled));
}

mcp_status everything_test_typed_form(mcp_call *call, const everything_test_typed_form_args *in)
{
    (void)in;
    static const char *const PLAN[] = {"basic", "pro"};
    everything_user_info_form f;
    mcp_elicit_action action;
    if (!everything_elicit_user_info(call, NULL, &f, &action))
        return not_accepted(call, action);
    char age[32] = "unknown";
    if (f.has_age)
        snprintf(age, sizeof age, "%lld", (long long)f.age);
    return mcp_content_text(call, mcp_sprintf(call, "name=%s email=%s age=%s plan=%s", f.name, f.email, age,
                                              PLAN[f.plan]));
}

/* ---------------------------------------------------------------- the rest */

mcp_status everything_json_schema_2020_12_tool(mcp_call *call, const everything_json_schema_2020_12_tool_args *in)
{
    return mcp_content_text(call, mcp_sprintf(call, "name=%s street=%s city=%s", in->name, in->address.street,
                                              in->address.city));
}

mcp_status everything_test_reconnection(mcp_call *call, const everything_test_reconnection_args *in)
{
    (void)in;
    /* Over HTTP the client sees its stream end here, and resumes it to
     * read the result (SEP-1699). */
    mcp_close_stream(call);
    return mcp_content_text(call, "Reconnection test completed");
}

mcp_status everything_test_notify_update(mcp_call *call, const everything_test_notify_update_args *in)
{
    (void)in;
    mcp_resource_updated(call, "test://watched-resource");
    return mcp_content_text(call, "Announced an update of test://watched-resource");
}

/* ---------------------------------------------------------------- resources */

mcp_status everything_read_watched_resource(mcp_call *call, const char *uri)
{
    return mcp_resource_text(call, uri, NULL, "Watched resource content");
}

mcp_status everything_read_template_data(mcp_call *call, const char *uri, const everything_template_data_vars *vars)
{
    (void)uri;
    /* The id goes into JSON: keep to ids that need no escaping. */
    for (const char *p = vars->id; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            return mcp_not_found(call);
    return mcp_resource_text(call, NULL, NULL,
                             mcp_sprintf(call, "{\"id\":\"%s\",\"templateTest\":true,\"data\":\"Data for ID: %s\"}",
                                         vars->id, vars->id));
}

/* ---------------------------------------------------------------- prompts */

mcp_status everything_prompt_test_simple_prompt(mcp_call *call)
{
    return mcp_content_text(call, "This is a simple prompt for testing.");
}

mcp_status everything_prompt_test_prompt_with_arguments(mcp_call *call,
                                                        const everything_test_prompt_with_arguments_prompt_args *args)
{
    return mcp_content_text(call, mcp_sprintf(call, "Prompt with arguments: arg1='%s', arg2='%s'", args->arg1,
                                              args->arg2 ? args->arg2 : ""));
}

mcp_status everything_complete_test_prompt_with_arguments_arg1(mcp_call *call, const char *value,
                                                               const mcp_json *context)
{
    (void)context;
    static const char *const WORDS[] = {"test", "testing", "tested", "value", "valid"};
    for (size_t i = 0; i < sizeof WORDS / sizeof *WORDS; i++)
        if (strncmp(WORDS[i], value, strlen(value)) == 0 && mcp_complete_value(call, WORDS[i]) != MCP_OK)
            return MCP_ERROR;
    return MCP_OK;
}

mcp_status everything_prompt_test_prompt_with_embedded_resource(
    mcp_call *call, const everything_test_prompt_with_embedded_resource_prompt_args *args)
{
    if (mcp_content_resource_text(call, args->resourceUri, "text/plain", "Embedded resource content for testing.") !=
        MCP_OK)
        return MCP_ERROR;
    return mcp_content_text(call, "Please process the embedded resource above.");
}

mcp_status everything_prompt_test_prompt_with_image(mcp_call *call)
{
    if (mcp_content_image(call, "image/png", PNG) != MCP_OK)
        return MCP_ERROR;
    return mcp_content_text(call, "Please analyze the image above.");
}

int main(int argc, char **argv) { return mcp_main(&everything_server, argc, argv); }
