#!/usr/bin/env bash
# Install what mcpidl needs to build and test, on Debian (or Ubuntu), when missing.
# Safe to run again: it installs only what is not there yet.
set -euo pipefail

# nginx: the load-balancer test (tests/e2e/nginx_replicas.test.mjs) starts one of its own, with its
# own configuration; where services may start, the package also starts the system's on port 80.
DEBS=(gcc g++ make cmake pkg-config re2c libyaml-dev libjson-c-dev libpcre2-dev libmicrohttpd-dev nettle-dev
      libgnutls28-dev libgmp-dev libcurl4-gnutls-dev openssl check dpkg-dev
      clang clang-tidy clang-format python3 python3-jsonschema python3-yaml valgrind nginx)

missing=()
for p in "${DEBS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libFuzzer's runtime (scripts/fuzz.sh) comes with clang only as a recommended package
# (libclang-rt-N-dev, N clang's major version), which the install above leaves out.
clang_major=$(clang -dumpversion | cut -d. -f1)
rt="libclang-rt-${clang_major}-dev"
if ! dpkg -s "$rt" >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  if apt-cache show "$rt" >/dev/null 2>&1; then
    echo "setup: installing $rt"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$rt" >/dev/null
  fi
fi

# The Python test helpers need jsonschema and yaml. Debian's packages serve Debian's python3; a
# python3 of another installation first on PATH must have them itself.
if ! python3 -c 'import jsonschema, yaml' >/dev/null 2>&1; then
  echo "setup: the python3 on PATH ($(command -v python3)) cannot import jsonschema and yaml;" >&2
  echo "setup: install them for it, or put Debian's /usr/bin first on PATH" >&2
  exit 1
fi

# The schema parity test (tests/parity) compares with what pydantic 2.13 publishes; pip installs it
# for the python3 on PATH when that has another version or none.
PYDANTIC=2.13.4
if ! python3 -c "import pydantic, sys; sys.exit(not pydantic.VERSION.startswith('2.13.'))" >/dev/null 2>&1; then
  echo "setup: installing pydantic $PYDANTIC for $(command -v python3)"
  if ! python3 -m pip install --quiet "pydantic==$PYDANTIC"; then
    echo "setup: pip could not install pydantic $PYDANTIC for $(command -v python3); install it" >&2
    echo "setup: yourself (a virtual environment first on PATH will do)" >&2
    exit 1
  fi
fi

# The end-to-end tests run the official MCP client, Inspector and conformance suite on Node.js,
# with Node 22 itself pinned in tests/e2e/package-lock.json (the suite does not load on older
# ones); any node and npm can install that. Debian's serve when none is here.
node_missing=()
command -v node >/dev/null 2>&1 || node_missing+=(nodejs)
command -v npm >/dev/null 2>&1 || node_missing+=(npm)
if [ ${#node_missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${node_missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${node_missing[@]}" >/dev/null
fi

# tests/e2e/node_modules, from the lock file: when missing, or older than the lock file.
E2E="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/e2e"
if [ ! -x "$E2E/node_modules/.bin/node" ] || [ "$E2E/package-lock.json" -nt "$E2E/node_modules/.package-lock.json" ]; then
  echo "setup: installing the end-to-end test packages (npm ci in tests/e2e)"
  log="$(mktemp)"
  if ! (cd "$E2E" && npm ci --no-audit --no-fund) >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: npm ci failed in tests/e2e" >&2
    exit 1
  fi
  rm -f "$log"
fi
echo "setup: all dependencies present"
