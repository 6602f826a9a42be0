#!/usr/bin/env python3
"""The table of bench/run: medians (min-max) of the raw figures in OUT, and ratios
against the peers measured in the same run.

usage: report.py OUT   (the directory bench/run wrote: meta.json, server.jsonl,
start.jsonl, inproc.jsonl, validate.jsonl, compile.txt)
"""
import json
import os
import re
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

NAMES = {"mcpidl": "mcpidl", "ts": "TS SDK v1", "ts2": "TS SDK v2", "jsonc": "json-c ceiling", "pipe": "pipe ceiling"}
PEERS_ALL = ["ts", "ts2", "jsonc", "pipe"]
PEERS = [n for n in PEERS_ALL if n != "ts2" or any(r["server"] == "ts2" for r in load("server.jsonl"))]
lines = []
p = lines.append
targets = []  # (text, met, figure)

p("# mcpidl benchmarks")
p("")
p(f"Machine: {meta.get('nproc', '?')} vCPUs ({meta.get('cpu', '?')}), Linux {meta.get('kernel', '?')}; "
  f"load average before {meta.get('load_before', '?')}, after {meta.get('load_after', '?')}. "
  f"Peers: Node {meta.get('node', '?')}, @modelcontextprotocol/sdk {meta.get('sdk', '?')} (v1), "
  f"@modelcontextprotocol/server {meta.get('sdk2', '?')} (v2), json-c {meta.get('jsonc', '?')}; {meta.get('wrk', 'no wrk')}; "
  f"{meta.get('cc', '?')}.")
try:
    loads = [float(x) for x in (meta.get("load_before", "") + " " + meta.get("load_after", "")).split()]
except ValueError:
    loads = []
if loads and max(loads) > 0.5 * meta.get("nproc", 1) + 1:
    p("")
    p(f"Other work was running on the machine during this run (load average up to {max(loads):.1f} on "
      f"{meta.get('nproc', '?')} CPUs): the benchmarks shared the CPUs with it, which slows every server and "
      "widens the ranges; the ratios of servers measured in turn are the steadier figures.")
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
      + "".join(f"{NAMES[n]} | " for n in PEERS) + "".join(f"÷ {NAMES[n].replace(' ceiling', '')} | " for n in PEERS))
    p("|---|---|" + "---|" * len(extra) + "---|---|" * len(PEERS))
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

    # The speed issue's stdio targets, each against the faster TypeScript SDK (v1 or v2) of this run:
    # the peer whose ratio is the least favourable to mcpidl.
    ts_peers = [n for n in ("ts", "ts2") if n in PEERS]

    def against_ts(mode, key, higher_is_better):
        best = None
        for peer in ts_peers:
            rs = paired(mode, key, peer)
            if rs and (best is None or (med(rs) < best[0] if higher_is_better else med(rs) > best[0])):
                best = (med(rs), NAMES[peer])
        return best

    def ts_target(text, mode, key, higher_is_better, bound, form):
        got = against_ts(mode, key, higher_is_better)
        if got:
            ok = got[0] >= bound if higher_is_better else got[0] <= bound
            targets.append((text, ok, f"{form(got[0])} ({got[1]})"))

    ts_target("stdio: tools/call pipelined >= 15x the faster TS SDK", "pipe", "calls_per_s", True, 15,
              lambda r: f"{r:.2f}x")
    pipe_ceiling = paired("pipe", "calls_per_s", "pipe")
    if pipe_ceiling:
        targets.append(("stdio: tools/call pipelined >= 0.5 of the pipe ceiling", med(pipe_ceiling) >= 0.5,
                        f"{med(pipe_ceiling):.2f}"))
    ts_target("stdio: server CPU per call, sequential, <= 0.10 of the faster TS SDK", "seq", "cpu_us_per_call",
              False, 0.10, lambda r: f"{r:.3f}")
    ts_target("stdio: p99 latency, sequential, <= 0.10 of the faster TS SDK", "seq", "p99_us", False, 0.10,
              lambda r: f"{r:.3f}")
    rss = against_ts("pipe", "peak_rss_kb", False)
    if rss:
        more = ""
        rss_stdio = [a / b for a, b in zip(fig("mcpidl-stdio", "pipe", "peak_rss_kb"), fig("ts", "pipe", "peak_rss_kb"))]
        if rss_stdio:
            more = f"; stdio-only link: {med(rss_stdio):.4f} (1/{1 / med(rss_stdio):.0f})"
        targets.append(("stdio: peak RSS as shipped (HTTP linked) <= 1/30 of the TS SDK", rss[0] <= 1 / 30,
                        f"{rss[0]:.4f} (1/{1 / rss[0]:.0f}, {rss[1]}){more}"))
    if start:
        m, ms = st("mcpidl-default"), st("mcpidl-stdio-default")
        ts_starts = [(med(st(n)), NAMES[n]) for n in ts_peers if st(n)]
        if m and ts_starts:
            t, tname = min(ts_starts)  # the faster TS SDK to start
            r = med(m) / t
            more = f"; stdio-only link: {med(ms) / t:.4f} (1/{t / med(ms):.0f})" if ms else ""
            targets.append(("stdio: cold start as shipped <= 1/100 of the TS SDK", r <= 0.01,
                            f"{r:.4f} (1/{1 / r:.0f}, {tname}){more}"))
    ts_pipe = fig("ts", "pipe", "calls_per_s")
    pipe_pipe = fig("pipe", "pipe", "calls_per_s")
    if ts_pipe and pipe_pipe:
        p(f"For scale: on this machine the pipe ceiling itself runs {med(pipe_pipe) / med(ts_pipe):.1f}x the TS SDK "
          f"pipelined and {med(fig('pipe', 'seq', 'calls_per_s')) / med(fig('ts', 'seq', 'calls_per_s')):.1f}x "
          f"sequentially: no stdio server can be faster than that ratio here.")
        p("")

