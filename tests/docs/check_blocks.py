#!/usr/bin/env python3
"""The code blocks of README.md and docs/*.md that can be checked mechanically, checked:

- every ```yaml block that is a whole IDL file (it has `mcpidl: 1`) compiles with
  `mcpidlc --check -Werror`, unless the line before its fence is `<!-- invalid example -->` (a
  file shown for its errors: it must then fail); a block whose first line is `# NAME.mcp.yaml`
  is saved as that file, for the blocks after it to import;
- a ```console block after such a file whose commands are `$ mcpidlc ... NAME.mcp.yaml` (and
  `$ echo $?`) is run on that file, saved as NAME.mcp.yaml: the output and the exit status must
  be the ones the page shows;
- every ```json block is JSON (one value, or one JSON-RPC message per line);
- every ```make block is the Makefile of tests/consumer/makefile (checked by consumer_makefile).

Blocks of other languages are not run here; the tutorial and the consumer tests build what the
C, CMake and shell blocks show. Exit status 0 when every checked block holds.

    check_blocks.py --mcpidlc PATH ROOT
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    end = 0
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        heading = re.search(r"^#{1,6} ", text[end:m.start()], re.M) is not None
        end = m.end()
        yield line, m.group(1), m.group(2), before.strip(), heading


def run_console(mcpidlc, tmp, idl, body, where):
    """The commands of a console block on the IDL file shown before it; what differs."""
    failures, status = [], None
    lines = body.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        text = lines[i][2:]
        echo_status = text.endswith('; echo "exit status $?"')
        if echo_status:
            text = text[: -len('; echo "exit status $?"')]
        cmd = text.split()
        shown = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        if cmd == ["echo", "$?"]:
            if shown != [str(status)]:
                failures.append("%s: the page shows exit status %s, mcpidlc exited with %s" % (where, shown, status))
            continue
        if (not cmd or cmd[0] != "mcpidlc" or cmd[1:2] == ["diff"] or not cmd[-1].endswith(".mcp.yaml")
                or "/" in cmd[-1]):
            break  # another command (ls, cc, ...): the rest of the block is not checked here
        with open(os.path.join(tmp, cmd[-1]), "w", encoding="utf-8") as f:
            f.write(idl)
        p = subprocess.run([mcpidlc] + cmd[1:], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        status = p.returncode
        got = p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else []
        if echo_status:
            got.append("exit status %d" % status)
        if got != shown:
            failures.append("%s: '%s' prints\n%s\nbut the page shows\n%s"
                            % (where, " ".join(cmd), "\n".join(got), "\n".join(shown)))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("root")
    args = ap.parse_args()
    args.mcpidlc = os.path.abspath(args.mcpidlc)
    files = [os.path.join(args.root, "README.md")] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md")))
    failures, checked, unchecked = [], 0, {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            rel = os.path.relpath(path, args.root)
            last_idl = None
            for line, lang, body, before, heading in blocks(path):
                where = "%s:%d" % (rel, line)
                if heading:
                    last_idl = None  # a console block runs the file of its own section
                if lang == "console" and last_idl is not None and body.startswith("$ mcpidlc "):
                    checked += 1
                    failures += run_console(args.mcpidlc, tmp, last_idl, body, where)
                    continue
                if lang == "yaml":
                    last_idl = None
                if lang == "yaml" and re.search(r"^mcpidl: 1\s*$", body, re.M):
                    last_idl = body
                    checked += 1
                    # A block that starts with `# NAME.mcp.yaml` is saved under that name, so that
                    # a later block can import it (imports: [NAME.mcp.yaml]).
                    named = re.match(r"#\s*([\w-]+\.mcp\.yaml)\b", body)
                    idl = os.path.join(tmp, named.group(1) if named else "block.mcp.yaml")
                    with open(idl, "w", encoding="utf-8") as f:
                        f.write(body)
                    warning = before == "<!-- warning example -->"
                    p = subprocess.run([args.mcpidlc, "--check"] + ([] if warning else ["-Werror"]) + [idl],
                                       capture_output=True, text=True)
                    expect_errors = before == "<!-- invalid example -->"
                    if expect_errors and p.returncode == 0:
                        failures.append("%s: an IDL file shown for its diagnostics compiles cleanly" % where)
                    elif not expect_errors and p.returncode != 0:
                        failures.append("%s: the IDL file does not compile:\n%s" % (where, p.stderr))
                    elif warning and "warning:" not in p.stderr:
                        failures.append("%s: an IDL file shown for its warning has none" % where)
                elif lang not in ("json", "make"):
                    unchecked[lang or "text"] = unchecked.get(lang or "text", 0) + 1
                    continue
                if lang == "json":
                    checked += 1
                    try:
                        json.loads(body)
                    except ValueError:
                        try:
                            for l in body.splitlines():
                                if l.strip():
                                    json.loads(l)
                        except ValueError as e:
                            failures.append("%s: not JSON: %s" % (where, e))
    for f in failures:
        print("FAIL " + f)
    print("docs: %d block(s) checked, %d failed; not checked here: %s" % (
        checked, len(failures), ", ".join("%d %s" % (n, k) for k, n in sorted(unchecked.items()))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
