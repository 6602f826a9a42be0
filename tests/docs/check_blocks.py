#!/usr/bin/env python3
"""Every fenced block of README.md and docs/*.md is checked, or marked as not checkable with a
reason: a block that is neither fails the test, so that a page cannot drift from the code.

A block's markers are the HTML comments on the lines right above its opening fence. Checked:

- ```yaml, a whole IDL file (it has `mcpidl: 1`): compiles with `mcpidlc --check -Werror`; one
  whose first line is `# NAME.mcp.yaml` is saved as that file, for the blocks after it to import;
  `<!-- invalid example -->`: it must fail; `<!-- warning example -->`: it must warn;
- ```yaml, a part of one: put into the smallest file that holds it (`types:`, `tools:` or
  `resources:` at the top; `params:` or `returns:`, the body of a tool; `fields:`, the body of a
  model; two-space indented, entries of `tools:`), which must compile with -Werror;
  `<!-- yaml: with FILE -->` adds the whole IDL file FILE (see IDL below) to it instead,
  `<!-- yaml: in tools -->` makes it entries of `tools:`, `<!-- yaml: in fields -->` fields of a
  model; a marker that says `no -Werror` (and why) lets it warn;
- ```console after an IDL file, commands `$ mcpidlc ... NAME.mcp.yaml` (and `$ echo $?`): run
  on that file saved as NAME.mcp.yaml; the output and exit status must be the ones shown (a
  line `...` stands for any lines); `$ mcpidlc diff ... git:HEAD:NAME NAME` compares the page's
  last two whole IDL files, the one before committed in a scratch git repository;
- ```json: JSON (one value, or one JSON-RPC message per line);
- ```make: the Makefile of tests/consumer/makefile (checked by consumer_makefile);
- ```python: Python (compiled, not run); ```js: an ES module `node --check` accepts (when
  tests/e2e has its Node);
- ```c, with `<!-- c: MODE [IDL] [; given: DECLARATIONS] -->`; the code is compiled
  (-fsyntax-only) after <mcpidl/mcpidl.h>, <mcpidl/mock.h> and the C header mcpidlc writes for
  IDL:
    file     a whole C file (it includes the header itself);
    decls    declarations and definitions (handlers, main), after DECLARATIONS;
    body     statements, in a function whose parameters are DECLARATIONS (default: mcp_call *call);
    protos   prototypes of functions the headers declare: each must be declared there, with a
             type this one is compatible with;
    header   declarations of the generated header (or of the runtime's headers): each one of the
             block (a preprocessor line; text up to a ';' outside braces) as mcpidlc writes
             it, comments included, spacing aside, in any order; a line `...` leaves some out;
             a prototype only as the compiler sees it (compatible, declared);
    excerpt  the same of a file of the sources, IDL naming the file (or a folder of headers),
             comments aside;
  a line `...` in code stands for code left out; IDL is `above` (the last whole IDL file shown
  before the block on the same page), `fragment` (the file the last part of an IDL file shown
  on the page was checked in; its server is `doc`) or the path of an .mcp.yaml file in the
  sources (tests/docs/idl has those of handlers a page shows without their IDL); `sub=OLD:NEW`
  replaces OLD by NEW in the block first (a page's prefix `demo` for the example's);
- ```sh or ```console with `<!-- run: DIR -->`: run in a copy of DIR of the sources (`-` for an
  empty folder), with the mcpidlc under test on PATH: a sh block must succeed, a console
  block's commands must print what it shows (a command shown without output must succeed);
  DIR `checkout` is a folder of links to the sources, with `build` the build under test; a text
  block run that way is a sh block; `<!-- run: DIR with NAME from the next IDL file -->` also
  saves the next whole IDL file of the page as NAME there; `<!-- run: DIR with a git repository
  tagged TAG -->` commits the copy in a git repository and tags it; `<!-- run: DIR with the
  installation -->`: in docs_cmake, with the installation's mcpidlc and mcpidl.pc found first,
  and the weather-server the commands build must answer a tools/call;
- ```console with `<!-- run: server above -->`: `$ call TOOL ARGUMENTS` lines (the tutorial's
  shell function), on a server built from the whole IDL file above and every handler the page
  shows for it (`c: decls above`) with the build's libmcpidl.a: each prints what is shown;
- a block with `<!-- output of: COMMAND -->`: what COMMAND prints, run by bash in a checkout
  (as above) with mcpidlc and the example servers of the build on PATH ("here N" CPUs is the
  shown N);
  `<!-- lines in output of: COMMAND -->`: each of its lines is (the end of) a line COMMAND
  prints; `<!-- output of the block above -->`: what the sh block above, run, printed (JSON-RPC
  messages in any order: a server answers concurrent requests as they finish);
- a block with `<!-- text of the call: FOLDER TOOL ARGUMENTS -->`: the text of the answer to
  that tools/call, on the server built from FOLDER/NAME.mcp.yaml and FOLDER/NAME.c
  (tests/docs/servers);
- a block with `<!-- found in: PATH -->`: each of its lines is in a file under PATH of the
  sources (as written, or as a JSON string writes it): a text that a test asserts, such as a
  validation report the golden or unit tests expect;
- ```cmake with `<!-- cmake: project with DIR -->`: the CMakeLists.txt of a copy of DIR of the
  sources, configured against an installation of this build and built, and its weather-server
  answers a tools/call (`, mcpidl at PATH`: with a copy of the sources at PATH instead); run
  with --cmake-prefix (CTest docs_cmake), only counted without;
- docs/tutorial.md: each block the tutorial test (tutorial.py, CTest docs_tutorial) runs or
  compares.

Not checked, and so marked: `<!-- illustrative: REASON -->` (a command that installs system
packages, needs the network or a long-running server, a sketch with placeholders, an output
that depends on the machine). Exit status 0 when every block is checked and holds, or is marked.

    check_blocks.py --mcpidlc PATH --build BUILD_DIR ROOT
"""
import argparse
import collections
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tutorial  # noqa: E402