# ---------------------------------------------------------------- Streamable HTTP (wrk)
http = load("http.jsonl")
HTTP_ROWS = [
    # (server, scenario, label, answers)
    ("mcpidl", "json", "mcpidl, 2025 session, JSON answers", "json"),
    ("mcpidl", "sse", "mcpidl, 2025 session, SSE answers", "sse"),
    ("mcpidl", "2026", "mcpidl, 2026-07-28 stateless", "json"),
    ("mcpidl-handoff", "json", "mcpidl --no-inline-tool, 2025 session, JSON", "json"),
    ("mcpidl-handoff", "sse", "mcpidl --no-inline-tool, 2025 session, SSE", "sse"),
    ("mcpidl-handoff", "2026", "mcpidl --no-inline-tool, 2026-07-28", "json"),
    ("mcpidl-w0", "json", "mcpidl --workers 0, 2025 session, JSON", "json"),
    ("mcpidl-w0", "sse", "mcpidl --workers 0, 2025 session, SSE", "sse"),
    ("mcpidl-w0", "2026", "mcpidl --workers 0, 2026-07-28", "json"),
    ("ts-stateful-json", "json", "TS v1 stateful, JSON answers", "json"),
    ("ts-stateful-sse", "sse", "TS v1 stateful, SSE answers", "sse"),
    ("ts-stateless-json", "json", "TS v1 stateless, JSON answers", "json"),
    ("ts-stateless-sse", "sse", "TS v1 stateless, SSE answers", "sse"),
    ("ts2", "sse", "TS v2, 2025 (stateless, SSE answers)", "sse"),
    ("ts2", "2026", "TS v2, 2026-07-28 (JSON answers)", "json"),
]


