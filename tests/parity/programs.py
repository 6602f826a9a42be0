"""Seeded random IDL programs, each with its equivalent Python, for the parity test.

A Program is a list of named types and a list of tools. random_program(rng)
builds a valid one at random; render_idl() writes it as a .mcp.yaml file, and
render_python() as the Python module a user of the MCP Python SDK would write
for it: the types in file order (models as BaseModel classes, records as
TypedDicts, enums as str or int Enums, every annotation a string so that a type
may refer to a later one), a field's JSON name as its alias, its title,
description and default in Field(), constraints in Annotated[T, Field(...)] on
the type they apply to. run.py builds the tools from that module as the SDK does.

What is generated stays inside what the IDL accepts (types finite and held by
reference where they recur, defaults that fit their types, constraints that some
value satisfies, C names that do not collide) and clear of what IDL.md lists as
deliberate differences, or applies them on the Python side:
  - a type's description is written without leading white space or tabs, so that
    the docstring pydantic cleans (inspect.cleandoc) is the text mcpidl trims;
  - a field's description is given to Python already trimmed (mcpidl trims every
    description, pydantic only docstrings);
  - a non-ASCII name that gets a derived title gets it explicitly in Python, as
    mcpidl derives it (ASCII case rules);
  - integers stay within int64, strings hold no NUL, patterns mean the same in
    Python's re and ECMA-262 (tests/diff/gen.py), sets have no repeats;
  - `Dict`, `List`, ... are written as `dict`, `list`, ... in Python (the IDL
    spells one type two ways; Python's typing.Dict return is wrapped, dict's not);
  - a record's TypedDict has a config of its own, with its `extra`;
  - type names are Python identifiers that shadow nothing the module uses;
  - no property is named `$ref`, which pydantic mistakes for a reference.
Every node keeps the spelling it was drawn with, so that a shrunk program prints
the same way.
"""
import builtins
import copy
import json
import keyword
import os
import re
from dataclasses import dataclass, field
from typing import Any, List, Optional


