"""libmicrohttpd, GnuTLS and hogweed are loaded by the HTTP transport only when a server needs them.

libmcpidl-http does not link them: lib/transport/httplibs.c opens libmicrohttpd with dlopen() when
the HTTP transport starts, and GnuTLS when it serves TLS; lib/transport/pklibs.c opens hogweed (and
GMP with it) when a JWT key set is first read. This test starts the catalogue server, which links
libmcpidl-http, and reads /proc/PID/maps:

  - over stdio, after initialize and a ping, none of them (nor GMP) is mapped;
  - over HTTP, libmicrohttpd is mapped and a session starts (GnuTLS, which it links, brings
    hogweed and GMP too: what is saved is a stdio server's start);
  - over HTTP with a JWT key set (--auth-jwks FILE), hogweed and GMP are mapped;
  - with MCPIDL_TEST_HOGWEED naming a file that does not exist, a server with a key set refuses to
    start, naming the file, the loader's reason and the package to install; one without serves;
  - with MCPIDL_TEST_LIBMICROHTTPD naming a file that does not exist, or a library that is not
    libmicrohttpd, the server still serves stdio, and --http refuses to start with the exit status
    of any other start-up error, naming the file, the loader's reason and the package to install;
  - with MCPIDL_TEST_GNUTLS naming a file that does not exist, --tls-cert refuses likewise.

MCPIDL_TEST_LIBMICROHTTPD, MCPIDL_TEST_GNUTLS and MCPIDL_TEST_HOGWEED replace the file names
httplibs.c and pklibs.c load (the SONAMEs the build found): they are there for this test only.

usage: http_libs_load.py --server CATALOGUE_SERVER --work DIR [--mhd-package P] [--gnutls-package P]
                         [--hogweed-package P]
"""
import argparse
import json
import os
import re
import sys

from peers import HANG_GUARD, HttpServer, Process, ServerGone, StdioServer, ping

VERSION = "2025-06-18"
ISSUER = "http://127.0.0.1:9"  # never fetched: only compared with tokens' iss
RESOURCE = "http://127.0.0.1/mcp"
# An Ed25519 public key (any 32 bytes load as one): a key set the server takes.
JWKS = json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
                             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def mappings(pid, pattern):
    """The files of /proc/PID/maps whose name matches the pattern."""
    with open("/proc/%d/maps" % pid) as f:
        names = {line.split()[-1] for line in f if len(line.split()) > 5}
    return sorted(n for n in names if re.search(pattern, n))


def http_mappings(pid):
    """The files of /proc/PID/maps of libmicrohttpd and GnuTLS."""
    return mappings(pid, r"/lib(microhttpd|gnutls)[^/]*$")


def pk_mappings(pid):
    """The files of /proc/PID/maps of hogweed and GMP."""
    return mappings(pid, r"/lib(hogweed|gmp)[^/]*$")


def over_stdio(server, env=None):
    """The server over stdio, after initialize and a ping: (its mappings, the ping's answer)."""
    s = StdioServer([server], env)
    try:
        s.start_session(VERSION)
        answer = json.loads(s.request(ping(1)))
        return http_mappings(s.p.pid) + pk_mappings(s.p.pid), answer
    finally:
        s.kill()


def refused(server, args, env=None):
    """The server started with args, expected to refuse: (exit status, standard error)."""
    p = Process([server] + args, env)
    status = p.wait_exit(HANG_GUARD)
    p.kill()
    return status, p.err.text()


