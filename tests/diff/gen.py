"""Seeded random instances of a published JSON Schema, for the differential test.

Generator(schema, rng).valid() walks the schema and builds a value meant to be
valid; .invalid() builds a near miss: a valid value with one thing wrong (a
wrong type, a missing required key, a bound violated by one step, one item too
many, a duplicate set item, a value outside an enum, a string one character
too long, ...). The intention is not the verdict: run.py labels every instance
with the reference validators.

Values stay clear of the deliberate differences of IDL.md and of regex
constructs whose meaning differs between dialects:
  - integers stay within int64, and integral floats of magnitude >= 2**63 are
    only written where a number (not an integer) is expected, or in `any`;
  - no string holds U+0000;
  - a schema that reaches a dict[int, T] (said by the caller: the schema does
    not tell) gets decimal int64 keys in every dict;
  - a string checked against a `pattern` uses only characters on which Python's
    `re`, ECMA-262 (with the u flag) and PCRE2 agree for every supported
    construct: printable ASCII, tab, and a few non-ASCII symbols that are no
    word, digit or space character in any of them (no newline, carriage
    return, U+2028/U+2029 or Unicode spaces: `.`, `$` and `\\s` differ there);
  - integers beyond 2**53 (which JavaScript cannot hold exactly) are not used
    where exactness matters: inside unique arrays, near bounds, with
    multipleOf;
  - multipleOf is exercised with quotients well below 2**53, except near
    misses of an integer multipleOf with quotients of 1e22 and more (both
    references reject them; JavaScript's multipleOf test is inexact between).
The schema keywords understood are those mcpidlc publishes; any other keyword
raises Unsupported, so that a new keyword cannot go untested silently.
"""
import json
import math
import re
import unicodedata
from decimal import Decimal
from fractions import Fraction

try:
    import re._parser as sre_parse  # Python 3.11+
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore

INT64_MIN = -(2 ** 63)
INT64_MAX = 2 ** 63 - 1
EXACT = 2 ** 53  # integers JavaScript holds exactly

