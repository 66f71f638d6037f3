#!/usr/bin/env bash
# Puts the baton Python package of a build (<build>/python/baton) and the `baton` command into the
# project's venv, so that after the README's set-up a fresh shell only needs
#   . .venv/bin/activate && baton topic list
# No copy and no pip: a .pth file adds <build>/python to the venv's sys.path (rebuilds are seen
# at once), and .venv/bin/baton runs baton.cli. Idempotent; run by `make build`.
#   scripts/install-baton-command.sh [BUILD_DIR]     (default: build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$(cd "$ROOT" && realpath -m "${1:-build}")"
VENV="$ROOT/.venv"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[install-baton-command] no venv at $VENV: run scripts/install-python.sh first" >&2
  exit 1
fi
if [ ! -d "$BUILD/python/baton" ]; then
  echo "[install-baton-command] $BUILD/python/baton not built (needs -DBATON_BUILD_PYTHON=ON)" >&2
  exit 1
fi
site="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$BUILD/python" >"$site/baton-build.pth"
cat >"$VENV/bin/baton" <<PY
#!$VENV/bin/python
# The baton command (scripts/install-baton-command.sh): the package from $BUILD/python.
import sys

from baton.cli import main

sys.exit(main())
PY
chmod +x "$VENV/bin/baton"
"$VENV/bin/baton" --help >/dev/null
echo "[install-baton-command] baton -> $BUILD/python (. .venv/bin/activate to put it on PATH)"