def _diff_gen():
    """tests/diff/gen.py, the differential validation test's value generator."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "diff", "gen.py")
    spec = importlib.util.spec_from_file_location("diff_gen", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_DIFF_GEN = _diff_gen()
RegexSampler, Unsat = _DIFF_GEN.RegexSampler, _DIFF_GEN.Unsat

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
class _NoDefault:
    """The default of a field without one (kept by copy.deepcopy)."""

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        return "NODEFAULT"


NODEFAULT = _NoDefault()

IDL_BUILTINS = {"int", "float", "str", "bool", "bytes", "None", "any", "content", "list", "set", "tuple", "dict",
                "Optional", "Union", "Literal", "True", "False", "Any", "List", "Dict", "Set", "Tuple", "server"}
PY_NAMES = {"Any", "Optional", "Union", "Literal", "Annotated", "TypedDict", "NotRequired", "Enum", "BaseModel",
            "ConfigDict", "Field", "ArgBase", "ArgBaseForbid"}
RESERVED_TYPE_NAMES = set(keyword.kwlist) | set(keyword.softkwlist) | set(dir(builtins)) | PY_NAMES | IDL_BUILTINS

C_KEYWORDS = {
    "_Alignas", "_Alignof", "_Atomic", "_BitInt", "_Bool", "_Complex", "_Decimal128", "_Decimal32", "_Decimal64",
    "_Generic", "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local", "alignas", "alignof", "asm", "auto",
    "bool", "break", "case", "char", "const", "constexpr", "continue", "default", "do", "double", "else", "enum",
    "extern", "false", "float", "for", "goto", "if", "inline", "int", "long", "nullptr", "register", "restrict",
    "return", "short", "signed", "sizeof", "static", "static_assert", "struct", "switch", "thread_local", "true",
    "typedef", "typeof", "typeof_unqual", "union", "unsigned", "void", "volatile", "while",
}

TYPE_NAMES = ["Point", "Address", "Weather", "Node", "Tree", "Item", "Color", "Level", "Tag", "Book", "A", "B", "C",
              "X1", "Data", "Model", "Result", "Output", "Arguments", "default", "properties", "required", "title",
              "_Private", "snake_type", "HTTPThing", "Value", "Entry", "Child", "Parent", "Left", "Right", "Unit",
              "Mode", "Kind", "Deep", "Inner", "Outer", "Pair", "Options", "Meta", "Record", "Thing"]
# schema_extra keys: annotations the IDL does not write (the ones it writes are
# refused), and inside their values keys out of order, 'properties' and
# 'default' among them (their objects keep their order).
EXTRA_KEYS = ["examples", "x-k", "$comment", "zeta", "x-order", "readOnly"]
EXTRA_INNER_KEYS = ["b", "a", "properties", "default", "z", "$id"]
FIELD_NAMES = ["name", "city", "value", "x", "y", "count", "tags", "items", "next", "children", "parent", "data",
               "snake_case_name", "cityName", "HTTPServer", "x1y2", "a__b", "class_", "_private", "__dunder",
               "default", "properties", "type", "title", "required", "enum", "int", "float", "result",
               "sort-by", "e.mail", "2fa", "with space", "trail_", " lead", "tab\tin", "\u001fx", "x\u001c",
               "caf\u00e9", "\u00e9t\u00e9_a", "stra\u00dfe", "\u4e2d\u6587", "nb\u00a0sp", "emoji\U0001F600",
               "a-b", "a_b", "A", "json", "copy", "model_dump", "schema", "validate", "on", "yes", "1"]
TOOL_NAMES = ["t", "get_weather", "files.read", "search-v2", "do_it", "Tool1", "x", "lookup", "a.b-c_d"]
WORDS = ["alpha", "beta", "gamma", "delta", "the", "city", "weather", "value", "of", "a", "an", "item", "list",
         "caf\u00e9", "\u4e2d", "x:", "#tag", "-dash", "'q'", '"dq"', "back\\slash", "50%", "{b}", "[s]"]
assert not RESERVED_TYPE_NAMES & set(TYPE_NAMES)
PATTERNS = [r"^[a-z]+$", r"\d", r"^x", r"a|b", r"^[A-Z]{2,3}$", r"^\w+$", r"[0-9]{3}", r"^(ab)+$", r"^.{1,4}$"]
FORMATS = ["email", "uri", "date-time", "uuid", "date"]
STRINGS = ["", "a", "red", "green", "x y", "caf\u00e9", "\u4e2d", "with 'q'", 'd"q', "1", "true", "null", "on",
           "a: b", "#", "-", "\U0001F600", "tab\t", "line\nbreak", "\u00a0", "back\\", "yes", "None"]


def title_mcpidl(name):
    """The title mcpidl derives from a name: Python's name.title().replace('_', ' ')
    .strip() with ASCII case rules (non-ASCII characters count as letters, except
    white space)."""
    out, prev = [], False
    for ch in name:
        if ch.isascii() and ch.isalpha():
            out.append(ch.lower() if prev else ch.upper())
            prev = True
        elif not ch.isascii():
            out.append(ch)
            prev = not ch.isspace()
        else:
            out.append(" " if ch == "_" else ch)
            prev = False
    return "".join(out).strip()


def c_ident(name):
    """The C name mcpidl derives from a JSON name (idl_c_ident)."""
    def reserved(s):
        return s[:1] == "_" and s[1:2] != "" and (s[1] == "_" or "A" <= s[1] <= "Z")
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name not in C_KEYWORDS and not reserved(name):
        return name
    t = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    if not t or t[0].isdigit() or reserved(t) or (t[0] == "_" and not ("a" <= t[1:2] <= "z")):
        t = "f_" + t
    if t in C_KEYWORDS:
        t += "_"
    return t


# ---------------------------------------------------------------- the program

@dataclass
class Ty:
    k: str                      # int float str bool bytes None any list set tuplev tuple dict union optional literal named
    args: List["Ty"] = field(default_factory=list)
    key: str = "str"            # dict: str | int
    vals: list = field(default_factory=list)   # literal: str, int, bool, None
    name: str = ""              # named
    sp: str = ""                # spelling: List, Dict, Tuple, Set, Any, Union, |, ...


@dataclass
class Fld:
    name: str
    ty: Ty
    title: Optional[str] = None
    desc: Optional[str] = None
    desc_style: str = "dq"
    default: Any = NODEFAULT
    default_style: int = 0
    required: bool = True       # records: False for `required: false`
    cons: dict = field(default_factory=dict)
    c_name: Optional[str] = None
    form: str = "block"         # short | flow | block
    extra: Optional[dict] = None  # schema_extra (json_schema_extra)


@dataclass
class Def:
    name: str
    kind: str                   # model | record | enum
    desc: Optional[str] = None
    desc_style: str = "dq"
    forbid: bool = False
    fields: List[Fld] = field(default_factory=list)
    values: list = field(default_factory=list)
    extra: Optional[dict] = None  # schema_extra (model_config json_schema_extra)


@dataclass
class Tool:
    name: str
    desc: str
    params: List[Fld] = field(default_factory=list)
    forbid: bool = False
    ret: Any = None             # a Ty, or "content"
    ret_title: Optional[str] = None
    ret_desc: Optional[str] = None
    ret_cons: dict = field(default_factory=dict)
    structured: Any = None      # None (left out), "auto", True, False


@dataclass
class Program:
    types: List[Def]
    tools: List[Tool]

    def find(self, name):
        return next(d for d in self.types if d.name == name)


def walk(t):
    yield t
    for a in t.args:
        yield from walk(a)


def strip_optional(t):
    """The type a constraint applies to: T of Optional[T], else t."""
    if t.k == "optional":
        return t.args[0]
    if t.k == "union" and len(t.args) == 2 and t.args[1].k == "None":
        return t.args[0]
    return t


# ---------------------------------------------------------------- random generation

class Gen:
    def __init__(self, rng):
        self.r = rng

    def chance(self, p):
        return self.r.random() < p

    # ---- names and texts

    def text(self, multiline=False):
        r = self.r
        words = [r.choice(WORDS) for _ in range(r.randint(1, 5))]
        s = " ".join(words)
        if multiline and self.chance(0.3):
            s += r.choice(["\n", "\n\n"]) + " ".join(r.choice(WORDS) for _ in range(r.randint(1, 3)))
        return s

    def string(self, lo=0, hi=None):
        r = self.r
        if hi is not None and hi < lo:
            hi = lo
        for _ in range(20):
            s = r.choice(STRINGS) if self.chance(0.6) else "".join(
                r.choice("abcXYZ019 _-\u00e9\u4e2d\U0001F600") for _ in range(r.randint(0, 6)))
            if lo <= len(s) and (hi is None or len(s) <= hi):
                return s
        n = lo if hi is None else r.randint(lo, hi)
        return "".join(r.choice("abc\u00e9") for _ in range(n))

    # ---- the program

    def program(self):
        r = self.r
        names = r.sample(TYPE_NAMES, r.randint(0, 8))
        kinds = {n: r.choices(["model", "record", "enum"], [55, 25, 20])[0] for n in names}
        # Plain (by value) references go down a random rank, so that no type
        # holds itself by value; references inside a list, dict or Optional go
        # anywhere (self and mutual recursion).
        rank = {n: i for i, n in enumerate(r.sample(names, len(names)))}
        self.kinds, self.rank = kinds, rank
        types = []
        for n in names:
            d = Def(n, kinds[n])
            if self.chance(0.3):
                d.desc = self.text(multiline=True)
                d.desc_style = r.choice(["dq", "plain", "block", "block_lead"])
            if kinds[n] == "enum":
                if self.chance(0.5):
                    d.values = list(dict.fromkeys(r.choice(STRINGS) for _ in range(r.randint(1, 4))))
                else:
                    d.values = list(dict.fromkeys(r.choice([0, 1, 2, -7, 10, 2 ** 40, INT64_MIN])
                                                  for _ in range(r.randint(1, 4))))
            else:
                d.forbid = self.chance(0.2)
                d.fields = self.fields(r.randint(0, 4), owner=n, record=kinds[n] == "record")
                if self.chance(0.15):
                    d.extra = self.schema_extra()
            types.append(d)
        # A field that refers to a type may repeat a key of the type's own
        # schema_extra, which pydantic then drops as it drops an equal title.
        for d in types:
            for f in d.fields:
                if f.extra is not None and f.ty.k == "named" and self.chance(0.5):
                    own = next(x for x in types if x.name == f.ty.name).extra
                    if own:
                        k = r.choice(sorted(own))
                        f.extra[k] = copy.deepcopy(own[k])
        tools = []
        used_c = set()
        for name in r.sample(TOOL_NAMES, r.randint(1, 4)):
            if c_ident(name) in used_c:
                continue
            used_c.add(c_ident(name))
            tools.append(self.tool(name))
        prog = Program(types, tools)
        fix_c_names(prog)
        return prog

    def tool(self, name):
        r = self.r
        t = Tool(name, self.text())
        t.params = self.fields(r.randint(0, 4), owner=None, record=False, params=True)
        t.forbid = self.chance(0.15)
        x = r.random()
        if x < 0.06:
            t.ret = "content"
        else:
            t.ret = self.ty(0, owner=None, direct=True)
            if self.chance(0.25) and not self.unwrapped(t.ret):
                if self.chance(0.5):
                    t.ret_desc = self.text()
                if self.chance(0.4):
                    t.ret_title = r.choice(["Res", "Result", "Value", "\u00e9"])
                if self.chance(0.4):
                    t.ret_cons = self.constraints(t.ret)
        t.structured = r.choice([None, None, None, "auto", True, False]) if t.ret != "content" else \
            r.choice([None, "auto", False])
        return t

    def json_value(self, depth=0):
        """A JSON value for a schema_extra: nested objects with keys out of order."""
        r = self.r
        x = r.random()
        if depth < 2 and x < 0.2:
            return {k: self.json_value(depth + 1) for k in r.sample(EXTRA_INNER_KEYS, r.randint(0, 3))}
        if depth < 2 and x < 0.35:
            return [self.json_value(depth + 1) for _ in range(r.randint(0, 3))]
        return r.choice([0, 1, -5, 2 ** 40, 1.5, True, False, None, "", "x", "caf\u00e9", "a b"])

    def schema_extra(self):
        r = self.r
        return {k: self.json_value() for k in r.sample(EXTRA_KEYS, r.randint(1, 3))}

    def unwrapped(self, t):
        t = normalized(t)
        return (t.k == "named" and self.kinds[t.name] != "enum") or (t.k == "dict" and t.key == "str")

    def fields(self, n, owner, record, params=False):
        r = self.r
        out, seen = [], set()
        for _ in range(n):
            name = r.choice(FIELD_NAMES)
            if name in seen or (params and name.startswith("_")):
                continue
            seen.add(name)
            f = Fld(name, self.ty(0, owner=owner, direct=True, named=0.3))
            if self.chance(0.3):
                f.cons = self.constraints(f.ty)
            if self.chance(0.25):
                f.desc = self.text(multiline=True)
                f.desc_style = r.choice(["dq", "plain", "block", "block_lead", "block_trail"])
            if self.chance(0.12):
                f.title = r.choice(["Custom", "", "T\u00e9", f.name, "Point", "Color", "B"])
                if f.ty.k == "named" and self.chance(0.5):
                    f.title = f.ty.name
            if f.ty.k == "named" and self.chance(0.4):
                if self.chance(0.5):
                    f.title = f.ty.name  # equal to the definition's own title
                else:
                    f.desc = "shared description"  # often made the type's own (shared_descriptions)
            if self.chance(0.12):
                f.extra = self.schema_extra()
            if record:
                f.required = not self.chance(0.3)
            elif self.chance(0.35):
                try:
                    f.default = ValueGen(self).value(f.ty, f.cons, 0)
                    f.default_style = r.randint(0, 3)
                except Unsat:
                    pass
            f.form = "short" if not (f.cons or f.desc is not None or f.title is not None or f.extra is not None or
                                     f.default is not NODEFAULT or not f.required) and self.chance(0.6) else \
                r.choice(["flow", "block"])
            out.append(f)
        return out

    def constraints(self, t):
        r = self.r
        base = strip_optional(t)
        c = {}
        if base.k in ("int", "float"):
            isint = base.k == "int"
            lo = r.randint(-100, 50)
            hi = lo + r.randint(1, 200)
            if self.chance(0.5):
                c["exclusiveMinimum" if self.chance(0.3) else "minimum"] = lo if isint or self.chance(0.5) else lo + 0.5
            if self.chance(0.5):
                c["exclusiveMaximum" if self.chance(0.3) else "maximum"] = hi if isint or self.chance(0.5) else hi + 0.25
            if self.chance(0.25) and not ({"minimum", "exclusiveMinimum"} & set(c) and
                                          {"maximum", "exclusiveMaximum"} & set(c)):
                c["multipleOf"] = r.choice([1, 2, 5]) if isint else r.choice([0.5, 2, 0.25])
        elif base.k in ("str", "bytes"):
            if self.chance(0.5):
                c["minLength"] = r.randint(0, 3)
            if self.chance(0.5):
                c["maxLength"] = c.get("minLength", 0) + r.randint(0, 6)
            if base.k == "str" and self.chance(0.3):
                c["pattern"] = r.choice(PATTERNS)
                c.pop("maxLength", None)
                c.pop("minLength", None)
            if base.k == "str" and self.chance(0.2):
                c["format"] = r.choice(FORMATS)
        elif base.k in ("list", "set", "tuplev"):
            if self.chance(0.5):
                c["minItems"] = r.randint(0, 2)
            if self.chance(0.5):
                c["maxItems"] = c.get("minItems", 0) + r.randint(0, 3)
        return c

    def ty(self, depth, owner, direct, named=0.0):
        """A type expression (a named type with at least probability `named`).
        `direct`: a value of it is held by value, so a named type in it must rank
        below `owner` (unless inside a list, dict or Optional)."""
        r = self.r
        kinds = ["int", "float", "str", "bool", "bytes", "None", "any", "literal", "named", "named",
                 "list", "set", "tuplev", "tuple", "dict", "union", "optional"]
        if depth >= 3:
            kinds = kinds[:9]
        if not direct:
            kinds = kinds + ["named"] * 4  # recursion, self and mutual
        for attempt in range(20):
            k = "named" if attempt == 0 and self.chance(named) else r.choice(kinds)
            if k == "named":
                cands = [n for n in self.kinds if not direct or owner is None or self.kinds[n] == "enum" or
                         self.rank[n] < self.rank[owner]]
                if not cands:
                    continue
                return Ty("named", name=r.choice(cands))
            if k == "literal":
                vals = list(dict.fromkeys(
                    (type(v), v) for v in (r.choice(["a", "b", "x y", "\u00e9", "", 0, 1, -5, 2 ** 62, True, False, None])
                                           for _ in range(r.randint(1, 3)))))
                return Ty("literal", vals=[v for _, v in vals])
            if k in ("list", "set", "tuplev"):
                sp = {"list": ["list", "List"], "set": ["set", "Set"], "tuplev": ["tuple", "Tuple"]}[k]
                return Ty(k, [self.ty(depth + 1, owner, False)], sp=r.choice(sp))
            if k == "tuple":
                return Ty(k, [self.ty(depth + 1, owner, direct) for _ in range(r.randint(1, 3))],
                          sp=r.choice(["tuple", "Tuple"]))
            if k == "dict":
                return Ty(k, [self.ty(depth + 1, owner, False)], key=r.choice(["str", "str", "int"]),
                          sp=r.choice(["dict", "Dict"]))
            if k == "optional":
                return Ty(k, [self.ty(depth + 1, owner, False)], sp=r.choice(["Optional", "|None", "Union"]))
            if k == "union":
                arms = [self.ty(depth + 1, owner, direct) for _ in range(r.randint(2, 4))]
                return Ty(k, arms, sp=r.choice(["|", "Union"]))
            return Ty(k, sp=r.choice(["any", "Any"]) if k == "any" else "")
        return Ty("int")


def fix_c_names(prog):
    """Give a c_name to fields whose derived C names collide (or collide with a
    record's presence flag), and avoid type names that are generated C names."""
    for owner in [d.fields for d in prog.types] + [t.params for t in prog.tools]:
        taken = set()
        for f in owner:
            if f.c_name:
                taken.add(f.c_name)
        for i, f in enumerate(owner):
            c = f.c_name or c_ident(f.name)
            flag = "has_" + c
            if c in taken and not f.c_name or flag in taken:
                c = "m%d_" % i
                f.c_name = c
            taken.add(c)
            if not f.required:
                taken.add("has_" + c)
    tool_c = {c_ident(t.name) for t in prog.tools}
    tool_c |= {c + "_args" for c in tool_c}
    for d in list(prog.types):
        if d.name in tool_c:
            rename_type(prog, d.name, d.name + "_T")


def rename_type(prog, old, new):
    for d in prog.types:
        if d.name == old:
            d.name = new
        for f in d.fields:
            for t in walk(f.ty):
                if t.k == "named" and t.name == old:
                    t.name = new
    for tool in prog.tools:
        tys = [f.ty for f in tool.params] + ([tool.ret] if isinstance(tool.ret, Ty) else [])
        for ty in tys:
            for t in walk(ty):
                if t.k == "named" and t.name == old:
                    t.name = new


# ---------------------------------------------------------------- values (defaults)

class ValueGen:
    """A value of a type that mcpidl accepts as a default (strict: no coercion)."""

    def __init__(self, g):
        self.g = g
        self.r = g.r

    def value(self, t, cons, depth):
        r = self.r
        k = t.k
        if depth > 4:
            raise Unsat("deep")
        if k == "optional":
            if self.g.chance(0.5) or depth > 2:
                return None
            return self.value(t.args[0], cons, depth + 1)
        if k == "union":
            arms = list(t.args)
            r.shuffle(arms)
            for a in arms:
                try:
                    return self.value(a, cons if strip_optional(t) is not t else {}, depth + 1)
                except Unsat:
                    continue
            raise Unsat("union")
        if k == "int":
            return self.number(cons, True)
        if k == "float":
            return self.number(cons, False)
        if k == "str":
            if "pattern" in cons:
                return RegexSampler(cons["pattern"], r).sample()
            return self.g.string(cons.get("minLength", 0), cons.get("maxLength"))
        if k == "bytes":
            return self.g.string(cons.get("minLength", 0), cons.get("maxLength"))
        if k == "bool":
            return r.choice([True, False])
        if k == "None":
            return None
        if k == "any":
            return r.choice([None, 1, "s", [1, "a"], {"z": 1, "a": {"y": True}}, 1.5])
        if k == "literal":
            return r.choice(t.vals)
        if k in ("list", "set", "tuplev"):
            lo = cons.get("minItems", 0)
            hi = cons.get("maxItems", lo + 2)
            n = r.randint(lo, min(hi, lo + 2)) if depth < 2 else lo
            out = []
            for _ in range(n * 3 + 3):
                if len(out) == n:
                    break
                v = self.value(t.args[0], {}, depth + 1)
                if k == "set" and any(same_value(v, w) for w in out):
                    continue
                out.append(v)
            if len(out) < n:
                raise Unsat("set items")
            return out
        if k == "tuple":
            return [self.value(a, {}, depth + 1) for a in t.args]
        if k == "dict":
            n = r.randint(0, 2) if depth < 2 else 0
            keys = [str(r.choice([0, 1, -3, 42, 2 ** 40])) if t.key == "int" else self.g.string()
                    for _ in range(n)]
            return {kk: self.value(t.args[0], {}, depth + 1) for kk in dict.fromkeys(keys)}
        raise Unsat(k)  # named types: see named_values

    def number(self, cons, isint):
        r = self.r
        lo = cons.get("minimum", cons.get("exclusiveMinimum", -1000))
        hi = cons.get("maximum", cons.get("exclusiveMaximum", 1000))
        m = cons.get("multipleOf")
        for _ in range(50):
            if isint:
                v = r.randint(int(lo) - 1, int(hi) + 1) if self.g.chance(0.9) else r.choice([0, INT64_MAX, INT64_MIN])
            else:
                v = r.choice([r.randint(int(lo) - 1, int(hi) + 1), round(r.uniform(lo, hi), 3), 0.5, 1e-7, 1e16])
            if m is not None:
                v = round(v / m) * m
                if isint:
                    v = int(v)
            if fits_number(v, cons) and (not isint or INT64_MIN <= v <= INT64_MAX):
                return v
        raise Unsat("number")


def fits_number(v, c):
    return (("minimum" not in c or v >= c["minimum"]) and ("maximum" not in c or v <= c["maximum"]) and
            ("exclusiveMinimum" not in c or v > c["exclusiveMinimum"]) and
            ("exclusiveMaximum" not in c or v < c["exclusiveMaximum"]) and
            ("multipleOf" not in c or (v / c["multipleOf"]) == int(v / c["multipleOf"])))


def same_value(a, b):
    """Equal as JSON or as Python sees them (the stricter for set items)."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True) or a == b


def named_values(prog, gen, rng):
    """Defaults of named types: enum values, and model and record objects with
    their required fields (drawn after the program exists)."""
    vg = ValueGen(gen)

    def obj(t, depth):
        if t.k == "named":
            d = prog.find(t.name)
            if d.kind == "enum":
                return rng.choice(d.values)
            if depth > 2:
                raise Unsat("deep object")
            out = {}
            for f in d.fields:
                need = (d.kind == "model" and f.default is NODEFAULT) or (d.kind == "record" and f.required)
                if need or rng.random() < 0.3:
                    out[f.name] = any_value(f.ty, f.cons, depth + 1)
            return out
        raise Unsat(t.k)

    def any_value(t, cons, depth):
        if t.k == "named":
            return obj(t, depth)
        if t.k in ("list", "set", "tuplev", "dict", "optional", "union", "tuple"):
            if any(x.k == "named" for x in walk(t)):
                return composite(t, cons, depth)
        return vg.value(t, cons, depth)

    def composite(t, cons, depth):
        k = t.k
        if k == "optional":
            return None if rng.random() < 0.6 else any_value(t.args[0], cons, depth + 1)
        if k == "union":
            arms = list(t.args)
            rng.shuffle(arms)
            for a in arms:
                try:
                    return any_value(a, {}, depth + 1)
                except Unsat:
                    continue
            raise Unsat("union")
        if k in ("list", "set", "tuplev"):
            n = cons.get("minItems", 0)
            items = []
            for _ in range(n):
                v = any_value(t.args[0], {}, depth + 1)
                if k == "set" and any(same_value(v, w) for w in items):
                    raise Unsat("set")
                items.append(v)
            return items
        if k == "tuple":
            return [any_value(a, {}, depth + 1) for a in t.args]
        if k == "dict":
            return {}
        raise Unsat(k)

    owners = [(d.kind == "model", d.fields) for d in prog.types] + [(True, t.params) for t in prog.tools]
    for takes_defaults, fields in owners:
        for f in fields:
            if not takes_defaults or f.default is not NODEFAULT or rng.random() > 0.3:
                continue
            if not any(x.k == "named" for x in walk(f.ty)):
                continue
            try:
                f.default = any_value(f.ty, f.cons, 0)
                f.default_style = rng.randint(0, 3)
                if f.form == "short":
                    f.form = "block"
            except (Unsat, RecursionError):
                pass


def shared_descriptions(prog, rng):
    """A field of a named type whose description (or title) equals the type's own:
    pydantic drops such a $ref sibling only when the definition is generated first."""
    for d in prog.types:
        if d.desc is None and rng.random() < 0.5:
            d.desc = "shared description"
            d.desc_style = "dq"
    for owner in [d.fields for d in prog.types] + [t.params for t in prog.tools]:
        for f in owner:
            if f.desc == "shared description" and f.ty.k == "named":
                target = prog.find(f.ty.name)
                if target.desc is not None and rng.random() < 0.7:
                    f.desc = target.desc


def random_program(rng):
    g = Gen(rng)
    prog = g.program()
    named_values(prog, g, rng)
    shared_descriptions(prog, rng)
    return prog


# ---------------------------------------------------------------- YAML

PLAIN_OK = re.compile(r"[A-Za-z_][A-Za-z0-9_ .-]*")
YAML_SPECIAL = re.compile(r"(?i)(true|false|null|~|\.inf|\.nan|[-+]?(\d|\.\d|0x|0o).*)")


def yq(s):
    """A YAML double-quoted scalar for any string."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def ys(s):
    """A string as a YAML scalar, plain when that reads back the same."""
    if PLAIN_OK.fullmatch(s) and not YAML_SPECIAL.fullmatch(s) and not s.endswith(" ") and s[:1] not in "-":
        return s
    return yq(s)


def yaml_number(v, style):
    """An integer in one of YAML's spellings (decimal, hex, octal), or a float."""
    if isinstance(v, float):
        return repr(v)
    if v < 0:
        return str(v)
    return [str(v), hex(v), "0o%o" % v, str(v)][style % 4]


def yaml_value(v, style):
    """A JSON value in YAML flow style (with a few spellings of numbers)."""
    if v is None:
        return ["null", "~", "null", "Null"][style % 4]
    if v is True or v is False:
        return ["true", "True", "TRUE", "true"][style % 4] if v else ["false", "False", "FALSE", "false"][style % 4]
    if isinstance(v, (int, float)):
        return yaml_number(v, style)
    if isinstance(v, str):
        return yq(v)
    if isinstance(v, list):
        return "[" + ", ".join(yaml_value(x, style) for x in v) + "]"
    return "{" + ", ".join("%s: %s" % (yq(k), yaml_value(x, style)) for k, x in v.items()) + "}"


def yaml_json(v):
    """A JSON value written as YAML flow (JSON is YAML 1.2)."""
    return json.dumps(v)


def idl_lit(v):
    if v is None:
        return "None"
    if v is True:
        return "True"
    if v is False:
        return "False"
    if isinstance(v, int):
        return str(v)
    out = ["'"]
    for ch in v:
        if ch in "\\'":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)


