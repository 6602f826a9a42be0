#!/usr/bin/env python3
"""Imports: contracts split over several files (imports:).

usage: run.py --mcpidlc PATH --work DIR [--server PATH] [--cmake PATH --generator NAME
              --source-dir DIR --include DIR...]

From this folder: common.mcp.yaml and geo.mcp.yaml are libraries of types (geo imports
common), shop.mcp.yaml and billing.mcp.yaml are servers that import them, and
shop_single.mcp.yaml is shop.mcp.yaml with every imported type written in it. Checks:

1. schemas: the split and the unsplit contract publish the same bytes: --print-tools,
   and every file of --emit=schema (the Python SDK has no imports; an imported type is
   in $defs exactly as a local one);
2. --depfile: the rule names the files written, then the input and every file it
   imports, directly or not, each once;
3. the C: each file's header defines its own types only and includes the headers of
   the files it imports; a library has no server table;
4. mcpidlc diff follows the imports (a change in common.mcp.yaml is found, and named
   by its place in that file), also for a version from git (git:REV:PATH, whose imports
   come from the same revision); the split and the unsplit contract do not differ;
   --emit=markdown writes a page for a server and for a library;
5. with --server: the program of tests/CMakeLists.txt that serves shop and billing,
   both built from the shared C types, answers a tools/call of each;
6. with --cmake: a project using mcpidl_generate() is built, an imported file is edited,
   and the next build regenerates the C of the file that imports it (its schemas in the
   generated source change), and of nothing else.

Prints one line per check; exit status 1 when one failed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else "\n  " + detail.replace("\n", "\n  ")))
    if not ok:
        failures.append(what)


def run(args, cwd=HERE, **kw):
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, **kw)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def schemas(o):
    a = run([o.mcpidlc, "--print-tools", "shop.mcp.yaml"])
    b = run([o.mcpidlc, "--print-tools", "shop_single.mcp.yaml"])
    check(a.returncode == 0 and b.returncode == 0 and a.stdout == b.stdout and len(json.loads(a.stdout)) == 3,
          "tools/list of the split contract is the unsplit one's, byte for byte", a.stderr + b.stderr)
    split, single = os.path.join(o.work, "schema-split"), os.path.join(o.work, "schema-single")
    for d in (split, single):
        shutil.rmtree(d, ignore_errors=True)
    a = run([o.mcpidlc, "--emit=schema", "-o", split, "shop.mcp.yaml"])
    b = run([o.mcpidlc, "--emit=schema", "-o", single, "shop_single.mcp.yaml"])
    files = sorted(os.listdir(split)) if a.returncode == 0 else []
    same = b.returncode == 0 and len(files) == 7 and all(
        read(os.path.join(split, f)) == read(os.path.join(single, f.replace("shop.", "shop_single.", 1)))
        for f in files)
    check(same, "every --emit=schema file of the split contract is the unsplit one's", a.stderr + b.stderr)


def depfile(o):
    gen, dep = os.path.join(o.work, "gen"), os.path.join(o.work, "shop.mcp.d")
    p = run([o.mcpidlc, "--emit=c", "-o", gen, "--depfile", dep, "shop.mcp.yaml"])
    want = "%s/shop.mcp.h %s/shop.mcp.c: shop.mcp.yaml \\\n  geo.mcp.yaml \\\n  common.mcp.yaml\n" % (gen, gen)
    got = read(dep) if p.returncode == 0 else p.stderr
    check(got == want, "--depfile: the outputs depend on the input and on each file it imports, once",
          "expected %r\ngot      %r" % (want, got))
    p = run([o.mcpidlc, "--depfile", dep, "shop.mcp.yaml"])
    check(p.returncode == 2 and "--depfile needs --emit" in p.stderr, "--depfile without --emit is a usage error",
          p.stderr)


def c_files(o):
    gen = os.path.join(o.work, "gen")
    for stem in ("common", "geo", "billing"):
        p = run([o.mcpidlc, "--emit=c", "-o", gen, stem + ".mcp.yaml"])
        check(p.returncode == 0, "--emit=c " + stem, p.stderr)
    shop, geo, common = (read(os.path.join(gen, s + ".mcp.h")) for s in ("shop", "geo", "common"))
    check('#include "geo.mcp.h"\n#include "common.mcp.h"\n' in shop and '#include "common.mcp.h"\n' in geo,
          "a header includes the headers of the files its file imports")
    check("struct common_Address {" in common and "struct common_Address {" not in shop + geo and
          "struct geo_Place {" in geo and "struct geo_Place {" not in shop and "struct shop_Store {" in shop,
          "each header defines the types of its own file, named with its file's prefix")
    check("common_Address_desc" in read(os.path.join(gen, "shop.mcp.c")) and
          "const mcp_type common_Address_desc = {" not in read(os.path.join(gen, "shop.mcp.c")) and
          "const mcp_type common_Address_desc = {" in read(os.path.join(gen, "common.mcp.c")),
          "an imported type's descriptor is defined once, by its file's source, and used by the others")
    check("mcp_server" not in common + read(os.path.join(gen, "common.mcp.c")),
          "a library has no server table")


def diff_and_markdown(o):
    p = run([o.mcpidlc, "diff", "shop_single.mcp.yaml", "shop.mcp.yaml"])
    check(p.returncode == 0 and p.stderr == "", "diff: the split and the unsplit contract do not differ", p.stderr)
    new = os.path.join(o.work, "new")
    shutil.rmtree(new, ignore_errors=True)
    os.makedirs(new)
    for f in os.listdir(HERE):
        if f.endswith(".mcp.yaml"):
            shutil.copy(os.path.join(HERE, f), new)
    common = os.path.join(new, "common.mcp.yaml")
    with open(common, "w", encoding="utf-8") as f:
        f.write(read(os.path.join(HERE, "common.mcp.yaml")).replace("minLength: 1", "minLength: 2"))
    p = run([o.mcpidlc, "diff", "-fno-diagnostics-show-caret", "shop.mcp.yaml", os.path.join(new, "shop.mcp.yaml")])
    want = ("%s:8:20: error: field 'city' of type 'Address': minLength raised from 1 to 2; breaks clients "
            "[input-narrowed]" % common)
    check(p.returncode == 1 and want in p.stderr.splitlines(),
          "diff follows the imports: a change in an imported file is found there", p.stderr)
    # A version from git imports the files of its own revision.
    repo = os.path.join(o.work, "repo")
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(repo)
    for f in ("shop.mcp.yaml", "geo.mcp.yaml", "common.mcp.yaml"):
        shutil.copy(os.path.join(HERE, f), repo)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    ok = all(run(git + a, cwd=repo).returncode == 0 for a in (["init", "-q"], ["add", "."], ["commit", "-qm", "v1"]))
    shutil.copy(common, repo)
    p = run([o.mcpidlc, "diff", "-fno-diagnostics-show-caret", "git:HEAD:shop.mcp.yaml", "shop.mcp.yaml"], cwd=repo)
    want = ("common.mcp.yaml:8:20: error: field 'city' of type 'Address': minLength raised from 1 to 2; breaks "
            "clients [input-narrowed]")
    check(ok and p.returncode == 1 and want in p.stderr.splitlines(),
          "diff git:REV:PATH reads the files it imports from the same revision", p.stderr)
    md = os.path.join(o.work, "md")
    a = run([o.mcpidlc, "--emit=markdown", "-o", md, "shop.mcp.yaml"])
    b = run([o.mcpidlc, "--emit=markdown", "-o", md, "common.mcp.yaml"])
    check(a.returncode == 0 and b.returncode == 0 and "### `Address` (model)" in read(os.path.join(md, "shop.md"))
          and "### `Money` (record)" in read(os.path.join(md, "common.md")),
          "--emit=markdown: a server's page shows the types it imports; a library gets a page", a.stderr + b.stderr)


def rpc(server, name, lines):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    msgs = [init, {"jsonrpc": "2.0", "method": "notifications/initialized"}] + lines
    p = subprocess.run([server, name], input="".join(json.dumps(m) + "\n" for m in msgs), capture_output=True,
                       text=True, timeout=60)
    answers = {}
    for line in p.stdout.splitlines():
        m = json.loads(line)
        answers[m.get("id")] = m
    return answers


def program(o):
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "invoice", "arguments": {"to": {"street": "Main street", "city": "Oslo", "kind": "work"},
                                                         "lines": [{"amount": 5, "currency": "EUR"}]}}}
    got = rpc(o.server, "billing", [call]).get(2, {}).get("result", {})
    check(got.get("structuredContent") == {"amount": 9, "currency": "EUR", "note": "work"},
          "billing: a call with imported types in and out", json.dumps(got))
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "find_store", "arguments": {"near": {"street": "a", "city": "Oslo"}}}}
    got = rpc(o.server, "shop", [call]).get(2, {}).get("result", {})
    place = {"name": "Corner shop", "address": {"street": "a", "city": "Oslo", "kind": "home"}, "tags": []}
    check(got.get("structuredContent") == {"place": place, "colors": ["red"],
                                           "delivery": {"street": "a", "city": "Oslo", "kind": "home"}},
          "shop, in the same program: types of two imported files, defaults filled", json.dumps(got))
    call["params"]["arguments"]["near"]["city"] = ""
    got = rpc(o.server, "shop", [call]).get(2, {}).get("result", {})
    check(got.get("isError") is True and "near.city\n  String should have at least 1 character" in
          got.get("content", [{}])[0].get("text", ""),
          "shop: an imported type's constraints are checked", json.dumps(got))


CMAKELISTS = """\
cmake_minimum_required(VERSION 3.20)
project(imports_regen C)
add_executable(mcpidl::mcpidlc IMPORTED)
set_target_properties(mcpidl::mcpidlc PROPERTIES IMPORTED_LOCATION "${MCPIDLC}")
add_library(mcpidl::mcpidl INTERFACE IMPORTED)
target_include_directories(mcpidl::mcpidl INTERFACE ${MCPIDL_INCLUDE})
include("${MCPIDL_SOURCE_DIR}/cmake/mcpidl_generate.cmake")
add_library(contracts OBJECT)
mcpidl_generate(TARGET contracts IDL shop.mcp.yaml geo.mcp.yaml common.mcp.yaml billing.mcp.yaml)
"""


def regenerate(o):
    src, build = os.path.join(o.work, "regen"), os.path.join(o.work, "regen-build")
    for d in (src, build):
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(src)
    for f in ("common.mcp.yaml", "geo.mcp.yaml", "shop.mcp.yaml", "billing.mcp.yaml"):
        shutil.copy(os.path.join(HERE, f), src)
    with open(os.path.join(src, "CMakeLists.txt"), "w", encoding="utf-8") as f:
        f.write(CMAKELISTS)
    p = run([o.cmake, "-S", src, "-B", build, "-G", o.generator, "-DMCPIDLC=" + os.path.abspath(o.mcpidlc),
             "-DMCPIDL_SOURCE_DIR=" + o.source_dir, "-DMCPIDL_INCLUDE=" + ";".join(o.include)], cwd=o.work)
    check(p.returncode == 0, "cmake: a project with mcpidl_generate() and imports configures", p.stdout + p.stderr)
    if p.returncode:
        return
    p = run([o.cmake, "--build", build], cwd=o.work)
    check(p.returncode == 0, "cmake: it builds (the generated C of four files, in one target)", p.stdout + p.stderr)
    gen = os.path.join(build, "mcpidl_contracts")
    before = {f: read(os.path.join(gen, f)) for f in os.listdir(gen) if f.endswith((".c", ".h"))}
    mtimes = {f: os.stat(os.path.join(gen, f)).st_mtime_ns for f in before}
    p = run([o.cmake, "--build", build], cwd=o.work)
    check(p.returncode == 0 and "mcpidlc" not in p.stdout and
          all(os.stat(os.path.join(gen, f)).st_mtime_ns == mtimes[f] for f in before),
          "cmake: a build with nothing changed generates nothing", p.stdout)
    with open(os.path.join(src, "geo.mcp.yaml"), "a", encoding="utf-8") as f:
        f.write("  Region:\n    description: Regrouped places.\n    fields:\n      places: list[Place]\n")
    text = read(os.path.join(src, "geo.mcp.yaml")).replace("      name: str\n", "      name: {type: str, description: The place's own name.}\n")
    with open(os.path.join(src, "geo.mcp.yaml"), "w", encoding="utf-8") as f:
        f.write(text)
    p = run([o.cmake, "--build", build], cwd=o.work)
    after = {f: read(os.path.join(gen, f)) for f in before}
    changed = sorted(f for f in before if after[f] != before[f])
    check(p.returncode == 0 and "The place's own name." in after["shop.mcp.c"] and
          changed == ["geo.mcp.c", "geo.mcp.h", "shop.mcp.c"],
          "cmake: editing an imported file regenerates the files that import it (and only what changed)",
          "changed: %s\n%s" % (changed, p.stdout + p.stderr))
    regenerated = sorted(f for f in before if os.stat(os.path.join(gen, f)).st_mtime_ns != mtimes[f])
    check(regenerated == ["geo.mcp.c", "geo.mcp.h", "shop.mcp.c", "shop.mcp.h"],
          "cmake: the files of billing and common, which do not see geo.mcp.yaml, are left alone",
          "regenerated: %s" % regenerated)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--server")
    ap.add_argument("--cmake")
    ap.add_argument("--generator")
    ap.add_argument("--source-dir")
    ap.add_argument("--include", action="append", default=[])
    o = ap.parse_args()
    o.mcpidlc = os.path.abspath(o.mcpidlc)
    o.work = os.path.abspath(o.work)
    os.makedirs(o.work, exist_ok=True)
    schemas(o)
    depfile(o)
    c_files(o)
    diff_and_markdown(o)
    if o.server:
        program(o)
    if o.cmake:
        regenerate(o)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
