#!/usr/bin/env python3
"""Schema parity with pydantic: random IDL programs against the MCP Python SDK's rules.

usage: tests/parity/run.py --mcpidlc PATH [--seed N] [--count N] [--work DIR] [--keep-going]

Each of --count programs (programs.py: random types and tools, with the Python module
a user of the SDK would write for them) is compiled with `mcpidlc --print-tools`
and compared, tool by tool and with key order, with what pydantic publishes for
the Python: the input schema of the arguments model the SDK creates
(create_model('<tool>Arguments', ...), by alias), and the output schema by the
SDK's rules (func_metadata._create_output_model: a BaseModel or TypedDict as is,
dict[str, T] as a RootModel '<tool>DictOutput', everything else wrapped in
'<tool>Output' with a `result` field; TypeAdapter(...).json_schema()). The
deliberate differences of docs/idl.md are applied to pydantic's side:
  - a recursive model or record as the return gets "type": "object" at the root;
  - an enum or `any` return is wrapped (the SDK leaves it unstructured);
  - the schema of a property named `properties` or `default` has sorted keys;
and programs.py keeps the programs clear of the others.

The seed is fresh unless --seed is given, and is printed first; program I of a
run is drawn from Random("SEED:I"), so `--seed SEED` replays a run. A mismatch
is shrunk (tools, types, fields, keys and type expressions removed while it
persists) and printed as the minimal IDL, with both schemas. Exits non-zero on
any mismatch, or when a program is not what both sides accept (a generator
fault, also printed).
"""
import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import types
import typing
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import programs as gen  # noqa: E402

SKIP = 77  # CTest's SKIP_RETURN_CODE for this test
PYDANTIC = "2.13"  # the version whose schemas mcpidlc reproduces


def require_pydantic():
    """pydantic 2.13 on this python3, or a clear failure (a skip with MCPIDL_SKIP_PYDANTIC=1)."""
    try:
        import pydantic
        version = pydantic.VERSION
    except ImportError:
        version = None
    if version and version.startswith(PYDANTIC + "."):
        return
    what = "pydantic %s" % version if version else "no pydantic"
    if os.environ.get("MCPIDL_SKIP_PYDANTIC") == "1":
        print("parity: SKIPPED (%s; MCPIDL_SKIP_PYDANTIC=1)" % what)
        sys.exit(SKIP)
    sys.exit("parity: %s on %s, which needs pydantic %s.x (scripts/setup.sh installs it); "
             "MCPIDL_SKIP_PYDANTIC=1 skips this test" % (what, sys.executable, PYDANTIC))


require_pydantic()

from pydantic import BaseModel, ConfigDict, RootModel, TypeAdapter, create_model  # noqa: E402
from pydantic._internal import _generics  # noqa: E402
from pydantic.json_schema import GenerateJsonSchema  # noqa: E402
from typing_extensions import is_typeddict  # noqa: E402


class StrictJsonSchema(GenerateJsonSchema):
    """The SDK's generator: a JSON Schema warning is an error (the output is then unstructured)."""

    def emit_warning(self, kind, detail):
        raise ValueError("JSON schema warning: %s - %s" % (kind, detail))


class ArgBase(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)


class ArgBaseForbid(ArgBase):
    model_config = ConfigDict(extra="forbid")


class Fault(Exception):
    """A program one side does not accept: the generator's fault, not a mismatch."""


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


# ---------------------------------------------------------------- the Python side

_modules = 0


def forget_earlier_programs():
    """Each program as if in a fresh interpreter: typing caches its Union and
    Literal objects by equality (Literal['a', 'b'] == Literal['b', 'a']), so an
    earlier program's spelling would come back; pydantic caches parametrized
    generic models (RootModel[...]) the same way."""
    for clear in typing._cleanups:
        clear()
    _generics._GENERIC_TYPES_CACHE.clear()