def texpr(t):
    """The IDL spelling of a type expression."""
    k = t.k
    if k in ("int", "float", "str", "bool", "bytes", "None"):
        return k
    if k == "any":
        return t.sp or "any"
    if k in ("list", "set"):
        return "%s[%s]" % (t.sp or k, texpr(t.args[0]))
    if k == "tuplev":
        return "%s[%s, ...]" % (t.sp or "tuple", texpr(t.args[0]))
    if k == "tuple":
        return "%s[%s]" % (t.sp or "tuple", ", ".join(texpr(a) for a in t.args))
    if k == "dict":
        return "%s[%s, %s]" % (t.sp or "dict", t.key, texpr(t.args[0]))
    if k == "optional":
        if t.sp == "|None":
            return "%s | None" % paren(t.args[0])
        if t.sp == "Union":
            return "Union[%s, None]" % texpr(t.args[0])
        return "Optional[%s]" % texpr(t.args[0])
    if k == "union":
        if t.sp == "Union":
            return "Union[%s]" % ", ".join(texpr(a) for a in t.args)
        return " | ".join(paren(a) for a in t.args)
    if k == "literal":
        return "Literal[%s]" % ", ".join(idl_lit(v) for v in t.vals)
    if k == "named":
        return t.name
    raise ValueError(k)


