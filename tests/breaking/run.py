#!/usr/bin/env python3
"""`mcpidlc diff`: each pair of contract versions gives exactly the expected changes and exit status.

usage: run.py --mcpidlc PATH --work DIR CASES_DIR [NAME...]

A case is
  NAME.old.mcp.yaml, NAME.new.mcp.yaml   the two versions (committed)
  NAME.expected                          `mcpidlc diff NAME.old.mcp.yaml NAME.new.mcp.yaml`:
                                         first line `exit N`, then the diagnostic lines,
                                         in order, without source lines and carets
Optional next to it:
  NAME.reverse.expected   the same for the other direction (NEW compared with OLD)
  NAME.args               extra arguments, one per line (e.g. --allow, then a kind)

Each case runs from the cases directory with the bare file names and
-fno-diagnostics-show-caret, under a hang guard; standard output must stay empty. It runs
again with source lines and carets: it must exit as before and print the same diagnostic
lines once those are left out.

Then the cases written here: versions read from git (git:REV:PATH, in a repository made in
the work directory), and the errors (a missing file, a bad git revision, a version with
errors, usage mistakes), each with its exact messages and exit status 2.

Prints `ok   NAME` or `FAIL NAME` (with a diff), then `N passed, M failed`.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 20
SOURCE_LINE = re.compile(r"^ *\d* \| ")


def run(mcpidlc, args, cwd, caret=False):
    cmd = [mcpidlc, "diff"] + ([] if caret else ["-fno-diagnostics-show-caret"]) + args
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, want_status, want_lines, got):
        status, out, err = got
        problems = []
        if status != want_status:
            problems.append("exit status %d, expected %d" % (status, want_status))
        if out:
            problems.append("standard output is not empty:\n" + out)
        lines = err.splitlines()
        if lines != want_lines:
            problems.append("\n".join(difflib.unified_diff(want_lines, lines, "expected", "got", lineterm="")))
        if problems:
            self.failed += 1
            print("FAIL %s" % name)
            for p in problems:
                print("  " + p.replace("\n", "\n  "))
        else:
            self.passed += 1
            print("ok   %s" % name)
        return not problems


def read_expected(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    if not lines or not re.match(r"^exit \d+$", lines[0]):
        sys.exit("%s: the first line must be 'exit N'" % path)
    return int(lines[0].split()[1]), lines[1:]


def file_cases(mcpidlc, cases, only, res):
    names = sorted(f[: -len(".old.mcp.yaml")] for f in os.listdir(cases) if f.endswith(".old.mcp.yaml"))
    for name in names:
        if only and name not in only:
            continue
        old, new = name + ".old.mcp.yaml", name + ".new.mcp.yaml"
        extra = []
        if os.path.exists(os.path.join(cases, name + ".args")):
            extra = open(os.path.join(cases, name + ".args")).read().split("\n")
            extra = [a for a in extra if a]
        for suffix, pair in ((".expected", [old, new]), (".reverse.expected", [new, old])):
            path = os.path.join(cases, name + suffix)
            if not os.path.exists(path):
                if suffix == ".expected":
                    sys.exit("%s: no %s" % (name, name + suffix))
                continue
            label = name + (" (reverse)" if "reverse" in suffix else "")
            status, lines = read_expected(path)
            if res.check(label, status, lines, run(mcpidlc, extra + pair, cases)):
                # With carets: the same exit status and diagnostic lines.
                s2, _, e2 = run(mcpidlc, extra + pair, cases, caret=True)
                shown = [l for l in e2.splitlines() if not SOURCE_LINE.match(l)]
                if s2 != status or shown != lines:
                    res.failed += 1
                    res.passed -= 1
                    print("FAIL %s (with carets): exit %d, lines differ" % (label, s2))


def git(cwd, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    subprocess.run(["git"] + list(args), cwd=cwd, env=env, check=True, capture_output=True)


def written_cases(mcpidlc, cases, work, res):
    base = open(os.path.join(cases, "required_param.old.mcp.yaml")).read()
    changed = open(os.path.join(cases, "required_param.new.mcp.yaml")).read()
    _, want = read_expected(os.path.join(cases, "required_param.expected"))
    repo = os.path.join(work, "repo")
    shutil.rmtree(repo, ignore_errors=True)
    os.makedirs(os.path.join(repo, "idl"))
    contract = os.path.join(repo, "idl", "weather.mcp.yaml")
    git(repo, "init", "-q")
    with open(contract, "w") as f:
        f.write(base)
    git(repo, "add", "idl/weather.mcp.yaml")
    git(repo, "commit", "-q", "-m", "v1")
    with open(contract, "w") as f:
        f.write(changed)

    def renamed(lines, old, new):
        return [l.replace("required_param.old.mcp.yaml", old).replace("required_param.new.mcp.yaml", new)
                for l in lines]

    # The committed version against the working tree, from the top and from a subdirectory.
    res.check("git: HEAD against the working tree", 1, renamed(want, "git:HEAD:idl/weather.mcp.yaml", "idl/weather.mcp.yaml"),
              run(mcpidlc, ["git:HEAD:idl/weather.mcp.yaml", "idl/weather.mcp.yaml"], repo))
    res.check("git: a path relative to the current directory", 1,
              renamed(want, "git:HEAD:./weather.mcp.yaml", "weather.mcp.yaml"),
              run(mcpidlc, ["git:HEAD:./weather.mcp.yaml", "weather.mcp.yaml"], os.path.join(repo, "idl")))
    # Two revisions; then the same file at one revision: no change.
    git(repo, "commit", "-q", "-a", "-m", "v2")
    res.check("git: two revisions", 1, renamed(want, "git:HEAD~1:idl/weather.mcp.yaml", "git:HEAD:idl/weather.mcp.yaml"),
              run(mcpidlc, ["git:HEAD~1:idl/weather.mcp.yaml", "git:HEAD:idl/weather.mcp.yaml"], repo))
    res.check("git: no change", 0, [], run(mcpidlc, ["git:HEAD:idl/weather.mcp.yaml", "idl/weather.mcp.yaml"], repo))
    # Errors: exit status 2.
    r = run(mcpidlc, ["git:nosuchrev:idl/weather.mcp.yaml", "idl/weather.mcp.yaml"], repo)
    lines = [l for l in r[2].splitlines() if l.startswith("mcpidlc")]
    res.check("git: an unknown revision", 2,
              ["mcpidlc: error: cannot read 'git:nosuchrev:idl/weather.mcp.yaml': git show failed"],
              (r[0], r[1], "\n".join(lines)))
    res.check("git: not REV:PATH", 2,
              ["mcpidlc diff: error: 'git:HEAD' is not git:REV:PATH",
               "Try 'mcpidlc diff --help' for more information."],
              run(mcpidlc, ["git:HEAD", "idl/weather.mcp.yaml"], repo))

    res.check("a missing file", 2,
              ["mcpidlc: error: cannot open 'nowhere.mcp.yaml': No such file or directory"],
              run(mcpidlc, ["required_param.old.mcp.yaml", "nowhere.mcp.yaml"], cases))
    res.check("a version with errors", 2,
              ["invalid/invalid.mcp.yaml:7:13: error: unknown type 'Strr'; did you mean 'str'?",
               "mcpidlc: error: 'invalid/invalid.mcp.yaml' has errors; it cannot be compared"],
              run(mcpidlc, ["required_param.old.mcp.yaml", "invalid/invalid.mcp.yaml"], cases))
    res.check("an unknown kind for --allow", 2,
              ["mcpidlc diff: error: unknown kind of change 'breaking' (known: removed, added, required, "
               "input-removed, input-narrowed, input-values, input-widened, output-removed, output-optional, "
               "output-widened, output-values, output-narrowed, default-changed, description, type-renamed)",
               "Try 'mcpidlc diff --help' for more information."],
              run(mcpidlc, ["--allow", "breaking", "required_param.old.mcp.yaml", "required_param.new.mcp.yaml"], cases))
    res.check("one version only", 2,
              ["mcpidlc diff: error: no NEW version to compare with", "Try 'mcpidlc diff --help' for more information."],
              run(mcpidlc, ["required_param.old.mcp.yaml"], cases))
    res.check("an unknown option", 2,
              ["mcpidlc diff: error: unknown option '--brief'", "Try 'mcpidlc diff --help' for more information."],
              run(mcpidlc, ["--brief", "a", "b"], cases))
    # A version on standard input.
    p = subprocess.run([mcpidlc, "diff", "-fno-diagnostics-show-caret", "required_param.old.mcp.yaml", "-"],
                       cwd=cases, input=changed.encode(), capture_output=True, timeout=TIMEOUT)
    res.check("NEW on standard input", 1, renamed(want, "required_param.old.mcp.yaml", "<stdin>"),
              (p.returncode, p.stdout.decode(), p.stderr.decode()))
    # Each file against itself: nothing.
    for f in sorted(os.listdir(cases)):
        if f.endswith(".mcp.yaml") :
            st, out, err = run(mcpidlc, [f, f], cases)
            if st != 0 or out or err:
                res.failed += 1
                print("FAIL %s against itself: exit %d\n%s" % (f, st, err))
                break
    else:
        res.passed += 1
        print("ok   every version against itself: no change")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("cases")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    mcpidlc = os.path.abspath(a.mcpidlc)
    os.makedirs(a.work, exist_ok=True)
    res = Results()
    file_cases(mcpidlc, a.cases, set(a.only), res)
    if not a.only:
        written_cases(mcpidlc, a.cases, os.path.abspath(a.work), res)
    print("%d passed, %d failed" % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
