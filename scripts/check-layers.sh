#!/usr/bin/env bash
# The layering check (includes, private headers, CMake links): see scripts/check_layers.py.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="$root/.venv/bin/python"
[ -x "$py" ] || py=python3
exec "$py" "$root/scripts/check_layers.py" "$root"