def install_pattern(package):
    return re.escape("install " + package) if package else r"install \S+"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mhd-package", default="", help="the Debian package of libmicrohttpd, when known")
    ap.add_argument("--gnutls-package", default="", help="the Debian package of GnuTLS, when known")
    ap.add_argument("--hogweed-package", default="", help="the Debian package of hogweed, when known")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)

    maps, answer = over_stdio(a.server)
    check(maps == [], "over stdio, none of libmicrohttpd, GnuTLS, hogweed and GMP mapped (%s)" % maps)
    check(answer.get("id") == 1 and "result" in answer, "over stdio, the ping answered (%s)" % answer)

    s = HttpServer([a.server, "--no-auth"])
    try:
        sid, _ = s.start_session(VERSION)
        maps = http_mappings(s.p.pid)
        check(any("libmicrohttpd" in m for m in maps), "over HTTP, libmicrohttpd mapped (%s)" % maps)
        check(bool(sid), "over HTTP, a session started")
    finally:
        s.kill()

    jwks = os.path.join(a.work, "jwks.json")
    with open(jwks, "w") as f:
        f.write(JWKS)
    auth = ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-jwks", jwks]
    s = HttpServer([a.server] + auth)
    try:
        maps = pk_mappings(s.p.pid)
        check(any("libhogweed" in m for m in maps) and any("libgmp" in m for m in maps),
              "over HTTP with a key set, hogweed and GMP mapped (%s)" % maps)
    finally:
        s.kill()

    # The exit status of another start-up error of the HTTP transport, for comparison: a
    # certificate that cannot be read.
    tls_args = ["--tls-cert", os.path.join(a.work, "no-such-cert.pem"),
                "--tls-key", os.path.join(a.work, "no-such-key.pem")]
    usual, err = refused(a.server, ["--http", "127.0.0.1:0"] + tls_args)
    check(usual not in (None, 0) and "cannot start" in err,
          "a certificate that cannot be read: the server exits (%s):\n%s" % (usual, err))

    missing = os.path.join(a.work, "no-such-libmicrohttpd.so.12")
    env = dict(os.environ, MCPIDL_TEST_LIBMICROHTTPD=missing)
    maps, answer = over_stdio(a.server, env)
    check(answer.get("id") == 1 and "result" in answer, "a missing libmicrohttpd: stdio served as usual")
    status, err = refused(a.server, ["--http", "127.0.0.1:0"], env)
    check(status == usual, "a missing libmicrohttpd: --http exits as other start-up errors do (%s, %s)"
          % (status, usual))
    check(re.search(r"http: cannot start: cannot load libmicrohttpd, " + re.escape(missing) + r" \(.*"
                    + re.escape(missing) + r": cannot open shared object file.*\): "
                    + install_pattern(a.mhd_package), err) is not None,
          "a missing libmicrohttpd: the error names the file, the loader's reason and the package:\n%s" % err)
    check(not re.search(r"\.c:\d+", err), "a missing libmicrohttpd: no file:line in the error")
    check("listening" not in err, "a missing libmicrohttpd: nothing served")

    # A library that loads but is not libmicrohttpd: the function it lacks is named.
    libc = next(m for m in open("/proc/self/maps").read().split() if re.search(r"/libc\.so\.6$", m))
    status, err = refused(a.server, ["--http", "127.0.0.1:0"], dict(os.environ, MCPIDL_TEST_LIBMICROHTTPD=libc))
    check(status == usual and re.search(r"http: cannot start: " + re.escape(libc) + r" is not a usable libmicrohttpd: .*MHD_start_daemon_va",
                                        err) is not None,
          "not a libmicrohttpd: the server exits, naming the file and the missing function:\n%s" % err)

    # TLS without GnuTLS: refused before the certificate is read (the files need not exist).
    missing = os.path.join(a.work, "no-such-libgnutls.so.30")
    env = dict(os.environ, MCPIDL_TEST_GNUTLS=missing)
    status, err = refused(a.server, ["--http", "127.0.0.1:0"] + tls_args, env)
    check(status == usual, "a missing GnuTLS, --tls-cert: the server exits (%s)" % status)
    check(re.search(r"--tls-cert needs GnuTLS: cannot load GnuTLS, " + re.escape(missing) + r" \(.*\): "
                    + install_pattern(a.gnutls_package), err) is not None,
          "a missing GnuTLS: the error names the file, the loader's reason and the package:\n%s" % err)

    # A key set without hogweed: refused at start; without a key set, nothing changes.
    missing = os.path.join(a.work, "no-such-libhogweed.so.6")
    env = dict(os.environ, MCPIDL_TEST_HOGWEED=missing)
    status, err = refused(a.server, ["--http", "127.0.0.1:0"] + auth, env)
    check(status == usual, "a missing hogweed, --auth-jwks: the server exits (%s, %s)" % (status, usual))
    check(re.search(r"cannot load hogweed, " + re.escape(missing) + r" \(.*\): "
                    + install_pattern(a.hogweed_package), err) is not None,
          "a missing hogweed: the error names the file, the loader's reason and the package:\n%s" % err)
    s = HttpServer([a.server, "--no-auth"], env)
    try:
        sid, _ = s.start_session(VERSION)
        check(bool(sid), "a missing hogweed, no key set: a session started")
    finally:
        s.kill()

    if failures:
        print("%d failed" % len(failures))
        return 1
    print("all passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ServerGone as e:
        print("FAIL %s" % e)
        sys.exit(1)
