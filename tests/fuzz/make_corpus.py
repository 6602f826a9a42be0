#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets: tests/fuzz/corpus/fuzz_NAME/.

usage: tests/fuzz/make_corpus.py

From the project's own test data: the IDL files of tests/golden, tests/diagnostics and the
examples (fuzz_idl); the type expressions they use (fuzz_texpr); the arguments and returns of
every golden call (fuzz_json, and fuzz_decode with the two bytes that choose the golden type);
JSON-RPC sessions with the weather example in the shape the tests send them (fuzz_jsonrpc);
HTTP requests as the Streamable HTTP tests send them (fuzz_http), and sequences of them
(fuzz_http_route). Files are named after their
content's origin; running it again rewrites the same files. Inputs the fuzzers found and that
are worth keeping go to tests/regression/ instead.
"""
import glob
import json
import os
import re
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def golden_cases():
    """The golden cases in the order the fuzz_decode table has them (sorted paths)."""
    return sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.mcp.yaml")))


def idl_corpus():
    for path in golden_cases():
        write("fuzz_idl", "golden-" + os.path.basename(path), open(path, "rb").read())
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "diagnostics", "*.mcp.yaml"))):
        write("fuzz_idl", "diag-" + os.path.basename(path), open(path, "rb").read())
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*", "*.mcp.yaml"))):
        write("fuzz_idl", "example-" + os.path.basename(path), open(path, "rb").read())
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "serverjson", "*.mcp.yaml"))):
        write("fuzz_idl", "serverjson-" + os.path.basename(path), open(path, "rb").read())


TYPE_RE = re.compile(r"(?:returns|type):\s*(\"[^\"]*\"|'[^']*'|[^{#\n,}][^#\n,}]*)")


def texpr_corpus():
    seen = set()
    for path in golden_cases() + sorted(glob.glob(os.path.join(ROOT, "tests", "diagnostics", "*.mcp.yaml"))):
        for m in TYPE_RE.finditer(open(path, encoding="utf-8", errors="replace").read()):
            t = m.group(1).strip()
            if t[:1] == '"' and t[-1:] == '"':
                t = t[1:-1]
            if t and t not in seen:
                seen.add(t)
    seen.update([
        "tuple[int, ...]", "dict[int, list[set[str]]]", "Union[int, str, None]",
        "Literal['a\\x41\\u00e9', \"b\\n\", -12, True, None]", "(int | (str | None))",
        "Optional[Literal[99999999999999999999]]", "list[" * 70 + "int" + "]" * 70,
    ])
    for i, t in enumerate(sorted(seen)):
        write("fuzz_texpr", "texpr-%03d" % i, t)


def formats_corpus():
    """fuzz_formats: a byte choosing the format (datetime, date, time, timedelta, uuid, url,
    decimal), then a text: the edge cases of the format differential test (tests/formats)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "formats"))
    import run as formats_run  # noqa: E402
    names = ["datetime", "date", "time", "timedelta", "uuid", "url", "decimal"]
    n = 0
    for k, name in enumerate(names):
        for v in formats_run.EDGES[name]:
            if isinstance(v, str):
                write("fuzz_formats", "%s-%03d" % (name, n), chr(k) + v)
                n += 1


def golden_types():
    """(case, tool, 'args'|'result') in fuzz_decode's table order."""
    order = []
    for path in golden_cases():
        idl = yaml.safe_load(open(path, encoding="utf-8"))
        case = os.path.basename(os.path.dirname(path))
        for tool, spec in (idl.get("tools") or {}).items():
            order.append((case, tool, "args"))
            returns = spec.get("returns") if isinstance(spec, dict) else None
            if returns != "content":
                order.append((case, tool, "result"))
    return order


def json_and_decode_corpus():
    index = {k: i for i, k in enumerate(golden_types())}
    for path in golden_cases():
        case = os.path.basename(os.path.dirname(path))
        calls_path = os.path.join(os.path.dirname(path), "calls.json")
        if not os.path.exists(calls_path):  # a schema-only case
            continue
        calls = json.load(open(calls_path, encoding="utf-8"))
        for i, c in enumerate(calls):
            for part, key in (("args", "arguments"), ("result", "returns")):
                if key not in c:
                    continue
                text = compact(c[key]).encode()
                write("fuzz_json", "%s-%d-%s" % (case, i, part), text)
                k = index.get((case, c["tool"], part))
                if k is not None:
                    write("fuzz_decode", "%s-%d-%s" % (case, i, part), bytes([k & 255, k >> 8]) + text)
    for name, text in {
        "numbers": "[0,-0,1e308,-1.5e-308,123456789012345678901234567890,-9223372036854775808,0.1]",
        "strings": '["\\u0000\\ud83d\\ude00\\"\\\\\\/\\b\\f\\n\\r\\t","\u00e9\u4e2d"]',
        "nested": "[[[[{\"a\":[{},[]]}]]]]",
        "duplicate": '{"a":1,"a":2}',
        "literals": "[true,false,null]",
    }.items():
        write("fuzz_json", "hand-" + name, text)


