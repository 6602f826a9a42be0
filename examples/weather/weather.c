/* weather.c: the weather server of the MCP Python SDK's "Structured output"
 * page, in C. weather.mcp.yaml declares the tools; mcpidlc generates
 * weather.mcp.h and weather.mcp.c; this file is everything a person writes. */
#include <stdio.h>
#include <string.h>

#include "weather.mcp.h"

typedef struct reading {
    const char *city;
    int64_t whole_degrees; /* get_temperature */
    double temperature;    /* get_weather, get_temperatures */
    double humidity;
    const char *conditions;
} reading;

static const reading READINGS[] = {
    {"London", 17, 16.2, 0.83, "Overcast"},
    {"Cairo", 34, 34.1, 0.21, "Sunny"},
    {"Reykjavik", 4, 4.4, 0.76, "Windy"},
};

static const reading *find(const char *city)
{
    for (size_t i = 0; i < sizeof READINGS / sizeof *READINGS; i++)
        if (strcmp(READINGS[i].city, city) == 0)
            return &READINGS[i];
    return NULL;
}

static mcp_status unknown_city(mcp_call *call, const char *city)
{
    return mcp_fail(call, "no reading for '%s' (known cities: London, Cairo, Reykjavik)", city);
}

mcp_status weather_get_temperature(mcp_call *call, const weather_get_temperature_args *in, int64_t *out)
{
    const reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = r->whole_degrees;
    return MCP_OK;
}

mcp_status weather_get_weather(mcp_call *call, const weather_get_weather_args *in, weather_WeatherData *out)
{
    const reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = (weather_WeatherData){.temperature = r->temperature, .humidity = r->humidity, .conditions = r->conditions};
    return MCP_OK;
}

mcp_status weather_get_weather_record(mcp_call *call, const weather_get_weather_record_args *in,
                                      weather_WeatherRecord *out)
{
    const reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = (weather_WeatherRecord){.temperature = r->temperature, .humidity = r->humidity, .conditions = r->conditions};
    return MCP_OK;
}

mcp_status weather_get_forecast(mcp_call *call, const weather_get_forecast_args *in, weather_WeatherData_list *out)
{
    const reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    out->len = (size_t)in->days;                                 /* 1 to 14, 3 when not given: the runtime checked it */
    out->items = mcp_alloc(call, out->len * sizeof *out->items); /* lives as long as the request */
    if (!out->items)
        return mcp_fail(call, "out of memory");
    for (size_t d = 0; d < out->len; d++)
        out->items[d] = (weather_WeatherData){r->temperature + (double)d, r->humidity, r->conditions};
    return MCP_OK;
}

mcp_status weather_get_temperatures(mcp_call *call, const weather_get_temperatures_args *in, weather_float_dict *out)
{
    out->len = in->cities.len;
    out->items = mcp_alloc(call, out->len * sizeof *out->items);
    if (out->len && !out->items)
        return mcp_fail(call, "out of memory");
    for (size_t i = 0; i < in->cities.len; i++) {
        const reading *r = find(in->cities.items[i]);
        if (!r)
            return unknown_city(call, in->cities.items[i]);
        out->items[i] = (weather_float_dict_item){.key = r->city, .value = r->temperature};
    }
    return MCP_OK;
}

mcp_status weather_get_weather_upstream(mcp_call *call, const weather_get_weather_upstream_args *in,
                                        weather_WeatherData *out)
{
    (void)in, (void)out;
    /* Data we do not control: the runtime validates it against WeatherData, and
     * this upstream forgot the humidity. The client receives the report. */
    return mcp_return_json_text(call, "{\"temperature\": 16.2, \"conditions\": \"Overcast\"}");
}

mcp_status weather_weather_report(mcp_call *call, const weather_weather_report_args *in, const char **out)
{
    const reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = mcp_sprintf(call, "%s: %.1f degrees Celsius, %s, humidity %.0f%%", r->city, r->temperature, r->conditions,
                       r->humidity * 100);
    return MCP_OK;
}

int main(int argc, char **argv) { return mcp_main(&weather_server, argc, argv); }
