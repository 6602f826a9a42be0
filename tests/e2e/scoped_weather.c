/* scoped_weather.c: the weather example with OAuth scopes on its tools, for the authorization
 * end-to-end tests (auth.test.mjs). The generated server table is copied and its tools given
 * scopes, as the IDL's `scopes:` key writes them: every tool needs weather:read (the server's
 * default), get_weather_upstream needs weather:admin. */
#include <string.h>

#include "weather.mcp.h"

static const char *const READ[] = {"weather:read"};
static const char *const ADMIN[] = {"weather:admin"};

int main(int argc, char **argv)
{
    static mcp_tool tools[64];
    static mcp_server server;
    server = weather_server;
    if (server.ntools > sizeof tools / sizeof *tools)
        return 1;
    memcpy(tools, server.tools, server.ntools * sizeof *tools);
    for (size_t i = 0; i < server.ntools; i++)
        if (strcmp(tools[i].name, "get_weather_upstream") == 0) {
            tools[i].scopes = ADMIN;
            tools[i].nscopes = 1;
        }
    server.tools = tools;
    server.scopes = READ;
    server.nscopes = 1;
    return mcp_main(&server, argc, argv);
}
