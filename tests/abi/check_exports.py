#!/usr/bin/env python3
"""The ABI as drawn: every symbol the shared libraries export is declared MCPIDL_API in a public
header, and every such declaration is exported.

usage: check_exports.py --headers DIR LIB.so...

Reads the exports with `nm -D --defined-only`. Prints each difference; exits 1 when there is one.
"""
import argparse
import os
import re
import subprocess
import sys

# MCPIDL_API, then a declaration whose name is the last identifier before '(' or ';'.
DECL = re.compile(r"MCPIDL_API\b([^;{]*?)\b(mcp_[A-Za-z0-9_]+)\s*(\(|;|\[)", re.S)


def declared(headers):
    names = {}
    for n in sorted(os.listdir(headers)):
        if n.endswith(".h"):
            text = open(os.path.join(headers, n), encoding="utf-8").read()
            text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
            for m in DECL.finditer(text):
                names[m.group(2)] = n
    return names


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] not in ("A",):  # A: the version node itself
            names.add(parts[2].split("@")[0])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--headers", required=True)
    ap.add_argument("libs", nargs="+")
    opt = ap.parse_args()
    decl = declared(opt.headers)
    exp = set()
    for lib in opt.libs:
        exp |= exported(lib)
    problems = ["exported but declared in no public header: %s" % n for n in sorted(exp - set(decl))]
    problems += ["declared MCPIDL_API in %s but not exported: %s" % (decl[n], n) for n in sorted(set(decl) - exp)]
    for p in problems:
        print(p)
    print("check_exports: %d exported, %d declared, %d problem(s)" % (len(exp), len(decl), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