def load_module(prog):
    global _modules
    forget_earlier_programs()
    _modules += 1
    name = "parity_program_%d" % _modules
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    try:
        exec(compile(gen.render_python(prog), name, "exec"), mod.__dict__)
    except Exception as e:
        raise Fault("the Python does not load: %s: %s" % (type(e).__name__, e))
    return mod


def sdk_output_model(tool, ns):
    """The SDK's _create_output_model for the return annotation, or None."""
    ann = eval(gen.return_annotation(tool), ns)
    typ = eval(gen.py_type(tool.ret), ns)
    if typ is None or typ is type(None):
        return create_model("%sOutput" % tool.name, result=ann)
    if isinstance(typ, types.GenericAlias):
        args = typ.__args__
        if typ.__origin__ is dict and len(args) == 2 and args[0] is str:
            class DictModel(RootModel[typ]):
                pass
            DictModel.__name__ = DictModel.__qualname__ = "%sDictOutput" % tool.name
            return DictModel
        return create_model("%sOutput" % tool.name, result=ann)
    if isinstance(typ, type) and (issubclass(typ, BaseModel) or is_typeddict(typ)):
        return typ
    # str, int, ...: wrapped; an Enum or Any: unstructured in the SDK, wrapped in
    # mcpidl (a deliberate difference); Union, Literal, ...: wrapped.
    return create_model("%sOutput" % tool.name, result=ann)


def python_output_schema(tool, ns):
    if tool.ret == "content" or tool.structured is False:
        return None
    model = sdk_output_model(tool, ns)
    schema = TypeAdapter(model).json_schema(schema_generator=StrictJsonSchema)
    if "$ref" in schema and "type" not in schema:
        schema["type"] = "object"  # a recursive root (docs/idl.md: differences)
    return schema


def python_tools(prog):
    mod = load_module(prog)
    ns = mod.__dict__
    out = []
    try:
        for t in prog.tools:
            fields = {}
            for i, f in enumerate(t.params):
                ann = eval(gen.param_annotation(f), ns)
                fields["f%d" % i] = (ann, f.default) if f.default is not gen.NODEFAULT else ann
            base = ArgBaseForbid if t.forbid else ArgBase
            args = create_model("%sArguments" % t.name, __base__=base, **fields)
            entry = {"name": t.name, "description": t.desc}
            output = python_output_schema(t, ns)
            entry["inputSchema"] = args.model_json_schema(by_alias=True)
            if output is not None:
                entry["outputSchema"] = output
            for key in ("inputSchema", "outputSchema"):
                if key in entry:
                    entry[key] = sort_named_properties(entry[key])
            out.append(entry)
    except Exception as e:
        raise Fault("pydantic: %s: %s" % (type(e).__name__, e))
    finally:
        del sys.modules[mod.__name__]
    return out


