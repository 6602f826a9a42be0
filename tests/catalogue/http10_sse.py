#!/usr/bin/env python3
"""An SSE answer to an HTTP/1.0 client: without chunked encoding libmicrohttpd reads the stream
through the response's own block (a few hundred bytes, so that an idle stream costs little), so
an answer many times that size arrives whole: the same message as the JSON answer to the same
request over HTTP/1.1, in one event after the priming event, and the connection closes after it.

usage: http10_sse.py --server PATH

Prints one line per check; exits 0 when all pass.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

VERSION = "2025-11-25"
LIST = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'


def http10_post(srv, sid, body):
    """The whole answer (head and body) to an HTTP/1.0 POST that takes SSE."""
    s = peers.raw_connect(srv.port)
    try:
        s.sendall(("POST /mcp HTTP/1.0\r\nHost: %s\r\nAccept: %s\r\nContent-Type: application/json\r\n"
                   "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n"
                   % (srv.host, peers.ACCEPT_BOTH, sid, VERSION, len(body))).encode() + body)
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got
            got += chunk
    finally:
        s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    opt = ap.parse_args()
    srv = peers.HttpServer([opt.server])
    failed = 0
    try:
        sid, _ = srv.start_session(VERSION)
        want = srv.post(LIST, session=sid, version=VERSION, accept="application/json")
        got = http10_post(srv, sid, LIST)
        head, _, body = got.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        answer = peers.HttpAnswer(int(lines[0][9:12]) if lines[0].startswith(b"HTTP/1.") else 0,
                                  {k.strip().lower().decode(): v.strip().decode()
                                   for k, _, v in (line.partition(b":") for line in lines[1:])}, body)
        checks = [
            (want.status == 200 and len(want.messages) == 1 and len(want.messages[0]) > 1024,
             "the JSON answer to tools/list is over 1 KiB: %d, %d bytes" % (want.status, len(want.body))),
            (answer.status == 200 and answer.ctype.startswith("text/event-stream"),
             "HTTP/1.0: 200 text/event-stream: %r" % head[:200]),
            (b"transfer-encoding" not in head.lower(), "HTTP/1.0: not chunked"),
            (answer.messages == want.messages, "HTTP/1.0: the same message, whole (%d bytes of body)" % len(body)),
        ]
        for ok, what in checks:
            print(("PASS " if ok else "FAIL ") + what)
            failed += not ok
    finally:
        srv.kill()
    print("\nhttp10_sse: %d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