def paren(t):
    s = texpr(t)
    return "(%s)" % s if t.k in ("union",) and t.sp != "Union" or (t.k == "optional" and t.sp == "|None") else s


def yaml_desc(text, style, indent):
    """A description in one of several YAML spellings; mcpidl trims what it reads."""
    pad = " " * indent
    if style == "plain" and PLAIN_OK.fullmatch(text) and not YAML_SPECIAL.fullmatch(text) and "\n" not in text:
        return text
    if style.startswith("block"):
        lines = text.split("\n")
        body = "".join("\n" + (pad + ln if ln else "") for ln in lines)
        lead = "\n" if style == "block_lead" else ""
        if style == "block_lead":
            body = "\n" + body
        trail = "\n" if style == "block_trail" else ""
        if any(ln[:1] == " " for ln in lines) or lead and lines[0][:1] == " ":
            return yq(text + ("  \n" if trail else ""))
        return ("|+" if trail else "|") + body + trail
    return yq(text + ("  " if style == "block_trail" else ""))


def render_field(f, indent, record, lines):
    pad = " " * indent
    key = ys(f.name)
    if f.form == "short" and not f.c_name:
        lines.append("%s%s: %s" % (pad, key, ys(texpr(f.ty))))
        return
    items = [("type", yq(texpr(f.ty)))]
    if f.title is not None:
        items.append(("title", yq(f.title)))
    if f.default is not NODEFAULT:
        items.append(("default", yaml_value(f.default, f.default_style)))
    if not f.required:
        items.append(("required", "false"))
    for ck, cv in f.cons.items():
        items.append((ck, yq(cv) if isinstance(cv, str) else yaml_number(cv, 0)))
    if f.c_name:
        items.append(("c_name", f.c_name))
    if f.extra is not None:
        items.append(("schema_extra", yaml_json(f.extra)))
    if f.form == "flow" and (f.desc is None or f.desc_style != "block"):
        if f.desc is not None:
            items.append(("description", yq(f.desc)))
        lines.append("%s%s: {%s}" % (pad, key, ", ".join("%s: %s" % kv for kv in items)))
        return
    lines.append("%s%s:" % (pad, key))
    for k, v in items:
        lines.append("%s  %s: %s" % (pad, k, v))
    if f.desc is not None:
        lines.append("%s  description: %s" % (pad, yaml_desc(f.desc, f.desc_style, indent + 4)))


