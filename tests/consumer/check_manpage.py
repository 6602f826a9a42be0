#!/usr/bin/env python3
"""mcpidlc --help and the mcpidlc(1) man page agree.

    check_manpage.py --mcpidlc MCPIDLC MAN_PAGE

1. Every option that `mcpidlc --help` prints has an item (.TP) under OPTIONS in the man page.
2. Every option item of the man page is an option of --help (`--`, which ends the options, is
   described in the man page only).
3. The page's footer names the version `mcpidlc --version` prints.
4. When groff is there, it formats the page without a warning.

Prints `ok`/`FAIL` lines, then `N passed, M failed`; exit status 0 when all passed.
"""
import argparse
import re
import shutil
import subprocess
import sys

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def plain(roff):
    """Roff text without font escapes, with \\- as -."""
    roff = re.sub(r"\\f[BIRP]", "", roff)
    return roff.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")


def help_options(text):
    """The options --help lists: the option words at the start of its indented lines."""
    found = set()
    for line in text.splitlines():
        m = re.match(r"\s+(-\S.*)", line)
        if not m:
            continue
        # "  -o, --output DIR     the directory ..." : the spelling part ends at two spaces.
        spelling = re.split(r"\s{2,}", m.group(1))[0]
        found.update(o.split("=")[0] for o in OPTION.findall(spelling))
    return found


def man_options(roff):
    """The options of the man page: the tags of the .TP items under .SH OPTIONS."""
    found = set()
    lines = roff.splitlines()
    section = None
    for i, line in enumerate(lines):
        if line.startswith(".SH"):
            section = line[3:].strip().strip('"')
        elif line.startswith(".TP") and section == "OPTIONS" and i + 1 < len(lines):
            found.update(o.split("=")[0] for o in OPTION.findall(plain(lines[i + 1])))
            if plain(lines[i + 1]).strip() == "--":
                found.add("--")
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("man")
    args = ap.parse_args()
    with open(args.man, encoding="utf-8") as f:
        roff = f.read()
    helptext = subprocess.run([args.mcpidlc, "--help"], stdout=subprocess.PIPE, text=True,
                              check=True).stdout
    version = subprocess.run([args.mcpidlc, "--version"], stdout=subprocess.PIPE, text=True,
                             check=True).stdout.split()[-1]
    failed = []
    passed = 0

    def check(cond, what):
        nonlocal passed
        if cond:
            passed += 1
            print("ok  ", what)
        else:
            failed.append(what)
            print("FAIL", what)

    in_help = help_options(helptext)
    in_man = man_options(roff)
    check(len(in_help) >= 8, "--help lists its options (%s)" % " ".join(sorted(in_help)))
    for opt in sorted(in_help):
        check(opt in in_man, "%s of --help has an item under OPTIONS in the man page" % opt)
    for opt in sorted(in_man - {"--"}):
        check(opt in in_help, "%s of the man page is an option of --help" % opt)
    th = next((l for l in roff.splitlines() if l.startswith(".TH")), "")
    check(version in th, "the man page's .TH names version %s: %s" % (version, th))
    groff = shutil.which("groff")
    if groff:
        p = subprocess.run([groff, "-man", "-ww", "-z", args.man], stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0 and not p.stderr.strip(),
              "groff formats the page without warnings%s" % (": " + p.stderr.strip() if p.stderr.strip() else ""))
    print("%d passed, %d failed" % (passed, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