def sort_named_properties(schema):
    """The schema of a property named `properties` or `default` with its keys
    sorted, as mcpidl writes it (pydantic leaves them in build order)."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if isinstance(out.get("properties"), dict):
        props = {}
        for name, sub in out["properties"].items():
            sub = sort_named_properties(sub)
            props[name] = dict(sorted(sub.items())) if name in ("properties", "default") else sub
        out["properties"] = props
    if isinstance(out.get("$defs"), dict):
        out["$defs"] = {name: sort_named_properties(sub) for name, sub in out["$defs"].items()}
    for key in ("items", "additionalProperties"):
        out[key] = sort_named_properties(out[key]) if key in out else None
        if out[key] is None:
            del out[key]
    for key in ("anyOf", "prefixItems"):
        if key in out:
            out[key] = [sort_named_properties(sub) for sub in out[key]]
    return out


# ---------------------------------------------------------------- the mcpidlc side

def mcpidlc_tools(mcpidlc, idl_path):
    p = subprocess.run([mcpidlc, "--print-tools", idl_path], capture_output=True, timeout=120)
    if p.returncode != 0:
        raise Fault("mcpidlc exited %d:\n%s" % (p.returncode, p.stderr.decode(errors="replace")))
    return json.loads(p.stdout.decode("utf-8"))


# ---------------------------------------------------------------- comparing

def differences(expected, actual):
    """Lines that say where mcpidlc's tools differ from pydantic's."""
    out = []
    if len(expected) != len(actual):
        return ["%d tools, pydantic %d" % (len(actual), len(expected))]
    for exp, act in zip(expected, actual):
        for key in ("name", "description", "inputSchema", "outputSchema"):
            if compact(exp.get(key)) != compact(act.get(key)):
                out.append("tool %r: %s\n  pydantic %s\n  mcpidlc  %s" % (exp["name"], key, compact(exp.get(key)),
                                                                         compact(act.get(key))))
    return out


class Checker:
    def __init__(self, mcpidlc, work):
        self.mcpidlc = mcpidlc
        self.work = work
        self.n = 0

    def check(self, prog):
        """None when both sides agree, else the lines of the differences; Fault
        when a side refuses the program."""
        self.n += 1
        path = os.path.join(self.work, "p%d.mcp.yaml" % (self.n % 2))
        with open(path, "w", encoding="utf-8") as f:
            f.write(gen.render_idl(prog))
        actual = mcpidlc_tools(self.mcpidlc, path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = python_tools(prog)
        return differences(expected, actual) or None

    def fails(self, prog):
        try:
            return self.check(prog) is not None
        except Fault:
            return False


def shrink(checker, prog, budget=3000):
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for cand in gen.shrink_steps(prog):
            tries += 1
            if checker.fails(cand):
                prog = cand
                progress = True
                break
            if tries >= budget:
                break
    return prog


def report(checker, seed, index, prog, diffs):
    small = shrink(checker, prog)
    print("MISMATCH in program %d of seed %s; it shrinks to this IDL:" % (index, seed))
    print(gen.render_idl(small))
    print("and the Python:")
    print(gen.render_python(small) + gen.render_signatures(small))
    try:
        print("\n".join(checker.check(small) or diffs))
    except Fault as e:
        print("\n".join(diffs), "\n", e)
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--seed", help="replay this run (default: a fresh seed)")
    ap.add_argument("--count", type=int, default=200, help="programs to compare (default 200)")
    ap.add_argument("--work", help="where the IDL files are written (default: a temporary folder)")
    ap.add_argument("--program", type=int, help="only program N of the run (with --seed)")
    ap.add_argument("--keep-going", action="store_true", help="go on after a mismatch")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else str(random.SystemRandom().randrange(10 ** 12))
    print("parity: seed %s (replay: --seed %s), %d programs" % (seed, seed, 1 if args.program is not None else args.count))
    sys.stdout.flush()
    with contextlib.ExitStack() as stack:
        work = args.work or stack.enter_context(tempfile.TemporaryDirectory(prefix="mcpidl-parity-"))
        os.makedirs(work, exist_ok=True)
        checker = Checker(args.mcpidlc, work)
        start = time.monotonic()
        tools = mismatches = faults = 0
        indices = [args.program] if args.program is not None else range(args.count)
        for i in indices:
            prog = gen.random_program(random.Random("%s:%d" % (seed, i)))
            tools += len(prog.tools)
            try:
                diffs = checker.check(prog)
            except Fault as e:
                faults += 1
                print("FAULT in program %d of seed %s: %s\n%s" % (i, seed, e, gen.render_idl(prog)))
                if not args.keep_going:
                    break
                continue
            if diffs:
                mismatches += 1
                report(checker, seed, i, prog, diffs)
                if not args.keep_going:
                    break
        print("parity: %d programs, %d tools compared in %.1f s; %d mismatches, %d faults"
              % (len(indices), tools, time.monotonic() - start, mismatches, faults))
    return 1 if mismatches or faults else 0


if __name__ == "__main__":
    sys.exit(main())