WEATHER_CALLS = [
    ("get_temperature", {"city": "London"}),
    ("get_temperature", {"city": "fail"}),
    ("get_weather", {"city": "Paris \u00e9\U0001f600"}),
    ("get_weather", {"city": 3}),
    ("get_weather_record", {"city": '{"temperature": 1.5, "humidity": 0.5, "conditions": "sunny"}'}),
    ("get_weather_record", {"city": '{"temperature": "hot"}'}),
    ("get_weather_record", {"city": "not json"}),
    ("get_forecast", {"city": "Oslo", "days": 2}),
    ("get_forecast", {"city": "Oslo", "days": 15}),
    ("get_temperatures", {"cities": ["a", "b", "c"]}),
    ("get_weather_upstream", {"city": "Rome"}),
    ("weather_report", {"city": "Lima"}),
    ("nope", {}),
]


def jsonrpc_corpus():
    init = compact({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}}})
    inited = compact({"jsonrpc": "2.0", "method": "notifications/initialized"})
    head = init + "\n" + inited + "\n"
    for i, (tool, args) in enumerate(WEATHER_CALLS):
        call = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}
        if tool == "get_weather_upstream":
            call["params"]["_meta"] = {"progressToken": "p1"}
        write("fuzz_jsonrpc", "call-%02d-%s" % (i, tool), head + compact(call) + "\n")
    cursor = compact({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": "3"}})
    sessions = {
        "list": head + compact({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}) + "\n" + cursor + "\n",
        "ping-before-init": compact({"jsonrpc": "2.0", "id": "a", "method": "ping"}) + "\n" + head,
        "batch": head + "[" + compact({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "," +
                 compact({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}) + "]\n",
        "garbage": head + "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n\r\n[]\n{}\nnull\n",
        "set-level": head + compact({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                                     "params": {"level": "debug"}}) + "\n" +
                     compact({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                              "params": {"name": "get_weather_upstream", "arguments": {"city": "x"},
                                         "_meta": {"progressToken": 7}}}) + "\n",
        "response-from-client": head + compact({"jsonrpc": "2.0", "id": 99, "result": {}}) + "\n",
        "crlf-no-final-newline": init + "\r\n" + inited + "\r\n" +
                                 compact({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        "too-large": head + "[" + "1," * 2100 + "1]\n" + compact({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n",
    }
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {}},
            "io.modelcontextprotocol/logLevel": "debug"}
    sessions["modern"] = "".join(compact(m) + "\n" for m in [
        {"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"_meta": dict(meta, progressToken=1), "name": "get_weather", "arguments": {"city": "Oslo"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"_meta": meta, "name": "get_weather", "arguments": {"city": "Oslo"},
                    "inputResponses": {"input_1": {"action": "accept", "content": {}}},
                    "requestState": "eyJ2IjoxfQ.AAAA"}},
        {"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
         "params": {"_meta": meta, "notifications": {"toolsListChanged": True, "resourceSubscriptions": ["x://y"]}}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "L"}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": meta}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/list",
         "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "1999-01-01",
                              "io.modelcontextprotocol/clientCapabilities": {}}}},
    ])
    for name, text in sessions.items():
        write("fuzz_jsonrpc", name, text)


def http_corpus():
    init = compact({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}}})
    call = compact({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "get_weather_upstream", "arguments": {"city": "Rome"},
                               "_meta": {"progressToken": "t"}}})

    def post(body, headers="", accept="application/json, text/event-stream"):
        return ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: %s\r\n"
                "Content-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s"
                % (accept, headers, len(body.encode()), body))

    sid = "Mcp-Session-Id: @SID@\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    requests = {
        "initialize-json": post(init, accept="application/json"),
        "initialize-sse": post(init, accept="text/event-stream"),
        "call-sse": post(call, sid),
        "call-json": post(call, sid, accept="application/json"),
        "notification": post(compact({"jsonrpc": "2.0", "method": "notifications/initialized"}), sid),
        "no-session": post(call),
        "unknown-session": post(call, "Mcp-Session-Id: 0123456789abcdef\r\n"),
        "bad-version": post(call, "Mcp-Session-Id: @SID@\r\nMCP-Protocol-Version: 1999-01-01\r\n"),
        "bad-host": post(init).replace("Host: 127.0.0.1:8080", "Host: evil.example:80"),
        "bad-origin": post(init, "Origin: http://evil.example\r\n"),
        "good-origin": post(init, "Origin: http://localhost:8080\r\n"),
        "ipv6-host": post(init).replace("Host: 127.0.0.1:8080", "Host: [::1]:8080"),
        "too-large": post("[" + "1," * 3000 + "1]", sid),
        "chunked": "POST /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n"
                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n"
                   % (len(init), init),
        "get-sse": "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n" + sid + "\r\n",
        "get-resume": "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n" + sid +
                      "Last-Event-ID: 1-0\r\n\r\n",
        "get-bad-event-id": "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n" + sid +
                            "Last-Event-ID: 18446744073709551616-x\r\n\r\n",
        "delete": "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\n" + sid + "\r\n",
        "put": "PUT /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "wrong-path": "GET /other HTTP/1.1\r\nHost: localhost\r\n\r\n",
        "not-acceptable": post(init, accept="text/html"),
        "wrong-type": post(init).replace("Content-Type: application/json", "Content-Type: text/plain"),
        "http10": "GET /mcp HTTP/1.0\r\n\r\n",
    }
    for name, text in requests.items():
        write("fuzz_http", name, text)


