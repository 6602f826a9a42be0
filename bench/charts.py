#!/usr/bin/env python3
"""The charts of bench/run, drawn with gnuplot as SVG from the raw figures in OUT.

usage: charts.py OUT CHARTS_DIR

  http-rps.svg      requests/s by server and connection count (Streamable HTTP, wrk)
  http-latency.svg  latency p50, p90, p99 by server at 16 connections (log scale)
  idle-streams.svg  RSS and threads of mcpidl against idle SSE streams, tools/call p99 meanwhile
  stdio-calls.svg   tools/call over stdio: sequential and pipelined calls/s by server
"""
import json
import os
import statistics
import subprocess
import sys

OUT, DIR = sys.argv[1], sys.argv[2]
os.makedirs(DIR, exist_ok=True)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def load(name):
    path = os.path.join(OUT, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


HTTP_ROWS = [
    ("mcpidl", "json", "mcpidl, 2025 session, JSON", "#1f5fbf", 1),
    ("mcpidl", "sse", "mcpidl, 2025 session, SSE", "#1f5fbf", 2),
    ("mcpidl", "2026", "mcpidl, 2026-07-28", "#1f5fbf", 3),
    ("mcpidl-handoff", "json", "mcpidl, handed to a worker, 2025 JSON", "#0b3a80", 1),
    ("mcpidl-handoff", "sse", "mcpidl, handed to a worker, 2025 SSE", "#0b3a80", 2),
    ("mcpidl-w0", "json", "mcpidl --workers 0, 2025 JSON", "#5aa0e6", 1),
    ("mcpidl-w0", "2026", "mcpidl --workers 0, 2026-07-28", "#5aa0e6", 3),
    ("ts-stateful-json", "json", "TS v1 stateful, JSON", "#d9822b", 1),
    ("ts-stateful-sse", "sse", "TS v1 stateful, SSE", "#d9822b", 2),
    ("ts-stateless-json", "json", "TS v1 stateless, JSON", "#b35c00", 1),
    ("ts2", "sse", "TS v2, 2025 (SSE)", "#9c3fb5", 2),
    ("ts2", "2026", "TS v2, 2026-07-28", "#9c3fb5", 3),
]
# BENCH_CHARTS=png draws PNG instead (to look at them where no SVG viewer is at hand).
PNG = os.environ.get("BENCH_CHARTS") == "png"
TERM = "pngcairo size 820,460 font 'sans,10'" if PNG else "svg size 820,460 dynamic font 'sans,11' background '#ffffff'"
STYLE = f"set terminal {TERM}\n"


def gnuplot(name, script):
    path = os.path.join(DIR, name.replace(".svg", ".png") if PNG else name)
    r = subprocess.run(["gnuplot"], input=STYLE + f"set output '{path}'\n" + script, text=True,
                       capture_output=True)
    if r.returncode != 0:
        raise SystemExit(f"gnuplot ({name}): {r.stderr}")
    print(f"chart: {path}", file=sys.stderr)


def dat(name, rows):
    path = os.path.join(DIR, name)
    with open(path, "w") as f:
        for row in rows:
            f.write("\t".join(f'"{x}"' if isinstance(x, str) else f"{x:g}" for x in row) + "\n")
    return path


meta = (load("meta.json") or [{}])[0]
machine = f"{meta.get('nproc', '?')} vCPUs, load average {meta.get('load_before', '?')} before the run"

# ---------------------------------------------------------------- requests/s by connections
http = load("http.jsonl")
drawn = []


def hmedian(server, scen, c):
    """As report.py: the round with the median requests/s of that point, or None."""
    x = sorted((r for r in http if r["server"] == server and r["scenario"] == scen and r["conns"] == c),
               key=lambda r: r["rps"])
    return x[len(x) // 2] if x else None


if http:
    conns = sorted({r["conns"] for r in http})
    plots = []
    for i, (s, sc, label, color, dash) in enumerate(HTTP_ROWS):
        pts = {c: hmedian(s, sc, c) for c in conns if hmedian(s, sc, c)}
        if not pts:
            continue
        f = dat(f"http-rps-{i}.dat", [(j, str(c), pts[c]["rps"]) for j, c in enumerate(conns) if c in pts])
        plots.append(f"'{f}' using 1:3:xtic(2) with linespoints lw 2 dt {dash} pt 7 ps 0.6 lc rgb '{color}' "
                     f"title '{label}'")
        drawn.append(f)
    gnuplot("http-rps.svg", f"""
set title "tools/call over Streamable HTTP: requests/s (wrk, every answer checked)\\n{machine}"
set xlabel "connections"
set ylabel "requests/s (log scale)"
set logscale y
set grid ytics mytics lc rgb '#dddddd'
set key outside right top vertical Left reverse noenhanced font 'sans,9'
set xrange [-0.3:{len(conns) - 0.7}]
plot {", ".join(plots)}
""")

    # ------------------------------------------------------------ latency percentiles at 16
    c = 16 if 16 in conns else conns[len(conns) // 2]
    rows = []
    for s, sc, label, _, _ in HTTP_ROWS:
        x = hmedian(s, sc, c)
        if x:
            rows.append((label, x["p50_us"] / 1000, x["p90_us"] / 1000, x["p99_us"] / 1000))
    f = dat("http-latency.dat", rows)
    drawn.append(f)
    gnuplot("http-latency.svg", f"""
set title "tools/call over Streamable HTTP: latency at {c} connections (wrk)\\n{machine}"
set ylabel "ms (log scale)"
set logscale y
set grid ytics lc rgb '#dddddd'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by 30 right noenhanced font 'sans,9'
set key left top
set bmargin 8
plot '{f}' using 2:xtic(1) title 'p50' lc rgb '#8fb8e8', '' using 3 title 'p90' lc rgb '#3d7cc9', \\
     '' using 4 title 'p99' lc rgb '#143d73'
""")

# ---------------------------------------------------------------- idle streams
idle = load("idle.jsonl")
if idle:
    f = dat("idle.dat", [(x["streams"], x["rss_kb"] / 1024, x["threads"], x["p99_us"] / 1000) for x in idle])
    drawn.append(f)
    top = max(idle[-1]["target"], idle[-1]["streams"])
    ymax = max(120, max(x["rss_kb"] for x in idle) / 1024 * 1.1)
    stop = ""
    if idle[-1]["refused"]:
        n = max(x["streams"] for x in idle)
        stop = (f"set arrow from {n},0 to {n},{ymax * 0.9:.0f} nohead dt 3 lc rgb '#555555'\n"
                f"set label \"{n:,} streams: no more connections accepted\" at {n},{ymax * 0.93:.0f} center "
                f"font 'sans,9'\n")
    gnuplot("idle-streams.svg", stop + f"""
set title "mcpidl weather-server with idle SSE streams open\\n{machine}"
set xlabel "idle GET streams open"
set ylabel "RSS (MB)"
set y2label "threads"
set ytics nomirror
set y2tics
set xrange [0:{top}]
set yrange [0:{ymax:.0f}]
set y2range [0:*]
set grid lc rgb '#dddddd'
set key right center noenhanced
set arrow from 0,100 to {top},100 nohead dt 2 lc rgb '#c0392b'
set label "target: 100 MB at 10,000 streams" at {top * 0.02},105 tc rgb '#c0392b' font 'sans,9'
plot '{f}' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f5fbf' title 'RSS (MB)', \\
     '' using 1:3 axes x1y2 with linespoints lw 2 dt 2 pt 5 lc rgb '#d9822b' title 'threads'
""")

# ---------------------------------------------------------------- stdio
server = load("server.jsonl")
if server:
    names = [("mcpidl", "mcpidl"), ("mcpidl-stdio", "mcpidl, stdio-only link"), ("ts", "TS SDK v1"),
             ("ts2", "TS SDK v2"), ("jsonc", "json-c ceiling"), ("pipe", "pipe ceiling")]
    rows = []
    for n, label in names:
        seq = [r["calls_per_s"] for r in server if r["server"] == n and r["mode"] == "seq"]
        pipe = [r["calls_per_s"] for r in server if r["server"] == n and r["mode"] == "pipe"]
        if seq or pipe:
            rows.append((label, statistics.median(seq) if seq else float("nan"),
                         statistics.median(pipe) if pipe else float("nan")))
    f = dat("stdio.dat", rows)
    drawn.append(f)
    gnuplot("stdio-calls.svg", f"""
set title "tools/call over stdio: calls/s, median of the runs\\n{machine}"
set ylabel "calls/s"
set grid ytics lc rgb '#dddddd'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set ylabel "calls/s (log scale)"
set xtics rotate by 20 right noenhanced font 'sans,9'
set key left top
plot '{f}' using 2:xtic(1) title 'sequential, same core' lc rgb '#8fb8e8', \\
     '' using 3 title 'pipelined, 64 in flight' lc rgb '#143d73'
""")

for f in drawn:
    os.unlink(f)