def render_idl(prog, server="parity"):
    lines = ["mcpidl: 1", "server: {name: %s, version: \"1.0.0\"}" % server]
    if prog.types:
        lines.append("types:")
    for d in prog.types:
        lines.append("  %s:" % d.name)
        if d.kind != "model" or not d.fields and d.desc is None and not d.forbid:
            lines.append("    kind: %s" % d.kind)
        if d.desc is not None:
            lines.append("    description: %s" % yaml_desc(d.desc, d.desc_style, 6))
        if d.kind == "enum":
            lines.append("    values: [%s]" % ", ".join(yq(v) if isinstance(v, str) else str(v) for v in d.values))
            continue
        if d.forbid:
            lines.append("    extra: forbid")
        if d.extra is not None:
            lines.append("    schema_extra: %s" % yaml_json(d.extra))
        if not d.fields:
            lines.append("    fields: {}")
            continue
        lines.append("    fields:")
        for f in d.fields:
            render_field(f, 6, d.kind == "record", lines)
    if prog.tools:
        lines.append("tools:")
    for t in prog.tools:
        lines.append("  %s:" % ys(t.name))
        lines.append("    description: %s" % yq(t.desc))
        if t.params:
            lines.append("    params:")
            for f in t.params:
                render_field(f, 6, False, lines)
        if t.forbid:
            lines.append("    extra: forbid")
        if t.ret == "content":
            lines.append("    returns: content")
        elif t.ret_title is None and t.ret_desc is None and not t.ret_cons:
            lines.append("    returns: %s" % yq(texpr(t.ret)))
        else:
            lines.append("    returns:")
            lines.append("      type: %s" % yq(texpr(t.ret)))
            if t.ret_title is not None:
                lines.append("      title: %s" % yq(t.ret_title))
            if t.ret_desc is not None:
                lines.append("      description: %s" % yq(t.ret_desc))
            for ck, cv in t.ret_cons.items():
                lines.append("      %s: %s" % (ck, yq(cv) if isinstance(cv, str) else yaml_number(cv, 0)))
        if t.structured is not None:
            lines.append("    structured_output: %s" % ("auto" if t.structured == "auto" else
                                                        "true" if t.structured else "false"))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- Python

