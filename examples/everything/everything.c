/* everything.c: the handlers of everything.mcp.yaml. Each tool, reader and
 * prompt does what the MCP conformance suite expects of the server of the
 * same names; together they show every part of libmcpidl's handler API. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "everything.mcp.h"

/* A 1x1 PNG and a short 8 kHz WAV. */
static const char PNG[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
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

mcp_status everything_test_multiple_content_types(mcp_call *call, const everything_test_multiple_content_types_args *in)
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
    case MCP_ELICIT_ACCEPT:
        return "accept";
    case MCP_ELICIT_DECLINE:
        return "decline";
    case MCP_ELICIT_CANCEL:
        return "cancel";
    default:
        return "none";
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
    return mcp_content_text(
        call, mcp_sprintf(call, "User response: action=accept, username=%s, email=%s", form.username, form.email));
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
    return mcp_content_text(call,
                            mcp_sprintf(call, "name=%s email=%s age=%s plan=%s", f.name, f.email, age, PLAN[f.plan]));
}

/* ---------------------------------------------------------------- the rest */

mcp_status everything_json_schema_2020_12_tool(mcp_call *call, const everything_json_schema_2020_12_tool_args *in)
{
    return mcp_content_text(
        call, mcp_sprintf(call, "name=%s street=%s city=%s", in->name, in->address.street, in->address.city));
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

mcp_status everything_test_trigger_tool_change(mcp_call *call, const everything_test_trigger_tool_change_args *in)
{
    (void)in;
    mcp_list_changed(call, MCP_LIST_KIND_TOOLS);
    return mcp_content_text(call, "Mutation triggered");
}

mcp_status everything_test_trigger_prompt_change(mcp_call *call, const everything_test_trigger_prompt_change_args *in)
{
    (void)in;
    mcp_list_changed(call, MCP_LIST_KIND_PROMPTS);
    return mcp_content_text(call, "Mutation triggered");
}

/* Over Streamable HTTP the transport has already checked that the
 * Mcp-Param-Value header matches the argument; the handler sees the value. */
mcp_status everything_test_custom_headers(mcp_call *call, const everything_test_custom_headers_args *in)
{
    return mcp_content_text(call, mcp_sprintf(call, "value=%s", in->value));
}

/* ---------------------------------------------------------------- multi round-trip requests (2026-07-28)
 * Each request to the client below returns the client's answer when the
 * request carries it, and otherwise fails while the runtime asks the client
 * for it (mcp_input_pending). The handlers run again on each round, so they
 * do nothing before their requests that may not be done twice. In a
 * 2025-11-25 session the same calls send real requests and wait. */

/* The flat form {name: string} asked for under `key`. */
static const char *ask_text(mcp_call *call, const char *key, const char *message, const char *field)
{
    char schema[160];
    snprintf(schema, sizeof schema,
             "{\"type\":\"object\",\"properties\":{\"%s\":{\"type\":\"string\"}},\"required\":[\"%s\"]}", field, field);
    const mcp_json *content = NULL;
    const char *action = NULL;
    mcp_input_key(call, key);
    if (!mcp_elicit(call, message, schema, &content, &action) || !content)
        return NULL;
    const mcp_json *v = mcp_json_get(content, field);
    return v && v->kind == MCP_JSTRING ? v->s : NULL;
}

/* Why the handler has no answer: a round to come, or a failure. */
static mcp_status no_answer(mcp_call *call)
{
    if (mcp_input_pending(call))
        return MCP_ERROR; /* not sent: the client is asked first */
    return mcp_fail(call, "%s", mcp_client_error(call) ? mcp_client_error(call) : "the user did not answer");
}

mcp_status
everything_test_input_required_result_elicitation(mcp_call *call,
                                                  const everything_test_input_required_result_elicitation_args *in)
{
    (void)in;
    const char *name = ask_text(call, "user_name", "What is your name?", "name");
    if (!name)
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Hello, %s!", name));
}

mcp_status everything_test_input_required_result_sampling(mcp_call *call,
                                                          const everything_test_input_required_result_sampling_args *in)
{
    (void)in;
    const char *reply = NULL;
    mcp_input_key(call, "capital_question");
    if (!mcp_sample_text(call, "What is the capital of France?", 100, &reply))
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "The model says: %s", reply));
}

/* roots/list: how many roots the client has (-1: no answer). */
static long count_roots(mcp_call *call, const char *key)
{
    mcp_input_key(call, key);
    const mcp_json *r = mcp_client_request(call, "roots/list", mcp_json_new_object(mcp_call_arena(call)));
    const mcp_json *roots = mcp_json_get(r, "roots");
    return roots && roots->kind == MCP_JARRAY ? (long)roots->n : -1;
}

mcp_status
everything_test_input_required_result_list_roots(mcp_call *call,
                                                 const everything_test_input_required_result_list_roots_args *in)
{
    (void)in;
    long n = count_roots(call, "client_roots");
    if (n < 0)
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Found %ld root(s)", n));
}

