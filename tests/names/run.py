#!/usr/bin/env python3
"""Generated names come only from their declarations.

usage: tests/names/run.py --mcpidlc MCPIDLC --include LIB_INCLUDE [--cc CC] --work DIR IDL...

For each IDL: generate its C (NAME.mcp.h, NAME.mcp.c); then write a second IDL with
an unrelated declaration added before and after every declaration of every section
(types, tools, resources, resource templates, prompts, elicitations), each with the
things that used to move names (long Literals, composites, constraints), and generate
its C. Every identifier the first output defines must exist in the second with the
same meaning:

- in the header, checked by a C compiler: a probe program, built from the first
  header, is compiled against each header and run. It redeclares every function of
  the first header (a conflicting type does not compile), asserts the type of every
  struct member (__builtin_types_compatible_p), and prints the size, alignment and
  member offsets of every struct, the value of every enum constant and the text of
  every macro; both runs must print the same;
- in the source, the definitions of the first (descriptors and their parts, thunks,
  codec and enum functions) must appear word for word in the second; only the tables
  that list every tool, resource, template or prompt grow.

Exits 0 when every identifier of every IDL kept its meaning.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SECTIONS = ["types", "tools", "resources", "resource_templates", "prompts", "elicitations"]

# An unrelated declaration per section; %(n)s makes each one's names its own.
UNRELATED = {
    "types": """\
  Zz%(n)s:
    fields:
      mode%(n)s: "Literal['a_very_long_literal_value_number_one', 'a_very_long_literal_value_number_two']"
      grid%(n)s: "list[list[tuple[int, str]]]"
      pick%(n)s: {type: "Optional[int]", minimum: 1, default: null}
      both%(n)s: "dict[str, Optional[bool]] | set[float] | None"
""",
    "tools": """\
  zz_tool_%(n)s:
    description: Unrelated.
    params:
      how%(n)s: "Literal['one_rather_long_literal_value', 'another_rather_long_literal_value']"
      size%(n)s: {type: "list[str]", minItems: 1}
    returns: "tuple[Literal['x%(n)s', 'y'], dict[int, list[bytes]]]"
""",
    "resources": """\
  zz_res_%(n)s:
    uri: test://zz/%(n)s
""",
    "resource_templates": """\
  zz_tpl_%(n)s:
    uriTemplate: "test://zz%(n)s/{key}"
    complete:
      key: [k1, k2]
""",
    "prompts": """\
  zz_prompt_%(n)s:
    description: Unrelated.
    arguments:
      arg: {description: An argument}
    complete:
      arg: handler
""",
    "elicitations": """\
  zz_form_%(n)s:
    message: Unrelated.
    fields:
      pick: {values: [p, q]}
""",
}


def surround(text):
    """The IDL text with an unrelated declaration before and after every
    declaration of each section (blocks at two spaces of indentation)."""
    lines = text.splitlines(keepends=True)
    out, section, count = [], None, [0]

    def unrelated(sec):
        count[0] += 1
        return UNRELATED[sec] % {"n": count[0]}

    for i, line in enumerate(lines):
        top = re.match(r"^([A-Za-z_]+):\s*(#.*)?$", line)
        if top or (line.strip() and not line.startswith(" ") and not line.startswith("#")):
            if section:
                out.append(unrelated(section))
            section = top.group(1) if top and top.group(1) in SECTIONS else None
            out.append(line)
            continue
        if section and re.match(r"^  [^ #]", line):
            out.append(unrelated(section))
        out.append(line)
    if section:
        out.append(unrelated(section))
    return "".join(out)


def generate(mcpidlc, idl, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    p = subprocess.run([mcpidlc, "--emit=c", "-o", out_dir, idl], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("mcpidlc failed on %s:\n%s" % (idl, p.stderr))


# ---------------------------------------------------------------- the header

def header_items(h):
    """The identifiers a header defines, as (kind, name, detail)."""
    items = []
    text = re.sub(r"/\*.*?\*/", "", h, flags=re.S)
    for m in re.finditer(r"^struct (\w+) \{\n(.*?)^\};", text, re.M | re.S):
        members = []
        body = m.group(2)
        union = re.search(r"union \{\n(.*?)\} as;", body, re.S)
        if union:
            body = body.replace(union.group(0), "")
            members += [("as", None)]
        for decl in body.split(";"):
            decl = decl.strip()
            mm = re.match(r"^(.*?)(\w+)$", decl, re.S)
            if mm:
                members.append((mm.group(2), mm.group(1).strip()))
        items.append(("struct", m.group(1), members))
    for m in re.finditer(r"^typedef enum (\w+) \{\n(.*?)^\} \1;", text, re.M | re.S):
        items.append(("enum", m.group(1), re.findall(r"^\s+(\w+),", m.group(2), re.M)))
    for m in re.finditer(r"^enum \{\n(.*?)^\};", text, re.M | re.S):
        for c in re.findall(r"^\s+(\w+) = \d+,", m.group(1), re.M):
            items.append(("constant", c, None))
    for m in re.finditer(r"^#define (\w+) (.*)$", text, re.M):
        if not m.group(1).endswith("_MCP_H"):
            items.append(("macro", m.group(1), None))
    for m in re.finditer(r"^([A-Za-z_][\w ]*?\**)\s*\b(\w+)\(([^;{]*?)\);", text, re.M | re.S):
        items.append(("function", m.group(2), m.group(0)))
    for m in re.finditer(r"^extern const (\w+) (\w+);", text, re.M):
        items.append(("object", m.group(2), m.group(0)))
    return items


def probe_source(stem, items):
    """A program that checks and prints what the header's identifiers mean."""
    out = ['#include <stdio.h>', '#include <stddef.h>', '#include "%s.mcp.h"' % stem,
           "#define TEXT_(...) #__VA_ARGS__", "#define TEXT(...) TEXT_(__VA_ARGS__)", ""]
    for kind, name, detail in items:
        if kind in ("function", "object"):
            out.append(re.sub(r"\s+", " ", detail))  # a conflicting redeclaration does not compile
    for kind, name, detail in items:
        if kind != "struct":
            continue
        for member, ctype in detail:
            if ctype and "[" not in ctype:
                out.append('_Static_assert(__builtin_types_compatible_p(__typeof__(((%s *)0)->%s), %s), "%s.%s");'
                           % (name, member, ctype, name, member))
    out.append("int main(void)\n{")
    for kind, name, detail in items:
        if kind == "struct":
            out.append('    printf("struct %s %%zu %%zu\\n", sizeof(%s), _Alignof(%s));' % (name, name, name))
            for member, _ in detail:
                out.append('    printf("  .%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                           % (member, name, member, name, member))
        elif kind == "enum":
            out.append('    printf("enum %s %%zu\\n", sizeof(%s));' % (name, name))
            for c in detail:
                out.append('    printf("  %s %%d\\n", (int)%s);' % (c, c))
        elif kind == "constant":
            out.append('    printf("constant %s %%d\\n", (int)%s);' % (name, name))
        elif kind == "macro":
            out.append('    printf("macro %s %%s\\n", TEXT(%s));' % (name, name))
    out.append("    return 0;\n}")
    return "\n".join(out) + "\n"


def run_probe(cc, include, header_dir, probe, exe):
    build = subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-I", header_dir, "-I", include, probe, "-o", exe],
                           capture_output=True, text=True)
    if build.returncode != 0:
        return None, build.stderr[-3000:]
    run = subprocess.run([exe], capture_output=True, text=True)
    return run.stdout, None


