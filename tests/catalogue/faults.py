#!/usr/bin/env python3
"""Concurrency and fault tests against a real catalogue server, over stdio or Streamable HTTP.

usage: faults.py --server PATH [--transport stdio|http] [--work DIR] [--only NAME]...

Each test starts a server of its own and checks one behaviour: requests answered while a tool
runs, cancellation, handlers that fail, the end of the input or SIGTERM with a call in flight,
clients that vanish or dawdle, many sessions. Nothing waits on a clock: the tests wait for
answers, for the lines the catalogue's handlers write to standard error when they start or see
a cancellation, or for the file a `block` call waits on, which the test creates. Every wait has
a generous hang guard (peers.HANG_GUARD).

A test listed in KNOWN_BUGS is expected to fail (the reason says why); it is reported as XFAIL
and does not fail the run, and as XPASS once it passes.

Prints one line per test and a summary; exits 0 when no test fails.
"""
import argparse
import concurrent.futures
import json
import os
import re
import select
import signal
import socket
import sys
import threading
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from peers import compact  # noqa: E402

KNOWN_BUGS = {
}


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def call(id_, tool, args=None, meta=None):
    params = {"name": tool, "arguments": args or {}}
    if meta:
        params["_meta"] = meta
    return compact({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}).encode()


def cancel(id_):
    return compact({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": id_, "reason": "test"}}).encode()


def text_answer(id_, text, structured=True):
    result = {"content": [{"type": "text", "text": text}]}
    if structured:
        result["structuredContent"] = {"result": text}
    result["isError"] = False
    return compact({"jsonrpc": "2.0", "id": id_, "result": result}).encode()


def error_answer(id_, text):
    return compact({"jsonrpc": "2.0", "id": id_, "result": {
        "content": [{"type": "text", "text": text}], "isError": True}}).encode()


def pong(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "result": {}}).encode()


ECHO_ARGS = {"n": 1, "x": 2.5, "s": "abc", "b": True, "ids": [1, 2], "counts": {"a": 1},
             "color": "red", "limit": None, "point": {"x": 1.5}}
ECHO_TEXT = "n=1 x=2.5 s=abc b=true ids=[1,2] counts={a:1} color=red limit=null point=(1.5,0) tag=none"
FAIL_TEXT = "Error executing tool fail: on purpose"
RAISE_TEXT = ("Error executing tool raise_error: 1 validation error for raise_errorOutput\nresult\n"
              "  Input should be greater than or equal to 0 [type=greater_than_equal, "
              "input_value=-1, input_type=int]")


class Ctx:
    def __init__(self, server, work):
        self.server = server
        self.work = work
        self.procs = []

    def stdio(self, *args):
        p = peers.StdioServer([self.server] + list(args))
        self.procs.append(p)
        init = p.start_session("2025-11-25")
        check(b'"protocolVersion":"2025-11-25"' in init, "initialize failed: %r" % init)
        return p

    def http(self, *args):
        p = peers.HttpServer([self.server] + list(args))
        self.procs.append(p)
        return p

    def path(self, name):
        path = os.path.join(self.work, name)
        if os.path.exists(path):
            os.unlink(path)
        return path

    def release(self, path):
        with open(path, "w"):
            pass

    def close(self):
        for p in self.procs:
            p.kill()


def expect_line(p, want, what):
    got = p.recv()
    check(got == want, "%s: expected %s, got %s" % (what, want.decode(), got.decode("utf-8", "replace")))


def wait_stderr(p, pattern, start, what):
    m = p.err.wait_for(pattern, start)
    check(m is not None, "%s: no line /%s/ on standard error:\n%s" % (what, pattern, p.err.text()[-2000:]))
    return m


def wait_lines(p, pattern, start, n, what):
    """Wait for n lines matching `pattern` on standard error from line `start` on."""
    rx = re.compile(pattern)
    i = start
    for _ in range(n):
        wait_stderr(p, pattern, i, what)
        with p.err.cv:
            i = next(j for j in range(i, len(p.err.lines)) if rx.search(p.err.lines[j])) + 1


def stdout_is_protocol_only(p):
    """Every line the server wrote to standard output is one JSON-RPC message."""
    for raw in p.raw_out:
        try:
            v = json.loads(raw)
        except ValueError:
            raise Failure("standard output holds a line that is not JSON: %r" % raw[:200])
        check(isinstance(v, (dict, list)) and (isinstance(v, list) or v.get("jsonrpc") == "2.0"),
              "standard output holds a line that is not a JSON-RPC message: %r" % raw[:200])


# ---------------------------------------------------------------- stdio

def stdio_ping_while_a_tool_runs_then_cancel(ctx):
    """`wait_cancel` runs; a ping is answered meanwhile; notifications/cancelled for it gets no
    answer, and the server keeps serving. With one worker, the echo call that follows runs
    after wait_cancel's job has finished, so its answer proves that none came for id 10."""
    p = ctx.stdio("--workers", "1")
    mark = p.err.mark()
    p.send(call(10, "wait_cancel"))
    wait_stderr(p, r"catalogue: wait_cancel waiting", mark, "wait_cancel did not start")
    p.send(peers.ping(11))
    expect_line(p, pong(11), "ping while wait_cancel runs")
    p.send(cancel(10))
    wait_stderr(p, r"catalogue: wait_cancel cancelled", mark, "the handler never saw the cancellation")
    p.send(call(12, "echo", ECHO_ARGS))
    expect_line(p, text_answer(12, ECHO_TEXT), "echo after the cancelled call (no answer for id 10 before it)")
    p.send(peers.ping(13))
    expect_line(p, pong(13), "ping at the end")
    p.close_input()
    check(p.wait_exit() == 0, "exit status %r" % p.p.returncode)
    with_stderr = p.err.text()
    check("catalogue: echo called" in with_stderr, "the handler's printf did not reach standard error")
    stdout_is_protocol_only(p)


def stdio_cancel_twice_and_late(ctx):
    """Cancelling the same request twice, and cancelling it again after its answer, changes
    nothing: no answer, no error, the server serves on."""
    p = ctx.stdio("--workers", "2")
    mark = p.err.mark()
    p.send(call(20, "wait_cancel"))
    wait_stderr(p, r"catalogue: wait_cancel waiting", mark, "wait_cancel did not start")
    p.send(cancel(20))
    p.send(cancel(20))
    wait_stderr(p, r"catalogue: wait_cancel cancelled", mark, "the handler never saw the cancellation")
    p.send(call(21, "fail", {"message": "on purpose"}))
    expect_line(p, error_answer(21, FAIL_TEXT), "fail")
    p.send(cancel(21))  # already answered: too late, ignored
    p.send(peers.ping(22))
    expect_line(p, pong(22), "ping after a late cancellation")


def stdio_failing_tools_leave_it_serving(ctx):
    """A handler that fails and one whose output breaks its schema, while another call is in
    flight: each gets its isError result, and the server answers the rest."""
    p = ctx.stdio("--workers", "2")
    release = ctx.path("stdio-failing.release")
    mark = p.err.mark()
    p.send(call(30, "block", {"path": release}))
    wait_stderr(p, r"catalogue: block waiting", mark, "block did not start")
    p.send(call(31, "fail", {"message": "on purpose"}))
    expect_line(p, error_answer(31, FAIL_TEXT), "fail")
    p.send(call(32, "raise_error"))
    expect_line(p, error_answer(32, RAISE_TEXT), "raise_error")
    p.send(call(33, "echo", ECHO_ARGS | {"s": 5}))
    expect_line(p, error_answer(33, "Error executing tool echo: 1 validation error for echoArguments\n"
                                    "s\n  Input should be a valid string [type=string_type, "
                                    "input_value=5, input_type=int]"), "echo with a bad argument")
    ctx.release(release)
    expect_line(p, text_answer(30, "released"), "block after its release")
    p.send(peers.ping(34))
    expect_line(p, pong(34), "ping at the end")


def stdio_end_of_input_with_a_call_in_flight(ctx):
    """Standard input closes while `block` runs: the call is still answered, then the server
    exits with 0."""
    p = ctx.stdio()
    release = ctx.path("stdio-eof.release")
    mark = p.err.mark()
    p.send(call(40, "block", {"path": release}))
    wait_stderr(p, r"catalogue: block waiting", mark, "block did not start")
    p.close_input()
    check(p.alive(), "the server exited at the end of its input with a call in flight")
    ctx.release(release)
    expect_line(p, text_answer(40, "released"), "block after the end of the input")
    try:
        extra = p.recv()
        raise Failure("output after the last answer: %r" % extra)
    except peers.ServerGone:
        pass
    check(p.wait_exit() == 0, "exit status %r, not 0" % p.p.returncode)
    stdout_is_protocol_only(p)


def stdio_unterminated_last_line(ctx):
    """A last line without its newline is a message too."""
    p = ctx.stdio()
    p.send(peers.ping(41), newline=False)
    p.close_input()
    expect_line(p, pong(41), "the unterminated last line")
    check(p.wait_exit() == 0, "exit status %r, not 0" % p.p.returncode)


def stdio_sigterm_with_a_call_in_flight(ctx):
    """SIGTERM while `block` runs: the call is still answered, then the server exits with 0."""
    p = ctx.stdio()
    release = ctx.path("stdio-sigterm.release")
    mark = p.err.mark()
    p.send(call(50, "block", {"path": release}))
    wait_stderr(p, r"catalogue: block waiting", mark, "block did not start")
    p.signal(signal.SIGTERM)
    # The server stops reading at once: nothing sent now is answered, but it waits for block.
    ctx.release(release)
    expect_line(p, text_answer(50, "released"), "block after SIGTERM")
    check(p.wait_exit() == 0, "exit status %r, not 0" % p.p.returncode)
    stdout_is_protocol_only(p)


def stdio_many_calls_in_flight(ctx):
    """64 calls in flight at once (the default limit), answered in any order, each once."""
    p = ctx.stdio("--workers", "4")
    for i in range(64):
        p.send(call(100 + i, "slow_progress", {"steps": 3}))
    got = sorted(p.recv() for _ in range(64))
    want = sorted(compact({"jsonrpc": "2.0", "id": 100 + i, "result": {
        "content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3},
        "isError": False}}).encode() for i in range(64))
    check(got == want, "the 64 answers differ from the expected ones")
    p.send(peers.ping(99))
    expect_line(p, pong(99), "ping after 64 calls")


def stdio_1024_calls_in_flight(ctx):
    """1,024 calls in flight at once with the default flags (64 run, the others wait for a
    turn): none is refused. All wait on one file; a ping sent after them is the first answer
    (every call before it was read and queued, none answered with an error); a call cancelled
    while it waits never runs; once the file exists, every other call gets its own answer."""
    p = ctx.stdio()
    path = ctx.path("inflight.release")
    never = ctx.path("inflight-cancelled.never")
    mark = p.err.mark()
    n = 1024
    lines = [call(i, "block", {"path": path}) for i in range(n - 1)]
    lines.append(call("c", "block", {"path": never}))
    for line in lines:
        check(p.send(line), "the server stopped reading")
    p.send(cancel("c"))
    p.send(peers.ping("p"))
    expect_line(p, pong("p"), "the first answer, after 1,024 calls queued")
    ctx.release(path)
    got = [p.recv() for _ in range(n - 1)]
    want = sorted(text_answer(i, "released") for i in range(n - 1))
    check(sorted(got) == want, "answers differ: %d of %d as expected" %
          (len(set(got) & set(want)), n - 1))
    p.send(peers.ping("q"))
    expect_line(p, pong("q"), "ping after the 1,023 answers (none for the cancelled call)")
    check("block waiting for " + never not in "\n".join(p.err.lines[mark:]), "the cancelled call ran")
    stdout_is_protocol_only(p)


def stdio_backpressure_past_the_queue(ctx):
    """--max-concurrent 1 --max-queued 4: one call blocks, four wait, and the reading thread
    then waits for room instead of refusing; the client's 2,000 further calls block in the pipe
    until the blocked call ends, and every one is then answered, none with an error."""
    p = ctx.stdio("--workers", "1", "--max-concurrent", "1", "--max-queued", "4", "--log-level", "debug")
    path = ctx.path("backpressure.release")
    mark = p.err.mark()
    n = 2000

    def write():
        p.send(call("b", "block", {"path": path}))
        for i in range(n):
            if not p.send(call(i, "echo", ECHO_ARGS)):
                return

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    wait_stderr(p, r"the queue is full \(4 requests\): reading waits for room", mark,
                "the reading thread never waited for room")
    ctx.release(path)
    writer.join(peers.HANG_GUARD)
    check(not writer.is_alive(), "the client's writes never went through")
    got = [p.recv() for _ in range(n + 1)]
    want = sorted([text_answer("b", "released")] + [text_answer(i, ECHO_TEXT) for i in range(n)])
    check(sorted(got) == want, "answers differ: %d of %d as expected" % (len(set(got) & set(want)), n + 1))


# ---------------------------------------------------------------- HTTP

def open_sse_call(srv, sid, body, head_out=None):
    """POST a request on a raw socket and read until the SSE stream's priming event: the
    request is then in the server's hands. Returns the socket (and, in head_out, the bytes
    read)."""
    s = peers.raw_connect(srv.port)
    head = ("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\nContent-Type: application/json\r\n"
            "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: %d\r\n\r\n"
            % (srv.host, peers.ACCEPT_BOTH, sid, len(body)))
    s.sendall(head.encode() + body)
    got = b""
    while b"retry:" not in got:
        check(peers.wait_readable(s), "no SSE priming event")
        chunk = s.recv(4096)
        check(chunk, "the server closed the stream before its priming event")
        got += chunk
    check(got.startswith(b"HTTP/1.1 200"), "the POST got %r" % got[:100])
    if head_out is not None:
        head_out.append(got)
    return s


def http_ping_and_echo(srv, sid, n):
    a = srv.post(peers.ping("p%d" % n), session=sid, version="2025-11-25")
    check(a.status == 200 and a.messages == [pong("p%d" % n)], "ping: %d %r" % (a.status, a.body[:200]))
    b = srv.post(call("e%d" % n, "echo", ECHO_ARGS), session=sid, version="2025-11-25")
    check(b.status == 200 and b.messages == [text_answer("e%d" % n, ECHO_TEXT)],
          "echo: %d %r" % (b.status, b.body[:300]))


def http_vanishing_client_leaves_it_serving(ctx):
    """A client that closes its socket while its SSE answer is open (a `block` call in flight)
    does not stop the server: other sessions, and the same session, are served."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    release = ctx.path("http-vanish.release")
    mark = srv.err.mark()
    s = open_sse_call(srv, sid, call(60, "block", {"path": release}))
    wait_stderr(srv, r"catalogue: block waiting", mark, "block did not start")
    s.close()
    ctx.release(release)  # the answer now goes to a stream nobody reads
    other, _ = srv.start_session("2025-11-25")
    http_ping_and_echo(srv, other, 1)
    http_ping_and_echo(srv, sid, 2)
    # And a client gone in the middle of a JSON (not SSE) answer.
    release2 = ctx.path("http-vanish-json.release")
    mark = srv.err.mark()
    s = peers.raw_connect(srv.port)
    body = call(61, "block", {"path": release2})
    s.sendall(("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\nContent-Type: "
               "application/json\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n"
               % (srv.host, sid, len(body))).encode() + body)
    wait_stderr(srv, r"catalogue: block waiting", mark, "block (JSON) did not start")
    s.close()
    ctx.release(release2)
    http_ping_and_echo(srv, sid, 3)
    check(srv.alive(), "the server died")


def http_resume_after_vanishing(ctx):
    """docs/http.md: a client that lost a stream sends GET with Last-Event-ID and receives the
    events it missed. The client goes away after the priming event of a `block` call; the call
    is released; a GET naming the priming event's id gets the answer."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    release = ctx.path("http-resume.release")
    mark = srv.err.mark()
    head = []
    s = open_sse_call(srv, sid, call(63, "block", {"path": release}), head)
    wait_stderr(srv, r"catalogue: block waiting", mark, "block did not start")
    s.close()
    ctx.release(release)
    m = re.search(rb"id: (\d+-0)\n", head[0])
    check(m is not None, "no event id in the priming event: %r" % head[0][-200:])
    a = srv.post(None, session=sid, version="2025-11-25", accept="text/event-stream", method="GET",
                 headers={"Last-Event-ID": m.group(1).decode()})
    check(a.status == 200 and a.messages == [text_answer(63, "released")],
          "the resumed stream: %d %r" % (a.status, a.body[-300:]))


def http_parked_connections_are_looked_at(ctx):
    """The ticker wakes parked connections when something is due: a 2026-07-28 call whose
    client goes away is cancelled (its handler sees mcp_call_cancelled), and an idle GET stream
    gets a keep-alive comment (every 15 s) and stays open. (A slow call's SSE stream starting
    after the hold, the third case, is what open_sse_call waits for in the other tests.)"""
    srv = ctx.http()
    mark = srv.err.mark()
    s = peers.raw_connect(srv.port)
    body = json.dumps({"jsonrpc": "2.0", "id": 70, "method": "tools/call",
                       "params": {"name": "wait_cancel", "arguments": {},
                                  "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                            "io.modelcontextprotocol/clientCapabilities": {}}}}).encode()
    s.sendall(("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\nContent-Type: application/json\r\n"
               "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: wait_cancel\r\n"
               "Content-Length: %d\r\n\r\n" % (srv.host, peers.ACCEPT_BOTH, len(body))).encode() + body)
    wait_stderr(srv, r"catalogue: wait_cancel waiting", mark, "wait_cancel did not start")
    s.close()
    wait_stderr(srv, r"catalogue: wait_cancel cancelled", mark, "the call of a client gone was not cancelled")

    sid, _ = srv.start_session("2025-11-25")
    g = peers.raw_connect(srv.port)
    g.sendall(("GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
               "MCP-Protocol-Version: 2025-11-25\r\n\r\n" % (srv.host, sid)).encode())
    check(peers.wait_readable(g), "no answer to the GET")
    got = g.recv(4096)
    # Other sessions come and go meanwhile (their streams woken, never parked): the parked
    # stream's keep-alive still comes.
    for _ in range(3):
        other, _ = srv.start_session("2025-11-25")
        d = srv.post(None, session=other, version="2025-11-25", method="DELETE")
        check(d.status in (200, 204), "DELETE of a session: %d" % d.status)
    while b": keep-alive\n\n" not in got:
        check(peers.wait_readable(g), "no keep-alive comment on an idle GET stream: %r" % got[-200:])
        chunk = g.recv(4096)
        check(chunk, "the server closed the idle GET stream: %r" % got[-200:])
        got += chunk
    check(got.startswith(b"HTTP/1.1 200") and b"retry: 500" in got, "the GET stream: %r" % got[:300])
    g.close()
    http_ping_and_echo(srv, sid, 1)

    # More streams due in one second than a tick sends (256): each still gets its keep-alive.
    streams = {}
    for _ in range(300):
        other, _ = srv.start_session("2025-11-25")
        g = peers.raw_connect(srv.port)
        g.sendall(("GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                   "MCP-Protocol-Version: 2025-11-25\r\n\r\n" % (srv.host, other)).encode())
        streams[g] = b""
    waiting = set(streams)
    while waiting:
        ready, _, _ = select.select(list(waiting), [], [], peers.HANG_GUARD)
        check(ready, "%d of 300 streams got no keep-alive comment" % len(waiting))
        for g in ready:
            chunk = g.recv(4096)
            check(chunk, "the server closed an idle GET stream")
            streams[g] += chunk
            if b": keep-alive\n\n" in streams[g]:
                waiting.discard(g)
    for g in streams:
        g.close()


def http_slowloris(ctx):
    """Clients that send their headers a byte at a time, or never finish them, do not hold up
    others: 100 of them stay open while new sessions initialize, ping and call a tool."""
    srv = ctx.http()
    head = ("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n" % srv.host).encode()
    slow = []
    try:
        for i in range(100):
            s = peers.raw_connect(srv.port)
            # A few bytes one at a time, then silence: the request line is never finished.
            for k in range(1 + i % 7):
                s.send(head[k:k + 1])
            slow.append(s)
        for n in range(3):
            sid, _ = srv.start_session("2025-11-25")
            http_ping_and_echo(srv, sid, n)
        # One that finishes its headers but never sends the body it announced.
        s = peers.raw_connect(srv.port)
        s.send(head + b"Content-Length: 1000\r\nAccept: application/json\r\n\r\n{")
        slow.append(s)
        sid, _ = srv.start_session("2025-11-25")
        http_ping_and_echo(srv, sid, 9)
    finally:
        for s in slow:
            s.close()
    check(srv.alive(), "the server died")


def http_sessions(ctx):
    """1,000 sessions at once, each with a distinct id, each answering a ping; then the table's
    limit (1,024, docs/http.md): the next initialize gets 503, and after a DELETE one fits
    again."""
    srv = ctx.http()
    want = 1000

    def one(_):
        return srv.start_session("2025-11-25")[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
        sids = list(ex.map(one, range(want)))
    check(len(set(sids)) == want, "%d distinct session ids of %d" % (len(set(sids)), want))
    check(all(len(s) == 32 and all(c in "0123456789abcdef" for c in s) for s in sids),
          "a session id is not 32 hex digits")

    def ping_in(i):
        a = srv.post(peers.ping(i), session=sids[i], version="2025-11-25")
        return a.status == 200 and a.messages == [pong(i)]

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
        oks = list(ex.map(ping_in, range(want)))
    check(all(oks), "%d of %d sessions did not answer their ping" % (oks.count(False), want))
    # Fill the table to its limit, then one more.
    for _ in range(1024 - want):
        sids.append(srv.start_session("2025-11-25")[0])
    a = srv.post(peers.initialize("2025-11-25"))
    check(a.status == 503 and b"too many sessions" in a.body,
          "initialize beyond 1,024 sessions: %d %r" % (a.status, a.body[:200]))
    check("mcp-session-id" not in a.headers, "a refused initialize carries a session id")
    d = srv.post(None, session=sids[0], method="DELETE")
    check(d.status == 200, "DELETE: %d" % d.status)
    g = srv.post(peers.ping(1), session=sids[0], version="2025-11-25")
    check(g.status == 404, "a deleted session answers %d, not 404" % g.status)
    sid, _ = srv.start_session("2025-11-25")
    http_ping_and_echo(srv, sid, 1)
    http_ping_and_echo(srv, sids[-1], 2)


def http_sigterm_with_a_call_in_flight(ctx):
    """SIGTERM while a `block` call's SSE stream is open: the server stops accepting, the call
    is answered on its stream, and the server exits with 0."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    release = ctx.path("http-sigterm.release")
    mark = srv.err.mark()
    s = open_sse_call(srv, sid, call(70, "block", {"path": release}))
    wait_stderr(srv, r"catalogue: block waiting", mark, "block did not start")
    srv.signal(signal.SIGTERM)
    ctx.release(release)
    got = b""
    s.settimeout(peers.HANG_GUARD)
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
        if text_answer(70, "released") in got:
            break
    s.close()
    rc = srv.wait_exit()
    check(text_answer(70, "released") in got,
          "the call in flight was not answered (the stream ended with %r; exit status %r)"
          % (got[-200:], rc))
    check(rc == 0, "exit status %r, not 0" % rc)


def http_progress_on_the_stream(ctx):
    """Progress notifications of a call travel on its SSE stream, before the answer, with
    event ids of that stream."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    a = srv.post(call(80, "slow_progress", {"steps": 3}, {"progressToken": 5}), session=sid,
                 version="2025-11-25")
    want = [compact({"jsonrpc": "2.0", "method": "notifications/progress",
                     "params": {"progressToken": 5, "progress": k, "total": 3}}).encode()
            for k in (1, 2, 3)]
    want.append(compact({"jsonrpc": "2.0", "id": 80, "result": {
        "content": [{"type": "text", "text": "3"}], "structuredContent": {"result": 3},
        "isError": False}}).encode())
    check(a.status == 200 and a.messages == want, "got %d %r" % (a.status, a.body[:500]))
    ids = [e.get("id") for e in a.events()]
    stream = ids[0].split(b"-")[0]
    check(ids == [b"%s-%d" % (stream, k) for k in range(0, 5)], "event ids %r" % ids)


def raw_exchange(srv, data):
    """Send raw bytes on a connection of their own and read until the server closes it (the
    hang guard fails a connection left open). Returns the bytes read."""
    s = peers.raw_connect(srv.port)
    try:
        s.sendall(data)
        got = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                raise Failure("the connection was not closed after %r" % got[:200])
            if not chunk:
                return got
            got += chunk
    finally:
        s.close()


def http_framing(ctx):
    """RFC 9112 framing that libmicrohttpd accepts and mcpidl refuses: each request gets its
    exact status and error, and its connection is closed (what follows a request whose framing
    cannot be trusted is never read as a request: a DELETE smuggled in a body does not run)."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    ping_body = peers.ping(1)
    smuggled = ("DELETE /mcp HTTP/1.1\r\nHost: %s\r\nMcp-Session-Id: %s\r\n\r\n" % (srv.host, sid)).encode()
    common = ("Host: %s\r\nAccept: application/json\r\nContent-Type: application/json\r\n"
              "Mcp-Session-Id: %s\r\n" % (srv.host, sid))
    n = len(ping_body)
    cases = [
        ("two Content-Length values", common + "Content-Length: %d\r\nContent-Length: 5\r\n" % n,
         ping_body, 400, "Bad Request: more than one Content-Length header"),
        ("a space before the colon", common + "Content-Length : %d\r\n" % len(smuggled), smuggled,
         400, "Bad Request: whitespace or NUL in a header field name"),
        ("Content-Length with Transfer-Encoding",
         common + "Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % (n + 10),
         b"%x\r\n%s\r\n0\r\n\r\n" % (n, ping_body), 400,
         "Bad Request: Content-Length with Transfer-Encoding"),
        ("Transfer-Encoding: gzip", common + "Transfer-Encoding: gzip\r\n", b"", 501,
         "Not Implemented: the only transfer coding served is chunked"),
        ("Transfer-Encoding: chunked, identity", common + "Transfer-Encoding: chunked, identity\r\n",
         b"", 501, "Not Implemented: the only transfer coding served is chunked"),
        ("two Host headers", common + "Host: attacker.example\r\nContent-Length: %d\r\n" % n, ping_body,
         400, "Bad Request: more than one Host header"),
    ]
    nul_host = ("Host: localhost\0.attacker.example\r\nAccept: application/json\r\nContent-Type: "
                "application/json\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n" % (sid, n))
    cases.append(("a NUL in Host", nul_host, ping_body, 400,
                  "Bad Request: NUL in a header field value, or a folded header line"))
    folded = common + "X-Folded: a\r\n b\r\nContent-Length: %d\r\n" % n
    cases.append(("a folded header line", folded, ping_body, 400,
                  "Bad Request: NUL in a header field value, or a folded header line"))
    for name, head, body, status, message in cases:
        got = raw_exchange(srv, b"POST /mcp HTTP/1.1\r\n" + head.encode() + b"\r\n" + body)
        want_line = b"HTTP/1.1 %d " % status
        check(got.startswith(want_line), "%s: got %r" % (name, got[:120]))
        head_end = got.find(b"\r\n\r\n")
        check(head_end > 0 and b"connection: close" in got[:head_end].lower(),
              "%s: no Connection: close in %r" % (name, got[:head_end]))
        want_body = compact({"jsonrpc": "2.0", "error": {"code": -32000, "message": message}}).encode()
        check(got[head_end + 4:] == want_body, "%s: body %r" % (name, got[head_end + 4:]))
    # The smuggled DELETE never ran: the session answers.
    http_ping_and_echo(srv, sid, 1)


def start_session_with(srv, capabilities):
    """initialize declaring `capabilities`, then notifications/initialized: the session id."""
    init = compact({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "faults", "version": "1"}}}).encode()
    a = srv.post(init)
    sid = a.headers.get("mcp-session-id")
    check(a.status == 200 and sid, "initialize: %d %r" % (a.status, a.body[:200]))
    b = srv.post(peers.INITIALIZED, session=sid, version="2025-11-25")
    check(b.status == 202, "initialized: %d" % b.status)
    return sid


def json_call_socket(srv, sid, body):
    """POST a request asking for a JSON answer, on a raw socket left open: the answer comes
    when the call ends."""
    s = peers.raw_connect(srv.port)
    s.sendall(("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: application/json\r\nContent-Type: "
               "application/json\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n"
               % (srv.host, sid, len(body))).encode() + body)
    return s


def read_http_answer(s):
    """One whole HTTP answer with a Content-Length body, from a raw socket: (status, body)."""
    got = b""
    while b"\r\n\r\n" not in got:
        check(peers.wait_readable(s), "no answer")
        chunk = s.recv(65536)
        check(chunk, "the connection closed without an answer: %r" % got)
        got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    m = re.search(rb"content-length: (\d+)", head.lower())
    check(m is not None, "no Content-Length in %r" % head)
    while len(body) < int(m.group(1)):
        check(peers.wait_readable(s), "the body did not come")
        chunk = s.recv(65536)
        check(chunk, "the connection closed inside the body")
        body += chunk
    return int(head.split(b" ")[1]), body


def http_json_requests_always_get_an_answer(ctx):
    """A request answered as application/json gets a JSON-RPC error with its id when its answer
    will never come, never an empty 202 (202 is for notifications and responses): cancelled, 200
    with -32800; its session deleted meanwhile, 404 with -32001."""
    srv = ctx.http()
    sid, _ = srv.start_session("2025-11-25")
    mark = srv.err.mark()
    s = json_call_socket(srv, sid, call(90, "wait_cancel"))
    wait_stderr(srv, r"catalogue: wait_cancel waiting", mark, "wait_cancel did not start")
    c = srv.post(cancel(90), session=sid, version="2025-11-25")
    check(c.status == 202, "notifications/cancelled: %d" % c.status)
    status, body = read_http_answer(s)
    s.close()
    want = compact({"jsonrpc": "2.0", "id": 90, "error": {"code": -32800, "message": "Request cancelled"}})
    check(status == 200 and body == want.encode(), "cancelled: %d %r" % (status, body))
    http_ping_and_echo(srv, sid, 1)

    release = ctx.path("http-json-delete.release")
    mark = srv.err.mark()
    s = json_call_socket(srv, sid, call("d1", "block", {"path": release}))
    wait_stderr(srv, r"catalogue: block waiting", mark, "block did not start")
    d = srv.post(None, session=sid, method="DELETE")
    check(d.status == 200, "DELETE: %d" % d.status)
    status, body = read_http_answer(s)
    s.close()
    ctx.release(release)
    want = compact({"jsonrpc": "2.0", "id": "d1", "error": {"code": -32001, "message": "Session not found"}})
    check(status == 404 and body == want.encode(), "session deleted: %d %r" % (status, body))


def http_waiting_handlers_do_not_stall_others(ctx):
    """With two workers, one client leaving two sampling requests unanswered (their handlers
    wait for it, up to a 10-minute client timeout) does not hold up another session: it is
    served at once, while the first two still wait."""
    srv = ctx.http("--workers", "2", "--client-timeout", "600000")
    a = start_session_with(srv, {"sampling": {}})
    mark = srv.err.mark()
    heads = [[], []]
    socks = [open_sse_call(srv, a, call("s%d" % i, "sample", {"prompt": "hi"}), heads[i])
             for i in range(2)]
    wait_lines(srv, r"catalogue: sample asking", mark, 2, "the two sampling calls did not start")
    b, _ = srv.start_session("2025-11-25")
    for n in (1, 2):  # JSON answers: no keep-alive comments to hold off the hang guard
        e = srv.post(call("e%d" % n, "echo", ECHO_ARGS), session=b, version="2025-11-25",
                     accept="application/json")
        check(e.status == 200 and e.messages == [text_answer("e%d" % n, ECHO_TEXT)],
              "echo in the other session: %d %r" % (e.status, e.body[:300]))
    # The first session's calls still wait: their streams are open, their requests out.
    for s, head in zip(socks, heads):
        got = head[0]
        while b"sampling/createMessage" not in got:
            check(peers.wait_readable(s), "no sampling request on the first session's stream")
            chunk = s.recv(65536)
            check(chunk, "the first session's stream ended: %r" % got[-200:])
            got += chunk
        s.close()


def http_sessions_take_turns(ctx):
    """With one worker, a session with a backlog does not make another wait behind all of it:
    the sessions' queued requests are served in turn. Session A runs block(a1) and queues
    block(a2), block(a3), block(a4); session B queues block(b), already released; a1 and a2 are
    released: B's call runs before A's third starts."""
    srv = ctx.http("--workers", "1")
    a, _ = srv.start_session("2025-11-25")
    b, _ = srv.start_session("2025-11-25")
    paths = {k: ctx.path("turns-%s.release" % k) for k in ("a1", "a2", "a3", "a4", "b")}
    ctx.release(paths["b"])
    mark = srv.err.mark()
    socks = [open_sse_call(srv, a, call("a1", "block", {"path": paths["a1"]}))]
    wait_stderr(srv, r"catalogue: block waiting for .*turns-a1", mark, "block(a1) did not start")
    socks += [open_sse_call(srv, a, call(k, "block", {"path": paths[k]})) for k in ("a2", "a3", "a4")]
    socks.append(open_sse_call(srv, b, call("b", "block", {"path": paths["b"]})))
    ctx.release(paths["a1"])
    ctx.release(paths["a2"])
    wait_stderr(srv, r"catalogue: block waiting for .*turns-b", mark, "B's call never ran")
    ctx.release(paths["a3"])
    ctx.release(paths["a4"])
    wait_stderr(srv, r"catalogue: block waiting for .*turns-a4", mark, "block(a4) never ran")
    for s in socks:
        s.close()
    text = "\n".join(srv.err.lines[mark:])
    order = re.findall(r"catalogue: block waiting for \S*turns-(\w+)\.release", text)
    check(order == ["a1", "a2", "b", "a3", "a4"], "the order was %r" % order)


def http_256_connections_on_one_session(ctx):
    """256 connections posting tools/call on one session at once, with the default flags: 64
    run, 192 wait for a turn with their connections unanswered, none is refused; each gets its
    own answer once the file they wait on exists."""
    srv = ctx.http("--log-level", "debug")
    sid, _ = srv.start_session("2025-11-25")
    path = ctx.path("http256.release")
    mark = srv.err.mark()
    n = 256

    def one(i):
        a = srv.post(call(i, "block", {"path": path}), session=sid, version="2025-11-25",
                     accept="application/json")
        return i, a.status, a.body

    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
        futures = [ex.submit(one, i) for i in range(n)]
        wait_stderr(srv, r"tools/call: waits for a turn \(192 queued\)", mark,
                    "the 256 calls never were in the server at once")
        ctx.release(path)
        answers = [f.result() for f in futures]
    for i, status, body in answers:
        check(status == 200 and body == text_answer(i, "released"), "call %d: %d %r" % (i, status, body[:300]))


def http_503_past_the_queue(ctx):
    """--max-concurrent 1 --max-queued 2: with one call running and two waiting, the next is
    answered 503 with Retry-After and the error naming the limit, at once; a ping is answered
    meanwhile; after the load, the next request is served."""
    srv = ctx.http("--workers", "1", "--max-concurrent", "1", "--max-queued", "2", "--log-level", "debug")
    sid, _ = srv.start_session("2025-11-25")
    path = ctx.path("http503.release")
    mark = srv.err.mark()

    def one(id_):
        return srv.post(call(id_, "block", {"path": path}), session=sid, version="2025-11-25",
                        accept="application/json")

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        first = ex.submit(one, "a")
        wait_stderr(srv, r"catalogue: block waiting for .*http503", mark, "block(a) did not start")
        waiting = [ex.submit(one, k) for k in ("b", "c")]
        wait_stderr(srv, r"tools/call: waits for a turn \(2 queued\)", mark, "b and c never waited")
        d = one("d")
        want = compact({"jsonrpc": "2.0", "id": "d", "error": {
            "code": -32000, "message": "Service Unavailable: too many requests queued (limit 2)"}}).encode()
        check(d.status == 503 and d.headers.get("retry-after") == "1" and d.body == want,
              "past the bound: %d %r %r" % (d.status, d.headers.get("retry-after"), d.body[:300]))
        e = srv.post(peers.ping("p"), session=sid, version="2025-11-25", accept="application/json")
        check(e.status == 200 and e.body == pong("p"), "ping while full: %d %r" % (e.status, e.body[:200]))
        ctx.release(path)
        for k, f in zip(("a", "b", "c"), [first] + waiting):
            a = f.result()
            check(a.status == 200 and a.body == text_answer(k, "released"), "%s: %d %r" % (k, a.status, a.body[:200]))
    after = srv.post(call("e", "echo", ECHO_ARGS), session=sid, version="2025-11-25", accept="application/json")
    check(after.status == 200 and after.body == text_answer("e", ECHO_TEXT), "after the load: %d %r" %
          (after.status, after.body[:200]))


STDIO_TESTS = [
    ("stdio: ping while a tool runs, then cancel it", stdio_ping_while_a_tool_runs_then_cancel),
    ("stdio: cancelling twice, and too late", stdio_cancel_twice_and_late),
    ("stdio: failing tools leave it serving", stdio_failing_tools_leave_it_serving),
    ("stdio: end of input with a call in flight", stdio_end_of_input_with_a_call_in_flight),
    ("stdio: an unterminated last line", stdio_unterminated_last_line),
    ("stdio: SIGTERM with a call in flight", stdio_sigterm_with_a_call_in_flight),
    ("stdio: 64 calls in flight", stdio_many_calls_in_flight),
    ("stdio: 1,024 calls in flight with the default flags", stdio_1024_calls_in_flight),
    ("stdio: past the queue's bound, reading waits (backpressure)", stdio_backpressure_past_the_queue),
]
HTTP_TESTS = [
    ("http: a client that vanishes mid-stream leaves it serving", http_vanishing_client_leaves_it_serving),
    ("http: a stream lost mid-way is resumed with Last-Event-ID", http_resume_after_vanishing),
    ("http: parked connections are woken when due (client gone, keep-alive)", http_parked_connections_are_looked_at),
    ("http: slowloris clients do not block others", http_slowloris),
    ("http: 1,000 sessions, and the session limit", http_sessions),
    ("http: SIGTERM with a call in flight", http_sigterm_with_a_call_in_flight),
    ("http: progress on the call's stream", http_progress_on_the_stream),
    ("http: framing RFC 9112 forbids is refused and the connection closed", http_framing),
    ("http: a JSON-mode request always gets an answer with its id", http_json_requests_always_get_an_answer),
    ("http: handlers waiting for one client do not stall another", http_waiting_handlers_do_not_stall_others),
    ("http: sessions' queued requests are served in turn", http_sessions_take_turns),
    ("http: 256 connections on one session, none refused", http_256_connections_on_one_session),
    ("http: 503 with Retry-After past the queue's bound", http_503_past_the_queue),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    ap.add_argument("--work", default=None, help="a directory for the files `block` waits on")
    ap.add_argument("--only", action="append")
    opt = ap.parse_args()
    work = opt.work or os.path.join(os.getcwd(), "catalogue-faults")
    os.makedirs(work, exist_ok=True)
    tests = STDIO_TESTS if opt.transport == "stdio" else HTTP_TESTS
    if opt.only:
        tests = [t for t in tests if t[0] in opt.only]
    counts = {"PASS": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0}
    for name, fn in tests:
        ctx = Ctx(opt.server, work)
        problem = None
        try:
            fn(ctx)
        except Failure as e:
            problem = str(e)
        except Exception:  # a test that breaks (a timeout, a closed pipe) fails, with its trace
            problem = traceback.format_exc()
        finally:
            ctx.close()
        known = KNOWN_BUGS.get(name)
        if problem is None:
            verdict = "XPASS" if known else "PASS"
        else:
            verdict = "XFAIL" if known else "FAIL"
        counts[verdict] += 1
        print("%-5s %s" % (verdict, name))
        if verdict == "FAIL":
            print("      " + problem.replace("\n", "\n      "))
        elif verdict == "XFAIL":
            print("      [%s]\n      (%s)" % (known, problem.splitlines()[0]))
        elif verdict == "XPASS":
            print("      [marked as a known bug but passes: remove it from KNOWN_BUGS]")
        sys.stdout.flush()
    print("\nfaults (%s): %d test(s): %d passed, %d failed, %d expected failure(s), %d "
          "unexpected pass(es)" % (opt.transport, len(tests), counts["PASS"], counts["FAIL"],
                                   counts["XFAIL"], counts["XPASS"]))
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
