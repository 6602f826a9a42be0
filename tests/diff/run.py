#!/usr/bin/env python3
"""Differential validation: the generated decoder against two JSON Schema validators.

usage: tests/diff/run.py --mcpidlc PATH --lib PATH [--cc CC] [--cflags FLAGS]
                         [--work DIR] [--seed N] [--per-schema N] IDL_OR_DIR...

For every IDL (a .mcp.yaml file, or every .mcp.yaml under a folder): print its
tools with `mcpidlc --print-tools`, generate its C with `mcpidlc --emit=c` and
build tests/diff/driver.c against it and libmcpidl; then, for each published
schema (every inputSchema and outputSchema), generate --per-schema seeded
random instances (tests/diff/gen.py), half meant valid and half near misses,
and judge each one three ways, each validator run once per IDL on the whole
batch:
  - Python's jsonschema, Draft202012Validator: the label (formats not asserted,
    but those of the IDL's string-format types, judged by membership in the
    texts the generator writes for them, gen.FORMAT_VALUES);
  - Ajv's 2020 build (tests/diff/ajv.mjs, ajv from tests/e2e/node_modules, or
    --node-modules DIR);
  - the generated decoder (mcp_decode with the tool's descriptor).
Every instance on which the three verdicts are not all equal is printed with
its schema, and fails the IDL. The instances avoid the deliberate differences
of IDL.md and the regex constructs whose meaning differs between dialects
(gen.py says how). Prints `ok NAME (N instances)` per IDL, then
`N passed, M failed` and the instance count; exits 0 only when every IDL
agrees everywhere and at least --min-total instances were judged.

Without tests/e2e/node_modules/ajv (installed by scripts/setup.sh) the test
fails, unless MCPIDL_SKIP_NODE=1, which skips Ajv (and says SKIPPED).
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import gen  # noqa: E402

try:
    import jsonschema
except ImportError:  # pragma: no cover
    jsonschema = None

MAX_SHOWN = 10  # disagreements printed per IDL (all are counted)


def idl_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for d, _, files in os.walk(p):
                found += [os.path.join(d, f) for f in files if f.endswith(".mcp.yaml")]
            out += sorted(found)
        else:
            out.append(p)
    return out


def pkg_libs():
    r = subprocess.run(["pkg-config", "--libs", "json-c", "libpcre2-8", "nettle"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("differential: pkg-config cannot find json-c, libpcre2-8 and nettle")
    return shlex.split(r.stdout) + ["-lpthread", "-lm"]


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


class Failure(Exception):
    pass


def build_driver(idl, stem, work, args, libs):
    """Generate the IDL's C and start building the driver: (its path, the
    compiler's process, for finish_build)."""
    r = subprocess.run([args.mcpidlc, "--emit=c", "-o", work, idl], capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure("mcpidlc --emit=c failed:\n" + r.stderr)
    header = os.path.join(work, stem + ".mcp.h")
    with open(header, encoding="utf-8") as f:
        htext = f.read()
    m = re.search(r"^extern const mcp_server (\w+);", htext, re.M)
    if not m:
        raise Failure("no server table declared in %s.mcp.h" % stem)
    server = m.group(1)
    # Handlers are referenced by the server table: stubs that are never called.
    stubs = ['#include "%s.mcp.h"' % stem, ""]
    for proto in re.findall(r"^(mcp_status \w+\(mcp_call \*[^;]*\));", htext, re.M):
        stubs.append(proto + "\n{\n    return MCP_ERROR;\n}\n")
    stubs_c = os.path.join(work, "stubs.c")
    with open(stubs_c, "w", encoding="utf-8") as f:
        f.write("\n".join(stubs))
    exe = os.path.join(work, "driver")
    cc = [args.cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-g"]
    cc += shlex.split(args.cflags) + [
        "-I", work, "-I", os.path.join(ROOT, "lib"), "-I", os.path.join(ROOT, "lib", "include"),
        "-DMCPIDL_DIFF_SERVER=" + server,
        os.path.join(HERE, "driver.c"), os.path.join(work, stem + ".mcp.c"), stubs_c,
        args.lib, "-o", exe] + libs
    # The compiler runs while the instances are generated.
    proc = subprocess.Popen(cc, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return exe, proc


def finish_build(proc):
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise Failure("the driver does not build:\n" + out.decode(errors="replace")[-4000:])


def driver_tools(exe):
    r = subprocess.run([exe, "--list"], capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure("driver --list failed: " + r.stderr)
    out = []
    for line in r.stdout.splitlines():
        name, output, int_keys = line.split("\t")
        out.append((name, output, int_keys == "1"))
    return out


def verdict_lines(text, n, who):
    lines = text.splitlines()
    if len(lines) != n:
        raise Failure("%s gave %d verdicts for %d instances" % (who, len(lines), n))
    return lines


def pool_format_checker():
    """The formats the IDL's string-format types assert (date-time, uuid, ...), judged
    by membership in gen.FORMAT_VALUES, the texts the generator writes for them: an
    instance holding any other text there is invalid for all three judges (the
    formats themselves are tested against real format checkers in tests/formats)."""
    fc = jsonschema.FormatChecker(formats=())
    for name, values in gen.FORMAT_VALUES.items():
        fc.checks(name)(lambda v, values=frozenset(values): not isinstance(v, str) or v in values)
    return fc


def generate(stem, tools, schemas, int_keys, args, totals):
    """Seeded instances of every schema, labelled by jsonschema."""
    rows = []  # (index, text, label, intent)
    per_schema = {}
    for idx, schema in schemas.items():
        rng = random.Random("%d:%s:%d" % (args.seed, stem, idx))
        try:
            g = gen.Generator(schema, rng, int_keys=int_keys)
        except gen.Unsupported as e:
            raise Failure("schema %d (%s): the generator does not support %s" % (idx, tools[idx // 2]["name"], e))
        validator = jsonschema.Draft202012Validator(schema, format_checker=pool_format_checker())
        made = attempts = 0
        labels = [0, 0]
        while made < args.per_schema:
            attempts += 1
            if attempts > 20 * args.per_schema:
                raise Failure("schema %d (%s): only %d instances in %d attempts"
                              % (idx, tools[idx // 2]["name"], made, attempts))
            intent = made % 2 == 0
            try:
                v = g.valid() if intent else g.invalid()
            except (gen.Unsat, RecursionError):
                continue
            why = gen.excluded(v)
            if why:
                totals["excluded"][why] = totals["excluded"].get(why, 0) + 1
                continue
            text = gen.dumps(v, rng)
            label = validator.is_valid(json.loads(text))
            labels[label] += 1
            rows.append((idx, text, label, intent))
            made += 1
        per_schema[idx] = labels
        # The generator must reach both sides of every schema.
        if min(labels) < args.per_schema // 4:
            raise Failure("schema %d (%s): %d valid and %d invalid by jsonschema: too lopsided"
                          % (idx, tools[idx // 2]["name"], labels[1], labels[0]))

    return rows, per_schema


def run_idl(idl, args, libs, totals):
    stem = os.path.basename(idl)[: -len(".mcp.yaml")] if idl.endswith(".mcp.yaml") else os.path.basename(idl)
    work = os.path.join(args.work, stem)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    r = subprocess.run([args.mcpidlc, "--print-tools", idl], capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure("mcpidlc --print-tools failed:\n" + r.stderr)
    tools = json.loads(r.stdout)
    exe, proc = build_driver(idl, stem, work, args, libs)
    try:
        # A dict[int, T] looks like a dict[str, T] in the schema: when the IDL
        # writes one anywhere, every dict of its instances gets int64 keys
        # (the driver's --list, once built, must not show more).
        int_keys_idl = bool(re.search(r"[Dd]ict\[\s*int\s*,", open(idl, encoding="utf-8").read()))
        schemas = {}
        for i, tool in enumerate(tools):
            schemas[2 * i] = tool["inputSchema"]
            if "outputSchema" in tool:
                schemas[2 * i + 1] = tool["outputSchema"]
        rows, per_schema = generate(stem, tools, schemas, int_keys_idl, args, totals)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finish_build(proc)
    listed = driver_tools(exe)
    if [t["name"] for t in tools] != [n for n, _, _ in listed]:
        raise Failure("the server table's tools %s differ from tools/list's %s"
                      % ([n for n, _, _ in listed], [t["name"] for t in tools]))
    for i, (tool, (name, output, ik)) in enumerate(zip(tools, listed)):
        if ("outputSchema" in tool) != (output != "none"):
            raise Failure("tool %s: output kind %s but outputSchema %s"
                          % (name, output, "present" if "outputSchema" in tool else "absent"))
        if ik and not int_keys_idl:
            raise Failure("tool %s reaches a dict[int, T] that the IDL's text does not show" % name)

    tsv = "".join("%d\t%s\n" % (idx, text) for idx, text, _, _ in rows)
    tsv_path = os.path.join(work, "instances.tsv")
    with open(tsv_path, "w", encoding="utf-8") as f:
        f.write(tsv)
    schemas_path = os.path.join(work, "schemas.json")
    with open(schemas_path, "w", encoding="utf-8") as f:
        json.dump({str(k): v for k, v in schemas.items()}, f)

    # The decoder and Ajv judge the batch side by side.
    def judge(argv, who):
        with open(tsv_path, "rb") as f:
            r = subprocess.run(argv, stdin=f, capture_output=True)
        if r.returncode != 0:
            raise Failure("%s exited with %d: %s" % (who, r.returncode, r.stderr.decode(errors="replace")[-3000:]))
        return verdict_lines(r.stdout.decode(), len(rows), who)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        c_job = pool.submit(judge, [exe], "the driver")
        formats_path = os.path.join(work, "formats.json")
        with open(formats_path, "w") as f:
            json.dump(gen.FORMAT_VALUES, f)
        ajv_job = None if args.skip_node else pool.submit(
            judge, [args.node, os.path.join(HERE, "ajv.mjs"), args.node_modules, schemas_path, tsv_path,
                    formats_path], "ajv.mjs")
        c_verdicts = c_job.result()
        ajv_verdicts = ajv_job.result() if ajv_job else None

    shown = []
    bad = 0
    for n, (idx, text, label, intent) in enumerate(rows):
        ref = "1" if label else "0"
        c = c_verdicts[n]
        a = ajv_verdicts[n] if ajv_verdicts else ref
        if c == ref and a == ref:
            continue
        bad += 1
        if len(shown) < MAX_SHOWN:
            tool = tools[idx // 2]
            which = "inputSchema" if idx % 2 == 0 else "outputSchema"
            shown.append("tool %s, %s (schema %d), meant %s:\n    instance   %s\n"
                         "    jsonschema %s   ajv %s   mcpidl %s\n    schema     %s"
                         % (tool["name"], which, idx, "valid" if intent else "invalid", text,
                            ref, a if ajv_verdicts else "-", c, compact(schemas[idx])))
    totals["instances"] += len(rows)
    totals["valid"] += sum(1 for row in rows if row[2])
    return len(rows), bad, shown, per_schema


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--lib", required=True, help="libmcpidl.a")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="", help="extra compiler flags for the drivers (e.g. sanitizers)")
    ap.add_argument("--work", help="where to build (default: a temporary folder, removed after)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-schema", type=int, default=1000, help="instances per schema (default 1000)")
    ap.add_argument("--min-total", type=int, default=50000, help="fewest instances for a pass (default 50000)")
    ap.add_argument("--node", default="node")
    ap.add_argument("--node-modules", default=os.path.join(ROOT, "tests", "e2e", "node_modules"),
                    help="the folder holding ajv (default: tests/e2e/node_modules)")
    ap.add_argument("idls", nargs="+", help=".mcp.yaml files, or folders searched for them")
    args = ap.parse_args()

    if jsonschema is None:
        print("differential: FAIL: Python's jsonschema is not installed (scripts/setup.sh installs it)")
        return 1
    args.skip_node = os.environ.get("MCPIDL_SKIP_NODE") == "1"
    if args.skip_node:
        print("SKIPPED: Ajv (MCPIDL_SKIP_NODE=1); comparing with jsonschema only")
    else:
        if not os.path.exists(os.path.join(args.node_modules, "ajv", "package.json")):
            print("differential: FAIL: ajv is not installed in %s: run scripts/setup.sh "
                  "(npm ci in tests/e2e), or set MCPIDL_SKIP_NODE=1 to skip Ajv" % args.node_modules)
            return 1
        if not shutil.which(args.node):
            print("differential: FAIL: %s not found (set MCPIDL_SKIP_NODE=1 to skip Ajv)" % args.node)
            return 1
    for path in (args.mcpidlc, args.lib):
        if not os.path.exists(path):
            print("differential: FAIL: %s not found: build the project first" % path)
            return 1

    tmp = None
    if not args.work:
        tmp = args.work = tempfile.mkdtemp(prefix="mcpidl-diff-")
    libs = pkg_libs()
    totals = {"instances": 0, "valid": 0, "excluded": {}}
    passed = failed = 0
    start = time.time()
    try:
        for idl in idl_files(args.idls):
            name = os.path.basename(idl)
            try:
                n, bad, shown, per_schema = run_idl(idl, args, libs, totals)
            except Failure as e:
                failed += 1
                print("FAIL %s\n  %s" % (name, str(e).replace("\n", "\n  ")))
                sys.stdout.flush()
                continue
            if bad:
                failed += 1
                print("FAIL %s: %d of %d instances disagree%s" % (name, bad, n, " (first %d shown)" % len(shown)
                                                                  if bad > len(shown) else ""))
                for s in shown:
                    print("  " + s)
            else:
                passed += 1
                print("ok   %s (%d instances, %d schemas)" % (name, n, len(per_schema)))
            sys.stdout.flush()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    total = totals["instances"]
    print("%d instances judged (%d valid, %d invalid by jsonschema) in %.0f s; excluded as deliberate differences: %s"
          % (total, totals["valid"], total - totals["valid"], time.time() - start,
             ", ".join("%d with %s" % (c, w) for w, c in sorted(totals["excluded"].items())) or "none"))
    if total < args.min_total:
        print("differential: FAIL: %d instances, fewer than %d" % (total, args.min_total))
        failed += 1 if not failed else 0
    print("%d passed, %d failed" % (passed, failed))
    return 0 if passed and not failed and total >= args.min_total else 1


if __name__ == "__main__":
    sys.exit(main())
