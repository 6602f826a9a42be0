#!/usr/bin/env python3
"""The table of bench/run: medians (min-max) of the raw figures in OUT, and ratios
against the peers measured in the same run.

usage: report.py OUT   (the directory bench/run wrote: meta.json, server.jsonl,
start.jsonl, inproc.jsonl, validate.jsonl, compile.txt)
"""
import json
import os
import statistics
import sys

OUT = sys.argv[1]


def load(name):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, digits=None):
    if x is None:
        return "-"
    if digits is None:
        digits = 0 if abs(x) >= 1000 else 1 if abs(x) >= 10 else 2 if abs(x) >= 1 else 3
    return f"{x:,.{digits}f}"


def spread(xs, digits=None):
    if not xs:
        return "-"
    return f"{fmt(med(xs), digits)} ({fmt(min(xs), digits)}-{fmt(max(xs), digits)})"


def ratio_text(rs):
    if not rs:
        return "-"
    m = med(rs)
    d = 3 if m < 0.1 else 2
    return f"{m:.{d}f} ({min(rs):.{d}f}-{max(rs):.{d}f})"


meta = (load("meta.json") or [{}])[0]
server = load("server.jsonl")
start = load("start.jsonl")
inproc = load("inproc.jsonl")
validate = load("validate.jsonl")

NAMES = {"mcpidl": "mcpidl", "ts": "TS SDK", "jsonc": "json-c ceiling", "pipe": "pipe ceiling"}
PEERS = ["ts", "jsonc", "pipe"]
lines = []
p = lines.append
targets = []  # (text, met, figure)

p("# mcpidl benchmarks")
p("")
p(f"Machine: {meta.get('nproc', '?')} CPUs ({meta.get('cpu', '?')}), Linux {meta.get('kernel', '?')}; "
  f"load average before {meta.get('load_before', '?')}, after {meta.get('load_after', '?')}. "
  f"Peers: Node {meta.get('node', '?')}, @modelcontextprotocol/sdk {meta.get('sdk', '?')}, json-c {meta.get('jsonc', '?')}; "
  f"{meta.get('cc', '?')}.")
p("")

