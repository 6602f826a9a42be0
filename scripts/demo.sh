#!/usr/bin/env bash
# Build mcpidl, compile the bundled example IDL, build the weather server, and
# make real calls to it over stdio: the main job, end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target mcpidlc weather-server >/dev/null

echo "== mcpidlc --print-tools examples/weather/weather.mcp.yaml (first tool)"
build/compiler/mcpidlc --print-tools examples/weather/weather.mcp.yaml | python3 -c '
import json, sys; print(json.dumps(json.load(sys.stdin)[0], indent=2))'

echo "== calls to build/examples/weather-server over stdio"
{
  printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"demo","version":"1"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"London"}}}'
  printf '%s\n' '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Cairo","days":2}}}'
  printf '%s\n' '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_weather_upstream","arguments":{"city":"London"}}}'
} | build/examples/weather-server

echo "== the same server, a 2026-07-28 request: no initialize, the revision in _meta"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"city":"London"}}}' \
  | build/examples/weather-server
