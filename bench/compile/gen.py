#!/usr/bin/env python3
"""Write a large, valid .mcp.yaml for the compile benchmark to standard output.

usage: gen.py [--tools N] [--types N] [--seed S] [--cluster N] [--proto FILE]

The types are models, records and enums (about 60/25/15 %). A model or record has
3 to 7 fields (5 on average) of varied types: scalars, lists, sets, tuples, dicts,
Optional, unions, Literal, and references to other types (a required reference
only to a type declared earlier, so that every type can be finite; Optional,
list and dict references to any type, so that there are reference cycles too).
References stay inside clusters of --cluster consecutive types (default 20), as
in a real API where related types refer to each other, and each tool uses the
types of one cluster; --cluster 0 lets every type refer to any other, so that
almost every tool reaches almost every type, and every tool's schemas carry all
of them in their "$defs".
Fields carry constraints, defaults (models and parameters) and descriptions.
A tool has 2 to 4 parameters and returns a model, a record, a list, a dict, a
scalar, an enum, a union, an Optional or content. The same seed gives the same file.
"""
import argparse
import random

PROTO_SCALAR = {"int": "int64", "float": "double", "str": "string", "bool": "bool"}

WORDS = ("alpha bravo city delta echo field grade harbor index jet kilo level metric north ocean "
         "point quota river station tide unit valley wind xray yield zone").split()


