#!/usr/bin/env python3
"""HTTP load of bench/run: wrk (with mcp.lua) against each server, at each connection count.

usage: load.py OUT.jsonl --duration S --warmup S --conns 1,16,64,256 --rounds R --client-cpu C
               --server-cpu C --server NAME:SCENARIOS:CMD... (repeatable; CMD words separated by
               spaces, PORT is replaced by the port; SCENARIOS: json, sse, 2026 joined with +)

Each server is started once per scenario (all at once, then measured in turn, point by point),
pinned to the server CPU, wrk to the client CPU. At each connection count every server is measured
R times, round by round (each point's line says its round): a stall of the machine then falls on
one round of one point, and the report takes the round with the median requests/s. For
2025-11-25 scenarios of a server marked stateful (NAME starting with 'mcpidl' or containing
'stateful') one session per connection is created first. Per point: requests/s, latency
percentiles, answers checked (failures counted), server CPU per request from /proc/PID/stat,
peak RSS (VmHWM, reset before the point) and threads.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = '"structuredContent":{"temperature":16.2,"humidity":0.83,"conditions":"Overcast"}'
SCENARIOS = {
    # name: (MCP-Protocol-Version, Accept of the mcpidl request, Accept of the TS request)
    "json": ("2025-11-25", "application/json", "application/json, text/event-stream"),
    "sse": ("2025-11-25", "application/json, text/event-stream", "application/json, text/event-stream"),
    "2026": ("2026-07-28", "application/json, text/event-stream", "application/json, text/event-stream"),
}


def wrk(port, conns, seconds, env, cpu, pid=None):
    """wrk's figures (mcp.lua's JSON line); with pid, the most threads that process had meanwhile."""
    fd, out = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, MCP_OUT=out, **env)
    cmd = ["taskset", "-c", str(cpu), "wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "--timeout", "10s",
           "-s", os.path.join(HERE, "mcp.lua"), f"http://127.0.0.1:{port}/mcp"]
    r = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    threads = 0
    while pid and r.poll() is None:
        try:
            threads = max(threads, common.status(pid).get("Threads", 0))
        except OSError:
            pass
        time.sleep(0.25)
    text = r.communicate()[0]
    try:
        with open(out) as f:
            fig = json.loads(f.read())
    except (OSError, ValueError):
        raise RuntimeError(f"wrk: {text[-800:]}")
    finally:
        os.unlink(out)
    if pid:
        fig["threads_during"] = threads
    return fig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--conns", default="1,16,64,256")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--client-cpu", default="0")
    ap.add_argument("--server-cpu", default="1")
    ap.add_argument("--server", action="append", default=[])
    a = ap.parse_args()
    conns = [int(c) for c in a.conns.split(",")]
    # Every server and scenario is started first, then the points are taken in turn, connection
    # count by connection count: on a shared machine the other work then weighs on every server
    # alike instead of on whichever was measured when it peaked.
    runs, tmp = [], []
    try:
        for spec in a.server:
            name, scen, cmd = spec.split(":", 2)
            for sc in scen.split("+"):
                version, accept_mcpidl, accept_ts = SCENARIOS[sc]
                accept = accept_mcpidl if name.startswith("mcpidl") else accept_ts
                port = common.free_port()
                print(f"bench: HTTP: starting {name} for {sc}", file=sys.stderr, flush=True)
                p = common.start(cmd.split(), port, a.server_cpu)
                env = {"MCP_VERSION": version, "MCP_ACCEPT": accept, "MCP_EXPECT": EXPECT}
                ids = []
                if version == "2025-11-25" and (name.startswith("mcpidl") or "stateful" in name):
                    ids = common.sessions(port, max(conns), accept_ts if "stateful" in name else "application/json")
                sfile = tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False)
                sfile.close()
                tmp.append(sfile.name)
                env["MCP_SESSIONS"] = sfile.name
                runs.append((name, sc, p, port, env, ids, sfile.name))
        for name, sc, p, port, env, ids, sname in runs:
            # Warm-up (the JIT of Node, the thread and arena caches of mcpidl), unrecorded.
            with open(sname, "w") as f:
                f.write("\n".join(ids[:16]))
            wrk(port, 16, a.warmup, env, a.client_cpu)
        with open(a.out, "a") as out:
            for c in conns:
                for rnd in range(1, a.rounds + 1):
                    for name, sc, p, port, env, ids, sname in runs:
                        with open(sname, "w") as f:
                            f.write("\n".join(ids[:c]))
                        common.reset_peak(p.pid)
                        t0 = common.cpu_ticks(p.pid)
                        fig = wrk(port, c, a.duration, env, a.client_cpu, p.pid)
                        t1 = common.cpu_ticks(p.pid)
                        st = common.status(p.pid)
                        n = fig["requests"]
                        fig.update({
                            "server": name, "scenario": sc, "conns": c, "round": rnd, "sessions": len(ids[:c]),
                            "rps": n / (fig["duration_us"] / 1e6),
                            "cpu_us_per_req": (t1 - t0) * 1e6 / common.HZ / n if n else None,
                            "peak_rss_kb": st.get("VmHWM"), "rss_kb": st.get("VmRSS"), "threads": fig.pop("threads_during"),
                        })
                        out.write(json.dumps(fig) + "\n")
                        out.flush()
                        print(f"bench: HTTP {name}, {sc}, {c} connections, round {rnd}: {fig['rps']:,.0f} requests/s, "
                              f"p99 {fig['p99_us']:,.0f} us, {fig['failed']} failed", file=sys.stderr, flush=True)
    finally:
        for run in runs:
            common.stop(run[2])
        for t in tmp:
            os.unlink(t)

if __name__ == "__main__":
    main()
