#!/usr/bin/env python3
"""Round-trip the golden values through each type's generated from_json and to_json.

usage: tests/golden/roundtrip.py --mcpidlc MCPIDLC --lib LIBMCPIDL [--cc CC] [--cflags FLAGS]
                                 --work DIR CASE_DIR...

For each golden case (a folder with CASE.mcp.yaml and calls.json, or a folder of them),
every call whose tool returns a named model or record, and whose `returns` reaches the
handler, is played again without a server: the generated PREFIX_T_from_json reads the
`returns` JSON, then PREFIX_T_to_json writes the value back.

- When the server's answer has structuredContent, from_json must accept the value and
  to_json must write exactly that content (the same values, keys in field order, model
  defaults filled in); from_json of that text, then to_json again, must give the same text.
- When the server's answer is an output validation error ("Error executing tool X: N
  validation error(s) for T ..."), from_json must fail with that very report.

Prints one line per case and a summary; exits 0 only when every case passes.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("roundtrip.py: the Python module 'yaml' (PyYAML) is missing", file=sys.stderr)
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

DRIVER_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* argv[1]: a type's name; standard input: JSON text. Prints "OK" and the value
 * written back, or "ERR" and the report; "UNSTABLE" when reading back what was
 * written and writing it again does not give the same text. */
int main(int argc, char **argv)
{
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text, stdin);
    if (argc != 2 || !feof(stdin))
        return 2;
    mcp_arena a;
    mcp_arena_init(&a);
    mcp_buf out, again;
    mcp_buf_init(&out);
    mcp_buf_init(&again);
    const char *error = NULL;
    int rc = roundtrip(argv[1], text, len, &out, &a, &error);
    if (rc == 1)
        rc = roundtrip(argv[1], out.data, out.len, &again, &a, &error);
    if (rc == 1 && (again.len != out.len || memcmp(again.data, out.data, out.len) != 0))
        printf("UNSTABLE\n%s\n%s", out.data, again.data);
    else if (rc == 1)
        printf("OK\n%s", out.data);
    else if (rc == 0)
        printf("ERR\n%s", error);
    mcp_buf_free(&out);
    mcp_buf_free(&again);
    mcp_arena_free(&a);
    return rc < 0 ? 2 : 0;
}
"""


