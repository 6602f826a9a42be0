#!/usr/bin/env python3
"""Memory a client can make a server hold, measured: each test attacks a fresh catalogue server
over Streamable HTTP and reads the server's peak resident memory from /proc (VmHWM, reset
before the attack), then checks that its growth stays under the bound docs/security.md states
for that resource, with the answers right and the server still serving.

usage: bounds.py --server PATH [--only NAME]...

Run it on a plain build: the sanitizers' shadow memory and quarantine are not the server's.
Prints one line per test with the measured growth and its bound; exits 0 when none fails.
"""
import argparse
import concurrent.futures
import json
import os
import re
import tempfile
import time
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from peers import compact  # noqa: E402

MiB = 1 << 20


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


class Meter:
    """The server's resident memory before an attack, and its peak during it."""

    def __init__(self, srv):
        self.pid = srv.p.pid
        with open("/proc/%d/clear_refs" % self.pid, "w") as f:
            f.write("5")  # VmHWM := VmRSS
        self.base = peers.proc_status(self.pid, "VmRSS")

    def growth(self):
        return (peers.proc_status(self.pid, "VmHWM") - self.base) * 1024


def call(id_, tool, args):
    return compact({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                    "params": {"name": tool, "arguments": args}}).encode()


def warm_up(srv, sid):
    """A few calls of each kind the test makes, so that the baseline holds the steady state (the
    worker threads' stacks, the allocator's first arenas)."""
    for i in range(3):
        a = srv.post(call("w%d" % i, "big", {"bytes": 1000}), session=sid, version="2025-11-25")
        check(a.status == 200, "warm-up: %d" % a.status)


def session(srv, capabilities=None):
    init = compact({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities or {},
        "clientInfo": {"name": "bounds", "version": "1"}}}).encode()
    a = srv.post(init)
    sid = a.headers.get("mcp-session-id")
    check(a.status == 200 and sid, "initialize: %d %r" % (a.status, a.body[:200]))
    check(srv.post(peers.INITIALIZED, session=sid, version="2025-11-25").status == 202, "initialized")
    warm_up(srv, sid)
    return sid


def still_serves(srv, sid):
    a = srv.post(peers.ping("last"), session=sid, version="2025-11-25")
    check(a.status == 200 and a.messages == [b'{"jsonrpc":"2.0","id":"last","result":{}}'],
          "the session no longer answers a ping: %d %r" % (a.status, a.body[:200]))


def send_get(srv, sid, last_event_id=None):
    """GET the session's standalone stream (or resume one) on a raw socket: (socket, the
    answer's head and whatever came with it). A stream is never read to its end here."""
    s = peers.raw_connect(srv.port)
    extra = "Last-Event-ID: %s\r\n" % last_event_id if last_event_id else ""
    s.sendall(("GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
               "MCP-Protocol-Version: 2025-11-25\r\n%s\r\n" % (srv.host, sid, extra)).encode())
    got = b""
    while b"\r\n\r\n" not in got:
        check(peers.wait_readable(s), "no answer to the GET")
        chunk = s.recv(4096)
        check(chunk, "the GET's connection closed: %r" % got)
        got += chunk
    return s, got


def get_head(srv, sid, last_event_id):
    s, got = send_get(srv, sid, last_event_id)
    s.close()
    return got


def open_get(srv, sid):
    """The session's standalone stream on a raw socket nobody reads yet."""
    s, got = send_get(srv, sid)
    check(got.startswith(b"HTTP/1.1 200"), "the GET got %r" % got[:200])
    return s


# ---------------------------------------------------------------- the tests
# Each returns (growth in bytes, bound in bytes).

