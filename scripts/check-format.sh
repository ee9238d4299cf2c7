#!/usr/bin/env bash
# check-format.sh - fails if any hand-written C file differs from .clang-format (generated files are exempt).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check-format: clang-format not installed, skipped"; exit 0; }
bad=0
for f in $(git ls-files '*.c' '*.h' | grep -v -E '^src/api/|^include/gshmem/|^include/pshmem.h$'); do
  clang-format "$f" | diff -q - "$f" >/dev/null || { echo "not formatted: $f (run clang-format -i $f)"; bad=1; }
done
exit $bad
