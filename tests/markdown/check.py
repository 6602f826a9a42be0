#!/usr/bin/env python3
"""mcpidlc --emit=markdown writes, for each IDL file below, exactly the page kept here
(tests/markdown/NAME.md): a change of the page is a change of this test.

    check.py --mcpidlc PATH ROOT [--update]
"""
import argparse
import difflib
import os
import subprocess
import sys
import tempfile

CASES = ["examples/weather/weather.mcp.yaml", "examples/everything/everything.mcp.yaml",
         "tests/golden/formats/formats.mcp.yaml"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--update", action="store_true", help="write the pages instead of comparing")
    ap.add_argument("root")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            name = os.path.basename(case)[: -len(".mcp.yaml")]
            p = subprocess.run([args.mcpidlc, "--emit=markdown", "-o", tmp, os.path.join(args.root, case)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL %s: mcpidlc exited with %d: %s" % (case, p.returncode, p.stderr))
                failed += 1
                continue
            with open(os.path.join(tmp, name + ".md"), encoding="utf-8") as f:
                got = f.read()
            want_path = os.path.join(here, name + ".md")
            if args.update:
                with open(want_path, "w", encoding="utf-8") as f:
                    f.write(got)
                continue
            with open(want_path, encoding="utf-8") as f:
                want = f.read()
            if got != want:
                failed += 1
                print("FAIL %s: the page differs from %s:" % (case, os.path.relpath(want_path, args.root)))
                sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                           "expected", "written"))
            else:
                print("ok   %s" % case)
    print("markdown: %d case(s), %d failed" % (len(CASES), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
