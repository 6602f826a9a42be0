/* weather_handlers.c: handlers for the weather example's tools, for the fuzz
 * targets that drive a whole server (fuzz_jsonrpc, fuzz_http).
 *
 * Deterministic and local (no upstream, no clock), and each goes down a
 * different path of the runtime with data from the request: typed output,
 * raw JSON text from the client validated as the output, a list and a dict
 * sized by the arguments (duplicate keys included), content blocks, log
 * messages and progress, and failures.
 */
#include <string.h>

#include "weather.mcp.h"

/* "fail" fails every tool: the isError path with a message. */
static bool wants_failure(const char *city) { return strcmp(city, "fail") == 0; }

mcp_status weather_get_temperature(mcp_call *call, const weather_get_temperature_args *in, int64_t *out)
{
    if (wants_failure(in->city))
        return mcp_fail(call, "no reading for %s", in->city);
    *out = (int64_t)strlen(in->city) - 20;
    return MCP_OK;
}

mcp_status weather_get_weather(mcp_call *call, const weather_get_weather_args *in, weather_WeatherData *out)
{
    if (wants_failure(in->city))
        return mcp_fail(call, "no reading for %s", in->city);
    out->temperature = (double)strlen(in->city) / 4.0;
    out->humidity = 0.5;
    out->conditions = in->city; /* the client's string, encoded back */
    return MCP_OK;
}

/* The city is taken as the handler's raw JSON answer: the client chooses the
 * text that is parsed and validated as a WeatherRecord. */
mcp_status weather_get_weather_record(mcp_call *call, const weather_get_weather_record_args *in,
                                      weather_WeatherRecord *out)
{
    (void)out;
    return mcp_return_json_text(call, in->city);
}

mcp_status weather_get_forecast(mcp_call *call, const weather_get_forecast_args *in, weather_WeatherData_list *out)
{
    if (wants_failure(in->city))
        return mcp_fail(call, "no forecast for %s", in->city);
    out->items = mcp_alloc(call, (size_t)in->days * sizeof *out->items);
    if (!out->items)
        return mcp_fail(call, "out of memory");
    out->len = (size_t)in->days;
    for (size_t i = 0; i < out->len; i++)
        out->items[i] = (weather_WeatherData){(double)i, 0.25, in->city};
    return MCP_OK;
}

mcp_status weather_get_temperatures(mcp_call *call, const weather_get_temperatures_args *in, weather_float_dict *out)
{
    out->items = mcp_alloc(call, in->cities.len * sizeof *out->items + 1);
    if (!out->items)
        return mcp_fail(call, "out of memory");
    out->len = in->cities.len;
    for (size_t i = 0; i < out->len; i++)
        out->items[i] = (weather_float_dict_item){in->cities.items[i], (double)i * 1.5};
    return MCP_OK;
}

/* What a handler sends the client besides its result: log messages and progress. */
mcp_status weather_get_weather_upstream(mcp_call *call, const weather_get_weather_upstream_args *in,
                                        weather_WeatherData *out)
{
    mcp_log_message(call, MCP_LEVEL_INFO, "upstream", "asking for %s", in->city);
    mcp_log_message(call, MCP_LEVEL_DEBUG, NULL, "%s", in->city);
    mcp_progress(call, 1, 2, in->city);
    mcp_progress(call, 2, 2, NULL);
    if (mcp_call_cancelled(call))
        return mcp_fail(call, "cancelled");
    out->temperature = -1.5;
    out->humidity = 1;
    out->conditions = "upstream";
    return MCP_OK;
}

mcp_status weather_weather_report(mcp_call *call, const weather_weather_report_args *in, const char **out)
{
    if (wants_failure(in->city))
        return mcp_fail(call, "no report for %s", in->city);
    *out = mcp_sprintf(call, "Weather in %s: fine.", in->city);
    return *out ? MCP_OK : mcp_fail(call, "out of memory");
}
