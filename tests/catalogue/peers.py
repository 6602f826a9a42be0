"""The test side of a catalogue server: a process over stdio or over Streamable HTTP.

run.py (the bad-input catalogue) and faults.py (concurrency and faults) both drive the server
through these classes. Python's standard library only.

Every wait has a hang guard (HANG_GUARD seconds): it turns a server that never answers into a
failing test instead of a stuck one. No wait is a synchronisation by time: each one ends when
the thing waited for happens (a line on standard output or standard error, an HTTP answer).
"""
import http.client
import json
import queue
import re
import select
import signal
import socket
import subprocess
import threading
import time

HANG_GUARD = 30.0  # seconds; a generous bound on any single wait, never a speed requirement
ACCEPT_BOTH = "application/json, text/event-stream"


def proc_status(pid, field):
    """A number of /proc/PID/status (VmRSS and VmHWM in KiB, Threads)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise LookupError("no %s in /proc/%d/status" % (field, pid))


def compact(value):
    """A JSON value as the server writes it: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def ping(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "method": "ping"}).encode()


def initialize(version, id_=0):
    return compact({"jsonrpc": "2.0", "id": id_, "method": "initialize",
                    "params": {"protocolVersion": version, "capabilities": {},
                               "clientInfo": {"name": "catalogue", "version": "1"}}}).encode()


INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class ServerGone(Exception):
    pass


