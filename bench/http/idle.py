#!/usr/bin/env python3
"""Idle-stream capacity of bench/run: N 2025-11-25 sessions, each with its GET stream open and
idle, held against one server; its RSS and threads as the streams open, and the latency of
tools/call on another connection meanwhile.

usage: idle.py OUT.jsonl --streams N --steps K --probe S --client-cpu C --server-cpu C -- CMD...
(CMD: the server, PORT replaced by the port; it must accept N sessions.)

The streams open in K steps; before the first and after each step one JSON line: streams open,
VmRSS, VmHWM, Threads, and wrk's figures for S seconds of tools/call on one keep-alive
connection with a session of its own (mcp.lua, JSON answers). A stream counts as open once its
answer's headers and priming event have arrived. When the server refuses or closes a stream,
opening stops there and the line says how many opened and why.
"""
import argparse
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import load  # noqa: E402


def open_stream(port, sid):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall((f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
               f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n").encode())
    got = b""
    while b"\r\n\r\n" not in got or not got.split(b"\r\n\r\n", 1)[1].strip():
        chunk = s.recv(4096)
        if not chunk:
            s.close()
            raise OSError("closed by the server" + (f": {got[:60]!r}" if got else " before answering"))
        got += chunk
    if not got.startswith(b"HTTP/1.1 200"):
        s.close()
        raise OSError(got.split(b"\r\n", 1)[0].decode(errors="replace"))
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--probe", type=int, default=3)
    ap.add_argument("--client-cpu", default="0")
    ap.add_argument("--server-cpu", default="1")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    port = common.free_port()
    p = common.start(cmd, port, a.server_cpu)
    held, why = [], ""
    try:
        probe = common.sessions(port, 1)
        sfile = os.path.join(os.path.dirname(os.path.abspath(a.out)), "idle-session.txt")
        with open(sfile, "w") as f:
            f.write(probe[0])
        env = {"MCP_VERSION": "2025-11-25", "MCP_ACCEPT": "application/json", "MCP_EXPECT": load.EXPECT,
               "MCP_SESSIONS": sfile}
        load.wrk(port, 1, 1, env, a.client_cpu)  # warm-up
        with open(a.out, "a") as out:
            def measure():
                fig = load.wrk(port, 1, a.probe, env, a.client_cpu)
                st = common.status(p.pid)
                fig.update({"streams": len(held), "target": a.streams, "rss_kb": st["VmRSS"],
                            "peak_rss_kb": st["VmHWM"], "threads": st["Threads"], "refused": why,
                            "rps": fig["requests"] / (fig["duration_us"] / 1e6)})
                out.write(json.dumps(fig) + "\n")
                out.flush()
                print(f"bench:   {len(held):>6} idle streams: RSS {st['VmRSS'] / 1024:.1f} MB, {st['Threads']} threads,"
                      f" tools/call p99 {fig['p99_us']:,.0f} us{', ' + why if why else ''}", file=sys.stderr, flush=True)
            measure()
            step = max(1, a.streams // a.steps)
            while len(held) < a.streams and not why:
                goal = min(a.streams, len(held) + step)
                t0 = time.monotonic()
                try:
                    ids = common.sessions(port, goal - len(held))
                    for sid in ids:
                        held.append(open_stream(port, sid))
                except (OSError, RuntimeError) as e:
                    why = f"stream {len(held) + 1} not opened: {e}"
                    if held:  # room for the tools/call probe's connection
                        held.pop().close()
                        why += "; one stream closed again for the tools/call connection"
                        time.sleep(0.5)
                print(f"bench:   opened {len(held)} in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
                measure()
        os.unlink(sfile)
    finally:
        for s in held:
            s.close()
        common.stop(p)


if __name__ == "__main__":
    main()
