#!/usr/bin/env python3
"""The include graph of the tree, checked: no cycle among headers, and the runtime's layers.

usage: check_layers.py [ROOT]

lib/ is built in layers, each a folder, each using only the layers before it:

    base < json < codec < rpc < methods < runtime < transport < main

A source file of lib/LAYER/ may include the private headers (lib/internal/) of its own layer
and of the layers before it, and any public header (lib/include/mcpidl/). The private headers
belong to the layers named in PRIVATE below; a private header may include only headers of its
own layer or earlier ones. Public headers may include only public headers. Outside lib/, only
the cycle check applies (idl/, compiler/).

Prints every violation, one per line, and exits 1 when there is one; 0 otherwise.
"""
import os
import re
import sys

LAYERS = ["base", "json", "codec", "rpc", "methods", "runtime", "transport", "main"]
PRIVATE = {
    "log.h": "base", "utf8.h": "base", "arena.h": "base", "uritemplate.h": "base", "options.h": "base", "seal.h": "base",
    "json_scan.h": "json",
    "codec.h": "codec", "pyrepr.h": "codec", "formats.h": "codec",
    "rpc.h": "rpc", "pool.h": "rpc",
    "methods.h": "methods",
    "runtime.h": "runtime",
    "http.h": "transport", "http_route.h": "transport", "auth.h": "transport", "jose.h": "transport",
    "tls.h": "transport", "fetch.h": "transport", "httplibs.h": "transport", "dynlib.h": "transport", "pklibs.h": "transport",
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return INCLUDE.findall(f.read())


def resolve(root, src, name):
    """The file an #include "name" in src names: beside src, then under lib/ (internal/...),
    lib/include (mcpidl/...), idl/, compiler/."""
    for base in (os.path.dirname(src), os.path.join(root, "lib"), os.path.join(root, "lib", "include"),
                 os.path.join(root, "idl"), os.path.join(root, "compiler"),
                 os.path.join(root, "compiler", "include")):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(p):
            return p
    return None  # a generated or system header


def layer_of(root, path):
    rel = os.path.relpath(path, os.path.join(root, "lib"))
    parts = rel.split(os.sep)
    if parts[0] == "internal":
        return PRIVATE.get(parts[1])
    if parts[0] in LAYERS:
        return parts[0]
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    files = []
    for top in ("lib", "idl", "compiler"):
        for d, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.join(d, n) for n in names if n.endswith((".c", ".h"))]
    graph = {f: [p for p in (resolve(root, f, n) for n in includes(f)) if p] for f in files}
    problems = []

    # Cycles among headers (a depth-first walk of the header graph).
    state = {}

    def walk(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if not nxt.endswith(".h"):
                continue
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(os.path.relpath(c, root) for c in cycle))
            elif nxt not in state:
                walk(nxt, stack)
        stack.pop()
        state[node] = 2

    for f in sorted(graph):
        if f.endswith(".h") and f not in state:
            walk(f, [])

    # The layers of lib/.
    public = os.path.join(root, "lib", "include") + os.sep
    for f in sorted(graph):
        if not f.startswith(os.path.join(root, "lib") + os.sep):
            continue
        rel = os.path.relpath(f, root)
        if f.startswith(public):
            for p in graph[f]:
                if not p.startswith(public):
                    problems.append("%s: a public header includes %s" % (rel, os.path.relpath(p, root)))
            continue
        mine = layer_of(root, f)
        if mine is None:
            if f.endswith(".c") or f.endswith(".h"):
                problems.append("%s: in no layer (add it to scripts/check_layers.py)" % rel)
            continue
        for p in graph[f]:
            if p.startswith(public):
                continue
            theirs = layer_of(root, p)
            if theirs is None:
                problems.append("%s: includes %s, which is in no layer" % (rel, os.path.relpath(p, root)))
            elif LAYERS.index(theirs) > LAYERS.index(mine):
                problems.append("%s (%s) includes %s (%s): a layer above it" %
                                (rel, mine, os.path.relpath(p, root), theirs))
    for p in problems:
        print(p)
    print("check_layers: %d file(s), %d problem(s)" % (len(graph), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
