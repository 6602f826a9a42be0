#!/usr/bin/env python3
"""Checks schemas/mcpidl.schema.json, the JSON Schema of the .mcp.yaml format.

Usage: run.py PROJECT_ROOT

1. The schema is a valid Draft 2020-12 schema.
2. Every valid IDL file of the project is accepted: each *.mcp.yaml under the
   project tree (golden cases, examples, tests/idl_schema/valid, docs, ...)
   except the deliberately broken ones (tests/diagnostics, tests/idl_schema/invalid,
   fuzz corpora, build directories), and each example of the Markdown files under
   docs/ whose top-level keys are IDL top-level keys (`types:` alone is completed
   with `mcpidl` and `server`).
3. Every file under tests/idl_schema/invalid/ is rejected. Each starts with
   `# rejects: WHAT`; an optional `# path: /json/pointer` line names the place
   where the schema must report an error (so that a file is rejected for the
   reason it states, not for a typo elsewhere).

YAML is read as the compiler reads it (IDL.md, "Reading the YAML"): mapping keys
are strings taken verbatim, and plain scalars resolve by the YAML 1.2 core schema
only (`on`, `yes`, `no` stay strings; `1.10` is a float; `010` is 10).

One line per file (`ok  PATH` or `FAIL PATH: REASON`), then `N passed, M failed`.
Exit status 0 when everything passed, 1 otherwise.
"""

import json
import math
import os
import re
import sys

try:
    import yaml
except ImportError:
    print("run.py: the Python module 'yaml' (PyYAML) is missing; install it "
          "(python3 -m pip install pyyaml, or the package python3-yaml)", file=sys.stderr)
    sys.exit(1)
try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("run.py: the Python module 'jsonschema' (4.x) is missing; install it "
          "(python3 -m pip install jsonschema, or the package python3-jsonschema)", file=sys.stderr)
    sys.exit(1)


SCHEMA_PATH = os.path.join("schemas", "mcpidl.schema.json")
INVALID_DIR = os.path.join("tests", "idl_schema", "invalid")
VALID_DIR = os.path.join("tests", "idl_schema", "valid")
MIN_INVALID = 15

# Directories (relative to the root) whose IDL files are broken on purpose.
SKIP_PATHS = {
    os.path.join("tests", "diagnostics"),
    INVALID_DIR,
}
# Directory names skipped anywhere in the tree.
SKIP_NAMES = {".git", "node_modules", "__pycache__", "_deps", "fuzz", "corpus", "invalid", "diagnostics"}


# ---------------------------------------------------------------------------
# A YAML loader that reads the file as mcpidlc does.

class IdlLoaderError(Exception):
    pass


