#!/usr/bin/env python3
"""Instructions per tools/call, counted by valgrind's callgrind: a regression guard that is not a
timing test.

usage: count.py --server PATH --baseline FILE [--update]

The weather example answers `tools/call get_weather` (every answer checked) twice per transport,
once with SHORT calls and once with LONG calls, each run whole under callgrind; the difference of
the two totals divided by LONG - SHORT is the cost of one call, start-up and shutdown cancelled
out. Over stdio the server runs with `--workers 0` (one thread); over Streamable HTTP with its
defaults, each call a POST on a keep-alive connection: "http", of a 2025-11-25 session with a JSON
answer; "httpsse", the same with an SSE answer (both types accepted); "http2026", a 2026-07-28 stateless POST (no session; the revision in the headers and in
`_meta`, SSE accepted, as bench/http/mcp.lua sends it) answered with JSON.
Instruction counts do not depend on the machine's load, so the guard can run anywhere: it fails
when a figure grows more than 20% over the one checked into the baseline file, and says so when
one falls more than 20% under it (then the baseline should be brought down with --update, so
that the gain is kept).
"""
import argparse
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading

sys.dont_write_bytecode = True
HANG_GUARD = 300  # seconds: a generous bound on one run under valgrind
SHORT, LONG = 50, 550
MARGIN = 0.20

CALL = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
        '"params":{"name":"get_weather","arguments":{"city":"London"}}}')
INIT = ('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        '"capabilities":{},"clientInfo":{"name":"count","version":"1"}}}')
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'
CALL_2026 = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_weather",'
             '"arguments":{"city":"London"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
             '"io.modelcontextprotocol/clientCapabilities":{}}}}')
HEADERS_2026 = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "get_weather"}
WANT = '"structuredContent":{"temperature":16.2,"humidity":0.83,"conditions":"Overcast"}'


def callgrind(argv, out):
    return ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--dump-instr=no",
            "--compress-strings=no", "-q"] + argv


def total_ir(path):
    """The Ir total of a callgrind output file (its threads' files summed)."""
    total = 0
    d, base = os.path.split(path)
    for name in os.listdir(d):
        if name == base or name.startswith(base + "-"):
            with open(os.path.join(d, name)) as f:
                for line in f:
                    m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                    if m:
                        total += int(m.group(1))
                        break
    if total == 0:
        raise SystemExit("count.py: no totals in %s" % path)
    return total


def stdio_run(server, n, work):
    out = os.path.join(work, "stdio-%d.out" % n)
    text = "\n".join([INIT, INITIALIZED] + [CALL % (i + 1) for i in range(n)]) + "\n"
    p = subprocess.run(callgrind([server, "--workers", "0"], out), input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG_GUARD)
    lines = p.stdout.decode().splitlines()
    if p.returncode != 0 or len(lines) != n + 1:
        raise SystemExit("count.py: stdio run of %d calls: status %d, %d answers\n%s" %
                         (n, p.returncode, len(lines), p.stderr.decode()[-2000:]))
    for i, line in enumerate(lines[1:]):
        if '"id":%d,' % (i + 1) not in line or WANT not in line:
            raise SystemExit("count.py: answer %d is wrong: %s" % (i + 1, line[:300]))
    return total_ir(out)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_run(server, n, work, modern=False, sse=False):
    out = os.path.join(work, "http%s-%d.out" % ("2026" if modern else "sse" if sse else "", n))
    p = subprocess.Popen(callgrind([server, "--http", "127.0.0.1:0"], out), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    port = None
    err = []
    for raw in iter(p.stderr.readline, b""):
        err.append(raw.decode("utf-8", "replace"))
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", err[-1])
        if m:
            port = int(m.group(1))
            break
    if port is None:
        p.kill()
        raise SystemExit("count.py: the HTTP server did not start:\n" + "".join(err))
    drain = threading.Thread(target=lambda: [err.append(x.decode("utf-8", "replace")) for x in p.stderr],
                             daemon=True)
    drain.start()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_GUARD)

    def post(body, sid=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if sid:
            h["Mcp-Session-Id"] = sid
            h["MCP-Protocol-Version"] = "2025-11-25"
            if not sse:
                h["Accept"] = "application/json"
        conn.request("POST", "/mcp", body=body, headers=h)
        r = conn.getresponse()
        return r.status, r.getheader("mcp-session-id"), r.read().decode(), r.getheader("content-type")

    try:
        if modern:
            for i in range(n):
                conn.request("POST", "/mcp", body=CALL_2026 % (i + 1), headers=HEADERS_2026)
                r = conn.getresponse()
                body = r.read().decode()
                if (r.status != 200 or r.getheader("content-type") != "application/json" or WANT not in body
                        or '"id":%d,' % (i + 1) not in body):
                    raise SystemExit("count.py: 2026-07-28 answer %d is wrong: %d %s" % (i + 1, r.status, body[:300]))
        else:
            status, sid, _, _ = post(INIT)
            if status != 200 or not sid:
                raise SystemExit("count.py: initialize over HTTP: %d" % status)
            post(INITIALIZED, sid)
            want_type = "text/event-stream" if sse else "application/json"
            for i in range(n):
                status, _, body, ctype = post(CALL % (i + 1), sid)
                if (status != 200 or WANT not in body or '"id":%d,' % (i + 1) not in body
                        or ctype != want_type or (sse and "\ndata: {" not in body)):
                    raise SystemExit("count.py: HTTP answer %d is wrong: %d %s %s" % (i + 1, status, ctype,
                                                                                       body[:300]))
    finally:
        conn.close()
        p.terminate()
        p.wait(HANG_GUARD)
    return total_ir(out)


def http2026_run(server, n, work):
    return http_run(server, n, work, modern=True)


def httpsse_run(server, n, work):
    return http_run(server, n, work, sse=True)


def per_call(run, server, work):
    return (run(server, LONG, work) - run(server, SHORT, work)) / (LONG - SHORT)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--baseline", required=True)
    ap.add_argument("--update", action="store_true", help="write the figures measured as the baseline")
    opt = ap.parse_args()
    with open(opt.baseline) as f:
        base = json.load(f)
    measured = {}
    with tempfile.TemporaryDirectory(prefix="mcpidl-count-") as work:
        measured["stdio"] = per_call(stdio_run, opt.server, work)
        measured["http"] = per_call(http_run, opt.server, work)
        measured["httpsse"] = per_call(httpsse_run, opt.server, work)
        measured["http2026"] = per_call(http2026_run, opt.server, work)
    failed = 0
    for name, value in measured.items():
        ref = base["instructions_per_call"].get(name)
        if ref is None:
            print("%-8s %9.0f instructions per tools/call: not in the baseline" % (name, value))
            failed += 1
            continue
        ratio = value / ref
        verdict = "ok"
        if ratio > 1 + MARGIN:
            verdict = "FAIL: more than %d%% over the baseline" % (MARGIN * 100)
            failed += 1
        elif ratio < 1 - MARGIN:
            verdict = "ok, and more than %d%% under the baseline: lower it with --update" % (MARGIN * 100)
        print("%-8s %9.0f instructions per tools/call (baseline %d, %.2fx): %s" % (name, value, ref, ratio, verdict))
    if opt.update:
        base["instructions_per_call"] = {k: int(round(v)) for k, v in measured.items()}
        with open(opt.baseline, "w") as f:
            json.dump(base, f, indent=2)
            f.write("\n")
        print("baseline written: %s" % opt.baseline)
        return 0
    print("%d passed, %d failed" % (len(measured) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