# ---------------------------------------------------------------- tools/call
if server:
    reps = sorted({r["rep"] for r in server})

    def fig(name, mode, key):
        return [r[key] for r in server if r["server"] == name and r["mode"] == mode]

    def paired(mode, key, peer):
        out = []
        for rep in reps:
            a = [r[key] for r in server if r["server"] == "mcpidl" and r["mode"] == mode and r["rep"] == rep]
            b = [r[key] for r in server if r["server"] == peer and r["mode"] == mode and r["rep"] == rep]
            if a and b and b[0]:
                out.append(a[0] / b[0])
        return out

    rows = [
        ("tools/call sequential, same core (calls/s)", "seq", "calls_per_s", None),
        ("tools/call pipelined, 64 in flight (calls/s)", "pipe", "calls_per_s", None),
        ("latency p50, sequential (µs)", "seq", "p50_us", None),
        ("latency p99, sequential (µs)", "seq", "p99_us", None),
        ("latency p50, pipelined (µs)", "pipe", "p50_us", None),
        ("latency p99, pipelined (µs)", "pipe", "p99_us", None),
        ("server CPU per call, sequential (µs)", "seq", "cpu_us_per_call", None),
        ("server CPU per call, pipelined (µs)", "pipe", "cpu_us_per_call", None),
        ("peak RSS, pipelined run (MB)", "pipe", "peak_rss_kb", 1 / 1024),
    ]
    calls = meta.get("calls", "?")
    p(f"## tools/call over stdio: get_weather, {calls:,} calls per run, {len(reps)} runs"
      if isinstance(calls, int) else "## tools/call over stdio")
    p("")
    p("Medians (min-max) over the runs; each ratio is mcpidl ÷ peer, run by run (the servers take turns in "
      "every run), its median (min-max). Sequential: client and server pinned to one core; pipelined: a "
      "sliding window of 64 requests in flight, client and server on a core each. mcpidl: "
      "examples/weather (weather-server) with `--workers 0`, the default for its cold start; its "
      "stdio-only link (the same sources without mcpidl-http and the libraries that pulls in) runs "
      "pipelined only. Every answer is checked.")
    p("")
    extra = ["mcpidl-stdio"] if any(r["server"] == "mcpidl-stdio" for r in server) else []
    p("| | mcpidl | " + "".join("mcpidl, stdio-only link | " for _ in extra)
      + "TS SDK | json-c ceiling | pipe ceiling | ÷ TS SDK | ÷ json-c | ÷ pipe |")
    p("|---|---|" + "---|" * len(extra) + "---|---|---|---|---|---|")
    for title, mode, key, scale in rows:
        cells = []
        for n in ["mcpidl"] + extra + PEERS:
            xs = fig(n, mode, key)
            if scale:
                xs = [x * scale for x in xs]
            cells.append(spread(xs))
        rs = [ratio_text(paired(mode, key, peer)) for peer in PEERS]
        p(f"| {title} | " + " | ".join(cells + rs) + " |")
    if start:
        def st(name):
            r = [x for x in start if x["server"] == name]
            return r[0]["start_ms"] if r else []
        m = st("mcpidl-default")
        cells = [spread(m)] + [spread(st("mcpidl-stdio-default")) for _ in extra] + [spread(st(n)) for n in PEERS]
        rs = [f"{med(m) / med(st(n)):.3f}" if m and st(n) else "-" for n in PEERS]
        p("| cold start, exec to initialize answer (ms) | " + " | ".join(cells + rs) + " |")
    p("")
    if inproc:
        i = inproc[0]
        p(f"One tools/call inside the library, no pipes (bench-inproc: the same request through "
          f"`mcp_session_message`, handler on the calling thread): {i['message_ns'] / 1000:.2f} µs "
          f"({i['message_min_ns'] / 1000:.2f}-{i['message_max_ns'] / 1000:.2f}); of which parsing the request "
          f"{i['parse_request_ns'] / 1000:.2f} µs and the tool call (decode, handler, validate, write) "
          f"{i['invoke_ns'] / 1000:.2f} µs.")
        p("")

    pipe_ts = paired("pipe", "calls_per_s", "ts")
    pipe_jc = paired("pipe", "calls_per_s", "jsonc")
    cpu_ts = paired("seq", "cpu_us_per_call", "ts")
    cpu_ts_pipe = paired("pipe", "cpu_us_per_call", "ts")
    rss_ts = paired("pipe", "peak_rss_kb", "ts")
    if pipe_ts:
        targets.append(("tools/call pipelined >= 10x the TS SDK", med(pipe_ts) >= 10, f"{med(pipe_ts):.2f}x"))
    if pipe_jc:
        targets.append(("tools/call pipelined >= the bare json-c ceiling", med(pipe_jc) >= 1, f"{med(pipe_jc):.2f}x"))
    if cpu_ts:
        targets.append(("server CPU per call <= 1/10 of TS (sequential, same core)", med(cpu_ts) <= 0.1,
                        f"{med(cpu_ts):.3f} (pipelined: {med(cpu_ts_pipe):.3f})" if cpu_ts_pipe else f"{med(cpu_ts):.3f}"))
    if rss_ts:
        targets.append(("peak RSS <= 1/30 of TS", med(rss_ts) <= 1 / 30, f"{med(rss_ts):.4f} (1/{1 / med(rss_ts):.0f})"))
    rss_stdio = [a / b for a, b in zip(fig("mcpidl-stdio", "pipe", "peak_rss_kb"), fig("ts", "pipe", "peak_rss_kb"))]
    if rss_ts and rss_stdio:
        targets[-1] = (targets[-1][0], targets[-1][1], targets[-1][2] + f"; stdio-only link: {med(rss_stdio):.4f} "
                       f"(1/{1 / med(rss_stdio):.0f})")
    if start:
        m, t, ms = st("mcpidl-default"), st("ts"), st("mcpidl-stdio-default")
        if m and t:
            r = med(m) / med(t)
            more = f"; stdio-only link: {med(ms) / med(t):.4f} (1/{med(t) / med(ms):.0f})" if ms else ""
            targets.append(("cold start <= 1/100 of TS", r <= 0.01, f"{r:.4f} (1/{1 / r:.0f}){more}"))
    ts_pipe = fig("ts", "pipe", "calls_per_s")
    pipe_pipe = fig("pipe", "pipe", "calls_per_s")
    if ts_pipe and pipe_pipe:
        p(f"For scale: on this machine the pipe ceiling itself runs {med(pipe_pipe) / med(ts_pipe):.1f}x the TS SDK "
          f"pipelined and {med(fig('pipe', 'seq', 'calls_per_s')) / med(fig('ts', 'seq', 'calls_per_s')):.1f}x "
          f"sequentially: no stdio server can be faster than that ratio here.")
        p("")

