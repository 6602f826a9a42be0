#!/usr/bin/env python3
"""Differential test of the string-format types' checkers.

usage: tests/formats/run.py --driver PATH [--seed N] [--count N] [--node-modules DIR]

Generates, for each IDL format type (datetime, date, time, timedelta, uuid,
url, decimal), --count seeded random values: half valid, half near misses (one
character changed, dropped, doubled or swapped; a field out of range; another
separator, case or offset form), plus a fixed list of edge cases. Each value is
judged, every judge once per batch:
  - the runtime's checker (the C driver, tests/formats/driver.c);
  - pydantic 2.13 in strict JSON mode (TypeAdapter(T, strict=True).validate_json),
    as the MCP Python SDK's types (datetime.datetime, ..., uuid.UUID, AnyUrl,
    decimal.Decimal);
  - Python's jsonschema with its format checker, for the formats it checks
    (date-time, date, time, uuid);
  - Ajv with ajv-formats (full mode), for every format (skipped when
    MCPIDL_SKIP_NODE=1).
The rule under test: a value is valid exactly when pydantic accepts it and the
format validators accept it, with two deliberate differences: a time without an
offset (RFC 3339's partial-time, which the format validators refuse) is judged
by them with "Z" appended; a URL that pydantic would rewrite (its normal form
differs: an IPv4 host in octal, a file URL's extra slashes, an empty password)
is refused. Then:
  - a valid value's canonical text equals what pydantic writes for it (a
    decimal in plain notation: format(d, 'f'), as the published pattern has no
    exponent);
  - a value pydantic rejects is rejected with pydantic's error type, and with
    pydantic's message (the messages that differ are counted and listed: they
    are the inputs pydantic's parsers reject on paths not mirrored exactly);
  - a value only the format validators reject is rejected.
Prints the counts; exits 1 on any disagreement but message differences, which
fail only beyond --max-message-diff percent.
"""
import argparse
import datetime
import decimal
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

from pydantic import AnyUrl, ConfigDict, TypeAdapter, ValidationError  # noqa: E402

try:
    import jsonschema
except ImportError:  # pragma: no cover
    jsonschema = None

TYPES = {
    "datetime": datetime.datetime,
    "date": datetime.date,
    "time": datetime.time,
    "timedelta": datetime.timedelta,
    "uuid": uuid.UUID,
    "url": AnyUrl,
    "decimal": decimal.Decimal,
}
JS_FORMAT = {"datetime": "date-time", "date": "date", "time": "time", "uuid": "uuid"}


# ---------------------------------------------------------------- generators

def d2(r, lo, hi):
    return "%02d" % r.randint(lo, hi)


