-- wrk script of bench/run's HTTP load: tools/call get_weather {"city": "London"} over keep-alive
-- connections, every answer checked. Set by the environment (bench/http/load.py sets it):
--   MCP_PATH      the endpoint's path (/mcp)
--   MCP_VERSION   2025-11-25: requests in sessions (MCP_SESSIONS), or none for a stateless
--                 server; 2026-07-28: stateless POSTs, the revision in _meta and the headers
--   MCP_SESSIONS  a file of Mcp-Session-Id values, one a line, created beforehand (initialize
--                 and notifications/initialized); the requests go to them in turn
--   MCP_ACCEPT    the Accept header: application/json (JSON answers) or with text/event-stream
--   MCP_EXPECT    a string every answer must contain (its structuredContent)
--   MCP_OUT       where done() writes the figures as one JSON line
local path = os.getenv("MCP_PATH") or "/mcp"
local version = os.getenv("MCP_VERSION") or "2025-11-25"
local accept = os.getenv("MCP_ACCEPT") or "application/json"
local expect = os.getenv("MCP_EXPECT") or '"structuredContent"'
local sessions_file = os.getenv("MCP_SESSIONS")

local requests = {}
local next_req = 0
ok, fails = 0, 0
first_fail = ""

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local body
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = accept,
    ["MCP-Protocol-Version"] = version,
  }
  if version == "2026-07-28" then
    body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather",'
      .. '"arguments":{"city":"London"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
      .. '"io.modelcontextprotocol/clientCapabilities":{}}}}'
    headers["Mcp-Method"] = "tools/call"
    headers["Mcp-Name"] = "get_weather"
  else
    body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather",'
      .. '"arguments":{"city":"London"}}}'
  end
  local ids = {}
  if sessions_file and sessions_file ~= "" then
    for line in io.lines(sessions_file) do
      if line ~= "" then table.insert(ids, line) end
    end
  end
  if #ids == 0 then
    table.insert(requests, wrk.format("POST", path, headers, body))
  else
    for _, id in ipairs(ids) do
      headers["Mcp-Session-Id"] = id
      table.insert(requests, wrk.format("POST", path, headers, body))
    end
  end
end

function request()
  next_req = next_req % #requests + 1
  return requests[next_req]
end

function response(status, headers, body)
  if status == 200 and body and string.find(body, expect, 1, true) then
    ok = ok + 1
  else
    fails = fails + 1
    if first_fail == "" then
      first_fail = tostring(status) .. " " .. string.sub(tostring(body), 1, 200)
    end
  end
end

local function q(s)
  return '"' .. string.gsub(string.gsub(s, '[%c"\\]', " "), "%s+", " ") .. '"'
end

function done(summary, latency, _)
  local good, bad, why = 0, 0, ""
  for _, t in ipairs(threads) do
    good = good + t:get("ok")
    bad = bad + t:get("fails")
    if why == "" then why = t:get("first_fail") end
  end
  local e = summary.errors
  local out = io.open(os.getenv("MCP_OUT") or "/dev/stdout", "w")
  out:write(string.format(
    '{"requests":%d,"duration_us":%d,"checked_ok":%d,"failed":%d,"socket_errors":%d,'
      .. '"p50_us":%.1f,"p90_us":%.1f,"p99_us":%.1f,"p999_us":%.1f,"max_us":%.1f,"first_failure":%s}\n',
    summary.requests, summary.duration, good, bad,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency:percentile(99.9), latency.max, q(why)))
  out:close()
end
