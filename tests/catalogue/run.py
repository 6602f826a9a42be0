#!/usr/bin/env python3
"""The bad-input catalogue: play every case of a cases file against a real server, over stdio or
over Streamable HTTP, and check the exact answers.

usage: run.py --server PATH [--transport stdio|http] [--only NAME]... [--show] CASES.json...

A cases file is {"phases": {...}, "cases": [...]} (see README.md in this folder). For each case
the runner sends the case's bytes in a session of the case's phase (stdio: one line to a server
process; HTTP: one POST to /mcp), checks the answers (exact text; over HTTP the status and the
content type too), then checks that the server still serves: a ping and a tools/call of `echo`
must get their exact answers. A case marked "xfail" (a known bug, with the reason) is reported
as an expected failure and does not fail the run; one that passes is reported as XPASS, so that
the mark can go.

Prints one line per case and a summary; exits 0 when no case fails.
"""
import argparse
import atexit
import base64
import hashlib
import hmac
import json
import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402
from peers import compact  # noqa: E402

TEMPLATE = re.compile(r"\{\{(hex|repeat):([^}]*)\}\}")

# What the follow-up tools/call sends and must get back, after every case of an initialized
# session.
ECHO_ARGS = {"n": 7, "x": 0.5, "s": "ok", "b": False, "ids": [1], "counts": {"k": 2},
             "color": "blue", "limit": 3, "point": {"x": 1, "y": 2}}
ECHO_TEXT = "n=7 x=0.5 s=ok b=false ids=[1] counts={k:2} color=blue limit=3 point=(1,2) tag=none"


def echo_call(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                    "params": {"name": "echo", "arguments": ECHO_ARGS}}).encode()


def echo_answer(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "result": {
        "content": [{"type": "text", "text": ECHO_TEXT}],
        "structuredContent": {"result": ECHO_TEXT}, "isError": False}}).encode()


# 2026-07-28 (a phase with "modern": true): every request carries its version and capabilities.
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}


def modern_echo_call(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                    "params": {"_meta": META, "name": "echo", "arguments": ECHO_ARGS}}).encode()


def modern_echo_ok(line, id_):
    """Whether line is the answer of modern_echo_call(id_): the echo result with resultType and
    the server's identity in _meta."""
    try:
        m = json.loads(line)
    except ValueError:
        return False
    r = m.get("result", {}) if isinstance(m, dict) else {}
    return (m.get("id") == id_ and r.get("resultType") == "complete"
            and isinstance(r.get("_meta", {}).get("io.modelcontextprotocol/serverInfo"), dict)
            and r.get("content") == [{"type": "text", "text": ECHO_TEXT}]
            and r.get("structuredContent") == {"result": ECHO_TEXT} and r.get("isError") is False)