def gen_date(r):
    y = r.choice([r.randint(1, 9999), r.randint(1900, 2100), 2000, 2024, 1, 9999])
    m = r.randint(1, 12)
    dim = [31, 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    return "%04d-%02d-%02d" % (y, m, r.randint(1, dim))


def gen_offset(r, required):
    c = r.random()
    if not required and c < 0.3:
        return ""
    if c < 0.55:
        return r.choice("Zz")
    return r.choice("+-") + d2(r, 0, 23) + ":" + d2(r, 0, 59)


def gen_time(r, offset_required=False):
    t = d2(r, 0, 23) + ":" + d2(r, 0, 59) + ":" + d2(r, 0, 59)
    if r.random() < 0.4:
        t += "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 9)))
    return t + gen_offset(r, offset_required)


def gen_datetime(r):
    return gen_date(r) + r.choice("Tt") + gen_time(r, True)


def gen_timedelta(r):
    s = "-" if r.random() < 0.15 else ""
    s += "P"
    parts = []
    for u in "YMWD":
        if r.random() < 0.3:
            parts.append("%d%s" % (r.choice([0, 1, 2, 7, 30, 365, r.randint(0, 5000)]), u))
    t = []
    for u in "HMS":
        if r.random() < 0.4:
            n = str(r.choice([0, 1, 5, 30, 59, 90, r.randint(0, 100000)]))
            if u == "S" and r.random() < 0.3:
                n += "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 7)))
            t.append(n + u)
    if not parts and not t:
        t.append("%dS" % r.randint(0, 100))
    s += "".join(parts)
    if t:
        s += "T" + "".join(t)
    return s


def gen_uuid(r):
    u = str(uuid.UUID(int=r.getrandbits(128)))
    return u.upper() if r.random() < 0.2 else u


def gen_url(r):
    scheme = r.choice(["http", "https", "HTTP", "ftp", "ws", "wss", "mailto", "urn", "file", "git+ssh", "x-y.z"])
    if scheme in ("mailto",):
        return scheme + ":" + r.choice(["a@b.c", "x.y@example.org", "user@host?subject=hi"])
    if scheme == "urn":
        return "urn:isbn:" + str(r.randint(0, 10**9))
    host = r.choice(["example.com", "a.b", "EXAMPLE.org", "localhost", "127.0.0.1", "[::1]", "x-y.z", "h"])
    if scheme == "file":
        return "file:///" + r.choice(["tmp/x", "a/b/c.txt", ""])
    port = r.choice(["", "", ":80", ":443", ":8080", ":21", ":1"])
    path = r.choice(["", "/", "/a", "/a/b.html", "/%41b", "/~user/", "/a;b=c"])
    q = r.choice(["", "", "?q=1", "?a=b&c=d", "?"])
    f = r.choice(["", "", "#frag", "#", "#a/b?c"])
    user = r.choice(["", "", "", "user@", "user:pw@"])
    return "%s://%s%s%s%s%s%s" % (scheme, user, host, port, path, q, f)


def gen_decimal(r):
    c = r.random()
    if c < 0.35:  # a JSON number
        # floats of at most 15 significant digits: beyond, pydantic-core's JSON number
        # parser may round the last digit differently from a correctly rounded parse
        return r.choice([r.randint(-10**6, 10**6), float("%.12g" % r.uniform(-1e6, 1e6)),
                         float("%.12g" % (r.random() * 10 ** r.randint(-10, 25))), 0, 10**25, -0.0, 1.5e-7])
    s = r.choice(["", "", "+", "-"]) + "0" * r.choice([0, 0, 1, 3])
    s += "".join(r.choice("0123456789") for _ in range(r.randint(0, 8)))
    if r.random() < 0.6:
        s += "." + "".join(r.choice("0123456789") for _ in range(r.randint(0, 12)))
    if s.strip("+-.") == "":
        s += "1"
    return s


GEN = {"datetime": gen_datetime, "date": gen_date, "time": gen_time, "timedelta": gen_timedelta,
       "uuid": gen_uuid, "url": gen_url, "decimal": gen_decimal}

NOISE = "0123456789:-+.,TtZzPYMWDHS_ /?#%@[]eE xé\t"


def near_miss(r, s):
    if not isinstance(s, str) or not s:
        return r.choice(["", "x", 1, None, True, [], {}])
    k = r.randrange(8)
    i = r.randrange(len(s))
    if k == 0:
        return s[:i] + s[i + 1:]
    if k == 1:
        return s[:i] + r.choice(NOISE) + s[i + 1:]
    if k == 2:
        return s[:i] + r.choice(NOISE) + s[i:]
    if k == 3:
        return s[:i] + s[i] + s[i:]
    if k == 4 and len(s) > 1:
        j = r.randrange(len(s))
        lst = list(s)
        lst[i], lst[j] = lst[j], lst[i]
        return "".join(lst)
    if k == 5:
        digits = [j for j, c in enumerate(s) if c.isdigit()]
        if digits:
            j = r.choice(digits)
            return s[:j] + r.choice("0123456789") + s[j + 1:]
    if k == 6:
        return s.swapcase()
    return s + r.choice(["Z", "+01:00", " ", "x", "0", "/", "S"])


EDGES = {
    "datetime": ["2026-12-03T07:00:00Z", "2026-12-03T07:00:00+00:00", "2026-12-03 07:00:00Z", "2026-12-03_07:00:00Z",
                 "2026-12-03T07:00:00", "2026-12-03T07:00Z", "2026-12-03T07:00:00+0100", "2026-02-29T00:00:00Z",
                 "2024-02-29T00:00:00Z", "0000-01-01T00:00:00Z", "1700000000", "1.5", "", "x",
                 "2026-12-03T07:00:00.123456789Z", "2026-12-03T07:00:00,5Z", "2026-12-03T24:00:00Z",
                 "2026-12-03T07:00:60Z", "2026-12-03T07:00:00-00:00", "2026-12-03t07:00:00z", 0, None, True],
    "date": ["2026-12-03", "2026-02-29", "2024-02-29", "0000-01-01", "2026-13-01", "2026-12-3", "2026-12-03T00:00:00Z",
             "1700000000", "86400", "", "2026/12/03", 20261203],
    "time": ["07:00:00", "07:00", "07:00:00Z", "07:00:00+01", "07:00:00+0100", "07:00:00.5", "07:00:00,5",
             "24:00:00", "07:60:00", "07:00:60", "7:00:00", "", "07:00:00.", "07:00:00-00:00", 25200],
    "timedelta": ["PT1H30M", "P1D", "-P1D", "+P1D", "PT0S", "P0D", "P", "PT", "P1DT", "PT1.5H", "P1.5D", "PT1,5S",
                  "07:00:00", "1 day, 00:00:00", "P1Y2M3DT4H5M6S", "PT36H", "P1W", "P1W2D", "P1D1Y", "pt1h", "x",
                  "", "P1000000000D", "PT1000000000H", "PT0.0000001S", 3600],
    "uuid": ["12345678-1234-5678-1234-567812345678", "12345678123456781234567812345678",
             "{12345678-1234-5678-1234-567812345678}", "urn:uuid:12345678-1234-5678-1234-567812345678",
             "12345678-1234-5678-1234-56781234567", "12345678-1234-5678-1234-5678123456789", "1234567-81234-5678-1234-567812345678",
             "G2345678-1234-5678-1234-567812345678", "", "x", "12345678-1234-5678-1234", 5],
    "url": ["http://a.b/c", "HTTP://A.B", "http://a.b:80/", "https://a.b:443", "mailto:x@y", "urn:isbn:1", "http://",
            "http://a.b/%zz", "http://a.b/ä", "http://[::1]/", "http://a.b:99999/", "file:///x", "a:b", "1a:b",
            "http:/a.b", "http://a.b?q#f", "http://a.b/c d", "x+y://h", "", " http://a.b", "/relative", "//a.b", 1],
    "decimal": ["1.50", "+1.5", ".5", "5.", "-0", "000", "0.0000001", "1e5", "1E5", " 1.5", "nan", "Infinity", "+", ".",
                "-.", "1.2.3", "1_000", "x", 1, 1.5, 1e300, -0.0, 1.5e-7, 10**30, True, None],
}


# ---------------------------------------------------------------- judges

def pyd_judge(adapters, f, v):
    text = json.dumps(v)
    try:
        x = adapters[f].validate_json(text)
    except ValidationError as e:
        er = e.errors()[0]
        return (False, er["type"], er["msg"])
    return (True, json.loads(adapters[f].dump_json(x)), None)


def js_judge(f, v):
    if jsonschema is None or f not in JS_FORMAT or not isinstance(v, str):
        return None
    return jsonschema.Draft202012Validator.FORMAT_CHECKER.conforms(v, JS_FORMAT[f])


NAIVE = {}


def run_ajv(args, cases):
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as tf:
        tf.write("".join("%s\t%s\n" % (f, json.dumps(v)) for f, v in cases))
    try:
        res = subprocess.run(["node", os.path.join(HERE, "ajv.mjs"), args.node_modules, tf.name],
                             capture_output=True, text=True, check=True).stdout.split()
    finally:
        os.unlink(tf.name)
    return [x == "1" for x in res]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", required=True)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--count", type=int, default=2000, help="random values per format")
    ap.add_argument("--node-modules", default=os.path.join(ROOT, "tests", "e2e", "node_modules"))
    ap.add_argument("--max-message-diff", type=float, default=10.0)
    args = ap.parse_args()

    r = random.Random(args.seed)
    cases = []
    for f in TYPES:
        seen = set()
        vals = list(EDGES[f])
        for _ in range(args.count // 2):
            vals.append(GEN[f](r))
        for _ in range(args.count - args.count // 2):
            vals.append(near_miss(r, GEN[f](r)))
        for v in vals:
            key = json.dumps(v)
            if key not in seen:
                seen.add(key)
                cases.append((f, v))

    lines = "".join("%s\t%s\n" % (f, json.dumps(v)) for f, v in cases)
    out = subprocess.run([args.driver], input=lines, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(cases), (len(out), len(cases))

    use_ajv = os.environ.get("MCPIDL_SKIP_NODE") != "1"
    ajv = [None] * len(cases)
    if use_ajv:
        if not os.path.isdir(os.path.join(args.node_modules, "ajv-formats")):
            print("no ajv-formats under %s (set MCPIDL_SKIP_NODE=1 to skip Ajv)" % args.node_modules)
            return 1
        ajv = run_ajv(args, cases)

    # A time without an offset (RFC 3339's partial-time, which the IDL takes) is judged by
    # the format validators with "Z" appended.
    naive_cases = [("time", v + "Z") for f, v in cases if f == "time" and isinstance(v, str)]
    naive_ajv = run_ajv(args, naive_cases) if use_ajv else [None] * len(naive_cases)
    NAIVE.update({v[:-1]: (a is None or a) and js_judge("time", v) for (_, v), a in zip(naive_cases, naive_ajv)})
    adapters = {f: TypeAdapter(t, config=ConfigDict(strict=True)) for f, t in TYPES.items()}
    stats = {f: {"values": 0, "valid": 0, "pydantic_rejects": 0, "stricter_rejects": 0, "message_equal": 0}
             for f in TYPES}
    failures, msg_diffs = [], []
    for (f, v), line, av in zip(cases, out, ajv):
        st = stats[f]
        st["values"] += 1
        parts = line.split("\t", 2)
        ours_ok = parts[0] == "1"
        if parts[0] == "E":
            failures.append("%s %r: driver error %s" % (f, v, line))
            continue
        pok, pval, pmsg = pyd_judge(adapters, f, v)
        js = js_judge(f, v)
        spec_ok = (av is None or av) and (js is None or js)
        if f == "time" and pok and isinstance(v, str) and "Z" not in pval and "+" not in pval and "-" not in pval:
            # RFC 3339's partial-time: the format validators judge it with "Z" appended
            spec_ok = NAIVE[v]
        want_ok = pok and spec_ok
        if f == "url" and not ours_ok and pok and "in its normal form" in parts[2]:
            want_ok = False  # a URL that pydantic rewrites: refused (checked below)
        if ours_ok != want_ok:
            failures.append("%s %s: ours %s, pydantic %s, jsonschema %s, ajv %s" % (
                f, json.dumps(v), "valid" if ours_ok else "invalid (%s: %s)" % (parts[1], parts[2]),
                "valid" if pok else "invalid (%s: %s)" % (pval, pmsg), js, av))
            continue
        if ours_ok:
            st["valid"] += 1
            canon = parts[1].replace("\\n", "\n").replace("\\\\", "\\")
            if f == "decimal":
                # written in plain notation even where str(Decimal) uses an exponent
                pval = format(decimal.Decimal(pval), "f")
            if canon != pval:
                failures.append("%s %s: canonical %s, pydantic writes %s" % (f, json.dumps(v), json.dumps(canon),
                                                                            json.dumps(pval)))
            continue
        if not pok:
            st["pydantic_rejects"] += 1
            if parts[1] != pval:
                failures.append("%s %s: error type %s, pydantic %s (%s)" % (f, json.dumps(v), parts[1], pval, pmsg))
            elif parts[2].replace("\\n", "\n").replace("\\\\", "\\") == pmsg:
                st["message_equal"] += 1
            else:
                msg_diffs.append("%s %s: %r, pydantic %r" % (f, json.dumps(v), parts[2], pmsg))
        else:
            st["stricter_rejects"] += 1
            if "in its normal form" in parts[2] and pval == v:
                failures.append("%s %s: refused as not in its normal form, but pydantic keeps it as it is"
                                % (f, json.dumps(v)))

    total = sum(s["values"] for s in stats.values())
    for f, s in stats.items():
        print("%-9s %5d values: %5d valid, %5d rejected by pydantic (%d with its message), %5d only by the format rule"
              % (f, s["values"], s["valid"], s["pydantic_rejects"], s["message_equal"], s["stricter_rejects"]))
    if not use_ajv:
        print("Ajv SKIPPED (MCPIDL_SKIP_NODE=1)")
    for m in msg_diffs[:20]:
        print("message differs:", m)
    rejected = sum(s["pydantic_rejects"] for s in stats.values())
    pct = 100.0 * len(msg_diffs) / rejected if rejected else 0.0
    print("%d values, %d disagreements, %d message differences (%.1f%% of pydantic's rejections)"
          % (total, len(failures), len(msg_diffs), pct))
    for m in failures[:40]:
        print("FAIL", m)
    return 0 if not failures and pct <= args.max_message_diff else 1


if __name__ == "__main__":
    sys.exit(main())