def py_type(t):
    """The Python annotation (source text) of a type expression."""
    k = t.k
    if k in ("int", "float", "str", "bool", "bytes", "None"):
        return k
    if k == "any":
        return "Any"
    if k in ("list", "set"):
        return "%s[%s]" % (k, py_type(t.args[0]))
    if k == "tuplev":
        return "tuple[%s, ...]" % py_type(t.args[0])
    if k == "tuple":
        return "tuple[%s]" % ", ".join(py_type(a) for a in t.args)
    if k == "dict":
        return "dict[%s, %s]" % (t.key, py_type(t.args[0]))
    if k == "optional":
        return "Optional[%s]" % py_type(t.args[0])
    if k == "union":
        return "Union[%s]" % ", ".join(py_type(a) for a in t.args)
    if k == "literal":
        return "Literal[%s]" % ", ".join(repr(v) for v in t.vals)
    if k == "named":
        return t.name
    raise ValueError(k)


PY_CONSTRAINT = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt",
                 "multipleOf": "multiple_of", "minLength": "min_length", "maxLength": "max_length",
                 "minItems": "min_length", "maxItems": "max_length", "pattern": "pattern"}


def py_constrained(t, cons):
    """The annotation with the constraints on the type they apply to."""
    if not cons:
        return py_type(t)
    args = ", ".join("%s=%r" % (PY_CONSTRAINT[k], v) for k, v in cons.items() if k != "format")
    if "format" in cons:
        args += (", " if args else "") + "json_schema_extra={'format': %r}" % cons["format"]
    base = strip_optional(t)
    inner = "Annotated[%s, Field(%s)]" % (py_type(base), args)
    return "Optional[%s]" % inner if base is not t else inner