def hpoint(server, scen, c):
    """The point of server, scenario and connection count: with several rounds, the round whose
    requests/s is the median (the upper one of an even count), its other figures with it."""
    r = sorted((x for x in http if x["server"] == server and x["scenario"] == scen and x["conns"] == c),
               key=lambda x: x["rps"])
    return r[len(r) // 2] if r else None


def best_ts(answers, c):
    """The faster TypeScript configuration giving the same kind of answers at c connections."""
    pts = [(hpoint(s, sc, c), lab) for s, sc, lab, a in HTTP_ROWS if s.startswith("ts") and a == answers]
    pts = [(x, lab) for x, lab in pts if x]
    return max(pts, key=lambda t: t[0]["rps"]) if pts else (None, None)


if http:
    conns = sorted({r["conns"] for r in http})
    rows = [(s, sc, lab, a) for s, sc, lab, a in HTTP_ROWS if any(hpoint(s, sc, c) for c in conns)]
    rounds = max((r.get("round", 1) for r in http), default=1)
    p(f"## Streamable HTTP: tools/call get_weather under wrk, {meta.get('http_seconds', '?')} s per point")
    p("")
    p("wrk (one thread, pinned to one CPU; the server pinned to the other) with `http/mcp.lua`: keep-alive "
      "connections, each answer checked (status 200 and London's `structuredContent` in the body; the "
      "failures are counted and shown). 2025-11-25 requests to a stateful server go to sessions created "
      "first (initialize, notifications/initialized; one session per connection) with `Mcp-Session-Id` "
      "and `MCP-Protocol-Version`; JSON answers: mcpidl asked with `Accept: application/json`, the TS v1 "
      "server started with `enableJsonResponse` (it refuses a POST that does not accept both types); "
      "2026-07-28: POSTs without a session, the revision and client capabilities in `_meta`, the "
      "`Mcp-Method` and `Mcp-Name` headers. TS v2 is `createMcpHandler` (a fresh McpServer per request; "
      "2025 requests are served statelessly, with SSE answers). mcpidl is weather-server as shipped "
      "(its IDL marks get_weather `inline: true`: the handler runs on the HTTP thread), with "
      "`--no-inline-tool get_weather` (handed to the workers, one per CPU it may run on: pinned to one "
      "here, one worker and one HTTP thread), and with `--workers 0`." + (
          f" Each point was measured in {rounds} rounds (every server in turn, round after round); "
          "the figures are those of the round with the median requests/s." if rounds > 1 else ""))
    p("")
    p("Requests/s (failed answers in brackets when any):")
    p("")
    p("| server | " + " | ".join(f"{c} conn." for c in conns) + " |")
    p("|---|" + "---:|" * len(conns))
    for s, sc, lab, _ in rows:
        cells = []
        for c in conns:
            x = hpoint(s, sc, c)
            bad = (x["failed"] + x["socket_errors"]) if x else 0
            cells.append("-" if not x else fmt(x["rps"]) + (f" ({bad:,} failed)" if bad else ""))
        p(f"| {lab} | " + " | ".join(cells) + " |")
    p("")
    p("Latency p50 / p99 (ms), from wrk:")
    p("")
    p("| server | " + " | ".join(f"{c} conn." for c in conns) + " |")
    p("|---|" + "---:|" * len(conns))
    for s, sc, lab, _ in rows:
        cells = []
        for c in conns:
            x = hpoint(s, sc, c)
            cells.append("-" if not x else f"{fmt(x['p50_us'] / 1000)} / {fmt(x['p99_us'] / 1000)}")
        p(f"| {lab} | " + " | ".join(cells) + " |")
    p("")
    p("Server CPU per request (µs, user + system from /proc/PID/stat), and, at the largest connection "
      "count, peak RSS (VmHWM, MB, reset before each point) and the most threads seen during the point:")
    p("")
    p("| server | " + " | ".join(f"CPU {c} conn." for c in conns) + " | peak RSS | threads |")
    p("|---|" + "---:|" * (len(conns) + 2))
    for s, sc, lab, _ in rows:
        cells = []
        for c in conns:
            x = hpoint(s, sc, c)
            cells.append("-" if not x or x["cpu_us_per_req"] is None else fmt(x["cpu_us_per_req"]))
        last = hpoint(s, sc, conns[-1])
        peak = max((hpoint(s, sc, c)["peak_rss_kb"] for c in conns if hpoint(s, sc, c)), default=None)
        cells.append("-" if peak is None else fmt(peak / 1024))
        cells.append("-" if not last else str(last["threads"]))
        p(f"| {lab} | " + " | ".join(cells) + " |")
    p("")
    p("mcpidl (as shipped) ÷ the faster TS configuration with the same kind of answers, at each "
      "connection count (requests/s: above 1 is faster; CPU and p99: below 1 is cheaper):")
    p("")
    p("| answers | connections | mcpidl req/s | faster TS | its req/s | ÷ req/s | ÷ CPU per request | ÷ p99 |")
    p("|---|---:|---:|---|---:|---:|---:|---:|")
    http_targets = {}
    handoff_ratios = {}
    for answers, scen in (("json", "json"), ("sse", "sse")):
        for c in conns:
            m, mi = hpoint("mcpidl", scen, c), hpoint("mcpidl-handoff", scen, c)
            t, _ = best_ts(answers, c)
            if mi and t:
                handoff_ratios[(answers, c)] = (mi["rps"] / t["rps"],
                                               mi["cpu_us_per_req"] / t["cpu_us_per_req"]
                                               if mi["cpu_us_per_req"] and t["cpu_us_per_req"] else None,
                                               mi["p99_us"] / t["p99_us"] if t["p99_us"] else None)
            t, tlab = best_ts(answers, c)
            if not m or not t:
                continue
            rr = m["rps"] / t["rps"]
            rc = m["cpu_us_per_req"] / t["cpu_us_per_req"] if m["cpu_us_per_req"] and t["cpu_us_per_req"] else None
            rp = m["p99_us"] / t["p99_us"] if t["p99_us"] else None
            http_targets[(answers, c)] = (rr, rc, rp, tlab)
            p(f"| {answers.upper()} | {c} | {fmt(m['rps'])} | {tlab} | {fmt(t['rps'])} | {rr:.1f} | "
              f"{'-' if rc is None else f'{rc:.3f}'} | {'-' if rp is None else f'{rp:.3f}'} |")
    p("")
    for c in (16, 64, 256):
        got = [(a, http_targets[(a, c)]) for a in ("json", "sse") if (a, c) in http_targets]
        if not got:
            continue
        ok_rps = all(v[0] >= 10 for _, v in got)
        ok_cpu = all(v[1] is not None and v[1] <= 0.1 for _, v in got)
        ok_p99 = all(v[2] is not None and v[2] <= 0.1 for _, v in got)
        fig_rps = "; ".join(f"{a.upper()} {v[0]:.1f}x ({v[3]})" for a, v in got)
        fig_cpu = "; ".join(f"{a.upper()} {v[1]:.3f}" for a, v in got if v[1] is not None)
        fig_p99 = "; ".join(f"{a.upper()} {v[2]:.3f}" for a, v in got if v[2] is not None)

        def with_handoff(text, k, form):
            more = [f"{a.upper()} {form(handoff_ratios[(a, c)][k])}" for a, _v in got
                    if (a, c) in handoff_ratios and handoff_ratios[(a, c)][k] is not None]
            return text + (" (handed to a worker: " + "; ".join(more) + ")" if more else "")
        fig_rps = with_handoff(fig_rps, 0, lambda r: f"{r:.1f}x")
        fig_cpu = with_handoff(fig_cpu, 1, lambda r: f"{r:.3f}")
        fig_p99 = with_handoff(fig_p99, 2, lambda r: f"{r:.3f}")
        targets.append((f"HTTP, {c} connections: requests/s >= 10x the faster TS SDK server", ok_rps, fig_rps))
        targets.append((f"HTTP, {c} connections: server CPU per request <= 1/10 of it", ok_cpu, fig_cpu))
        targets.append((f"HTTP, {c} connections: p99 <= 1/10 of its", ok_p99, fig_p99))
    ratios = []
    for c in conns:
        m25, m26 = hpoint("mcpidl", "json", c), hpoint("mcpidl", "2026", c)
        if m25 and m26:
            ratios.append((c, m26["rps"] / m25["rps"], m26["cpu_us_per_req"] / m25["cpu_us_per_req"]
                           if m25["cpu_us_per_req"] and m26["cpu_us_per_req"] else None))
    if ratios:
        # "As fast": within the spread of repeated points on this machine, taken as 10 %.
        worst = min(r for _c, r, _cr in ratios)
        targets.append(("the 2026-07-28 stateless path as fast as the 2025 session path (requests/s, "
                        "2026 ÷ 2025 JSON, within 10 %)", worst >= 0.9,
                        ", ".join(f"{c} conn. {r:.2f}" + (f" (CPU {cr:.2f})" if cr else "") for c, r, cr in ratios)))

# ---------------------------------------------------------------- idle SSE streams
def idle_table(idle, what):
    """The table of one idle-stream run; its target figure (met, text)."""
    target = idle[-1]["target"]
    p(f"### {what}")
    p("")
    p("| idle streams | RSS (MB) | peak RSS (MB) | threads | tools/call req/s | p50 (ms) | p99 (ms) |")
    p("|---:|---:|---:|---:|---:|---:|---:|")
    for x in idle:
        if x["checked_ok"] == 0:
            lat = [f"none answered ({x['failed'] + x['socket_errors']:,} failed)", "-", "-"]
        else:
            lat = [fmt(x["rps"]) + (f" ({x['failed']:,} failed)" if x["failed"] else ""),
                   fmt(x["p50_us"] / 1000), fmt(x["p99_us"] / 1000)]
        p(f"| {x['streams']:,} | {fmt(x['rss_kb'] / 1024)} | {fmt(x['peak_rss_kb'] / 1024)} | {x['threads']:,} | "
          + " | ".join(lat) + " |")
    p("")
    last = idle[-1]
    if last["refused"]:
        p(f"Opening stopped at {last['streams']:,} of {target:,}: {last['refused']}. (The HTTP server accepts "
          f"as many connections as its descriptor limit allows, less 256 kept in reserve: docs/http.md.)")
        p("")
    if len(idle) > 1 and idle[-1]["streams"] > idle[0]["streams"]:
        per = (idle[-1]["rss_kb"] - idle[0]["rss_kb"]) / (idle[-1]["streams"] - idle[0]["streams"])
        p(f"Each idle stream costs about {per:.1f} KB of RSS and "
          f"{(idle[-1]['threads'] - idle[0]['threads']) / (idle[-1]['streams'] - idle[0]['streams']):.2f} threads "
          f"({idle[-1]['threads']} threads in all with {idle[-1]['streams']:,} streams open).")
        p("")
    met = (last["streams"] >= 10000 and last["rss_kb"] < 100 * 1024 and last["threads"] <= 4 * cpus
           and last["checked_ok"] > 0 and last["p99_us"] < 1000)
    text = (f"{last['streams']:,} streams open (of {target:,} tried): RSS {last['rss_kb'] / 1024:.1f} MB, "
            f"{last['threads']:,} threads, tools/call "
            + (f"p99 {last['p99_us'] / 1000:.2f} ms" if last["checked_ok"] else "not answered")
            + (f" (at {idle[-2]['streams']:,} streams: p99 {idle[-2]['p99_us'] / 1000:.2f} ms)"
               if not last["checked_ok"] and len(idle) > 1 else ""))
    return met, text


idle = load("idle.jsonl")
idle_handoff = load("idle-handoff.jsonl")
cpus = meta.get("nproc", 2)
if idle:
    target = idle[-1]["target"]
    p(f"## Idle SSE streams: up to {target:,} 2025-11-25 sessions with their GET stream open")
    p("")
    p("Each stream: initialize, notifications/initialized, then a GET with `Accept: text/event-stream`, "
      "counted open once its priming event arrived, then left idle. Meanwhile wrk sends tools/call on one "
      "more keep-alive connection (its own session, JSON answers) for a few seconds at each step. The "
      "server is weather-server as shipped (get_weather `inline: true`: each call answered on the HTTP "
      "thread, its connection never suspended, so libmicrohttpd's walk of the suspended connections at each "
      "resume stays out of the calls) with `--max-sessions` above the number of streams; then the same with "
      "`--no-inline-tool get_weather` (each call handed to the worker, its connection suspended and resumed).")
    p("")
    met, text = idle_table(idle, "weather-server, as shipped")
    if idle_handoff:
        _met_h, text_h = idle_table(idle_handoff, "weather-server --no-inline-tool get_weather")
        text = f"as shipped: {text}; --no-inline-tool get_weather: {text_h}"
    targets.append((f"10,000 idle SSE streams in < 100 MB RSS, at most a few threads per CPU (<= {4 * cpus} here), "
                    "tools/call p99 < 1 ms meanwhile", met, text))

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
        targets.append(("text -> validated value in <= 0.5 of JSON.parse + Ajv's time on every case, the invalid "
                        "one included", worst[0] <= 0.5, f"slowest case relative to Ajv: {worst[1]}, {worst[0]:.2f}"))
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
    # "ratio mcpidlc --emit=c / protoc-c   wall W, CPU C" (bench/compile/compare.sh): CPU is the figure
    # other work on the machine disturbs least.
    for label, bound in (("--emit=c", 0.5), ("--print-tools", 0.25)):
        found = re.search(r"ratio mcpidlc " + re.escape(label) + r" / protoc-c\s+wall ([0-9.]+), CPU ([0-9.]+)", text)
        if found:
            cpu = float(found.group(2))
            targets.append((f"mcpidlc {label} <= {bound} of protoc-c's time (CPU) on the same 1,000-tool contract",
                            cpu <= bound, f"{cpu:.2f} (wall {float(found.group(1)):.2f})"))

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
