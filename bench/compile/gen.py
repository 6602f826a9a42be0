#!/usr/bin/env python3
"""Write a large, valid .mcp.yaml for the compile benchmark to standard output.

usage: gen.py [--tools N] [--types N] [--seed S] [--cluster N]

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
        elif kind == "float":
            t = "float"
            spec["exclusiveMinimum"] = 0
            default = round(r.uniform(0.5, 99.5), 2)
        elif kind == "str":
            t = "str"
            spec["minLength"] = 1
            spec["maxLength"] = r.randint(8, 200)
            if r.random() < 0.4:
                spec["pattern"] = "'^[a-z][a-z0-9_]*$'"
            default = r.choice(WORDS)
        elif kind == "bool":
            t = "bool"
            default = r.choice(["true", "false"])
        elif kind == "list":
            t = "list[%s]" % r.choice(["int", "str", "float"])
            spec["minItems"] = 0
            spec["maxItems"] = r.randint(5, 50)
            default = "[]"
        elif kind == "set":
            t = "set[str]"
            default = "[%s, %s]" % tuple(r.sample(WORDS, 2))
        elif kind == "tuple":
            t = "tuple[int, str]"
            default = "[1, %s]" % r.choice(WORDS)
        elif kind == "dict":
            t = "dict[%s, float]" % r.choice(["str", "int"])
            default = "{}"
        elif kind == "optional":
            t = "Optional[%s]" % r.choice(["int", "str", "float"])
            default = "null"
        elif kind == "union":
            t = "int | str | None"
            default = "null"
        elif kind == "literal":
            vals = r.sample(WORDS, 3)
            t = "Literal[%s]" % ", ".join("'%s'" % v for v in vals)
            default = vals[0]
        elif kind == "named":
            j = self.ref(lo, min(index, hi))
            if j is None:
                t = "str"
            else:
                t = self.names[j]
                if self.kinds[j] == "enum":
                    default = self.enum_values[j][0]
        elif kind == "optional_named":
            t = "Optional[%s]" % self.names[self.ref(lo, hi)]
            default = "null"
        elif kind == "list_named":
            t = "list[%s]" % self.names[self.ref(lo, hi)]
            default = "[]"
        else:
            t = "dict[str, %s]" % self.names[self.ref(lo, hi)]
            default = "{}"

        lines = []
        use_default = default is not None and owner_kind != "record" and r.random() < 0.35
        optional_key = owner_kind == "record" and r.random() < 0.3
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
                continue
            if self.r.random() < 0.2:
                out.append("    extra: forbid")
            out.append("    fields:")
            for k in range(self.r.randint(3, 7)):
                fname = "%s_%d" % (self.r.choice(WORDS), k)
                out += ["      " + l for l in self.field(fname, kind, i, *self.span(i))]
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
            for k in range(self.r.randint(2, 4)):
                pname = "%s_%d" % (self.r.choice(WORDS), k)
                out += ["      " + l for l in self.field(pname, "params", hi, lo, hi)]
            ret = self.returns(lo, hi)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--types", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cluster", type=int, default=20)
    o = ap.parse_args()
    g = Gen(o.seed, o.types, o.tools, o.cluster)
    lines = ["# Generated by bench/compile/gen.py --tools %d --types %d --seed %d --cluster %d"
             % (o.tools, o.types, o.seed, o.cluster),
             "mcpidl: 1", "server:", "  name: bench", '  version: "1.0.0"']
    lines += g.types()
    lines += g.tools()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