def modern_headers(body):
    """The headers a 2026-07-28 client sends with body (MCP-Protocol-Version, Mcp-Method, Mcp-Name
    from the body), when it is a request."""
    h = {"MCP-Protocol-Version": MODERN}
    try:
        m = json.loads(body)
    except ValueError:
        return h
    if isinstance(m, dict) and isinstance(m.get("method"), str):
        h["Mcp-Method"] = m["method"]
        params = m.get("params") if isinstance(m.get("params"), dict) else {}
        key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}.get(m["method"])
        if key and isinstance(params.get(key), str):
            h["Mcp-Name"] = params[key]
    return h


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def b64url(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def seal_state(key, spec):
    """A requestState as the server seals it (HMAC-SHA256 under the phase's key): spec names the
    method, the params it is bound to (without _meta, inputResponses, requestState), its expiry
    in seconds from now, the answers it carries and (optionally) the caller."""
    payload = {"v": 1, "m": spec["method"],
               "d": hashlib.sha256(canonical(spec["params"]).encode()).hexdigest(),
               "e": int(time.time()) + spec.get("expires_in", 600), "a": spec.get("answers", {})}
    if "caller" in spec:
        payload["p"] = spec["caller"]
    text = compact(payload).encode()
    return b64url(text) + "." + b64url(hmac.new(key, text, hashlib.sha256).digest())


def ping_answer(id_):
    return compact({"jsonrpc": "2.0", "id": id_, "result": {}}).encode()


def expand(text):
    """A case's text as bytes: UTF-8, with {{hex:ef bb bf}} for raw bytes (invalid UTF-8, NUL,
    a BOM) and {{repeat:N:TEXT}} for TEXT N times (huge lines, deep nesting), both built at
    run time."""
    out = bytearray()
    at = 0
    for m in TEMPLATE.finditer(text):
        out += text[at:m.start()].encode("utf-8")
        if m.group(1) == "hex":
            out += bytes.fromhex(m.group(2))
        else:
            count, _, unit = m.group(2).partition(":")
            out += unit.encode("utf-8") * int(count)
        at = m.end()
    out += text[at:].encode("utf-8")
    return bytes(out)


def message(v):
    """A message of a case: a string is exact text (with templates), anything else a JSON value
    written compactly."""
    return expand(v) if isinstance(v, str) else compact(v).encode("utf-8")


def is_error_without_id(data):
    try:
        v = json.loads(data)
    except ValueError:
        return False
    return isinstance(v, dict) and "error" in v and "id" not in v


def shorten(b, n=600):
    s = b.decode("utf-8", "backslashreplace") if isinstance(b, bytes) else str(b)
    return s if len(s) <= n else s[:n // 2] + " ... " + s[-n // 2:]


class Case:
    def __init__(self, raw, transport, phases, bugs):
        self.raw = raw
        self.name = raw["name"]
        self.phase = raw.get("phase", "ready")
        if self.phase not in phases:
            raise SystemExit("case %r: unknown phase %r" % (self.name, self.phase))
        over = raw.get(transport, {})
        self.runs = raw.get("transport", "both") in ("both", transport) and not over.get("skip")
        send = over.get("send", raw.get("send", ""))
        if "state" in raw:
            # {{state}} in the text: a requestState sealed under the phase's key.
            key = bytes.fromhex(phases[self.phase]["state_key"])
            state = seal_state(key, raw["state"])
            send = compact(send) if not isinstance(send, str) else send
            send = send.replace("{{state}}", state)
        self.send = message(send)
        self.expect = [message(m) for m in over.get("expect", raw.get("expect", []))]
        self.newline = over.get("newline", True)
        xf = over.get("xfail", raw.get("xfail"))
        if isinstance(xf, str):
            xf = {"reason": xf}
        if xf:
            # The reason names a known bug of the file's "bugs" table, or says it in full.
            xf = dict(xf, bug=xf["reason"] if xf["reason"] in bugs else None)
        self.xfail = xf  # None, or {"reason": ..., "checks": [...] (default: every check)}
        self.http = over if transport == "http" else {}

    def xfail_covers(self, failed):
        if not self.xfail:
            return False
        checks = self.xfail.get("checks")
        return checks is None or all(f in checks for f in failed)


# ---------------------------------------------------------------- stdio

class StdioRunner:
    def __init__(self, server, phases):
        self.server = server
        self.phases = phases
        self.procs = {}  # phase -> StdioServer (fresh phases get a new one per case)

    def proc(self, phase):
        spec = self.phases[phase]
        p = self.procs.get(phase)
        if p is None or not p.alive() or spec.get("fresh"):
            if p is not None:
                p.kill()
            p = peers.StdioServer([self.server] + phase_args(spec))
            if not spec.get("fresh") and not spec.get("modern"):
                p.start_session(spec["version"])
            self.procs[phase] = p
        return p

    def play(self, case, n):
        """Returns {check: problem} for the checks that failed."""
        p = self.proc(case.phase)
        failed = {}
        got = []
        if not p.send(case.send, case.newline):
            failed["answer"] = "the server no longer reads its input"
        else:
            try:
                for _ in case.expect:
                    got.append(p.recv())
            except (peers.ServerGone, TimeoutError) as e:
                failed["answer"] = "%s after %d answer(s)" % (e, len(got))
        if "answer" not in failed and got != case.expect:
            failed["answer"] = diff(case.expect, got)
        # Still serving? Anything before the ping's answer is an answer too many.
        extra = []
        if self.phases[case.phase].get("modern"):
            # No ping in 2026-07-28: a modern echo is both the sentinel and the check.
            try:
                echo_id = "echo-%d" % n
                p.send(modern_echo_call(echo_id))
                line = p.recv()
                while not modern_echo_ok(line, echo_id) and len(extra) < 5:
                    extra.append(line)
                    line = p.recv()
                if not modern_echo_ok(line, echo_id):
                    failed["after"] = "no echo answer after the case"
            except (peers.ServerGone, TimeoutError) as e:
                failed["after"] = "%s (stderr: %s)" % (e, shorten(p.err.text()[-800:].encode()))
            if extra:
                failed.setdefault("answer", "answers too many: " + " | ".join(shorten(x) for x in extra))
            return failed
        try:
            ping_id = "after-%d" % n
            p.send(peers.ping(ping_id))
            line = p.recv()
            while line != ping_answer(ping_id) and len(extra) < 5:
                extra.append(line)
                line = p.recv()
            if line != ping_answer(ping_id):
                failed["after"] = "no answer to the ping after the case"
            if not self.phases[case.phase].get("fresh"):
                echo_id = "echo-%d" % n
                p.send(echo_call(echo_id))
                line = p.recv()
                if line != echo_answer(echo_id):
                    failed["after"] = "tools/call echo after the case got: " + shorten(line)
        except (peers.ServerGone, TimeoutError) as e:
            failed["after"] = "%s (stderr: %s)" % (e, shorten(p.err.text()[-800:].encode()))
        if extra:
            failed.setdefault("answer", "answers too many: " + " | ".join(shorten(x) for x in extra))
        if self.phases[case.phase].get("fresh"):
            p.close_input()
            if p.wait_exit() != 0:
                failed["after"] = "the server did not exit with 0 at the end of its input"
            p.kill()
            del self.procs[case.phase]
        return failed

    def close(self):
        bad = []
        for phase, p in self.procs.items():
            p.close_input()
            rc = p.wait_exit()
            if rc != 0:
                bad.append("%s server exited with %r at the end of its input: %s"
                           % (phase, rc, p.err.text()[-800:]))
            p.kill()
        return bad


# ---------------------------------------------------------------- HTTP

class HttpRunner:
    def __init__(self, server, phases):
        self.server = server
        self.phases = phases
        self.procs = {}     # tuple(args) -> HttpServer
        self.sessions = {}  # phase -> (server, session id)

    def proc(self, args):
        key = tuple(args)
        p = self.procs.get(key)
        if p is None or not p.alive():
            if p is not None:
                p.kill()
                for ph in [k for k, v in self.sessions.items() if v[0] is p]:
                    del self.sessions[ph]
            p = peers.HttpServer([self.server] + list(args))
            self.procs[key] = p
        return p

    def session(self, phase):
        """The server and session of an initialized phase ("fresh" uses the default server
        and no session)."""
        spec = self.phases[phase]
        if spec.get("fresh") or spec.get("modern"):
            return self.proc(phase_args(spec)), None, None
        p = self.proc(phase_args(spec))
        s = self.sessions.get(phase)
        if s is None or s[0] is not p:
            sid, _ = p.start_session(spec["version"])
            s = (p, sid)
            self.sessions[phase] = s
        return s[0], s[1], spec["version"]

    def play(self, case, n):
        p, sid, version = self.session(case.phase)
        h = case.http
        session = {"phase": sid, "none": None, "unknown": "0123456789abcdef0123456789abcdef"}[
            h.get("session", "phase" if sid else "none")]
        accept = h.get("accept", peers.ACCEPT_BOTH)
        failed = {}
        modern = self.phases[case.phase].get("modern")
        headers = h.get("headers")
        if modern:
            headers = dict(modern_headers(case.send), **(headers or {}))
        try:
            a = p.post(case.send, session=session, version=version if session else None,
                       accept=accept, ctype=h.get("ctype", "application/json"),
                       headers=headers, method=h.get("method", "POST"),
                       path=h.get("path", "/mcp"))
        except OSError as e:
            return {"status": "the request failed: %s" % e}
        if case.expect:
            want_status = 400 if len(case.expect) == 1 and is_error_without_id(case.expect[0]) \
                else 200
        else:
            want_status = 202
        if modern and len(case.expect) == 1:
            # A 2026-07-28 answer alone is JSON, its status after its error (if any).
            code = (json.loads(case.expect[0]).get("error") or {}).get("code")
            want_status = 404 if code == -32601 else 400 if code in (
                -32700, -32600, -32602, -32020, -32021, -32022) else 200
        want_status = h.get("status", want_status)
        if a.status != want_status:
            failed["status"] = "status %d, not %d" % (a.status, want_status)
        if case.expect:
            sse = want_status == 200 and "text/event-stream" in (accept or "") and not (
                modern and len(case.expect) == 1)
            # A batch is answered as JSON: its answer (an array, or the error
            # of a refused batch) decides the status.
            want_type = h.get("type", "text/event-stream" if sse else "application/json")
            if not a.ctype.startswith(want_type):
                failed["type"] = "Content-Type %r, not %s" % (a.ctype, want_type)
        if a.messages != case.expect:
            failed["answer"] = diff(case.expect, a.messages)
        if modern:
            # Still serving? A modern echo on the same server.
            try:
                body = modern_echo_call("echo-%d" % n)
                c = p.post(body, headers=modern_headers(body))
                if c.status != 200 or len(c.messages) != 1 or not modern_echo_ok(c.messages[0], "echo-%d" % n):
                    failed["after"] = "echo after the case: %d %s" % (c.status, shorten(c.body))
            except (OSError, peers.ServerGone) as e:
                failed["after"] = "%s (stderr: %s)" % (e, shorten(p.err.text()[-800:].encode()))
            return failed
        # Still serving? A ping and an echo in an initialized session of the same server.
        try:
            q, qsid, qver = (p, sid, version) if sid else self.session("ready")
            b = q.post(peers.ping("after-%d" % n), session=qsid, version=qver)
            if b.status != 200 or b.messages != [ping_answer("after-%d" % n)]:
                failed["after"] = "ping after the case: %d %s" % (b.status, shorten(b.body))
            c = q.post(echo_call("echo-%d" % n), session=qsid, version=qver)
            if c.status != 200 or c.messages != [echo_answer("echo-%d" % n)]:
                failed["after"] = "echo after the case: %d %s" % (c.status, shorten(c.body))
        except (OSError, peers.ServerGone) as e:
            failed["after"] = "%s (stderr: %s)" % (e, shorten(p.err.text()[-800:].encode()))
        return failed

    def close(self):
        bad = []
        for p in self.procs.values():
            p.signal()
            rc = p.wait_exit()
            if rc != 0:
                bad.append("HTTP server exited with %r on SIGTERM: %s" % (rc, p.err.text()[-800:]))
            p.kill()
        return bad


_KEY_FILES = {}


@atexit.register
def _remove_key_files():
    for path in _KEY_FILES.values():
        try:
            os.unlink(path)
        except OSError:
            pass


def phase_args(spec):
    """A phase's server options; with "state_key" (hex), the key in a file of its own
    (--state-key-file), so that the cases can seal requestStates the server accepts."""
    args = list(spec.get("args", []))
    if "state_key" in spec:
        path = _KEY_FILES.get(spec["state_key"])
        if path is None:
            fd, path = tempfile.mkstemp(prefix="catalogue-key-")
            os.write(fd, bytes.fromhex(spec["state_key"]))
            os.close(fd)
            _KEY_FILES[spec["state_key"]] = path
        args += ["--state-key-file", path]
    return args


def diff(want, got):
    return "expected %d answer(s): %s\n      got %d: %s" % (
        len(want), " | ".join(shorten(w) for w in want),
        len(got), " | ".join(shorten(g) for g in got))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", required=True)
    ap.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    ap.add_argument("--only", action="append", help="run only the case of this name (repeatable)")
    ap.add_argument("--show", action="store_true", help="print the details of xfail cases too")
    ap.add_argument("cases", nargs="+")
    opt = ap.parse_args()

    phases, bugs, cases = {}, {}, []
    for path in opt.cases:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        phases.update(doc.get("phases", {}))
        bugs.update(doc.get("bugs", {}))
        cases += doc["cases"]
    names = [c["name"] for c in cases]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        raise SystemExit("duplicate case names: %s" % ", ".join(sorted(dup)))
    if opt.only:
        unknown = set(opt.only) - set(names)
        if unknown:
            raise SystemExit("no such case: %s" % ", ".join(sorted(unknown)))
        cases = [c for c in cases if c["name"] in opt.only]

    runner = (StdioRunner if opt.transport == "stdio" else HttpRunner)(opt.server, phases)
    counts = {"PASS": 0, "FAIL": 0, "XFAIL": 0, "XPASS": 0}
    xfails = []
    n = 0
    for raw in cases:
        case = Case(raw, opt.transport, phases, bugs)
        if not case.runs:
            continue
        n += 1
        failed = runner.play(case, n)
        if not failed:
            verdict = "XPASS" if case.xfail else "PASS"
        elif case.xfail_covers(failed):
            verdict = "XFAIL"
            xfails.append(case.xfail["reason"])
        else:
            verdict = "FAIL"
        counts[verdict] += 1
        line = "%-5s %s" % (verdict, case.name)
        if verdict == "XFAIL":
            line += "  [%s]" % case.xfail["reason"]
        if verdict == "XPASS":
            line += "  [marked xfail (%s) but passes: remove the mark]" % case.xfail["reason"]
        print(line)
        if failed and (verdict == "FAIL" or opt.show):
            for check, problem in failed.items():
                print("      %s: %s" % (check, problem))
        sys.stdout.flush()
    for problem in runner.close():
        print("FAIL  %s" % problem)
        counts["FAIL"] += 1
    if xfails:
        print("\nexpected failures, by known bug:")
        for reason in sorted(set(xfails), key=xfails.index):
            print("  %3d x %s%s" % (xfails.count(reason), reason,
                                   ": " + bugs[reason] if reason in bugs else ""))
    print("\ncatalogue (%s): %d case(s): %d passed, %d failed, %d expected failure(s), %d "
          "unexpected pass(es)" % (opt.transport, n, counts["PASS"], counts["FAIL"],
                                   counts["XFAIL"], counts["XPASS"]))
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
