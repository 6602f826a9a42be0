#!/usr/bin/env python3
"""Idle SSE streams cost no thread: a catalogue server over Streamable HTTP holds N 2025-11-25
sessions, each with its standalone GET stream open and idle, while tools/call, ping and a
ping on other connections are answered; the server's threads (from
/proc/PID/status) stay under a small bound that does not grow with N. With --rss-bounds, the
RSS that each idle session and each open stream adds stays under generous bounds (a few times
what they cost, so that the session state made lazily or libmicrohttpd's buffer growing back
fails the test). A sample of the streams still gets what its session sends it (a log message),
and closing them all leaves the server serving. No timing is asserted.

usage: idle_streams.py --server PATH [--streams N] [--rss-bounds]

Prints one line per check; exits 0 when all pass.
"""
import argparse
import os
import resource
import select
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from peers import compact  # noqa: E402

VERSION = "2025-11-25"


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def wait_readable(s):
    """select() stops at descriptor 1024: poll."""
    p = select.poll()
    p.register(s, select.POLLIN)
    return bool(p.poll(peers.HANG_GUARD * 1000))


def raw_request(port, text):
    """One request on a connection of its own, kept open: the socket."""
    s = socket.create_connection(("127.0.0.1", port), timeout=peers.HANG_GUARD)
    s.sendall(text.encode())
    return s


def read_head(s):
    got = b""
    while b"\r\n\r\n" not in got:
        check(wait_readable(s), "no answer head")
        chunk = s.recv(4096)
        check(chunk, "the connection closed: %r" % got[:200])
        got += chunk
    return got


def read_until(s, needle, got=b""):
    while needle not in got:
        check(wait_readable(s), "waited for %r, got %r" % (needle, got[-200:]))
        chunk = s.recv(65536)
        check(chunk, "the connection closed before %r: %r" % (needle, got[-200:]))
        got += chunk
    return got


