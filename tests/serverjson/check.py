#!/usr/bin/env python3
"""mcpidlc --emit=server-json: for each IDL file below, the document written is valid against
the MCP Registry's schema (server.schema.json here, pinned: see README.md), says what the IDL
says (name, title, description, version, the packages' versions and transports), and, where
NAME.server.json is kept here, is exactly that file. A file that lacks what server.json needs
is refused with a message naming each missing part. All documents are validated in this one
process.

    check.py --mcpidlc PATH ROOT [--update]
"""
import argparse
import copy
import difflib
import json
import os
import subprocess
import sys
import tempfile

try:
    import yaml
    from jsonschema import Draft7Validator
except ImportError as e:
    print("check.py: a Python module is missing (%s): install python3-yaml and python3-jsonschema" % e)
    sys.exit(1)

CASES = ["examples/weather/weather.mcp.yaml", "examples/everything/everything.mcp.yaml",
         "tests/serverjson/full.mcp.yaml", "tests/serverjson/derived.mcp.yaml",
         "tests/serverjson/identity.mcp.yaml"]
# Refused: the file, and what the message must say.
REFUSED = {"tests/serverjson/missing.mcp.yaml": ["the server's name 'plain' is not a registry name",
                                                 "server.json needs a description of 1 to 100 characters"]}


class Failures:
    def __init__(self):
        self.n = 0

    def fail(self, case, msg):
        self.n += 1
        print("FAIL %s: %s" % (case, msg))


def load_idl(path):
    # The IDL's scalars as the compiler reads them do not matter here: the fields compared
    # are strings (quoted versions, names, descriptions).
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def expect_fields(case, idl, doc, out):
    server, reg = idl["server"], idl.get("registry") or {}
    name = reg.get("name", server["name"])
    if doc.get("name") != name:
        out.fail(case, "name %r, expected %r" % (doc.get("name"), name))
    if doc.get("version") != server["version"]:
        out.fail(case, "version %r, expected the server's %r" % (doc.get("version"), server["version"]))
    if doc.get("title") != server.get("title"):
        out.fail(case, "title %r, expected the server's %r" % (doc.get("title"), server.get("title")))
    desc = reg.get("description", server.get("description", server.get("instructions")))
    if doc.get("description") != desc:
        out.fail(case, "description %r, expected %r" % (doc.get("description"), desc))
    if "websiteUrl" not in reg and doc.get("websiteUrl") != server.get("websiteUrl"):
        out.fail(case, "websiteUrl %r, expected the server's %r" % (doc.get("websiteUrl"), server.get("websiteUrl")))
    for key in ("websiteUrl", "repository", "icons", "remotes"):
        if key in reg and key not in doc:
            out.fail(case, "%s is missing" % key)
    pkgs = reg.get("packages", [])
    if len(doc.get("packages", [])) != len(pkgs):
        out.fail(case, "%d packages, expected %d" % (len(doc.get("packages", [])), len(pkgs)))
        return
    for i, (want, got) in enumerate(zip(pkgs, doc.get("packages", []))):
        by_name = want["registryType"] in ("npm", "pypi", "nuget")
        version = want.get("version", server["version"]) if by_name else None
        if got.get("version") != version:
            out.fail(case, "package %d: version %r, expected %r" % (i + 1, got.get("version"), version))
        t = want.get("transport", "stdio")
        t = {"type": t} if isinstance(t, str) else t
        if got.get("transport", {}).get("type") != t["type"] or got["transport"].get("url") != t.get("url"):
            out.fail(case, "package %d: transport %r, expected %r" % (i + 1, got.get("transport"), t))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--update", action="store_true", help="write the kept documents instead of comparing")
    ap.add_argument("root")
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "server.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    Draft7Validator.check_schema(schema)
    validator = Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)
    out = Failures()
    docs = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            name = os.path.basename(case)[: -len(".mcp.yaml")]
            p = subprocess.run([args.mcpidlc, "--emit=server-json", "-o", tmp, os.path.join(args.root, case)],
                               capture_output=True, text=True)
            if p.returncode != 0 or p.stderr:
                out.fail(case, "mcpidlc exited with %d: %s" % (p.returncode, p.stderr))
                continue
            with open(os.path.join(tmp, name + ".server.json"), encoding="utf-8") as f:
                text = f.read()
            doc = json.loads(text)
            docs.append((case, doc))
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errors:
                out.fail(case, "not valid against server.schema.json at /%s: %s"
                         % ("/".join(map(str, e.absolute_path)), e.message))
            expect_fields(case, load_idl(os.path.join(args.root, case)), doc, out)
            kept = os.path.join(here, name + ".server.json")
            if args.update and os.path.exists(kept):
                with open(kept, "w", encoding="utf-8") as f:
                    f.write(text)
            elif os.path.exists(kept):
                with open(kept, encoding="utf-8") as f:
                    want = f.read()
                if text != want:
                    out.fail(case, "differs from %s:" % os.path.relpath(kept, args.root))
                    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                               "expected", "written"))
            if not errors:
                print("ok   %s" % case)

        # The validator does refuse what the registry refuses: each document made wrong in one
        # place is invalid (so that a pass above means something).
        for case, doc in docs:
            for what, spoil in [("a description of 101 characters", lambda d: d.update(description="x" * 101)),
                                ("a name that is not reverse-DNS", lambda d: d.update(name="plain")),
                                ("no version", lambda d: d.pop("version"))]:
                bad = copy.deepcopy(doc)
                spoil(bad)
                if validator.is_valid(bad):
                    out.fail(case, "the schema accepts the document with %s" % what)

        for case, needles in REFUSED.items():
            p = subprocess.run([args.mcpidlc, "--emit=server-json", "-o", tmp, os.path.join(args.root, case)],
                               capture_output=True, text=True)
            name = os.path.basename(case)[: -len(".mcp.yaml")]
            if p.returncode != 1:
                out.fail(case, "mcpidlc exited with %d, expected 1" % p.returncode)
            for needle in needles:
                if needle not in p.stderr:
                    out.fail(case, "the message does not say %r: %s" % (needle, p.stderr))
            if os.path.exists(os.path.join(tmp, name + ".server.json")):
                out.fail(case, "a server.json was written")
            if p.returncode == 1 and all(n in p.stderr for n in needles):
                print("ok   %s (refused)" % case)
    total = len(CASES) + len(REFUSED)
    print("serverjson: %d case(s), %d failure(s)" % (total, out.n))
    return 1 if out.n else 0


if __name__ == "__main__":
    sys.exit(main())