/* {ok: boolean} under `confirm`: 1 yes, 0 no, -1 no answer. */
static int ask_confirm(mcp_call *call)
{
    const mcp_json *content = NULL;
    const char *action = NULL;
    mcp_input_key(call, "confirm");
    if (!mcp_elicit(call, "Please confirm",
                    "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}",
                    &content, &action))
        return -1;
    const mcp_json *ok = mcp_json_get(content, "ok");
    return ok && ok->kind == MCP_JBOOL && ok->b;
}

mcp_status
everything_test_input_required_result_request_state(mcp_call *call,
                                                    const everything_test_input_required_result_request_state_args *in)
{
    (void)in;
    int ok = ask_confirm(call);
    if (ok < 0)
        return no_answer(call);
    return mcp_content_text(call, ok ? "Confirmed" : "Not confirmed");
}

mcp_status everything_test_input_required_result_multiple_inputs(
    mcp_call *call, const everything_test_input_required_result_multiple_inputs_args *in)
{
    (void)in;
    /* Three requests, made before looking at any answer: one round asks all. */
    const char *name = ask_text(call, "user_name", "What is your name?", "name");
    const char *greeting = NULL;
    mcp_input_key(call, "greeting");
    bool sampled = mcp_sample_text(call, "Generate a greeting", 50, &greeting);
    long roots = count_roots(call, "client_roots");
    if (!name || !sampled || roots < 0)
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Name: %s; Greeting: %s; Roots: %ld", name, greeting, roots));
}

mcp_status
everything_test_input_required_result_multi_round(mcp_call *call,
                                                  const everything_test_input_required_result_multi_round_args *in)
{
    (void)in;
    const char *name = ask_text(call, "step1", "Step 1: What is your name?", "name");
    if (!name)
        return no_answer(call);
    const char *color = ask_text(call, "step2", "Step 2: What is your favorite color?", "color");
    if (!color)
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Multi-round complete for %s who likes %s", name, color));
}

mcp_status everything_test_input_required_result_tampered_state(
    mcp_call *call, const everything_test_input_required_result_tampered_state_args *in)
{
    (void)in;
    int ok = ask_confirm(call);
    if (ok < 0)
        return no_answer(call);
    return mcp_content_text(call, ok ? "Confirmed" : "Not confirmed");
}

mcp_status
everything_test_input_required_result_capabilities(mcp_call *call,
                                                   const everything_test_input_required_result_capabilities_args *in)
{
    (void)in;
    bool sampling = mcp_client_supports(call, "sampling"), elicitation = mcp_client_supports(call, "elicitation");
    if (!sampling && !elicitation)
        return mcp_content_text(call, "No supported capabilities declared");
    const char *reply = NULL, *name = NULL;
    if (sampling) {
        mcp_input_key(call, "sample_input");
        mcp_sample_text(call, "Sample request", 50, &reply);
    }
    if (elicitation)
        name = ask_text(call, "elicit_input", "What is your name?", "name");
    if ((sampling && !reply) || (elicitation && !name))
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Sampled: %s; Name: %s", reply ? reply : "-", name ? name : "-"));
}

mcp_status everything_test_missing_capability(mcp_call *call, const everything_test_missing_capability_args *in)
{
    (void)in;
    /* Fails without sampling: in 2026-07-28 the client is answered -32021. */
    if (mcp_require_client(call, "sampling") != MCP_OK)
        return MCP_ERROR;
    return mcp_content_text(call, "Success");
}

mcp_status everything_test_streaming_elicitation(mcp_call *call, const everything_test_streaming_elicitation_args *in)
{
    (void)in;
    mcp_progress(call, 0, 1, "Preparing the question");
    int ok = ask_confirm(call);
    if (ok < 0)
        return no_answer(call);
    return mcp_content_text(call, ok ? "Confirmed" : "Not confirmed");
}

mcp_status everything_test_logging_tool(mcp_call *call, const everything_test_logging_tool_args *in)
{
    (void)in;
    /* Sent only when the request asked for logs (its _meta logLevel, or
     * logging/setLevel in 2025-11-25). */
    mcp_log_message(call, MCP_LEVEL_INFO, NULL, "Logging tool ran");
    return mcp_content_text(call, "Logging evaluated");
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
    return mcp_resource_text(
        call, NULL, NULL,
        mcp_sprintf(call, "{\"id\":\"%s\",\"templateTest\":true,\"data\":\"Data for ID: %s\"}", vars->id, vars->id));
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

mcp_status everything_prompt_test_input_required_result_prompt(mcp_call *call)
{
    const char *context = ask_text(call, "user_context", "What context should the prompt use?", "context");
    if (!context)
        return no_answer(call);
    return mcp_content_text(call, mcp_sprintf(call, "Prompt with context: %s", context));
}

int main(int argc, char **argv) { return mcp_main(&everything_server, argc, argv); }