class Gen:
    def __init__(self, seed, ntypes, ntools, cluster):
        self.r = random.Random(seed)
        self.cluster = cluster if cluster > 0 else ntypes
        self.ntypes = ntypes
        self.ntools = ntools
        kinds = []
        for i in range(ntypes):
            x = self.r.random()
            kinds.append("enum" if x < 0.15 else "record" if x < 0.40 else "model")
        kinds[0] = "model"
        self.kinds = kinds
        self.proto = None        # (label, type) of the last field(), for the .proto
        self.proto_types = []    # (name, kind, fields or enum values), in order
        self.proto_tools = []    # (name, params, result)
        self.names = ["%s%s%d" % (self.r.choice(WORDS).capitalize(), kinds[i].capitalize(), i)
                      for i in range(ntypes)]
        self.enum_values = {}
        for i, k in enumerate(kinds):
            if k == "enum":
                n = self.r.randint(2, 6)
                if self.r.random() < 0.3:
                    self.enum_values[i] = list(range(1, n + 1))
                else:
                    self.enum_values[i] = self.r.sample(WORDS, n)

    def span(self, index):
        """The cluster of type `index`: [lo, hi)."""
        lo = index // self.cluster * self.cluster
        return lo, min(lo + self.cluster, self.ntypes)

    def ref(self, lo, hi):
        """A named type in [lo, hi), or None when there is none."""
        return self.r.randrange(lo, hi) if hi > lo else None

    def field(self, name, owner_kind, index, lo, hi):
        """index: the owner type's (required references go below it); [lo, hi): its cluster."""
        """Lines of one field or parameter (long form), or a short form."""
        r = self.r
        kind = r.choice(["int", "float", "str", "bool", "list", "set", "tuple", "dict", "optional",
                         "union", "literal", "named", "named", "optional_named", "list_named", "dict_named"])
        spec = {}
        default = None
        if kind == "int":
            t = "int"
            lo = r.randint(-10, 10)
            spec["minimum"] = lo
            spec["maximum"] = lo + r.randint(1, 1000)
            default = lo + 1
            self.proto = ("", "int64")
        elif kind == "float":
            t = "float"
            spec["exclusiveMinimum"] = 0
            default = round(r.uniform(0.5, 99.5), 2)
            self.proto = ("", "double")
        elif kind == "str":
            t = "str"
            spec["minLength"] = 1
            spec["maxLength"] = r.randint(8, 200)
            if r.random() < 0.4:
                spec["pattern"] = "'^[a-z][a-z0-9_]*$'"
            default = r.choice(WORDS)
            self.proto = ("", "string")
        elif kind == "bool":
            t = "bool"
            default = r.choice(["true", "false"])
            self.proto = ("", "bool")
        elif kind == "list":
            t = "list[%s]" % r.choice(["int", "str", "float"])
            self.proto = ("repeated ", PROTO_SCALAR[t[5:-1]])
            spec["minItems"] = 0
            spec["maxItems"] = r.randint(5, 50)
            default = "[]"
        elif kind == "set":
            t = "set[str]"
            self.proto = ("repeated ", "string")
            default = "[%s, %s]" % tuple(r.sample(WORDS, 2))
        elif kind == "tuple":
            t = "tuple[int, str]"
            self.proto = ("", "TupleIntStr")
            default = "[1, %s]" % r.choice(WORDS)
        elif kind == "dict":
            t = "dict[%s, float]" % r.choice(["str", "int"])
            self.proto = ("", "map<%s, double>" % PROTO_SCALAR[t[5:8]])
            default = "{}"
        elif kind == "optional":
            t = "Optional[%s]" % r.choice(["int", "str", "float"])
            self.proto = ("optional ", PROTO_SCALAR[t[9:-1]])
            default = "null"
        elif kind == "union":
            t = "int | str | None"
            self.proto = ("oneof", [("int64", "as_int"), ("string", "as_str")])
            default = "null"
        elif kind == "literal":
            vals = r.sample(WORDS, 3)
            t = "Literal[%s]" % ", ".join("'%s'" % v for v in vals)
            self.proto = ("", "string")
            default = vals[0]
        elif kind == "named":
            j = self.ref(lo, min(index, hi))
            if j is None:
                t = "str"
                self.proto = ("", "string")
            else:
                t = self.names[j]
                self.proto = ("", t)
                if self.kinds[j] == "enum":
                    default = self.enum_values[j][0]
        elif kind == "optional_named":
            t = "Optional[%s]" % self.names[self.ref(lo, hi)]
            self.proto = ("optional ", t[9:-1])
            default = "null"
        elif kind == "list_named":
            t = "list[%s]" % self.names[self.ref(lo, hi)]
            self.proto = ("repeated ", t[5:-1])
            default = "[]"
        else:
            t = "dict[str, %s]" % self.names[self.ref(lo, hi)]
            self.proto = ("", "map<string, %s>" % t[10:-1])
            default = "{}"

        lines = []
        use_default = default is not None and owner_kind != "record" and r.random() < 0.35
        optional_key = owner_kind == "record" and r.random() < 0.3
        if (use_default or optional_key) and self.proto[0] == "" and not self.proto[1].startswith("map<"):
            self.proto = ("optional ", self.proto[1])   # a field that may be left out
        if not spec and not use_default and not optional_key and r.random() < 0.5:
            return ["%s: %s" % (name, t)]
        lines.append("%s:" % name)
        lines.append("  type: %s" % t)
        if r.random() < 0.5:
            lines.append("  description: The %s %s." % (r.choice(WORDS), r.choice(WORDS)))
        for k, v in spec.items():
            lines.append("  %s: %s" % (k, v))
        if use_default:
            lines.append("  default: %s" % default)
        if optional_key:
            lines.append("  required: false")
        return lines

    def types(self):
        out = ["types:"]
        for i, name in enumerate(self.names):
            kind = self.kinds[i]
            out.append("  %s:" % name)
            if kind != "model" or self.r.random() < 0.3:
                out.append("    kind: %s" % kind)
            if self.r.random() < 0.6:
                out.append("    description: A %s of %s." % (self.r.choice(WORDS), self.r.choice(WORDS)))
            if kind == "enum":
                out.append("    values: [%s]" % ", ".join(str(v) for v in self.enum_values[i]))
                self.proto_types.append((name, kind, self.enum_values[i]))
                continue
            if self.r.random() < 0.2:
                out.append("    extra: forbid")
            out.append("    fields:")
            fields = []
            for k in range(self.r.randint(3, 7)):
                fname = "%s_%d" % (self.r.choice(WORDS), k)
                out += ["      " + l for l in self.field(fname, kind, i, *self.span(i))]
                fields.append((fname, self.proto))
            self.proto_types.append((name, kind, fields))
        return out

    def returns(self, lo, hi):
        r = self.r
        x = r.random()
        models = [i for i in range(lo, hi) if self.kinds[i] != "enum"] or [0]
        enums = [i for i in range(lo, hi) if self.kinds[i] == "enum"] or models
        if x < 0.30:
            return [self.names[r.choice(models)]]
        if x < 0.45:
            return ["list[%s]" % self.names[r.choice(models)]]
        if x < 0.55:
            return ["dict[str, %s]" % r.choice(["float", "int", self.names[r.choice(models)]])]
        if x < 0.65:
            return [r.choice(["int", "str", "float", "bool"])]
        if x < 0.72:
            return [self.names[r.choice(enums)]]
        if x < 0.80:
            return ["Optional[%s]" % self.names[r.choice(models)]]
        if x < 0.87:
            return ["%s | %s" % (self.names[r.choice(models)], r.choice(["int", "str"]))]
        if x < 0.92:
            return ["content"]
        return ["type: int", "description: A count.", "minimum: 0"]

    def tools(self):
        out = ["tools:"]
        for t in range(self.ntools):
            name = "%s_%s_%d" % (self.r.choice(["get", "list", "find", "update", "count"]), self.r.choice(WORDS), t)
            out.append("  %s:" % name)
            out.append("    description: %s the %s of a %s." % (
                self.r.choice(["Get", "List", "Find", "Update", "Count"]), self.r.choice(WORDS), self.r.choice(WORDS)))
            lo, hi = self.span(self.r.randrange(self.ntypes))
            out.append("    params:")
            params = []
            for k in range(self.r.randint(2, 4)):
                pname = "%s_%d" % (self.r.choice(WORDS), k)
                out += ["      " + l for l in self.field(pname, "params", hi, lo, hi)]
                params.append((pname, self.proto))
            ret = self.returns(lo, hi)
            self.proto_tools.append((name, params, proto_of_return(ret)))
            if len(ret) == 1:
                out.append("    returns: %s" % ret[0])
            else:
                out.append("    returns:")
                out += ["      " + l for l in ret]
            if self.r.random() < 0.1 and ret != ["content"]:
                out.append("    structured_output: false")
            if self.r.random() < 0.3:
                out.append("    annotations:")
                out.append("      readOnlyHint: true")
        return out