class Core12Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema instead of YAML 1.1's resolvers,
    string mapping keys taken verbatim, and duplicate or merge keys rejected."""


# Start from no implicit resolvers at all (SafeLoader's are YAML 1.1's).
Core12Loader.yaml_implicit_resolvers = {}

_CORE_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_CORE_BOOL = re.compile(r"^(?:true|false)$", re.IGNORECASE)
_CORE_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_CORE_FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


def _add(tag, regexp, first):
    Core12Loader.add_implicit_resolver(tag, regexp, list(first))


_add("tag:yaml.org,2002:null", _CORE_NULL, ["~", "n", "N", ""])
_add("tag:yaml.org,2002:bool", _CORE_BOOL, "tTfF")
_add("tag:yaml.org,2002:int", _CORE_INT, "-+0123456789")
_add("tag:yaml.org,2002:float", _CORE_FLOAT, "-+.0123456789")


def _construct_null(loader, node):
    loader.construct_scalar(node)
    return None


def _construct_bool(loader, node):
    return loader.construct_scalar(node).lower() == "true"


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _construct_float(loader, node):
    text = loader.construct_scalar(node)
    low = text.lower()
    if low in (".inf", "+.inf"):
        return math.inf
    if low == "-.inf":
        return -math.inf
    if low == ".nan":
        return math.nan
    return float(text)


def _construct_mapping(loader, node, deep=False):
    if not isinstance(node, yaml.MappingNode):
        raise IdlLoaderError("expected a mapping at line %d" % (node.start_mark.line + 1))
    result = {}
    first_seen = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise IdlLoaderError("line %d: a mapping or sequence used as a key" % (key_node.start_mark.line + 1))
        if key_node.tag == "tag:yaml.org,2002:merge" or (key_node.style is None and key_node.value == "<<"):
            raise IdlLoaderError("line %d: merge keys (<<) are not allowed" % (key_node.start_mark.line + 1))
        key = key_node.value  # verbatim: `on`, `yes`, `1` stay strings
        if key in first_seen:
            raise IdlLoaderError("line %d: duplicate key '%s' (first at line %d)"
                                 % (key_node.start_mark.line + 1, key, first_seen[key]))
        first_seen[key] = key_node.start_mark.line + 1
        result[key] = loader.construct_object(value_node, deep=True)
    return result


Core12Loader.add_constructor("tag:yaml.org,2002:null", _construct_null)
Core12Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
Core12Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Core12Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
Core12Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)


def load_idl(text):
    docs = list(yaml.load_all(text, Loader=Core12Loader))
    if len(docs) != 1:
        raise IdlLoaderError("expected one YAML document, found %d" % len(docs))
    return docs[0]


def _self_test_loader():
    """The loader must resolve as IDL.md says; a wrong loader would make every result meaningless."""
    doc = load_idl("on: yes\nno: off\ny: n\n1: 010\nv: 1.10\nw: 1.0.0\nx: 0x1F\nz: 0o17\n"
                   "e: 1e3\nt: TRUE\nf: False\nn: ~\nm: null\nq: '017'\ni: -.inf\nd: 2001-12-14\n")
    expected = {"on": "yes", "no": "off", "y": "n", "1": 10, "v": 1.1, "w": "1.0.0", "x": 31, "z": 15,
                "e": 1000.0, "t": True, "f": False, "n": None, "m": None, "q": "017", "i": -math.inf,
                "d": "2001-12-14"}
    if doc != expected or not isinstance(doc["e"], float) or not isinstance(doc["1"], int):
        raise AssertionError("the YAML 1.2 core-schema loader is broken: got %r" % (doc,))


# ---------------------------------------------------------------------------
# Finding files.

def _rel(root, path):
    return os.path.relpath(path, root)


def _is_build_dir(dirpath, name):
    if name.startswith("build") or name.startswith("cmake-build") or name.startswith("."):
        return True
    return os.path.exists(os.path.join(dirpath, name, "CMakeCache.txt"))


def find_valid_files(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        keep = []
        for d in sorted(dirnames):
            rel = _rel(root, os.path.join(dirpath, d))
            if rel in SKIP_PATHS or d in SKIP_NAMES or _is_build_dir(dirpath, d):
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            if f.endswith(".mcp.yaml"):
                found.append(os.path.join(dirpath, f))
    return sorted(found)


_FENCE = re.compile(r"^```(?:yaml|yml)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


TOP_LEVEL_KEYS = {"mcpidl", "imports", "server", "types", "tools", "resources", "resource_templates",
                  "prompts", "elicitations"}
_TOP_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):", re.MULTILINE)


def _doc_example(block):
    """The IDL file a ```yaml block of the docs shows, or None when the block is a fragment
    below the top level (a field, a tool). A block whose keys are all top-level keys but that
    lacks `mcpidl`/`server` gets them added, so that e.g. a `types:` example is checked too."""
    keys = _TOP_KEY.findall(block)
    if not keys or not set(keys) <= TOP_LEVEL_KEYS:
        return None
    head = ""
    if "mcpidl" not in keys:
        head += "mcpidl: 1\n"
    if "server" not in keys:
        head += "server: {name: docs, version: \"1\"}\n"
    return head + block


def find_doc_examples(root):
    """IDL examples shown in the docs: ```yaml blocks whose top-level keys are IDL top-level
    keys (see _doc_example). Returns (label, text) pairs, the label being PATH:LINE of the
    block's first line."""
    examples = []
    docs = os.path.join(root, "docs")
    for dirpath, dirnames, filenames in os.walk(docs):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_NAMES and not d.startswith("."))
        for f in sorted(filenames):
            if not f.endswith(".md"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for m in _FENCE.finditer(text):
                # A block meant to show a mistake is marked by the comment line
                # "<!-- invalid example -->" just before its fence.
                if text[:m.start()].rstrip().endswith("<!-- invalid example -->"):
                    continue
                block = _doc_example(m.group(1))
                if block is not None:
                    line = text.count("\n", 0, m.start()) + 2
                    examples.append(("%s:%d" % (_rel(root, path), line), block))
    return examples


# ---------------------------------------------------------------------------
# Checking.

def _pointer(path):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path) if path else ""


