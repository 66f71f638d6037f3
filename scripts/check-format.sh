#!/usr/bin/env bash
# Fails if clang-format (Google style, 100 columns: .clang-format) would change any C++ file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
files=$(find include src tests bench examples tools python/src \( -name '*.cpp' -o -name '*.hpp' \) 2>/dev/null | grep -v '/target/' || true)
bad=$(for f in $files; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
if [ -n "$bad" ]; then
  echo "clang-format would change:"; echo "$bad"; echo "run: make format"; exit 1
fi
echo "format: ok ($(echo "$files" | wc -w) files)"
