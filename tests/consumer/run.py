#!/usr/bin/env python3
"""The consumer tests: projects that use mcpidl the ways its users do, each building a server
from IDL files and answering a tools/call.

    run.py install      --build DIR --prefix PREFIX
    run.py package      --work DIR --prefix PREFIX        find_package(mcpidl CONFIG)
    run.py subdirectory --work DIR --source ROOT          add_subdirectory(mcpidl)
    run.py fetchcontent --work DIR --source ROOT          FetchContent from a source archive
    run.py makefile     --work DIR --prefix PREFIX        make and pkg-config
    run.py init         --work DIR --prefix PREFIX        mcpidlc --init, then cmake as it says
    run.py deb          --work DIR --build DIR            the Debian packages (cpack -G DEB),
                                                          installed into a scratch root with
                                                          dpkg --root, then package and
                                                          makefile from that root only

install runs `cmake --install` of the build under test into PREFIX and checks what it put there;
package and makefile then use that installation. subdirectory and fetchcontent compile mcpidl
again, as part of the consumer (only what the server needs: no tests, no examples).

Each project is copied into DIR/<mode> (with tests/consumer/server beside it) and built there.
Options shared by the modes: --cmake, --generator, --cc, --cflags and --ldflags (for the
sanitizer build), --jobs. No network is used.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
PASSED = []


def step(msg):
    print("--", msg, flush=True)


def ok(msg):
    PASSED.append(msg)
    print("ok  ", msg, flush=True)


def fail(msg):
    print("FAIL", msg, flush=True)
    print("%d passed, 1 failed" % len(PASSED), flush=True)
    sys.exit(1)


def run(cmd, cwd=None, env=None, expect_ok=True):
    """Run a command, return (status, output); fail the test when it fails unexpectedly."""
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, text=True)
    dt = time.monotonic() - t0
    step("%s (%.1f s, status %d)" % (" ".join(cmd), dt, p.returncode))
    if expect_ok and p.returncode != 0:
        print(p.stdout)
        fail("%s exited with status %d" % (cmd[0], p.returncode))
    return p.returncode, p.stdout


def copy_project(args, name):
    """DIR/<name> and DIR/server, fresh copies of tests/consumer/<name> and tests/consumer/server."""
    work = os.path.abspath(args.work)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    shutil.copytree(os.path.join(HERE, name), os.path.join(work, name))
    shutil.copytree(os.path.join(HERE, "server"), os.path.join(work, "server"))
    return os.path.join(work, name)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "consumer-test", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def request(server, method, params, extra_args=(), env=None):
    """initialize, then one request on the server's stdin; the request's result."""
    msgs = [INIT, INITIALIZED, {"jsonrpc": "2.0", "id": 2, "method": method, "params": params}]
    stdin = "".join(json.dumps(m) + "\n" for m in msgs)
    p = subprocess.run([server, *extra_args], input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60, env=env)
    if p.returncode != 0:
        fail("%s exited with status %d: %s" % (server, p.returncode, p.stderr))
    answers = {}
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        answers[msg.get("id")] = msg
    if 2 not in answers or "result" not in answers[2]:
        fail("%s: no result for the request: %s" % (server, p.stdout))
    return answers[2]["result"]


def expect_call(server, tool, arguments, structured, extra_args=(), env=None):
    result = request(server, "tools/call", {"name": tool, "arguments": arguments}, extra_args, env)
    if result.get("isError") or result.get("structuredContent") != structured:
        fail("%s: tools/call %s answered %s, expected structuredContent %s"
             % (os.path.basename(server), tool, json.dumps(result), json.dumps(structured)))
    ok("%s answers tools/call %s %s" % (os.path.basename(server), tool, json.dumps(arguments)))


def expect_http_call(server, tool, arguments, structured):
    """The server started with --http on a free port answers one 2026-07-28 tools/call (a
    request of its own, no session); then SIGTERM ends it with status 0."""
    p = subprocess.Popen([server, "--http", "127.0.0.1:0"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    try:
        url = None
        for line in p.stderr:  # the banner comes before any request is served
            m = re.search(r"listening on (http://\S+/mcp)", line)
            if m:
                url = m.group(1)
                break
        if not url:
            fail("%s --http printed no address" % server)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                     "io.modelcontextprotocol/clientCapabilities": {}},
                           "name": tool, "arguments": arguments}}
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool})
        with urllib.request.urlopen(req, timeout=60) as r:
            answer = json.loads(r.read())
        result = answer.get("result", {})
        if result.get("isError") or result.get("structuredContent") != structured:
            fail("%s over HTTP: tools/call %s answered %s" % (os.path.basename(server), tool, json.dumps(answer)))
        p.terminate()
        if p.wait(timeout=60) != 0:
            fail("%s --http exited with status %d after SIGTERM" % (server, p.returncode))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    ok("%s answers tools/call %s over Streamable HTTP" % (os.path.basename(server), tool))


def check_servers(server):
    """The calc server and, through its first argument, the greet server (two IDL files)."""
    expect_call(server, "add", {"a": 2, "b": 40}, {"total": 42, "terms": 2})
    expect_call(server, "hello", {"name": "C"}, {"result": "Hello, C!"}, extra_args=["greet"])


def needed(path):
    """The DT_NEEDED entries of an ELF file."""
    _, out = run(["readelf", "-d", path])
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def cmake_configure(args, src, bld, defs):
    cmd = [args.cmake, "-S", src, "-B", bld, "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    if args.generator:
        cmd += ["-G", args.generator]
    if args.cc:
        cmd += ["-DCMAKE_C_COMPILER=" + args.cc]
    if args.cflags:
        cmd += ["-DCMAKE_C_FLAGS=" + args.cflags]
    if args.ldflags:
        cmd += ["-DCMAKE_EXE_LINKER_FLAGS=" + args.ldflags,
                "-DCMAKE_SHARED_LINKER_FLAGS=" + args.ldflags]
    cmd += ["-D%s=%s" % kv for kv in defs.items()]
    run(cmd)


def cmake_build(args, bld, targets=(), expect_ok=True):
    cmd = [args.cmake, "--build", bld, "--parallel", str(args.jobs)]
    for t in targets:
        cmd += ["--target", t]
    return run(cmd, expect_ok=expect_ok)


def find_file(root, name):
    for dirpath, _, files in os.walk(root):
        if name in files:
            return os.path.join(dirpath, name)
    return None


# ---------------------------------------------------------------------------------------------

def mode_install(args):
    prefix = os.path.abspath(args.prefix)
    if os.path.isdir(prefix):
        shutil.rmtree(prefix)
    run([args.cmake, "--install", args.build, "--prefix", prefix])
    want = {
        "bin/mcpidlc": os.path.join(prefix, "bin", "mcpidlc"),
        "include/mcpidl/mcpidl.h": os.path.join(prefix, "include", "mcpidl", "mcpidl.h"),
        "include/mcpidl/mock.h": os.path.join(prefix, "include", "mcpidl", "mock.h"),
        "share/mcpidl/schemas/mcpidl.schema.json":
            os.path.join(prefix, "share", "mcpidl", "schemas", "mcpidl.schema.json"),
    }
    for what, path in want.items():
        if not os.path.isfile(path):
            fail("the installation has no %s" % what)
    ok("bin/mcpidlc, include/mcpidl/*.h and share/mcpidl/schemas are installed")
    for name in ["libmcpidl.a", "libmcpidl.so", "mcpidl.pc", "mcpidlConfig.cmake",
                 "mcpidlConfigVersion.cmake", "mcpidlTargets.cmake", "mcpidl_generate.cmake"]:
        if not find_file(prefix, name):
            fail("the installation has no %s" % name)
    ok("libmcpidl.a, libmcpidl.so, mcpidl.pc and the CMake package files are installed")
    if os.path.isfile(os.path.join(prefix, "include", "mcpidl", "http.h")):
        for name in ["libmcpidl-http.a", "libmcpidl-http.so", "mcpidl-http.pc"]:
            if not find_file(prefix, name):
                fail("the installation has the HTTP transport's header but no %s" % name)
        ok("libmcpidl-http.a, libmcpidl-http.so and mcpidl-http.pc are installed")
    so = os.path.realpath(find_file(prefix, "libmcpidl.so"))
    _, out = run(["readelf", "-d", so])
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", out)
    if not m or not re.fullmatch(r"libmcpidl\.so\.\d+", m.group(1)):
        fail("libmcpidl.so has no SONAME libmcpidl.so.N: %s" % out)
    if not os.path.exists(os.path.join(os.path.dirname(so), m.group(1))):
        fail("no %s link beside %s" % (m.group(1), so))
    ok("libmcpidl.so is %s, SONAME %s" % (os.path.basename(so), m.group(1)))
    if args.manpage and not find_file(prefix, "mcpidlc.1"):
        fail("the installation has no man page mcpidlc.1")
    if args.manpage:
        ok("share/man/man1/mcpidlc.1 is installed")
    _, out = run([want["bin/mcpidlc"], "--version"])
    ok("the installed mcpidlc runs: %s" % out.strip())


def mode_package(args):
    src = copy_project(args, "package")
    # An IDL file with a mistake, for the target bad-server: line 13, column 14.
    with open(os.path.join(src, "..", "server", "calc.mcp.yaml")) as f:
        calc = f.read()
    bad = calc.replace("returns: Sum", "returns: Summ")
    with open(os.path.join(src, "bad.mcp.yaml"), "w") as f:
        f.write(bad)
    bad_line = next(i for i, l in enumerate(bad.split("\n"), 1) if "returns: Summ" in l)
    bad_col = bad.split("\n")[bad_line - 1].index("Summ") + 1

    bld = os.path.join(args.work, "build")
    cmake_configure(args, src, bld, {"CMAKE_PREFIX_PATH": os.path.abspath(args.prefix),
                                     "CMAKE_FIND_USE_PACKAGE_REGISTRY": "OFF"})
    cmake_build(args, bld)
    ok("find_package(mcpidl CONFIG) and mcpidl_generate() build three servers")
    server = os.path.join(bld, "calc-server")
    check_servers(server)
    if getattr(args, "only_root", None):
        with open(os.path.join(bld, "CMakeCache.txt")) as f:
            m = re.search(r"^mcpidl_DIR:PATH=(.*)$", f.read(), re.M)
        if not m or not os.path.realpath(m.group(1)).startswith(os.path.realpath(args.only_root) + os.sep):
            fail("find_package(mcpidl) found %s, not the scratch root's" % (m.group(1) if m else "nothing"))
        ok("find_package(mcpidl) found the scratch root's package: %s" % os.path.relpath(m.group(1), args.only_root))
        from_root_only(args, server, "find_package")
    if not any(n.startswith("libmcpidl.so.") for n in needed(server)):
        fail("calc-server does not link the shared libmcpidl")
    static = os.path.join(bld, "calc-server-static")
    check_servers(static)
    if any("mcpidl" in n for n in needed(static)):
        fail("calc-server-static links a shared libmcpidl")
    ok("LIBRARY mcpidl::mcpidl_static links libmcpidl.a")
    http = os.path.join(bld, "calc-server-http")
    if os.path.exists(os.path.join(os.path.abspath(args.prefix), "include", "mcpidl", "http.h")):
        if not os.path.isfile(http):
            fail("the installation has the HTTP transport, but mcpidl::http was not found")
        check_servers(http)
        expect_http_call(http, "add", {"a": 2, "b": 40}, {"total": 42, "terms": 2})
        ok("linking mcpidl::http serves --http (with --as-needed)")
    mock = os.path.join(bld, "calc-mock")
    expect_call(mock, "add", {"a": 1, "b": 1}, {"total": 42, "terms": 2},
                extra_args=["--mock", os.path.join(src, "..", "server", "calc.mock.json")])

    schemas = os.path.join(bld, "schemas")
    for name in ["calc.tools.json", "calc.add.input.schema.json", "calc.add.output.schema.json",
                 "greet.tools.json", "greet.hello.input.schema.json"]:
        if not os.path.isfile(os.path.join(schemas, name)):
            fail("SCHEMA_DIR has no %s" % name)
    ok("SCHEMA_DIR holds the schemas of both IDL files")

    # Editing the IDL regenerates the sources and the schemas.
    idl = os.path.join(src, "..", "server", "calc.mcp.yaml")
    with open(idl, "w") as f:
        f.write(calc.replace("Add two integers.", "Add two whole numbers."))
    cmake_build(args, bld, ["calc-server"])
    tools = request(server, "tools/list", {})["tools"]
    if tools[0]["description"] != "Add two whole numbers.":
        fail("calc-server was not regenerated after its IDL changed: %s" % json.dumps(tools))
    with open(os.path.join(schemas, "calc.tools.json")) as f:
        if json.load(f)[0]["description"] != "Add two whole numbers.":
            fail("SCHEMA_DIR was not regenerated after the IDL changed")
    ok("a changed IDL file is compiled again")

    # A newer compiler regenerates too: everything else made older than the compiler.
    compiler = os.path.join(os.path.abspath(args.prefix), "bin", "mcpidlc")
    now = time.time()
    os.utime(idl, (now - 300, now - 300))
    for dirpath, _, files in os.walk(os.path.join(bld, "mcpidl_calc-server")):
        for name in files:
            os.utime(os.path.join(dirpath, name), (now - 200, now - 200))
    os.utime(os.path.join(schemas, "calc.tools.json"), (now - 200, now - 200))
    os.utime(compiler, (now - 100, now - 100))
    _, out = cmake_build(args, bld, ["calc-server"])
    if "mcpidlc calc.mcp.yaml" not in out:
        print(out)
        fail("calc-server's sources were not generated again after mcpidlc changed")
    _, out = cmake_build(args, bld, ["calc-server"])
    if "mcpidlc calc.mcp.yaml" in out:
        print(out)
        fail("mcpidlc ran again with nothing changed")
    ok("a changed mcpidlc compiles the IDL again, and only then")

    # A mistake in an IDL file fails the build with its FILE:LINE:COLUMN diagnostic.
    status, out = cmake_build(args, bld, ["bad-server"], expect_ok=False)
    where = "bad.mcp.yaml:%d:%d: error: unknown type 'Summ'" % (bad_line, bad_col)
    if status == 0 or where not in out:
        print(out)
        fail("building bad-server did not fail with '%s'" % where)
    ok("an IDL mistake fails the build with %s" % where)


def mode_subdirectory(args):
    src = copy_project(args, "subdirectory")
    bld = os.path.join(args.work, "build")
    cmake_configure(args, src, bld, {"MCPIDL_SOURCE_DIR": os.path.abspath(args.source)})
    cmake_build(args, bld, ["calc-server"])
    for unwanted in ["tests", "examples"]:
        if os.path.exists(os.path.join(bld, "mcpidl", unwanted)):
            fail("add_subdirectory(mcpidl) configured mcpidl's %s" % unwanted)
    ok("add_subdirectory(mcpidl) builds the server, without mcpidl's tests and examples")
    check_servers(os.path.join(bld, "calc-server"))


def source_archive(root, dest):
    """A source archive of the checkout, as a release tarball would be: no .git, no build trees,
    no node_modules."""
    root = os.path.abspath(root)

    def skip_dir(dirpath, name):
        if name in (".git", "node_modules", "__pycache__"):
            return True
        if dirpath == root and name.startswith("build"):
            return True
        return os.path.exists(os.path.join(dirpath, name, "CMakeCache.txt"))

    with tarfile.open(dest, "w:gz", compresslevel=1) as tar:
        for dirpath, dirnames, files in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not skip_dir(dirpath, d))
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                tar.add(path, arcname="mcpidl-src/" + os.path.relpath(path, root), recursive=False)
    with open(dest, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def mode_fetchcontent(args):
    src = copy_project(args, "fetchcontent")
    archive = os.path.join(args.work, "mcpidl-src.tar.gz")
    t0 = time.monotonic()
    digest = source_archive(args.source, archive)
    step("source archive, %d KiB (%.1f s)" % (os.path.getsize(archive) // 1024, time.monotonic() - t0))
    bld = os.path.join(args.work, "build")
    cmake_configure(args, src, bld, {
        "MCPIDL_URL": "file://" + os.path.abspath(archive),
        "MCPIDL_URL_HASH": "SHA256=" + digest,
        "FETCHCONTENT_FULLY_DISCONNECTED": "OFF",
        "FETCHCONTENT_QUIET": "ON",
    })
    cmake_build(args, bld, ["calc-server"])
    mcpidl_bin = os.path.join(bld, "_deps", "mcpidl-build")
    for unwanted in ["tests", "examples"]:
        if os.path.exists(os.path.join(mcpidl_bin, unwanted)):
            fail("FetchContent(mcpidl) configured mcpidl's %s" % unwanted)
    ok("FetchContent(mcpidl) builds the server, without mcpidl's tests and examples")
    check_servers(os.path.join(bld, "calc-server"))


def mode_makefile(args):
    src = copy_project(args, "makefile")
    for name in ["calc.mcp.yaml", "greet.mcp.yaml", "consumer.c"]:
        shutil.copy(os.path.join(HERE, "server", name), src)
    prefix = os.path.abspath(args.prefix)
    pc = find_file(prefix, "mcpidl.pc")
    if not pc:
        fail("no mcpidl.pc under the installation")
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = os.path.dirname(pc)
    env["CFLAGS"] = ("-O2 -g " + (args.cflags or "")).strip()
    if args.ldflags:
        env["LDFLAGS"] = args.ldflags
    make = ["make", "-j%d" % args.jobs] + (["CC=" + args.cc] if args.cc else [])
    _, out = run(["pkg-config", "--modversion", "mcpidl"], env=env)
    _, libs = run(["pkg-config", "--static", "--libs", "mcpidl"], env=env)
    for lib in ["-lmcpidl", "-ljson-c", "-lpcre2-8", "-lnettle", "-lpthread", "-lm"]:
        if lib not in libs.split():
            fail("pkg-config --static --libs mcpidl lacks %s: %s" % (lib, libs))
    ok("pkg-config finds mcpidl %s; --static adds json-c, PCRE2, threads, libm" % out.strip())

    # docs/build.md shows this Makefile: the same rules, whatever its comments say.
    def rules(text):
        return [l for l in text.splitlines() if l.strip() and not l.startswith("#")]
    with open(os.path.join(HERE, "..", "..", "docs", "build.md"), encoding="utf-8") as f:
        shown = re.search(r"^```make\n(.*?)^```", f.read(), re.S | re.M)
    with open(os.path.join(src, "Makefile"), encoding="utf-8") as f:
        if not shown or rules(shown.group(1)) != rules(f.read()):
            fail("the Makefile of docs/build.md is not tests/consumer/makefile/Makefile")
    ok("docs/build.md shows this Makefile")

    if getattr(args, "only_root", None):
        for var in ("pcfiledir", "mcpidlc"):
            _, value = run(["pkg-config", "--variable=" + var, "mcpidl"], env=env)
            if not os.path.realpath(value.strip()).startswith(os.path.realpath(args.only_root) + os.sep):
                fail("pkg-config's %s of mcpidl is %s, not in the scratch root" % (var, value.strip()))
        ok("pkg-config finds the scratch root's mcpidl.pc, and its mcpidlc")
    run(make, cwd=src, env=env)
    server = os.path.join(src, "calc-server")
    check_servers(server)
    from_root_only(args, server, "make with pkg-config")
    if not any(n.startswith("libmcpidl.so.") for n in needed(server)):
        fail("the make-built calc-server does not link the shared libmcpidl")
    ok("make with pkg-config links the shared libmcpidl")

    run(["make", "clean"], cwd=src, env=env)
    run(make + ["LINK=static"], cwd=src, env=env)
    check_servers(server)
    if any("mcpidl" in n for n in needed(server)):
        fail("make LINK=static linked a shared libmcpidl")
    ok("make LINK=static links libmcpidl.a with pkg-config --static")

    # HTTP by asking for mcpidl-http.pc once: the transport is kept, --as-needed or not.
    status, _ = run(["pkg-config", "--exists", "mcpidl-http"], env=env, expect_ok=False)
    if status != 0:
        ok("no mcpidl-http.pc: this installation has no HTTP transport")
        return
    as_needed = dict(env, LDFLAGS=("-Wl,--as-needed " + env.get("LDFLAGS", "")).strip())
    for link in ([], ["LINK=static"]):
        run(["make", "clean"], cwd=src, env=env)
        run(make + ["HTTP=1"] + link, cwd=src, env=as_needed)
        check_servers(server)
        expect_http_call(server, "add", {"a": 2, "b": 40}, {"total": 42, "terms": 2})
        shared = [n for n in needed(server) if "mcpidl" in n]
        if link and shared:
            fail("make HTTP=1 LINK=static linked shared libraries %s" % shared)
        if not link and not any(n.startswith("libmcpidl-http.so.") for n in shared):
            fail("make HTTP=1 dropped libmcpidl-http: %s" % shared)
    ok("make HTTP=1 (shared, and LINK=static) serves --http through mcpidl-http.pc")


def mode_init(args):
    """The first run of a new user: the installed mcpidlc --init writes a project that builds,
    as its message says, into a server that answers its two tools over stdio and HTTP."""
    work = os.path.abspath(args.work)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    prefix = os.path.abspath(args.prefix)
    mcpidlc = os.path.join(prefix, "bin", "mcpidlc")
    _, out = run([mcpidlc, "--init", "notes"], cwd=work)
    if "cmake -S notes -B notes/build && cmake --build notes/build" not in out:
        fail("mcpidlc --init does not say how to build: %s" % out)
    for name in ["notes.mcp.yaml", "notes.c", "CMakeLists.txt"]:
        if not os.path.isfile(os.path.join(work, "notes", name)):
            fail("mcpidlc --init wrote no notes/%s" % name)
    ok("mcpidlc --init notes writes notes.mcp.yaml, notes.c and CMakeLists.txt")
    status, out = run([mcpidlc, "--init", "notes"], cwd=work, expect_ok=False)
    if status != 1 or "exists and is not an empty folder" not in out:
        fail("a second --init notes was not refused: %d %s" % (status, out))
    status, out = run([mcpidlc, "--init", "1notes"], cwd=work, expect_ok=False)
    if status != 2 or "is not a project name" not in out:
        fail("--init 1notes was not refused as a name: %d %s" % (status, out))
    ok("--init refuses a folder in the way (status 1) and a name that cannot be one (status 2)")

    src, bld = os.path.join(work, "notes"), os.path.join(work, "notes", "build")
    cmake_configure(args, src, bld, {"CMAKE_PREFIX_PATH": prefix,
                                     "CMAKE_C_FLAGS": ("-Wall -Wextra -Werror " + (args.cflags or "")).strip()})
    cmake_build(args, bld)
    ok("cmake -S notes -B notes/build && cmake --build notes/build: no warning")
    server = os.path.join(bld, "notes-server")
    expect_call(server, "greet", {"name": "Ada"}, {"text": "Hello, Ada!", "length": 11})
    expect_call(server, "add", {"a": 2, "b": 40}, {"result": 42})
    result = request(server, "tools/call", {"name": "add", "arguments": {"a": 9223372036854775807, "b": 1}})
    if not result.get("isError"):
        fail("notes add overflowed without an error: %s" % json.dumps(result))
    if not os.path.isfile(os.path.join(bld, "schemas", "notes.tools.json")):
        fail("the starter project writes no schemas/notes.tools.json")
    if os.path.isfile(os.path.join(prefix, "include", "mcpidl", "http.h")):
        expect_http_call(server, "greet", {"name": "Ada"}, {"text": "Hello, Ada!", "length": 11})


def mode_deb(args):
    """cpack -G DEB makes mcpidl and libmcpidl-dev with the right contents and dependencies;
    installed by dpkg into a scratch root (with dpkg-deb -x where there is no dpkg), they build
    the package and makefile consumers, which must find mcpidl there and nowhere else."""
    work = os.path.abspath(args.work)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    pkgs = os.path.join(work, "pkgs")
    cpack = os.path.join(os.path.dirname(shutil.which(args.cmake) or args.cmake), "cpack")
    run([cpack if os.path.exists(cpack) else "cpack", "-G", "DEB", "-B", pkgs,
         "--config", os.path.join(os.path.abspath(args.build), "CPackConfig.cmake")])
    debs = {}
    for name in os.listdir(pkgs):
        if name.endswith(".deb"):
            _, pkg = run(["dpkg-deb", "-f", os.path.join(pkgs, name), "Package"])
            debs[pkg.strip()] = os.path.join(pkgs, name)
    if sorted(debs) != ["libmcpidl-dev", "mcpidl"]:
        fail("cpack made %s, not mcpidl and libmcpidl-dev" % sorted(debs))
    contents = {}
    for pkg, path in debs.items():
        _, listing = run(["dpkg-deb", "-c", path])
        # "MODE OWNER SIZE DATE TIME PATH[ -> TARGET]"
        contents[pkg] = [l.split()[5].lstrip(".") for l in listing.splitlines() if not l.endswith("/")]
    def has(pkg, suffix):
        if not any(f.endswith(suffix) for f in contents[pkg]):
            fail("%s has no file ending in %s: %s" % (pkg, suffix, contents[pkg]))
    for suffix in ["/bin/mcpidlc", "/man1/mcpidlc.1", "/mcpidl.schema.json"]:
        has("mcpidl", suffix)
    for suffix in ["/include/mcpidl/mcpidl.h", "/libmcpidl.so", "/libmcpidl.a", "/mcpidl.pc",
                   "/mcpidlConfig.cmake", "/mcpidl_generate.cmake"]:
        has("libmcpidl-dev", suffix)
    if any("/include/" in f or f.endswith(".a") for f in contents["mcpidl"]):
        fail("the mcpidl package holds development files: %s" % contents["mcpidl"])
    _, dev_deps = run(["dpkg-deb", "-f", debs["libmcpidl-dev"], "Depends"])
    for dep in ["mcpidl (= ", "libjson-c-dev", "libpcre2-dev", "nettle-dev"]:
        if dep not in dev_deps:
            fail("libmcpidl-dev does not depend on %s: %s" % (dep, dev_deps))
    # libmcpidl-http loads libmicrohttpd, GnuTLS and libcurl with dlopen(), which dpkg-shlibdeps
    # cannot see: the package names their runtime packages itself (not their -dev packages: what
    # links libmcpidl-http needs neither their headers nor their link-time files).
    if any(f.endswith("/libmcpidl-http.so") for f in contents["libmcpidl-dev"]):
        names = [d.split()[0] for d in dev_deps.split(",") if d.strip()]
        for lib in ["libmicrohttpd", "libgnutls", "libcurl"]:
            if not any(n.startswith(lib) and not n.endswith("-dev") for n in names):
                fail("libmcpidl-dev does not depend on %s's runtime package: %s" % (lib, dev_deps))
        for dev in ["libmicrohttpd-dev", "libgnutls28-dev"]:
            if dev in names:
                fail("libmcpidl-dev depends on %s, which nothing that links it needs: %s" % (dev, dev_deps))
    _, deps = run(["dpkg-deb", "-f", debs["mcpidl"], "Depends"])
    if "libyaml" not in deps or "libc6" not in deps:
        fail("mcpidl's dependencies lack libyaml or libc6: %s" % deps)
    ok("cpack -G DEB: mcpidl (%s) and libmcpidl-dev (%s)" % (deps.strip(), dev_deps.strip()))

    root = os.path.join(work, "root")
    dpkg = shutil.which("dpkg")
    if dpkg:
        # dpkg itself installs them into the scratch root, with a package database of its own:
        # --force-not-root for a run without root privileges, --force-depends because the root's
        # database lists none of the packages they depend on (the machine has them). They are
        # unpacked, not configured: libmcpidl-dev's postinst runs ldconfig, which is the
        # machine's business, not the scratch root's.
        admin = os.path.join(root, "var", "lib", "dpkg")
        for sub in ("info", "updates", "triggers"):
            os.makedirs(os.path.join(admin, sub))
        open(os.path.join(admin, "status"), "w").close()
        run([dpkg, "--root=" + root, "--admindir=" + admin, "--force-not-root", "--force-depends",
             "--log=/dev/null", "--unpack"] + sorted(debs.values()))
        for pkg in debs:
            _, status = run([dpkg, "--root=" + root, "--admindir=" + admin, "-s", pkg])
            if "Status: install ok unpacked" not in status:
                fail("dpkg --unpack left %s in another state: %s" % (pkg, status))
            _, listed = run([dpkg, "--root=" + root, "--admindir=" + admin, "-L", pkg])
            for f in contents[pkg]:
                if f not in listed.split("\n") or not os.path.lexists(root + f):
                    fail("%s: dpkg -L does not list %s, or it is not in the root" % (pkg, f))
        ok("dpkg --root --unpack installs both packages into a scratch root; dpkg -L lists every file")
    else:
        for path in debs.values():
            run(["dpkg-deb", "-x", path, root])
        ok("no dpkg: the packages unpacked with dpkg-deb -x")
    prefix = os.path.join(root, "usr")
    _, out = run([os.path.join(prefix, "bin", "mcpidlc"), "--version"])
    ok("the scratch root's mcpidlc runs: %s" % out.strip())
    for mode in ("package", "makefile"):
        sub = argparse.Namespace(**vars(args))
        sub.work, sub.prefix, sub.only_root = os.path.join(work, mode), prefix, root
        globals()["mode_" + mode](sub)
    ok("the installed packages build servers with find_package and with pkg-config, from the root only")


def from_root_only(args, server, what):
    """With --only-root (the deb mode): the server's libmcpidl is the scratch root's."""
    root = getattr(args, "only_root", None)
    if not root or not any(n.startswith("libmcpidl") for n in needed(server)):
        return
    _, out = run(["ldd", server])
    libs = re.findall(r"^\s*(libmcpidl\S*) => (\S+)", out, re.M)
    if not libs or any(not os.path.realpath(path).startswith(os.path.realpath(root) + os.sep) for _, path in libs):
        fail("%s: %s loads libmcpidl from outside the scratch root: %s" % (what, server, libs))
    ok("%s: %s loads %s from the scratch root" % (what, os.path.basename(server), ", ".join(n for n, _ in libs)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("mode", choices=["install", "package", "subdirectory", "fetchcontent", "makefile", "init", "deb"])
    ap.add_argument("--build", help="the build tree to install (install)")
    ap.add_argument("--prefix", help="the installation (install, package, makefile)")
    ap.add_argument("--source", help="the mcpidl checkout (subdirectory, fetchcontent)")
    ap.add_argument("--work", help="the directory the project is copied and built in")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--generator")
    ap.add_argument("--cc")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--ldflags", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--manpage", action="store_true", help="the build has a man page (install)")
    args = ap.parse_args()
    t0 = time.monotonic()
    globals()["mode_" + args.mode](args)
    print("consumer %s: %.1f s" % (args.mode, time.monotonic() - t0))
    print("%d passed, 0 failed" % len(PASSED))


if __name__ == "__main__":
    main()