def replay_reader_never_reads(srv):
    """A GET reader attached to the standalone stream that never reads, while 60 calls each log
    4 MiB there (a JSON answer's other messages go to the GET stream): the stream keeps at most
    --replay-bytes (1 MiB) and its newest event. Before: every event, +256 MiB. Also: resuming
    past the last event is refused (it made a reader wait forever on an event never issued)."""
    sid = session(srv)
    head = get_head(srv, sid, "0-18446744073709551614")
    check(head.startswith(b"HTTP/1.1 400"), "resuming past the end: %r" % head[:200])
    s = open_get(srv, sid)
    m = Meter(srv)
    for i in range(60):
        a = srv.post(call(i, "log_big", {"bytes": 4 * MiB}), session=sid, version="2025-11-25",
                     accept="application/json")
        check(a.status == 200 and b'"logged"' in a.body, "call %d: %d %r" % (i, a.status, a.body[:200]))
    growth = m.growth()
    s.close()
    still_serves(srv, sid)
    # 1 MiB kept + the newest event (4 MiB) + one call in flight (about five copies of its
    # 4 MiB text: the handler's, the formatted line, the escaped message, the event, the
    # socket's) + the allocator's slack.
    return growth, 64 * MiB


def replay_slow_reader(srv):
    """A GET reader that reads 4 KiB after each of 120 calls logging 1 MiB: it falls behind, and
    the stream still keeps at most --replay-bytes and its newest event (the reader loses the
    oldest events, the server none of its memory). Before: every unsent event, +120 MiB."""
    sid = session(srv)
    s = open_get(srv, sid)
    m = Meter(srv)
    for i in range(120):
        a = srv.post(call(i, "log_big", {"bytes": MiB}), session=sid, version="2025-11-25",
                     accept="application/json")
        check(a.status == 200, "call %d: %d" % (i, a.status))
        check(peers.wait_readable(s), "the slow reader got nothing")
        check(s.recv(4096), "the slow reader's stream ended")
    growth = m.growth()
    s.close()
    still_serves(srv, sid)
    return growth, 32 * MiB


def subscriptions(srv):
    """60 subscriptions to 4 MiB URIs are refused (a subscribed URI is at most 4096 bytes), and
    300 to short ones stop at 256 per session. Before: every URI kept, +248 MiB."""
    sid = session(srv)
    m = Meter(srv)
    for i in range(60):
        uri = "note://%d" % i + "x" * (4 * MiB)
        a = srv.post(compact({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe",
                              "params": {"uri": uri}}).encode(), session=sid, version="2025-11-25")
        check(a.status == 200 and b'"code":-32602' in a.body, "a 4 MiB URI: %d %r" % (a.status, a.body[:200]))
    refused = 0
    for i in range(300):
        a = srv.post(compact({"jsonrpc": "2.0", "id": i, "method": "resources/subscribe",
                              "params": {"uri": "note://%d" % i}}).encode(), session=sid,
                     version="2025-11-25")
        check(a.status == 200, "subscribe %d: %d" % (i, a.status))
        refused += b"too many subscriptions (limit 256)" in a.body
    check(refused == 44, "%d of 300 subscriptions refused, not 44" % refused)
    growth = m.growth()
    still_serves(srv, sid)
    # A 4 MiB message in flight: its text, its parse and the error.
    return growth, 32 * MiB


def finished_streams(srv):
    """34 calls with 6 MiB answers, each read whole: the session keeps finished streams for
    resumption within 32 x --replay-bytes (32 MiB), the newest whatever its size. Before: 32
    whole answers, about +250 MiB."""
    sid = session(srv)
    m = Meter(srv)
    for i in range(34):
        a = srv.post(call(i, "big", {"bytes": 6 * MiB}), session=sid, version="2025-11-25")
        check(a.status == 200 and len(a.messages) == 1 and len(a.messages[0]) > 6 * MiB,
              "call %d: %d" % (i, a.status))
    growth = m.growth()
    still_serves(srv, sid)
    # A 6 MiB text answers as 12 MiB (content and structuredContent): 32 MiB kept + the newest
    # answer (12 MiB) + one call in flight (about five times its answer: the value, the result
    # text, the event, the allocator's slack) = about 104 MiB.
    return growth, 120 * MiB