def json_equal(a, b):
    """Equality of JSON values where 16 == 16.0 but True != 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def cases_under(paths):
    for p in paths:
        p = os.path.normpath(os.path.abspath(p))
        if os.path.exists(os.path.join(p, "calls.json")):
            yield p
            continue
        for name in sorted(os.listdir(p)):
            d = os.path.join(p, name)
            if os.path.exists(os.path.join(d, "calls.json")):
                yield d


def object_returns(idl):
    """{tool: type name} of the tools that return a model or record as is."""
    types = idl.get("types") or {}
    out = {}
    for tool, body in (idl.get("tools") or {}).items():
        if not isinstance(body, dict) or body.get("structured_output") is False:
            continue
        ret = body.get("returns")
        ret = ret.get("type") if isinstance(ret, dict) else ret
        kind = (types.get(ret) or {}).get("kind", "model") if isinstance(ret, str) and ret in types else None
        if kind in ("model", "record"):
            out[tool] = ret
    return out


def driver_source(stem, prefix, type_names):
    lines = ['#include "%s.mcp.h"' % stem, "#include <string.h>", "",
             "/* 1: read and written back; 0: refused (*error says why); -1: an unknown type. */",
             "static int roundtrip(const char *type, const char *text, size_t len, mcp_buf *out, mcp_arena *a,",
             "                     const char **error)", "{"]
    for t in type_names:
        c = "%s_%s" % (prefix, t)
        lines += ['    if (strcmp(type, "%s") == 0) {' % t,
                  "        %s v;" % c,
                  "        return %s_from_json(text, len, &v, a, error) && %s_to_json(&v, out, a, error);" % (c, c),
                  "    }"]
    lines += ["    (void)text, (void)len, (void)out, (void)a, (void)error;", "    return -1;", "}"]
    return "\n".join(lines) + "\n" + DRIVER_MAIN


def pkg_libs():
    out = subprocess.run(["pkg-config", "--libs", "json-c", "libpcre2-8", "nettle"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("roundtrip: pkg-config cannot find json-c, libpcre2-8 and nettle")
    return shlex.split(out.stdout) + ["-lpthread", "-lm"]


def run_case(case, args, libs):
    """(problems, number of values checked)."""
    name = os.path.basename(case)
    with open(os.path.join(case, name + ".mcp.yaml"), encoding="utf-8") as f:
        idl = yaml.load(f, Loader=yaml.BaseLoader)  # strings only: the names are what counts
    returns = object_returns(idl)
    with open(os.path.join(case, "calls.json"), encoding="utf-8") as f:
        calls = json.load(f)
    entries = [(i, e) for i, e in enumerate(calls) if e["tool"] in returns and "returns" in e]
    if not entries:
        return [], 0
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    gen = subprocess.run([args.mcpidlc, "--emit=mock", "-o", work, os.path.join(case, name + ".mcp.yaml")],
                         capture_output=True, text=True)
    if gen.returncode != 0:
        return ["mcpidlc failed:\n" + gen.stderr], 0
    with open(os.path.join(work, name + ".mcp.h"), encoding="utf-8") as f:
        prefix = re.search(r"extern const mcp_server (\w+)_server;", f.read()).group(1)
    driver = os.path.join(work, "driver.c")
    with open(driver, "w", encoding="utf-8") as f:
        f.write(driver_source(name, prefix, sorted(set(returns.values()))))
    exe = os.path.join(work, "roundtrip")
    cc = [args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-g"] + shlex.split(args.cflags) + [
        "-I", work, "-I", os.path.join(ROOT, "lib", "include")]
    # The mock's handlers complete the server table; its main() is not this one.
    mock_o = os.path.join(work, "mock.o")
    build = subprocess.run(cc + ["-Dmain=mock_main", "-c", os.path.join(work, name + ".mock.c"), "-o", mock_o],
                           capture_output=True, text=True)
    if build.returncode == 0:
        build = subprocess.run(cc + [driver, os.path.join(work, name + ".mcp.c"), mock_o, args.lib, "-o", exe] + libs,
                               capture_output=True, text=True)
    if build.returncode != 0:
        return ["the driver does not compile:\n" + build.stderr[-4000:]], 0
    problems, checked = [], 0
    for i, entry in entries:
        tool, expect = entry["tool"], entry.get("expect", {})
        prefix_text = "Error executing tool %s: " % tool
        want_report = None
        text = expect.get("text")
        if expect.get("isError") and isinstance(text, str) and text.startswith(prefix_text):
            report = text[len(prefix_text):]
            if re.match(r"\d+ validation errors? for %s\n" % re.escape(returns[tool]), report):
                want_report = report
        if "structuredContent" not in expect and want_report is None:
            continue  # a failure of the handler or the arguments: not the type's
        value = json.dumps(entry["returns"], ensure_ascii=False).encode()
        run = subprocess.run([exe, returns[tool]], input=value, capture_output=True)
        out = run.stdout.decode("utf-8", errors="backslashreplace")
        head, _, body = out.partition("\n")
        where = "call %d (%s, %s)" % (i, tool, returns[tool])
        checked += 1
        if run.returncode != 0:
            problems.append("%s: the driver failed (%d): %s" % (where, run.returncode, run.stderr.decode()[-2000:]))
        elif want_report is not None:
            if head != "ERR" or body != want_report:
                problems.append("%s: from_json should refuse it with\n    %r\n  got %s\n    %r"
                                % (where, want_report, head, body))
        elif head != "OK":
            problems.append("%s: %s\n    %r" % (where, head, body))
        elif not json_equal(json.loads(body), expect["structuredContent"]):
            problems.append("%s: to_json wrote\n    %s\n  expected\n    %s"
                            % (where, body, json.dumps(expect["structuredContent"], ensure_ascii=False)))
    return problems, checked


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--lib", required=True, help="libmcpidl.a")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="", help="extra compiler flags (e.g. sanitizers)")
    ap.add_argument("--work", required=True, help="where to build the drivers")
    ap.add_argument("cases", nargs="+")
    args = ap.parse_args()
    libs = pkg_libs()
    passed = failed = total = 0
    for case in cases_under(args.cases):
        problems, checked = run_case(case, args, libs)
        total += checked
        if problems:
            failed += 1
            print("FAIL %s" % os.path.basename(case))
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
            print("ok   %s (%d values)" % (os.path.basename(case), checked))
        sys.stdout.flush()
    print("%d passed, %d failed; %d values round-tripped or refused" % (passed, failed, total))
    return 0 if passed and not failed and total else 1


if __name__ == "__main__":
    sys.exit(main())