ANNOTATIONS = {"title", "description", "default", "format", "$schema", "$defs"}
KEYWORDS = ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "prefixItems",
    "minItems", "maxItems", "uniqueItems", "anyOf", "enum", "const", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "$ref",
}
# Valid texts of each asserted string format (the IDL's types datetime, date, time,
# timedelta, uuid and url; see tests/formats for the formats themselves).
FORMAT_VALUES = {
    "date-time": ["2026-12-03T07:00:00Z", "2024-02-29T23:59:59.123456+05:30", "0001-01-01T00:00:00-00:00",
                  "9999-12-31t23:59:59z"],
    "date": ["2026-12-03", "2024-02-29", "0001-01-01", "9999-12-31"],
    "time": ["07:00:00", "23:59:59.5Z", "00:00:00+01:00", "12:30:00.000001-11:59"],
    "duration": ["PT1H30M", "P1D", "P1Y2M3DT4H5M6S", "P2W", "PT0S", "P10Y"],
    "uuid": ["12345678-1234-5678-1234-567812345678", "00000000-0000-0000-0000-000000000000",
             "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
    "uri": ["https://example.com/a?b=c#d", "http://127.0.0.1:8080/", "mailto:someone@example.org", "urn:isbn:0451450523",
            "ftp://ftp.example.org/pub/x.txt", "x-y.z:opaque"],
}

JSON_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")

# Characters for strings in general: ASCII, escapes, controls, Latin-1, BMP,
# astral (UTF-16 surrogate pairs), noncharacters. Never U+0000 or surrogates.
ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
PUNCT = " !\"#$%&'()*+,./:;<=>?@[\\]^`{|}~"
CONTROLS = "\t\n\r\x01\x08\x0c\x1f\x7f"
LATIN = "éßÿÅ\u00a0"
BMP = "€中ア\u2028\u2029\ufeff\ufffd\uffff\u0301"
ASTRAL = "😀𝄞\U0010ffff\U0001f680"
# Characters for strings checked against a pattern (see above).
PATTERN_SAFE_NON_ASCII = "€→😀§"
PATTERN_SAFE = "".join(chr(c) for c in range(0x20, 0x7F)) + "\t" + PATTERN_SAFE_NON_ASCII

for _c in PATTERN_SAFE_NON_ASCII:  # the premise of PATTERN_SAFE
    assert not re.match(r"[\w\d\s]", _c) and not re.match(r"[\w\d\s]", _c, re.ASCII), _c


class Unsupported(Exception):
    """The schema uses something the generator does not understand."""


class Unsat(Exception):
    """No value of the wanted kind could be built here."""


def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    raise TypeError(v)


def type_ok(t, v):
    jt = json_type(v)
    return jt == t or (t == "number" and jt == "integer")


def canon(v):
    """A key equal for values that JSON Schema deems equal (1 == 1.0, true != 1)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return (json_type(v), v)
    if isinstance(v, (int, float)):
        return ("number", Fraction(v))
    if isinstance(v, list):
        return ("array", tuple(canon(x) for x in v))
    return ("object", frozenset((k, canon(x)) for k, x in v.items()))


def check_keywords(schema, where="#"):
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise Unsupported("%s: not a schema: %r" % (where, schema))
    for k in schema:
        if k not in KEYWORDS:
            raise Unsupported("%s: keyword %r" % (where, k))
    t = schema.get("type")
    if t is not None and t not in JSON_TYPES:
        raise Unsupported("%s: type %r" % (where, t))
    for k in ("properties", "$defs"):
        for name, sub in schema.get(k, {}).items():
            check_keywords(sub, "%s/%s/%s" % (where, k, name))
    for k in ("items", "additionalProperties"):
        if k in schema:
            check_keywords(schema[k], "%s/%s" % (where, k))
    for k in ("prefixItems", "anyOf"):
        for i, sub in enumerate(schema.get(k, [])):
            check_keywords(sub, "%s/%s/%d" % (where, k, i))
    if "$ref" in schema and not schema["$ref"].startswith("#/$defs/"):
        raise Unsupported("%s: $ref %r" % (where, schema["$ref"]))


# ---------------------------------------------------------------- regexes

def _opname(op):
    return getattr(op, "name", None) or str(op)


class RegexSampler:
    """Random strings matching a pattern (Python `re` syntax, which covers the
    patterns used here), built from its parse tree over PATTERN_SAFE."""

    def __init__(self, pattern, rng):
        self.pattern = pattern
        self.rx = re.compile(pattern)
        self.tree = sre_parse.parse(pattern)
        self.rng = rng

    def sample(self, tries=40):
        for _ in range(tries):
            self.groups = {}
            try:
                s = self._seq(self.tree)
            except Unsat:
                continue
            r = self.rng
            # Also with text around (a match somewhere, not only at the start;
            # and what a boundary or a lookaround wants beside the match).
            for t in (s, None, None) if r.random() < 0.5 else (None, None, s):
                if t is None:
                    t = "".join(r.choice(PATTERN_SAFE) for _ in range(r.randint(0, 3))) + s + \
                        "".join(r.choice(PATTERN_SAFE) for _ in range(r.randint(0, 3)))
                if self.rx.search(t) and all(c in PATTERN_SAFE for c in t):
                    return t
        raise Unsat("pattern %r" % self.pattern)

    def _seq(self, items):
        return "".join(self._item(op, av) for op, av in items)

    def _item(self, op, av):
        name = _opname(op)
        r = self.rng
        if name == "LITERAL":
            c = chr(av)
            if c not in PATTERN_SAFE:
                raise Unsat(c)
            return c
        if name in ("NOT_LITERAL", "ANY", "IN"):
            return self._char(name, av)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            lo, hi, sub = av
            hi = min(hi, lo + 4)  # also for MAXREPEAT, unbounded
            return "".join(self._seq(sub) for _ in range(r.randint(lo, hi)))
        if name == "SUBPATTERN":
            gid, sub = av[0], av[-1]
            s = self._seq(sub)
            if gid is not None:
                self.groups[gid] = s
            return s
        if name == "BRANCH":
            return self._seq(r.choice(av[1]))
        if name == "GROUPREF":
            return self.groups.get(av, "")
        if name == "ASSERT" and av[0] < 0:
            return self._seq(av[1])  # a lookbehind: what comes before
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            return ""  # checked on the result
        raise Unsat("regex construct %s" % name)

    def _char(self, name, av):
        r = self.rng
        cands = []
        if name == "IN":
            for op, x in av:
                n = _opname(op)
                if n == "LITERAL":
                    cands.append(chr(x))
                elif n == "RANGE":
                    lo, hi = x
                    cands += [chr(lo), chr(hi)] + [chr(r.randint(lo, hi)) for _ in range(3)]
        cands = [c for c in cands if c in PATTERN_SAFE]
        r.shuffle(cands)
        for c in cands:
            if self._in(name, av, c):
                return c
        for _ in range(200):
            c = PATTERN_SAFE[int(r.random() * len(PATTERN_SAFE))]
            if self._in(name, av, c):
                return c
        raise Unsat("no character for %s" % name)

    def _in(self, name, av, c):
        if name == "ANY":
            return c != "\n"
        if name == "NOT_LITERAL":
            return c != chr(av)
        neg = False
        hit = False
        for op, x in av:
            n = _opname(op)
            if n == "NEGATE":
                neg = True
            elif n == "LITERAL":
                hit = hit or c == chr(x)
            elif n == "RANGE":
                hit = hit or x[0] <= ord(c) <= x[1]
            elif n == "CATEGORY":
                hit = hit or _category(_opname(x), c)
            else:
                raise Unsat("class item %s" % n)
        return hit != neg


def _category(cat, c):
    word = c.isascii() and (c.isalnum() or c == "_")
    digit = c in "0123456789"
    space = c in " \t\n\r\f\v"
    return {"CATEGORY_DIGIT": digit, "CATEGORY_NOT_DIGIT": not digit, "CATEGORY_WORD": word,
            "CATEGORY_NOT_WORD": not word, "CATEGORY_SPACE": space, "CATEGORY_NOT_SPACE": not space}[cat]


# ---------------------------------------------------------------- the generator

class Generator:
    def __init__(self, root, rng, int_keys=False, budget=4):
        check_keywords(root)
        self.root = root
        self.defs = root.get("$defs", {}) if isinstance(root, dict) else {}
        self.rng = rng
        self.int_keys = int_keys
        self.budget = budget
        self.samplers = {}

    # ---- helpers

    def resolve(self, s):
        """The schema a node stands for ($ref followed); siblings of a $ref
        must be annotations or the same type as the target."""
        hops = 0
        while isinstance(s, dict) and "$ref" in s:
            target = self.defs.get(s["$ref"][len("#/$defs/"):])
            if target is None:
                raise Unsupported("dangling $ref %r" % s["$ref"])
            for k, v in s.items():
                if k in ANNOTATIONS or k == "$ref":
                    continue
                if k == "type" and target.get("type") == v:
                    continue
                raise Unsupported("$ref with sibling %r" % k)
            s = target
            hops += 1
            if hops > 100:
                raise Unsupported("$ref loop")
        if s is True:
            return {}
        if s is False:
            raise Unsupported("false schema")
        return s

    def kind(self, s):
        if "anyOf" in s:
            return "anyOf"
        if "enum" in s:
            return "enum"
        if "const" in s:
            return "const"
        return s.get("type", "any")

    def sampler(self, pattern):
        if pattern not in self.samplers:
            self.samplers[pattern] = RegexSampler(pattern, self.rng)
        return self.samplers[pattern]

    def chance(self, p):
        return self.rng.random() < p

    def pick_len(self, lo, hi, spread=6):
        """A length in [lo, hi] (hi None: unbounded), the bounds favoured."""
        r = self.rng
        top = lo + spread if hi is None else min(hi, lo + spread)
        x = r.random()
        if x < 0.2:
            return lo
        if x < 0.35 and hi is not None:
            return hi
        return r.randint(lo, top)

    def rand_char(self):
        r = self.rng
        x = r.random()
        group = ASCII if x < 0.55 else PUNCT if x < 0.7 else CONTROLS if x < 0.77 else \
            LATIN if x < 0.85 else BMP if x < 0.93 else ASTRAL
        return r.choice(group)

    def rand_str(self, lo=0, hi=None, safe=False):
        n = self.pick_len(lo, hi)
        if hi is None and self.chance(0.01):
            n = self.rng.randint(200, 2000)
        if safe:
            return "".join(self.rng.choice(PATTERN_SAFE) for _ in range(n))
        return "".join(self.rand_char() for _ in range(n))

    def rand_key(self, avoid=()):
        for _ in range(50):
            if self.int_keys:
                k = str(self.rand_int_value(uniq=False))
            else:
                x = self.rng.random()
                k = "" if x < 0.05 else self.rng.choice(["x", "extra", "Name", "result", "id"]) if x < 0.3 \
                    else self.rand_str(1, 8)
            if k not in avoid:
                return k
        raise Unsat("no fresh key")

    def rand_int_value(self, uniq):
        r = self.rng
        x = r.random()
        if x < 0.4:
            return r.randint(-10, 10)
        if x < 0.7:
            return r.randint(-10 ** 6, 10 ** 6)
        if uniq:
            return r.randint(-EXACT, EXACT)
        if x < 0.85:
            return r.choice([INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, EXACT + 1, -EXACT - 1])
        return r.randint(INT64_MIN, INT64_MAX)

    def rand_float_value(self):
        r = self.rng
        x = r.random()
        if x < 0.3:
            return r.choice([0.0, -0.0, 0.5, -2.25, 1e-7, 5e-324, -5e-324, 2.2250738585072014e-308,
                             1.7976931348623157e308, -1.7976931348623157e308, 1e16, 1e300, 0.1, 123456.789])
        if x < 0.7:
            return r.uniform(-1000, 1000)
        return r.uniform(-1, 1) * 10 ** r.randint(-20, 20)

    def rand_any(self, b, uniq, depth=0):
        r = self.rng
        x = r.random()
        if b <= 0 or depth >= 3:
            x *= 0.75
        if x < 0.1:
            return None
        if x < 0.2:
            return r.choice([True, False])
        if x < 0.35:
            return self.rand_int_value(uniq)
        if x < 0.5:
            return self.rand_float_value()
        if x < 0.75:
            return self.rand_str()
        if x < 0.88:
            return [self.rand_any(b - 1, uniq, depth + 1) for _ in range(r.randint(0, 3))]
        out = {}
        for _ in range(r.randint(0, 3)):
            out[self.rand_key(out)] = self.rand_any(b - 1, uniq, depth + 1)
        return out

    def maybe_float(self, v):
        """An integer, sometimes written as an integral float (3 -> 3.0)."""
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) <= EXACT and self.chance(0.15):
            return -0.0 if v == 0 and self.chance(0.3) else float(v)
        return v

    # ---- numbers

    @staticmethod
    def bounds(s):
        """(lo, lo_excl, hi, hi_excl) as Fractions or None."""
        lo = hi = None
        lo_x = hi_x = False
        if "minimum" in s:
            lo = Fraction(s["minimum"])
        if "exclusiveMinimum" in s:
            e = Fraction(s["exclusiveMinimum"])
            if lo is None or e >= lo:
                lo, lo_x = e, True
        if "maximum" in s:
            hi = Fraction(s["maximum"])
        if "exclusiveMaximum" in s:
            e = Fraction(s["exclusiveMaximum"])
            if hi is None or e <= hi:
                hi, hi_x = e, True
        return lo, lo_x, hi, hi_x

    @staticmethod
    def in_bounds(v, bnd):
        lo, lo_x, hi, hi_x = bnd
        f = Fraction(v)
        if lo is not None and (f < lo or (lo_x and f == lo)):
            return False
        if hi is not None and (f > hi or (hi_x and f == hi)):
            return False
        return True

    def int_range(self, s):
        lo, lo_x, hi, hi_x = self.bounds(s)
        ilo = INT64_MIN if lo is None else (math.floor(lo) + 1 if lo_x else math.ceil(lo))
        ihi = INT64_MAX if hi is None else (math.ceil(hi) - 1 if hi_x else math.floor(hi))
        return ilo, ihi, lo is not None or hi is not None

    def multiples(self, m, lo, hi, integral):
        """A random multiple k*m within [lo, hi] (Fractions or None), small."""
        r = self.rng
        m = Fraction(m)
        klo = math.ceil(lo / m) if lo is not None else None
        khi = math.floor(hi / m) if hi is not None else None
        if klo is None and khi is None:
            klo, khi = -1000, 1000
        elif klo is None:
            klo = khi - 2000
        elif khi is None:
            khi = klo + 2000
        klo, khi = max(klo, -10 ** 6), min(khi, 10 ** 6)
        for _ in range(20):
            if klo > khi:
                break
            x = r.random()
            k = klo if x < 0.15 else khi if x < 0.3 else r.randint(klo, khi)
            v = k * m
            if integral and v.denominator != 1:
                continue
            return v
        raise Unsat("no multiple of %s" % m)

    def gen_integer(self, s, uniq):
        r = self.rng
        ilo, ihi, bounded = self.int_range(s)
        if ilo > ihi:
            raise Unsat("empty integer range")
        if "multipleOf" in s:
            lo = None if ilo == INT64_MIN else Fraction(ilo)
            hi = None if ihi == INT64_MAX else Fraction(ihi)
            return self.maybe_float(int(self.multiples(s["multipleOf"], lo, hi, True)))
        x = r.random()
        if bounded and x < 0.4:
            cands = [v for v in (ilo, ilo + 1, ihi, ihi - 1) if ilo <= v <= ihi and abs(v) <= EXACT]
            if cands:
                return self.maybe_float(r.choice(cands))
        for _ in range(20):
            if bounded and ihi - ilo < 10 ** 7:
                v = r.randint(ilo, ihi)
            else:
                v = self.rand_int_value(uniq or bounded)
            if ilo <= v <= ihi:
                return self.maybe_float(v)
        v = max(ilo, min(ihi, 0))
        return self.maybe_float(v)

    def gen_number(self, s, uniq):
        r = self.rng
        bnd = self.bounds(s)
        lo, lo_x, hi, hi_x = bnd
        if "multipleOf" in s:
            v = self.multiples(s["multipleOf"], lo, hi, False)
            f = float(v)
            if Fraction(f) != v or not self.in_bounds(f, bnd):
                raise Unsat("multiple not exact")
            return int(f) if self.chance(0.3) and f.is_integer() and abs(f) <= EXACT else f
        for _ in range(30):
            x = r.random()
            if x < 0.25 and (lo is not None or hi is not None):
                cands = []
                for b, excl, d in ((lo, lo_x, math.inf), (hi, hi_x, -math.inf)):
                    if b is None:
                        continue
                    fb = float(b)
                    cands.append(math.nextafter(fb, d) if excl else fb)
                    cands.append(int(b) + (1 if d > 0 else -1) if b.denominator == 1 else fb)
                v = r.choice(cands)
            elif x < 0.55:
                flo = float(lo) if lo is not None else -1e6
                fhi = float(hi) if hi is not None else 1e6
                v = r.uniform(flo, fhi)
            elif x < 0.7:
                v = self.rand_int_value(uniq=True if (uniq or lo is not None or hi is not None) else False)
            else:
                v = self.rand_float_value()
            if self.in_bounds(v, bnd):
                return v
        raise Unsat("no number in bounds")

    # ---- strings

    def gen_string(self, s):
        lo = s.get("minLength", 0)
        hi = s.get("maxLength")
        if s.get("format") in FORMAT_VALUES and "pattern" not in s:
            # The IDL's string-format types (datetime, uuid, ...) assert their format, the
            # validators here do not: valid instances are valid texts of the format (which a
            # `str` with the same `format` annotation takes as well). The formats
            # themselves are tested in tests/formats.
            pool = [v for v in FORMAT_VALUES[s["format"]] if len(v) >= lo and (hi is None or len(v) <= hi)]
            if not pool:
                raise Unsat("format and lengths")
            return self.rng.choice(pool)
        if "pattern" in s:
            sm = self.sampler(s["pattern"])
            for _ in range(10):
                v = sm.sample()
                if len(v) >= lo and (hi is None or len(v) <= hi):
                    return v
            raise Unsat("pattern and lengths")
        return self.rand_str(lo, hi)

    # ---- valid values

    def valid(self):
        return self.gen(self.root, self.budget, False)

    def gen(self, s, b, uniq):
        if isinstance(s, dict) and "$ref" in s:
            b -= 1
        s = self.resolve(s)
        k = self.kind(s)
        r = self.rng
        if k == "anyOf":
            arms = list(s["anyOf"])
            if b <= 0:
                arms.sort(key=lambda a: self.cost(a))
                arms = arms[:1]
            r.shuffle(arms)
            last = None
            for arm in arms:
                try:
                    return self.gen(arm, b, uniq)
                except Unsat as e:
                    last = e
            raise last or Unsat("anyOf")
        if k == "enum":
            return self.maybe_float(r.choice(s["enum"]))
        if k == "const":
            return self.maybe_float(s["const"])
        if k == "any":
            return self.rand_any(b, uniq)
        if k == "null":
            return None
        if k == "boolean":
            return r.choice([True, False])
        if k == "integer":
            return self.gen_integer(s, uniq)
        if k == "number":
            return self.gen_number(s, uniq)
        if k == "string":
            return self.gen_string(s)
        if k == "array":
            return self.gen_array(s, b, uniq)
        if k == "object":
            return self.gen_object(s, b, uniq)
        raise Unsupported(k)

    def cost(self, s, seen=()):
        """How deep a minimal value of s goes (for ending recursion)."""
        if isinstance(s, dict) and "$ref" in s:
            if s["$ref"] in seen:
                return 1000
            seen = seen + (s["$ref"],)
        s = self.resolve(s)
        k = self.kind(s)
        if k == "anyOf":
            return min(self.cost(a, seen) for a in s["anyOf"])
        if k == "array":
            n = s.get("minItems", 0)
            subs = list(s.get("prefixItems", []))
            if n > len(subs):
                subs.append(s.get("items", {}))
            return 1 + max([self.cost(x, seen) for x in subs] or [0])
        if k == "object":
            props = s.get("properties", {})
            return 1 + max([self.cost(props[p], seen) for p in s.get("required", []) if p in props] or [0])
        return 0

    def gen_array(self, s, b, uniq):
        r = self.rng
        prefix = s.get("prefixItems", [])
        items = s.get("items", {})
        lo = max(s.get("minItems", 0), 0)
        hi = s.get("maxItems")
        if items is False:
            hi = len(prefix) if hi is None else min(hi, len(prefix))
        lo = max(lo, 0)
        n = lo if b <= 0 else self.pick_len(lo, hi, spread=4)
        if b > 0 and self.chance(0.06) and (hi is None or hi > 8):
            n = r.randint(9, 16 if hi is None else min(hi, 16))  # past the decoder's small-set path
        if n < len(prefix) and lo >= len(prefix):
            n = len(prefix)
        unique = s.get("uniqueItems", False)
        sub_uniq = uniq or unique
        out, seen = [], set()
        for i in range(n):
            sub = prefix[i] if i < len(prefix) else items
            for _ in range(30 if unique else 1):
                v = self.gen(sub, b - 1, sub_uniq)
                if not unique or canon(v) not in seen:
                    break
            else:
                if i >= lo:
                    break
                raise Unsat("not enough distinct items")
            if unique:
                seen.add(canon(v))
            out.append(v)
        return out

    def gen_object(self, s, b, uniq):
        r = self.rng
        props = s.get("properties", {})
        req = s.get("required", [])
        ap = s.get("additionalProperties", True)
        out = {}
        for k, sub in props.items():
            if k in req or (b > 0 and self.chance(0.6)):
                out[k] = self.gen(sub, b - 1, uniq)
        if ap is not False and b > 0:
            n = r.randint(0, 4) if (ap is not True or not props) else (1 if self.chance(0.25) else 0)
            if (ap is not True or not props) and self.chance(0.05):
                n = r.randint(17, 24)  # past the parser's and the equality's small-object paths
            for _ in range(n):
                k = self.rand_key(set(props) | set(out))
                out[k] = self.rand_any(b - 1, uniq) if ap is True else self.gen(ap, b - 1, uniq)
        if len(out) > 1 and self.chance(0.3):
            items = list(out.items())
            r.shuffle(items)
            out = dict(items)
        return out

    # ---- near misses

    def invalid(self):
        return self.bad(self.root, self.budget, False)

    def wrong_type(self, allowed):
        """A value of a JSON type outside `allowed` (a set of type names)."""
        pool = [None, True, False, 0, 7, -3, 1.5, -0.25, "", "7", "true", "null", "x", [], [1], ["a"], {},
                {"a": 1}, {"result": 1}]
        ok = []
        for v in pool:
            if not any(type_ok(t, v) for t in allowed):
                ok.append(v)
        if not ok:
            raise Unsat("every type allowed")
        return self.rng.choice(ok)

    def types_of(self, s, seen=()):
        """The JSON types some value of s may have (None: any)."""
        if isinstance(s, dict) and "$ref" in s:
            if s["$ref"] in seen:
                return set()
            seen = seen + (s["$ref"],)
        s = self.resolve(s)
        k = self.kind(s)
        if k == "anyOf":
            out = set()
            for a in s["anyOf"]:
                t = self.types_of(a, seen)
                if t is None:
                    return None
                out |= t
            return out
        if k in ("enum", "const"):
            vals = s["enum"] if k == "enum" else [s["const"]]
            return {json_type(v) for v in vals} | ({"number"} if any(json_type(v) == "integer" for v in vals) else set())
        if k == "any":
            return None
        return {k}

    def bad(self, s, b, uniq):
        """A near-miss invalid value for s (raises Unsat when none can be built)."""
        if isinstance(s, dict) and "$ref" in s:
            b -= 1
        s = self.resolve(s)
        k = self.kind(s)
        r = self.rng
        options = []
        types = self.types_of(s)
        if types is not None:
            options.append(lambda: self.wrong_type(types))
        if k == "anyOf":
            for arm in s["anyOf"]:
                options.append(lambda arm=arm: self.bad(arm, b, uniq))
        elif k in ("enum", "const"):
            options.append(lambda: self.off_enum(s["enum"] if k == "enum" else [s["const"]]))
            options.append(lambda: self.off_enum(s["enum"] if k == "enum" else [s["const"]]))
        elif k == "integer":
            options += self.bad_integer(s)
        elif k == "number":
            options += self.bad_number(s)
        elif k == "string":
            options += self.bad_string(s)
        elif k == "boolean":
            options.append(lambda: r.choice([0, 1, "true", "false", None, 1.0]))
        elif k == "null":
            options.append(lambda: r.choice([0, False, "", "null", [], {}, "None"]))
        elif k == "array":
            options += self.bad_array(s, b, uniq)
            options += self.bad_array(s, b, uniq)
        elif k == "object":
            options += self.bad_object(s, b, uniq)
            options += self.bad_object(s, b, uniq)
        r.shuffle(options)
        for opt in options:
            try:
                return opt()
            except Unsat:
                continue
        raise Unsat("no near miss for %s" % k)

    def off_enum(self, vals):
        r = self.rng
        v = r.choice(vals)
        cands = []
        if isinstance(v, str):
            cands += [v.upper() if v != v.upper() else v.lower(), v + " ", v[:-1], " " + v, v + "x", "",
                      unicodedata.normalize("NFD", v), unicodedata.normalize("NFC", v), v + "\u0301"]
        elif isinstance(v, bool):
            cands += [not v, int(v), str(v).lower()]
        elif isinstance(v, int):
            cands += [v + 1, v - 1, max(x for x in vals if type(x) is int) + 1, v + 0.5, str(v), v == 1]
        elif v is None:
            cands += [0, "null", False]
        cands += [None, 0, "x"]
        cands = [c for c in cands if all(canon(c) != canon(x) for x in vals)]
        return r.choice(cands)

    def bad_integer(self, s):
        r = self.rng
        ilo, ihi, _ = self.int_range(s)
        opts = [lambda: r.choice([0.5, -1.5, 2.25, 1e-9 + 3]), lambda: r.choice(["1", "0", True, False, None])]
        if ilo > INT64_MIN:
            opts.append(lambda: self.maybe_float(ilo - 1))
            opts.append(lambda: ilo - 0.5)
        if ihi < INT64_MAX:
            opts.append(lambda: self.maybe_float(ihi + 1))
            opts.append(lambda: ihi + 0.5)
        if "multipleOf" in s:
            def off_multiple():
                m = Fraction(s["multipleOf"])
                if m == 1:
                    raise Unsat("every integer is a multiple of 1")
                lo = None if ilo == INT64_MIN else Fraction(ilo)
                hi = None if ihi == INT64_MAX else Fraction(ihi - 1)
                v = self.multiples(m, lo, hi, True) + 1
                return self.maybe_float(int(v))
            opts += [off_multiple, off_multiple]
        return opts

    def bad_number(self, s):
        r = self.rng
        lo, lo_x, hi, hi_x = self.bounds(s)
        opts = [lambda: r.choice(["1.5", "0", True, None, [1.5]])]
        for b, excl, d in ((lo, lo_x, -math.inf), (hi, hi_x, math.inf)):
            if b is None:
                continue
            fb = float(b)
            if excl:
                opts.append(lambda fb=fb: fb)
                if b.denominator == 1:
                    opts.append(lambda b=b: int(b))
            else:
                opts.append(lambda fb=fb, d=d: math.nextafter(fb, d))
                opts.append(lambda fb=fb, d=d: fb + (1 if d > 0 else -1))
        if "multipleOf" in s:
            def off_multiple():
                m = Fraction(s["multipleOf"])
                v = self.multiples(m, lo, hi - m if hi is not None else None, False) + m / 2
                f = float(v)
                if Fraction(f) != v:
                    raise Unsat("inexact")
                return f
            opts += [off_multiple, off_multiple]
            if Fraction(s["multipleOf"]).denominator == 1:
                def huge_off_multiple():
                    # A float far beyond 2**53 that is no multiple of an integer m
                    # (its quotient is >= 1e22, so JavaScript's and Python's
                    # verdicts agree: invalid).
                    m = Fraction(s["multipleOf"])
                    for _ in range(20):
                        x = r.uniform(1, 1000) * 10 ** r.randint(22, 25) * float(m)
                        if Fraction(x) % m != 0 and self.in_bounds(x, (lo, lo_x, hi, hi_x)):
                            return x
                    raise Unsat("no huge non-multiple")
                opts.append(huge_off_multiple)
        return opts

    def bad_string(self, s):
        r = self.rng
        lo = s.get("minLength", 0)
        hi = s.get("maxLength")
        pat = s.get("pattern")
        wide = "é€😀𝄞\U0010ffff中"  # multi-byte, and two UTF-16 units for the astral ones
        opts = [lambda: r.choice([0, 1.5, None, True, ["a"], {"a": "b"}])]

        def fill(n):
            if pat:
                v = self.gen_string(s)
                while len(v) < n:
                    v += r.choice(PATTERN_SAFE)
                return v[:n]
            return "".join(r.choice(wide) if self.chance(0.5) else self.rand_char() for _ in range(n))

        if lo > 0:
            opts.append(lambda: fill(lo - 1))
        if hi is not None:
            opts.append(lambda: fill(hi + 1))
        if s.get("format") in FORMAT_VALUES and not pat:
            return opts  # no near miss in the text: the validators here do not assert formats
        if pat:
            def mutate():
                v = list(self.gen_string(s) if self.chance(0.8) else self.rand_str(lo, hi, safe=True))
                for _ in range(r.randint(1, 2)):
                    x = r.random()
                    i = r.randint(0, len(v))
                    if x < 0.3 and v:
                        del v[min(i, len(v) - 1)]
                    elif x < 0.65:
                        v.insert(i, r.choice(PATTERN_SAFE))
                    elif v:
                        v[min(i, len(v) - 1)] = r.choice(PATTERN_SAFE)
                return "".join(v)
            opts += [mutate, mutate, mutate]
        return opts

    def bad_array(self, s, b, uniq):
        r = self.rng
        prefix = s.get("prefixItems", [])
        items = s.get("items", {})
        lo = s.get("minItems", 0)
        hi = s.get("maxItems")
        unique = s.get("uniqueItems", False)
        sub_uniq = uniq or unique
        opts = []

        def base():
            return self.gen_array(s, b, uniq)

        if hi is not None:
            def too_long():
                v = base()
                while len(v) <= hi:
                    sub = prefix[len(v)] if len(v) < len(prefix) else items
                    v.append(self.gen(sub, b - 1, sub_uniq) if not unique else self.fresh(sub, v, b, sub_uniq))
                return v
            opts.append(too_long)
        if lo > 0:
            def too_short():
                v = base()
                return v[:lo - 1]
            opts.append(too_short)
        if unique:
            def duplicate():
                v = base()
                if not v:
                    v = [self.gen(items, b - 1, True)]
                if self.chance(0.4) and (hi is None or hi > 9) and not prefix:
                    try:  # past the decoder's small-set path
                        while len(v) < 9 + r.randint(0, 3):
                            v.append(self.fresh(items, v, b, True))
                    except Unsat:
                        pass
                # Prefer an object of several keys: its copy has them reordered.
                objs = [x for x in v if isinstance(x, dict) and len(x) > 1]
                x = r.choice(objs) if objs and self.chance(0.7) else r.choice(v)
                v.insert(r.randint(0, len(v)), self.equal_copy(x))
                return v
            opts += [duplicate, duplicate]

        def bad_item():
            v = base()
            n = len(v)
            if n == 0:
                if (hi is not None and hi == 0) or (not prefix and items == {}):
                    raise Unsat("no item to spoil")
                sub = prefix[0] if prefix else items
                return [self.bad(sub, b - 1, sub_uniq)]
            i = r.randrange(n)
            sub = prefix[i] if i < len(prefix) else items
            v[i] = self.bad(sub, b - 1, sub_uniq)
            return v
        opts += [bad_item, bad_item]
        return opts

    def equal_copy(self, x):
        """A value equal to x as JSON Schema compares: keys reordered, 3 as 3.0."""
        if isinstance(x, bool) or x is None or isinstance(x, str):
            return x
        if isinstance(x, int):
            if x == 0 and self.chance(0.3):
                return -0.0
            return float(x) if abs(x) <= EXACT and self.chance(0.5) else x
        if isinstance(x, float):
            return int(x) if x.is_integer() and abs(x) <= EXACT and self.chance(0.5) else x
        if isinstance(x, list):
            return [self.equal_copy(y) for y in x]
        items = [(k, self.equal_copy(y)) for k, y in x.items()]
        if self.chance(0.7):
            items.reverse()
        return dict(items)

    def fresh(self, sub, v, b, uniq):
        seen = {canon(x) for x in v}
        for _ in range(30):
            x = self.gen(sub, b - 1, uniq)
            if canon(x) not in seen:
                return x
        raise Unsat("no fresh item")

    def bad_object(self, s, b, uniq):
        r = self.rng
        props = s.get("properties", {})
        req = [p for p in s.get("required", [])]
        ap = s.get("additionalProperties", True)
        opts = []

        def base():
            return self.gen_object(s, b, uniq)

        if req:
            def missing():
                v = base()
                del v[r.choice(req)]
                return v
            opts += [missing, missing]
        if ap is False:
            def extra():
                v = base()
                names = list(props)
                x = r.random()
                if names and x < 0.5:
                    n = r.choice(names)
                    k = r.choice([n.upper(), n + "_", " " + n, n[:-1] if len(n) > 1 else n + n])
                else:
                    k = self.rand_key(set(props))
                if k in props:
                    k = k + "x"
                v[k] = self.rand_any(b - 1, uniq)
                return v
            opts += [extra, extra]
        elif isinstance(ap, dict) and self.types_of(ap) is not None:
            def bad_value():
                v = base()
                keys = [k for k in v if k not in props]
                if keys and self.chance(0.6):
                    k = r.choice(keys)
                else:
                    k = self.rand_key(set(props) | set(v))
                v[k] = self.bad(ap, b - 1, uniq)
                return v
            opts += [bad_value, bad_value]
        spoilable = [p for p in props if self.types_of(props[p]) is not None]
        if spoilable:
            def bad_prop():
                v = base()
                p = r.choice(spoilable)
                v[p] = self.bad(props[p], b - 1, uniq)
                return v
            opts += [bad_prop, bad_prop, bad_prop]
        return opts


# ---------------------------------------------------------------- exclusions

def excluded(v):
    """Why an instance falls under a deliberate difference (None when it does not)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, bool) or x is None:
            continue
        if isinstance(x, int) and not (INT64_MIN <= x <= INT64_MAX):
            return "an integer beyond int64"
        if isinstance(x, str) and "\x00" in x:
            return "a NUL character"
        if isinstance(x, list):
            stack += x
        elif isinstance(x, dict):
            for k, y in x.items():
                if "\x00" in k:
                    return "a NUL character"
                stack.append(y)
    return None