def _all_errors(errors):
    """The errors and, recursively, those of the failed branches of anyOf/oneOf/if."""
    for e in errors:
        yield e
        if e.context:
            yield from _all_errors(e.context)


def _describe(error):
    where = _pointer(error.absolute_path) or "(root)"
    return "%s: %s" % (where, error.message)


def check_valid(validator, label, text):
    try:
        doc = load_idl(text)
    except (yaml.YAMLError, IdlLoaderError) as e:
        return "YAML: %s" % (str(e).replace("\n", " "),)
    errors = list(validator.iter_errors(doc))
    if not errors:
        return None
    best = jsonschema.exceptions.best_match(errors)
    more = "" if len(errors) == 1 else " (and %d more)" % (len(errors) - 1)
    return _describe(best) + more


def check_invalid(validator, text):
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# rejects:") or not lines[0][len("# rejects:"):].strip():
        return "the first line must be '# rejects: WHAT'"
    want_path = None
    for line in lines[1:]:
        if not line.startswith("#"):
            break
        if line.startswith("# path:"):
            want_path = line[len("# path:"):].strip()
    try:
        doc = load_idl(text)
    except (yaml.YAMLError, IdlLoaderError) as e:
        return "not loadable YAML (the schema must reject it, not the loader): %s" % (str(e).replace("\n", " "),)
    errors = list(validator.iter_errors(doc))
    if not errors:
        return "accepted, but should be rejected"
    if want_path is not None:
        paths = {_pointer(e.absolute_path) for e in _all_errors(errors)}
        if want_path not in paths:
            best = jsonschema.exceptions.best_match(errors)
            return "rejected, but not at %s: %s" % (want_path or "(root)", _describe(best))
    return None


def main(argv):
    if len(argv) != 2:
        print("usage: run.py PROJECT_ROOT", file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    passed = failed = 0

    def report(label, problem):
        nonlocal passed, failed
        if problem is None:
            passed += 1
            print("ok  %s" % label)
        else:
            failed += 1
            print("FAIL %s: %s" % (label, problem))

    _self_test_loader()

    schema_file = os.path.join(root, SCHEMA_PATH)
    try:
        with open(schema_file, encoding="utf-8") as fh:
            schema = json.load(fh)
        Draft202012Validator.check_schema(schema)
        problem = None
        if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problem = "$schema is not Draft 2020-12"
        elif schema.get("$id") != "https://mcpidl.dev/schemas/mcpidl.schema.json":
            problem = "unexpected $id"
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        problem = str(e).split("\n")[0]
    report(SCHEMA_PATH, problem)
    if problem is not None:
        print("%d passed, %d failed" % (passed, failed))
        return 1

    validator = Draft202012Validator(schema)

    valid_files = find_valid_files(root)
    if not any(_rel(root, p).startswith(os.path.join("tests", "golden") + os.sep) for p in valid_files):
        report(os.path.join("tests", "golden"), "no *.mcp.yaml found: wrong PROJECT_ROOT?")
    for path in valid_files:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        report(_rel(root, path), check_valid(validator, path, text))

    for label, block in find_doc_examples(root):
        report(label, check_valid(validator, label, block))

    invalid_dir = os.path.join(root, INVALID_DIR)
    invalid_files = sorted(os.path.join(invalid_dir, f) for f in os.listdir(invalid_dir)
                           if f.endswith(".mcp.yaml")) if os.path.isdir(invalid_dir) else []
    if len(invalid_files) < MIN_INVALID:
        report(INVALID_DIR, "only %d invalid samples; at least %d expected" % (len(invalid_files), MIN_INVALID))
    for path in invalid_files:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        report(_rel(root, path), check_invalid(validator, text))

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