class Stderr:
    """Collects a process's standard error, line by line, on a thread of its own (so that the
    process never blocks on a full pipe); wait_for() waits for a line matching a pattern."""

    def __init__(self, stream):
        self.lines = []
        self.cv = threading.Condition()
        self.closed = False
        self.t = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self.t.start()

    def _run(self, stream):
        for raw in iter(stream.readline, b""):
            with self.cv:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.cv.notify_all()
        with self.cv:
            self.closed = True
            self.cv.notify_all()

    def wait_for(self, pattern, start=0, timeout=HANG_GUARD):
        """The first match of `pattern` in lines[start:], waiting for it; None when the stream
        ends or the hang guard fires first."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cv:
            i = start
            while True:
                while i < len(self.lines):
                    m = rx.search(self.lines[i])
                    if m:
                        return m
                    i += 1
                left = deadline - time.monotonic()
                if self.closed or left <= 0:
                    return None
                self.cv.wait(left)

    def mark(self):
        with self.cv:
            return len(self.lines)

    def text(self):
        with self.cv:
            return "\n".join(self.lines)


class Process:
    """A server process with its standard error collected."""

    def __init__(self, argv, env=None):
        self.argv = argv
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=env)
        self.err = Stderr(self.p.stderr)

    def alive(self):
        return self.p.poll() is None

    def wait_exit(self, timeout=HANG_GUARD):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        self.err.t.join(HANG_GUARD)

    def signal(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)


class StdioServer(Process):
    """The server over standard input and output: one message a line each way. Output lines
    are read by a thread into a queue, so that a large write never deadlocks against the
    server's answers."""

    def __init__(self, argv, env=None):
        super().__init__(argv, env)
        self.out = queue.Queue()
        self.raw_out = []  # every byte of standard output, for the "protocol only" check
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    def _read(self):
        for raw in iter(self.p.stdout.readline, b""):
            self.raw_out.append(raw)
            self.out.put(raw)
        self.out.put(None)

    def send(self, data, newline=True):
        """Write bytes (and a newline). False when the server no longer reads."""
        try:
            self.p.stdin.write(data + (b"\n" if newline else b""))
            self.p.stdin.flush()
            return True
        except (BrokenPipeError, ValueError):
            return False

    def close_input(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass

    def recv(self, timeout=HANG_GUARD):
        """The next output line without its newline (bytes); raises ServerGone when the output
        ends, TimeoutError when the hang guard fires."""
        try:
            raw = self.out.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no output within %.0f s" % timeout) from None
        if raw is None:
            self.out.put(None)  # stays ended for later calls
            raise ServerGone("the server closed its output")
        return raw[:-1] if raw.endswith(b"\n") else raw

    def request(self, data):
        """Send one message, return the next line."""
        if not self.send(data):
            raise ServerGone("the server no longer reads its input")
        return self.recv()

    def start_session(self, version):
        """initialize with `version`, then notifications/initialized. Returns the answer."""
        answer = self.request(initialize(version))
        self.send(INITIALIZED)
        return answer


class HttpAnswer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # lower-case names
        self.body = body
        self.ctype = headers.get("content-type", "")
        self.messages = self._messages()

    def _messages(self):
        """The JSON-RPC messages the answer carries: an application/json body is one; an SSE
        stream, the data of each event that has data (the priming event has none)."""
        if self.ctype.startswith("text/event-stream"):
            out = []
            for event in self.body.replace(b"\r\n", b"\n").split(b"\n\n"):
                data = [line[5:].lstrip(b" ") for line in event.split(b"\n")
                        if line.startswith(b"data:")]
                if data and any(data):
                    out.append(b"\n".join(data))
            return out
        return [self.body] if self.body else []

    def events(self):
        """Every SSE event as a dict of its fields (the priming event included)."""
        out = []
        for event in self.body.replace(b"\r\n", b"\n").split(b"\n\n"):
            if not event.strip():
                continue
            fields = {}
            for line in event.split(b"\n"):
                name, _, value = line.partition(b":")
                fields[name.decode()] = value[1:] if value.startswith(b" ") else value
            out.append(fields)
        return out


class HttpServer(Process):
    """The server over Streamable HTTP on 127.0.0.1, on the port it picks and reports."""

    def __init__(self, argv, env=None):
        super().__init__(argv + ["--http", "127.0.0.1:0"], env)
        m = self.err.wait_for(r"listening on http://127\.0\.0\.1:(\d+)/mcp")
        if not m:
            self.kill()
            raise ServerGone("the HTTP server did not report its port:\n" + self.err.text())
        self.port = int(m.group(1))
        self.host = "127.0.0.1:%d" % self.port

    def post(self, body, session=None, version=None, accept=ACCEPT_BOTH,
             ctype="application/json", headers=None, method="POST", path="/mcp"):
        """One HTTP request on a connection of its own; the whole answer (an SSE stream is read
        to its end)."""
        h = {"Host": self.host}
        if accept is not None:
            h["Accept"] = accept
        if ctype is not None and method == "POST":
            h["Content-Type"] = ctype
        if session is not None:
            h["Mcp-Session-Id"] = session
        if version is not None:
            h["MCP-Protocol-Version"] = version
        for k, v in (headers or {}).items():  # a case's headers replace (None: remove) ours
            for key in [x for x in h if x.lower() == k.lower()]:
                del h[key]
            if v is not None:
                h[k] = v
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HANG_GUARD)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for k, v in h.items():
                conn.putheader(k, v)
            if body is not None:
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders()
            if body:
                conn.send(body)
            r = conn.getresponse()
            data = r.read()
            return HttpAnswer(r.status, {k.lower(): v for k, v in r.getheaders()}, data)
        finally:
            conn.close()

    def start_session(self, version):
        """initialize with `version` (no session yet), then notifications/initialized in the new
        session. Returns (session id, the initialize answer)."""
        a = self.post(initialize(version))
        sid = a.headers.get("mcp-session-id")
        if a.status != 200 or not sid or len(a.messages) != 1:
            raise ServerGone("initialize over HTTP failed: %d %r" % (a.status, a.body[:300]))
        b = self.post(INITIALIZED, session=sid, version=version)
        if b.status != 202:
            raise ServerGone("notifications/initialized got %d, not 202" % b.status)
        return sid, a.messages[0]


def raw_connect(port):
    """A plain TCP connection to the server, for clients that misbehave on purpose."""
    return socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)


def wait_readable(sock, timeout=HANG_GUARD):
    r, _, _ = select.select([sock], [], [], timeout)
    return bool(r)

