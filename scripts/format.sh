#!/usr/bin/env bash
# clang-format (the style of .clang-format) over every C and C++ source the repository tracks,
# fuzz corpora and regression inputs aside. scripts/format.sh rewrites them in place;
# scripts/format.sh --check only says which differ, and fails when one does (scripts/lint.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$FORMAT" >/dev/null 2>&1 || { echo "format: $FORMAT is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' | grep -v -E '^tests/(fuzz/corpus|regression)/')
if [ "${1:-}" = --check ]; then
  if ! "$FORMAT" --dry-run -Werror "${files[@]}"; then
    echo "format: the files above differ from .clang-format's style: run scripts/format.sh" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files follow .clang-format"
else
  "$FORMAT" -i "${files[@]}"
fi
