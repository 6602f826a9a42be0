#!/usr/bin/env python3
"""docs/tutorial.md, run end to end as written: its files written and its commands run in order in
a scratch folder, each shown output compared with what the command prints.

What each block of the page becomes (plan() says it for every block; check_blocks.py counts the
tutorial's blocks as checked by this test):

- ```sh and ```console blocks run in one shell session (its folder, exported variables and
  functions carry over from block to block); a console command's output must be the one shown
  (JSON-RPC answers in any order, as the page says), and a command shown without output must
  succeed;
- the first ```yaml block is weather.mcp.yaml; the later ones are added where the text says
  (`types:` between `server:` and `tools:`, each tool at the end), and the last one, "the whole
  weather.mcp.yaml", must be the file those additions made;
- the first ```c block is weather.c, each handler after it is added above `main`; a block that
  shows a part of the generated header must be in gen/weather.mcp.h, as mcpidlc writes it
  (comments included, spacing aside);
- the ```cmake block is weather/CMakeLists.txt, the ```js block client.mjs; ```python blocks
  must be Python (they show the SDK's side, which is not run);
- the ```json block must be the output schema of the tool added last; a text block after a call
  must be the call's text content; the diagnostic shown for `returns: WeatherDta` must be what
  `cmake --build build` prints for that mistake.

As the page says, after each change to the YAML or to weather.c, `mcpidlc --emit=c -o gen
weather.mcp.yaml` and the `cc` command run again before the server is called.

What cannot run in a test is replaced, and only that:

- `sudo apt-get install ...`: each package it names must be installed (dpkg-query), nothing is
  installed;
- the mcpidl checkout `mcpidl/` beside `weather/` is a folder of links to the sources under
  test, and `mcpidl/build` is the build tree under test: "Build mcpidl" (`cmake -S mcpidl -B
  mcpidl/build ...`) is not run again;
- `--help` says how many CPUs the machine has: the shown count is put in the place of this
  machine's before comparing;
- `npx -y @modelcontextprotocol/inspector` and `npm install @modelcontextprotocol/sdk` use the
  packages pinned in tests/e2e (weather/node_modules links to tests/e2e/node_modules, whose node
  comes first on PATH) instead of the network; without them (no scripts/setup.sh) those steps
  are left out, and the test says so.

    tutorial.py --build BUILD_DIR [--work DIR] ROOT
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
PAGE = os.path.join("docs", "tutorial.md")


def page_blocks(text):
    """(line, language, body) of each fenced block."""
    for m in FENCE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)


def kind(lang, body, state):
    """What the runner does with a block (None: nothing), from its language and content."""
    if lang == "sh" and body.lstrip().startswith("sudo apt-get install"):
        return "apt"
    if lang == "sh" and body.lstrip().startswith("cmake -S mcpidl -B mcpidl/build"):
        return "build-mcpidl"
    if lang == "sh" and body.lstrip().startswith("cc "):
        return "cc"
    if lang in ("sh", "console"):
        return "shell"
    if lang == "" and body.startswith("mcpidl/"):
        return "layout"
    if lang == "python":
        return "python"
    if lang == "yaml":
        if re.search(r"^mcpidl: 1\s*$", body, re.M):
            state["yaml"] = state.get("yaml", 0) + 1
            return "yaml-file" if state["yaml"] == 1 else "yaml-whole"
        return "yaml-add"
    if lang == "c":
        if body.startswith("/* weather.c"):
            return "c-file"
        if re.match(r"\s*mcp_status weather_\w+\(.*?\)\s*\{", body, re.S):
            return "c-handler"
        return "c-header"
    if lang == "cmake":
        return "cmake"
    if lang == "js":
        return "js"
    if lang == "json":
        return "json-schema"
    if lang == "" and "validation error" in body and "^" not in body:
        return "text-content"
    if lang == "" and body.lstrip().startswith("{"):
        return "text-content"
    if lang == "" and "error: unknown type" in body:
        return "diagnostic"
    return None


def plan(text):
    """{line: what the runner does} for every block of the page; None where it does nothing."""
    state = {}
    return {line: kind(lang, body, state) for line, lang, body in page_blocks(text)}


def normalize_c(text):
    return " ".join(re.sub(r"/\*.*?\*/", " ", text, flags=re.S).split())


class Shell:
    """One shell session, run a command at a time: its folder, exported variables and
    functions are saved after each command and restored before the next."""

    def __init__(self, cwd, env):
        self.state = os.path.join(cwd, ".tutorial-shell-state")
        with open(self.state, "w") as f:
            f.write("cd %s\n" % shlex.quote(cwd))
        self.env = env

    def run(self, command):
        script = ("source %s\n%s\n__status=$?\n{ echo \"cd $(printf %%q \"$PWD\")\"; export -p; declare -f; } > %s\n"
                  "exit $__status\n") % (shlex.quote(self.state), command, shlex.quote(self.state))
        p = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, text=True, env=self.env, timeout=600)
        return p.returncode, p.stdout

    def cwd(self):
        _, out = self.run("pwd")
        return out.strip()


def console_commands(body):
    """[(command, shown output lines)] of a console block: a command starts with '$ ' and goes on
    while its lines end with a backslash or a pipe."""
    lines = body.rstrip("\n").split("\n")
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            raise ValueError("a console block line that is neither a command nor after one: %r" % lines[i])
        cmd = [lines[i][2:]]
        while cmd[-1].endswith("\\") or cmd[-1].endswith("|"):
            i += 1
            cmd.append(lines[i])
        i += 1
        shown = []
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        out.append(("\n".join(cmd), shown))
    return out


class Tutorial:
    def __init__(self, args):
        self.root = os.path.abspath(args.root)
        self.build = os.path.abspath(args.build)
        self.work = args.work
        self.failures = []
        self.passed = 0
        self.left_out = []
        self.dirty = False  # weather.mcp.yaml or weather.c changed since the server was built
        self.cc = None
        self.last_call_text = None
        self.last_tool = None
        e2e = os.path.join(self.root, "tests", "e2e", "node_modules")
        self.node_modules = e2e if os.path.isfile(os.path.join(e2e, ".bin", "node")) else None

    def ok(self, where, what):
        self.passed += 1
        print("ok   %s: %s" % (where, what), flush=True)

    def fail(self, where, what):
        self.failures.append("%s: %s" % (where, what))
        print("FAIL %s: %s" % (where, what), flush=True)

    def weather(self, name):
        return os.path.join(self.work, "weather", name)

    def read(self, name):
        with open(self.weather(name), encoding="utf-8") as f:
            return f.read()

    def write(self, name, text):
        with open(self.weather(name), "w", encoding="utf-8") as f:
            f.write(text)
        self.dirty = True

    def sh(self, where, command, expect_ok=True):
        status, out = self.shell.run(command)
        if expect_ok and status != 0:
            self.fail(where, "'%s' exited with status %d:\n%s" % (command, status, out))
        return status, out

    def rebuild(self, where):
        """What the page says to do after each change: mcpidlc --emit=c, then the cc command."""
        if not self.dirty or self.cc is None:
            return
        self.sh(where, "mcpidlc --emit=c -o gen weather.mcp.yaml")
        self.sh(where, self.cc)
        self.dirty = False

    # ---------------------------------------------------------------------------------------

    def setup(self):
        if os.path.isdir(self.work):
            shutil.rmtree(self.work)
        os.makedirs(os.path.join(self.work, "mcpidl"))
        for name in os.listdir(self.root):
            if name in (".git", "build") or name.startswith("build"):
                continue
            os.symlink(os.path.join(self.root, name), os.path.join(self.work, "mcpidl", name))
        os.symlink(self.build, os.path.join(self.work, "mcpidl", "build"))
        env = dict(os.environ)
        env.pop("MAKEFLAGS", None)
        env["CMAKE_BUILD_PARALLEL_LEVEL"] = "2"
        self.shell = Shell(self.work, env)

    def run(self):
        self.setup()
        with open(os.path.join(self.root, PAGE), encoding="utf-8") as f:
            text = f.read()
        state = {}
        for line, lang, body in page_blocks(text):
            where = "%s:%d" % (PAGE, line)
            what = kind(lang, body, state)
            if what is None:
                self.fail(where, "a block the tutorial test does not know what to do with")
                continue
            getattr(self, "do_" + what.replace("-", "_"))(where, body)
        return self.failures

    def do_apt(self, where, body):
        names = [w for w in body.replace("\\\n", " ").split()[3:] if not w.startswith("-")]
        if not shutil.which("dpkg-query"):
            self.left_out.append("%s: no dpkg-query to see the packages are installed" % where)
            return
        p = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${db:Status-Abbrev}\n"] + names,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        missing = [n for n in names if not re.search(r"^%s(:\S+)? ii" % re.escape(n), p.stdout, re.M)]
        if missing:
            self.fail(where, "the packages the tutorial installs are not all installed: %s" % missing)
        else:
            self.ok(where, "sudo apt-get install: the %d packages are installed (replaced: nothing installed)" % len(names))

    def do_layout(self, where, body):
        for name in ("mcpidl", "weather"):
            if not re.search(r"^%s/" % name, body, re.M):
                self.fail(where, "the layout does not show %s/" % name)
        self.ok(where, "mcpidl/ (the sources under test) and weather/ side by side")

    def do_build_mcpidl(self, where, body):
        if not os.path.isfile(os.path.join(self.build, "compiler", "mcpidlc")):
            self.fail(where, "the build tree under test has no compiler/mcpidlc")
            return
        for path in ("build/compiler/mcpidlc", "build/lib/libmcpidl.a", "lib/include/mcpidl/mcpidl.h"):
            if not os.path.exists(os.path.join(self.work, "mcpidl", path)):
                self.fail(where, "mcpidl/%s, which the tutorial uses, does not exist" % path)
        self.ok(where, "mcpidl/build is the build tree under test (replaced: not built again)")

    def do_shell(self, where, body):
        if body.startswith("$ "):
            self.console(where, body)
            return
        self.sh(where, body)
        self.ok(where, "ran")

    def console(self, where, body):
        for command, shown in console_commands(body):
            if re.search(r"(^|\s)(call|\./weather-server)\b", command):
                self.rebuild(where)
            if command.startswith("npx ") or command.startswith("node "):
                if not self.node_modules or (command.startswith("npx ") and not shutil.which("npx")):
                    self.left_out.append("%s: %s (no tests/e2e/node_modules or no npx: run scripts/setup.sh)"
                                         % (where, command))
                    continue
                self.link_node_modules()
            if command == "mcpidlc --init notes":
                self.console_init(where, command, shown)
                continue
            status, out = self.shell.run(command)
            got = out.rstrip("\n").split("\n") if out.strip() else []
            if "--help" in command:
                m = re.search(r"here (\d+)\)", "\n".join(shown))
                if m:
                    got = [re.sub(r"here \d+\)", "here %s)" % m.group(1), l) for l in got]
            if shown and all(l.startswith('{"jsonrpc"') for l in got + shown):
                # the page says: answers go out as they are ready, each naming its request's id
                got, shown = sorted(got), sorted(shown)
            if shown and got != shown:
                self.fail(where, "'%s' (status %d) prints\n%s\nbut the page shows\n%s"
                          % (command, status, "\n".join(got), "\n".join(shown)))
            elif not shown and status != 0:
                self.fail(where, "'%s' exited with status %d:\n%s" % (command, status, out))
            else:
                self.ok(where, command.split("\n")[0])
            if shown and got == shown and shown[-1].startswith('{"jsonrpc"'):
                result = json.loads(max(shown, key=lambda l: json.loads(l).get("id") or 0)).get("result", {})
                if result.get("content"):
                    self.last_call_text = result["content"][0].get("text")

    def console_init(self, where, command, shown):
        """`mcpidlc --init notes`, before the tutorial proper: in a folder of its own, with the
        mcpidlc under test on PATH."""
        hurry = os.path.join(self.work, "in-a-hurry")
        os.makedirs(hurry, exist_ok=True)
        env = dict(self.shell.env, PATH=os.path.join(self.build, "compiler") + os.pathsep + os.environ["PATH"])
        p = subprocess.run(["bash", "-c", command], cwd=hurry, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        got = p.stdout.rstrip("\n").split("\n")
        if got != shown or p.returncode != 0:
            self.fail(where, "'%s' prints\n%s\nbut the page shows\n%s" % (command, p.stdout, "\n".join(shown)))
        else:
            self.ok(where, command)

    def link_node_modules(self):
        link = self.weather("node_modules")
        if not os.path.lexists(link):
            os.symlink(self.node_modules, link)
            bin_dir = os.path.join(self.node_modules, ".bin")
            self.shell.run("export PATH=%s:\"$PATH\"" % shlex.quote(bin_dir))

    def do_cc(self, where, body):
        self.cc = body.strip()
        self.sh(where, self.cc)
        self.dirty = False
        self.ok(where, "cc builds weather-server")

    def do_python(self, where, body):
        try:
            compile(body, where, "exec")
            self.ok(where, "Python")
        except SyntaxError as e:
            self.fail(where, "not Python: %s" % e)

    def do_yaml_file(self, where, body):
        self.write("weather.mcp.yaml", body)
        self.ok(where, "weather.mcp.yaml written")

    def do_yaml_add(self, where, body):
        idl = self.read("weather.mcp.yaml")
        if body.startswith("types:"):
            if "\ntools:" not in idl:
                self.fail(where, "weather.mcp.yaml has no tools: to put the types before")
                return
            idl = idl.replace("\ntools:", "\n" + body + "tools:", 1)
        else:
            idl = idl + body
            m = re.search(r"^  (\w+):", body, re.M)
            self.last_tool = m.group(1) if m else None
        self.write("weather.mcp.yaml", idl)
        self.sh(where, "mcpidlc -Werror --check weather.mcp.yaml")
        self.ok(where, "added to weather.mcp.yaml, which compiles")

    def do_yaml_whole(self, where, body):
        if body != self.read("weather.mcp.yaml"):
            self.fail(where, "the whole weather.mcp.yaml shown is not the file the page's additions made:\n%s"
                      % self.read("weather.mcp.yaml"))
        else:
            self.ok(where, "the whole weather.mcp.yaml is the file the page's additions made")

    def do_c_file(self, where, body):
        self.write("weather.c", body)
        self.ok(where, "weather.c written")

    def do_c_handler(self, where, body):
        c = self.read("weather.c")
        at = c.rfind("\nint main(")
        if at < 0:
            self.fail(where, "weather.c has no main to put the handler above")
            return
        self.write("weather.c", c[:at] + body + c[at:])
        self.ok(where, "handler added to weather.c above main")

    def do_c_header(self, where, body):
        self.sh(where, "mcpidlc --emit=c -o gen weather.mcp.yaml")
        header = " ".join(self.read(os.path.join("gen", "weather.mcp.h")).split())
        if " ".join(body.split()) not in header:  # as mcpidlc writes it, comments included
            self.fail(where, "gen/weather.mcp.h does not have:\n%s" % body)
        else:
            self.ok(where, "in gen/weather.mcp.h")

    def do_json_schema(self, where, body):
        out = os.path.join(self.work, "schemas-of-json-block")
        self.sh(where, "mcpidlc --emit=schema -o %s weather.mcp.yaml" % shlex.quote(out))
        path = os.path.join(out, "weather.%s.output.schema.json" % self.last_tool)
        with open(path, encoding="utf-8") as f:
            if json.load(f) != json.loads(body):
                self.fail(where, "the schema shown is not the output schema of %s" % self.last_tool)
            else:
                self.ok(where, "the output schema of %s" % self.last_tool)

    def do_text_content(self, where, body):
        if self.last_call_text is None or body.rstrip("\n") != self.last_call_text:
            self.fail(where, "the text shown is not the text content of the call before it: %r" % self.last_call_text)
        else:
            self.ok(where, "the text content of the call before it")

    def do_diagnostic(self, where, body):
        idl = self.read("weather.mcp.yaml")
        m = re.search(r"^  get_weather:\n(?:    .*\n)*?    returns: (WeatherData)$", idl, re.M)
        if not m:
            self.fail(where, "get_weather has no 'returns: WeatherData' to misspell")
            return
        self.write("weather.mcp.yaml", idl[:m.start(1)] + "WeatherDta" + idl[m.end(1):])
        try:
            status, out = self.sh(where, "cmake --build build", expect_ok=False)
            shown = body.replace(".../weather/", self.shell.cwd() + "/")
            if status == 0 or shown not in out:
                self.fail(where, "cmake --build build with returns: WeatherDta (status %d) does not print the "
                          "diagnostic shown:\n%s" % (status, out))
            else:
                self.ok(where, "cmake --build build prints the diagnostic of returns: WeatherDta")
        finally:
            self.write("weather.mcp.yaml", idl)

    def do_cmake(self, where, body):
        self.write("CMakeLists.txt", body)
        self.ok(where, "CMakeLists.txt written")

    def do_js(self, where, body):
        self.write("client.mjs", body)
        self.ok(where, "client.mjs written")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="the mcpidl build tree under test")
    ap.add_argument("--work", help="the scratch folder (default: a temporary one)")
    ap.add_argument("root")
    args = ap.parse_args()
    tmp = None
    if not args.work:
        tmp = tempfile.mkdtemp(prefix="tutorial.")
        args.work = tmp
    args.work = os.path.abspath(args.work)
    t = Tutorial(args)
    try:
        failures = t.run()
    finally:
        if tmp and not t.failures:
            shutil.rmtree(tmp, ignore_errors=True)
    for what in t.left_out:
        print("LEFT OUT " + what)
    print("tutorial: %d step(s) passed, %d failed, %d left out" % (t.passed, len(failures), len(t.left_out)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
