"""What bench/http/load.py and idle.py share: starting a server, its /proc figures, sessions."""
import http.client
import json
import os
import socket
import subprocess
import time

HZ = os.sysconf("SC_CLK_TCK")
INIT = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1.0.0"}}})
INITIALIZED = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(cmd, port, cpu=None):
    """Starts cmd (a list, PORT in it replaced), waits until it accepts connections."""
    cmd = [c.replace("PORT", str(port)) for c in cmd]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(300):
        if p.poll() is not None:
            raise RuntimeError(f"{' '.join(cmd)} exited: {p.stderr.read().decode(errors='replace')[-500:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p
        except OSError:
            time.sleep(0.05)
    p.kill()
    raise RuntimeError(f"{' '.join(cmd)} does not listen on {port}")


def stop(p):
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0])  # kB
            elif k == "Threads":
                out[k] = int(v)
    return out


def reset_peak(pid):
    """Resets VmHWM to the current RSS (clear_refs 5; needs to own the process or root)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def sessions(port, n, accept="application/json", path="/mcp"):
    """n 2025-11-25 sessions: initialize, then notifications/initialized; their ids."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    ids = []
    for _ in range(n):
        c.request("POST", path, INIT, {"Content-Type": "application/json", "Accept": accept})
        r = c.getresponse()
        body = r.read()
        sid = r.getheader("Mcp-Session-Id")
        if r.status != 200 or not sid:
            raise RuntimeError(f"initialize: {r.status} {body[:200]!r}")
        c.request("POST", path, INITIALIZED, {"Content-Type": "application/json", "Accept": accept,
                                               "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"})
        r = c.getresponse()
        r.read()
        if r.status not in (200, 202):
            raise RuntimeError(f"notifications/initialized: {r.status}")
        ids.append(sid)
    c.close()
    return ids
