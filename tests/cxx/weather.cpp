// weather.cpp: the weather example's handlers in C++17, over the generated
// weather.mcp.h: every public header and the generated one compile as C++
// (tests/cxx/run.py builds and runs it with g++ and clang++).
#include <mcpidl/api.h>
#include <mcpidl/arena.h>
#include <mcpidl/buf.h>
#include <mcpidl/codec.h>
#include <mcpidl/generated.h>
#include <mcpidl/http.h>
#include <mcpidl/json.h>
#include <mcpidl/jsonw.h>
#include <mcpidl/mcpidl.h>
#include <mcpidl/mock.h>
#include <mcpidl/report.h>
#include <mcpidl/runtime.h>
#include <mcpidl/transport.h>
#include <mcpidl/types.h>

#include "weather.mcp.h"

#include <array>
#include <cstring>
#include <string>
#include <string_view>

namespace
{

struct Reading {
    std::string_view city;
    std::int64_t whole_degrees;
    double temperature;
    double humidity;
    const char *conditions;
};

constexpr std::array<Reading, 3> READINGS{{
    {"London", 17, 16.2, 0.83, "Overcast"},
    {"Cairo", 34, 34.1, 0.21, "Sunny"},
    {"Reykjavik", 4, 4.4, 0.76, "Windy"},
}};

const Reading *find(const char *city)
{
    for (const Reading &r : READINGS)
        if (r.city == city)
            return &r;
    return nullptr;
}

mcp_status unknown_city(mcp_call *call, const char *city)
{
    return mcp_fail(call, "no reading for '%s' (known cities: London, Cairo, Reykjavik)", city);
}

weather_WeatherData data_of(const Reading &r, double plus = 0.0)
{
    weather_WeatherData d = weather_WeatherData_init_default; // a braced initializer: C++ too
    d.temperature = r.temperature + plus;
    d.humidity = r.humidity;
    d.conditions = r.conditions;
    return d;
}

} // namespace

// The generated header declares the handlers inside extern "C": these definitions have C linkage.
mcp_status weather_get_temperature(mcp_call *call, const weather_get_temperature_args *in, int64_t *out)
{
    const Reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = r->whole_degrees;
    return MCP_OK;
}

mcp_status weather_get_weather(mcp_call *call, const weather_get_weather_args *in, weather_WeatherData *out)
{
    const Reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    *out = data_of(*r);
    return MCP_OK;
}

mcp_status weather_get_weather_record(mcp_call *call, const weather_get_weather_record_args *in,
                                      weather_WeatherRecord *out)
{
    const Reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    weather_WeatherRecord rec = weather_WeatherRecord_init_zero;
    rec.temperature = r->temperature;
    rec.humidity = r->humidity;
    rec.conditions = r->conditions;
    *out = rec;
    return MCP_OK;
}

mcp_status weather_get_forecast(mcp_call *call, const weather_get_forecast_args *in, weather_WeatherData_list *out)
{
    const Reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    out->len = static_cast<size_t>(in->days);
    out->items = static_cast<weather_WeatherData *>(mcp_alloc(call, out->len * sizeof *out->items));
    if (!out->items)
        return mcp_fail(call, "out of memory");
    for (size_t d = 0; d < out->len; d++)
        out->items[d] = data_of(*r, static_cast<double>(d));
    return MCP_OK;
}

mcp_status weather_get_temperatures(mcp_call *call, const weather_get_temperatures_args *in, weather_float_dict *out)
{
    out->len = in->cities.len;
    out->items = static_cast<weather_float_dict_item *>(mcp_alloc(call, out->len * sizeof *out->items));
    if (out->len && !out->items)
        return mcp_fail(call, "out of memory");
    for (size_t i = 0; i < in->cities.len; i++) {
        const Reading *r = find(in->cities.items[i]);
        if (!r)
            return unknown_city(call, in->cities.items[i]);
        out->items[i].key = in->cities.items[i];
        out->items[i].value = r->temperature;
    }
    return MCP_OK;
}

mcp_status weather_get_weather_upstream(mcp_call *call, const weather_get_weather_upstream_args *in,
                                        weather_WeatherData *out)
{
    // Upstream JSON through the type's generated from_json, then back as raw JSON.
    static const char upstream[] = R"({"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"})";
    const char *error = nullptr;
    if (!weather_WeatherData_from_json(upstream, sizeof upstream - 1, out, mcp_call_arena(call), &error))
        return mcp_fail(call, "upstream: %s", error ? error : "?");
    std::string note = std::string(out->conditions) + " in " + in->city;
    out->conditions = mcp_strdup(call, note.c_str());
    return out->conditions ? MCP_OK : mcp_fail(call, "out of memory");
}

mcp_status weather_weather_report(mcp_call *call, const weather_weather_report_args *in, const char **out)
{
    const Reading *r = find(in->city);
    if (!r)
        return unknown_city(call, in->city);
    std::string text = std::string(r->city) + " (C++): " + r->conditions;
    *out = mcp_strdup(call, text.c_str());
    return *out ? MCP_OK : mcp_fail(call, "out of memory");
}

int main(int argc, char **argv) { return mcp_main(&weather_server, argc, argv); }
