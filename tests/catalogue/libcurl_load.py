"""libcurl is loaded by the HTTP transport only when the server needs to fetch something.

libmcpidl-http does not link libcurl: lib/transport/fetch.c opens it with dlopen() the first time
authorization needs a URL fetched (a JWKS URL, an introspection endpoint). This test starts the
catalogue server, which links libmcpidl-http, and reads /proc/PID/maps once it listens:

  - without authorization, and with a JWKS file, no libcurl is mapped;
  - with a JWKS URL (served here on 127.0.0.1), libcurl is mapped and the key set was fetched;
  - with MCPIDL_TEST_LIBCURL naming a file that does not exist, or a library that is not libcurl,
    a server that needs libcurl refuses to start, and says which file it tried and why it failed;
    one that does not need it starts as usual.

MCPIDL_TEST_LIBCURL replaces the file name fetch.c loads (the SONAME the build found): it is there
for this test only.

usage: libcurl_load.py --server CATALOGUE_SERVER --work DIR
"""
import argparse
import http.server
import json
import os
import re
import sys
import threading

from peers import HANG_GUARD, HttpServer, Process, ServerGone

ISSUER = "http://127.0.0.1:9"  # never fetched: only compared with tokens' iss
RESOURCE = "http://127.0.0.1/mcp"
# An Ed25519 public key (any 32 bytes load as one): a key set the server takes.
JWKS = json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "k1",
                             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}).encode()

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def curl_mappings(pid):
    """The files of /proc/PID/maps whose name holds libcurl."""
    with open("/proc/%d/maps" % pid) as f:
        return sorted({line.split()[-1] for line in f if "libcurl" in line.split()[-1]})


class KeySet(http.server.BaseHTTPRequestHandler):
    hits = 0

    def do_GET(self):
        KeySet.hits += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(JWKS)))
        self.end_headers()
        self.wfile.write(JWKS)

    def log_message(self, *args):
        pass


def auth_args(jwks):
    return ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-jwks", jwks]


def listening(server, args, env=None):
    """The server started over HTTP with args: its libcurl mappings while it listens."""
    s = HttpServer([server] + args, env)
    try:
        return curl_mappings(s.p.pid), s.err.text()
    finally:
        s.kill()


def refused(server, args, env):
    """The server started with args, expected to refuse: (exit status, standard error)."""
    p = Process([server] + args + ["--http", "127.0.0.1:0"], env)
    status = p.wait_exit(HANG_GUARD)
    p.kill()
    return status, p.err.text()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    jwks_file = os.path.join(a.work, "jwks.json")
    with open(jwks_file, "wb") as f:
        f.write(JWKS)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), KeySet)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    jwks_url = "http://127.0.0.1:%d/jwks" % httpd.server_address[1]

    maps, _ = listening(a.server, [])
    check(maps == [], "without authorization, no libcurl mapped (%s)" % maps)
    maps, _ = listening(a.server, auth_args(jwks_file))
    check(maps == [], "with a JWKS file, no libcurl mapped (%s)" % maps)
    maps, err = listening(a.server, auth_args(jwks_url))
    check(len(maps) == 1, "with a JWKS URL, libcurl mapped (%s)" % maps)
    check(KeySet.hits == 1, "with a JWKS URL, the key set fetched once at start (%d)" % KeySet.hits)
    check("cannot load the keys" not in err, "with a JWKS URL, the keys loaded:\n" + err)

    missing = os.path.join(a.work, "no-such-libcurl.so.4")
    env = dict(os.environ, MCPIDL_TEST_LIBCURL=missing)
    maps, _ = listening(a.server, [], env)
    check(maps == [], "a missing libcurl, no authorization: the server starts without it")
    for name, args in [("a JWKS URL", auth_args(jwks_url)),
                       ("an introspection endpoint",
                        ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE,
                         "--auth-introspect", "http://127.0.0.1:9/introspect",
                         "--auth-client-id", "id", "--auth-client-secret-file", jwks_file])]:
        status, err = refused(a.server, args, env)
        check(status not in (None, 0), "a missing libcurl, %s: the server exits (%s)" % (name, status))
        check(re.search(r"cannot start: authorization: --auth-\S+ \S+ needs libcurl to fetch it: "
                        r"cannot load libcurl, " + re.escape(missing) + r" \(.*" + re.escape(missing) +
                        r": cannot open shared object file.*\): install it", err) is not None,
              "a missing libcurl, %s: the error names the file and the loader's reason:\n%s" % (name, err))
        check(not re.search(r"\.c:\d+", err), "a missing libcurl, %s: no file:line in the error" % name)
        check("listening" not in err, "a missing libcurl, %s: nothing served" % name)

    # A library that loads but is not libcurl: the symbol it lacks is named.
    libc = next(m for m in open("/proc/self/maps").read().split() if re.search(r"/libc\.so\.6$", m))
    status, err = refused(a.server, auth_args(jwks_url), dict(os.environ, MCPIDL_TEST_LIBCURL=libc))
    check(status not in (None, 0) and re.search(re.escape(libc) + r" is not a usable libcurl: .*curl_global_init",
                                               err) is not None,
          "not a libcurl: the server exits, naming the file and the missing function:\n%s" % err)
    httpd.shutdown()
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
