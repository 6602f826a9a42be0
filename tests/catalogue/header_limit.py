#!/usr/bin/env python3
"""The request header limit (--http-header-bytes, libmicrohttpd's buffer per connection): a
request whose headers come near the limit is served, one past it gets libmicrohttpd's 431, and
the server goes on serving; with the default (32 KiB) and with a smaller buffer (8 KiB), which
docs/http.md offers to servers that hold many idle streams.

usage: header_limit.py --server PATH

Prints one line per check; exits 0 when all pass.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

VERSION = "2025-11-25"
# What the request carries besides the padding header: its line, Host, Accept, Content-Type,
# Content-Length, the session's headers, and libmicrohttpd's bookkeeping of each (well under).
OTHER = 2048


def ping_with(srv, sid, pad):
    """A ping whose headers carry an X-Pad header `pad` bytes long, sent in one write (the server
    may answer and close before it has read all of it): its status, 0 when none came."""
    body = peers.ping("p")
    head = ("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\nContent-Type: application/json\r\n"
            "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\nX-Pad: %s\r\nContent-Length: %d\r\n"
            "Connection: close\r\n\r\n" % (srv.host, peers.ACCEPT_BOTH, sid, VERSION, "a" * pad, len(body)))
    s = peers.raw_connect(srv.port)
    got = b""
    try:
        try:
            s.sendall(head.encode() + body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except ConnectionResetError:
        pass
    finally:
        s.close()
    if not got.startswith(b"HTTP/1.1 "):
        return 0
    return int(got[9:12])


def check_limit(opt, extra, limit):
    srv = peers.HttpServer([opt.server] + extra)
    failed = 0
    try:
        sid, _ = srv.start_session(VERSION)
        # (Far larger headers, which libmicrohttpd refuses before it has read them, are
        # tests/unit/test_auth.c's: a 64 KiB header.)
        for pad, want, what in ((limit - OTHER, 200, "near the limit"), (limit, 431, "as large as the buffer")):
            got = ping_with(srv, sid, pad)
            if got != want:
                failed += 1
                print("FAIL %s: a %d-byte header %s: %d, want %d" % (" ".join(extra) or "default", pad, what, got,
                                                                     want))
            else:
                print("PASS %s: a %d-byte header %s: %d" % (" ".join(extra) or "default", pad, what, got))
        got = ping_with(srv, sid, 0)
        if got != 200:
            failed += 1
            print("FAIL %s: the next request: %d" % (" ".join(extra) or "default", got))
    finally:
        srv.kill()
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    opt = ap.parse_args()
    failed = check_limit(opt, [], 32768)
    failed += check_limit(opt, ["--http-header-bytes", "8192"], 8192)
    print("\nheader_limit: %d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
