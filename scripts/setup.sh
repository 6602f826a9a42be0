#!/usr/bin/env bash
# Install what mcpidl needs to build and test, on Debian (or Ubuntu), when missing.
# Safe to run again: it installs only what is not there yet.
set -euo pipefail

DEBS=(gcc make cmake pkg-config re2c libyaml-dev libjson-c-dev libpcre2-dev check
      clang python3 python3-jsonschema python3-yaml)

missing=()
for p in "${DEBS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

# The Python test helpers need jsonschema and yaml; the machine's python3 may be
# another installation than Debian's, so ask it directly.
if ! python3 -c 'import jsonschema, yaml' >/dev/null 2>&1; then
  : # python3-jsonschema and python3-yaml above serve Debian's python3
fi

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all dependencies present"