def proto_of_return(ret):
    """The (label, type) of a tool's result, from what returns() chose."""
    t = ret[0]
    if len(ret) > 1:                      # the wrapped mapping: type: int
        return ("", "int64")
    if t == "content":
        return ("repeated ", "Content")
    if t in PROTO_SCALAR:
        return ("", PROTO_SCALAR[t])
    if t.startswith("list["):
        return ("repeated ", t[5:-1])
    if t.startswith("dict[str, "):
        v = t[10:-1]
        return ("", "map<string, %s>" % PROTO_SCALAR.get(v, v))
    if t.startswith("Optional["):
        return ("optional ", t[9:-1])
    if " | " in t:
        a, b = t.split(" | ")
        return ("oneof", [(a, "as_" + a.lower()), (PROTO_SCALAR[b], "as_" + b)])
    return ("", t)


def camel(name):
    return "".join(w.capitalize() for w in name.split("_"))


def proto_message(name, fields):
    """A message of (field name, (label, type)) pairs; a union becomes a oneof."""
    out = ["message %s {" % name]
    n = 0
    for fname, (label, t) in fields:
        if label == "oneof":
            out.append("  oneof %s {" % fname)
            for at, an in t:
                n += 1
                out.append("    %s %s_%s = %d;" % (at, fname, an, n))
            out.append("  }")
        else:
            n += 1
            if not label and not t.startswith("map<"):
                label = "required "       # proto2 needs a label; a plain IDL field is required
            out.append("  %s%s %s = %d;" % (label, t, fname, n))
    out.append("}")
    return out


def write_proto(g, path):
    """The equivalent .proto: a message or enum per type, a request and a
    response message per tool, and a service with one rpc per tool. proto2, since
    Debian's protoc-c (1.4) rejects proto3 optional fields; a plain field is required."""
    out = ["// Generated by bench/compile/gen.py: the .proto equivalent of the benchmark IDL.",
           'syntax = "proto2";', "package bench;", "",
           "message TupleIntStr {", "  required int64 item_0 = 1;", "  required string item_1 = 2;", "}",
           "message Content {", "  required string type = 1;", "  required string text = 2;", "}"]
    for name, kind, body in g.proto_types:
        if kind == "enum":
            prefix = name.upper()
            out.append("enum %s {" % name)
            out += ["  %s_%s = %d;" % (prefix, str(v).upper(), n) for n, v in enumerate(body)]
            out.append("}")
        else:
            out += proto_message(name, body)
    for name, params, result in g.proto_tools:
        out += proto_message(camel(name) + "Request", params)
        out += proto_message(camel(name) + "Response", [("result", result)])
    out.append("service Bench {")
    for name, _, _ in g.proto_tools:
        c = camel(name)
        out.append("  rpc %s(%sRequest) returns (%sResponse);" % (c, c, c))
    out.append("}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--types", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cluster", type=int, default=20)
    ap.add_argument("--proto", metavar="FILE",
                    help="also write the equivalent .proto (proto2) to FILE")
    o = ap.parse_args()
    g = Gen(o.seed, o.types, o.tools, o.cluster)
    lines = ["# Generated by bench/compile/gen.py --tools %d --types %d --seed %d --cluster %d"
             % (o.tools, o.types, o.seed, o.cluster),
             "mcpidl: 1", "server:", "  name: bench", '  version: "1.0.0"']
    lines += g.types()
    lines += g.tools()
    print("\n".join(lines))
    if o.proto:
        write_proto(g, o.proto)


if __name__ == "__main__":
    main()