def bodies_before_checks(srv):
    """Eight 8 MiB POSTs with a foreign Host, at once: refused (403) on their headers, their
    bodies read and dropped, never held. Before: every body buffered first, +65 MiB."""
    m = Meter(srv)
    body = b"[" + b"0," * (4 * MiB - 2) + b"0]"

    def one(_):
        return srv.post(body, headers={"Host": "attacker.example"}).status

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as ex:
        statuses = list(ex.map(one, range(8)))
    check(statuses == [403] * 8, "statuses %r" % statuses)
    return m.growth(), 16 * MiB


def parallel_bodies_one_session(srv):
    """Sixteen 8 MB POSTs at once on one session, --max-concurrent 1: bodies held at once stay
    under --max-inflight-bytes (64 MiB; past it, 503 with Retry-After), a session parses one
    at a time, and the trees of those waiting for a turn stay under --max-queued-bytes (64 MiB;
    past it, 503 too). Before: every body parsed at once, +523 MiB."""
    sid = session(srv)
    m = Meter(srv)
    # 8 MB of text, 249,007 values (under --max-values): each parse builds a tree of about
    # 26 MB, the most one message can cost.
    row = b"[" + b",".join([b"0" + b" " * 30] * 83000) + b"]"
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"strings","arguments":' \
           b'{"items":[' + b",".join([row] * 3) + b"]}}}"
    check(len(body) > 7 * MiB, "a body of %d bytes" % len(body))

    def one(i):
        a = srv.post(body.replace(b'"id":1', b'"id":%d' % i), session=sid, version="2025-11-25",
                     accept="application/json")
        return a.status, a.headers.get("retry-after"), a.body

    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as ex:
        answers = list(ex.map(one, range(16)))
    for status, retry, text in answers:
        check(status in (200, 503), "status %d %r" % (status, text[:200]))
        if status == 503:
            check(retry == "1" and (b"too many request bytes in flight" in text or
                                    b"too many request bytes queued" in text), "503: %r %r" % (retry, text[:200]))
        else:
            check(b'"result"' in text, "200: %r" % text[:300])
    growth = m.growth()
    still_serves(srv, sid)
    # 64 MiB of bodies + three trees of about 26 MB (the one being classified, the one being
    # parsed by the session, the call in flight's) + slack.
    return growth, 192 * MiB


def validation_reports(srv):
    """[1] * 100,000 as a list[str] (0.3 MB), and the same list spaced out to an 8.1 MB message:
    a report of 100,000 errors keeps and prints 100 of them. Before: a 9.8 MB answer, +58 MiB;
    15 MB and +102 MiB."""
    sid = session(srv)
    m = Meter(srv)
    small = call(1, "strings", {"items": [1] * 100000})
    big = small.replace(b"1,", b"1" + b" " * 80 + b",")
    check(len(big) > 8 * 1000 * 1000, "the big message is %d bytes" % len(big))
    sizes = []
    for body in (small, big):
        a = srv.post(body, session=sid, version="2025-11-25", accept="application/json")
        check(a.status == 200, "status %d" % a.status)
        result = json.loads(a.body)["result"]
        text = result["content"][0]["text"]
        check(result["isError"] and text.startswith("Input validation error: 100000 validation errors for")
              or "100000 validation errors" in text, "report: %r" % text[:200])
        check(text.endswith("... and 99900 more errors"), "the report's end: %r" % text[-200:])
        sizes.append(len(a.body))
    check(max(sizes) < 32 * 1024, "answers of %r bytes" % sizes)
    growth = m.growth()
    still_serves(srv, sid)
    # The 8.1 MB message: its body, its tree (100,000 values), the call's arena.
    return growth, 48 * MiB


def queued_requests(srv):
    """A call holds the only turn (--max-concurrent 1) while 96 calls of 512 KiB each arrive at
    once on the same session: those that fit in --max-queued-bytes (16 MiB here) wait for a turn,
    the others get 503 naming the byte limit; the waiting ones are answered once the first call
    ends. The queue's trees stay within the bound whatever the number of requests."""
    sid = session(srv)
    release = os.path.join(tempfile.mkdtemp(prefix="bounds-queue-"), "release")
    m = Meter(srv)
    with concurrent.futures.ThreadPoolExecutor(max_workers=97) as ex:
        first = ex.submit(srv.post, call("b", "block", {"path": release}), session=sid, version="2025-11-25",
                          accept="application/json")
        srv.err.wait_for(r"catalogue: block waiting for")
        item = "x" * (512 * 1024)

        def one(i):
            a = srv.post(call(i, "strings", {"items": [item]}), session=sid, version="2025-11-25",
                         accept="application/json")
            return a.status, a.headers.get("retry-after"), a.body

        mark = srv.err.mark()
        futures = [ex.submit(one, i) for i in range(96)]
        # Until each call has been answered 503 or waits for a turn (the server logs each one
        # that waits, at debug level): only then does the first call end.
        waits = re.compile(r"tools/call: waits for a turn")
        deadline = time.monotonic() + peers.HANG_GUARD
        while True:
            with srv.err.cv:
                queued = sum(1 for line in srv.err.lines[mark:] if waits.search(line))
            if queued + sum(f.done() for f in futures) >= 96:
                break
            check(time.monotonic() < deadline, "the 96 calls never all arrived (%d wait)" % queued)
            concurrent.futures.wait(futures, timeout=0.05, return_when=concurrent.futures.FIRST_COMPLETED)
        refused = 0
        with open(release, "w"):
            pass
        answers = [f.result() for f in futures]
        check(first.result().status == 200, "the blocking call: %d" % first.result().status)
    for status, retry, text in answers:
        check(status in (200, 503), "status %d %r" % (status, text[:200]))
        if status == 503:
            refused += 1
            check(retry == "1" and b"too many request bytes" in text, "503: %r %r" % (retry, text[:200]))
        else:
            check(b'"result"' in text and b'"isError":false' in text, "200: %r" % text[:300])
    check(0 < refused < 96, "%d of 96 refused" % refused)
    growth = m.growth()
    still_serves(srv, sid)
    # Request bodies in flight (48 MiB at most here), the queue's trees (16 MiB, at most twice
    # that allocated), one call's answer, slack.
    return growth, 112 * MiB


TESTS = [
    ("replay: a GET reader that never reads", replay_reader_never_reads, []),
    ("replay: a slow GET reader", replay_slow_reader, []),
    ("subscriptions", subscriptions, []),
    ("finished streams kept for resumption", finished_streams, []),
    ("bodies refused for their headers", bodies_before_checks, []),
    ("parallel bodies on one session", parallel_bodies_one_session, ["--max-concurrent", "1"]),
    ("validation reports", validation_reports, []),
    ("requests waiting for a turn", queued_requests,
     ["--max-concurrent", "1", "--workers", "1", "--max-queued-bytes", str(16 << 20), "--log-level", "debug"]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--only", action="append")
    opt = ap.parse_args()
    tests = [t for t in TESTS if not opt.only or t[0] in opt.only]
    failed = 0
    for name, fn, args in tests:
        srv = peers.HttpServer([opt.server] + args)
        problem = None
        try:
            growth, bound = fn(srv)
            figures = "peak growth %.1f MiB, bound %.0f MiB" % (growth / MiB, bound / MiB)
            if growth > bound:
                problem = figures
        except Failure as e:
            problem, figures = str(e), ""
        except Exception:
            problem, figures = traceback.format_exc(), ""
        finally:
            srv.kill()
        print("%-4s %s%s" % ("FAIL" if problem else "PASS", name, ": " + figures if figures else ""))
        if problem:
            failed += 1
            print("      " + problem.replace("\n", "\n      "))
        sys.stdout.flush()
    print("\nbounds: %d test(s): %d passed, %d failed" % (len(tests), len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