PROTO = re.compile(r"^(?!typedef|#|extern)[\w\s*]+\b\w+\s*\([^{}]*\)\s*;$")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)
MARKER = re.compile(r"^<!--\s*(.*?)\s*-->$")


def blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    end = 0
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        above = text[:m.start()].rstrip("\n").split("\n")
        markers = []
        while above and MARKER.match(above[-1].strip()):
            markers.insert(0, MARKER.match(above[-1].strip()).group(1))
            above.pop()
        heading = re.search(r"^#{1,6} ", text[end:m.start()], re.M) is not None
        end = m.end()
        yield line, m.group(1), m.group(2), markers, heading, text


def lines_match(got, shown):
    """The lines printed are the lines shown, where a line `...` stands for any lines."""
    pattern = "".join("(?:.*\n)*?" if l == "..." else re.escape(l) + "\n" for l in shown)
    return re.fullmatch(pattern, "".join(l + "\n" for l in got)) is not None


def run_console(mcpidlc, tmp, idl, body, where, old_idl=None):
    """The commands of a console block on the IDL file shown before it; what differs. `mcpidlc
    diff ... git:HEAD:NAME NAME` compares the file shown before it (OLD_IDL, committed in a
    scratch git repository) with it."""
    failures, status = [], None
    lines = body.rstrip("\n").split("\n")
    i = 0
    while i < len(lines):
        text = lines[i][2:]
        echo_status = text.endswith('; echo "exit status $?"')
        if echo_status:
            text = text[: -len('; echo "exit status $?"')]
        cmd = text.split()
        shown = []
        i += 1
        while i < len(lines) and not lines[i].startswith("$ "):
            shown.append(lines[i])
            i += 1
        if cmd == ["echo", "$?"]:
            if shown != [str(status)]:
                failures.append("%s: the page shows exit status %s, mcpidlc exited with %s" % (where, shown, status))
            continue
        diff = (cmd[1:2] == ["diff"] and old_idl is not None and len(cmd) > 3
                and cmd[-2] == "git:HEAD:" + cmd[-1] and shutil.which("git"))
        if (not cmd or cmd[0] != "mcpidlc" or (cmd[1:2] == ["diff"] and not diff)
                or not cmd[-1].endswith(".mcp.yaml") or "/" in cmd[-1]):
            failures.append("%s: '%s' is not a command this check runs on the IDL file above; mark the block"
                            % (where, " ".join(cmd)))
            break
        if diff:
            git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com", "-c", "init.defaultBranch=main"]
            subprocess.run(git + ["init", "-q"], cwd=tmp, check=True)
            with open(os.path.join(tmp, cmd[-1]), "w", encoding="utf-8") as f:
                f.write(old_idl)
            subprocess.run(git + ["add", cmd[-1]], cwd=tmp, check=True)
            subprocess.run(git + ["commit", "-q", "-m", "old"], cwd=tmp, check=True)
        with open(os.path.join(tmp, cmd[-1]), "w", encoding="utf-8") as f:
            f.write(idl)
        p = subprocess.run([mcpidlc] + cmd[1:], cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        status = p.returncode
        got = p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else []
        if echo_status:
            got.append("exit status %d" % status)
        if not lines_match(got, shown):
            failures.append("%s: '%s' prints\n%s\nbut the page shows\n%s"
                            % (where, " ".join(cmd), "\n".join(got), "\n".join(shown)))
    return failures


class Checker:
    def __init__(self, args, tmp):
        self.root = os.path.abspath(args.root)
        self.build = os.path.abspath(args.build)
        self.mcpidlc = os.path.abspath(args.mcpidlc)
        self.cc = args.cc
        self.tmp = tmp
        self.gen = {}
        self.last_fragment = None
        self.last_output = None
        self.servers = {}
        self.link_flags = args.link_flags.split()
        self.cmake_prefix = os.path.abspath(args.cmake_prefix) if args.cmake_prefix else None
        self.failures = []
        self.checked = collections.Counter()
        self.marked = collections.Counter()
        self.reasons = []
        self.count = 0
        node = os.path.join(self.root, "tests", "e2e", "node_modules", ".bin", "node")
        self.node = node if os.path.isfile(node) else None
        p = subprocess.run(["pkg-config", "--cflags", "json-c"], stdout=subprocess.PIPE, text=True)
        self.json_c_cflags = p.stdout.split() if p.returncode == 0 else []

    def fail(self, where, msg):
        self.failures.append("%s: %s" % (where, msg))

    def scratch(self, name):
        self.count += 1
        path = os.path.join(self.tmp, "%s-%d" % (name, self.count))
        os.makedirs(path)
        return path

    def mcpidlc_check(self, idl_text, werror=True):
        # Whole files share one folder: a block that starts with `# NAME.mcp.yaml` is saved under
        # that name, so that a later block can import it (imports: [NAME.mcp.yaml]).
        if not getattr(self, "idl_dir", None):
            self.idl_dir = self.scratch("idl")
        named = re.match(r"#\s*([\w-]+\.mcp\.yaml)\b", idl_text)
        self.count += 1
        path = os.path.join(self.idl_dir, named.group(1) if named else "block%d.mcp.yaml" % self.count)
        with open(path, "w", encoding="utf-8") as f:
            f.write(idl_text)
        return subprocess.run([self.mcpidlc, "--check"] + (["-Werror"] if werror else []) + [path],
                              capture_output=True, text=True)

    # -- IDL ----------------------------------------------------------------------------------

    def idl_source(self, name, above):
        """(file name, text) of the IDL a marker names."""
        if name == "fragment":
            if self.last_fragment is None:
                raise ValueError("no IDL fragment above the block on this page")
            return "doc.mcp.yaml", self.last_fragment
        if name == "above":
            if above is None:
                raise ValueError("no whole IDL file above the block on this page")
            m = re.search(r"^server:\s*\{?\s*(?:\n\s+)?name:\s*([\w-]+)", above, re.M)
            return (m.group(1) if m else "doc") + ".mcp.yaml", above
        with open(os.path.join(self.root, name), encoding="utf-8") as f:
            return os.path.basename(name), f.read()

    def generated(self, name, above):
        """The folder mcpidlc --emit=c wrote the header of IDL into, and the header's name."""
        fname, text = self.idl_source(name, above)
        key = hashlib.sha256((fname + "\0" + text).encode()).hexdigest()
        if key not in self.gen:
            d = self.scratch("gen")
            with open(os.path.join(d, fname), "w", encoding="utf-8") as f:
                f.write(text)
            p = subprocess.run([self.mcpidlc, "--emit=c", "-o", "gen", fname], cwd=d, capture_output=True, text=True)
            if p.returncode != 0:
                raise ValueError("mcpidlc --emit=c %s fails:\n%s" % (name, p.stderr))
            self.gen[key] = (os.path.join(d, "gen"), fname[: -len(".yaml")] + ".h")
        return self.gen[key]

    def yaml_fragment(self, where, body, markers, above):
        first = body.lstrip("\n").split("\n")[0]
        with_file = [m for m in markers if m.startswith("yaml: with ")]
        head = 'mcpidl: 1\nserver: {name: doc, version: "1.0.0"}\n'
        if with_file:
            _, text = self.idl_source(with_file[0][len("yaml: with "):].strip(), above)
            idl = text.rstrip("\n") + "\n" + body
        elif re.match(r"(types|tools|resources|resource_templates|prompts|elicitations):", first):
            idl = head + body
        elif re.match(r"(params|returns):", first):
            desc = "" if re.search(r"^description:", body, re.M) else "description: A tool.\n"
            ret = "" if re.search(r"^returns:", body, re.M) else "returns: int\n"
            idl = head + "tools:\n  t:\n" + indent(desc + body + ret, 4)
        elif any(m.startswith("yaml: in tools") for m in markers):
            idl = head + "tools:\n" + indent(body, 2)
        elif any(m.startswith("yaml: in fields") for m in markers) or re.match(r"[\w-]+: \{", first):
            idl = head + "types:\n  T:\n    fields:\n" + indent(body, 6)
        elif re.match(r"fields:", first):
            idl = head + "types:\n  T:\n" + indent(body, 4)
        elif re.match(r"  \w+:", first):
            idl = head + "tools:\n" + body
        else:
            self.fail(where, "a part of an IDL file this check cannot place: mark it <!-- yaml: with FILE --> "
                             "or <!-- illustrative: REASON -->")
            return
        self.last_fragment = idl
        p = self.mcpidlc_check(idl, werror=not any("no -Werror" in m for m in markers))
        if p.returncode != 0:
            self.fail(where, "the IDL fragment does not compile, as this file:\n%s\n%s" % (idl, p.stderr))
        self.checked["yaml fragment"] += 1

    # -- C ------------------------------------------------------------------------------------

    def c_check(self, where, body, spec, above):
        given = None
        if ";" in spec and "given:" in spec:
            spec, given = spec.split(";", 1)
            given = given.strip()[len("given:"):].strip()
        words = spec.split()
        for w in [w for w in words if w.startswith("sub=")]:
            words.remove(w)
            old, new = w[len("sub="):].split(":", 1)
            body = body.replace(old, new)
        mode, src = words[0], (words[1] if len(words) > 1 else None)
        if mode in ("excerpt", "header"):
            # prototypes are compared by the compiler (attributes, names of parameters aside);
            # the rest as text
            protos = [d for d in declarations(body) if PROTO.match(" ".join(d.split()))]
            rest = [d for d in declarations(body, comments=(mode == "header"))
                    if not PROTO.match(tutorial.normalize_c(d))]
            if mode == "excerpt":
                paths, src = [os.path.join(self.root, src)], None
            else:
                gen, header = self.generated(src, above)
                paths = [os.path.join(gen, header), os.path.join(self.root, "lib", "include", "mcpidl")]
            if not self.excerpt(where, "\n".join(rest), paths, comments=(mode == "header")) or not protos:
                return
            self.checked["c"] -= 1
            mode, body = "protos", "\n".join(protos)
        gen, header = self.generated(src, above) if src else (None, None)
        if mode not in ("file", "decls", "body", "protos"):
            self.fail(where, "unknown C mode '%s'" % mode)
            return
        body = re.sub(r"^(\s*)\.\.\.\s*$", r"\1/* ... */", body, flags=re.M)  # code left out
        pre = ["#define _POSIX_C_SOURCE 200809L"]
        if mode != "file":
            pre += ["#include <%s>" % h for h in ("stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
                                                  "string.h", "unistd.h", "mcpidl/mcpidl.h", "mcpidl/mock.h",
                                                  "mcpidl/runtime.h", "mcpidl/http.h")]
            if header:
                pre.append('#include "%s"' % header)
        if mode == "body":
            code = "\n".join(pre) + "\nmcp_status doc_block(%s);\nmcp_status doc_block(%s)\n{\n%s\nreturn MCP_OK;\n}\n" % (
                (given or "mcp_call *call",) * 2 + (body,))
        elif mode == "decls":
            code = "\n".join(pre) + "\n" + (given + "\n" if given else "") + body
        else:
            code = "\n".join(pre) + "\n" + body
        d = self.scratch("c")
        path = os.path.join(d, "block.c")
        with open(path, "w", encoding="utf-8") as f:
            f.write(code)
        cmd = [self.cc, "-std=c11", "-fsyntax-only", "-Werror=implicit-function-declaration",
               "-I", os.path.join(self.root, "lib", "include"),
               "-I", os.path.join(self.root, "compiler", "include")] + self.json_c_cflags
        if gen:
            cmd += ["-I", gen]
        p = subprocess.run(cmd + [path], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
        if p.returncode != 0:
            self.fail(where, "the C block does not compile (%s):\n%s" % (spec, p.stderr))
        elif mode == "protos":
            # compatible with the headers' declarations (or the compile above fails), and declared
            # by them: without the block, each name must still be known
            names = re.findall(r"\b(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*;", re.sub(r"/\*.*?\*/", "", body, flags=re.S))
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(pre) + "\nvoid doc_names(void);\nvoid doc_names(void)\n{\n%s}\n"
                        % "".join("    (void)&%s;\n" % n for n in names))
            p = subprocess.run(cmd + [path], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
            if p.returncode != 0 or not names:
                self.fail(where, "the headers do not declare every function the page shows (%s):\n%s"
                          % (", ".join(names), p.stderr))
        self.checked["c"] += 1

    def excerpt(self, where, body, paths, comments=False):
        files = []
        for path in paths:
            files += sorted(glob.glob(os.path.join(path, "*.h"))) if os.path.isdir(path) else [path]
        path = paths[0]
        text = ""
        for f in files:
            with open(f, encoding="utf-8") as fh:
                text += "\n" + fh.read()
        norm = (lambda s: " ".join(s.split())) if comments else tutorial.normalize_c
        hay = norm(text)
        for piece in declarations(body, comments):
            needle = norm(piece)
            if needle and needle not in hay:
                self.fail(where, "%s does not have (spacing aside):\n%s"
                          % (os.path.relpath(path, self.tmp if path.startswith(self.tmp) else self.root), piece))
                return False
        self.checked["c"] += 1
        return True

    # -- commands -----------------------------------------------------------------------------

    def env(self):
        env = dict(os.environ)
        env["PATH"] = os.path.dirname(self.mcpidlc) + os.pathsep + env["PATH"]
        return env

    def run_block(self, where, lang, body, folder, files=None, tag=None):
        d = self.checkout() if folder == "checkout" else self.scratch("run")
        if folder not in ("-", "checkout"):
            shutil.rmtree(d)
            shutil.copytree(os.path.join(self.root, folder), d)
        for name, text in (files or {}).items():
            with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                f.write(text)
        if tag:  # the folder committed in a git repository of its own, tagged TAG
            git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com", "-c", "init.defaultBranch=main"]
            for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "release"], ["tag", tag]):
                subprocess.run(git + step, cwd=d, check=True, stdout=subprocess.DEVNULL)
        if lang != "console":
            p = subprocess.run(["bash", "-e", "-c", body], cwd=d, env=self.env(), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=300)
            if p.returncode != 0:
                self.fail(where, "the commands exit with status %d:\n%s" % (p.returncode, p.stdout))
            self.last_output = p.stdout
        else:
            for command, shown in tutorial.console_commands(body):
                p = subprocess.run(["bash", "-c", command], cwd=d, env=self.env(), stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=300)
                got = p.stdout.rstrip("\n").split("\n") if p.stdout.strip() else []
                if shown and got != shown:
                    self.fail(where, "'%s' prints\n%s\nbut the page shows\n%s" % (command, p.stdout, "\n".join(shown)))
                elif not shown and p.returncode != 0:
                    self.fail(where, "'%s' exits with status %d:\n%s" % (command, p.returncode, p.stdout))
        self.checked[lang or "text"] += 1

    def cmake_project(self, where, body, spec):
        """The CMakeLists.txt of the block, in a copy of DIR, configured against the installation
        under test (or with a copy of the sources where it says), built, and its server called."""
        folder, _, at = spec.partition(", mcpidl at ")
        d = self.scratch("cmake")
        shutil.rmtree(d)
        shutil.copytree(os.path.join(self.root, folder.strip()), d)
        with open(os.path.join(d, "CMakeLists.txt"), "w", encoding="utf-8") as f:
            f.write(body)
        cmd = ["cmake", "-S", d, "-B", os.path.join(d, "build")]
        if at:
            src = os.path.join(d, at.strip())
            os.makedirs(src)
            for name in os.listdir(self.root):
                if not name.startswith("build") and name not in (".git", "tests", "bench"):
                    os.symlink(os.path.join(self.root, name), os.path.join(src, name))
        else:
            cmd.append("-DCMAKE_PREFIX_PATH=" + self.cmake_prefix)
        for step in (cmd, ["cmake", "--build", os.path.join(d, "build"), "--parallel", "2"]):
            p = subprocess.run(step, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
            if p.returncode != 0:
                self.fail(where, "'%s' exits with status %d:\n%s" % (" ".join(step), p.returncode, p.stdout[-4000:]))
                return
        self.call_weather(where, os.path.join(d, "build", "weather-server"))

    def run_installed(self, where, body, folder):
        """The commands of the block in a copy of FOLDER, with the installation's mcpidlc and
        pkg-config files found first; then the weather-server they built answers a call."""
        d = self.scratch("installed")
        shutil.rmtree(d)
        shutil.copytree(os.path.join(self.root, folder), d)
        pcs = sorted(glob.glob(os.path.join(self.cmake_prefix, "**", "mcpidl.pc"), recursive=True))
        if not pcs:
            raise ValueError("no mcpidl.pc in the installation")
        env = dict(os.environ)
        env["PATH"] = os.path.join(self.cmake_prefix, "bin") + os.pathsep + env["PATH"]
        env["PKG_CONFIG_PATH"] = os.path.dirname(pcs[0])
        p = subprocess.run(["bash", "-e", "-c", body], cwd=d, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=300)
        if p.returncode != 0:
            self.fail(where, "the commands exit with status %d:\n%s" % (p.returncode, p.stdout))
            return
        lib = os.path.dirname(os.path.realpath(glob.glob(os.path.join(os.path.dirname(pcs[0]), "..", "libmcpidl.so"))[0]))
        self.call_weather(where, os.path.join(d, "weather-server"), dict(os.environ, LD_LIBRARY_PATH=lib))

    def call_weather(self, where, server, env=None):
        """A weather server built from a page answers tools/call get_weather."""
        calls = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
                 '"capabilities":{},"clientInfo":{"name":"docs","version":"0"}}}\n'
                 '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                 '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_weather",'
                 '"arguments":{"city":"London"}}}\n')
        p = subprocess.run([server], input=calls, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=60, env=env)
        answers = {a.get("id"): a for a in (json.loads(l) for l in p.stdout.splitlines() if l.strip())}
        result = answers.get(2, {}).get("result", {})
        if p.returncode != 0 or result.get("isError") is not False or "structuredContent" not in result:
            self.fail(where, "the server built answers tools/call get_weather with %s%s" % (p.stdout, p.stderr))

    def server(self, above, folder=None):
        """The server of the whole IDL file ABOVE with the handlers the page shows for it (or of
        the IDL file and C file of FOLDER of the sources), built against the build's
        libmcpidl.a: the folder it is in, as weather-server."""
        if folder:
            name = os.path.basename(folder)
            with open(os.path.join(self.root, folder, name + ".mcp.yaml"), encoding="utf-8") as f:
                above = f.read()
        key = hashlib.sha256(above.encode()).hexdigest()
        if key in self.servers:
            return self.servers[key]
        src = os.path.join(folder, name + ".mcp.yaml") if folder else "above"
        fname, _ = self.idl_source(src, above)
        gen, header = self.generated(src, above)
        prefix = fname[: -len(".mcp.yaml")]
        d = self.scratch("server")
        if folder:
            shutil.copy(os.path.join(self.root, folder, name + ".c"), os.path.join(d, "server.c"))
        else:
            code = ["#define _POSIX_C_SOURCE 200809L"]
            code += ["#include <%s>" % h for h in ("stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
                                                    "string.h", "mcpidl/mcpidl.h")]
            code.append('#include "%s"' % header)
            for given, body in self.handlers[above]:
                code += [given, re.sub(r"^(\s*)\.\.\.\s*$", r"\1/* ... */", body, flags=re.M)]
            code.append("int main(int argc, char **argv) { return mcp_main(&%s_server, argc, argv); }" % prefix)
            with open(os.path.join(d, "server.c"), "w", encoding="utf-8") as f:
                f.write("\n".join(code) + "\n")
        libs = subprocess.run(["pkg-config", "--libs", "json-c", "libpcre2-8", "nettle"], stdout=subprocess.PIPE,
                              text=True, check=True).stdout.split()
        cmd = ([self.cc, "-std=c11", "-I", gen, "-I", os.path.join(self.root, "lib", "include")]
               + self.json_c_cflags + self.link_flags
               + [os.path.join(d, "server.c"), os.path.join(gen, prefix + ".mcp.c"),
                  os.path.join(self.build, "lib", "libmcpidl.a")] + libs + ["-lpthread", "-lm", "-o",
                                                                           os.path.join(d, "weather-server")])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise ValueError("the server of the IDL file above and the page's handlers does not build:\n%s" % p.stdout)
        self.servers[key] = d
        return d

    def run_server(self, where, body, above):
        """A console block of `call TOOL ARGUMENTS` lines (the tutorial's shell function) on the
        server self.server() builds."""
        if above is None:
            raise ValueError("no whole IDL file above the block on this page")
        d = self.server(above)
        with open(os.path.join(self.root, tutorial.PAGE), encoding="utf-8") as f:
            m = re.search(r"^```sh\n(call\(\) \{.*?^\})\n```", f.read(), re.S | re.M)
        if not m:
            raise ValueError("the tutorial defines no call() function")
        for command, shown in tutorial.console_commands(body):
            if not command.startswith("call "):
                raise ValueError("'%s' is not a call of the server" % command)
            p = subprocess.run(["bash", "-c", m.group(1) + "\n" + command], cwd=d, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=60)
            got = p.stdout.rstrip("\n").split("\n")
            if got != shown:
                self.fail(where, "'%s' prints\n%s\nbut the page shows\n%s" % (command, p.stdout, "\n".join(shown)))
        self.checked["console"] += 1

    def text_of_call(self, where, body, spec):
        """The text of the result of one tools/call on the server of FOLDER is the block."""
        folder, tool, arguments = spec.split(None, 2)
        d = self.server(None, folder)
        calls = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": {"name": "docs", "version": "0"}}},
                 {"jsonrpc": "2.0", "method": "notifications/initialized"},
                 {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": tool, "arguments": json.loads(arguments)}}]
        p = subprocess.run([os.path.join(d, "weather-server")], input="".join(json.dumps(c) + "\n" for c in calls),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        answers = {a.get("id"): a for a in (json.loads(l) for l in p.stdout.splitlines() if l.strip())}
        content = answers.get(2, {}).get("result", {}).get("content") or [{}]
        if content[0].get("text") != body.rstrip("\n"):
            self.fail(where, "tools/call %s %s answers\n%s\nbut the page shows\n%s"
                      % (tool, arguments, content[0].get("text"), body))
        self.checked["text"] += 1

    def checkout(self):
        """A scratch folder of links to the sources, with `build` the build under test."""
        d = self.scratch("checkout")
        for name in os.listdir(self.root):
            if not name.startswith("build") and name != ".git":
                os.symlink(os.path.join(self.root, name), os.path.join(d, name))
        os.symlink(self.build, os.path.join(d, "build"))
        return d

    def found_in(self, where, kind, body, folder):
        """Each line of the block is in a file under FOLDER of the sources (as it is, or as a JSON
        string writes it): the text a test asserts."""
        texts = []
        base = os.path.join(self.root, folder)
        for dirpath, dirnames, files in os.walk(base) if os.path.isdir(base) else [(os.path.dirname(base), [], [os.path.basename(base)])]:
            dirnames[:] = [d for d in dirnames if d != "node_modules"]
            for name in files:
                try:
                    with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                        texts.append(f.read())
                except (UnicodeDecodeError, OSError):
                    pass
        # also with comment signs and spacing aside, for a signature a comment spreads over lines
        flat = [" ".join(re.sub(r"^\s*(#|//|\*)\s?", "", t, flags=re.M).split()) for t in texts]
        for line in body.splitlines():
            l = line.strip()
            if not l:
                continue
            forms = {l, json.dumps(l)[1:-1], json.dumps(l, ensure_ascii=False)[1:-1]}
            if (not any(f in t for t in texts for f in forms)
                    and not any(" ".join(l.split()) in t for t in flat)):
                self.fail(where, "no file under %s has the line: %s" % (folder, l))
        self.checked[kind] += 1

    def output_of(self, where, lang, body, command):
        d = self.checkout()
        env = self.env()
        env["PATH"] = os.path.join(self.build, "examples") + os.pathsep + env["PATH"]
        env["LC_ALL"] = "C"
        p = subprocess.run(["bash", "-c", command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           cwd=d, env=env, timeout=120)
        got = p.stdout
        m = re.search(r"here (\d+)\)", body)
        if m:
            got = re.sub(r"here \d+\)", "here %s)" % m.group(1), got)
        if got.rstrip("\n") != body.rstrip("\n"):
            self.fail(where, "'%s' prints\n%s\nbut the page shows\n%s" % (command, got, body))
        self.checked[lang or "text"] += 1

    # -- the pages ----------------------------------------------------------------------------

    def page(self, path):
        rel = os.path.relpath(path, self.root)
        last_idl = None  # the whole IDL file of this section, for console blocks
        above = None     # the last whole IDL file of the page
        plan = None
        wholes = []      # the whole IDL files of the page, for mcpidlc diff
        self.page_idls = None
        # the handlers the page shows for each whole IDL file (`c: decls above`), for the server
        # `run: server above` builds
        self.handlers = collections.defaultdict(list)
        cur = None
        for _, lang, body, markers, _, _ in blocks(path):
            if lang == "yaml" and re.search(r"^mcpidl: 1\s*$", body, re.M) and "invalid example" not in markers:
                cur = body
            spec = [m for m in markers if m.startswith("c: decls above")]
            if lang == "c" and spec and cur is not None:
                given = spec[0].split("given:", 1)[1].strip() if "given:" in spec[0] else ""
                self.handlers[cur].append((given, body))
        for line, lang, body, markers, heading, text in blocks(path):
            if self.page_idls is None:
                self.page_idls = [(text.count("\n", 0, m.start()) + 1, m.group(2)) for m in FENCE.finditer(text)
                                  if m.group(1) == "yaml" and re.search(r"^mcpidl: 1\s*$", m.group(2), re.M)]
            if plan is None and rel == tutorial.PAGE:
                plan = tutorial.plan(text)
            where = "%s:%d" % (rel, line)
            if heading:
                last_idl = None  # a console block runs the file of its own section
            try:
                self.block(where, line, lang, body, markers, heading, plan, last_idl, above, wholes)
            except (ValueError, OSError, subprocess.SubprocessError) as e:
                self.fail(where, str(e))
            if lang == "yaml":
                whole = re.search(r"^mcpidl: 1\s*$", body, re.M) is not None
                last_idl = body if whole else None
                if whole and "invalid example" not in markers:
                    above = body
                    wholes.append(body)

    def block(self, where, line, lang, body, markers, heading, plan, last_idl, above, wholes):
        kind = lang or "text"
        if self.cmake_prefix and not any(m.startswith("cmake: project with ") or m.endswith(" with the installation")
                                         for m in markers):
            return  # docs_cmake builds against the installation only; docs_blocks checks the rest
        for m in markers:
            if m.startswith("illustrative:"):
                reason = m[len("illustrative:"):].strip()
                if not reason:
                    self.fail(where, "an illustrative block needs a reason")
                self.marked[kind] += 1
                self.reasons.append("%s (%s): %s" % (where, kind, reason))
                return
        if plan is not None and plan.get(line):
            self.checked[kind + " (tutorial)"] += 1
            return
        spec = [m for m in markers if m.startswith("c:")]
        if lang == "c":
            if not spec:
                self.fail(where, "a C block with no <!-- c: MODE IDL --> marker")
                return
            self.c_check(where, body, spec[0][2:].strip(), above)
            return
        project = [m for m in markers if m.startswith("cmake: project with ")]
        if project and lang == "cmake":
            if self.cmake_prefix:
                self.cmake_project(where, body, project[0][len("cmake: project with "):])
            self.checked["cmake (docs_cmake)"] += 1
            return
        run = [m for m in markers if m.startswith("run:")]
        if run and lang == "console" and run[0][len("run:"):].strip() == "server above":
            self.run_server(where, body, above)
            return
        if run and run[0].endswith(" with the installation"):
            if self.cmake_prefix:
                self.run_installed(where, body, run[0][len("run:"):-len(" with the installation")].strip())
            self.checked[kind + " (docs_cmake)"] += 1
            return
        if run and lang in ("sh", "console", ""):
            folder, _, name = run[0][len("run:"):].strip().partition(" with ")
            tag = None
            if name.startswith("a git repository tagged "):
                tag, name = name.split()[-1], ""

            files = {}
            if name:  # "NAME from the next IDL file": the next whole IDL file of the page
                name = name.split()[0]
                later = [b for l, b in self.page_idls if l > line]
                if not later:
                    raise ValueError("no IDL file after the block for %s" % name)
                files[name] = later[0]
            self.run_block(where, lang, body, folder.strip(), files, tag)
            return
        if "output of the block above" in markers:
            got, shown = (self.last_output or "").rstrip("\n").split("\n"), body.rstrip("\n").split("\n")
            if all(l.startswith('{"jsonrpc"') for l in got + shown):
                got, shown = sorted(got), sorted(shown)  # answers to concurrent requests come in any order
            if self.last_output is None or got != shown:
                self.fail(where, "the block above prints\n%s\nbut the page shows\n%s" % (self.last_output, body))
            self.checked[kind] += 1
            return
        self.last_output = None
        text_of = [m for m in markers if m.startswith("text of the call:")]
        if text_of:
            self.text_of_call(where, body, text_of[0][len("text of the call:"):].strip())
            return
        found = [m for m in markers if m.startswith("found in:")]
        if found:
            self.found_in(where, kind, body, found[0][len("found in:"):].strip())
            return
        lines_of = [m for m in markers if m.startswith("lines in output of:")]
        if lines_of:
            words = lines_of[0][len("lines in output of:"):].split()
            p = subprocess.run(["bash", "-c", " ".join(words)], stdout=subprocess.PIPE, cwd=self.checkout(),
                               stderr=subprocess.STDOUT, text=True, env=self.env())
            printed = [l.strip() for l in p.stdout.splitlines()]
            for l in body.splitlines():
                if l.strip() and l.strip() not in printed and not any(x.endswith(l.strip()) for x in printed):
                    self.fail(where, "'%s' prints no line '%s'" % (" ".join(words), l.strip()))
            self.checked[kind] += 1
            return
        out = [m for m in markers if m.startswith("output of:")]
        if out:
            self.output_of(where, lang, body, out[0][len("output of:"):].strip())
            return
        if lang == "console" and body.startswith("$ mcpidlc diff ") and len(wholes) >= 2:
            self.failures += run_console(self.mcpidlc, self.scratch("console"), wholes[-1], body, where, wholes[-2])
            self.checked["console"] += 1
            return
        if lang == "console" and last_idl is not None and body.startswith("$ mcpidlc "):
            self.failures += run_console(self.mcpidlc, self.scratch("console"), last_idl, body, where)
            self.checked["console"] += 1
            return
        if lang == "yaml" and re.search(r"^mcpidl: 1\s*$", body, re.M):
            warning = "warning example" in markers
            p = self.mcpidlc_check(body, werror=not warning)
            invalid = "invalid example" in markers
            if invalid and p.returncode == 0:
                self.fail(where, "an IDL file shown for its diagnostics compiles cleanly")
            elif not invalid and p.returncode != 0:
                self.fail(where, "the IDL file does not compile:\n%s" % p.stderr)
            elif warning and "warning:" not in p.stderr:
                self.fail(where, "an IDL file shown for its warning has none")
            self.checked["yaml"] += 1
            return
        if lang == "yaml":
            self.yaml_fragment(where, body, markers, above)
            return
        if lang == "json":
            try:
                json.loads(body)
            except ValueError:
                try:
                    for l in body.splitlines():
                        if l.strip():
                            json.loads(l)
                except ValueError as e:
                    self.fail(where, "not JSON: %s" % e)
            self.checked["json"] += 1
            return
        if lang == "make":
            self.checked["make (consumer_makefile)"] += 1
            return
        if lang == "python":
            try:
                compile(body, where, "exec")
            except SyntaxError as e:
                self.fail(where, "not Python: %s" % e)
            self.checked["python"] += 1
            return
        if lang == "js" and self.node:
            path = os.path.join(self.scratch("js"), "block.mjs")
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
            p = subprocess.run([self.node, "--check", path], capture_output=True, text=True)
            if p.returncode != 0:
                self.fail(where, "node --check: %s" % p.stderr)
            self.checked["js"] += 1
            return
        if lang == "js":
            self.marked["js (no Node in tests/e2e)"] += 1
            return
        self.fail(where, "a ```%s block that is neither checked nor marked <!-- illustrative: REASON --> "
                         "(the markers that make a block checked: tests/docs/check_blocks.py)" % kind)


def declarations(code, comments=False):
    """The declarations of C code, each whole: a preprocessor line, or text up to a ';' outside
    braces (comments dropped; a line `...` ends one too)."""
    out, cur, depth = [], [], 0
    if not comments:
        code = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    for line in code.split("\n"):
        if line.strip().startswith("#") or line.strip() == "...":
            if "".join(cur).strip():
                out.append("".join(cur))
            cur = []
            if line.strip() != "...":
                out.append(line)
            continue
        for ch in line + "\n":
            cur.append(ch)
            depth += ch == "{"
            depth -= ch == "}"
            if ch == ";" and depth == 0:
                out.append("".join(cur))
                cur = []
    if "".join(cur).strip():
        out.append("".join(cur))
    return out


def indent(text, n):
    return "".join((" " * n + l if l.strip() else l) for l in text.splitlines(True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcpidlc", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--link-flags", default="", help="flags a program linked with the build's libmcpidl.a needs")
    ap.add_argument("--cmake-prefix", help="build the ```cmake projects against this installation (docs_cmake)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the illustrative blocks")
    ap.add_argument("root")
    args = ap.parse_args()
    files = [os.path.join(args.root, "README.md")] + sorted(glob.glob(os.path.join(args.root, "docs", "*.md")))
    with tempfile.TemporaryDirectory() as tmp:
        c = Checker(args, tmp)
        for path in files:
            c.page(path)
    for f in c.failures:
        print("FAIL " + f)
    if args.verbose:
        for r in c.reasons:
            print("illustrative " + r)
    print("docs: %d block(s) checked (%s), %d marked illustrative (%s); %d failure(s)" % (
        sum(c.checked.values()), ", ".join("%d %s" % (n, k) for k, n in sorted(c.checked.items())),
        sum(c.marked.values()), ", ".join("%d %s" % (n, k) for k, n in sorted(c.marked.items())),
        len(c.failures)))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
