#!/usr/bin/env python3
"""Diagnostics: each malformed IDL makes mcpidlc print exactly the expected lines.

usage: run.py --mcpidlc PATH --work DIR CASES_DIR

A case is either
  NAME.mcp.yaml + NAME.expected   a committed input and the diagnostic lines it must
                                  give, one per line, in the order printed
                                  (`NAME.mcp.yaml:LINE:COL: SEVERITY: MESSAGE`);
  NAME.gen                        a large hostile input, made by the generator of the
                                  same name below (the file only names and describes
                                  it); the input goes into the --work directory, and the
                                  generator gives the expected lines.
  NAME/                           a case of several files: the folder holds
                                  NAME.mcp.yaml (the file compiled), the files it
                                  imports, and NAME.expected (and NAME.args ...);
                                  it runs from the folder, so diagnostics in the
                                  imported files name them by their bare names.
Optional next to either:
  NAME.args    extra command-line arguments, one per line (e.g. -Werror)
  NAME.xfail   a known compiler problem, reported as "xfail": the case shows what is
               right, and the file says what is wrong now. A case that passes while
               marked fails ("XPASS"): delete its .xfail.

Each case runs from its own directory (the work directory for generated ones) with
the bare file name and -fno-diagnostics-show-caret, under a 20 s hang guard. Checks:
stderr equals the expected lines; the exit status is 1 when an error is expected, else
0; nothing is written to stdout. Then the case runs again with the source lines and
carets shown: it must not crash, must exit as before, and must print the same
diagnostic lines once the source and caret lines are left out.

Prints `ok   NAME`, `FAIL NAME` (with a unified diff or the reason), `xfail NAME`, then
`N passed, M failed`. Exit status 1 when any case failed.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

TIMEOUT = 120  # seconds; a guard against hangs, not a speed test (the largest hostile case
#               takes about 7 s, and 13 to 29 s under the sanitizers on a loaded 2-core machine)

DIAG = re.compile(r"^[^:\n]+(?::\d+:\d+)?: (error|warning|note): ")
SOURCE_LINE = re.compile(r"^ *\d* \| ")  # "   12 | text" and "      |    ^"

HEADER = 'mcpidl: 1\nserver: {name: hostile, version: "1.0.0"}\n'


# ---------------------------------------------------------------------------
# Generators of large hostile inputs. Each takes the file name and returns
# (the input as bytes, the expected lines). Deterministic: no randomness that
# is not seeded, no dependence on the machine.

def gen_lines_100k(name):
    """100,000 lines: one model with 99,994 fields, the last of an unknown type."""
    lines = HEADER.splitlines() + ["types:", "  Big:", "    fields:"]
    while len(lines) < 99999:
        lines.append("      f%d: int" % len(lines))
    lines.append("      last: Strin")
    expected = ["%s:100000:13: error: unknown type 'Strin'; did you mean 'str'?" % name]
    return ("\n".join(lines) + "\n").encode(), expected


def gen_deep_flow(name):
    """10,000 levels of flow sequences: types: [[[[...]]]]."""
    text = HEADER + "types: " + "[" * 10000 + "]" * 10000 + "\n"
    # The top-level mapping is level 1: the 64th '[' (column 8 + 63) is level 65.
    expected = ["%s:3:71: error: nesting deeper than 64 levels of mappings and sequences" % name]
    return text.encode(), expected


def deep_block_text(levels):
    parts = [HEADER, "types:\n"]
    for i in range(levels):
        parts.append(" " * (i + 1) + "k%d:\n" % i)
    return "".join(parts).encode()


def gen_deep_block(name):
    """5,000 levels of block mappings, each key one space deeper (12.5 MB).

    Block nesting costs indentation: n levels take about n * n / 2 bytes, and
    mcpidlc reads at most 16 MiB, so 5,000 levels is about the deepest file it
    reads; see too_large for 10,000."""
    # Key k(j) is on line 4 + j, in the mapping of level j + 2: level 65 is k63's.
    expected = ["%s:67:65: error: nesting deeper than 64 levels of mappings and sequences" % name]
    return deep_block_text(5000), expected


def gen_too_large(name):
    """10,000 levels of block mappings (50 MB): more than mcpidlc reads."""
    expected = ["mcpidlc: error: '%s' is larger than 16 MiB" % name]
    return deep_block_text(10000), expected


def gen_duplicate_keys(name):
    """100,000 times the same field name: the first 1,000 diagnostics are kept."""
    n = 100000
    text = HEADER + "types:\n  A:\n    fields:\n" + "      a: int\n" * n
    first = 6  # the line of the first 'a'
    expected = []
    for i in range(1, 501):  # 500 errors, each with its note: 1,000 diagnostics
        expected.append("%s:%d:7: error: duplicate key 'a'" % (name, first + i))
        expected.append("%s:%d:7: note: 'a' first defined here" % (name, first))
    expected.append("%s: note: too many diagnostics; the first 1000 are shown" % name)
    return text.encode(), expected


def gen_many_enum_values(name):
    """An enum of 100,000 values, the last one a repeat of the first."""
    lines = HEADER.splitlines() + ["types:", "  Code:", "    kind: enum", "    values:"]
    lines += ["      - v%d" % i for i in range(100000)]
    lines.append("      - v0")
    expected = ["%s:%d:9: error: enum 'Code' repeats the value 'v0'" % (name, len(lines))]
    return ("\n".join(lines) + "\n").encode(), expected


def gen_long_literal(name):
    """One type expression of 100,000 Literal values (600 KB on one line), then an unknown type."""
    values = ", ".join(str(i) for i in range(100000))
    prefix = "    returns: "
    expr = "Literal[%s, 0] | Strr" % values
    lines = HEADER.splitlines() + ["tools:", "  pick:", "    description: Pick a number.", prefix + expr]
    col = len(prefix) + expr.index("Strr") + 1
    expected = ["%s:6:%d: error: unknown type 'Strr'; did you mean 'str'?" % (name, col)]
    return ("\n".join(lines) + "\n").encode(), expected


def gen_big_set_default(name):
    """A set[int] default of 100,001 items whose last repeats the first."""
    lines = HEADER.splitlines() + ["tools:", "  tag:", "    description: Tag things.", "    params:",
                                   "      ids:", "        type: set[int]", "        default:"]
    lines += ["          - %d" % i for i in range(100000)]
    lines.append("          - 0")
    lines.append("    returns: int")
    expected = ["%s:%d:13: error: default of 'ids' in tool 'tag' repeats 0 (items 0 and 100000); "
                "a set's items are unique" % (name, len(lines) - 1)]
    return ("\n".join(lines) + "\n").encode(), expected


def gen_wide_union(name):
    """20,000 models and a union of each of them twice (40,000 arms), then an unknown key."""
    n = 20000
    lines = HEADER.splitlines() + ["types:"]
    lines += ["  T%d: {fields: {v: int}}" % i for i in range(n)]
    arms = " | ".join("T%d" % (i % n) for i in range(2 * n))
    lines += ["tools:", "  any_of:", "    description: One of many.", "    returns: " + arms, "    retrns: int"]
    expected = ["%s:%d:5: error: unknown key 'retrns' in tool 'any_of'; did you mean 'returns'?"
                % (name, len(lines))]
    return ("\n".join(lines) + "\n").encode(), expected


def gen_many_unknown_types(name):
    """30,000 models, each with a field of a different unknown type: a "did you mean"
    search per name among 30,000 type names must not take minutes."""
    n = 30000
    lines = HEADER.splitlines() + ["types:"]
    lines += ["  Type%d: {fields: {a: Unknwn%d}}" % (i, i) for i in range(n)]
    expected = ["%s:%d:%d: error: unknown type 'Unknwn%d'" % (name, 4 + i, len("  Type%d: {fields: {a: " % i) + 1, i)
                for i in range(1000)]
    expected.append("%s: note: too many diagnostics; the first 1000 are shown" % name)
    return ("\n".join(lines) + "\n").encode(), expected


GENERATORS = {
    "lines_100k": gen_lines_100k,
    "deep_flow": gen_deep_flow,
    "deep_block": gen_deep_block,
    "too_large": gen_too_large,
    "duplicate_keys": gen_duplicate_keys,
    "many_enum_values": gen_many_enum_values,
    "long_literal": gen_long_literal,
    "big_set_default": gen_big_set_default,
    "wide_union": gen_wide_union,
    "many_unknown_types": gen_many_unknown_types,
}


# ---------------------------------------------------------------------------

def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def decode(b):
    return b.decode("utf-8", errors="backslashreplace")


def run(mcpidlc, args, cwd):
    """(exit status or None on timeout, stdout bytes, stderr bytes)."""
    try:
        p = subprocess.run([mcpidlc] + args, cwd=cwd, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""


def describe_status(rc):
    if rc is None:
        return "no answer after %d s (a hang?)" % TIMEOUT
    if rc < 0:
        return "killed by signal %d" % -rc
    return "exit status %d" % rc


def check_case(mcpidlc, cases_dir, work, name):
    """A list of problems (empty when the case passes)."""
    file = name + ".mcp.yaml"
    gen_path = os.path.join(cases_dir, name + ".gen")
    generated = None
    if os.path.exists(gen_path):
        gen = GENERATORS.get(read_lines(gen_path)[0].split()[0])
        if not gen:
            return ["%s.gen names no generator of run.py" % name]
        data, expected = gen(file)
        generated = os.path.join(work, file)
        with open(generated, "wb") as f:
            f.write(data)
        cwd = work
    else:
        expected = read_lines(os.path.join(cases_dir, name + ".expected"))
        cwd = cases_dir
    extra = []
    args_path = os.path.join(cases_dir, name + ".args")
    if os.path.exists(args_path):
        extra = [a.strip() for a in read_lines(args_path) if a.strip()]

    problems = []
    want_rc = 1 if any(DIAG.match(l) and DIAG.match(l).group(1) == "error" for l in expected) else 0
    rc, out, err = run(mcpidlc, ["-fno-diagnostics-show-caret"] + extra + [file], cwd)
    actual = decode(err).splitlines()
    if actual != expected:
        diff = difflib.unified_diff(expected, actual, name + ".expected", "stderr", lineterm="")
        problems.append("stderr differs:\n" + "\n".join(diff))
    if rc != want_rc:
        problems.append("%s, expected exit status %d" % (describe_status(rc), want_rc))
    if out:
        problems.append("wrote to stdout: %r" % out[:200])

    # Once more with the source lines and carets.
    rc2, out2, err2 = run(mcpidlc, extra + [file], cwd)
    if rc2 is None or rc2 < 0 or rc2 != rc:
        problems.append("with carets: %s (without: %s)" % (describe_status(rc2), describe_status(rc)))
    else:
        lines = [l for l in decode(err2).splitlines() if not SOURCE_LINE.match(l)]
        if lines != actual:
            diff = difflib.unified_diff(actual, lines, "without carets", "with carets", lineterm="")
            problems.append("with carets, other diagnostics:\n" + "\n".join(diff))
        if out2:
            problems.append("with carets: wrote to stdout: %r" % out2[:200])
    if generated and not problems:
        os.remove(generated)  # some are large; a failing one stays for a look
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--work", required=True, help="a directory for generated inputs")
    ap.add_argument("cases", help="the directory of the cases")
    o = ap.parse_args()
    mcpidlc = os.path.abspath(o.mcpidlc)
    cases_dir = os.path.abspath(o.cases)
    work = os.path.abspath(o.work)
    os.makedirs(work, exist_ok=True)

    names = sorted({f[:-len(".mcp.yaml")] for f in os.listdir(cases_dir) if f.endswith(".mcp.yaml")} |
                   {f[:-len(".gen")] for f in os.listdir(cases_dir) if f.endswith(".gen")} |
                   {f for f in os.listdir(cases_dir)
                    if os.path.isfile(os.path.join(cases_dir, f, f + ".mcp.yaml"))})
    passed = failed = xfailed = 0
    for name in names:
        case_dir = os.path.join(cases_dir, name)
        if not os.path.isdir(case_dir):
            case_dir = cases_dir
        xfail_path = os.path.join(case_dir, name + ".xfail")
        xfail = read_lines(xfail_path)[0] if os.path.exists(xfail_path) else None
        problems = check_case(mcpidlc, case_dir, work, name)
        if xfail and problems:
            xfailed += 1
            print("xfail %s: %s" % (name, xfail))
        elif xfail:
            failed += 1
            print("FAIL %s: passes but is marked as a known problem (XPASS): delete %s.xfail" % (name, name))
        elif problems:
            failed += 1
            print("FAIL %s" % name)
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            passed += 1
            print("ok   %s" % name)
        sys.stdout.flush()
    if xfailed:
        print("%d known problems (xfail)" % xfailed)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
