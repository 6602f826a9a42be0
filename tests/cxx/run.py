#!/usr/bin/env python3
"""C++ use: the public headers and the generated ones compile as C++17, and a
server whose handlers are C++ works.

usage: tests/cxx/run.py --mcpidlc MCPIDLC --lib LIBMCPIDL.a --cc CC --cxx CXX
                        [--cflags FLAGS] [--work DIR] [--headers IDL...]

1. Every IDL of --headers: `mcpidlc --emit=c`, then a C++ file that includes
   NAME.mcp.h is checked with CXX -std=c++17 -Wall -Wextra -Wpedantic -Werror.
2. The weather example (examples/weather/weather.mcp.yaml): NAME.mcp.c built
   as C, tests/cxx/weather.cpp (which includes every public header and
   defines the handlers in C++) built as C++17 with the same warnings, linked
   with the C++ compiler into a server, which answers calls over stdio.
Prints what failed; exits 0 only when everything passed.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WARN = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
TIMEOUT = 60  # a hang guard, not a speed limit


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def generate(args, idl, out):
    os.makedirs(out, exist_ok=True)
    gen = run([args.mcpidlc, "--emit=c", "-o", out, idl])
    if gen.returncode != 0:
        return "mcpidlc failed on %s:\n%s" % (idl, gen.stderr)
    return None


def check_headers(args, idls):
    problems = []
    for idl in idls:
        stem = os.path.basename(idl)[: -len(".mcp.yaml")]
        out = os.path.join(args.work, "headers", stem)
        err = generate(args, idl, out)
        if err:
            problems.append(err)
            continue
        tu = os.path.join(out, stem + "_cxx.cpp")
        with open(tu, "w", encoding="utf-8") as f:
            f.write('#include "%s.mcp.h"\n\nint main() { return 0; }\n' % stem)
        cxx = run([args.cxx] + WARN + shlex.split(args.cflags) + ["-fsyntax-only", "-I", out, "-I",
                  os.path.join(ROOT, "lib", "include"), tu])
        if cxx.returncode != 0:
            problems.append("%s.mcp.h does not compile as C++:\n%s" % (stem, cxx.stderr[-3000:]))
    return problems


def pkg_libs():
    out = run(["pkg-config", "--libs", "json-c", "libpcre2-8", "nettle"])
    if out.returncode != 0:
        raise SystemExit("cxx: pkg-config cannot find json-c, libpcre2-8 and nettle")
    return shlex.split(out.stdout) + ["-lpthread", "-lm"]


def build_server(args):
    out = os.path.join(args.work, "weather")
    shutil.rmtree(out, ignore_errors=True)
    err = generate(args, os.path.join(ROOT, "examples", "weather", "weather.mcp.yaml"), out)
    if err:
        return None, err
    inc = ["-I", out, "-I", os.path.join(ROOT, "lib", "include")]
    flags = shlex.split(args.cflags)
    obj_c = os.path.join(out, "weather.mcp.o")
    obj_cxx = os.path.join(out, "weather.o")
    exe = os.path.join(out, "weather-cxx")
    steps = [
        [args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-g"] + flags + inc +
        ["-c", os.path.join(out, "weather.mcp.c"), "-o", obj_c],
        [args.cxx] + WARN + ["-g"] + flags + inc + ["-c", os.path.join(HERE, "weather.cpp"), "-o", obj_cxx],
        [args.cxx, "-g"] + flags + [obj_cxx, obj_c, args.lib, "-o", exe] + pkg_libs(),
    ]
    for argv in steps:
        r = run(argv)
        if r.returncode != 0:
            return None, "failed: %s\n%s" % (" ".join(argv), r.stderr[-4000:])
    return exe, None


def call(i, tool, arguments):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def check_server(exe):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "cxx", "version": "1"}}}
    msgs = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
            call(2, "get_weather", {"city": "London"}),
            call(3, "get_forecast", {"city": "Cairo", "days": 2}),
            call(4, "weather_report", {"city": "Reykjavik"}),
            call(5, "get_weather_upstream", {"city": "London"}),
            call(6, "get_temperatures", {"cities": ["Cairo", "London"]}),
            call(7, "get_temperature", {"city": "Paris"})]
    text = "".join(compact(m) + "\n" for m in msgs)
    try:
        p = subprocess.run([exe], input=text, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return ["the server did not end when its input did"]
    if p.returncode != 0:
        return ["the server exited with %d: %s" % (p.returncode, p.stderr[-2000:])]
    got = {}
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if "id" in msg:
            got[msg["id"]] = msg
    problems = []

    def result(i):
        r = got.get(i, {}).get("result")
        if r is None:
            problems.append("request %d: no result: %s" % (i, compact(got.get(i))))
        return r or {}

    if result(1).get("serverInfo", {}).get("name") != "weather":
        problems.append("initialize: %s" % compact(got.get(1)))
    expect = {
        2: {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast"},
        3: {"result": [{"temperature": 34.1, "humidity": 0.21, "conditions": "Sunny"},
                       {"temperature": 35.1, "humidity": 0.21, "conditions": "Sunny"}]},
        5: {"temperature": 16.2, "humidity": 0.83, "conditions": "Overcast in London"},
        6: {"Cairo": 34.1, "London": 16.2},
    }
    for i, want in expect.items():
        r = result(i)
        if r.get("isError") is not False or r.get("structuredContent") != want:
            problems.append("request %d: expected structuredContent %s, got %s" % (i, compact(want), compact(r)))
    r = result(4)
    if r.get("isError") is not False or r.get("content") != [{"type": "text", "text": "Reykjavik (C++): Windy"}]:
        problems.append("request 4: got %s" % compact(r))
    r = result(7)
    want = "Error executing tool get_temperature: no reading for 'Paris' (known cities: London, Cairo, Reykjavik)"
    if r.get("isError") is not True or r.get("content") != [{"type": "text", "text": want}]:
        problems.append("request 7: got %s" % compact(r))
    return problems


def serve(args):
    exe, err = build_server(args)
    return [err] if err else check_server(exe)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--lib", required=True, help="the static libmcpidl")
    ap.add_argument("--cc", required=True, help="the C compiler, for the generated NAME.mcp.c")
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--cflags", default="", help="extra flags for both compilers and the link (sanitizers)")
    ap.add_argument("--work", help="where to build (default: a temporary folder)")
    ap.add_argument("--headers", nargs="*", default=[], help="IDL files whose headers must compile as C++")
    args = ap.parse_args()
    tmp = None
    if not args.work:
        tmp = tempfile.mkdtemp(prefix="mcpidl-cxx-")
        args.work = tmp
    os.makedirs(args.work, exist_ok=True)
    failed = 0
    try:
        for what, check in (("%d generated headers as C++ (%s)" % (len(args.headers), args.cxx),
                             lambda: check_headers(args, args.headers)),
                            ("the weather server with C++ handlers (%s)" % args.cxx, lambda: serve(args))):
            problems = check()
            print("%s  %s" % ("FAIL" if problems else "ok  ", what))
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
            failed += bool(problems)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (2 - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