# ---------------------------------------------------------------- the source

def source_definitions(c):
    """{name: text} of the source's definitions that belong to one declaration."""
    defs = {}
    for m in re.finditer(r"^(?:static )?(?:const )?[\w ]+?\**\s*\b(\w+)(?:\[\])?(?:\(.*?\))?\s*=?\s*\{\n.*?^\};?\n",
                         c, re.M | re.S):
        defs[m.group(1)] = m.group(0)
    for m in re.finditer(r"^static (?:mcp_pattern|const mcp_type) (\w+)(?: = \{.*?\})?;\n", c, re.M):
        defs.setdefault(m.group(1), m.group(0))
    return defs


def check_source(stem, a, b):
    growing = re.compile(r"_(tools|resources|templates|prompts|server)$")
    da, db = source_definitions(a), source_definitions(b)
    problems = []
    for name, text in da.items():
        if growing.search(name):
            continue
        if name not in db:
            problems.append("%s.mcp.c: '%s' is gone" % (stem, name))
        elif db[name] != text:
            problems.append("%s.mcp.c: '%s' changed:\n%s\nto\n%s" % (stem, name, text, db[name]))
    return problems, len(da)


def check(args, idl):
    stem = os.path.basename(idl)[:-len(".mcp.yaml")]
    work = os.path.join(args.work, stem)
    shutil.rmtree(work, ignore_errors=True)
    first, second = os.path.join(work, "first"), os.path.join(work, "second")
    generate(args.mcpidlc, idl, first)
    with open(idl, encoding="utf-8") as f:
        text = f.read()
    os.makedirs(second)
    surrounded = os.path.join(second, stem + ".mcp.yaml")
    with open(surrounded, "w", encoding="utf-8") as f:
        f.write(surround(text))
    generate(args.mcpidlc, surrounded, second)
    read = lambda d, ext: open(os.path.join(d, stem + ext), encoding="utf-8").read()
    items = header_items(read(first, ".mcp.h"))
    probe = os.path.join(work, "probe.c")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(probe_source(stem, items))
    problems = []
    out1, err1 = run_probe(args.cc, args.include, first, probe, os.path.join(work, "probe1"))
    out2, err2 = run_probe(args.cc, args.include, second, probe, os.path.join(work, "probe2"))
    if err1:
        problems.append("the probe does not compile against the first header:\n" + err1)
    elif err2:
        problems.append("the names of the first header mean something else in the second:\n" + err2)
    elif out1 != out2:
        diff = [l for l in set(out1.splitlines()) ^ set(out2.splitlines())]
        problems.append("layouts or values differ:\n  " + "\n  ".join(sorted(diff)[:40]))
    src_problems, ndefs = check_source(stem, read(first, ".mcp.c"), read(second, ".mcp.c"))
    problems += src_problems
    return problems, len(items), ndefs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--include", required=True, help="the runtime's include directory (lib/include)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--work", required=True)
    ap.add_argument("idls", nargs="+")
    args = ap.parse_args()
    failed = 0
    for idl in args.idls:
        problems, nitems, ndefs = check(args, idl)
        if problems:
            failed += 1
            print("FAIL %s" % idl)
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            print("ok   %s: %d names of the header, %d definitions of the source kept" % (idl, nitems, ndefs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