# ---------------------------------------------------------------- validation
if validate:
    cases = []
    for r in validate:
        if r["case"] not in cases:
            cases.append(r["case"])

    def v(case, impl):
        r = [x for x in validate if x["case"] == case and x["impl"] == impl]
        return r[0] if r else None

    p("## Text to a validated value")
    p("")
    p("Nanoseconds per text, median of 7 rounds (fastest-slowest). mcpidl: `mcp_json_parse` into an arena "
      "and `mcp_decode` into the generated C struct (every rule of the schema checked); JSON.parse + Ajv 2020: "
      "a validator compiled once from the schema mcpidlc publishes, with the TypeScript SDK's options "
      "(allErrors); json-c: parsing alone (json_tokener_parse_ex, json_object_put), no validation. The "
      "ratios are mcpidl ÷ peer (below 1: mcpidl is faster).")
    p("")
    p("| case | bytes | mcpidl | JSON.parse + Ajv | json-c parse | ÷ Ajv | ÷ json-c |")
    p("|---|---|---|---|---|---|---|")
    all_faster = True
    for c in cases:
        m, a, j = v(c, "mcpidl"), v(c, "JSON.parse+Ajv"), v(c, "json-c")

        def cell(r):
            return f"{fmt(r['ns'])} ({fmt(r['min_ns'])}-{fmt(r['max_ns'])})" if r else "-"
        ra = m["ns"] / a["ns"] if m and a else None
        rj = m["ns"] / j["ns"] if m and j else None
        if ra is not None and ra >= 1:
            all_faster = False
        p(f"| {c} | {m['bytes'] if m else '-'} | {cell(m)} | {cell(a)} | {cell(j)} | "
          f"{'-' if ra is None else f'{ra:.2f}'} | {'-' if rj is None else f'{rj:.2f}'} |")
    p("")
    p("Cases: weather, a WeatherData; list100, a list of 100 of them; invalid, a WeatherData with a string "
      "temperature and no conditions (2 errors); search_books, the arguments of tests/golden/inputs_search_books; "
      "order, a mid-size model (nested models, a list of 5 line items, patterns, an enum, a Literal, Optional "
      "fields, a set, a dict). Texts in bench/validate/cases, types in bench/validate/bench.mcp.yaml.")
    p("")
    if any(v(c, "JSON.parse+Ajv") for c in cases):
        worst = max((v(c, "mcpidl")["ns"] / v(c, "JSON.parse+Ajv")["ns"], c) for c in cases
                    if v(c, "mcpidl") and v(c, "JSON.parse+Ajv"))
        targets.append(("text -> validated value faster than JSON.parse + Ajv on every case", all_faster,
                        f"slowest case relative to Ajv: {worst[1]}, {worst[0]:.2f}x Ajv's time"))
    m, j = v("list100", "mcpidl"), v("list100", "json-c")
    if m and j:
        targets.append((">= 3x faster than json-c parse alone on the list of 100", j["ns"] / m["ns"] >= 3,
                        f"{j['ns'] / m['ns']:.2f}x"))

# ---------------------------------------------------------------- compile
comp = os.path.join(OUT, "compile.txt")
if os.path.exists(comp):
    p("## Compile time (bench/compile)")
    p("")
    with open(comp) as f:
        text = f.read().rstrip()
    p(text if text else "(no output)")
    p("")

# ---------------------------------------------------------------- targets
if targets:
    p("## Targets")
    p("")
    p("| target | met | figure |")
    p("|---|---|---|")
    for text, met, figure in targets:
        p(f"| {text} | {'met' if met else 'NOT met'} | {figure} |")
    p("")

print("\n".join(lines))