def post_text(host, sid, body):
    head = ("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: application/json, text/event-stream\r\n"
            "Content-Type: application/json\r\nContent-Length: %d\r\n" % (host, len(body)))
    if sid:
        head += "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\n" % (sid, VERSION)
    return head + "\r\n" + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--rss-bounds", action="store_true",
                    help="bound the RSS per session and per stream (not under sanitizers)")
    opt = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = 1 << 20
    want = min(hard, max(soft, opt.streams + 512))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    # The client's descriptors bound the streams too (the server's limit is the same hard one).
    n = min(opt.streams, want - 512)
    if n < opt.streams:
        print("NOTE the descriptor limit (%d) allows %d streams, not %d" % (hard, n, opt.streams))
    if n < 100:
        print("FAIL the descriptor limit (%d) is too low for this test" % hard)
        return 1

    srv = peers.HttpServer([opt.server, "--max-sessions", str(n + 16)])
    failed = 0
    streams = []
    try:
        threads_idle = peers.proc_status(srv.p.pid, "Threads")
        # The sessions, then each one's GET stream (its priming event read).
        srv.start_session(VERSION)  # the allocator's and the server's first-use memory
        rss_start = peers.proc_status(srv.p.pid, "VmRSS")
        sids = [srv.start_session(VERSION)[0] for _ in range(n)]
        rss_sessions = peers.proc_status(srv.p.pid, "VmRSS")
        for sid in sids:
            s = raw_request(srv.port, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n"
                            "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\n\r\n" % (srv.host, sid, VERSION))
            streams.append(s)
        for i, s in enumerate(streams):
            got = read_until(s, b"retry: 500\ndata: \n\n")
            check(got.startswith(b"HTTP/1.1 200"), "stream %d: %r" % (i, got[:200]))
        threads_held = peers.proc_status(srv.p.pid, "Threads")
        rss_kib = peers.proc_status(srv.p.pid, "VmRSS")
        per_session = (rss_sessions - rss_start) * 1024.0 / n
        per_stream = (rss_kib - rss_sessions) * 1024.0 / n
        print("NOTE RSS: %.0f bytes per idle session, %.0f more per open stream"
              % (per_session, per_stream))
        if opt.rss_bounds:
            # An idle session holds its own struct and the transport's (about 1 KB): no arena,
            # slot or buffer of its last message. 4 KiB catches them coming back (5.6 KB).
            check(per_session <= 4096, "RSS per idle session: %.0f bytes, past 4096" % per_session)
            # A stream: libmicrohttpd's connection, its response and the two pages of its 32 KiB
            # buffer an idle stream keeps (about 6 KB, bench/README.md); the zeroed half of the
            # buffer coming back (16 KiB more) is a regression.
            check(per_stream <= 12288, "RSS per open stream: %.0f bytes, past 12288" % per_stream)

        # Other connections are answered meanwhile.
        a = srv.post(compact({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                              "params": {"name": "echo", "arguments": {"n": 3}}}).encode(),
                     session=sids[0], version=VERSION, accept="application/json, text/event-stream")
        check(a.status == 200 and len(a.messages) == 1 and b'"id":7' in a.messages[0]
              and b'"result"' in a.messages[0], "tools/call: %d %r" % (a.status, a.body[:300]))
        a = srv.post(peers.ping("p"), session=sids[-1], version=VERSION)
        check(a.status == 200 and a.messages == [b'{"jsonrpc":"2.0","id":"p","result":{}}'],
              "ping: %d %r" % (a.status, a.body[:300]))
        threads_busy = peers.proc_status(srv.p.pid, "Threads")

        # A sample of the idle streams still gets what its session sends it: a JSON-mode
        # call's log message goes to the session's GET stream.
        step = max(1, n // 50)
        for i in range(0, n, step):
            a = srv.post(compact({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                  "params": {"name": "log_big", "arguments": {"bytes": 100}}}).encode(),
                         session=sids[i], version=VERSION, accept="application/json")
            check(a.status == 200 and b'"logged"' in a.body, "log_big on session %d: %d %r"
                  % (i, a.status, a.body[:200]))
            read_until(streams[i], b"notifications/message")
        # An event larger than a page goes through the buffer pages an idle stream gave
        # back (lib/transport/http.c, sse_release): it arrives whole, twice.
        for i in (1, step + 1):
            for _ in range(2):
                a = srv.post(compact({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                      "params": {"name": "log_big", "arguments": {"bytes": 20000}}}).encode(),
                             session=sids[i], version=VERSION, accept="application/json")
                check(a.status == 200 and b'"logged"' in a.body, "log_big 20000 on session %d: %d %r"
                      % (i, a.status, a.body[:200]))
                got = read_until(streams[i], b"notifications/message")
                got = read_until(streams[i], b"\n\n", got[got.index(b"notifications/message"):])
                event = got[:got.index(b"\n\n")]
                check(event.count(b"x") == 20000 and b'"data":"' + b"x" * 100 in event,
                      "stream %d: a 20,000-byte log message arrived as %d x's" % (i, event.count(b"x")))
        # None of the others was closed by the server.
        for i, s in enumerate(streams):
            s.setblocking(False)
            try:
                more = s.recv(65536)
                check(more != b"", "stream %d was closed by the server" % i)
            except BlockingIOError:
                pass
            s.setblocking(True)

        # A bound that does not grow with the streams: the pool's threads (one per CPU), the
        # handlers' workers (one per CPU), the ticker, the main thread, and some slack.
        cpus = os.cpu_count() or 1
        bound = 4 * cpus + 16
        print("PASS %d idle SSE streams: %d threads before, %d holding them, %d answering (bound %d); "
              "RSS %.1f MiB" % (n, threads_idle, threads_held, threads_busy, bound, rss_kib / 1024.0))
        if opt.rss_bounds:
            print("PASS RSS per idle session and per open stream within their bounds")
        check(threads_held <= bound and threads_busy <= bound,
              "threads: %d holding the streams, %d answering: past %d" % (threads_held, threads_busy, bound))

        for s in streams:
            s.close()
        streams = []
        a = srv.post(peers.ping("last"), session=sids[0], version=VERSION)
        check(a.status == 200, "after the streams closed: %d" % a.status)
        print("PASS the server still serves once the streams are closed")
    except Failure as e:
        failed += 1
        print("FAIL " + str(e))
    finally:
        for s in streams:
            s.close()
        srv.kill()
    print("\nidle_streams: %d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