def canon(t):
    """A key equal for types Python sees as equal (spellings aside, a union's arms
    and a Literal's values as sets)."""
    if t.k in ("union", "optional"):
        return "Union[%s]" % ", ".join(sorted({canon(a) for a in arms(t)}))
    if t.k == "literal":
        return "Literal[%s]" % ", ".join(sorted({repr((type(v).__name__, v)) for v in t.vals}))
    if t.args:
        return "%s[%s%s]" % (t.k, t.key + ", " if t.k == "dict" else "", ", ".join(canon(a) for a in t.args))
    return t.name or t.k


def arms(t):
    """The arms of a union as Python flattens it (a non-union: itself)."""
    if t.k in ("union", "optional"):
        out = [a for x in t.args for a in arms(x)]
        return out + [Ty("None")] if t.k == "optional" else out
    return [t]


def distinct_arms(t):
    """A union's arms as Python keeps them: repeats dropped."""
    kept = {}
    for a in arms(t):
        kept.setdefault(canon(a), a)
    return list(kept.values())


def normalized(t):
    """t, or the one arm a union of repeats comes down to."""
    d = distinct_arms(t)
    return d[0] if len(d) == 1 else t


def ref_like(t):
    """Whether pydantic gives the property no derived title: a named type, or
    Optional of one."""
    d = distinct_arms(t)
    rest = [a for a in d if a.k != "None"]
    return len(rest) == 1 and rest[0].k == "named"


def py_field_args(f):
    """Field(...) keywords for a field's title and description."""
    args = []
    title = f.title
    if title is None and not f.name.isascii() and not ref_like(f.ty):
        title = title_mcpidl(f.name)  # mcpidl's ASCII case rules (IDL.md: differences)
    if title is not None:
        args.append("title=%r" % title)
    if f.desc is not None:
        args.append("description=%r" % f.desc)
    if f.extra is not None:
        args.append("json_schema_extra=%r" % f.extra)
    return args


def render_python(prog):
    out = ["from typing import Annotated, Any, Literal, Optional, Union",
           "from enum import Enum",
           "from typing_extensions import NotRequired, TypedDict",
           "from pydantic import BaseModel, ConfigDict, Field", ""]
    for d in prog.types:
        if d.kind == "enum":
            mixin = "str" if d.values and isinstance(d.values[0], str) else "int"
            out.append("class %s(%s, Enum):" % (d.name, mixin))
            if d.desc is not None:
                out.append("    __doc__ = %r" % d.desc)
            for i, v in enumerate(d.values):
                out.append("    m%d = %r" % (i, v))
            out.append("")
        elif d.kind == "model":
            out.append("class %s(BaseModel):" % d.name)
            if d.desc is not None:
                out.append("    __doc__ = %r" % d.desc)
            if d.forbid or d.extra is not None:
                out.append("    model_config = ConfigDict(%s)" % ", ".join(
                    (["extra='forbid'"] if d.forbid else []) +
                    (["json_schema_extra=%r" % d.extra] if d.extra is not None else [])))
            for i, f in enumerate(d.fields):
                args = ([repr(f.default)] if f.default is not NODEFAULT else []) + ["alias=%r" % f.name] + \
                    py_field_args(f)
                out.append("    f%d: %r = Field(%s)" % (i, py_constrained(f.ty, f.cons), ", ".join(args)))
            if not d.fields:
                out.append("    pass")
            out.append("")
        else:
            items = []
            for f in d.fields:
                ann = py_constrained(f.ty, f.cons)
                fa = py_field_args(f)
                if fa:
                    ann = "Annotated[%s, Field(%s)]" % (ann, ", ".join(fa))
                if not f.required:
                    ann = "NotRequired[%s]" % ann
                items.append("%r: %r" % (f.name, ann))
            out.append("%s = TypedDict(%r, {%s})" % (d.name, d.name, ", ".join(items)))
            if d.desc is not None:
                out.append("%s.__doc__ = %r" % (d.name, d.desc))
            # A TypedDict without a config of its own takes the `extra` of the model
            # it is used in; a record's `extra` is its own (docs/idl.md: differences).
            out.append("%s.__pydantic_config__ = ConfigDict(extra=%r%s)" % (
                d.name, "forbid" if d.forbid else "ignore",
                ", json_schema_extra=%r" % d.extra if d.extra is not None else ""))
            out.append("")
    return "\n".join(out) + "\n"