def state_corpus():
    """fuzz_state: a mode byte (odd: the rest is a payload the target seals; even: a token as
    sent), a byte choosing the inputResponses, then the payload or token."""
    import hashlib
    params = {"arguments": {"city": "Oslo"}, "name": "get_weather"}
    digest = hashlib.sha256(json.dumps(params, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    who = {"action": "accept", "content": {"name": "x"}}
    say = {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}
    payloads = {
        "fresh": {"v": 1, "m": "tools/call", "d": digest, "e": 4102444800, "a": {}},
        "one-answer": {"v": 1, "m": "tools/call", "d": digest, "e": 4102444800, "a": {"who": who}},
        "both-answers": {"v": 1, "m": "tools/call", "d": digest, "e": 4102444800,
                         "a": {"who": who, "input_2": say}},
        "expired": {"v": 1, "m": "tools/call", "d": digest, "e": 1, "a": {}},
        "foreign": {"v": 1, "m": "prompts/get", "d": digest, "e": 4102444800, "a": {}},
        "caller": {"v": 1, "m": "tools/call", "d": digest, "e": 4102444800, "a": {}, "p": "alice"},
        "version-2": {"v": 2, "m": "tools/call", "d": digest, "e": 4102444800, "a": {}},
    }
    for i, (name, payload) in enumerate(payloads.items()):
        write("fuzz_state", "sealed-" + name, b"\x01" + bytes([i % 4]) + compact(payload).encode())
    for name, token in {"malformed": "not a state", "no-dot": "eyJ2IjoxfQ",
                        "bad-mac": "eyJ2IjoxfQ." + "A" * 43, "empty": ""}.items():
        write("fuzz_state", "token-" + name, b"\x00\x01" + token.encode())


def http_route_corpus():
    """Sequences of requests for fuzz_http_route: "METHOD URL", headers, a blank line, the body;
    requests separated by lines "%%". Streams are numbered per session from 1, one per POST
    the session takes (a notification's too), so the seeds' Last-Event-IDs follow that."""
    init = compact({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "fuzz", "version": "1"}}})
    initialized = compact({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(tool, args, id=2, meta=None):
        params = {"name": tool, "arguments": args}
        if meta:
            params["_meta"] = meta
        return compact({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})

    def req(method, headers="", body="", url="/mcp", host="localhost"):
        return "%s %s HTTP/1.1\nHost: %s\n%s\n%s" % (method, url, host, headers, body)

    sid = "Mcp-Session-Id: @SID@\nMCP-Protocol-Version: 2025-11-25\n"

    def post(body, headers=sid, accept="application/json, text/event-stream"):
        return req("POST", "Accept: %s\nContent-Type: application/json\n%s" % (accept, headers),
                   body)

    def get(headers=""):
        return req("GET", "Accept: text/event-stream\n" + sid + headers)

    delete = req("DELETE", sid)
    open_json = [post(init, "", "application/json"), post(initialized)]
    open_sse = [post(init, "", "text/event-stream"), post(initialized)]
    upstream = call("get_weather_upstream", {"city": "Rome"}, meta={"progressToken": "t"})
    seqs = {
        "open-call-delete": open_json + [post(call("get_weather", {"city": "Oslo"}), accept="application/json"),
                                         delete, post(call("get_weather", {"city": "Oslo"}))],
        "sse-call-resume": open_sse + [post(upstream), get("Last-Event-ID: 3-0\n"),
                                       get("Last-Event-ID: 3-2\n"), get("Last-Event-ID: 99-0\n")],
        "standalone-stream": [post(compact({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
                                            "params": {"level": "debug"}})),
                              get(), post(upstream, accept="application/json"), get()],
        "batch-and-bad-bodies": [post("[" + init + "]", "", "application/json"),
                                 post("[" + compact({"jsonrpc": "2.0", "id": 4, "method": "ping"}) + "]"),
                                 post('{"jsonrpc":"1.0","id":5,"method":"ping"}'),
                                 post("{"), post(""), post("[]"),
                                 post(compact({"jsonrpc": "2.0", "id": 6, "result": {}}))],
        "tools": [post(call(t, a, id=10 + i), accept="application/json" if i % 2 else "text/event-stream")
                  for i, (t, a) in enumerate([
                      ("get_temperature", {"city": "fail"}),
                      ("get_weather_record", {"city": '{"temperature":1,"humidity":0.5,"conditions":"x"}'}),
                      ("get_forecast", {"city": "Rome", "days": 3}),
                      ("get_temperatures", {"cities": ["a", "b", "a"]}),
                      ("weather_report", {"city": "Paris"}),
                      ("nope", {})])],
        "too-many-sessions": [post(init, "", "application/json")] * 6,
        "modern": [req("POST", "Accept: %s\nContent-Type: application/json\nMCP-Protocol-Version: %s\n"
                       "Mcp-Method: %s\n%s" % (acc, pv, m, extra), compact(
                           {"jsonrpc": "2.0", "id": 20 + i, "method": m, "params": dict(
                               {"_meta": {"io.modelcontextprotocol/protocolVersion": bodyv,
                                          "io.modelcontextprotocol/clientCapabilities": {},
                                          "progressToken": 1}}, **params)}))
                   for i, (acc, pv, bodyv, m, extra, params) in enumerate([
                       ("application/json, text/event-stream", "2026-07-28", "2026-07-28", "server/discover", "", {}),
                       ("application/json", "2026-07-28", "2026-07-28", "tools/call", "Mcp-Name: get_weather\n",
                        {"name": "get_weather", "arguments": {"city": "Oslo"}}),
                       ("text/event-stream", "2026-07-28", "2026-07-28", "tools/call",
                        "Mcp-Name: =?base64?Z2V0X3dlYXRoZXI=?=\n", {"name": "get_weather", "arguments": {"city": "x"}}),
                       ("application/json, text/event-stream", "2026-07-28", "1999-01-01", "tools/list", "", {}),
                       ("application/json, text/event-stream", "1999-01-01", "1999-01-01", "tools/list", "", {}),
                       ("application/json, text/event-stream", "2026-07-28", "2026-07-28", "ping", "", {}),
                       ("application/json, text/event-stream", "2026-07-28", "2026-07-28", "tools/call",
                        "Mcp-Name: nope\n", {"name": "get_weather", "arguments": {}}),
                   ])] + [req("GET", "Accept: text/event-stream\nMCP-Protocol-Version: 2026-07-28\n"),
                          req("DELETE", "MCP-Protocol-Version: 2026-07-28\n")],
        "checks": [req("POST", "Accept: text/html\nContent-Type: application/json\n" + sid, init),
                   req("POST", "Accept: */*\nContent-Type: text/plain\n" + sid, init),
                   req("PUT", sid), req("GET", sid, url="/other"), req("GET", sid, host="evil.example"),
                   req("GET", sid, host="mcp.example:8080"),
                   req("POST", "Origin: http://localhost:3000\nContent-Type: application/json\n", init),
                   req("POST", "Origin: null\nContent-Type: application/json\n", init),
                   req("POST", "Content-Type: application/json\nContent-Length: 99999\n", init),
                   req("GET", "Accept: text/event-stream\nMcp-Session-Id: @SID@\n"
                       "MCP-Protocol-Version: 1999-01-01\n"),
                   get("Last-Event-ID: 18446744073709551616-1\n"), req("DELETE"),
                   req("DELETE", "Mcp-Session-Id: 0123456789abcdef0123456789abcdef\n")],
    }
    for name, seq in seqs.items():
        write("fuzz_http_route", name, "\n%%\n".join(seq))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    idl_corpus()
    texpr_corpus()
    json_and_decode_corpus()
    jsonrpc_corpus()
    http_corpus()
    state_corpus()
    http_route_corpus()
    formats_corpus()
    for d in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, d))
        size = sum(os.path.getsize(os.path.join(OUT, d, f)) for f in files)
        print("%-14s %4d files %8d bytes" % (d, len(files), size))


if __name__ == "__main__":
    main()
