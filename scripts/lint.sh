#!/usr/bin/env bash
# The style of every C source (scripts/format.sh --check, .clang-format), then clang-tidy (the
# checks of .clang-tidy) over the sources of the runtime (lib/), the front end (idl/) and the
# compiler (compiler/), compiled as build/compile_commands.json says. Exits non-zero on any
# finding. Usage: scripts/lint.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
TIDY=${CLANG_TIDY:-clang-tidy}

scripts/format.sh --check

command -v "$TIDY" >/dev/null 2>&1 || { echo "lint: $TIDY is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
if [ ! -f "$BUILD/compile_commands.json" ]; then
  cmake -S . -B "$BUILD" >/dev/null
fi

# Each source of lib/, idl/ and compiler/ once (generated files, in the build tree, are left out).
mapfile -t files < <(python3 - "$BUILD/compile_commands.json" "$PWD" <<'PY'
import json, os, sys
root = sys.argv[2]
seen = set()
for entry in json.load(open(sys.argv[1])):
    f = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
    rel = os.path.relpath(f, root)
    if rel.split(os.sep)[0] in ("lib", "idl", "compiler") and f not in seen:
        seen.add(f)
        print(f)
PY
)
if [ ${#files[@]} -eq 0 ]; then
  echo "lint: no source of lib/, idl/ or compiler/ in $BUILD/compile_commands.json" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
printf '%s\0' "${files[@]}" | xargs -0 -P "$JOBS" -n 4 "$TIDY" -p "$BUILD" --quiet >"$log" 2>&1 || status=$?
# clang-tidy prints "N warnings generated" for what the header filter hides: only findings count.
if grep -E ': (warning|error): ' "$log" >/dev/null || [ "$status" -ne 0 ]; then
  grep -v -E '^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter' "$log" >&2 || true
  echo "lint: clang-tidy found problems in ${#files[@]} files" >&2
  exit 1
fi
echo "lint: clang-tidy clean (${#files[@]} files)"