def dumps(v, rng):
    """JSON text on one line (no newline inside), in varied but valid
    spellings: numbers as 3, 3.0, 30e-1, 3E0; strings with short, \\uXXXX
    (either case), surrogate-pair and \\/ escapes; white space of every kind
    but the newline between tokens. Python's json reads back the same value."""
    out = []
    style = rng.random()

    def ws():
        if style < 0.5:
            return ""
        if style < 0.9:
            return " " if rng.random() < 0.3 else ""
        return rng.choice(["", " ", "\t", "\r", "  ", " \t\r "])

    def num(x):
        if isinstance(x, int):
            if rng.random() < 0.85 or abs(x) > 10 ** 15:
                return str(x)
            forms = [".0", "e0", "E+0", ".00E0"] + (["0e-1"] if x else [])
            return str(x) + rng.choice(forms)
        text = repr(x)
        y = rng.random()
        if y < 0.8:
            return text
        if y < 0.85 and not x.is_integer():
            return str(Decimal(x))  # the double's exact decimal value, every digit
        d = Decimal(text)
        return rng.choice(["{:E}".format(d), "{:e}".format(d), "{:E}".format(d).replace("E+", "E")])

    def string(t):
        if style < 0.3:
            return json.dumps(t, ensure_ascii=False)
        if style < 0.5:
            return json.dumps(t, ensure_ascii=True)
        parts = ['"']
        for c in t:
            o = ord(c)
            x = rng.random()
            if c == '"' or c == "\\":
                parts.append("\\" + c if x < 0.7 else "\\u%04x" % o)
            elif c == "/" and x < 0.5:
                parts.append("\\/")
            elif o < 0x20 or x < 0.1:
                if c in "\b\f\n\r\t" and x < 0.5:
                    parts.append(json.dumps(c)[1:-1])
                elif o > 0xFFFF:
                    hi, lo = 0xD800 + ((o - 0x10000) >> 10), 0xDC00 + ((o - 0x10000) & 0x3FF)
                    parts.append(("\\u%04x\\u%04x" if x < 0.05 else "\\u%04X\\u%04X") % (hi, lo))
                else:
                    parts.append(("\\u%04x" if x < 0.05 else "\\u%04X") % o)
            else:
                parts.append(c)
        parts.append('"')
        return "".join(parts)

    def emit(x):
        if x is None:
            out.append("null")
        elif x is True:
            out.append("true")
        elif x is False:
            out.append("false")
        elif isinstance(x, (int, float)):
            if isinstance(x, float) and not math.isfinite(x):
                raise ValueError(x)
            out.append(num(x))
        elif isinstance(x, str):
            out.append(string(x))
        elif isinstance(x, list):
            out.append("[" + ws())
            for i, y in enumerate(x):
                if i:
                    out.append(ws() + "," + ws())
                emit(y)
            out.append(ws() + "]")
        else:
            out.append("{" + ws())
            for i, (k, y) in enumerate(x.items()):
                if i:
                    out.append(ws() + "," + ws())
                out.append(string(k) + ws() + ":" + ws())
                emit(y)
            out.append(ws() + "}")

    out.append(ws())
    emit(v)
    out.append(ws())
    text = "".join(out)
    assert "\n" not in text
    return text