def param_annotation(f):
    """A parameter's annotation as the SDK builds it: Annotated[T, Field(alias, ...)]."""
    return "Annotated[%s, Field(%s)]" % (py_constrained(f.ty, f.cons), ", ".join(["alias=%r" % f.name] +
                                                                               py_field_args(f)))


def return_annotation(t):
    """A tool's return annotation: the title, description and constraints of a
    `returns` mapping go into Annotated[T, Field(...)]."""
    ann = py_constrained(t.ret, t.ret_cons)
    args = []
    if t.ret_title is not None:
        args.append("title=%r" % t.ret_title)
    if t.ret_desc is not None:
        args.append("description=%r" % t.ret_desc)
    return "Annotated[%s, Field(%s)]" % (ann, ", ".join(args)) if args else ann


def render_signatures(prog):
    """The tools as the SDK sees their functions, as comments: each parameter
    under a Python name with its JSON name as alias, and the return annotation."""
    out = []
    for t in prog.tools:
        params = ", ".join("f%d: %s%s" % (i, param_annotation(f), " = %r" % (f.default,) if f.default is not NODEFAULT
                                        else "") for i, f in enumerate(t.params))
        ret = "content" if t.ret == "content" else return_annotation(t)
        out.append("# %s(%s) -> %s%s" % (t.name, params, ret, "  (structured_output=False)" if t.structured is False
                                       else ""))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- shrinking

def shrink_steps(prog):
    """Smaller variants of a program, most promising first."""
    for i in range(len(prog.tools)):
        p = copy.deepcopy(prog)
        del p.tools[i]
        yield p
    for i, d in enumerate(prog.types):
        if not any(t.k == "named" and t.name == d.name for t in all_types(prog)):
            p = copy.deepcopy(prog)
            del p.types[i]
            yield p
    owners = [("type", i) for i in range(len(prog.types))] + [("tool", i) for i in range(len(prog.tools))]
    for kind, i in owners:
        fields = prog.types[i].fields if kind == "type" else prog.tools[i].params
        for j in range(len(fields)):
            p = copy.deepcopy(prog)
            del (p.types[i].fields if kind == "type" else p.tools[i].params)[j]
            yield p
        for j, f in enumerate(fields):
            for attr, empty in (("default", NODEFAULT), ("desc", None), ("title", None), ("cons", {}),
                                ("c_name", None), ("required", True), ("extra", None)):
                if getattr(f, attr) is not empty and getattr(f, attr) != empty:
                    p = copy.deepcopy(prog)
                    setattr((p.types[i].fields if kind == "type" else p.tools[i].params)[j], attr, empty)
                    yield p
            for sub in simpler_types(f.ty):
                p = copy.deepcopy(prog)
                g = (p.types[i].fields if kind == "type" else p.tools[i].params)[j]
                g.ty, g.default, g.cons = sub, NODEFAULT, {}
                yield p
    for i, t in enumerate(prog.tools):
        for attr, empty in (("ret_title", None), ("ret_desc", None), ("ret_cons", {}), ("structured", None),
                            ("forbid", False)):
            if getattr(t, attr) != empty:
                p = copy.deepcopy(prog)
                setattr(p.tools[i], attr, empty)
                yield p
        if isinstance(t.ret, Ty):
            for sub in simpler_types(t.ret):
                p = copy.deepcopy(prog)
                p.tools[i].ret, p.tools[i].ret_cons = sub, {}
                yield p
            if t.ret.k != "int":
                p = copy.deepcopy(prog)
                p.tools[i].ret, p.tools[i].ret_cons, p.tools[i].ret_title, p.tools[i].ret_desc = Ty("int"), {}, None, None
                yield p
    for i, d in enumerate(prog.types):
        for attr, empty in (("desc", None), ("forbid", False), ("extra", None)):
            if getattr(d, attr) != empty:
                p = copy.deepcopy(prog)
                setattr(p.types[i], attr, empty)
                yield p
        if d.kind == "enum" and len(d.values) > 1:
            p = copy.deepcopy(prog)
            p.types[i].values = d.values[:1]
            yield p


def all_types(prog):
    for d in prog.types:
        for f in d.fields:
            yield from walk(f.ty)
    for t in prog.tools:
        for f in t.params:
            yield from walk(f.ty)
        if isinstance(t.ret, Ty):
            yield from walk(t.ret)


def simpler_types(t):
    """Types smaller than t: its parts, or int."""
    for a in t.args:
        yield copy.deepcopy(a)
    if t.k in ("union",) and len(t.args) > 2:
        for i in range(len(t.args)):
            u = copy.deepcopy(t)
            del u.args[i]
            yield u
    if t.k == "literal" and len(t.vals) > 1:
        u = copy.deepcopy(t)
        u.vals = u.vals[:1]
        yield u
    for i, a in enumerate(t.args):
        for s in simpler_types(a):
            u = copy.deepcopy(t)
            u.args[i] = s
            yield u
    if t.k != "int" and not t.args:
        yield Ty("int")
