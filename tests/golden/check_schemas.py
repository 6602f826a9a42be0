#!/usr/bin/env python3
"""Golden schemas: `mcpidlc --print-tools CASE.mcp.yaml` must equal CASE/tools.json.

Each tool is compared whole, with key order: the compact serialization of the
expected entry (keys in the order tools.json writes them) must equal the
compiler's output serialized the same way. Prints one line per case and exits
non-zero when any case fails.

usage: check_schemas.py --mcpidlc PATH DIR...   (DIR: a case, or a folder of cases)
"""
import argparse
import json
import os
import subprocess
import sys


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def cases_under(paths):
    for p in paths:
        if os.path.exists(os.path.join(p, "tools.json")):
            yield p
            continue
        for name in sorted(os.listdir(p)):
            d = os.path.join(p, name)
            if os.path.isdir(d) and os.path.exists(os.path.join(d, "tools.json")):
                yield d


def check_case(mcpidlc, case):
    name = os.path.basename(os.path.normpath(case))
    idl = os.path.join(case, name + ".mcp.yaml")
    with open(os.path.join(case, "tools.json"), encoding="utf-8") as f:
        expected = json.load(f)
    proc = subprocess.run([mcpidlc, "--print-tools", idl], capture_output=True, timeout=60)
    if proc.returncode != 0:
        return "mcpidlc exited %d:\n%s" % (proc.returncode, proc.stderr.decode(errors="replace"))
    try:
        actual = json.loads(proc.stdout.decode("utf-8"))
    except ValueError as e:
        return "output is not JSON: %s" % e
    if len(actual) != len(expected):
        return "expected %d tools, got %d" % (len(expected), len(actual))
    problems = []
    for exp, act in zip(expected, actual):
        for key in list(exp) + [k for k in act if k not in exp]:
            if key not in act:
                problems.append("%s: missing %r" % (exp.get("name"), key))
            elif key not in exp:
                problems.append("%s: unexpected %r: %s" % (exp.get("name"), key, compact(act[key])))
            elif compact(exp[key]) != compact(act[key]):
                problems.append("%s: %s differs\n  expected %s\n  actual   %s"
                                % (exp.get("name"), key, compact(exp[key]), compact(act[key])))
        if list(exp) != list(act) and not problems:
            problems.append("%s: key order %s, expected %s" % (exp.get("name"), list(act), list(exp)))
    return "\n".join(problems) or None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    passed = failed = 0
    for case in cases_under(args.dirs):
        problem = check_case(args.mcpidlc, case)
        name = os.path.basename(os.path.normpath(case))
        if problem:
            failed += 1
            print("FAIL %s\n%s" % (name, problem))
        else:
            passed += 1
            print("ok   %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
